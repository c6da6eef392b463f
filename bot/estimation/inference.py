"""Inference sizing: memory, fit, TTFT, decode speed and throughput for one model on one GPU type.

Formulas (estimation-notes.md, "Memory for inference" and "Throughput and latency"):

* per-GPU memory = weights / (TP x PP) + KV x shard / PP + overhead, with KV shard = 1/min(TP, n_kv)
  (KV heads replicated when TP > n_kv; MLA latent replicated on every rank);
* decode step = max((weight bytes + KV bytes read) / (bandwidth x MBU x TP eff),
  (2 x P_active + attention) x b / (dense peak x MFU x TP eff)) + fixed per-step overhead;
* TTFT = max(2 x P_active x prompt + 2 x L x prompt^2 x d_attn, weight read) / (dense peak x MFU)
  + fixed overhead;
* aggregate throughput = b x output / (prefill of the batch + output x step at the mean context).

MBU, MFU, TP efficiency and overheads come from ``knowledge/efficiency.yaml``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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
from bot.estimation.results import EstimationError, InferenceEstimate, MemoryBreakdown
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model

__all__ = ["estimate_inference", "estimate_inference_for"]

_NOTES_SRC = "estimation-notes.md (shared reference): inference memory and roofline formulas"


@dataclass
class _Ctx:
    """Everything that does not depend on the parallel layout."""

    eff: EfficiencyTable
    model: Model
    gpu: Gpu
    engine_name: str
    engine: EngineProfile
    weights_b: float          # bytes, one copy
    kv: KvShape | None
    kv_elem: float            # bytes per KV element
    context: int
    isl: int
    osl: int
    p_active: float           # parameters per token
    mbu: float
    mfu: float | None         # inference MFU incl. engine factor (None: no peak)
    peak_flops: float | None  # dense FLOP/s per GPU for the compute precision
    d_attn: int               # n_heads x head_dim (attention FLOPs)


@dataclass
class _Eval:
    tp: int
    pp: int
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
    step_s: float | None = None
    throughput: float | None = None
    bound: str | None = None


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
        budget = c.engine.activation_token_budget or max(1, batch * c.isl)
        total += budget * 2 * (e.c("workspace_hidden_multiplier") * h
                               + e.c("workspace_intermediate_multiplier") * inter / tp)
        seqs = min(max(batch, 1), budget)
        total += seqs * (m.vocab_size or 32000) * e.c("logits_bytes") / tp
    else:
        total += 0.5 * GB
    return total


def _evaluate(c: _Ctx, tp: int, pp: int, replicas: int, batch: int | Literal["max"]) -> _Eval:
    gpu, eng = c.gpu, c.engine
    cap = usable_memory_gb(c.eff, gpu) * GB
    weights_pg = c.weights_b / (tp * pp)
    shard = c.kv.tp_shard(tp) if c.kv else 1.0
    seq_kv = c.kv.bytes_per_sequence(c.context, c.kv_elem) if c.kv else 0.0
    seq_kv_pg = seq_kv * shard / pp
    b_for_overhead = eng.max_batch_size if batch == "max" else batch
    overhead_pg = _overhead_bytes(c, tp, pp, b_for_overhead)
    budget = cap * eng.memory_utilization - weights_pg - overhead_pg
    if c.kv and seq_kv_pg > 0:
        max_b_mem = max(0, int(budget // seq_kv_pg))
        max_b = min(max_b_mem, eng.max_batch_size)
    else:
        max_b_mem = max_b = None
    b = (max(1, max_b) if max_b is not None else 1) if batch == "max" else batch
    kv_pg = seq_kv_pg * b
    per_gpu = weights_pg + kv_pg + overhead_pg
    fits = per_gpu <= cap and (batch != "max" or max_b is None or max_b >= 1)
    max_ctx = None
    if c.kv:
        room = cap * eng.memory_utilization - weights_pg - overhead_pg
        s = c.kv.max_tokens(room * pp / (shard * b), c.kv_elem)
        limit = c.model.max_position_embeddings
        if math.isinf(s):
            max_ctx = limit
        else:
            max_ctx = int(max(0, min(s, limit))) if limit else int(max(0, s))
    ev = _Eval(tp, pp, replicas, b, per_gpu, weights_pg, kv_pg, overhead_pg, fits, max_b, max_b_mem, max_ctx)
    if c.model.kind != "llm":
        return ev
    _speed(c, ev)
    return ev


def _speed(c: _Ctx, ev: _Eval) -> None:
    """Fill TTFT, decode step time, throughput and bound for one layout (roofline, see module doc)."""
    e, gpu, eng, m = c.eff, c.gpu, c.engine, c.model
    tp, pp, b = ev.tp, ev.pp, ev.batch
    eff_par = e.tp_efficiency_for(gpu, tp) * e.c("pipeline_stage_efficiency") ** (pp - 1)
    bw = gpu.memory_bandwidth_gb_s * GB * c.mbu * eff_par
    peak = c.peak_flops * c.mfu * eff_par if c.peak_flops and c.mfu else None
    # decode: pipelined micro-batches of ceil(b / pp) sequences through pp stages; all b sequences
    # advance one token per step of pp stage times
    mb = math.ceil(b / pp)
    avg_ctx = c.isl + c.osl / 2
    shard = c.kv.tp_shard(tp) if c.kv else 1.0
    kv_read_pg = (c.kv.bytes_per_sequence(avg_ctx, c.kv_elem) * shard / pp * mb) if c.kv else 0.0
    mem_t = (ev.weights_pg * _weights_read_fraction(m, mb) + kv_read_pg) / bw
    flops_tok = 2 * c.p_active + 4 * _attended(m, avg_ctx) * c.d_attn
    comp_t = flops_tok * mb / (tp * pp) / peak if peak else 0.0
    step = max(mem_t, comp_t) * pp + eng.step_overhead_ms / 1000
    ev.step_s = step
    ev.bound = "compute" if comp_t > mem_t else "memory-bandwidth"
    # prefill: causal attention = 2 x attended-positions x d_attn per token per layer
    pre_flops = 2 * c.p_active * c.isl + 2 * _attended(m, c.isl) * c.isl * c.d_attn
    read_t = c.weights_b / (tp * bw)  # every stage reads its weights once
    if peak:
        ev.ttft_s = max(pre_flops / (tp * peak), read_t) + eng.prefill_overhead_ms / 1000
        batch_prefill = max(pre_flops * b / (tp * pp * peak), read_t)
    else:
        ev.ttft_s = None
        batch_prefill = read_t
    cycle = batch_prefill + c.osl * step
    ev.throughput = b * c.osl / cycle * ev.replicas


def _weights_read_fraction(m: Model, batch: int) -> float:
    """Fraction of the weight bytes one decode step reads.

    Dense models read all weights. MoE models read the shared part plus the experts the batch's
    tokens route to: with E experts and k per token, the expected fraction of experts touched by
    ``batch`` tokens is 1 - (1 - k/E)^batch (uniform routing). At batch 1 this is P_active/P_total
    (Mixtral 8x7B: 12.9B of 46.7B), which is why decode speed follows active parameters.
    """
    if not m.is_moe:
        return 1.0
    total, active = m.params_total_b, m.params_active_b
    e, k = m.num_local_experts, m.num_experts_per_tok
    if not e or not k or e <= k:
        return active / total
    per_expert = (total - active) / (e - k)
    shared = max(0.0, active - k * per_expert)
    touched = 1 - (1 - k / e) ** batch
    return min(1.0, (shared + e * per_expert * touched) / total)


def _attended(m: Model, ctx: float) -> float:
    """Layer-positions attended per token at context ``ctx``: full layers see ``ctx`` tokens,
    sliding-window layers at most the window (Korthikanti/PaLM attention FLOPs, window-aware)."""
    layers = m.num_hidden_layers or 0
    swl = m.sliding_window_layers or 0
    if not swl:
        return layers * ctx
    return (layers - swl) * ctx + swl * min(ctx, m.sliding_window or ctx)


def _layouts(c: _Ctx, count: int | None, tensor_parallel: int | None, max_stages: int = 16
             ) -> list[tuple[int, int, int]]:
    """Candidate (TP, PP, replicas) layouts, in preference order."""
    tps = valid_tp_degrees(c.model)
    node = int(c.eff.c("pipeline_stage_gpus"))
    if c.engine_name == "llama.cpp" and tensor_parallel is None:
        # llama.cpp splits layers across GPUs (--split-mode layer, the default): pipeline stages
        if count is None:
            return [(1, pp, 1) for pp in range(1, node + 1)]
        return [(1, count, 1)]
    if tensor_parallel is not None:
        if tensor_parallel not in tps:
            raise EstimationError(
                f"tensor parallel degree {tensor_parallel} is not valid for {c.model.name}: it must be 1, 2, 4 or 8 "
                f"and divide the {c.model.num_attention_heads} attention heads (valid: {tps})")
        if count is None:
            return [(tensor_parallel, pp, 1) for pp in range(1, max_stages + 1)]
        if count % tensor_parallel:
            raise EstimationError(f"{count} GPUs cannot be split into TP groups of {tensor_parallel}")
        rest = count // tensor_parallel
        return [(tensor_parallel, 1, rest)] + [(tensor_parallel, pp, rest // pp)
                                                for pp in range(2, rest + 1) if rest % pp == 0]
    if count is None:
        out = [(tp, 1, 1) for tp in tps]
        top = max(tps)
        out += [(top, pp, 1) for pp in range(2, max_stages + 1)]
        return out
    out = []
    for tp in tps:  # data-parallel replicas of the smallest TP group first
        if count % tp == 0:
            out.append((tp, 1, count // tp))
    for tp in reversed(tps):  # then pipeline stages across the rest
        if count % tp == 0 and count // tp > 1:
            rest = count // tp
            out += [(tp, pp, rest // pp) for pp in range(2, rest + 1) if rest % pp == 0]
    return out


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
) -> InferenceEstimate:
    """Serving estimate for a :class:`Model` on a :class:`Gpu` (see :func:`estimate_inference`)."""
    require_positive("count", count)
    require_positive("context_tokens", context_tokens)
    require_positive("input_tokens", input_tokens)
    require_positive("output_tokens", output_tokens)
    if batch_size != "max":
        require_positive("batch_size", batch_size)
    eff = efficiency_for(kb)
    eng_name, eng = eff.engine(engine)
    assumptions: list[str] = []
    warnings: list[str] = []
    sources = [_NOTES_SRC, f"knowledge/efficiency.yaml (as_of {eff.as_of})", *gpu.sources[:1], *model.sources[:1]]
    assumptions += list(model.notes) if model.family == "generic" else []

    prec = resolve_precision(eff, gpu, model, precision)
    warnings += prec.warnings
    assumptions += prec.assumptions
    fmt = prec.fmt
    assumptions.append(f"weights: {model.params_total_b:.2f}B parameters x {fmt.bytes_per_weight:g} B/weight ({prec.name})"
                       + (", embeddings/lm_head kept 16-bit" if fmt.embeddings_16bit and model.vocab_size else ""))
    if model.is_moe:
        assumptions.append(f"MoE: memory follows all {model.params_total_b:.1f}B parameters; compute and "
                           f"bandwidth per token follow the {model.params_active_b:.1f}B active")

    # KV dtype
    if kv_precision is None:
        kv_name = "bf16" if prec.compute == "bf16" or (fmt.kind in ("float", "integer") and prec.compute != "fp16"
                                                        and gpu.supports("bf16") and fmt.kind != "gguf") else "fp16"
        assumptions.append(f"KV cache in {kv_name} (engine default: the activation dtype; pass kv_precision "
                           "for an fp8/q8_0/q4_0 KV cache)")
    else:
        kv_name = kv_precision
    kv_name, kv_fmt = eff.kv_format(kv_name)
    if kv_name == "bf16" and not gpu.supports("bf16"):
        kv_name, kv_fmt = eff.kv_format("fp16")

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

    kv, kv_reason = kv_shape(model) if model.kind == "llm" else (None, None)
    if kv_reason:
        warnings.append(kv_reason)
    elif kv is not None:
        assumptions.append(
            f"KV cache: {kv.bytes_per_token(kv_fmt.bytes_per_element):,.0f} bytes/token in {kv_name}"
            + (" (MLA latent: layers x (kv_lora_rank + qk_rope_head_dim))" if kv.mla else
               f" (2 x {kv.full_layers + kv.window_layers} layers x {kv.n_kv_heads} KV heads x "
               f"{model.effective_head_dim} head_dim)")
            + (f"; {kv.window_layers} sliding-window layers hold at most {kv.window:,} tokens" if kv.window_layers else ""))

    # weights / non-LLM
    if model.kind != "llm":
        wb = (model.typical_fp16_weight_gb * GB * fmt.bytes_per_weight / 2 if model.typical_fp16_weight_gb
              else model.params_total_b * 1e9 * fmt.bytes_per_weight)
        assumptions.append("non-LLM model: memory from parameters only (activation workspace assumed ~0.5 GB); "
                           "throughput and latency estimates are for LLMs and are not given")
    else:
        wb = weight_bytes(model, fmt)

    # efficiency
    mbu = eng.decode_mbu[fmt.mbu_class]
    peak_tflops, peak_note = dense_peak_tflops(gpu, prec.compute)
    if peak_note and model.kind == "llm":
        warnings.append(peak_note)
    base_mfu, _ = eff.inference_mfu_for(gpu, prec.compute)
    mfu = base_mfu * eng.inference_mfu_factor
    if gpu.cc is not None and gpu.cc < 8.0:
        mfu *= eff.c("no_flash_attention_prefill_factor")
        assumptions.append(f"{gpu.name} ({_cc(gpu)}) has no FlashAttention-2 (needs 8.0+): prefill MFU lowered")
    d_attn = (model.num_attention_heads or 0) * (model.effective_head_dim or 0)
    ctx = _Ctx(eff, model, gpu, eng_name, eng, wb, kv, kv_fmt.bytes_per_element, context, isl, osl,
               model.compute_params_b * 1e9, mbu, mfu if peak_tflops else None,
               peak_tflops * 1e12 if peak_tflops else None, d_attn)

    # layouts
    if model.kind != "llm":
        layouts = [(1, 1, count or 1)]
    else:
        layouts = _layouts(ctx, count, tensor_parallel)
    evals: list[_Eval] = []
    chosen: _Eval | None = None
    for tp, pp, rep in layouts:
        ev = _evaluate(ctx, tp, pp, rep, batch_size)
        evals.append(ev)
        if count is None or batch_size != "max":
            if ev.fits:
                chosen = ev
                break
    if chosen is None and count is not None and batch_size == "max":
        fitting = [e for e in evals if e.fits]
        if fitting:
            chosen = max(fitting, key=lambda e: e.throughput or 0.0)
    if chosen is None:
        chosen = evals[-1] if count is None else evals[0]
        need = chosen.per_gpu_b / GB
        warnings.append(
            f"does not fit: needs {need:.1f} GB per GPU on {chosen.tp * chosen.pp} x {gpu.name} "
            f"({gpu.memory_gb:g} GB each)" + ("" if count else " even at the largest layout tried"))
    ev = chosen
    n_gpus = ev.tp * ev.pp * ev.replicas

    # honesty notes
    assumptions.append(
        f"decode MBU {mbu:.2f} ({eng_name}, {fmt.mbu_class} weights) + {eng.step_overhead_ms:g} ms per step; "
        + (f"inference MFU {mfu:.2f} of the dense {prec.compute} peak ({peak_tflops:g} TFLOPS, not the sparse figure)"
           if peak_tflops else "no compute peak")
        + "; efficiencies from published ranges, not a 100% roofline")
    if ev.tp > 1:
        icls = eff.interconnect_class(gpu, ev.tp)
        link = {"nvlink": "Infinity Fabric" if gpu.vendor == "AMD" else "NVLink", "pcie": "PCIe",
                "no_p2p": "PCIe without P2P"}.get(icls, icls)
        assumptions.append(f"TP {ev.tp} x PP {ev.pp}: efficiency x{eff.tp_efficiency_for(gpu, ev.tp):.2f} "
                           f"({link}) for per-layer all-reduces")
        if icls == "no_p2p":
            warnings.append(f"{gpu.name} has no NVLink or P2P: tensor parallelism across them goes through host "
                            "memory and is slow; prefer one larger GPU or pipeline/layer split")
        elif icls == "pcie":
            warnings.append(f"{gpu.name} has no NVLink: TP all-reduces go over PCIe (slower than SXM/NVLink parts)")
    if ev.pp > 1:
        assumptions.append(f"{ev.pp} pipeline stages of {ev.tp} GPU(s)" + (
            " (llama.cpp layer split)" if eng_name == "llama.cpp" else " (beyond one 8-GPU TP group)"))
    if ev.replicas > 1:
        assumptions.append(f"{ev.replicas} data-parallel replicas of {ev.tp * ev.pp} GPU(s); batch_size is per replica")
    reserved = None
    if eng.memory_utilization < 1.0 and eng_name == "vllm":
        reserved = usable_memory_gb(eff, gpu) * eng.memory_utilization
        assumptions.append(
            f"vLLM pre-allocates gpu_memory_utilization 0.9 x {usable_memory_gb(eff, gpu):.1f} GB = {reserved:.1f} GB "
            "per GPU for "
            "weights, activations and KV blocks, so nvidia-smi shows that much in use; the figures here are what is "
            "needed")
        if ev.fits and ev.per_gpu_b > reserved * GB:
            warnings.append(f"needs {ev.per_gpu_b / GB:.1f} GB per GPU, above vLLM's default 0.9 budget "
                            f"({reserved:.1f} GB): raise --gpu-memory-utilization or lower --max-model-len")
    usable = usable_memory_gb(eff, gpu)
    assumptions.append(f"GPU capacity {usable:.1f} GB usable ({usable * GB / GIB:.1f} GiB) of the marketed "
                       f"\"{gpu.memory_gb:g} GB\" (binary GiB; GB here = 1e9 bytes)")
    if batch_size == "max" and ev.max_batch is not None and ev.max_batch_memory is not None \
            and ev.max_batch_memory > ev.max_batch:
        assumptions.append(f"batch capped at the {eng_name} default of {eng.max_batch_size} concurrent sequences "
                           f"(memory would allow {ev.max_batch_memory})")

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
    llm = model.kind == "llm"
    step = ev.step_s if llm else None
    return InferenceEstimate(
        model=model.id, gpu=gpu.id, gpu_count=n_gpus, tensor_parallel=ev.tp, pipeline_stages=ev.pp,
        replicas=ev.replicas, engine=eng_name, precision=prec.name, requested_precision=precision,
        kv_precision=kv_name if kv is not None else None, fits=ev.fits, memory=mem, context_tokens=context,
        input_tokens=isl, output_tokens=osl, batch_size=ev.batch, max_batch_size=ev.max_batch,
        max_context_tokens=ev.max_context, ttft_s=ev.ttft_s if llm else None,
        tpot_ms=step * 1000 if step else None,
        decode_tokens_per_s_per_sequence=1 / step if step else None,
        throughput_tokens_per_s=ev.throughput if llm else None, bound=ev.bound if llm else None,
        mbu=mbu if llm else None, mfu=ctx.mfu if llm else None,
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
) -> InferenceEstimate:
    """Estimate serving ``model_id`` on ``gpu_id``: memory, fit, TTFT, decode speed, throughput.

    Args:
        kb: the knowledge base (efficiency constants are cached on it).
        model_id: a model id (``"llama-2-70b"``) or a :class:`~bot.kb.schema.Model` (e.g. from
            :func:`bot.estimation.generic_model`).
        gpu_id: a GPU id (``"h100-sxm-80gb"``) or a :class:`~bot.kb.schema.Gpu`.
        count: GPUs in total; ``None`` = the smallest count that fits (TP 1, 2, 4, 8 dividing the
            heads, then pipeline stages of 8). With a count, one TP group spanning the GPUs is
            preferred only when it is needed: the smallest valid TP group that fits is replicated
            (``batch_size="max"`` picks the layout with the highest throughput).
        precision: weight format, case-insensitive: fp32, bf16, fp16, fp8, int8, int4 (awq/gptq),
            nf4, mxfp4, nvfp4, or GGUF (q4_k_m, q8_0, ...). ``None`` = the model's native dtype
            (fp16 when unknown). Unsupported formats fall back with a warning (FP8 on A100 -> INT8).
        kv_precision: KV-cache dtype (fp16, bf16, fp8, int8, q8_0, q4_0); ``None`` = 16-bit.
        context_tokens: tokens per sequence the KV cache is sized for; ``None`` = input + output
            when given, else 4,096 (never the model's maximum).
        input_tokens, output_tokens: prompt and generated tokens per request (defaults:
            context - output, and 256).
        batch_size: concurrent sequences per replica, or ``"max"`` for the largest that fits
            (capped by the engine's default limit).
        engine: ``vllm`` (default), ``tensorrt-llm``, ``llama.cpp``, ``hf`` or an alias (nim,
            lmdeploy, sglang, ollama, transformers).
        tensor_parallel: force a TP degree (must be valid for the model).

    Returns:
        :class:`InferenceEstimate` (GB = 1e9 bytes; seconds; tokens/s), with ``assumptions``,
        ``warnings`` and ``sources``. Runs in well under 1 ms once the kb is warm.

    Raises:
        UnknownEntityError: unknown model, GPU, precision or engine.
        EstimationError: invalid ``tensor_parallel`` or non-positive counts.
    """
    return estimate_inference_for(
        kb, get_model(kb, model_id), get_gpu(kb, gpu_id), count=count, precision=precision,
        kv_precision=kv_precision, context_tokens=context_tokens, input_tokens=input_tokens,
        output_tokens=output_tokens, batch_size=batch_size, engine=engine, tensor_parallel=tensor_parallel)
