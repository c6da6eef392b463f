"""A user's recent questions in the state store (App Home's "Your last questions"), on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.storage.store import QUESTION_TTL, RECENT_QUESTIONS, Store
from tests.test_storage import store  # noqa: F401 - the sqlite/postgresql fixture

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_nothing_for_a_user_who_never_asked(store):  # noqa: F811
    assert store.recent_questions("T1", "U1", now=T0) == []


def test_the_last_five_newest_first_per_team_and_user(store):  # noqa: F811
    for i in range(7):
        store.record_question("T1", "U1", f"question {i}", now=T0 + timedelta(minutes=i))
    store.record_question("T1", "U2", "someone else's", now=T0)
    store.record_question("T2", "U1", "same user id, other workspace", now=T0)
    texts = [q.text for q in store.recent_questions("T1", "U1", now=T0 + timedelta(hours=1))]
    assert RECENT_QUESTIONS == 5
    assert texts == ["question 6", "question 5", "question 4", "question 3", "question 2"]
    assert [q.text for q in store.recent_questions("T1", "U2", now=T0)] == ["someone else's"]


def test_asking_again_moves_a_question_up_instead_of_listing_it_twice(store):  # noqa: F811
    store.record_question("T1", "U1", "a", now=T0)
    store.record_question("T1", "U1", "b", now=T0 + timedelta(minutes=1))
    store.record_question("T1", "U1", "a", now=T0 + timedelta(minutes=2))
    assert [q.text for q in store.recent_questions("T1", "U1", now=T0 + timedelta(minutes=3))] == ["a", "b"]


def test_questions_expire_and_are_purged(store):  # noqa: F811
    store.record_question("T1", "U1", "old", now=T0)
    later = T0 + QUESTION_TTL + timedelta(seconds=1)
    assert store.recent_questions("T1", "U1", now=later) == []
    assert store.purge_expired(now=later) == 1


def test_blank_text_is_not_recorded_and_long_text_is_cut(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")  # noqa: F811
    store.record_question("T1", "U1", "   ", now=T0)
    store.record_question(None, "U1", "x" * 5000, now=T0)
    assert store.recent_questions("T1", "U1", now=T0) == []
    assert len(store.recent_questions(None, "U1", now=T0)[0].text) == 1000
