"""'The biggest <family> I can run on <card> at <context>': the largest model of that family that fits, per precision.

Memory by hand (models.yaml shapes): weights = params x bytes per weight; KV cache = 2 (K and V) x layers x KV heads x
head_dim x 2 B (bf16 KV) x tokens. RTX 4090: 24 GB.
* Qwen3 8B (8.19073536e9 params, 36 layers, 8 KV heads, head_dim 128) in bf16 at 8,192 tokens:
  16.381 GB + 2 x 36 x 8 x 128 x 2 x 8,192 = 1.208 GB -> 17.59 GB: fits 24 GB.
* the next larger Qwen, Qwen3 14B (1.47683072e10 params), in bf16: 29.54 GB of weights alone > 24 GB: does not fit.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", ["What is the biggest Qwen I can run on my RTX 4090 at 8k context?",
                                  "我的4090最大能跑多大的Qwen？上下文8k"])
def test_the_biggest_model_of_a_family_on_a_card(kb, text):
    q = parse_question(text, kb)
    assert "largest_model" in q.asks and "qwen3-8b" in q.family_model_ids and q.context_tokens == 8192
    a = advise(q, kb, today=TODAY)
    assert a.headline.code == "what_runs"
    assert a.headline.params["bf16_model"] == "Qwen3 8B"
    kv_gb = 2 * 36 * 8 * 128 * 2 * 8192 / 1e9
    assert 8.19073536 * 2 + kv_gb == pytest.approx(17.59, abs=0.01) and 8.19073536 * 2 + kv_gb < 24
    assert 14.7683072 * 2 > 24  # Qwen3 14B's bf16 weights alone exceed the card
    # every precision column names a model of the family asked, never another family's
    family = {kb.models[i].name for i in q.family_model_ids}
    row = a.table.rows[0]
    assert [c for c in row[2:-1] if c] and all(c in family for c in row[2:-1] if c)


def test_no_family_still_answers_from_every_model(kb):
    q = parse_question("What is the biggest model I can run on my RTX 4090 at 8k context?", kb)
    assert q.family_model_ids == []
    a = advise(q, kb, today=TODAY)
    assert a.headline.code == "what_runs"
