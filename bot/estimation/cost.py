"""Cost helpers: $/1M output tokens, and the price per GPU-hour a run is costed at.

Formulas (estimation-notes.md, "Cost"): cost per hour = instance price (all its GPUs);
$/1M output tokens = price per hour / (tokens per second x 3600) x 10^6; training cost =
GPU-hours x price per GPU-hour. Which offer prices a configuration is decided in one place,
:func:`bot.pricing.offers.best_placement`, so ``estimate`` and ``ask`` price alike.
"""

from __future__ import annotations

from datetime import date

from bot.estimation.results import EstimationError
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu

__all__ = ["cost_per_million_tokens", "gpu_hour_price"]


def gpu_hour_price(kb: KnowledgeBase, gpu: Gpu, count: int, given: float | None, *, today: date | None = None
                   ) -> tuple[float | None, str | None, list[str]]:
    """(USD per GPU-hour, where it comes from, warnings) for ``count`` x ``gpu``.

    ``given`` when the caller has a price; else the on-demand placement answers use
    (:func:`bot.pricing.offers.best_placement`: fresh list prices first, whole instances holding groups of up
    to 8 GPUs, a larger instance's idle GPUs paid for), whose price per GPU-hour is its price / ``count``;
    ``(None, None, [why])`` when no offer is known.
    """
    from bot.pricing.offers import best_placement, offer_table

    if given is not None:
        return given, "price given by the caller", []
    p = best_placement(offer_table(kb), gpu.id, count, today=today or date.today(), group=min(count, 8))
    if p is None:
        return None, None, [f"no on-demand price known for {gpu.name}: cost not estimated"]
    o = p.offer
    when = f"as of {o.as_of.isoformat()}" if o.as_of else "undated catalog snapshot"
    src = (f"{o.provider_name} {o.instance_type} on-demand, ${o.price_per_hour_usd:g}/h for {o.gpu_count} GPU(s)"
           f" x {p.instances} ({when}, {o.origin}; {o.source})")
    warn = []
    if o.as_of is None:
        warn.append(f"price from an undated catalog snapshot ({o.provider} {o.instance_type}); re-check it")
    elif p.stale:
        warn.append(f"price older than {o.stale_after_days} days ({o.provider} {o.instance_type}, as of {o.as_of})")
    if p.idle_gpus:
        warn.append(f"{p.idle_gpus} GPU(s) of the rented {o.instance_type} instances are idle and paid for")
    return p.price_per_hour_usd / count, src, warn


def cost_per_million_tokens(price_per_hour_usd: float, tokens_per_s: float) -> float:
    """USD per 1M output tokens: ``price_per_hour_usd / (tokens_per_s x 3600) x 1e6``.

    Args:
        price_per_hour_usd: what all the GPUs producing ``tokens_per_s`` cost per hour, USD.
        tokens_per_s: aggregate output tokens per second.

    Raises:
        EstimationError: when ``tokens_per_s`` <= 0 or the price is negative.
    """
    if tokens_per_s <= 0:
        raise EstimationError(f"tokens_per_s must be positive, got {tokens_per_s}")
    if price_per_hour_usd < 0:
        raise EstimationError(f"price must be >= 0, got {price_per_hour_usd}")
    return price_per_hour_usd / (tokens_per_s * 3600) * 1e6
