"""Engine facts as data (knowledge/engines.yaml): KV dtype defaults, batch limits, memory fractions,
and the typed record of figures a GPU lacks. Arithmetic written out per test."""

from __future__ import annotations

import textwrap

import pytest

from bot.errors import KnowledgeError
from bot.estimation import efficiency_for, estimate_inference
from bot.kb.loader import load_knowledge
from tests.conftest import write_tiny_kb

GB = 1e9


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def test_every_engine_has_sourced_facts_and_an_efficiency_class(kb):
    eff = efficiency_for(kb)
    for name in ("vllm", "sglang", "tensorrt-llm", "llama.cpp", "hf"):
        engine = kb.engines[name]
        assert engine.sources and engine.as_of
        assert engine.efficiency_class in eff.engines
    assert eff.engine("nim")[0] == "tensorrt-llm" and eff.engine("ollama")[0] == "llama.cpp"


def test_fp8_checkpoint_keeps_fp8_kv_on_tensorrt_llm_and_doubles_the_batch(kb):
    # TensorRT-LLM's KV dtype follows the checkpoint (kv_cache_quant_algo; NVIDIA's FP8 checkpoints carry an FP8 KV
    # cache); vLLM's default is the activation dtype. Llama 3 8B fp8 on one H100, context 4,096 (3,840 + 256):
    # KV per sequence = 4,096 x 32 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 268,435,456 B in fp8, twice in bf16.
    trt = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", precision="fp8", engine="tensorrt-llm",
                             batch_size="max", input_tokens=3840, output_tokens=256)
    assert (trt.kv_precision, trt.kv_precision_reason) == ("fp8", "checkpoint_quantization")
    assert any("keeps the KV dtype of a quantized fp8 checkpoint" in a for a in trt.assumptions)
    # Memory budget (TensorRT-LLM gives 0.9 of what weights and activations leave to KV blocks):
    # usable 80 x 2^30 / 1e9 x 0.99 = 85.04 GB; weights 8,030,261,248 B; overhead = 0.75 GB CUDA context +
    # 8,192-token workspace x 2 B x (4 x 4,096 + 3 x 14,336) + 1,024 sequences x 128,256 vocab x 4 B logits.
    usable = 80 * 2**30 * 0.99
    overhead = 0.75 * GB + 8192 * 2 * (4 * 4096 + 3 * 14336) + 1024 * 128_256 * 4
    budget = 0.9 * (usable - 8_030_261_248 - overhead)
    assert trt.max_batch_size == int(budget // 268_435_456)
    bf16 = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", precision="fp8", engine="tensorrt-llm",
                              kv_precision="bf16", batch_size="max", input_tokens=3840, output_tokens=256)
    assert bf16.kv_precision_reason == "requested"
    assert bf16.max_batch_size == int(budget // (2 * 268_435_456))
    assert trt.max_batch_size >= 2 * bf16.max_batch_size
    vllm = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", precision="fp8", engine="vllm")
    assert (vllm.kv_precision, vllm.kv_precision_reason) == ("bf16", "engine_default")


def test_vllm_budget_is_a_fraction_of_total_memory(kb):
    # vLLM's gpu_memory_utilization 0.9 covers weights, activations and KV: budget = 0.9 x usable - weights -
    # overhead (its 8,192-token workspace, 256 sequences of logits); Llama 3 8B bf16 on an H100 at 4,096 tokens
    # (bf16 KV: 4,096 x 131,072 B = 536,870,912 B per sequence): 58.6 GB / 0.537 GB = 109 sequences, under the
    # engine's max_num_seqs of 256.
    r = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", batch_size="max", input_tokens=3840, output_tokens=256)
    usable = 80 * 2**30 * 0.99
    overhead = 0.75 * GB + 8192 * 2 * (4 * 4096 + 3 * 14336) + 256 * 128_256 * 4
    budget = 0.9 * usable - 2 * 8_030_261_248 - overhead
    assert r.max_batch_size == min(256, int(budget // 536_870_912)) == 109
    short = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", batch_size="max", input_tokens=768,
                               output_tokens=256)
    assert short.max_batch_size == 256  # at 1,024 tokens the engine's max_num_seqs, not memory, is the limit


def test_missing_dense_figure_gives_no_throughput_and_says_which(kb):
    # A GPU without a published dense fp16/bf16 tensor figure (gpus.yaml missing_figures) must not be compared
    # on throughput with one whose prefill is counted: throughput and TTFT are None, the figure is named.
    # (an L40S with its tensor figures removed stands in for cards like the L20 or H100 NVL before their
    # datasheet figures were added)
    from bot.kb.schema import DenseTflops

    gpu = kb.gpus["l40s-48gb"].model_copy(update={"dense_tflops": DenseTflops(fp32=91.6)})
    r = estimate_inference(kb, "llama-3-8b", gpu, batch_size="max")
    assert r.throughput_tokens_per_s is None and r.ttft_s is None
    assert r.missing_figures == [f"dense bf16 tensor TFLOPS of {gpu.name}"]
    assert r.decode_tokens_per_s_per_sequence and r.decode_tokens_per_s_per_sequence > 0
    assert any("not compared on throughput" in w for w in r.warnings)


def test_prefix_caching_is_ignored_where_the_engine_lacks_it(kb):
    r = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", engine="hf", input_tokens=4000, output_tokens=96,
                           prefix_cached_tokens=3000)
    assert r.prefix_cached_tokens == 0 and r.new_input_tokens == 4000
    assert any("does not reuse cached prompt prefixes" in w for w in r.warnings)


BROKEN_ENGINES = textwrap.dedent("""\
    engines:
    - id: vllm
      name: vLLM
      efficiency_class: vllm
      kv_cache_dtype_default: model
      max_num_seqs: 256
      max_num_batched_tokens: 8192
      chunked_prefill: true
      continuous_batching: true
      prefix_caching: true
      cuda_graphs: true
      memory_utilization: 1.5
      sources: [https://example.org/vllm]
      as_of: 2026-12-01
    """)


def test_broken_engines_file_is_reported_with_file_and_line(tmp_path):
    kdir = write_tiny_kb(tmp_path)
    (kdir / "engines.yaml").write_text(BROKEN_ENGINES, encoding="utf-8")
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(kdir)
    issues = [str(i) for i in exc.value.issues]
    assert len(issues) == 1
    assert issues[0].startswith("knowledge/engines.yaml:12: memory_utilization: ")
    assert "vllm" in issues[0]


def test_unfused_attention_adds_the_score_matrix_traffic_to_a_long_prompt(kb):
    # llama.cpp ran attention unfused by default until 2025-08-19 (pull request #15434 made flash attention the
    # default; #5021 had added it behind -fa): KQ is written in fp32, read and rewritten by the softmax, read by
    # KQV = 16 B per score element (efficiency.yaml unfused_attention_score_bytes; Dao et al. arXiv:2205.14135 s3).
    # Llama 3 8B Q4_K_M on an RTX 4090, an 8,192-token prompt in llama.cpp's 512-token micro-batches: chunk i
    # (i = 0..15) has 512 new tokens after 512 x i cached = 512 x 512 x i + 512^2 / 2 causal elements per layer per
    # head; summed: 512^2 x (120 + 8) = 33,554,432 (= 8192^2 / 2). x 32 layers x 32 heads x 16 B = 5.498e11 B at
    # 1,008 GB/s x 0.85 (llama.cpp 16-bit MBU for activation traffic) = 0.6417 s more time to first token.
    common = dict(count=1, precision="q4_k_m", engine="llama.cpp", input_tokens=8192, output_tokens=1)
    fused = estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", **common)
    unfused = estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", fused_attention=False, **common)
    expected_s = 33_554_432 * 32 * 32 * 16 / (1008e9 * 0.85)
    assert expected_s == pytest.approx(0.6417, abs=1e-4)
    assert unfused.ttft_s - fused.ttft_s == pytest.approx(expected_s, rel=1e-6)
    assert any("attention not fused" in a for a in unfused.assumptions)
    assert not any("attention not fused" in a for a in fused.assumptions)
    # the current default (fused) is what an answer uses; the fact and its date are data
    assert kb.engines["llama.cpp"].fused_attention is True
    assert kb.engines["llama.cpp"].fused_attention_since.isoformat() == "2025-08-19"
    # a 512-token prompt barely moves: 512^2 / 2 x 32 x 32 x 16 B / (1,008 GB/s x 0.85) = 2.5 ms
    short = dict(common, input_tokens=512)
    d_short = (estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", fused_attention=False, **short).ttft_s
               - estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", **short).ttft_s)
    assert d_short == pytest.approx(512 * 512 / 2 * 32 * 32 * 16 / (1008e9 * 0.85), rel=1e-6)


def test_h20_bf16_batch1_decode_is_padded_compute_in_vllm_and_a_weight_read_in_hf(kb):
    # Qwen3-32B BF16 (32.76e9 params = 65.52 GB) on one H20 (4,000 GB/s, 148 dense bf16 TFLOPS), one sequence.
    # vLLM/SGLang run decode GEMMs on Hopper wgmma tiles of 64 token rows: 2 x 32.76e9 x 64 = 4.193e12 FLOPs at
    # 148e12 x 0.70 x 0.9 = 93.2 TFLOP/s = 44.97 ms, above the 65.52 GB / (4,000 GB/s x 0.72) = 22.75 ms weight read;
    # + 64 layers x 10 us + 0.3 ms per step + the KV read: 46.0 ms = 21.7 tok/s (SGLang published 20.72, Qwen speed
    # benchmark). HF Transformers calls cuBLAS with one row (no tile padding): the weight read at MBU 0.70 = 23.40 ms
    # + 64 layers x 200 us + 3 ms per step = 39.3 ms = 25.4 tok/s (the same benchmark: 26.24). The published HF run
    # being faster than SGLang is this padding, not a lower vLLM decode efficiency, so vLLM keeps it.
    common = dict(count=1, precision="bf16", batch_size=1, input_tokens=1, output_tokens=2048)
    vllm = estimate_inference(kb, "qwen3-32b", "h20-96gb", engine="vllm", **common)
    hf = estimate_inference(kb, "qwen3-32b", "h20-96gb", engine="hf", **common)
    assert vllm.decode_breakdown.compute_ms == pytest.approx(2 * 32.76e9 * 64 / (148e12 * 0.70 * 0.9) * 1e3, rel=0.01)
    assert vllm.decode_tokens_per_s_per_sequence == pytest.approx(21.7, abs=0.2)
    assert hf.decode_breakdown.weights_ms == pytest.approx(65.52e9 / (4000e9 * 0.70) * 1e3, rel=0.01)
    assert hf.decode_tokens_per_s_per_sequence == pytest.approx(25.4, abs=0.3)
