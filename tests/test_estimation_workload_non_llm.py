"""The default serving workload and the non-LLM speed estimators (images, transcription, embeddings),
hand-computed from knowledge/efficiency.yaml and gpus.yaml figures."""

from __future__ import annotations

import pytest

from bot.estimation import (
    EstimationError,
    estimate_embeddings,
    estimate_images,
    estimate_inference,
    estimate_transcription,
    serving_workload,
)
from bot.kb.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


# ---------------------------------------------------------------- serving workload


def test_default_workload_is_a_chat_turn_on_a_cached_conversation(kb):
    # "users at 8k context": KV sized for 8,192 tokens per user; a request is one turn bringing 233 new prompt
    # tokens (the ShareGPT human turn, 23,260 tokens / 100 prompts; efficiency.yaml chat_turn_new_tokens) and 256
    # output tokens: 8,192 - 256 = 7,936 prompt tokens, 7,936 - 233 = 7,703 of them cached.
    w = serving_workload(kb, context_tokens=8192)
    assert (w.context_tokens, w.input_tokens, w.output_tokens) == (8192, 7936, 256)
    assert (w.new_prompt_tokens_per_request, w.prefix_cached_tokens) == (233, 7703)
    assert w.assumption.kind == "chat_prefix_cached" and "ShareGPT" in w.assumption.source
    worst = serving_workload(kb, context_tokens=8192, worst_case=True)
    assert (worst.new_prompt_tokens_per_request, worst.prefix_cached_tokens) == (7936, 0)
    assert worst.assumption.kind == "worst_case_full_prompt" and worst.worst_case
    stated = serving_workload(kb, input_tokens=1000, output_tokens=300)
    assert (stated.context_tokens, stated.new_prompt_tokens_per_request, stated.prefix_cached_tokens) == (1300, 1000, 0)
    with pytest.raises(EstimationError, match="exceed the context"):
        serving_workload(kb, context_tokens=1000, input_tokens=900, output_tokens=200)


def test_cached_prefix_cuts_prefill_not_memory(kb):
    chat = serving_workload(kb, context_tokens=8192)
    worst = serving_workload(kb, context_tokens=8192, worst_case=True)
    a = estimate_inference(kb, "llama-3-70b", "h100-sxm-80gb", count=4, precision="fp8", batch_size=16,
                           **chat.estimate_kwargs())
    b = estimate_inference(kb, "llama-3-70b", "h100-sxm-80gb", count=4, precision="fp8", batch_size=16,
                           **worst.estimate_kwargs())
    assert a.memory.kv_cache_gb == pytest.approx(b.memory.kv_cache_gb)  # sized for 8,192 tokens per user either way
    assert a.new_input_tokens == 233 and b.new_input_tokens == 7936
    assert a.ttft_s < 0.2 * b.ttft_s
    assert a.throughput_tokens_per_s > 1.5 * b.throughput_tokens_per_s


# ---------------------------------------------------------------- images


def test_sd15_iterations_per_second_on_a_4090(kb):
    # SD 1.5 at 512x512: 339 GMACs per UNet pass (BK-SDM) = 678 GFLOPs, x2 for classifier-free guidance =
    # 1.356 TFLOPs per step. RTX 4090 fp16 with fp16 accumulation (diffusers): 330.3 TFLOPS x 0.70 (Ada GEMM
    # efficiency) x 0.3 (UNet factor) = 69.36 TFLOPS -> 19.55 ms + 5 ms launch cost = 24.55 ms: 40.7 it/s
    # (diffusers torch2.0 docs: 40.5), just under the 24.7 ms a desktop host takes to issue the UNet's kernels in
    # eager mode (efficiency.yaml eager_issue_ms, 1 / 40.5), which therefore sets the step: 40.5 it/s.
    # 50 steps = 1.235 s per image; 2 GPUs make 97.2 images per minute.
    r = estimate_images(kb, "stable-diffusion-1.5", "rtx-4090-24gb", count=2, images=10_000, price_per_gpu_hour=0.5)
    step = max(1.356e12 / (330.3e12 * 0.70 * 0.3) + 0.005, 0.0247)
    assert r.seconds_per_step == pytest.approx(step, rel=1e-6)
    assert r.iterations_per_s == pytest.approx(1 / step, rel=1e-6)
    assert r.seconds_per_image == pytest.approx(50 * step, rel=1e-6)
    assert r.images_per_minute == pytest.approx(2 * 60 / (50 * step), rel=1e-6)
    hours = 10_000 * 50 * step / 2 / 3600
    assert r.hours == pytest.approx(hours) and r.gpu_hours == pytest.approx(2 * hours)
    assert r.cost_usd == pytest.approx(2 * hours * 0.5)


