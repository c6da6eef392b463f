"""Troubleshooting questions ("is this normal?", "why is it so slow", "it runs out of memory"): the figure the user
saw is set beside the estimate with a verdict and an expected range, a speed well below it gets its likely causes with
the memory arithmetic, and an out-of-memory error on a setup whose estimate fits gets the margin it leaves."""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.observed import ABOVE_SHARE, BELOW_SHARE
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _seen(answer, code: str):
    # the verdict on the user's figure leads when nothing else is asked; the causes follow it
    return next(d for d in [answer.headline, *answer.details] if d.code == code)


def _codes(answer) -> list[str]:
    return [d.code for d in [answer.headline, *answer.details]]


def test_a_speed_near_the_estimate_is_called_normal_with_its_range(kb):
    a = ask(kb, "mistral 7b on one L4 does about 13 tokens/s for me, is that expected?")
    seen = _seen(a, "observed_speed")
    one = seen.params["decode_tps"]
    # the expected range is 0.6x to 1.25x the estimate (bot/advice/observed.py BELOW_SHARE, ABOVE_SHARE)
    assert seen.params["low_tps"] == pytest.approx(BELOW_SHARE * one)
    assert seen.params["high_tps"] == pytest.approx(ABOVE_SHARE * one)
    assert BELOW_SHARE * one <= 13 <= ABOVE_SHARE * one
    assert seen.params["verdict"] == "normal" and seen.params["normal"] and not seen.params["below"]
    assert not any(d.code.startswith("cause_") for d in a.details)


def test_a_speed_far_below_on_a_card_too_small_for_16_bit_names_offloading_with_the_memory(kb):
    a = ask(kb, "我的 4090 跑 qwen2.5 14b 只有 4 token/s，这正常吗")
    seen = _seen(a, "observed_speed")
    assert seen.params["verdict"] == "slow" and 4 < BELOW_SHARE * seen.params["decode_tps"]
    codes = _codes(a)
    # Qwen2.5 14B: 14.77B parameters (knowledge/models.yaml, its HF config) x 2 bytes = 29.5 GB in 16-bit, more than
    # the RTX 4090's 24 GB; x 4 bytes = 59.1 GB in fp32
    off = _seen(a, "cause_offload")
    assert off.params["weights_gb"] == pytest.approx(14.770033664 * 2)
    assert off.params["memory_gb"] == 24
    fp32 = _seen(a, "cause_fp32")
    assert fp32.params["fp32_gb"] == pytest.approx(14.770033664 * 4) and fp32.params["spills"]
    assert codes.index("observed_speed") < codes.index("cause_offload") < codes.index("cause_engine")


def test_a_card_before_ampere_is_told_it_has_no_bf16(kb):
    a = ask(kb, "llama 3 8b on a tesla p40 crawls at 2 tok/s, why so slow")
    assert _seen(a, "observed_speed").params["verdict"] == "slow"
    # P40: compute capability 6.1 (knowledge/gpus.yaml), native bf16 starts at 8.0
    assert _seen(a, "cause_no_bf16").params["cc"] == "6.1"


def test_a_format_the_user_named_is_not_second_guessed_as_a_16_bit_load(kb):
    a = ask(kb, "qwen2.5 14b awq on my 4090 only 6 tokens/s, normal?")
    codes = _codes(a)
    assert "observed_speed" in codes and "cause_engine" in codes
    assert "cause_offload" not in codes and "cause_fp32" not in codes


@pytest.mark.parametrize("text", [
    "3090 上跑 llama 3 8b，每秒只有 3 个 token，是不是有问题",
    "why is my A10G so slow with llama 3 8b, 5 tokens/s",
])
def test_a_speed_called_slow_is_what_the_user_sees_not_a_target(kb, text):
    q = parse_question(text, kb)
    assert q.target_tokens_per_s is None
    assert [o.kind for o in q.observations] == ["tokens_per_s"]


def test_a_time_per_image_in_minutes_is_read_and_judged(kb):
    a = ask(kb, "sdxl takes 12 minutes per image on my T4, is this normal?")
    seen = _seen(a, "observed_image_time")
    assert seen.params["observed_s"] == 720  # 12 min x 60 s
    assert seen.params["verdict"] == "slow" and seen.params["below"]
    # the expected range is the estimate / 1.25 to the estimate / 0.6
    assert seen.params["high_s"] == pytest.approx(seen.params["per_image_s"] / BELOW_SHARE)
    assert seen.params["low_s"] == pytest.approx(seen.params["per_image_s"] / ABOVE_SHARE)


