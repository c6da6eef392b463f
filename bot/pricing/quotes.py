"""Price quotes: what N GPUs of one type cost at each provider, with dates and staleness.

Prices are the knowledge base's offers (USD per hour for a whole instance). An offer can
supply N GPUs when its instance size divides N (one 8-GPU instance, or eight 1-GPU ones);
larger instances are left out (you would pay for idle GPUs). Offers older than
:data:`STALE_AFTER_DAYS` or undated are flagged, since cloud prices change monthly
(estimation-notes.md, "Cost").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import PriceOffer

__all__ = ["STALE_AFTER_DAYS", "QuoteRow", "best_on_demand", "is_stale", "price_age_note", "quote_prices"]

#: Prices older than this many days are flagged in answers (the issue's 90-day rule).
STALE_AFTER_DAYS = 90


def is_stale(offer: PriceOffer, today: date) -> bool:
    """True when ``offer`` is undated or older than :data:`STALE_AFTER_DAYS` on ``today``."""
    return offer.as_of is None or offer.as_of < today - timedelta(days=STALE_AFTER_DAYS)


def price_age_note(offer: PriceOffer, today: date) -> str:
    """``"as of 2026-09-20"``, ``"as of 2026-05-28, older than 90 days"`` or ``"undated catalog snapshot"``."""
    if offer.as_of is None:
        return "undated catalog snapshot"
    if is_stale(offer, today):
        return f"as of {offer.as_of}, older than {STALE_AFTER_DAYS} days"
    return f"as of {offer.as_of}"


@dataclass(frozen=True)
class QuoteRow:
    """One provider's price for ``gpu_count`` GPUs.

    Attributes:
        offer: the knowledge-base offer.
        instances: how many instances of it supply the GPUs.
        price_per_hour_usd: for all ``gpu_count`` GPUs, USD/hour.
        total_usd: ``price_per_hour_usd x duration_hours``.
        stale: undated or older than :data:`STALE_AFTER_DAYS`.
    """

    offer: PriceOffer
    instances: int
    price_per_hour_usd: float
    total_usd: float
    stale: bool

    @property
    def price_per_gpu_hour_usd(self) -> float:
        """USD per GPU-hour."""
        return self.offer.price_per_gpu_hour_usd or 0.0


def quote_prices(kb: KnowledgeBase, gpu_id: str, gpu_count: int, duration_hours: float, *, today: date,
                 provider: str | None = None, pricing: str | None = None, group: int = 1) -> list[QuoteRow]:
    """Every priced offer that can supply ``gpu_count`` x ``gpu_id``, cheapest total first.

    Args:
        kb: the knowledge base.
        gpu_id: a GPU id.
        gpu_count: GPUs wanted (>= 1).
        duration_hours: rental length, hours (> 0).
        today: the date staleness is judged against.
        provider: only this provider id, when given.
        pricing: only this pricing model (``on_demand``, ``spot``, ``commitment``), when given.
        group: GPUs that must sit in one instance (a tensor-parallel group needs NVLink or at least
            one host): offers whose instances hold fewer, or not a multiple, are left out.

    Returns:
        Rows sorted by total (dated offers before undated at equal price).
    """
    rows = []
    for offer in kb.offers_for(gpu_id):
        if offer.price_per_hour_usd is None or gpu_count % offer.gpu_count or offer.gpu_count % max(1, group):
            continue
        if provider and offer.provider != provider:
            continue
        if pricing and offer.pricing_model != pricing:
            continue
        instances = gpu_count // offer.gpu_count
        per_hour = offer.price_per_hour_usd * instances
        rows.append(QuoteRow(offer, instances, per_hour, per_hour * duration_hours, is_stale(offer, today)))
    rows.sort(key=lambda r: (r.total_usd, r.offer.as_of is None, r.offer.provider))
    # one row per (provider, instance, price, pricing): a dated re-check beats the undated snapshot of it
    seen, unique = set(), []
    for r in sorted(rows, key=lambda r: r.offer.as_of is None):
        key = (r.offer.provider, r.offer.instance_type, r.offer.price_per_hour_usd, r.offer.pricing_model)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    unique.sort(key=lambda r: (r.total_usd, r.offer.as_of is None, r.offer.provider))
    return unique


def best_on_demand(kb: KnowledgeBase, gpu_id: str, gpu_count: int, *, today: date,
                   provider: str | None = None, group: int = 1) -> QuoteRow | None:
    """The cheapest on-demand offer for ``gpu_count`` x ``gpu_id``, preferring fresh prices.

    Fresh (dated within :data:`STALE_AFTER_DAYS`) offers win over stale or undated ones, since an
    old catalog price is not what a user pays today (refdata-notes.md section 6: Lambda went up,
    AWS went down). Offers with a ``condition`` (footnotes, minimum terms) are never chosen;
    marketplace offers (Vast.ai) are used only when nothing else is known.

    ``group`` GPUs must share an instance (see :func:`quote_prices`).

    Returns:
        The :class:`QuoteRow` for a one-hour rental, or ``None`` when no offer fits.
    """
    rows = [r for r in quote_prices(kb, gpu_id, gpu_count, 1.0, today=today, provider=provider, pricing="on_demand",
                                    group=group) if r.offer.condition is None]
    if not rows:
        return None
    rows.sort(key=lambda r: (r.offer.marketplace, r.stale, r.price_per_hour_usd))
    return rows[0]
