"""Currency: the dated CNY/USD rate an answer converts with when a user asks in RMB.

The rate is a knowledge entry with its date and source (``knowledge/prices/common/exchange_rates.yaml``, read by
:func:`bot.pricing.offers.exchange_rate`); an answer that converts says which rate and date it used.
"""

from __future__ import annotations

from bot.kb.loader import KnowledgeBase
from bot.pricing.offers import exchange_rate

__all__ = ["cny_per_usd"]


def cny_per_usd(kb: KnowledgeBase) -> tuple[float, str] | None:
    """(CNY per USD, the rate's date) from the knowledge base, or ``None`` when it has no dated rate."""
    rate = exchange_rate(kb, "CNY")
    if rate is None:
        return None
    return float(rate.per_usd), rate.date.isoformat() if hasattr(rate.date, "isoformat") else str(rate.date)
