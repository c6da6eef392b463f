"""A speed asked (not seen) of a setup with part of the model in system RAM leads with the range that split allows,
never with "does not fit".

By hand (knowledge/efficiency.yaml host_links; knowledge/gpus.yaml bandwidths):
* Llama 3 70B int4 (39.8 GB of weights, efficiency.yaml int4 bytes/weight), half in RAM: 19.9 GB on an RTX 3090 at
  936 GB/s = 21.3 ms, 19.9 GB from dual-channel DDR5-5600 (89.6 GB/s, JEDEC) = 222 ms: at most
  1 / 0.2433 s = 4.1 tokens/s.
* 70B in fp16 under accelerate (it copies offloaded layers over PCIe) on one A100 80GB: 143.0 GB needed, 85.0 usable;
  58 GB over PCIe 4.0 x16 (25 GB/s measured) = 2.32 s per token: about 0.4 tokens/s.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_half_in_ddr5_on_a_3090(kb):
    a = ask(kb, "llama 3 70b q4 on a 3090 with ollama, half of the layers in system RAM (DDR5), how many tok/s?")
    h = a.headline
    assert h.code == "offload_expected"
    assert h.params["high_tps"] == pytest.approx(1 / (19.9 / 936 + 19.9 / 89.6), rel=0.03)


def test_spill_over_pcie_under_accelerate(kb):
    a = ask(kb, "70B 模型 fp16 用 accelerate 跑在一张 A100 80G 上，放不下的 offload 到内存，每秒几个 token")
    h = a.headline
    assert h.code == "offload_expected"
    assert h.params["high_tps"] == pytest.approx(1 / (82.0 / 2039 + 58.0 / 25), rel=0.05)
    assert h.params["low_tps"] is None  # one way only: one figure


def test_a_speed_seen_keeps_its_verdict(kb):
    a = ask(kb, "I offload half of a 70B to system RAM on a 4090 and get 2 tok/s, is that expected?")
    assert a.headline.code == "observed_offload"


@pytest.mark.parametrize("text", [
    "running llama 3 70b q4 in ollama on a 4090 with the rest spilling into 64GB DDR5, how many tok/s will I get?",
    "一张 4090 + 128G DDR5，用 llama.cpp 跑 llama 3 70b q4，剩下的放内存，多少 tok/s",
])
def test_host_ram_is_no_card_and_the_spill_is_what_the_gpu_cannot_hold(kb, text):
    # the 4090 named stays (a DDR5 size is system RAM, not a 64 GB or 128 GB card); what spills is the need less the
    # 4090's usable memory: 42.0 - 25.5 = 16.5 GB, read from DDR5-5600 (89.6 GB/s) each token; 23.3 GB from the GPU at
    # 1,008 GB/s: at most 1 / (23.3/1008 + 16.5/89.6) = 4.8 tokens/s
    q = parse_question(text, kb)
    assert [g.id for g in q.gpus] == ["rtx-4090-24gb"] and q.cpu_offload
    a = ask(kb, text)
    assert a.headline.code == "offload_expected"
    assert a.headline.params["high_tps"] == pytest.approx(1 / (23.3 / 1008 + 16.5 / 89.6), rel=0.05)


@pytest.mark.parametrize("text", [
    "theoretical max tok/s for llama 3 70b fp8 on one H100?",
    "Llama 3 70B fp8 单卡 H100 理论上限每秒多少 token",
])
def test_the_roofline_leads_when_the_bound_is_asked(kb, text):
    # one H100 SXM reads its 3,350 GB/s (knowledge/gpus.yaml); 70.6 GB of fp8 weights + one user's KV cache per token:
    # at most 3350 / (weights + KV) tokens/s, the realistic estimate below it
    a = ask(kb, text)
    h = a.headline
    assert h.code == "decode_roofline"
    assert h.params["bound_tps"] == pytest.approx(3350 / h.params["read_gb"])
    assert 70 < h.params["read_gb"] < 75
    assert h.params["estimate_tps"] < h.params["bound_tps"]


def test_a_speed_far_below_the_bandwidth_bound_is_backed_by_its_measurement(kb):
    # H20: 4,000 GB/s over 65.5 GB of bf16 weights would allow ~61 tokens/s; the estimate follows the published SGLang
    # batch-1 run (knowledge/benchmarks.yaml: Qwen3-32B BF16, 20.72 tokens/s), which is said under the headline
    a = ask(kb, "Qwen2.5 32B bf16 on one H20, single-user tokens/s?")
    line = next(d for d in a.details if d.code == "measured_batch1")
    assert line.params["measured_tps"] == pytest.approx(20.72)


@pytest.mark.parametrize("text", [
    "Running Llama 3.3 70B Q4 on a single RTX 4090, rest in DDR5 RAM — what tok/s should I expect?",
    "两张 4090 跑 Llama 3.1 70B FP8，放不下的部分放 DDR5 内存，生成速度能有多少？",
])
def test_the_ram_type_between_the_verb_and_ram_is_still_an_offload(kb, text):
    a = ask(kb, text)
    assert a.query.cpu_offload and a.headline.code == "offload_expected"
