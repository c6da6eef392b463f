"""Offers and placements: how N GPUs of one type can really be rented, and for how much.

An :class:`Offer` is one instance type at one provider under one pricing model (USD per hour for the
whole instance, all its GPUs). A :class:`Placement` is a way to get ``gpus_needed`` GPUs out of one
offer: ``instances`` copies of the instance, every tensor-parallel group of ``group`` GPUs inside one
instance (one host, NVLink where the card has it). When the instance holds more GPUs than needed the
extra ones are paid for and idle (DigitalOcean rents MI300X only as 1x or 8x droplets: four MI300X in
one TP group cost the 8x droplet). A group that no instance can hold is only placed across instances
when the caller allows it, and the placement says so (``group_split``).

The offer table merges two origins: the curated rows of ``knowledge/prices/`` (commitment terms,
China-market clouds, providers no catalog covers) and the live catalog a ``prices refresh`` stored in
the state store (gpuhunt). Where the two describe the same instance, pricing model and region, the
newer dated row wins; every :class:`Offer` says its ``origin`` and ``source``. The core never reads
the database: the edge (CLI, server) hands the catalog in with :func:`set_catalog`.

Every offer-choosing rule of the product lives here, so ``ask`` and ``estimate`` price alike
(cost = instance price x instances, estimation-notes.md "Cost").
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import ExchangeRate, InstanceShape, PriceOffer

__all__ = [
    "CATALOG_STALE_AFTER_DAYS",
    "STALE_AFTER_DAYS",
    "CatalogRefreshInfo",
    "CatalogSnapshot",
    "Offer",
    "OfferRule",
    "OfferTable",
    "Placement",
    "PricingModel",
    "ProviderPriceStatus",
    "best_placement",
    "billed_hours",
    "current_catalog",
    "exchange_rate",
    "merge_offers",
    "offer_from_knowledge",
    "offer_table",
    "place",
    "provider_status",
    "set_catalog",
]

PricingModel = Literal["on_demand", "spot", "commitment"]
Origin = Literal["curated", "catalog"]

#: Curated prices older than this many days are flagged in answers: cloud prices change monthly
#: (estimation-notes.md, "Cost": flag prices older than 90 days).
STALE_AFTER_DAYS = 90
#: Catalog prices are refreshed daily; one older than this many days means refreshing has stopped
#: (issue 16: "stale (> 30 days for catalog prices) flagged").
CATALOG_STALE_AFTER_DAYS = 30

#: Hours in a commitment month: 365 x 24 / 12 = 730 (the convention of AWS and GCP price lists).
HOURS_PER_MONTH = 730


def billed_hours(hours: float, term_hours: float | None) -> float:
    """Hours paid for ``hours`` of use: a commitment is billed for whole terms, anything else for the hours used.

    A 1-year commitment (8,760 h) bought for a 3-month need (2,190 h) is paid for 8,760 h; a need longer than one
    term pays for ``ceil(hours / term_hours)`` terms (AWS Reserved Instances and GCP committed use discounts bill
    every hour of the term whether used or not: AWS "Reserved Instances" and GCP "Committed use discounts" docs).

    Args:
        hours: hours of use asked, h (> 0).
        term_hours: the commitment term in hours (:attr:`Offer.term_hours`), or ``None`` for on-demand and spot.

    Returns:
        The hours billed, h.
    """
    if not term_hours or hours <= 0:
        return hours
    return math.ceil(hours / term_hours - 1e-9) * float(term_hours)


@dataclass(frozen=True)
class OfferRule:
    """How one offer is preferred to another, the same for every answer (``knowledge/policy.yaml`` ``offers``).

    The rank is: a placement that keeps every tensor-parallel group in one instance before one that splits a group;
    one that rents just the GPUs needed before one that pays for idle GPUs; then, when ``undated_after_dated``, a
    dated price before an undated catalog snapshot (an undated row cannot be checked, and the snapshots are known to
    be older than the dated pages: refdata-notes.md section 6); when ``marketplace_after_list``, a list price before a
    marketplace host's ask; then the lowest price per hour. Staleness of a dated price is never a penalty: it is
    warned about, and only breaks a tie in price.

    Attributes:
        undated_after_dated: undated prices are used only when no dated price rents the count.
        marketplace_after_list: marketplace asks (Vast.ai) are used only when no list price rents the count.
    """

    undated_after_dated: bool = False
    marketplace_after_list: bool = False

    def rank(self, *, group_split: bool, idle_gpus: int, undated: bool, marketplace: bool,
             price_per_hour_usd: float, stale: bool, provider: str = "") -> tuple:
        """The sort key of one priced way to rent GPUs (smaller is preferred); prices compare to the cent."""
        return (group_split, idle_gpus > 0, self.undated_after_dated and undated,
                self.marketplace_after_list and marketplace, round(price_per_hour_usd, 2), stale, undated, provider)

    def best(self, placements: Iterable[Placement]) -> Placement | None:
        """The placement this rule prefers among ``placements`` (smallest :meth:`Placement.rank`), or ``None`` when
        there is none: every picker that chooses among placements already filtered for its question (a provider,
        an exact count, a stand-in card) chooses with this, so no answer ranks offers its own way."""
        return min(placements, key=lambda p: p.rank(self), default=None)

    def classes(self, o: Offer) -> tuple[bool, bool]:
        """The (undated, marketplace) class of an offer under this rule: offers of one class compare by price."""
        return (self.undated_after_dated and o.as_of is None, self.marketplace_after_list and o.marketplace)


@dataclass(frozen=True, slots=True)
class Offer:
    """One rentable instance type at a price.

    Attributes:
        provider: provider id (``"aws"``).
        provider_name: display name (``"AWS"``).
        instance_type: the provider's name for the instance (``"p5.48xlarge"``).
        gpu: knowledge-base GPU id.
        gpu_count: GPUs in one instance.
        price_per_hour_usd: the whole instance, USD/hour (for a CNY price: derived with ``cny_per_usd``).
        pricing_model: ``on_demand``, ``spot`` (interruptible) or ``commitment`` (reserved).
        as_of: date of the price; ``None`` for an undated catalog snapshot.
        source: where the price comes from (URL, catalog name and version).
        commitment_term: for commitments, the term as the source states it (``"1y"``, ``"3 years"``).
        region: region (or zone) code, when known.
        origin: ``curated`` (``knowledge/prices/``) or ``catalog`` (a refreshed live catalog).
        marketplace: one host's asking price (Vast.ai), not a list price.
        condition: a caveat the source attaches (footnote, minimum term); never chosen by
            :func:`best_placement`.
        term_months: commitment term in months (12, 36); ``None`` otherwise.
        upfront: commitments: ``none``, ``partial`` or ``all`` paid in advance; ``None`` when the
            source does not say (or not a commitment).
        interruption_frequency: spot: how often such instances are reclaimed, as the source buckets it
            (AWS Spot Instance Advisor, per month: ``"<5%"`` ... ``">20%"``); ``None`` when not given.
        currency: the currency the source published the price in (``USD`` or ``CNY``).
        price_per_hour_cny: the whole instance in CNY/hour as published (``currency == "CNY"``).
        cny_per_usd: the exchange rate the USD price was derived with (CNY per USD).
        fx_date: the date of that exchange rate.
        gpu_variant_verified: ``False`` when the source does not say SXM vs PCIe (the knowledge base's
            default variant for the name is assumed).
        catalog_gpu_name: catalog rows: the GPU as the catalog names it (``"H100 80GB"``).
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
    origin: Origin = "curated"
    marketplace: bool = False
    condition: str | None = None
    term_months: int | None = None
    upfront: Literal["none", "partial", "all"] | None = None
    interruption_frequency: str | None = None
    currency: Literal["USD", "CNY"] = "USD"
    price_per_hour_cny: float | None = None
    cny_per_usd: float | None = None
    fx_date: date | None = None
    gpu_variant_verified: bool = True
    catalog_gpu_name: str | None = None

    @property
    def price_per_gpu_hour_usd(self) -> float:
        """USD per GPU-hour: ``price_per_hour_usd / gpu_count``."""
        return self.price_per_hour_usd / self.gpu_count

    @property
    def price_per_gpu_hour_cny(self) -> float | None:
        """CNY per GPU-hour as published (``price_per_hour_cny / gpu_count``), or ``None`` for USD prices."""
        return None if self.price_per_hour_cny is None else self.price_per_hour_cny / self.gpu_count

    @property
    def interruptible(self) -> bool:
        """Spot capacity: the provider may reclaim the instance at short notice (checkpoint the work)."""
        return self.pricing_model == "spot"

    @property
    def term_hours(self) -> int | None:
        """Commitment term in hours: ``term_months x 730`` (8,760 for a year), or ``None``."""
        return None if self.term_months is None else self.term_months * HOURS_PER_MONTH

    @property
    def upfront_usd(self) -> float | None:
        """All-upfront commitments: the payment due at the start, USD.

        ``price_per_hour_usd`` of an all-upfront row is its effective hourly rate (the payment spread
        over the term), so the payment is ``price_per_hour_usd x term_hours`` (derived). ``None`` for
        anything else (no-upfront commitments pay only the hourly rate; partial upfront splits are
        not recorded).
        """
        if self.upfront != "all" or self.term_hours is None:
            return None
        return self.price_per_hour_usd * self.term_hours

    @property
    def stale_after_days(self) -> int:
        """:data:`CATALOG_STALE_AFTER_DAYS` for catalog rows, :data:`STALE_AFTER_DAYS` for curated ones."""
        return CATALOG_STALE_AFTER_DAYS if self.origin == "catalog" else STALE_AFTER_DAYS

    def age_days(self, today: date) -> int | None:
        """Days from ``as_of`` to ``today``; ``None`` when undated."""
        return None if self.as_of is None else (today - self.as_of).days

    def is_stale(self, today: date) -> bool:
        """Undated, or older than :attr:`stale_after_days` on ``today``."""
        return self.as_of is None or self.as_of < today - timedelta(days=self.stale_after_days)


