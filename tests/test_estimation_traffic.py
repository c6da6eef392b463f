"""Requests in flight from a user base (bot/estimation/traffic.py), values computed by hand."""

from __future__ import annotations

import pytest

from bot.estimation.traffic import in_flight, traffic_from_daily_users


def test_littles_law_is_rate_times_time():
    # L = lambda x W (Little 1961): 4 requests/s held 2.5 s each = 10 in flight
    assert in_flight(4.0, 2.5) == pytest.approx(10.0)
    with pytest.raises(ValueError, match="negative"):
        in_flight(-1.0, 2.0)


def test_daily_users_to_requests_in_flight():
    # 10,000 users x 20 a day / 86,400 s = 2.3148 req/s; x 3 = 6.9444; x 25.6 s = 177.78 -> 178
    t = traffic_from_daily_users(10_000, 20, 3, 25.6)
    assert t.average_rps == pytest.approx(2.3148, rel=1e-4)
    assert t.peak_rps == pytest.approx(6.9444, rel=1e-4)
    assert t.in_flight == pytest.approx(177.78, rel=1e-4)
    assert t.concurrent == 178


def test_a_peak_below_the_mean_is_the_mean_and_one_user_is_the_least():
    # 100 users x 1 a day / 86,400 x 1 (0.5 read as 1) x 10 s = 0.0116 -> 1
    t = traffic_from_daily_users(100, 1, 0.5, 10)
    assert t.peak_factor == 1.0 and t.concurrent == 1
    with pytest.raises(ValueError, match="positive"):
        traffic_from_daily_users(0, 10, 2.4, 25.6)


def test_daily_users_with_a_stated_per_user_speed_size_requests_at_that_speed(kb):
    from bot.advice.context import Context
    from bot.parsing.parser import parse_question
    # 25,000 x 12 / 86,400 = 3.47 requests/s x 2.4 (policy peak_to_average) = 8.33/s; 256 output tokens at the
    # stated 20 tok/s = 12.8 s each; 8.33 x 12.8 = 106.7 -> 107 in flight (not 213 at the 10 tok/s floor)
    q = parse_question("we expect ~25k DAU, avg 12 messages/day each, llama 3.1 70b at 8k context, at least 20 tok/s "
                       "per user. how many H100s?", kb)
    from datetime import date
    ctx = Context(q, kb, date(2026, 12, 1))
    assert ctx.query.concurrent_users == 107


def test_a_per_second_target_written_around_its_number_in_chinese(kb):
    from bot.parsing.parser import parse_question
    q = parse_question("一张 H20 跑 Qwen2.5 7B 能撑多少并发？上下文4k，每人每秒至少20个token", kb)
    assert q.target_tokens_per_s == 20




@pytest.mark.parametrize(("text", "per_day"), [
    ("客服机器人，用Qwen2.5-72B，日活大概3万，每人每天聊8轮左右，高峰按平均的3倍算", 8),
    ("日活5万，每人每天对话10轮，跑 qwen2.5 14b", 10),
    ("50k DAU, 15 msgs per user per day, llama 3 8b", 15),
])
def test_requests_a_day_each_in_more_wordings(kb, text, per_day):
    from bot.parsing.parser import parse_question
    assert parse_question(text, kb).requests_per_user_per_day == per_day


def test_a_load_given_beside_a_count_asked_is_not_a_users_served_question(kb):
    from bot.parsing.parser import parse_question
    q = parse_question("how many H100s to serve llama 3.1 70b to 80 concurrent users at 8k ctx", kb)
    assert "gpu_count" in q.asks and "users_served" not in q.asks and q.concurrent_users == 80
