"""Several clouds named, some with no list price: the priced ones lead, ranked; every named cloud without one is
said after them with what to do (a console or sales quote) and the closest priced offer, never dropped.

Figures (hand-computed from the knowledge base):
* knowledge/prices/lambda.yaml: 8x NVIDIA H100 SXM $31.92/h on demand (as_of 2026-09-20, api-evangelist/lambda-labs
  plans file); a month is 730 h (policy): 31.92 x 730 = $23,301.60.
* knowledge/prices/aws.yaml: p5.48xlarge $55.04/h on demand; 55.04 x 730 = $40,179.20.
* knowledge/prices/common/price_mentions.yaml: AutoDL H800 ¥8.88 per GPU-hour, RTX 4090 ¥1.98 (a user's copy of
  AutoDL's table, as_of 2026-05-01); exchange_rates.yaml 6.8012 CNY per USD: 8 x 8.88 / 6.8012 = $10.445/h,
  x 730 = $7,625; 1.98 / 6.8012 = $0.2911/h.
* knowledge/prices/common/unpriced_providers.yaml: Alibaba Cloud, Tencent Cloud, Volcano Engine, Nebius, Crusoe and
  AutoDL publish no list price this project could source.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)
CNY_PER_USD = 6.8012


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def lead(answer) -> str:
    return render_text(answer).split("\n\n")[0]


@pytest.mark.parametrize("text", [
    "AWS vs Lambda vs Nebius vs Crusoe: cheapest 8x H100 for a month",
    "AWS、Lambda、Nebius、Crusoe 哪个租 8 张 H100 一个月最便宜",
])
def test_priced_clouds_lead_and_the_unpriced_follow_with_the_closest_offer(kb, text):
    a = ask(kb, text)
    lines = lead(a).split("\n")
    assert "Lambda" in lines[1] and "AWS" in lines[1]
    assert lines[1].index("Lambda") < lines[1].index("AWS")  # ranked: $23,302 before $40,179
    assert "Nebius" not in lines[1]
    n = next(n for n in a.details if n.code == "provider_no_list_price")
    assert n.params["providers"] == ["Nebius", "Crusoe"]
    assert n.params["nearest_provider"]["en"] == "Lambda"
    assert n.params["nearest_hour_usd"] == pytest.approx(31.92)
    assert n.params["nearest_total_usd"] == pytest.approx(31.92 * 730)
    assert not any(m.code == "provider_unpriced" for m in a.missing)
    assert "Nebius" in lines[2] and "Crusoe" in lines[2]


@pytest.mark.parametrize("text", [
    "阿里云、腾讯云、火山引擎和AutoDL哪家租8张H800一个月最便宜",
    "Which of Alibaba Cloud, Tencent Cloud, Volcengine and AutoDL is cheapest for 8 H800 for a month",
])
def test_a_secondary_figure_leads_before_the_clouds_without_a_price(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "mention_cost" and a.headline.params["named"]
    assert a.headline.params["hour"]["amount"] == pytest.approx(8 * 8.88)
    n = next(n for n in a.details if n.code == "provider_no_list_price")
    assert n.params["providers"] == ["Alibaba Cloud (阿里云)", "Tencent Cloud (腾讯云)", "Volcano Engine (火山引擎)"]
    assert n.params["secondary"] is True
    assert n.params["nearest_hour_usd"] == pytest.approx(8 * 8.88 / CNY_PER_USD, rel=1e-4)  # $10.445/h
    assert n.params["nearest_total_usd"] == pytest.approx(8 * 8.88 / CNY_PER_USD * 730, rel=1e-4)  # $7,625
    assert a.details.index(n) == 0  # right under the priced lead


def test_a_named_cloud_with_a_figure_is_priced_beside_list_prices(kb):
    a = ask(kb, "AutoDL、阿里云、RunPod 哪个租 4090 一个月便宜")
    figure = next(n for n in a.details if n.code == "mention_cost")
    assert figure.params["per_gpu"]["amount"] == pytest.approx(1.98)
    n = next(n for n in a.details if n.code == "provider_no_list_price")
    assert n.params["providers"] == ["Alibaba Cloud (阿里云)"]  # AutoDL has a figure, so it is not listed here
    assert a.details.index(figure) < a.details.index(n)


def test_one_cloud_named_without_a_price_still_leads_with_that(kb):
    a = ask(kb, "volcengine H20 per day")
    assert a.headline.code == "provider_unpriced"
    assert not any(n.code == "provider_no_list_price" for n in a.details)
