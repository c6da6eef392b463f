"""Parser kinds found by the fifth round of fresh evaluators (issue 12): a format inside a model's released name,
memory units of the lexicon on a card named by its memory, Chinese magnitudes after digits, and a share of the
users said to be in flight at once.

Hand-computed values: 10% of 2,000 users = 200 concurrent; 15% of 4,000 = 600; 5百 = 5 x 100 = 500.
"""

from __future__ import annotations

import pytest

from bot.parsing.parser import parse_question


@pytest.mark.parametrize(("text", "model_id", "precision"), [
    ("how fast is Qwen3 235B-A22B fp8 on 8x H100 for 16 users?", "qwen3-235b-a22b", "fp8"),
    ("serving qwen3-235b-a22b-fp8 with 8 H200", "qwen3-235b-a22b", "fp8"),
    ("Qwen/Qwen3-235B-A22B-FP8 on 4x H200, users at 4k?", "qwen3-235b-a22b", "fp8"),
])
def test_a_format_in_the_released_name_is_the_precision(kb, text, model_id, precision):
    q = parse_question(text, kb)
    assert [m.id for m in q.models] == [model_id]
    assert q.models[0].precision == precision
    assert q.precisions == [precision]


@pytest.mark.parametrize("text", [
    "can my 24 gigs card hold mistral 7b in bf16?",
    "will llama 3 8b run on a 24 gig gpu",
    "qwen2.5 7b on my 24 GB of VRAM?",
])
def test_a_card_named_by_memory_in_any_lexicon_unit(kb, text):
    q = parse_question(text, kb)
    assert len(q.gpus) == 1
    g = q.gpus[0]
    assert g.count == 1 and kb.gpus[g.id].memory_gb == 24


@pytest.mark.parametrize(("text", "users"), [
    ("llama 3 70b，5百并发，要几张 H100", 500),
    ("qwen2.5 32b 给 3百个用户同时用，A100 要几张", 300),
])
def test_a_digit_then_a_chinese_magnitude(kb, text, users):
    q = parse_question(text, kb)
    assert q.concurrent_users == users
    assert not q.not_understood


@pytest.mark.parametrize(("text", "users"), [
    ("our 2,000 staff will use it, roughly 10% at the same time: llama 3 8b on L40S, how many?", 200),
    ("4000 users, 15% concurrently, mistral 7b on A10G", 600),
    ("内部 2000 个用户，大约 10% 同时在线，qwen2.5 14b 用 4090 要几张", 200),
])
def test_a_share_of_the_users_at_once_sets_the_concurrency(kb, text, users):
    q = parse_question(text, kb)
    assert q.concurrent_users == users
    assert not q.percents
    assert any(n.code == "concurrent_share" for n in q.notes)


@pytest.mark.parametrize(("text", "hours"), [
    ("rent 4x A100 on runpod for a weekend, cost?", 48),  # Saturday and Sunday: 2 x 24 h
    ("周末租 4 张 4090 多少钱", 48),
])
def test_a_weekend_is_two_days(kb, text, hours):
    q = parse_question(text, kb)
    assert q.duration_hours == hours


def test_a_figure_in_a_sentence_without_a_truth_cue_is_no_spec_check(kb):
    # "claims" belongs to the first sentence; the second asks which variant was used (a choice), not whether a
    # datasheet figure is true
    q = parse_question("The blog claims they trained for 3 days on 16 V100. How long would that take on 16 A100? "
                       "And did they use a 16GB V100 or 32 GB?", kb)
    assert not q.spec_checks
    q = parse_question("is the L40S really 48 GB?", kb)
    assert [c.spec for c in q.spec_checks] == ["memory_gb"]


@pytest.mark.parametrize(("text", "users"), [
    # 2% of 20,000 = 400; the share's clause reaches past "of them on our internal chatbot"
    ("We have 20,000 staff and expect 2% of them on the help bot at once; mistral 7b on A10G, how many?", 400),
    ("注册用户3万，同时在线比例5%，qwen2.5 7b 用 L20 要几张", 1500),  # 30,000 x 5% = 1,500
    ("our tool has 5k MAU, 4% active at the same time, llama 3.1 8b on L4s?", 200),  # 5,000 x 4% = 200
])
def test_a_share_of_a_user_base_in_its_clause(kb, text, users):
    q = parse_question(text, kb)
    assert q.concurrent_users == users
    assert not q.not_understood


def test_monthly_users_alone_are_no_concurrency(kb):
    from datetime import date

    from bot.advice.advise import advise
    q = parse_question("a 4k MAU app on llama 3.1 8b, how many A10G?", kb)
    assert q.monthly_active_users == 4000 and q.concurrent_users is None
    a = advise(q, kb, today=date(2026, 12, 1))
    assert any(w.code == "monthly_users_no_concurrency" for w in a.warnings)


def test_wan_yi_is_ten_to_the_twelfth(kb):
    q = parse_question("从头预训练一个 3B 模型，2万亿 token，128 张 H800 要多少天", kb)
    assert q.training_tokens == 2e12  # 2 x 万亿 (10^4 x 10^8)


