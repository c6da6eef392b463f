"""Memory written in MB, MiB or TB is converted, never read as GB; a memory no card has is answered by that memory.

Conversions (lexicon memory.scaled_units): 1 MB = 10^6 bytes = 0.001 GB; MiB are read as the GiB of a card's
marketed size (a "24 GB" card is 24 GiB = 24,576 MiB), 1 MiB = 1/1024 "GB"; 1 TB = 1,000 GB. A converted size within
7% under to 3% over a card size is that card (nvidia-smi shows 81,559 MiB on an 80 GB H100: 79.65, 0.4% under).
Usable memory of a card of M GB: M x 2^30 x 0.99 / 10^9 GB (efficiency.yaml usable_memory_fraction_hbm).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize(("text", "gb"), [
    ("my card has 16000 MB of memory, can it run mistral 7b", 16),     # 16,000 x 0.001
    ("I have 24576 MiB VRAM, will llama 2 13b int8 fit", 24),          # 24,576 / 1,024
    ("8192MB GPU for phi-3 mini?", 8),                                  # 8.192 -> the 8 GB cards (2.4% over)
    ("a 40000 MB card for qwen2.5 14b", 40),                            # 40,000 x 0.001
    ("nvidia-smi says 81559MiB, can it serve llama 3 70b int4", 80),   # 79.65 -> 80 GB (0.4% under)
    ("2x 24000MB cards for llama 3 70b int4", 24),                      # 24.0
])
def test_a_memory_in_mb_or_mib_is_the_card_of_that_size(kb, text, gb):
    q = parse_question(text, kb)
    assert q.gpus and q.gpus[0].capacity_only
    assert kb.gpus[q.gpus[0].id].memory_gb == gb
    read = next(n for n in q.notes if n.code == "memory_unit_read")
    assert read.params["memory_gb"] == gb
    assert not q.not_understood


@pytest.mark.parametrize(("text", "gb"), [
    ("can I run llama 3 8b on a GPU with 12 MB VRAM", 0.012),
    ("is 512mb vram enough for tinyllama", 0.512),
    ("can a 3GB card run llama 3 8b int4", 3),
    ("can a 1.5 TB gpu run deepseek v3", 1500),
])
def test_a_memory_no_card_has_is_answered_by_that_memory(kb, text, gb):
    q = parse_question(text, kb)
    assert not q.gpus  # never another card
    term = next(t for t in q.unknown_terms if t.kind == "gpu")
    assert term.memory_gb == pytest.approx(gb)
    a = advise(q, kb, today=TODAY)
    assert a.headline.code == "unknown_gpu_fit" and a.headline.params["memory_only"]
    assert a.headline.params["usable_gb"] == pytest.approx(gb * 2**30 * 0.99 / 1e9)


def test_twelve_megabytes_hold_no_format_of_an_8b_model(kb):
    a = ask(kb, "can I run llama 3 8b on a GPU with 12 MB VRAM")
    assert not a.headline.params["fits"]
    assert len(a.headline.params["too_big"]) == 3  # 16-bit, int8, int4
    assert "with 0.012 GB (0.013 GB usable)" in compose(a).headline


def test_a_6gb_card_holds_a_small_model_quantized_only(kb):
    # Phi-3 mini, 3.82e9 parameters: bf16 weights 7.6 GB > 6.4 usable; int8 3.8 GB and int4 fit
    a = ask(kb, "my 6gb card, can it run phi-3 mini")
    fits = {i["precision"] for i in a.headline.params["fits"]}
    assert fits == {"int8", "int4"}


def test_chinese_memory_in_mb(kb):
    q = parse_question("显存只有 512MB，能跑 tinyllama 吗", kb)
    assert next(t for t in q.unknown_terms if t.kind == "gpu").memory_gb == pytest.approx(0.512)
    q = parse_question("显存 8192MB 能跑 qwen2.5 7b 吗", kb)
    assert kb.gpus[q.gpus[0].id].memory_gb == 8
