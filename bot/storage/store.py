"""State kept between messages, in SQLAlchemy 2: conversation context, processed events, audit, recent
questions, prices.

SQLite by default (``sqlite:///./gpu-advisor.db``); PostgreSQL with
``postgresql+psycopg://...``. Several processes may share one database: deduplication of Slack
event retries relies on the primary key of ``processed_events`` (an INSERT either succeeds in
exactly one process or raises IntegrityError in the others), which both back ends enforce.

No message text is ever stored in the audit table; conversation context stores the parsed
query (JSON) so follow-ups work, and expires. A user's last :data:`RECENT_QUESTIONS` questions are kept
(keyed by team and user, for 30 days) only to show them back to that user on the App Home tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, Float, Integer, MetaData, String, Text, create_engine, delete, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from bot.storage.urls import DEFAULT_DATABASE_URL

__all__ = ["DEFAULT_DATABASE_URL", "QUESTION_TTL", "RECENT_QUESTIONS", "ConversationContext", "RecentQuestion",
           "Store", "create_tables"]

CONTEXT_TTL = timedelta(hours=24)
#: Questions kept per user (team + user) for the App Home tab; older ones are deleted when one is added.
RECENT_QUESTIONS = 5
#: A recent question is forgotten after this long (deleted by :meth:`Store.purge_expired`).
QUESTION_TTL = timedelta(days=30)
#: Characters of a question kept (Slack messages may hold 40,000; a Home tab line shows far fewer).
QUESTION_MAX_CHARS = 1000
EVENT_TTL = timedelta(hours=1)  # Slack retries within minutes (3 retries: ~1 min, ~5 min); an hour is ample
_DDL_LOCK_KEY = 0x6770752D61647631  # "gpu-adv1": serialises CREATE TABLE across replicas starting together


def create_tables(engine: Engine, metadata: MetaData) -> None:
    """Create the tables of ``metadata`` that are missing, safely when several processes start at once.

    On PostgreSQL two replicas running ``CREATE TABLE IF NOT EXISTS`` at the same moment can
    both pass the existence check and one then fails on the catalog's unique index; a
    transaction-scoped advisory lock makes them take turns. Other back ends create directly.

    Args:
        engine: where to create the tables.
        metadata: the tables (``Base.metadata``, or slack_sdk's installation/state store tables).
    """
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _DDL_LOCK_KEY})
        metadata.create_all(conn)


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    # SQLite returns naive datetimes even for timezone-aware columns.
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class ConversationRow(Base):
    __tablename__ = "gpu_advisor_conversations"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    team_id: Mapped[str | None] = mapped_column(String(32))
    channel_id: Mapped[str | None] = mapped_column(String(32))
    thread_ts: Mapped[str | None] = mapped_column(String(32))
    query_json: Mapped[str] = mapped_column(Text)
    answer_summary: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class ProcessedEventRow(Base):
    __tablename__ = "gpu_advisor_processed_events"

    event_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    team_id: Mapped[str | None] = mapped_column(String(32))
    processed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class QuestionRow(Base):
    __tablename__ = "gpu_advisor_recent_questions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    team_id: Mapped[str] = mapped_column(String(32), default="")
    user_id: Mapped[str] = mapped_column(String(32), index=True)
    text: Mapped[str] = mapped_column(Text)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class AuditRow(Base):
    __tablename__ = "gpu_advisor_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    team_id: Mapped[str | None] = mapped_column(String(32))
    channel_type: Mapped[str | None] = mapped_column(String(16))
    intent: Mapped[str | None] = mapped_column(String(32))
    latency_ms: Mapped[float | None] = mapped_column(Float)
    outcome: Mapped[str] = mapped_column(String(32))


@dataclass(frozen=True)
class ConversationContext:
    """What a DM or thread remembers: the last parsed query (JSON) and a summary of the answer."""

    key: str
    query_json: str
    answer_summary: str
    updated_at: datetime


@dataclass(frozen=True)
class RecentQuestion:
    """A question a user asked: its row id (to ask it again), the text as asked and when."""

    id: int
    text: str
    asked_at: datetime


class Store:
    """Conversation context, processed Slack event ids, recent questions and the audit log, in one database.

    Args:
        url: SQLAlchemy URL; ``None`` means :data:`DEFAULT_DATABASE_URL`.
        engine: an existing engine (tests), instead of ``url``.

    Tables are created on construction if missing, and pending schema steps applied
    (:func:`bot.storage.catalog.migrate`).

    Attributes:
        catalog: the refreshed price catalog (:class:`bot.storage.catalog.CatalogStore`).
    """

    def __init__(self, url: str | None = None, *, engine: Engine | None = None):
        from bot.storage.catalog import CatalogStore

        self.engine = engine or create_engine(url or DEFAULT_DATABASE_URL, pool_pre_ping=True)
        create_tables(self.engine, Base.metadata)
        self.catalog = CatalogStore(self.engine)  # the refreshed price catalog (applies its schema steps)
        self._session = sessionmaker(self.engine, expire_on_commit=False)

    # ------------------------------------------------------------------ events
    def claim_event(self, event_id: str, team_id: str | None = None, *, now: datetime | None = None) -> bool:
        """Record that ``event_id`` is being handled; ``True`` only for the first claimant.

        Safe across processes sharing the database: the primary key makes exactly one INSERT win.
        An expired record (older than :data:`EVENT_TTL`) is replaced.
        """
        now = now or _now()
        with self._session() as session:
            existing = session.get(ProcessedEventRow, event_id)
            if existing is not None:
                if _aware(existing.expires_at) > now:
                    return False
                session.delete(existing)
                session.commit()
        try:
            with self._session() as session:
                session.add(ProcessedEventRow(event_id=event_id, team_id=team_id, processed_at=now,
                                              expires_at=now + EVENT_TTL))
                session.commit()
            return True
        except IntegrityError:
            return False

    # ------------------------------------------------------------------ context
    def load_context(self, key: str, *, now: datetime | None = None) -> ConversationContext | None:
        """The context saved under ``key``, or ``None`` if there is none or it expired."""
        now = now or _now()
        with self._session() as session:
            row = session.get(ConversationRow, key)
            if row is None or _aware(row.expires_at) <= now:
                return None
            return ConversationContext(row.key, row.query_json, row.answer_summary, _aware(row.updated_at))

    def save_context(self, key: str, query_json: str, answer_summary: str = "", *, team_id: str | None = None,
                     channel_id: str | None = None, thread_ts: str | None = None,
                     now: datetime | None = None) -> None:
        """Insert or replace the context under ``key``; it expires after :data:`CONTEXT_TTL`."""
        now = now or _now()
        with self._session() as session:
            row = session.get(ConversationRow, key)
            if row is None:
                row = ConversationRow(key=key)
                session.add(row)
            row.team_id, row.channel_id, row.thread_ts = team_id, channel_id, thread_ts
            row.query_json, row.answer_summary = query_json, answer_summary
            row.updated_at, row.expires_at = now, now + CONTEXT_TTL
            session.commit()

    def clear_context(self, key: str) -> None:
        """Forget the context under ``key`` ("reset" in a DM)."""
        with self._session() as session:
            session.execute(delete(ConversationRow).where(ConversationRow.key == key))
            session.commit()

    # ------------------------------------------------------------------ recent questions
    def record_question(self, team_id: str | None, user_id: str, text: str, *, now: datetime | None = None) -> None:
        """Remember that ``user_id`` of ``team_id`` asked ``text`` (shown back to them only, never logged).

        The same text asked again moves to the top instead of being listed twice; beyond
        :data:`RECENT_QUESTIONS` per user the oldest are deleted. Text is cut to
        :data:`QUESTION_MAX_CHARS` characters; blank text is ignored.
        """
        text = text.strip()[:QUESTION_MAX_CHARS]
        if not text or not user_id:
            return
        now, team = now or _now(), team_id or ""
        with self._session() as session:
            mine = (QuestionRow.team_id == team) & (QuestionRow.user_id == user_id)
            session.execute(delete(QuestionRow).where(mine & (QuestionRow.text == text)))
            session.add(QuestionRow(team_id=team, user_id=user_id, text=text, asked_at=now))
            session.flush()
            keep = select(QuestionRow.id).where(mine).order_by(QuestionRow.asked_at.desc(), QuestionRow.id.desc()
                                                               ).limit(RECENT_QUESTIONS)
            session.execute(delete(QuestionRow).where(mine & QuestionRow.id.not_in(list(session.scalars(keep)))))
            session.commit()

    def recent_questions(self, team_id: str | None, user_id: str, *, now: datetime | None = None
                         ) -> list[RecentQuestion]:
        """``user_id``'s last questions in ``team_id``, newest first (at most :data:`RECENT_QUESTIONS`,
        none older than :data:`QUESTION_TTL`); ``[]`` for a user who never asked."""
        since = (now or _now()) - QUESTION_TTL
        with self._session() as session:
            rows = session.scalars(select(QuestionRow).where(
                (QuestionRow.team_id == (team_id or "")) & (QuestionRow.user_id == user_id)
                & (QuestionRow.asked_at > since)).order_by(QuestionRow.asked_at.desc(), QuestionRow.id.desc())
                .limit(RECENT_QUESTIONS))
            return [RecentQuestion(r.id, r.text, _aware(r.asked_at)) for r in rows]

    def question(self, team_id: str | None, user_id: str, question_id: int) -> RecentQuestion | None:
        """One of ``user_id``'s recent questions by id, or ``None`` (another user's, forgotten, or unknown)."""
        for q in self.recent_questions(team_id, user_id):
            if q.id == question_id:
                return q
        return None

    # ------------------------------------------------------------------ audit
    def record_audit(self, *, team_id: str | None, channel_type: str | None, intent: str | None,
                     latency_ms: float | None, outcome: str, now: datetime | None = None) -> None:
        """Append one audit row (no message text, by design)."""
        with self._session() as session:
            session.add(AuditRow(at=now or _now(), team_id=team_id, channel_type=channel_type, intent=intent,
                                 latency_ms=latency_ms, outcome=outcome))
            session.commit()

    def audit_rows(self, limit: int = 100) -> list[AuditRow]:
        """The newest audit rows, newest first."""
        with self._session() as session:
            return list(session.scalars(select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)))

    # ------------------------------------------------------------------ upkeep
    def purge_expired(self, *, now: datetime | None = None) -> int:
        """Delete expired contexts, event ids and recent questions; returns how many rows went."""
        now = now or _now()
        with self._session() as session:
            a = session.execute(delete(ConversationRow).where(ConversationRow.expires_at <= now)).rowcount
            b = session.execute(delete(ProcessedEventRow).where(ProcessedEventRow.expires_at <= now)).rowcount
            c = session.execute(delete(QuestionRow).where(QuestionRow.asked_at <= now - QUESTION_TTL)).rowcount
            session.commit()
        return (a or 0) + (b or 0) + (c or 0)

    def ping(self) -> bool:
        """True when the database answers ``SELECT 1``."""
        try:
            with Session(self.engine) as session:
                session.execute(select(1))
            return True
        except Exception:  # noqa: BLE001 - health checks report, never raise
            return False
