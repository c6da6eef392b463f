"""``quote``: what GPUs, instances or a run cost - per hour, for the stated duration, per provider and pricing
model (on-demand, spot, commitment), and buy vs rent.

* GPUs or instances named: one row per provider and pricing model that rents them as real instances (the
  named instance first); the headline gives the total for the duration asked (or per hour) and, with
  several GPUs, providers or pricing models named, compares them.
* A provider or pricing model named without a price is said first ("no spot price for ..."), never replaced
  silently; the rows that follow are labelled with what they change.
* A run (pretraining, fine-tuning) is priced through the same runs as the training and fine-tuning answers.
* Buy vs rent: the purchase price against renting the same GPUs, with power, hosting and utilisation
  assumptions stated (``knowledge/policy.yaml`` ``break_even``).
"""

from __future__ import annotations

import math

from bot.advice import training
from bot.advice.answer import Answer, Option, Table
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.non_llm import answer_non_llm
from bot.advice.options import caveats, config, idle_line, mention_cost, next_actions, variant_notes
from bot.advice.planner import (
    candidate_gpus,
    cost_for,
    excluded_providers,
    given_placement,
    place,
    price_of,
    provider_label,
    resolve_gpu,
)
from bot.advice.runs import (
    finetune_setups,
    finetune_table,
    finetune_tokens,
    training_runs,
    training_table,
    training_tokens,
)
from bot.kb.schema import Gpu
from bot.notes import Note, note
from bot.parsing.gpus import MAX_GPU_COUNT
from bot.parsing.query import GpuMention
from bot.pricing.currency import cny_per_usd
from bot.pricing.mentions import mention_for, mention_prices
from bot.pricing.offers import Offer, Placement, billed_hours
from bot.pricing.offers import place as all_placements

__all__ = ["answer", "hours_used"]

_EXAMPLES = ["8x H100 for 3 days", "price of p5.48xlarge", "A100 80GB on runpod per hour", "cheapest spot A100"]
_EXAMPLES_ZH = ["8张H100 三天多少钱", "A100 80G 按月租多少钱"]


def answer(ctx: Context) -> Answer:
    """Answer a price question (see the module docstring)."""
    q = ctx.query
    if "break_even" in q.asks or q.purchase_price is not None:
        return _break_even(ctx)
    models = resolve_models(ctx)
    if models and all(m.kind != "llm" for m in models):
        return answer_non_llm(ctx, models)
    if models and (q.workload in ("training", "finetune") or q.method):
        return _run_cost(ctx, models[0])
    if not q.gpus:
        return price_list(ctx)
    # the user's own prices lead when given: a monthly plan against the hours used, a rental at their price
    return _monthly_vs_hourly(ctx, _at_given_price(ctx, _hardware(ctx)))


def _monthly_vs_hourly(ctx: Context, out: Answer) -> Answer:
    """A monthly plan's price set against paying by the hour ("按量 6.68 元/小时，包月 3500 元，每天 10 小时，22 个工作日，
    哪个便宜"): the hours used x the hourly price x the GPUs against the plan x the GPUs, which is cheaper and by how
    much, and the hours a month from which the plan wins (plan / hourly price). The hourly price is the user's, else
    the one figure every answer uses for the GPU (its secondary source, else its cheapest on-demand list price). It
    leads; ``out`` unchanged when no plan price was given or no hourly price is known."""
    q = ctx.query
    if q.monthly_price is None:
        return out
    mention = next((m for m in q.gpus if m.id in ctx.kb.gpus), None)
    count = (mention.count if mention else None) or q.gpu_count or 1
    cur = q.monthly_price.currency
    plan = q.monthly_price.amount
    # the hourly figure said beside the plan ("$0.40/h on demand or $220 a month") is the one compared, else the
    # GPU's secondary-source figure (AutoDL's)
    given = q.given_price_per_hour or (q.quoted_prices[0] if len(q.quoted_prices) == 1 else None)
    hourly = None
    if given is not None:
        each = given.amount if q.given_price_per_gpu or count == 1 else given.amount / count
        hourly = _in_currency(ctx, each, given.currency, cur)
    elif mention is not None:
        mp = mention_for(ctx.kb, resolve_gpu(ctx, mention).id, list(q.providers))
        if mp is not None:
            hourly = _in_currency(ctx, mp.mention.low_per_gpu_hour, mp.mention.currency, cur)
    if not hourly:
        return out
    hours = hours_used(ctx)
    on_demand = hours * hourly * count
    line = note("monthly_vs_hourly", hours=hours, hourly={"amount": hourly, "currency": cur}, count=count,
                on_demand={"amount": on_demand, "currency": cur}, plan={"amount": plan * count, "currency": cur},
                hourly_cheaper=on_demand < plan * count, plan_cheaper=on_demand >= plan * count,
                saving={"amount": abs(plan * count - on_demand), "currency": cur}, break_even_hours=plan / hourly)
    return out.model_copy(update={"headline": line, "details": [out.headline, *out.details]})


def _in_currency(ctx: Context, amount: float, currency: str, to: str) -> float | None:
    """``amount`` of ``currency`` in ``to`` (USD or CNY) at the knowledge base's dated rate; ``None`` without one."""
    if currency == to:
        return amount
    usd = ctx.to_usd(amount, currency)
    if usd is None or to == "usd":
        return usd
    rate = cny_per_usd(ctx.kb) if to == "cny" else None
    return usd * rate[0] if rate else None


def _at_given_price(ctx: Context, out: Answer) -> Answer:
    """A rental priced at the user's own figure ("按这个价总共多少钱", "at $2/GPU-hour what do 16 H100s for a month
    cost"): that total leads (GPUs x hours x the price per GPU-hour, :func:`bot.advice.planner.given_placement`), the
    market's prices follow. ``out`` unchanged for other answers."""
    q = ctx.query
    if q.given_price_per_hour is None or not q.duration_hours:
        return out
    mention = next((m for m in q.gpus if m.id in ctx.kb.gpus), None)
    if mention is None:
        return out
    gpu = resolve_gpu(ctx, mention)
    count = mention.count or q.gpu_count or 1
    placement = given_placement(ctx, gpu, count)
    if placement is None:
        return out
    hours = hours_used(ctx)  # (the hours used when only part of each day is)
    line = note("quote_at_given_price", count=count, gpu_name=gpu.name, hours=hours,
                per_gpu_usd=placement.price_per_hour_usd / count, price_usd=placement.price_per_hour_usd,
                total_usd=placement.price_per_hour_usd * hours)
    return out.model_copy(update={"headline": line, "details": [out.headline, *out.details]})


def price_list(ctx: Context) -> Answer:
    """No GPU named ("what's the cheapest gpu", "gpu prices per hour"): every GPU the prices cover, at its
    cheapest dated price per GPU-hour for the pricing model asked (on-demand by default), cheapest first.

    Undated and stale prices are left out (they cannot be checked), as are the clouds the question's market
    excludes. The answer says the cheapest GPU is not the cheapest for a model, and asks for one.
    """
    q = ctx.query
    pricing = next(iter(q.pricing), "on_demand")
    exclude = excluded_providers(ctx)
    hours = hours_used(ctx)
    rows: list[Option] = []
    for gpu in ctx.kb.gpus.values():
        found = [p for p in all_placements(ctx.offers, gpu.id, 1, today=ctx.today, pricing_model=pricing, limit=20)
                 if not p.stale and p.offer.as_of is not None and p.offer.condition is None
                 and p.offer.provider not in exclude and (not q.providers or p.offer.provider in q.providers)]
        if not found:
            continue
        best = min(found, key=lambda p: (p.price_per_gpu_hour_usd, p.price_per_hour_usd))
        count = best.gpus_rented
        rows.append(Option(gpu=gpu.id, gpu_name=gpu.name, gpu_count=count, price=price_of(ctx, best),
                           duration_hours=hours, total_cost_usd=_cost(ctx, best, hours)))
    rows.sort(key=lambda o: o.price.price_per_gpu_hour_usd)
    if not rows:
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_gpu"),
                          examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
    shown = rows[:ctx.policy.serving.shown_options * 2]
    items = [{"gpu_name": o.gpu_name, "memory_gb": ctx.kb.gpus[o.gpu].memory_gb, "per_gpu_usd":
              o.price.price_per_gpu_hour_usd, "provider": o.price.provider_name} for o in shown[:3]]
    ctx.lack("cheapest_for_model")
    table = Table(columns=["config", "memory_gb", "provider", "instance", "pricing", "usd_per_hour",
                           "usd_per_gpu_hour", "as_of"],
                  rows=[[config(o, with_precision=False), ctx.kb.gpus[o.gpu].memory_gb, o.price.provider_name,
                         _instance_label(o), _pricing_label(o), o.price.price_per_hour_usd,
                         o.price.price_per_gpu_hour_usd, o.price.as_of] for o in shown])
    return ctx.answer(title=note("title_price_list"), headline=note("price_list", items=items,
                                                                    pricing_model=_pricing_label(shown[0])),
                      options=shown, recommendation=0, table=table, examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)


# --------------------------------------------------------------------------- GPUs and instances

def _cost(ctx: Context, p: Placement, hours: float) -> float:
    """USD for ``hours`` on ``p``: a length of use pays whole commitment terms (:meth:`Placement.cost_usd`); a period a
    rate is asked per ("monthly cost") pays that period."""
    return p.price_per_hour_usd * hours if ctx.query.duration_is_period else p.cost_usd(hours)


def hours_used(ctx: Context) -> float:
    q = ctx.query
    if q.days_used and q.utilization_pct and 0 < q.utilization_pct < 100 and "commitment" not in q.pricing:
        # "22 working days, 10 hours a day": the days used times the hours a day
        hours = q.days_used * 24 * q.utilization_pct / 100
        ctx.assume("billed_hours_used", duration_hours=q.duration_hours or hours, util_pct=q.utilization_pct,
                   hours=hours)
        return hours
    if q.duration_hours and q.utilization_pct and 0 < q.utilization_pct < 100 and "commitment" not in q.pricing:
        # "a month, 10 hours a day": billed by the hour, the GPUs are paid only while they run
        hours = q.duration_hours * q.utilization_pct / 100
        ctx.assume("billed_hours_used", duration_hours=q.duration_hours, util_pct=q.utilization_pct, hours=hours)
        return hours
    if q.duration_hours:
        return q.duration_hours
    if q.commitment_term in ("1y", "3y") and "commitment" in q.pricing:
        # a reservation is bought for its term: price the whole term ("32 H100s reserved 1yr")
        hours = {"1y": 1, "3y": 3}[q.commitment_term] * 8760.0
        ctx.assume("priced_for_term", hours=hours)
        return hours
    ctx.assume("priced_per_hour")
    return ctx.policy.quote.default_hours.value


