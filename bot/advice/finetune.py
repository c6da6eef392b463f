"""``finetune``: fine-tuning a model (full, LoRA, QLoRA) - does it fit, on how many GPUs, how long for N
tokens, what it costs.

With a GPU, count and method the user fixed, the headline answers that setup (fits or not, with the memory
that decides it); when it does not fit, the alternatives that do (a lighter method on the same GPUs, more
GPUs, a shorter sequence) follow, each labelled with what it changes.
"""

from __future__ import annotations

from bot.advice.answer import Answer, Option
from bot.advice.context import Context
from bot.advice.models import model_label, model_question, resolve_models
from bot.advice.options import (
    caveats,
    config,
    machines_first,
    mention_cost,
    next_actions,
    oom_despite_fit,
    variant_notes,
)
from bot.advice.planner import GpuChoice, candidate_gpus, finetune_option, group_cap, plan_finetune
from bot.advice.runs import (
    finetune_alternatives,
    finetune_setups,
    finetune_table,
    finetune_tokens,
    tokens_for_money_asked,
)
from bot.errors import AdvisorError
from bot.estimation import EstimationError, estimate_finetune
from bot.kb.schema import Model
from bot.notes import note
from bot.pricing.mentions import mention_for

__all__ = ["answer"]

_EXAMPLES = ["can i qlora llama 70b on 2x 3090", "lora llama 3 8b with 8k ctx on 1x a100 80gb"]
_EXAMPLES_ZH = ["qlora 微调 qwen2.5 72b 需要几张 A800", "lora 微调 qwen2.5 7b 一张 4090 够吗"]


