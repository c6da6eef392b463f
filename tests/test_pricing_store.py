"""The catalog tables of the state store, on SQLite and on PostgreSQL (127.0.0.1:5432, database ``test``).

PostgreSQL cases are skipped only when nothing listens there, as in tests/test_storage.py.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import create_engine, inspect, text

from bot.pricing.offers import CatalogRefreshInfo, Offer
from bot.pricing.refresh import ProviderRefresh, RefreshRun
from bot.storage.catalog import SCHEMA_STEPS, CatalogStore, migrate
from bot.storage.catalog_read import read_catalog
from bot.storage.store import Store
from bot.storage.urls import sqlite_path
from tests.test_storage import PG_URL, _pg_up

T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def state_store(request, tmp_path):
    """A :class:`Store` on SQLite (a file) or in a fresh PostgreSQL schema; ``.url`` reads it back."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'state.db'}"
        store = Store(url)
        store.url = url
        yield store
        store.engine.dispose()
        return
    if not _pg_up():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    schema = "t_" + uuid.uuid4().hex[:10]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    store = Store(url)
    store.url = url
    yield store
    store.engine.dispose()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


def offer(instance: str = "p5.48xlarge", price: float = 55.04, **kw) -> Offer:
    base = dict(provider="aws", provider_name="AWS", instance_type=instance, gpu="h100-sxm-80gb", gpu_count=8,
                price_per_hour_usd=price, pricing_model="on_demand", as_of=date(2026, 11, 29),
                source="gpuhunt catalog test", region="us-east-1", origin="catalog")
    base.update(kw)
    return Offer(**base)


def run(*providers: ProviderRefresh, at: datetime = T0) -> RefreshRun:
    return RefreshRun(at, at + timedelta(seconds=3), "cli", "test:1", providers)


def refreshed(provider: str, offers: list[Offer], *, at: datetime = T0, unmapped=()) -> ProviderRefresh:
    return ProviderRefresh(CatalogRefreshInfo(provider, at, "refreshed", None, date(2026, 11, 29), len(offers),
                                              tuple(unmapped), 0), provider, tuple(offers))


def kept(provider: str, reason: str, *, at: datetime = T0) -> ProviderRefresh:
    return ProviderRefresh(CatalogRefreshInfo(provider, at, "kept_last", reason), provider)


def test_schema_steps_are_numbered_recorded_and_idempotent(state_store):
    engine = state_store.engine
    assert [n for n, _name, _step in SCHEMA_STEPS] == list(range(1, len(SCHEMA_STEPS) + 1))
    assert migrate(engine) == []  # the Store applied them already
    with engine.connect() as conn:
        steps = [r[0] for r in conn.execute(text("SELECT step FROM gpu_advisor_schema_steps ORDER BY step"))]
    assert steps == [n for n, _name, _step in SCHEMA_STEPS]
    tables = set(inspect(engine).get_table_names())
    assert {"gpu_advisor_catalog_runs", "gpu_advisor_catalog_offers", "gpu_advisor_catalog_refreshes",
            "gpu_advisor_leases"} <= tables
    indexes = {i["name"] for i in inspect(engine).get_indexes("gpu_advisor_catalog_offers")}
    assert "ix_gpu_advisor_catalog_offers_gpu" in indexes  # step 2
    Store(engine=engine)  # a second replica starting on the same database changes nothing
    assert migrate(engine) == []


def test_nothing_refreshed_reads_as_none(state_store):
    assert state_store.catalog.snapshot() is None and state_store.catalog.generation() is None
    assert read_catalog(state_store.url) is None


def test_a_run_replaces_refreshed_providers_and_keeps_the_others(state_store):
    cat = state_store.catalog
    first = cat.write_run(run(refreshed("aws", [offer(), offer(price=28.106467, pricing_model="spot")]),
                              refreshed("lambda", [offer("gpu_8x_h100_sxm5", 31.92, provider="lambda",
                                                         provider_name="Lambda")])))
    second = cat.write_run(run(refreshed("aws", [offer(price=54.0)], unmapped=[("T4G 16GB", 1)]),
                               kept("lambda", "the catalog is empty"), at=T0 + timedelta(days=1)))
    assert second > first
    snap = cat.snapshot()
    assert snap.generation == second
    assert sorted((o.provider, o.price_per_hour_usd) for o in snap.offers) == [("aws", 54.0), ("lambda", 31.92)]
    latest = {r.provider: r for r in snap.refreshes}
    good = {r.provider: r for r in snap.last_good}
    assert latest["lambda"].status == "kept_last" and latest["lambda"].reason == "the catalog is empty"
    assert good["lambda"].status == "refreshed" and good["lambda"].refreshed_at == T0
    assert latest["aws"].unmapped == (("T4G 16GB", 1),)
    assert cat.last_run()[0] == second and cat.last_run()[2] is True


