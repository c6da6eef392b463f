"""Inference sizing: memory, fit, layout, TTFT, decode speed and throughput for one model on one GPU type.

Formulas (estimation-notes.md, "Memory for inference" and "Throughput and latency"; constants in
``knowledge/efficiency.yaml``, engine defaults in ``knowledge/engines.yaml``):

* per-GPU memory = weights / (TP x PP) + KV x shard / PP + overhead, with KV shard = 1/min(TP, n_kv)
  (KV heads replicated when TP > n_kv; the MLA latent is replicated on every rank unless attention
  runs data-parallel); the KV budget is the engine's memory fraction of the whole GPU (vLLM, SGLang)
  or of what weights and activations leave (TensorRT-LLM);
* one forward pass (per pipeline stage, per GPU) = max(weight bytes read / (bandwidth x MBU),
  GEMM FLOPs / (dense peak x efficiency)) + max(KV bytes read / (bandwidth x MBU), attention FLOPs /
  (16-bit peak x efficiency)) [+ the score matrix's trips through memory when the engine does not
  fuse attention: heads x score elements x ``unfused_attention_score_bytes`` / bandwidth]
  + memory-bound activation kernels (norms, RoPE, residuals, SwiGLU,
  quantisation) + layers x (per-layer cost + the weight format's own per-layer kernel cost (Marlin
  int4) + MoE routing cost + MLA cost) + collectives. The GEMMs
  and the attention kernels run one after the other. Weight bytes = what the tokens touch (MoE: the
  shared part and the experts routed to; the busiest expert-parallel rank sets the pace); small
  batches pay whole tensor-core tiles (``tensor_core_tile_tokens``); routed-expert GEMMs run at the
  engine's grouped-GEMM efficiency. Collectives: two all-reduces per layer under TP (expert
  parallelism: an all-to-all dispatch and combine per MoE layer), each latency(n) + 2 (n-1)/n x bytes
  / bandwidth of the interconnect class (NVLink, PCIe, no P2P, InfiniBand across nodes, hierarchical);
* decode step (batch b at the mean context) = PP x pass(ceil(b / PP) tokens) + pipeline hand-offs +
  the engine's per-step cost; TPOT = the step;
* TTFT = the new prompt tokens (cached prefix excluded; they still attend to it) in chunks of the
  engine's token budget, each a pass over all layers; causal attention 2 x d_attn x n x (2p + n)
  FLOPs per layer for n new tokens after p cached (window-capped on sliding-window layers);
* throughput (continuous batching) = b x output / (output x decode step + the extra time of the steps
  that also carry prompt chunks); static batching (HF generate, gpt-fast, llama.cpp's one slot)
  serialises the batch prefill and the decode;
* layout: every TP x PP x replicas = count is evaluated; latency picks the least TTFT + output x TPOT,
  throughput the most aggregate tokens/s; pipeline stages only when no layout without them fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from bot.estimation.common import (
    GB,
    GIB,
    KvShape,
    dense_peak_tflops,
    get_gpu,
    get_model,
    kv_shape,
    require_positive,
    resolve_precision,
    usable_memory_gb,
    valid_tp_degrees,
    weight_bytes,
)
from bot.estimation.efficiency import EfficiencyTable, EngineProfile, efficiency_for
from bot.estimation.results import DecodeBreakdown, EstimationError, InferenceEstimate, MemoryBreakdown
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model

__all__ = ["estimate_inference", "estimate_inference_for"]

_NOTES_SRC = "estimation-notes.md (shared reference): inference memory and roofline formulas"
Objective = Literal["latency", "throughput"]


@dataclass
class _Ctx:
    """Everything that does not depend on the parallel layout."""

    eff: EfficiencyTable
    model: Model
    gpu: Gpu
    engine_name: str
    engine: EngineProfile
    weights_b: float          # bytes, one copy
    expert_b: float           # bytes of all routed experts (MoE), part of weights_b
    attn_b: float             # bytes of the attention projections (replicated under attention DP)
    expert_params: float      # parameters of one routed expert summed over layers
    kv: KvShape | None
    kv_elem: float            # bytes per KV element
    context: int
    isl: int
    osl: int
    cached: int               # prompt tokens already in the KV cache (prefix cache)
    p_active: float           # parameters per token
    mbu: float
    mfu: float | None         # inference MFU incl. engine factor (None: no peak)
    peak_flops: float | None  # dense FLOP/s per GPU for the compute precision
    attn_rate: float | None   # achievable attention FLOP/s (activation dtype: bf16/fp16 kernels)
    d_attn_prefill: int       # attention width for prefill FLOPs (heads x head dims)
    d_attn_decode: int        # attention width for decode FLOPs (MLA: absorbed latent)
    tile: int                 # tensor-core tile tokens (padded small-batch GEMMs)
    node: int                 # GPUs per node (NVLink domain)
    attention_dp: bool
    score_bytes: float = 0.0  # device-memory bytes per attention score element (0: fused attention)
    fmt_layer_us: float = 0.0  # the weight format's own per-layer kernel cost (Marlin int4), us

    def act_io_bytes(self, tp: int) -> float:
        """Bytes per token per layer per GPU moved by the memory-bound kernels around the GEMMs
        (norms, RoPE, residuals, activation, quantisation): 2 B x (a x hidden + b x intermediate / tp)."""
        m = self.model
        h = m.hidden_size or 4096
        inter = (m.moe_intermediate_size * (m.num_experts_per_tok or 1) if m.is_moe and m.moe_intermediate_size
                 else (m.intermediate_size or 4 * h))
        return 2 * (self.eff.c("activation_io_hidden_multiplier") * h
                    + self.eff.c("activation_io_intermediate_multiplier") * inter / tp)

    @property
    def mbu_io(self) -> float:
        return self.engine.decode_mbu["16bit"]

    @property
    def new_tokens(self) -> int:
        return max(1, self.isl - self.cached)

    @property
    def moe_layers(self) -> int:
        return (self.model.num_hidden_layers or 0) if self.model.is_moe else 0


@dataclass
class _Eval:
    tp: int
    pp: int
    ep: int
    replicas: int
    batch: int
    per_gpu_b: float
    weights_pg: float
    kv_pg: float
    overhead_pg: float
    fits: bool
    max_batch: int | None
    max_batch_memory: int | None
    max_context: int | None
    ttft_s: float | None = None
    max_context_memory: int | None = None
    step_s: float | None = None
    throughput: float | None = None
    bound: str | None = None
    breakdown: DecodeBreakdown | None = None
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- memory


def _overhead_bytes(c: _Ctx, tp: int, pp: int, batch: int) -> float:
    """CUDA context + engine activation workspace + communication buffers, bytes per GPU."""
    e = c.eff
    total = e.c("cuda_context_gb") * GB
    if tp * pp > 1:
        total += e.c("tp_comm_buffers_gb") * GB
    m = c.model
    if m.hidden_size:
        h = m.hidden_size
        inter = m.intermediate_size or 4 * h
        budget = c.engine.activation_token_budget or max(1, batch * c.new_tokens)
        total += budget * 2 * (e.c("workspace_hidden_multiplier") * h
                               + e.c("workspace_intermediate_multiplier") * inter / tp)
        seqs = min(max(batch, 1), budget)
        total += seqs * (m.vocab_size or 32000) * e.c("logits_bytes") / tp
    else:
        total += 0.5 * GB
    return total


def _adp_extra(c: _Ctx, tp: int, pp: int) -> float:
    """Extra weight bytes per GPU under attention data parallelism: every rank holds whole what the
    engine replicates (``attention_dp_replicates``, knowledge/engines.yaml) instead of 1/tp of it:
    the attention projections, or every weight but the routed experts (TensorRT-LLM builds dense
    MLP layers and shared experts with ``overridden_tp_size=1`` and an untiled embedding and LM head
    when ``enable_attention_dp`` is on)."""
    if not (c.attention_dp and tp > 1):
        return 0.0
    whole = c.weights_b - c.expert_b if c.engine.attention_dp_replicates == "non_expert" else c.attn_b
    return whole * (1 - 1 / tp) / pp


def _attention_params(m: Model) -> float:
    """Parameters of the attention projections summed over layers, from the config: Q, K, V, O
    (h x heads x d, h x 2 x kv_heads x d, heads x d x h); MLA: the query and KV down/up projections
    and the output (DeepSeek-V2/V3 shapes)."""
    layers, h, heads = m.num_hidden_layers or 0, m.hidden_size or 0, m.num_attention_heads or 0
    if m.is_mla:
        nope, rope, v = m.qk_nope_head_dim or 128, m.qk_rope_head_dim or 64, m.v_head_dim or 128
        q = (h * m.q_lora_rank + m.q_lora_rank * heads * (nope + rope)) if m.q_lora_rank else h * heads * (nope + rope)
        kv = h * (m.kv_lora_rank + rope) + m.kv_lora_rank * heads * (nope + v)
        return layers * (q + kv + heads * v * h)
    d = m.effective_head_dim or 0
    kv_heads = m.num_key_value_heads or heads
    return layers * (2 * h * heads * d + 2 * h * kv_heads * d)


def _kv_shard(c: _Ctx, tp: int) -> float:
    """Fraction of one sequence's KV cache a GPU of a TP group holds (attention DP: each rank holds
    only its own requests, so a sequence lives on one rank = 1/tp of the group's sequences)."""
    if c.kv is None:
        return 1.0
    if c.attention_dp and tp > 1:
        return 1.0 / tp
    return c.kv.tp_shard(tp)


