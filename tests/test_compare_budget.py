"""An hourly budget in a comparison is checked against each side's price; when none is within it, that leads.

Hand check: the prices are each side's cheapest placement (knowledge/prices); a side is within the budget when its
price per hour is at most the budget.
"""

from __future__ import annotations

from datetime import date

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_a_budget_no_side_meets_leads(kb):
    a = advise(parse_question("L40S or A100 80GB for mixtral 8x7b, budget $4/h, 50 users", kb), kb, today=TODAY)
    assert a.headline.code == "compare_budget" and a.headline.params["none"]
    assert a.headline.params["limit_usd"] == 4
    assert all(i["price_usd"] > 4 for i in a.headline.params["over"])


def test_a_budget_some_side_meets_is_said_beside_the_comparison(kb):
    a = advise(parse_question("L4 vs L40S for llama 3.1 8b, 20 users, under $1.8/h", kb), kb, today=TODAY)
    line = next(d for d in a.details if d.code == "compare_budget")
    assert not line.params["none"] and line.params["some"]
    assert all(i["price_usd"] > 1.8 for i in line.params["over"])
    assert [c["gpu_name"] for c in line.params["within"]] == ["L40S"]


def test_best_value_for_one_user_is_the_cheapest_setup_per_hour_of_each_gpu(kb):
    # Qwen2.5 14B: 14.77e9 params -> 29.5 GB in bf16 (two 24 GB cards) or 14.8 GB in 8-bit (one card); for one user
    # the one-card 8-bit setup is the cheap one, and the cheapest per hour among the GPUs is the value pick
    a = advise(parse_question("4090 vs 3090 vs a6000 for qwen2.5 14b inference single user, which is best value?", kb),
               kb, today=TODAY)
    assert a.headline.code == "compare_value"
    items = a.headline.params["items"]
    assert all(i["config"]["gpu_count"] == 1 for i in items)
    assert a.headline.params["pick"] == min(items, key=lambda i: i["price_usd"])["config"]
    assert all(i["single_tps"] >= 10 for i in items)  # each serves the one user at the policy floor or more
