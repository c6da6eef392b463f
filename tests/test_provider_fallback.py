"""A run priced "at <provider>" where that provider has no price for the GPU is priced at the best other offer,
with a warning naming both, rather than left without a cost; quotes keep saying per provider what is missing.

Hand check: 128 A100 80GB for 8,511 GPU-hours; RunPod 8x_A100-80GB-SXM_SECURE $15.12/h = $1.89/GPU-h
(knowledge/prices/runpod.yaml); Alibaba Cloud publishes no list price (knowledge/prices unpriced providers).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "pretrain 一个 3B 模型 两千亿 token，128 张 A100 要多少天，花多少钱（按阿里云价格）",
    "how long and what cost to pretrain a 3b model on 200B tokens with 128 A100s on alibaba cloud",
])
def test_a_run_at_an_unpriced_provider_is_priced_elsewhere_and_said(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    o = a.options[a.recommendation]
    assert o.gpu_count == 128 and o.total_cost_usd
    assert o.total_cost_usd == pytest.approx(o.gpu_hours * o.price.price_per_gpu_hour_usd, rel=1e-3)
    fallback = [w for w in a.warnings if w.code == "provider_fallback"]
    assert fallback and fallback[0].params["used"] == o.price.provider_name


def test_a_quote_at_an_unpriced_provider_still_says_it_has_no_price(kb):
    a = advise(parse_question("腾讯云 A10 一个月多少钱", kb), kb, today=TODAY)
    assert not [w for w in a.warnings if w.code == "provider_fallback"]


def test_a_named_providers_own_secondary_figure_comes_before_another_providers_list_price(kb):
    # AutoDL's 4090 figure, ¥1.98 per GPU-hour (knowledge/prices price mentions): ¥3,000 / ¥1.98 = 1,515 h
    a = advise(parse_question("QLoRA 微调Qwen2.5 32B，预算三千元，在AutoDL 4090上能训多少token", kb), kb, today=TODAY)
    assert not [w for w in a.warnings if w.code == "provider_fallback"]
    assert a.headline.params["hours"] == pytest.approx(3000 / 1.98, rel=1e-3)
