"""Chinese answers as a Chinese-speaking team reads them: machines for a load, GPUs and models that do not exist,
China-market price mentions used the same way by every kind of answer, follow-ups that keep pricing.

Every question here is written for this file. Figures are worked out by hand from the knowledge base's sourced
numbers, cited beside each assertion.
"""

from __future__ import annotations

import math
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.conversation import respond_to
from bot.parsing.parser import parse_question
from bot.render.compose import compose
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)

# gpus.yaml a800-sxm-80gb: 80 GB (GiB of DRAM) x 1.073741824 x efficiency.yaml usable_memory_fraction_hbm 0.99
A800_USABLE_GB = 80 * 1.073741824 * 0.99            # = 85.04 GB
# models.yaml llama-3.1-405b params_total_b 405.8533888 (exact, HF safetensors); fp16 = 2 bytes per parameter
LLAMA_405B_FP16_GB = 405.8533888 * 2                # = 811.7 GB
# policy.yaml limits.gpus_per_machine: servers of 8 GPUs
GPUS_PER_MACHINE = 8


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def said(answer) -> str:
    """Everything the terminal shows with --verbose (the reader's view)."""
    return render_text(answer, verbose=True)


# --------------------------------------------------------------------------- machines for a load (台, 每台 N 卡)

def test_machines_are_asked_without_a_size_per_machine(kb):
    # 811.7 GB of fp16 weights do not fit 8 A800s (8 x 85.0 = 680 GB); 128 heads allow TP 8, then pipeline stages
    # of 8, so 16 GPUs = 2 servers of 8
    assert LLAMA_405B_FP16_GB > GPUS_PER_MACHINE * A800_USABLE_GB
    a = ask(kb, "准备把 llama 3.1 405b 以 fp16 部署到 A800 上，只有一个人用，要准备几台机器？")
    assert "node_count" in a.query.asks
    o = a.options[a.recommendation]
    assert (o.gpu, o.gpu_count, o.precision) == ("a800-sxm-80gb", 16, "fp16")
    assert a.headline.code == "machines_needed"
    assert a.headline.params["machines"] == 2 == math.ceil(16 / GPUS_PER_MACHINE)
    assert a.headline.params["per_node"] == GPUS_PER_MACHINE
    text = said(a)
    assert text.splitlines()[1].startswith("需要 2 台（每台 8 卡）")
    assert "按每台 8 卡的服务器计算台数" in text  # the machine size is an assumption, said


@pytest.mark.parametrize("question", [
    "qwen2.5 72b 要支撑 250 个并发，用 L20 的话得买几台服务器",
    "用 H20 跑 deepseek v3，高峰 150 人同时在用，需要多少台机器",
    "国产化要求，用 910B 部署 qwen2.5 32b 给 300 人并发，要几台",
])
def test_machines_lead_every_load_question(kb, question):
    a = ask(kb, question)
    assert a.headline.code == "machines_needed", compose(a).headline
    o = a.options[a.recommendation]
    per = a.headline.params["per_node"]
    assert a.headline.params["machines"] == math.ceil(o.gpu_count / per)
    line = compose(a).headline
    assert "台" in line and f"每台 {per} 卡" in line and "张" in line


def test_a_stated_machine_size_is_kept(kb):
    # "每台 4 卡" is the machine: 16 A800s for 405B in fp16 (above) are 4 machines of 4
    a = ask(kb, "我们的服务器每台 4 卡 A800，fp16 跑 llama 3.1 405b 要几台")
    assert a.headline.code == "machines_needed"
    assert a.headline.params["per_node"] == 4
    o = a.options[a.recommendation]
    assert a.headline.params["machines"] == math.ceil(o.gpu_count / 4)
    assert not any(n.code == "machine_size_assumed" for n in a.assumptions)


def test_machines_for_fine_tuning_and_batch_jobs(kb):
    ft = ask(kb, "全参微调 qwen2.5 72b，用 A800，需要几台服务器")
    assert ft.headline.code == "machines_needed"
    o = ft.options[ft.recommendation]
    assert ft.headline.params["machines"] == math.ceil(o.gpu_count / GPUS_PER_MACHINE)
    job = ask(kb, "用 qwen2.5 7b 把 200 万条客服对话打标签，每条输入 600 token 输出 30 token，"
                  "12 小时内跑完，需要几台 L20 机器")
    assert (job.query.input_tokens, job.query.output_tokens) == (600, 30)  # "输入 600 token 输出 30 token"
    assert job.headline.code == "machines_needed"
    assert job.headline.params["machines"] == math.ceil(job.headline.params["config"]["gpu_count"] / GPUS_PER_MACHINE)
