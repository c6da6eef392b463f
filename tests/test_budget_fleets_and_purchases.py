"""Budget questions from the user's side, three kinds, each asked in English and in Chinese; the first line's figures
are computed by hand in the comments.

1. A budget for a period on a GPU type ("$60k a month, how many H100s and how many users"): every count of whole
   serving replicas the money rents is weighed (independent replicas need no fast link between machines), not only
   up to a few machines; the count leads, with its price and the users it serves.
2. Consumer cards named as a group ("2x 4090") that no tracked instance holds: priced as N x the 1-GPU instance, and
   said right under the headline as an assumption with the shapes listed.
3. Money to buy cards with ("$300k to buy GPUs, which and how many"): cards with a purchase price only (the user's
   price per card, else gpus.yaml ``list_price``), the count, the machines, what they serve; a card with no purchase
   price is said to have none, never priced at a rental. Buy vs rent against a stated purchase price, both languages.

Rows used (knowledge/, with source and as_of there):
* prices/vast.yaml ``8x-H100_SXM-32-65536`` $17.07/h (8 GPUs, $2.13375/GPU-h: the lowest per GPU-hour of any H100 SXM
  instance holding more than one GPU), ``1x-H100_SXM-32-65536`` $1.80/h, ``1x-RTX_4090-32-65536`` $0.40/h;
  prices/runpod.yaml ``1x_RTX4090_SECURE`` $0.69/h. No tracked provider lists an RTX 4090 instance of more than 1 GPU,
  and neither does /work/shared/reference (cloud_prices*.yaml).
* gpus.yaml list_price: RTX 3090 $1,499 (2020-09-01), RTX 4090 $1,599 (2022-09-20), RTX 5090 $1,999 (2025-01-06),
  NVIDIA launch list prices; no data-centre card has a purchase price.
* prices/common/exchange_rates.yaml 6.8012 CNY per USD; policy.yaml quote.month_hours 730, limits.gpus_per_machine 8,
  limits.consumer_group_max_gpus 8; break_even: workstation host 400 W, home electricity $0.19/kWh, PUE 1 at home.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)
CNY_PER_USD = 6.8012
MONTH_H = 730
H100_NODE_USD = 17.07  # vast.yaml 8x-H100_SXM-32-65536


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# ----------------------------------------------------------------------- 1. a budget for a period on a GPU type

@pytest.mark.parametrize("text, machines", [
    # $60,000 / 730 h = $82.19/h; / $17.07 per 8-GPU machine = 4.81 -> 4 machines = 32 GPUs ($68.28/h)
    ("we have $60k a month, how many H100s can we run and how many users at 4k context for Llama 3 70B", 4),
    ("每月预算6万美元，能跑多少张H100，Llama 3 70B 4k上下文能服务多少用户", 4),
    # $150,000 / 730 h = $205.48/h; / $17.07 = 12.04 -> 12 machines = 96 GPUs ($204.84/h): past the old 32-GPU bound
    ("with $150k a month, how many H100s can we rent to serve Llama 3 70B at 4k context, and for how many users", 12),
    # ¥1,000,000 / 6.8012 / 730 h = $201.41/h; / $17.07 = 11.80 -> 11 machines = 88 GPUs ($187.77/h)
    ("每个月预算100万人民币，能租多少张H100跑Llama 3 70B，4k上下文能服务多少用户", 11),
])
def test_a_period_budget_on_a_gpu_type_rents_every_machine_it_pays_for(kb, text, machines):
    a = ask(kb, text)
    assert a.intent == "recommend" and a.headline.code == "budget_buys"
    p = a.headline.params
    assert p["count"] == 8 * machines and p["instances"] == machines and p["instance"] == "8x-H100_SXM-32-65536"
    assert p["price_usd"] == pytest.approx(H100_NODE_USD / 8)
    assert p["total_usd"] == pytest.approx(machines * H100_NODE_USD * MONTH_H)
    assert p["total_usd"] <= p["budget_usd"]
    # one more machine would be over the budget
    assert (machines + 1) * H100_NODE_USD > p["limit_usd"]
    o = a.options[0]
    assert (o.gpu, o.gpu_count, o.max_users) == ("h100-sxm-80gb", 8 * machines, p["max_users"])
    # the users are the planner's own for that many GPUs: the fixed-count question gives the same figure
    fixed = ask(kb, f"how many concurrent users can {8 * machines}x H100 serve with llama 3 70b in {o.precision} "
                    f"at 4k context")
    assert fixed.headline.code == "users_served" and fixed.headline.params["max_users"] == p["max_users"]


def test_a_monthly_budget_written_budget_first_on_a_card_with_no_list_price(kb):
    text = "预算每月20万，租H800部署DeepSeek V3，能租几张卡，能撑多少用户"
    q = parse_question(text, kb)
    # "预算每月20万": ¥200,000 a month = ¥273.97 per hour over 730 h
    assert q.price_limit_per_hour.amount == pytest.approx(200_000 / MONTH_H) and q.duration_hours == MONTH_H
    a = ask(kb, text)
    assert a.headline.code == "budget_buys" and a.headline.params["secondary"]
    # AutoDL's H800 figure ¥8.88 per GPU-hour (price_mentions.yaml, secondary): one 16-GPU replica of DeepSeek-V3 in
    # fp8 (671 GB) = ¥142.08/h within ¥273.97; two = ¥284.16, over it
    p = a.headline.params
    assert p["count"] == 16 and p["price_usd"] == pytest.approx(8.88 / CNY_PER_USD)
    assert p["total_usd"] == pytest.approx(16 * 8.88 / CNY_PER_USD * MONTH_H)


@pytest.mark.parametrize("text", ["with $50k a month on A100s, how many can we rent for qwen2.5 72b and how many users",
                                  "our budget is $40k/month for A100s, how many can we get and how many users of "
                                  "qwen2.5 72b"])
def test_how_many_with_the_gpu_said_before_asks_the_count(kb, text):
    q = parse_question(text, kb)
    assert "gpu_count" in q.asks and q.intent == "recommend"
    assert ask(kb, text).headline.code == "budget_buys"


def test_the_sizing_path_and_the_budget_path_count_the_same_fleet(kb):
    # "how many H100s can $150k a month rent for serving X" (a count asked beside a model) is the same question
    a = ask(kb, "how many H100s can $150k a month rent for serving llama 3 70b at 4k context")
    assert a.headline.code == "budget_buys" and a.headline.params["count"] == 96


def test_a_budget_for_more_than_one_machine_without_a_gpu_named_uses_it(kb):
    # $60,000 a month = $82.19/h: the best of every candidate type is weighed at the most whole replicas it rents;
    # no pick stops at 32 GPUs when more fit (the old bound), and every pick is within the budget
    a = ask(kb, "best setup for llama 3 70b with a monthly budget of $60k")
    assert a.headline.code == "best_under_budget"
    assert all(o.price.price_per_hour_usd <= 60000 / MONTH_H + 1e-9 for o in a.options)
    assert any(o.gpu_count > 32 for o in a.options)


# ----------------------------------------------------------------------- 2. consumer cards named as a group

@pytest.mark.parametrize("text", ["2x 4090 run qwen2.5 32b, cost per month?", "两张4090跑Qwen2.5 32B，每月多少钱"])
def test_a_consumer_pair_no_instance_holds_is_priced_as_single_card_instances_said_first(kb, text):
    a = ask(kb, text)
    # was "no price": RunPod 1x_RTX4090_SECURE $0.69/h x 2 = $1.38/h; x 730 h = $1,007.40 a month
    assert a.headline.code == "quote_one"
    assert a.headline.params["price_usd"] == pytest.approx(1.38)
    assert a.headline.params["total_usd"] == pytest.approx(2 * 0.69 * MONTH_H)
    said = a.details[0]
    assert said.code == "group_shape_not_listed"
    assert said.params["shapes"] == [1] and said.params["instances"] == 2
    assert said.params["each_usd"] == pytest.approx(0.69) and said.params["price_usd"] == pytest.approx(1.38)


@pytest.mark.parametrize("text", ["serve llama 3 70b int4 on 2x rtx 4090, how much per hour",
                                  "两张4090部署llama 3 70b int4，推理每小时多少钱"])
def test_a_served_model_on_a_consumer_pair_says_the_shape_is_not_listed(kb, text):
    a = ask(kb, text)
    o = next(o for o in a.options if o.gpu == "rtx-4090-24gb" and o.gpu_count == 2 and not o.changes)
    # Vast.ai 1x-RTX_4090-32-65536 $0.40/h x 2 = $0.80/h
    assert o.price.group_split and o.price.price_per_hour_usd == pytest.approx(0.80)
    said = a.details[0]
    assert said.code == "group_shape_not_listed" and said.params["each_usd"] == pytest.approx(0.40)
    assert not any(w.code == "group_split_instances" for w in a.warnings)  # said once, at the top


# ----------------------------------------------------------------------- 3. money to buy cards with

@pytest.mark.parametrize("text, model", [
    ("we have $300k to buy GPUs, which cards and how many should we buy to serve llama 3 70b", "llama-3-70b"),
    ("with a $300k capex budget, what GPUs should we buy and how many", None),
])
def test_purchase_budget_parses_as_money_to_buy_cards(kb, text, model):
    q = parse_question(text, kb)
    assert q.intent == "recommend" and q.purchase_budget.amount == 300_000
    assert q.budget is None and q.purchase_price is None
    assert [m.id for m in q.models] == ([model] if model else [])


@pytest.mark.parametrize("text", ["how many H100 hours can $1000 buy", "I bought an H100 for $30k, how many users can it "
                                  "serve for llama 3 70b", "预算5万，能租几张4090"])
def test_money_for_time_or_a_price_paid_is_no_purchase_budget(kb, text):
    q = parse_question(text, kb)
    assert q.purchase_budget is None


def test_a_purchase_budget_buys_cards_with_a_purchase_price_and_says_which_have_none(kb):
    a = ask(kb, "we have $300k to buy GPUs, which cards and how many should we buy to serve llama 3 70b")
    assert a.intent == "recommend" and a.headline.code == "purchase_budget_buys"
    p = a.headline.params
    # RTX 3090 $1,499: floor(300,000 / 1,499) = 200 cards = 25 machines of 8 (TP8 replicas, one per machine);
    # 200 x 1,499 = $299,800
    assert (p["gpu_name"], p["count"], p["each_usd"], p["machines"]) == ("RTX 3090", 200, 1499, 25)
    assert p["spent_usd"] == pytest.approx(299_800) and p["as_of"] == "2020-09-01" and not p["given"]
    # RTX 4090 $1,599: floor(300,000 / 1,599) = 187 -> 23 whole TP8 replicas = 184 cards ($294,216);
    # RTX 5090 $1,999: floor(300,000 / 1,999) = 150 -> 18 x 8 = 144 cards ($287,856)
    rows = {o.gpu: (o.gpu_count, o.total_cost_usd) for o in a.options}
    assert rows["rtx-4090-24gb"] == (184, pytest.approx(184 * 1599))
    assert rows["rtx-5090-32gb"] == (144, pytest.approx(144 * 1999))
    # bought, not rented: no option carries a rental price
    assert all(o.price is None for o in a.options)
    unpriced = next(d for d in a.details if d.code == "purchase_unpriced_candidates")
    assert "H100 SXM5 80GB" in unpriced.params["gpus"]
    # what they serve is the planner's figure for that many cards
    fixed = ask(kb, "how many concurrent users can 200x RTX 3090 serve with llama 3 70b in int8")
    assert p["precision"] == "int8" and p["max_users"] == fixed.headline.params["max_users"]


def test_a_yuan_purchase_budget_in_chinese(kb):
    a = ask(kb, "预算200万人民币买卡，部署Qwen2.5 72B，买什么卡买几张")
    assert a.headline.code == "purchase_budget_buys" and a.query.answer_currency == "cny"
    p = a.headline.params
    # ¥2,000,000 / 6.8012 = $294,066.9; the only Chinese-market candidate with a purchase price is the RTX 4090
    # ($1,599): floor(294,066.9 / 1,599) = 183 -> 22 whole TP8 replicas = 176 cards, 22 machines, $281,424
    assert p["budget_usd"] == pytest.approx(2_000_000 / CNY_PER_USD)
    assert (p["gpu_name"], p["count"], p["machines"]) == ("RTX 4090", 176, 22)
    assert p["spent_usd"] == pytest.approx(176 * 1599)
    o = a.options[0]
    assert (o.tensor_parallel or 1) * (o.pipeline_parallel or 1) == 8 and o.replicas == 22


@pytest.mark.parametrize("text", [
    "we can spend $300k buying H100s, how many can we buy and how many users of llama 3 70b do they serve",
    "预算200万买H100，能买几张，跑Qwen2.5 72B能服务多少人",
])
def test_a_named_card_without_a_purchase_price_is_said_to_have_none(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "purchase_price_unknown" and a.headline.params["gpus"] == ["H100 SXM5 80GB"]
    # never a rental price as a purchase price: the H100 has no row; the rows are other cards, labelled so
    assert a.recommendation is None
    assert all(o.gpu != "h100-sxm-80gb" and o.changes == ["gpu"] and o.price is None for o in a.options)


@pytest.mark.parametrize("text, cards, machines, each_usd", [
    # $300,000 / $25,000 = 12 cards: 2 machines of 8 (3 TP4 replicas; "at $25k each" is the user's price)
    ("we have $300k to buy H100s at $25k each, how many users of llama 3 70b can they serve", 12, 2, 25_000),
    # ¥2,000,000 / ¥200,000 = 10 cards, 2 machines (no model: every card the money buys)
    ("预算200万买H100，20万一张，能买几张", 10, 2, 200_000 / CNY_PER_USD),
])
def test_a_purchase_budget_with_the_users_price_per_card(kb, text, cards, machines, each_usd):
    a = ask(kb, text)
    assert a.headline.code == "purchase_budget_buys"
    p = a.headline.params
    assert p["given"] and p["each_usd"] == pytest.approx(each_usd)
    assert (p["gpu_name"], p["count"], p["machines"]) == ("H100 SXM5 80GB", cards, machines)
    assert p["spent_usd"] == pytest.approx(cards * each_usd)


@pytest.mark.parametrize("text, purchase_usd", [
    ("buy 2x 4090 for $3,500 or rent, 8 hours a day", 3500),
    ("花2万块买两张4090，还是租，每天用8小时", 20000 / CNY_PER_USD),
])
def test_buy_vs_rent_against_a_stated_purchase_price(kb, text, purchase_usd):
    a = ask(kb, text)
    assert a.headline.code == "break_even"
    p = a.headline.params
    # rent: 2 x Vast.ai $0.40/h x 730 h x 8/24 = $194.67/month; power at home: (2 x 450 W + 400 W host) = 1.3 kW x
    # 730 h x 8/24 x $0.19/kWh = $60.10/month; months = purchase / ($194.67 - $60.10): $3,500 -> 26.0,
    # ¥20,000 = $2,940.66 -> 21.9
    rent = 2 * 0.40 * MONTH_H / 3
    own = 1.3 * MONTH_H / 3 * 0.19
    assert p["purchase_usd"] == pytest.approx(purchase_usd)
    assert p["rent_month_usd"] == pytest.approx(rent) and p["own_month_usd"] == pytest.approx(own)
    assert p["months"] == pytest.approx(purchase_usd / (rent - own))
    # the table states the same figure as the headline (it was rounded up apart from it)
    assert a.table.rows[0][-1] == pytest.approx(p["months"])
