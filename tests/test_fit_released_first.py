"""A "does it fit" question on a stated card with no format named, where the model as released does not fit and a
quantized copy fits only once the engine's memory reserve is raised: the released format's miss is said first, then
the tight fit, and the table says "just" for that row as the text does (not "NO").

Figures (hand-computed): Llama 3.1 8B has 8.030261248e9 parameters (knowledge/models.yaml), so bf16 weights are
16.06 GB. Its KV cache per token is 2 (K and V) x 32 layers x 8 KV heads x 128 head dim x 2 bytes = 131,072 bytes;
a 128k context (at least 128,000 tokens) holds >= 128,000 x 131,072 = 16.78 GB. bf16 therefore needs > 32.8 GB per
copy, beyond the 24 x 2^30 x 0.99 = 25.51 GB usable on a 24 GB card (knowledge/efficiency.yaml).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)
USABLE_24GB = 24 * 2**30 * 0.99 / 1e9
BF16_FLOOR_GB = 8.030261248e9 * 2 / 1e9 + 128_000 * 131_072 / 1e9


@pytest.mark.parametrize("text", [
    "I have one 3090 24GB, want to run Llama 3.1 8B with 128k context, enough VRAM?",
    "我有一张 3090 24G，想跑 Llama 3.1 8B，上下文开到 128k，显存够吗？",
])
def test_released_format_miss_leads_then_the_tight_quantized_fit(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "fit_only_quantized"
    assert h.params["native"] == "bf16"
    assert h.params["need_gb"] > BF16_FLOOR_GB
    assert h.params["usable_gb"] == pytest.approx(USABLE_24GB, abs=0.01)
    assert a.details[0].code == "fit_tight_budget"
    assert a.details[0].params["mem_gb"] == h.params["mem_gb"]
    # the tight row is "just" in the table, as in the text; the KV-cache alternative names its KV format
    assert a.table.rows[0][1] == "tight"
    labels = [r[0].get("precision", "") for r in a.table.rows]
    assert any(p.endswith("+ fp8 KV") for p in labels)