def _hardware(ctx: Context) -> Answer:
    q = ctx.query
    variant_notes(ctx)
    hours = hours_used(ctx)
    pricings = list(q.pricing) or ["on_demand"]
    if q.pricing and "on_demand" not in pricings:
        pricings.append("on_demand")  # what the asked terms save is measured against on-demand
    options: list[Option] = []
    headline_groups = []
    missing_leads: list[tuple] = []
    over_limit = None
    for mention in [m for m in q.gpus if m.id in ctx.kb.gpus][:4]:
        gpu = resolve_gpu(ctx, mention)
        count = mention.count or q.gpu_count or 1
        if mention.count_over_limit and not (mention.count or q.gpu_count):
            over_limit = over_limit or (gpu, mention.count_over_limit)  # priced per GPU, multiplied in the headline
        elif not (mention.count or q.gpu_count):
            ctx.assume("count_assumed_one", gpu_name=gpu.name)
        rows = _rows(ctx, gpu, count, mention, pricings, hours)
        if q.providers and any(not r.changes for r in rows):
            lacking = _lacking_at_provider(q, rows)
            if lacking is not None:
                # a pricing model asked that the providers named do not publish for this GPU: said first, with
                # that pricing model's offers elsewhere (cheapest first); the providers' own prices follow
                elsewhere = sorted((r for r in rows if r.changes and r.price and r.price.pricing_model == lacking),
                                   key=lambda r: (r.price.price_per_hour_usd, r.price.marketplace))
                missing_leads.append((gpu, count, lacking, elsewhere))
                options += elsewhere
            rows = [r for r in rows if not r.changes]  # the providers named, and only them, when they have it
        if "cheapest" in q.asks:
            # "cheapest": the lowest total first, marketplace and undated rows included (their caveats are said);
            # with no count given, the lowest price per GPU-hour (an 8-GPU node can be the cheapest way to a GPU)
            stated = bool(mention.count or q.gpu_count)
            rows.sort(key=lambda o: (bool(o.changes), (o.total_cost_usd if stated else o.price.price_per_gpu_hour_usd)
                                     if o.price is not None else 1e18))
        options += rows
        headline_groups.append((gpu, count, rows, mention))
    shown = _shown(ctx, options)
    idle = [{"provider": o.price.provider_name, "instance": _instance_label(o), "idle": o.price.idle_gpus,
             "gpus_rented": o.price.gpus_rented} for o in shown if o.price and o.price.idle_gpus > 0]
    if idle:
        ctx.warn("idle_rows", items=idle)  # every row that pays for idle GPUs, in one line
    if any(o.price and o.price.separate_instances and not o.price.group_split for o in shown):
        ctx.assume("quote_separate_instances")
    for o in shown[:4]:
        caveats(ctx, o, idle=False)
    headline = _headline(ctx, headline_groups, hours)
    details = _cheapest_list_price(ctx, headline_groups)
    figures, unpriced_notes = [], []
    for gpu, count, rows, _mention in headline_groups:
        if not any(r.price for r in rows if not r.changes):
            figure, notes = _unpriced_figures(ctx, gpu, count, hours)
            figures += [figure] if figure is not None else []
            unpriced_notes += notes
    if figures and len(figures) == len(headline_groups):
        # every GPU asked lacks a list price here but has the secondary-source figure every kind of answer uses:
        # those figures are the answer, labelled as such; what else is known follows
        said = {f.params["where"]["en"] for f in figures if f.params.get("named")}
        ctx.missing[:] = [n for n in ctx.missing if n.code != "no_price_for_gpu" and not (
            n.code == "provider_unpriced" and n.params.get("provider") in said)]
        headline, details = figures[0], [*figures[1:], *details]
        figures = []
        unpriced = [n for n in ctx.missing if n.code == "provider_unpriced"]
        if unpriced and not said:
            # the cloud the user named ("火山引擎 H20 按天多少钱") publishes no price: said first, before a figure
            # from another source, so that figure is never read as that cloud's
            ctx.missing[:] = [n for n in ctx.missing if n not in unpriced]
            headline, details = unpriced[0], [*unpriced[1:], headline, *details]
    details += figures + unpriced_notes
    details = _named_unpriced(ctx, headline_groups, hours) + _unpublished_terms(ctx, headline_groups) + details
    difference = _pricing_difference(ctx, headline_groups, hours)
    if difference is not None:  # "reserved vs on-demand, monthly difference?": the difference leads
        details.insert(0, headline)
        headline = difference
    term = _whole_term(ctx, headline_groups, hours)
    if term is not None:  # a commitment bought for less than its term is billed for the whole term: said first
        details.insert(0, headline)
        headline = term
    dearer = _commitment_dearer(ctx, headline_groups, hours) if headline.code != "pricing_difference_more" else None
    if dearer is not None:  # a commitment that costs more than on-demand elsewhere is said right under the prices
        details.insert(0, dearer)
    whole = _whole_nodes_only(ctx, headline_groups, hours) if headline.code == "quote_one" else None
    if whole is not None:
        # the provider named rents only larger nodes: said first, with the cheapest way to rent just the count
        line, exact = whole
        headline = line  # (it says the provider's total; the table has the rest)
        if exact is not None:
            options.append(exact)
            shown = _shown(ctx, options)
    else:
        details += _without_idle(headline_groups)
    details += _marketplace_lower(headline_groups)
    if headline.code != "quote_terms":  # the terms' totals are in the headline already
        # the other periods asked ("daily price, and for 2 weeks?") answer the question: right under the headline
        details = _period_totals(ctx, headline_groups, hours) + details
    if over_limit is not None:
        details.insert(0, headline)
        headline = _over_limit_headline(ctx, headline_groups, over_limit, hours)
    if missing_leads and headline.code == "quote_one":
        details.insert(0, headline)  # the provider's own (on-demand) price: context, under the lead
        headline = _lacking_lead(ctx, missing_leads[0], hours)
    limit = ctx.hourly_limit_usd()
    if limit is not None and headline_groups and "gpu_count" in q.asks:
        # "每月预算3万，能租几张4090": how many the money rents at the cheapest price per GPU-hour
        # count = floor(budget per hour / price per GPU-hour) (budget per hour = the budget over the period), in
        # instances that exist: k GPUs a machine -> k x floor(budget per hour / machine price); the most GPUs win
        gpu = headline_groups[0][0]
        rentable = [(p.gpus_rented * int(limit[0] / p.price_per_hour_usd + 1e-9), p)
                    for k in (1, 2, 4, 8) if (p := place(ctx, gpu, k, 1, fallback=False)) is not None and p.price_per_hour_usd]
        best = max(rentable, key=lambda t: (t[0], -t[1].price_per_gpu_hour_usd), default=None)
        n, per_gpu, where, secondary = (best[0], best[1].price_per_gpu_hour_usd, best[1].offer.provider_name, False) \
            if best else (0, None, None, False)
        mp = mention_for(ctx.kb, gpu.id, q.providers) if best is None else None
        if mp is not None and mp.low_usd:
            # no list price at the provider named (AutoDL publishes none): the secondary-source figure every
            # answer uses (per GPU), labelled as such in the line under the count
            per_gpu, where, secondary = mp.low_usd, mp.mention.where, True
            n = int(limit[0] / per_gpu + 1e-9)
        if per_gpu:
            details.insert(0, headline)
            headline = note("budget_rents_gpus", count=n, gpu_name=gpu.name, hours=hours,
                            per_gpu_usd=per_gpu, provider=where, secondary=secondary,
                            total_usd=n * per_gpu * hours, limit_usd=limit[0])
    elif limit is not None and headline_groups:
        headline, details = _against_limit(ctx, headline_groups, hours, limit, headline, details)
    elif q.budget is not None and not q.duration_hours and headline_groups:
        # "budget $10k, how many H100 hours": what the budget rents at the cheapest price per GPU-hour
        budget = ctx.usd(q.budget)
        asked = [r for _g, _c, rows, _m in headline_groups for r in rows if not r.changes and r.price]
        if budget and asked:
            # one machine of the count asked at a list price first (a node is what "8x H100" rents); GPUs spread
            # over separate hosts or marketplace asks only when nothing else prices them
            whole = [r for r in asked if (r.price.instances or 1) == 1 and not r.price.marketplace] or asked
            o = min(whole, key=lambda r: r.price.price_per_gpu_hour_usd)
            details.insert(0, headline)
            headline = note("budget_gpu_hours", budget_usd=budget, gpu_hours=budget / o.price.price_per_gpu_hour_usd,
                            gpu_name=o.gpu_name, per_gpu_usd=o.price.price_per_gpu_hour_usd,
                            provider=o.price.provider_name, instance=_instance_label(o),
                            config=config(o, with_precision=False), hours=budget / o.price.price_per_hour_usd)
    unknown = [t.as_written for t in q.unknown_terms if t.kind == "provider"]
    if unknown and not q.providers and headline.code == "quote_one":
        # the cloud named is none this knowledge base knows ("恒源云上 4090 多少钱"): said first, so the price of
        # another cloud is never read as its price
        p = headline.params
        details.insert(0, note("unknown_provider", written=unknown[0]))
        ctx.warnings[:] = [w for w in ctx.warnings if not (w.code == "unknown_provider" and w.params["written"]
                                                           == unknown[0])]
        headline = note("quote_elsewhere", providers=unknown, config=p["config"], hours=p["hours"],
                        total_usd=p["total_usd"], provider=p["provider"], instance=p["instance"],
                        price_usd=p["price_usd"])
    table = Table(columns=["config", "provider", "instance", "pricing", "usd_per_hour", "usd_per_gpu_hour",
                           "total_usd", "as_of"],
                  rows=[[config(o, with_precision=False), o.price.provider_name, _instance_label(o), _pricing_label(o),
                         o.price.price_per_hour_usd, o.price.price_per_gpu_hour_usd, o.total_cost_usd, o.price.as_of]
                        for o in shown if o.price])
    titled = [{"gpu_count": over_limit[1] if over_limit and g.id == over_limit[0].id else c, "gpu_name": g.name}
              for g, c, _, _ in headline_groups]
    return ctx.answer(title=note("title_quote", items=titled, hours=hours),
                      headline=headline, details=details, options=shown, recommendation=0 if shown else None,
                      table=table, actions=next_actions(ctx, None, precision_switch=False,
                                                        show_all=len(shown) > ctx.policy.serving.shown_options))


