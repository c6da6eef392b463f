"""GPU counts compared with no format named, where the model as released fits none of them: both sides are compared
in the first format that fits each (not a blank "fits on ; not on ..."), said as an assumption.

Hand check: Llama 3.1 70B has 70.6e9 parameters (knowledge/models.yaml): 141 GB in bf16, beyond 2x RTX A6000
(2 x 47.9 GB usable) and 1x A100 80GB (85.0 GB usable); in int8 (Ampere has no FP8) 70.6 GB fits both. Decode of
one stream reads the weights once per token: one A100 at 2,039 GB/s against two A6000 at 2 x 768 = 1,536 GB/s, so
the A100 is faster by up to 2,039 / 1,536 = 1.33x before the A6000 pair's all-reduce costs (knowledge/gpus.yaml).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "llama 3.1 70b: 2x A6000 vs 1x A100 80GB, which is faster for one user?",
    "llama 3.1 70b 用 2 张 A6000 还是 1 张 A100 80G，单用户哪个快",
])
def test_counts_compared_in_the_first_format_that_fits_all(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "compare_decode"
    assert a.headline.params["fast"]["precision"] == a.headline.params["slow"]["precision"] == "int8"
    assert a.headline.params["fast"]["gpu_name"].startswith("A100")
    assert 1.0 < a.headline.params["ratio_x"] < 2039 / 1536 * 1.1
    assert any(x.code == "compare_format_to_fit" and x.params["native"] == "bf16" for x in a.assumptions)