def offer_from_knowledge(offer: PriceOffer, provider_name: str,
                         rates: dict[str, ExchangeRate] | None = None) -> Offer | None:
    """The :class:`Offer` for a curated ``knowledge/prices`` row, or ``None`` when it has no price.

    Args:
        offer: the row.
        provider_name: the provider's display name.
        rates: exchange rates by id, for rows published in CNY (their rate and its date are copied).
    """
    if offer.price_per_hour_usd is None:
        return None
    rate = (rates or {}).get(offer.fx_rate) if offer.fx_rate else None
    return Offer(provider=offer.provider, provider_name=provider_name, instance_type=offer.instance_type,
                 gpu=offer.gpu, gpu_count=offer.gpu_count, price_per_hour_usd=offer.price_per_hour_usd,
                 pricing_model=offer.pricing_model, as_of=offer.as_of, source=offer.source,
                 commitment_term=offer.commitment_term, region=offer.region, origin="curated",
                 marketplace=offer.marketplace, condition=offer.condition, term_months=offer.term_months,
                 upfront=offer.upfront, interruption_frequency=offer.interruption_frequency,
                 currency=offer.currency, price_per_hour_cny=offer.price_per_hour_cny,
                 cny_per_usd=rate.per_usd if rate else None, fx_date=rate.date if rate else None,
                 gpu_variant_verified=offer.gpu_variant_verified)