def _named_unpriced(ctx: Context, groups, hours: float) -> list[Note]:
    """Several clouds named, some with a price and some without ("阿里云 / 腾讯云 / AutoDL, which is cheapest"):
    the priced ones lead (the headline ranks them); each named cloud that publishes no list price follows, with
    what to do (a quote from its console or sales) and the closest priced offer named in this answer.

    Args:
        ctx: the answer being built; its ``provider_unpriced`` notes are taken out of the missing list.
        groups: ``(gpu, count, rows, mention)`` per GPU asked (rows without ``changes`` are the named clouds').
        hours: the rental length, hours (1: per hour only).

    Returns:
        first the ``mention_cost`` figure of each named cloud that has a secondary-source figure but no list price
        (labelled as such), then one ``provider_no_list_price`` note naming every unpriced cloud asked, in the order named; empty when fewer
        than two clouds were named or none of them is priced (the existing lead then says the missing price first).
        The closest offer is the cheapest total among the named clouds' list prices, else the named cloud's
        secondary-source figure (``price_mentions.yaml``) for the count: per GPU-hour (USD at the dated rate)
        x count, and x hours for the total.
    """
    q = ctx.query
    unpriced = [n for n in ctx.missing if n.code == "provider_unpriced"]
    if len(q.providers) < 2 or not unpriced or not groups:
        return []
    priced = sorted((r for _g, _c, rows, _m in groups for r in rows if not r.changes and r.price),
                    key=lambda r: (r.total_cost_usd, r.price.marketplace))
    figures = []
    if priced:
        # a named cloud without list prices but with a secondary-source figure for this GPU (AutoDL): its figure
        # is said next to the list prices, labelled as such, and it is not among the clouds with no price at all
        for n in list(unpriced):
            ident = next((p for p in q.providers if _provider_name(ctx, p) == n.params["provider"]), None)
            gpu, count = groups[0][0], groups[0][1]
            mp = mention_for(ctx.kb, gpu.id, [ident]) if ident else None
            if mp is not None and mp.mention.provider == ident:
                figure = mention_cost(ctx, {"gpu_count": count, "gpu_name": gpu.name}, gpu.id, count,
                                      hours if hours > 1 else None, with_caveat=True)
                if figure is not None and figure.params.get("named") and figure not in figures:
                    figures.append(figure)
                    unpriced.remove(n)
                    ctx.missing.remove(n)
    if not unpriced:
        return figures
    nearest = None
    if priced:
        o = priced[0]
        nearest = ({"en": o.price.provider_name, "zh": o.price.provider_name}, o.price.price_per_hour_usd,
                   o.total_cost_usd, False)
    else:
        gpu, count = groups[0][0], groups[0][1]
        mp = mention_for(ctx.kb, gpu.id, q.providers)
        if mp is not None and mp.low_usd and mp.mention.provider in q.providers:
            m = mp.mention
            nearest = ({"en": m.where, "zh": m.where_zh or m.where}, mp.low_usd * count, mp.low_usd * count * hours,
                       True)
    if nearest is None:
        return []
    ctx.missing[:] = [n for n in ctx.missing if n not in unpriced]
    where, hour_usd, total_usd, secondary = nearest
    return [*figures, note("provider_no_list_price", providers=[n.params["provider"] for n in unpriced],
                 nearest_provider=where, nearest_hour_usd=hour_usd,
                 nearest_total_usd=total_usd if hours > 1 else None, hours=hours if hours > 1 else None,
                 secondary=secondary)]


#: Billing terms named that price files can hold, as commitment months (a monthly plan: 1 month).
_TERM_MONTHS = {"monthly": 1}
#: Hours in a month (365 x 24 / 12), as every monthly figure here is priced.
_HOURS_PER_MONTH = 730


def _unpublished_terms(ctx: Context, groups) -> list[Note]:
    """A billing term named that no price row has ("包月", "billed monthly") for the GPUs asked at the clouds named
    (any tracked cloud when none is named): said, with the terms that are published there.

    Args:
        ctx: the answer being built (``query.billing_terms``, ``query.providers``).
        groups: ``(gpu, count, rows, mention)`` per GPU asked.

    Returns:
        One ``term_unpublished`` note per GPU and term with no row of that term: ``items`` are the cheapest
        published price per pricing model (on-demand, spot, each commitment term) for ``count`` GPUs at the clouds
        named, $/h as listed; empty when the term is published, no term was named, or the GPU has no price there
        at all (the lines for an unpriced GPU say so).
    """
    q = ctx.query
    named = [p for p in q.providers if p in ctx.kb.providers]
    if q.providers and not named:
        # only clouds without price rows named (AutoDL): their one secondary figure is per hour; a term asked of
        # them is said unpublished, with what a month at that hourly figure would be (an upper bound: plans discount)
        out = []
        for term in q.billing_terms:
            months = _TERM_MONTHS.get(term)
            for gpu, count, _rows, _mention in groups:
                mp = mention_for(ctx.kb, gpu.id, list(q.providers))
                if months is None or mp is None or mp.mention.provider not in q.providers:
                    continue
                hours = months * _HOURS_PER_MONTH
                m = mp.mention
                out.append(note("term_unpublished_mention", term=term, gpu_name=gpu.name, count=count,
                                where={"en": m.where, "zh": m.where_zh or m.where}, hours=hours,
                                per_gpu={"amount": m.low_per_gpu_hour, "currency": m.currency},
                                total={"amount": m.low_per_gpu_hour * count * hours, "currency": m.currency}))
        return out
    out = []
    for term in q.billing_terms:
        months = _TERM_MONTHS.get(term)
        for gpu, count, _rows, _mention in groups:
            offers = [o for o in ctx.kb.offers_for(gpu.id) if not named or o.provider in named]
            if not offers or any(o.term_months == months for o in offers):
                continue  # no price at all (said by the no-price lines), or the term is published
            items = []
            for model in ("on_demand", "spot", "commitment"):
                found = [p for p in all_placements(ctx.offers, gpu.id, count, today=ctx.today, pricing_model=model,
                                                   limit=50)
                         if (not named or p.offer.provider in named) and p.offer.condition is None]
                by_term: dict = {}
                # per term, the price a quote would use: a list price before a marketplace ask, no idle GPUs paid
                # for before some, a dated price before an undated one, then the cheapest
                for p in sorted(found, key=lambda p: (p.offer.marketplace, p.idle_gpus > 0, p.offer.as_of is None,
                                                      p.price_per_hour_usd)):
                    by_term.setdefault(p.offer.term_months if model == "commitment" else None, p)
                for _months, p in sorted(by_term.items(), key=lambda kv: kv[0] or 0):
                    label = f"commitment:{_term(p.offer.commitment_term) or p.offer.commitment_term}" \
                        if model == "commitment" else model
                    items.append({"pricing_model": label, "price_usd": p.price_per_hour_usd,
                                  "provider": p.offer.provider_name,
                                  "rented": p.gpus_rented if p.idle_gpus > 0 else None})
            out.append(note("term_unpublished", term=term, gpu_name=gpu.name, count=count,
                            providers=[_provider_name(ctx, p) for p in named] or None, items=items or None))
    return out


def _unpriced_figures(ctx: Context, gpu: Gpu, count: int, hours: float) -> tuple:
    """For a GPU with no list price in this answer (no tracked cloud prices it, A800/H800/H20; or the cloud named,
    AutoDL, has no price rows): what a team can decide with.

    Returns:
        ``(figure, notes)``: ``figure`` is the secondary-source figure every answer uses for this GPU
        (:func:`bot.advice.options.mention_cost`, at the cloud named when it has one: CNY as published, USD derived
        with the dated rate, the total for the count and hours, with its caveat), or ``None``; ``notes`` are, in
        order, what to do when no tracked cloud lists the GPU at all (ask the cloud's sales, or give a price), the
        nearest priced card's cheapest on-demand list price for the count labelled as that card, and unverified
        ranges last.
    """
    out = [] if ctx.kb.offers_for(gpu.id) else [note("price_not_published_next", gpu_name=gpu.name)]
    figure = mention_cost(ctx, {"gpu_count": count, "gpu_name": gpu.name}, gpu.id, count,
                          hours if hours > 1 else None, with_caveat=True)
    unverified = []
    for mp in mention_prices(ctx.kb, gpu.id):
        m = mp.mention
        if m.reliability != "unverified":
            continue
        ranged = m.high_per_gpu_hour > m.low_per_gpu_hour
        unverified.append(note("price_mention", gpu_name=gpu.name, where={"en": m.where, "zh": m.where_zh or m.where},
                               low_cny=m.low_per_gpu_hour if m.currency == "cny" else None,
                               high_cny=m.high_per_gpu_hour if ranged and m.currency == "cny" else None,
                               low_usd=mp.low_usd, high_usd=mp.high_usd if ranged else None,
                               count=count, hours=hours if hours > 1 else None,
                               total_low_usd=mp.low_usd * count * hours if mp.low_usd and hours > 1 else None,
                               total_high_usd=mp.high_usd * count * hours if mp.high_usd and ranged and hours > 1
                               else None, reliability=note(f"mention_{m.reliability}"),
                               caveat={"en": m.caveat, "zh": m.caveat_zh},
                               as_of=m.as_of.isoformat() if m.as_of else None))
        if mp.rate is not None:
            ctx.assume("cny_rate_used", rate=mp.rate[0], rate_date=mp.rate[1])
        ctx.cite(m.source)
    stand_in = ctx.kb.price_stand_ins.get(gpu.id)
    near = ctx.kb.gpus.get(stand_in.nearest) if stand_in else None
    if near is not None:
        found = [p for p in all_placements(ctx.offers, near.id, count, today=ctx.today, pricing_model="on_demand",
                                           limit=20)
                 if p.offer.condition is None and not p.offer.marketplace]
        # the one offer rule: just the GPUs asked first (an 8-GPU node is no reference for one card), then the price
        best = ctx.offers.rule.best(found)
        if best is not None:
            out.append(note("price_stand_in", gpu_name=gpu.name, near_name=near.name,
                            why={"en": stand_in.why, "zh": stand_in.why_zh}, count=count,
                            provider=best.offer.provider_name, instance=best.offer.instance_type,
                            price_usd=best.price_per_hour_usd, per_gpu_usd=best.price_per_gpu_hour_usd,
                            hours=hours if hours > 1 else None,
                            total_usd=_cost(ctx, best, hours) if hours > 1 else None,
                            as_of=best.offer.as_of.isoformat() if best.offer.as_of else None,
                            undated=best.offer.as_of is None))
            ctx.cite(stand_in.source, best.offer.source)
    return figure, out + unverified  # an unverified range last


