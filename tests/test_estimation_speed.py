"""Speed estimates (roofline with measured efficiencies) and feature gates, hand-computed."""

from __future__ import annotations

import statistics
import time

import pytest

from bot.estimation import estimate_inference
from bot.kb.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def test_decode_roofline_llama2_7b_a100(kb):
    # TensorRT-LLM class on one A100 SXM 80GB (2,039 GB/s), fp16, batch 1, prompt 1, 128 output tokens.
    # Bytes per step (efficiency.yaml: decode MBU 0.72, 5 us per layer, 0.3 ms per step):
    #   weights 6,738,415,616 x 2 = 13,476,831,232 + KV at the mean context (1 + 64 = 65 tokens) 65 x 524,288 =
    #   34,078,720 + memory-bound activation kernels 32 layers x 2 B x (16 x 4,096 + 4 x 11,008) = 7,012,352
    #   -> 13,517,922,304 B / (2,039 GB/s x 0.72) = 9.2079 ms; + 32 x 5 us + 0.3 ms = 9.6679 ms -> 103.4 tokens/s
    # (published lmdeploy figure: 100.02). The padded compute (16-token Ampere tiles, 2 x 6.74e9 x 16 FLOPs at
    # 0.80 x 312 TFLOPS = 0.86 ms) stays below the memory time, so the step is memory bound.
    r = estimate_inference(kb, "llama-2-7b", "a100-sxm-80gb", precision="fp16", input_tokens=1,
                           output_tokens=128, engine="tensorrt-llm")
    step = 13_517_922_304 / (2039e9 * 0.72) + 32 * 5e-6 + 0.0003
    assert r.tpot_ms == pytest.approx(step * 1000, rel=1e-6)
    assert r.decode_tokens_per_s_per_sequence == pytest.approx(1 / step, rel=1e-6)
    assert r.bound == "memory-bandwidth"


def test_failure_mode_no_100_percent_roofline(kb):
    # Failure mode 7 (LLM-Viewer#4): 100% of 2,039 GB/s would give 151 tokens/s for 13.48 GB of weights;
    # the estimate must sit at the measured 55-75% MBU, well below that.
    r = estimate_inference(kb, "llama-2-7b", "a100-sxm-80gb", precision="fp16", input_tokens=1,
                           output_tokens=128)
    ideal = 2039e9 / 13_476_831_232
    assert r.decode_tokens_per_s_per_sequence < 0.76 * ideal
    assert 0.5 * ideal < r.decode_tokens_per_s_per_sequence
    assert r.mbu is not None and r.mbu < 1


def test_failure_mode_dense_not_sparse_peak(kb):
    # Failure mode 5 (LLM_Sizing_Guide#3): H100 SXM fp16 is 989 TFLOPS dense, 1,979 with 2:4 sparsity.
    # TTFT for Llama 2 7B, 2,048-token prompt, fp16, TensorRT-LLM class (efficiency.yaml: Hopper 16-bit GEMM and
    # attention efficiency 0.70, memory-bound activation kernels at 0.72 of 3,350 GB/s, 5 us per layer, +5 ms):
    #   GEMMs 2 x 6,738,415,616 x 2,048 = 2.7600e13 FLOPs / (989e12 x 0.70) = 39.87 ms (> 5.6 ms of weight reads)
    #   attention 2 x 32 layers x 2,048^2 x 4,096 = 1.0995e12 / (989e12 x 0.70) = 1.59 ms
    #   activation kernels 2,048 x 32 x 2 B x (16 x 4,096 + 4 x 11,008) = 1.4361e10 B / (3,350e9 x 0.72) = 5.95 ms
    #   + 32 x 5 us + 5 ms = 52.6 ms. With the sparse peak the two compute terms would halve (~31 ms in all).
    r = estimate_inference(kb, "llama-2-7b", "h100-sxm-80gb", precision="fp16", input_tokens=2048,
                           output_tokens=1, engine="tensorrt-llm")
    gemm = 2 * 6_738_415_616 * 2048
    attn = 2 * 32 * 2048**2 * 4096
    io = 2048 * 32 * 2 * (16 * 4096 + 4 * 11008) / (3350e9 * 0.72)
    expected = (gemm + attn) / (989e12 * 0.70) + io + 32 * 5e-6 + 0.005
    assert r.ttft_s == pytest.approx(expected, rel=1e-6)
    assert r.ttft_s > (gemm + attn) / (1979e12 * 0.70) + io + 32 * 5e-6 + 0.005 + 0.02


