"""A GPU count the user fixed that no tensor-parallel degree spans (3, 6 GPUs) is also tried as one group with
pipeline stages over all of them: replicas that each hold the weights may have no room left for the users' KV
cache, where one 3-stage pipeline does.

Hand check (knowledge/models.yaml, Llama 3 70B: 80 layers, 8 KV heads x 128 dims): KV cache per token =
2 x 80 x 8 x 128 x 2 bytes = 327,680 B; 20 users at 8,192 tokens = 53.7 GB. Int4 weights are 39.8 GB (the
estimate's 4-bit format with its scales). One A100 40GB (42.5 GB usable) holds the weights alone with 2.7 GB
left, far short of even 7 users' 18.8 GB; three as one pipeline hold 39.8 + 53.7 = 93.5 GB plus overhead in
3 x 42.5 = 127.5 GB.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_three_gpus_serve_as_one_pipeline_when_replicas_cannot(kb):
    a = advise(parse_question("serve llama 3 70b on 3x A100 40GB at 8k, 20 users", kb), kb, today=TODAY)
    o = a.options[a.recommendation]
    assert (o.gpu, o.gpu_count) == ("a100-sxm-40gb", 3)
    assert o.meets and o.tensor_parallel * o.pipeline_parallel == 3
    assert abs(o.kv_cache_gb - 20 * 8192 * 327_680 / 1e9) < 0.1  # 53.7 GB, as above
    assert o.memory_per_gpu_gb <= o.usable_gb


def test_a_count_that_cannot_hold_the_model_is_judged_as_one_group(kb):
    # DeepSeek-R1 in bf16: 671e9 x 2 = 1,342 GB over 16 A800 80GB is 83.9 GB of weights per GPU, beyond the
    # 85.0 GB usable once KV cache and overhead are added; judged per GPU of all 16, not of 8-GPU replicas (167.8)
    a = advise(parse_question("DeepSeek R1 671B 满血版用两台8卡A800 能跑起来吗？bf16的话呢", kb), kb, today=TODAY)
    o = a.options[0]
    assert o.gpu_count == 16 and not o.fits
    assert o.memory_per_gpu_gb == pytest.approx(o.memory_total_gb / 16, rel=1e-6)
    assert 83.9 < o.memory_per_gpu_gb < 90