def _against_limit(ctx: Context, groups, hours: float, limit: tuple[float, bool, str], headline, details):
    """The headline when the user gave a budget or an hourly limit: the cheapest row that keeps it, or, when
    none does, that it cannot be met, with the cheapest price and what the budget buys there."""
    usd, per_gpu, kind = limit
    _gpu, count, rows, _mention = groups[0]
    asked = sorted((r for r in rows if not r.changes and r.price), key=lambda r: r.total_cost_usd or 0)
    if not asked:
        return headline, details

    def hourly(r: Option) -> float:
        return r.price.price_per_gpu_hour_usd if per_gpu else r.price.price_per_hour_usd

    within = [r for r in asked if hourly(r) <= usd + 1e-9]
    budget_usd = usd * hours if kind == "budget" else None
    if within:
        o = within[0]
        return note("quote_within_limit", config=config(o, with_precision=False), hours=hours,
                    total_usd=o.total_cost_usd, provider=o.price.provider_name, instance=_instance_label(o),
                    price_usd=o.price.price_per_hour_usd, budget_usd=budget_usd,
                    limit_usd=usd if kind == "limit" else None, per_gpu=per_gpu,
                    n_within=len(within), n_rows=len(asked)), details
    o = asked[0]
    return note("quote_over_limit", config=config(o, with_precision=False), hours=hours,
                total_usd=o.total_cost_usd, provider=o.price.provider_name, instance=_instance_label(o),
                price_usd=o.price.price_per_hour_usd, budget_usd=budget_usd,
                limit_usd=usd if kind == "limit" else None,
                affordable_hours=(budget_usd / o.price.price_per_hour_usd) if budget_usd else None), details


def _over_limit_headline(ctx: Context, groups, over_limit: tuple[Gpu, int], hours: float):
    """A GPU count above the parser's bound ("一百万张 H100"): said first, with the list-price arithmetic for that
    count (count x the lowest price per GPU-hour of the rows x hours) and the price of one GPU for the time."""
    gpu, count = over_limit
    rows = next((rows for g, _c, rows, _m in groups if g.id == gpu.id), [])
    asked = [r for r in rows if not r.changes and r.price]
    if not asked:
        return note("quantity_over_limit", written=f"{count} x {gpu.name}", quantity="gpu_count", max_n=MAX_GPU_COUNT)
    o = asked[0]
    per_gpu = o.price.price_per_hour_usd / o.gpu_count
    return note("quote_count_over_limit", count=count, gpu_name=gpu.name, max_n=MAX_GPU_COUNT, per_gpu_usd=per_gpu,
                provider=o.price.provider_name, instance=_instance_label(o), pricing_model=_pricing_label(o),
                hours=hours, total_usd=count * per_gpu * hours, one_total_usd=per_gpu * hours)


def _period_totals(ctx: Context, groups, hours: float) -> list:
    """Every other period the question named ("per day? per month?"): the leading row's total for it (the
    hourly price is in the headline already)."""
    out = []
    for _gpu, _count, rows, _mention in groups[:1]:
        asked = [r for r in rows if not r.changes and r.price]
        if not asked:
            continue
        o = asked[0]
        for period in ctx.query.periods_hours:
            if period not in (1.0, hours):
                out.append(note("quote_period_total", config=config(o, with_precision=False), hours=period,
                                total_usd=cost_for(o.price, period), provider=o.price.provider_name,
                                price_usd=o.price.price_per_hour_usd))
    return out


def _marketplace_lower(groups) -> list:
    """When a marketplace ask (one host's price, listed after the list prices) is below the leading row's total:
    that ask, so the cheapest way is said even though it is not a list price."""
    out = []
    for _gpu, _count, rows, _mention in groups:
        asked = [r for r in rows if not r.changes and r.price]
        if not asked or asked[0].price.marketplace:
            continue
        low = min((r for r in asked if r.price.marketplace and r.price.pricing_model == asked[0].price.pricing_model),
                  key=lambda r: r.total_cost_usd, default=None)
        if low is not None and low.total_cost_usd < asked[0].total_cost_usd:
            out.append(note("quote_marketplace_lower", config=config(low, with_precision=False),
                            provider=low.price.provider_name, instance=_instance_label(low),
                            price_usd=low.price.price_per_hour_usd, total_usd=low.total_cost_usd))
    return out


def _without_idle(groups) -> list:
    """When the leading row rents more GPUs than asked (an 8-GPU node for one GPU): the cheapest row that rents
    just the GPUs asked."""
    out = []
    for _gpu, _count, rows, _mention in groups:
        asked = [r for r in rows if not r.changes and r.price]
        if not asked or asked[0].price.idle_gpus == 0:
            continue
        exact = min((r for r in asked if r.price.idle_gpus == 0 and r.price.pricing_model == asked[0].price.pricing_model),
                    key=lambda r: r.price.price_per_hour_usd, default=None)
        if exact is not None:
            out.append(note("quote_exact_size", config=config(exact, with_precision=False),
                            provider=exact.price.provider_name, instance=_instance_label(exact),
                            price_usd=exact.price.price_per_hour_usd, pricing_model=_pricing_label(exact)))
    return out


def _whole_term(ctx: Context, groups, hours: float):
    """When the rows lead with a commitment whose term is longer than the hours asked ("3 months on a 1-year
    reservation"): a ``commitment_whole_term`` note with the term's total (price x term hours, the whole term is
    billed: :func:`bot.pricing.offers.billed_hours`) beside what the hours asked alone would cost at that rate.
    ``None`` when no leading row is such a commitment, or the hours are a period a rate is asked per ("monthly").
    """
    if ctx.query.duration_is_period:
        return None
    for _gpu, _count, rows, _mention in groups:
        lead = next((r for r in rows if r.price and not r.changes), None)
        p = lead.price if lead is not None else None
        if p is None or p.pricing_model != "commitment" or not p.term_hours or hours % p.term_hours == 0:
            continue
        return note("commitment_whole_term", config=config(lead, with_precision=False), pricing_model=_pricing_label(lead),
                    provider=p.provider_name, instance=_instance_label(lead), price_usd=p.price_per_hour_usd,
                    term_hours=billed_hours(hours, p.term_hours), hours=hours, total_usd=cost_for(p, hours),
                    used_usd=p.price_per_hour_usd * hours)
    return None


def _commitment_dearer(ctx: Context, groups, hours: float):
    """When a commitment (or spot) was asked for one GPU type and its cheapest row costs more per hour
    than renting the same count on-demand (a list price, not a marketplace ask, with no idle GPUs; a current dated price first, at any
    provider the question allows): a ``commitment_dearer`` note with both prices and the extra cost over the
    hours priced, and, when the commitment's own provider lists the same instance on-demand for more, that price
    (what the commitment does save against). ``None`` otherwise: a commitment is not called a saving it is not.
    """
    q = ctx.query
    asked = [m for m in q.pricing if m in ("commitment", "spot")]
    if len(groups) != 1 or len(asked) != 1:
        return None
    _gpu, _count, rows, _mention = groups[0]
    priced = [r for r in rows if r.price and (not r.changes or not q.providers)]
    # (a commitment published only for a larger instance is said by the terms headline, for the count asked; a spot
    # price is the whole instance's, idle GPUs and all, as the quote's headline gives it)
    commits = [r for r in priced if r.price.pricing_model == asked[0]
               and (r.price.idle_gpus == 0 or asked[0] == "spot")]
    on_demand = [r for r in priced if r.price.pricing_model == "on_demand" and not r.price.marketplace
                 and r.price.idle_gpus == 0]
    if not commits or not on_demand:
        return None
    c = min(commits, key=lambda r: r.price.price_per_hour_usd)
    od = min(on_demand, key=lambda r: (round(r.price.price_per_hour_usd, 2), r.price.stale, r.price.as_of is None))
    if c.price.price_per_hour_usd <= od.price.price_per_hour_usd + 1e-9:
        return None
    own = next((r for r in rows if r.price and r.price.pricing_model == "on_demand"
                and r.price.provider == c.price.provider and r.price.instance_type == c.price.instance_type
                and r.price.price_per_hour_usd > c.price.price_per_hour_usd), None)
    return note("commitment_dearer", pricing_model=_pricing_label(c), provider=c.price.provider_name,
                instance=_instance_label(c), price_usd=c.price.price_per_hour_usd,
                od_provider=od.price.provider_name, od_instance=_instance_label(od),
                od_price_usd=od.price.price_per_hour_usd, od_undated=od.price.as_of is None,
                hours=hours if hours > 1 else None,
                extra_usd=((c.price.price_per_hour_usd - od.price.price_per_hour_usd) * hours if q.duration_is_period else
                           cost_for(c.price, hours) - cost_for(od.price, hours)) if hours > 1 else None,
                own_od_price_usd=own.price.price_per_hour_usd if own else None)


