"""Amounts in currencies other than USD: converted with a dated, sourced rate, or said to be unused.

Rates: knowledge/prices/common/exchange_rates.yaml. EUR: ECB reference rate of 2026-05-08, 1 EUR = 1.1761 USD
(stored as 0.85027 EUR per USD); CNY: 6.8012 CNY per USD (same ECB publication, cross rate). There is no GBP, JPY
or BTC rate: such an amount is never read as dollars.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)
USD_PER_EUR = 1.1761  # ECB 2026-05-08


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize(("text", "field", "amount", "currency"), [
    ("rent an L40S for 2 days, I can spend £150", "budget", 150, "gbp"),
    ("3 A100s for a week, we have 900 pounds", "budget", 900, "gbp"),
    ("under 800 yen per hour for mistral 7b, what should I use", "price_limit_per_hour", 800, "jpy"),
    ("a budget of 0.02 btc for an H100 rental", "budget", 0.02, "btc"),
    ("L4 for a month, 300 euros, enough?", "budget", 300, "eur"),
    ("best setup for a 13b model under €4 an hour", "price_limit_per_hour", 4, "eur"),
])
def test_the_parser_reads_the_currency_written(kb, text, field, amount, currency):
    q = parse_question(text, kb)
    if currency == "eur":  # a currency with a rate is kept, in its own currency
        money = getattr(q, field)
        assert (money.amount, money.currency) == (pytest.approx(amount), currency)
        assert not q.limits
    else:  # no rate: set aside (never dollars), and said first
        assert getattr(q, field) is None and q.budget is None and q.price_limit_per_hour is None
        lead = next(n for n in q.limits if n.code == "currency_without_rate")
        assert lead.params["items"][0]["money"] == {"amount": pytest.approx(amount), "currency": currency}
        assert lead.params["currencies"] == [currency.upper()]


def test_a_euro_hourly_limit_is_converted_at_the_dated_rate_and_said(kb):
    # €4/h x 1.1761 USD/EUR = $4.7044/h; every option shown rents for no more than that
    a = ask(kb, "what's the best setup for a 13b model under €4 an hour")
    assert a.headline.params["limit_usd"] == pytest.approx(4 * USD_PER_EUR, rel=1e-4)
    assert all(o.price_per_hour_usd <= 4 * USD_PER_EUR + 1e-6 for o in a.options if o.meets)
    fx = next(w for w in a.warnings if w.code == "fx_rate_used")
    assert fx.params["converted_usd"] == pytest.approx(4.7044, rel=1e-4)
    assert fx.params["usd_per_unit"] == pytest.approx(USD_PER_EUR, rel=1e-4)
    assert fx.params["rate_date"] == "2026-05-08"
    text = "\n".join(compose(a).warnings)
    assert "€4.00 is $4.70 at 1.1761 USD per EUR (rate of 2026-05-08)" in text


def test_a_euro_budget_for_a_rental_is_checked_in_dollars(kb):
    # €300 x 1.1761 = $352.83; a month (730 h) of the cheapest L4 (RunPod 1x_L4_SECURE, $0.44/h) = $321.20: within
    a = ask(kb, "L4 for a month, 300 euros, enough?")
    assert a.headline.code == "quote_within_limit"
    assert a.headline.params["budget_usd"] == pytest.approx(300 * USD_PER_EUR, rel=1e-4)
    assert a.headline.params["total_usd"] == pytest.approx(730 * 0.44)


def test_a_euro_purchase_price_is_converted_for_buy_vs_rent(kb):
    a = ask(kb, "buy 8x H100 server for €280,000 or rent?")
    assert a.headline.params["purchase_usd"] == pytest.approx(280_000 * USD_PER_EUR, rel=1e-4)  # $329,308


def test_a_pound_budget_is_not_read_as_dollars_and_leads(kb):
    # without the budget, two days (48 h) of one L40S is priced as a plain rental
    a = ask(kb, "rent an L40S for 2 days, I can spend £150")
    assert a.headline.code == "currency_without_rate"
    assert a.query.budget is None
    assert a.details[0].code == "quote_one" and a.details[0].params["hours"] == 48
    first = compose(a).headline
    assert first.startswith("I price in US dollars and have no dated exchange rate for GBP, so £150.00 was not used")


def test_a_yen_limit_is_not_applied_as_a_dollar_limit(kb):
    # "800 yen per hour" read as $800/h would allow any setup; it is left out and said instead
    a = ask(kb, "under 800 yen per hour for mistral 7b, what should I use")
    assert a.headline.code == "currency_without_rate"
    assert "800.00 JPY/h" in compose(a).headline
    assert not any(n.code == "hourly_limit_used" for n in a.assumptions)


def test_a_monthly_amount_in_pounds_is_named_as_written(kb):
    a = ask(kb, "serve mistral 7b to 40 users, 1500 GBP per month")
    assert a.headline.code == "currency_without_rate"
    assert "£1,500 a month was not used" in compose(a).headline


def test_chinese_questions_get_the_same_rules_in_chinese(kb):
    # 5,000 欧元 = 5,000 x 1.1761 = $5,880.50, shown in yuan for a Chinese question (x 6.8012 = ¥39,994)
    a = ask(kb, "预算 5000 欧元，租 8 张 H100 一周够吗")
    assert a.headline.params["budget_usd"] == pytest.approx(5000 * USD_PER_EUR, rel=1e-4)
    assert any("1 EUR = 1.1761 美元" in w for w in compose(a).warnings)
    b = ask(kb, "每月预算 2 万英镑，部署 qwen2.5 72b")
    assert b.headline.code == "currency_without_rate"
    assert compose(b).headline.startswith("我的数据里没有 GBP 的带日期汇率")


@pytest.mark.parametrize(("text", "usd"), [
    ("how many H100 hours can $1000 buy", 1000.0),
    ("how many H100 hours can 1000 euros buy", 1000 * USD_PER_EUR),
])
def test_money_that_buys_gpu_time_is_a_budget_not_a_purchase_price(kb, text, usd):
    # the cheapest H100 SXM GPU-hour at a list price (marketplace asks, e.g. Vast.ai's $1.80, are said beside it):
    # RunPod 1x_H100-SXM_SECURE at $2.99 (knowledge/prices/runpod.yaml); $1,000 / 2.99 = 334.4 GPU-hours;
    # EUR 1,000 = $1,176.10 / 2.99 = 393.3
    q = parse_question(text, kb)
    assert q.purchase_price is None and q.budget is not None
    a = advise(q, kb, today=TODAY)
    assert a.headline.code == "budget_gpu_hours"
    assert a.headline.params["gpu_hours"] == pytest.approx(usd / 2.99, rel=1e-4)


def test_a_model_priced_with_no_gpus_is_priced_as_served(kb):
    # "what does it cost per hour" of a model alone: the serving plan's price, never a list of GPU prices
    a = ask(kb, "how much does it cost per hour to run llama 3 8b")
    assert a.intent == "size_inference" and a.options and a.options[0].price is not None
