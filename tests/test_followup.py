"""Follow-ups replace what the new turn names and keep the rest (bot/advice/followup.py)."""

from __future__ import annotations

from bot.advice.conversation import respond_to


def _chat(kb, *messages):
    previous, turns = None, []
    for m in messages:
        turn = respond_to(m, previous, kb=kb)
        previous = turn.query
        turns.append(turn)
    return turns


def test_a_count_stays_with_its_gpu(kb):
    # "8x A100 ... for a week" then "and h100?": 8x H100 for 168 h, not 1x
    turns = _chat(kb, "8x a100 on runpod for a week", "and h100?")
    q = turns[-1].query
    assert [(g.id, g.count) for g in q.gpus] == [("h100-sxm-80gb", 8)]
    assert q.duration_hours == 168 and q.intent == "quote"


def test_a_new_setting_replaces_only_itself(kb):
    turns = _chat(kb, "serve llama 3 70b to 100 users at 8k ctx", "what about int4?")
    q = turns[-1].query
    assert q.precisions == ["int4"] and q.concurrent_users == 100 and q.context_tokens == 8192
    assert [m.id for m in q.models] == ["llama-3-70b"]


def test_chinese_users_follow_up(kb):
    turns = _chat(kb, "4张4090跑qwen2.5 72b int4够吗", "那 50 个用户呢？")
    q = turns[-1].query
    assert q.concurrent_users == 50 and [g.count for g in q.gpus] == [4] and q.precisions == ["int4"]


def test_a_price_question_prices_the_recommendation(kb):
    turns = _chat(kb, "serve qwen2.5 7b to 20 users", "how much for a month?")
    rec = turns[0].answer.options[turns[0].answer.recommendation]
    q = turns[-1].query
    assert q.intent == "quote" and q.duration_hours == 730
    assert [(g.id, g.count) for g in q.gpus] == [(rec.gpu, rec.gpu_count)]


def test_spot_follow_up_keeps_the_gpus(kb):
    turns = _chat(kb, "8x a100 on runpod for a week", "what about spot?")
    q = turns[-1].query
    assert q.pricing == ["spot"] and [(g.id, g.count) for g in q.gpus] == [("a100-sxm-80gb", 8)]


def test_a_new_question_is_not_a_follow_up(kb):
    turns = _chat(kb, "8x h100 for 3 days", "serve mistral 7b on an l4")
    q = turns[-1].query
    assert [g.id for g in q.gpus] == ["l4-24gb"] and q.duration_hours is None


def test_a_new_count_for_the_conversations_gpu(kb):
    # 6ND at a fixed global batch: doubling the GPUs halves the wall clock and keeps the GPU-hours.
    turns = _chat(kb, "how long to pretrain a 3b model on 100B tokens using 16 a100 80gb", "and with 32 of them?",
                  "64?")
    counts = [t.answer.options[t.answer.recommendation].gpu_count for t in turns]
    assert counts == [16, 32, 64]
    hours = [t.answer.options[t.answer.recommendation].wall_clock_hours for t in turns]
    assert hours[1] < hours[0] and hours[2] < hours[1]
