"""``recommend``: the best configuration under a budget, or what the hardware a user has (or can afford) runs.

* A model and a price limit ("the best way to serve a 70b for no more than $6 an hour"): one objective (:func:`_best_key`): a
  format that keeps quality before 4-bit, then, for stated users, the fastest per user at that load (else the
  most users at the per-user floor), within the limit; one row per GPU type, the best first. "Best" is not the
  cheapest thing that runs: the budget is there to be used.
* A model and a total budget for a run: the fastest run that fits the budget.
* Money to buy cards with (a purchase budget): the cards it buys and what they serve (:mod:`bot.advice.purchase`).
* No model: what each affordable (or named) configuration runs - the largest models that fit it in 16-bit,
  FP8 and 4-bit (or the precisions the question names), at the context, users and KV format it states (one
  user at the default context otherwise), said in the headline.
"""

from __future__ import annotations

from functools import partial

from bot.advice import batch_job, purchase
from bot.advice.answer import Answer, Option, Price, Table
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.non_llm import answer_non_llm
from bot.advice.options import budget_buys_note, caveats, config, next_actions, quality_tier
from bot.advice.planner import (
    GpuChoice,
    ServingLoad,
    candidate_gpus,
    cost_per_million_tokens,
    place,
    plan_serving,
    precisions_for,
    price_of,
    rent_usd_per_hour,
    replica_counts_within,
    say_secondary,
    secondary_price,
    serving_load,
    serving_option,
)
from bot.advice.quote import price_list
from bot.advice.runs import (
    finetune_setups,
    finetune_table,
    finetune_tokens,
    training_runs,
    training_table,
    training_tokens,
)
from bot.advice.training import largest_trainable
from bot.errors import AdvisorError
from bot.estimation import efficiency_for
from bot.kb.schema import Gpu, Model
from bot.notes import note

__all__ = ["answer"]

_COUNTS = (1, 2, 4, 8)


def answer(ctx: Context) -> Answer:
    """Answer a recommendation (see the module docstring)."""
    q = ctx.query
    every = resolve_models(ctx)
    if every and all(m.kind != "llm" for m in every):
        return answer_non_llm(ctx, every)
    models = [m for m in every if m.kind == "llm"]
    if q.purchase_budget is not None:  # "we have $300k to buy GPUs, which and how many": cards, not rentals
        # what the cards serve is said for a served model; for a run the cards are counted alone
        served = models[0] if models and q.workload not in ("training", "finetune") and not q.method else None
        return purchase.answer(ctx, served)
    if not models and q.budget is not None and q.workload == "training":
        return largest_trainable(ctx)
    hourly = ctx.hourly_limit_usd()  # a stated hourly limit, or a budget spread over the rental length
    limit, per_gpu = (hourly[0], hourly[1]) if hourly else (None, False)
    if models and q.budget is not None and (q.workload in ("training", "finetune") or q.method):
        return _run_in_budget(ctx, models[0])
    if len(models) == 1 and batch_job.is_batch_job(q) and q.workload != "training" and not q.method:
        return batch_job.answer(ctx, models[0], candidate_gpus(ctx, "serving"))  # "cheapest way to summarize 2M docs"
    if models:
        return _best_serving(ctx, models[0], limit, per_gpu)
    if "cheapest" in q.asks and not q.gpus and limit is None and q.budget is None:
        return price_list(ctx)  # "what's the cheapest gpu": a price list, not what the dearest node runs
    return _what_runs(ctx, limit, per_gpu)


def _priced(o: Option, secondary: Price | None) -> Option:
    """``o`` with the secondary-source price when it has no list price (see :func:`secondary_price`)."""
    if o.price is None and secondary is not None:
        o.price = secondary
        o.cost_per_million_tokens_usd = cost_per_million_tokens(secondary.price_per_hour_usd, o.throughput_tps) \
            if o.throughput_tps and (o.users or 1) > 1 else None
    return o


def _within(price: float | None, count: int, limit: float | None, per_gpu: bool) -> bool:
    if limit is None:
        return True
    if price is None:
        return False
    return (price / count if per_gpu else price) <= limit + 1e-9


