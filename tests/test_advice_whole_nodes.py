"""A few GPUs asked at a provider that rents only whole 8-GPU nodes: said first, with the cheapest way to rent just the
count asked, never a silent charge for 8.

Prices (knowledge/prices): CoreWeave rents A100 SXM4 80GB and HGX H100 only as 8-GPU nodes ("NVIDIA A100
(on-demand)" $21.60/h, "NVIDIA HGX H100 (on-demand)" $49.24/h, spot $19.71/h, as of 2026-09-20); RunPod rents one
A100 80GB SXM at $1.89/h and one H100 SXM at $2.99/h (undated catalog rows); GCP a3-highgpu-1g spot $6.57/h
(2026-09-26); Lambda rents 2x H100 SXM as one instance at $8.38/h (2026-09-20).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_two_a100s_at_coreweave_for_a_week(kb):
    a = ask(kb, "what would 2 A100s cost on coreweave for 7 days")
    h = a.headline
    assert h.code == "quote_whole_nodes_only"
    assert (h.params["count"], h.params["gpus_rented"], h.params["idle"]) == (2, 8, 6)
    assert h.params["total_usd"] == pytest.approx(168 * 21.60)  # $3,628.80: all 8 GPUs paid for
    # just 2 elsewhere: 2 x RunPod 1x_A100-80GB-SXM_SECURE at $1.89/h x 168 h = $635.04
    assert h.params["alt_provider"] == "RunPod" and h.params["alt_config"]["gpu_count"] == 2
    assert h.params["alt_total_usd"] == pytest.approx(2 * 1.89 * 168)
    assert h.params["alt_undated"]
    alt = next(o for o in a.options if o.changes == ["provider"])
    assert alt.price.idle_gpus == 0 and alt.gpu_count == 2
    text = compose(a).headline
    assert text.startswith("CoreWeave rents A100 SXM4 80GB only as 8-GPU nodes")
    assert "6 of the 8 GPUs idle and paid for" in text


def test_spot_is_compared_with_spot(kb):
    # CoreWeave spot node $19.71/h x 24 = $473.04; two GCP a3-highgpu-1g spot at $6.57/h x 24 = $315.36
    a = ask(kb, "2x H100 spot on coreweave for a day")
    h = a.headline
    assert h.code == "quote_whole_nodes_only"
    assert h.params["total_usd"] == pytest.approx(24 * 19.71)
    assert h.params["alt_provider"] == "GCP"
    assert h.params["alt_total_usd"] == pytest.approx(2 * 6.57 * 24, rel=1e-3)


def test_a_provider_that_rents_the_count_is_quoted_as_usual(kb):
    a = ask(kb, "rent 2 H100 on lambda for 2 weeks")
    assert a.headline.code == "quote_one"
    assert a.headline.params["total_usd"] == pytest.approx(336 * 8.38)  # Lambda 2x NVIDIA H100 SXM


def test_eight_at_the_same_provider_is_not_flagged(kb):
    a = ask(kb, "8x H100 on coreweave for a day")
    assert a.headline.code == "quote_one"
    assert a.headline.params["total_usd"] == pytest.approx(24 * 49.24)


def test_the_chinese_answer_says_it_in_chinese(kb):
    a = ask(kb, "在 coreweave 租 2 张 H100 一天多少钱")
    assert a.headline.code == "quote_whole_nodes_only"
    assert "只按 8 卡整机出租" in compose(a).headline


def test_a_served_model_on_a_whole_node_says_it_under_the_headline(kb):
    # one A100 named at CoreWeave: the only A100 there is the 8-GPU node ($21.60/h); just one rents at RunPod $1.89/h
    a = ask(kb, "serve llama 3 8b on one A100 at coreweave, cost per month")
    line = next(d for d in a.details if d.code == "idle_gpus")
    assert (line.params["idle"], line.params["gpus_rented"]) == (7, 8)
    assert line.params["alt_provider"] == "RunPod" and line.params["alt_price_usd"] == pytest.approx(1.89)
    assert a.details.index(line) <= 1  # right under the headline (after the month's cost, when asked)
    assert not any(w.code == "idle_gpus" for w in a.warnings)


def test_a_run_priced_on_a_whole_node_says_it_under_the_headline(kb):
    a = ask(kb, "fine-tune llama 3 8b with lora on 1 A100 on coreweave, cost")
    assert a.details and a.details[0].code == "idle_gpus"
    assert "Just the 1 rent for $1.89/h at RunPod" in compose(a).details[0]
