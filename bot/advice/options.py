"""What every answer says about the options it shows: labels, caveats and next steps.

* :func:`config` is the structured label of an option (rendered "2x H100 SXM5 80GB, fp8" / "2 张 ...");
* :func:`caveats` records, once per answer, what a user must know before renting an option: a tensor-parallel
  group split over instances, idle GPUs in a larger instance, a stale or undated price, a tight fit, no
  NVLink/P2P between consumer cards, a checkpoint run as an engine's weight-only fallback;
* :func:`next_actions` proposes the buttons (show all, assumptions, switch precision, quote this);
* :func:`half_precision_fix` answers an out-of-memory error met loading a model in 32-bit with the memory it needs in
  16, 8 and 4 bits on the same GPUs.
"""

from __future__ import annotations

import math
import re

from bot.advice.answer import Action, Option
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.advice.planner import (
    GpuChoice,
    ServingLoad,
    ServingPlan,
    excluded_providers,
    machine_size,
    one_copy_memory,
    plan_serving,
    precisions_for,
    rent_usd_per_hour,
    replica_counts_within,
    serving_option,
)
from bot.errors import AdvisorError
from bot.estimation import efficiency_for
from bot.kb.schema import Gpu, Model
from bot.notes import Note, note
from bot.pricing.mentions import mention_for
from bot.pricing.offers import Placement
from bot.pricing.offers import place as all_placements

__all__ = ["budget_buys_note", "caveats", "cheapest_per_token", "config", "exact_rental", "half_precision_fix", "hour_cell",
           "idle_line", "machines_first", "mention_cost", "money_fleet", "next_actions", "oom_despite_fit", "quality_tier",
           "variant_notes"]

#: 32-bit weight formats: 4 bytes per parameter, twice a 16-bit load.
_FULL_32 = ("fp32", "tf32")


def config(opt: Option, *, with_model: bool = False, with_precision: bool = True) -> dict:
    """The label of an option as data: ``{gpu_count, gpu_name, precision, method, model_name}``; the precision
    reads ``"int8 + fp8 KV"`` when the option changes the KV-cache format."""
    out = {"gpu_count": opt.gpu_count, "gpu_name": opt.gpu_name}
    if with_precision and opt.precision and not opt.method:
        out["precision"] = opt.precision
        if opt.kv_precision and "kv_precision" in (opt.changes or []):
            # the KV-cache format is what this option changes: its label says it (a technical term in both languages)
            out["precision"] = f"{opt.precision} + {opt.kv_precision} KV"
    if opt.method:
        out["method"] = opt.method
    if with_model and opt.model_name:
        out["model_name"] = opt.model_name
    return out


def machines_first(ctx: Context, headline: Note, details: list, label: dict | None, model_name: str | None
                   ) -> tuple[Note, list]:
    """When the question asks for machines ("几台机器", "how many servers"): the machines lead the answer.

    Args:
        ctx: the answer being built; :func:`bot.advice.planner.machine_size` gives the GPUs per machine (the
            count stated per machine, else the policy's server size, stated as an assumption).
        headline, details: the answer's headline and details so far.
        label: the recommended configuration (:func:`config`), ``None`` when there is none.
        model_name: the model's label.

    Returns:
        ``(headline, details)``: ``machines_needed`` (ceil(GPUs / GPUs per machine) machines) first and the old
        headline as the first detail, or both unchanged when machines are not asked or nothing was recommended.
    """
    count = (label or {}).get("gpu_count")
    if not count or headline.code == "machines_needed":
        return headline, details
    per_node = machine_size(ctx)
    if not per_node:
        return headline, details
    return (note("machines_needed", machines=math.ceil(count / per_node), per_node=per_node, config=label,
                 model_name=model_name), [headline, *details])


