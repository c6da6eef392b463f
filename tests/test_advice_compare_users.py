"""Two GPU variants compared for users: the first line compares users served (or GPUs needed), not one user's speed.

Hand arithmetic for Llama 3 8B in fp16 on one A100 (knowledge/models.yaml, gpus.yaml, efficiency.yaml, engines.yaml):
weights 8.0305e9 x 2 B = 16.06 GB; KV cache 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B per token, x 4,096
tokens of default context = 0.537 GB per user; vLLM reserves 0.9 of usable memory; usable = marketed GiB x 0.99;
runtime overhead 1.854 GB (CUDA context and activation workspace, the estimator's memory model).
80GB: (0.9 x 80 x 2^30 x 0.99 / 1e9 - 16.06 - 1.854) / 0.537 = 109.2 -> 109 users at 10 tokens/s each.
40GB: (0.9 x 40 x 2^30 x 0.99 / 1e9 - 16.06 - 1.854) / 0.537 = 37.9 -> about 38 users.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)
KV_PER_USER_GB = 2 * 32 * 8 * 128 * 2 * 4096 / 1e9
WEIGHTS_GB = 8.030261248e9 * 2 / 1e9
OVERHEAD_GB = 1.854


def users_on(memory_gb: int) -> float:
    return (0.9 * memory_gb * 2**30 * 0.99 / 1e9 - WEIGHTS_GB - OVERHEAD_GB) / KV_PER_USER_GB


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def by_memory(items, gb):
    return next(i for i in items if f"{gb}GB" in i["config"]["gpu_name"])


@pytest.mark.parametrize("text", [
    "how many users can an A100 40GB vs an A100 80GB serve with llama 3 8b",
    "A100 40GB or A100 80GB: max concurrent users for llama 3 8b?",
    "one a100 40gb vs one a100 80gb, how many users can each handle on llama 3 8b",
])
def test_users_each_variant_serves_lead(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "compare_users"
    items = a.headline.params["items"]
    big, small = by_memory(items, 80), by_memory(items, 40)
    assert big["config"]["gpu_count"] == small["config"]["gpu_count"] == 1
    assert big["max_users"] == math.floor(users_on(80))  # 109
    assert small["max_users"] == pytest.approx(users_on(40), abs=1)  # 37.9
    assert a.headline.params["ratio_x"] == pytest.approx(big["max_users"] / small["max_users"])
    assert a.headline.params["more"]["gpu_name"] == "A100 SXM4 80GB"
    # single-user speed is still said, below
    assert any(d.code == "compare_decode" for d in a.details)
    assert compose(a).headline.startswith("How many users each serves with Llama 3 8B at 10.0 tokens/s")


def test_a_load_beyond_one_card_says_what_each_would_need(kb):
    # 200 users: one 80GB card serves 109, so 2 are needed (2 x 109 >= 200); one 40GB card serves about 38
    a = ask(kb, "for 200 users on llama 3 8b, is the 80GB A100 better than the 40GB one?")
    assert a.headline.code == "compare_users"
    big, small = (by_memory(a.headline.params["items"], g) for g in (80, 40))
    assert big["short"] and small["short"]
    assert big["needed"]["gpu_count"] == 2
    assert small["needed"]["gpu_count"] > 2
    # the "does not fit at 200 users" rows of one card do not contradict the line above
    assert not any(d.code == "compare_does_not_fit" for d in a.details)
    assert "fits on ;" not in " ".join([compose(a).headline, *compose(a).details])


def test_fixed_counts_with_a_load_say_which_count_carries_it(kb):
    # two 80GB cards hold one copy each (replicas): about 2 x 109 users, over 150; two 40GB cards about 2 x 38, under
    a = ask(kb, "2x A100 40GB vs 2x A100 80GB for 150 users of llama 3 8b")
    big, small = (by_memory(a.headline.params["items"], g) for g in (80, 40))
    assert big["enough"] and big["max_users"] >= 150
    assert small["short"] and small["max_users"] < 150


def test_a_load_without_counts_compares_the_gpus_each_needs(kb):
    a = ask(kb, "A100 40GB vs A100 80GB for llama 3 8b with 100 users")
    assert a.headline.code == "compare_load"
    # the 40GB side needs more than one card for 100 users (one serves about 38)
    counts = {i["config"]["gpu_name"]: i["config"]["gpu_count"] for i in a.headline.params["items"]}
    assert counts["A100 SXM4 80GB"] == 1 and counts["A100 SXM4 40GB"] >= 2
    # prefill of 2 cards vs 1 is said of the configurations, not of the card
    prefill = next((d for d in a.details if d.code == "compare_prefill"), None)
    if prefill is not None:
        assert isinstance(prefill.params["fast"], dict)


def test_the_chinese_answer_compares_users_too(kb):
    a = ask(kb, "一张 A100 40G 和一张 A100 80G 跑 llama 3 8b 各能支持多少并发")
    assert a.headline.code == "compare_users"
    assert "各能服务多少用户" in compose(a).headline


@pytest.mark.parametrize("text", ["a100 40 vs 80gb for llama 3 8b, 100 users", "A100 40 vs 80 for 100 users of llama 3 8b",
                                  "A100 40/80GB which for 100 users llama 3 8b",
                                  "compare a100 40 and 80 gb for 100 concurrent users of llama 3 8b"])
def test_two_sizes_sharing_one_unit_are_both_variants(kb, text):
    q = parse_question(text, kb)
    assert {g.id for g in q.gpus} == {"a100-sxm-40gb", "a100-sxm-80gb"}
    assert not q.not_understood
    a = advise(q, kb, today=TODAY)
    assert a.intent == "compare" and a.headline.code == "compare_load"


def test_which_serves_more_users_is_a_users_question(kb):
    a = ask(kb, "which serves more users for llama 3.1 8b: 1 H100 or 2 L40S")
    assert a.headline.code == "compare_users"
    counts = {i["config"]["gpu_name"]: i["config"]["gpu_count"] for i in a.headline.params["items"]}
    assert counts == {"H100 SXM5 80GB": 1, "L40S": 2}
