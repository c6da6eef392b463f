"""A speed seen with part of a model in system RAM, judged against the bandwidth bound of that split: decode time per
token >= bytes on the GPU / GPU bandwidth + bytes offloaded / host bandwidth (PCIe when the engine copies the layers to
the GPU, system RAM when the CPU computes them), with the expected range and a verdict."""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.observed import BELOW_SHARE
from bot.errors import KnowledgeError
from bot.estimation import efficiency_for
from bot.estimation.efficiency import load_efficiency
from bot.estimation.offload import offload_decode_bound_tps, offload_paths
from bot.estimation.results import EstimationError
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)
# RTX 4090: 1,008 GB/s GDDR6X, PCIe Gen4 x16 (knowledge/gpus.yaml); PCIe 4.0 x16 25 GB/s measured host-to-device,
# dual-channel DDR4-3200 51.2 GB/s and DDR5-5600 89.6 GB/s (knowledge/efficiency.yaml host_links: PCI-SIG, JEDEC)
RTX4090_GB_S, PCIE4_GB_S, DDR4_GB_S, DDR5_GB_S = 1008, 25, 51.2, 89.6


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _note(answer, code: str):
    return next(d for d in [answer.headline, *answer.details] if d.code == code)


def test_the_bound_adds_the_gpu_part_and_the_offloaded_part():
    # 20 GB on a 1,008 GB/s GPU (19.8 ms) + 20 GB over PCIe 4.0 at 25 GB/s (800 ms) = 0.820 s: 1.22 tokens/s
    assert offload_decode_bound_tps(20, 20, RTX4090_GB_S, PCIE4_GB_S) == pytest.approx(1 / (20 / 1008 + 20 / 25))
    assert offload_decode_bound_tps(20, 20, RTX4090_GB_S, PCIE4_GB_S) == pytest.approx(1.219, abs=0.001)
    # nothing offloaded: the GPU's bandwidth alone, 1,008 / 20 = 50.4 tokens/s
    assert offload_decode_bound_tps(20, 0, RTX4090_GB_S, PCIE4_GB_S) == pytest.approx(50.4)
    with pytest.raises(EstimationError):
        offload_decode_bound_tps(0, 0, RTX4090_GB_S, PCIE4_GB_S)
    with pytest.raises(EstimationError):
        offload_decode_bound_tps(10, 10, RTX4090_GB_S, 0)


def test_host_links_are_the_pci_sig_and_jedec_figures(kb):
    links = efficiency_for(kb).host_links
    # PCIe 4.0: 16 GT/s x 16 lanes x 128/130 / 8 bits = 31.5 GB/s raw per direction, ~25 GB/s measured
    assert links["pcie4_x16"].peak_gb_s == pytest.approx(16 * 16 * 128 / 130 / 8, rel=0.01)
    assert links["pcie4_x16"].bandwidth_gb_s == PCIE4_GB_S
    # DDR4-3200: 3,200 MT/s x 8 bytes x 2 channels = 51.2 GB/s; DDR5-5600: 5,600 x 8 x 2 = 89.6 GB/s
    assert links["ddr4_3200_dual"].bandwidth_gb_s == pytest.approx(3200e6 * 8 * 2 / 1e9)
    assert links["ddr5_5600_dual"].bandwidth_gb_s == pytest.approx(5600e6 * 8 * 2 / 1e9)
    assert all(x.source and x.as_of for x in links.values())