def _whole_nodes_only(ctx: Context, groups, hours: float):
    """When the providers named rent the GPU only in instances larger than the count asked (CoreWeave's 8-GPU HGX
    nodes for "2x H100 on CoreWeave"): the headline saying so, with the total there (every GPU of the node paid for),
    and the cheapest way anywhere to rent exactly the count in the same pricing model (list prices before
    marketplace asks, a current dated price before an undated one at the same price), as an option labelled with
    the provider it changes. ``None`` when a named provider has an instance of the count (or smaller ones adding up
    to it), or when several GPU types are quoted.

    Returns:
        ``(note, option or None)``: ``quote_whole_nodes_only`` and the exact-count option.
    """
    q = ctx.query
    if len(groups) != 1 or not q.providers:
        return None
    gpu, count, rows, mention = groups[0]
    asked = [r for r in rows if not r.changes and r.price]
    if not asked or asked[0].price.idle_gpus <= 0 or mention.instance_type:
        return None
    o = asked[0]
    pricing = o.price.pricing_model
    group = _group(ctx, count)
    exclude = excluded_providers(ctx)
    at_named = [p for p in all_placements(ctx.offers, gpu.id, count, today=ctx.today, group=group,
                                          pricing_model=pricing)
                if p.offer.provider in q.providers and p.idle_gpus == 0]
    if at_named:
        return None
    exact = [p for p in all_placements(ctx.offers, gpu.id, count, today=ctx.today, group=group, pricing_model=pricing)
             if p.idle_gpus == 0 and p.offer.provider not in exclude and p.offer.provider not in q.providers
             and (p.offer.condition is None or pricing != "on_demand")]
    best = ctx.offers.rule.best(exact)
    alt = None
    if best is not None:
        alt = Option(gpu=gpu.id, gpu_name=gpu.name, gpu_count=count, price=price_of(ctx, best), duration_hours=hours,
                     total_cost_usd=_cost(ctx, best, hours), changes=["provider"])
    line = note("quote_whole_nodes_only", provider=o.price.provider_name, gpu_name=gpu.name, count=count,
                gpus_rented=o.price.gpus_rented, instance=_instance_label(o), price_usd=o.price.price_per_hour_usd,
                hours=hours, total_usd=o.total_cost_usd, idle=o.price.idle_gpus,
                alt_config=config(alt, with_precision=False) if alt else None,
                alt_provider=alt.price.provider_name if alt else None, alt_instance=_instance_label(alt) if alt else None,
                alt_price_usd=alt.price.price_per_hour_usd if alt else None,
                alt_total_usd=alt.total_cost_usd if alt else None,
                alt_marketplace=bool(alt and alt.price.marketplace), alt_undated=bool(alt and alt.price.as_of is None))
    return line, alt


def _cheapest_list_price(ctx: Context, groups) -> list:
    """When the cheapest row is an undated or stale price: the cheapest current dated price too."""
    out = []
    for _gpu, _count, rows, _mention in groups:
        asked = [r for r in rows if not r.changes and r.price]
        if not asked or not (asked[0].price.stale or asked[0].price.as_of is None):
            continue
        # the same pricing model as the row it stands beside: an on-demand total is no cheaper "list price" of a
        # commitment
        # and, when the leading row rents just the GPUs asked, a row that does too: an 8-GPU node's price is no
        # reference for one GPU
        listed = next((r for r in asked if not r.price.stale and r.price.as_of is not None
                       and r.price.pricing_model == asked[0].price.pricing_model
                       and (r.price.idle_gpus == 0 or asked[0].price.idle_gpus > 0)), None)
        if listed is not None and len(ctx.query.providers) >= 2 and listed.price.provider != asked[0].price.provider \
                and asked[0].total_cost_usd and listed.total_cost_usd:
            # providers compared ("RunPod vs Lambda, which is cheaper"): the cheaper one is the verdict; the date of its
            # price is a caveat, not a reason to name the dearer one
            cheap = asked[0]
            out.append(note("quote_cheaper_named", cheap_provider=cheap.price.provider_name,
                            cheap_total_usd=cheap.total_cost_usd, provider=listed.price.provider_name,
                            total_usd=listed.total_cost_usd, saving_usd=listed.total_cost_usd - cheap.total_cost_usd,
                            undated=cheap.price.as_of is None, as_of=listed.price.as_of.isoformat()))
        elif listed is not None:
            out.append(note("quote_cheapest_list", config=config(listed, with_precision=False),
                            provider=listed.price.provider_name, instance=_instance_label(listed),
                            price_usd=listed.price.price_per_hour_usd, total_usd=listed.total_cost_usd,
                            as_of=listed.price.as_of.isoformat(),
                            rented=listed.price.gpus_rented if listed.price.idle_gpus > 0 else None))
    return out


def _pricing_difference(ctx: Context, groups, hours: float):
    """When pricing models are compared for one GPU ("1-year reserved vs on-demand", "spot vs on-demand"): what the
    cheaper model saves over the stated length against on-demand, in money and percent of the on-demand total, from
    the cheapest row of each model (the same provider when one was named). ``None`` otherwise."""
    q = ctx.query
    if len(groups) != 1 or "difference" not in q.asks:
        return None
    rows = [r for r in groups[0][2] if not r.changes and r.price and r.total_cost_usd]
    best: dict[str, Option] = {}
    for r in rows:
        m = r.price.pricing_model
        if m not in best or r.total_cost_usd < best[m].total_cost_usd:
            best[m] = r
    listed = [r for r in rows if r.price.pricing_model == "on_demand" and not r.price.marketplace]
    # on-demand is a list price where one exists (a marketplace host's ask is not what "on-demand" is compared with)
    base = min(listed, key=lambda r: r.total_cost_usd) if listed else best.get("on_demand")
    others = [best[m] for m in q.pricing if m != "on_demand" and m in best]
    if base is None or not others:
        return None
    alt = others[0]
    saved = base.total_cost_usd - alt.total_cost_usd
    return note("pricing_difference" if saved >= 0 else "pricing_difference_more",
                config=config(base, with_precision=False), hours=hours,
                pricing_model=_pricing_label(alt),
                alt_provider=alt.price.provider_name, alt_total_usd=alt.total_cost_usd,
                base_provider=base.price.provider_name, base_total_usd=base.total_cost_usd,
                saved_usd=abs(saved), saved_pct=abs(saved) / base.total_cost_usd * 100)


def _group(ctx: Context, count: int) -> int:
    """GPUs of a quote that must share one instance: all of them (up to 8, one machine) when the question ties them
    together (a machine, a node or NVLink named, a tensor-parallel degree, machines of N GPUs, a model to run on
    them); else 1, a plain rental of N GPUs, which several smaller instances may supply (the rows say so)."""
    q = ctx.query
    if q.tensor_parallel:
        return max(1, min(q.tensor_parallel, count, 8))
    per_node = next((n.params.get("per_node") for n in q.notes if n.code == "gpus_per_node"), None)
    if per_node:
        return max(1, min(int(per_node), count, 8))
    if q.one_machine or q.node_count or q.models:
        return min(count, 8)
    return 1


def _rows(ctx: Context, gpu: Gpu, count: int, mention: GpuMention, pricings: list[str], hours: float) -> list[Option]:
    """Per provider and pricing model, the cheapest way to rent ``count`` x ``gpu`` (a named instance first).

    Which placement stands for a provider: a fresh price of an instance size replaces the provider's old snapshots
    of that size; then the best under the table's one :class:`bot.pricing.offers.OfferRule` (just the GPUs asked
    before idle ones, then the price). Rows are ordered by pricing model (the asked ones first), list prices before
    marketplace asks, then by total: an instance with idle GPUs never leads a cheaper or equal row without.
    """
    q = ctx.query
    providers = q.providers or ([mention.provider] if mention.provider and mention.instance_type else [])
    out: list[Option] = []
    exclude = excluded_providers(ctx)
    group = _group(ctx, count)
    # the GPUs the user named with their count ("2x 4090 for qwen 32b") are priced even where no instance holds them
    # together (a card rented only as 1-GPU instances): as separate instances (``group_split``, said first), only
    # when no instance holds the group
    named = bool(mention.count or q.gpu_count)
    for pricing in pricings:
        found = [p for p in all_placements(ctx.offers, gpu.id, count, today=ctx.today, group=group,
                                           pricing_model=pricing, region=ctx.price_region(),
                                           allow_split=named and group > 1)
                 if (p.offer.condition is None or pricing != "on_demand") and p.offer.provider not in exclude]
        if any(not p.group_split for p in found):
            found = [p for p in found if not p.group_split]
        if pricing == "commitment" and q.commitment_term:
            months = {"1y": 12, "3y": 36}[q.commitment_term]
            found = [p for p in found if (p.offer.term_months or 0) == months or (
                p.offer.term_months is None and _term(p.offer.commitment_term) == q.commitment_term)]
        if mention.instance_type:
            named = [p for p in found if p.offer.instance_type == mention.instance_type]
            if not named and pricing == pricings[0]:
                ctx.lack("no_price_for_instance", instance=mention.instance_type, pricing_model=pricing)
            found = named + [p for p in found if p not in named]
        for provider in providers:
            if provider in ctx.kb.unpriced_providers:
                ctx.lack("provider_unpriced", provider=_provider_name(ctx, provider),
                         china=ctx.kb.unpriced_providers[provider].market == "china_mainland")
                continue
            if not any(p.offer.provider == provider for p in found):
                # the count is named only when the cloud prices this GPU at some count (never "try another count"
                # for a GPU it does not list at all)
                listed = any(o.provider == provider and o.pricing_model == pricing
                             for o in ctx.kb.offers_for(gpu.id))
                ctx.lack("no_price_at_provider", provider=_provider_name(ctx, provider), gpu_name=gpu.name,
                         count=count if listed else None, pricing_model=pricing)
        if not found and pricing != "on_demand" and ctx.offers.for_gpu(gpu.id):
            # other pricing models exist for this GPU (listed below); with none at all, the line below says so
            ctx.lack("no_pricing_model_prices", pricing_model=pricing, gpu_name=gpu.name, count=count)
        if not found and pricing != "on_demand" and not ctx.offers.for_gpu(gpu.id) and pricing == pricings[0]:
            ctx.lack("no_price_for_gpu", gpu_name=gpu.name, count=count)
        if not found and pricing == "on_demand" and pricing == pricings[0]:
            ctx.lack("no_price_for_gpu", gpu_name=gpu.name, count=count)
        fresh_sizes = {(p.offer.provider, p.offer.pricing_model, p.offer.commitment_term, p.offer.gpu_count)
                       for p in found if not p.stale}
        best_per_provider: dict[tuple, Placement] = {}
        for p in found:
            key = (p.offer.provider, p.offer.pricing_model, p.offer.commitment_term)
            if p.stale and (*key, p.offer.gpu_count) in fresh_sizes and p.offer.instance_type != mention.instance_type:
                continue  # the provider's current price for this size supersedes its old snapshot
            if key not in best_per_provider or p.rank(ctx.offers.rule) < best_per_provider[key].rank(ctx.offers.rule):
                best_per_provider[key] = p
        for key, p in best_per_provider.items():
            changes = ["provider"] if providers and key[0] not in providers else []
            opt = Option(gpu=gpu.id, gpu_name=gpu.name, gpu_count=count, price=price_of(ctx, p), duration_hours=hours,
                         total_cost_usd=_cost(ctx, p, hours), changes=changes)
            out.append(opt)
    order = {pricing: i for i, pricing in enumerate(pricings)}
    out.sort(key=lambda o: (bool(o.changes), o.price.instance_type != mention.instance_type
                            if mention.instance_type else False, order.get(o.price.pricing_model, len(order)),
                            o.price.marketplace, round(o.price.price_per_hour_usd, 2), o.price.idle_gpus > 0, o.price.instances,
                            o.price.stale, o.price.as_of is None))
    return out


