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
