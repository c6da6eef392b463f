"""Batch inference jobs: N items (documents, tickets, reviews) through an LLM - how long, what it costs, and how
many GPUs finish it by a deadline.

Offline work has no per-user speed floor: each replica runs the largest batch its memory and engine allow
(vLLM's ``max_num_seqs``), every item is a fresh prompt (no conversation to cache), and the job takes

    hours = items x output tokens per item / (aggregate output tokens/s x 3,600)

where the aggregate rate is the estimator's steady-state throughput at that batch, prefill included
(:func:`bot.estimation.estimate_inference`, ``throughput_tokens_per_s``). With a deadline the job is split over
``ceil(hours / deadline)`` copies of the configuration (items are independent, so copies need no interconnect).
The serving planner finds each configuration (:func:`bot.advice.planner.plan_serving`, ``objective="capacity"``
with the per-user floor off), so a batch job and a chat deployment of the same GPUs are sized by one search.
"""

from __future__ import annotations

import math

from bot.advice.answer import Answer, Option, Table
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.advice.options import (
    caveats,
    config,
    hour_cell,
    machines_first,
    mention_cost,
    next_actions,
    quality_tier,
)
from bot.advice.planner import (
    GpuChoice,
    ServingLoad,
    cost_for,
    fuller_counts,
    place,
    plan_serving,
    precisions_for,
    price_of,
    serving_option,
)
from bot.estimation import efficiency_for
from bot.kb.schema import Model
from bot.notes import note
from bot.parsing.query import Query

__all__ = ["answer", "is_batch_job"]

#: GPU types tried when the user names none (the serving candidates, cheapest job first).
_CANDIDATES = 6


def is_batch_job(q: Query) -> bool:
    """Whether a serving question is an offline job over a stated number of items ("summarize 1M documents"),
    not a live load (users, a request rate or a tokens/s target make it a deployment) nor one request asked of."""
    # one item ("一条请求的首字延迟和总耗时", "one request") is a single request's latency, not a job
    return bool(q.documents) and not (q.documents <= 1 and q.single_item) and not (
        q.concurrent_users or q.requests_per_s or q.target_tokens_per_s or q.batch_size)


def _job_load(ctx: Context) -> ServingLoad:
    """The per-item workload: the stated prompt (or item length) and output, else the defaults, said."""
    q = ctx.query
    eff = efficiency_for(ctx.kb)
    isl = q.input_tokens or (int(q.tokens_per_item) if q.tokens_per_item else None)
    osl = q.output_tokens
    if isl is None:
        isl = int(eff.c("chat_request_prompt_tokens"))
        ctx.assume("batch_default_input", input_tokens=isl)
    if osl is None:
        osl = int(eff.c("default_output_tokens"))
        ctx.assume("batch_default_output", output_tokens=osl)
    ctx.assume("batch_method")
    return ServingLoad(users=None, per_user_tps=0.0, per_user_given=False, total_tps=None, ttft_s=None,
                       tpot_ms=None, context_tokens=None, input_tokens=isl, output_tokens=osl,
                       kv_precision=q.kv_precision, worst_case=False, floor_tps=0.0)


def _job_option(ctx: Context, model: Model, choice: GpuChoice, load: ServingLoad) -> Option | None:
    """The best configuration of ``choice`` for the job: the user's count, else the fewest GPUs that hold the
    model and two and four times that within one 8-GPU machine (GPUs beyond the weights hold KV cache for a larger
    batch, which often does more per GPU); quality first, then the fewest GPU-hours for the job (what copies scale
    by to meet a deadline, and what it costs), then the shortest job. ``None`` when nothing fits."""
    opts: list[Option] = []
    for precision, _ in precisions_for(ctx, model, choice.gpu):
        counts = [choice.count] if choice.count else []
        if not counts:
            base = plan_serving(ctx, model, choice.gpu, precision, ServingLoad(**{**load.__dict__, "users": 1}))
            if base.est is not None and base.est.fits:
                counts = fuller_counts(ctx, base.count)
        for count in counts:
            opt = _at_count(ctx, model, choice, precision, load, count)
            if opt is not None:
                opts.append(opt)
    if not opts:
        return None
    return min(opts, key=lambda o: (o.wall_clock_hours is None, quality_tier(o.precision),
                                    (o.wall_clock_hours or math.inf) * (o.gpu_count or 1), o.wall_clock_hours or math.inf))


