"""Image generation, transcription and embedding questions, from the user's side.

Memory figures are worked by hand from knowledge/models.yaml (``typical_fp16_weight_gb``) and
knowledge/efficiency.yaml (``cuda_context_gb`` 0.75 GB; FP8 1 byte/weight); rates come from
:mod:`bot.estimation.non_llm`, whose own tests check them against published benchmarks.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.estimation import estimate_embeddings, estimate_transcription
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_flux_on_a_24gb_card_runs_in_8_bit(kb):
    # FLUX.1 [dev]: 24.0 GB fp16 transformer weights. 16-bit: 24.0 x 1.2 + 0.75 = 29.55 GB > a 4090's 24 GB;
    # FP8 (Ada runs it natively): 12.0 x 1.2 + 0.75 = 15.15 GB fits.
    a = ask(kb, "flux.1 dev images per minute on a 4090")
    o = a.options[a.recommendation]
    assert o.precision == "fp8" and o.fits
    assert o.memory_total_gb == pytest.approx(15.15)
    # an images/min rate is the batched throughput: 2.4 GB of activations per 1024x1024 image (0.2 x 12.0 GB), so
    # 4 images: 12.0 + 9.6 + 0.75 = 22.35 GB fit the 4090's 25.5 GB usable, 8 (31.95 GB) do not
    assert a.headline.code == "images_rate_batched" and a.headline.params["images_per_minute"] > 0
    assert a.headline.params["batch"] == 4
    assert any(n.code == "non_llm_8bit" and n.params["need16_gb"] == pytest.approx(29.55) for n in a.assumptions)


def test_a_stated_precision_is_kept_and_the_misfit_said(kb):
    # fp16 asked: 24.0 x 1.2 + 0.75 = 29.55 GB > the 4090's usable 24 GiB (25.8 GB); never swapped for FP8.
    a = ask(kb, "run flux.1 dev in fp16 on a 4090")
    assert a.recommendation is None
    assert a.headline.code == "non_llm_no_fit" and a.headline.params["precision"] == "fp16"
    assert a.headline.params["need_gb"] == pytest.approx(29.55)


def test_transcription_job_wall_clock_and_cost(kb):
    # 1,000 audio hours on one A10G: wall clock = 1,000 x (seconds per audio hour) / 3,600; the cost is that
    # many hours at the A10G price the answer shows.
    a = ask(kb, "how long to transcribe 1000 hours of audio with whisper large v3 on an A10G")
    o = a.options[a.recommendation]
    e = estimate_transcription(kb, "whisper-large-v3", "a10g-24gb", audio_hours=1000, precision="fp16")
    assert a.headline.code == "transcribe_job"
    assert o.wall_clock_hours == pytest.approx(1000 * e.seconds_per_audio_hour / 3600)
    assert o.total_cost_usd == pytest.approx(o.wall_clock_hours * o.price.price_per_hour_usd)


def test_a_bare_duration_is_the_audio_for_a_speech_model(kb):
    a = ask(kb, "transcribe 200 hours with whisper large-v3 on an L4")
    assert a.headline.code == "transcribe_job" and a.headline.params["audio_hours_n"] == 200
    assert any(n.code == "duration_as_audio" for n in a.assumptions)


def test_a_deadline_sets_the_gpu_count(kb):
    # Copies run data-parallel: GPUs = ceil(hours on one T4 / 10 h).
    one = estimate_embeddings(kb, "bge-m3", "t4-16gb", documents=20e6, precision="fp16")
    a = ask(kb, "embed 20 million documents with bge-m3 on T4 GPUs within 10 hours")
    o = a.options[a.recommendation]
    assert o.gpu_count == math.ceil(one.hours / 10)
    assert o.wall_clock_hours <= 10 and o.meets


def test_without_a_gpu_the_cheapest_job_comes_first(kb):
    a = ask(kb, "transcribe 500 hours of audio with whisper large-v3, cheapest gpu")
    costs = [o.total_cost_usd for o in a.options if o.meets and o.total_cost_usd is not None]
    assert costs == sorted(costs) and len(costs) >= 3
    assert a.options[a.recommendation].total_cost_usd == costs[0]


def test_best_gpu_for_a_speech_model_is_answered_for_that_model(kb):
    a = ask(kb, "best gpu for whisper large v3")
    assert a.title.code == "title_non_llm"
    assert a.headline.code == "transcribe_rate"


def test_chinese_transcription_answer_is_chinese(kb):
    a = ask(kb, "whisper large v3 用 4090 转写 500 小时音频要多久")
    c = compose(a)
    assert a.headline.code == "transcribe_job"
    assert "小时" in c.headline and "hours" not in c.headline
