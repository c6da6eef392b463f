"""Price questions about billing terms, counts said apart, buy vs rent at home and China-market cards, from the
user's side: question in, the answer's figures out, hand-computed from the price rows.

Rows used (knowledge/prices/):
* runpod.yaml ``1x_A100-80GB-SXM_SECURE`` 1 GPU $1.89/h (undated); ``1x_H100-SXM_SECURE`` $2.99/h (undated);
  ``1x_RTX4090_SECURE`` $0.69/h (undated).
* digitalocean.yaml ``NVIDIA H100 (8x) (GPU Droplet)`` 8 GPUs $23.92/h (2026-05-28).
* aws.yaml ``p4de.24xlarge`` 1-year commitment 8 GPUs $17.401365/h (2025-11-30): the only 1-year A100 80GB
  commitment, and it rents 8 GPUs.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- a count said apart from the GPU

@pytest.mark.parametrize("text, count, hours", [
    ("H100 多少钱一张，我们要 16 张，用三个月", 16, 3 * 730),
    ("what's an H100 per hour? we need 16 of them for 2 months", 16, 2 * 730),
    ("4090 一张多少钱？要 8 张，租一个月", 8, 730),
    ("how much is an A100 80GB per hour, we need 4 cards for a week", 4, 168),
])
def test_a_count_said_apart_from_a_unit_price_is_the_count_quoted(kb, text, count, hours):
    # "多少钱一张" / "an H100 per hour" asks the price of one unit; the count needed is the one stated apart
    a = ask(kb, text)
    assert a.headline.code == "quote_one"
    o = a.options[0]
    assert o.gpu_count == count
    assert a.headline.params["hours"] == pytest.approx(hours)
    # the total is for all of them: price per GPU-hour x count x hours (idle GPUs included when a row has them)
    assert a.headline.params["total_usd"] == pytest.approx(o.price.price_per_hour_usd * hours)
    assert o.price.gpus_rented >= count


@pytest.mark.parametrize("text", ["H100 多少钱一张", "what's an H100 per hour?"])
def test_a_unit_price_alone_is_one_gpu(kb, text):
    # RunPod 1x_H100-SXM_SECURE $2.99/h is the cheapest 1-GPU row
    a = ask(kb, text)
    assert a.options[0].gpu_count == 1
    assert a.headline.params["price_usd"] == pytest.approx(2.99)