def mention_cost(ctx: Context, label: dict, gpu_id: str | None, count: int | None, hours: float | None = None, *,
                 tokens_per_s: float | None = None, with_caveat: bool = False) -> Note | None:
    """What an unpriced configuration costs at the secondary-source figure every answer uses for its GPU
    (:func:`bot.pricing.mentions.mention_for`: the named cloud's figure first), labelled as such, never as an offer.

    Args:
        ctx: the answer being built (its providers pick the figure; its answer currency decides whether the USD
            equivalents are said).
        label: the configuration (:func:`config`).
        gpu_id: the GPU (a copy with a stated memory, ``"...@48gb"``, is no stock card and has no figure).
        count: GPUs paid for.
        hours: the rental length or the run's wall clock, hours (``None``: per hour only).
        tokens_per_s: the configuration's output at full load, tokens/s, for the cost per 1M tokens.
        with_caveat: also say what is not known about the figure (quotes).

    Returns:
        ``mention_cost``: the figure per GPU-hour as published (CNY), per hour for ``count`` GPUs and for ``hours``
        (per GPU-hour x count x hours), each with its USD equivalent at the dated rate unless the user asked for
        RMB, and the cost per 1M tokens = USD per hour / (tokens/s x 3,600) x 10^6; ``None`` when the GPU has no
        figure. The source is cited and the rate stated as an assumption.
    """
    if not gpu_id or "@" in gpu_id or not count:
        return None
    mp = mention_for(ctx.kb, gpu_id, ctx.query.providers)
    if mp is None:
        return None
    m = mp.mention
    approx = m.currency != "usd" and ctx.query.answer_currency != m.currency and mp.low_usd is not None

    def money(per_gpu: float) -> dict:
        return {"amount": per_gpu, "currency": m.currency}

    ctx.cite(m.source)
    if mp.rate is not None:
        ctx.assume("cny_rate_used", rate=mp.rate[0], rate_date=mp.rate[1])
    hour_usd = mp.low_usd * count if mp.low_usd is not None else None
    return note("mention_cost", config=label, where={"en": m.where, "zh": m.where_zh or m.where},
                named=m.provider is not None and m.provider in ctx.query.providers,
                per_gpu=money(m.low_per_gpu_hour), hour=money(m.low_per_gpu_hour * count),
                total=money(m.low_per_gpu_hour * count * hours) if hours else None, hours=hours,
                approx_per_gpu_usd=mp.low_usd if approx else None, approx_hour_usd=hour_usd if approx else None,
                approx_total_usd=hour_usd * hours if approx and hours else None,
                per_m_usd=hour_usd / (tokens_per_s * 3600) * 1e6 if hour_usd and tokens_per_s else None,
                as_of=m.as_of.isoformat() if m.as_of else None,
                caveat={"en": m.caveat, "zh": m.caveat_zh} if with_caveat else None)


def hour_cell(ctx: Context, o: Option) -> float | dict | None:
    """The "per hour" cell of a table row: the option's price per hour in USD; for an option with no list price, the
    secondary-source figure the answer's text uses for it (:func:`mention_cost`) as ``{"amount", "currency",
    "secondary": True}`` for ``gpu_count`` GPUs (per GPU-hour x count, in the currency it was published in), which the
    renderer marks as approximate, so a table never says "n/a" beside a sentence that gives a figure; ``None`` when
    neither exists."""
    if o.price is not None:
        return o.price.price_per_hour_usd
    if not o.gpu or "@" in o.gpu or not o.gpu_count:
        return None
    mp = mention_for(ctx.kb, o.gpu, ctx.query.providers)
    if mp is None or not mp.mention.low_per_gpu_hour:
        return None
    return {"amount": mp.mention.low_per_gpu_hour * o.gpu_count, "currency": mp.mention.currency, "secondary": True}


