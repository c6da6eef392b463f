"""The planner: fixed constraints are kept, inverse questions are solved, instance shapes are respected.

Expectations are worked out by hand from the knowledge files (prices as of their dates) or from the sizing
engine's own estimate at the configuration chosen, so planner and estimator can never disagree silently.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.context import Context
from bot.advice.planner import (
    ServingLoad,
    candidate_gpus,
    place,
    plan_serving,
    precisions_for,
    serving_load,
    serving_option,
)
from bot.estimation import estimate_inference
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def _ctx(kb, text: str) -> Context:
    return Context(parse_question(text, kb), kb, TODAY)


def _load(**kw) -> ServingLoad:
    base = dict(users=None, per_user_tps=10.0, per_user_given=False, total_tps=None, ttft_s=None, tpot_ms=None,
                context_tokens=4096, input_tokens=None, output_tokens=None, kv_precision=None)
    base.update(kw)
    return ServingLoad(**base)


def test_named_gpu_and_count_are_fixed_choices(kb):
    choices = candidate_gpus(_ctx(kb, "serve llama 3 70b on 4x a100 40gb"), "serving")
    assert [(c.gpu.id, c.count, c.fixed) for c in choices] == [("a100-sxm-40gb", 4, True)]


def test_unnamed_gpus_come_from_the_policy(kb):
    ctx = _ctx(kb, "serve llama 3 70b to 50 users")
    assert [c.gpu.id for c in candidate_gpus(ctx, "serving")] == kb.policy.serving.candidate_gpus
    zh = _ctx(kb, "部署 llama 3 70b 给 50 个用户")
    assert [c.gpu.id for c in candidate_gpus(zh, "serving")] == kb.policy.serving.candidate_gpus_zh


def test_a_stated_precision_is_never_swapped(kb):
    # the T4 has no FP8 tensor cores (compute capability 7.5 < 8.9) and is below FP8 Marlin's weight-only path
    # (8.0, vLLM marlin_utils_fp8): the plan fails with that reason
    ctx = _ctx(kb, "llama 3 8b in fp8 on 1x t4")
    gpu = kb.gpus["t4-16gb"]
    assert precisions_for(ctx, kb.models["llama-3-8b"], gpu) == [("fp8", True)]
    plan = plan_serving(ctx, kb.models["llama-3-8b"], gpu, "fp8", _load(users=1), count=1)
    assert not plan.meets and plan.rejection.code == "reject_precision"
    assert serving_option(ctx, plan).precision == "fp8"


def test_full_precision_means_the_released_dtype(kb):
    # "满血" DeepSeek-R1 is its released FP8 checkpoint (knowledge/models.yaml native_precision: fp8)
    ctx = _ctx(kb, "deepseek-r1 满血版 8 张 H20")
    assert precisions_for(ctx, kb.models["deepseek-r1"], kb.gpus["h20-96gb"]) == [("fp8", True)]


def test_users_served_is_the_largest_batch_meeting_the_floor(kb):
    ctx = _ctx(kb, "how many users can one a100 40gb serve with llama 3.1 8b at 4k ctx")
    model, gpu = kb.models["llama-3.1-8b"], kb.gpus["a100-sxm-40gb"]
    plan = plan_serving(ctx, model, gpu, "bf16", _load(), count=1, objective="capacity")
    assert plan.capacity > 1

    def per_user(batch: int) -> float:
        e = estimate_inference(kb, model, gpu, count=1, precision="bf16", context_tokens=4096, batch_size=batch,
                               tensor_parallel=1)
        ok = e.fits and (e.max_batch_size is None or e.max_batch_size >= batch)
        return e.throughput_tokens_per_s / batch if ok else 0.0

    # the estimator agrees: the capacity meets 10 tokens/s per user, one more sequence does not
    assert per_user(plan.capacity) >= 10.0
    assert per_user(plan.capacity + 1) < 10.0


def test_a_capacity_not_needed_to_choose_the_plan_is_searched_when_read(kb):
    # one user on one A100: the layout is chosen without the capacity, so its batch bisection waits until read;
    # read, it is the capacity the "capacity" objective searches at once, and the estimator agrees with it
    ctx = _ctx(kb, "llama 3.1 8b on one a100 40gb")
    model, gpu = kb.models["llama-3.1-8b"], kb.gpus["a100-sxm-40gb"]
    plan = plan_serving(ctx, model, gpu, "bf16", _load(users=1), count=1)
    assert plan.meets and plan.batch == 1
    searched = len(ctx._planner_memo.estimates)
    capacity = plan.capacity
    assert len(ctx._planner_memo.estimates) > searched  # the bisection ran on this read, not before
    at_once = plan_serving(_ctx(kb, "llama 3.1 8b on one a100 40gb"), model, gpu, "bf16", _load(), count=1,
                           objective="capacity")
    assert capacity == at_once.capacity > 1

    def per_user(batch: int) -> float:
        e = estimate_inference(kb, model, gpu, count=1, precision="bf16", context_tokens=4096, batch_size=batch,
                               tensor_parallel=1)
        ok = e.fits and (e.max_batch_size is None or e.max_batch_size >= batch)
        return e.throughput_tokens_per_s / batch if ok else 0.0

    assert per_user(capacity) >= 10.0 > per_user(capacity + 1)


def test_aggregate_target_uses_replicas_of_the_best_batch(kb):
    ctx = _ctx(kb, "qwen2.5 72b on h100")
    model, gpu = kb.models["qwen2.5-72b"], kb.gpus["h100-sxm-80gb"]
    plan = plan_serving(ctx, model, gpu, "fp8", _load(total_tps=2000.0, ttft_s=0.5))
    assert plan.meets
    assert plan.throughput_tps >= 2000.0
    # one replica fewer would fall short: replicas = ceil(2000 / per-replica throughput)
    per_replica = plan.est.throughput_tokens_per_s
    assert plan.replicas == math.ceil(2000.0 / per_replica)
    assert plan.per_user_tps >= 10.0 and plan.est.ttft_s <= 0.5


def test_a_fixed_count_is_kept_and_layout_chosen_within_it(kb):
    ctx = _ctx(kb, "llama 3 70b on 8x h100")
    plan = plan_serving(ctx, kb.models["llama-3-70b"], kb.gpus["h100-sxm-80gb"], "bf16", _load(users=1), count=8)
    assert plan.count == 8
    # one user on eight GPUs: the layout that decodes fastest is one group across all of them
    assert plan.tp * plan.pp == 8 and plan.replicas == 1


def test_a_tp_group_is_priced_as_one_instance(kb):
    # knowledge/prices/digitalocean.yaml: MI300X droplets of 1 ($1.99/h) and 8 GPUs ($15.92/h) only.
    # Four MI300X in one tensor-parallel group need the 8-GPU droplet; as four replicas, four 1-GPU droplets.
    ctx = _ctx(kb, "mi300x on digitalocean")
    gpu = kb.gpus["mi300x-192gb"]
    group = place(ctx, gpu, 4, 4, provider="digitalocean")
    assert (group.price_per_hour_usd, group.idle_gpus, group.offer.gpu_count) == (15.92, 4, 8)
    replicas = place(ctx, gpu, 4, 1, provider="digitalocean")
    assert round(replicas.price_per_hour_usd, 2) == 7.96 and replicas.instances == 4


def test_paid_idle_gpus_are_used(kb):
    # DeepSeek-V3 fp8 (671 GB) needs four MI300X (4 x 204 GB usable); DigitalOcean rents 8: the plan uses all 8
    ctx = _ctx(kb, "deepseek v3 on digitalocean mi300x")
    plan = plan_serving(ctx, kb.models["deepseek-v3"], kb.gpus["mi300x-192gb"], "fp8", serving_load(ctx))
    assert plan.meets and plan.count == 8
    assert plan.placement.offer.gpu_count == 8 and plan.placement.idle_gpus == 0


@pytest.mark.parametrize("text,floor", [
    ("serve llama 3 8b to 50 users", 10.0),          # policy floor for several users
    ("serve llama 3 8b at 30 tok/s per user", 30.0),  # the user's own floor
    ("llama 3 8b on a 4090, fit?", 0.0),              # one user on named hardware: report, do not fail
])
def test_per_user_floor(kb, text, floor):
    assert serving_load(_ctx(kb, text)).per_user_tps == floor


def test_a_stated_memory_variant_is_planned_with_that_memory(kb):
    # "H20 141G": the 141 GB H20 (not the 96 GB datasheet card): usable = 141 x 2^30 / 1e9 x 0.99
    # (efficiency.yaml usable_memory_fraction_hbm) = 149.9 GB per GPU.
    choices = candidate_gpus(_ctx(kb, "8卡H20 141G跑deepseek r1够不够"), "serving")
    assert choices[0].gpu.memory_gb == 141 and choices[0].count == 8
    est = estimate_inference(kb, "deepseek-r1", choices[0].gpu, count=8, precision="fp8", tensor_parallel=8)
    assert est.memory.usable_memory_gb == pytest.approx(141 * 2**30 / 1e9 * 0.99)
