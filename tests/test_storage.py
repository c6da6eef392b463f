"""The state store against SQLite and the PostgreSQL on 127.0.0.1:5432 (database ``test``).

The PostgreSQL cases are skipped only when nothing listens there (a developer laptop); on CI
machines PostgreSQL runs before the tests start.
"""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_engine, text

from bot.storage.store import CONTEXT_TTL, EVENT_TTL, Store

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _pg_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        yield Store(f"sqlite:///{tmp_path / 'state.db'}")
        return
    if not _pg_up():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    schema = "t_" + uuid.uuid4().hex[:10]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    engine = create_engine(PG_URL, connect_args={"options": f"-csearch_path={schema}"})
    yield Store(engine=engine)
    engine.dispose()
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_event_is_claimed_once(store):
    assert store.claim_event("Ev1", "T1", now=T0) is True
    assert store.claim_event("Ev1", "T1", now=T0 + timedelta(seconds=5)) is False
    assert store.claim_event("Ev2", "T1", now=T0) is True


def test_claim_is_exclusive_across_two_stores_on_one_database(store):
    other = Store(engine=store.engine)  # a second process sharing the database
    assert store.claim_event("EvX", now=T0) is True
    assert other.claim_event("EvX", now=T0) is False


def test_expired_event_can_be_claimed_again(store):
    assert store.claim_event("Ev3", now=T0)
    assert store.claim_event("Ev3", now=T0 + EVENT_TTL + timedelta(seconds=1)) is True


def test_context_round_trip_and_expiry(store):
    store.save_context("T1:D1", '{"intent": "size_inference"}', "2x H100", team_id="T1", now=T0)
    ctx = store.load_context("T1:D1", now=T0 + timedelta(minutes=1))
    assert ctx.query_json == '{"intent": "size_inference"}'
    assert ctx.answer_summary == "2x H100"
    assert ctx.updated_at == T0
    assert store.load_context("T1:D1", now=T0 + CONTEXT_TTL + timedelta(seconds=1)) is None
    store.save_context("T1:D1", "{}", now=T0)  # replace
    assert store.load_context("T1:D1", now=T0).query_json == "{}"
    store.clear_context("T1:D1")
    assert store.load_context("T1:D1", now=T0) is None


def test_audit_has_no_message_text(store):
    store.record_audit(team_id="T1", channel_type="im", intent="quote", latency_ms=12.5, outcome="answered", now=T0)
    row = store.audit_rows(1)[0]
    assert (row.team_id, row.channel_type, row.intent, row.latency_ms, row.outcome) == (
        "T1", "im", "quote", 12.5, "answered")
    assert not hasattr(row, "text")


def test_purge_expired(store):
    store.claim_event("Ev9", now=T0)
    store.save_context("k", "{}", now=T0)
    assert store.purge_expired(now=T0 + CONTEXT_TTL + timedelta(seconds=1)) == 2
    assert store.ping()
