"""Refresh catalog prices through gpuhunt into the state store, keeping the last good table on any doubt.

``gpuhunt`` (dstack, Apache-2.0) reads a published multi-provider catalog (AWS, Azure, GCP, Lambda,
Nebius, OCI, RunPod, Verda, CloudRift: "offline" providers, one CSV each) and queries "online"
providers live (Vast.ai, DigitalOcean, ...). A catalog directory in gpuhunt's own CSV format
(``--catalog-dir``, or the ``GPUHUNT_CATALOG_DIR`` setting) replaces the download; online providers are then not
queried, and without network they are skipped with a note, not an error.

Each catalog row is mapped to a knowledge-base GPU by ``knowledge/prices/common/gpuhunt.yaml``
(name, and memory selecting the variant); a name it does not list is reported, never guessed. A
provider's new table replaces its old one only when it is plausible (:func:`check_plausible`), and
all providers of a run are written in one transaction (:meth:`CatalogWriter.write_run`), so readers
see the old table or the new one, never half of one.

The module imports gpuhunt only when a refresh runs, and never SQLAlchemy (the store is passed in).
"""

from __future__ import annotations

import csv
import logging
import os
import queue
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from bot.errors import AdvisorError
from bot.kb.loader import CATALOG_MEMORY_TOLERANCE, KnowledgeBase, normalize_name
from bot.kb.schema import CatalogGpuName, CatalogNames, CatalogProvider
from bot.pricing.offers import CatalogRefreshInfo, Offer

__all__ = [
    "CATALOG",
    "CatalogFetch",
    "CatalogNameMap",
    "CatalogWriter",
    "FetchFailed",
    "GpuhuntFetcher",
    "MappedCatalog",
    "ProviderRefresh",
    "RefreshReport",
    "RefreshRun",
    "UnknownProviderError",
    "check_plausible",
    "map_catalog",
    "refresh_prices",
]

log = logging.getLogger("gpu_advisor.prices")

#: The catalog this module reads (``knowledge/prices/common/gpuhunt.yaml``).
CATALOG = "gpuhunt"
#: Seconds a provider's fetch may take before the refresh gives up on it and keeps its last table.
DEFAULT_TIMEOUT_S = 300.0
#: Columns a catalog CSV must have for its rows to become offers (gpuhunt's v2 catalog format,
#: ``gpuhunt/_internal/storage.py``: these are the ones its reader requires plus the GPU's name and memory).
REQUIRED_COLUMNS = ("instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory",
                    "spot")
#: A new table whose prices fell by more than this fraction against the last good one is implausible
#: (a unit change, cents for dollars, a per-GPU price for a per-instance one): issue 16, "price drops over 90%".
MAX_PRICE_DROP = 0.90
#: ... when at least this share of the offers both tables have (same instance, region, pricing model) fell so.
DROP_SHARE = 0.10
#: More than this share of unreadable rows means the catalog's format is not the one we know.
MAX_MALFORMED_SHARE = 0.5
#: Plausible price per GPU-hour, USD (as for curated rows, :class:`bot.kb.schema.PriceOffer`).
PRICE_PER_GPU_HOUR_RANGE = (0.01, 200.0)


class UnknownProviderError(AdvisorError):
    """``--provider`` names no provider of the catalog."""


