"""A user base sized two ways: the floor-based count (every request in flight at the per-user floor for its whole
length, each given the floor) leads, and a labelled fixed-point line sizes the same peak by its tokens (peak
requests/s x output tokens, served by replicas each at the largest batch that still keeps the floor).

Defaults: knowledge/policy.yaml serving.requests_per_daily_user 10, peak_to_average 2.4, per-user floor 10 tokens/s;
knowledge/efficiency.yaml default_output_tokens 256 (Little's law, J. D. C. Little 1961)."""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _fixed_point(answer):
    return next(d for d in answer.details if d.code == "traffic_fixed_point")


def test_a_floor_bound_batch_gives_the_same_count_both_ways(kb):
    a = ask(kb, "10,000 DAU chatting with Qwen2.5 32B, how many L40S")
    # 10,000 x 10 / 86,400 x 2.4 = 2.78 requests/s at peak; x 256 / 10 tokens/s = 71.1 -> 72 sized at the floor (the
    # floor-based figure still leads the answer)
    assert a.headline.code == "serve_users" and a.headline.params["users"] == 72
    sized = a.options[a.recommendation]
    fp = _fixed_point(a)
    p = fp.params
    peak = 10_000 * 10 / 86_400 * 2.4
    assert p["peak_rps"] == pytest.approx(peak) and p["need_tps"] == pytest.approx(peak * 256)  # 711 tokens/s
    # each replica at its largest batch keeping 10 tokens/s: replicas = ceil(711 / its tokens/s)
    assert p["per_user_tps"] >= 10 and p["replicas"] == math.ceil(p["need_tps"] / p["replica_tps"])
    # one replica of 2x L40S (fp8: 32.8 GB of weights over 2 x 47.9 GB) holds 45 users at about 13 tokens/s each,
    # 574 tokens/s < 711: two replicas, the 4x L40S sized at the floor
    assert p["count"] == sized.gpu_count == 4 and p["same"]


def test_a_memory_bound_batch_needs_fewer_gpus_at_the_fixed_point(kb):
    a = ask(kb, "100k DAU on Llama 3.1 70B, how many H100s")
    sized = a.options[a.recommendation]
    p = _fixed_point(a).params
    # 100,000 x 10 / 86,400 x 2.4 = 27.78 requests/s x 256 tokens = 7,111 tokens/s
    assert p["need_tps"] == pytest.approx(100_000 * 10 / 86_400 * 2.4 * 256)
    # the batch is capped by memory, not by the floor: Llama 3.1 70B's KV cache is 80 layers x 8 KV heads x 128 x 2
    # (K, V) x 2 bytes = 327,680 bytes per token, 1.34 GB per 4,096-token user, and a TP-4 replica of 4 x 85 GB
    # keeps 340 - 141 GB of bf16 weights = 199 GB at most for it: at most 148 users, each well above the floor
    assert p["batch_users"] * 4096 * 327_680 / 1e9 <= p["count"] / p["replicas"] * 85 - 141
    assert p["per_user_tps"] > 2 * p["floor_tps"]
    # so requests end sooner and fewer are in flight: the tokens the peak needs take fewer GPUs than the floor sizing
    assert p["replicas"] == math.ceil(p["need_tps"] / p["replica_tps"])
    assert p["count"] < sized.gpu_count and p["fewer"]
    assert p["share_pct"] == pytest.approx(100 * p["count"] / sized.gpu_count)
    # Little's law at that speed: requests in flight fit the replicas' batches
    assert p["in_flight_n"] <= p["replicas"] * p["batch_users"]


def test_the_fixed_point_line_is_said_in_chinese_too(kb):
    a = ask(kb, "日活 5 万，每人每天 10 轮对话，用 Qwen2.5 72B，需要几张 H20")
    p = _fixed_point(a).params
    # 50,000 x 10 / 86,400 x 2.4 = 13.89 requests/s x 256 = 3,556 tokens/s
    assert p["need_tps"] == pytest.approx(50_000 * 10 / 86_400 * 2.4 * 256)
    assert p["count"] <= a.options[a.recommendation].gpu_count


def test_concurrent_users_given_get_no_fixed_point_line(kb):
    a = ask(kb, "serve Qwen2.5 32B to 72 concurrent users, how many L40S")
    assert not any(d.code == "traffic_fixed_point" for d in a.details)