def caveats(ctx: Context, opt: Option, gpu: Gpu | None = None, *, idle: bool = True) -> None:
    """Record what renting ``opt`` involves that the user must know (see the module docstring).

    Args:
        ctx: the answer being built.
        opt: the option.
        gpu: the GPU, for interconnect notes on a tensor-parallel group.
        idle: warn about idle GPUs the instance pays for (a caller that lists every such row in one warning,
            as quotes do, passes ``False``).
    """
    p = opt.price
    if p is not None:
        if p.group_split:
            ctx.warn("group_split_instances", config=config(opt), instances=p.instances, instance=p.instance_type)
        elif p.separate_instances and (opt.replicas or 1) > 1:
            ctx.assume("replicas_on_separate_instances", instances=p.instances, instance=p.instance_type)
        if p.idle_gpus > 0 and idle:
            alt = exact_rental(ctx, opt, gpu)
            ctx.warn("idle_gpus", idle=p.idle_gpus, instance=p.instance_type, gpus_rented=p.gpus_rented,
                     provider=p.provider_name, count=opt.gpu_count,
                     alt_provider=alt.offer.provider_name if alt else None,
                     alt_instance=(alt.offer.instance_type if alt.instances == 1 else
                                   f"{alt.instances} x {alt.offer.instance_type}") if alt else None,
                     alt_price_usd=alt.price_per_hour_usd if alt else None)
        if p.stale and p.origin != "secondary":  # (a secondary figure has its own warning: priced_secondary)
            ctx.warn("stale_price" if p.as_of else "undated_price", provider=p.provider_name,
                     instance=p.instance_type, as_of=p.as_of.isoformat() if p.as_of else None)
        if p.gpu_variant:
            ctx.warn("priced_nearest_variant", provider=p.provider_name, gpu_name=opt.gpu_name,
                     variant_name=p.gpu_variant_name, instance=p.instance_type,
                     price_per_gpu_usd=p.price_per_gpu_hour_usd)
        if p.pricing_model == "spot":
            ctx.warn("spot_interruptible", provider=p.provider_name)
        if p.pricing_model == "commitment":
            ctx.assume("commitment_terms", provider=p.provider_name, term=p.commitment_term)
    if opt.memory_per_gpu_gb and opt.usable_gb and opt.fits:
        tight = ctx.policy.memory.tight_fraction.value
        if opt.memory_per_gpu_gb > tight * opt.usable_gb:
            ctx.warn("tight_fit", config=config(opt), need_gb=opt.memory_per_gpu_gb, usable_gb=opt.usable_gb,
                     tight_pct=tight * 100)
    fmt = _weight_format(ctx, opt.precision)
    if fmt is not None and fmt.runs_checkpoints_of and gpu is not None:
        # an engine's weight-only fallback (FP8 checkpoints on Ampere): it runs, at 16-bit compute speed
        ctx.warn("weight_only_fallback", gpu_name=gpu.name, checkpoint=fmt.runs_checkpoints_of, runs_as=opt.precision,
                 compute=fmt.compute, engines=", ".join(fmt.engines) or None)
    if gpu is not None and (opt.tensor_parallel or 1) > 1:
        icls = efficiency_for(ctx.kb).interconnect_class(gpu, opt.tensor_parallel or 2)
        if icls == "no_p2p":
            ctx.warn("no_p2p", gpu_name=gpu.name)
        elif icls == "pcie":
            ctx.assume("tp_over_pcie", gpu_name=gpu.name)


def idle_line(ctx: Context, opt: Option | None) -> list[Note]:
    """The ``idle_gpus`` caveat of ``opt`` (recorded by :func:`caveats`), taken out of the warnings to stand under the
    headline: the option answered pays for GPUs it does not use (a provider that rents only larger nodes), which
    the first lines must say with the way to rent just the count. ``[]`` when ``opt`` pays for none."""
    p = opt.price if opt is not None else None
    if p is None or p.idle_gpus <= 0:
        return []
    mine = [w for w in ctx.warnings if w.code == "idle_gpus" and w.params.get("provider") == p.provider_name
            and w.params.get("instance") == p.instance_type]
    ctx.warnings = [w for w in ctx.warnings if w not in mine]
    return mine[:1]


