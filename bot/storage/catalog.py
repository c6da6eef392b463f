"""The refreshed price catalog in the state store (SQLAlchemy 2; SQLite by default, PostgreSQL deployed).

Tables (created by numbered, idempotent schema steps, :func:`migrate`):

* ``gpu_advisor_catalog_runs``: one row per refresh run; the newest id is the catalog's *generation*,
  which replicas poll to know when to reload.
* ``gpu_advisor_catalog_offers``: the current table, every provider's last good offers.
* ``gpu_advisor_catalog_refreshes``: per run and provider, what happened (refreshed, kept the last
  good table, skipped) and why, with the catalog's date and the unmapped GPU names.
* ``gpu_advisor_leases``: a named lease, so one replica at a time runs the scheduled refresh.
* ``gpu_advisor_schema_steps``: which schema steps ran (never edited once released; add a new step).

A run is written in one transaction (:meth:`CatalogStore.write_run`): the replaced providers' rows and
the run's log appear together or not at all, and on PostgreSQL concurrent writers take turns on an
advisory lock, so a reader never sees half a table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from bot.pricing.offers import CatalogSnapshot, Offer
from bot.pricing.refresh import RefreshRun
from bot.storage.catalog_read import (
    OFFER_COLUMNS,
    OFFERS_TABLE,
    REFRESH_COLUMNS,
    REFRESHES_TABLE,
    RUNS_TABLE,
    offer_from_row,
    snapshot_from_rows,
)

__all__ = ["SCHEMA_STEPS", "CatalogStore", "migrate"]

#: Refresh-log rows older than this are deleted when a run is written.
LOG_RETENTION = timedelta(days=180)
_MIGRATE_LOCK_KEY = 0x6770752D6D696772  # "gpu-migr": one replica at a time applies schema steps
_WRITE_LOCK_KEY = 0x6770752D63617431  # "gpu-cat1": one catalog writer at a time

metadata = MetaData()

steps_table = Table(
    "gpu_advisor_schema_steps", metadata,
    Column("step", Integer, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)
runs_table = Table(
    RUNS_TABLE, metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("trigger", String(16), nullable=False),
    Column("holder", String(200), nullable=False, default=""),
)
offers_table = Table(
    OFFERS_TABLE, metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, nullable=False, index=True),
    Column("provider", String(64), nullable=False, index=True),
    Column("provider_name", String(200), nullable=False),
    Column("instance_type", String(200), nullable=False),
    Column("gpu", String(64), nullable=False),
    Column("gpu_count", Integer, nullable=False),
    Column("price_per_hour_usd", Float, nullable=False),
    Column("pricing_model", String(16), nullable=False),
    Column("region", String(100)),
    Column("as_of", Date),
    Column("source", Text, nullable=False),
    Column("marketplace", Boolean, nullable=False, default=False),
    Column("gpu_variant_verified", Boolean, nullable=False, default=True),
    Column("catalog_gpu_name", String(100)),
)
refreshes_table = Table(
    REFRESHES_TABLE, metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, nullable=False, index=True),
    Column("provider", String(64), nullable=False),
    Column("catalog_provider", String(64), nullable=False),
    Column("refreshed_at", DateTime(timezone=True), nullable=False, index=True),
    Column("status", String(16), nullable=False),
    Column("reason", Text),
    Column("as_of", Date),
    Column("offers", Integer, nullable=False, default=0),
    Column("unmapped_json", Text, nullable=False, default="[]"),
    Column("malformed", Integer, nullable=False, default=0),
)
leases_table = Table(
    "gpu_advisor_leases", metadata,
    Column("name", String(64), primary_key=True),
    Column("holder", String(200), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)


def _step_1(conn: Connection) -> None:
    for table in (runs_table, offers_table, refreshes_table, leases_table):
        table.create(conn, checkfirst=True)


def _step_2(conn: Connection) -> None:
    # Plain DDL (SQLite and PostgreSQL both have IF NOT EXISTS), so that step 1's tables stay as released.
    conn.execute(text(f"CREATE INDEX IF NOT EXISTS ix_gpu_advisor_catalog_offers_gpu ON {OFFERS_TABLE} (gpu)"))


#: The schema steps, in order: (number, what it does, the step). Each is idempotent; released steps
#: are never edited (a change is a new step).
SCHEMA_STEPS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "price catalog: runs, offers, refresh log, leases", _step_1),
    (2, "index catalog offers by GPU (answers read one GPU's offers)", _step_2),
]


def migrate(engine: Engine) -> list[int]:
    """Apply the :data:`SCHEMA_STEPS` not yet recorded in ``gpu_advisor_schema_steps``.

    Safe when several replicas start at once: on PostgreSQL they take turns on an advisory lock, and
    every step checks before it creates.

    Returns:
        The numbers of the steps applied now (empty when the schema was current).
    """
    applied = []
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATE_LOCK_KEY})
        steps_table.create(conn, checkfirst=True)
        done = set(conn.scalars(select(steps_table.c.step)))
        for number, name, step in SCHEMA_STEPS:
            if number in done:
                continue
            step(conn)
            conn.execute(insert(steps_table).values(step=number, name=name, applied_at=datetime.now(UTC)))
            applied.append(number)
    return applied


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _row(offer: Offer, run_id: int) -> dict:
    return {"run_id": run_id, **{c: getattr(offer, c) for c in OFFER_COLUMNS}}


class CatalogStore:
    """The refreshed catalog in one database (shared by every replica).

    Args:
        engine: the state store's engine (``Store.engine``).
        migrate_schema: apply pending schema steps first (default); readers that must not write pass ``False``.
    """

    def __init__(self, engine: Engine, *, migrate_schema: bool = True):
        self.engine = engine
        if migrate_schema:
            migrate(engine)

    # ------------------------------------------------------------------ reading
    def generation(self) -> int | None:
        """The id of the newest refresh run, or ``None`` when no refresh ever ran (cheap: one indexed max)."""
        with self.engine.connect() as conn:
            try:
                return conn.scalar(select(func.max(runs_table.c.id)))
            except (OperationalError, ProgrammingError):  # no such table: nothing was ever refreshed
                return None

    def snapshot(self) -> CatalogSnapshot | None:
        """Every stored offer and each provider's last refresh, or ``None`` when no refresh ever ran."""
        with self.engine.connect() as conn:
            try:
                generation = conn.scalar(select(func.max(runs_table.c.id)))
            except (OperationalError, ProgrammingError):  # no such table: nothing was ever refreshed
                return None
            if generation is None:
                return None
            offers = conn.execute(select(*(offers_table.c[c] for c in OFFER_COLUMNS))).all()
            refreshes = conn.execute(select(*(refreshes_table.c[c] for c in REFRESH_COLUMNS))
                                     .order_by(refreshes_table.c.id.desc())).all()
        return snapshot_from_rows(generation, offers, refreshes)

    def provider_offers(self, provider: str) -> list[Offer]:
        """The provider's offers in the stored (last good) table."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(*(offers_table.c[c] for c in OFFER_COLUMNS))
                                .where(offers_table.c.provider == provider)).all()
        return [offer_from_row(r) for r in rows]

    def last_run(self) -> tuple[int, datetime, bool] | None:
        """(id, started_at, whether any provider was refreshed) of the newest run, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(runs_table.c.id, runs_table.c.started_at)
                               .order_by(runs_table.c.id.desc()).limit(1)).first()
            if row is None:
                return None
            refreshed = conn.scalar(select(func.count()).select_from(refreshes_table).where(
                refreshes_table.c.run_id == row.id, refreshes_table.c.status == "refreshed"))
        return row.id, _aware(row.started_at), bool(refreshed)

    # ------------------------------------------------------------------ writing
    def write_run(self, run: RefreshRun) -> int:
        """Store a refresh run in one transaction and return its id (the new generation).

        For every provider with status ``refreshed`` its rows are replaced by the new table; for every
        provider the outcome goes to the refresh log. Refresh-log rows older than 180 days are deleted.
        """
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _WRITE_LOCK_KEY})
            run_id = conn.execute(insert(runs_table).values(
                started_at=run.started_at, finished_at=run.finished_at, trigger=run.trigger,
                holder=run.holder[:200])).inserted_primary_key[0]
            for p in run.providers:
                info = p.info
                if info.status == "refreshed":
                    conn.execute(delete(offers_table).where(offers_table.c.provider == info.provider))
                    if p.offers:
                        conn.execute(insert(offers_table), [_row(o, run_id) for o in p.offers])
                conn.execute(insert(refreshes_table).values(
                    run_id=run_id, provider=info.provider, catalog_provider=p.catalog_provider,
                    refreshed_at=info.refreshed_at, status=info.status, reason=info.reason, as_of=info.as_of,
                    offers=info.offers, unmapped_json=json.dumps([list(u) for u in info.unmapped]),
                    malformed=info.malformed))
            conn.execute(delete(refreshes_table).where(
                refreshes_table.c.refreshed_at < run.finished_at - LOG_RETENTION))
        return int(run_id)

    # ------------------------------------------------------------------ leases
    def try_lease(self, name: str, holder: str, ttl: timedelta, *, now: datetime | None = None) -> bool:
        """Take (or renew) the lease ``name`` for ``ttl``; ``True`` only for one holder at a time.

        A lease is free when nobody holds it or it expired. Exactly one of several processes racing
        for a free lease wins: the insert is decided by the primary key, the take-over by a
        conditional update.
        """
        now = now or datetime.now(UTC)
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(leases_table).values(name=name, holder=holder, expires_at=now + ttl))
            return True
        except IntegrityError:
            pass
        with self.engine.begin() as conn:
            result = conn.execute(update(leases_table).where(
                leases_table.c.name == name,
                (leases_table.c.expires_at < now) | (leases_table.c.holder == holder),
            ).values(holder=holder, expires_at=now + ttl))
            return result.rowcount == 1

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease back (only when ``holder`` holds it)."""
        with self.engine.begin() as conn:
            conn.execute(delete(leases_table).where(leases_table.c.name == name, leases_table.c.holder == holder))
