"""Inference memory and fit: hand-computed cases (arithmetic and sources in comments)."""

from __future__ import annotations

import pytest

from bot.errors import UnknownEntityError
from bot.estimation import (
    EstimationError,
    efficiency_for,
    estimate_inference,
    generic_model,
    kv_shape,
    valid_tp_degrees,
    weight_bytes,
)
from bot.kb.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def kv_per_token(kb, model_id, kv="fp16"):
    shape, _ = kv_shape(kb.models[model_id])
    return shape.bytes_per_token(efficiency_for(kb).kv_format(kv)[1].bytes_per_element)


# ---------------------------------------------------------------- KV cache per token


def test_llama2_70b_kv_is_327680_bytes_per_token(kb):
    # 2 (K,V) x 80 layers x 8 KV heads (GQA) x 128 head_dim x 2 B (fp16) = 327,680 (estimation-notes.md)
    assert kv_per_token(kb, "llama-2-70b") == 2 * 80 * 8 * 128 * 2 == 327_680


def test_llama2_7b_kv_is_524288_bytes_per_token(kb):
    # 2 x 32 layers x 32 KV heads (no GQA) x 128 x 2 B = 524,288
    assert kv_per_token(kb, "llama-2-7b") == 524_288


def test_failure_mode_gqa_not_ignored(kb):
    # Failure mode 1 (gpu_poor, vllm-fit#2): using 64 attention heads instead of 8 KV heads gives 8x too much.
    # One 4,096-token sequence: 327,680 x 4,096 = 1.342 GB, not 10.7 GB.
    r = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", precision="fp16", context_tokens=4096,
                           output_tokens=256)
    assert r.memory.kv_cache_gb == pytest.approx(327_680 * 4096 / 1e9, rel=1e-9)
    assert r.memory.kv_cache_gb < (2 * 80 * 64 * 128 * 2) * 4096 / 1e9 / 7


def test_mla_deepseek_v3_latent_kv(kb):
    # MLA: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 70,272 bytes/token, no 2x for K and V
    assert kv_per_token(kb, "deepseek-v3", "bf16") == 61 * (512 + 64) * 2 == 70_272


def test_sliding_window_layers_cap_context(kb):
    # Gemma 2 9B: 42 layers, 21 use a 4,096-token window; 8 KV heads x 256 head_dim.
    # per layer-token: 2 x 8 x 256 x 2 B = 8,192 B. At 8,192 tokens:
    # 21 x 8,192 x 8,192 + 21 x 8,192 x 4,096 = 1,409,286,144 + 704,643,072 = 2,113,929,216 B
    shape, _ = kv_shape(kb.models["gemma-2-9b"])
    assert shape.bytes_per_sequence(8192, 2.0) == 2_113_929_216
    assert shape.bytes_per_sequence(8192, 2.0) < 42 * 8192 * 8192  # all-layer figure


def test_failure_mode_quantized_kv_counted(kb):
    # Failure mode 3 (ollama#10128): fp8 KV halves the cache, q4_0 stores 18 B per 32 values.
    assert kv_per_token(kb, "llama-2-7b", "fp8") == 524_288 / 2 == 262_144
    assert kv_per_token(kb, "llama-2-7b", "q4_0") == pytest.approx(524_288 / 2 * 18 / 32)  # 147,456
    a = estimate_inference(kb, "llama-2-7b", "a100-sxm-80gb", precision="fp16", context_tokens=4096)
    b = estimate_inference(kb, "llama-2-7b", "a100-sxm-80gb", precision="fp16", context_tokens=4096,
                           kv_precision="fp8")
    assert b.memory.kv_cache_gb == pytest.approx(a.memory.kv_cache_gb / 2)
    assert b.kv_precision == "fp8"


def test_failure_mode_context_defaults_to_4096_not_model_max(kb):
    # Failure mode 2 (llmfit#302): Llama 3.1 8B allows 131,072 tokens; with no context the KV cache is
    # sized for 4,096: 2 x 32 x 8 x 128 x 2 B = 131,072 B/token x 4,096 = 0.537 GB (not 17.2 GB).
    r = estimate_inference(kb, "llama-3.1-8b", "l4-24gb")
    assert r.context_tokens == 4096
    assert r.memory.kv_cache_gb == pytest.approx(131_072 * 4096 / 1e9)
    assert any("4,096" in a for a in r.assumptions)


# ---------------------------------------------------------------- weights