def _lacking_at_provider(q, rows: list[Option]) -> str | None:
    """The pricing model asked (spot, a commitment) that the providers named have no row for, when they have other
    rows for the GPU (their on-demand price); ``None`` when they have it, or nothing was asked beyond on-demand."""
    named = {r.price.pricing_model for r in rows if not r.changes and r.price}
    return next((m for m in q.pricing if m != "on_demand" and m not in named), None)


def _lacking_lead(ctx: Context, lead: tuple, hours: float) -> Note:
    """The headline for a pricing model asked at a provider that has no such price for the GPU: "no spot price for
    1x H100 at Lambda in my data", then that pricing model's offers at other providers, cheapest per hour first
    (the three cheapest; every one is in the table), each with its hourly price and date.

    Args:
        ctx: the request context (its ``missing`` note for the same fact is dropped: this line says it).
        lead: ``(gpu, count, pricing_model, elsewhere_rows)`` as ``_hardware`` collects it.
        hours: the hours priced (the rows' totals are for them).

    Returns:
        A ``no_pricing_at_provider`` note.
    """
    gpu, count, pricing, elsewhere = lead
    providers = [_provider_name(ctx, p) for p in ctx.query.providers]
    ctx.missing[:] = [n for n in ctx.missing if not (n.code in ("no_price_at_provider", "no_pricing_model_prices")
                                                     and n.params.get("pricing_model") == pricing)]
    items = [{"provider": o.price.provider_name, "instance": _instance_label(o), "price_usd": o.price.price_per_hour_usd,
              "per_gpu_usd": o.price.price_per_gpu_hour_usd, "as_of": o.price.as_of} for o in elsewhere[:3]]
    return note("no_pricing_at_provider", pricing_model=_pricing_label(elsewhere[0]) if elsewhere else pricing,
                gpu_name=gpu.name, count=count, provider=providers, items=items or None)


def _term(text: str | None) -> str | None:
    """A commitment term as the parser names it: "1 year", "12 months", "1y" -> "1y"."""
    if not text:
        return None
    low = text.lower()
    for years in ("1", "3"):
        if low.startswith(years) and ("y" in low or "year" in low):
            return f"{years}y"
    if low.startswith("12"):
        return "1y"
    if low.startswith("36"):
        return "3y"
    return None


def _shown(ctx: Context, options: list[Option]) -> list[Option]:
    """Every option, the GPU types interleaved so the first rows (what a short answer shows) cover each."""
    limit = len(options)
    per_gpu: dict[str, list[Option]] = {}
    for o in options:
        per_gpu.setdefault(o.gpu or "", []).append(o)
    if len(per_gpu) <= 1:
        return options[:limit]
    out: list[Option] = []
    while len(out) < limit and any(per_gpu.values()):
        for rows in per_gpu.values():
            if rows and len(out) < limit:
                out.append(rows.pop(0))
    return out


def _headline(ctx: Context, groups, hours: float):
    q = ctx.query
    firsts = []
    for _gpu, _count, rows, _mention in groups:
        asked = [r for r in rows if not r.changes]
        if asked:
            firsts.append(asked[0])
    if not firsts:
        others = [r for _g, _c, rows, _m in groups for r in rows if r.changes and r.price]
        if q.providers and others:
            o = min(others, key=lambda r: r.price.price_per_hour_usd)
            return note("quote_elsewhere", providers=[_provider_name(ctx, p) for p in q.providers],
                        config=config(o, with_precision=False), hours=hours, total_usd=o.total_cost_usd,
                        provider=o.price.provider_name, instance=_instance_label(o),
                        price_usd=o.price.price_per_hour_usd)
        return note("quote_none", items=[{"gpu_count": c, "gpu_name": g.name} for g, c, _, _ in groups])
    if len(firsts) >= 2 and len(q.providers) >= 2:
        # several GPUs at several providers: every asked pair, in the table's order
        rows = [r for _g, _c, rs, _m in groups for r in rs if not r.changes and r.price][:6]
        items = [{"config": config(o, with_precision=False), "instance": _instance_label(o),
                  "provider": o.price.provider_name, "price_usd": o.price.price_per_hour_usd,
                  "total_usd": o.total_cost_usd} for o in rows]
        return note("quote_grid", items=items, hours=hours)
    if len(firsts) >= 2:
        items = [{"config": config(o, with_precision=False), "instance": _instance_label(o),
                  "provider": o.price.provider_name, "price_usd": o.price.price_per_hour_usd,
                  "total_usd": o.total_cost_usd} for o in firsts]
        ratio = firsts[1].price.price_per_hour_usd / firsts[0].price.price_per_hour_usd
        return note("quote_compare", items=items, hours=hours, ratio_x=ratio)
    rows = [r for r in groups[0][2] if not r.changes]
    if len(groups) == 1 and len(set(q.pricing)) >= 2 and len(q.providers) < 2:
        terms = _terms_headline(ctx, groups[0][1], [r for r in rows if r.price], hours)
        if terms is not None:
            return terms
    asked_terms = [p for p in q.pricing if p != "on_demand"]
    if len(q.pricing) == 1 and len(asked_terms) == 1 and len(q.providers) < 2:
        # one pricing model asked (spot, a commitment): its best row leads; on-demand rows are the reference
        rows = [r for r in rows if r.price.pricing_model == asked_terms[0]] or rows
        if rows:
            firsts = [rows[0]]
    if len(q.providers) >= 2 or (q.pricing and len({r.price.pricing_model for r in rows}) > 1):
        items = [{"provider": r.price.provider_name, "pricing_model": _pricing_label(r), "price_usd":
                  r.price.price_per_hour_usd, "per_gpu_usd": r.price.price_per_gpu_hour_usd,
                  "total_usd": r.total_cost_usd, "instances": r.price.instances if r.price.instances > 1 else None,
                  "rented": r.price.gpus_rented if r.price.idle_gpus > 0 else None} for r in _per_model(rows, 6)]
        if q.duration_hours:  # a length was asked: the totals lead ("yearly cost", "for a month")
            return note("quote_providers_total", config=config(firsts[0], with_precision=False), items=items,
                        hours=hours)
        return note("quote_providers", config=config(firsts[0], with_precision=False), items=items, hours=hours)
    o = firsts[0]
    return note("quote_one", config=config(o, with_precision=False), hours=hours, total_usd=o.total_cost_usd,
                provider=o.price.provider_name, instance=_instance_label(o), price_usd=o.price.price_per_hour_usd,
                per_gpu_usd=o.price.price_per_gpu_hour_usd, pricing_model=_pricing_label(o),
                as_of=o.price.as_of.isoformat() if o.price.as_of else None,
                rented=o.price.gpus_rented if o.price.idle_gpus > 0 else None)


def _terms_headline(ctx: Context, count: int, rows: list[Option], hours: float):
    """Several billing terms asked ("按小时和包年", "on-demand and 1-year reserved"): each term's cheapest row that
    rents just the GPUs asked (no idle GPUs paid for). A term published only for larger instances, or not at all,
    is said, with that instance, and priced as on-demand for the term's hours instead. Every term is priced for the
    hours asked; with none, a commitment for its term (1 year = 8,760 h), others per hour. ``None`` when no row fits.
    """
    q = ctx.query
    on_demand = [r for r in rows if r.price.pricing_model == "on_demand"]
    def cheapest(found):  # list prices before marketplace asks (those are said on their own line)
        # by what the need costs: a commitment pays its whole term, so a 1-year term can beat a cheaper-per-hour 3-year
        return min(found, key=lambda r: (r.price.marketplace, r.price.price_per_hour_usd * billed_hours(
            hours if hours > 1 else 1.0, r.price.term_hours)), default=None)

    od_exact = cheapest([r for r in on_demand if r.price.idle_gpus == 0]) or cheapest(on_demand)
    items = []
    for model in dict.fromkeys(q.pricing):
        term = q.commitment_term if model == "commitment" else None
        # the length asked prices every term ("for a month, on-demand vs 1-year reserved": a month at each rate);
        # with none, a commitment is priced for its whole term
        term_hours = hours if hours > 1 else {"1y": 8760.0, "3y": 3 * 8760.0}.get(term or "", hours)
        of_model = [r for r in rows if r.price.pricing_model == model]
        exact = cheapest([r for r in of_model if r.price.idle_gpus == 0])
        best = cheapest(of_model)
        item: dict = {"pricing_model": f"commitment:{term}" if term else model,
                      "hours": term_hours if term_hours > 1 else None}
        larger_cheaper = best is not None and (
            best.price.price_per_hour_usd < exact.price.price_per_hour_usd if exact is not None
            else od_exact is None or best.price.price_per_hour_usd <= od_exact.price.price_per_hour_usd)
        if larger_cheaper:
            o = best  # a larger instance is the cheapest way to the count even with its idle GPUs (said)
        elif exact is not None:
            o = exact
        else:
            # published only for larger instances that cost more than renting just the GPUs asked on-demand
            o = od_exact
            # a term published only for larger instances names the count; a term not published at all does not
            # (another count would not find it either)
            item.update(missing=True, count=count if best is not None else None, unpublished=best is None)
            if best is not None:
                item.update(big_provider=best.price.provider_name, big_instance=_instance_label(best),
                            big_rented=best.price.gpus_rented, big_price_usd=best.price.price_per_hour_usd)
        if o is None:
            continue
        # a commitment is paid for its whole term even for a shorter need (bot.pricing.offers.billed_hours)
        paid_hours = billed_hours(term_hours, o.price.term_hours) if term_hours > 1 else term_hours
        if paid_hours > term_hours + 1e-6:
            item["hours"] = paid_hours
        item.update(provider=o.price.provider_name, instance=_instance_label(o), price_usd=o.price.price_per_hour_usd,
                    total_usd=o.price.price_per_hour_usd * paid_hours if term_hours > 1 else None,
                    rented=o.price.gpus_rented if o.price.idle_gpus > 0 else None,
                    instances=o.price.instances if o.price.instances > 1 else None)
        items.append(item)
    if not items:
        return None
    return note("quote_terms", config=config(rows[0], with_precision=False), items=items)