def test_zh_time_per_image_in_minutes_is_an_observation(kb):
    q = parse_question("4090 上 flux 出一张图要 3 分钟，正常吗", kb)
    assert [(o.kind, o.item, o.value) for o in q.observations] == [("seconds_per_item", "image", 180)]


def test_an_oom_on_a_run_that_fits_by_a_thin_margin_says_so_first(kb):
    a = ask(kb, "qlora on a 7b model keeps hitting OOM on my 24gb 4090")
    assert a.headline.code == "oom_reported_fits"
    p = a.headline.params
    rec = a.options[a.recommendation]
    assert p["mem_gb"] == rec.memory_per_gpu_gb and p["usable_gb"] == rec.usable_gb
    assert p["share_pct"] == pytest.approx(100 * rec.memory_per_gpu_gb / rec.usable_gb)
    assert p["thin"] is (rec.memory_per_gpu_gb > 0.9 * rec.usable_gb)
    assert p["roomy_run"] is (not p["thin"])


def test_an_oom_with_room_to_spare_points_outside_the_estimate(kb):
    a = ask(kb, "LoRA fine-tuning llama 3 8b on an 80GB A100 and it runs out of memory")
    p = a.headline.params
    assert a.headline.code == "oom_reported_fits" and p["roomy_run"] and not p["thin"]
    assert p["free_gb"] == pytest.approx(p["usable_gb"] - p["mem_gb"])
    assert any(d.code == "finetune_fits" for d in a.details)


def test_an_oom_serving_a_model_that_fits_leads_with_the_margin(kb):
    a = ask(kb, "CUDA out of memory serving mistral 7b on my L4")
    assert a.headline.code == "oom_reported_fits" and a.headline.params["roomy"]


def test_an_engine_the_user_runs_is_not_told_to_use_an_engine(kb):
    a = ask(kb, "I only get 8 tok/s on llama 3 70b awq on 2x 3090 with vllm, is that normal?")
    assert a.headline.code == "observed_speed" and a.headline.params["verdict"] == "slow"
    codes = _codes(a)
    assert "cause_engine_settings" in codes and "cause_engine" not in codes


def test_tensor_parallel_over_cards_without_nvlink_is_a_cause(kb):
    # the L40S has no NVLink (knowledge/gpus.yaml nvlink_gb_s unset): TP all-reduce crosses PCIe
    assert not kb.gpus["l40s-48gb"].nvlink_gb_s
    a = ask(kb, "llama 3 70b fp8 on 2x L40S with vllm gives 3 tok/s, is that normal?")
    assert "cause_tp_pcie" in _codes(a)


def test_a_model_known_by_its_size_alone_gets_the_offload_cause(kb):
    # 70e9 x 2 bytes = 140 GB of 16-bit weights > 2 x 24 GB
    a = ask(kb, "两张3090 跑 70b 速度只有2 token/s 正常吗")
    assert a.headline.code == "observed_speed"
    assert _seen(a, "cause_offload").params["weights_gb"] == pytest.approx(140)


def test_a_serving_engine_is_not_told_of_a_transformers_fp32_load(kb):
    a = ask(kb, "TensorRT-LLM mistral 7b on L4 only 8 tokens/s single stream, is this normal??")
    codes = _codes(a)
    assert a.headline.code == "observed_speed"
    assert "cause_fp32" not in codes and "cause_engine_settings" in codes


@pytest.mark.parametrize("text", ["ollama running llama 3 70b q4 on a single RTX 3090 gets 2 tok/s, is that expected?",
                                  "一张 3090 跑 llama 3 70b int4 只有 2 token/s 正常吗"])
def test_a_speed_seen_on_a_setup_that_cannot_hold_the_model_is_offloading(kb, text):
    # Llama 3 70B int4: 39.8 GB of weights + KV + overhead = 42.0 GB > one 3090's 25.5 GB usable (24 GiB x 0.99):
    # about 16.5 GB of layers (more at a longer default context) live in CPU RAM
    a = ask(kb, text)
    assert a.headline.code == "observed_offload"
    p = a.headline.params
    assert p["spill_gb"] == pytest.approx(p["need_gb"] - p["memory_gb"]) and 15 < p["spill_gb"] < 20
