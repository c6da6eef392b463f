"""The first line states the asked quantity, in the user's units, with every stated input kept.

Questions are asked as users write them (English and Chinese); each expected figure is worked out by hand
from the knowledge files and cited next to the assertion.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- users served ("能同时服务多少人")

@pytest.mark.parametrize("text", [
    "一台 8×A800 80G 跑 Qwen3-32B bf16，每人至少 20 tok/s，能同时服务多少人？",
    "两张 4090 跑 qwen2.5 14b int4 能服务几个人",
    "一张 H100 部署 llama 3 8b，够多少人同时用？",
    "how many people can 2x H100 serve llama 3 70b fp8 at 20 tok/s each",
    "8x L40S with qwen2.5 72b awq: how many people could it serve at 4k ctx?",
])
def test_how_many_people_leads_with_the_user_count(kb, text):
    a = ask(kb, text)
    assert "users_served" in a.query.asks
    assert a.headline.code == "users_served"
    assert a.headline.params["max_users"] == a.options[a.recommendation].max_users > 1
    # the capacity is searched, never one user assumed
    assert "one_user" not in [n.code for n in a.assumptions]


def test_stated_per_user_floor_holds_at_the_capacity(kb):
    a = ask(kb, "一台 8×A800 80G 跑 Qwen3-32B bf16，每人至少 20 tok/s，能同时服务多少人？")
    assert a.headline.params["per_user_tps"] >= 20.0


# --------------------------------------------------------------------------- longest context ("最多能开多长上下文")

@pytest.mark.parametrize("text", [
    "A100 40G 单卡跑 Llama 2 13B fp16，最多能开多长上下文？",
    "max context length on a 4090 for llama 3 8b int4",
    "how much context can I fit for qwen2.5 32b awq on 2x 3090?",
    "一张 H100 跑 Llama 3.1 70B fp8，上下文能开多少？",
    "4090 跑 qwen2.5 7b，最长能开多长的上下文",
    "longest context for llama 3.1 8b on an L4 with 4 users",
])
def test_longest_context_leads(kb, text):
    a = ask(kb, text)
    assert "max_context" in a.query.asks
    assert a.headline.code in ("max_context", "max_context_capped")


def test_longest_context_on_a100_40g_is_capped_by_the_model(kb):
    a = ask(kb, "A100 40G 单卡跑 Llama 2 13B fp16，最多能开多长上下文？")
    p = a.headline.params
    # Llama 2 13B (knowledge/models.yaml): 40 layers, 40 KV heads x 128 head_dim, fp16 KV:
    # 2 (K and V) x 40 x 40 x 128 x 2 bytes = 819,200 bytes per token
    assert p["kv_kb_per_token"] == pytest.approx(819.2)
    # vLLM's budget: 0.9 x 42.5 GB usable (40 GiB x 0.99) - 26.0 GB weights - ~1.8 GB overhead ~ 10.5 GB
    # -> 10.5e9 / 819,200 ~ 12,800 tokens, above the 4,096 the model supports (max_position_embeddings)
    assert a.headline.code == "max_context_capped"
    assert p["model_max_tokens"] == 4096 and p["max_context_tokens"] == 4096
    assert 12_000 < p["memory_tokens"] < 13_500


def test_longest_context_on_4090_llama3_8b_int4(kb):
    a = ask(kb, "max context length on a 4090 for llama 3 8b int4")
    p = a.headline.params
    # Llama 3 8B: 32 layers x 2 x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token; the model supports 8,192
    assert p["kv_kb_per_token"] == pytest.approx(131.072)
    assert p["max_context_tokens"] == 8192 and p["memory_tokens"] > 8192
    # the tokens memory allows x bytes per token = the KV budget it reports
    assert p["memory_tokens"] * 131_072 / 1e9 == pytest.approx(p["kv_left_gb"], rel=1e-6)


def test_longest_context_below_the_model_limit_is_the_memory_figure(kb):
    a = ask(kb, "how much context can I fit for qwen2.5 32b awq on 2x 3090?")
    p = a.headline.params
    # Qwen2.5 32B: 64 layers x 2 x 8 KV heads x 128 x 2 bytes = 262,144 bytes per token
    assert p["kv_kb_per_token"] == pytest.approx(262.144)
    assert a.headline.code == "max_context"
    assert p["max_context_tokens"] * 262_144 / 1e9 == pytest.approx(p["kv_left_gb"], rel=1e-3)


def test_longest_context_without_a_gpu_is_the_models_length(kb):
    a = ask(kb, "max context for llama 3.1 70b")
    # Llama 3.1 70B supports 131,072 tokens; 80 layers x 2 x 8 x 128 x 2 bytes x 131,072 = 42.9 GB of bf16 KV
    assert a.headline.code == "max_context_model"
    assert a.headline.params["model_max_tokens"] == 131072
    assert a.headline.params["kv_gb"] == pytest.approx(80 * 2 * 8 * 128 * 2 * 131072 / 1e9)


# --------------------------------------------------------------------------- GPUs for a deadline ("how many A100s")

@pytest.mark.parametrize("text", [
    "we have 10 days to train a 1.3B model on 100B tokens. how many A100s do we need?",
    "10 天内用 100B token 训练一个 1.3B 模型，需要几张 A100？",
])
def test_count_meeting_the_deadline_leads(kb, text):
    a = ask(kb, text)
    assert a.headline.code == "training_count"
    o = a.options[a.recommendation]
    # 6 x 1.3e9 x 100e9 = 7.8e20 FLOPs: 1,852 GPU-hours on A100s at the kb's MFU (the table), so 1 GPU takes
    # 77 days and 8 take 231 h = 9.6 days, the fewest whole steps within 240 h
    assert o.gpu_count == 8
    assert o.wall_clock_hours <= 240
    assert a.headline.params["deadline_hours"] == 240


# --------------------------------------------------------------------------- cost per million tokens

@pytest.mark.parametrize("text", [
    "what does 1M output tokens cost for llama 3.1 8b on an L4",
    "cost per million tokens for qwen2.5 72b awq on 2x A100",
    "L4 跑 llama 3.1 8b 每百万 token 成本多少",
    "how much would 10M tokens cost to generate with mistral 7b on an A10G",
    "H100 上跑 Qwen2.5 32B，一百万 token 多少钱？",
])
def test_cost_per_token_leads_at_full_load(kb, text):
    a = ask(kb, text)
    assert a.query.intent == "size_inference" and "token_cost" in a.query.asks
    assert a.headline.code == "token_cost"
    p = a.headline.params
    # estimation-notes.md "Cost": $/1M = price per hour / (tokens/s x 3,600) x 10^6, at the user capacity
    assert p["per_million_usd"] == pytest.approx(p["price_usd"] / (p["total_tps"] * 3600) * 1e6)
    assert p["max_users"] > 1 and p["per_user_tps"] >= 10.0 * 0.99  # policy floor, 10 tokens/s per user


def test_a_token_volume_is_priced_not_read_as_a_request_length(kb):
    q = parse_question("what does 1M output tokens cost for llama 3.1 8b on an L4", kb)
    assert q.tokens_priced == 1e6 and q.output_tokens is None
    a = ask(kb, "how much would 10M tokens cost to generate with mistral 7b on an A10G")
    p = a.headline.params
    assert a.query.training_tokens is None
    assert p["volume_usd"] == pytest.approx(p["per_million_usd"] * 10)


# --------------------------------------------------------------------------- tokens per item after "of ~"

@pytest.mark.parametrize(("text", "documents", "tokens"), [
    ("embed 100M chunks of ~300 tokens with bge-large on L4s, need it done in 24h", 1e8, 300),
    ("embed 5M docs of about 800 tokens with bge-m3 on an A10G", 5e6, 800),
    ("embed 2M passages of ~ 250 tokens with e5-large on a T4", 2e6, 250),
    ("embed 3M documents of roughly 1k tokens with bge-m3", 3e6, 1000),
    ("用 bge-m3 向量化 1000万 条，每条约 300 token，L4 要多久", 1e7, 300),
])
def test_an_approximate_item_length_is_the_items_length(kb, text, documents, tokens):
    q = parse_question(text, kb)
    assert (q.documents, q.tokens_per_item, q.context_tokens) == (documents, tokens, None)


def test_embedding_job_uses_the_stated_item_length(kb):
    a = ask(kb, "embed 100M chunks of ~300 tokens with bge-large on L4s, need it done in 24h")
    p = a.headline.params
    assert a.headline.code == "embed_job" and p["per_item_tokens"] == 300
    # the count is the fewest L4s that finish within the stated 24 h
    assert p["hours"] <= 24


# --------------------------------------------------------------------------- hours a day is a utilisation

@pytest.mark.parametrize(("text", "pct"), [
    ("should I buy a 4090 for $1800 or rent one on runpod? we'd use it ~8 hours a day", 8 / 24 * 100),
    ("buy vs rent an H100 at $30k, used 12 hours per day", 50.0),
    ("break even for buying 8x H100 for $300k if we run it 16h/day", 16 / 24 * 100),
    ("40 hours a week on an A100, buy at $15k or rent?", 40 / 168 * 100),
    ("买一张 4090 1.3 万还是租？每天用 8 小时", 8 / 24 * 100),
    ("4090 买还是租，一天跑 6 个小时，价格 1.5 万", 25.0),
])
def test_hours_per_period_are_a_utilisation(kb, text, pct):
    q = parse_question(text, kb)
    assert q.utilization_pct == pytest.approx(pct)
    assert q.duration_hours is None


@pytest.mark.parametrize(("text", "hours"), [("租一天 H100 多少钱", 24), ("rent 8x H100 for 3 days", 72)])
def test_a_length_of_time_alone_stays_a_duration(kb, text, hours):
    q = parse_question(text, kb)
    assert (q.duration_hours, q.utilization_pct) == (hours, None)


def test_break_even_uses_the_stated_daily_use(kb):
    a = ask(kb, "should I buy a 4090 for $1800 or rent one on runpod? we'd use it ~8 hours a day")
    util = next(n for n in a.assumptions if n.code == "break_even_utilization")
    assert util.params["util_pct"] == pytest.approx(100 / 3)


# --------------------------------------------------------------------------- KV cache: sequences, KV formats, MLA

@pytest.mark.parametrize(("text", "kv", "seqs"), [
    ("KV cache size for Llama 3.1 8B at 128k context with 10 sequences, fp16 vs fp8 kv?", ["fp16", "fp8"], 10),
    ("llama 3 70b kv cache at 32k for 8 sequences, fp8 or bf16 kv cache", ["fp8", "bf16"], 8),
    ("Qwen2.5 72B 32k 上下文 20 条序列，kv cache fp16 和 fp8 各多大", ["fp16", "fp8"], 20),
])
def test_sequences_and_every_kv_format_named_are_read(kb, text, kv, seqs):
    q = parse_question(text, kb)
    assert (q.kv_precisions, q.batch_size, q.not_understood) == (kv, seqs, [])


def test_kv_cache_for_both_formats(kb):
    a = ask(kb, "KV cache size for Llama 3.1 8B at 128k context with 10 sequences, fp16 vs fp8 kv?")
    kv = {k["kv_precision"]: k["kv_gb"] for k in a.headline.params["kv"]}
    # Llama 3.1 8B: 32 layers x 2 x 8 KV heads x 128 = 65,536 values per token; x 131,072 tokens x 10 sequences
    assert kv["fp16"] == pytest.approx(65_536 * 2 * 131_072 * 10 / 1e9)  # 171.8 GB
    assert kv["fp8"] == pytest.approx(65_536 * 1 * 131_072 * 10 / 1e9)  # 85.9 GB
    assert a.headline.params["users"] == 10


def test_mla_kv_cache_is_one_copy_and_replication_is_said(kb):
    a = ask(kb, "how much VRAM does DeepSeek V3 need in FP8 with 32k context for 16 users")
    # DeepSeek-V3 MLA latent: 61 layers x (512 + 64) values x 2 bytes = 70,272 bytes per token;
    # x 32,768 tokens x 16 users = 36.8 GB (one copy)
    assert a.headline.params["kv"][0]["kv_gb"] == pytest.approx(70_272 * 32_768 * 16 / 1e9)
    rep = next(n for n in a.assumptions if n.code == "kv_replicated_tp")
    assert rep.params["group_kv_gb"] == pytest.approx(rep.params["kv_gb"] * rep.params["tp"], rel=1e-3)


# --------------------------------------------------------------------------- pricing models compared

@pytest.mark.parametrize("text", [
    "AWS 1-year reserved vs on-demand for 16 H100s, monthly cost difference?",
    "AWS 16 张 H100 包年和按需每月差多少钱",
])
def test_reserved_vs_on_demand_difference_leads(kb, text):
    a = ask(kb, text)
    p = a.headline.params
    assert a.headline.code == "pricing_difference"
    assert p["hours"] == 730  # monthly, not the one-year term
    # knowledge/prices/aws.yaml p5.48xlarge (8x H100): $55.04/h on-demand, $43.34/h 1-year commitment; 16 GPUs
    # = 2 instances for 730 h: 2 x 55.04 x 730 = $80,358.40 vs 2 x 43.34 x 730 = $63,282.40 (the kb's $43.3440/h
    # rounds to $63,282.24): $17,076 less, 21.25% of the on-demand total
    assert p["base_total_usd"] == pytest.approx(2 * 55.04 * 730)
    assert p["alt_total_usd"] == pytest.approx(63_282.24, abs=1)
    assert p["saved_usd"] == pytest.approx(p["base_total_usd"] - p["alt_total_usd"])
    assert p["saved_pct"] == pytest.approx(p["saved_usd"] / p["base_total_usd"] * 100)
    # no on-demand total is called the cheapest list price beside a commitment row
    assert not any(d.code == "quote_cheapest_list" and d.params["total_usd"] > p["alt_total_usd"] for d in a.details)


# --------------------------------------------------------------------------- tokens a budget trains on

@pytest.mark.parametrize("text", [
    "with a $50k budget on lambda H100s, how many tokens can I train a 3B model on?",
    "预算 $50k，用 H100 训练 7b 模型能训多少 token",
    "we have $20k to pretrain a 1b model on A100s, how many tokens can we train?",
    "budget $100k, how much data can we pretrain a 7B on with H100s",
])
def test_tokens_for_a_budget_lead(kb, text):
    a = ask(kb, text)
    assert a.query.intent == "size_training"
    p = a.headline.params
    assert a.headline.code == "tokens_for_budget"
    o = a.options[a.recommendation]
    # the budget buys budget / price per GPU-hour GPU-hours, over the GPUs of the run
    assert p["gpu_hours"] == pytest.approx(p["budget_usd"] / o.price.price_per_gpu_hour_usd, rel=1e-6)
    assert p["wall_hours"] == pytest.approx(p["gpu_hours"] / o.gpu_count, rel=1e-6)


def test_tokens_for_a_budget_on_lambda_h100(kb):
    a = ask(kb, "with a $50k budget on lambda H100s, how many tokens can I train a 3B model on?")
    p = a.headline.params
    assert p["budget_usd"] == 50_000 and p["provider"] == "Lambda"
    # tokens = GPU-hours x 3,600 x achieved FLOP/s per GPU / (6 x 3e9 parameters + attention): the same estimate
    # as "how long to train a 3B on N tokens" (cost is linear in tokens at a fixed configuration)
    run = ask(kb, f"how long to train a 3b model on {p['tokens_tokens'] / 1e9:.0f}B tokens with "
                  f"{a.options[0].gpu_count} H100s on lambda")
    assert run.options[0].gpu_hours == pytest.approx(p["gpu_hours"], rel=0.01)


# --------------------------------------------------------------------------- a load beyond the search

def test_a_load_beyond_the_search_says_what_it_would_take_against_the_budget(kb):
    a = ask(kb, "我们 team 想 serve llama3.1 405B with 128k ctx 给 1k users，budget $50k/month 够吗")
    p = a.headline.params
    assert a.headline.code == "serve_scale_over_budget"
    # Llama 3.1 405B: 126 layers x 2 x 8 KV heads x 128 x 2 bytes = 516,096 bytes per token;
    # 1,000 users x 131,072 tokens x 516,096 bytes = 67,646 GB of bf16 KV cache
    assert p["kv_gb"] == pytest.approx(1000 * 131_072 * 516_096 / 1e9)
    assert p["kv_per_token_kb"] == pytest.approx(516.096)
    # the monthly floor against $50,000 a month
    assert p["budget_month_usd"] == pytest.approx(50_000)
    assert p["short_x"] == pytest.approx(p["month_usd"] / 50_000)
    assert p["short_x"] > 10


def test_a_load_beyond_the_search_without_money_gives_the_floor(kb):
    a = ask(kb, "serve llama 3.1 405b to 1000 users at 128k context")
    assert a.headline.code == "serve_scale"
    assert a.details[0].code == "serve_nothing"