def test_gguf_q4_k_m_file_sizes(kb):
    # TheBloke GGUF cards: Llama 2 7B Q4_K_M 4.08 GB, 70B 41.4 GB; Q8_0 7.16 GB (34 B per 32 weights + Q6_K output)
    eff = efficiency_for(kb)
    fmt = eff.weight_format("Q4_K_M")[1]
    assert weight_bytes(kb.models["llama-2-7b"], fmt) / 1e9 == pytest.approx(4.08, rel=0.02)
    assert weight_bytes(kb.models["llama-2-70b"], fmt) / 1e9 == pytest.approx(41.4, rel=0.02)
    assert weight_bytes(kb.models["llama-2-7b"], eff.weight_format("q8_0")[1]) / 1e9 == pytest.approx(7.16, rel=0.02)


def test_int4_awq_keeps_embeddings_16bit(kb):
    # Llama 2 7B: embed + lm_head = 2 x 32,000 x 4,096 = 262,144,000 params at 2 B;
    # the other 6,476,271,616 at 0.5195 B (4 bits + fp16 scale + 4-bit zero per 128) -> 3.888 GB
    fmt = efficiency_for(kb).weight_format("awq")[1]
    expected = 6_476_271_616 * 0.5195 + 262_144_000 * 2
    assert weight_bytes(kb.models["llama-2-7b"], fmt) == pytest.approx(expected)
    assert 0.53 <= expected / 6_738_415_616 <= 0.58


def test_precision_names_case_insensitive(kb):
    eff = efficiency_for(kb)
    assert eff.weight_format("Q4_K_M")[0] == eff.weight_format("q4_k_m")[0] == "q4_k_m"
    assert eff.weight_format("GPTQ")[0] == "int4"
    with pytest.raises(UnknownEntityError):
        eff.weight_format("q9_z")


def test_failure_mode_gib_vs_gb(kb):
    # Failure mode 6: a 40B model in fp16 is 80e9 bytes = 80.0 GB = 74.5 GiB. A calculator that prints GiB and
    # compares with the "80 GB" label thinks it fits; with KV cache and overhead it needs more than vLLM's default
    # 0.9 x 85.0 GB = 76.5 GB budget (generic 40B shape: 56 layers x 8 KV heads x 128 x 2 x 2 B = 229,376 B/token,
    # 0.94 GB at 4,096 tokens, so 80 + 0.94 + overhead > 76.5).
    r = estimate_inference(kb, generic_model(40.0), "a100-sxm-80gb", count=1, precision="fp16")
    assert r.memory.weights_gb == pytest.approx(80.0)
    assert r.memory.per_gpu_gib == pytest.approx(r.memory.per_gpu_gb * 1e9 / 2**30)
    assert r.memory.kv_cache_bytes_per_token == 2 * 56 * 8 * 128 * 2
    assert r.memory.per_gpu_gb > r.memory.engine_reserved_gb_per_gpu == pytest.approx(0.9 * 85.04, rel=1e-3)
    assert any("above vllm's default 0.9 budget" in w for w in r.warnings)
    assert r.memory.gpu_memory_gb == 80.0


# ---------------------------------------------------------------- fit


@pytest.mark.parametrize("gpu", ["h100-sxm-80gb", "a100-sxm-80gb"])
def test_llama2_70b_fp16_needs_two_80gb_gpus_and_int4_one(kb, gpu):
    # fp16 weights 68.98e9 x 2 B = 137.95 GB > 80 GB -> 2 GPUs (TP 2: 68.98 GB each + KV + overhead < 80)
    r = estimate_inference(kb, "llama-2-70b", gpu, precision="fp16")
    assert r.memory.weights_gb == pytest.approx(68.976648192 * 2)
    assert (r.gpu_count, r.tensor_parallel, r.fits) == (2, 2, True)
    # int4 AWQ: ~36.6 GB -> one GPU
    q = estimate_inference(kb, "llama-2-70b", gpu, precision="int4")
    assert (q.gpu_count, q.fits) == (1, True)
    assert 34 < q.memory.weights_gb < 39


def test_failure_mode_moe_memory_uses_total_params(kb):
    # Failure mode 4 (llmfit#230: 33 GB estimated vs 70-75 GB real): Mixtral 8x7B memory follows 46.7B params:
    # 46,702,792,704 x 2 B = 93.41 GB, so fp16 needs two 80 GB GPUs.
    r = estimate_inference(kb, "mixtral-8x7b", "h100-sxm-80gb", precision="fp16")
    assert r.memory.weights_gb == pytest.approx(93.405585408)
    assert r.gpu_count == 2