# --------------------------------------------------------------------------- the catalog handed in by the edge

@dataclass(frozen=True)
class CatalogRefreshInfo:
    """The last refresh of one provider's catalog prices, as the state store recorded it.

    Attributes:
        provider: provider id.
        refreshed_at: when the refresh ran (UTC).
        status: ``refreshed`` (its table replaced), ``kept_last`` (fetched but implausible, or failed:
            the last good table stays), ``skipped`` (not queried: no network, no credentials).
        reason: why it was kept or skipped; ``None`` when refreshed.
        as_of: the catalog's date for a refreshed table.
        offers: offers stored by that refresh.
        unmapped: catalog GPU names that map to no knowledge-base GPU, with their row counts
            (``("A16 16GB", 12)``).
        malformed: catalog rows that could not be read.
    """

    provider: str
    refreshed_at: datetime
    status: Literal["refreshed", "kept_last", "skipped"]
    reason: str | None = None
    as_of: date | None = None
    offers: int = 0
    unmapped: tuple[tuple[str, int], ...] = ()
    malformed: int = 0


@dataclass(frozen=True)
class CatalogSnapshot:
    """The refreshed catalog as stored: its offers and the last refresh of each provider.

    A snapshot is eager (``offers`` holds every offer: the server loads one per generation) or lazy
    (``loader`` reads one GPU's offers when that GPU is first priced: ``gpu-advisor ask`` reads only what
    it prices, so a 20,000-offer catalog costs a few milliseconds).

    Attributes:
        generation: changes whenever the stored catalog changes (the id of the last refresh run).
        offers: the stored catalog offers (``origin == "catalog"``); empty for a lazy snapshot.
        refreshes: the last refresh attempt of each provider, newest first.
        last_good: the last refresh of each provider that replaced its table (the table in use).
        loader: lazy snapshots: returns the stored offers of one GPU id.
        gpu_ids: lazy snapshots: the GPU ids that have stored offers.
    """

    generation: int
    offers: tuple[Offer, ...] = ()
    refreshes: tuple[CatalogRefreshInfo, ...] = ()
    last_good: tuple[CatalogRefreshInfo, ...] = ()
    loader: Callable[[str], Iterable[Offer]] | None = field(default=None, compare=False, repr=False)
    gpu_ids: tuple[str, ...] | None = field(default=None, compare=False)
    _by_gpu: dict = field(default_factory=dict, compare=False, repr=False)

    def offers_for(self, gpu: str) -> tuple[Offer, ...]:
        """The stored offers of ``gpu`` (read on first use for a lazy snapshot, then kept)."""
        cached = self._by_gpu.get(gpu)
        if cached is not None:
            return cached
        if self.loader is not None:
            cached = tuple(self.loader(gpu))
        else:
            if None not in self._by_gpu:  # group every offer once
                grouped: dict[str, list[Offer]] = {}
                for o in self.offers:
                    grouped.setdefault(o.gpu, []).append(o)
                self._by_gpu.update({g: tuple(rows) for g, rows in grouped.items()})
                self._by_gpu[None] = ()
            cached = self._by_gpu.get(gpu, ())
        self._by_gpu[gpu] = cached
        return cached

    def gpus(self) -> tuple[str, ...]:
        """GPU ids with stored offers."""
        if self.loader is not None:
            return self.gpu_ids or ()
        self.offers_for("")  # groups the offers once
        return tuple(g for g, rows in self._by_gpu.items() if g and rows)

    def materialized(self) -> CatalogSnapshot:
        """The same snapshot with every offer read (eager)."""
        if self.loader is None:
            return self
        offers = tuple(o for gpu in self.gpus() for o in self.offers_for(gpu))
        return CatalogSnapshot(self.generation, offers, self.refreshes, self.last_good)


