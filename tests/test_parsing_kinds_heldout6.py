"""Kinds of questions the parser missed on the sixth unseen set (tests/data/questions-heldout6.yaml), each through the
real parse path with questions written for this test (none copied from a question set), labels by hand:

1. speeds the user saw: decimals printed by a tool ("eval rate: 14.873512 tokens/s"), a tool's labelled measurement
   preferred over a paraphrase, a prompt (prefill) speed that is no generation speed, the past tense of a run ("was
   only 9.5 tokens/sec"), and someone else's figure never taken for the user's;
2. a GPU's memory written beside it: after "*" or a joiner ("A800 * 80G", "A100 with 40GB", "4090有24G"), before it
   with 显存的 ("22G显存的2080ti", a modded card's memory, never read as two cards' total), a name missing a word
   picked by its memory ("RTX 4000 20G": only the RTX 4000 Ada has 20 GB), a product number the knowledge base lacks
   ("5070 12GB", "5060 ti 16gb") reported unknown with its memory and never read as a count, "64 gb RAM" after a card
   word of another size, a hyphenated figure ("a 30-second clip") that is no A30, "m2-ultra" as an Apple chip.

GPU ids and memory come from ``knowledge/gpus.yaml`` (RTX 2080 Ti 11 GB ``rtx-2080-ti-11gb``; RTX 4000 Ada 20 GB
``rtx-4000-ada-20gb``; A800 80 GB ``a800-sxm-80gb``; A100 40 GB ``a100-sxm-40gb``).
"""

from __future__ import annotations

import pytest

from bot.parsing.parser import parse_question


def _gpus(query) -> list[tuple]:
    return [(g.id, g.count, g.memory_gb, g.capacity_only) for g in query.gpus]


# --------------------------------------------------------------------------- 1. speeds the user saw

@pytest.mark.parametrize(("text", "seen"), [
    # ollama --verbose prints "eval rate"; all 8 decimals are kept (the number reader took 6 at most before)
    ("mistral 7b on my 3060 via ollama, eval rate: 14.87351234 tokens/s, is that normal?", 14.87351234),
    # the tool's measured figure beats the rounded paraphrase before it
    ("only about 20 tok/s with qwen2.5 7b on a 4090 -- eval rate: 18.4419 tokens/s", 18.4419),
    # "was only": the past tense of the user's own run
    ("qwen2.5 14b on a 4090 in vllm, the decode rate was only 9.5 tokens/sec", 9.5),
    # 40 tok/s is someone else's ("reported"); the user's own is 12.25
    ("someone reported 40 tok/s on a 3090 for llama 3 8b, but my run gets 12.25 tok/s", 12.25),
    ("3090 跑 qwen2.5 7b，生成速度: 21.473 tokens/s 正常吗", 21.473),
])
def test_speed_the_user_saw(kb, text, seen):
    q = parse_question(text, kb)
    assert q.observed_tokens_per_s == pytest.approx(seen)
    assert q.target_tokens_per_s is None  # a figure seen is never a target


def test_prompt_throughput_is_a_prefill_speed_not_a_generation_speed(kb):
    q = parse_question("llama 3 8b in vllm on an L4: Avg prompt throughput: 850.3 tokens/s, Avg generation "
                       "throughput: 17.6 tokens/s, why so slow?", kb)
    assert [(o.kind, o.value) for o in q.observations] == [("prefill_tokens_per_s", 850.3), ("tokens_per_s", 17.6)]
    assert q.observed_tokens_per_s == pytest.approx(17.6)
    assert q.target_tokens_per_s is None


def test_a_long_decimal_is_one_number(kb):
    q = parse_question("a100, q4_k_m, eval rate: 7.123456789012 tokens/s", kb)
    assert q.observed_tokens_per_s == pytest.approx(7.123456789012)
    assert q.not_understood == []


# --------------------------------------------------------------------------- 2. a GPU's memory written beside it

@pytest.mark.parametrize(("text", "gpus"), [
    # "*" before a memory size: the card's memory (the A800 80GB), never a count of 80
    ("4张A800 * 80G 部署 qwen2.5 72b 能撑多少并发", [("a800-sxm-80gb", 4, None, False)]),
    # the A100 has a 40 GB variant: the joiner "with" picks it
    ("can an A100 with 40GB serve llama 3 8b to 50 users", [("a100-sxm-40gb", 1, None, False)]),
    # a modded 2080 Ti: 22 GB per card as written (3 x 11 = 33 is not 22: no total either way)
    ("三块22G显存的2080ti能微调 7b 吗", [("rtx-2080-ti-11gb", 3, 22.0, False)]),
    # two modded cards: 22 GB each, though 2 x 11 GB = 22 GB would read as the pair's total after the name
    ("两张22G显存的2080ti跑 qwen2.5 14b 够吗", [("rtx-2080-ti-11gb", 2, 22.0, False)]),
    # "RTX 4000" starts two names (RTX 4000 Ada 20 GB; the RTX A4000 is 16 GB): 20G picks the Ada
    ("RTX 4000 20G enough for mistral 7b?", [("rtx-4000-ada-20gb", None, None, False)]),
    ("is a RTX4000 with 20GB of VRAM ok for llama 3 8b", [("rtx-4000-ada-20gb", 1, None, False)]),
])
def test_memory_beside_a_gpu_is_that_gpus(kb, text, gpus):
    q = parse_question(text, kb)
    assert _gpus(q) == gpus


@pytest.mark.parametrize(("text", "unknown"), [
    # 5070 is shaped like a product number of a series the knowledge base has (RTX 5090), but it is not one: unknown,
    # with its memory, never 5,070 cards of 12 GB
    ("thinking of a 5070 12GB for llama 3 8b, will it fit", "5070 12GB"),
    # the 64 GB is system RAM: "Vram" belongs to the 16gb before it
    ("5060 ti 16gb Vram 64 gb RAM, lora on a 7b OOM", "5060 ti 16gb"),
])
def test_a_product_number_the_kb_lacks_is_unknown_with_its_memory(kb, text, unknown):
    q = parse_question(text, kb)
    assert q.gpus == []
    assert [t.as_written for t in q.unknown_terms if t.kind == "gpu"] == [unknown]


def test_a_hyphenated_figure_after_an_article_is_no_gpu(kb):
    # "a 30-second" is not the A30 ("a 100 or h 100" still is, tests/test_parsing.py)
    q = parse_question("transcribe a 30-second clip with whisper large-v3 on a T4", kb)
    assert _gpus(q) == [("t4-16gb", 1, None, False)]


def test_an_apple_chip_written_with_a_hyphen_is_unknown(kb):
    q = parse_question("m2-ultra vs 2x 3090 for llama 70b", kb)
    assert [t.as_written for t in q.unknown_terms if t.kind == "gpu"] == ["m2-ultra"]
    assert _gpus(q) == [("rtx-3090-24gb", 2, None, False)]