def test_a_host_link_of_an_unknown_kind_is_rejected_at_load(tmp_path, kb):
    text = (kb.directory / "efficiency.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "efficiency.yaml"
    bad.write_text(text.replace("    kind: ram\n", "    kind: nvme\n", 1), encoding="utf-8")
    with pytest.raises(KnowledgeError, match="host_links"):
        load_efficiency(bad)


def test_the_engine_decides_where_offloaded_layers_run(kb):
    eff, gpu = efficiency_for(kb), kb.gpus["rtx-4090-24gb"]
    assert kb.engines["llama.cpp"].offload_runs_on == "cpu" and kb.engines["vllm"].offload_runs_on == "gpu"
    cpu = offload_paths(eff, gpu, 20, 20, runs_on="cpu")
    assert {p.runs_on for p in cpu} == {"cpu"} and len(cpu) == 2
    # DDR5 named: only that row; 20 / 1,008 + 20 / 89.6 = 0.243 s -> 4.11 tokens/s
    (ddr5,) = offload_paths(eff, gpu, 20, 20, runs_on="cpu", host_memory="ddr5")
    assert ddr5.bound_tps == pytest.approx(1 / (20 / 1008 + 20 / 89.6))
    # a CPU decode typically reaches 70% of the JEDEC rate (llama.cpp issue #34: 33.7 of 51.2 GB/s):
    # 1 / (20 / 1,008 + 20 / (0.7 x 89.6)) = 2.97 tokens/s
    assert ddr5.typical_tps == pytest.approx(1 / (20 / 1008 + 20 / (0.7 * 89.6)))
    (pcie,) = offload_paths(eff, gpu, 20, 20, runs_on="gpu")
    assert pcie.link.pcie_gen == 4  # the 4090's own link generation
    assert pcie.typical_tps == pcie.bound_tps  # the PCIe figure is measured already


def test_a_mixture_of_experts_reads_only_its_active_share(kb):
    # Mixtral 8x7B: 12.9 of 46.7 B parameters active per token (knowledge/models.yaml), so each token reads 27.6% of
    # each part of the split: with llama.cpp (CPU) and 2/3 of the int4 weights in RAM the DDR5 bound is
    # 1 / (w/3 x 0.276 / 760 + 2w/3 x 0.276 / 89.6)
    a = ask(kb, "llama.cpp: mixtral 8x7b q4 on a 3080 10gb with 2/3 of it in system ram, getting 4 tok/s")
    p = a.headline.params
    m = kb.models["mixtral-8x7b"]
    share = m.params_active_b / m.params_total_b
    w = p["weights_gb"]
    assert p["offload_gb"] == pytest.approx(w * 0.667)
    assert p["high_tps"] == pytest.approx(1 / ((w - p["offload_gb"]) * share / 760 + p["offload_gb"] * share / 89.6))
    assert _note(a, "offload_bound").params["active_pct"] == pytest.approx(100 * share)


def test_half_of_a_70b_offloaded_on_a_4090_at_2_tokens_per_s_is_expected(kb):
    a = ask(kb, "I offload half of a 70B to system RAM on a 4090 and get 2 tok/s, is that expected?")
    seen = a.headline
    assert seen.code == "observed_offload" and seen.params["verdict"] == "expected"
    p = seen.params
    # half of 70B can sit on a 24 GB card only in 4 bits: the int4 weights (~39.5 GB with the 16-bit embeddings of the
    # Llama 3 70B shape) split 19.7 / 19.7 GB
    assert p["precision"] == "int4" and 35 < p["weights_gb"] < 42
    assert p["offload_gb"] == pytest.approx(p["weights_gb"] / 2) and p["gpu_gb"] == pytest.approx(p["weights_gb"] / 2)
    half = p["weights_gb"] / 2
    # no engine named: both ways. Slowest: PCIe 4.0, 1 / (19.7 / 1,008 + 19.7 / 25) = 1.24 tokens/s; fastest: the CPU
    # with DDR5-5600, 1 / (19.7 / 1,008 + 19.7 / 89.6) = 4.17 tokens/s; the range runs from 60% of the slowest
    pcie = 1 / (half / RTX4090_GB_S + half / PCIE4_GB_S)
    ddr5 = 1 / (half / RTX4090_GB_S + half / DDR5_GB_S)
    assert p["high_tps"] == pytest.approx(ddr5) and 4.0 < ddr5 < 4.4
    assert p["low_tps"] == pytest.approx(BELOW_SHARE * pcie) and 0.7 < p["low_tps"] < 0.8
    assert p["low_tps"] < 2.0 < p["high_tps"]
    bound = _note(a, "offload_bound")
    assert [round(x["bound_tps"], 2) for x in bound.params["paths"]] == [
        round(pcie, 2), round(1 / (half / RTX4090_GB_S + half / DDR4_GB_S), 2), round(ddr5, 2)]
    assert render_text(a).splitlines()[1].startswith("You see 2.0 tokens/s")


def test_a_speed_above_the_bound_is_faster_than_possible(kb):
    # 20 GB of Llama 3 70B int4 in DDR5: 19.8 GB left on the 3090 (936 GB/s, 21 ms) + 20 / 89.6 = 223 ms: at most
    # 4.1 tokens/s, so 6 tokens/s cannot be that split
    a = ask(kb, "llama 3 70b q4 with 20GB offloaded to DDR5 on a 3090, 6 tokens/s, normal?")
    p = a.headline.params
    assert a.headline.code == "observed_offload" and p["verdict"] == "impossible"
    assert p["offload_gb"] == 20 and p["high_tps"] == pytest.approx(1 / (p["gpu_gb"] / 936 + 20 / 89.6))
    assert 4.0 < p["high_tps"] < 4.2
    assert any(d.code == "offload_fast_causes" for d in a.details)


def test_a_speed_far_below_the_bound_is_slower_than_expected_with_its_causes(kb):
    # vLLM copies offloaded layers over PCIe: 30% of Qwen2.5 14B. Its 16-bit 29.5 GB would leave 20.7 GB on a 16 GB
    # card, so 8 bits (14.8 GB): 4.4 GB over PCIe 4.0 (177 ms) + 10.3 GB at 288 GB/s (36 ms) = 0.213 s, 4.7 tokens/s
    a = ask(kb, "vllm qwen2.5 14b on a 4060 ti 16gb with 30% offloaded to RAM, only 1 tok/s")
    p = a.headline.params
    assert a.headline.code == "observed_offload" and p["verdict"] == "slow"
    assert p["precision"] in ("fp8", "int8") and p["offload_gb"] == pytest.approx(0.3 * p["weights_gb"])
    bound = _note(a, "offload_bound")
    assert [x["to_gpu"] for x in bound.params["paths"]] == [True]  # vLLM: PCIe only
    assert p["high_tps"] == pytest.approx(1 / (p["gpu_gb"] / 288 + p["offload_gb"] / PCIE4_GB_S))
    assert 4.4 < p["high_tps"] < 5.0
    assert any(d.code == "offload_slow_causes" for d in a.details)


def test_a_chinese_offload_question_gets_the_same_verdict(kb):
    a = ask(kb, "一张 4090 跑 70b，一半放在内存里，只有 2 token/s 正常吗")
    assert a.headline.code == "observed_offload" and a.headline.params["verdict"] == "expected"
    assert render_text(a).splitlines()[1].startswith("你看到的是 2.0 tokens/s")


def test_a_model_that_does_not_fit_offloads_what_is_left_over(kb):
    # no split stated: Llama 3 70B int4 needs 42.0 GB on a 3090 with 25.5 GB usable, so 16.5 GB is in RAM; ollama
    # computes those layers on the CPU: 1 / (23.3 / 936 + 16.5 / 51.2) = 2.9 and / 89.6 -> 4.8 tokens/s
    a = ask(kb, "ollama running llama 3 70b q4 on a single RTX 3090 gets 2 tok/s, is that expected?")
    p = a.headline.params
    assert p["offload_gb"] == pytest.approx(p["need_gb"] - p["memory_gb"])
    assert all(x["on_cpu"] for x in _note(a, "offload_bound").params["paths"])
    assert p["high_tps"] == pytest.approx(1 / (p["gpu_gb"] / 936 + p["offload_gb"] / DDR5_GB_S))
    assert p["verdict"] == "expected"


@pytest.mark.parametrize(("text", "share", "gb", "memory"), [
    ("I offload half of a 70B to system RAM on a 4090 and get 2 tok/s", 0.5, None, None),
    ("30% of the layers in RAM, 13b fp16 on a 3060 12gb, 5 tok/s", 0.3, None, None),
    ("I offload 20 GB of qwen2.5 32b to system RAM on a 4070 ti super, 4 tok/s", None, 20.0, None),
    ("llama 3 70b q4 with 20GB offloaded to DDR5 on a 3090, 3 tokens/s", None, 20.0, "ddr5"),
    ("3090 跑 70b int4，把 20G 放到内存，只有 3 token/s 正常吗", None, 20.0, None),
])
def test_the_part_offloaded_is_read_from_the_question(kb, text, share, gb, memory):
    q = parse_question(text, kb)
    assert (q.offload_share, q.offload_gb, q.host_memory) == (share, gb, memory)
    # a GB amount offloaded is no card of that memory
    assert all(not g.capacity_only for g in q.gpus)
