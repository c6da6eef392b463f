"""Follow-ups replace what the new turn names and keep the rest (bot/advice/followup.py)."""

from __future__ import annotations

import pytest

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
    # the served model stays: its cost for the month on the configuration recommended leads (price x 730 h)
    assert q.intent == "size_inference" and "cost" in q.asks and q.duration_hours == 730
    assert [(g.id, g.count) for g in q.gpus] == [(rec.gpu, rec.gpu_count)]
    a = turns[-1].answer
    assert a.headline.code == "cost_for_duration"
    o = a.options[a.recommendation]
    assert a.headline.params["total_usd"] == pytest.approx(o.price.price_per_hour_usd * 730, rel=1e-6)


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


def test_a_new_gpu_with_a_price_keeps_the_served_model_and_load(kb):
    # turn 2 switches GPU and asks a month's price: the same model and users are re-sized on the new GPU and the
    # month priced (or its missing price said, with the card count). Qwen2.5 72B int8 = 72.7 GB of weights +
    # 50 users' KV cache 67.1 GB + 4.9 GB overhead = 144.7 GB: over one 80 GB card's 85 GB usable, so 2 cards.
    turns = _chat(kb, "用 H100 部署 Qwen2.5 72B，50 个并发用户，要几张卡", "换成 A800 呢，要包月多少钱")
    q, a = turns[-1].query, turns[-1].answer
    assert q.intent == "size_inference" and [m.id for m in q.models] == ["qwen2.5-72b"]
    assert q.concurrent_users == 50 and [g.id for g in q.gpus] == ["a800-sxm-80gb"] and q.duration_hours == 730
    rec = a.options[a.recommendation]
    assert (rec.gpu, rec.gpu_count) == ("a800-sxm-80gb", 2)
    # no provider in knowledge/prices lists the A800: the month at the secondary-source figure every answer uses
    # leads, labelled as such: AutoDL ¥4.98 per card-hour (price_mentions.yaml) x 2 cards x 730 h = ¥7,270.80
    assert a.headline.code == "mention_cost" and a.headline.params["config"]["gpu_count"] == 2
    assert a.headline.params["total"]["amount"] == pytest.approx(4.98 * 2 * 730)


def test_a_new_gpu_with_a_price_in_english(kb):
    turns = _chat(kb, "serve Qwen2.5 72B on H100s for 50 concurrent users, how many GPUs?",
                  "what about on A100s, and what would a month cost?")
    q, a = turns[-1].query, turns[-1].answer
    assert q.intent == "size_inference" and [m.id for m in q.models] == ["qwen2.5-72b"] and q.concurrent_users == 50
    rec = a.options[a.recommendation]
    assert rec.gpu == "a100-sxm-80gb" and rec.gpu_count == 2  # 144.7 GB per replica, as above
    # the month leads: the recommended offer's hourly price x 730 h
    assert a.headline.code == "cost_for_duration"
    assert a.headline.params["total_usd"] == rec.price.price_per_hour_usd * 730


def test_other_phrasings_of_a_new_gpu_with_a_price(kb):
    # 改用 opens a follow-up (lexicon followup.openers); 包年多少 asks a cost (asks.cost) for 8,760 h
    turns = _chat(kb, "Qwen2.5 32B 用 4090 部署，并发 20，要几张", "改用 L20 呢？包年多少")
    q, a = turns[-1].query, turns[-1].answer
    assert q.intent == "size_inference" and [m.id for m in q.models] == ["qwen2.5-32b"] and q.concurrent_users == 20
    assert q.duration_hours == 8760 and "cost" in q.asks
    rec = a.options[a.recommendation]
    # no list price for the L20: the year at AutoDL's ¥3.68 per card-hour (price_mentions.yaml) x cards x 8,760 h
    assert rec.gpu == "l20-48gb" and a.headline.params["config"]["gpu_count"] == rec.gpu_count
    assert a.headline.params["total"]["amount"] == pytest.approx(3.68 * rec.gpu_count * 8760)


def test_a_new_gpu_without_a_price_stays_a_sizing_follow_up(kb):
    turns = _chat(kb, "serve Qwen2.5 72B on H100s for 50 concurrent users, how many GPUs?", "and on A100s?")
    q = turns[-1].query
    assert q.intent == "size_inference" and "cost" not in q.asks and q.concurrent_users == 50


def test_a_short_follow_up_after_chinese_stays_chinese(kb):
    # "int4 呢？" has one Chinese character and "fp8?" no word of its own: both continue the Chinese conversation,
    # while an English sentence switches to English
    answers = _chat(kb, "用 H20 部署 Qwen2.5 72B，50 个并发，要几张卡", "int4 呢？", "fp8?", "what about on H100s?")
    assert [a.query.language for a in answers] == ["zh", "zh", "zh", "en"]


def test_a_price_follow_up_prices_the_recommended_count_of_a_gpu_named_without_one(kb):
    turns = _chat(kb, "serve llama 3.1 70b to 100 users at 4k ctx on h100s", "what about int4?", "how much for a week?")
    rec = turns[1].answer.options[turns[1].answer.recommendation]
    q = turns[-1].query
    assert q.intent == "size_inference" and "cost" in q.asks and q.duration_hours == 168
    assert [(g.id, g.count) for g in q.gpus] == [(rec.gpu, rec.gpu_count)] and rec.gpu_count > 1


def test_a_carried_precision_the_new_gpu_lacks_is_dropped_with_a_note(kb):
    turns = _chat(kb, "serve qwen2.5 32b to 10 users on one H100 in fp8", "how much per month?", "what about an A100?")
    q = turns[-1].query
    assert q.precisions == ["fp8"] and q.precisions_carried
    a = turns[-1].answer
    # the A100 has no FP8 (knowledge/gpus.yaml supported_precisions): it is planned in a format it has, and said
    assert any(n.code == "kept_precision_dropped" for n in a.assumptions)
    o = a.options[a.recommendation]
    assert o.gpu.startswith("a100") and o.precision != "fp8" and o.meets
    # and the month's cost stays the question
    assert "cost" in q.asks and q.duration_hours == 730


def test_a_precision_said_again_on_the_new_gpu_is_kept(kb):
    turns = _chat(kb, "serve qwen2.5 32b to 10 users on one H100 in fp8", "and on an A100 in fp8?")
    q = turns[-1].query
    assert q.precisions == ["fp8"] and not q.precisions_carried  # said in this turn: a constraint, never replaced
