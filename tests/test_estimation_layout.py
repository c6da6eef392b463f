"""Layout as a decision (TP / PP / replicas / EP by objective) and interconnect costs, hand-computed.

Constants are those of knowledge/efficiency.yaml (engines, interconnects, inference_mfu, constants); each
test writes the arithmetic out.
"""

from __future__ import annotations

import math

import pytest

from bot.estimation import EstimationError, estimate_inference
from bot.kb.loader import load_knowledge

H100_BW = 3350e9
H100_BF16 = 989e12


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def _ttft_llama2_70b_h100(tp: int) -> float:
    """TTFT of a 2,048-token prompt for Llama 2 70B fp16 on a TP group of H100s, TensorRT-LLM class (one
    pass, no chunking). Hopper 16-bit GEMM/attention efficiency 0.70; activation kernels at 0.72 of the
    bandwidth; 5 us per layer; two all-reduces per layer of 2,048 x 8,192 x 2 B over NVLink
    (10 + 4 x log2(tp) us + 2 (tp-1)/tp x bytes / (900/2 x 0.7 GB/s)); +5 ms fixed."""
    params, layers, h, inter, n = 68_976_648_192, 80, 8192, 28672, 2048
    gemm = 2 * params * n / tp / (H100_BF16 * 0.70)
    attn = 2 * layers * n**2 * 8192 / tp / (H100_BF16 * 0.70)
    io = n * layers * 2 * (16 * h + 4 * inter / tp) / (H100_BW * 0.72)
    allreduce = (10 + 4 * math.log2(tp)) * 1e-6 + 2 * (tp - 1) / tp * n * h * 2 / (450e9 * 0.7)
    return gemm + attn + io + layers * 5e-6 + layers * 2 * allreduce + 0.005


def test_latency_objective_spans_the_gpus_and_lowers_ttft(kb):
    # Issue 15: TTFT for Llama 2 70B on 4x H100 came out +208% with one GPU per copy where the published run used
    # TP4. At batch 1 the objective is latency, and one TP4 group beats two TP2 replicas:
    # TP4: GEMMs 2 x 68.98e9 x 2,048 / 4 / 692.3 TFLOPS = 102.0 ms, attention 2.0, activation kernels 21.7,
    # all-reduces 80 x 2 x 177.8 us = 28.4, + 0.4 + 5 = 159.5 ms; TP2: 204.1 + 4.0 + 25.6 + 19.3 + 5.4 = 258 ms.
    r = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=4, precision="fp16", input_tokens=2048,
                           output_tokens=128, engine="tensorrt-llm")
    assert (r.objective, r.tensor_parallel, r.pipeline_stages, r.replicas) == ("latency", 4, 1, 1)
    assert r.ttft_s == pytest.approx(_ttft_llama2_70b_h100(4), rel=1e-6)
    fixed = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=4, precision="fp16", input_tokens=2048,
                               output_tokens=128, engine="tensorrt-llm", tensor_parallel=2)
    assert (fixed.tensor_parallel, fixed.replicas) == (2, 2)
    assert fixed.ttft_s == pytest.approx(_ttft_llama2_70b_h100(2), rel=1e-6)
    assert r.ttft_s < 0.65 * fixed.ttft_s


def test_throughput_objective_prefers_replicas(kb):
    # At the largest batch the objective is throughput: Llama 3 8B fits one H100, so 4 GPUs are 4 replicas (each
    # reads its weights once per step for its own batch) rather than one TP4 group paying all-reduces.
    r = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=4, input_tokens=512, output_tokens=512,
                           batch_size="max")
    assert r.objective == "throughput"
    assert (r.tensor_parallel, r.replicas) == (1, 4)
    tp4 = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=4, input_tokens=512, output_tokens=512,
                             batch_size="max", tensor_parallel=4)
    assert r.throughput_tokens_per_s > tp4.throughput_tokens_per_s


