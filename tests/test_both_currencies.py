"""Both currencies asked ("人民币和美元都报一下", "in rmb and in usd"): money is said in CNY with USD beside it.

Hand check: AutoDL's H800 figure ¥8.88 per GPU-hour (knowledge/prices price mentions) x 8 x 730 h = ¥51,859; in USD
at the dated rate (knowledge exchange_rates) ¥51,859 / rate.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.i18n import Renderer
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", ["8卡H800 租一个月多少钱，人民币和美元都报一下", "8x H100 for a week, in rmb and in usd"])
def test_both_currencies_asked_are_both_said(kb, text):
    q = parse_question(text, kb)
    assert q.both_currencies and q.answer_currency == "cny"
    first = render_text(advise(q, kb, today=TODAY)).splitlines()[1]
    assert "¥" in first and "$" in first


def test_a_cny_amount_gets_its_usd_beside_it_at_the_rate():
    r = Renderer(language="zh", cny_per_usd=7.0, both=True)
    assert r.say({"code": "x", "params": {}}) == "x"
    assert r.usd(10) == "¥70.00（$10.00）"