def exact_rental(ctx: Context, opt: Option, gpu: Gpu | None = None) -> Placement | None:
    """The cheapest way to rent just ``opt``'s GPUs (no idle GPU paid for) in its pricing model, any provider the
    question's market allows, each tensor-parallel group (tp x pp GPUs) in one instance: what to say beside an
    option that pays for a whole larger node ("2x A100 at CoreWeave": 8-GPU nodes only). List prices before a
    marketplace host's ask; a provider's stale snapshot of a size it also prices currently is left out. ``None`` when
    the option has no idle GPUs or nothing rents the count exactly. Chosen by the table's one
    :class:`bot.pricing.offers.OfferRule` (``knowledge/policy.yaml`` ``offers``)."""
    p = opt.price
    if p is None or p.idle_gpus <= 0 or not opt.gpu or not opt.gpu_count:
        return None
    gpu_id = (gpu.id if gpu is not None else opt.gpu).split("@")[0]
    group = max(1, min((opt.tensor_parallel or 1) * (opt.pipeline_parallel or 1), 8))
    exclude = excluded_providers(ctx)
    found = [x for x in all_placements(ctx.offers, gpu_id, opt.gpu_count, today=ctx.today, group=group,
                                       pricing_model=p.pricing_model)
             if x.idle_gpus == 0 and not x.group_split and x.offer.provider not in exclude
             and (x.offer.condition is None or p.pricing_model != "on_demand")]
    # a provider's current price for an instance size supersedes its old snapshot of that size
    fresh = {(x.offer.provider, x.offer.gpu_count) for x in found if not x.stale}
    found = [x for x in found if not x.stale or (x.offer.provider, x.offer.gpu_count) not in fresh]
    return ctx.offers.rule.best(found)


def half_precision_fix(ctx: Context, model: Model, gpu: Gpu, count: int, load) -> Note | None:
    """The fix for an out-of-memory error met loading ``model`` in 32-bit: the memory per GPU in fp32, in 16-bit
    and in int8 / int4 on the same ``count`` x ``gpu``, and whether each fits.

    It applies when the request reports an out-of-memory error (``diagnosis.kind == "oom"``) and loads the model
    in 32-bit: fp32 named ("float32", "full precision" read as 32-bit when the model was released in 16-bit). The
    16-bit format is bf16 where the GPU runs it (compute capability 8.0 and later), else fp16. Each figure is the
    planner's memory for that format: weights (fp32 4, 16-bit 2, int8 1, int4 about 0.5 bytes per parameter, plus
    the layers kept in 16-bit) + KV cache for the load + runtime overhead, for one copy spread over the ``count``
    GPUs, per GPU over the usable memory (:func:`bot.advice.planner.one_copy_memory`, ``knowledge/efficiency.yaml``).

    Args:
        ctx: the answer being built (its request's diagnosis and precisions decide whether this applies).
        model: the model loaded.
        gpu: the GPU it was loaded on. count: how many of them (1 when not said).
        load: the :class:`~bot.advice.planner.ServingLoad` (users, context) the memory is computed for.

    Returns:
        An ``oom_half_precision`` note (GB per GPU per format, usable GB, the 16-bit format and its torch dtype), or
        ``None`` when the request is not an out-of-memory error in 32-bit or a format cannot be estimated.
    """
    q = ctx.query
    if q.diagnosis is None or q.diagnosis.kind != "oom":
        return None
    native = model.native_precision or "bf16"
    asked_32 = any(p in _FULL_32 for p in q.precisions)
    read_32 = not q.precisions and q.full_precision and native not in _FULL_32
    if not (asked_32 or read_32):
        return None
    half = "bf16" if gpu.supports("bf16") else "fp16"
    need: dict[str, tuple[float, float, bool]] = {}
    for precision in ("fp32", half, "int8", "int4"):
        est = one_copy_memory(ctx, model, gpu, precision, count, load)
        if est is None:
            return None
        need[precision] = (est.memory.per_gpu_gb, est.memory.usable_memory_gb, est.memory.per_gpu_gb <=
                           est.memory.usable_memory_gb)
    fp32_gb, usable, fp32_fits = need["fp32"]
    return note("oom_half_precision", model_name=model_label(model), config={"gpu_count": count, "gpu_name": gpu.name},
                fp32_gb=fp32_gb, usable_gb=usable, fp32_fits=fp32_fits, fp32_over=not fp32_fits,
                read_as_fp32=read_32, half=half, torch_dtype=f"torch.{'bfloat16' if half == 'bf16' else 'float16'}",
                half_gb=need[half][0], half_fits=need[half][2], half_over=not need[half][2],
                int8_gb=need["int8"][0], int8_fits=need["int8"][2], int4_gb=need["int4"][0],
                int4_fits=need["int4"][2])


