"""``size_training``: pretraining (or full training) a model - how long, how many GPUs, how many tokens in
a given time, what it costs.

The headline states the asked quantity: wall-clock time (with GPU-hours and cost) by default; the tokens a
configuration gets through in the user's time when that is asked, or in the user's GPU-hours when those are given
without a token count (with a token count, the run's GPU-hours are checked against them); the GPU count when that is
asked.
"""

from __future__ import annotations

import math

from bot.advice.answer import Answer, Option, Table
from bot.advice.context import Context
from bot.advice.models import model_label, model_question, resolve_models
from bot.advice.options import caveats, config, machines_first, mention_cost, next_actions, variant_notes
from bot.advice.planner import (
    candidate_gpus,
    cost_for,
    place,
    plan_training,
    price_of,
    say_secondary,
    secondary_price,
    training_option,
)
from bot.advice.runs import tokens_for_money_asked, training_runs, training_table, training_tokens
from bot.estimation import efficiency_for
from bot.kb.schema import Model
from bot.notes import note

__all__ = ["answer"]

_EXAMPLES = ["how long to pretrain a 3b model on 300B tokens with 32 H100s",
             "i have 64 A100s for 2 weeks, how many tokens can we train a 7b on?"]
_EXAMPLES_ZH = ["8卡H100 预训练 7b 模型 1T token 要多久", "64 张 A800 两周能训练 13b 多少 token"]


