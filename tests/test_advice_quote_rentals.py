"""Price questions from the user's side: question in, the answer's figures out, hand-computed from the price rows.

Rows used (knowledge/prices/):
* runpod.yaml ``1x_A100-80GB-SXM_SECURE`` 1 GPU $1.89/h (undated); ``1x_H100-SXM_SECURE`` 1 GPU $2.99/h (undated).
* coreweave.yaml ``NVIDIA A100 (on-demand)`` 8 GPUs $21.60/h (2026-09-20); ``NVIDIA A100 (spot)`` 8 GPUs $9.65/h.
* paperspace.yaml ``A100-80G (hourly)`` $1.15/h carries a ``condition`` (a page footnote the transcription lost):
  never quoted as a plain on-demand price.
Buy vs rent: policy.yaml ``break_even`` (PUE 1.4, $0.13/kWh, $200 per kW-month, server host 3,300 W, workstation
host 400 W); gpus.yaml TDPs (H100 SXM 700 W, RTX 4090 450 W); 730 h a month.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _asked(a):
    return [o for o in a.options if not o.changes and o.price]


# --------------------------------------------------------------------------- N GPUs, no machine implied

@pytest.mark.parametrize("text", ["租两张 A100 用三天要多少钱", "rent 2 A100s for 3 days, how much?",
                                  "2x a100 80gb for 72 hours cost"])
def test_two_gpus_are_rented_the_cheapest_way_not_in_an_idle_8_gpu_node(kb, text):
    # 2 x RunPod 1x_A100-80GB-SXM_SECURE at $1.89/h = $3.78/h x 72 h = $272.16, far below the 8-GPU CoreWeave node
    # ($21.60/h x 72 = $1,555.20 with 6 GPUs idle).
    a = ask(kb, text)
    assert a.headline.code == "quote_one"
    assert a.headline.params["total_usd"] == pytest.approx(2 * 1.89 * 72)
    assert a.headline.params["instance"] == "2 x 1x_A100-80GB-SXM_SECURE"
    assert a.headline.params["rented"] is None  # no idle GPUs paid for
    rows = _asked(a)
    lead = rows[0]
    assert lead.price.idle_gpus == 0 and lead.price.instances == 2
    # no row with idle GPUs leads a cheaper or equal row without
    assert all(r.total_cost_usd >= lead.total_cost_usd for r in rows)
    # the separate instances are said
    assert any(n.code == "quote_separate_instances" for n in a.assumptions)
    # the conditioned Paperspace $1.15 row is not quoted as on-demand
    assert not any(r.price.price_per_gpu_hour_usd == pytest.approx(1.15) for r in rows)


def test_every_row_paying_for_idle_gpus_is_named_in_one_warning(kb):
    a = ask(kb, "租两张 A100 用三天要多少钱")
    idle_rows = [r for r in a.options if r.price and r.price.idle_gpus > 0]
    assert idle_rows  # CoreWeave, Lambda, AWS ... rent A100 80GB only as 8-GPU machines
    warning = next(w for w in a.warnings if w.code == "idle_rows")
    assert len(warning.params["items"]) == len(idle_rows)
    assert all(item["idle"] == 6 and item["gpus_rented"] == 8 for item in warning.params["items"])


@pytest.mark.parametrize("text", ["4x A100 80GB for a month, spot vs on-demand?",
                                  "4张A100 80G 租一个月，竞价和按需分别多少钱？"])
def test_spot_and_on_demand_rows_are_ordered_by_total_within_each(kb, text):
    # on-demand: 4 x RunPod 1x_A100-80GB-SXM_SECURE $1.89/h = $7.56/h x 730 h = $5,518.80, the cheapest on-demand way
    # (the 8-GPU RunPod node costs 8 x $1.89 = $15.12/h). spot: CoreWeave's 8-GPU node $9.65/h x 730 = $7,044.50 is
    # cheaper in total than any spot row without idle GPUs, so it may lead, and its idle GPUs are said.
    a = ask(kb, text)
    rows = _asked(a)
    models = [r.price.pricing_model for r in rows]
    assert models == sorted(models, key=lambda m: {"spot": 0, "on_demand": 1}[m])
    for model in ("spot", "on_demand"):
        totals = [r.total_cost_usd for r in rows if r.price.pricing_model == model]
        assert totals == sorted(totals)
    on_demand = [r for r in rows if r.price.pricing_model == "on_demand"][0]
    assert on_demand.total_cost_usd == pytest.approx(4 * 1.89 * 730)
    spot = [r for r in rows if r.price.pricing_model == "spot"][0]
    assert spot.total_cost_usd == pytest.approx(9.65 * 730) and spot.price.idle_gpus == 4
    items = a.headline.params["items"]
    assert items[0]["rented"] == 8  # "pays for 8 GPUs" in the headline item
    od_items = [i for i in items if i["pricing_model"] == "on_demand"]
    assert od_items[0]["total_usd"] == pytest.approx(4 * 1.89 * 730) and od_items[0]["instances"] == 4
    warned = {i["provider"] for i in next(w for w in a.warnings if w.code == "idle_rows").params["items"]}
    assert {r.price.provider_name for r in rows if r.price.idle_gpus} <= warned


@pytest.mark.parametrize("text", ["单机两张A100三天多少钱", "2x A100 in one server for 3 days, price?"])
def test_gpus_asked_in_one_machine_are_priced_as_one_instance(kb, text):
    # one machine: GCP a2-ultragpu-2g holds 2 A100 80GB (gcp.yaml, $10.1376/h, 2026-08-20): $10.1376 x 72 h =
    # $729.91, no GPU idle (RunPod's 8-GPU node, 8 x $1.89 = $15.12/h, would pay for 6 idle GPUs)
    a = ask(kb, text)
    rows = _asked(a)
    assert all(r.price.instances == 1 for r in rows)
    assert a.headline.params["total_usd"] == pytest.approx(10.1376 * 72)
    assert rows[0].price.instance_type == "a2-ultragpu-2g" and rows[0].price.idle_gpus == 0


# --------------------------------------------------------------------------- per hour and per month

@pytest.mark.parametrize("text", ["A100 80G 现在按小时租多少钱？包月大概多少？", "A100 80GB hourly and monthly price?",
                                  "a100 80g per hour? and per month?"])
def test_hourly_and_monthly_asked_together_gives_both(kb, text):
    # RunPod 1x_A100-80GB-SXM_SECURE $1.89/h; a month = 730 h: $1,379.70
    a = ask(kb, text)
    assert a.headline.code == "quote_one"
    assert a.headline.params["price_usd"] == pytest.approx(1.89)
    assert a.headline.params["hours"] == 730
    assert a.headline.params["total_usd"] == pytest.approx(1.89 * 730)


def test_each_period_named_gets_its_total(kb):
    # RunPod 1x_H100-SXM_SECURE $2.99/h: a day = $71.76, a month (730 h) = $2,182.70
    a = ask(kb, "H100 per day and per month?")
    assert a.headline.params["total_usd"] == pytest.approx(2.99 * 730)
    day = next(d for d in a.details if d.code == "quote_period_total")
    assert day.params["hours"] == 24 and day.params["total_usd"] == pytest.approx(2.99 * 24)


@pytest.mark.parametrize("text", ["8张 H100 跑一年要多少钱", "8x H100 for a year cost"])
def test_a_year_said_without_a_commitment_is_the_length_priced(kb, text):
    a = ask(kb, text)
    assert a.headline.params["hours"] == 8760


# --------------------------------------------------------------------------- counts over the bound

@pytest.mark.parametrize("text, count, hours", [("一百万张 H100 跑一年要多少钱", 1_000_000, 8760),
                                                ("cost of 300000 H100 for a month", 300_000, 730),
                                                ("what would 1,000,000 H100 GPUs cost for 3 days", 1_000_000, 72),
                                                ("one million H100 for a week", 1_000_000, 168)])
def test_a_count_over_the_bound_is_said_first_and_the_duration_kept(kb, text, count, hours):
    # list-price arithmetic at RunPod 1x_H100-SXM_SECURE $2.99/GPU-h: count x 2.99 x hours
    a = ask(kb, text)
    assert a.headline.code == "quote_count_over_limit"
    assert a.headline.params["count"] == count and a.headline.params["max_n"] == 262_144
    assert a.headline.params["hours"] == hours
    assert a.headline.params["total_usd"] == pytest.approx(count * 2.99 * hours)
    assert a.headline.params["one_total_usd"] == pytest.approx(2.99 * hours)
    assert not any(n.code == "count_assumed_one" for n in a.assumptions)


# --------------------------------------------------------------------------- buy vs rent at the user's price

def test_break_even_uses_the_users_rent_price(kb):
    # rent: 8 x $2.50 x 730 h = $14,600/month. own: 8 x 700 W + 1 server x 3,300 W = 8.9 kW; power 8.9 x 1.4 x 730 x
    # $0.13 = $1,182.43; hosting 8.9 x $200 = $1,780. months = 300,000 / (14,600 - 1,182.43 - 1,780) = 25.78
    a = ask(kb, "we can buy an 8x H100 server for $300k or rent one at $2.50/GPU-hour. when do we break even?")
    assert a.headline.code == "break_even_given"
    assert a.headline.params["rent_month_usd"] == pytest.approx(8 * 2.5 * 730)
    own = 8.9 * 1.4 * 730 * 0.13 + 8.9 * 200
    assert a.headline.params["own_month_usd"] == pytest.approx(own)
    assert a.headline.params["months"] == pytest.approx(300_000 / (8 * 2.5 * 730 - own))
    providers = [r[1] for r in a.table.rows]
    assert len(providers) == len(set(providers))  # the user's price once, then market references


def test_break_even_for_a_workstation_uses_its_own_host_power(kb):
    # rent: 4 x $0.35 x 730 = $1,022/month. own: 4 x 450 W + 1 workstation x 400 W = 2.2 kW; power 2.2 x 1.4 x 730 x
    # $0.13 = $292.29; hosting 2.2 x $200 = $440. months = 12,000 / (1,022 - 292.29 - 440) = 41.42
    a = ask(kb, "buy a 4x RTX 4090 box for $12k vs renting 4x 4090 at $0.35/h each, break even?")
    assert a.headline.code == "break_even_given"
    power = next(n for n in a.assumptions if n.code == "break_even_power_parts")
    assert power.params["kw"] == pytest.approx(2.2) and power.params["host_w"] == 400
    own = 2.2 * 1.4 * 730 * 0.13 + 2.2 * 200
    assert a.headline.params["months"] == pytest.approx(12_000 / (4 * 0.35 * 730 - own))
    rows = [tuple(r[1:3]) for r in a.table.rows]
    assert len(rows) == len(set(rows))
    assert not any(n.code == "prices_quoted" for n in a.assumptions)


def test_buying_that_never_pays_back_says_so(kb):
    # rent: 2 x $0.10 x 730 = $146/month. own: two desktop cards (policy.yaml desk_max_cards 2) run at home or in an
    # office: 2 x 450 W + 400 W workstation host = 1.3 kW x PUE 1 x 730 h x $0.19/kWh (home_electricity_usd_per_kwh)
    # = $180.31/month, no colocation; > $146, so buying never pays back
    a = ask(kb, "buy 2x RTX 4090 for $5000 or rent at $0.10 per GPU hour, break even?")
    assert a.headline.code == "break_even_never"
    assert a.headline.params["rent_month_usd"] == pytest.approx(2 * 0.10 * 730)
    assert a.headline.params["own_month_usd"] == pytest.approx(1.3 * 1.0 * 730 * 0.19)


def test_a_one_gpu_server_takes_the_server_host_pro_rata(kb):
    # L40S (gpus.yaml TDP 350 W) in a 1-GPU server: host max(400 W, 3,300 W x 1/8 = 412.5 W) = 412.5 W;
    # 0.7625 kW. rent 1 x $1.00 x 730 = $730; own 0.7625 x 1.4 x 730 x 0.13 + 0.7625 x 200 = $253.81
    a = ask(kb, "buying an L40S for $9000 vs renting at $1/h, when does it pay off")
    power = next(n for n in a.assumptions if n.code == "break_even_power_parts")
    assert power.params["host_w"] == pytest.approx(412.5) and power.params["kw"] == pytest.approx(0.7625)
    own = 0.7625 * 1.4 * 730 * 0.13 + 0.7625 * 200
    assert a.headline.params["months"] == pytest.approx(9000 / (730 - own))


def test_a_cheaper_marketplace_ask_is_said_below_the_list_price(kb):
    # list: 4 x RunPod 1x_RTX4090_SECURE $0.69/h x 168 h = $463.68; marketplace: 4 x Vast.ai 1x-RTX_4090-32-65536
    # $0.40/h x 168 = $268.80 (knowledge/prices/vast.yaml, undated)
    a = ask(kb, "租4张4090一周多少钱")
    assert a.headline.params["total_usd"] == pytest.approx(4 * 0.69 * 168)
    lower = next(d for d in a.details if d.code == "quote_marketplace_lower")
    assert lower.params["total_usd"] == pytest.approx(4 * 0.40 * 168)