def _kv_budget(c: _Ctx, cap: float, weights_pg: float, overhead_pg: float) -> float:
    """Bytes per GPU the engine gives the KV cache: a fraction of the whole memory minus weights and
    activations (vLLM, SGLang), or a fraction of what they leave (TensorRT-LLM, LMDeploy)."""
    eng = c.engine
    if eng.memory_utilization_of == "free":
        return eng.memory_utilization * (cap - weights_pg - overhead_pg)
    return cap * eng.memory_utilization - weights_pg - overhead_pg


def _evaluate(c: _Ctx, tp: int, pp: int, ep: int, replicas: int, batch: int | Literal["max"]) -> _Eval:
    gpu, eng = c.gpu, c.engine
    cap = usable_memory_gb(c.eff, gpu) * GB
    weights_pg = c.weights_b / (tp * pp) + _adp_extra(c, tp, pp)
    shard = _kv_shard(c, tp)
    seq_kv = c.kv.bytes_per_sequence(c.context, c.kv_elem) if c.kv else 0.0
    seq_kv_pg = seq_kv * shard / pp
    b_for_overhead = eng.max_batch_size if batch == "max" else batch
    overhead_pg = _overhead_bytes(c, tp, pp, min(b_for_overhead, 1024))
    budget = _kv_budget(c, cap, weights_pg, overhead_pg)
    if c.kv and seq_kv_pg > 0:
        max_b_mem = max(0, int(budget // seq_kv_pg))
        max_b = min(max_b_mem, eng.max_batch_size)
    else:
        max_b_mem = max_b = None
    b = (max(1, max_b) if max_b is not None else 1) if batch == "max" else batch
    kv_pg = seq_kv_pg * b
    per_gpu = weights_pg + kv_pg + overhead_pg
    fits = per_gpu <= cap and (batch != "max" or max_b is None or max_b >= 1)
    max_ctx = max_ctx_mem = None
    if c.kv:
        room = budget
        s = c.kv.max_tokens(room * pp / (shard * b), c.kv_elem)
        limit = c.model.max_position_embeddings
        if math.isinf(s):
            max_ctx = limit
        else:
            max_ctx = int(max(0, min(s, limit))) if limit else int(max(0, s))
            max_ctx_mem = int(max(0, s))
    ev = _Eval(tp, pp, ep, replicas, b, per_gpu, weights_pg, kv_pg, overhead_pg, fits, max_b, max_b_mem, max_ctx,
               max_context_memory=max_ctx_mem)
    if c.model.kind == "llm":
        _speed(c, ev)
    return ev


# --------------------------------------------------------------------------- speed


def _experts_touched(m: Model, tokens: float) -> tuple[float, float]:
    """(experts a step's ``tokens`` route to, tokens per touched expert) with uniform routing:
    E x (1 - (1 - k/E)^tokens) distinct experts (at batch 1 exactly k)."""
    e, k = m.num_local_experts, m.num_experts_per_tok
    if not m.is_moe or not e or not k:
        return 0.0, 0.0
    touched = e * (1 - (1 - k / e) ** tokens)
    return touched, tokens * k / touched


def _ep_imbalance(touched: float, experts: int, ep: int, floor: float) -> float:
    """Load on the busiest expert-parallel rank / the mean load: experts spread over ``ep`` ranks,
    max ~ mean + sqrt(2 x mean x ln ep) (balls into bins), capped by the experts a rank holds; at
    large batch real routing skew keeps it at ``floor`` (``expert_parallel_load_imbalance``)."""
    if ep <= 1 or touched <= 0:
        return 1.0
    mean = touched / ep
    busiest = min(experts / ep, mean + math.sqrt(2 * mean * math.log(ep)))
    return max(floor, busiest / mean)


def _attended(m: Model, ctx: float) -> float:
    """Layer-positions attended per token at context ``ctx``: full layers see ``ctx`` tokens,
    sliding-window layers at most the window (Korthikanti/PaLM attention FLOPs, window-aware)."""
    layers = m.num_hidden_layers or 0
    swl = m.sliding_window_layers or 0
    if not swl:
        return layers * ctx
    return (layers - swl) * ctx + swl * min(ctx, m.sliding_window or ctx)


def _prefill_attention_flops(m: Model, d_attn: int, cached: int, new: int) -> float:
    """Causal attention FLOPs for ``new`` prompt tokens after ``cached`` tokens already in the KV
    cache: each token attends to every earlier position (QK^T and AV, 2 FLOPs per element each) =
    4 x d_attn x sum of attended positions = 2 x d_attn x new x (2 x cached + new) per full layer;
    sliding-window layers attend to at most the window."""
    layers = m.num_hidden_layers or 0
    swl = m.sliding_window_layers or 0
    full = (layers - swl) * (new * cached + new * new / 2)
    win = 0.0
    if swl:
        w = m.sliding_window or (cached + new)
        if cached + new <= w:
            per = new * cached + new * new / 2
        elif cached >= w:
            per = new * w
        else:
            head = w - cached
            per = head * cached + head * head / 2 + (new - head) * w
        win = swl * per
    return 4 * d_attn * (full + win)


def _linear_flops(c: _Ctx, tokens: float, padded: bool) -> tuple[float, float]:
    """(dense, routed-expert) matmul time-equivalent FLOPs of one forward pass over ``tokens``
    (whole model): 2 x parameters x tokens; with ``padded``, every GEMM costs at least one
    tensor-core tile of tokens (dense matrices see all tokens, each touched expert only its share).
    Expert FLOPs are divided by the engine's grouped-GEMM efficiency unless the tile padding
    already costs more (small batches)."""
    m = c.model
    tile = c.tile if padded else 0
    if m.is_moe and c.expert_params and m.num_experts_per_tok:
        dense = max(0.0, c.p_active - m.num_experts_per_tok * c.expert_params)
        touched, per_expert = _experts_touched(m, tokens)
        actual = 2 * touched * c.expert_params * per_expert
        padded_f = 2 * touched * c.expert_params * max(per_expert, tile)
        return 2 * dense * max(tokens, tile), max(padded_f, actual / c.engine.moe_gemm_efficiency)
    return 2 * c.p_active * max(tokens, tile), 0.0


def _weights_read_pg(c: _Ctx, tokens: float, tp: int, pp: int, ep: int) -> float:
    """Weight bytes one GPU reads in a forward pass over ``tokens``: the dense/shared part and the
    experts the tokens route to (uniform routing; the busiest expert-parallel rank sets the time)."""
    dense = (c.weights_b - c.expert_b) / (tp * pp) + _adp_extra(c, tp, pp)
    if not c.expert_b:
        return dense
    m = c.model
    touched, _ = _experts_touched(m, tokens)
    frac = touched / (m.num_local_experts or 1)
    return dense + c.expert_b * frac / (tp * pp) * _ep_imbalance(
        touched, m.num_local_experts or 1, ep, c.eff.c("expert_parallel_load_imbalance"))


def _collectives_s(c: _Ctx, tp: int, ep: int, tokens: float, layers: float) -> float:
    """Collective time of ``layers`` layers for a pass of ``tokens`` tokens: under TP two all-reduces
    of tokens x hidden x 2 B per layer; MoE layers under expert parallelism swap the MLP all-reduce
    for an all-to-all dispatch and combine; attention data parallelism drops the attention one."""
    if tp <= 1:
        return 0.0
    h = c.model.hidden_size or 4096
    e = c.eff
    ar = e.allreduce_s(c.gpu, tp, tokens * h * 2, c.node)
    moe_share = c.moe_layers / (c.model.num_hidden_layers or 1) if c.model.is_moe else 0.0
    attn = 0.0 if c.attention_dp else ar
    if ep > 1 and moe_share:
        k = c.model.num_experts_per_tok or 1
        a2a = e.alltoall_s(c.gpu, ep, tokens * k * h * 2 / ep, c.node)
        mlp = moe_share * 2 * a2a + (1 - moe_share) * ar
    else:
        mlp = ar * (2 if c.attention_dp else 1)
    return layers * (attn + mlp)


def _pass_s(c: _Ctx, tp: int, pp: int, ep: int, tokens: float, ctx: float, kv_seqs: float,
            extra_tokens: float = 0.0, extra_attn_flops: float = 0.0, padded: bool | None = None,
            one_request: bool = False) -> tuple[float, dict]:
    """Time of one forward pass through one pipeline stage (1/pp of the layers) on one GPU of a TP
    group: ``tokens`` decode tokens of ``kv_seqs`` sequences at mean context ``ctx``, plus
    ``extra_tokens`` prompt tokens (whose attention costs ``extra_attn_flops``, whole model)
    carried in the same pass. The GEMMs (weights read once for all tokens, or their FLOPs) and the
    attention kernels (the KV cache read, or the attention FLOPs) run one after the other.

    ``one_request``: the prompt tokens are one request's. Under attention data parallelism a request
    lives on one rank, so that rank alone runs its attention and the weights the engine replicates
    (``_adp_local_flops``); only the routed experts (and a TP-split MLP) share its tokens. Otherwise,
    and for the many requests of a steady-state batch (each rank prefills its own), the work divides
    over the group. Returns (seconds, parts in seconds)."""
    gpu, eng, m = c.gpu, c.engine, c.model
    bw = gpu.memory_bandwidth_gb_s * GB * c.mbu
    layers = (m.num_hidden_layers or 1) / pp
    rows = tokens + extra_tokens
    w_read = _weights_read_pg(c, rows, tp, pp, ep)
    kv_read = (c.kv.bytes_per_sequence(ctx, c.kv_elem) * _kv_shard(c, tp) / pp * kv_seqs) if (c.kv and kv_seqs) else 0.0
    pad = eng.decode_tile_padding if padded is None else padded
    dense_f, expert_f = _linear_flops(c, rows, pad)
    attn_f = 4 * _attended(m, ctx) * c.d_attn_decode * tokens + extra_attn_flops
    rate = c.peak_flops * c.mfu if c.peak_flops and c.mfu else None
    split = tp * pp
    score_t = _score_traffic_s(c, tokens, ctx, extra_attn_flops) / split if c.score_bytes else 0.0
    imb = _ep_imbalance(1e9, m.num_local_experts or 1, ep, c.eff.c("expert_parallel_load_imbalance")) if ep > 1 else 1.0
    gemm_c = (dense_f + expert_f * imb) / split / rate if rate else 0.0
    attn_c = attn_f / split / c.attn_rate if rate and c.attn_rate else 0.0
    if one_request and c.attention_dp and tp > 1 and extra_tokens:
        # the request's rank does its replicated GEMMs, its attention and its score traffic alone
        local_f = min(dense_f, _adp_local_flops(c, extra_tokens))
        gemm_c += local_f * (1 / pp - 1 / split) / rate if rate else 0.0
        attn_c += extra_attn_flops * (1 / pp - 1 / split) / c.attn_rate if rate and c.attn_rate else 0.0
        score_t *= tp
    w_t, kv_t = w_read / bw, kv_read / bw
    layer_t = layers * (eng.layer_overhead_us + c.fmt_layer_us) * 1e-6
    moe_t = c.moe_layers / pp * eng.moe_layer_overhead_us * 1e-6
    if m.is_mla:
        moe_t += layers * eng.mla_layer_overhead_us * 1e-6
    coll = _collectives_s(c, tp, ep, rows, layers)
    io_t = rows * layers * c.act_io_bytes(tp) / (gpu.memory_bandwidth_gb_s * GB * c.mbu_io)
    total = max(w_t, gemm_c) + max(kv_t, attn_c) + score_t + io_t + layer_t + moe_t + coll
    return total, {"weights": w_t, "kv": kv_t, "compute": gemm_c + attn_c, "gemm": gemm_c, "attn": attn_c,
                   "scores": score_t, "io": io_t, "layer": layer_t, "moe": moe_t, "coll": coll}


def _adp_local_flops(c: _Ctx, tokens: float) -> float:
    """Matmul FLOPs of ``tokens`` through the weights an attention-data-parallel rank holds whole
    (``attention_dp_replicates``): every weight but the routed experts (TensorRT-LLM), or the attention
    projections (SGLang, vLLM), 2 x parameters x tokens; the whole model, before any split."""
    if c.engine.attention_dp_replicates == "non_expert":
        dense, _ = _linear_flops(c, tokens, False)
        return dense
    return 2 * _attention_params(c.model) * tokens


def _score_traffic_s(c: _Ctx, tokens: float, ctx: float, extra_attn_flops: float) -> float:
    """Seconds the attention score matrix spends in device memory in one pass (whole model, one
    GPU's worth before the TP split) when the engine does not fuse attention: every score element
    (per head, query position, key position) is written, read and written by the softmax, and read
    again (``unfused_attention_score_bytes``, 16 B); decode tokens have ``_attended(ctx)`` elements
    per head, prompt tokens the causal count behind ``extra_attn_flops`` (= 4 x d_attn per element).
    Source: Dao et al. arXiv:2205.14135 section 3 (standard attention materialises S and P in HBM)."""
    heads = c.model.num_attention_heads or 0
    elems = _attended(c.model, ctx) * tokens
    if extra_attn_flops and c.d_attn_prefill:
        elems += extra_attn_flops / (4 * c.d_attn_prefill)
    return heads * elems * c.score_bytes / (c.gpu.memory_bandwidth_gb_s * GB * c.mbu_io)


def _decode_step(c: _Ctx, tp: int, pp: int, ep: int, batch: int, extra_tokens: float = 0.0,
                 extra_attn_flops: float = 0.0) -> tuple[float, DecodeBreakdown, bool]:
    """One decode step of a replica: every sequence of ``batch`` advances one token (pipelined
    micro-batches of ceil(b / pp), each stage running pp of them), optionally carrying
    ``extra_tokens`` prompt tokens of new requests (their attention: ``extra_attn_flops``);
    returns (seconds, breakdown, compute-bound)."""
    mb = math.ceil(batch / pp)
    avg_ctx = c.isl + c.osl / 2
    stage, parts = _pass_s(c, tp, pp, ep, mb, avg_ctx, mb, extra_tokens / pp, extra_attn_flops / pp)
    hops = (pp - 1) * c.eff.hop_s(c.gpu, mb * (c.model.hidden_size or 4096) * 2, tp * pp > c.node)
    step_over = c.engine.step_overhead_ms / 1000
    total = pp * stage + hops + step_over
    bd = DecodeBreakdown(
        weights_ms=pp * parts["weights"] * 1e3, kv_cache_ms=pp * parts["kv"] * 1e3, compute_ms=pp * parts["compute"] * 1e3,
        layer_overhead_ms=pp * (parts["layer"] + parts["io"]) * 1e3, moe_overhead_ms=pp * parts["moe"] * 1e3,
        collectives_ms=pp * parts["coll"] * 1e3, pipeline_hops_ms=hops * 1e3, step_overhead_ms=step_over * 1e3,
        total_ms=total * 1e3)
    return total, bd, parts["gemm"] > parts["weights"] or parts["attn"] > parts["kv"]


def _ttft(c: _Ctx, tp: int, pp: int, ep: int) -> float | None:
    """Time to first token of one request on an idle replica: the new prompt tokens in chunks of
    the engine's token budget, each chunk max(compute, weight read) plus per-layer and collective
    costs; pipeline stages overlap chunks ((chunks + PP - 1) stage times). Under attention data
    parallelism the request's rank runs its attention and replicated weights alone (``one_request``)."""
    if not (c.peak_flops and c.mfu):
        return None
    eng = c.engine
    new = c.new_tokens
    chunk = eng.activation_token_budget if (eng.chunked_prefill and eng.activation_token_budget) else new
    n_chunks = max(1, math.ceil(new / chunk))
    total = 0.0
    done = 0
    for _ in range(n_chunks):
        size = min(chunk, new - done)
        t, _ = _pass_s(c, tp, 1, ep, 0, 0.0, 0, extra_tokens=size,
                       extra_attn_flops=_prefill_attention_flops(c.model, c.d_attn_prefill, c.cached + done, size),
                       padded=False, one_request=True)
        total += t
        done += size
    stage = total / n_chunks / pp
    hops = (pp - 1) * c.eff.hop_s(c.gpu, chunk * (c.model.hidden_size or 4096) * 2, tp * pp > c.node)
    return (n_chunks + pp - 1) * stage + hops + eng.prefill_overhead_ms / 1000


def _speed(c: _Ctx, ev: _Eval) -> None:
    """Fill TTFT, decode step, throughput and bound for one layout (see the module doc)."""
    eng = c.engine
    tp, pp, ep, b = ev.tp, ev.pp, ev.ep, ev.batch
    step, bd, compute_bound = _decode_step(c, tp, pp, ep, b)
    ev.step_s, ev.breakdown = step, bd
    ev.bound = "compute" if compute_bound else "memory-bandwidth"
    ev.ttft_s = _ttft(c, tp, pp, ep)
    if not (c.peak_flops and c.mfu):
        ev.throughput = None
        return
    new = c.new_tokens
    attn_request = _prefill_attention_flops(c.model, c.d_attn_prefill, c.cached, new)
    if eng.continuous_batching:
        # Steady state: every step carries b decode tokens; prompts of new requests ride along in
        # chunks of what is left of the token budget (a whole prompt per iteration without chunked
        # prefill). Time per b x output tokens = output decode steps + the extra time of the steps
        # that also carry a prompt chunk.
        # the token budget of one forward pass (max_num_batched_tokens / max_num_tokens); an engine without one
        # takes the batch's decode tokens and one whole prompt
        budget = eng.activation_token_budget or b + new
        b_eff = b
        if budget - b < 1:
            b_eff = max(1, int(budget * c.osl / (c.osl + new)))
            ev.notes.append(f"the {budget:,}-token step budget of {c.engine_name} leaves no room for new prompts at "
                            f"batch {b}: about {b_eff} sequences per replica can be kept decoding")
            step, _, _ = _decode_step(c, tp, pp, ep, b_eff)
        # To keep b_eff sequences decoding, each of a cycle's output steps must also carry the prompts of the
        # b_eff / osl requests that replace the finished ones: b_eff x new / osl prompt tokens per step, packed
        # into the room the token budget leaves (a chunked-prefill scheduler packs several prompts into a step).
        # While that room suffices every step is a mixed one; beyond it the cycle stretches to as many steps as
        # the prompts need (prefill-heavy work: long prompts, short outputs). A step's prompt tokens are nearly
        # free while the step is bound by reading weights, and cost compute once they outweigh it.
        # without chunked prefill only whole prompts ride along (at least one per step)
        room = max(1, budget - b_eff) if eng.chunked_prefill else max(1, (budget - b_eff) // new) * new
        per_step = b_eff * new / c.osl
        if per_step <= room:
            mixed, _, _ = _decode_step(c, tp, pp, ep, b_eff, per_step, attn_request * per_step / new)
            cycle = c.osl * max(mixed, step)
        else:
            n_steps = math.ceil(b_eff * new / room)
            mixed, _, _ = _decode_step(c, tp, pp, ep, b_eff, room, attn_request * room / new)
            cycle = n_steps * max(mixed, step)
        # and never less than the output steps plus each prompt chunk's own extra time (chunks of at most one
        # prompt), the bound that holds when a step's prompt tokens do not overlap its weight reads
        chunk = max(1, min(budget - b_eff, new))
        one, _, _ = _decode_step(c, tp, pp, ep, b_eff, chunk, attn_request * chunk / new)
        cycle = max(cycle, c.osl * step + math.ceil(b_eff * new / chunk) * max(0.0, one - step))
        ev.throughput = b_eff * c.osl / cycle * ev.replicas
    else:
        # static batch: all b prompts prefilled together (through every stage), then decoded together
        pre, _ = _pass_s(c, tp, 1, ep, 0, 0.0, 0, extra_tokens=b * new, extra_attn_flops=b * attn_request,
                         padded=False)
        ev.throughput = b * c.osl / (pre + c.osl * step) * ev.replicas


# --------------------------------------------------------------------------- layouts


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _layouts(c: _Ctx, count: int | None, tp: int | None, pp: int | None, replicas: int | None,
             ep: int, max_stages: int = 16) -> list[tuple[int, int, int]]:
    """Candidate (TP, PP, replicas) layouts; raises EstimationError naming why none is possible."""
    m = c.model
    node = c.node
    tps_all = valid_tp_degrees(m, max_tp=64)
    if tp is not None and tp not in tps_all:
        raise EstimationError(
            f"tensor parallel degree {tp} is not valid for {m.name}: it must be a power of two that divides the "
            f"{m.num_attention_heads} attention heads and fits the {m.num_key_value_heads} KV heads "
            f"(valid: {[t for t in tps_all if t <= 16]})")
    if c.engine.multi_gpu_split == "layer" and tp is None:
        tps = [1]  # llama.cpp --split-mode layer: consecutive layers per GPU, a pipeline
    else:
        tps = [tp] if tp is not None else [t for t in tps_all if t <= node]
    if ep > 1:
        tps = [t for t in tps if t % ep == 0]
        if not tps:
            raise EstimationError(f"expert parallel degree {ep} must divide the tensor-parallel group "
                                  f"(TP {tp if tp else 'up to ' + str(node)})")
    if count is None:
        if pp is not None or replicas not in (None, 1):
            out = [(t, pp or 1, 1) for t in tps]
        elif c.engine.multi_gpu_split == "layer" and tp is None:
            out = [(1, s, 1) for s in range(1, node + 1)]
        else:
            out = [(t, 1, 1) for t in tps] + [(max(tps), s, 1) for s in range(2, max_stages + 1)]
        return out
    out = []
    for t in tps:
        if count % t:
            continue
        rest = count // t
        for s in ([pp] if pp is not None else _divisors(rest)):
            if rest % s:
                continue
            r = rest // s
            if replicas is not None and r != replicas:
                continue
            out.append((t, s, r))
    if not out:
        parts = [f"TP {tp}" if tp else None, f"PP {pp}" if pp else None,
                 f"{replicas} replicas" if replicas else None]
        given = " x ".join(p for p in parts if p) or "any tensor-parallel group"
        raise EstimationError(f"{count} GPUs cannot be laid out as {given}: TP x PP x replicas must equal the "
                              f"GPU count, with TP one of {[t for t in tps_all if t <= 16]} for {m.name}")
    return out


def _pick(evals: list[_Eval], objective: Objective, count: int | None, osl: int, pp_free: bool) -> _Eval | None:
    """The layout to report: with no count the smallest footprint that fits; for latency the least
    TTFT + output x TPOT; for throughput the most aggregate tokens/s (then the smaller group).
    Pipeline stages are a last resort (serving practice: TP inside a node, PP across nodes) unless
    ``pp_free`` (PP given, or an engine whose default split is by layer): when a layout without
    them fits, layouts with them are not considered."""
    fitting = [e for e in evals if e.fits]
    if not fitting:
        return None
    if count is None:
        return fitting[0]
    if not pp_free and any(e.pp == 1 for e in fitting):
        fitting = [e for e in fitting if e.pp == 1]

    def latency(e: _Eval) -> float:
        return math.inf if e.step_s is None else (e.ttft_s or 0.0) + osl * e.step_s

    if objective == "latency":
        return min(fitting, key=lambda e: (latency(e), e.tp * e.pp))
    return max(fitting, key=lambda e: ((e.throughput or 0.0) if e.throughput is not None
                                       else e.replicas * e.batch / (e.step_s or 1.0), -e.tp, -e.pp))


# --------------------------------------------------------------------------- the estimate


def _kv_dtype(eff: EfficiencyTable, eng_name: str, eng: EngineProfile, prec, gpu: Gpu, kv_precision: str | None
              ) -> tuple[str, str, str]:
    """(KV dtype, reason code, sentence saying why)."""
    fmt = prec.fmt
    if kv_precision is not None:
        name, _ = eff.kv_format(kv_precision)
        return name, "requested", f"KV cache in {name} (requested)"
    if eng.kv_cache_dtype_default == "checkpoint" and prec.name in eng.kv_cache_dtype_quantized:
        name = eng.kv_cache_dtype_quantized[prec.name]
        return (name, "checkpoint_quantization",
                f"KV cache in {name}: {eng_name} keeps the KV dtype of a quantized {prec.name} checkpoint "
                f"(its documented default; NVIDIA's FP8/FP4 checkpoints carry an FP8 KV cache); pass "
                f"kv_precision='bf16' for a 16-bit cache")
    act = "bf16" if prec.compute == "bf16" or (fmt.kind in ("float", "integer") and prec.compute != "fp16"
                                               and gpu.supports("bf16") and fmt.kind != "gguf") else "fp16"
    if act == "bf16" and not gpu.supports("bf16"):
        act = "fp16"
    return (act, "engine_default",
            f"KV cache in {act}: {eng_name} stores the KV cache in the activation dtype by default "
            "(pass kv_precision for an fp8/int8/q8_0/q4_0 cache)")


def estimate_inference_for(
    kb: KnowledgeBase,
    model: Model,
    gpu: Gpu,
    count: int | None = None,
    precision: str | None = "bf16",
    kv_precision: str | None = None,
    context_tokens: int | None = None,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    batch_size: int | Literal["max"] = 1,
    engine: str = "vllm",
    tensor_parallel: int | None = None,
    pipeline_parallel: int | None = None,
    replicas: int | None = None,
    objective: Objective | None = None,
    expert_parallel: int | None = None,
    attention_data_parallel: bool = False,
    prefix_cached_tokens: int | None = None,
    fused_attention: bool | None = None,
) -> InferenceEstimate:
    """Serving estimate for a :class:`Model` on a :class:`Gpu` (see :func:`estimate_inference`)."""
    for name, value in (("count", count), ("context_tokens", context_tokens), ("input_tokens", input_tokens),
                        ("output_tokens", output_tokens), ("tensor_parallel", tensor_parallel),
                        ("pipeline_parallel", pipeline_parallel), ("replicas", replicas),
                        ("expert_parallel", expert_parallel)):
        require_positive(name, value)
    if prefix_cached_tokens is not None and prefix_cached_tokens < 0:
        raise EstimationError(f"prefix_cached_tokens must be >= 0, got {prefix_cached_tokens}")
    if batch_size != "max":
        require_positive("batch_size", batch_size)
    if objective not in (None, "latency", "throughput"):
        raise EstimationError(f"objective must be 'latency' or 'throughput', got {objective!r}")
    eff = efficiency_for(kb)
    eng_name, eng = eff.engine(engine)
    assumptions: list[str] = []
    warnings: list[str] = []
    missing: list[str] = []
    sources = [_NOTES_SRC, f"knowledge/efficiency.yaml (as_of {eff.as_of})", *gpu.sources[:1], *model.sources[:1]]
    if eng.fact_sources:
        sources.append(f"knowledge/engines.yaml ({eng_name}): {eng.fact_sources[0]}")
    assumptions += list(model.notes) if model.family == "generic" else []

    prec = resolve_precision(eff, gpu, model, precision, eng_name)
    warnings += prec.warnings
    assumptions += prec.assumptions
    fmt = prec.fmt
    assumptions.append(f"weights: {model.params_total_b:.2f}B parameters x {fmt.bytes_per_weight:g} B/weight ({prec.name})"
                       + (", embeddings/lm_head kept 16-bit" if fmt.embeddings_16bit and model.vocab_size else ""))
    if model.is_moe:
        assumptions.append(f"MoE: memory follows all {model.params_total_b:.1f}B parameters; compute and "
                           f"bandwidth per token follow the {model.params_active_b:.1f}B active")

    kv_name, kv_reason, kv_text = _kv_dtype(eff, eng_name, eng, prec, gpu, kv_precision)
    kv_name, kv_fmt = eff.kv_format(kv_name)

    # tokens
    osl = output_tokens or int(eff.c("default_output_tokens"))
    if output_tokens is None:
        assumptions.append(f"output length not given: {osl} tokens per request")
    if context_tokens is None:
        if input_tokens is not None:
            context = input_tokens + osl
        else:
            context = int(eff.c("default_context_tokens"))
            assumptions.append(f"context not given: {context:,} tokens per sequence" + (
                f" (not the model maximum {model.max_position_embeddings:,})" if model.max_position_embeddings else ""))
    else:
        context = context_tokens
    isl = input_tokens if input_tokens is not None else max(1, context - osl)
    if isl + osl > context:
        warnings.append(f"input {isl} + output {osl} tokens exceed the context of {context}; sizing the KV "
                        f"cache for {isl + osl}")
        context = isl + osl
    if model.max_position_embeddings and context > model.max_position_embeddings:
        warnings.append(f"context {context:,} exceeds {model.name}'s maximum of {model.max_position_embeddings:,} tokens")
    cached = min(prefix_cached_tokens or 0, max(0, isl - 1))
    if cached and not eng.prefix_caching:
        warnings.append(f"{eng_name} does not reuse cached prompt prefixes by default: all {isl:,} prompt tokens "
                        "are prefilled for every request")
        cached = 0
    if cached:
        assumptions.append(f"{cached:,} of the {isl:,} prompt tokens are a cached prefix (earlier turns): each "
                           f"request prefills {isl - cached:,} new tokens; the KV cache is still sized for "
                           f"{context:,} tokens per sequence")

    kv, kv_reason_missing = kv_shape(model) if model.kind == "llm" else (None, None)
    if kv_reason_missing:
        warnings.append(kv_reason_missing)
    elif kv is not None:
        assumptions.append(
            f"KV cache: {kv.bytes_per_token(kv_fmt.bytes_per_element):,.0f} bytes/token in {kv_name}"
            + (" (MLA latent: layers x (kv_lora_rank + qk_rope_head_dim))" if kv.mla else
               f" (2 x {kv.full_layers + kv.window_layers} layers x {kv.n_kv_heads} KV heads x "
               f"{model.effective_head_dim} head_dim)")
            + (f"; {kv.window_layers} sliding-window layers hold at most {kv.window:,} tokens" if kv.window_layers else ""))
        assumptions.append(kv_text)

    # weights / non-LLM
    expert_b = expert_params = 0.0
    if model.kind != "llm":
        wb = (model.typical_fp16_weight_gb * GB * fmt.bytes_per_weight / 2 if model.typical_fp16_weight_gb
              else model.params_total_b * 1e9 * fmt.bytes_per_weight)
        assumptions.append("non-LLM model: memory from parameters only (activation workspace assumed ~0.5 GB); "
                           "speed for images, speech and embeddings comes from bot.estimation.non_llm")
    else:
        wb = weight_bytes(model, fmt)
        e_n, k_n = model.num_local_experts, model.num_experts_per_tok
        if model.is_moe and e_n and k_n and e_n > k_n:
            expert_params = (model.params_total_b - model.params_active_b) * 1e9 / (e_n - k_n)
            expert_b = min(wb, expert_params * e_n * fmt.bytes_per_weight)

    # efficiency
    mbu = eng.decode_mbu[fmt.mbu_class]
    peak_tflops, peak_note = dense_peak_tflops(gpu, prec.compute)
    if peak_note and model.kind == "llm":
        warnings.append(peak_note)
    if peak_tflops is None and model.kind == "llm":
        missing.append(f"dense {prec.compute} tensor TFLOPS of {gpu.name}")
    if (peak_tflops and eng.fp16_accumulate and prec.compute == "fp16" and gpu.fp16_accumulate_tflops
            and gpu.fp16_accumulate_tflops > peak_tflops):
        assumptions.append(f"{eng_name} runs fp16 GEMMs with fp16 accumulation: {gpu.name} peak "
                           f"{gpu.fp16_accumulate_tflops:g} TFLOPS instead of {peak_tflops:g} (fp32 accumulate)")
        peak_tflops = gpu.fp16_accumulate_tflops
    base_mfu, _ = eff.inference_mfu_for(gpu, prec.compute)
    no_fa = eff.c("no_flash_attention_prefill_factor") if gpu.cc is not None and gpu.cc < 8.0 else 1.0
    mfu = base_mfu * eng.inference_mfu_factor * no_fa * eff.gemm_peak_fraction(gpu, fmt)
    if no_fa < 1.0:
        assumptions.append(f"{gpu.name} ({_cc(gpu)}) has no FlashAttention-2 (needs 8.0+): prefill MFU lowered")
    heads = model.num_attention_heads or 0
    if model.is_mla and model.qk_rope_head_dim and model.kv_lora_rank:
        nope, v = model.qk_nope_head_dim or 128, model.v_head_dim or 128
        d_pre = heads * (nope + model.qk_rope_head_dim + v) // 2
        d_dec = heads * (2 * model.kv_lora_rank + model.qk_rope_head_dim) // 2
    else:
        d_pre = d_dec = heads * (model.effective_head_dim or 0)
    node = int(eff.c("pipeline_stage_gpus"))
    attn_b = _attention_params(model) * fmt.bytes_per_weight if model.kind == "llm" else 0.0
    # attention kernels run in the activation dtype (FlashAttention/FlashInfer bf16/fp16) whatever the
    # GEMM precision; FP8 attention kernels are opt-in
    act = "bf16" if gpu.supports("bf16") and prec.compute not in ("fp16",) else "fp16"
    attn_peak, _ = dense_peak_tflops(gpu, act)
    if attn_peak and eng.fp16_accumulate and act == "fp16" and gpu.fp16_accumulate_tflops:
        attn_peak = max(attn_peak, gpu.fp16_accumulate_tflops)
    attn_mfu = eff.inference_mfu_for(gpu, act)[0] * eng.inference_mfu_factor * no_fa
    attn_rate = attn_peak * 1e12 * attn_mfu if (attn_peak and peak_tflops) else None
    ctx = _Ctx(eff, model, gpu, eng_name, eng, wb, expert_b, attn_b, expert_params, kv, kv_fmt.bytes_per_element, context,
               isl, osl, cached, model.compute_params_b * 1e9, mbu, mfu if peak_tflops else None,
               peak_tflops * 1e12 if peak_tflops else None, attn_rate, d_pre, d_dec, eff.tile_tokens(gpu, fmt), node,
               bool(attention_data_parallel))
    if model.kind == "llm" and fmt.gemm_call_overhead_us and eng.multi_gpu_split != "layer":
        # the format's own kernels (Marlin), not llama.cpp's GGUF ones: qkv, o, gate_up, down per dense layer; an
        # MoE layer's expert launches are already its moe_layer_overhead_us
        ctx.fmt_layer_us = fmt.gemm_call_overhead_us * (2 if model.is_moe else 4)
    fused = eng.fused_attention if fused_attention is None else fused_attention
    if not fused and model.kind == "llm":
        ctx.score_bytes = eff.c("unfused_attention_score_bytes")
        assumptions.append(
            f"attention not fused ({eng_name} without flash attention"
            + (f"; its default only since {eng.fused_attention_since}" if eng.fused_attention_since else "")
            + f"): the score matrix goes through device memory, {ctx.score_bytes:g} B per score element per head "
            "(long prompts slow down)")

    # objective and layouts
    ep = expert_parallel or 1
    if ep > 1 and not model.is_moe:
        raise EstimationError(f"expert parallelism needs a mixture-of-experts model; {model.name} is dense")
    threshold = int(eff.c("latency_objective_max_batch"))
    obj: Objective = objective or ("throughput" if batch_size == "max" or batch_size > threshold else "latency")
    if model.kind != "llm":
        layouts = [(1, 1, count or 1)]
    else:
        layouts = _layouts(ctx, count, tensor_parallel, pipeline_parallel, replicas, ep)
    evals: list[_Eval] = []
    for tp, pp, rep in layouts:
        evals.append(_evaluate(ctx, tp, pp, min(ep, tp), rep, batch_size))
        if count is None and evals[-1].fits:
            break  # with no count the first (smallest) layout that fits is the answer
    ev = _pick(evals, obj, count, osl,
               pipeline_parallel is not None or (eng.multi_gpu_split == "layer" and tensor_parallel is None))
    if ev is None:
        ev = min(evals, key=lambda e: e.per_gpu_b) if count is not None else evals[-1]
        need = ev.per_gpu_b / GB
        warnings.append(
            f"does not fit: needs {need:.1f} GB per GPU on {ev.tp * ev.pp} x {gpu.name} "
            f"({gpu.memory_gb:g} GB each)" + ("" if count else " even at the largest layout tried"))
    warnings += ev.notes
    n_gpus = ev.tp * ev.pp * ev.replicas

    # honesty notes
    llm = model.kind == "llm"
    if llm:
        assumptions.append(
            f"decode step = max(bytes / ({gpu.memory_bandwidth_gb_s:g} GB/s x MBU {mbu:.2f}), tensor FLOPs"
            + (f" padded to {ctx.tile}-token tiles" if eng.decode_tile_padding else "")
            + f") + {eng.layer_overhead_us:g} us per layer"
            + (f" + {eng.moe_layer_overhead_us:g} us per MoE layer" if model.is_moe else "")
            + f" + {eng.step_overhead_ms:g} ms per step ({eng_name}); "
            + (f"inference MFU {mfu:.2f} of the dense {prec.compute} peak ({peak_tflops:g} TFLOPS, not the sparse "
               "figure)" if peak_tflops else "no compute peak")
            + "; efficiencies from published ranges, not a 100% roofline")
        assumptions.append(f"layout chosen for {obj}" + (
            " (one group spanning the GPUs when it lowers TTFT + output x TPOT)" if obj == "latency" else
            " (the most aggregate tokens/s: replicas of the smallest group that fits)"))
    icls = None
    if ev.tp > 1:
        icls, ic, bw = eff.interconnect(gpu, ev.tp, node)
        link = {"nvlink": gpu.peer_link.name if gpu.peer_link is not None else
                "Infinity Fabric" if gpu.vendor == "AMD" else "NVLink", "pcie": "PCIe peer-to-peer",
                "no_p2p": "PCIe without P2P (through host memory)", "infiniband": "InfiniBand between nodes"}[icls]
        lat = ic.allreduce_latency_us + ic.allreduce_latency_per_doubling_us * math.log2(ev.tp)
        assumptions.append(f"TP {ev.tp}: two all-reduces per layer over {link}, {lat:.0f} us each + bytes / "
                           f"{bw:.0f} GB/s")
        if icls == "no_p2p":
            warnings.append(f"{gpu.name} has no NVLink or P2P: tensor parallelism across them goes through host "
                            "memory and is slow; prefer one larger GPU or pipeline/layer split")
        elif icls == "pcie":
            warnings.append(f"{gpu.name} has no NVLink across {ev.tp} GPUs: TP all-reduces go over PCIe (slower than "
                            "SXM/NVLink parts)")
        elif icls == "infiniband":
            warnings.append(f"TP {ev.tp} spans more than one {node}-GPU node: all-reduces cross InfiniBand")
    if ev.ep > 1:
        assumptions.append(f"expert parallelism {ev.ep}: experts split across {ev.ep} ranks, an all-to-all dispatch "
                           "and combine per MoE layer; the busiest rank sets the pace at small batch")
    if attention_data_parallel and ev.tp > 1:
        assumptions.append(f"attention data parallel: each of the {ev.tp} ranks runs attention for its own requests "
                           "and holds only their KV cache")
    if ev.pp > 1:
        assumptions.append(f"{ev.pp} pipeline stages of {ev.tp} GPU(s)" + (
            f" ({eng_name} layer split, its default)" if eng.multi_gpu_split == "layer" else ""))
    if ev.replicas > 1:
        assumptions.append(f"{ev.replicas} data-parallel replicas of {ev.tp * ev.pp} GPU(s); batch_size is per replica")
    reserved = None
    if eng.memory_utilization < 1.0:
        usable_gb = usable_memory_gb(eff, gpu)
        if eng.memory_utilization_of == "free":
            fixed_gb = (ev.weights_pg + ev.overhead_pg) / GB
            reserved = fixed_gb + eng.memory_utilization * (usable_gb - fixed_gb)
            assumptions.append(
                f"{eng_name} gives {eng.memory_utilization:g} of the memory left after weights and activations to KV "
                f"blocks (kv_cache_free_gpu_mem_fraction), so about {reserved:.1f} GB per GPU shows in use; the figures "
                "here are what is needed")
        else:
            reserved = usable_gb * eng.memory_utilization
            assumptions.append(
                f"{eng_name} pre-allocates {eng.memory_utilization:g} x {usable_gb:.1f} GB = {reserved:.1f} GB per GPU "
                "(gpu_memory_utilization / mem_fraction_static) for weights, activations and KV blocks, so nvidia-smi "
                "shows that much in use; the figures here are what is needed")
        if ev.fits and ev.per_gpu_b > reserved * GB:
            warnings.append(f"needs {ev.per_gpu_b / GB:.1f} GB per GPU, above {eng_name}'s default "
                            f"{eng.memory_utilization:g} budget ({reserved:.1f} GB): raise the memory fraction or "
                            "lower the maximum context")
    usable = usable_memory_gb(eff, gpu)
    assumptions.append(f"GPU capacity {usable:.1f} GB usable ({usable * GB / GIB:.1f} GiB) of the marketed "
                       f"\"{gpu.memory_gb:g} GB\" (binary GiB; GB here = 1e9 bytes)")
    if batch_size == "max" and ev.max_batch is not None and ev.max_batch_memory is not None \
            and ev.max_batch_memory > ev.max_batch:
        assumptions.append(f"batch capped at the {eng_name} default of {eng.max_batch_size} concurrent sequences "
                           f"(memory would allow {ev.max_batch_memory})")
    if missing and llm:
        warnings.append(f"no {missing[0]} is published: TTFT and throughput are not estimated (decode speed is the "
                        "memory-bound rate), so this GPU is not compared on throughput")

    kv_total = ev.kv_pg * ev.tp * ev.pp if kv is not None else None
    mem = MemoryBreakdown(
        weights_gb=wb / GB,
        kv_cache_gb=kv_total / GB if kv_total is not None else None,
        overhead_gb=ev.overhead_pg * ev.tp * ev.pp / GB,
        total_gb=(wb + (kv_total or 0.0) + ev.overhead_pg * ev.tp * ev.pp) / GB,
        per_gpu_gb=ev.per_gpu_b / GB,
        per_gpu_gib=ev.per_gpu_b / GIB,
        gpu_memory_gb=gpu.memory_gb,
        usable_memory_gb=usable,
        kv_cache_bytes_per_token=kv.bytes_per_token(kv_fmt.bytes_per_element) if kv else None,
        engine_reserved_gb_per_gpu=reserved,
    )
    step = ev.step_s if llm else None
    return InferenceEstimate(
        model=model.id, gpu=gpu.id, gpu_count=n_gpus, tensor_parallel=ev.tp, pipeline_stages=ev.pp,
        replicas=ev.replicas, expert_parallel=ev.ep, attention_data_parallel=bool(attention_data_parallel and ev.tp > 1),
        objective=obj if llm else None, interconnect=icls, engine=eng_name, precision=prec.name,
        requested_precision=precision, kv_precision=kv_name if kv is not None else None,
        kv_precision_reason=kv_reason if kv is not None else None, fits=ev.fits, memory=mem, context_tokens=context,
        input_tokens=isl, output_tokens=osl, prefix_cached_tokens=cached, new_input_tokens=isl - cached,
        batch_size=ev.batch, max_batch_size=ev.max_batch, max_context_tokens=ev.max_context,
        max_context_tokens_memory=ev.max_context_memory,
        ttft_s=ev.ttft_s if llm else None, tpot_ms=step * 1000 if step else None,
        decode_tokens_per_s_per_sequence=1 / step if step else None,
        throughput_tokens_per_s=ev.throughput if llm else None,
        request_latency_s=((ev.ttft_s or 0.0) + osl * step) if (llm and step and ev.ttft_s is not None) else None,
        bound=ev.bound if llm else None, mbu=mbu if llm else None, mfu=ctx.mfu if llm else None,
        decode_breakdown=ev.breakdown if llm else None, missing_figures=missing,
        assumptions=assumptions, warnings=warnings, sources=sources,
    )


def _cc(gpu: Gpu) -> str:
    return f"compute capability {gpu.compute_capability}" if gpu.compute_capability else gpu.architecture


def estimate_inference(
    kb: KnowledgeBase,
    model_id: str | Model,
    gpu_id: str | Gpu,
    count: int | None = None,
    precision: str | None = "bf16",
    kv_precision: str | None = None,
    context_tokens: int | None = None,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    batch_size: int | Literal["max"] = 1,
    engine: str = "vllm",
    tensor_parallel: int | None = None,
    pipeline_parallel: int | None = None,
    replicas: int | None = None,
    objective: Objective | None = None,
    expert_parallel: int | None = None,
    attention_data_parallel: bool = False,
    prefix_cached_tokens: int | None = None,
    fused_attention: bool | None = None,
) -> InferenceEstimate:
    """Estimate serving ``model_id`` on ``gpu_id``: memory, fit, layout, TTFT, decode speed, throughput.

    Args:
        kb: the knowledge base (efficiency constants and engine defaults are cached on it).
        model_id: a model id (``"llama-2-70b"``) or a :class:`~bot.kb.schema.Model` (e.g. from
            :func:`bot.estimation.generic_model`).
        gpu_id: a GPU id (``"h100-sxm-80gb"``) or a :class:`~bot.kb.schema.Gpu`.
        count: GPUs in total; ``None`` = the smallest count that fits (TP 1, 2, 4, 8 dividing the
            heads, then pipeline stages of 8). With a count, every layout TP x PP x replicas = count
            is evaluated and one is picked by ``objective``.
        precision: weight format, case-insensitive: fp32, bf16, fp16, fp8, int8, int4 (awq/gptq),
            nf4, mxfp4, nvfp4, or GGUF (q4_k_m, q8_0, ...). ``None`` = the model's native dtype
            (fp16 when unknown). Unsupported formats fall back with a warning (FP8 on A100 -> INT8).
        kv_precision: KV-cache dtype (fp16, bf16, fp8, int8, q8_0, q4_0); ``None`` = the engine's
            documented default (``knowledge/engines.yaml``: the activation dtype for vLLM, SGLang,
            llama.cpp and HF; TensorRT-LLM keeps FP8 KV for FP8/FP4 checkpoints). The result's
            ``kv_precision_reason`` says which applied.
        context_tokens: tokens per sequence the KV cache is sized for; ``None`` = input + output
            when given, else 4,096 (never the model's maximum).
        input_tokens, output_tokens: prompt and generated tokens per request (defaults:
            context - output, and 256).
        batch_size: concurrent sequences per replica, or ``"max"`` for the largest that fits
            (capped by the engine's default limit).
        engine: an engine of ``knowledge/engines.yaml`` or an alias: ``vllm`` (default), ``sglang``,
            ``tensorrt-llm`` (``nim``), ``lmdeploy``, ``llama.cpp`` (``ollama``), ``hf``, ``gpt-fast``.
        tensor_parallel, pipeline_parallel, replicas: fix that part of the layout (TP above 8
            spans nodes over InfiniBand); the rest is chosen.
        objective: ``"latency"`` (minimise TTFT + output x TPOT: one group spanning the GPUs when
            that is faster) or ``"throughput"`` (maximise aggregate tokens/s: replicas). ``None`` =
            latency when ``batch_size`` is at most ``latency_objective_max_batch`` (8, efficiency.yaml),
            throughput for larger batches and ``"max"``.
        expert_parallel: MoE only: ranks of the TP group that split the experts (must divide TP);
            default 1 (experts tensor-parallel).
        attention_data_parallel: MoE serving with attention run data-parallel across the TP
            group (each rank its own requests and their KV cache), as TensorRT-LLM's
            enable_attention_dp and SGLang's --enable-dp-attention.
        prefix_cached_tokens: prompt tokens already in the KV cache (earlier turns of a
            conversation, a shared system prompt); prefill then covers only the new tokens, which
            still attend to the cached ones. Ignored, with a warning, for engines without prefix
            caching. See :func:`bot.estimation.serving_workload`.
        fused_attention: ``False`` for a build that does not fuse attention (llama.cpp before
            2025-08-19 without ``-fa``): the score matrix's device-memory traffic is added to every
            pass. ``None`` = the engine's documented default (``knowledge/engines.yaml``).

    Returns:
        :class:`InferenceEstimate` (GB = 1e9 bytes; seconds; tokens/s), with the layout, the KV
        dtype and why, ``decode_breakdown``, ``missing_figures``, ``assumptions``, ``warnings``
        and ``sources``. Runs in about a millisecond once the kb is warm.

    Raises:
        UnknownEntityError: unknown model, GPU, precision or engine.
        EstimationError: an impossible layout (naming why), non-positive counts, an unknown
            objective, expert parallelism on a dense model.
    """
    return estimate_inference_for(
        kb, get_model(kb, model_id), get_gpu(kb, gpu_id), count=count, precision=precision,
        kv_precision=kv_precision, context_tokens=context_tokens, input_tokens=input_tokens,
        output_tokens=output_tokens, batch_size=batch_size, engine=engine, tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel, replicas=replicas, objective=objective,
        expert_parallel=expert_parallel, attention_data_parallel=attention_data_parallel,
        prefix_cached_tokens=prefix_cached_tokens, fused_attention=fused_attention)
