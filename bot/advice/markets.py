"""Where a GPU can be bought or rented: the sourced export rules for the market a question names.

"Can I rent H100 in China" / "国内能租到 H100 吗": each GPU named gets the rule ``knowledge/markets.yaml`` records for
that market (a US export licence required, licences case by case, barred, or a part made for that market), with
its dates and source; a GPU with no rule there is said to be not known, never guessed.
"""

from __future__ import annotations

from bot.advice.answer import Answer
from bot.advice.context import Context
from bot.notes import Note, note

__all__ = ["apply_market_rules", "market_notes"]

#: Statuses under which the GPU is not simply on sale in the market (the market's own parts are named instead).
_LIMITED = ("licence_required", "licence_case_by_case", "barred")


def market_notes(ctx: Context) -> list[Note]:
    """The rules for the GPUs the question names in the market it names.

    Args:
        ctx: the answer being built (``query.market``, ``query.gpus``); each rule's source is cited.

    Returns:
        One ``market_<status>`` note per rule that covers a GPU named (``gpu_names``, ``market`` in both languages,
        ``since`` and ``as_of`` as ISO dates; for a limited status, ``alternatives``: the parts made for that
        market), in the order the GPUs are named, then one ``market_unknown`` note for the GPUs no rule covers.
        Empty when no market or no known GPU is named.
    """
    q, kb = ctx.query, ctx.kb
    market = kb.markets.get(q.market) if q.market else None
    named = list(dict.fromkeys(g.id for g in q.gpus if g.id in kb.gpus))
    if market is None or not named:
        return []
    rules = [r for r in kb.market_rules if r.market == market.id]
    where = {"en": market.name, "zh": market.name_zh}
    own = [kb.gpus[g].name for r in rules if r.status == "china_market" for g in r.gpus if g in kb.gpus]
    out, covered = [], set()
    for gpu_id in named:
        rule = next((r for r in rules if gpu_id in r.gpus), None)
        if rule is None or gpu_id in covered:
            continue
        ids = [g for g in named if g in rule.gpus]
        covered.update(ids)
        ctx.cite(rule.source)
        out.append(note(f"market_{rule.status}", gpu_names=[kb.gpus[g].name for g in ids], market=where,
                        since=rule.since.isoformat() if rule.since else None, as_of=rule.as_of.isoformat(),
                        alternatives=own if rule.status in _LIMITED else None))
    unknown = [kb.gpus[g].name for g in named if g not in covered]
    if unknown:
        out.append(note("market_unknown", gpu_names=unknown, market=where))
    return out


def apply_market_rules(ctx: Context, out: Answer) -> Answer:
    """Add the market rules to an answer: all of them first when availability is asked ("can I rent ... in China",
    "能买到吗"); else only the limits (licence required, case by case, barred) as warnings. Prices from clouds outside
    that market are said to be so when a GPU named is limited there.

    Args:
        ctx: the context the answer was built with.
        out: the answer of the routed intent.

    Returns:
        The answer with the rules (:func:`market_notes`) added, or ``out`` unchanged when there are none.
    """
    rules = market_notes(ctx)
    if not rules:
        return out
    extra = []
    limited = any(n.code.removeprefix("market_") in _LIMITED for n in rules)
    inside = {pid for pid, pf in ctx.kb.providers.items() if pf.market == ctx.query.market}
    if limited and any(o.price for o in out.options) and not any(o.price.provider in inside
                                                                  for o in out.options if o.price):
        extra.append(note("market_prices_outside", market=rules[0].params["market"]))
    sources = list(dict.fromkeys([*out.sources, *ctx.sources]))
    if "availability" in ctx.query.asks:
        return out.model_copy(update={"headline": rules[0], "details": [*rules[1:], *extra, out.headline,
                                                                       *out.details], "sources": sources})
    # not asked ("国内租 4090 多少钱"): only a limit on a GPU named is worth a warning
    said = [n for n in rules if n.code.removeprefix("market_") in _LIMITED]
    if not said:
        return out
    return out.model_copy(update={"warnings": [*said, *extra, *out.warnings], "sources": sources})