def _weight_format(ctx: Context, precision: str | None):
    if not precision:
        return None
    try:
        return efficiency_for(ctx.kb).weight_format(precision)[1]
    except AdvisorError:
        return None


def variant_notes(ctx: Context) -> None:
    """For each GPU named without its variant: what else it could be, and the bandwidth that differs."""
    for mention in ctx.query.gpus:
        if not mention.variant_assumed or mention.capacity_only or mention.id not in ctx.kb.gpus:
            continue
        chosen = ctx.kb.gpus[mention.id]
        key = _product_number(chosen.name)
        others = [g for g in ctx.kb.gpus.values() if g.id != chosen.id and _product_number(g.name) == key]
        if mention.memory_gb is None and re.search(rf"(?<![\d.]){chosen.memory_gb:g}\s*g", mention.as_written.lower()):
            # the user wrote the memory ("A100 80GB"): only the variants of that memory are left to choose from
            others = [g for g in others if g.memory_gb == chosen.memory_gb]
        if others:
            ctx.assume("variant_alternatives", written=mention.as_written, gpu_name=chosen.name,
                       bandwidth_gb_s=chosen.memory_bandwidth_gb_s,
                       others=[f"{g.name} ({g.memory_bandwidth_gb_s:,.0f} GB/s)" for g in others[:3]])


def _product_number(name: str) -> str:
    """The token that identifies a GPU product: the first word with a digit ("H100", "4090", "A6000")."""
    return next((w for w in name.split() if any(c.isdigit() for c in w)), name.split()[0]).lower()


def next_actions(ctx: Context, opt: Option | None, *, precision_switch: bool = True, show_all: bool = False
                 ) -> list[Action]:
    """Buttons: show all options, show assumptions, switch precision, quote the recommended configuration."""
    actions = []
    if show_all:
        actions.append(Action(action_id="show_all", label=note("button_show_all")))
    actions.append(Action(action_id="show_assumptions", label=note("button_show_assumptions")))
    q = ctx.query
    if precision_switch and q.models:
        if q.precision in (None, "bf16", "fp16", "fp8"):
            actions.append(Action(action_id="switch_precision", label=note("button_try", precision="INT4"),
                                  value="int4?" if ctx.zh else "what about int4?"))
        else:
            actions.append(Action(action_id="switch_precision", label=note("button_try", precision="FP8"),
                                  value="fp8?" if ctx.zh else "what about fp8?"))
    if opt is not None and opt.gpu_name and opt.gpu_count and ctx.query.intent != "quote":
        actions.append(Action(action_id="quote_this", label=note("button_quote_this"),
                              value=(f"{opt.gpu_count}张 {opt.gpu_name} 一周多少钱" if ctx.zh else
                                     f"how much for {opt.gpu_count}x {opt.gpu_name} for a week?")))
    return actions


