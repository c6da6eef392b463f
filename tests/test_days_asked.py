"""Time asked in days ("要多少天", "how many days"): the answer's durations of an hour or more say days too.

Hand check: 41 h / 24 = 1.7 days; 13 h / 24 = 0.5 days (bot/render/i18n.py Renderer.duration).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.i18n import Renderer
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(("hours", "days", "text"), [
    (41, True, "41 h (1.7 days)"),
    (41, False, "41 h"),
    (13, True, "13 h (0.5 days)"),
    (6, True, "6 h (0.2 days)"),
    (0.5, True, "30 min"),
    (72, False, "72 h (3.0 days)"),
])
def test_durations_say_days_when_asked_in_days(hours, days, text):
    assert Renderer(language="en", days=days).duration(hours) == text


@pytest.mark.parametrize("text", ["用910B训练7B模型，1000亿token，256卡要多少天",
                                  "how many days to train a 1b model on 50B tokens with 64 A100s"])
def test_a_question_in_days_is_answered_in_days(kb, text):
    q = parse_question(text, kb)
    assert q.days_asked
    out = render_text(advise(q, kb, today=TODAY))
    first = out.splitlines()[1]
    assert "天）" in first or "days)" in first
