"""Money the user states (a budget, an hourly limit, a price to compute with) and loads in comparisons.

Prices come from knowledge/prices/*.yaml with their as_of dates; the CNY rate is
knowledge/prices/common/exchange_rates.yaml (6.8012 CNY per USD, 2026-05-08).
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)
CNY_PER_USD = 6.8012


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_a_budget_that_cannot_be_met_says_no_and_what_it_buys(kb):
    # Cheapest way to rent eight H100 SXM (no machine asked for): 8 x Vast.ai 1x-H100_SXM-32-65536 at $1.80/h
    # (undated catalog) = $14.40/h. A week = 168 h: 168 x 14.40 = $2,419.20 > $2,000; $2,000 / $14.40 = 138.9 h.
    a = ask(kb, "we need eight h100s for one week and have a budget of $2000, which cloud?")
    assert a.headline.code == "quote_over_limit"
    assert a.headline.params["total_usd"] == pytest.approx(168 * 8 * 1.80)
    assert a.headline.params["affordable_hours"] == pytest.approx(2000 / (8 * 1.80))


def test_a_budget_that_holds_names_the_cheapest_row_within_it(kb):
    a = ask(kb, "8 h100 gpus for a week, budget is $6000")
    assert a.headline.code == "quote_within_limit"
    assert a.headline.params["total_usd"] <= 6000


def test_a_monthly_budget_answers_how_many_gpus_it_rents(kb):
    # ¥50,000 a month = 50,000 / 6.8012 / 730 h = $10.07/h; the cheapest one-GPU A100 80GB rental is RunPod
    # 1x_A100-80GB-SXM_SECURE at $1.89/h: floor(10.07 / 1.89) = 5 GPUs.
    a = ask(kb, "每个月预算5万人民币，能租几张A100 80G部署qwen2.5 32b？")
    assert a.headline.code == "budget_buys"
    assert a.headline.params["count"] == math.floor(50_000 / CNY_PER_USD / 730 / 1.89)
    assert a.headline.params["max_users"] > 0


def test_a_price_the_user_gives_is_used_for_the_cost(kb):
    # 15 CNY per GPU-hour = 15 / 6.8012 = $2.2055 per GPU-hour; the run's cost is GPU-hours x that price.
    a = ask(kb, "从零预训练 3B 模型，200B token，32 张 H800 要多久，成本多少（按每卡每小时15元算）")
    o = a.options[a.recommendation]
    assert o.price.provider == "user"
    assert o.price.price_per_gpu_hour_usd == pytest.approx(15 / CNY_PER_USD)
    assert o.total_cost_usd == pytest.approx(o.gpu_hours * 15 / CNY_PER_USD)
    assert a.query.answer_currency == "cny"


def test_an_hourly_price_after_at_is_the_price_not_a_limit(kb):
    q = parse_question("fine-tune llama 3 8b with lora on 4 a100s at $1.60/hr each, how much for 50M tokens", kb)
    assert q.given_price_per_hour.amount == 1.60 and q.given_price_per_gpu
    assert q.price_limit_per_hour is None


def test_a_comparison_with_a_load_compares_what_each_needs(kb):
    a = ask(kb, "for 40 concurrent users of llama 3.1 70b, l40s or h100?")
    assert a.intent == "compare" and a.headline.code == "compare_load"
    items = a.headline.params["items"]
    assert {i["config"]["gpu_name"] for i in items} == {"L40S", "H100 SXM5 80GB"}
    # each side meets the load at the floor, and the pick is the cheaper per hour of the sides that meet it
    meets = [o for o in a.options if o.meets and o.users == 40]
    cheapest = min(meets, key=lambda o: o.price_per_hour_usd)
    assert a.headline.params["pick"]["gpu_name"] == cheapest.gpu_name


def test_gpus_compared_for_a_model_with_cost_asked_is_a_comparison(kb):
    a = ask(kb, "a100 vs l40s vs h100 for mistral 7b, what's the cost per 1M tokens?")
    assert a.intent == "compare"
    # three GPU types priced: each one's cost per 1M output tokens, cheapest first
    assert a.headline.code == "compare_costs"
    costs = [i["cost_usd"] for i in a.headline.params["items"]]
    assert len(costs) == 3 and costs == sorted(costs)


def test_a_fixed_node_too_small_for_the_load_reports_the_memory_of_that_load(kb):
    # DeepSeek-V3 MLA KV per token: (kv_lora_rank 512 + rope 64) x 61 layers x 2 bytes = 70,272 bytes; 400 users
    # x 16,384 tokens = 460.5 GB of KV cache + 671 GB of FP8 weights = 1,131.5 GB over 8 GPUs = 141 GB each at
    # least, well above an H100's 85 GB usable.
    a = ask(kb, "deepseek v3 in fp8 on one 8x h100 node for 400 users at 16k context?")
    assert a.headline.code.startswith("serve_fixed_fails") or not a.options[0].meets
    o = a.options[0]
    assert o.gpu_count == 8 and not o.fits
    assert o.memory_per_gpu_gb >= (671 + 400 * 16_384 * 70_272 / 1e9) / 8
    assert o.decode_tps is None and o.cost_per_million_tokens_usd is None


# --------------------------------------------------------------------------- daily active users

@pytest.mark.parametrize(("text", "daily", "users"), [
    # Little's law with knowledge/policy.yaml's defaults (requests_per_daily_user 10, peak_to_average 2.4) and a request
    # of 256 output tokens (efficiency.yaml default_output_tokens) at the 10 tokens/s floor = 25.6 s:
    # 5,000 x 10 / 86,400 x 2.4 x 25.6 = 35.56 -> 36; 20,000: 142.2 -> 143; 12,345: 87.79 -> 88 (rounded up)
    ("日活 5000 的聊天应用用 Llama 3 8B 要几张 4090", 5_000, 36),
    ("a chat app with 5k DAU on Llama 3 8B, how many 4090s", 5_000, 36),
    ("我们日活两万，qwen2.5 14b 用 L20 要几张", 20_000, 143),
    ("serve mistral 7b for 12,345 daily active users on L4s", 12_345, 88),
])
def test_daily_users_are_sized_as_users_in_flight_and_said(kb, text, daily, users):
    a = ask(kb, text)
    assert a.query.daily_active_users == daily and a.query.concurrent_users == users
    stated = [w for w in a.warnings if w.code == "users_from_daily_users"]
    assert stated and stated[0].params["users"] == users
    assert stated[0].params["requests_assumed"] and stated[0].params["peak_assumed"]
    assert stated[0].params["request_s"] == pytest.approx(25.6)
    assert not any(w.code == "not_understood" for w in a.warnings)
    rec = a.options[a.recommendation]
    assert rec.meets and (rec.max_users or 0) >= users


@pytest.mark.parametrize(("text", "daily", "per_day", "peak", "users"), [
    # 10,000 x 20 / 86,400 = 2.315 req/s; x 3 = 6.944; x 25.6 s = 177.8 -> 178
    ("we run Llama 3 8B for 10k daily active users, every user sends about 20 messages a day, traffic peaks at 3x",
     10_000, 20, 3, 178),
    # 50,000 x 10 / 86,400 = 5.787; x 2.4 (default) = 13.89; x 25.6 = 355.6 -> 356
    ("日活 5 万，每人每天 10 轮对话，qwen2.5 14b 用几张 L20", 50_000, 10, None, 356),
    # 20,000 x 20 / 86,400 = 4.630; x 5 = 23.15; x 25.6 = 592.6 -> 593 (the 5 倍 is the peak, no speed claim)
    ("日活两万，人均每天 20 次请求，高峰是平均的 5 倍，llama 3 8b 要几张 L40S", 20_000, 20, 5, 593),
    # 4,000 x 12 / 86,400 = 0.5556; x 2.4 = 1.333; x 25.6 = 34.13 -> 35
    ("4k DAU at 12 turns/day each, mistral 7b on an L4, how many", 4_000, 12, None, 35),
])
def test_daily_users_with_their_requests_a_day_and_peak_are_sized_by_littles_law(kb, text, daily, per_day, peak,
                                                                               users):
    a = ask(kb, text)
    q = a.query
    assert q.daily_active_users == daily and q.requests_per_user_per_day == per_day and q.peak_factor == peak
    assert q.concurrent_users == users and not q.claims and q.claimed_ratio is None
    stated = next(w for w in a.warnings if w.code == "users_from_daily_users")
    assert stated.params["peak_rps"] == pytest.approx(daily * per_day / 86_400 * (peak or 2.4))
    assert not stated.params["requests_assumed"] and stated.params["peak_assumed"] == (peak is None)
    # the setup picked is faster than the floor: each request ends sooner, so fewer are in flight than sized for
    load = next(d for d in a.details if d.code == "traffic_at_estimate")
    rec = a.options[a.recommendation]
    assert load.params["request_s"] == pytest.approx(rec.ttft_s + 256 / rec.tps_per_user)
    assert load.params["in_flight"] <= users


def test_a_whole_day_of_requests_beside_daily_users_is_shared_among_them(kb):
    # 200,000 requests a day for 10,000 daily users is the service's day (more requests than users): 20 each;
    # 10,000 x 20 / 86,400 x 2.4 (default peak) x 25.6 s = 142.2 -> 143 in flight
    a = ask(kb, "10k DAU sending 200k requests per day, llama 3 8b on H100")
    assert a.query.requests_per_user_per_day == pytest.approx(20) and a.query.requests_per_s is None
    assert a.query.concurrent_users == 143


def test_concurrent_users_given_beside_daily_users_are_kept(kb):
    a = ask(kb, "5k DAU, 80 concurrent users at peak, Llama 3 8B, how many 4090s")
    assert a.query.concurrent_users == 80
    assert not any(w.code == "users_from_daily_users" for w in a.warnings)