def test_failure_mode_moe_decode_follows_active_params(kb):
    # Mixtral 8x7B fp16 on 2 x H100 (TP 2 over NVLink), batch 1, TensorRT-LLM class: a token reads the shared
    # weights and 2 of 8 experts = 12,879,925,248 params x 2 B, 12.88 GB per GPU, + KV (65 tokens x 131,072 B / 2)
    # + activation kernels (32 x 2 B x (16 x 4,096 + 4 x 14,336 / 2)), at 3,350 GB/s x 0.72;
    # fixed costs (efficiency.yaml): 32 layers x (5 us + 15 us MoE) + two all-reduces per layer of 8 KB over NVLink
    # (10 + 4 x log2(2) = 14 us + 2 x 1/2 x 8,192 B / (900/2 x 0.7 GB/s)) + 0.3 ms -> 6.43 + 2.54 = ~9 ms, ~111 tok/s.
    # Reading all 46.7B params would take 21.5 ms for the memory part alone (~40 tokens/s).
    r = estimate_inference(kb, "mixtral-8x7b", "h100-sxm-80gb", count=2, precision="fp16", input_tokens=1,
                           output_tokens=128, engine="tensorrt-llm")
    assert r.tensor_parallel == 2 and r.objective == "latency"
    mem = (12_879_925_248 * 2 / 2 + 65 * 131_072 / 2 + 32 * 2 * (16 * 4096 + 4 * 14336 / 2)) / (3350e9 * 0.72)
    allreduce = 14e-6 + 8192 / (450e9 * 0.7)
    step = mem + 32 * (5e-6 + 15e-6) + 32 * 2 * allreduce + 0.0003
    assert r.decode_tokens_per_s_per_sequence == pytest.approx(1 / step, rel=1e-3)
    assert r.decode_tokens_per_s_per_sequence > 2 * 1 / ((93.4e9 / 2) / (3350e9 * 0.72))


def test_batched_decode_becomes_compute_bound(kb):
    # Llama 3 8B on one A100 at the max batch: 2 x 8.03e9 FLOPs per token x ~1,584 sequences per step exceeds
    # what 312 TFLOPS x MFU can do in the time the 16 GB of weights take to read -> compute bound.
    r = estimate_inference(kb, "llama-3-8b", "a100-sxm-80gb", input_tokens=128, output_tokens=128,
                           batch_size="max", engine="tensorrt-llm")
    assert r.bound == "compute"
    assert r.batch_size > 1000
    # Output tokens/s can never exceed peak x GEMM efficiency / (2 x P_active x (1 + isl/osl))
    # = 312e12 x 0.80 (Ampere, efficiency.yaml) / (4 x 8.03e9)
    assert r.throughput_tokens_per_s < 312e12 * 0.80 / (4 * 8.030261248e9)
    one = estimate_inference(kb, "llama-3-8b", "a100-sxm-80gb", input_tokens=128, output_tokens=128)
    assert r.throughput_tokens_per_s > 50 * one.throughput_tokens_per_s


def test_fp8_without_fp8_tensor_cores_warns_and_suggests_int8_int4(kb):
    # T4 (compute capability 7.5) is below FP8 Marlin's 8.0 (vLLM marlin_utils_fp8.is_fp8_marlin_supported), and
    # TensorRT-LLM has no weight-only FP8 path on Ampere: both fall back to INT8 with the warning
    for gpu, engine in (("t4-16gb", "vllm"), ("a100-sxm-80gb", "tensorrt-llm")):
        r = estimate_inference(kb, "llama-3-8b", gpu, precision="fp8", engine=engine, context_tokens=1024)
        assert r.precision == "int8" and r.requested_precision == "fp8"
        w = " ".join(r.warnings)
        assert "FP8" in w and "8.9" in w and "INT8" in w and "INT4" in w
    # vLLM runs an FP8 checkpoint on an A100 (8.0) weight-only on FP8 Marlin: 1 byte per weight, 16-bit matmuls
    a = estimate_inference(kb, "llama-3-8b", "a100-sxm-80gb", precision="fp8", engine="vllm")
    assert a.precision == "fp8-w8a16" and not a.warnings
    assert a.memory.weights_gb == pytest.approx(8.03, abs=0.05)  # 8.03B parameters x 1 B
    h = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", precision="fp8")
    assert h.precision == "fp8" and not h.warnings


def test_bf16_on_v100_and_t4_falls_back_to_fp16(kb):
    for gpu in ("v100-sxm-32gb", "t4-16gb"):
        r = estimate_inference(kb, "llama-2-7b", gpu, precision="bf16", context_tokens=1024)
        assert r.precision == "fp16"
        assert any("bf16" in w for w in r.warnings)
        assert any("FlashAttention" in a for a in r.assumptions)


def test_geforce_tp_warns_no_nvlink(kb):
    r = estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", count=2, tensor_parallel=2)
    assert any("NVLink" in w and "P2P" in w for w in r.warnings)
    one = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=2, tensor_parallel=2)
    # the same model at TP 2 keeps 0.90 of bandwidth on NVLink but only 0.70 without P2P
    assert not any("P2P" in w for w in one.warnings)
    assert estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", precision="fp8").warnings == []