def _per_model(rows: list[Option], limit: int) -> list[Option]:
    """At most ``limit`` rows in their order, shared between the pricing models present (the first rows of each),
    so a headline comparing spot with on-demand names both."""
    models = list(dict.fromkeys(_pricing_label(r) for r in rows))
    each = max(1, -(-limit // max(1, len(models))))
    return [r for m in models for r in [r for r in rows if _pricing_label(r) == m][:each]][:limit]


def _instance_label(o: Option) -> str:
    p = o.price
    return p.instance_type if p.instances == 1 else f"{p.instances} x {p.instance_type}"


def _pricing_label(o: Option) -> str:
    p = o.price
    return f"{p.pricing_model}:{p.commitment_term}" if p.pricing_model == "commitment" and p.commitment_term \
        else p.pricing_model


def _provider_name(ctx: Context, provider: str) -> str:
    return provider_label(ctx, provider)


# --------------------------------------------------------------------------- a run's cost

def _run_cost(ctx: Context, model) -> Answer:
    q = ctx.query
    if q.workload != "finetune" and not q.method and q.duration_hours and not q.training_tokens and \
            any(g.count for g in q.gpus):
        # "32 H100s for 3 days to pretrain a 1b, what does it cost": a fixed setup for a stated time is that rental
        # and the tokens it trains (the training answer's rule), not a compute-optimal run of another length
        return training.answer(ctx)
    if q.workload == "finetune" or q.method:
        tokens = finetune_tokens(ctx)
        options = finetune_setups(ctx, model, tokens, candidate_gpus(ctx, "finetune"))
        table = finetune_table(options)
    else:
        tokens = training_tokens(ctx, model)
        options = training_runs(ctx, model, tokens, candidate_gpus(ctx, "training"))
        table = training_table(options)
    priced = [i for i, o in enumerate(options) if o.fits and o.total_cost_usd is not None]
    if q.deadline_hours:  # a run that misses the user's deadline does not answer them, however cheap
        priced = [i for i in priced if (options[i].wall_clock_hours or 0) <= q.deadline_hours * 1.0001] or priced
    rec = min(priced, key=lambda i: options[i].total_cost_usd) if priced else None
    for o in options[:3]:
        caveats(ctx, o)
    if rec is not None:
        o = options[rec]
        headline = note("run_cost", config=config(o), model_name=model_label(model), tokens_tokens=tokens,
                        total_usd=o.total_cost_usd, gpu_hours=o.gpu_hours, wall_hours=o.wall_clock_hours,
                        per_gpu_usd=o.price.price_per_gpu_hour_usd, provider=o.price.provider_name,
                        rented=o.price.gpus_rented if o.price.gpus_rented > (o.gpu_count or 0) else None,
                        price_usd=o.price.price_per_hour_usd)
    else:
        # no price: the run itself (the user's setup first) is still the answer's first line, its time with it
        run = next((o for o in options if o.fits and not o.changes and o.wall_clock_hours), None) or next(
            (o for o in options if o.fits and o.wall_clock_hours), None)
        headline = note("run_cost_unpriced", model_name=model_label(model), tokens_tokens=tokens,
                        config=config(run) if run else None, wall_hours=run.wall_clock_hours if run else None,
                        gpu_hours=run.gpu_hours if run else None)
    mentioned = [(i, n) for i, o in enumerate(options) if rec is None and o.fits and o.price is None
                 and (n := mention_cost(ctx, config(o), o.gpu, o.gpu_count, o.wall_clock_hours))]
    if mentioned:
        # no list price for any fitting setup: the run at the secondary-source figure every answer uses (the
        # cheapest such run leads, labelled as a secondary figure)
        rec, headline = min(mentioned, key=lambda x: x[1].params["total"]["amount"])
    elif rec is None and not any(o.fits for o in options) and options and options[0].memory_per_gpu_gb:
        # nothing holds the run: that, not a price, is why there is no cost (the setup may well be priced)
        o = options[0]
        fails = "finetune_fixed_fails" if q.workload == "finetune" or q.method else "training_does_not_fit"
        headline = note(fails, config=config(o), model_name=model_label(model), mem_gb=o.memory_per_gpu_gb,
                        usable_gb=o.usable_gb)
    elif rec is None:
        ctx.lack("no_price_for_run", model_name=model_label(model))
    details = idle_line(ctx, options[rec]) if rec is not None and options[rec].price is not None else []
    return ctx.answer(title=note("title_run_cost", model_name=model_label(model)), headline=headline,
                      details=details, options=options, recommendation=rec, table=table,
                      actions=next_actions(ctx, None, precision_switch=False))


# --------------------------------------------------------------------------- buy vs rent

def _break_even(ctx: Context) -> Answer:
    """Months until buying pays for itself: purchase / (monthly rent at the utilisation - power - hosting).

    The purchase is the user's price; when none is given, the card's sourced list price (``gpus.yaml``
    ``list_price``) x the count, said as an assumption; with neither, the answer is the highest price at which
    buying still wins over the horizon (rent over it less power and hosting). The rent is the user's own price when the question gives
    one ("rent one at $2.50/GPU-hour": count x price x 730 h); market prices follow as a reference. Power =
    (GPU TDP x count + host power per machine x machines) x PUE x electricity x utilisation (the cards draw it
    while they work). A desktop or workstation (up to ``desk_max_cards`` consumer or workstation cards) runs at
    home or in an office: home electricity, PUE 1, no colocation; a server pays colocation per kW of its draw.
    Host power is per machine (8 GPUs at most). The comparison covers the horizon the user states ("for 3
    years"), else ``amortization_years``. Every constant comes from ``knowledge/policy.yaml`` with its source
    and is stated in the answer.
    """
    q = ctx.query
    pol = ctx.policy.break_even
    month = ctx.policy.quote.month_hours.value
    # the GPU bought: the first named that is not the rental alternative ("buy 2x 4090 or rent an A100")
    mention = next((m for m in q.gpus if m.id in ctx.kb.gpus and m.id != q.rented_gpu), None)
    gpu = resolve_gpu(ctx, mention) if mention is not None else None
    if gpu is None:
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_break_even"),
                          examples=["买一台 8 卡 H100 服务器大约 30 万美元，和租比多久回本？"] if ctx.zh else
                          ["buy vs rent: 8x H100 server ~$300k vs cloud, break even?"])
    q = ctx.query = _rent_price_given(q)
    count = mention.count or q.gpu_count or 1
    purchase: float | None = None  # no price given and none published: the price buying must beat is the answer
    if q.purchase_price is not None:
        purchase = ctx.usd(q.purchase_price)  # a currency without a rate never reaches here (the parser sets it aside)
        if q.purchase_price_per_gpu:
            purchase *= count  # "$1,800 each"
    elif gpu.list_price is not None:
        lp = gpu.list_price
        each = ctx.to_usd(lp.amount, lp.currency)
        if each is None:
            from bot.errors import AdvisorError

            raise AdvisorError(f"gpus.yaml {gpu.id}: list_price in {lp.currency} has no exchange rate")
        purchase = each * count
        ctx.assume("purchase_list_price", count=count, gpu_name=gpu.name, each_usd=each, purchase_usd=purchase,
                   kind=note(f"price_kind_{lp.kind}"), as_of=lp.as_of.isoformat())
        ctx.cite(lp.source)
    util = (q.utilization_pct or (q.percents[0] if q.percents else None) or pol.default_utilization_pct.value) / 100
    workstation = gpu.segment in ("consumer", "workstation")
    # at home or in an office: a desktop's few cards, or any machine the user says runs there ("home lab")
    desk = (workstation and count <= pol.desk_max_cards.value) or q.at_home
    rate = pol.home_electricity_usd_per_kwh if desk else pol.electricity_usd_per_kwh
    electricity = ctx.usd(q.electricity_per_kwh) or rate.value
    pue = 1.0 if desk else pol.pue.value
    if q.power_watts:
        kw = q.power_watts / 1000
        power_month = kw * pue * month * util * electricity
        ctx.assume("break_even_power", kw=kw, pue=pue, electricity_usd=electricity, month_usd=power_month,
                   util_pct=util * 100)
    else:
        per_machine = int(ctx.policy.limits.gpus_per_machine.value)
        machines = math.ceil(count / per_machine)
        host = pol.workstation_host_power_w if workstation else pol.server_host_power_w
        host_w = host.value
        if not workstation:
            # a server built for fewer GPUs carries fewer CPUs and NICs: the 8-GPU figure pro rata, never below one
            # workstation's host
            host_w = max(pol.workstation_host_power_w.value, host.value * min(count, per_machine) / per_machine)
        tdp_w = gpu.tdp_watts or 700
        kw = (tdp_w * count + host_w * machines) / 1000
        power_month = kw * pue * month * util * electricity
        ctx.assume("break_even_power_parts", count=count, tdp_w=tdp_w, machines=machines, host_w=host_w,
                   host_kind=note("machine_workstation" if workstation else "machine_server"), kw=kw,
                   pue=pue, electricity_usd=electricity, month_usd=power_month, util_pct=util * 100)
        ctx.cite(host.source)
    over_desk = None
    if desk:
        hosting_month = 0.0
        if q.at_home and not (workstation and count <= pol.desk_max_cards.value):  # (a desktop is said as one)
            ctx.assume("break_even_at_home", count=count, gpu_name=gpu.name)
        else:
            ctx.assume("break_even_desk", count=count, gpu_name=gpu.name, max_cards=int(pol.desk_max_cards.value))
        ctx.cite(rate.source, pol.desk_max_cards.source)
        if kw * 1000 > pol.home_circuit_w.value and not ctx.zh:
            # more than one (US, 120 V) household circuit carries continuously: said, with what it takes
            ctx.warn("home_circuit", draw_w=kw * 1000, circuit_w=pol.home_circuit_w.value)
            ctx.cite(pol.home_circuit_w.source)
    else:
        hosting_month = kw * pol.hosting_usd_per_kw_month.value
        ctx.assume("break_even_hosting", kw=kw, per_kw_usd=pol.hosting_usd_per_kw_month.value,
                   month_usd=hosting_month)
        ctx.cite(pol.electricity_usd_per_kwh.source, pol.pue.source, pol.hosting_usd_per_kw_month.source)
        if workstation:
            # more consumer cards than a desktop holds: priced as a rack server in colocation (said, not assumed
            # silently), with what running it at home instead would cost
            home_rate = ctx.usd(q.electricity_per_kwh) or pol.home_electricity_usd_per_kwh.value
            over_desk = dict(count=count, gpu_name=gpu.name, kw=kw, max_cards=int(pol.desk_max_cards.value),
                             pue=pue, per_kw_usd=pol.hosting_usd_per_kw_month.value, hosting_month_usd=hosting_month,
                             home_rate_usd=home_rate, home_power_month_usd=kw * month * util * home_rate,
                             draw_w=kw * 1000, circuit_w=pol.home_circuit_w.value
                             if kw * 1000 > pol.home_circuit_w.value and not ctx.zh else None)
            ctx.cite(pol.desk_max_cards.source, pol.home_electricity_usd_per_kwh.source)
    ctx.assume("break_even_utilization", util_pct=util * 100)
    placements = []
    bought = {"gpu_count": count, "gpu_name": gpu.name}
    rented_mention = next((m for m in q.gpus if m.id == q.rented_gpu and m.id in ctx.kb.gpus), None)
    if rented_mention is not None:
        # the rental named is what buying is compared with ("or rent an A100"): its GPU and count (one when none
        # is said), at the same utilisation; power and hosting stay those of what is bought
        gpu, count = resolve_gpu(ctx, rented_mention), rented_mention.count or 1
        ctx.assume("break_even_rent_named", bought=bought, rented={"gpu_count": count, "gpu_name": gpu.name})
    # what is bought is one machine of them: the market's price for the same machine; a desktop's cards (no fast
    # link between consumer or workstation cards) rent as well as separate 1-GPU instances
    group = 1 if gpu.segment in ("consumer", "workstation") else min(count, 8)
    users = given_placement(ctx, gpu, count, group)
    if users is not None:
        placements.append(users)
    if users is not None:
        # the price is the rent compared with, not context ("taken as context, not as a limit" would be wrong)
        ctx.assumptions[:] = [n for n in ctx.assumptions if n.code != "prices_quoted"]
    for pricing in ("on_demand", "commitment", "spot"):
        p = place(ctx, gpu, count, group, pricing=pricing, given=False, fallback=False)
        if p is not None and not any((p.offer.provider, p.offer.instance_type, p.offer.pricing_model) ==
                                     (o.offer.provider, o.offer.instance_type, o.offer.pricing_model)
                                     for o in placements):
            placements.append(p)
    figure = None
    if not any(p.offer.provider != "user" for p in placements):
        # no list price to rent at (a China-market card, or only the cloud named, AutoDL, which publishes none): the
        # secondary-source figure every kind of answer uses for this card is the rent compared with, labelled as such
        mp = mention_for(ctx.kb, gpu.id, q.providers)
        if mp is not None and mp.low_usd:
            m = mp.mention
            offer = Offer(provider=m.provider or "mention", provider_name=m.where, instance_type=f"{count}x {gpu.name}",
                          gpu=gpu.id, gpu_count=count, price_per_hour_usd=mp.low_usd * count, pricing_model="on_demand",
                          marketplace=True,
                          as_of=m.as_of, source=m.source)
            placements.append(Placement(offer=offer, instances=1, gpus_needed=count, group=max(1, group),
                                        group_split=False, price_per_hour_usd=mp.low_usd * count, stale=False))
            figure = mention_cost(ctx, {"gpu_count": count, "gpu_name": gpu.name}, gpu.id, count, month)
    options = []
    for p in placements:
        # a commitment is billed for every hour of its term, used or not; on-demand and spot only when used
        rent_month = p.price_per_hour_usd * month * (1.0 if p.offer.pricing_model == "commitment" else util)
        saving = rent_month - power_month - hosting_month
        months = purchase / saving if saving > 0 and purchase is not None else None
        opt = Option(gpu=gpu.id, gpu_name=gpu.name, gpu_count=count, price=price_of(ctx, p), duration_hours=month,
                     total_cost_usd=rent_month)
        opt.notes.append(note("break_even_row", months=months))
        options.append((opt, months, rent_month))
    if not options:
        ctx.lack("no_price_for_gpu", gpu_name=gpu.name, count=count)
        return ctx.answer(title=note("title_break_even"), headline=note("break_even_unpriced", gpu_name=gpu.name),
                          actions=next_actions(ctx, None, precision_switch=False))
    first = options[0]
    stated = q.duration_hours is not None and q.duration_hours >= month
    life = q.duration_hours / 8760.0 if stated else pol.amortization_years.value  # "for 3 yrs", "用两年"
    if purchase is None:
        # "买 8 张 H100 还是租，按 3 年算" with no price: renting over the horizon, less owning's running costs, is
        # the most the machine may cost for buying to win
        horizon = life * 12
        running = (power_month + hosting_month) * horizon
        headline = note("break_even_max_price", config=config(first[0], with_precision=False), years=life,
                        bought=bought if rented_mention is not None else None,
                        rent_total_usd=first[2] * horizon, own_running_usd=running,
                        max_price_usd=max(0.0, first[2] * horizon - running), util_pct=util * 100,
                        provider=first[0].price.provider_name if first[0].price else None)
        extra = [note("break_even_over_desk", **over_desk, home_months=None)] if over_desk is not None else []
        return ctx.answer(title=note("title_break_even"), headline=headline,
                          details=[*extra, *([figure] if figure is not None else []), note("ask_break_even")],
                          options=[o for o, _, _ in options], recommendation=0,
                          actions=next_actions(ctx, None, precision_switch=False))
    if first[1] is None:
        # renting costs less than power and hosting alone: buying never pays back at this use
        headline = note("break_even_never", config=bought, purchase_usd=purchase,
                        rented=config(first[0], with_precision=False) if rented_mention is not None else None,
                        hosting=not desk,
                        rent_month_usd=first[2], own_month_usd=power_month + hosting_month, util_pct=util * 100,
                        provider=first[0].price.provider_name)
    elif users is not None:
        headline = note("break_even_given", config=bought, purchase_usd=purchase,
                        hosting=not desk,
                        months=first[1], rent_month_usd=first[2], own_month_usd=power_month + hosting_month,
                        count=count, per_gpu_usd=users.price_per_hour_usd / count, month_hours=month * util,
                        util_pct=util * 100)
    else:
        headline = note("break_even", config=bought, purchase_usd=purchase,
                        rented=config(first[0], with_precision=False) if rented_mention is not None else None,
                        hosting=not desk,
                        months=first[1], rent_month_usd=first[2], own_month_usd=power_month + hosting_month,
                        provider=first[0].price.provider_name, pricing_model=first[0].price.pricing_model,
                        util_pct=util * 100)
    details = [note("break_even_other", pricing_model=o.price.pricing_model, provider=o.price.provider_name,
                    months=m, rent_month_usd=r) for o, m, r in options[1:]]
    if over_desk is not None:
        saving_home = first[2] - over_desk["home_power_month_usd"]
        details.insert(0, note("break_even_over_desk", **over_desk,
                               home_months=purchase / saving_home if purchase and saving_home > 0 else None))
    own_total = purchase + (power_month + hosting_month) * 12 * life
    rent_total = first[2] * 12 * life
    life_line = note("break_even_life", years=life, own_total_usd=own_total, rent_total_usd=rent_total,
                     stated=stated, hosting=not desk,
                     cheaper=note("own_cheaper" if own_total < rent_total else "rent_cheaper"))
    if stated:  # the horizon asked decides: its totals lead, the break-even month follows
        details.insert(0, headline)
        headline = life_line
    else:
        details.append(life_line)
    if figure is not None:
        details.insert(0, figure)  # the rent is a secondary figure: said right under the headline
    table = Table(columns=["config", "provider", "pricing", "usd_per_hour", "rent_per_month", "break_even_months"],
                  rows=[[config(o, with_precision=False), o.price.provider_name, _pricing_label(o),
                         o.price.price_per_hour_usd, r, m]
                        for o, m, r in options])
    return ctx.answer(title=note("title_break_even"), headline=headline, details=details,
                      options=[o for o, _, _ in options], recommendation=0, table=table,
                      actions=next_actions(ctx, None, precision_switch=False))


def _rent_price_given(q):
    """A buy-vs-rent question's hourly price is the rent to compare with, however the parser filed it: a price
    "at $2.50/GPU-hour" read as a ceiling, or one quoted as context, becomes the given price (per GPU when marked
    so). Returns the query with ``given_price_per_hour`` set, or unchanged."""
    if q.given_price_per_hour is not None:
        return q
    if q.price_limit_per_hour is not None:
        return q.model_copy(update={"given_price_per_hour": q.price_limit_per_hour,
                                    "given_price_per_gpu": q.price_limit_per_gpu,
                                    "price_limit_per_hour": None, "price_limit_per_gpu": False})
    if len(q.quoted_prices) == 1:
        return q.model_copy(update={"given_price_per_hour": q.quoted_prices[0]})
    return q