def _best_key(o: Option, users: int | None) -> tuple:
    """The one objective of "best under a budget", as a sort key (smallest first).

    1. a weight format that keeps quality (16-bit, FP8, INT8) before 4-bit (:func:`quality_tier`);
    2. with users stated (a load to meet): the fastest each of those users is served (tokens/s per user at that
       load, prefill counted); with no users: the most users served at the per-user floor;
    3. then the other of the two, then the lower price per hour.
    """
    speed, served = o.tps_per_user or 0.0, o.max_users or 0
    first, second = (speed, served) if users else (served, speed)
    return (quality_tier(o.precision), -round(first, 1), -second, o.price_per_hour_usd or 1e9)


def _best_serving(ctx: Context, model: Model, limit: float | None, per_gpu: bool) -> Answer:
    """The best configuration within a price limit (:func:`_best_key`), one row per GPU type, the table in the
    same order as the headline's pick; a 4-bit pick says its quality cost."""
    load = serving_load(ctx)
    # the most users at the per-user floor: GPUs named with no load leave the load's own floor at 0 (one user's speed
    # is reported, not required), which would count users served below it
    capacity = ServingLoad(**{**load.__dict__, "users": None, "total_tps": None, "per_user_tps": load.capacity_tps})
    options: list[Option] = []
    over: list[Option] = []
    for choice in candidate_gpus(ctx, "serving"):
        best: Option | None = None
        for precision, _ in precisions_for(ctx, model, choice.gpu):
            # a load to meet: also the planner's own fewest/cheapest count for it (6x, 12x ...), not only 1-8; a
            # total limit: also the most whole replicas of each layout it rents (5 machines of 8, 45 single GPUs)
            fleets = replica_counts_within(ctx, model, choice.gpu, precision,
                                           partial(rent_usd_per_hour, ctx, choice.gpu), limit) \
                if limit is not None and not per_gpu and not choice.count else []
            counts = [(choice.count, None)] if choice.count else [
                *([(None, None)] if load.users else []), *((n, None) for n in _COUNTS),
                *(f for f in fleets if f[0] not in _COUNTS)]
            for n, layout in counts:
                if load.users:
                    plan = plan_serving(ctx, model, choice.gpu, precision, load, count=n, layout=layout)
                else:
                    plan = plan_serving(ctx, model, choice.gpu, precision, capacity, count=n, objective="capacity",
                                        layout=layout)
                if plan.est is None or not plan.est.fits:
                    continue
                price = plan.placement.price_per_hour_usd if plan.placement else None
                # a card with no list price (the China-market ones) is ranked at its secondary figure, said
                secondary = secondary_price(ctx, choice.gpu, plan.count) if price is None else None
                price = secondary.price_per_hour_usd if secondary is not None else price
                works = plan.meets if load.users else plan.capacity > 0
                if not _within(price, plan.count, limit, per_gpu):
                    if price is not None and works:  # "the cheapest that does" must carry the load
                        over.append(_priced(serving_option(ctx, plan), secondary))
                    continue
                if not works:
                    continue
                opt = _priced(serving_option(ctx, plan), secondary)
                opt.max_users = plan.capacity or opt.max_users
                if best is None or _best_key(opt, load.users) < _best_key(best, load.users):
                    best = opt
        if best is not None:
            options.append(best)
    options.sort(key=lambda o: _best_key(o, load.users))
    shown = options[:ctx.policy.serving.shown_options]
    for o in shown:
        say_secondary(ctx, o)
    for o in shown[:3]:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    if shown and quality_tier(shown[0].precision) and not ctx.query.precisions:
        # 4-bit leads only when nothing that keeps quality meets the load within the budget: its cost is said
        ctx.warn("quantization_quality", precision=shown[0].precision, model_name=model_label(model))
    ctx.assume("best_means_speed" if load.users else "best_means_capacity", per_user_tps=load.capacity_tps,
               users=load.users)
    # a budget for a period ("每月预算 5 万"): the period's totals beside the hourly figures
    hours = ctx.query.duration_hours if ctx.query.duration_hours and limit is not None and not per_gpu else None
    details: list = []
    if shown:
        o = shown[0]
        headline = note("best_under_budget", config=config(o), model_name=model_label(model), limit_usd=limit,
                        price_usd=o.price_per_hour_usd, max_users=o.max_users,
                        # at full load each user gets at least the floor (more when memory, not speed, caps the users)
                        per_user_tps=load.capacity_tps if load.users else max(load.capacity_tps, o.tps_per_user or 0),
                        users=load.users if load.users else None, users_tps=o.tps_per_user if load.users else None,
                        single_tps=o.single_user_tps, provider=o.price.provider_name if o.price else None,
                        hours=hours,
                        total_usd=o.price_per_hour_usd * hours if hours and o.price_per_hour_usd else None)
        if "gpu_count" in ctx.query.asks and limit is not None and not per_gpu and (
                ctx.query.gpus or "best" not in ctx.query.asks):
            # "how many H100s can $60k a month run": the count the budget rents leads, with what it serves
            details.append(headline)
            headline = budget_buys_note(ctx, o, model, load, limit)
    else:
        # the same rule as the sizing answer's: quality tier first (a 4-bit copy a few cents cheaper is not the
        # answer when 16-bit/8-bit serves), then price
        cheapest = min(over, key=lambda o: (quality_tier(o.precision), o.price_per_hour_usd or 1e9)) if over else None
        headline = note("nothing_under_budget", model_name=model_label(model), limit_usd=limit,
                        cheapest=config(cheapest) if cheapest else None,
                        cheapest_usd=cheapest.price_per_hour_usd if cheapest else None, hours=hours,
                        limit_total_usd=limit * hours if hours else None,
                        cheapest_total_usd=cheapest.price_per_hour_usd * hours if hours and cheapest else None,
                        users=load.users)
    # users at the floor; per-user speed at the load evaluated (the users stated, else that full load); batch 1 apart
    table = Table(columns=["config", "capacity_users", "tps_per_user", "single_user_tps", "ttft_s", "usd_per_hour",
                           "usd_per_m_tokens"],
                  rows=[[config(o), o.max_users, o.tps_per_user, o.single_user_tps, o.ttft_s, o.price_per_hour_usd,
                         o.cost_per_million_tokens_usd] for o in shown])
    return ctx.answer(title=note("title_best", model_name=model_label(model), limit_usd=limit), headline=headline,
                      details=details, options=shown, recommendation=0 if shown else None, table=table,
                      actions=next_actions(ctx, shown[0] if shown else None))


