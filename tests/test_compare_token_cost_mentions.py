"""Cost per 1M tokens asked for GPUs without list prices (China-market cards): the cost per token at the
secondary-source figures that exist leads, labelled as such, as for "which is cheaper".

Formula (bot/advice/compare.py _cost_at_mentions): USD per GPU-hour / (tokens/s per GPU x 3,600) x 10^6; e.g. a
$1.31/GPU-h figure at 829 tokens/s per GPU is 1.31 / (829 x 3600) x 1e6 = $0.439 per 1M tokens.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "cost per million tokens: H20 vs H800 for qwen2.5 72b",
    "H20 和 H800 跑 qwen2.5 72b 推理，每百万 token 成本对比",
])
def test_token_cost_at_secondary_figures_leads(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "compare_cost_mentions"
    assert len(h.params["items"]) == 2
    for item in h.params["items"]:
        assert item["cost_usd"] == pytest.approx(item["per_gpu_usd"] / (item["per_gpu_tps"] * 3600) * 1e6)
    costs = [i["cost_usd"] for i in h.params["items"]]
    assert costs == sorted(costs)
    assert h.params["ratio_x"] == pytest.approx(costs[-1] / costs[0])
