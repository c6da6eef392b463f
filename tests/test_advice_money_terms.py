"""Price questions about billing terms, counts said apart, buy vs rent at home and China-market cards, from the
user's side: question in, the answer's figures out, hand-computed from the price rows.

Rows used (knowledge/prices/):
* runpod.yaml ``1x_A100-80GB-SXM_SECURE`` 1 GPU $1.89/h (undated); ``1x_H100-SXM_SECURE`` $2.99/h (undated);
  ``1x_RTX4090_SECURE`` $0.69/h (undated).
* digitalocean.yaml ``NVIDIA H100 (8x) (GPU Droplet)`` 8 GPUs $23.92/h (2026-05-28).
* aws.yaml ``p4de.24xlarge`` 1-year commitment 8 GPUs $17.401365/h (2025-11-30): the only 1-year A100 80GB
  commitment, and it rents 8 GPUs.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- a count said apart from the GPU

@pytest.mark.parametrize("text, count, hours", [
    ("H100 多少钱一张，我们要 16 张，用三个月", 16, 3 * 730),
    ("what's an H100 per hour? we need 16 of them for 2 months", 16, 2 * 730),
    ("4090 一张多少钱？要 8 张，租一个月", 8, 730),
    ("how much is an A100 80GB per hour, we need 4 cards for a week", 4, 168),
])
def test_a_count_said_apart_from_a_unit_price_is_the_count_quoted(kb, text, count, hours):
    # "多少钱一张" / "an H100 per hour" asks the price of one unit; the count needed is the one stated apart
    a = ask(kb, text)
    assert a.headline.code == "quote_one"
    o = a.options[0]
    assert o.gpu_count == count
    assert a.headline.params["hours"] == pytest.approx(hours)
    # the total is for all of them: price per GPU-hour x count x hours (idle GPUs included when a row has them)
    assert a.headline.params["total_usd"] == pytest.approx(o.price.price_per_hour_usd * hours)
    assert o.price.gpus_rented >= count


@pytest.mark.parametrize("text", ["H100 多少钱一张", "what's an H100 per hour?"])
def test_a_unit_price_alone_is_one_gpu(kb, text):
    # RunPod 1x_H100-SXM_SECURE $2.99/h is the cheapest 1-GPU row
    a = ask(kb, text)
    assert a.options[0].gpu_count == 1
    assert a.headline.params["price_usd"] == pytest.approx(2.99)


# --------------------------------------------------------------------------- several billing terms

@pytest.mark.parametrize("text", ["A100 80G 按小时和包年分别多少钱", "A100 80GB on-demand and 1-year reserved price"])
def test_each_billing_term_is_priced_for_the_count_asked_not_an_8_gpu_node(kb, text):
    # on-demand: RunPod 1x_A100-80GB-SXM_SECURE $1.89/h (1 GPU). 1-year: the only A100 80GB commitment is AWS
    # p4de.24xlarge, $17.401365/h for 8 GPUs (aws.yaml, 2025-11-30): more than 1 GPU on-demand, so the year is priced
    # on-demand, 8,760 h x $1.89 = $16,556.40, and the 8-GPU commitment is named.
    a = ask(kb, text)
    assert a.headline.code == "quote_terms"
    od, year = a.headline.params["items"]
    assert od["pricing_model"] == "on_demand" and od["price_usd"] == pytest.approx(1.89)
    assert od["instance"] == "1x_A100-80GB-SXM_SECURE" and od["rented"] is None
    assert year["pricing_model"] == "commitment:1y" and year["missing"]
    assert year["big_instance"] == "p4de.24xlarge" and year["big_rented"] == 8
    assert year["big_price_usd"] == pytest.approx(17.401365)
    assert year["total_usd"] == pytest.approx(1.89 * 8760) and year["rented"] is None


def test_a_published_one_gpu_commitment_answers_its_term(kb):
    # L40S: on-demand DigitalOcean 1-GPU droplet $1.57/h; 1-year: AWS g6e.xlarge commitment $1.17243/h (aws.yaml),
    # 8,760 h x $1.17243 = $10,270.49
    a = ask(kb, "L40S 按量和包年各多少钱")
    assert a.headline.code == "quote_terms"
    year = next(i for i in a.headline.params["items"] if i["pricing_model"] == "commitment:1y")
    assert not year.get("missing") and year["instance"] == "g6e.xlarge"
    assert year["total_usd"] == pytest.approx(1.17243 * 8760)


# --------------------------------------------------------------------------- an instance larger than needed

@pytest.mark.parametrize(("text", "needed"), [("serve Qwen3 235B fp8 on MI300X, cost per hour?", 2),
                                              ("MI300X 部署 Qwen3-235B 每月多少钱", 4)])
def test_an_8_gpu_droplet_for_a_2_gpu_model_says_so_first(kb, text, needed):
    # Qwen3-235B fp8 needs ~249 GB: 2 MI300X hold it; as released (bf16, ~470 GB) 4 do. DigitalOcean rents MI300X
    # on one machine only as the 8-GPU droplet ($15.92/h, digitalocean.yaml), so the first line says how many would
    # do and that the rest would otherwise sit idle; with no format named, the released one on the 8 paid for
    a = ask(kb, text)
    assert a.headline.code == "serve_whole_instance"
    p = a.headline.params
    assert (p["needed"], p["gpus"], p["idle_count"]) == (needed, 8, 8 - needed)
    assert p["price_usd"] == pytest.approx(15.92)


# --------------------------------------------------------------------------- buy vs rent

def test_buy_vs_rent_a_4090_at_home_uses_the_list_price_the_horizon_and_home_power(kb):
    # purchase: gpus.yaml list_price $1,599 (NVIDIA launch price). power: 450 W + 400 W workstation host = 0.85 kW x
    # PUE 1 x 730 h x $0.19/kWh (policy.yaml home_electricity_usd_per_kwh) = $117.895/month, no colocation.
    # rent: the cheapest, Vast.ai $0.40/h x 730 = $292/month (policy offers). horizon 3 years: own 1,599 + 36 x
    # 117.895 = $5,843.22; rent 36 x 292 = $10,512
    a = ask(kb, "buy vs rent an RTX 4090 for 3 yrs at home")
    assert a.headline.code == "break_even_life"
    p = a.headline.params
    assert p["years"] == pytest.approx(3)
    assert p["own_total_usd"] == pytest.approx(1599 + 36 * 0.85 * 730 * 0.19)
    assert p["rent_total_usd"] == pytest.approx(36 * 0.40 * 730)
    assert any(n.code == "purchase_list_price" for n in a.assumptions)
    assert any(n.code == "break_even_desk" for n in a.assumptions)
    assert not any(n.code == "break_even_hosting" for n in a.assumptions)


def test_buy_vs_rent_in_chinese_with_a_horizon(kb):
    a = ask(kb, "买一张4090还是租，用两年，在家里")
    assert a.headline.code == "break_even_life"
    assert a.headline.params["years"] == pytest.approx(2)
    assert a.headline.params["own_total_usd"] == pytest.approx(1599 + 24 * 0.85 * 730 * 0.19)


def test_power_scales_with_the_stated_use(kb):
    # 2 x 450 W + 400 W host = 1.3 kW x 730 h x 30% x $0.19 = $54.09/month; rent 2 x $0.40 (Vast.ai) x 730 x 30% = $175.20
    a = ask(kb, "buy vs rent 2x RTX 4090 at 30% utilization in our office for 2 years")
    power = next(n for n in a.assumptions if n.code == "break_even_power_parts")
    assert power.params["month_usd"] == pytest.approx(1.3 * 730 * 0.3 * 0.19)
    row = a.options[0]
    assert row.total_cost_usd == pytest.approx(2 * 0.40 * 730 * 0.3)


def test_a_server_keeps_colocation(kb):
    # 8x H100 is a server: PUE 1.4, $0.13/kWh, $200 per kW-month hosting (policy.yaml)
    a = ask(kb, "buy vs rent: 8x h100 server for $300k, when do we break even?")
    assert any(n.code == "break_even_hosting" for n in a.assumptions)
    assert not any(n.code == "break_even_desk" for n in a.assumptions)


# --------------------------------------------------------------------------- China-market cards without a list price

CNY_PER_USD = 6.8012  # prices/common/exchange_rates.yaml cny-usd-2026-05-08 (ECB cross rate)


@pytest.mark.parametrize("text", ["换成 A800 呢，要包月多少钱", "A800 per hour"])
def test_an_unpriced_china_card_says_what_to_do_and_shows_the_figures_that_exist(kb, text):
    # no tracked cloud lists A800: the answer says so and what to do, shows AutoDL's ¥4.98/card-h (price_mentions.yaml,
    # a secondary source; USD 4.98 / 6.8012 = $0.732) and the A100 SXM4 80GB as the nearest priced card, labelled
    a = ask(kb, text)
    # the secondary figure leads, labelled as such (the same figure every kind of answer uses for the A800)
    mention = a.headline
    assert mention.code == "mention_cost"
    assert mention.params["where"]["en"] == "AutoDL" and mention.params["per_gpu"]["amount"] == pytest.approx(4.98)
    assert mention.params["approx_per_gpu_usd"] == pytest.approx(4.98 / CNY_PER_USD)
    assert any("63146838246" in s for s in a.sources)
    codes = [d.code for d in a.details]
    assert codes[0] == "price_not_published_next"
    stand_in = next(d for d in a.details if d.code == "price_stand_in")
    assert stand_in.params["near_name"] == "A100 SXM4 80GB"
    # the stand-in is 1 GPU for 1 GPU: RunPod 1x_A100-80GB-SXM_SECURE $1.89/h, not an 8-GPU node
    assert stand_in.params["price_usd"] == pytest.approx(1.89)
    # the unverified 8-12 元 range comes last, labelled unverified
    assert codes[-1] == "price_mention" and a.details[-1].params["low_cny"] == pytest.approx(8.0)
    assert codes.index("price_stand_in") < len(codes) - 1


def test_a_card_with_no_figure_at_all_says_to_ask_for_a_quote(kb):
    # Ascend 910B: no price row, no mention, no stand-in in price_mentions.yaml
    a = ask(kb, "昇腾 910B 多少钱一小时")
    assert [d.code for d in a.details] == ["price_not_published_next"]


@pytest.mark.parametrize("text", ["H20 和 A800 哪个划算，跑 70B 推理",
                                  "H20 vs A800 for Llama 3 70B, which is more cost-effective?"])
def test_which_is_cheaper_without_list_prices_compares_cost_per_token(kb, text):
    # cost per 1M tokens = price per GPU-hour / (tokens/s per GPU x 3600) x 1e6, at AutoDL's figures
    # (A800 ¥4.98, H20 ¥6.98 per card-hour, /6.8012 to USD) and each card's full-load throughput per GPU
    a = ask(kb, text)
    assert a.headline.code == "compare_cost_mentions"
    items = a.headline.params["items"]
    by_gpu = {("A800" if "A800" in i["config"]["gpu_name"] else "H20"): i for i in items}
    for name, cny in (("A800", 4.98), ("H20", 6.98)):
        i = by_gpu[name]
        assert i["per_gpu_usd"] == pytest.approx(cny / CNY_PER_USD)
        assert i["cost_usd"] == pytest.approx(cny / CNY_PER_USD / (i["per_gpu_tps"] * 3600) * 1e6)
    assert items[0]["cost_usd"] <= items[1]["cost_usd"]
    assert a.headline.params["ratio_x"] == pytest.approx(items[1]["cost_usd"] / items[0]["cost_usd"])


def test_price_mentions_and_stand_ins_are_only_for_gpus_without_price_rows(kb):
    # a mention or a stand-in must never hide a real offer: a mention of a GPU that has price rows names the cloud it
    # is about (used only when that cloud is asked about, e.g. AutoDL's RTX 4090); a stand-in's nearest card must
    # have prices; every mention says its caveat in both languages
    priced = {o.gpu for o in kb.offers}
    assert kb.price_mentions and kb.price_stand_ins
    for gpu_id, mentions in kb.price_mentions.items():
        assert gpu_id not in priced or all(m.provider for m in mentions), gpu_id
        assert all(m.source and m.caveat and m.caveat_zh for m in mentions)
    for gpu_id, stand_in in kb.price_stand_ins.items():
        assert gpu_id not in priced and stand_in.nearest in priced


def test_list_prices_are_sourced_and_dated(kb):
    listed = {g.id: g.list_price for g in kb.gpus.values() if g.list_price is not None}
    assert listed["rtx-4090-24gb"].amount == 1599  # NVIDIA launch price, 2022-09-20
    assert all(lp.source and lp.as_of for lp in listed.values())