_catalog_lock = threading.Lock()
_catalog: CatalogSnapshot | None = None
_catalog_loader: Callable[[], CatalogSnapshot | None] | None = None


def set_catalog(catalog: CatalogSnapshot | Callable[[], CatalogSnapshot | None] | None) -> None:
    """Hand the refreshed catalog to :func:`offer_table` (called by the CLI and the server, never by the core).

    Args:
        catalog: a snapshot; or a function returning one, called once on first use (so a command that
            never prices reads nothing); or ``None`` for curated prices only.
    """
    global _catalog, _catalog_loader
    with _catalog_lock:
        if callable(catalog) and not isinstance(catalog, CatalogSnapshot):
            _catalog, _catalog_loader = None, catalog
        else:
            _catalog, _catalog_loader = catalog, None


def current_catalog() -> CatalogSnapshot | None:
    """The catalog handed in with :func:`set_catalog` (running its loader on first use), or ``None``."""
    global _catalog, _catalog_loader
    if _catalog_loader is None:
        return _catalog
    with _catalog_lock:
        if _catalog_loader is not None:
            _catalog, _catalog_loader = _catalog_loader(), None
        return _catalog


# --------------------------------------------------------------------------- merge and index

def _region_matches(curated: str | None, catalog: str | None) -> bool:
    """A curated row's region covers a catalog row's region (or zone: ``us-central1`` covers ``us-central1-a``)."""
    if curated is None or catalog is None:
        return True
    curated, catalog = curated.lower(), catalog.lower()
    return catalog == curated or catalog.startswith(curated + "-")


def merge_offers(curated: Iterable[Offer], catalog: Iterable[Offer]) -> list[Offer]:
    """Curated and catalog offers as one list; where both describe one offer, the newer dated row wins.

    Two rows describe the same offer when provider, instance type (case-insensitive) and pricing model
    agree and the curated row's region covers the catalog row's (a curated row without a region covers
    every region). The curated row is dropped when a matching catalog row is at least as new (an
    undated curated row always loses); otherwise the matching catalog rows are dropped. Commitment
    rows have no catalog counterpart and always stay.

    Returns:
        The merged offers, curated ones first.
    """
    catalog = list(catalog)
    by_key: dict[tuple[str, str, str], list[int]] = {}
    for i, o in enumerate(catalog):
        by_key.setdefault((o.provider, o.instance_type.lower(), o.pricing_model), []).append(i)
    dropped: set[int] = set()
    kept: list[Offer] = []
    for c in curated:
        matches = [i for i in by_key.get((c.provider, c.instance_type.lower(), c.pricing_model), ())
                   if _region_matches(c.region, catalog[i].region)]
        if not matches:
            kept.append(c)
            continue
        newest = max((catalog[i].as_of for i in matches if catalog[i].as_of), default=None)
        if c.as_of is None or (newest is not None and newest >= c.as_of):
            continue  # the catalog is at least as new
        kept.append(c)
        dropped.update(i for i in matches if catalog[i].as_of is None or catalog[i].as_of < c.as_of)
    kept.extend(o for i, o in enumerate(catalog) if i not in dropped)
    return kept


def _order(o: Offer) -> tuple:
    return (o.price_per_hour_usd, o.as_of is None, o.provider)


def _dedupe(offers: Iterable[Offer]) -> list[Offer]:
    """One offer per (provider, instance, pricing model, term, upfront, price): the dated, then the newer one."""
    unique: dict[tuple, Offer] = {}
    for o in offers:
        key = (o.provider, o.instance_type, o.pricing_model, o.term_months, o.upfront,
               round(o.price_per_hour_usd, 4))
        kept = unique.get(key)
        if kept is None or (kept.as_of is None and o.as_of is not None) or (
                kept.as_of and o.as_of and o.as_of > kept.as_of):
            unique[key] = o
    return list(unique.values())


