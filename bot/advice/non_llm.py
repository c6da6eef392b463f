"""Non-LLM models (Stable Diffusion/Flux, Whisper, embedding models): memory fit, and speed, time and cost
where the sizing engine has a published basis for them (:mod:`bot.estimation`, when it offers
``estimate_non_llm``)."""

from __future__ import annotations

from bot.advice.answer import Answer, Table
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.advice.options import next_actions
from bot.advice.planner import candidate_gpus, place, price_of
from bot.estimation import efficiency_for, usable_memory_gb
from bot.kb.schema import Model
from bot.notes import note

__all__ = ["answer_non_llm"]

#: Activation and workspace headroom over the fp16 weights for diffusion and speech models (UNet/DiT
#: activations at 1024px and Whisper's 30 s windows stay within ~20% of the weights in fp16; stated).
ACTIVATION_HEADROOM = 0.2


def answer_non_llm(ctx: Context, model: Model) -> Answer:
    """Memory fit of a non-LLM model on the GPUs named (or common inference GPUs), with their prices."""
    eff = efficiency_for(ctx.kb)
    weights = model.typical_fp16_weight_gb or model.params_total_b * 2
    need = weights * (1 + ACTIVATION_HEADROOM) + eff.c("cuda_context_gb")
    choices = candidate_gpus(ctx, "serving")[:6] if ctx.query.gpus else [
        c for c in candidate_gpus(ctx, "serving") if c.gpu.id in ("l4-24gb", "rtx-4090-24gb", "a10g-24gb",
                                                                   "a100-sxm-80gb", "h100-sxm-80gb")]
    rows = []
    for choice in choices:
        usable = usable_memory_gb(eff, choice.gpu)
        price = price_of(ctx, place(ctx, choice.gpu, choice.count or 1, 1))
        rows.append([choice.gpu.name, usable, need, need <= usable, price.price_per_hour_usd if price else None])
    ctx.cite(*model.sources[:2])
    ctx.assume("non_llm_memory", model_name=model_label(model), weights_gb=weights, headroom_pct=ACTIVATION_HEADROOM * 100)
    ctx.lack("non_llm_speed_unknown", model_name=model_label(model))
    fits = [r[0] for r in rows if r[3]]
    return ctx.answer(title=note("title_non_llm", model_name=model_label(model)),
                      headline=note("non_llm_memory_headline", model_name=model_label(model), need_gb=need, fits=fits),
                      details=[note("non_llm_hint", hint=model.runtime_memory_hint)] if model.runtime_memory_hint
                      else [],
                      table=Table(columns=["gpu", "usable_gb", "need_gb", "fits", "usd_per_hour"], rows=rows),
                      actions=next_actions(ctx, None, precision_switch=False))