def _run_in_budget(ctx: Context, model: Model) -> Answer:
    q = ctx.query
    budget = ctx.usd(q.budget)  # every budget the parser keeps converts (bot.pricing.currency.to_usd)
    finetune = q.workload == "finetune" or q.method
    tokens = finetune_tokens(ctx) if finetune else training_tokens(ctx, model)
    # a money budget with no deadline: the run is sized to finish in the policy's time when the budget pays for it
    target = None if finetune or q.deadline_hours else ctx.policy.training.budget_target_days.value * 24
    options = finetune_setups(ctx, model, tokens) if finetune else training_runs(ctx, model, tokens,
                                                                                  target_hours=target)
    if ctx.zh and not any(o.total_cost_usd for o in options) and not q.gpus:
        # no price for the cards sold in China: a budget can only be checked against prices elsewhere (said)
        section = ctx.policy.finetune if finetune else ctx.policy.training
        abroad = [GpuChoice(ctx.kb.gpus[g], None, False) for g in section.candidate_gpus if g in ctx.kb.gpus]
        options = finetune_setups(ctx, model, tokens, abroad) if finetune else training_runs(
            ctx, model, tokens, abroad, target_hours=target)
        ctx.assume("budget_checked_abroad")
    table = finetune_table(options) if finetune else training_table(options)
    within = [o for o in options if o.fits and o.total_cost_usd is not None and o.total_cost_usd <= budget]
    in_time = [o for o in within if target and o.wall_clock_hours and o.wall_clock_hours <= target]
    # within the target time: the cheapest such run; else the fastest the budget pays for
    best = min(in_time, key=lambda o: (o.total_cost_usd, o.wall_clock_hours)) if in_time else \
        min(within, key=lambda o: o.wall_clock_hours or 1e18) if within else None
    if target is not None:
        ctx.assume("budget_run_target", days=target / 24)
    details: list = []
    if best is not None:
        cheapest = min(within, key=lambda o: (o.total_cost_usd, o.wall_clock_hours or 1e18))
        headline = note("run_in_budget", model_name=model_label(model), budget_usd=budget, config=config(best),
                        total_usd=best.total_cost_usd, wall_hours=best.wall_clock_hours, tokens_tokens=tokens)
        if target is not None and cheapest is not best and cheapest.total_cost_usd < best.total_cost_usd - 0.5:
            details = [note("run_cheapest", config=config(cheapest), total_usd=cheapest.total_cost_usd,
                                      wall_hours=cheapest.wall_clock_hours)]
    else:
        priced = [o for o in options if o.fits and o.total_cost_usd is not None]
        cheapest = min(priced, key=lambda o: o.total_cost_usd) if priced else None
        # nothing within the budget: say so, with the cheapest run and how many tokens the budget trains there
        headline = note("run_over_budget", model_name=model_label(model), budget_usd=budget, tokens_tokens=tokens,
                        config=config(cheapest) if cheapest else None,
                        total_usd=cheapest.total_cost_usd if cheapest else None,
                        affordable_tokens=tokens * budget / cheapest.total_cost_usd if cheapest else None)
    return ctx.answer(title=note("title_best", model_name=model_label(model), limit_usd=None), headline=headline,
                      details=details, options=options, recommendation=options.index(best) if best else None,
                      table=table, actions=next_actions(ctx, best, precision_switch=False))


