"""The first line states the asked quantity, in the user's units, with every stated input kept.

Questions are asked as users write them (English and Chinese); each expected figure is worked out by hand
from the knowledge files and cited next to the assertion.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- users served ("能同时服务多少人")

@pytest.mark.parametrize("text", [
    "一台 8×A800 80G 跑 Qwen3-32B bf16，每人至少 20 tok/s，能同时服务多少人？",
    "两张 4090 跑 qwen2.5 14b int4 能服务几个人",
    "一张 H100 部署 llama 3 8b，够多少人同时用？",
    "how many people can 2x H100 serve llama 3 70b fp8 at 20 tok/s each",
    "8x L40S with qwen2.5 72b awq: how many people could it serve at 4k ctx?",
])
def test_how_many_people_leads_with_the_user_count(kb, text):
    a = ask(kb, text)
    assert "users_served" in a.query.asks
    assert a.headline.code == "users_served"
    assert a.headline.params["max_users"] == a.options[a.recommendation].max_users > 1
    # the capacity is searched, never one user assumed
    assert "one_user" not in [n.code for n in a.assumptions]


def test_stated_per_user_floor_holds_at_the_capacity(kb):
    a = ask(kb, "一台 8×A800 80G 跑 Qwen3-32B bf16，每人至少 20 tok/s，能同时服务多少人？")
    assert a.headline.params["per_user_tps"] >= 20.0
