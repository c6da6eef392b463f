"""An amount the user quotes in USD or CNY, with the answer asked in the other currency, is converted first, at the
knowledge base's dated rate; a currency word that is a quoted amount's unit ("2.24 美元") is not the currency asked.

Rate: knowledge/prices/common/exchange_rates.yaml, 6.8012 CNY per USD (2026-05-08).
2.24 x 6.8012 = 15.2347 -> ¥15.23; 1.98 / 6.8012 = 0.2911 -> $0.29.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize(("text", "currency", "both"), [
    ("文章说 H100 每卡每小时 2.24 美元起，折合人民币是多少", "cny", False),
    ("8张H100一个月多少钱，人民币和美元都报一下", "cny", True),
    ("按每卡每小时 15 元算，8 张 A800 一个月多少钱", "cny", False),
])
def test_the_currency_asked(kb, text, currency, both):
    q = parse_question(text, kb)
    assert (q.answer_currency, q.both_currencies) == (currency, both)


@pytest.mark.parametrize(("text", "converted", "to"), [
    ("文章说 H100 每卡每小时 2.24 美元起，折合人民币是多少？国内能租到这个价吗", 2.24 * 6.8012, "cny"),
    ("AutoDL 的 4090 是 1.98 元一小时，合多少美元", 1.98 / 6.8012, "usd"),
])
def test_the_quoted_amount_is_converted_first(kb, text, converted, to):
    a = ask(kb, text)
    line = next(d for d in a.details if d.code == "quoted_converted")
    assert line.params["converted"]["currency"] == to
    assert line.params["converted"]["amount"] == pytest.approx(converted, rel=1e-6)
    assert a.details[0].code == "quoted_converted"


@pytest.mark.parametrize(("text", "count"), [
    ("AutoDL 上租 4090 包月多少钱？按量一小时呢？", 1),
    ("AutoDL 上 4 张 4090 跑两周，按量和包月哪个划算？", 4),
])
def test_a_monthly_plan_asked_of_a_cloud_with_only_an_hourly_figure(kb, text, count):
    # knowledge/prices/common/price_mentions.yaml: AutoDL RTX 4090 ¥1.98 per GPU-hour, no monthly figure;
    # a month of it = 730 h x ¥1.98 x count (1: ¥1,445.40; 4: ¥5,781.60), an upper bound
    a = ask(kb, text)
    line = next(d for d in a.details if d.code == "term_unpublished_mention")
    assert line.params["total"] == {"amount": pytest.approx(730 * 1.98 * count), "currency": "cny"}


@pytest.mark.parametrize("text", [
    "文章说 H100 2.24 美元一小时起，按这个价，全参微调 Llama 3 70B 训 1 亿 token 要多少钱？",
    "an ad says H100s from $2.24/hr. at that price, what would a full fine-tune of llama 3 70b on 100M tokens cost?",
])
def test_a_run_costed_at_the_quoted_price(kb, text):
    # the run is the question (its cost at the price quoted), the claim's verdict second; cost = GPU-hours x $2.24
    a = ask(kb, text)
    o = a.options[a.recommendation] if a.recommendation is not None else a.options[0]
    assert a.intent != "spec_lookup"  # the run is answered, not the claim alone
    assert o.price.price_per_gpu_hour_usd == pytest.approx(2.24)
    assert o.total_cost_usd == pytest.approx(o.gpu_hours * 2.24, rel=1e-6)
    assert any(d.code == "claim_verdict" for d in a.details)


def test_a_currency_word_after_a_number_is_its_unit(kb):
    # "2.24 美元一小时": not "美元一" = $1 (a currency word after a number is that number's unit)
    q = parse_question("文章说 H100 2.24 美元一小时起", kb)
    assert [m.amount for m in q.quoted_prices] == [2.24]


@pytest.mark.parametrize(("text", "per_gpu"), [
    ("H100 2.24 美元一小时起，16 张 H100 租一个月，按这个价总共多少钱？", 2.24),
    ("at $2/GPU-hour, what do 16 H100s for a month cost?", 2.0),
])
def test_a_rental_at_the_users_price_leads(kb, text, per_gpu):
    # 16 GPUs x 730 h (a month, policy) x the price per GPU-hour: 2.24 -> $26,163.20; 2.00 -> $23,360
    a = ask(kb, text)
    assert a.headline.code == "quote_at_given_price"
    assert a.headline.params["total_usd"] == pytest.approx(16 * 730 * per_gpu)


def test_a_days_duty_cycle_and_hedged_counts_are_read(kb):
    q = parse_question("日活 3 万，每人每天差不多 15 次对话，Qwen2.5-14B 部署在 L20 上要几张卡？", kb)
    assert q.requests_per_user_per_day == 15 and not q.not_understood


def test_on_demand_is_billed_for_the_hours_used(kb):
    # a month (730 h) at 10 h a day = 730 x 10/24 = 304.2 h billed on demand; AutoDL 4090 ¥1.98/GPU-h x 4 = ¥2,409
    a = ask(kb, "AutoDL 租 4 张 4090 一个月，每天只跑 10 小时，包月和按量哪个划算？")
    first = a.headline if a.headline.code == "mention_cost" else next(d for d in [a.headline, *a.details]
                                                                        if d.code == "mention_cost")
    assert first.params["hours"] == pytest.approx(730 * 10 / 24)
    assert first.params["total"]["amount"] == pytest.approx(4 * 1.98 * 730 * 10 / 24)


@pytest.mark.parametrize(("text", "each"), [
    ("we have $120k to buy cards for serving qwen2.5 72b. L40S at $8k each or H100 at $28k each?",
     {"l40s-48gb": 8_000, "h100-sxm-80gb": 28_000}),
    ("预算 200 万买卡，H20 按 11 万一张、4090 48G 按 2.2 万一张，跑 Qwen2.5-72B 各能支撑多少用户？",
     {"h20-96gb": 110_000 / 6.8012, "rtx-4090-48gb": 22_000 / 6.8012}),
])
def test_a_price_per_card_said_beside_each_card(kb, text, each):
    # each card bought at the price said beside it (CNY at 6.8012 per USD); counts never exceed budget / price:
    # $120k / $8k = 15 L40S at most, / $28k = 4 H100; ¥200万 / ¥11万 = 18 H20, / ¥2.2万 = 90 4090 48GB
    a = ask(kb, text)
    prices = {g.id: g.price_each_amount for g in a.query.gpus}
    assert set(prices) == set(each)
    budget = 120_000 if "$" in text else 2_000_000 / 6.8012
    for o in a.options:
        gpu = o.gpu.split("@")[0]
        if gpu in each:
            assert o.gpu_count * each[gpu] <= budget * 1.0001
    assert {o.gpu.split("@")[0] for o in a.options} >= set(each)


def test_the_cheaper_of_the_providers_compared_is_the_verdict(kb):
    # knowledge/prices: RunPod 8x H100 $23.92/h (undated catalog), Lambda $31.92/h (2026-09-20); 168 h:
    # $4,018.56 vs $5,362.56, RunPod $1,344 less
    a = ask(kb, "runpod vs lambda for 8x H100 for a week, which is cheaper?")
    line = next(d for d in a.details if d.code == "quote_cheaper_named")
    assert line.params["cheap_provider"] == "RunPod"
    assert line.params["saving_usd"] == pytest.approx((31.92 - 23.92) * 168)


@pytest.mark.parametrize(("text", "hours", "hourly", "plan"), [
    # 22 working days x 10 h = 220 h x ¥6.68 = ¥1,469.60 vs ¥3,500: by the hour, ¥2,030.40 less; the plan wins from
    # 3,500 / 6.68 = 524 h a month
    ("AutoDL 上 A800 80G 按量 6.68 元/小时，包月 3500 元，我们每天用 10 小时，一个月 22 个工作日，按我给的价格算哪个便宜？",
     220, 6.68, 3500),
    # a month (730 h) at 8 h a day = 243.3 h x $0.40 = $97.33 vs $220
    ("a 4090 is $0.40/h on demand or $220 for a monthly plan; we use it 8 hours a day, which is cheaper?",
     730 * 8 / 24, 0.40, 220),
])
def test_a_monthly_plan_against_the_hours_used(kb, text, hours, hourly, plan):
    a = ask(kb, text)
    h = a.headline
    assert h.code == "monthly_vs_hourly"
    assert h.params["hours"] == pytest.approx(hours)
    assert h.params["on_demand"]["amount"] == pytest.approx(hours * hourly)
    assert h.params["plan"]["amount"] == pytest.approx(plan)
    assert h.params["hourly_cheaper"] is True
    assert h.params["break_even_hours"] == pytest.approx(plan / hourly)


@pytest.mark.parametrize(("text", "count", "per_gpu", "hours"), [
    # the article names one card; the count said apart counts it: 4 x $0.90 x 336 h = $1,209.60; 8 x $2 x 730 = $11,680
    ("if an L40S costs $0.90/h, what do 4 of them cost for 2 weeks?", 4, 0.90, 336),
    ("an H100 costs $2/h, what do 8 of them cost for a month?", 8, 2.0, 730),
])
def test_a_premise_price_and_a_count_said_apart(kb, text, count, per_gpu, hours):
    a = ask(kb, text)
    assert a.headline.code == "quote_at_given_price"
    assert a.headline.params["count"] == count
    assert a.headline.params["total_usd"] == pytest.approx(count * per_gpu * hours)


def test_apiece_is_a_price_per_card(kb):
    q = parse_question("4x RTX 4090 at $1,800 apiece or 2x RTX 5090 at $2,500 apiece for Qwen2.5-32B?", kb)
    assert {(g.id, g.price_each_amount) for g in q.gpus} == {("rtx-4090-24gb", 1800.0), ("rtx-5090-32gb", 2500.0)}