#: Weight formats that cost quality (4-bit and below): ranked after 16-bit and FP8 (near-lossless on models
#: trained in bf16: NVIDIA TensorRT-LLM and vLLM FP8 results within ~1% on MMLU) unless the user asks for them.
_LOSSY = ("int4", "awq", "gptq", "nf4", "q2", "q3", "q4", "iq", "fp4", "exl2")


def quality_tier(precision: str | None) -> int:
    """0 for formats that keep quality (16-bit, FP8, INT8), 1 for 4-bit and lower."""
    return 1 if precision and precision.startswith(_LOSSY) else 0


def cheapest_per_token(ctx: Context, model: Model, choice: GpuChoice, precisions, load: ServingLoad) -> Option | None:
    """The configuration of this GPU with the lowest $/1M tokens at full load (users at the per-user floor,
    ``load.capacity_tps``), trying ``precisions`` (``(precision, fixed)`` pairs) on the user's count, else the fewest
    that hold the model and twice that;
    among the formats that keep quality unless only 4-bit fits or the user asked for it; when the GPU has no
    price, the one with the most tokens/s per GPU at full load."""
    capacity_load = ServingLoad(**{**load.__dict__, "users": None, "total_tps": None,
                                   "per_user_tps": load.capacity_tps})
    best = best_unpriced = None
    for precision, _ in precisions:
        base = plan_serving(ctx, model, choice.gpu, precision, ServingLoad(**{**load.__dict__, "users": 1,
                                                                              "total_tps": None}), count=choice.count)
        if base.est is None or not base.est.fits:
            continue
        counts = [choice.count] if choice.count else sorted({base.count, min(base.count * 2, 8) if base.count < 8
                                                             else base.count})
        for n in counts:
            plan = plan_serving(ctx, model, choice.gpu, precision, capacity_load, count=n, objective="capacity")
            if plan.capacity <= 0:
                continue
            opt = serving_option(ctx, plan)
            opt.max_users = plan.capacity
            if opt.cost_per_million_tokens_usd and (best is None or (
                    quality_tier(opt.precision), opt.cost_per_million_tokens_usd)
                    < (quality_tier(best.precision), best.cost_per_million_tokens_usd)):
                best = opt
            per_gpu = (opt.throughput_tps or 0) / (opt.gpu_count or 1)
            if best_unpriced is None or (quality_tier(opt.precision), -per_gpu) < (
                    quality_tier(best_unpriced.precision),
                    -(best_unpriced.throughput_tps or 0) / (best_unpriced.gpu_count or 1)):
                best_unpriced = opt
    # without a price, the configuration with the most tokens/s per GPU at full load (what decides cost)
    return best or best_unpriced


def money_fleet(ctx: Context, model: Model, gpu: Gpu, load: ServingLoad, limit_usd: float,
                cost_usd=None) -> ServingPlan | None:
    """The most users at the per-user floor that a sum of money buys of ``gpu`` for serving ``model``.

    Over each weight format (:func:`bot.advice.planner.precisions_for`) and each count of whole replicas the money
    pays for (:func:`bot.advice.planner.replica_counts_within`: per layout, as many replicas as fit the limit, over
    as many machines as that takes), the plan serving the most users at ``load``'s per-user floor; a format that
    keeps quality (:func:`quality_tier`) first, then the most users, then the lower cost.

    Args:
        ctx: the answer being built.
        model, gpu: what is served, on what.
        load: the load's per-user floor, context and workload (its users and totals are not used: the users are
            what is solved for).
        limit_usd: the money: a budget per hour (USD/h) for a rental, or USD for cards bought.
        cost_usd: ``cost_usd(n, group)``, what ``n`` GPUs in groups of ``group`` cost in the limit's unit; ``None``
            for a rental (:func:`bot.advice.planner.rent_usd_per_hour`, each tensor-parallel group in one instance).

    Returns:
        The plan, or ``None`` when the money buys no replica that serves one user.
    """
    cost = cost_usd or (lambda n, group: rent_usd_per_hour(ctx, gpu, n, group))
    capacity = ServingLoad(**{**load.__dict__, "users": None, "total_tps": None, "per_user_tps": load.capacity_tps})
    best: tuple | None = None
    for precision, _ in precisions_for(ctx, model, gpu):
        for n, layout in replica_counts_within(ctx, model, gpu, precision, cost, limit_usd):
            plan = plan_serving(ctx, model, gpu, precision, capacity, count=n, objective="capacity", layout=layout)
            spent = cost(plan.count, plan.tp * plan.pp)
            if plan.capacity <= 0 or spent is None or spent > limit_usd * (1 + 1e-9):
                continue
            key = (quality_tier(plan.precision), -plan.capacity, spent)
            if best is None or key < best[0]:
                best = (key, plan)
    return best[1] if best is not None else None


