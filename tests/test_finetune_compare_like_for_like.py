"""A fine-tuning comparison of two GPU types compares each at the fewest GPUs that run it (like for like), names the
run's token count beside the cost, and says when the gap per GPU comes from gradient checkpointing rather than compute.

By hand: a 34B model in QLoRA (NF4 base ~17 GB + adapters + activations) fits one A100 of either size. Both A100s have
the same 312 dense bf16 TFLOPS (knowledge/gpus.yaml), so the 40GB card is slower per GPU only because it must
recompute activations: LoRA/QLoRA FLOPs per token are forward 2P + backward (activation grads only) 2P = 4P, and
recomputing the forward adds 2P: 6P / 4P = 1.50x the GPU-hours.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "A100 40GB vs 80GB for qlora on a 34b model",
    "A100 40G 和 80G 做 34B 模型 QLoRA 微调差多少",
])
def test_like_for_like_and_the_reason(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "finetune_compare"
    assert h.params["fast"]["gpu_count"] == 1 and h.params["slow"]["gpu_count"] == 1
    assert h.params["ratio_x"] == pytest.approx(1.5, rel=0.01)
    assert h.params["run_tokens"] == 100e6  # the default run, said beside its cost
    assert any(d.code == "finetune_checkpointing_gap" for d in a.details)


def test_training_per_gpu_is_each_cards_best_layout(kb):
    # H100 SXM and H200 SXM have the same 989 dense bf16 TFLOPS (knowledge/gpus.yaml): at the layouts where neither
    # recomputes nor replicates, their GPU-hours are equal; a small count's layout is not the card's speed
    a = advise(parse_question("compare H100 and H200 for training llama 3 70b on 1T tokens", kb), kb, today=TODAY)
    assert a.headline.code == "training_per_gpu_same"
    assert a.headline.params["ratio_x"] == pytest.approx(1.0, abs=0.03)


def test_export_variants_differ_in_their_link(kb):
    # H800 and H100 SXM have the same compute (989 dense bf16 TFLOPS); NVLink 400 vs 900 GB/s (knowledge/gpus.yaml):
    # the per-GPU speed is the same and the link ratio 400 / 900 = 0.44 is said
    a = advise(parse_question("H800 vs H100 for a LoRA fine-tune of llama 3 70b on 64 GPUs", kb), kb, today=TODAY)
    assert a.headline.code == "finetune_compare_same"
    link = next(d for d in a.details if d.code == "ratio_nvlink")
    assert link.params["ratio_x"] == pytest.approx(400 / 900, rel=0.01)


def test_every_format_asked_on_every_gpu_compared(kb):
    # two formats x two GPUs asked "how many of each": four counts. DeepSeek-R1 fp8 (671 GB) needs 8 H20 (102 GB
    # usable each) or 16 H800 (85 GB); int4 (~0.5 byte per weight, ~350 GB) 4 H20 or 8 H800
    a = advise(parse_question("DeepSeek-R1 fp8 and int4 on H20 vs H800, how many of each?", kb), kb, today=TODAY)
    items = {(i["config"]["gpu_name"], i["config"]["precision"]): i["config"]["gpu_count"]
             for i in a.headline.params["items"]}
    assert items == {("H20", "fp8"): 8, ("H800 SXM5 80GB", "fp8"): 16, ("H20", "int4"): 4,
                     ("H800 SXM5 80GB", "int4"): 8}
