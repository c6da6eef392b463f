"""One offer rule for every answer, whole commitment terms, and instance shapes that exist (issue 13, point 3).

Prices used (knowledge/prices, every row with its source and as_of):
- gcp.yaml g2-standard-24 (2x L4) $2.00083/h on-demand, us-central1, 2026-08-20 (Cyclenerd pricing.yml, key hour).
- gcp.yaml a2-ultragpu-2g (2x A100 80GB) $10.1376/h on-demand, us-central1, 2026-08-20.
- coreweave.yaml A100 8-GPU node $21.60/h (2026-09-20); lambda.yaml gpu_8x_a100_80gb_sxm4 $14.32/h (undated).
- vast.yaml 1x-RTX_4090 $0.40/h and 1x-RTX_3090 $0.25/h (undated); runpod.yaml 1x_RTX4090_SECURE $0.69/h and
  1x_RTX3090_SECURE $0.43/h (undated).
- aws.yaml p5.4xlarge (1x H100) 1-year commitment $5.418/h (no upfront, 2025-11-30).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.pricing.offers import Offer, OfferRule, OfferTable, best_placement, billed_hours, offer_table

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- whole commitment terms

def test_billed_hours_rounds_up_to_whole_terms():
    assert billed_hours(2190, 8760) == 8760  # 3 months on a 1-year term pay the year
    assert billed_hours(9000, 8760) == 2 * 8760  # a little over a year pays two terms
    assert billed_hours(8760, 8760) == 8760
    assert billed_hours(2190, None) == 2190  # on-demand and spot pay the hours used


@pytest.mark.parametrize("text", ["2x H100 for 3 months with a 1 year commitment",
                                  "two h100s, 1-year reserved, we only need them for 3 months"])
def test_a_one_year_commitment_for_three_months_is_billed_for_the_year_and_said_first(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "commitment_whole_term"
    # AWS p5.4xlarge 1-year $5.418/h x 2 instances = $10.836/h; x 8,760 h = $94,923.36 (not x 2,190 h = $23,730.84)
    assert a.headline.params["total_usd"] == pytest.approx(2 * 5.418 * 8760)
    assert a.headline.params["used_usd"] == pytest.approx(2 * 5.418 * 2190)
    lead = next(o for o in a.options if o.price and o.price.pricing_model == "commitment")
    assert lead.total_cost_usd == pytest.approx(2 * 5.418 * 8760)


def test_a_term_said_before_the_length_of_use_is_still_billed_for_the_term(kb):
    a = ask(kb, "1-year commitment, 2x H100, needed for 3 months")
    assert a.query.duration_hours == 3 * 730  # the use, not the term (it was read as 8,760 h of use)
    assert a.headline.code == "commitment_whole_term"
    # AWS p5.4xlarge 1-year $5.418/h x 2 instances x 8,760 h billed; 2,190 h used
    assert a.headline.params["total_usd"] == pytest.approx(2 * 5.418 * 8760)
    assert a.headline.params["used_usd"] == pytest.approx(2 * 5.418 * 2190)


def test_a_monthly_rate_of_a_reservation_is_billed_per_month(kb):
    a = ask(kb, "monthly cost of 2 h100 on a 1-year reservation")
    assert a.headline.code != "commitment_whole_term"
    lead = next(o for o in a.options if o.price and o.price.pricing_model == "commitment")
    assert lead.total_cost_usd == pytest.approx(2 * 5.418 * 730)  # AWS p5.4xlarge 1y $5.418/h x 2 x 730 h


def test_chinese_commitment_word_is_read_and_billed_for_the_term(kb):
    a = ask(kb, "2张H100用3个月，1年承诺价格多少")
    assert a.headline.code == "commitment_whole_term"
    assert a.headline.params["total_usd"] == pytest.approx(2 * 5.418 * 8760)  # as above


# --------------------------------------------------------------------------- one offer rule

def _offer(price: float, as_of: date | None, *, provider: str = "p", count: int = 1, marketplace: bool = False):
    return Offer(provider=provider, provider_name=provider.upper(), instance_type=f"{provider}-{count}x-{price}",
                 gpu="g", gpu_count=count, price_per_hour_usd=price, pricing_model="on_demand", as_of=as_of,
                 source="test", marketplace=marketplace)


def test_a_stale_dated_price_is_ranked_by_price_and_flagged_not_penalised():
    stale = _offer(1.00, date(2026, 1, 1), provider="old")  # 334 days old on TODAY: stale (> 90 days)
    fresh = _offer(2.00, date(2026, 11, 20), provider="new")
    p = best_placement(OfferTable([stale, fresh]), "g", 1, today=TODAY)
    assert (p.offer.provider, p.price_per_hour_usd, p.stale) == ("old", 1.00, True)


def test_undated_snapshots_and_marketplace_asks_compete_on_price_unless_the_policy_says_otherwise(kb):
    undated = _offer(0.50, None, provider="snap")
    dated = _offer(1.00, date(2026, 1, 1), provider="dated")
    # the knowledge base's policy (policy.yaml offers): every offer by its price, each caveat said
    assert offer_table(kb).rule == OfferRule(undated_after_dated=False, marketplace_after_list=False)
    assert best_placement(OfferTable([undated, dated]), "g", 1, today=TODAY).offer.provider == "snap"
    table = OfferTable([undated, dated], rule=OfferRule(undated_after_dated=True))
    assert best_placement(table, "g", 1, today=TODAY).offer.provider == "dated"
    market = _offer(0.40, None, provider="vast", marketplace=True)
    listed = _offer(0.69, None, provider="runpod")
    assert best_placement(OfferTable([market, listed]), "g", 1, today=TODAY).offer.provider == "vast"
    table = OfferTable([market, listed], rule=OfferRule(marketplace_after_list=True))
    assert best_placement(table, "g", 1, today=TODAY).offer.provider == "runpod"


def test_a_count_rented_exactly_beats_a_dearer_larger_node(kb):
    # 2x A100 80GB in one TP group: GCP a2-ultragpu-2g $10.1376/h (dated 2026-08-20) rents exactly 2; CoreWeave's
    # 8-GPU node at $21.60/h (6 idle) and Lambda's undated 8x at $14.32/h pay for idle GPUs
    p = best_placement(offer_table(kb), "a100-sxm-80gb", 2, today=TODAY, group=2)
    assert (p.offer.instance_type, p.idle_gpus) == ("a2-ultragpu-2g", 0)
    assert p.price_per_hour_usd == pytest.approx(10.1376)


def test_cost_per_token_comparison_prices_both_gpus_by_the_same_rule(kb):
    a = ask(kb, "rtx 4090 or rtx 3090: which is cheaper per token for llama 3 8b in int4")
    prices = {o.gpu: o.price for o in a.options if o.price}
    # one rule for both: the cheapest, Vast.ai $0.40 (4090) and $0.25 (3090), not RunPod's $0.69 / $0.43
    assert prices["rtx-4090-24gb"].price_per_hour_usd == pytest.approx(0.40)
    assert prices["rtx-3090-24gb"].price_per_hour_usd == pytest.approx(0.25)
    assert prices["rtx-4090-24gb"].provider == prices["rtx-3090-24gb"].provider == "vast"


# --------------------------------------------------------------------------- instance shapes

@pytest.mark.parametrize("text", ["serve llama 3 8b on 2 L4s on GCP", "在谷歌云上用两张L4部署llama 3 8b"])
def test_two_l4s_on_gcp_rent_the_two_gpu_g2_machine_without_idle_gpus(kb, text):
    a = ask(kb, text)
    p = next(o.price for o in a.options if o.price and o.gpu_count == 2)
    # g2-standard-24 carries 2 L4 (GCP G2 machine types): $2.00083/h, not g2-standard-48 (4 L4, $4.00167/h)
    assert (p.provider, p.instance_type, p.idle_gpus) == ("gcp", "g2-standard-24", 0)
    assert p.price_per_hour_usd == pytest.approx(2.00083)
    assert not any(w.code == "idle_gpus" for w in a.warnings)


def test_gcp_declares_every_g2_size(kb):
    assert offer_table(kb).shapes("l4-24gb", provider="gcp") == [1, 2, 4, 8]
