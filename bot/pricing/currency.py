"""Currency: the dated rates an answer converts a user's amounts with (CNY, EUR), and the currencies it cannot.

Every price in the knowledge base is in USD. A rate is a knowledge entry with its date and source
(``knowledge/prices/common/exchange_rates.yaml``, read by :func:`bot.pricing.offers.exchange_rate`); an answer that
converts says which rate and date it used. A currency the parser reads but no rate covers (GBP, JPY, BTC, ...) is
never treated as dollars: :func:`to_usd` returns ``None`` and the answer says the amount was not used.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.kb.loader import KnowledgeBase
from bot.pricing.offers import exchange_rate

__all__ = ["Conversion", "cny_per_usd", "to_usd"]


@dataclass(frozen=True)
class Conversion:
    """An amount converted to USD.

    Attributes:
        usd: the amount in USD (``amount / per_usd``).
        currency: the currency converted from, lower-case (``"eur"``).
        per_usd: units of that currency per 1 USD (the rate's ``per_usd``).
        rate_date: the rate's date, ISO (``"2026-05-08"``).
        source: where the rate comes from.
    """

    usd: float
    currency: str
    per_usd: float
    rate_date: str
    source: str


def cny_per_usd(kb: KnowledgeBase) -> tuple[float, str] | None:
    """(CNY per USD, the rate's date) from the knowledge base, or ``None`` when it has no dated rate."""
    rate = exchange_rate(kb, "CNY")
    if rate is None:
        return None
    return float(rate.per_usd), rate.date.isoformat() if hasattr(rate.date, "isoformat") else str(rate.date)


def to_usd(kb: KnowledgeBase, amount: float, currency: str) -> Conversion | None:
    """``amount`` of ``currency`` in USD at the knowledge base's newest dated rate for it.

    Args:
        kb: the knowledge base (its ``exchange_rates``).
        amount: the amount, in ``currency``.
        currency: a currency code as the parser writes it (``"usd"``, ``"cny"``, ``"eur"``, ``"gbp"``, ...).

    Returns:
        The :class:`Conversion` (USD itself converts at 1), or ``None`` when the knowledge base has no rate for the
        currency: the caller must say the amount was not used, never take it as dollars.
    """
    if currency == "usd":
        return Conversion(usd=amount, currency="usd", per_usd=1.0, rate_date="", source="")
    rate = exchange_rate(kb, currency.upper())
    if rate is None:
        return None
    when = rate.date.isoformat() if hasattr(rate.date, "isoformat") else str(rate.date)
    return Conversion(usd=amount / float(rate.per_usd), currency=currency, per_usd=float(rate.per_usd),
                      rate_date=when, source=rate.source)
