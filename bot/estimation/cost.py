"""Cost helpers: cheapest offers for a GPU, $/hour, $/1M output tokens.

Formulas (estimation-notes.md, "Cost"): cost per hour = instance price (all its GPUs);
$/1M output tokens = price per hour / (tokens per second x 3600) x 10^6; training cost =
GPU-hours x price per GPU-hour.
"""

from __future__ import annotations

from bot.estimation.common import get_gpu
from bot.estimation.results import EstimationError
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, PriceOffer

__all__ = ["cheapest_offers", "cost_per_million_tokens", "gpu_hour_price", "offer_price_per_gpu_hour", "price_for_gpus"]


def offer_price_per_gpu_hour(offer: PriceOffer) -> float | None:
    """USD per GPU-hour of an offer: ``price_per_hour_usd / gpu_count`` (the price is per instance)."""
    if offer.price_per_hour_usd is None:
        return None
    return offer.price_per_hour_usd / offer.gpu_count


def price_for_gpus(offer: PriceOffer, gpu_count: int) -> float:
    """USD per hour for ``gpu_count`` GPUs rented as ``gpu_count / offer.gpu_count`` instances.

    Raises:
        EstimationError: when the offer has no price or its instance size does not divide ``gpu_count``.
    """
    if offer.price_per_hour_usd is None:
        raise EstimationError(f"{offer.provider} {offer.instance_type} has no price ({offer.unavailable})")
    if gpu_count % offer.gpu_count:
        raise EstimationError(f"{gpu_count} GPUs is not a whole number of {offer.instance_type} instances "
                              f"({offer.gpu_count} GPUs each)")
    return offer.price_per_hour_usd * (gpu_count / offer.gpu_count)


def cheapest_offers(kb: KnowledgeBase, gpu_id: str, gpu_count: int = 1, pricing: str = "on_demand",
                    dated_first: bool = True) -> list[PriceOffer]:
    """Offers that can supply ``gpu_count`` GPUs of ``gpu_id``, cheapest per GPU-hour first.

    Eligible: ``pricing_model == pricing``, a price (not ``None``), no ``condition`` (footnoted or
    minimum-term prices are never "cheapest"), and an instance size that divides ``gpu_count``
    (one 8-GPU instance for 8, or eight 1-GPU instances: per-GPU scaling). Instances with more
    GPUs than asked are left out (you would pay for idle GPUs).

    Order: with ``dated_first`` (default) offers with an ``as_of`` date come before undated
    catalog snapshots (refdata-notes.md: prefer the dated 2026 rows); within each group by
    USD per GPU-hour, then newest ``as_of``. Read each offer's ``as_of`` and show it.

    Args:
        kb: the knowledge base.
        gpu_id: a GPU id.
        gpu_count: GPUs needed (> 0).
        pricing: ``on_demand``, ``spot`` or ``commitment``.

    Returns:
        List of :class:`~bot.kb.schema.PriceOffer` (possibly empty).

    Raises:
        UnknownEntityError: unknown GPU id.
        EstimationError: ``gpu_count`` < 1.
    """
    get_gpu(kb, gpu_id)
    if gpu_count < 1:
        raise EstimationError(f"gpu_count must be >= 1, got {gpu_count}")
    out = [o for o in kb.offers_for(gpu_id)
           if o.pricing_model == pricing and o.price_per_hour_usd is not None and o.condition is None
           and gpu_count % o.gpu_count == 0]

    def key(o: PriceOffer) -> tuple:
        dated = o.as_of is not None
        return ((not dated) if dated_first else False, offer_price_per_gpu_hour(o),
                -(o.as_of.toordinal() if dated else 0))

    return sorted(out, key=key)


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


def gpu_hour_price(kb: KnowledgeBase, gpu: Gpu, count: int, given: float | None
                   ) -> tuple[float | None, str | None, list[str]]:
    """(USD per GPU-hour, where it comes from, warnings) for ``count`` x ``gpu``: ``given`` when the
    caller has a price, else the cheapest on-demand offer holding ``count`` GPUs (or one), dated
    offers first; ``(None, None, [why])`` when no offer is known."""
    if given is not None:
        return given, "price given by the caller", []
    offers = cheapest_offers(kb, gpu.id, count) or cheapest_offers(kb, gpu.id, 1)
    if not offers:
        return None, None, [f"no on-demand price known for {gpu.name}: cost not estimated"]
    o = offers[0]
    src = (f"{o.provider} {o.instance_type} on-demand, ${o.price_per_hour_usd:g}/h for {o.gpu_count} GPU(s)"
           f" ({'as of ' + o.as_of.isoformat() if o.as_of else 'undated catalog snapshot'}; {o.source})")
    warn = [] if o.as_of else [f"price from an undated catalog snapshot ({o.provider} {o.instance_type}); re-check it"]
    return offer_price_per_gpu_hour(o), src, warn
