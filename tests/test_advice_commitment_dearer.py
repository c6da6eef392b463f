"""A commitment (reserved) price that costs more than another provider's on-demand price is said, never implied to
save money.

Prices (knowledge/prices): AWS p5.48xlarge (8x H100) 1-year commitment $43.344/h and on-demand $55.04/h; AWS
p5.4xlarge (1x H100) 1-year commitment $5.418/h, on-demand $6.88/h; DigitalOcean "NVIDIA H100 (8x) (GPU Droplet)"
$23.92/h on-demand (2026-05-28); RunPod 1x_H100-SXM_SECURE $2.99/h on-demand (undated catalog row); AWS
p4de.24xlarge (8x A100 80GB) 3-year commitment $10.20/h vs RunPod 8x_A100-80GB-SXM_SECURE $15.12/h on-demand.
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


def dearer(a):
    return next((d for d in a.details if d.code == "commitment_dearer"), None)


@pytest.mark.parametrize("text", ["price of 8 H100s on a 1-year reservation", "eight h100, 1 yr reserved, cost?",
                                  "1-year reserved vs on-demand for 8 H100s"])
def test_a_one_year_h100_reservation_costs_more_than_on_demand_elsewhere(kb, text):
    a = ask(kb, text)
    d = dearer(a)
    assert d is not None
    assert (d.params["provider"], d.params["price_usd"]) == ("AWS", pytest.approx(43.344))
    assert (d.params["od_provider"], d.params["od_price_usd"]) == ("DigitalOcean", pytest.approx(23.92))
    # a year = 8,760 h: (43.344 - 23.92) x 8,760 = $170,154.24 more
    assert d.params["extra_usd"] == pytest.approx((43.344 - 23.92) * 8760)
    # it does save against AWS's own on-demand p5.48xlarge, $55.04/h: said too
    assert d.params["own_od_price_usd"] == pytest.approx(55.04)
    assert "commitment price saves nothing here" in " ".join(compose(a).details)


def test_one_gpu_compares_with_one_gpu_on_demand(kb):
    # p5.4xlarge 1-year $5.418/h vs RunPod's one H100 at $2.99/h: (5.418 - 2.99) x 8,760 = $21,269.28 more
    a = ask(kb, "one H100 on a 1-year commitment, how much?")
    d = dearer(a)
    assert d is not None and d.params["od_undated"]
    assert d.params["extra_usd"] == pytest.approx((5.418 - 2.99) * 8760)


def test_a_commitment_that_is_cheaper_is_not_flagged(kb):
    a = ask(kb, "3 year reserved price for 8x A100 80GB")
    assert dearer(a) is None
    o = a.options[0]
    assert o.price.pricing_model == "commitment" and o.price.price_per_hour_usd < 15.12


def test_the_difference_asked_is_against_a_list_price_not_a_marketplace_ask(kb):
    # on-demand base: DigitalOcean $23.92/h x 8,760 = $209,539.20 (not a Vast.ai host's ask)
    a = ask(kb, "8x H100 reserved for 1 year vs on demand, what's the difference?")
    assert a.headline.code == "pricing_difference_more"
    assert a.headline.params["base_provider"] == "DigitalOcean"
    assert a.headline.params["base_total_usd"] == pytest.approx(23.92 * 8760)
    assert dearer(a) is None  # the headline already says it costs more


def test_the_chinese_answer_says_it_in_chinese(kb):
    a = ask(kb, "8 张 H100 包年多少钱")
    assert dearer(a) is not None
    assert any("并不省钱" in line for line in compose(a).details)


def test_a_spot_price_above_on_demand_elsewhere_is_said(kb):
    a = advise(parse_question("cheapest spot price for 4x A100 80GB over 48 hours", kb), kb, today=date(2026, 12, 1))
    d = next((n for n in a.details if n.code == "commitment_dearer"), None)
    if d is not None:  # (only when the cheapest spot row costs more per hour than on-demand for the 4 GPUs)
        assert d.params["price_usd"] > d.params["od_price_usd"]
        assert d.params["extra_usd"] == pytest.approx((d.params["price_usd"] - d.params["od_price_usd"]) * 48)
    spot = [o for o in a.options if o.price and o.price.pricing_model == "spot"]
    on_demand = [o for o in a.options if o.price and o.price.pricing_model == "on_demand" and not o.price.marketplace
                 and o.price.idle_gpus == 0]
    if spot and on_demand and min(o.price.price_per_hour_usd for o in spot) > min(
            o.price.price_per_hour_usd for o in on_demand) + 1e-9:
        assert d is not None
