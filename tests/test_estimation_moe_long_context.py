"""MoE small-batch decode and long-context prefill, hand-computed from knowledge/efficiency.yaml constants."""

from __future__ import annotations

import pytest

from bot.estimation import estimate_inference
from bot.estimation.inference import _prefill_attention_flops
from bot.kb.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def test_deepseek_v3_batch1_decode_on_8_h200_is_tens_of_tokens_per_s(kb):
    # DeepSeek-V3 (671B, 37B active, 256 routed experts top-8, MLA, 61 layers, hidden 7,168), native FP8, SGLang,
    # TP8 on one HGX H200 node, batch 1, 1,024 prompt + 1,024 output tokens (mean context 1,536).
    # Bytes per GPU and step: the dense/shared part (671e9 - 256 x 2.5565e9 = 16.55e9 B) / 8 + the 8 routed experts
    # a token picks (8 x 2.5565e9 B) / 8 = 37e9 / 8 = 4.625e9 B at 4,800 GB/s x 0.70 (8-bit MBU) = 1.376 ms.
    # KV: MLA latent 61 x 576 x 2 B = 70,272 B/token, replicated on every TP rank: 1,536 x 70,272 B at 3,360 GB/s.
    # Compute: Hopper GEMMs take >= 64-token tiles: 2 x 37e9 x 64 / 8 at 1,979 x 0.65 x 0.9 TFLOPS = 0.51 ms, less
    # than the weight read. Fixed costs per layer (efficiency.yaml, sglang): 10 us + 40 us MoE + 200 us MLA, and two
    # all-reduces of 14 KB over NVLink: 10 + 4 x log2(8) = 22 us + 2 x 7/8 x 14,336 B / (450 x 0.7 GB/s).
    # Activation kernels: 61 x 2 B x (16 x 7,168 + 4 x 8 x 2,048 / 8) at 4,800 x 0.72 GB/s. Step overhead 0.3 ms.
    m = kb.models["deepseek-v3"]
    r = estimate_inference(kb, "deepseek-v3", "h200-sxm-141gb", count=8, precision="fp8", engine="sglang",
                           input_tokens=1024, output_tokens=1024)
    assert (r.tensor_parallel, r.objective, r.kv_precision) == (8, "latency", "bf16")
    expert = (m.params_total_b - m.params_active_b) * 1e9 / (256 - 8)
    dense = m.params_total_b * 1e9 - 256 * expert
    weights = (dense + 8 * expert) / 8 / (4800e9 * 0.70)
    kv = 1536 * 70_272 / (4800e9 * 0.70)
    io = 61 * 2 * (16 * 7168 + 4 * 8 * 2048 / 8) / (4800e9 * 0.72)
    allreduce = 22e-6 + 2 * 7 / 8 * 7168 * 2 / (450e9 * 0.7)
    step = weights + kv + io + 61 * (10e-6 + 40e-6 + 200e-6) + 61 * 2 * allreduce + 0.0003
    assert r.tpot_ms == pytest.approx(step * 1000, rel=1e-3)
    assert 20 < r.decode_tokens_per_s_per_sequence < 100  # published single-stream runs: tens of tok/s
    # the roofline alone (weights / bandwidth) would claim ~700 tok/s: per-layer costs dominate at batch 1
    assert r.decode_breakdown.weights_ms < 0.1 * r.decode_breakdown.total_ms


def test_qwen3_30b_a3b_on_a_3090_is_in_the_measured_range(kb):
    # Issue 15 / trial: Qwen3-30B-A3B in 4-bit on one RTX 3090 measures ~110-150 tok/s single stream (the old
    # roofline said 217). 3.35B active params of 30.5B, 48 MoE layers, 128 experts top-8.
    r = estimate_inference(kb, "qwen3-30b-a3b", "rtx-3090-24gb", precision="int4", input_tokens=512, output_tokens=256)
    assert r.fits
    assert 110 <= r.decode_tokens_per_s_per_sequence <= 150
    assert r.decode_breakdown.moe_overhead_ms == pytest.approx(48 * 40e-3, rel=1e-9)


def test_128k_prefill_attention_flops_are_quadratic(kb):
    # Causal attention for n new tokens after p cached ones: every token attends to each earlier position, QK^T and
    # AV at 2 FLOPs per element each: 4 x d_attn x (n x p + n^2 / 2) per layer. Llama 3.1 8B (32 layers, 32 heads
    # x 128 = 4,096) at 131,072 tokens: 2 x 4,096 x 131,072^2 x 32 = 4.504e15 FLOPs, more than the 2 x 8.03e9 x
    # 131,072 = 2.105e15 of the weights.
    m = kb.models["llama-3.1-8b"]
    n = 131_072
    assert _prefill_attention_flops(m, 4096, 0, n) == pytest.approx(2 * 4096 * n**2 * 32, rel=1e-12)
    # split in chunks the total is the same: 16 chunks of 8,192, chunk i attending to 8,192 x i cached tokens
    chunks = sum(_prefill_attention_flops(m, 4096, 8192 * i, 8192) for i in range(16))
    assert chunks == pytest.approx(2 * 4096 * n**2 * 32, rel=1e-12)
    # a sliding-window layer (Gemma 2: 4,096-token window on half of its 42 layers) stops growing at the window
    g = kb.models["gemma-2-9b"]
    full = _prefill_attention_flops(g, 4096, 0, 32_768)
    assert full == pytest.approx(4 * 4096 * (21 * 32_768**2 / 2 + 21 * (4096 * 4096 / 2 + (32_768 - 4096) * 4096)))


