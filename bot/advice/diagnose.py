"""``diagnose``: a pasted error or symptom - out of memory, a feature gate (bf16, FP8, FlashAttention on an
older GPU), or a problem that is not a sizing problem (garbage output, hangs, NCCL errors).

The headline names the cause in one sentence; the fixes that work follow. When the error quotes a model and
a GPU, the memory that decides it is computed (weights, KV cache at the context the error names).
"""

from __future__ import annotations

from bot.advice.answer import Answer
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.options import half_precision_fix, next_actions
from bot.advice.planner import plan_serving, precisions_for, resolve_gpu, serving_load, serving_option
from bot.estimation.common import kv_shape
from bot.notes import note

__all__ = ["answer"]

_EXAMPLES = ["H100 vs A100 for Llama 2 70B", "can a 4090 run 13b int8?", "8x H100 for 3 days, how much?"]


def answer(ctx: Context) -> Answer:
    """Answer a pasted error (see the module docstring)."""
    q = ctx.query
    d = q.diagnosis
    gpu = resolve_gpu(ctx, q.gpus[0]) if q.gpus and q.gpus[0].id in ctx.kb.gpus else None
    if d is None or d.kind == "other":
        details = [note("symptom_kernels")]
        multi = [m for m in q.gpus if (m.count or 1) > 1 and m.id in ctx.kb.gpus
                 and ctx.kb.gpus[m.id].segment == "consumer" and ctx.kb.gpus[m.id].nvlink_gb_s is None]
        if multi:
            details.insert(0, note("symptom_no_p2p", gpu_name=ctx.kb.gpus[multi[0].id].name))
        return ctx.answer(title=note("title_problem"), headline=note("symptom_not_sizing"), details=details,
                          examples=_EXAMPLES)
    if d.kind == "kv_capacity":
        return _kv_capacity(ctx)
    if d.kind == "feature_gate":
        feature = (d.feature or "").lower()
        need = d.required_compute_capability
        capable = [g.name for g in ctx.kb.gpus.values() if g.cc and need and g.cc >= need
                   and g.segment == "datacenter"][:4]
        fixes = {"fp8": [note("gate_fix_fp8_1"), note("gate_fix_fp8_2", gpu_names=capable)],
                 "bf16": [note("gate_fix_bf16_1"), note("gate_fix_bf16_2")],
                 "flash_attention": [note("gate_fix_fa2")]}.get(feature, [note("gate_fix_other", need_cc=need)])
        headline = note("gate_headline", feature=d.feature or "feature", need_cc=need,
                        gpu_name=gpu.name if gpu else None, cc=gpu.compute_capability if gpu else None)
        return ctx.answer(title=note("title_gate", feature=(d.feature or "feature").upper()), headline=headline,
                          details=fixes, actions=next_actions(ctx, None))
    # out of memory
    details = []
    if d.total_capacity_gib:
        details.append(note("oom_capacity", total_gib=d.total_capacity_gib, gpu_name=gpu.name if gpu else None,
                            memory_gb=gpu.memory_gb if gpu else None))
    models = [m for m in resolve_models(ctx) if m.kind == "llm"]
    training = q.workload in ("training", "finetune") or q.method is not None
    if models and gpu is not None and not training:
        model = models[0]
        load = serving_load(ctx)
        plan = plan_serving(ctx, model, gpu, precisions_for(ctx, model, gpu)[0][0], load, count=q.gpus[0].count)
        opt = serving_option(ctx, plan)
        if opt.weights_gb is not None:
            details.append(note("oom_need", model_name=model_label(model), config={"gpu_count": opt.gpu_count,
                                                                          "gpu_name": opt.gpu_name,
                                                                          "precision": opt.precision},
                                per_gpu_gb=opt.memory_per_gpu_gb, weights_gb=opt.weights_gb,
                                kv_gb=opt.kv_cache_gb or 0.0, fits=opt.fits, usable_gb=opt.usable_gb))
        if q.context_tokens and model.max_position_embeddings and q.context_tokens > model.max_position_embeddings:
            details.insert(0, note("oom_context_over_max", context_tokens=q.context_tokens,
                                   max_tokens=model.max_position_embeddings, model_name=model_label(model)))
    fixes = [note(f"oom_fix_{'training' if training else 'serving'}_{i}") for i in (1, 2, 3)]
    headline = note("oom_training" if training else "oom_serving")
    if models and gpu is not None and not training:
        # loaded in 32-bit: the 16-bit memory on the same GPUs is the fix, said first
        half = half_precision_fix(ctx, models[0], gpu, q.gpus[0].count or 1, serving_load(ctx))
        if half is not None:
            details.insert(0, headline)
            headline = half
    return ctx.answer(title=note("title_oom"), headline=headline, details=details + fixes,
                      actions=next_actions(ctx, None))


def _kv_capacity(ctx: Context) -> Answer:
    """vLLM refuses to start: one sequence of the max model length does not fit the KV cache left after the weights.

    The error gives the max length L and the tokens C the cache holds (or, in newer wording, the GiB needed and
    available). With the model known, its KV bytes per token (2 x layers x KV heads x head_dim x 2 bytes, or
    the MLA latent; :class:`bot.estimation.common.KvShape`) turn the gap into memory: (L - C) x bytes per token;
    an fp8 KV cache (1 byte per value) holds 2C tokens in the same memory.
    """
    q = ctx.query
    d = q.diagnosis
    capacity = d.kv_capacity_tokens
    # vLLM takes any max_model_len up to what the cache holds; a multiple of 1,024 is what people type
    suggest = (capacity // 1024) * 1024 if capacity and capacity >= 1024 else capacity
    headline = note("kv_capacity_headline", max_tokens=d.max_seq_len_tokens, kv_tokens=capacity,
                    suggest_flag=str(suggest) if suggest else None)  # a flag's value: digits, never "1.95 万"
    details = []
    models = [m for m in resolve_models(ctx) if m.kind == "llm"]
    shape = kv_shape(models[0])[0] if models else None
    if shape is not None and d.max_seq_len_tokens:
        per_token = shape.bytes_per_token(2.0)  # the engine's default KV dtype for a 16-bit model (bf16/fp16)
        need_gb = shape.bytes_per_sequence(d.max_seq_len_tokens, 2.0) / 1e9
        have_gb = shape.bytes_per_sequence(capacity, 2.0) / 1e9 if capacity else None
        details.append(note("kv_capacity_need", model_name=model_label(models[0]), per_token_kb=per_token / 1e3,
                            max_tokens=d.max_seq_len_tokens, need_gb=need_gb, have_gb=have_gb,
                            short_gb=need_gb - have_gb if have_gb is not None else None))
    elif d.kv_needed_gib and d.kv_available_gib:
        details.append(note("kv_capacity_short_gib", need_gib=d.kv_needed_gib, have_gib=d.kv_available_gib,
                            short_gib=d.kv_needed_gib - d.kv_available_gib))
    details += [note("kv_capacity_fix_2", fp8_tokens=2 * capacity if capacity else None), note("kv_capacity_fix_3"),
                note("kv_capacity_fix_1")]
    return ctx.answer(title=note("title_kv_capacity"), headline=headline, details=details,
                      actions=next_actions(ctx, None))
