"""Several providers named beside a sizing question ("... on RunPod vs Lambda", "AWS or CoreWeave cheaper?"):
the best setup at each provider, compared first.

The handlers size the job and price each setup at the cheapest of the named providers; that answers "what does
it cost" but not "which provider". This step prices every setup the answer found workable at each provider the
user named (every TP group in one instance, as :func:`bot.advice.planner.place` does), keeps each provider's
cheapest, and leads with that comparison; the sizing headline follows. Providers with no price for any of the
setups are named as such, never dropped.
"""

from __future__ import annotations

from bot.advice.answer import Answer, Option
from bot.advice.context import Context
from bot.advice.options import config
from bot.advice.planner import cost_for, cost_per_million_tokens, place, price_of
from bot.notes import note

__all__ = ["INTENTS", "applies", "compare_providers"]

#: Intents whose answers size a job and price it: the ones a provider comparison is added to (a price quote
#: compares providers itself).
INTENTS = frozenset({"size_inference", "size_training", "finetune"})


def applies(ctx: Context, out: Answer) -> bool:
    """Whether ``out`` answers a sizing question that names two or more providers and has setups to price."""
    runs = any(o.gpu_hours for o in out.options)  # a run's cost asked ("what would the LoRA cost on A vs B")
    return (len(ctx.query.providers) >= 2 and (out.intent in INTENTS or (out.intent == "quote" and runs))
            and bool(out.options) and ctx.query.given_price_per_hour is None)


def _workable(out: Answer) -> list[Option]:
    """The setups the answer found workable: fit and meet the question, the user's constraints kept first."""
    ok = [o for o in out.options if o.fits and o.meets is not False]
    return [o for o in ok if not o.changes] or ok


def _group(o: Option) -> int:
    """GPUs that must share one instance: the TP x PP group when the option has a layout (serving), else up to
    one 8-GPU node (training and fine-tuning shard over NVLink inside a node)."""
    if o.tensor_parallel:
        return o.tensor_parallel * (o.pipeline_parallel or 1)
    return min(o.gpu_count or 1, 8)


def _at(ctx: Context, o: Option, provider: str) -> dict | None:
    """``o`` priced at ``provider``: {config, price_usd (per hour), total_usd (the run's cost, when it has a
    length), provider, rented (GPUs paid for when more than used), per_user_tps and per_million_usd (a served
    model: tokens/s per user at the answer's load, USD per 1M output tokens at full load)}, or ``None`` when that
    provider has no price."""
    gpu = ctx.kb.gpus.get(o.gpu or "")
    if gpu is None or not o.gpu_count:
        return None  # a GPU with a stated memory no datasheet has: no provider rents it
    placement = place(ctx, gpu, o.gpu_count, _group(o), provider=provider, given=False)
    price = price_of(ctx, placement)
    if price is None:
        return None
    total, rented, spread = None, price.gpus_rented if price.gpus_rented > o.gpu_count else None, None
    if o.gpu_hours:  # a run: GPU-hours x price per GPU-hour
        total = cost_for(price, o.gpu_hours / o.gpu_count)
        if rented and rented <= int(ctx.policy.limits.gpus_per_machine.value):
            # the instance's other GPUs are paid for anyway: a run spreads over them data-parallel inside the
            # node, the same GPU-hours in a fraction of the wall clock (NVLink keeps scaling near-linear there)
            total, spread, rented = cost_for(price, o.gpu_hours / price.gpus_rented), price.gpus_rented, None
            ctx.assume("run_spread_over_instance")
    # a served model: its speed per user, and the money per 1M output tokens at this provider's price at full load
    # (price per hour / (tokens/s at the user capacity x 3,600) x 10^6, bot.advice.planner.cost_per_million_tokens)
    per_million = cost_per_million_tokens(price.price_per_hour_usd, o.full_load_tps) if not o.gpu_hours else None
    return {"provider": price.provider_name, "config": {**config(o), "gpu_count": spread or o.gpu_count}, "price_usd": price.price_per_hour_usd,
            "total_usd": total, "rented": rented, "per_user_tps": o.tps_per_user if per_million else None,
            "per_million_usd": per_million}


def compare_providers(ctx: Context, out: Answer) -> Answer:
    """``out`` with the providers compared first: for each provider the user named, the cheapest workable setup
    there (by the run's total when it is a run, else by the price per hour), cheapest provider first.

    Args:
        ctx: the answer's context (its query names the providers).
        out: the handler's answer (see :func:`applies`).

    Returns:
        A copy of ``out`` whose headline is the comparison (note ``providers_compared``) and whose details start
        with the handler's headline; when no named provider prices any of its setups, ``out`` with that said
        first in its details (note ``providers_unpriced``).
    """
    setups = _workable(out)
    rows, missing = [], []
    for provider in ctx.query.providers:
        priced = [r for o in setups if (r := _at(ctx, o, provider)) is not None]
        if not priced:
            pf, up = ctx.kb.providers.get(provider), ctx.kb.unpriced_providers.get(provider)
            missing.append(pf.provider_name if pf is not None else up.name if up is not None else provider)
            continue
        rows.append(min(priced, key=lambda r: (r["total_usd"] if r["total_usd"] is not None else r["price_usd"])))
    if not rows:  # none of them prices these setups: said first in the details, the sizing stays the answer
        return out.model_copy(update={"details": [note("providers_unpriced", missing=missing), *out.details]})
    rows.sort(key=lambda r: r["total_usd"] if r["total_usd"] is not None else r["price_usd"])
    headline = note("providers_compared", items=rows, missing=missing)
    dates = sorted({*out.price_as_of, *(d for d in ctx.price_dates if d)})
    return out.model_copy(update={"headline": headline, "details": [out.headline, *out.details],
                                  "sources": list(dict.fromkeys([*out.sources, *ctx.sources]))[:12],
                                  "assumptions": list(dict.fromkeys([*out.assumptions, *ctx.assumptions])),
                                  "price_as_of": [dates[0], dates[-1]] if dates else []})