def _at_count(ctx: Context, model: Model, choice: GpuChoice, precision: str, load: ServingLoad,
              count: int) -> Option | None:
    """The job on ``count`` x ``choice`` in ``precision`` at the largest batch: its wall clock (items x output
    tokens / output tokens/s in all) and cost; ``None`` when it does not run (kept for a GPU the user named)."""
    plan = plan_serving(ctx, model, choice.gpu, precision, load, count=count, objective="capacity")
    opt = serving_option(ctx, plan)
    if not plan.capacity or not plan.throughput_tps:
        return opt if choice.fixed else None
    opt.max_users = plan.capacity
    opt.wall_clock_hours = ctx.query.documents * load.output_tokens / plan.throughput_tps / 3600
    if opt.price_per_hour_usd:
        opt.total_cost_usd = cost_for(opt.price, opt.wall_clock_hours) if opt.price else (
            opt.wall_clock_hours * opt.price_per_hour_usd)
    return opt


def answer(ctx: Context, model: Model, choices: list[GpuChoice]) -> Answer:
    """Answer a batch job (see the module docstring).

    Args:
        ctx: the request; its query gives the items (``documents``), their prompt and output lengths, a deadline.
        model: the LLM. choices: the GPUs named (fixed) or the planner's candidates (cheapest job first).

    Returns:
        An :class:`Answer` whose headline states the job's time (or the GPUs for the deadline) and cost.
    """
    q = ctx.query
    job = _job_load(ctx)
    fixed = [c for c in choices if c.fixed]
    options = [o for o in (_job_option(ctx, model, c, job) for c in (fixed or choices[:_CANDIDATES])) if o]
    if not fixed:
        options.sort(key=lambda o: (o.wall_clock_hours is None, o.total_cost_usd is None,
                                    o.total_cost_usd or 0, o.wall_clock_hours or 0))
    rec = next((i for i, o in enumerate(options) if o.wall_clock_hours), None)
    for o in options[:3]:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    deadline = q.deadline_hours or (q.duration_hours if "time" not in q.asks else None)
    name = model_label(model)
    details = []
    if rec is None:
        headline = note("batch_job_none", model_name=name, documents=q.documents,
                        reason=options[0].rejection if options else None)
    else:
        o = options[rec]
        total = config(o)
        headline = note("batch_job", config=config(o), model_name=name, documents=q.documents,
                        input_tokens=job.input_tokens, output_tokens=job.output_tokens, hours=o.wall_clock_hours,
                        total_usd=o.total_cost_usd, total_tps=o.throughput_tps, batch=o.max_users,
                        price_usd=o.price_per_hour_usd, provider=o.price.provider_name if o.price else None)
        if deadline and o.wall_clock_hours and o.wall_clock_hours > deadline:
            copies = math.ceil(o.wall_clock_hours / deadline)
            gpus = copies * o.gpu_count
            gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0])
            placement = place(ctx, gpu, gpus, o.gpu_count) if gpu is not None else None
            price = price_of(ctx, placement)
            hours = o.wall_clock_hours / copies
            details.append(headline)
            total = {"gpu_count": gpus, "gpu_name": o.gpu_name}
            headline = note("batch_job_deadline", deadline_hours=deadline, gpu_count=gpus, gpu_name=o.gpu_name,
                            copies=copies, config=config(o), hours=hours, model_name=name, documents=q.documents,
                            total_usd=cost_for(price, hours),
                            price_usd=price.price_per_hour_usd if price else None)
        elif deadline and o.wall_clock_hours:
            details.append(note("batch_job_in_time", deadline_hours=deadline, hours=o.wall_clock_hours))
        if o.price is None and (mentioned := mention_cost(ctx, config(o), o.gpu, o.gpu_count, o.wall_clock_hours)):
            details.insert(0, mentioned)  # no list price: the secondary-source figure for the job, labelled as such
        headline, details = machines_first(ctx, headline, details, total, name)  # machines asked: they lead
    rows = [[config(o), o.max_users, o.throughput_tps, o.wall_clock_hours, hour_cell(ctx, o), o.total_cost_usd]
            for o in options]
    return ctx.answer(title=note("title_batch_job", model_name=name, documents=q.documents), headline=headline,
                      details=details, options=options, recommendation=rec,
                      table=Table(columns=["config", "batch", "total_tps", "wall_clock", "usd_per_hour", "total_usd"],
                                  rows=rows),
                      actions=next_actions(ctx, options[rec] if rec is not None else None))