class _GpuOffers:
    """One GPU's offers and their index: (pricing model, provider or None for all) -> GPUs per instance ->
    offers, cheapest first."""

    __slots__ = ("buckets", "offers")

    def __init__(self, offers: list[Offer]):
        self.offers = offers
        self.buckets: dict[tuple[str, str | None], dict[int, list[Offer]]] = {}
        for o in offers:
            for prov in (None, o.provider):
                self.buckets.setdefault((o.pricing_model, prov), {}).setdefault(o.gpu_count, []).append(o)
        for counts in self.buckets.values():
            for rows in counts.values():
                rows.sort(key=_order)


class OfferTable:
    """Every priced offer, indexed by (GPU, pricing model, provider, GPUs per instance).

    Build it with :func:`offer_table`. Each GPU's offers are merged (curated and catalog), de-duplicated
    and indexed the first time that GPU is priced, then kept: a lookup costs a dictionary access plus
    the offers of one GPU and pricing model, so a 20,000-offer catalog answers as fast as a 200-offer
    one and an answer that prices two GPUs builds only those two (``bench/prices.py``).

    Args:
        offers: the offers (curated ones, or any list); duplicates (same provider, instance, pricing
            model, term, upfront, price) keep the dated one, then the newer one, since a dated
            re-check of a catalog row is the better record.
        shapes: declared instance sizes by (provider, GPU) (``PriceFile.shapes``).
        generation: the catalog generation merged in (``None``: no catalog).
        catalog: the refreshed catalog, merged per GPU with :func:`merge_offers` (the newer dated row wins).
        rule: how offers are preferred (:class:`OfferRule`; default: the cheapest that rents the count).
    """

    def __init__(self, offers: Iterable[Offer], *, shapes: dict[tuple[str, str], InstanceShape] | None = None,
                 generation: int | None = None, catalog: CatalogSnapshot | None = None,
                 rule: OfferRule | None = None):
        self.generation = generation
        self.rule = rule or OfferRule()
        self.declared_shapes: dict[tuple[str, str], InstanceShape] = dict(shapes or {})
        self._catalog = catalog
        self._base: dict[str, list[Offer]] = {}
        for o in offers:
            self._base.setdefault(o.gpu, []).append(o)
        self._gpus: dict[str, _GpuOffers] = {}
        self._all: list[Offer] | None = None

    def _gpu(self, gpu: str) -> _GpuOffers:
        state = self._gpus.get(gpu)
        if state is None:
            base = self._base.get(gpu, [])
            stored = self._catalog.offers_for(gpu) if self._catalog is not None else ()
            state = self._gpus[gpu] = _GpuOffers(_dedupe(merge_offers(base, stored) if stored else base))
        return state

    @property
    def offers(self) -> list[Offer]:
        """Every offer of every GPU (builds the GPUs not built yet: for status pages, not per answer)."""
        if self._all is None:
            self._all = [o for gpu in self.gpus() for o in self._gpu(gpu).offers]
        return self._all

    def __len__(self) -> int:
        return len(self.offers)

    def for_gpu(self, gpu: str, *, pricing_model: str | None = None, provider: str | None = None) -> list[Offer]:
        """Offers of ``gpu``, optionally of one pricing model and one provider."""
        state = self._gpu(gpu)
        if pricing_model is not None:
            return [o for rows in state.buckets.get((pricing_model, provider), {}).values() for o in rows]
        return [o for o in state.offers if provider is None or o.provider == provider]

    def buckets(self, gpu: str, pricing_model: str, provider: str | None = None) -> dict[int, list[Offer]]:
        """GPUs per instance -> offers of ``gpu`` under ``pricing_model`` (cheapest per hour first)."""
        return self._gpu(gpu).buckets.get((pricing_model, provider), {})

    def gpus(self) -> list[str]:
        """GPU ids that have at least one offer (curated first, then the catalog's)."""
        ids = list(self._base)
        if self._catalog is not None:
            ids += [g for g in self._catalog.gpus() if g not in self._base]
        return ids

    def providers(self) -> list[str]:
        """Provider ids with at least one offer, in first-seen order."""
        return list(dict.fromkeys(o.provider for o in self.offers))

    def shapes(self, gpu: str, *, provider: str | None = None, pricing_model: str | None = None) -> list[int]:
        """GPU counts per instance in which ``gpu`` can be rented, ascending.

        The counts of priced offers, plus (for any pricing model) the sizes ``knowledge/prices``
        declares for the provider (``PriceFile.shapes``), which include sizes without a price.
        """
        counts = {o.gpu_count for o in self.for_gpu(gpu, pricing_model=pricing_model, provider=provider)}
        if pricing_model is None:
            for (prov, shape_gpu), shape in self.declared_shapes.items():
                if shape_gpu == gpu and (provider is None or prov == provider):
                    counts.update(shape.gpu_counts)
        return sorted(counts)

    def declared_shape(self, gpu: str, provider: str) -> InstanceShape | None:
        """The instance sizes ``knowledge/prices`` declares for ``gpu`` at ``provider``, with their source."""
        return self.declared_shapes.get((provider, gpu))


