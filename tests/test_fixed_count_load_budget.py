"""A fixed setup whose engine budget cannot hold even one user's KV cache is judged at the users asked, not at one:
"Yes, just (raise the memory setting)" is said only when the asked load fits below the policy's ceiling.

Figures (by hand): DeepSeek-R1's MLA cache keeps 61 layers x (512 latent + 64 RoPE) x 2 bytes = 70,272 bytes per
token (knowledge/models.yaml deepseek-r1: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers); 10 users x 65,536 tokens
= 655,360 tokens -> 46.05 GB in bf16. On 8x H20 (102.0 GB usable each, knowledge/gpus.yaml 96 GB marketed) the fp8
weights are 671 / 8 = 83.9 GB per GPU before any cache: with 46 GB more, across the group or replicated, the asked load
is beyond 0.97 x 102.0 = 99.0 GB per GPU (policy.yaml max_memory_utilization).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text", [
    "deepseek r1 fp8 on 8x H20, 64k context, 10 concurrent users, enough?",
    "8 张 H20 跑 DeepSeek R1 fp8，64k 上下文，10 个并发，够吗",
])
def test_the_asked_load_is_judged(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    first = a.options[0]
    assert first.gpu_count == 8 and first.precision == "fp8" and first.users == 10
    assert first.meets is False
    assert a.headline.code != "fit_tight_budget"
    assert first.kv_cache_gb == pytest.approx(46.05, rel=0.01)
    assert first.memory_per_gpu_gb > 0.97 * first.usable_gb


def test_speed_asked_of_a_tight_setup_leads_with_the_speed(kb):
    # Qwen2.5 72B int4 on 2x RTX 4090 holds only with the memory setting raised (23.8 of 25.5 GB per GPU, above
    # vLLM's default 0.9): the speed and first token asked come first, the setting second
    a = advise(parse_question("qwen2.5 72b int4 on two 4090s, single-user tok/s and TTFT for a 4000 token prompt?",
                              kb), kb, today=TODAY)
    assert a.headline.code == "speed_single"
    assert a.details[0].code == "fit_tight_budget"
    assert a.headline.params["ttft_s"] == a.options[0].ttft_s


def test_one_requests_latency_is_no_batch_job(kb):
    # "一条请求": one request's first token and speed, not a job of one item (whose "time" is a batch's)
    a = advise(parse_question("Llama 3.1 8B 在 L20 上用 vLLM，输入 8k 输出 500，一条请求首字延迟和总耗时？", kb), kb,
               today=TODAY)
    assert a.headline.code == "speed_single"
    assert a.headline.params["ttft_s"] == a.options[0].ttft_s
