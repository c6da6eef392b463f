""""How many users can <setup> serve" when the setup cannot hold even one user: the nearest setups that can (more of
the same GPU, another format) follow the "no", each with the users it serves.

Hand check: Qwen2.5 32B in bf16 is 32.76e9 x 2 bytes = 65.5 GB of weights (knowledge/models.yaml), beyond one L20's
47.9 GB usable (48 GiB x 0.99, rounded); two L20s (95.8 GB) or fp8 weights (32.8 GB) hold it.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "how many concurrent users can one L20 serve with qwen2.5 32b in bf16?",
    "1 张 L20 跑 Qwen2.5-32B bf16，能撑多少并发",
])
def test_a_setup_that_serves_no_one_is_followed_by_ones_that_do(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "users_served_none"
    alts = [d for d in a.details if d.code == "alternative_capacity"]
    assert alts and all(d.params["max_users"] > 0 for d in alts)
    changed = {c for d in alts for c in d.params["changes"]}
    assert changed & {"count", "precision"}
    assert a.headline.params["reason"].params["need_gb"] > 32.763876352e9 * 2 / 1e9  # bf16 weights alone: 65.5 GB
