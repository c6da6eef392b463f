"""Price mentions: secondary-source price figures for GPUs no tracked cloud lists (``knowledge/prices/common/
price_mentions.yaml``), and the nearest priced card for them. They are never offers: an answer shows them with
their source and caveat, CNY as published and USD derived with the dated rate, so a team can decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import PriceMention
from bot.pricing.currency import cny_per_usd

__all__ = ["MentionPrice", "mention_prices"]


@dataclass(frozen=True)
class MentionPrice:
    """One mention with its USD figures.

    Attributes:
        mention: the knowledge entry (figure as published, source, caveat, date).
        low_usd: the figure (or a range's low end) per GPU-hour, USD; derived from CNY with the dated rate.
        high_usd: a range's high end per GPU-hour, USD.
        rate: the CNY-per-USD rate used and its date, ``None`` for a USD figure or when no rate is known
            (then ``low_usd``/``high_usd`` are ``None`` for a CNY figure).
    """

    mention: PriceMention
    low_usd: float | None
    high_usd: float | None
    rate: tuple[float, str] | None


def mention_prices(kb: KnowledgeBase, gpu_id: str) -> list[MentionPrice]:
    """The price mentions of ``gpu_id``, secondary sources before unverified ones.

    Args:
        kb: the knowledge base.
        gpu_id: a GPU id.

    Returns:
        One :class:`MentionPrice` per mention (empty when none); USD = CNY / (CNY per USD) with the dated rate of
        ``exchange_rates.yaml``.
    """
    rate = cny_per_usd(kb)
    out = []
    for m in sorted(kb.price_mentions.get(gpu_id, ()), key=lambda m: m.reliability != "secondary"):
        if m.currency == "usd":
            out.append(MentionPrice(m, m.low_per_gpu_hour, m.high_per_gpu_hour, None))
        elif rate is not None:
            out.append(MentionPrice(m, m.low_per_gpu_hour / rate[0], m.high_per_gpu_hour / rate[0], rate))
        else:
            out.append(MentionPrice(m, None, None, None))
    return out
