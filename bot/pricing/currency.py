"""Currency: the dated CNY/USD rate an answer converts with when a user asks in RMB.

The rate is a knowledge entry with its date and source (the claims file's constants, or a refreshed price
table when it carries one); an answer that converts says which rate and date it used.
"""

from __future__ import annotations

from bot.kb.loader import KnowledgeBase

__all__ = ["cny_per_usd"]


def cny_per_usd(kb: KnowledgeBase) -> tuple[float, str] | None:
    """(CNY per USD, the rate's date) from the knowledge base, or ``None`` when it has no dated rate."""
    rate = getattr(kb, "cny_per_usd", None)
    if rate is not None:
        return rate
    constant = kb.claim_constants.get("cny_per_usd") if kb.claim_constants else None
    if constant is not None:
        return float(constant.value), str(constant.as_of)
    return None
