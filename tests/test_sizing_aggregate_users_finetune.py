"""Three sizing rules, each tested as a rule with hand-computed values:

1. an aggregate target ("tokens/s in all", "requests/s") is sized on tokens/s in all at each replica's best batch,
   with no per-user floor, on the request lengths the question states (else the median whole chat request);
2. "N users" chat traffic prefills only the new turn on top of the cached conversation (233 tokens, the ShareGPT
   human turn), not the 1,020-token whole-request median again, so mid cards (L20) are sized by memory and bandwidth;
3. QLoRA/LoRA activation memory: SDPA keeps attention scores on chip on every GPU from compute capability 5.0 (T4,
   V100 included), and QLoRA recipes checkpoint activations by default.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.context import Context
from bot.advice.planner import serving_load, workload_of
from bot.estimation import estimate_finetune, serving_workload
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)

# Llama 3 / 3.1 70B KV cache per token in 16 bits: 2 (K, V) x 80 layers x 8 KV heads x 128 head_dim x 2 B
# = 327,680 B (estimation-notes.md, "Memory for inference").
LLAMA70_KV_B = 2 * 80 * 8 * 128 * 2


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _rec(a):
    return a.options[a.recommendation]


# ----------------------------------------------------------------------- 1. aggregate targets

def test_default_request_for_an_aggregate_target_is_the_whole_chat_request(kb):
    # No lengths: each request is the Azure conversation median of 1,020 prompt tokens (Splitwise, arXiv:2311.18677;
    # efficiency.yaml chat_request_prompt_tokens), all new, + 256 output tokens = 1,276 tokens of KV per request.
    w = serving_workload(kb, per_request=True)
    assert (w.input_tokens, w.output_tokens, w.context_tokens) == (1020, 256, 1276)
    assert (w.new_prompt_tokens_per_request, w.prefix_cached_tokens) == (1020, 0)
    assert w.assumption.kind == "default_request" and "Splitwise" in w.assumption.source
    # a stated output keeps the default prompt: 1,020 + 500 = 1,520
    assert serving_workload(kb, output_tokens=500, per_request=True).context_tokens == 1520
    # a stated context is one request's length: a fresh 4,096 - 256 = 3,840-token prompt, not a cached chat
    ctx = serving_workload(kb, context_tokens=4096, per_request=True)
    assert (ctx.input_tokens, ctx.new_prompt_tokens_per_request, ctx.worst_case) == (3840, 3840, False)


def test_a_live_services_request_rate_keeps_the_per_user_floor(kb):
    # a live service's total: every reply still streams at the policy floor (knowledge/policy.yaml
    # serving.min_tokens_per_s_per_user, 10 tokens/s), or 2 tok/s replies would "meet" the total
    text = "serving llama 3 70b on h100s: how many to handle 20 requests per second with replies of 500 tokens?"
    ctx = Context(parse_question(text, kb), kb, today=TODAY)
    load = serving_load(ctx)
    assert load.total_tps == pytest.approx(10_000) and load.per_user_tps == 10.0
    o = _rec(ask(kb, text))
    assert o.throughput_tps >= 10_000 and o.tps_per_user >= 10.0


def test_request_rate_with_stated_answer_length_is_sized_at_the_best_batch(kb):
    text = "offline batch job, llama 3 70b on h100s: how many to handle 20 requests per second with replies of 500 tokens?"
    q = parse_question(text, kb)
    assert (q.requests_per_s, q.output_tokens) == (20.0, 500)
    ctx = Context(q, kb, today=TODAY)
    load = serving_load(ctx)
    # 20 requests/s x 500 output tokens = 10,000 tokens/s in all; no per-user floor for a total
    assert load.total_tps == pytest.approx(10_000)
    assert load.per_user_tps == 0.0 and load.per_request
    assert workload_of(ctx, load).context_tokens == 1020 + 500
    a = ask(kb, text)
    o = _rec(a)
    assert a.headline.code == "serve_total" and o.throughput_tps >= 10_000
    # the KV cache of one replica holds its batch of 1,520-token requests: 1,520 x 327,680 B = 0.498 GB each
    per_replica_users = o.users / o.replicas
    assert o.kv_cache_gb == pytest.approx(per_replica_users * 1520 * LLAMA70_KV_B / 1e9, rel=0.01)
    # the per-user speed that results is stated (tokens/s in all / requests in flight)
    assert o.tps_per_user == pytest.approx(o.throughput_tps / o.users, rel=0.01)
    assert any(x.code == "aggregate_best_batch" for x in a.assumptions)
    assert not any(x.code == "per_user_floor" for x in a.assumptions)
    # sizing each request at a 10 tokens/s floor instead can only need as many GPUs or more
    floor = ask(kb, text + " at least 20 tok/s per user")
    assert _rec(floor).gpu_count >= o.gpu_count


def test_answer_and_completion_lengths_are_output_tokens(kb):
    # "answers 300 tokens" is the output length (it was read as a 300-token context): 10 req/s x 300 = 3,000 tok/s
    q = parse_question("mistral 7b on a10g, 10 req/s, prompts 1500 tokens, answers 300 tokens", kb)
    assert (q.input_tokens, q.output_tokens, q.context_tokens) == (1500, 300, None)
    ctx = Context(q, kb, today=TODAY)
    load = serving_load(ctx)
    assert load.total_tps == pytest.approx(3000)
    assert workload_of(ctx, load).context_tokens == 1800
    assert parse_question("8 requests per second, average completion 400 tokens, qwen2.5 7b", kb).output_tokens == 400


def test_aggregate_target_sized_below_reading_speed_says_so(kb):
    # Qwen2.5 7B at 10,000 tok/s in all on L4s with 2,000-token prompts: prefill (2 x 7.6e9 x 2,000 FLOPs per
    # request) dominates an L4, so the best batch streams each request slower than the 10 tok/s reading floor
    a = ask(kb, "qwen2.5 7b on L4s, 50 requests per second, 2000 tokens in and 200 out: how many?")
    o = _rec(a)
    assert o.throughput_tps >= 10_000
    if o.tps_per_user < 10:
        assert any(w.code == "aggregate_below_reading" for w in a.warnings)


# ----------------------------------------------------------------------- 2. N users on mid cards

def test_chat_turn_prefills_only_the_new_message(kb):
    # ShareGPT: 23,260 prompt tokens over 100 human turns = 233 per turn (efficiency.yaml chat_turn_new_tokens)
    w = serving_workload(kb, context_tokens=4096)
    assert w.new_prompt_tokens_per_request == 233 and w.prefix_cached_tokens == 4096 - 256 - 233


def test_llama_70b_for_100_users_on_l20_is_sized_by_memory(kb):
    # Hand arithmetic (4k context, fp8 weights, 16-bit KV):
    #   KV: 100 users x 4,096 x 327,680 B = 134.2 GB; weights 70.6 GB (fp8, embeddings 16-bit)
    #   4x L20 (TP4, one replica): 70.6/4 + 134.2/4 = 17.65 + 33.55 = 51.2 GB > 47.9 usable: no
    #   8x L20 (2 x TP4, 50 users each): 17.65 + 16.8 + ~2 overhead = 36.5 GB <= 0.9 x 47.9 = 43.1 (vLLM budget)
    #   decode from bandwidth: (17.65 + 16.8) GB / (864 GB/s x 0.72) = 55 ms -> at most ~18 tok/s per user
    # 8 L20s (one machine) carry it at >= 10 tok/s with the 233-token turns prefilled.
    a = ask(kb, "how many L20 to serve llama 3.1 70b to 100 users")
    o = _rec(a)
    assert (o.gpu_count, o.precision, o.tensor_parallel, o.replicas) == (8, "fp8", 4, 2)
    assert o.memory_per_gpu_gb == pytest.approx(17.65 + 50 * 4096 * LLAMA70_KV_B / 4 / 1e9 + 2.0, abs=0.5)
    assert 10 <= o.tps_per_user <= 18


# ----------------------------------------------------------------------- 3. LoRA/QLoRA activation memory

def test_qlora_8b_on_a_t4_at_8k_checkpoints_and_keeps_scores_off_memory(kb):
    # Llama 3 8B (32 layers, h 4,096, vocab 128,256), seq 8,192, micro-batch 1, QLoRA's default checkpointing:
    #   stored layer inputs 32 x 2 x 8,192 x 4,096 B = 2.147 GB + one layer's 34 x 8,192 x 4,096 = 1.141 GB
    #   + fp32 logits 8,192 x 128,256 x 4 = 4.203 GB = 7.491 GB; no 5 a s^2 term: SDPA's memory-efficient kernel
    #   runs on sm75 (pytorch sdp_utils.cpp, sm50-sm90)
    r = estimate_finetune(kb, "llama-3-8b", "t4-16gb", method="qlora", seq_len=8192)
    act = 32 * 2 * 8192 * 4096 + 34 * 8192 * 4096 + 8192 * 128256 * 4
    assert r.memory.activations_gb == pytest.approx(act / 1e9, rel=1e-3)
    assert r.memory_per_gpu_gb == pytest.approx(14.2, abs=0.2) and r.fits
    # LoRA keeps PEFT's default (no checkpointing): 32 x 34 x 8,192 x 4,096 + logits, still without the s^2 term
    lora = estimate_finetune(kb, "llama-3-8b", "t4-16gb", method="lora", seq_len=8192)
    assert lora.memory.activations_gb == pytest.approx((32 * 34 * 8192 * 4096 + 8192 * 128256 * 4) / 1e9, rel=1e-3)


def test_qlora_on_a_t4_ask_and_estimate_agree(kb):
    a = ask(kb, "qlora llama 3 8b on one T4, 8k sequence length")
    o = _rec(a)
    r = estimate_finetune(kb, "llama-3-8b", "t4-16gb", method="qlora", seq_len=8192)
    assert o.fits and o.memory_per_gpu_gb == pytest.approx(r.memory_per_gpu_gb, rel=0.01)


# ----------------------------------------------------------------------- 4. a provider without the variant asked

def test_lora_cost_on_a_provider_without_the_variant_uses_its_nearest_variant(kb):
    # RunPod rents A100s only with 80 GB (knowledge/prices/runpod.yaml): a LoRA run asked on a RunPod A100 40GB is
    # priced on RunPod's A100 SXM4 80GB (same chip, same SXM form factor, the closest memory), labelled, rather than
    # left without a cost. Cost = GPU-hours x the variant's $/GPU-hour.
    assert not [o for o in kb.offers_for("a100-sxm-40gb") if o.provider == "runpod"]
    a = ask(kb, "LoRA llama 3 8b on a RunPod A100 40GB for 20M tokens: what does it cost?")
    o = _rec(a)
    assert o.gpu == "a100-sxm-40gb" and o.price is not None and o.price.provider == "runpod"
    assert o.price.gpu_variant == "a100-sxm-80gb"
    runpod_80 = min(x.price_per_hour_usd / x.gpu_count for x in kb.offers_for("a100-sxm-80gb")
                    if x.provider == "runpod" and x.gpu_count == 1 and x.pricing_model == "on_demand")
    assert o.price.price_per_gpu_hour_usd == pytest.approx(runpod_80)
    assert o.total_cost_usd == pytest.approx(o.gpu_hours * runpod_80, rel=1e-6)
    assert any(w.code == "priced_nearest_variant" for w in a.warnings)


def test_the_reverse_variant_is_used_only_when_the_run_fits_it(kb):
    # Lambda rents the A100 SXM4 40GB: a run needing more than its ~42.5 GB usable is not priced on it
    from bot.advice.planner import place_nearest_variant
    ctx = Context(parse_question("lora llama 3 8b on lambda a100 80gb", kb), kb, today=TODAY)
    gpu = kb.gpus["a100-pcie-80gb"]
    placement, variant = place_nearest_variant(ctx, gpu, 1, 1, need_gb=60.0)
    assert variant is None or variant.memory_gb >= 80
    placement, variant = place_nearest_variant(ctx, gpu, 1, 1, need_gb=20.0)
    assert variant is not None and placement.offer.provider == "lambda"


# ----------------------------------------------------------------------- 5. calibration rules

def test_marlin_int4_adds_a_fixed_cost_per_layer(kb):
    # efficiency.yaml int4 gemm_call_overhead_us = 13.75: Qwen3-4B has 36 dense layers of 4 Marlin calls, so a
    # decode step carries 36 x 4 x 13.75 us = 1.98 ms more than the same model in fp8 (native GEMMs).
    from bot.estimation import estimate_inference
    kw = dict(precision=None, batch_size=1, engine="sglang", input_tokens=1, output_tokens=2048)
    i4 = estimate_inference(kb, "qwen3-4b", "h20-96gb", **{**kw, "precision": "int4"})
    f8 = estimate_inference(kb, "qwen3-4b", "h20-96gb", **{**kw, "precision": "fp8"})
    extra = i4.decode_breakdown.layer_overhead_ms - f8.decode_breakdown.layer_overhead_ms
    assert extra == pytest.approx(36 * 4 * 13.75e-3, abs=0.05)
    # published (QwenLM speed benchmark, H20, SGLang awq_marlin, batch 1): 199.71 tokens/s
    assert 1000 / i4.tpot_ms == pytest.approx(199.71, rel=0.1)


def test_eager_sd15_step_is_floored_by_the_host_issuing_kernels(kb):
    # diffusers torch2.0 table: one SD 1.5 UNet call takes 46.2 ms to issue on a cloud server host (A100 eager
    # 21.66 it/s vs 44.03 compiled) and at most 24.7 ms on a desktop (RTX 4090 eager 40.5 it/s)
    from bot.estimation import estimate_images
    a100 = estimate_images(kb, "stable-diffusion-1.5", "a100-sxm-80gb")
    assert a100.iterations_per_s == pytest.approx(1000 / 46.2, rel=1e-3)
    h100 = estimate_images(kb, "stable-diffusion-1.5", "h100-sxm-80gb")  # a faster GPU waits for the same host
    assert h100.iterations_per_s == pytest.approx(1000 / 46.2, rel=1e-3)
    compiled = estimate_images(kb, "stable-diffusion-1.5", "a100-sxm-80gb", engine="diffusers-compiled")
    assert compiled.iterations_per_s > 40  # no host issue with CUDA graphs (published 44.03)
    assert estimate_images(kb, "stable-diffusion-1.5", "rtx-4090-24gb").iterations_per_s == pytest.approx(40.5, rel=0.02)
    # a slow GPU stays GPU-bound: the T4 (published 6.90 it/s) is far above the 46.2 ms floor
    assert 1 / estimate_images(kb, "stable-diffusion-1.5", "t4-16gb").seconds_per_step < 1000 / 46.2