def test_ttft_at_128k_sums_the_chunked_prefill(kb):
    # vLLM prefills a 131,072-token prompt in 16 chunks of its 8,192-token budget; each chunk is GEMMs
    # (2 x 8,030,261,248 x 8,192 FLOPs at 989 TFLOPS x 0.70 x 0.9 = 211 ms, above the 6.7 ms weight read), its
    # attention over everything before it, activation kernels (8,192 x 32 x 2 B x (16 x 4,096 + 4 x 14,336) at
    # 3,350 GB/s x 0.72) and 32 x 10 us; + 10 ms fixed. The KV cache holds 131,072 x 131,072 B = 17.2 GB.
    r = estimate_inference(kb, "llama-3.1-8b", "h100-sxm-80gb", input_tokens=131_072, output_tokens=1)
    m = kb.models["llama-3.1-8b"]
    rate = 989e12 * 0.70 * 0.9
    gemm = 2 * 8_030_261_248 * 8192 / rate
    io = 8192 * 32 * 2 * (16 * 4096 + 4 * 14336) / (3350e9 * 0.72)
    ttft = sum(gemm + _prefill_attention_flops(m, 4096, 8192 * i, 8192) / rate + io + 32 * 10e-6 for i in range(16))
    assert r.ttft_s == pytest.approx(ttft + 0.010, rel=1e-6)
    assert 5 < r.ttft_s < 15
    assert r.memory.kv_cache_gb == pytest.approx(131_073 * 131_072 / 1e9, rel=1e-9)


def test_attention_dp_replicates_what_the_engine_builds_whole(kb):
    # Llama 4 Scout FP8 on 4x H100, TP4, batch 1: attention data parallelism adds, per GPU, 3/4 of what every
    # rank then holds whole (the KV shard and the overheads are the same with and without it).
    # models.yaml: 108.641793536e9 parameters, 17.0e9 active, 16 experts, 1 routed per token, so one routed
    # expert = (108.641793536 - 17.0)e9 / 15 = 6.109452902e9 and all routed experts 97.751246442e9 (1 B each).
    # TensorRT-LLM (engines.yaml attention_dp_replicates: non_expert; modeling_llama.py builds the dense MLP and
    # shared expert with overridden_tp_size=1 under enable_attention_dp): everything but the routed experts,
    # 108.641793536e9 - 97.751246442e9 = 10.890547094e9 B, so + 10.890547094e9 x 3/4 = 8.168 GB per GPU.
    # vLLM (default attention): the attention projections only, 48 layers x (2 x 5120 x 40 x 128 + 2 x 5120 x 8
    # x 128) = 3.019898880e9 B, so + 3.019898880e9 x 3/4 = 2.265 GB per GPU.
    def per_gpu(engine, adp):
        r = estimate_inference(kb, "llama-4-scout", "h100-sxm-80gb", count=4, tensor_parallel=4, precision="fp8",
                               engine=engine, input_tokens=1000, output_tokens=1000, batch_size=1,
                               attention_data_parallel=adp)
        return r.memory.per_gpu_gb

    assert per_gpu("tensorrt-llm", True) - per_gpu("tensorrt-llm", False) == pytest.approx(8.168, abs=0.01)
    assert per_gpu("vllm", True) - per_gpu("vllm", False) == pytest.approx(2.265, abs=0.01)


def test_one_request_under_attention_dp_is_prefilled_by_its_own_rank(kb):
    # Qwen3-235B-A22B FP8, TensorRT-LLM, 8x H200, one 20,000-token prompt (no chunked prefill: one pass).
    # Under attention DP the request lives on one rank: that rank alone runs the weights TensorRT-LLM replicates
    # (everything but the routed experts) and the request's attention; with plain TP8 both split 8 ways.
    # Replicated GEMMs: 22.19e9 active - 8 routed experts x (235.09e9 - 22.19e9) / 120 = 7.996e9 params,
    # 2 x 7.996e9 x 20,000 = 3.198e14 FLOPs at 1,979 x 0.65 TFLOPS (fp8) = 0.2486 s, of which TP8 pays 1/8.
    # Causal attention: 4 x 8,192 (64 heads x 128) x 94 layers x 20,000^2 / 2 = 6.16e14 FLOPs at 989 x 0.70 TFLOPS
    # (bf16 kernels) = 0.890 s, of which TP8 pays 1/8. Difference: 7/8 x (0.2486 + 0.890) = 0.996 s.
    m = kb.models["qwen3-235b-a22b"]
    common = dict(count=8, precision="fp8", engine="tensorrt-llm", tensor_parallel=8, input_tokens=20_000,
                  output_tokens=2000, batch_size=1)
    adp = estimate_inference(kb, m, "h200-sxm-141gb", attention_data_parallel=True, **common)
    tp = estimate_inference(kb, m, "h200-sxm-141gb", **common)
    expert = (m.params_total_b - m.params_active_b) * 1e9 / (128 - 8)
    replicated = 2 * (m.params_active_b * 1e9 - 8 * expert) * 20_000 / (1979e12 * 0.65)
    attention = 4 * 64 * 128 * 94 * 20_000 ** 2 / 2 / (989e12 * 0.70)
    assert adp.ttft_s - tp.ttft_s == pytest.approx(7 / 8 * (replicated + attention), rel=0.01)
    assert adp.ttft_s - tp.ttft_s == pytest.approx(0.996, abs=0.01)
