"""Region availability: "can I rent H100 in China" / "国内能租到 H100 吗" get the sourced export rule for each GPU named
in that market (knowledge/markets.yaml), first when availability is asked; a GPU with no rule is said to be unknown.

Facts (knowledge/markets.yaml, each with its source):
* H100 / A100 / H800 / L40S / RTX 4090: US licence required for China since 2023-10-17 (Interim Final Rule quoted in
  NVIDIA's SEC filing, videocardz 2023-10-18; effective immediately 2023-10-23 per NVIDIA's 8-K).
* H200: case-by-case licences since 2026-01-13 (particle.news / uniteddaily.my).
* B200: under US export controls, no sales (aiweekly.co, read 2026-12-02).
* H20 (as of 2025-07-21), L20, RTX 4090 D, RTX 5090 D, RTX 5090 D V2: China-market parts.
* MI300X: no rule recorded.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)
CHINA_PARTS = ["H20", "L20", "RTX 4090 D", "RTX 5090 D", "RTX 5090 D V2"]


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize("text", [
    "can I rent H100 in China", "国内能租到 H100 吗", "H100 export controls, can we buy in China?"])
def test_h100_in_china_leads_with_the_licence_rule(kb, text):
    q = parse_question(text, kb)
    assert q.market == "china_mainland" and "availability" in q.asks
    a = ask(kb, text)
    assert a.headline.code == "market_licence_required"
    assert a.headline.params["since"] == "2023-10-17" and a.headline.params["as_of"] == "2023-10-23"
    assert a.headline.params["alternatives"] == CHINA_PARTS
    # the prices that follow (a quote) are from clouds outside mainland China: said
    assert ("market_prices_outside" in [n.code for n in a.details]) == (a.query.intent == "quote")
    assert any("videocardz.com" in s for s in a.sources)


@pytest.mark.parametrize(("text", "code", "as_of"), [
    ("国内能买到H200吗", "market_licence_case_by_case", "2026-01-13"),
    ("B200 export controls China", "market_barred", "2026-12-02"),
    ("国内有B200吗", "market_barred", "2026-12-02"),
    ("Is the H20 available outside China?", "market_china_market", "2025-07-21"),
])
def test_each_gpu_gets_its_own_rule(kb, text, code, as_of):
    a = ask(kb, text)
    assert a.headline.code == code and a.headline.params["as_of"] == as_of


def test_a_gpu_with_no_rule_is_unknown_not_guessed(kb):
    a = ask(kb, "国内能租到 MI300X 吗")
    assert a.headline.code == "market_unknown" and a.headline.params["gpu_names"] == ["MI300X"]
    assert "不清楚" in render_text(a)


def test_two_gpus_two_rules_in_order(kb):
    a = ask(kb, "can I buy H100 and H20 in China?")
    assert [a.headline.code, a.details[0].code] == ["market_licence_required", "market_china_market"]


def test_a_price_question_in_china_warns_only_of_limits(kb):
    a = ask(kb, "国内租4090多少钱一小时")
    assert "availability" not in a.query.asks
    assert a.headline.code != "market_licence_required"
    assert "market_licence_required" in [n.code for n in a.warnings]
    # a China-market card is not a limit: nothing said
    b = ask(kb, "国内租 L20 多少钱")
    assert not any(n.code.startswith("market_") for n in [*b.warnings, *b.details])


def test_prices_inside_the_market_are_not_called_outside(kb):
    # AWS China (aws-china.yaml, market china_mainland) prices p4d.24xlarge (8x A100 40GB) in CNY
    a = ask(kb, "AWS 中国区 p4d 多少钱")
    assert not any(n.code == "market_prices_outside" for n in [*a.warnings, *a.details])


def test_no_market_named_no_rule(kb):
    a = ask(kb, "H100 price per hour")
    assert a.query.market is None
    assert not any(n.code.startswith("market_") for n in [a.headline, *a.warnings, *a.details])
