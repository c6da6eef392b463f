"""Read the refreshed price catalog from the state store, cheaply.

``gpu-advisor ask`` prices with the catalog a ``prices refresh`` (or the server's schedule) stored, but
must not pay for importing SQLAlchemy to do so. For SQLite (the default) the tables are read with the
standard library's ``sqlite3``, read-only, and a database file that does not exist means "never
refreshed" at no cost at all; other back ends (PostgreSQL) go through :mod:`bot.storage.catalog`.

The tables themselves are defined (and migrated) in :mod:`bot.storage.catalog`; the column lists here
are the contract both readers share, checked by ``tests/test_pricing_store.py`` on both back ends.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

from bot.pricing.offers import CatalogRefreshInfo, CatalogSnapshot, Offer
from bot.storage.urls import sqlite_path

__all__ = ["OFFER_COLUMNS", "REFRESH_COLUMNS", "offer_from_row", "read_catalog", "refresh_from_row",
           "snapshot_from_rows"]

log = logging.getLogger("gpu_advisor.prices")

OFFERS_TABLE = "gpu_advisor_catalog_offers"
REFRESHES_TABLE = "gpu_advisor_catalog_refreshes"
RUNS_TABLE = "gpu_advisor_catalog_runs"

#: Columns of the catalog-offers table that make an :class:`Offer`, in this order.
OFFER_COLUMNS = ("provider", "provider_name", "instance_type", "gpu", "gpu_count", "price_per_hour_usd",
                 "pricing_model", "region", "as_of", "source", "marketplace", "gpu_variant_verified",
                 "catalog_gpu_name")
#: Columns of the refresh log that make a :class:`CatalogRefreshInfo`, in this order.
REFRESH_COLUMNS = ("provider", "refreshed_at", "status", "reason", "as_of", "offers", "unmapped_json", "malformed")


def _date(value: Any) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def _datetime(value: Any) -> datetime:
    if not isinstance(value, datetime):
        value = datetime.fromisoformat(str(value))
    return value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite keeps no time zone


def offer_from_row(row: Sequence[Any]) -> Offer:
    """An :class:`Offer` (``origin="catalog"``) from a row in :data:`OFFER_COLUMNS` order."""
    (provider, provider_name, instance_type, gpu, gpu_count, price, pricing_model, region, as_of, source,
     marketplace, verified, catalog_gpu_name) = row
    return Offer(provider=provider, provider_name=provider_name, instance_type=instance_type, gpu=gpu,
                 gpu_count=int(gpu_count), price_per_hour_usd=float(price), pricing_model=pricing_model,
                 as_of=_date(as_of), source=source, region=region, origin="catalog", marketplace=bool(marketplace),
                 gpu_variant_verified=bool(verified), catalog_gpu_name=catalog_gpu_name)


def refresh_from_row(row: Sequence[Any]) -> CatalogRefreshInfo:
    """A :class:`CatalogRefreshInfo` from a row in :data:`REFRESH_COLUMNS` order."""
    provider, refreshed_at, status, reason, as_of, offers, unmapped_json, malformed = row
    unmapped = tuple((str(name), int(n)) for name, n in json.loads(unmapped_json or "[]"))
    return CatalogRefreshInfo(provider=provider, refreshed_at=_datetime(refreshed_at), status=status, reason=reason,
                              as_of=_date(as_of), offers=int(offers or 0), unmapped=unmapped,
                              malformed=int(malformed or 0))


def snapshot_from_rows(generation: int, offers: Iterable[Sequence[Any]],
                       refreshes: Iterable[Sequence[Any]]) -> CatalogSnapshot:
    """A :class:`CatalogSnapshot` from offer rows and refresh-log rows (newest first).

    Keeps each provider's newest refresh (``refreshes``) and its newest one that replaced the table
    (``last_good``).
    """
    latest: dict[str, CatalogRefreshInfo] = {}
    good: dict[str, CatalogRefreshInfo] = {}
    for row in refreshes:
        provider, status = row[0], row[2]
        if provider not in latest:
            latest[provider] = refresh_from_row(row)
        if status == "refreshed" and provider not in good:
            good[provider] = latest[provider] if latest[provider].status == "refreshed" else refresh_from_row(row)
    return CatalogSnapshot(generation=int(generation), offers=tuple(offer_from_row(r) for r in offers),
                           refreshes=tuple(latest.values()), last_good=tuple(good.values()))


class _SqliteOffers:
    """Reads one GPU's stored offers at a time from a read-only SQLite connection (kept open)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.lock = threading.Lock()
        self.query = f"SELECT {', '.join(OFFER_COLUMNS)} FROM {OFFERS_TABLE} WHERE gpu = ?"

    def __call__(self, gpu: str) -> list[Offer]:
        with self.lock:
            rows = self.conn.execute(self.query, (gpu,)).fetchall()
        return [offer_from_row(r) for r in rows]


def _read_sqlite(path) -> CatalogSnapshot | None:
    if not path.is_file():
        return None  # never refreshed (nor anything else stored): nothing to read
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        generation = conn.execute(f"SELECT max(id) FROM {RUNS_TABLE}").fetchone()[0]
    except sqlite3.OperationalError:
        generation = None  # the catalog tables were never created
    if generation is None:
        conn.close()
        return None
    gpus = tuple(r[0] for r in conn.execute(f"SELECT DISTINCT gpu FROM {OFFERS_TABLE}"))
    refreshes = conn.execute(f"SELECT {', '.join(REFRESH_COLUMNS)} FROM {REFRESHES_TABLE} ORDER BY id DESC")
    snapshot = snapshot_from_rows(generation, (), refreshes)
    # Lazy: each GPU's offers are read by one SELECT (one consistent read) the first time it is priced.
    return replace(snapshot, loader=_SqliteOffers(conn), gpu_ids=gpus)


def read_catalog(url: str) -> CatalogSnapshot | None:
    """The refreshed catalog stored at ``url``, or ``None`` when none was ever stored.

    SQLite is read with ``sqlite3`` in read-only mode (no SQLAlchemy import, no file created), lazily:
    the snapshot reads a GPU's offers (an indexed query) the first time that GPU is priced, so an
    answer pays for the GPUs it prices, not for the whole catalog. A refresh that finishes while a
    process is running may reach the GPUs it reads later, never half of one GPU's offers. Other URLs
    are read whole through :class:`bot.storage.catalog.CatalogStore`.

    Args:
        url: a SQLAlchemy database URL (``DATABASE_URL``).

    Raises:
        sqlite3.Error, sqlalchemy.exc.SQLAlchemyError: the database exists but cannot be read.
    """
    path = sqlite_path(url)
    if path is not None:
        return _read_sqlite(path)
    if url.split("://", 1)[0].split("+")[0].lower() == "sqlite":
        return None  # an in-memory database holds nothing another process refreshed
    from sqlalchemy import create_engine

    from bot.storage.catalog import CatalogStore

    engine = create_engine(url)
    try:
        return CatalogStore(engine, migrate_schema=False).snapshot()
    finally:
        engine.dispose()