def answer(ctx: Context) -> Answer:
    """Answer a fine-tuning question (see the module docstring)."""
    q = ctx.query
    models = resolve_models(ctx)
    if not models:
        headline, details = model_question(ctx, "ask_model_finetune")
        return ctx.answer(title=note("title_one_more_thing"), headline=headline, details=details,
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    model = models[0]
    variant_notes(ctx)
    if tokens_for_money_asked(q) and not q.training_tokens:
        # (within the time given, if any: more copies of the setup when the time binds, unless the count is fixed)
        counted = any(g.count for g in q.gpus)
        return _tokens_for_budget(ctx, model, hours_limit=None if counted else q.duration_hours or q.deadline_hours)
    hours = q.duration_hours or q.deadline_hours
    if "tokens_in_time" in q.asks and hours and any(g.count for g in q.gpus) and not q.training_tokens:
        return _tokens_in_time(ctx, model, hours)
    tokens = finetune_tokens(ctx)
    choices = candidate_gpus(ctx, "finetune")
    method = q.method
    if method is None and q.full_precision:
        # "fine-tune X in full precision": every weight trained, unquantised; when that does not fit, LoRA (also
        # unquantised) follows as the alternative, so either reading is answered
        method = "full"
        ctx.assume("full_precision_full_finetune")
    options = finetune_setups(ctx, model, tokens, choices, methods=[method] if method else None)
    fixed = [c for c in choices if c.fixed]
    if fixed and method and options and not any(o.fits for o in options):
        options += finetune_alternatives(ctx, model, tokens, options[0], fixed[0])
    if q.deadline_hours:
        options += _in_time(ctx, model, tokens, choices, options)
        for o in options:  # a setup that fits but finishes after the user's deadline does not answer them
            if o.fits and o.wall_clock_hours and o.wall_clock_hours > q.deadline_hours * 1.0001:
                o.meets = False
                o.rejection = note("reject_deadline", hours=o.wall_clock_hours, deadline_hours=q.deadline_hours)
    rec = _pick(options)
    for o in options[:3]:
        caveats(ctx, o)
    o = options[rec] if rec is not None else (options[0] if options else None)
    details: list = []
    if o is None:
        headline = note("finetune_nothing", model_name=model_label(model))
    elif rec is None or (fixed and method and not options[0].fits):
        first = options[0]
        headline = note("finetune_fixed_fails", config=config(first), model_name=model_label(model),
                        mem_gb=first.memory_per_gpu_gb, usable_gb=first.usable_gb)
    elif "memory" in q.asks and "time" not in q.asks:
        headline = _memory_headline(ctx, model, o)
    elif "time" in q.asks or q.training_tokens:
        headline = note("finetune_time", config=config(o), model_name=model_label(model), tokens_tokens=tokens,
                        gpu_hours=o.gpu_hours, wall_hours=o.wall_clock_hours, total_usd=o.total_cost_usd,
                        mem_gb=o.memory_per_gpu_gb, usable_gb=o.usable_gb)
    else:
        headline = note("finetune_fits", config=config(o), model_name=model_label(model), mem_gb=o.memory_per_gpu_gb,
                        usable_gb=o.usable_gb, gpu_hours=o.gpu_hours, total_usd=o.total_cost_usd,
                        tokens_tokens=tokens)
    for alt in (x for x in options if x.changes):
        details.append(note("alternative_finetune", config=config(alt), changes=alt.changes,
                            mem_gb=alt.memory_per_gpu_gb, usable_gb=alt.usable_gb, wall_hours=alt.wall_clock_hours,
                            late=alt.meets is False and alt.fits))
    if q.deadline_hours and options:
        in_time = [x for x in options if x.fits and x.meets is not False]
        details.insert(0, note("finetune_deadline", deadline_hours=q.deadline_hours, config=config(in_time[0]),
                               wall_hours=in_time[0].wall_clock_hours) if in_time else
                       note("finetune_deadline_none", deadline_hours=q.deadline_hours))
    if q.diagnosis is not None and q.diagnosis.kind == "oom":
        details += [note("oom_fix_training_1"), note("oom_fix_training_2"), note("oom_fix_training_3")]
        if (seen := oom_despite_fit(ctx, o)) is not None:
            # "LoRA on 7b OOMs on my 24gb card": the error reported leads, with the arithmetic, then the estimate
            headline, details = seen, [headline, *details]
    if o is not None and o.fits and o.price is None and (mentioned := mention_cost(
            ctx, config(o), o.gpu, o.gpu_count, o.wall_clock_hours)):
        details.insert(0, mentioned)  # no list price: the secondary-source figure for the run, labelled as such
    if o is not None and o.fits:  # machines asked: they lead
        headline, details = machines_first(ctx, headline, details, config(o), model_label(model))
    return ctx.answer(title=note("title_finetune", model_name=model_label(model)), headline=headline, details=details,
                      options=options, recommendation=rec, table=finetune_table(options),
                      actions=next_actions(ctx, o, precision_switch=False))


def _tokens_in_time(ctx: Context, model: Model, hours: float) -> Answer:
    """Tokens the user's fine-tuning setup gets through in ``hours`` ("how many tokens can I LoRA X on 2x H100 in
    10 hours"): a reference run of the same setup gives tokens per hour (tokens / its wall clock; time is linear in
    tokens at a fixed setup), times the hours; the cost is the setup's price per hour x the hours.

    Returns:
        :class:`Answer` headed ``tokens_in_time`` on the first setup that fits (the method named, else the lightest
        that fits), or the regular answer's "does not fit" when none does.
    """
    setups = finetune_setups(ctx, model, _REFERENCE_TOKENS, [c for c in candidate_gpus(ctx, "finetune") if c.count])
    fitting = [o for o in setups if o.fits and o.wall_clock_hours]
    if not fitting:
        return ctx.answer(title=note("title_finetune", model_name=model_label(model)),
                          headline=note("finetune_nothing", model_name=model_label(model)), options=setups,
                          recommendation=None, table=finetune_table(setups))
    for o in fitting:
        o.tokens = _REFERENCE_TOKENS / o.wall_clock_hours * hours
        o.wall_clock_hours, o.gpu_hours = hours, hours * (o.gpu_count or 1)
        o.total_cost_usd = o.price.price_per_hour_usd * hours if o.price else None
    o = fitting[0]
    headline = note("tokens_in_time", config=config(o), model_name=model_label(model), hours=hours,
                    tokens_tokens=o.tokens, total_usd=o.total_cost_usd, fits=True)
    return ctx.answer(title=note("title_finetune", model_name=model_label(model)), headline=headline,
                      options=fitting, recommendation=0, table=finetune_table(fitting),
                      actions=next_actions(ctx, o, precision_switch=False))


#: Tokens of the reference run a budget is scaled from (any size: cost is linear in tokens at a fixed setup).
_REFERENCE_TOKENS = 1e8


def _tokens_for_budget(ctx: Context, model: Model, hours_limit: float | None = None) -> Answer:
    """Tokens a money budget fine-tunes ("with $5k, how many tokens can I LoRA llama 3 8b on an H100").

    With ``hours_limit`` (the time the run has, hours: "¥50k within three days"), a budget that rents a setup longer
    than that runs ``k = floor(budget / (price per hour x hours_limit))`` copies of it side by side (data parallel,
    tokens linear in copies) for ``hours_limit``, so the money is spent within the time.

    Per setup (the GPUs named, else the candidates; the method named, else each), from a reference run of the same
    setup: tokens per hour = reference tokens / its wall clock; hours the budget rents = budget / price per hour of
    the setup; tokens = hours x tokens per hour. The setup that gets the most tokens leads, the faster one among
    equals (to 1%). Setups without a price are left out (a price is what turns money into hours).

    Returns:
        :class:`Answer` headed ``tokens_for_budget_finetune``, or ``ask_budget_and_gpu`` when no setup is priced.
    """
    q = ctx.query
    budget = ctx.usd(q.budget)
    setups = finetune_setups(ctx, model, _REFERENCE_TOKENS)
    if ctx.zh and not q.gpus and not any(o.fits and o.price for o in setups):
        # no price for the cards sold in China: money turns into hours only at prices elsewhere (said)
        abroad = [GpuChoice(ctx.kb.gpus[g], None, False) for g in ctx.policy.finetune.candidate_gpus
                  if g in ctx.kb.gpus]
        setups = finetune_setups(ctx, model, _REFERENCE_TOKENS, abroad)
        ctx.assume("budget_checked_abroad")
    options, rates = [], {}
    for o in setups:
        if not (o.fits and o.wall_clock_hours and budget):
            continue
        rate = (o.price.price_per_hour_usd, o.price.provider_name, False) if o.price else None
        mp = mention_for(ctx.kb, o.gpu or "", q.providers) if rate is None else None
        if mp is not None and mp.low_usd:
            # a card with no list price (H800, A800, ...): the secondary-source figure every answer uses, said as such
            rate = (mp.low_usd * (o.gpu_count or 1), mp.mention.where, True)
        if rate is None or not rate[0]:
            continue
        per_hour = _REFERENCE_TOKENS / o.wall_clock_hours
        hours = budget / rate[0]
        copies = int(hours // hours_limit) if hours_limit and hours > hours_limit else 1
        if hours_limit and hours > hours_limit:
            hours = hours_limit  # the time binds: the run stops at it (under budget with one copy)
        if copies > 1:  # that many copies of the setup, each for the whole time
            per_hour = per_hour * copies
            o.gpu_count = (o.gpu_count or 1) * copies
            if o.price is not None:
                o.price = o.price.model_copy(update={
                    "instances": o.price.instances * copies, "gpus_rented": o.price.gpus_rented * copies,
                    "price_per_hour_usd": o.price.price_per_hour_usd * copies, "separate_instances": True})
            rate = (rate[0] * copies, *rate[1:])
            ctx.assume("budget_copies_in_time", copies=copies, hours=hours_limit)
        o.tokens, o.wall_clock_hours = per_hour * hours, hours
        o.gpu_hours, o.total_cost_usd = hours * (o.gpu_count or 1), min(budget, rate[0] * hours)
        options.append(o)
        rates[id(o)] = rate
    if not options:
        for o in setups:
            if o.fits and o.price is None:
                ctx.lack("no_price_for_gpu", gpu_name=o.gpu_name, count=o.gpu_count)
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_budget_and_gpu"),
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    most = max(x.tokens for x in options)
    options.sort(key=lambda x: (-round(x.tokens / most, 2), x.wall_clock_hours))
    o = options[0]
    for x in options[:3]:
        caveats(ctx, x)
    price_usd, provider, secondary = rates[id(o)]
    headline = note("tokens_for_budget_finetune", budget_usd=budget, model_name=model_label(model), config=config(o),
                    tokens_tokens=o.tokens, price_usd=price_usd, provider=provider, secondary=secondary,
                    hours=o.wall_clock_hours, per_hour_tokens=o.tokens / o.wall_clock_hours,
                    # the time given binds (the run stops at it): what is spent, not budget / price per hour
                    by_budget=not (hours_limit and o.wall_clock_hours >= hours_limit * 0.9999),
                    time_bound=bool(hours_limit and o.wall_clock_hours >= hours_limit * 0.9999),
                    spent_usd=o.total_cost_usd)
    return ctx.answer(title=note("title_finetune", model_name=model_label(model)), headline=headline,
                      options=options, recommendation=0, table=finetune_table(options),
                      actions=next_actions(ctx, o, precision_switch=False))


def _memory_headline(ctx: Context, model: Model, o: Option):
    """"How much VRAM": the memory of the method on one GPU (weights, gradients, optimizer states, activations,
    from :func:`bot.estimation.estimate_finetune` unsharded, with the recommended setup's gradient
    checkpointing), then the setup that holds it."""
    gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0])
    checkpointing = any(n.code == "gradient_checkpointing_used" for n in o.notes)
    try:
        one = estimate_finetune(ctx.kb, model, gpu, count=1, method=o.method or "full",
                                seq_len=ctx.query.sequence_tokens, lora_rank=ctx.query.lora_rank or 16,
                                micro_batch=ctx.query.batch_size or 1, gradient_checkpointing=checkpointing)
    except (EstimationError, AdvisorError):
        return note("finetune_fits", config=config(o), model_name=model_label(model), mem_gb=o.memory_per_gpu_gb,
                    usable_gb=o.usable_gb)
    m = one.memory
    ctx.assume("finetune_memory_basis_checkpointed" if checkpointing else "finetune_memory_basis",
               seq_len_tokens=one.seq_len, micro_batch=one.micro_batch)
    return note("finetune_memory", method=o.method, model_name=model_label(model), total_gb=m.total_gb,
                weights_gb=m.weights_gb, gradients_gb=m.gradients_gb, optimizer_gb=m.optimizer_gb,
                activations_gb=m.activations_gb + m.overhead_gb, config=config(o), mem_gb=o.memory_per_gpu_gb,
                usable_gb=o.usable_gb, sharding=o.sharding if o.gpu_count and o.gpu_count > 1 else None)


