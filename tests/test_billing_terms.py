"""Billing terms a cloud does not publish: a monthly plan ("包月", "billed monthly") is said to be unpublished with the
terms that are; a commitment term a cloud lacks is "none published", never "none for this count"; a term compared
with on-demand ("annual vs on-demand") is a billing term; "reserved ... for a year" is the 1-year term; a common-word
cloud name before a GPU ("Lambda H100", "lambda 8x h100") is the cloud.

Prices (knowledge/prices, hand-checked):
* aws.yaml p5.48xlarge (8x H100 SXM5): on demand $55.04/h (as_of 2026-11-09); spot $28.106467/h, 1-year commitment
  $43.344/h, 3-year commitment $20.695053/h, as_of 2025-11-30; p5.4xlarge (1x H100) 3-year commitment $2.586872/h,
  so 8 GPUs on a 3-year term are cheapest as 8 x p5.4xlarge = $20.694976/h. No 1-month term anywhere.
* lambda.yaml 1x NVIDIA H100 SXM on demand $4.29/h (as_of 2026-09-20; an undated $3.29 catalog row is older);
  no commitment rows. A month is 730 h: 4.29 x 730 = $3,131.70.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize("text", ["Lambda H100 price", "lambda 8x h100 price", "Lambda H100 annual vs monthly vs on-demand"])
def test_a_common_word_cloud_before_a_gpu_is_the_cloud(kb, text):
    assert parse_question(text, kb).providers == ["lambda"]


def test_lambda_alone_as_a_word_is_not_a_cloud(kb):
    assert parse_question("lambda function on h100?", kb).providers == []


@pytest.mark.parametrize(("text", "term"), [
    ("RunPod H100 reserved price for a year", "1y"),
    ("AWS H100 reserved for 3 years", "3y"),
])
def test_reserved_for_a_length_is_that_term(kb, text, term):
    q = parse_question(text, kb)
    assert q.commitment_term == term and "commitment" in q.pricing


def test_a_term_compared_with_on_demand_is_a_billing_term(kb):
    q = parse_question("Lambda H100 annual vs monthly vs on-demand price", kb)
    assert q.pricing[:2] == ["commitment", "on_demand"] and q.commitment_term == "1y"
    assert q.billing_terms == ["monthly"]
    # a year of on-demand use stays a length of time
    q = parse_question("on-demand H100 for one year", kb)
    assert "commitment" not in q.pricing and q.duration_hours == 8760


@pytest.mark.parametrize("text", ["AWS 8张H100 包月多少钱", "AWS 8x H100 billed monthly, how much?"])
def test_a_monthly_plan_not_published_shows_the_terms_that_are(kb, text):
    a = ask(kb, text)
    n = next(n for n in a.details if n.code == "term_unpublished")
    assert n.params["term"] == "monthly" and n.params["providers"] == ["AWS"] and n.params["count"] == 8
    terms = {i["pricing_model"]: i["price_usd"] for i in n.params["items"]}
    assert terms == pytest.approx({"on_demand": 55.04, "spot": 28.106467, "commitment:1y": 43.344,
                                   "commitment:3y": 8 * 2.586872})  # 8 p5.4xlarge beat one p5.48xlarge
    # the month is still priced on-demand: 55.04 x 730
    assert a.headline.params["total_usd"] == pytest.approx(55.04 * 730)


def test_a_commitment_a_cloud_lacks_is_none_published_not_a_count(kb):
    a = ask(kb, "Lambda H100 包年还是按月还是按量便宜")
    assert a.headline.code == "quote_terms"
    first = a.headline.params["items"][0]
    assert first["pricing_model"] == "commitment:1y" and first["unpublished"] is True and first["count"] is None
    assert first["price_usd"] == pytest.approx(4.29) and first["total_usd"] == pytest.approx(4.29 * 730)
    n = next(n for n in a.details if n.code == "term_unpublished")
    assert [(i["pricing_model"], i["price_usd"]) for i in n.params["items"]] == [("on_demand", pytest.approx(4.29))]


def test_no_monthly_line_for_a_gpu_with_no_price_or_an_unpriced_cloud(kb):
    for text in ("换成 A800 呢，要包月多少钱", "AutoDL 4090 包月多少钱"):
        assert not any(n.code == "term_unpublished" for n in ask(kb, text).details), text


def test_the_terms_shown_rent_just_the_count_when_they_can(kb):
    # 1x H100 at AWS: on demand p5.4xlarge $6.88/h (not a fresher 8-GPU p5.48xlarge); spot exists only as the
    # 8-GPU p5.48xlarge ($28.106467/h), said to pay for 8 GPUs; 1-year $5.418/h, 3-year $2.586872/h (p5.4xlarge)
    a = ask(kb, "AWS H100 monthly plan vs on-demand")
    n = next(n for n in a.details if n.code == "term_unpublished")
    got = {i["pricing_model"]: (round(i["price_usd"], 6), i["rented"]) for i in n.params["items"]}
    assert got == {"on_demand": (6.88, None), "spot": (28.106467, 8), "commitment:1y": (5.418, None),
                   "commitment:3y": (2.586872, None)}
