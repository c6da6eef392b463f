"""Training and fine-tuning estimates: FLOPs, GPU-hours, wall clock, memory per GPU, cost.

Formulas (estimation-notes.md, "Training and fine-tuning"):

* model FLOPs = 6 x P_active x D (8 x with full activation recompute); MFU counts attention too
  (PaLM: + 12 x L x d_attn x seq per token), so time = (model + attention FLOPs) /
  (N x dense peak x steady-state MFU) / goodput;
* model states per parameter (mixed-precision Adam): 2 (bf16 weights) + 2 (bf16 grads; 4 for fp32
  grads, Megatron's 18 B) + 12 (fp32 master, m, v; ~6 with 8-bit optimizers). ZeRO-1 shards the
  optimizer over data-parallel ranks, ZeRO-2 also gradients, ZeRO-3/FSDP also weights; TP and PP
  shard all of them;
* activations (Korthikanti et al. arXiv:2205.05198): s x b x h x (34 + 5 a s / h) bytes per layer,
  the 5as/h term dropped with a fused attention kernel (PyTorch SDPA: FlashAttention-2 on sm80+, the
  memory-efficient kernel on sm50+, the default of transformers, torchtune and LitGPT); full
  recompute keeps 2 s b h per layer plus one layer's working set; TP with sequence parallelism
  divides them by TP;
* LoRA: frozen 16-bit weights (not sharded by ZeRO-1/2) + adapters at 16 B/param + activations
  (still needed for input gradients); QLoRA: NF4 base (~0.52 B/param with double quantization).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from bot.estimation.common import (
    GB,
    dense_peak_tflops,
    get_gpu,
    get_model,
    require_positive,
    resolve_precision,
    usable_memory_gb,
    valid_tp_degrees,
    weight_bytes,
)
from bot.estimation.cost import gpu_hour_price
from bot.estimation.efficiency import EfficiencyTable, efficiency_for
from bot.estimation.results import EstimationError, FinetuneEstimate, TrainingEstimate, TrainingMemory
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model

__all__ = [
    "estimate_finetune",
    "estimate_finetune_for",
    "estimate_training",
    "estimate_training_for",
    "lora_trainable_params",
]

_SHARDING = {"none": 0, "ddp": 0, "zero0": 0, "zero-0": 0, "zero1": 1, "zero-1": 1, "zero2": 2, "zero-2": 2,
             "zero3": 3, "zero-3": 3, "fsdp": 3, "full_shard": 3}
_SHARD_NAME = {0: "DDP (replicated)", 1: "ZeRO-1", 2: "ZeRO-2", 3: "ZeRO-3/FSDP"}
_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def _shape(model: Model) -> tuple[int, int, int, int] | None:
    """(layers, hidden, heads x head_dim, intermediate) or None when unknown."""
    if not (model.num_hidden_layers and model.hidden_size):
        return None
    d_attn = (model.num_attention_heads or 0) * (model.effective_head_dim or 0) or model.hidden_size
    inter = model.intermediate_size or 4 * model.hidden_size
    return model.num_hidden_layers, model.hidden_size, d_attn, inter


def lora_trainable_params(model: Model, rank: int, targets: Sequence[str] = ("q_proj", "v_proj")) -> float:
    """LoRA adapter parameters: layers x sum over target modules of rank x (in + out).

    Targets use Hugging Face names (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj)
    or ``"all-linear"``. MoE expert MLPs are counted once (the dense intermediate size). Unknown
    shapes: 0.1% of P per 16 of rank per target pair (a rough stand-in, stated by the caller).

    Raises:
        EstimationError: unknown module names.
    """
    names = list(_MODULES) if any(t in ("all-linear", "all_linear", "all") for t in targets) else list(targets)
    bad = [t for t in names if t not in _MODULES]
    if bad:
        raise EstimationError(f"unknown LoRA target modules {bad}; use {list(_MODULES)} or 'all-linear'")
    shape = _shape(model)
    if shape is None:
        return model.params_total_b * 1e9 * 0.001 * rank / 16 * len(names) / 2
    layers, h, d_attn, inter = shape
    hd = model.effective_head_dim or (d_attn // max(1, model.num_attention_heads or 1))
    d_kv = (model.num_key_value_heads or model.num_attention_heads or 1) * hd
    dims = {"q_proj": (h, d_attn), "k_proj": (h, d_kv), "v_proj": (h, d_kv), "o_proj": (d_attn, h),
            "gate_proj": (h, inter), "up_proj": (h, inter), "down_proj": (inter, h)}
    return float(layers * sum(rank * sum(dims[n]) for n in names))


def _activation_bytes(eff: EfficiencyTable, model: Model, gpu: Gpu, seq: int, micro_batch: int, tp: int,
                      recompute: bool | float) -> tuple[float, str]:
    """Activation memory per GPU, bytes, and a one-line description (Korthikanti et al.). ``recompute`` True
    recomputes every layer; a fraction recomputes that share of the layers (Megatron-LM
    ``--recompute-granularity full --recompute-method block --recompute-num-layers``), the rest keep theirs."""
    shape = _shape(model)
    if shape is None:
        return 0.0, "activations not estimated (model shape unknown)"
    layers, h, _, _ = shape
    coef = eff.c("activation_bytes_per_layer_coefficient")
    # SDPA's FlashAttention-2 (sm80+) or memory-efficient kernel (sm50+) keeps the score matrix on chip
    flash = gpu.cc is None or gpu.cc >= eff.c("memory_efficient_attention_min_cc")
    heads = model.num_attention_heads or 1
    per_layer = seq * micro_batch * h * (coef + (0 if flash else eff.c("attention_score_coefficient") * heads * seq / h))
    logits = seq * micro_batch * (model.vocab_size or 32000) * eff.c("logits_bytes")
    if recompute is True or recompute == 1:
        total = layers * 2 * seq * micro_batch * h + per_layer
        how = f"full recompute: 2 x s x b x h per layer + one layer's {coef:g} s b h"
    elif recompute:
        n = math.ceil(float(recompute) * layers - 1e-9)
        total = n * 2 * seq * micro_batch * h + (layers - n) * per_layer + per_layer
        how = (f"{n} of {layers} layers recomputed (2 x s x b x h each), the rest {coef:g} x s x b x h, "
               "+ one layer's during its recompute")
    else:
        total = layers * per_layer
        how = f"{coef:g} x s x b x h per layer" + ("" if flash else " + 5 a s^2 b (attention scores materialised)")
    return (total + logits) / tp, how + f" (s={seq}, b={micro_batch}), fp32 logits; /TP with sequence parallelism"


def _attention_flops_per_token(model: Model, seq: int) -> float:
    shape = _shape(model)
    if shape is None:
        return 0.0
    layers, _, d_attn, _ = shape
    swl = model.sliding_window_layers or 0
    w = model.sliding_window or seq
    return 12 * d_attn * ((layers - swl) * seq + swl * min(seq, w))


def _resolve_training_precision(eff: EfficiencyTable, gpu: Gpu, model: Model, precision: str) -> tuple[str, str, list[str]]:
    prec = resolve_precision(eff, gpu, model, precision)
    warnings = list(prec.warnings)
    compute = prec.compute
    if prec.fmt.kind in ("weight_only", "gguf", "integer"):
        warnings.append(f"{prec.name} is an inference format; training is estimated in "
                        f"{'bf16' if gpu.supports('bf16') else 'fp16'} mixed precision")
        compute = "bf16" if gpu.supports("bf16") else "fp16"
    if compute == "fp32":
        compute = "tf32" if gpu.dense_tflops.tf32 else "fp32"
    return prec.name, compute, warnings


def _layouts(model: Model, count: int, tp: int | None, pp: int | None) -> list[tuple[int, int]]:
    tps = [tp] if tp else valid_tp_degrees(model)
    pps = [pp] if pp else [1, 2, 4, 8, 16, 32, 64]
    out = [(t, p) for p in pps for t in tps if count % (t * p) == 0]
    out.sort(key=lambda x: (x[0] * x[1], x[1]))
    return out or [(1, 1)]


def _slowdowns(eff: EfficiencyTable, model: Model, pipeline_parallel: int | None, micro_batches: int
               ) -> tuple[float, list[str]]:
    """Time multiplier and notes for what dense-model MFU does not cover.

    * MoE: the routed-expert share of the active FLOPs runs as grouped GEMMs at
      ``moe_training_grouped_gemm_efficiency`` of the dense efficiency (plus the all-to-all they need);
    * pipeline parallelism: with m micro-batches per step through PP stages the pipeline is idle
      (PP - 1) / (m + PP - 1) of the time (GPipe/1F1B bubble; Narayanan et al. arXiv:2104.04473).
    """
    factor, notes = 1.0, []
    e, k = model.num_local_experts, model.num_experts_per_tok
    if model.is_moe and e and k and e > k:
        expert = (model.params_total_b - model.params_active_b) / (e - k)
        share = min(1.0, k * expert / model.params_active_b)
        g = eff.c("moe_training_grouped_gemm_efficiency")
        factor *= (1 - share) + share / g
        notes.append(f"MoE: the routed experts ({share:.0%} of the active FLOPs) run as grouped GEMMs at {g:g} of the "
                     "dense efficiency")
    if pipeline_parallel and pipeline_parallel > 1:
        m = max(1, micro_batches)
        bubble = (pipeline_parallel - 1) / (m + pipeline_parallel - 1)
        factor /= 1 - bubble
        notes.append(f"pipeline bubble: {pipeline_parallel} stages with {m} micro-batches per step idle {bubble:.0%} "
                     "of the time")
    return factor, notes


def _states(p_total: float, weight_b: float, grad_b: float, opt_b: float, dp: int, stage: int, shard: int
            ) -> tuple[float, float, float]:
    w = p_total * weight_b / shard / (dp if stage >= 3 else 1)
    g = p_total * grad_b / shard / (dp if stage >= 2 else 1)
    o = p_total * opt_b / shard / (dp if stage >= 1 else 1)
    return w, g, o


def estimate_training_for(
    kb: KnowledgeBase, model: Model, gpu: Gpu, count: int, tokens: float, precision: str = "bf16",
    recompute: bool | float = False, price_per_gpu_hour: float | None = None, seq_len: int | None = None,
    micro_batch: int = 1, sharding: str = "auto", optimizer: Literal["adamw", "adamw-8bit"] = "adamw",
    fp32_grads: bool = False, tensor_parallel: int | None = None, pipeline_parallel: int | None = None,
    gradient_accumulation: int = 1, mfu: float | None = None,
) -> TrainingEstimate:
    """Full training estimate for a :class:`Model` (see :func:`estimate_training`)."""
    require_positive("count", count)
    require_positive("tokens", tokens)
    require_positive("micro_batch", micro_batch)
    eff = efficiency_for(kb)
    assumptions: list[str] = list(model.notes) if model.family == "generic" else []
    pname, compute, warnings = _resolve_training_precision(eff, gpu, model, precision)
    seq = seq_len or int(eff.c("default_training_seq_len"))
    if seq_len is None:
        assumptions.append(f"sequence length not given: {seq:,} tokens")

    # time
    p_act = model.compute_params_b * 1e9
    rf = 1.0 + (eff.c("recompute_flops_factor") - 1.0) * float(recompute)
    flops = 6 * p_act * tokens * rf
    # a stated MFU is quoted against 6ND (as Chinchilla-style "FLOPs = 6ND" calculators and most reports do):
    # adding attention FLOPs on top would count work the user's figure already covers
    attn = _attention_flops_per_token(model, seq) * tokens * rf if mfu is None else 0.0
    peak, note = dense_peak_tflops(gpu, compute)
    if note:
        warnings.append(note)
    if mfu is None:
        mfu, mfu_src = eff.training_mfu_for(gpu, compute)
    else:
        require_positive("mfu", mfu)
        if mfu > 1:
            raise EstimationError(f"mfu is a fraction of the peak, at most 1, got {mfu}")
        mfu_src = "the MFU stated, against 6ND"
    goodput = eff.c("training_goodput")
    slow, slow_notes = _slowdowns(eff, model, pipeline_parallel, gradient_accumulation)
    assumptions += slow_notes
    steady_h = (flops + attn) * slow / (count * peak * 1e12 * mfu) / 3600 if peak else None
    wall_h = steady_h / goodput if steady_h is not None else None
    gpu_hours = wall_h * count if wall_h is not None else None
    assumptions += [
        f"FLOPs = {6 * rf:.3g} x {model.compute_params_b:.2f}B active params x {tokens:.3g} tokens"
        + (f" + attention 12 x L x d_attn x {seq} per token" if attn else ""),
        f"steady-state MFU {mfu:.2f} of the dense {compute} peak ({peak:g} TFLOPS; {mfu_src})" if peak else
        "no dense peak: time not estimated",
        f"goodput {goodput:.2f} (restarts, checkpoints, evaluation) turns steady state into whole-run time",
    ]
    if model.is_moe:
        assumptions.append("MoE: compute from active parameters, memory from total parameters")
    if count > 4096:
        warnings.append(f"at {count:,} GPUs per-GPU throughput usually drops further (MLPerf GPT-3: 71% per GPU at "
                        "10,752 vs 512 GPUs); treat the time as optimistic")
    if compute == "fp8":
        bf16_mfu, _ = eff.training_mfu_for(gpu, "bf16")
        bf16_peak, _ = dense_peak_tflops(gpu, "bf16")
        ratio = (peak * mfu) / (bf16_peak * bf16_mfu) if peak and bf16_peak else None
        assumptions.append("FP8 training: MFU counted against the fp8 peak (25-36% in practice, estimation-notes.md)"
                           + (f"; here {ratio:.2f}x the bf16 rate (published runs: ~1.1-1.5x, so this is at the "
                              "optimistic end)" if ratio else ""))

    # memory
    wb = 4.0 if pname == "fp32" else 2.0
    gb_ = 4.0 if (fp32_grads or pname == "fp32") else 2.0
    ob = 6.0 if optimizer == "adamw-8bit" else 12.0
    if pname == "fp32":
        ob = 8.0  # fp32 weights are their own master copy: m + v only
    stage_fixed = _SHARDING.get(sharding.lower()) if sharding != "auto" else None
    if sharding != "auto" and stage_fixed is None:
        raise EstimationError(f"unknown sharding {sharding!r}; use auto, none, zero1, zero2, zero3 or fsdp")
    p_total = model.params_total_b * 1e9
    best = None
    for tp, pp in _layouts(model, count, tensor_parallel, pipeline_parallel):
        dp = count // (tp * pp)
        act, act_how = _activation_bytes(eff, model, gpu, seq, micro_batch, tp, recompute)
        overhead = eff.c("cuda_context_gb") * GB + (eff.c("tp_comm_buffers_gb") * GB if count > 1 else 0.0)
        for stage in ([stage_fixed] if stage_fixed is not None else [0, 1, 2, 3]):
            w, g, o = _states(p_total, wb, gb_, ob, dp, stage, tp * pp)
            total = w + g + o + act + overhead
            cand = (total <= usable_memory_gb(eff, gpu) * GB, tp, pp, stage, w, g, o, act, overhead, total, act_how)
            # keep the first layout that fits, else the one needing the least memory (the honest "does not fit")
            if best is None or (cand[0] and not best[0]) or (not cand[0] and not best[0] and cand[9] < best[9]):
                best = cand
            if cand[0]:
                break
        if best[0]:
            break
    fits, tp, pp, stage, w, g, o, act, overhead, total, act_how = best
    if not fits and recompute is False and _shape(model) is not None:
        # stored activations are what does not fit: recompute the fewest layers that make it fit (the model
        # states alone must fit), as large runs do, paying one extra forward pass for those layers
        layers = _shape(model)[0]

        def run(n: int) -> TrainingEstimate:
            return estimate_training_for(kb, model, gpu, count, tokens, precision, n / layers, price_per_gpu_hour,
                                         seq_len, micro_batch, sharding, optimizer, fp32_grads, tensor_parallel,
                                         pipeline_parallel, gradient_accumulation, mfu)
        if run(layers).fits:
            lo, hi = 1, layers  # the fewest recomputed layers that fit (memory falls as n grows)
            while lo < hi:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if run(mid).fits else (mid + 1, hi)
            out = run(lo)
            out.assumptions.append(f"activations of all {layers} layers do not fit: {lo} layer(s) recomputed in the "
                                   "backward pass (Megatron-LM --recompute-num-layers; Korthikanti et al.)")
            return out
    assumptions += [
        f"model states {wb:g} + {gb_:g} + {ob:g} B/param (weights, grads, {optimizer} state), "
        f"{_SHARD_NAME[stage]} over {count // (tp * pp)} data-parallel GPUs, TP {tp} x PP {pp}",
        f"activations: {act_how}",
    ]
    if not fits:
        warnings.append(f"does not fit: needs {total / GB:.1f} GB per GPU on {gpu.name} ({gpu.memory_gb:g} GB) "
                        "even with ZeRO-3 and the layouts tried; add GPUs, recompute, or a smaller micro-batch")
    price, price_src, pwarn = gpu_hour_price(kb, gpu, count, price_per_gpu_hour)
    warnings += pwarn
    cost = gpu_hours * price if price is not None and gpu_hours is not None else None
    mem = TrainingMemory(weights_gb=w / GB, gradients_gb=g / GB, optimizer_gb=o / GB, activations_gb=act / GB,
                         overhead_gb=overhead / GB, total_gb=total / GB)
    return TrainingEstimate(
        model=model.id, gpu=gpu.id, gpu_count=count, precision=compute if compute in ("fp8",) else pname,
        tokens=tokens, flops=flops, attention_flops=attn, mfu=mfu, goodput=goodput,
        achieved_tflops_per_gpu=(peak or 0.0) * mfu, gpu_hours=gpu_hours, wall_clock_hours=wall_h,
        steady_state_wall_clock_hours=steady_h, memory_per_gpu_gb=total / GB, memory=mem, fits=fits,
        sharding=_SHARD_NAME[stage], tensor_parallel=tp, pipeline_stages=pp, seq_len=seq, micro_batch=micro_batch,
        price_per_gpu_hour_usd=price, cost_usd=cost, price_source=price_src, assumptions=assumptions,
        warnings=warnings,
        sources=["estimation-notes.md (shared reference): training formulas and MFU ranges",
                 "Korthikanti et al. arXiv:2205.05198 (activation memory)",
                 "Chowdhery et al. PaLM arXiv:2204.02311 appendix B (MFU with attention FLOPs)",
                 "Rajbhandari et al. ZeRO arXiv:1910.02054 (model-state sharding)",
                 f"knowledge/efficiency.yaml (as_of {eff.as_of})"],
    )


def estimate_training(
    kb: KnowledgeBase, model_id: str | Model, gpu_id: str | Gpu, count: int, tokens: float,
    precision: str = "bf16", recompute: bool | float = False, price_per_gpu_hour: float | None = None,
    seq_len: int | None = None, micro_batch: int = 1, sharding: str = "auto",
    optimizer: Literal["adamw", "adamw-8bit"] = "adamw", fp32_grads: bool = False,
    tensor_parallel: int | None = None, pipeline_parallel: int | None = None, gradient_accumulation: int = 1,
    mfu: float | None = None,
) -> TrainingEstimate:
    """Estimate (pre)training ``model_id`` on ``count`` x ``gpu_id`` for ``tokens`` tokens.

    Args:
        kb: the knowledge base.
        model_id: model id or :class:`~bot.kb.schema.Model`; gpu_id: GPU id or :class:`Gpu`.
        count: GPUs (N). tokens: training tokens (D).
        precision: bf16 (default), fp16, fp8 (MFU against the fp8 peak), fp32.
        recompute: ``True``: full activation recomputation (8ND FLOPs, activations 2 s b h per layer); a
            fraction in (0, 1): that share of the layers recomputed (6ND x (1 + fraction / 3)); ``False``: none
            unless no layout fits with every layer's activations stored, then the fewest recomputed layers that
            fit (said in ``assumptions``).
        price_per_gpu_hour: USD per GPU-hour; ``None`` = the cheapest known on-demand offer
            (the placement answers use, :func:`bot.pricing.offers.best_placement`).
        seq_len: tokens per sequence (default 4,096); micro_batch: sequences per GPU per step.
        sharding: ``auto`` (the least sharding that fits: none, ZeRO-1, ZeRO-2, ZeRO-3), or
            none/zero1/zero2/zero3/fsdp.
        optimizer: ``adamw`` (12 B/param of fp32 state) or ``adamw-8bit`` (~6 B).
        fp32_grads: 4-byte gradients (Megatron: 18 B/param instead of 16).
        tensor_parallel, pipeline_parallel: force a layout (default: the smallest that fits).
        gradient_accumulation: micro-batches per optimizer step (with pipeline_parallel > 1 they
            set the pipeline bubble, (PP - 1) / (m + PP - 1)).
        mfu: the user's steady-state MFU, a fraction in (0, 1] of the dense peak, quoted against 6ND (attention
            FLOPs are then not added); ``None`` = the calibrated figure of efficiency.yaml.

    Returns:
        :class:`TrainingEstimate`: flops (6ND or 8ND), attention_flops, mfu (steady state),
        gpu_hours and wall_clock_hours (whole run, with goodput), memory_per_gpu_gb, fits, cost_usd.

    Raises:
        UnknownEntityError: unknown model or GPU. EstimationError: bad counts or sharding.
    """
    return estimate_training_for(
        kb, get_model(kb, model_id), get_gpu(kb, gpu_id), count, tokens, precision=precision, recompute=recompute,
        price_per_gpu_hour=price_per_gpu_hour, seq_len=seq_len, micro_batch=micro_batch, sharding=sharding,
        optimizer=optimizer, fp32_grads=fp32_grads, tensor_parallel=tensor_parallel,
        pipeline_parallel=pipeline_parallel, gradient_accumulation=gradient_accumulation, mfu=mfu)


def estimate_finetune_for(
    kb: KnowledgeBase, model: Model, gpu: Gpu, count: int = 1, method: Literal["full", "lora", "qlora"] = "lora",
    seq_len: int | None = None, micro_batch: int = 1, tokens: float | None = None, lora_rank: int = 16,
    lora_targets: Sequence[str] = ("q_proj", "v_proj"), precision: str = "bf16",
    gradient_checkpointing: bool | None = None, optimizer: Literal["adamw", "adamw-8bit"] = "adamw",
    sharding: str = "auto", double_quant: bool = True, price_per_gpu_hour: float | None = None,
    pipeline_parallel: int | None = None, gradient_accumulation: int = 1,
) -> FinetuneEstimate:
    """Fine-tuning estimate for a :class:`Model` (see :func:`estimate_finetune`)."""
    require_positive("count", count)
    require_positive("micro_batch", micro_batch)
    require_positive("tokens", tokens)
    require_positive("lora_rank", lora_rank)
    if method not in ("full", "lora", "qlora"):
        raise EstimationError(f"method must be full, lora or qlora, got {method!r}")
    eff = efficiency_for(kb)
    seq = seq_len or int(eff.c("default_finetune_seq_len"))
    if gradient_checkpointing is None:
        # each method's recipe default: QLoRA checkpoints (peft prepare_model_for_kbit_training), LoRA and full do not
        gradient_checkpointing = method == "qlora" and bool(eff.c("qlora_gradient_checkpointing"))
    if method == "full":
        t = estimate_training_for(kb, model, gpu, count, tokens or 1.0, precision=precision,
                                  recompute=gradient_checkpointing, seq_len=seq, micro_batch=micro_batch,
                                  sharding=sharding, optimizer=optimizer, price_per_gpu_hour=price_per_gpu_hour,
                                  gradient_accumulation=gradient_accumulation)
        assumptions = list(t.assumptions)
        if seq_len is None:
            assumptions.append(f"sequence length not given: {seq:,} tokens")
        return FinetuneEstimate(
            model=model.id, gpu=gpu.id, gpu_count=count, method="full", precision=t.precision, seq_len=seq,
            micro_batch=micro_batch, lora_rank=None, trainable_params=model.params_total_b * 1e9,
            memory_per_gpu_gb=t.memory_per_gpu_gb, memory=t.memory, fits=t.fits, sharding=t.sharding,
            tokens=tokens, flops=t.flops if tokens else None, mfu=t.mfu,
            gpu_hours=t.gpu_hours if tokens else None,
            tokens_per_s=(tokens / (t.steady_state_wall_clock_hours * 3600)
                          if tokens and t.steady_state_wall_clock_hours else None),
            wall_clock_hours=t.wall_clock_hours if tokens else None, price_per_gpu_hour_usd=t.price_per_gpu_hour_usd,
            cost_usd=t.cost_usd if tokens else None, assumptions=assumptions, warnings=t.warnings, sources=t.sources)

    assumptions: list[str] = list(model.notes) if model.family == "generic" else []
    if seq_len is None:
        assumptions.append(f"sequence length not given: {seq:,} tokens")
    pname, compute, warnings = _resolve_training_precision(eff, gpu, model, precision)
    # frozen base weights
    if method == "qlora":
        _, fmt = eff.weight_format("nf4" if double_quant else "nf4-nodq")
        base = weight_bytes(model, fmt)
        shape = _shape(model)
        deq = (shape[1] * shape[3] * 2) if shape else 0.0  # one dequantised matrix (h x intermediate) in bf16
        base_how = (f"NF4 base {fmt.bytes_per_weight:g} B/param ({'double-quantized' if double_quant else 'no double quant'}; "
                    "embeddings/lm_head bf16) + one dequantized weight matrix")
        base += deq
        pname = "nf4"
    else:
        _, fmt = eff.weight_format("fp32" if pname == "fp32" else "bf16")
        base = model.params_total_b * 1e9 * fmt.bytes_per_weight
        base_how = f"frozen weights {fmt.bytes_per_weight:g} B/param"
    stage = _SHARDING.get(sharding.lower(), 0) if sharding != "auto" else 0
    if count > 1 and stage >= 3:
        base /= count
        base_how += f", sharded over {count} GPUs (ZeRO-3/FSDP)"
    elif count > 1:
        base_how += " replicated on every GPU (ZeRO-1/2 and DDP do not shard frozen weights)"
    trainable = lora_trainable_params(model, lora_rank, lora_targets)
    adapters = trainable * eff.c("lora_trainable_bytes_per_param")
    act, act_how = _activation_bytes(eff, model, gpu, seq, micro_batch, 1, gradient_checkpointing)
    overhead = eff.c("cuda_context_gb") * GB + (eff.c("tp_comm_buffers_gb") * GB if count > 1 else 0.0)
    total = base + adapters + act + overhead
    fits = total <= usable_memory_gb(eff, gpu) * GB
    assumptions += [
        base_how,
        f"LoRA rank {lora_rank} on {', '.join(lora_targets)}: {trainable / 1e6:.1f}M trainable parameters x "
        f"{eff.c('lora_trainable_bytes_per_param'):g} B (weights, grads, Adam state)",
        f"activations: {act_how} (kept for input gradients through the frozen layers)",
    ]
    if not fits:
        warnings.append(f"does not fit: needs {total / GB:.1f} GB on {gpu.name} ({gpu.memory_gb:g} GB)"
                        + ("" if gradient_checkpointing else "; try gradient_checkpointing=True")
                        + ("" if method == "qlora" else " or QLoRA"))
    flops = mfu = gpu_hours = wall = cost = price = tok_s = None
    if tokens:
        rf = eff.c("lora_flops_factor") + (2 / 6 if gradient_checkpointing else 0.0)
        flops = 6 * model.compute_params_b * 1e9 * tokens * rf
        attn = _attention_flops_per_token(model, seq) * tokens * rf
        peak, note = dense_peak_tflops(gpu, compute)
        if note:
            warnings.append(note)
        mfu, _ = eff.training_mfu_for(gpu, compute)
        slow = eff.c("qlora_slowdown") if method == "qlora" else 1.0
        extra, extra_notes = _slowdowns(eff, model, pipeline_parallel, gradient_accumulation)
        assumptions += extra_notes
        if peak:
            steady_h = (flops + attn) / (count * peak * 1e12 * mfu) / 3600 * slow * extra
            tok_s = tokens / (steady_h * 3600)
            wall = steady_h / eff.c("training_goodput")
            gpu_hours = wall * count
            assumptions.append(f"LoRA FLOPs = {rf * 6:.0f} x P x D (no weight gradients for frozen weights); "
                               f"MFU {mfu:.2f}" + (f"; QLoRA {slow:g}x slower (NF4 dequantization)" if slow > 1 else ""))
        price, _src, pwarn = gpu_hour_price(kb, gpu, count, price_per_gpu_hour)
        warnings += pwarn
        if price is not None and gpu_hours is not None:
            cost = gpu_hours * price
    mem = TrainingMemory(weights_gb=base / GB, gradients_gb=trainable * 2 / GB, optimizer_gb=(adapters - trainable * 2) / GB,
                         activations_gb=act / GB, overhead_gb=overhead / GB, total_gb=total / GB)
    return FinetuneEstimate(
        model=model.id, gpu=gpu.id, gpu_count=count, method=method, precision=pname, seq_len=seq,
        micro_batch=micro_batch, lora_rank=lora_rank, trainable_params=trainable, memory_per_gpu_gb=total / GB,
        memory=mem, fits=fits, sharding=_SHARD_NAME[stage] if count > 1 else "single GPU", tokens=tokens,
        flops=flops, mfu=mfu, gpu_hours=gpu_hours, wall_clock_hours=wall, tokens_per_s=tok_s,
        price_per_gpu_hour_usd=price,
        cost_usd=cost, assumptions=assumptions, warnings=warnings,
        sources=["estimation-notes.md (shared reference): LoRA/QLoRA memory",
                 "Hu et al. LoRA arXiv:2106.09685; Dettmers et al. QLoRA arXiv:2305.14314",
                 "Korthikanti et al. arXiv:2205.05198 (activation memory)",
                 f"knowledge/efficiency.yaml (as_of {eff.as_of})"],
    )


def estimate_finetune(
    kb: KnowledgeBase, model_id: str | Model, gpu_id: str | Gpu, count: int = 1,
    method: Literal["full", "lora", "qlora"] = "lora", seq_len: int | None = None, micro_batch: int = 1,
    tokens: float | None = None, lora_rank: int = 16, lora_targets: Sequence[str] = ("q_proj", "v_proj"),
    precision: str = "bf16", gradient_checkpointing: bool | None = None,
    optimizer: Literal["adamw", "adamw-8bit"] = "adamw", sharding: str = "auto", double_quant: bool = True,
    price_per_gpu_hour: float | None = None, pipeline_parallel: int | None = None, gradient_accumulation: int = 1,
) -> FinetuneEstimate:
    """Estimate fine-tuning ``model_id`` on ``count`` x ``gpu_id``: memory per GPU, fit, time, cost.

    Args:
        method: ``full`` (mixed-precision Adam, as :func:`estimate_training`), ``lora`` (frozen
            16-bit base) or ``qlora`` (NF4 base, bf16 adapters).
        seq_len: tokens per sequence (default 2,048); micro_batch: sequences per GPU per step.
        tokens: fine-tuning tokens (epochs x dataset tokens); GPU-hours only when given.
        lora_rank, lora_targets: adapter rank and Hugging Face module names (default q_proj, v_proj,
            PEFT's default for Llama) or ``["all-linear"]``.
        gradient_checkpointing: recompute activations (less memory, +2ND FLOPs); ``None`` = the method's
            recipe default: on for QLoRA (peft ``prepare_model_for_kbit_training``, the QLoRA paper's script;
            efficiency.yaml ``qlora_gradient_checkpointing``), off for LoRA and full fine-tunes.
        sharding: for multi-GPU LoRA, frozen weights are replicated unless ``zero3``/``fsdp``.
        double_quant: QLoRA double quantization of the NF4 scales.
        pipeline_parallel, gradient_accumulation: a pipelined run (NeMo/Megatron) and its
            micro-batches per step, for the pipeline bubble.

    Returns:
        :class:`FinetuneEstimate` (GB = 1e9 bytes).

    Raises:
        UnknownEntityError: unknown model or GPU. EstimationError: bad method, counts or targets.
    """
    return estimate_finetune_for(
        kb, get_model(kb, model_id), get_gpu(kb, gpu_id), count=count, method=method, seq_len=seq_len,
        micro_batch=micro_batch, tokens=tokens, lora_rank=lora_rank, lora_targets=lora_targets,
        precision=precision, gradient_checkpointing=gradient_checkpointing, optimizer=optimizer,
        sharding=sharding, double_quant=double_quant, price_per_gpu_hour=price_per_gpu_hour,
        pipeline_parallel=pipeline_parallel, gradient_accumulation=gradient_accumulation)