def _in_time(ctx: Context, model: Model, tokens: float, choices, options: list[Option]) -> list[Option]:
    """For GPU types with no count fixed whose fewest GPUs finish late: the fewest that finish within the
    deadline (data parallel: wall clock falls close to 1/N), as added options."""
    q = ctx.query
    out = []
    for choice in (c for c in choices if c.count is None):
        late = [o for o in options if o.gpu == choice.gpu.id and o.fits and o.wall_clock_hours
                and o.wall_clock_hours > q.deadline_hours]
        if not late or any(o.gpu == choice.gpu.id and o.fits and o.wall_clock_hours
                           and o.wall_clock_hours <= q.deadline_hours for o in options):
            continue
        first = late[0]
        for n in (c for c in ctx.policy.finetune.counts if c > (first.gpu_count or 1) and c <= group_cap(ctx, choice.gpu)):
            est = plan_finetune(ctx, model, choice.gpu, n, first.method or "lora", tokens)
            if est is not None and est.fits and est.wall_clock_hours and est.wall_clock_hours <= q.deadline_hours:
                out.append(finetune_option(ctx, model, choice.gpu, est, changes=["count"]))
                break
    return out


def _pick(options: list[Option]) -> int | None:
    """The recommended setup: fits; cheapest when priced, then fewest GPUs, then the lightest method."""
    fitting = [i for i, o in enumerate(options) if o.fits and o.meets is not False and not o.changes]
    fitting = fitting or [i for i, o in enumerate(options) if o.fits and o.meets is not False]
    fitting = fitting or [i for i, o in enumerate(options) if o.fits]
    if not fitting:
        return None
    return min(fitting, key=lambda i: (options[i].total_cost_usd is None, options[i].total_cost_usd or 0,
                                       options[i].gpu_count or 0))
