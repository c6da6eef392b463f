"""``diagnose``: a pasted error or symptom - out of memory, a feature gate (bf16, FP8, FlashAttention on an
older GPU), or a problem that is not a sizing problem (garbage output, hangs, NCCL errors).

The headline names the cause in one sentence; the fixes that work follow. When the error quotes a model and
a GPU, the memory that decides it is computed (weights, KV cache at the context the error names).
"""

from __future__ import annotations

from bot.advice.answer import Answer
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.options import next_actions
from bot.advice.planner import plan_serving, precisions_for, resolve_gpu, serving_load, serving_option
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
    return ctx.answer(title=note("title_oom"), headline=note("oom_training" if training else "oom_serving"),
                      details=details + fixes, actions=next_actions(ctx, None))
