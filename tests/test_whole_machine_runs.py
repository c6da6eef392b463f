"""A run with no GPU count given is also planned on one whole 8-GPU machine (knowledge/policy.yaml
limits.gpus_per_machine) when that costs less: data parallelism keeps the GPU-hours about the same, and whole
HGX nodes rent for less per GPU-hour than a cloud's 4-GPU slice.

Hand check: a full fine-tune of a 13B model on 500M tokens is 6 x 13e9 x 5e8 = 3.9e19 FLOPs; the fewest A100
80GB that hold it (16 bytes/param = 208 GB of states, sharded) are 4, rented as GCP a2-ultragpu-4g at $20.27519/h
($5.07/GPU-h, knowledge/prices/gcp.yaml); 8 on RunPod 8x_A100-80GB-SXM_SECURE cost $15.12/h = $1.89/GPU-h
(knowledge/prices/runpod.yaml): at equal GPU-hours, 1.89 / 5.07 = 37% of the bill.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "how much to full finetune a 13b model on 500M tokens on A100s",
    "在 A100 上全参微调一个 13B 模型，5 亿 token，要花多少钱",
])
def test_a_whole_machine_run_leads_when_it_costs_less(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    best = a.options[a.recommendation]
    fewest = min((o for o in a.options if o.fits), key=lambda o: o.gpu_count)
    assert fewest.gpu_count == 4 and fewest.price_per_hour_usd == pytest.approx(20.27519)
    assert (best.gpu_count, best.price_per_hour_usd) == (8, 15.12)
    assert best.gpu_hours == pytest.approx(fewest.gpu_hours, rel=0.1)
    assert best.total_cost_usd == pytest.approx(best.wall_clock_hours * 15.12, rel=1e-6)
    assert best.total_cost_usd < 0.5 * fewest.total_cost_usd


def test_a_count_given_is_kept(kb):
    a = advise(parse_question("how much to full finetune a 13b model on 500M tokens on 4x A100 80GB", kb), kb,
               today=TODAY)
    assert {o.gpu_count for o in a.options if o.fits and not o.changes} == {4}


@pytest.mark.parametrize(("text", "hours"), [
    ("RunPod vs Lambda for 8x H100 training a 13b for two weeks", 336),
    ("用 64 张 A100 训练 7b 模型 跑一个月 能训多少", 730),
])
def test_a_fixed_training_setup_for_a_stated_time_is_that_rental(kb, text, hours):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    o = a.options[0]
    assert o.wall_clock_hours == hours
    assert o.total_cost_usd == pytest.approx(o.price.price_per_hour_usd * hours, rel=1e-6)


def test_a_fixed_setup_for_a_stated_time_asked_as_a_cost_is_that_rental(kb):
    # 32 H100 for 72 h: the rental and the tokens it trains; RunPod 8x H100 at $23.92/h (knowledge/prices) x 4 x 72
    a = advise(parse_question("we have 32 H100s for 3 days to pretrain a 1b model, how far do we get? compare lambda "
                              "vs runpod cost", kb), kb, today=TODAY)
    o = a.options[0]
    assert o.gpu_count == 32 and o.wall_clock_hours == 72
    assert o.total_cost_usd == pytest.approx(o.price.price_per_hour_usd * 72, rel=1e-6)


def test_a_fixed_setup_without_a_list_price_is_costed_at_its_secondary_figure(kb):
    # AutoDL's A800 figure ¥4.98 per GPU-hour (knowledge/prices price mentions) x 16 x 336 h = ¥26,772
    a = advise(parse_question("16 张 A800 训练一个 13B 模型两周，能训多少 token，花多少钱？", kb), kb, today=TODAY)
    o = a.options[0]
    assert o.price.origin == "secondary" and o.wall_clock_hours == 336
    assert o.total_cost_usd == pytest.approx(o.price.price_per_gpu_hour_usd * 16 * 336, rel=1e-6)
    assert any(w.code == "priced_secondary" for w in a.warnings)