def _what_runs(ctx: Context, limit: float | None, per_gpu: bool) -> Answer:
    """Per affordable or named configuration, the largest models that fit it at the stated load
    (:func:`_what_runs_load`) in the stated or default precisions (:func:`_what_runs_precisions`)."""
    choices = candidate_gpus(ctx, "serving")
    configs: list[tuple[Gpu, int, object]] = []
    for choice in choices:
        counts = [choice.count] if choice.count else list(_COUNTS)
        for n in counts:
            placement = place(ctx, choice.gpu, n, n)
            price = placement.price_per_hour_usd if placement else None
            if limit is not None and not _within(price, n, limit, per_gpu):
                continue
            configs.append((choice.gpu, n, placement))
            if limit is not None and not choice.fixed:
                pass
    # the most memory within the limit first; one row per GPU type (its largest affordable count)
    best_per_gpu: dict[str, tuple[Gpu, int, object]] = {}
    for g, n, p in configs:
        if g.id not in best_per_gpu or n > best_per_gpu[g.id][1]:
            best_per_gpu[g.id] = (g, n, p)
    rows_data = sorted(best_per_gpu.values(), key=lambda r: -(r[0].memory_gb * r[1]))[:ctx.policy.serving.shown_options]
    options, rows = [], []
    family = set(ctx.query.family_model_ids)  # "the biggest Qwen I can run": that family's models only
    llms = sorted((m for m in ctx.kb.models.values() if m.kind == "llm" and not m.architecture_gaps
                   and (not family or m.id in family)), key=lambda m: -m.params_total_b)
    load = _what_runs_load(ctx)
    columns = _what_runs_precisions(ctx)
    for g, n, p in rows_data:
        largest = {col: _largest(ctx, llms, g, n, prec, load) for col, prec in columns.items()}
        opt = Option(gpu=g.id, gpu_name=g.name, gpu_count=n, price=price_of(ctx, p))
        options.append((opt, largest))
        rows.append([config(opt), g.memory_gb * n, *largest.values(), opt.price_per_hour_usd])
    ctx.assume("largest_model_method", context_tokens=load["context_tokens"], users=load["batch_size"],
               kv_precision=load["kv_precision"])
    if options and ctx.query.precisions:
        o, largest = options[0]
        col, prec = next(iter(columns.items()))
        headline = note("what_runs_stated", config=config(o), limit_usd=limit, price_usd=o.price_per_hour_usd,
                        model_name=largest[col], precision=prec, context_tokens=load["context_tokens"],
                        users=load["batch_size"] if load["batch_size"] > 1 else None)
    elif options:
        o, largest = options[0]
        headline = note("what_runs", config=config(o), limit_usd=limit, price_usd=o.price_per_hour_usd,
                        bf16_model=largest["bf16"], int4_model=largest["int4"], context_tokens=load["context_tokens"],
                        users=load["batch_size"] if load["batch_size"] > 1 else None)
    else:
        headline = note("nothing_under_budget", model_name=None, limit_usd=limit, cheapest=None, cheapest_usd=None)
    return ctx.answer(title=note("title_what_runs", limit_usd=limit), headline=headline,
                      options=[o for o, _ in options], recommendation=0 if options else None,
                      table=Table(columns=["config", "total_memory_gb", *(f"largest_{c}" for c in columns),
                                           "usd_per_hour"], rows=rows),
                      actions=next_actions(ctx, options[0][0] if options else None, precision_switch=False))