class FetchFailed(Exception):  # noqa: N818 - reads as a sentence: raise FetchFailed("no network")
    """A provider's catalog could not be fetched.

    Args:
        reason: why, for the log and ``prices status``.
        skipped: ``True`` when this is expected and not an error (an online provider without network
            or credentials, or not queried because a catalog directory was given).
    """

    def __init__(self, reason: str, *, skipped: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.skipped = skipped


@dataclass(frozen=True)
class CatalogFetch:
    """One provider's catalog as fetched.

    Attributes:
        catalog_provider: gpuhunt's provider name (``"lambdalabs"``).
        items: gpuhunt ``CatalogItem`` rows (instance_name, location, price (USD/hour, whole instance),
            gpu_count, gpu_name, gpu_memory (GB), gpu_vendor, spot).
        as_of: the catalog's date (its published version, or the file's).
        source: what was read, for each offer's ``source``.
        malformed: rows gpuhunt could not read, as its warnings say.
    """

    catalog_provider: str
    items: Sequence[Any]
    as_of: date
    source: str
    malformed: tuple[str, ...] = ()


Fetcher = Callable[[str], CatalogFetch]


# --------------------------------------------------------------------------- names

class CatalogNameMap:
    """The catalog's provider and GPU names, resolved to knowledge-base ids (built once per knowledge base).

    Args:
        names: ``kb.catalogs["gpuhunt"]``.
    """

    def __init__(self, names: CatalogNames):
        self.names = names
        self.providers: dict[str, CatalogProvider] = {p.catalog: p for p in names.providers}
        self._by_id = {p.provider: p for p in names.providers}
        self._gpus: dict[str, list[CatalogGpuName]] = {}
        for entry in names.gpus:
            self._gpus.setdefault(normalize_name(entry.name), []).append(entry)
        self.not_mapped = {(normalize_name(n.name), n.memory_gb): n.reason for n in names.not_mapped}

    def provider(self, name: str) -> CatalogProvider | None:
        """The catalog provider for a catalog name (``lambdalabs``) or a knowledge-base id (``lambda``)."""
        return self.providers.get(name) or self._by_id.get(name)

    def gpu(self, catalog_provider: str, name: str, memory_gb: float | None,
            instance: str) -> tuple[str | None, bool, str]:
        """Map one catalog GPU to a knowledge-base id.

        Memory selects the variant: among the entries for ``name``, the one whose ``memory_gb`` is within
        7% of the row's memory; without a memory figure, only a name with a single entry maps. A
        provider instance name that states the form factor (``by_instance``) overrides the default
        variant.

        Returns:
            ``(gpu id or None, variant verified, label)``; the label (``"A100 80GB"``) names the row's
            GPU in the unmapped report.
        """
        label = f"{name} {memory_gb:g}GB" if memory_gb else f"{name} (memory not stated)"
        entries = self._gpus.get(normalize_name(name), [])
        if memory_gb:
            close = [e for e in entries if abs(e.memory_gb - memory_gb) <= CATALOG_MEMORY_TOLERANCE * e.memory_gb]
            entry = min(close, key=lambda e: abs(e.memory_gb - memory_gb)) if close else None
        else:
            entry = entries[0] if len(entries) == 1 else None
        if entry is None:
            return None, False, label
        lowered = instance.lower()
        for rule in entry.by_instance:
            if rule.provider == catalog_provider and rule.instance_contains.lower() in lowered:
                return rule.gpu, True, label
        return entry.gpu, entry.variant_verified, label


def name_map(kb: KnowledgeBase) -> CatalogNameMap:
    """The :class:`CatalogNameMap` of ``kb`` (cached with it).

    Raises:
        AdvisorError: the knowledge base has no ``prices/common/gpuhunt.yaml``.
    """
    cached = kb._cache.get("catalog_name_map")
    if cached is None:
        names = kb.catalogs.get(CATALOG)
        if names is None:
            raise AdvisorError(f"the knowledge base has no prices/common/{CATALOG}.yaml: catalog names cannot be mapped")
        cached = kb._cache["catalog_name_map"] = CatalogNameMap(names)
    return cached


@dataclass(frozen=True)
class MappedCatalog:
    """A provider's catalog rows as offers.

    Attributes:
        offers: rows with a mapped GPU and a plausible price, as :class:`Offer` (``origin="catalog"``).
        unmapped: catalog GPU labels without a knowledge-base GPU, with their row counts, most rows first.
        rejected: rows dropped for an implausible price, as ``"instance region: reason"``.
        non_gpu: rows without a GPU (CPU instances, TPUs).
    """

    offers: list[Offer]
    unmapped: list[tuple[str, int]]
    rejected: list[str]
    non_gpu: int


def map_catalog(fetch: CatalogFetch, names: CatalogNameMap) -> MappedCatalog:
    """Turn one provider's fetched rows into offers (pure).

    A row becomes an offer when it has GPUs, its GPU maps (:meth:`CatalogNameMap.gpu`) and its price per
    GPU-hour is within :data:`PRICE_PER_GPU_HOUR_RANGE`. ``price`` is gpuhunt's USD per hour for the whole
    instance; ``spot`` rows become ``pricing_model="spot"``.

    Raises:
        FetchFailed: a row lacks the attributes of a gpuhunt ``CatalogItem`` (an unknown schema).
    """
    provider = names.provider(fetch.catalog_provider)
    if provider is None:
        raise FetchFailed(f"{fetch.catalog_provider} is not in prices/common/{CATALOG}.yaml")
    offers: list[Offer] = []
    unmapped: Counter[str] = Counter()
    rejected: list[str] = []
    non_gpu = 0
    low, high = PRICE_PER_GPU_HOUR_RANGE
    try:
        for item in fetch.items:
            vendor = getattr(item.gpu_vendor, "value", item.gpu_vendor)
            if not item.gpu_count or not item.gpu_name or vendor == "google":
                non_gpu += 1
                continue
            gpu, verified, label = names.gpu(fetch.catalog_provider, item.gpu_name, item.gpu_memory,
                                             item.instance_name)
            if gpu is None:
                unmapped[label] += 1
                continue
            per_gpu = float(item.price) / item.gpu_count
            if not low <= per_gpu <= high:
                rejected.append(f"{item.instance_name} {item.location}: {per_gpu:.4g} USD per GPU-hour is outside "
                                f"{low}-{high}")
                continue
            offers.append(Offer(
                provider=provider.provider, provider_name=provider.provider_name, instance_type=item.instance_name,
                gpu=gpu, gpu_count=int(item.gpu_count), price_per_hour_usd=float(item.price),
                pricing_model="spot" if item.spot else "on_demand", as_of=fetch.as_of, source=fetch.source,
                region=item.location or None, origin="catalog", marketplace=provider.marketplace,
                gpu_variant_verified=verified, catalog_gpu_name=label))
    except (AttributeError, TypeError, ValueError) as exc:
        raise FetchFailed(f"unknown schema: a catalog row cannot be read ({type(exc).__name__}: {exc})") from exc
    return MappedCatalog(offers, unmapped.most_common(), rejected, non_gpu)


# --------------------------------------------------------------------------- plausibility

def check_plausible(new: Sequence[Offer], last: Sequence[Offer], *, rows: int, malformed: int) -> str | None:
    """Why a provider's new table must not replace its last good one, or ``None`` when it may.

    Implausible (issue 16): an empty catalog; an unknown schema (more than half the rows unreadable);
    more than 90% fewer offers than the last good table; or prices that dropped more than 90% for at
    least 10% of the offers both tables have (same instance, region, pricing model, GPUs).

    Args:
        new: the mapped offers of the new table.
        last: the provider's offers in the last good table (empty when it has none).
        rows: catalog rows read (including unmapped and non-GPU rows).
        malformed: rows that could not be read.
    """
    if rows == 0 and malformed == 0:
        return "the catalog is empty"
    if malformed > MAX_MALFORMED_SHARE * (rows + malformed):
        return f"unknown schema: {malformed} of {rows + malformed} catalog rows could not be read"
    if last and len(new) < (1 - MAX_PRICE_DROP) * len(last):
        return f"offers fell from {len(last)} to {len(new)} (more than {MAX_PRICE_DROP:.0%} fewer)"
    previous = {(o.instance_type, o.region, o.pricing_model, o.gpu_count): o.price_per_hour_usd for o in last}
    matched = drops = 0
    example = ""
    for o in new:
        old = previous.get((o.instance_type, o.region, o.pricing_model, o.gpu_count))
        if old is None:
            continue
        matched += 1
        if o.price_per_hour_usd < (1 - MAX_PRICE_DROP) * old:
            drops += 1
            example = example or f"{o.instance_type} {o.region or ''} {old:g} -> {o.price_per_hour_usd:g} USD/h"
    if matched and drops >= max(1.0, DROP_SHARE * matched):
        return (f"prices of {drops} of {matched} offers fell by more than {MAX_PRICE_DROP:.0%} "
                f"(e.g. {example.replace('  ', ' ')})")
    return None


# --------------------------------------------------------------------------- fetching through gpuhunt

class _MalformedRows(logging.Handler):
    """Collects the warnings gpuhunt's CSV reader logs for rows it skips."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


_env_lock = threading.Lock()


def _catalog_date(version: str) -> date | None:
    """gpuhunt publishes catalog versions as ``YYYYMMDD`` (``catalog.load(version="20240508")``)."""
    match = re.match(r"(\d{4})-?(\d{2})-?(\d{2})", version.strip())
    if not match:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


class GpuhuntFetcher:
    """Fetch one provider's offers through gpuhunt.

    Offline providers come from ``catalog_dir/<provider>.csv`` when a directory is given (gpuhunt's own
    ``GPUHUNT_CATALOG_DIR`` mechanism), else from gpuhunt's published catalog (downloaded once per
    fetcher). The catalog's date is its published version (``YYYYMMDD``); for a directory, the text of
    ``<provider>.version`` or ``version`` beside the CSV, else the CSV's modification date. Online
    providers are queried live (date: today), only without a catalog directory.

    Args:
        catalog_dir: a catalog directory instead of the network (the edge passes ``--catalog-dir`` or the
            ``GPUHUNT_CATALOG_DIR`` setting).
        today: the date online queries are dated with (default: today, UTC).
    """

    def __init__(self, *, catalog_dir: str | Path | None = None, today: date | None = None):
        self.catalog_dir = Path(catalog_dir) if catalog_dir else None
        self.today = today or datetime.now(UTC).date()
        self._catalog = None
        self._load_lock = threading.Lock()
        self._load_error: Exception | None = None

    @staticmethod
    def offline_providers() -> list[str]:
        """gpuhunt's providers served from its published catalog."""
        from gpuhunt._internal.catalog import OFFLINE_PROVIDERS

        return list(OFFLINE_PROVIDERS)

    def __call__(self, catalog_provider: str) -> CatalogFetch:
        """Fetch ``catalog_provider``'s rows.

        Raises:
            FetchFailed: no network, a missing file, an unknown schema, no credentials (``skipped`` for
                online providers and for online providers when a directory is given).
        """
        if catalog_provider in self.offline_providers():
            if self.catalog_dir is not None:
                return self._from_directory(catalog_provider)
            return self._from_published(catalog_provider)
        if self.catalog_dir is not None:
            raise FetchFailed("online provider not queried: a catalog directory was given (offline)", skipped=True)
        return self._online(catalog_provider)

    def _query(self, catalog, provider: str) -> tuple[list, tuple[str, ...]]:
        handler = _MalformedRows()
        storage_log = logging.getLogger("gpuhunt._internal.storage")
        storage_log.addHandler(handler)
        try:
            items = catalog.query(provider=provider)
        finally:
            storage_log.removeHandler(handler)
        return items, tuple(handler.messages)

    def _from_directory(self, provider: str) -> CatalogFetch:
        from gpuhunt import Catalog

        directory = self.catalog_dir
        path = directory / f"{provider}.csv"
        if not path.is_file():
            raise FetchFailed(f"no {path.name} in the catalog directory {directory}")
        try:
            with path.open(encoding="utf-8", newline="") as f:
                header = next(csv.reader(f), [])
        except (OSError, UnicodeDecodeError) as exc:
            raise FetchFailed(f"cannot read {path}: {exc}") from exc
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise FetchFailed(f"unknown schema: {path.name} lacks the column(s) {', '.join(missing)}")
        as_of, dated_by = None, "file date"
        for version_file in (directory / f"{provider}.version", directory / "version"):
            if version_file.is_file():
                text = version_file.read_text(encoding="utf-8").strip()
                as_of = _catalog_date(text)
                if as_of is None:
                    raise FetchFailed(f"unknown schema: {version_file.name} says {text[:40]!r}, not a YYYYMMDD version")
                dated_by = f"version {text}"
                break
        if as_of is None:
            as_of = datetime.fromtimestamp(path.stat().st_mtime, UTC).date()
        with _env_lock:  # gpuhunt reads the directory from this variable at query time
            saved = os.environ.get("GPUHUNT_CATALOG_DIR")
            os.environ["GPUHUNT_CATALOG_DIR"] = str(directory)
            try:
                items, malformed = self._query(Catalog(balance_resources=False, auto_reload=False), provider)
            except (OSError, ValueError, KeyError) as exc:
                raise FetchFailed(f"cannot read {path}: {exc}") from exc
            finally:
                if saved is None:
                    os.environ.pop("GPUHUNT_CATALOG_DIR", None)
                else:
                    os.environ["GPUHUNT_CATALOG_DIR"] = saved
        return CatalogFetch(provider, items, as_of, f"gpuhunt catalog {path} ({dated_by})", malformed)

    def _from_published(self, provider: str) -> CatalogFetch:
        from gpuhunt import Catalog, GPUHuntError

        with self._load_lock:
            if self._catalog is None and self._load_error is None:
                catalog = Catalog(balance_resources=False, auto_reload=False)
                try:
                    catalog.load()
                    self._catalog = catalog
                except (GPUHuntError, OSError) as exc:
                    self._load_error = exc
        if self._load_error is not None:
            raise FetchFailed(f"the published catalog could not be downloaded: {_reason(self._load_error)}")
        published = self._catalog.catalog.get(provider)
        if published is None:
            raise FetchFailed(f"the published {provider} catalog could not be downloaded (see the log)")
        as_of = _catalog_date(published.version)
        if as_of is None:
            raise FetchFailed(f"unknown schema: catalog version {published.version!r} is not a date")
        items, malformed = self._query(self._catalog, provider)
        from gpuhunt._internal.catalog import CATALOG_URL

        base = os.environ.get("GPUHUNT_CATALOG_URL", CATALOG_URL).rstrip("/")
        return CatalogFetch(provider, items, as_of, f"gpuhunt catalog {base}/{provider}/{published.version}", malformed)

    def _online(self, provider: str) -> CatalogFetch:
        import importlib

        from gpuhunt import Catalog, MissingCredsError
        from gpuhunt.providers.base import OnlineProvider

        try:
            module = importlib.import_module(f"gpuhunt.providers.{provider}")
        except ImportError as exc:
            raise FetchFailed(f"gpuhunt cannot load the {provider} provider: {exc}", skipped=True) from exc
        classes = [c for c in vars(module).values() if isinstance(c, type) and issubclass(c, OnlineProvider)
                   and getattr(c, "NAME", None) == provider]
        if not classes:
            raise FetchFailed(f"gpuhunt has no online provider {provider}", skipped=True)
        try:
            instance = classes[0].from_env()
        except MissingCredsError as exc:
            raise FetchFailed(f"no credentials: {exc}", skipped=True) from exc
        catalog = Catalog(balance_resources=False, auto_reload=False)
        catalog.add_provider(instance)
        try:
            items, malformed = self._query(catalog, provider)
        except Exception as exc:  # noqa: BLE001 - any provider API failure: skipped with a note
            raise FetchFailed(f"not reachable (no network?): {_reason(exc)}", skipped=True) from exc
        return CatalogFetch(provider, items, self.today, f"gpuhunt online query of {provider} on {self.today}",
                            malformed)


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    text = str(exc).strip() or type(exc).__name__
    if cause is not None and str(cause).strip() and str(cause) not in text:
        text += f" ({str(cause).strip().splitlines()[0]})"
    return text.splitlines()[0]