def test_llamacpp_4bit_mbu_lower_than_f16(kb):
    f16 = estimate_inference(kb, "llama-2-7b", "rtx-4090-24gb", precision="fp16", engine="llama.cpp",
                             input_tokens=1, output_tokens=128)
    q4 = estimate_inference(kb, "llama-2-7b", "rtx-4090-24gb", precision="q4_k_m", engine="ollama",
                            input_tokens=1, output_tokens=128)
    # kernel-level MBU (efficiency.yaml, from 2024-2025 llama-bench tg runs: 81-82% of the 4090's bandwidth for 14B-70B
    # Q4_K_M and 82% for 7B F16 including per-layer costs) is 0.85 for F16 and 0.80 for 4-bit
    assert f16.mbu == 0.85 and q4.mbu == 0.80
    # Q4_K_M reads 4.08 GB instead of 13.48 GB, at a lower MBU and with the same per-layer costs: faster, by less
    # than the 3.3x byte ratio
    ratio = q4.decode_tokens_per_s_per_sequence / f16.decode_tokens_per_s_per_sequence
    assert 1.5 < ratio < 13.48 / 4.08


def test_every_result_has_assumptions_and_sources(kb):
    r = estimate_inference(kb, "qwen2.5-14b", "l40s-48gb")
    assert r.assumptions and r.sources
    assert any("MBU" in a for a in r.assumptions)


def test_estimate_is_fast(kb):
    estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb")  # warm the per-kb cache
    times = []
    for _ in range(200):
        t = time.perf_counter()
        estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", precision="fp16")
        times.append(time.perf_counter() - t)
    assert statistics.median(times) < 1e-3


def test_nvlink_bridges_join_two_pcie_cards_only(kb):
    from bot.estimation import efficiency_for

    eff = efficiency_for(kb)
    a40 = kb.gpus["a40-48gb"]  # PCIe card with a 2-way NVLink bridge
    assert eff.interconnect_class(a40, 2) == "nvlink"
    assert eff.interconnect_class(a40, 4) == "pcie"
    assert eff.interconnect_class(kb.gpus["h100-sxm-80gb"], 8) == "nvlink"  # NVSwitch on HGX boards


def test_prefill_heavy_throughput_is_bounded_by_the_prompts_compute(kb):
    """300-token prompts, 20-token answers at the largest batch on one L4: every output token carries 15 prompt
    tokens, so output tokens/s <= MFU x peak / (2 x params x (300 + 20) / 20).

    L4 dense bf16 121 TFLOPS and inference MFU 0.63 (knowledge/gpus.yaml, knowledge/efficiency.yaml); Llama 3.1 8B
    8.03B parameters (knowledge/models.yaml): 0.63 x 121e12 / (2 x 8.03e9 x 16) = 297 tokens/s at most.
    """
    from bot.estimation import estimate_inference

    e = estimate_inference(kb, "llama-3.1-8b", "l4-24gb", count=1, precision="bf16", input_tokens=300,
                           output_tokens=20, batch_size="max")
    bound = 0.63 * 121e12 / (2 * 8.03e9 * 16)
    assert e.throughput_tokens_per_s <= bound * 1.001
    assert e.throughput_tokens_per_s >= 0.6 * bound  # and the decode steps it rides on do not dwarf it


def test_geforce_card_with_an_added_16bit_tensor_rate_gets_a_prefill_estimate(kb):
    # RTX 3060 12GB: dense FP16/BF16 tensor rate with FP32 accumulate = 25.5 TFLOPS (gpus.yaml: 203.8 dense INT4 / 8;
    # = 28 SMs x 1.777 GHz x 512 FLOP/clock/SM). Without it the card got memory only, no time to first token.
    # Llama 3 8B (8,030,261,248 params), 2,048-token prompt: the GEMMs alone are 2 x 8.03e9 x 2,048 = 3.289e13 FLOPs,
    # 1.290 s at 100% of 25.5 TFLOPS, so TTFT can be no shorter; at a 50% floor on efficiency it is under 2.58 s plus
    # the activation traffic (2,048 x 32 x 2 B x (16 x 4,096 + 4 x 14,336) = 1.59e10 B at 360 GB/s = 0.044 s).
    gpu = kb.gpus["rtx-3060-12gb"]
    assert gpu.dense_tflops.bf16 == 25.5 and gpu.dense_tflops.fp16 == 25.5
    r = estimate_inference(kb, "llama-3-8b", "rtx-3060-12gb", precision="int8", input_tokens=2048, output_tokens=128)
    gemm_at_peak_s = 2 * 8_030_261_248 * 2048 / 25.5e12
    assert r.ttft_s is not None
    assert gemm_at_peak_s < r.ttft_s < gemm_at_peak_s / 0.5 + 0.2
