"""The scheduled price refresh: one replica refreshes, every replica follows the stored table.

In-process cases run on SQLite and PostgreSQL; the two-process case needs PostgreSQL (127.0.0.1:5432,
database ``test``) and is skipped when nothing listens there, as the other storage tests are.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, text

from bot.pricing.offers import current_catalog, set_catalog
from bot.pricing.refresh import FetchFailed, GpuhuntFetcher, refresh_prices
from bot.pricing.schedule import LEASE_NAME, LEASE_TTL, PriceRefresher
from tests import test_pricing_store
from tests.conftest import REPO
from tests.test_storage import PG_URL, _pg_up

FIXTURE = REPO / "tests" / "fixtures" / "gpuhunt"
state_store = test_pricing_store.state_store  # the store fixture: SQLite and PostgreSQL
T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


class Clock:
    def __init__(self, at: datetime):
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture(autouse=True)
def _no_catalog():
    set_catalog(None)
    yield
    set_catalog(None)


def _replica(store, kb, clock, name, **kw) -> PriceRefresher:
    kw.setdefault("interval_hours", 24)
    return PriceRefresher(store.catalog, kb_provider=lambda: kb, holder=name, now=clock,
                          fetcher=GpuhuntFetcher(catalog_dir=FIXTURE), **kw)


def _runs(store) -> int:
    with store.engine.connect() as conn:
        return conn.execute(text("SELECT count(*) FROM gpu_advisor_catalog_runs")).scalar()


def test_one_replica_refreshes_and_both_follow_the_table(kb, state_store):
    clock = Clock(T0)
    a, b = _replica(state_store, kb, clock, "a"), _replica(state_store, kb, clock, "b")
    assert a.run_once() is True  # nothing stored yet: due
    assert b.run_once() is False  # the run a stored is fresh: not due
    assert _runs(state_store) == 1 and a.generation == b.generation == 1
    assert {o.provider for o in current_catalog().offers} == {"aws", "lambda", "runpod"}
    clock.at = T0 + timedelta(hours=23)
    assert not a.run_once() and not b.run_once()
    clock.at = T0 + timedelta(hours=24)
    assert b.run_once() is True and a.run_once() is False
    assert _runs(state_store) == 2 and a.generation == b.generation == 2


def test_a_held_lease_stops_the_other_replica(kb, state_store):
    clock = Clock(T0)
    b = _replica(state_store, kb, clock, "b")
    assert state_store.catalog.try_lease(LEASE_NAME, "a", LEASE_TTL, now=T0)  # a is refreshing
    assert b.run_once() is False and _runs(state_store) == 0
    clock.at = T0 + LEASE_TTL + timedelta(seconds=1)  # a died holding it: the lease expires
    assert b.run_once() is True


def test_a_failed_run_keeps_the_table_and_is_retried_after_an_hour(kb, state_store):
    clock = Clock(T0)
    a = _replica(state_store, kb, clock, "a")
    assert a.run_once()
    good = current_catalog()

    def down(provider):
        raise FetchFailed("no network")

    a.fetcher = down
    clock.at = T0 + timedelta(hours=24)
    assert a.run_once()  # ran, and every provider kept its last good table
    assert {o.instance_type for o in current_catalog().offers} == {o.instance_type for o in good.offers}
    assert state_store.catalog.last_run()[2] is False
    clock.at = T0 + timedelta(hours=24, minutes=59)
    assert not a.due()
    clock.at = T0 + timedelta(hours=25)
    assert a.due()  # retried after RETRY_AFTER, not after another day


def test_schedule_off_still_follows_a_refresh_run_by_hand(kb, state_store):
    clock = Clock(T0)
    a = _replica(state_store, kb, clock, "a", interval_hours=0)
    assert a.run_once() is False and current_catalog() is None
    refresh_prices(kb, state_store.catalog, catalog_dir=FIXTURE, now=clock)  # `gpu-advisor prices refresh`
    a.run_once()
    assert a.generation == 1 and len(current_catalog().offers) > 0


REPLICA = """
import json, sys, time
from bot.kb.loader import get_knowledge
from bot.pricing.offers import offer_table
from bot.pricing.schedule import start_price_refresh
from bot.storage.store import Store

store = Store(sys.argv[1])
refresher = start_price_refresh(store.catalog, interval_hours=24, poll_seconds=0.2, catalog_dir=sys.argv[2],
                                holder=sys.argv[3])
time.sleep(float(sys.argv[4]))
refresher.stop(timeout=10)
table = offer_table(get_knowledge())
catalog = sorted((o.provider, o.instance_type, o.region or "", o.pricing_model, o.price_per_hour_usd)
                 for o in table.offers if o.origin == "catalog")
print(json.dumps({"refreshes": refresher.refreshes, "generation": table.generation, "catalog": catalog}))
"""


@pytest.mark.skipif(not _pg_up(), reason="no PostgreSQL on 127.0.0.1:5432")
def test_two_replica_processes_on_postgresql_refresh_once_and_see_one_table(tmp_path):
    schema = "t_" + uuid.uuid4().hex[:10]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    try:
        procs = [subprocess.Popen([sys.executable, "-c", REPLICA, url, str(FIXTURE), name, "4"], cwd=REPO,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
        results = []
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
        assert sorted(r["refreshes"] for r in results) == [0, 1]  # started together: one took the lease
        assert results[0]["generation"] == results[1]["generation"] == 1
        assert results[0]["catalog"] == results[1]["catalog"] and len(results[0]["catalog"]) > 0
        with admin.connect() as conn:
            assert conn.execute(text(f"SELECT count(*) FROM {schema}.gpu_advisor_catalog_runs")).scalar() == 1
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()