def _curated_offers(kb: KnowledgeBase) -> list[Offer]:
    cached = kb._cache.get("curated_offers")
    if cached is None:
        names = {p.provider: p.provider_name for p in kb.providers.values()}
        rows = (offer_from_knowledge(o, names.get(o.provider, o.provider), kb.exchange_rates) for o in kb.offers)
        cached = kb._cache["curated_offers"] = [o for o in rows if o is not None]
    return cached


def offer_table(kb: KnowledgeBase) -> OfferTable:
    """The merged :class:`OfferTable`: ``kb``'s curated prices and the refreshed catalog (:func:`set_catalog`).

    One per knowledge base and catalog generation (a reload or a new refresh makes a new one); each
    GPU is merged and indexed once, when first priced, so answers pay nothing for it.
    """
    catalog = current_catalog()
    generation = catalog.generation if catalog is not None else None
    cached = kb._cache.get("offer_table")
    if cached is not None and cached[0] == generation:
        return cached[1]
    shapes = {(p.provider, s.gpu): s for p in kb.providers.values() for s in p.shapes}
    choice = kb.policy.offers if kb.policy is not None else None
    rule = OfferRule(undated_after_dated=choice.undated_after_dated,
                     marketplace_after_list=choice.marketplace_after_list) if choice is not None else None
    table = OfferTable(_curated_offers(kb), shapes=shapes, generation=generation, catalog=catalog, rule=rule)
    kb._cache["offer_table"] = (generation, table)
    return table


def exchange_rate(kb: KnowledgeBase, currency: str = "CNY") -> ExchangeRate | None:
    """The newest dated exchange rate for ``currency`` in ``knowledge/prices/common/exchange_rates.yaml``.

    Use it to show a USD price in CNY (``usd x per_usd``), saying the rate's date and source.
    """
    rates = [r for r in kb.exchange_rates.values() if r.currency == currency]
    return max(rates, key=lambda r: r.date) if rates else None


# --------------------------------------------------------------------------- placements

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
        stale: the price is undated or older than the offer's :attr:`Offer.stale_after_days`.
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

    @property
    def price_per_gpu_hour_usd(self) -> float:
        """USD per used GPU-hour, idle GPUs included: ``price_per_hour_usd / gpus_needed``."""
        return self.price_per_hour_usd / self.gpus_needed

    @property
    def price_per_hour_cny(self) -> float | None:
        """For an offer published in CNY: ``instances x`` its CNY price, as published; else ``None``."""
        cny = self.offer.price_per_hour_cny
        return None if cny is None else self.instances * cny

    @property
    def upfront_usd(self) -> float | None:
        """All-upfront commitments: ``instances x`` the offer's upfront payment, USD; else ``None``."""
        up = self.offer.upfront_usd
        return None if up is None else self.instances * up

    def billed_hours(self, hours: float) -> float:
        """Hours paid for ``hours`` of use: whole commitment terms for a commitment (:func:`billed_hours`)."""
        return billed_hours(hours, self.offer.term_hours)

    def cost_usd(self, hours: float) -> float:
        """USD for ``hours`` of use: ``price_per_hour_usd x billed_hours(hours)`` (a commitment pays its whole term)."""
        return self.price_per_hour_usd * self.billed_hours(hours)

    def rank(self, rule: OfferRule) -> tuple:
        """This placement's sort key under ``rule`` (:meth:`OfferRule.rank`)."""
        return rule.rank(group_split=self.group_split, idle_gpus=self.idle_gpus, undated=self.offer.as_of is None,
                         marketplace=self.offer.marketplace, price_per_hour_usd=self.price_per_hour_usd,
                         stale=self.stale, provider=self.offer.provider)


def _instances(gpu_count: int, gpus_needed: int, group: int) -> tuple[int, bool] | None:
    """(instances, group_split) for ``gpus_needed`` GPUs in groups of ``group`` on ``gpu_count``-GPU instances."""
    per_instance = gpu_count // group
    if per_instance == 0:
        return math.ceil(gpus_needed / gpu_count), True
    return math.ceil(math.ceil(gpus_needed / group) / per_instance), False


def _models(pricing_model: str | None) -> tuple[str, ...]:
    return ("on_demand", "spot", "commitment") if pricing_model is None else (pricing_model,)


def _region_ok(o: Offer, region: str | None) -> bool:
    return region is None or (o.region is not None and _region_matches(region, o.region))


def _stale_cutoffs(today: date) -> dict[str, date]:
    """Per origin, the oldest ``as_of`` that is not stale on ``today`` (computed once per call)."""
    return {"catalog": today - timedelta(days=CATALOG_STALE_AFTER_DAYS),
            "curated": today - timedelta(days=STALE_AFTER_DAYS)}