def answer(ctx: Context) -> Answer:
    """Answer a training question (see the module docstring)."""
    q = ctx.query
    models = resolve_models(ctx)
    if not models:
        headline, details = model_question(ctx, "ask_model_or_size")
        return ctx.answer(title=note("title_one_more_thing"), headline=headline, details=details,
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    model = models[0]
    variant_notes(ctx)
    ctx.cite("estimation-notes.md: training FLOPs = 6 x parameters x tokens (8x with recompute); "
             "time = FLOPs / (GPUs x dense peak x MFU)")
    if q.gpu_hours and not q.training_tokens:
        return _tokens_for_gpu_hours(ctx, model)
    if tokens_for_money_asked(q) and not q.training_tokens and not any(g.count for g in q.gpus):
        # a budget (and maybe a time) on GPU types with no count: the counts the budget buys in that time
        return _tokens_for_budget(ctx, model, hours_limit=q.duration_hours or q.deadline_hours)
    if q.duration_hours and not q.training_tokens and any(g.count for g in q.gpus) and not q.gpu_hours:
        # "8x H100 training a 13b for two weeks": a fixed setup for a stated time is that rental, and how far the run
        # gets in it (tokens), not a compute-optimal run of months
        return _tokens_in_time(ctx, model)
    if "tokens_in_time" in q.asks and (q.duration_hours or q.deadline_hours) and q.gpus:
        if not q.duration_hours:  # "in 14 days": the time the run has
            q = ctx.query = q.model_copy(update={"duration_hours": q.deadline_hours})
        return _tokens_in_time(ctx, model)
    if "tokens_in_time" in q.asks and q.budget is not None and not (q.duration_hours or q.deadline_hours):
        return _tokens_for_budget(ctx, model)
    if "tokens_in_time" in q.asks and q.budget is not None and not q.training_tokens:
        # "¥100k and one week: how many tokens": the budget spent within the time (more GPUs when the time binds)
        return _tokens_for_budget(ctx, model, hours_limit=q.duration_hours or q.deadline_hours)
    if q.duration_hours and not q.deadline_hours and q.training_tokens:
        # "300B tokens, can it finish in half a month": with the tokens given, a length of time is the deadline
        q = ctx.query = q.model_copy(update={"deadline_hours": q.duration_hours})
        ctx.assume("duration_as_deadline", deadline_hours=q.deadline_hours)
    tokens = training_tokens(ctx, model)
    options = training_runs(ctx, model, tokens)
    if q.deadline_hours:
        options += _to_meet_deadline(ctx, model, tokens, options)
    return _answer(ctx, model, tokens, options)


def _to_meet_deadline(ctx: Context, model: Model, tokens: float, options: list[Option]) -> list[Option]:
    """For each run with the user's GPU count that misses the user's deadline: the count that meets it (training
    time scales close to 1/GPUs at a fixed global batch; rounded up to whole 8-GPU nodes), labelled as a change."""
    q = ctx.query
    out = []
    for o in options:
        if o.changes or not o.fits or not o.wall_clock_hours or o.wall_clock_hours <= q.deadline_hours:
            continue
        if not any(c.fixed and c.count and c.gpu.id == o.gpu for c in candidate_gpus(ctx, "training")):
            continue
        gpu = ctx.kb.gpus[o.gpu]
        need = math.ceil(o.gpu_count * o.wall_clock_hours / q.deadline_hours)
        need = need if need <= 8 else 8 * math.ceil(need / 8)
        est, placement, why = plan_training(ctx, model, gpu, need, tokens, o.precision or "bf16")
        if est is not None and est.wall_clock_hours and est.wall_clock_hours > q.deadline_hours:
            # communication grows with the count: one more step of nodes
            need += 8
            est, placement, why = plan_training(ctx, model, gpu, need, tokens, o.precision or "bf16")
        if est is not None:
            alt = training_option(ctx, model, gpu, est, placement, why)
            alt.changes = ["count"]
            out.append(alt)
    return out


def _answer(ctx: Context, model: Model, tokens: float, options: list[Option]) -> Answer:
    rec = _pick(ctx, options)
    for o in options[:3]:
        caveats(ctx, o)
    o = options[rec] if rec is not None else (options[0] if options else None)
    deadline = ctx.query.deadline_hours
    # the user's own run (GPUs and count as asked) when it misses the deadline they gave: that is the answer
    counted = any(m.count for m in ctx.query.gpus) or ctx.query.gpu_count
    missed = next((x for x in options if not x.changes and x.fits and deadline and x.wall_clock_hours
                   and x.wall_clock_hours > deadline * 1.0001 and counted), None)
    if o is None:
        headline = note("training_nothing", model_name=model_label(model))
    elif o.gpu_hours is None:
        headline = note("training_no_peak", config=config(o), model_name=model_label(model), mem_gb=o.memory_per_gpu_gb,
                        usable_gb=o.usable_gb, fits=o.fits)
    elif not o.fits:
        headline = note("training_does_not_fit", config=config(o), model_name=model_label(model), mem_gb=o.memory_per_gpu_gb,
                        usable_gb=o.usable_gb)
    elif missed is not None:
        alt = next((x for x in options if "count" in x.changes and x.wall_clock_hours
                    and x.wall_clock_hours <= ctx.query.deadline_hours), None)
        headline = note("training_misses_deadline", config=config(missed), model_name=model_label(model),
                        tokens_tokens=tokens, wall_hours=missed.wall_clock_hours,
                        deadline_hours=ctx.query.deadline_hours,
                        tokens_in_deadline_tokens=tokens * ctx.query.deadline_hours / missed.wall_clock_hours,
                        needed=config(alt) if alt else None, needed_usd=alt.total_cost_usd if alt else None)
    elif "gpu_count" in ctx.query.asks and not counted:
        # "how many A100s do we need": the count picked (meets the deadline when one is given) leads, not each
        # count tried
        meets = bool(deadline and o.wall_clock_hours and o.wall_clock_hours <= deadline * 1.0001)
        headline = note("training_count", config=config(o), model_name=model_label(model), tokens_tokens=tokens,
                        wall_hours=o.wall_clock_hours, gpu_hours=o.gpu_hours, total_usd=o.total_cost_usd,
                        deadline_hours=deadline if meets else None,
                        missed_deadline_hours=deadline if deadline and not meets else None)
    elif len(fixed_runs := [x for x in options if not x.changes and x.fits and x.wall_clock_hours and x.gpu_count
                            and any(m.id == x.gpu for m in ctx.query.gpus)]) >= 2:
        # several GPUs named ("32 张 H20 ... 换成 A100 呢", "8x H100 vs 8x A100"): each one's run, as asked
        headline = note("training_times", model_name=model_label(model), tokens_tokens=tokens,
                        items=[{"config": config(x), "wall_hours": x.wall_clock_hours, "total_usd": x.total_cost_usd}
                               for x in fixed_runs])
    else:
        headline = note("training_time", config=config(o), model_name=model_label(model), tokens_tokens=tokens,
                        wall_hours=o.wall_clock_hours, gpu_hours=o.gpu_hours, total_usd=o.total_cost_usd,
                        price_usd=o.price.price_per_gpu_hour_usd if o.price else None,
                        provider=o.price.provider_name if o.price else None)
    details = _comparison(ctx, options)
    if o is not None and o.gpu_hours and ctx.query.gpu_hours:
        # "300B tokens, we have 50,000 GPU-hours": the run's GPU-hours against the user's, first
        within = o.gpu_hours <= ctx.query.gpu_hours * 1.0001
        details.insert(0, note("gpu_hours_check", gpu_hours=o.gpu_hours, have_gpu_hours=ctx.query.gpu_hours,
                               within=within, over=not within,
                               tokens_in_budget_tokens=tokens * ctx.query.gpu_hours / o.gpu_hours))
    if o is not None and o.fits and o.price is None and (mentioned := mention_cost(
            ctx, config(o), o.gpu, o.gpu_count, o.wall_clock_hours)):
        details.insert(0, mentioned)  # no list price: the secondary-source figure for the run, labelled as such
    if o is not None and o.fits:  # machines asked ("how many 8xA100 nodes"): they lead, the run follows
        headline, details = machines_first(ctx, headline, details, config(o), model_label(model))
    if o is not None and o.mfu:
        ctx.assume("training_mfu", mfu_pct=o.mfu * 100, sharding=o.sharding)
        for n in o.notes:
            ctx.assume(n.code, **n.params)
    return ctx.answer(title=note("title_training", model_name=model_label(model)), headline=headline, details=details,
                      options=options, recommendation=rec, table=training_table(options),
                      actions=next_actions(ctx, o, precision_switch=False))


def _pick(ctx: Context, options: list[Option]) -> int | None:
    """The recommended run: fits, finishes within the deadline (or the policy's month), then cheapest, else fastest."""
    deadline = ctx.query.deadline_hours or ctx.policy.training.target_days.value * 24
    fitting = [i for i, o in enumerate(options) if o.fits]
    if not fitting:
        return None
    in_time = [i for i in fitting if (options[i].wall_clock_hours or float("inf")) <= deadline] or fitting
    priced = [i for i in in_time if options[i].total_cost_usd is not None]
    if priced:
        return min(priced, key=lambda i: options[i].total_cost_usd)
    return min(in_time, key=lambda i: options[i].wall_clock_hours or float("inf"))


def _comparison(ctx: Context, options: list[Option]) -> list:
    per_gpu: dict[str, Option] = {}
    for o in options:
        if o.gpu_hours and o.gpu not in per_gpu:
            per_gpu[o.gpu] = o
    ranked = sorted(per_gpu.values(), key=lambda o: o.gpu_hours)
    if len(ranked) < 2:
        return []
    fast, slow = ranked[0], ranked[-1]
    return [note("training_per_gpu_ratio", fast_gpu=fast.gpu_name, slow_gpu=slow.gpu_name,
                 ratio_x=slow.gpu_hours / fast.gpu_hours, fast_gpu_hours=fast.gpu_hours, slow_gpu_hours=slow.gpu_hours)]


def _tokens_in_time(ctx: Context, model: Model) -> Answer:
    """Tokens a fixed configuration trains on in the user's time: tokens/s x seconds, from the same estimate."""
    q = ctx.query
    reference = 1e9
    options = []
    for choice in candidate_gpus(ctx, "training"):
        if choice.count is None:
            continue
        runs = training_runs(ctx, model, reference, [choice])
        for o in runs:
            if o.wall_clock_hours:
                o.tokens = reference * q.duration_hours / o.wall_clock_hours
                o.wall_clock_hours = q.duration_hours
                o.gpu_hours = q.duration_hours * (o.gpu_count or 1)
                if o.price is None and o.fits:  # no list price (A800, H20): the secondary figure, said
                    o.price = secondary_price(ctx, choice.gpu, o.gpu_count or 1)
                    say_secondary(ctx, o)
                if o.price:
                    o.total_cost_usd = cost_for(o.price, q.duration_hours)
            options.append(o)
    if not options:
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_gpu_count"),
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    o = options[0]
    optimal = ctx.policy.training.chinchilla_tokens_per_param.value * model.compute_params_b * 1e9
    headline = note("tokens_in_time", config=config(o), model_name=model_label(model), hours=q.duration_hours,
                    tokens_tokens=o.tokens, total_usd=o.total_cost_usd, fits=o.fits)
    details = [note("chinchilla_compare", tokens_tokens=optimal, per_param=20)]
    table = Table(columns=["config", "fits", "gb_per_gpu", "tokens", "wall_clock", "usd_per_hour", "total_usd"],
                  rows=[[config(x), x.fits, x.memory_per_gpu_gb, x.tokens, x.wall_clock_hours, x.price_per_hour_usd,
                         x.total_cost_usd] for x in options])
    return ctx.answer(title=note("title_training", model_name=model_label(model)), headline=headline, details=details,
                      options=options, recommendation=0 if o.fits else None, table=table,
                      actions=next_actions(ctx, o, precision_switch=False))


def _tokens_for_budget(ctx: Context, model: Model, hours_limit: float | None = None) -> Answer:
    """Tokens a budget trains on: budget / (cost of a reference run / its tokens), per GPU named (else the
    candidates) at the counts tried; the most tokens per dollar leads, with the GPU-hours and wall clock they take.
    Cost scales linearly with tokens at a fixed configuration (FLOPs = 6 x parameters x tokens).

    Args:
        hours_limit: the time the run has, hours ("¥100k, one week"): the counts are those that finish a run of the
            budget's size in it, and a run the time stops before the budget is spent is cut at the time (its cost,
            below the budget, is said).
    """
    q = ctx.query
    budget = ctx.usd(q.budget)
    # a first pass at 1B tokens gives the size of the run; the counts are then chosen for a run of that size (the
    # fewest GPUs that finish within the user's time, else the policy's target time), and each is scaled to the
    # budget exactly
    rough = [budget / o.total_cost_usd * 1e9 for o in training_runs(ctx, model, 1e9)
             if o.fits and o.total_cost_usd and budget]
    reference = max(rough) if rough else 1e9
    options = []
    for o in training_runs(ctx, model, reference, target_hours=hours_limit):
        if not (o.fits and o.wall_clock_hours and o.total_cost_usd and budget):
            continue
        scale = budget / o.total_cost_usd
        if hours_limit and o.wall_clock_hours * scale > hours_limit:
            scale = hours_limit / o.wall_clock_hours  # the time binds: the run stops at it, under budget
        o.tokens = reference * scale
        o.wall_clock_hours *= scale
        o.gpu_hours = (o.gpu_hours or 0) * scale
        o.total_cost_usd *= scale
        options.append(o)
    if not options:
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_budget_and_gpu"),
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    # runs that finish within the user's (else the policy's target) time first (as _pick); then the most tokens
    # for the money; equal within 1%: the faster run
    target = hours_limit * 1.0001 if hours_limit else ctx.policy.training.target_days.value * 24
    most = max(x.tokens for x in options)
    options.sort(key=lambda x: (x.wall_clock_hours > target, -round(x.tokens / most, 2), x.wall_clock_hours))
    o = options[0]
    headline = note("tokens_for_budget", budget_usd=budget, config=config(o), model_name=model_label(model),
                    tokens_tokens=o.tokens, gpu_hours=o.gpu_hours, wall_hours=o.wall_clock_hours,
                    per_gpu_usd=o.price.price_per_gpu_hour_usd if o.price else None,
                    provider=o.price.provider_name if o.price else None, within_hours=hours_limit,
                    spent_usd=o.total_cost_usd if o.total_cost_usd < budget * 0.99 else None)
    return _tokens_answer(ctx, model, options, headline)


def _tokens_answer(ctx: Context, model: Model, options: list[Option], headline) -> Answer:
    """The answer of a tokens-for-a-budget question: ``headline`` on ``options[0]``, the compute-optimal token count
    beside it (Chinchilla, policy ``training.chinchilla_tokens_per_param``), every run in the table."""
    o = options[0]
    optimal = ctx.policy.training.chinchilla_tokens_per_param.value * model.compute_params_b * 1e9
    details = [note("chinchilla_compare", tokens_tokens=optimal, per_param=20)]
    table = Table(columns=["config", "fits", "gb_per_gpu", "tokens", "wall_clock", "usd_per_hour", "total_usd"],
                  rows=[[config(x), x.fits, x.memory_per_gpu_gb, x.tokens, x.wall_clock_hours, x.price_per_hour_usd,
                         x.total_cost_usd] for x in options])
    if o.mfu:
        ctx.assume("training_mfu", mfu_pct=o.mfu * 100, sharding=o.sharding)
    return ctx.answer(title=note("title_training", model_name=model_label(model)), headline=headline, details=details,
                      options=options, recommendation=0, table=table,
                      actions=next_actions(ctx, o, precision_switch=False))


def _tokens_for_gpu_hours(ctx: Context, model: Model) -> Answer:
    """Tokens the user's GPU-hours train on ("5,000 H100 GPU-hours", "5000卡时"), how long and what they cost.

    Per GPU named (else the candidates), at the count said (else the count a run of that size takes): tokens =
    GPU-hours x (tokens / GPU-hours of a reference run of the same configuration), since training FLOPs = 6 x
    parameters x tokens make GPU-hours linear in tokens at a fixed configuration; wall clock = the reference's
    scaled the same way (GPU-hours over the count); cost = the reference's scaled (GPU-hours at the offer's price per
    GPU-hour). The most tokens lead, the faster run first among equals.

    Returns:
        :class:`Answer` headed ``tokens_for_gpu_hours``, or one asking for a GPU when no run fits.
    """
    q = ctx.query
    have = q.gpu_hours
    # a first pass at 1B tokens gives the size of the run; counts are then chosen for a run of that size
    rough = [have / o.gpu_hours * 1e9 for o in training_runs(ctx, model, 1e9) if o.fits and o.gpu_hours]
    reference = max(rough) if rough else 1e9
    options = []
    for o in training_runs(ctx, model, reference):
        if not (o.fits and o.gpu_hours and o.wall_clock_hours):
            continue
        scale = have / o.gpu_hours
        o.tokens = reference * scale
        o.wall_clock_hours *= scale
        o.gpu_hours = have
        if o.total_cost_usd is not None:
            o.total_cost_usd *= scale
        options.append(o)
    if not options:
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_gpu_count"),
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    most = max(x.tokens for x in options)
    options.sort(key=lambda x: (-round(x.tokens / most, 2), x.wall_clock_hours))
    o = options[0]
    headline = note("tokens_for_gpu_hours", gpu_hours=have, config=config(o), model_name=model_label(model),
                    tokens_tokens=o.tokens, wall_hours=o.wall_clock_hours, total_usd=o.total_cost_usd,
                    per_gpu_usd=o.price.price_per_gpu_hour_usd if o.price else None,
                    provider=o.price.provider_name if o.price else None)
    return _tokens_answer(ctx, model, options, headline)


def largest_trainable(ctx: Context) -> Answer:
    """The largest compute-optimal model a budget trains ("biggest model I can pretrain with $500k of H100s").

    Per GPU type (the ones named, else the policy's training GPUs): GPU-hours = budget / price per GPU-hour
    (an 8-GPU node's rate); compute C = GPU-hours x 3,600 x dense bf16 peak x training MFU x goodput
    (efficiency.yaml); Chinchilla-optimal N = sqrt(C / (6 x r)) parameters on D = r x N tokens, r = the policy's
    tokens per parameter (Hoffmann et al. 2022: C = 6ND, D = 20N).

    Returns:
        :class:`Answer` headed ``largest_trainable`` for the GPU type giving the largest model.
    """
    q = ctx.query
    eff = efficiency_for(ctx.kb)
    budget = ctx.usd(q.budget)
    r = ctx.policy.training.chinchilla_tokens_per_param.value
    rows: list[dict] = []
    for choice in candidate_gpus(ctx, "training"):
        gpu = choice.gpu
        peak = gpu.dense_tflops.bf16 or gpu.dense_tflops.fp16
        price = price_of(ctx, place(ctx, gpu, choice.count or 8, min(choice.count or 8, 8)))
        if not budget or not peak or price is None:
            continue
        mfu, _ = eff.training_mfu_for(gpu, "bf16")
        gpu_hours = budget / price.price_per_gpu_hour_usd
        flops = gpu_hours * 3600 * peak * 1e12 * mfu * eff.c("training_goodput")
        params = math.sqrt(flops / (6 * r))
        rows.append({"gpu": gpu, "price": price, "gpu_hours": gpu_hours, "flops": flops, "params": params,
                     "tokens": r * params, "mfu": mfu})
    if not rows:
        unpriced = [c.gpu.name for c in candidate_gpus(ctx, "training") if c.fixed]
        if budget and unpriced:
            # the GPU has no price here: the user's own rate makes the answer
            return ctx.answer(title=note("title_largest_trainable"),
                              headline=note("largest_trainable_unpriced", gpu_names=unpriced),
                              examples=["预算100万人民币，按每卡每小时12元算，用A800能预训练多大的模型"] if ctx.zh else
                              ["largest model we can pretrain for $200k on A800s at $1.80/hr per GPU"])
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_budget_and_gpu"),
                          examples=["20万美元用H100能预训练多大的模型"] if ctx.zh else
                          ["largest model we can pretrain for $200k on H100s"])
    rows.sort(key=lambda x: -x["params"])
    b = rows[0]
    ctx.assume("chinchilla_budget_method", per_param=r, goodput_pct=eff.c("training_goodput") * 100)
    ctx.cite("Hoffmann et al. 2022, arXiv:2203.15556 (compute-optimal: C = 6ND, D ~ 20N)")
    headline = note("largest_trainable", budget_usd=budget, gpu_name=b["gpu"].name,
                    price_usd=b["price"].price_per_gpu_hour_usd, provider=b["price"].provider_name,
                    gpu_hours=b["gpu_hours"], flops_e=f"{b['flops']:.2e}", mfu_pct=b["mfu"] * 100,
                    params_b=b["params"] / 1e9, tokens_tokens=b["tokens"])
    table = Table(columns=["gpu", "usd_per_gpu_hour", "gpu_hours", "params_b", "tokens"],
                  rows=[[x["gpu"].name, x["price"].price_per_gpu_hour_usd, x["gpu_hours"], x["params"] / 1e9,
                         x["tokens"]] for x in rows])
    return ctx.answer(title=note("title_largest_trainable"), headline=headline, table=table,
                      actions=next_actions(ctx, None, precision_switch=False))