def _fetch_with_timeout(fetch: Fetcher, provider: str, timeout: float) -> CatalogFetch:
    """``fetch(provider)`` in a daemon thread; :class:`FetchFailed` when it takes longer than ``timeout`` s."""
    result: queue.Queue = queue.Queue(maxsize=1)

    def run() -> None:
        try:
            result.put((True, fetch(provider)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            result.put((False, exc))

    threading.Thread(target=run, name=f"gpu-advisor-fetch-{provider}", daemon=True).start()
    try:
        ok, value = result.get(timeout=timeout)
    except queue.Empty:
        raise FetchFailed(f"timed out after {timeout:g} s") from None
    if ok:
        return value
    if isinstance(value, FetchFailed):
        raise value
    raise FetchFailed(f"{type(value).__name__}: {_reason(value)}") from value


# --------------------------------------------------------------------------- a refresh run

@dataclass(frozen=True)
class ProviderRefresh:
    """What a refresh did for one provider.

    Attributes:
        info: the record kept in the store's refresh log (status, reason, as_of, offers, unmapped).
        catalog_provider: gpuhunt's name for the provider.
        offers: the new table when ``info.status == "refreshed"``, else empty (the last good table stays).
        rejected: rows dropped for an implausible price.
        malformed: gpuhunt's messages for rows it could not read.
    """

    info: CatalogRefreshInfo
    catalog_provider: str
    offers: tuple[Offer, ...] = ()
    rejected: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()


@dataclass(frozen=True)
class RefreshRun:
    """One ``prices refresh`` (or scheduled refresh): what the store writes in one transaction."""

    started_at: datetime
    finished_at: datetime
    trigger: Literal["cli", "schedule"]
    holder: str
    providers: tuple[ProviderRefresh, ...]


class CatalogWriter(Protocol):
    """The part of the state store a refresh uses (:class:`bot.storage.catalog.CatalogStore`)."""

    def provider_offers(self, provider: str) -> list[Offer]:
        """The provider's offers in the stored (last good) table."""

    def write_run(self, run: RefreshRun) -> int:
        """Replace the refreshed providers' tables and log every provider's result, in one transaction.

        Returns:
            The run id (the new catalog generation).
        """


@dataclass(frozen=True)
class RefreshReport:
    """The outcome of :func:`refresh_prices`.

    Attributes:
        run_id: the stored run (the new catalog generation).
        providers: one :class:`ProviderRefresh` per provider asked for, in order.
    """

    run_id: int
    providers: tuple[ProviderRefresh, ...] = field(default=())

    @property
    def failed(self) -> list[ProviderRefresh]:
        """Providers whose refresh failed or was implausible (their last good table was kept)."""
        return [p for p in self.providers if p.info.status == "kept_last"]

    @property
    def refreshed(self) -> list[ProviderRefresh]:
        """Providers whose table was replaced."""
        return [p for p in self.providers if p.info.status == "refreshed"]


def _select(names: CatalogNameMap, requested: Iterable[str] | None, catalog_dir: Path | None,
            offline: Sequence[str]) -> list[CatalogProvider]:
    if requested:
        out = []
        for name in requested:
            provider = names.provider(name.strip().lower())
            if provider is None:
                known = ", ".join(sorted(p.provider for p in names.providers.values()))
                raise UnknownProviderError(f"unknown provider {name!r} (known: {known})")
            if provider not in out:
                out.append(provider)
        return out
    providers = list(names.providers.values())
    if catalog_dir is not None:  # the directory's providers, then the online ones (skipped with a note)
        providers = [p for p in providers if p.catalog not in offline or (catalog_dir / f"{p.catalog}.csv").is_file()]
    return providers


def refresh_prices(kb: KnowledgeBase, store: CatalogWriter, *, providers: Iterable[str] | None = None,
                   catalog_dir: str | Path | None = None, fetcher: Fetcher | None = None,
                   timeout: float = DEFAULT_TIMEOUT_S, trigger: Literal["cli", "schedule"] = "cli",
                   holder: str = "", now: Callable[[], datetime] | None = None) -> RefreshReport:
    """Fetch, map, check and store catalog prices; keep each provider's last good table on any doubt.

    Args:
        kb: the knowledge base (GPU and provider names, ``prices/common/gpuhunt.yaml``).
        store: where the tables live (:class:`bot.storage.catalog.CatalogStore`).
        providers: provider names (gpuhunt's ``lambdalabs`` or ours ``lambda``); ``None`` for all (with a
            catalog directory: the providers it has files for, plus the online ones, skipped).
        catalog_dir: a directory in gpuhunt's CSV format instead of the network (``--catalog-dir``, or the
            ``GPUHUNT_CATALOG_DIR`` setting).
        fetcher: fetches one provider (tests); default :class:`GpuhuntFetcher`.
        timeout: seconds one provider's fetch may take.
        trigger: ``cli`` or ``schedule``, recorded with the run.
        holder: who ran it (host and process), recorded with the run.
        now: the clock (tests).

    Returns:
        The :class:`RefreshReport`; the run is stored even when every provider failed (the log says why).

    Raises:
        UnknownProviderError: a name in ``providers`` is not a catalog provider.
    """
    clock = now or (lambda: datetime.now(UTC))
    started = clock()
    names = name_map(kb)
    gpuhunt_fetcher = None
    if fetcher is None:
        gpuhunt_fetcher = fetcher = GpuhuntFetcher(catalog_dir=catalog_dir)
    directory = (gpuhunt_fetcher.catalog_dir if gpuhunt_fetcher is not None
                 else (Path(catalog_dir) if catalog_dir else None))
    offline = GpuhuntFetcher.offline_providers() if directory is not None else ()
    results = []
    for provider in _select(names, providers, directory, offline):
        results.append(_refresh_one(provider, names, store, fetcher, timeout, clock))
    run = RefreshRun(started, clock(), trigger, holder, tuple(results))
    run_id = store.write_run(run)
    for r in results:
        info = r.info
        if info.status == "refreshed":
            log.info("prices refreshed: %s, %d offers as of %s", info.provider, info.offers, info.as_of,
                     extra={"provider": info.provider, "offers": info.offers, "as_of": str(info.as_of)})
        elif info.status == "kept_last":
            log.warning("price refresh kept the last good %s table: %s", info.provider, info.reason,
                        extra={"provider": info.provider, "reason": info.reason})
        else:
            log.info("price refresh skipped %s: %s", info.provider, info.reason,
                     extra={"provider": info.provider, "reason": info.reason})
    return RefreshReport(run_id, tuple(results))


def _refresh_one(provider: CatalogProvider, names: CatalogNameMap, store: CatalogWriter, fetcher: Fetcher,
                 timeout: float, clock: Callable[[], datetime]) -> ProviderRefresh:
    started = time.monotonic()

    def info(status, reason=None, **kw) -> CatalogRefreshInfo:
        return CatalogRefreshInfo(provider=provider.provider, refreshed_at=clock(), status=status, reason=reason, **kw)

    try:
        fetched = _fetch_with_timeout(fetcher, provider.catalog, timeout)
        mapped = map_catalog(fetched, names)
    except FetchFailed as exc:
        return ProviderRefresh(info("skipped" if exc.skipped else "kept_last", exc.reason), provider.catalog)
    unmapped = tuple(mapped.unmapped)
    last = store.provider_offers(provider.provider)
    reason = check_plausible(mapped.offers, last, rows=len(fetched.items), malformed=len(fetched.malformed))
    if reason is not None:
        return ProviderRefresh(info("kept_last", reason, as_of=fetched.as_of, unmapped=unmapped,
                                    malformed=len(fetched.malformed)), provider.catalog,
                               rejected=tuple(mapped.rejected), malformed=fetched.malformed)
    log.debug("fetched %s in %.1f s", provider.catalog, time.monotonic() - started)
    return ProviderRefresh(info("refreshed", as_of=fetched.as_of, offers=len(mapped.offers), unmapped=unmapped,
                                malformed=len(fetched.malformed)), provider.catalog, tuple(mapped.offers),
                           tuple(mapped.rejected), fetched.malformed)