def test_objective_default_threshold_comes_from_data(kb):
    # latency_objective_max_batch = 8 (efficiency.yaml): batch 8 is latency, batch 9 throughput
    small = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=2, batch_size=8)
    large = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=2, batch_size=9)
    assert small.objective == "latency" and small.tensor_parallel == 2
    assert large.objective == "throughput" and large.replicas == 2
    forced = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=2, batch_size=9, objective="latency")
    assert forced.tensor_parallel == 2


def test_impossible_layouts_say_why(kb):
    with pytest.raises(EstimationError, match="tensor parallel degree 3 is not valid"):
        estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=6, tensor_parallel=3)
    with pytest.raises(EstimationError, match="8 GPUs cannot be laid out as TP 4 x 3 replicas"):
        estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, tensor_parallel=4, replicas=3)
    with pytest.raises(EstimationError, match="expert parallelism needs a mixture-of-experts model"):
        estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, expert_parallel=2)
    with pytest.raises(EstimationError, match="objective must be"):
        estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, objective="cheap")


def test_given_parts_fix_the_layout(kb):
    r = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, precision="fp16", pipeline_parallel=2)
    assert r.pipeline_stages == 2 and r.tensor_parallel * r.pipeline_stages * r.replicas == 8
    r = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, precision="fp16", replicas=2)
    assert (r.tensor_parallel, r.replicas) == (4, 2)


def test_pipeline_stages_only_when_needed(kb):
    # 70B fp8 fits a TP2 group of H100s; the throughput search may not reach for TP1 x PP2 even though it would
    # leave more room for KV (serving practice: TP inside a node, PP across nodes)
    r = estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, precision="fp8", batch_size="max")
    assert r.pipeline_stages == 1
    # a 405B model in bf16 (812 GB) does not fit one 8-GPU TP group: pipeline stages across 16 GPUs
    big = estimate_inference(kb, "llama-3.1-405b", "h100-sxm-80gb", count=16, precision="bf16")
    assert (big.tensor_parallel, big.pipeline_stages) == (8, 2)


def test_interconnect_cost_is_modelled_not_a_factor(kb):
    # Llama 3 8B bf16, batch 1, TP2. Two all-reduces per layer of 4,096 x 2 B = 8,192 B:
    #   RTX 4090 (no NVLink, no P2P: through host memory): 45 + 20 x log2(2) = 65 us + 2 x 1/2 x 8,192 B / 10 GB/s
    #   = 65.8 us; H100 SXM (NVLink 900 GB/s): 10 + 4 = 14 us + 8,192 / (450 x 0.7 GB/s) = 14.03 us.
    geforce = estimate_inference(kb, "llama-3-8b", "rtx-4090-24gb", count=2, tensor_parallel=2)
    nvlink = estimate_inference(kb, "llama-3-8b", "h100-sxm-80gb", count=2, tensor_parallel=2)
    assert geforce.interconnect == "no_p2p" and nvlink.interconnect == "nvlink"
    assert geforce.decode_breakdown.collectives_ms == pytest.approx(32 * 2 * (65e-6 + 8192 / 10e9) * 1e3, rel=1e-6)
    assert nvlink.decode_breakdown.collectives_ms == pytest.approx(32 * 2 * (14e-6 + 8192 / 315e9) * 1e3, rel=1e-6)


def test_group_spanning_nodes_reduces_hierarchically(kb):
    # TP16 over two 8-GPU H100 nodes: each all-reduce = one inside the node (NVLink, 8 GPUs) + one across the 2
    # nodes over InfiniBand carrying 1/8 of the bytes per NIC: 25 + 8 x log2(2) us + 2 x 1/2 x S/8 / 40 GB/s.
    from bot.estimation import efficiency_for

    eff = efficiency_for(kb)
    gpu = kb.gpus["h100-sxm-80gb"]
    s = 8192 * 7168 * 2
    intra = (10 + 4 * 3) * 1e-6 + 2 * 7 / 8 * s / 315e9
    inter = (25 + 8) * 1e-6 + 2 * 1 / 2 * s / 8 / 40e9
    assert eff.allreduce_s(gpu, 16, s, 8) == pytest.approx(intra + inter, rel=1e-9)
