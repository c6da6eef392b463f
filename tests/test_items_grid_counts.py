"""A grid of models x formats with a count asked ("8B, 70B and 405B in fp16, fp8 and int4: how many H100s
each?"): every model's counts lead, one sentence per model, so the last model of the grid is never pushed out of
the first lines by a row limit; "which is fastest" over several models is a speed ask.

Hand check (knowledge/models.yaml parameters x bytes per weight, one H100 SXM5 80GB with about 76 GB usable
after the engine's reserve): Llama 3.1 405B is 405.9e9 params: fp16 812 GB -> 16 GPUs (8 cannot hold it:
8 x 76 = 608 GB), fp8 406 GB -> 8 GPUs (TP of 4 holds 304 GB), int4 about 230 GB with scales -> 4 GPUs
(4 x 76 = 304 GB). Llama 3 70B fp16 141 GB -> 2 GPUs.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_every_model_of_a_grid_leads_with_its_counts(kb):
    a = advise(parse_question("Llama 3 8B, 70B and 405B in fp16, fp8 and int4: how many H100 each?", kb), kb,
               today=TODAY)
    assert a.headline.code == "items_counts"
    groups = a.headline.params["groups"]
    assert [g["model_name"] for g in groups] == ["Llama 3 8B", "Llama 3 70B", "Llama 3.1 405B"]
    counts = {(g["model_name"], r["precision"]): r["gpu_count"] for g in groups for r in g["rows"]}
    assert counts[("Llama 3.1 405B", "fp16")] == 16
    assert counts[("Llama 3.1 405B", "fp8")] == 8
    assert counts[("Llama 3.1 405B", "int4")] == 4
    assert counts[("Llama 3 70B", "fp16")] == 2


def test_chinese_grid_counts_lead_and_fastest_follows(kb):
    a = advise(parse_question("qwen2.5 7b、32b、72b 用 fp16 和 int4 各要几张 4090", kb), kb, today=TODAY)
    assert a.headline.code == "items_counts"
    assert len(a.headline.params["groups"]) == 3


@pytest.mark.parametrize("text", [
    "which is fastest on an A100 80GB: mistral 7b, llama 3 8b or qwen2.5 14b",
    "一张 A100 80G 上 mistral 7b、llama 3 8b、qwen2.5 14b 哪个最快",
])
def test_fastest_over_several_models_is_a_speed_question(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "items_fastest"
    # the smallest model reads the fewest weight bytes per token: bandwidth-bound decode is fastest for it
    assert a.headline.params["config"]["model_name"].startswith("Mistral 7B")


@pytest.mark.parametrize("text", [
    "compare qwen2.5 7b, 14b and 32b on a single L40S: tok/s and max users at 8k",
    "一张 L40S 跑 qwen2.5 7b、14b、32b，8k 上下文各能撑多少并发",
])
def test_users_served_is_answered_for_every_model_named(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "users_served_items"
    rows = a.headline.params["rows"]
    assert [r["model_name"] for r in rows] == ["Qwen2.5 7B", "Qwen2.5 14B", "Qwen2.5 32B"]
    users = [r["max_users"] for r in rows]
    # a larger model leaves less memory for the KV cache and reads more bytes per step: fewer users
    assert users[0] > users[1] > users[2] >= 1
    # Qwen2.5 7B KV: 2 x 28 layers x 4 KV heads x 128 x 2 bytes = 57,344 B/token; 8,192 tokens = 0.47 GB per user
    assert a.options[0].kv_cache_gb == pytest.approx(users[0] * 8192 * 57_344 / 1e9, rel=0.02)


def test_grid_counts_are_the_fewest_gpus_not_the_rented_instance(kb):
    # on one L40S (about 47.9 GB usable): Llama 3 8B fp16 16.1 GB, Qwen2.5 14B fp16 29.5 GB, Qwen2.5 32B awq about
    # 19 GB fit one card; Qwen2.5 32B fp16 (65.5 GB) needs 2 — whatever instance size the cheapest offer rents
    a = advise(parse_question("在 L40S 上，llama 3 8b、qwen2.5 14b、qwen2.5 32b 在 fp16 和 awq 下各要几张卡", kb), kb,
               today=TODAY)
    counts = {(g["model_name"], r["precision"]): r["gpu_count"] for g in a.headline.params["groups"] for r in g["rows"]}
    assert counts == {("Llama 3 8B", "fp16"): 1, ("Llama 3 8B", "awq"): 1, ("Qwen2.5 14B", "fp16"): 1,
                      ("Qwen2.5 14B", "awq"): 1, ("Qwen2.5 32B", "fp16"): 2, ("Qwen2.5 32B", "awq"): 1}


def test_users_for_several_models_with_a_user_count_ask_in_few_words(kb):
    a = advise(parse_question("single L40S 48gb, concurrent users at 2k ctx for llama 3 8b vs mistral 7b vs qwen2.5 14b "
                              "int8", kb), kb, today=TODAY)
    assert a.headline.code == "users_served_items" and len(a.headline.params["rows"]) == 3


def test_best_value_between_three_cards_for_one_person(kb):
    a = advise(parse_question("for one person running llama 3 8b, best bang for buck between RTX 4060 Ti 16GB and 3090 "
                              "and 4090?", kb), kb, today=TODAY)
    assert a.query.intent == "compare" and a.query.concurrent_users == 1
    assert a.headline.code == "compare_value"
