"""A fine-tuning question that says "full precision" and names no method: answered as full fine-tuning of the
unquantised weights, and when that does not fit, LoRA (also unquantised) follows as the labelled alternative.

Hand check: full fine-tuning with Adam in mixed precision holds 16 bytes per parameter (bf16 weights and gradients,
fp32 master weights and two moments; ZeRO paper, Rajbhandari et al. 2020, table 1): Llama 3 8B's 8.03e9
parameters need 128.5 GB, 64.2 GB per GPU even fully sharded over two, beyond a 24 GB card's 25.5 GB usable.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "can I finetune llama 3 8b in full precision on 2x RTX 3090?",
    "两张 3090 能全精度微调 llama 3 8b 吗",
])
def test_full_precision_finetune_is_full_then_lora(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "finetune_fixed_fails"
    assert a.headline.params["config"]["method"] == "full"
    assert a.headline.params["mem_gb"] > 8.03e9 * 16 / 2 / 1e9
    alternatives = [d for d in a.details if d.code == "alternative_finetune"]
    assert alternatives[0].params["config"]["method"] == "lora"
    assert any(x.code == "full_precision_full_finetune" for x in a.assumptions)
