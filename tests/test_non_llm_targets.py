"""Image, speech and embedding questions with a live-service target, a deadline, a budget, several formats or
several models, from the user's side.

Memory is worked by hand from knowledge/models.yaml (``typical_fp16_weight_gb``) and knowledge/efficiency.yaml
(``cuda_context_gb`` 0.75 GB; 20% activation headroom, :data:`bot.advice.non_llm.ACTIVATION_HEADROOM`; 8-bit weights
1 byte each). One GPU's rate comes from :mod:`bot.estimation.non_llm` (checked against published benchmarks in
tests/test_estimation_workload_non_llm.py); the counts, prices and totals built on it are worked here by hand.
Prices are the cheapest on-demand offers of knowledge/prices (RTX 4090 $0.40/h and H100 SXM $1.80/h at Vast.ai,
L40S $1.57/h, A10G $1.01/h on AWS g5.xlarge).
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.estimation import estimate_embeddings, estimate_images, estimate_transcription
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def first_line(answer) -> str:
    return compose(answer).headline


# ---------------------------------------------------------------------------------------------- reading targets

@pytest.mark.parametrize(("text", "field", "value"), [
    ("sdxl at 20 images per minute, which gpu", "images_per_minute", 20),
    ("we need 1,200 images/hour from sdxl", "images_per_minute", 20),  # 1,200 / 60
    ("SDXL 3 张/秒，要几张 4090", "images_per_minute", 180),  # 3 images/s x 60
    ("L4 和 A10G 哪个跑 SDXL 每分钟 30 张更便宜", "images_per_minute", 30),  # (30 images, not 30 cards)
    ("bge-m3 at 300 calls per second", "requests_per_s", 300),
    ("transcribe 2000 hours of audio with whisper by tomorrow", "deadline_hours", 24),
    ("用 whisper 转写 500 小时音频，明天之前要", "deadline_hours", 24),
    ("render 300 sdxl images overnight", "deadline_hours", 12),
    ("whisper large-v3 for 40 concurrent calls", "concurrent_users", 40),
])
def test_targets_and_deadlines_are_read(kb, text, field, value):
    assert getattr(parse_question(text, kb), field) == pytest.approx(value)


def test_an_images_rate_the_user_saw_is_no_target(kb):
    assert parse_question("i only get 3 images per minute with sdxl on my T4, is that normal?", kb).images_per_minute \
        is None


# ---------------------------------------------------------------------------------------------- target rates

def test_an_embedding_api_rate_is_sized_in_gpus_and_the_cheapest_per_hour_picked(kb):
    a = ask(kb, "our search backend calls bge-m3 300 times per second, 512 tokens each; what GPUs, how many?")
    o = a.options[a.recommendation]
    # one RTX 4090 embeds ~162 passages of 512 tokens a second, so ceil(300 / 162) = 2 cards at 2 x $0.40 = $0.80/h;
    # one H100 (~971/s) would do it alone but costs $1.80/h, and 2 L40S or 3 L4 cost more per hour
    one = estimate_embeddings(kb, "bge-m3", "rtx-4090-24gb", tokens_per_document=512, precision="fp16")
    assert one.documents_per_s == pytest.approx(162, rel=0.01)
    assert o.gpu == "rtx-4090-24gb" and o.gpu_count == math.ceil(300 / one.documents_per_s) == 2
    assert o.price.price_per_hour_usd == pytest.approx(0.80)
    assert a.headline.code == "target_embeddings" and a.headline.params["count"] == 2
    assert "ceil(300 / 162) = 2" in first_line(a)
    hourly = [x.price.price_per_hour_usd for x in a.options if x.meets]
    assert hourly == sorted(hourly)  # every setup that reaches 300/s, cheapest per hour first
    assert not any(n.code == "non_llm_job_size" for n in a.missing)  # a target is a size


def test_an_images_per_minute_target_counts_gpus(kb):
    a = ask(kb, "we must serve 20 images per minute of SDXL, what should we rent and how many?")
    o = a.options[a.recommendation]
    # one RTX 4090 makes 10.97 SDXL images/min (1024x1024, 30 steps, batches of 8): ceil(20 / 10.97) = 2 cards at
    # $0.80/h, cheaper per hour than 1 H100 ($1.80) or 2 L40S ($1.33)
    assert a.query.images_per_minute == 20
    assert o.gpu == "rtx-4090-24gb" and o.gpu_count == 2
    assert a.headline.code == "target_images" and a.headline.params["per_gpu"] == pytest.approx(10.97, abs=0.01)
    assert o.price.price_per_hour_usd == pytest.approx(0.80)


def test_live_audio_streams_need_that_many_times_real_time(kb):
    a = ask(kb, "transcribe 120 live audio streams in real time with whisper large-v3, how many GPUs?")
    o = a.options[a.recommendation]
    # 120 streams, each at 1x real time = 120x in all; one RTX 4090 runs Whisper large-v3 at 55.29x in faster-whisper's
    # batched pipeline: ceil(120 / 55.29) = 3 cards, $1.20/h (3 T4 at 40.1x cost $1.58/h, 2 H100 $3.60/h)
    one = estimate_transcription(kb, "whisper-large-v3", "rtx-4090-24gb", batched=True)
    assert one.speed_x_realtime == pytest.approx(55.29, abs=0.01)
    assert o.gpu == "rtx-4090-24gb" and o.gpu_count == 3 == math.ceil(120 / one.speed_x_realtime)
    assert a.headline.code == "target_transcription" and o.price.price_per_hour_usd == pytest.approx(1.20)


def test_a_fixed_count_below_the_target_is_said_first_with_the_count_that_reaches_it(kb):
    a = ask(kb, "will 1x A10G handle 300 req/s of bge-m3 embeddings at 512 tokens?")
    # one A10G embeds 78.57 documents/s of 512 tokens: below 300; ceil(300 / 78.57) = 4 would
    assert a.recommendation is None
    assert a.headline.code == "target_short_embeddings"
    assert a.headline.params["rate"] == pytest.approx(78.57, abs=0.01) and a.headline.params["needed_count"] == 4
    assert first_line(a).startswith("No: 1x A10G embeds 78.57 documents/s")


# ---------------------------------------------------------------------------------------------- deadlines and budgets

def test_by_tomorrow_is_a_24_hour_deadline_that_sets_the_count(kb):
    a = ask(kb, "we have 2,000 hours of call recordings for whisper large-v3 and need them done by tomorrow")
    assert a.query.deadline_hours == 24 and a.query.audio_hours == 2000
    assert any(n.code == "deadline_phrase_read" and n.params["deadline_hours"] == 24 for n in a.assumptions)
    o = a.options[a.recommendation]
    # one RTX 4090 takes 2,000 x 3,600 / 55.29 / 3,600 = 36.2 h: ceil(36.2 / 24) = 2 cards, 18.1 h, and the job costs
    # 2 x $0.40 x 18.09 h = $14.47 (the same GPU-hours as one card for 36.2 h)
    assert o.gpu_count == 2 and o.wall_clock_hours == pytest.approx(2000 / 55.29 / 2, rel=0.001)
    assert o.total_cost_usd == pytest.approx(0.80 * 2000 / 55.29 / 2, rel=0.001)
    assert "within 24 h" in first_line(a)


def test_an_hourly_budget_rules_out_dearer_setups(kb):
    a = ask(kb, "embed 50M documents with bge-m3, we can spend at most $1 per hour")
    o = a.options[a.recommendation]
    # H100 ($1.80/h), L40S ($1.57/h) and A100 ($1.89/h) are above $1/h: the cheapest job within it is one RTX 4090,
    # 50e6 / 162 docs/s = 86 h at $0.40/h = $34.24 (the H100 would be cheaper in all, $25.74, but costs $1.80/h)
    assert o.gpu == "rtx-4090-24gb" and o.price.price_per_hour_usd <= 1.0
    assert o.total_cost_usd == pytest.approx(34.24, abs=0.05)
    for x in a.options:
        if x.price is not None and x.price.price_per_hour_usd > 1.0:
            assert x.meets is False and x.rejection.code == "reject_over_limit"
    assert a.details[0].code == "non_llm_budget_applied"


def test_a_total_budget_below_every_job_says_no_first(kb):
    a = ask(kb, "embed 50M documents with bge-m3 for under $20 in total")
    # the cheapest job is one H100: 50e6 / 971 docs/s = 14.3 h x $1.80 = $25.74 > $20, so nothing is recommended
    assert a.recommendation is None
    assert a.headline.code == "non_llm_over_budget"
    assert a.headline.params["total_usd"] == pytest.approx(25.74, abs=0.05)
    assert a.headline.params["budget_usd"] == 20
    assert first_line(a).startswith("Nothing I priced does it within your $20.00")


# ---------------------------------------------------------------------------------------------- variants, formats, models

def test_flux_schnell_is_its_own_model_with_4_steps(kb):
    a = ask(kb, "how long for flux schnell to make 1000 images on an L4")
    o = a.options[a.recommendation]
    assert o.model == "flux.1-schnell" and "schnell" in first_line(a)
    assert a.headline.params["steps"] == 4
    # the same transformer as FLUX.1 [dev] (flux util.py ModelSpec), so the same time per step: 4 steps instead of 28
    # make 28 / 4 = 7x the images per minute at the same batch
    dev = estimate_images(kb, "flux.1-dev", "l4-24gb", precision="fp8", batch_size=4)
    schnell = estimate_images(kb, "flux.1-schnell", "l4-24gb", precision="fp8", batch_size=4)
    assert schnell.images_per_minute == pytest.approx(dev.images_per_minute * 28 / 4)
    assert kb.models["flux.1-schnell"].license.startswith("Apache-2.0")


def test_each_format_named_for_a_fit_gets_its_verdict(kb):
    a = ask(kb, "will flux dev fit on a 3090 in bf16 or do I need fp8?")
    assert a.headline.code == "non_llm_precisions_fit"
    items = {i["precision"]: i for i in a.headline.params["items"]}
    # bf16: 24.0 GB x 1.2 + 0.75 = 29.55 GB > the 3090's 25.5 GB usable; 8-bit: 12.0 x 1.2 + 0.75 = 15.15 GB fits
    # (the 3090 has no FP8 tensor cores, so its 8-bit weights run as int8, said)
    assert items["bf16"]["need_gb"] == pytest.approx(29.55) and items["bf16"]["fits"] is False
    assert items["fp8"]["need_gb"] == pytest.approx(15.15) and items["fp8"]["fits"] is True
    assert items["fp8"]["ran_as"] == "int8"
    line = first_line(a)
    assert "bf16 no (needs 29.5 GB)" in line and "fp8 yes (needs 15.1 GB" in line
    assert len(a.options) == len(a.table.rows) == 2


def test_each_model_named_gets_its_row(kb):
    a = ask(kb, "embed 50M docs with bge-m3 and e5-large on an A10G, time and cost for each")
    assert [o.model for o in a.options] == ["bge-m3", "e5-large-v2"]
    assert len(a.table.rows) == 2 and a.table.columns[0] == "model"
    # both are 24 layers x 1024 hidden x 4096 intermediate: 2 x (4 x 1024^2 + 2 x 1024 x 4096) x 24 + 4 x 24 x 512 x
    # 1024 = 654.3 MFLOPs per token at 512 tokens, so the same 78.57 docs/s on an A10G and the same 177 h each
    assert a.options[0].wall_clock_hours == pytest.approx(a.options[1].wall_clock_hours)
    assert a.details[0].code == "embed_job" and a.details[0].params["model_name"] == "E5 large v2"


def test_a_model_listed_that_the_knowledge_base_lacks_is_said(kb):
    a = ask(kb, "embed 50M docs with bge-m3 and nomic-embed-text on an A10G")
    assert a.details[0].code == "non_llm_model_unknown" and a.details[0].params["written"] == "nomic-embed-text"
    assert 'no data for "nomic-embed-text"' in compose(a).details[0]
    assert not any(w.params.get("written") == "nomic-embed-text" for w in a.warnings)  # said once


def test_a_variant_word_is_not_swapped_silently(kb):
    a = ask(kb, "how fast is sdxl turbo on a 4090")
    stand_in = next(d for d in a.details if d.code == "non_llm_variant_stand_in")
    assert stand_in.params["written"].lower() == "sdxl turbo"
    assert stand_in.params["model_name"] == "Stable Diffusion XL 1.0 base" and stand_in.params["steps"] == 30


# ---------------------------------------------------------------------------------------------- Whisper consistency

def test_one_gpu_has_one_whisper_speed_in_every_answer_and_the_mode_is_said(kb):
    rate = ask(kb, "how fast is whisper large-v3 on a T4")
    job = ask(kb, "transcribe 1000 hours of audio with whisper large-v3 on a T4")
    one = ask(kb, "latency to transcribe one audio file with whisper large-v3 on a T4")
    # faster-whisper on a T4: 10.81x real time one file at a time (window by window); its batched pipeline (8 windows)
    # is 3.71x that (SYSTRAN/faster-whisper README, RTX 3070 Ti: 63 s / 17 s) = 40.1x, in the rate answer as in the job
    assert rate.headline.params["speed_x"] == pytest.approx(job.headline.params["speed_x"]) == pytest.approx(40.1, abs=0.05)
    assert rate.headline.params["other_one_x"] == pytest.approx(10.81, abs=0.01)
    assert one.headline.params["speed_x"] == pytest.approx(10.81, abs=0.01)
    assert one.headline.params["mode"].code == "transcribe_mode_one"
    assert rate.headline.params["mode"].code == "transcribe_mode_batched"
    assert "batched pipeline, 8 30-second windows" in first_line(rate)
    # why a faster GPU gains little: 3.7 tokens per audio second x 15 ms fixed per decoder step = 55.5 ms of every
    # 1 / 10.81 = 92.5 ms per audio second on a T4 is fixed work: 60%
    share = next(n for n in rate.assumptions if n.code == "transcribe_step_bound")
    assert share.params["share_pct"] == pytest.approx(100 * 3.7 * 0.015 * 10.81, abs=0.5)


def test_the_work_named_without_a_model_is_sized_with_its_default_model_said(kb):
    a = ask(kb, "we plan an embedding API: 300 requests/s, 512 tokens each. Which GPU and how many?")
    # knowledge/policy.yaml non_llm.default_models: embeddings -> BGE large en v1.5 (24 x 1024 x 4096, the same
    # 654.3 MFLOPs per 512-token request as BGE-M3): one RTX 4090 embeds 162/s, ceil(300 / 162) = 2 at $0.80/h
    assert a.query.non_llm_task == "embeddings"
    o = a.options[a.recommendation]
    assert o.model == "bge-large-en-v1.5" and o.gpu == "rtx-4090-24gb" and o.gpu_count == 2
    assert a.details[0].code == "non_llm_default_model" and a.details[0].params["model_name"] == "BGE large en v1.5"
    assert not any(w.code in ("unknown_model", "unknown_term") for w in a.warnings)  # "an embedding API" is no name


def test_a_speech_service_for_concurrent_calls_on_a_named_gpu(kb):
    a = ask(kb, "我们做语音转文字服务，同时 80 路通话，要几张 L4？")
    o = a.options[a.recommendation]
    # Whisper large-v3 (the default speech model) on one L4: 39.96x real time batched; 80 live calls need 80x:
    # ceil(80 / 39.96) = 3 L4
    assert o.model == "whisper-large-v3" and o.gpu == "l4-24gb" and o.gpu_count == 3
    assert a.headline.code == "target_transcription"


def test_a_rate_with_the_model_named_inside_and_a_monthly_budget(kb):
    a = ask(kb, "need 20 SDXL images/min, budget $500 a month")
    assert a.query.images_per_minute == 20 and a.query.images is None
    # $500 a month / 730 h = $0.685/h; the cheapest setup reaching 20 images/min is 2x RTX 4090 (10.97 each) at
    # $0.80/h = $584 a month: above it, so no setup is recommended and the first line says so with that setup
    assert a.recommendation is None and a.headline.code == "non_llm_over_limit"
    assert a.headline.params["limit_usd"] == pytest.approx(500 / 730)
    assert a.headline.params["price_usd"] == pytest.approx(0.80)


def test_each_format_named_gets_its_rate(kb):
    a = ask(kb, "flux dev on an H100, bf16 vs fp8 images per minute?")
    assert a.headline.code == "non_llm_precisions_images"
    rates = {i["precision"]: i["rate"] for i in a.headline.params["items"]}
    # the same batch of 8 at the H100's dense bf16 (989 TFLOPS) and fp8 (1,979) peaks: fp8 is faster, short of 2x
    # (the launch cost per call and the lower FP8 GEMM efficiency stay)
    assert set(rates) == {"bf16", "fp8"} and 1.5 < rates["fp8"] / rates["bf16"] < 2.0


def test_a_budget_said_per_hour_in_chinese_is_an_hourly_limit_not_a_deadline(kb):
    a = ask(kb, "用 bge-m3 向量化 5000 万篇文档，每小时预算 1 美元")
    # "每小时预算 1 美元": $1 per hour, not a 1-hour deadline with a $1 budget; the cheapest job within $1/h is one RTX
    # 4090 (162 docs/s, 50e6 / 162 / 3,600 = 86 h at $0.40/h = $34.24)
    assert a.query.deadline_hours is None
    o = a.options[a.recommendation]
    assert o.gpu == "rtx-4090-24gb" and o.gpu_count == 1 and o.total_cost_usd == pytest.approx(34.24, abs=0.05)
    assert a.details[0].code == "non_llm_budget_applied" and a.details[0].params["limit_usd"] == pytest.approx(1.0)
