"""Answers per intent, from the user's side: the headline states the asked quantity with the right figure.

Each expected figure is worked out by hand from the knowledge files (prices with their as_of dates,
parameter counts, policy constants) and cited in the test.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.conversation import respond_to
from bot.estimation import estimate_inference, serving_workload
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# --------------------------------------------------------------------------- quotes

def test_quote_total_for_the_duration(kb):
    # Rows are ordered by total; the cheapest list price (marketplace asks follow) leads:
    # knowledge/prices/digitalocean.yaml NVIDIA H100 (8x) (GPU Droplet) $23.92/h (as of 2026-05-28): 72 h x 23.92 =
    # $1,722.24; RunPod 8x_H100-SXM_SECURE has the same price undated, so the dated row leads.
    a = ask(kb, "8x h100 for 3 days, how much?")
    assert a.intent == "quote" and a.headline.code == "quote_one"
    assert a.headline.params["hours"] == 72
    assert a.headline.params["total_usd"] == pytest.approx(72 * 23.92)
    assert a.headline.params["provider"] == "DigitalOcean"


def test_two_instances_are_compared(kb):
    # knowledge/prices/aws.yaml: p4d.24xlarge $21.957642/h, p5.48xlarge $55.04/h (as of 2026-11-09): ratio 2.507
    a = ask(kb, "p4d vs p5, price per hour")
    assert a.headline.code == "quote_compare"
    items = a.headline.params["items"]
    assert [i["instance"] for i in items] == ["p4d.24xlarge", "p5.48xlarge"]
    assert a.headline.params["ratio_x"] == pytest.approx(55.04 / 21.957642)


def test_spot_and_a_missing_provider_are_said(kb):
    a = ask(kb, "spot price for 8x h100 on lambda")
    # Lambda publishes no spot price in knowledge/prices/lambda.yaml: said first (the headline), others labelled
    assert a.headline.code == "no_pricing_at_provider" and a.headline.params["provider"] == ["Lambda"]
    assert all(o.changes == ["provider"] for o in a.options if o.price.provider != "lambda")


def test_commitment_term_is_kept(kb):
    a = ask(kb, "1 year reserved 8x h100 on aws")
    commitment = [o for o in a.options if o.price.pricing_model == "commitment"]
    assert commitment and all(o.price.commitment_term == "1y" for o in commitment)


def test_rmb_answer_uses_the_dated_rate(kb):
    # knowledge/prices/common/exchange_rates.yaml: 6.8012 CNY per USD (ECB cross rate of 2026-05-08)
    a = ask(kb, "租8卡H100一周多少钱，用人民币报价")
    assert a.cny_per_usd == pytest.approx(6.8012) and a.cny_rate_date == "2026-05-08"
    text = compose(a).headline
    assert "¥" in text and "$" not in text


def test_break_even(kb):
    # policy.yaml break_even: 8 x 700 W (gpus.yaml H100 SXM TDP) + 3,300 W host (server_host_power_w) = 8.9 kW;
    # power 8.9 x 1.4 PUE x 730 h x $0.13 = $1,182.43/mo; hosting 8.9 kW x $200 = $1,780/mo; renting at the
    # cheapest price that rents 8 (policy offers: every offer by price), vast.yaml 8x-H100_SXM $17.07 x 730 =
    # $12,461.10/mo; months = 300,000 / (12,461.10 - 1,182.43 - 1,780) = 31.58
    a = ask(kb, "buy vs rent: 8x h100 server for $300k, when do we break even?")
    assert a.headline.code == "break_even"
    assert a.headline.params["months"] == pytest.approx(300000 / (17.07 * 730 - 8.9 * 1.4 * 730 * 0.13 - 8.9 * 200),
                                                        rel=1e-6)


# --------------------------------------------------------------------------- serving

def test_memory_of_several_models_and_precisions(kb):
    # Llama 3 8B has 8,030,261,248 parameters (knowledge/models.yaml): fp16 weights = 2 bytes each = 16.06 GB
    a = ask(kb, "how much vram for llama 3 8b and 70b in fp16 and int4?")
    items = a.headline.params["items"]
    assert [(i["model_name"], i["precision"]) for i in items] == [
        ("Llama 3 8B", "fp16"), ("Llama 3 8B", "int4"), ("Llama 3 70B", "fp16"), ("Llama 3 70B", "int4")]
    assert items[0]["weights_gb"] == pytest.approx(8.030261248 * 2, rel=1e-6)


def test_users_served_answers_the_capacity(kb):
    a = ask(kb, "mixtral 8x7b awq on a single a100 40g - how many concurrent users at 4k ctx?")
    assert a.headline.code == "users_served"
    o = a.options[a.recommendation]
    # the estimator at that configuration, chat turns on 4k conversations (serving_workload): the capacity
    # holds in memory and still gives 10 tokens/s each
    per_replica = o.max_users // o.replicas
    e = estimate_inference(kb, "mixtral-8x7b", "a100-sxm-40gb", count=o.tensor_parallel, precision=o.precision,
                           batch_size=per_replica, tensor_parallel=o.tensor_parallel,
                           **serving_workload(kb, 4096).estimate_kwargs())
    assert e.fits and e.max_batch_size >= per_replica
    assert e.throughput_tokens_per_s / per_replica >= 10.0


def test_a_fixed_configuration_that_fails_is_said_first_with_alternatives(kb):
    # V100 (compute capability 7.0): no FP8 tensor cores and below FP8 Marlin's 8.0, so fp8 is refused
    a = ask(kb, "llama 3 70b in fp8 on 4x v100 32gb")
    assert a.headline.code == "serve_fixed_fails"
    assert a.options[0].gpu == "v100-sxm-32gb" and a.options[0].gpu_count == 4 and a.options[0].precision == "fp8"
    assert a.options[0].rejection.code == "reject_precision"
    assert {tuple(o.changes) for o in a.options[1:]} <= {("precision",), ("count",), ("kv_precision",), ("gpu",)}
    assert any(o.changes for o in a.options[1:])


def test_ask_and_estimate_agree_on_the_same_configuration(kb):
    a = ask(kb, "can llama 3 8b run on one l4?")
    o = a.options[0]
    e = estimate_inference(kb, "llama-3-8b", "l4-24gb", count=1, precision=o.precision, batch_size=1,
                           tensor_parallel=1)
    assert o.decode_tps == pytest.approx(e.decode_tokens_per_s_per_sequence)
    assert o.memory_per_gpu_gb == pytest.approx(e.memory.per_gpu_gb)


# --------------------------------------------------------------------------- training and fine-tuning

def test_tokens_in_a_given_time(kb):
    a = ask(kb, "i have 8x h100 for 2 weeks, how many tokens can i pretrain a 7b model on?")
    assert a.headline.code == "tokens_in_time"
    o = a.options[0]
    # the run's own rate: tokens = 1e9 reference tokens x 336 h / its wall clock for 1e9 tokens
    assert a.headline.params["hours"] == 336
    assert o.tokens > 1e10 and o.wall_clock_hours == 336


def test_lora_on_a_t4_offers_qlora(kb):
    a = ask(kb, "lora mistral 7b on a single t4")
    assert a.headline.code == "finetune_fixed_fails"
    alternatives = [o for o in a.options if o.changes]
    assert any(o.method == "qlora" and o.changes == ["method"] and o.fits for o in alternatives)


# --------------------------------------------------------------------------- specs and claims

def test_feature_support_by_compute_capability(kb):
    # FlashAttention-2 needs compute capability 8.0 (knowledge/features.yaml); T4 is 7.5, A100 8.0
    a = ask(kb, "does the T4 support flash attention 2? and the A100?")
    facts = {f.params["gpu_name"]: f.params["supported"] for f in a.headline.params["facts"]}
    assert facts == {"T4": False, "A100 SXM4 80GB": True}


def test_claims_get_their_verdict_in_the_question_language(kb):
    en = ask(kb, "is the H100 really 30x faster than the A100?")
    zh = ask(kb, "H100 真的比 A100 快 30 倍吗")
    assert en.headline.code == zh.headline.code == "claim_verdict"
    assert en.headline.params["verdict"] == "misleading"
    # 989 / 312 = 3.17 (dense bf16 TFLOPS, knowledge/gpus.yaml), written into the verdict
    assert "3.17" in compose(en).headline and "3.17" in compose(zh).headline


def test_unlisted_accelerator_is_said_unknown(kb):
    a = respond_to("海光 K100 跑 qwen2.5 7b", kb=kb).answer
    assert any(w.code == "unlisted_gpu" for w in a.warnings)


# --------------------------------------------------------------------------- language

def test_chinese_question_gets_a_chinese_answer(kb):
    a = respond_to("用 vllm 部署 qwen2.5-32b 给 100 个用户并发，8k 上下文，要几张 L20", kb=kb).answer
    assert a.query.concurrent_users == 100
    c = compose(a)
    assert c.language == "zh"
    assert "100" in c.headline and "用户" in c.headline


def test_mainland_china_clouds_only_when_asked_in_chinese_or_named(kb):
    # knowledge/prices/aws-china.yaml (market: china_mainland): g5.xlarge 1x A10G; AWS China rents only to
    # companies with a mainland-China licence, so an English question gets AWS's g5.xlarge instead.
    en = ask(kb, "A10G price per hour")
    assert {o.price.provider for o in en.options} and "aws-china" not in {o.price.provider for o in en.options}
    named = ask(kb, "A10G on aws china, price per hour")
    assert named.options[named.recommendation].price.provider == "aws-china"
    zh = ask(kb, "A10G 每小时多少钱")
    assert "aws-china" in {o.price.provider for o in zh.options}


def test_a_comparison_uses_the_same_gpu_count_on_both_sides(kb):
    # Llama 2 70B fp16 = 138 GB of weights: two 80 GB GPUs hold it on either side (gpus.yaml: 80 GB each), so
    # both speed rows use 2 GPUs even where the cheapest A100 rental is an 8-GPU instance.
    a = ask(kb, "H100 vs A100 for Llama 2 70B")
    speed_rows = a.options[:2]
    assert {o.gpu for o in speed_rows} == {"h100-sxm-80gb", "a100-sxm-80gb"}
    assert [o.gpu_count for o in speed_rows] == [2, 2]
    # no load, no budget, no figure asked: which one is the question (the pick line leads), the speed line follows
    assert a.headline.code == "compare_pick"
    speed = next(d for d in a.details if d.code == "compare_decode")
    # bandwidth ratio 3,350 / 2,039 GB/s = 1.64 (gpus.yaml); the speed ratio stays within 10% of it
    assert speed.params["bw_ratio_x"] == pytest.approx(3350 / 2039, rel=1e-3)
    assert speed.params["ratio_x"] == pytest.approx(3350 / 2039, rel=0.1)


def test_a_compute_bound_decode_is_not_explained_by_bandwidth(kb):
    # H20: 148 dense TFLOPS for 4.0 TB/s; Hopper tensor cores pad a batch of 1 to 64 rows (efficiency.yaml
    # tensor_core_tile_tokens), so its decode is compute-bound and the bandwidth ratio is not the reason.
    a = ask(kb, "H20 vs H800 for qwen2.5 72b inference")
    speed = next(d for d in [a.headline, *a.details] if d.code == "compare_decode")
    assert speed.params["bw_ratio_x"] is None
    assert speed.params["compute_bound_gpu"] == "H20"


def test_vram_for_a_full_fine_tune_states_the_memory_first(kb):
    # Mixed-precision Adam: 2 (bf16 weights) + 2 (grads) + 12 (fp32 master + 2 moments) = 16 bytes/param
    # (ZeRO paper, Rajbhandari et al. 2020); Llama 2 13B has 13.0B parameters (models.yaml): 26 + 26 + 156 GB.
    a = ask(kb, "how much vram for full fine-tune of llama 2 13b")
    assert a.headline.code == "finetune_memory"
    p = a.headline.params
    assert p["weights_gb"] == pytest.approx(26.0, rel=0.01)
    assert p["gradients_gb"] == pytest.approx(26.0, rel=0.01)
    assert p["optimizer_gb"] == pytest.approx(156.2, rel=0.01)
    assert p["total_gb"] > 208


def test_fine_tune_examples_become_tokens(kb):
    # 10k examples x policy default_tokens_per_example 1,000 = 10M tokens (knowledge/policy.yaml)
    a = ask(kb, "QLoRA llama 3 8b on one A100 80GB, how long for 10k samples")
    assert a.headline.code == "finetune_time"
    assert a.headline.params["tokens_tokens"] == 10_000 * 1_000
    b = ask(kb, "QLoRA llama 3 8b on one A100 80GB, how long for 10k samples of 2k tokens each, 3 epochs")
    assert b.headline.params["tokens_tokens"] == 10_000 * 2_000 * 3


def test_cheapest_quote_leads_with_the_lowest_total(kb):
    # knowledge/prices: 8 H100 SXM for 168 h, no machine asked for, so separate instances count - Vast.ai
    # 1x-H100_SXM-32-65536 $1.80/h (undated marketplace row) x 8 instances = $14.40/h x 168 = $2,419.20, below
    # Paperspace's dated H100 (hourly) $3.09/h (2026-09-20) x 8 = $24.72/h x 168 = $4,152.96, the cheapest dated price.
    a = ask(kb, "cheapest way to get 8 H100s for a week")
    assert a.headline.code == "quote_one" and a.headline.params["provider"] == "Vast.ai"
    assert a.headline.params["total_usd"] == pytest.approx(168 * 8 * 1.80)
    assert a.headline.params["instance"].startswith("8 x ")
    totals = [o.total_cost_usd for o in a.options if not o.changes]
    assert totals == sorted(totals)
    assert a.details[0].code == "quote_cheapest_list" and a.details[0].params["provider"] == "Paperspace"
    assert a.details[0].params["total_usd"] == pytest.approx(168 * 8 * 3.09)


def test_an_unknown_gpu_is_answered_by_its_stated_memory_not_replaced(kb):
    # "rtx 2060" is not in gpus.yaml; its stated 6 GB = 6 x 2^30 / 10^9 x 0.99 (efficiency.yaml
    # usable_memory_fraction_hbm) = 6.38 GB usable. Llama 3 8B int4 alone is ~5.7 GB of weights + KV + overhead.
    a = ask(kb, "llama 3 8b on an rtx 2060 6gb")
    assert a.headline.code == "unknown_gpu_fit"
    assert a.headline.params["usable_gb"] == pytest.approx(6 * 2**30 / 1e9 * 0.99, rel=0.01)
    assert not a.options  # no other card is offered as the answer
    assert not any(w.code == "unknown_term" for w in a.warnings)
    b = ask(kb, "price of an rtx 2060")
    assert b.headline.code == "unknown_gpu" and b.headline.params["suggestions"]


def test_throughput_on_named_hardware_is_the_aggregate_at_capacity(kb):
    # Throughput asked on fixed hardware: the most users the configuration serves at the 10 tokens/s floor
    # (policy.yaml), and the tokens/s they get in all; each user's share is total / users >= the floor.
    a = ask(kb, "mixtral 8x22b on 4x H100 throughput")
    assert a.headline.code == "throughput_capacity"
    o = a.options[a.recommendation]
    assert o.gpu_count == 4 and o.max_users > 1
    assert a.headline.params["total_tps"] == pytest.approx(o.throughput_tps)
    assert a.headline.params["per_user_tps"] == pytest.approx(o.throughput_tps / o.max_users)
    assert a.headline.params["per_user_tps"] >= 10.0


def test_a_training_run_that_misses_the_deadline_says_no_first(kb):
    # 6 x 70e9 x 15e12 = 6.3e24 FLOPs (6ND, Kaplan et al. 2020); on 512 H100s the run takes over a year, far
    # beyond 30 days; the tokens trainable in 30 days scale with time: 15T x 720 h / (run hours).
    a = ask(kb, "pretraining a 70b on 15T tokens with 512 h100s within 30 days, possible?")
    assert a.headline.code == "training_misses_deadline"
    p = a.headline.params
    assert p["deadline_hours"] == 720
    assert p["tokens_in_deadline_tokens"] == pytest.approx(15e12 * 720 / p["wall_hours"])
    alt = next(o for o in a.options if "count" in o.changes)
    assert alt.wall_clock_hours <= 720 and alt.gpu_count > 512


def test_the_largest_model_a_training_budget_buys(kb):
    # $300k at the cheapest H100 SXM rate that rents a node, $17.07 / 8 = $2.13375/GPU-h (prices/vast.yaml
    # 8x-H100_SXM $17.07/h; policy offers: every offer by price) = 140,598
    # GPU-hours; C = GPU-h x 3600 x 989e12 x MFU x goodput (efficiency.yaml); N = sqrt(C / (6 x 20)) (Chinchilla).
    from bot.estimation import efficiency_for
    a = ask(kb, "largest model we could pretrain compute-optimally on h100s with a $300k budget")
    assert a.headline.code == "largest_trainable"
    p = a.headline.params
    assert p["gpu_hours"] == pytest.approx(300_000 / (17.07 / 8))
    eff = efficiency_for(kb)
    mfu, _ = eff.training_mfu_for(kb.gpus["h100-sxm-80gb"], "bf16")
    c = 300_000 / (17.07 / 8) * 3600 * 989e12 * mfu * eff.c("training_goodput")
    assert p["params_b"] == pytest.approx((c / 120) ** 0.5 / 1e9)
    assert p["tokens_tokens"] == pytest.approx(20 * p["params_b"] * 1e9)


def test_a_named_cloud_without_prices_is_said_not_replaced(kb):
    # knowledge/prices/common/unpriced_providers.yaml: Alibaba Cloud has no sourced list price; the answer says so
    # first and prices the GPU elsewhere, labelled as elsewhere.
    a = ask(kb, "在阿里云租一张 A100 80G 每小时多少钱")
    assert a.headline.code == "quote_elsewhere"
    assert any(n.code == "provider_unpriced" for n in a.missing)
    assert all("provider" in o.changes for o in a.options)