def test_the_sqlite3_reader_reads_what_sqlalchemy_wrote(state_store):
    state_store.catalog.write_run(run(refreshed("aws", [offer(), offer(price=13.3483, pricing_model="spot",
                                                                       instance_type="p4de.24xlarge",
                                                                       gpu="a100-sxm-80gb", marketplace=False,
                                                                       gpu_variant_verified=False,
                                                                       catalog_gpu_name="A100 80GB")])))
    via_sqlalchemy = state_store.catalog.snapshot()
    via_reader = read_catalog(state_store.url)  # sqlite3 (lazy, per GPU) for SQLite, SQLAlchemy for PostgreSQL
    eager = via_reader.materialized()
    assert (eager.generation, eager.refreshes, eager.last_good) == (
        via_sqlalchemy.generation, via_sqlalchemy.refreshes, via_sqlalchemy.last_good)
    assert sorted(eager.offers, key=repr) == sorted(via_sqlalchemy.offers, key=repr)
    assert via_reader.offers_for("a100-sxm-80gb") == tuple(o for o in via_sqlalchemy.offers if o.gpu == "a100-sxm-80gb")
    spot = next(o for o in eager.offers if o.pricing_model == "spot")
    assert spot.as_of == date(2026, 11, 29) and spot.gpu_variant_verified is False
    assert spot.catalog_gpu_name == "A100 80GB" and spot.origin == "catalog"


def test_sqlite_reader_never_creates_a_database(tmp_path):
    url = f"sqlite:///{tmp_path / 'absent.db'}"
    assert read_catalog(url) is None
    assert not (tmp_path / "absent.db").exists()
    conn = sqlite3.connect(tmp_path / "other.db")  # a database without the catalog tables
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert read_catalog(f"sqlite:///{tmp_path / 'other.db'}") is None
    assert read_catalog("sqlite://") is None


def test_sqlite_paths():
    assert str(sqlite_path("sqlite:///./gpu-advisor.db")) == "gpu-advisor.db"
    assert str(sqlite_path("sqlite:////srv/state.db?timeout=5")) == "/srv/state.db"
    assert sqlite_path("sqlite:///:memory:") is None
    assert sqlite_path("postgresql+psycopg://u@h/db") is None


def test_a_failed_write_leaves_the_previous_table(state_store):
    cat = state_store.catalog
    cat.write_run(run(refreshed("aws", [offer()])))
    before = cat.snapshot()
    broken = offer(price=1.0)
    object.__setattr__(broken, "gpu_count", None)  # violates NOT NULL half way through the run
    with pytest.raises(Exception):  # noqa: B017 - whichever IntegrityError the driver raises
        cat.write_run(run(refreshed("lambda", [offer(provider="lambda")]), refreshed("aws", [offer(price=2.0),
                                                                                           broken])))
    assert cat.snapshot() == before  # neither provider changed, and no run was recorded


def test_lease_is_held_by_one_holder_until_it_expires(state_store):
    a, b = state_store.catalog, CatalogStore(state_store.engine)
    ttl = timedelta(minutes=10)
    assert a.try_lease("price-refresh", "a", ttl, now=T0)
    assert not b.try_lease("price-refresh", "b", ttl, now=T0 + timedelta(minutes=1))
    assert a.try_lease("price-refresh", "a", ttl, now=T0 + timedelta(minutes=2))  # renewal
    assert b.try_lease("price-refresh", "b", ttl, now=T0 + timedelta(minutes=13))  # expired: taken over
    b.release_lease("price-refresh", "b")
    assert a.try_lease("price-refresh", "a", ttl, now=T0 + timedelta(minutes=14))


def test_reading_the_catalog_from_sqlite_imports_no_sqlalchemy(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.db'}"
    Store(url).catalog.write_run(run(refreshed("aws", [offer()])))
    code = ("import sys; from bot.storage.catalog_read import read_catalog; "
            f"snap = read_catalog({url!r}); assert len(snap.offers_for('h100-sxm-80gb')) == 1; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'slack_bolt', 'slack_sdk'));"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_database_migrated_by_step_1_gets_step_2(tmp_path):
    # A state store created before step 2 existed: only step 1 recorded, no GPU index.
    from sqlalchemy import insert

    from bot.storage import catalog as catalog_module

    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        catalog_module.steps_table.create(conn)
        catalog_module._step_1(conn)
        conn.execute(insert(catalog_module.steps_table).values(step=1, name="old", applied_at=T0))
    assert migrate(engine) == [2]
    assert "ix_gpu_advisor_catalog_offers_gpu" in {i["name"] for i in inspect(engine).get_indexes(
        "gpu_advisor_catalog_offers")}
    assert migrate(engine) == []
