""""How many users can <GPU> serve" with no count is answered per card: the fewest GPUs that hold the model (one
A100 40GB for Mistral 7B), not a larger group chosen for a lower cost per token.

Hand check of the capacity: Mistral 7B v0.3's KV cache is 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072
bytes per token (knowledge/models.yaml), so each 2,048-token user holds 0.268 GB; an A100 40GB has 42.5 GB usable
(40 GiB x 0.99), of which vLLM's default 0.9 budget leaves 38.3 GB; int8 weights are 7.25 GB, so at most
(38.3 - 7.25) / 0.268 = 115 users fit before runtime overhead — the answer must be near, and not above, that.
"""

from __future__ import annotations

from datetime import date

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_users_served_with_no_count_is_per_card(kb):
    a = advise(parse_question("A100 40GB: how many concurrent users for mistral 7b at 2k context, 20 tok/s each?", kb),
               kb, today=TODAY)
    assert a.headline.code == "users_served"
    assert a.headline.params["config"]["gpu_count"] == 1
    assert 90 <= a.headline.params["max_users"] <= 115
