"""Price mentions: secondary-source price figures for GPUs no tracked cloud lists (``knowledge/prices/common/
price_mentions.yaml``), and the nearest priced card for them. They are never offers: an answer shows them with
their source and caveat, CNY as published and USD derived with the dated rate, so a team can decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import PriceMention
from bot.pricing.currency import cny_per_usd

__all__ = ["MentionPrice", "mention_for", "mention_prices"]


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


def mention_for(kb: KnowledgeBase, gpu_id: str, providers: tuple[str, ...] | list[str] = ()) -> MentionPrice | None:
    """The one secondary-source figure every kind of answer uses for ``gpu_id`` (quote, serving, fine-tuning,
    training, batch jobs, comparisons), so a card gets the same price everywhere.

    Args:
        kb: the knowledge base.
        gpu_id: a GPU id (a stated-memory copy ``"a100-sxm-80gb@120gb"`` has none: it is not the stock card).
        providers: the providers the question names: a figure for one of them comes first.

    Returns:
        The named provider's figure when there is one; else, for a GPU no tracked cloud lists at all (A800, H20,
        L20), the first secondary figure (an unverified range is never used as a price); else ``None`` (a GPU with
        list prices is priced from them: a figure for AutoDL is used only when AutoDL is asked about).
    """
    found = [m for m in mention_prices(kb, gpu_id) if m.mention.reliability == "secondary"]
    named = [m for m in found if m.mention.provider is not None and m.mention.provider in providers]
    if named:
        return named[0]
    return found[0] if found and not kb.offers_for(gpu_id) else None
