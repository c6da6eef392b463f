"""Offers and placements: how N GPUs of one type can really be rented, and for how much.

An :class:`Offer` is one instance type at one provider under one pricing model (USD per hour for the
whole instance, all its GPUs). A :class:`Placement` is a way to get ``gpus_needed`` GPUs out of one
offer: ``instances`` copies of the instance, every tensor-parallel group of ``group`` GPUs inside one
instance (one host, NVLink where the card has it). When the instance holds more GPUs than needed the
extra ones are paid for and idle (DigitalOcean rents MI300X only as 1x or 8x droplets: four MI300X in
one TP group cost the 8x droplet). A group that no instance can hold is only placed across instances
when the caller allows it, and the placement says so (``group_split``).

Every offer-choosing rule of the product lives here, so ``ask`` and ``estimate`` price alike
(cost = instance price x instances, estimation-notes.md "Cost").
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import PriceOffer

__all__ = [
    "STALE_AFTER_DAYS",
    "Offer",
    "OfferTable",
    "Placement",
    "PricingModel",
    "best_placement",
    "offer_from_knowledge",
    "offer_table",
    "place",
]

PricingModel = Literal["on_demand", "spot", "commitment"]

#: Prices older than this many days are flagged in answers: cloud prices change monthly
#: (estimation-notes.md, "Cost": flag prices older than 90 days).
STALE_AFTER_DAYS = 90


@dataclass(frozen=True)
class Offer:
    """One rentable instance type at a price.

    Attributes:
        provider: provider id (``"aws"``).
        provider_name: display name (``"AWS"``).
        instance_type: the provider's name for the instance (``"p5.48xlarge"``).
        gpu: knowledge-base GPU id.
        gpu_count: GPUs in one instance.
        price_per_hour_usd: the whole instance, USD/hour.
        pricing_model: ``on_demand``, ``spot`` (interruptible) or ``commitment`` (reserved).
        commitment_term: for commitments, the term as the source states it (``"1y"``, ``"3y"``).
        region: region code, when known.
        as_of: date of the price; ``None`` for an undated catalog snapshot.
        source: where the price comes from (URL or catalog name).
        origin: ``curated`` (``knowledge/prices/``) or ``catalog`` (a refreshed live catalog).
        marketplace: one host's asking price (Vast.ai), not a list price.
        condition: a caveat the source attaches (footnote, minimum term); never chosen as "cheapest".
    """

    provider: str
    provider_name: str
    instance_type: str
    gpu: str
    gpu_count: int
    price_per_hour_usd: float
    pricing_model: PricingModel
    as_of: date | None
    source: str
    commitment_term: str | None = None
    region: str | None = None
    origin: Literal["curated", "catalog"] = "curated"
    marketplace: bool = False
    condition: str | None = None

    @property
    def price_per_gpu_hour_usd(self) -> float:
        """USD per GPU-hour: ``price_per_hour_usd / gpu_count``."""
        return self.price_per_hour_usd / self.gpu_count

    def is_stale(self, today: date) -> bool:
        """Undated, or older than :data:`STALE_AFTER_DAYS` on ``today``."""
        return self.as_of is None or self.as_of < today - timedelta(days=STALE_AFTER_DAYS)


def offer_from_knowledge(offer: PriceOffer, provider_name: str) -> Offer | None:
    """The :class:`Offer` for a curated ``knowledge/prices`` row, or ``None`` when it has no price."""
    if offer.price_per_hour_usd is None:
        return None
    return Offer(provider=offer.provider, provider_name=provider_name, instance_type=offer.instance_type,
                 gpu=offer.gpu, gpu_count=offer.gpu_count, price_per_hour_usd=offer.price_per_hour_usd,
                 pricing_model=offer.pricing_model, as_of=offer.as_of, source=offer.source,
                 commitment_term=offer.commitment_term, region=offer.region, origin="curated",
                 marketplace=offer.marketplace, condition=offer.condition)


class OfferTable:
    """Every priced offer, indexed once by GPU (build with :func:`offer_table`).

    Args:
        offers: the offers; duplicates (same provider, instance, pricing model, price) keep the
            dated one, since a dated re-check of a catalog row is the better record.
    """

    def __init__(self, offers: Iterable[Offer]):
        unique: dict[tuple, Offer] = {}
        for o in offers:
            key = (o.provider, o.instance_type, o.pricing_model, o.commitment_term, round(o.price_per_hour_usd, 4))
            kept = unique.get(key)
            if kept is None or (kept.as_of is None and o.as_of is not None) or (
                    kept.as_of and o.as_of and o.as_of > kept.as_of):
                unique[key] = o
        self._by_gpu: dict[str, list[Offer]] = {}
        for o in unique.values():
            self._by_gpu.setdefault(o.gpu, []).append(o)
        self.offers: list[Offer] = list(unique.values())

    def for_gpu(self, gpu: str, *, pricing_model: str | None = None, provider: str | None = None) -> list[Offer]:
        """Offers of ``gpu``, optionally of one pricing model and one provider."""
        return [o for o in self._by_gpu.get(gpu, ())
                if (pricing_model is None or o.pricing_model == pricing_model)
                and (provider is None or o.provider == provider)]

    def gpus(self) -> list[str]:
        """GPU ids that have at least one priced offer, in first-seen order."""
        return list(self._by_gpu)

    def shapes(self, gpu: str, *, provider: str | None = None, pricing_model: str | None = None) -> list[int]:
        """GPU counts per instance in which ``gpu`` can be rented, ascending."""
        return sorted({o.gpu_count for o in self.for_gpu(gpu, pricing_model=pricing_model, provider=provider)})


def offer_table(kb: KnowledgeBase) -> OfferTable:
    """The :class:`OfferTable` of ``kb``'s curated prices, built once and kept with the knowledge base."""
    table = kb._cache.get("offer_table")
    if table is None:
        names = {p.provider: p.provider_name for p in kb.providers.values()}
        offers = (offer_from_knowledge(o, names.get(o.provider, o.provider)) for o in kb.offers)
        table = kb._cache["offer_table"] = OfferTable(o for o in offers if o is not None)
    return table


