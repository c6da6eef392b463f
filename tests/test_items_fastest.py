"""Several models or formats on one GPU with "which is fastest?": the answer to the comparison leads (the fastest,
its per-user speed and its ratio to the slowest), then every row.

Hand check: single-stream decode reads the weights once per token. Qwen2.5 7B has 7.62e9 parameters
(knowledge/models.yaml): 15.2 GB in fp16 and about 4.3 GB in int4 (0.5 byte per weight plus scales), so int4 reads
~3.5x fewer bytes per token on the same L4 (300 GB/s) and must be the fastest by well over 1.5x (fixed per-step
costs keep it under the byte ratio).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "qwen2.5 7b in fp16 and in int4 on one L4: which is faster?",
    "一张 L4 上 qwen2.5 7b 的 fp16 和 int4 哪个更快",
])
def test_the_fastest_leads_with_its_ratio_to_the_slowest(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "items_fastest"
    assert h.params["config"]["precision"] == "int4" and h.params["slow_config"]["precision"] == "fp16"
    assert 1.5 < h.params["ratio_x"] < 3.6
    assert h.params["ratio_x"] == pytest.approx(h.params["fast_tps"] / h.params["slow_tps"])
    assert a.details[0].code == "items_summary"  # every row still said


@pytest.mark.parametrize("text", [
    "qwen2.5 7b in fp16 vs int4 on an L4: speed and cost per million tokens?",
    "L4 上 qwen2.5 7b 用 fp16 还是 int4，速度和每百万 token 成本差多少",
])
def test_two_formats_compared_on_speed_and_token_cost(kb, text):
    # cost per 1M tokens = $/h / (tokens/s x 3,600) x 10^6 at full load, for each format on its own
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "items_fastest"
    costs = next(d for d in a.details if d.code == "compare_costs")
    items = costs.params["items"]
    assert {i["config"]["precision"] for i in items} == {"fp16", "int4"}
    assert [i["cost_usd"] for i in items] == sorted(i["cost_usd"] for i in items)
