""""How many tokens can <serving setup> generate in <period>": the setup's full-load output x the period leads,
with one stream alone beside it, in the user's language; the setup stated is kept (GPU, count, format).

Hand check: a week is 7 x 24 = 168 h = 604,800 s; a month 730 h (the lexicon's month); a day 86,400 s.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(("text", "seconds", "gpu", "count"), [
    ("how many tokens can 2x A100 80GB generate in a week with llama 3 70b int4", 604_800, "a100-sxm-80gb", 2),
    ("一张 4090 跑 qwen2.5 7b 一天能生成多少 token", 86_400, "rtx-4090-24gb", 1),
    ("with 4x L40S running mistral small 24b, how many tokens can it produce per month", 730 * 3600, "l40s-48gb", 4),
])
def test_tokens_a_serving_setup_generates_in_a_period(kb, text, seconds, gpu, count):
    q = parse_question(text, kb)
    assert q.intent == "size_inference" and "tokens_in_time" in q.asks
    a = advise(q, kb, today=TODAY)
    assert a.headline.code == "serving_tokens_in_time"
    p = a.headline.params
    assert p["hours"] * 3600 == pytest.approx(seconds)
    assert p["tokens_tokens"] == pytest.approx(p["total_tps"] * seconds)
    o = a.options[a.recommendation]
    assert (o.gpu, o.gpu_count) == (gpu, count)
    assert p["single_tokens"] == pytest.approx(o.single_user_tps * seconds)
    assert p["single_tokens"] < p["tokens_tokens"]  # a busy service outputs more than one stream


def test_the_stated_precision_is_kept(kb):
    a = advise(parse_question("how many tokens can 2x A100 80GB generate in a week with llama 3 70b int4", kb), kb,
               today=TODAY)
    assert a.options[a.recommendation].precision == "int4"


@pytest.mark.parametrize("text", [
    "what does 8 B200 cost per hour, and how fast would deepseek v3 run on them",
    "8 张 H100 一小时多少钱，跑 llama 3.1 70b 速度多少",
])
def test_a_price_and_a_speed_asked_of_named_gpus_are_both_answered(kb, text):
    q = parse_question(text, kb)
    assert q.intent == "size_inference"
    a = advise(q, kb, today=TODAY)
    o = a.options[a.recommendation]
    assert o.gpu_count == 8 and o.price is not None and o.decode_tps
    lines = [a.headline, *a.details[:2]]
    assert any(n.params.get("decode_tps") for n in lines)  # the speed is in the first lines