@dataclass(frozen=True)
class Placement:
    """``gpus_needed`` GPUs rented as ``instances`` x ``offer``.

    Attributes:
        offer: the instance type and its price.
        instances: how many instances are rented.
        gpus_needed: GPUs the configuration uses.
        group: GPUs that must share one instance (a tensor-parallel group).
        group_split: a group had to span instances (no instance holds ``group`` GPUs): the GPUs of one
            group then have no fast interconnect between them, which the caller must say.
        price_per_hour_usd: ``instances x offer.price_per_hour_usd``, USD/hour.
        stale: the price is undated or older than :data:`STALE_AFTER_DAYS`.
    """

    offer: Offer
    instances: int
    gpus_needed: int
    group: int
    group_split: bool
    price_per_hour_usd: float
    stale: bool

    @property
    def gpus_rented(self) -> int:
        """GPUs paid for: ``instances x offer.gpu_count``."""
        return self.instances * self.offer.gpu_count

    @property
    def idle_gpus(self) -> int:
        """GPUs paid for and not used."""
        return self.gpus_rented - self.gpus_needed

    @property
    def separate_instances(self) -> bool:
        """More than one instance: fine for independent replicas, to be said for anything else."""
        return self.instances > 1


def place(table: OfferTable, gpu: str, gpus_needed: int, *, today: date, group: int = 1,
          pricing_model: str | None = "on_demand", provider: str | None = None,
          allow_split: bool = False) -> list[Placement]:
    """Every way to rent ``gpus_needed`` x ``gpu`` with each group of ``group`` GPUs in one instance.

    An instance of ``m`` GPUs hosts ``m // group`` groups; ``ceil(gpus_needed / group)`` groups need
    ``ceil(groups / (m // group))`` instances. Instances too small for a group are used only with
    ``allow_split`` (then ``group_split`` is set).

    Args:
        table: the offers.
        gpu: GPU id.
        gpus_needed: GPUs the configuration uses (>= 1).
        today: the date staleness is judged against.
        group: GPUs that must share an instance (>= 1).
        pricing_model: only this pricing model; ``None`` for all.
        provider: only this provider, when given.
        allow_split: also place groups across instances that cannot hold one.

    Returns:
        Placements, cheapest per hour first (dated before undated at equal price).
    """
    group = max(1, group)
    gpus_needed = max(1, gpus_needed)
    out = []
    for offer in table.for_gpu(gpu, pricing_model=pricing_model, provider=provider):
        per_instance = offer.gpu_count // group
        split = per_instance == 0
        if split and not allow_split:
            continue
        if split:
            instances = math.ceil(gpus_needed / offer.gpu_count)
        else:
            instances = math.ceil(math.ceil(gpus_needed / group) / per_instance)
        out.append(Placement(offer, instances, gpus_needed, group, split,
                             instances * offer.price_per_hour_usd, offer.is_stale(today)))
    out.sort(key=lambda p: (p.price_per_hour_usd, p.offer.as_of is None, p.offer.provider))
    return out


def best_placement(table: OfferTable, gpu: str, gpus_needed: int, *, today: date, group: int = 1,
                   pricing_model: str = "on_demand", provider: str | None = None,
                   allow_split: bool = False) -> Placement | None:
    """The placement an answer prices a configuration with.

    Policy: offers with a ``condition`` (footnotes, minimum terms) are never chosen; whole groups in
    one instance before split groups; instances the GPUs fill before larger ones that leave GPUs idle
    (paying for unused GPUs is never what a user asks for when a fitting size exists); list prices before
    marketplace asks (Vast.ai); fresh prices before stale or undated ones, since an old catalog price is
    not what a user pays today (refdata-notes.md section 6); then the lowest price per hour.

    Returns:
        The :class:`Placement`, or ``None`` when no offer can supply the GPUs.
    """
    rows = [p for p in place(table, gpu, gpus_needed, today=today, group=group, pricing_model=pricing_model,
                             provider=provider, allow_split=allow_split) if p.offer.condition is None]
    if not rows:
        return None
    return min(rows, key=lambda p: (p.group_split, p.idle_gpus > 0, p.offer.marketplace, p.stale,
                                    p.price_per_hour_usd))