def test_resolution_scales_linear_and_attention_parts(kb):
    # SDXL at 768x768 = 0.5625 of its 1,024x1,024 base: 6,300 GFLOPs x (0.88 x 0.5625 + 0.12 x 0.5625^2)
    r = estimate_images(kb, "stable-diffusion-xl-1.0-base", "l4-24gb", width=768, height=768)
    per_forward = 6300e9 * (0.88 * 0.5625 + 0.12 * 0.5625**2)
    assert r.flops_per_step == pytest.approx(2 * per_forward, rel=1e-9)
    with pytest.raises(EstimationError, match="no diffusion compute figures"):
        estimate_images(kb, "whisper-large-v3", "l4-24gb")


# ---------------------------------------------------------------- transcription


def test_whisper_large_v2_on_a_v100s_with_faster_whisper(kb):
    # 30-s windows; encoder 2 x 12 x 1,280^2 x 32 layers x 1,500 frames + 4 x 32 x 1,500^2 x 1,280 = 2.256e12 FLOPs
    # at 130 TFLOPS x 0.60 (Volta) x 0.8 (no FlashAttention-2) x 0.8 (faster-whisper) = 49.92 TFLOPS.
    # Decoder step (beam 5): weights (16 x 1,280^2 x 32 + 51,865 x 1,280) x 2 B + cross-attention K/V 32 x 1,500 x
    # 1,280 x 4 B = 2.056 GB at 1,134 GB/s x 0.7, + 15 ms per step; 3.7 tokens per audio second.
    # 13 minutes -> 51.9 s (faster-whisper README: 54 s).
    # The README row is one file decoded window by window (batched=False); 13 minutes fill a batch of 8 windows, so by
    # default the batched pipeline's published 3.71x (63 s -> 17 s, README v1.1.0) applies.
    r = estimate_transcription(kb, "whisper-large-v2", "v100s-pcie-32gb", audio_hours=13 / 60, batched=False)
    default = estimate_transcription(kb, "whisper-large-v2", "v100s-pcie-32gb", audio_hours=13 / 60)
    assert default.real_time_factor == pytest.approx(r.real_time_factor / 3.71)
    rate = 130e12 * 0.60 * 0.8 * 0.8
    enc = (2 * 12 * 1280**2 * 32 * 1500 + 4 * 32 * 1500**2 * 1280) / rate
    dec_params = 16 * 1280**2 * 32 + 51865 * 1280
    step = (dec_params * 2 + 32 * 1500 * 1280 * 4) / (1134e9 * 0.7) + 0.015
    rtf = enc / 30 + 3.7 * step
    assert r.real_time_factor == pytest.approx(rtf, rel=1e-6)
    assert r.hours * 3600 == pytest.approx(780 * rtf, rel=1e-6)
    batched = estimate_transcription(kb, "whisper-large-v2", "v100s-pcie-32gb", batch_size=16)
    assert batched.speed_x_realtime > 5 * r.speed_x_realtime  # the per-step cost is shared by 16 windows


# ---------------------------------------------------------------- embeddings


def test_bge_large_on_an_l4_with_tei(kb):
    # BERT-large: 2 x (4 x 1,024^2 + 2 x 1,024 x 4,096) x 24 + 4 x 24 x 449 x 1,024 = 0.648 GFLOPs per token at
    # 449 tokens per document; L4 121 TFLOPS x 0.70 x 0.47 (TEI) = 39.8 TFLOPS -> 61.4k tokens/s (infinity
    # benchmark: 0.54 requests of 115,000 tokens per second = 62k).
    r = estimate_embeddings(kb, "bge-large-en-v1.5", "l4-24gb", documents=1e6, tokens_per_document=449, count=3)
    flops = 2 * (4 * 1024**2 + 2 * 1024 * 4096) * 24 + 4 * 24 * 449 * 1024
    tok_s = 121e12 * 0.70 * 0.47 / flops
    assert r.flops_per_token == pytest.approx(flops)
    assert r.tokens_per_s == pytest.approx(3 * tok_s, rel=1e-9)
    assert r.hours == pytest.approx(1e6 * 449 / (3 * tok_s) / 3600, rel=1e-9)
    long = estimate_embeddings(kb, "bge-large-en-v1.5", "l4-24gb", tokens_per_document=2000)
    assert long.tokens_per_document == 512 and any("chunk longer documents" in w for w in long.warnings)