def test_tp_degree_never_violates_heads(kb):
    for model in kb.models.values():
        if model.kind != "llm":
            continue
        for tp in valid_tp_degrees(model):
            if model.num_attention_heads:
                assert model.num_attention_heads % tp == 0, (model.id, tp)
    # Falcon 7B has 71 heads: only TP 1; a 7B that needs more than one GPU is pipelined, not TP'd.
    assert valid_tp_degrees(kb.models["falcon-7b"]) == [1]
    r = estimate_inference(kb, "falcon-7b", "t4-16gb", precision="fp16", context_tokens=2048)
    assert r.tensor_parallel == 1
    with pytest.raises(EstimationError):
        estimate_inference(kb, "qwen2.5-7b", "a100-sxm-80gb", count=8, tensor_parallel=8)  # 28 heads


def test_kv_heads_replicated_when_tp_exceeds_kv_heads(kb):
    # Qwen3 30B-A3B: 4 KV heads. At TP 8 each GPU holds one KV head (1/4 of the cache, not 1/8),
    # so the KV summed over the 8 GPUs is twice the single-copy figure.
    shape, _ = kv_shape(kb.models["qwen3-30b-a3b"])
    assert shape.tp_shard(8) == 0.25 and shape.tp_shard(2) == 0.5
    one = estimate_inference(kb, "qwen3-30b-a3b", "h100-sxm-80gb", count=1, context_tokens=8192)
    eight = estimate_inference(kb, "qwen3-30b-a3b", "h100-sxm-80gb", count=8, tensor_parallel=8, context_tokens=8192)
    assert eight.memory.kv_cache_gb == pytest.approx(2 * one.memory.kv_cache_gb)


def test_longest_context_and_max_batch(kb):
    # Llama 2 7B fp16 on an L4 (24 GB) with llama.cpp (uses all memory): KV budget = 24 - 13.48 - overhead.
    r = estimate_inference(kb, "llama-2-7b", "l4-24gb", precision="fp16", engine="llama.cpp", context_tokens=4096)
    budget = 24e9 - r.memory.weights_gb * 1e9 - r.memory.overhead_gb * 1e9
    assert r.max_context_tokens == min(4096, int(budget / 524_288))
    assert r.max_batch_size == 1  # llama-server default: one slot
    v = estimate_inference(kb, "llama-2-7b", "l40s-48gb", precision="fp16", context_tokens=4096, batch_size="max")
    budget = 48e9 * 0.9 - v.memory.weights_gb * 1e9 - v.memory.overhead_gb * 1e9
    assert v.batch_size == int(budget // (524_288 * 4096))


def test_architecture_gaps_refuse_kv(kb):
    r = estimate_inference(kb, "llama-2-34b", "a100-sxm-80gb")
    assert r.memory.kv_cache_gb is None
    assert any("KV cache not estimated" in w for w in r.warnings)
    assert r.memory.weights_gb == pytest.approx(34.0 * 2)


def test_non_llm_weights_only(kb):
    # Whisper large-v3: typical fp16 weights 3.1 GB; no throughput figures (those are for LLMs)
    r = estimate_inference(kb, "whisper-large-v3", "t4-16gb", precision="fp16")
    assert r.memory.weights_gb == pytest.approx(3.1)
    assert r.fits and r.ttft_s is None and r.throughput_tokens_per_s is None
    assert any("LLM" in a for a in r.assumptions)


def test_vllm_preallocation_explained_separately(kb):
    r = estimate_inference(kb, "llama-2-7b", "a100-sxm-80gb", precision="fp16")
    # "80 GB" = 80 GiB = 85.90 GB; usable 0.99 of it (79.2 GiB, estimation-notes.md) = 85.04 GB; x 0.9 = 76.54 GB
    assert r.memory.engine_reserved_gb_per_gpu == pytest.approx(0.9 * 80 * 2**30 / 1e9 * 0.99)
    assert r.memory.per_gpu_gb < 20  # what is needed: 13.5 GB weights + 2.1 GB KV + overhead
    assert any("gpu_memory_utilization" in a for a in r.assumptions)


def test_unknown_ids_raise(kb):
    with pytest.raises(UnknownEntityError) as e:
        estimate_inference(kb, "llama-2-7", "a100-sxm-80gb")
    assert e.value.kind == "model" and e.value.suggestions
    with pytest.raises(UnknownEntityError):
        estimate_inference(kb, "llama-2-7b", "a100-sxm-81gb")