def _is_stale(o: Offer, cutoffs: dict[str, date]) -> bool:
    return o.as_of is None or o.as_of < cutoffs[o.origin]


def place(table: OfferTable, gpu: str, gpus_needed: int, *, today: date, group: int = 1,
          pricing_model: str | None = "on_demand", provider: str | None = None,
          allow_split: bool = False, region: str | None = None, limit: int | None = None,
          term_months: int | None = None) -> list[Placement]:
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
        pricing_model: only this pricing model (``on_demand``, ``spot``, ``commitment``); ``None`` for all.
        provider: only this provider, when given.
        allow_split: also place groups across instances that cannot hold one.
        region: only offers in this region (a region covers its zones), when given.
        limit: at most this many placements (the cheapest), when given: with a catalog of thousands
            of offers per GPU a table needs only the first rows.
        term_months: commitments: only this term (12 for 1 year, 36 for 3 years), when given.

    Returns:
        Placements, cheapest per hour first (dated before undated at equal price).
    """
    group = max(1, group)
    gpus_needed = max(1, gpus_needed)
    streams = []
    fits = []
    for model in _models(pricing_model):
        for count, rows in table.buckets(gpu, model, provider).items():
            fit = _instances(count, gpus_needed, group)
            if fit[1] and not allow_split:
                continue
            # each bucket is sorted by (price, undated, provider); instances x price keeps that order
            streams.append(_candidates(rows, fit[0], region, term_months, len(fits)))
            fits.append(fit)
    cutoffs = _stale_cutoffs(today)
    out = []
    for price, _undated, _provider, serial, o in heapq.merge(*streams):
        instances, split = fits[serial]
        out.append(Placement(o, instances, gpus_needed, group, split, price, _is_stale(o, cutoffs)))
        if limit is not None and len(out) >= limit:
            break
    return out


def _candidates(rows: list[Offer], instances: int, region: str | None, term_months: int | None,
                serial: int) -> Iterator[tuple[float, bool, str, int, Offer]]:
    """Merge keys of a bucket's offers: (placement price, undated, provider, bucket serial, offer).

    Within one bucket no two items are compared (heapq.merge compares only the heads of different
    buckets, and ``serial`` differs between buckets), so the offer itself is never compared.
    """
    for o in rows:
        if (region is not None and not _region_ok(o, region)) or (term_months is not None
                                                                 and o.term_months != term_months):
            continue
        yield instances * o.price_per_hour_usd, o.as_of is None, o.provider, serial, o


def best_placement(table: OfferTable, gpu: str, gpus_needed: int, *, today: date, group: int = 1,
                   pricing_model: str = "on_demand", provider: str | None = None,
                   allow_split: bool = False, region: str | None = None,
                   term_months: int | None = None, exclude_providers: frozenset[str] = frozenset()
                   ) -> Placement | None:
    """The placement an answer prices a configuration with: the best under the table's :class:`OfferRule`.

    Policy: offers with a ``condition`` (footnotes, minimum terms) are never chosen, nor a provider's undated snapshot
    of an instance size it also prices with a date (the dated row is the newer record); then :meth:`OfferRule.rank`:
    whole groups in one instance before split groups; instances the GPUs fill before larger ones that leave GPUs
    idle (paying for unused GPUs is never what a user asks for when a fitting size exists); dated prices before
    undated catalog snapshots when policy ``offers.undated_after_dated`` says so; then the lowest price per hour, a stale dated
    price included (its age is warned about, never a penalty on its price: refdata-notes.md section 6).

    Args:
        table: the offers.
        gpu: GPU id.
        gpus_needed: GPUs the configuration uses.
        today: the date staleness is judged against.
        group: GPUs that must share one instance.
        pricing_model: ``on_demand`` (default), ``spot`` or ``commitment``.
        provider: only this provider, when given.
        allow_split: also consider groups split across instances (chosen only when nothing holds a group).
        region: only offers in this region, when given.
        term_months: commitments: only this term (12 or 36), when given; else any term.
        exclude_providers: provider ids never chosen (e.g. mainland-China clouds for a user elsewhere).

    Returns:
        The :class:`Placement`, or ``None`` when no offer can supply the GPUs.
    """
    group = max(1, group)
    gpus_needed = max(1, gpus_needed)
    cutoffs = _stale_cutoffs(today)
    rule = table.rule
    best: tuple | None = None
    chosen: tuple[Offer, int, bool, bool] | None = None
    for count, rows in table.buckets(gpu, pricing_model, provider).items():
        instances, split = _instances(count, gpus_needed, group)
        if split and not allow_split:
            continue
        seen: set[tuple[bool, bool]] = set()
        # a provider's dated price for an instance size supersedes its undated snapshot of that size (the snapshot
        # is the older record: Lambda's 1x H100 SXM was $3.29 in the snapshot and $4.29 on its page 2026-09-20,
        # refdata-notes.md section 6)
        dated = {o.provider for o in rows if o.as_of is not None and o.condition is None}
        for o in rows:  # cheapest first: the first offer of each rule class is that class's best
            if o.condition is not None or (region is not None and not _region_ok(o, region)) or (
                    term_months is not None and o.term_months != term_months) or o.provider in exclude_providers or (
                    o.as_of is None and o.provider in dated):
                continue
            cls = rule.classes(o)
            if cls in seen:
                continue
            seen.add(cls)
            stale = _is_stale(o, cutoffs)
            key = rule.rank(group_split=split, idle_gpus=instances * count - gpus_needed, undated=o.as_of is None,
                            marketplace=o.marketplace, price_per_hour_usd=instances * o.price_per_hour_usd,
                            stale=stale, provider=o.provider)
            if best is None or key < best:
                best, chosen = key, (o, instances, split, stale)
            if cls == (False, False):
                break  # nothing later in this bucket ranks above the cheapest offer of the first class
    if chosen is None:
        return None
    o, instances, split, stale = chosen
    return Placement(o, instances, gpus_needed, group, split, instances * o.price_per_hour_usd, stale)


# --------------------------------------------------------------------------- status per provider

@dataclass(frozen=True)
class ProviderPriceStatus:
    """How current one provider's prices are, for ``prices status``, answers and App Home.

    Attributes:
        provider: provider id.
        provider_name: display name.
        offers: offers in the merged table.
        curated_offers: of which from ``knowledge/prices``.
        catalog_offers: of which from the refreshed catalog.
        pricing_models: offers per pricing model.
        oldest_as_of: oldest dated offer.
        newest_as_of: newest dated offer.
        undated: offers without a date.
        stale: offers stale on ``today`` (undated, or older than 30 days for catalog rows, 90 for curated).
        age_days: days since ``newest_as_of`` (``None`` when nothing is dated).
        last_refresh: the last catalog refresh attempt of this provider, when one ran.
        last_good_refresh: the last refresh that replaced its table (whose offers are in use).
        unmapped: catalog GPU names of the table in use (else of the last attempt) that map to no
            knowledge-base GPU, with row counts.
    """

    provider: str
    provider_name: str
    offers: int
    curated_offers: int
    catalog_offers: int
    pricing_models: dict[str, int]
    oldest_as_of: date | None
    newest_as_of: date | None
    undated: int
    stale: int
    age_days: int | None
    last_refresh: CatalogRefreshInfo | None = None
    last_good_refresh: CatalogRefreshInfo | None = None
    unmapped: tuple[tuple[str, int], ...] = field(default=())


def provider_status(kb: KnowledgeBase, *, today: date) -> list[ProviderPriceStatus]:
    """Per provider: offers, oldest and newest ``as_of``, staleness and the last catalog refresh.

    Providers appear when they have offers in :func:`offer_table` or a recorded refresh (a provider
    whose only refresh was skipped shows 0 offers and why), sorted by provider id.
    """
    table = offer_table(kb)
    catalog = current_catalog()
    refreshes: dict[str, CatalogRefreshInfo] = {}
    for info in (catalog.refreshes if catalog else ()):
        refreshes.setdefault(info.provider, info)
    good: dict[str, CatalogRefreshInfo] = {}
    for info in (catalog.last_good if catalog else ()):
        good.setdefault(info.provider, info)
    names = {o.provider: o.provider_name for o in table.offers}
    names.update({p.provider: p.provider_name for p in kb.providers.values()})
    for c in kb.catalogs.values():
        for p in c.providers:
            names.setdefault(p.provider, p.provider_name)
    rows: dict[str, list[Offer]] = {}
    for o in table.offers:
        rows.setdefault(o.provider, []).append(o)
    out = []
    for provider in sorted(set(rows) | set(refreshes)):
        offers = rows.get(provider, [])
        dated = [o.as_of for o in offers if o.as_of]
        newest = max(dated) if dated else None
        last = refreshes.get(provider)
        last_good = good.get(provider)
        shown = last_good or last
        out.append(ProviderPriceStatus(
            provider=provider, provider_name=names.get(provider, provider), offers=len(offers),
            curated_offers=sum(1 for o in offers if o.origin == "curated"),
            catalog_offers=sum(1 for o in offers if o.origin == "catalog"),
            pricing_models=dict(Counter(o.pricing_model for o in offers)),
            oldest_as_of=min(dated) if dated else None, newest_as_of=newest,
            undated=sum(1 for o in offers if o.as_of is None), stale=sum(1 for o in offers if o.is_stale(today)),
            age_days=(today - newest).days if newest else None, last_refresh=last, last_good_refresh=last_good,
            unmapped=shown.unmapped if shown else ()))
    return out