def test_lexicon_phrases_with_chinese_numerals_match_digit_forms(kb):
    # questions are read with their numerals in digits ("每百万token" -> "每 1000000 token"): the lexicon's phrase
    # must still be found, and never as a count of training tokens
    q = parse_question("火山引擎和阿里云跑 llama 3 70b，哪家每百万token最便宜", kb)
    assert "token_cost" in q.asks and q.training_tokens is None


@pytest.mark.parametrize("text", [
    "笔记本4060 8G显存能跑Llama 3 8B吗？",
    "laptop 3070 8GB: can it run llama 3 8b?",
])
def test_a_product_number_before_a_memory_is_one_card_not_a_count(kb, text):
    # "4060"/"3070" are GPU product numbers (knowledge/gpus.yaml RTX 4060 Ti, RTX 3070): one card of that memory
    q = parse_question(text, kb)
    assert len(q.gpus) == 1 and q.gpus[0].count in (None, 1)  # a name without a count, or one card by its memory
    assert kb.gpus[q.gpus[0].id].memory_gb == 8


def test_a_plain_count_before_a_memory_stays_a_count(kb):
    q = parse_question("1024 16gb gpus for a training run", kb)
    assert q.gpus[0].count == 1024


def test_tokens_each_of_users_are_their_context(kb):
    # "N users, 8k tokens each": each user's tokens are the context held for them (8k = 8,000 as written per item)
    q = parse_question("mistral 7b for 90 users, 6k tokens each, on L40S", kb)
    assert q.concurrent_users == 90 and q.context_tokens == 6000 and q.tokens_per_item is None
    q = parse_question("summarize 20k documents of 1k tokens each with mistral 7b on an L4", kb)
    assert q.documents == 20000 and q.tokens_per_item == 1000 and q.context_tokens is None


@pytest.mark.parametrize("text", [
    "largest model I can serve under $2/hour at 16k context",
    "what can I run for under $1.50 an hour",
    "biggest llm we could host below $10/h with 32k context",
])
def test_a_budget_after_a_workload_verb_is_not_a_model_name(kb, text):
    q = parse_question(text, kb)
    assert not [u for u in q.unknown_terms if u.kind == "model"]
    assert q.price_limit_per_hour is not None or q.budget is not None


@pytest.mark.parametrize(("text", "model_id"), [
    # the family's largest model as released (DeepSeek V3 and R1 are both 671B; R1 is the newer)
    ("部署 DeepSeek 满血版要几张 H20", "deepseek-r1"),
    ("full-size deepseek on h200s, how many", "deepseek-r1"),
    ("qwen3 满血版 要几张 H100", "qwen3-235b-a22b"),
])
def test_a_family_in_full_is_its_largest_released_model(kb, text, model_id):
    q = parse_question(text, kb)
    assert [m.id for m in q.models] == [model_id]
    assert "full_model_assumed" in {n.code for n in q.notes}


def test_a_format_the_gpu_lacks_is_said_in_its_row(kb):
    from datetime import date

    from bot.advice.advise import advise
    a = advise(parse_question("910B 能跑 fp8 吗？DeepSeek 满血版在 910B 上只能 int8 吗", kb), kb,
               today=date(2026, 12, 1))
    rows = {r["config"]["precision"]: r for r in a.headline.params["rows"]}
    assert rows["fp8"]["reason"].code == "reject_precision" and rows["fp8"]["mem_gb"] is None
    assert rows["int8"]["meets"]


@pytest.mark.parametrize(("text", "count"), [
    ("H20 十张 租 半个月 多少钱", 10),
    ("A800 八张 包月多少钱", 8),
])
def test_a_chinese_numeral_count_after_a_name_ending_in_digits(kb, text, count):
    q = parse_question(text, kb)
    assert [g.count for g in q.gpus] == [count]


def test_a_scale_after_a_number_is_still_its_scale(kb):
    q = parse_question("预算 10 万元，租 H100 能用多久", kb)
    assert q.budget.amount == 100_000


@pytest.mark.parametrize(("text", "name"), [
    ("InternVL2 8B on an A10, does it fit?", "InternVL2 8B"),
    ("Yi-1.5 34B on a6000", "Yi-1.5 34B"),
])
def test_a_name_the_knowledge_base_lacks_written_before_a_size_is_reported(kb, text, name):
    q = parse_question(text, kb)
    assert [(m.as_written, m.name_unknown) for m in q.models] == [(name, True)]
    assert name in [u.as_written for u in q.unknown_terms]


@pytest.mark.parametrize("text", ["fp16 7b model on a 4090", "AWQ 32B on a 4090", "H100 70B fp8",
                                  "my 7b model on a 4090", "GPTQ-int4 14b on t4"])
def test_a_format_gpu_or_plain_word_before_a_size_is_no_name(kb, text):
    q = parse_question(text, kb)
    assert [m.name_unknown for m in q.models] == [False]
