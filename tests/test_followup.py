"""Follow-ups: a new message merged into the previous question, as in a DM or thread."""

from __future__ import annotations

from bot.advice.conversation import respond_to
from bot.advice.followup import is_follow_up, merge_follow_up
from bot.parsing.parser import parse_question


def test_what_about_int4_keeps_model_users_and_context(kb):
    first = respond_to("serve Llama 3 70B to 200 users at 8k context", kb=kb)
    second = respond_to("what about int4?", first.query, kb=kb)
    q = second.query
    assert (q.model.id, q.precision, q.concurrent_users, q.context_tokens) == ("llama-3-70b", "int4", 200, 8192)
    assert q.intent == "size_inference"
    assert all(o.precision == "int4" for o in second.answer.options)


def test_and_on_another_gpu_replaces_the_gpus(kb):
    first = respond_to("H100 vs A100 for Llama 2 70B", kb=kb)
    second = respond_to("and on L40S?", first.query, kb=kb)
    assert [g.id for g in second.query.gpus] == ["l40s-48gb"]
    assert second.query.model.id == "llama-2-70b"


def test_with_8k_context(kb):
    first = respond_to("serve llama 2 13b on a 4090", kb=kb)
    second = respond_to("with 8k context", first.query, kb=kb)
    assert second.query.context_tokens == 8192
    assert second.query.model.id == "llama-2-13b"
    assert [g.id for g in second.query.gpus] == ["rtx-4090-24gb"]


def test_for_three_days_turns_into_a_quote(kb):
    first = respond_to("8x H100 price", kb=kb)
    second = respond_to("for 3 days?", first.query, kb=kb)
    assert second.query.duration_hours == 72
    assert second.query.intent == "quote"
    assert second.answer.options[second.answer.recommendation].total_cost_usd == \
        72 * second.answer.options[second.answer.recommendation].price_per_hour_usd


def test_a_new_question_is_not_merged(kb):
    previous = parse_question("serve Llama 3 70B to 200 users at 8k context", kb)
    new = parse_question("H100 vs A100 for Mistral 7B", kb)
    assert not is_follow_up(new, previous)


def test_merge_is_pure(kb):
    previous = parse_question("serve Llama 3 70B to 200 users", kb)
    new = parse_question("what about fp8?", kb)
    merged = merge_follow_up(previous, new)
    assert previous.precision is None and merged.precision == "fp8"
    assert merged.notes[0].startswith("Follow-up to:")


def test_no_follow_up_after_help(kb):
    previous = parse_question("help", kb)
    new = parse_question("what about int4?", kb)
    assert not is_follow_up(new, previous)


def test_chinese_quote_with_chinese_duration_and_summary(kb):
    turn = respond_to("8张H100 三天多少钱", kb=kb)
    q = turn.query
    assert (q.intent, q.gpus[0].count, q.duration_hours) == ("quote", 8, 72)  # 三天 = 3 days = 72 h
    assert turn.answer.details[0].startswith("推荐：")
    assert "总计约 $2,298" in turn.answer.details[0]  # one 8x H100 node: 8 x $3.99 x 72 h = $2,298.24


def test_chinese_question_missing_model_is_asked_in_chinese(kb):
    answer = respond_to("部署到200个用户", kb=kb).answer
    assert answer.verdict.startswith("请问是哪个模型")
