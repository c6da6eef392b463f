"""A whole service's requests a day written key first in Chinese ("每天 1 万次对话", "日均 5000 次调用") reach the
request as its rate, as "10,000 conversations a day" does in English; "每人每天" stays each user's rate.

By hand: 10,000 / 86,400 s = 0.11574 requests/s; 5,000 / 86,400 = 0.05787 requests/s.
"""

from __future__ import annotations

import pytest

from bot.parsing.parser import parse_question


@pytest.mark.parametrize(("text", "per_s"), [
    ("我们做客服机器人，每天 1 万次对话，用 Qwen2.5-7B，需要几张 4090", 10_000 / 86_400),
    ("日均 5000 次调用，qwen2.5 14b 要几张 L20", 5_000 / 86_400),
    ("our support bot handles 10,000 conversations a day on qwen2.5 7b, how many 4090s", 10_000 / 86_400),
])
def test_service_rate_a_day(kb, text, per_s):
    q = parse_question(text, kb)
    assert q.requests_per_s == pytest.approx(per_s, rel=1e-6)
    assert not q.not_understood


def test_a_duration_a_day_is_no_request_rate(kb):
    q = parse_question("每天跑 12 小时，8 张 4090 一个月多少钱", kb)
    assert q.requests_per_s is None


def test_a_days_requests_are_sized_at_the_peak(kb):
    # knowledge/policy.yaml serving.peak_to_average 2.4 (the daily-user path uses the same factor):
    # 1,200,000 / 86,400 = 13.889 requests/s on average x 2.4 = 33.33/s at peak x 500 output tokens = 16,667 tokens/s
    from datetime import date

    from bot.advice.advise import advise
    a = advise(parse_question("1.2M requests per day for Mistral Small 24B, ~500 output tokens each, how many L40S?",
                              kb), kb, today=date(2026, 12, 1))
    peak = next(w for w in a.warnings if w.code == "daily_requests_peak")
    assert peak.params["peak_rps"] == pytest.approx(1_200_000 / 86_400 * 2.4, rel=1e-6)
    o = a.options[a.recommendation]
    assert o.throughput_tps >= 16_667 * 0.999


def test_a_stated_peak_factor_is_used(kb):
    from datetime import date

    from bot.advice.advise import advise
    a = advise(parse_question("1.2M requests per day, peak is 3x average, mistral small 24b, 500 output tokens, "
                              "how many L40S?", kb), kb, today=date(2026, 12, 1))
    peak = next(w for w in a.warnings if w.code == "daily_requests_peak")
    assert peak.params["peak_factor"] == 3 and peak.params["peak_assumed"] is False


def test_pictures_a_day_and_a_rate_asked_per_minute(kb):
    # "一分钟能出几张": the minute is the period of the rate asked, not a 1-minute deadline; "每天要出 10 万张" is
    # a target of 100,000 / 1,440 min = 69.44 images/min
    q = parse_question("SDXL 在 L20 上一分钟能出几张图？每天要出 10 万张，需要几张卡？", kb)
    assert q.deadline_hours is None
    assert q.images_per_minute == pytest.approx(100_000 / 1_440, rel=1e-6)


@pytest.mark.parametrize(("text", "per_user"), [
    ("internal chatbot, 5k daily users, ~15 messages each, llama 3.3 70b fp8 on H100s, how many GPUs?", 15),
    ("5000 DAU, 20 queries per user, qwen 7b on L4s, how many?", 20),
])
def test_each_users_count_beside_daily_users_is_a_days(kb, text, per_user):
    q = parse_question(text, kb)
    assert q.requests_per_user_per_day == per_user and not q.not_understood
