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
