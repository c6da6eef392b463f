"""Cards to buy with a purchase budget: "we have $300k to buy GPUs, which and how many to serve X", "预算 200 万买卡".

A purchase budget (``Query.purchase_budget``) is money spent once on cards, not a rental budget per hour. For each GPU
type considered (those named, else the policy's serving candidates) that has a purchase price:

* the price of one card is the user's ("at $25k each", ``purchase_price`` per GPU), else the sourced one in
  ``knowledge/gpus.yaml`` (``list_price``: a launch list price or a dated retailer's listing, with its date);
* the cards bought: ``floor(budget / price each)`` with no model; with a model, the whole replicas of the layout that
  serves the most users at the per-user floor within the budget (:func:`bot.advice.options.money_fleet`, a format that
  keeps quality first), so no card is bought that serves nobody;
* the machines they fill: ``ceil(cards / cards per machine)``, 8 per machine (policy ``limits.gpus_per_machine``;
  consumer cards ``limits.consumer_group_max_gpus``); only the cards are priced (no purchase price for host machines,
  networking or colocation is known), which the answer says.

The card that serves the most users leads (with no model: the most memory bought). A GPU with no purchase price is
never priced at its rental price: when the user named it, that is said first, with the cards that have a price as
alternatives labelled as another GPU; when it was only a candidate, it is named in a line under the headline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.advice.answer import Answer, Option, Table
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.advice.options import config, money_fleet, next_actions, quality_tier
from bot.advice.planner import GpuChoice, candidate_gpus, serving_load, serving_option
from bot.errors import AdvisorError
from bot.kb.schema import Gpu, Model
from bot.notes import note

__all__ = ["answer", "card_price"]


@dataclass(frozen=True)
class CardPrice:
    """What one card costs to buy.

    Attributes:
        each_usd: USD per card.
        given: the user's own price (else the knowledge base's ``list_price``).
        kind: ``launch_msrp`` or ``street`` for a sourced price; ``None`` for the user's.
        as_of: the sourced price's date (ISO), ``None`` for the user's.
        source: where the sourced price is published.
    """

    each_usd: float
    given: bool
    kind: str | None = None
    as_of: str | None = None
    source: str | None = None


def card_price(ctx: Context, gpu: Gpu) -> CardPrice | None:
    """The purchase price of one ``gpu``: the user's price per card when they gave one for this GPU (said beside its
    name, ``GpuMention.price_each_amount``, or for the only GPU named), else its sourced ``list_price`` (converted at the dated rate); ``None`` when neither exists (a rental
    price is never a purchase price).

    Raises:
        AdvisorError: a ``list_price`` in a currency the knowledge base has no rate for (a broken data file).
    """
    q = ctx.query
    named = [m for m in q.gpus if m.id in ctx.kb.gpus]
    own = next((m for m in named if m.id == gpu.id.split("@")[0] and m.price_each_amount), None)
    if own is not None:  # "L40S at $8k each or H100 at $28k each": the price said beside this card
        usd = ctx.to_usd(own.price_each_amount, own.price_each_currency or "usd")
        if usd:
            return CardPrice(usd, True)
    if q.purchase_price is not None and q.purchase_price_per_gpu and (
            not named or (len(named) == 1 and named[0].id == gpu.id.split("@")[0])):
        usd = ctx.usd(q.purchase_price)
        if usd:
            return CardPrice(usd, True)
    lp = gpu.list_price
    if lp is None:
        return None
    each = ctx.to_usd(lp.amount, lp.currency)
    if each is None:
        raise AdvisorError(f"gpus.yaml {gpu.id}: list_price in {lp.currency} has no exchange rate")
    return CardPrice(each, False, lp.kind, lp.as_of.isoformat(), lp.source)


def _per_machine(ctx: Context, gpu: Gpu) -> int:
    """Cards one machine holds: consumer cards ``limits.consumer_group_max_gpus``, others ``gpus_per_machine``."""
    lim = ctx.policy.limits
    return int((lim.consumer_group_max_gpus if gpu.segment == "consumer" else lim.gpus_per_machine).value)


def _row(ctx: Context, choice: GpuChoice, price: CardPrice, budget_usd: float, model: Model | None,
         load) -> Option | None:
    """The option for one GPU type: the cards the budget buys (and, with a model, what they serve), or ``None`` when
    the budget buys not one card (or, with a model, not one replica that serves a user)."""
    gpu = choice.gpu
    if model is None:
        count = math.floor(budget_usd / price.each_usd * (1 + 1e-9))  # (¥2M / ¥200k through USD is 9.999...)
        if count < 1:
            return None
        opt = Option(gpu=gpu.id, gpu_name=gpu.name, gpu_count=count)
    else:
        plan = money_fleet(ctx, model, gpu, load, budget_usd, cost_usd=lambda n, _group: n * price.each_usd)
        if plan is None:
            return None
        plan.placement = None  # bought, not rented: no rental price is attached to (or dated in) the option
        opt = serving_option(ctx, plan)
        opt.max_users = plan.capacity
    opt.total_cost_usd = opt.gpu_count * price.each_usd
    if not choice.fixed and ctx.query.gpus:
        opt.changes = ["gpu"]
    return opt


def _key(o: Option, model: Model | None, memory_gb: float) -> tuple:
    """Sort key: with a model, a format that keeps quality, then the most users, then the lower cost; without one,
    the most memory bought."""
    if model is None:
        return (-(o.gpu_count or 0) * memory_gb, o.total_cost_usd or 0.0)
    return (quality_tier(o.precision), -(o.max_users or 0), o.total_cost_usd or 0.0)


def answer(ctx: Context, model: Model | None) -> Answer:
    """Answer a purchase budget (see the module docstring): the cards it buys of each GPU type with a purchase price,
    the machines they fill and, for ``model``, the users they serve at the per-user floor."""
    q = ctx.query
    budget = ctx.usd(q.purchase_budget)
    load = serving_load(ctx) if model is not None else None
    label = model_label(model) if model is not None else None
    choices = candidate_gpus(ctx, "serving")
    named_unpriced = [c.gpu.name for c in choices if c.fixed and card_price(ctx, c.gpu) is None]
    if choices and named_unpriced and len(named_unpriced) == len(choices):
        # the GPUs named have no purchase price: the cards that have one are the alternatives (labelled)
        policy_ids = ctx.policy.serving.candidate_gpus_zh if ctx.zh and ctx.policy.serving.candidate_gpus_zh \
            else ctx.policy.serving.candidate_gpus
        named_ids = {c.gpu.id for c in choices}
        choices = choices + [GpuChoice(ctx.kb.gpus[g], None, False) for g in policy_ids
                             if g in ctx.kb.gpus and g not in named_ids]
    options: list[Option] = []
    prices: dict[str, CardPrice] = {}
    unpriced: list[str] = []
    for choice in choices:
        price = card_price(ctx, choice.gpu)
        if price is None:
            if not choice.fixed:
                unpriced.append(choice.gpu.name)
            continue
        opt = _row(ctx, choice, price, budget, model, load) if budget else None
        if opt is not None:
            prices[opt.gpu] = price
            options.append(opt)
    options.sort(key=lambda o: (bool(o.changes), *_key(o, model, ctx.kb.gpus[o.gpu.split("@")[0]].memory_gb)))
    shown = options[:ctx.policy.serving.shown_options]
    details = []
    if named_unpriced:
        headline = note("purchase_price_unknown", gpus=named_unpriced, budget_usd=budget)
        if shown:
            details.append(_buys(ctx, shown[0], prices[shown[0].gpu], budget, label, load, other=True))
    elif shown:
        headline = _buys(ctx, shown[0], prices[shown[0].gpu], budget, label, load)
    else:
        headline = note("purchase_budget_buys_none", budget_usd=budget, model_name=label)
    if unpriced:
        details.append(note("purchase_unpriced_candidates", gpus=unpriced))
    for o in shown:
        p = prices[o.gpu]
        if not p.given:
            ctx.cite(p.source)
            ctx.assume("purchase_price_used", gpu_name=o.gpu_name, each_usd=p.each_usd, kind=note(f"price_kind_{p.kind}"),
                       as_of=p.as_of)
    ctx.assume("purchase_cards_only")
    if model is not None:
        ctx.assume("purchase_ranked_users", per_user_tps=load.capacity_tps)
    else:
        ctx.assume("purchase_ranked_memory")
    columns = ["config", "usd_each", "cards", "machines", "total_usd"] + (
        ["capacity_users", "tps_per_user"] if model is not None else [])
    rows = []
    for o in shown:
        gpu = ctx.kb.gpus[o.gpu.split("@")[0]]
        row = [config(o, with_precision=model is not None), prices[o.gpu].each_usd, o.gpu_count,
               math.ceil(o.gpu_count / _per_machine(ctx, gpu)), o.total_cost_usd]
        if model is not None:
            row += [o.max_users, o.tps_per_user]
        rows.append(row)
    return ctx.answer(title=note("title_purchase_budget", budget_usd=budget, model_name=label), headline=headline,
                      details=details, options=shown, recommendation=0 if shown and not named_unpriced else None,
                      table=Table(columns=columns, rows=rows),
                      actions=next_actions(ctx, None, precision_switch=False))


def _buys(ctx: Context, o: Option, price: CardPrice, budget_usd: float, model_name, load, *, other: bool = False):
    """The line "$X buys N x GPU at $P each ...: M machines; they serve about U users of the model"."""
    gpu = ctx.kb.gpus[o.gpu.split("@")[0]]
    per_machine = _per_machine(ctx, gpu)
    return note("purchase_budget_buys", budget_usd=budget_usd, count=o.gpu_count, gpu_name=o.gpu_name,
                each_usd=price.each_usd, given=price.given, kind=note(f"price_kind_{price.kind}") if price.kind else None,
                as_of=price.as_of, spent_usd=o.total_cost_usd, machines=math.ceil(o.gpu_count / per_machine),
                per_machine=per_machine, other=other, model_name=model_name,
                precision=o.precision if model_name else None, max_users=o.max_users if model_name else None,
                per_user_tps=max(load.capacity_tps, o.tps_per_user or 0.0) if model_name else None)