def _what_runs_load(ctx: Context) -> dict:
    """What a "what runs" check sizes for: the context, users and KV format the question states (the default
    context and one user otherwise), as :func:`bot.estimation.estimate_inference` keyword arguments."""
    q = ctx.query
    context = q.context_tokens or (q.input_tokens + q.output_tokens if q.input_tokens and q.output_tokens else None)
    return {"context_tokens": context or int(efficiency_for(ctx.kb).c("default_context_tokens")),
            "batch_size": max(1, q.concurrent_users or 1), "kv_precision": q.kv_precision}


def _what_runs_precisions(ctx: Context) -> dict[str, str]:
    """Table column (``bf16``, ``fp8``, ``int8``, ``int4``) -> weight format checked: the precisions the
    question names, else bf16, FP8 and 4-bit."""
    if not ctx.query.precisions:
        return {"bf16": "bf16", "fp8": "fp8", "int4": "int4"}
    eff = efficiency_for(ctx.kb)
    out: dict[str, str] = {}
    for prec in ctx.query.precisions:
        try:
            b = eff.weight_format(prec)[1].bytes_per_weight
        except AdvisorError:
            continue
        col = "bf16" if b >= 1.9 else "int4" if b <= 0.75 else "fp8" if prec.startswith(("fp8", "mxfp8")) else "int8"
        out.setdefault(col, prec)
    return out or {"bf16": "bf16", "fp8": "fp8", "int4": "int4"}


def _largest(ctx: Context, llms: list[Model], gpu: Gpu, count: int, precision: str, load: dict) -> str | None:
    """The largest knowledge-base LLM that ``count`` x ``gpu`` serves in ``precision`` for ``load`` (context,
    users, KV format: :func:`_what_runs_load`), by the fit check's own computation (:func:`plan_serving` with the
    count fixed and no speed floor: weights, KV cache and the engine's memory budget); models whose native
    context is shorter than the context sized are skipped (the method line says so). None if none."""
    try:
        bytes_per_weight = efficiency_for(ctx.kb).weight_format(precision)[1].bytes_per_weight
    except AdvisorError:
        return None
    fit = ServingLoad(users=load["batch_size"], per_user_tps=0.0, per_user_given=False, total_tps=None, ttft_s=None,
                      tpot_ms=None, context_tokens=load["context_tokens"], input_tokens=None, output_tokens=None,
                      kv_precision=load["kv_precision"])
    for m in llms:
        if m.params_total_b * bytes_per_weight > gpu.memory_gb * count * 1.08:  # cannot fit: skip the plan
            continue
        if m.max_position_embeddings and m.max_position_embeddings < load["context_tokens"]:
            continue
        try:
            plan = plan_serving(ctx, m, gpu, precision, fit, count=count, whole_instance=False)
        except Exception:  # a model the planner cannot size is skipped, not fatal
            continue
        if plan.meets:
            return m.name
    return None