def budget_buys_note(ctx: Context, o: Option, model: Model, load: ServingLoad, hourly_usd: float) -> Note:
    """The line "your budget rents N x GPU ... they serve about U users": the count a budget per hour (USD) rents,
    its price per GPU-hour and where (the instances when there are several), the total for the rental length asked,
    and the users ``o`` serves at the floor (each gets at least the floor; more when memory, not speed, caps the
    users)."""
    p = o.price
    hours = ctx.query.duration_hours
    per_gpu = p.price_per_hour_usd / max(1, o.gpu_count or 1) if p is not None else None
    return note("budget_buys", count=o.gpu_count, gpu_name=o.gpu_name, price_usd=per_gpu,
                provider=p.provider_name if p is not None else None,
                secondary=p is not None and p.origin == "secondary",
                instances=p.instances if p is not None and p.instances > 1 else None,
                instance=p.instance_type if p is not None else None, limit_usd=hourly_usd, hourly=not hours,
                budget_usd=hourly_usd * hours if hours else None, hours=hours,
                total_usd=p.price_per_hour_usd * hours if p is not None and hours else None,
                model_name=model_label(model), precision=o.precision, max_users=o.max_users,
                per_user_tps=max(load.capacity_tps, o.tps_per_user or 0.0))


#: Share of the usable memory above which an estimate that fits is a thin margin: what the estimate leaves out (a
#: longer sequence or larger batch than assumed, allocator fragmentation, another process) tips it over. vLLM keeps
#: 10% of memory outside its budget by default (gpu_memory_utilization 0.9) for the same reason.
THIN_MARGIN_SHARE = 0.9


def oom_despite_fit(ctx: Context, opt: Option | None) -> Note | None:
    """An out-of-memory error reported on a setup whose estimate fits: the memory arithmetic and what it leaves out.

    Args:
        ctx: the answer being built (its request's ``diagnosis``).
        opt: the option for the user's own setup (nothing changed); ``None`` gives ``None``.

    Returns:
        ``oom_reported_fits`` (GB per GPU, usable GB, their share; ``thin`` above :data:`THIN_MARGIN_SHARE` of usable
        memory, else ``roomy``, or ``roomy_run`` for a fine-tuning or training run), or ``None`` when no out-of-memory error is reported, the option changes the user's
        setup or does not fit (the answer already says it does not fit).
    """
    q = ctx.query
    if q.diagnosis is None or q.diagnosis.kind != "oom" or opt is None or opt.changes or not opt.fits:
        return None
    if not opt.memory_per_gpu_gb or not opt.usable_gb:
        return None
    share = opt.memory_per_gpu_gb / opt.usable_gb
    run = q.workload in ("training", "finetune") or q.method is not None
    return note("oom_reported_fits", config=config(opt), mem_gb=opt.memory_per_gpu_gb, usable_gb=opt.usable_gb,
                share_pct=share * 100, free_gb=opt.usable_gb - opt.memory_per_gpu_gb,
                thin=share > THIN_MARGIN_SHARE, roomy=share <= THIN_MARGIN_SHARE and not run,
                roomy_run=share <= THIN_MARGIN_SHARE and run)
