"""One GPU named at two counts ("1 A6000 is too slow, would 2 A6000 help?") is two setups, and the sizing answer
gives each its own row (it used to match plans by GPU id alone, so both rows showed the same best plan).

Hand check (knowledge/models.yaml Llama 3 70B, 70.6B parameters; knowledge/gpus.yaml RTX A6000, 48 GB marketed, 47.9 GB
usable): on 2 cards in int8 the weights are 70.6 GB, 35.3 GB per card, which with the KV cache and runtime overhead the
answer states (38.3 GB per card) stays under vLLM's 0.9 x 47.9 = 43.1 GB budget; on 1 card the best is int4, 39.8 GB of
weights alone, which with overhead (43.8 GB) is over that budget: "just" (fits the card, not the default budget).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_each_count_of_one_gpu_is_its_own_setup(kb):
    a = advise(parse_question("1 A6000 is too slow for llama 3 70b, would 2 A6000 help?", kb), kb, today=TODAY)
    rows = [(o.gpu, o.gpu_count, o.precision, o.meets) for o in a.options]
    assert rows[:2] == [("rtx-a6000-48gb", 2, "int8", True), ("rtx-a6000-48gb", 1, "int4", False)]
    two, one = a.options[:2]
    assert two.memory_per_gpu_gb == pytest.approx(38.3, abs=0.2) and two.memory_per_gpu_gb < 0.9 * 47.9
    assert one.memory_per_gpu_gb == pytest.approx(43.8, abs=0.2) and one.memory_per_gpu_gb > 0.9 * 47.9
