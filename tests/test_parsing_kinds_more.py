"""More kinds of parser and answer misses, each through the real parse + advise path with questions written
for this test: unusable quantities said first, a user count beyond the in-flight bound kept, closed models
answered with open-weight alternatives, counts and durations read in French, German and Spanish, GPUs listed
with a slash, sizes slashed after a family or said before it, and Chinese parameter-count scales.

Durations are hours (a day is 24 h, a week 168 h); model and GPU ids come from ``knowledge/models.yaml`` and
``knowledge/gpus.yaml``.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _codes(notes) -> list[str]:
    return [n.code for n in notes]


# --------------------------------------------------------------------------- 1. unusable quantities, said first

@pytest.mark.parametrize(("text", "written"), [
    ("rent 8x H100 for -3 days", "-3 days"),
    ("rent 8x H100 for 0 hours", "0 hours"),
    ("serve llama 3 70b on 0 H100s", "0 H100s"),
    ("-2 A100 for llama 3 70b", "-2 A100"),
    ("serve llama 3 8b to -5 users", "-5 users"),
])
def test_a_zero_or_negative_quantity_is_reported_first(kb, text, written):
    a = ask(kb, text)
    assert a.headline.code == "quantity_unusable"
    assert a.headline.params["written"] == written
    assert a.query.duration_hours is None
    assert all(g.count is None or g.count > 0 for g in a.query.gpus)
    assert a.query.concurrent_users is None
    # reported once, as unusable, never also as "not understood"
    assert "not_understood" not in _codes(a.warnings)


def test_rent_with_an_unusable_duration_is_still_a_quote(kb):
    a = ask(kb, "rent 8x H100 for -3 days")
    assert a.query.intent == "quote"
    assert a.query.gpus[0].count == 8
    # priced per hour instead (knowledge/policy.yaml quote.default_hours: 1), after the sentence that says why
    assert a.details[0].params.get("hours") == 1


def test_an_unusable_count_before_a_gpu_leaves_it_uncounted(kb):
    assert parse_question("serve llama 3 70b on 0 H100s", kb).gpus[0].count is None
    assert parse_question("-2 A100 for llama 3 70b", kb).gpus[0].count is None


def test_rent_names_a_rental_without_a_duration(kb):
    assert parse_question("rent 8x H100", kb).intent == "quote"
    assert parse_question("租 8 张 H100 三天", kb).duration_hours == 72  # 3 x 24 h


# --------------------------------------------------------------------------- 2. a user count beyond the bound

@pytest.mark.parametrize("text", ["serve Llama 3 70B to 10 million users lol",
                                  "llama 3 8b for 5 million concurrent users on H100"])
def test_a_user_count_beyond_the_bound_is_computed_not_dropped(kb, text):
    a = ask(kb, text)
    q = a.query
    assert q.users_over_limit in (10_000_000, 5_000_000)
    assert a.headline.code == "quantity_over_limit"
    scale = next(n for n in a.details if n.code == "users_over_limit_scale")
    o = a.options[a.recommendation if a.recommendation is not None else 0]
    # copies of the recommended configuration that hold every user at once: users / its capacity, rounded up
    assert scale.params["copies"] == math.ceil(q.users_over_limit / o.max_users)
    assert scale.params["gpus"] == scale.params["copies"] * o.gpu_count
    assert "2,000 concurrent at peak" in render_text(a)


# --------------------------------------------------------------------------- 3. closed models

@pytest.mark.parametrize(("text", "alternatives"), [
    # knowledge/models.yaml closed: GPT-4 / Claude / Gemini offer the largest open models; the small tier
    # (mini, haiku, flash) the 8B-20B ones
    ("can I run gpt-4 on 2 h100s", ["llama-3.1-405b", "deepseek-v3", "qwen2.5-72b"]),
    ("claude 3.5 sonnet on 8x H100", ["llama-3.1-405b", "deepseek-v3", "qwen2.5-72b"]),
    ("how many H100 to self-host gpt-4o mini for 100 users", ["llama-3.1-8b", "qwen3-8b", "gpt-oss-20b"]),
    ("部署 claude 3 opus 需要几张 H100", ["llama-3.1-405b", "deepseek-v3", "qwen2.5-72b"]),
    ("gemini 2.5 flash on one L4?", ["llama-3.1-8b", "qwen3-8b", "gpt-oss-20b"]),
])
def test_a_closed_model_says_so_and_sizes_open_alternatives(kb, text, alternatives):
    a = ask(kb, text)
    assert a.headline.code == "closed_model"
    assert [m.id for m in a.query.models] == alternatives
    assert all(m.alternative_to for m in a.query.models)
    assert a.query.intent == "size_inference"
    # the version and tier are part of the name: nothing of it is left over or read as a size
    assert a.query.not_understood == []
    assert all(not m.generic for m in a.query.models)
    assert "ask_model" not in _codes([a.headline, *a.details])


def test_a_closed_model_beside_an_open_one_offers_no_alternatives(kb):
    a = ask(kb, "gemini 1.5 pro vs llama 3 70b on A100")
    assert [m.id for m in a.query.models] == ["llama-3-70b"]
    assert a.headline.code != "closed_model"
    assert "closed_model_beside" in _codes(a.warnings)


@pytest.mark.parametrize("text", ["build a chatgpt-like bot with llama 3 8b for 100 users",
                                  "we want gpt-4 level quality, would qwen2.5 72b on 4 h100 do?"])
def test_a_closed_name_as_a_point_of_comparison_is_not_the_model(kb, text):
    q = parse_question(text, kb)
    assert not {"closed_model", "closed_model_beside"} & set(_codes(q.limits))
    assert all(m.alternative_to is None for m in q.models)


def test_gemma_and_gpt_oss_are_open(kb):
    q = parse_question("gemma 2 9b and gpt-oss 20b on a 4090", kb)
    assert [m.id for m in q.models] == ["gemma-2-9b", "gpt-oss-20b"]
    assert "closed_model" not in _codes(q.limits)


# --------------------------------------------------------------------------- 4. French, German, Spanish numbers

@pytest.mark.parametrize(("text", "field", "value"), [
    ("serve Llama 3 8B pour 50 utilisateurs", "concurrent_users", 50),
    ("Llama 3 8B für 50 Nutzer", "concurrent_users", 50),
    ("Wie viele H100 brauche ich für Llama 3 70B mit 100 Nutzern?", "concurrent_users", 100),
    ("Llama 3 8B para 50 usuarios", "concurrent_users", 50),
    ("louer 8x H100 pendant 3 jours", "duration_hours", 72),  # 3 x 24 h
    ("8 H100 für 2 Wochen mieten", "duration_hours", 336),  # 2 x 168 h
    ("alquilar 4 A100 durante 10 días", "duration_hours", 240),  # 10 x 24 h
])
def test_numbers_in_other_languages_are_read_and_the_answer_says_english(kb, text, field, value):
    a = ask(kb, text)
    assert getattr(a.query, field) == value
    assert a.query.language == "other"
    assert _codes(a.warnings).count("answer_in_english") == 1
    assert a.query.not_understood == []


def test_rentals_in_other_languages_are_quotes_with_their_count(kb):
    q = parse_question("louer 8x H100 pendant 3 jours", kb)
    assert (q.intent, q.gpus[0].id, q.gpus[0].count) == ("quote", "h100-sxm-80gb", 8)
    q = parse_question("alquilar 4 A100 durante 10 días", kb)
    assert (q.intent, q.gpus[0].count) == ("quote", 4)


def test_an_english_question_stays_english(kb):
    q = parse_question("serve llama 3 8b for 50 users, what does it cost per month?", kb)
    assert q.language == "en"


# --------------------------------------------------------------------------- 6. slashes, sizes, scales

def test_gpus_listed_with_a_slash_are_the_options_of_the_workload(kb):
    a = ask(kb, "fine-tune llama 3 8b with lora on RTX 3090 / 4090")
    assert a.query.intent == "finetune"
    assert {o.gpu for o in a.options} >= {"rtx-3090-24gb", "rtx-4090-24gb"}
    q = parse_question("serve qwen2.5 7b on a 3090/4090 for 10 users", kb)
    assert q.intent == "size_inference"
    assert [g.id for g in q.gpus] == ["rtx-3090-24gb", "rtx-4090-24gb"]


def test_gpus_slashed_with_a_comparison_asked_or_no_workload_compare(kb):
    assert parse_question("3090 / 4090 for llama 3 8b", kb).intent == "compare"
    assert parse_question("which is faster for llama 3 8b, 3090 / 4090?", kb).intent == "compare"


@pytest.mark.parametrize(("text", "models"), [
    ("llama 3 8/70b on H100", ["llama-3-8b", "llama-3-70b"]),
    ("qwen2.5 7/14/32b on a 4090", ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b"]),
    ("the 120b model of gpt-oss on H100", ["gpt-oss-120b"]),
    ("serve the 70b version of llama 3.1 on H100", ["llama-3.1-70b"]),
    ("run the 8b variant of llama 3 on a 3090", ["llama-3-8b"]),
])
def test_sizes_slashed_or_said_before_the_family(kb, text, models):
    assert [m.id for m in parse_question(text, kb).models] == models


def test_llama_glued_to_slashed_sizes_gives_each_size():
    from bot.parsing.text import prepare_text

    assert "llama 7b/13b/70b" in prepare_text("llama7/13/70b finetune").low
    assert "h100/200b" in prepare_text("h100/200b").low  # a number glued to a short name stays in it


def test_chinese_parameter_scales_come_from_the_lexicon_multipliers(kb):
    # 万亿 = 万 (10^4) x 亿 (10^8) = 10^12: 1.8 x 10^12 parameters = 1,800B
    q = parse_question("1.8 万亿参数的模型要多少显存", kb)
    assert q.models[0].params_total_b == pytest.approx(1800.0)
    q = parse_question("70亿参数的模型要几张4090", kb)
    assert q.models[0].params_total_b == pytest.approx(7.0)


@pytest.mark.parametrize(("text", "gpu", "count", "figure"), [
    ("910b280T 跑 qwen2.5 72b", "ascend-910b3-64gb", None, "280T"),
    ("8卡910b280T", "ascend-910b3-64gb", 8, "280T"),
])
def test_a_card_name_glued_to_a_figure_is_the_card_and_the_figure_is_said(kb, text, gpu, count, figure):
    q = parse_question(text, kb)
    assert [(g.id, g.count) for g in q.gpus] == [(gpu, count)]
    assert figure in q.not_understood


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("h100x8 for llama 3 70b", "h100-sxm-80gb", 8),  # a glued count stays a count
    ("a10080g for llama 3 70b", "a100-sxm-80gb", None),  # a glued memory size stays the variant's
])
def test_glued_counts_and_memory_stay_whole(kb, text, gpu, count):
    q = parse_question(text, kb)
    assert [(g.id, g.count) for g in q.gpus] == [(gpu, count)]
    assert q.not_understood == []


@pytest.mark.parametrize(("text", "size_b", "tokens"), [
    ("pretraining a 124M parameter GPT on 5B tokens with one A100", 0.124, 5e9),
    ("how long for a 350M model on 20B tokens on 8 H100", 0.35, 20e9),
    ("train a 760M-param model from scratch over 15B tokens", 0.76, 15e9),
])
def test_sizes_in_millions_with_a_model_word_are_model_sizes(kb, text, size_b, tokens):
    q = parse_question(text, kb)
    assert [(m.id, m.params_total_b) for m in q.models] == [(None, size_b)]
    assert q.training_tokens == tokens
    assert q.not_understood == []


def test_millions_without_a_model_word_stay_token_counts(kb):
    q = parse_question("lora qwen2.5 7b on 80M tokens on an L40S", kb)
    assert [m.id for m in q.models] == ["qwen2.5-7b"]
    assert q.training_tokens == 80e6


@pytest.mark.parametrize(("text", "field", "value"), [
    ("serve mistral 7b to 25 000 users", "concurrent_users", 25_000),
    ("lora llama 3 8b on 2 500 000 tokens", "training_tokens", 2_500_000),
    ("summarise 40\u202f000 documents with qwen2.5 7b", "documents", 40_000),  # a narrow no-break space
])
def test_thousands_grouped_with_spaces(kb, text, field, value):
    q = parse_question(text, kb)
    assert getattr(q, field) == value
    assert q.not_understood == []


def test_a_count_before_a_memory_size_is_not_grouped(kb):
    q = parse_question("8 100GB cards for llama 3 405b", kb)
    assert [g.count for g in q.gpus] == [8]


@pytest.mark.parametrize(("text", "model"), [
    ("transcribing with whisperx large-v2 on a single T4, how fast", "whisper-large-v2"),
    ("faster-whisper large-v3 on an L4: hours of audio per hour?", "whisper-large-v3"),
])
def test_runtimes_named_after_a_model_family_name_it(kb, text, model):
    # knowledge/models.yaml: WhisperX and faster-whisper are aliases of the whisper family
    assert [m.id for m in parse_question(text, kb).models] == [model]


def test_millions_followed_by_params_are_a_model_size(kb):
    q = parse_question("it's only a 85M params transformer, would a 3060 train it?", kb)
    assert [(m.id, m.params_total_b) for m in q.models] == [(None, 0.085)]


@pytest.mark.parametrize(("text", "expected"), [
    ("能不能在 4*(A800 80G) 上全参数微调 qwen2.5 14b", [("a800-sxm-80gb", 4)]),
    ("2x (L40S 48GB) enough for llama 3 70b in fp8?", [("l40s-48gb", 2)]),
])
def test_a_count_before_a_parenthesised_gpu_is_its_count(kb, text, expected):
    q = parse_question(text, kb)
    assert [(g.id, g.count) for g in q.gpus] == expected
    assert q.not_understood == []


@pytest.mark.parametrize("text", ["全参数微调 llama 3 8b 要几张 A100", "一个 70 亿参数的模型推理要多少显存"])
def test_words_holding_the_spec_word_ask_no_spec(kb, text):
    q = parse_question(text, kb)
    assert "spec" not in q.asks
    assert q.intent != "spec_lookup"


def test_trainable_is_a_training_word(kb):
    q = parse_question("is a 350M model trainable on 2x 3090 in under a day?", kb)
    assert q.workload == "training" and q.intent == "size_training"


def test_settings_said_before_a_pasted_error_on_the_same_line_are_kept(kb):
    q = parse_question("qlora on qwen2.5 14b with an L4, seq len 8192, micro batch 4: torch.OutOfMemoryError: CUDA out "
                       "of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.05 GiB", kb)
    assert (q.batch_size, q.context_tokens) == (4, 8192)
    assert q.diagnosis is not None and q.diagnosis.kind == "oom"


def test_a_load_with_no_dtype_is_a_float32_load(kb):
    from bot.advice.advise import advise

    q = parse_question("from_pretrained on qwen2.5 7b without torch_dtype on a T4 gives CUDA out of memory", kb)
    assert "fp32" in q.precisions
    a = advise(q, kb)
    # 7.6e9 params x 4 bytes = 30.5 GB in fp32 > a T4's 16 GB; x 2 bytes = 15.2 GB in fp16 (knowledge/models.yaml)
    assert a.headline.code == "oom_half_precision"


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("昇腾 910B 8 卡能不能跑 deepseek v3", "ascend-910b3-64gb", 8),  # the number with its counter is the count
    ("910B4 两张跑 qwen2.5 14b", "ascend-910b4-32gb", 2),  # the variant written whole stays the variant
])
def test_a_number_with_a_counter_after_a_name_is_a_count_not_a_variant_digit(kb, text, gpu, count):
    q = parse_question(text, kb)
    assert [(g.id, g.count) for g in q.gpus] == [(gpu, count)]


@pytest.mark.parametrize("text", [
    "买 2 张 4090 放办公室 vs 在 AutoDL 上租，每天用 10 小时，哪个划算",
    "is it cheaper to buy four 3090s or rent them on vast, running 8 hours a day?",
])
def test_buying_and_renting_compared_is_buy_vs_rent(kb, text):
    q = parse_question(text, kb)
    assert "break_even" in q.asks


def test_what_should_i_do_after_an_error_asks_for_no_recommendation(kb):
    q = parse_question("mistral 7b fp32 on a T4 gives CUDA out of memory, what should I do?", kb)
    assert "best" not in q.asks and q.intent != "recommend"


@pytest.mark.parametrize(("text", "context"), [
    ("serve llama 3.1 8b to 40 users, and if the context goes to 16k?", 16384),
    ("what happens when context grows to 64k for qwen2.5 7b on an L40S", 65536),
])
def test_a_quantity_said_to_change_to_a_value(kb, text, context):
    q = parse_question(text, kb)
    assert q.context_tokens == context and q.not_understood == []


@pytest.mark.parametrize(("text", "periods"), [
    ("A100 按天租多少钱，租 5 天一共多少", [24.0, 120.0]),
    ("what's the weekly price of 8x H100, and for 6 weeks?", [168.0, 1008.0]),
])
def test_a_period_named_and_a_length_said_are_both_asked(kb, text, periods):
    q = parse_question(text, kb)
    assert q.periods_hours == periods and q.duration_hours == periods[-1]
