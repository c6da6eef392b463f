"""Every item asked is answered: several quantities of one setup, several providers for a model needing many GPUs,
follow-ups carrying the latest precision over several turns, and image rates at the batched throughput.

Questions are written as users type them (English and Chinese); figures are worked out by hand from the knowledge
files, with the arithmetic beside each assertion.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.asked import lead_with_asks, states
from bot.advice.context import Context
from bot.advice.conversation import respond_to
from bot.advice.non_llm import image_batch
from bot.advice.planner import precisions_for
from bot.notes import note
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def lines(a):
    return [a.headline, *a.details]


# --------------------------------------------------------------------------- several quantities of one setup

@pytest.mark.parametrize("text", [
    "llama 3 70b on 2x H100 in fp8 at 4k context: single-user tok/s, and how many concurrent users can it take?",
    "两张 H100 跑 llama 3 70b fp8，4k 上下文，单用户每秒多少 token？能支持多少并发？",
])
def test_speed_then_users_of_the_same_setup(kb, text):
    a = ask(kb, text)
    assert a.query.asks[:2] == ["speed", "users_served"]
    # the first line is the first quantity asked: one user's speed on 2x H100 in fp8
    assert a.headline.code == "speed_single"
    assert a.headline.params["config"]["gpu_count"] == 2 and a.headline.params["config"]["precision"] == "fp8"
    # Llama 3 70B fp8 weights 70.55 GB over TP 2 = 35.3 GB read per token per GPU; H100 3,350 GB/s ->
    # at most 3,350 / 35.3 = 94.9 tokens/s; the kb's MBU puts it at 53.5 (estimate inference --count 2 --precision fp8)
    assert 40 < a.headline.params["decode_tps"] < 94.9
    # the second line: the users the same 2x H100 fp8 serves
    users = a.details[0]
    assert users.code == "users_served"
    assert users.params["config"]["gpu_count"] == 2 and users.params["config"]["precision"] == "fp8"
    # KV per token: 80 layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes = 327,680 B; at 4,096 tokens per user the
    # stated KV cache is users x 4,096 x 327,680 B
    assert users.params["kv_gb"] == pytest.approx(users.params["max_users"] * 4096 * 327_680 / 1e9, rel=0.01)
    # and it is what the users question alone answers
    alone = ask(kb, "how many users can 2x H100 serve with llama 3 70b in fp8 at 4k context?")
    assert alone.headline.params["max_users"] == users.params["max_users"]


def test_memory_then_speed(kb):
    a = ask(kb, "qwen2.5 32b on one A100 80GB - how much VRAM does it take and how fast will it be?")
    assert a.query.asks[:2] == ["memory", "speed"]
    assert a.headline.code == "memory_breakdown"
    # Qwen2.5 32B: 32.76e9 parameters x 2 bytes (bf16) = 65.5 GB of weights
    assert a.headline.params["weights_gb"] == pytest.approx(32.763876352 * 2, rel=0.01)
    assert a.details[0].code == "speed_single"
    assert a.details[0].params["config"]["gpu_count"] == 1


@pytest.mark.parametrize("text", [
    "mistral 7b on a single L4: how many users can it serve, and what is the cost per million tokens?",
    "一张 L4 跑 mistral 7b，能服务多少用户，每百万 token 成本多少？",
])
def test_users_then_cost_per_million_tokens(kb, text):
    a = ask(kb, text)
    codes = [x.code for x in lines(a)[:2]]
    assert codes == ["users_served", "token_cost"]
    users, cost = lines(a)[:2]
    assert users.params["config"] == cost.params["config"]
    assert users.params["max_users"] == cost.params["max_users"]
    # $ per 1M output tokens = $/h / (tokens/s in all x 3,600) x 10^6, at the load stated in the users line
    p = cost.params
    assert p["per_million_usd"] == pytest.approx(p["price_usd"] / (users.params["total_tps"] * 3600) * 1e6, rel=1e-6)


def test_cost_per_token_then_single_user_speed(kb):
    a = ask(kb, "what's the cost per 1M tokens and the single-user speed of mistral 7b on an L4?")
    assert [x.code for x in lines(a)[:2]] == ["token_cost", "speed_single"]
    assert a.details[0].params["config"]["gpu_count"] == a.headline.params["config"]["gpu_count"]


def test_one_quantity_keeps_the_handlers_lines(kb):
    # a single quantity asked is the handler's own order (nothing to place)
    a = ask(kb, "how many users can one H100 serve with Llama 3.1 8B?")
    assert a.headline.code == "users_served"


def test_lead_with_asks_orders_and_supplies_lines():
    mem = note("memory_breakdown", weights_gb=1.0)
    speed = note("speed_single", decode_tps=10.0)
    other = note("serve_capacity_line", max_users=3)
    made = []

    def make(ask):
        made.append(ask)
        return note("token_cost", per_million_usd=1.0) if ask == "token_cost" else None

    head, rest = lead_with_asks(speed, [mem, other], ["memory", "speed", "token_cost"], make)
    assert [head.code, *(x.code for x in rest)] == ["memory_breakdown", "speed_single", "token_cost",
                                                    "serve_capacity_line"]
    assert made == ["token_cost"]
    # a failure that leads stays first; the asked lines follow it
    fail = note("serve_fixed_fails")
    head, rest = lead_with_asks(fail, [mem, speed], ["speed", "memory"], lambda _: None, keep_headline=True)
    assert [head.code, *(x.code for x in rest)] == ["serve_fixed_fails", "speed_single", "memory_breakdown"]
    # a per-user speed at a load of several users states "how fast" for that load only
    assert states(note("serve_users"), "speed", users=50) and not states(note("serve_users"), "speed", users=1)


# --------------------------------------------------------------------------- providers for a model on many GPUs

@pytest.mark.parametrize("text", [
    "compare RunPod and Lambda for serving a 405B model in fp8 on H100s",
    "price of llama 3.1 405b fp8 on H100 at runpod and lambda",
    "405B fp8 在 RunPod 和 Lambda 的 H100 上分别多少钱",
])
def test_providers_priced_for_the_sized_setup(kb, text):
    a = ask(kb, text)
    assert a.intent == "size_inference"  # sized first, not a price list of one GPU
    assert a.headline.code == "providers_compared"
    items = {i["provider"]: i for i in a.headline.params["items"]}
    assert set(items) == {"RunPod", "Lambda"}
    # 405.85e9 weights x 1 byte (fp8) = 405.9 GB: 4 H100s give 101 GB each > 85 GB usable, so 8 (TP 8)
    assert all(i["config"]["gpu_count"] == 8 for i in items.values())
    # knowledge/prices: RunPod 8x_H100-SXM_SECURE $23.92/h, Lambda "8x NVIDIA H100 SXM" $31.92/h
    assert items["RunPod"]["price_usd"] == pytest.approx(23.92)
    assert items["Lambda"]["price_usd"] == pytest.approx(31.92)
    # the same setup at full load: $ per 1M tokens in the ratio of the prices (31.92 / 23.92 = 1.334)
    assert items["Lambda"]["per_million_usd"] / items["RunPod"]["per_million_usd"] == pytest.approx(31.92 / 23.92)
    o = a.options[a.recommendation]
    # per 1M = $/h / (full-load tokens/s x 3,600) x 10^6
    assert items["RunPod"]["per_million_usd"] == pytest.approx(23.92 / (o.full_load_tps * 3600) * 1e6)
    assert items["RunPod"]["per_user_tps"] == pytest.approx(o.tps_per_user)


def test_gpus_named_without_count_for_a_model_are_sized(kb):
    q = parse_question("how much does it cost to run llama 3.1 70b on H100s", kb)
    assert q.intent == "size_inference"
    # a count stated is priced as written
    assert parse_question("how much do 8x H100 cost for a week", kb).intent == "quote"


# --------------------------------------------------------------------------- follow-ups over several turns

def _turns(kb, texts):
    prev, out = None, []
    for t in texts:
        turn = respond_to(t, prev, kb=kb)
        prev = turn.query
        out.append(turn)
    return out


@pytest.mark.parametrize("texts", [
    ["serve llama 3 70b on 2x H100 in fp8", "what about int4?", "and on A100 80GB?"],
    ["用两张 H100 跑 llama 3 70b fp8", "int4 呢？", "换成 A100 80G 呢？"],
])
def test_latest_precision_carried_to_a_new_gpu(kb, texts):
    third = _turns(kb, texts)[-1]
    assert third.query.precisions == ["int4"]
    o = third.answer.options[third.answer.recommendation]
    # AWQ/GPTQ int4 is weight-only (efficiency.yaml: no `requires`): an A100 runs it; the count 2 stays
    assert (o.gpu, o.gpu_count, o.precision) == ("a100-sxm-80gb", 2, "int4")


def test_carried_fp8_is_dropped_on_ampere_and_back_on_ada(kb):
    turns = _turns(kb, ["serve llama 3 70b on 2x H100 in fp8", "and on A100 80GB?", "and on L40S?"])
    a100 = turns[1].answer.options[turns[1].answer.recommendation]
    assert a100.precision in ("bf16", "fp16")  # A100 has no FP8 tensor cores (efficiency.yaml fp8 requires fp8)
    l40s = turns[2].answer.options[turns[2].answer.recommendation]
    assert (l40s.gpu, l40s.gpu_count, l40s.precision) == ("l40s-48gb", 2, "fp8")  # the latest stated format


def test_load_and_context_carried_over_turns(kb):
    turns = _turns(kb, ["serve qwen2.5 32b to 50 users at 8k context on L40S", "what about 100 users?",
                        "and on H100?", "and in int4?", "and for a month, how much?"])
    q = turns[-1].query
    assert (q.concurrent_users, q.context_tokens, q.precisions) == (100, 8192, ["int4"])
    assert [g.id for g in q.gpus] == ["h100-sxm-80gb"]
    assert q.duration_hours == pytest.approx(730)  # policy quote.month_hours: 365 x 24 / 12


def test_weight_only_int4_is_not_lacking_on_a100(kb):
    q = parse_question("serve llama 3 70b on 2x A100 80GB", kb).model_copy(
        update={"precisions": ["int4"], "precisions_carried": True})
    ctx = Context(q, kb, TODAY)
    assert precisions_for(ctx, kb.models["llama-3-70b"], kb.gpus["a100-sxm-80gb"]) == [("int4", True)]
    q8 = q.model_copy(update={"precisions": ["fp8"]})
    tried = precisions_for(Context(q8, kb, TODAY), kb.models["llama-3-70b"], kb.gpus["a100-sxm-80gb"])
    assert "fp8" not in [p for p, _ in tried]


# --------------------------------------------------------------------------- image rates

@pytest.mark.parametrize("text", [
    "how many images per minute can an A100 make with sd 1.5 at 512x512?",
    "A100 跑 SD 1.5 512x512 每分钟能出多少张图？",
])
def test_image_rate_is_the_batched_throughput(kb, text):
    a = ask(kb, text)
    p = a.headline.params
    assert a.headline.code == "images_rate_batched"
    # SD 1.5 fp16 weights 3.1 GB; 0.2 x 3.1 = 0.62 GB per 512x512 image; 16 images: 3.1 + 9.9 + 0.75 = 13.8 GB,
    # well within the A100's 85 GB usable -> the policy's largest batch, 16
    assert p["batch"] == 16
    # diffusers docs (benchmarks.yaml nl-sd15-a100-bs1 notes): batch 16 at 3.04 it/s = 3.04 x 16 / 50 x 60
    # = 58.4 images/min; batch 1 at 21.66 it/s = 26.0 images/min, 50 / 21.66 = 2.31 s per image
    assert p["images_per_minute"] == pytest.approx(58.4, rel=0.15)
    assert p["single_images_per_minute"] == pytest.approx(26.0, rel=0.05)
    assert p["per_image_s"] == pytest.approx(2.31, rel=0.05)


@pytest.mark.parametrize("text", [
    "what's the latency for a single sd 1.5 image on an A100",
    "A100 生成一张 SD 1.5 图要多久",
])
def test_one_image_asked_is_the_batch_1_time(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "images_rate"
    assert a.headline.params["per_image_s"] == pytest.approx(50 / 21.66, rel=0.05)
    # the batched throughput beside it
    assert a.details[0].code == "images_batched_line" and a.details[0].params["batch"] == 16


def test_image_batch_follows_memory(kb):
    ctx = Context(parse_question("sdxl at 1024x1024 on a 4090", kb), kb, TODAY)
    # SDXL fp16 6.834 GB; 0.2 x 6.834 = 1.37 GB per 1024x1024 image; 4090: 24 GiB x 0.99 = 25.5 GB usable:
    # 8 images -> 6.834 + 10.93 + 0.75 = 18.5 GB fits, 16 -> 29.4 GB does not
    assert image_batch(ctx, kb.models["stable-diffusion-xl-1.0-base"], "fp16", 25.51) == 8
    # a 16 GB T4 (15.9 GB usable): 4 -> 6.834 + 5.47 + 0.75 = 13.1 fits, 8 -> 18.5 does not
    assert image_batch(ctx, kb.models["stable-diffusion-xl-1.0-base"], "fp16", 15.9) == 4


def test_parse_single_item(kb):
    assert parse_question("latency of one image with sdxl on an L4", kb).single_item
    assert parse_question("sdxl 单张出图要多久", kb).single_item
    assert not parse_question("sdxl images per minute on an L4", kb).single_item
    assert not parse_question("每张卡每小时多少钱", kb).single_item
    # one image with the model's name between the count word and the unit
    assert parse_question("how fast is one SDXL image at 1024 on an L4?", kb).images == 1


def test_users_asked_at_a_context_is_no_user_count(kb):
    # "how many concurrent users at 4k?": the users are asked; 4k is the context (4 x 1,024), not 4,000 users
    q = parse_question("llama 3 70b on 2x H100 fp8: tok/s for one user, and how many concurrent users at 4k?", kb)
    assert q.asks[:2] == ["speed", "users_served"]
    assert q.context_tokens == 4096 and q.concurrent_users != 4000
    # a value written after the key is still read ("max_model_len=4096", "concurrency: 64")
    assert parse_question("concurrency: 64 on 2x h100 for llama 3 8b", kb).concurrent_users == 64
