"""Prometheus metrics for the bot (served at ``/metrics``) and the record of one Slack request.

Each :class:`Metrics` has its own ``CollectorRegistry``, so tests can run several apps in one
process; the server uses the process-wide :func:`get_metrics`.

Metrics:

* ``gpu_advisor_requests_total{kind,outcome}``: Slack requests handled (kind ``event``,
  ``command``, ``action``; outcome ``answered``, ``help``, ``duplicate``, ``ignored``, ``busy``,
  ``timeout``, ``error`` ...).
* ``gpu_advisor_request_latency_seconds{kind}``: from the request reaching the app to the answer
  being posted.
* ``gpu_advisor_errors_total{kind}``: requests that ended in an error (an apology, or a failed post).
* ``gpu_advisor_answers_total{intent}``: answers by intent (``size_inference``, ``quote`` ...).
* ``gpu_advisor_http_responses_total{path,status}``: every HTTP response, including 401s for bad
  signatures (path is one of a fixed set).
* ``gpu_advisor_http_rejections_total{reason}``: requests refused at the HTTP edge before Bolt
  (``body_too_large``, ``bad_signature``, ``malformed_body`` ...; see ``bot.slack.edge``).
* ``gpu_advisor_knowledge_reloads_total{result}``: knowledge reloads, ``ok`` or ``rejected``.
* ``gpu_advisor_price_data_age_days{which}``: days since the newest / oldest dated price.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

from bot.kb.loader import KnowledgeBase
from bot.ops.logs import log_request, safe_label

__all__ = ["ERROR_OUTCOMES", "Metrics", "RequestRecord", "get_metrics", "report_request"]

ERROR_OUTCOMES = frozenset({"error", "timeout", "post_failed"})
_PATHS = ("/slack/events", "/slack/install", "/slack/oauth_redirect", "/healthz", "/metrics")


@dataclass(frozen=True)
class RequestRecord:
    """What one finished Slack request did; never the message text.

    Attributes:
        request_id: an id made for this request (12 hex digits).
        kind: ``event``, ``command`` or ``action``.
        type: the event type, slash command or action id (``app_mention``, ``/gpu``, ``quote_this``).
        team_id: the workspace.
        channel_type: ``im``, ``channel``, ``command`` or ``None``.
        intent: the answer's intent, when there was an answer.
        outcome: ``answered``, ``help``, ``duplicate``, ``ignored``, ``expired``, ``home``,
            ``tampered`` (a button value that is not ours), ``busy`` (every answer worker and queue
            slot taken), ``timeout`` (an answer over its time budget), ``error`` or ``post_failed``.
        latency_ms: from the request reaching the app to the end of its handling.
        event_id: Slack's event id (events only), which retries share.
        ref: the reference id shown to the user in an apology.
    """

    request_id: str
    kind: str
    type: str | None
    team_id: str | None
    channel_type: str | None
    intent: str | None
    outcome: str
    latency_ms: float | None
    event_id: str | None = None
    ref: str | None = None


class _KnowledgeCollector:
    """Price data age, computed from the knowledge base being served at scrape time."""

    def __init__(self, kb_provider: Callable[[], KnowledgeBase], today: Callable[[], date]):
        self.kb_provider = kb_provider
        self.today = today

    def collect(self):
        family = GaugeMetricFamily("gpu_advisor_price_data_age_days",
                                   "Days since the newest / oldest dated price in the knowledge base",
                                   labels=["which"])
        try:
            oldest, newest, _ = self.kb_provider().price_dates()
        except Exception:  # noqa: BLE001 - a scrape never fails on the knowledge base
            oldest = newest = None
        today = self.today()
        for which, value in (("newest", newest), ("oldest", oldest)):
            if value is not None:
                family.add_metric([which], (today - value).days)
        yield family


class Metrics:
    """The bot's Prometheus metrics in their own registry.

    Args:
        registry: where to register; a new ``CollectorRegistry`` when ``None``.
    """

    def __init__(self, registry: CollectorRegistry | None = None):
        self.registry = registry or CollectorRegistry()
        self.requests = Counter("gpu_advisor_requests", "Slack requests handled", ["kind", "outcome"],
                                registry=self.registry)
        self.latency = Histogram("gpu_advisor_request_latency_seconds",
                                 "Time from a Slack request reaching the app to the end of its handling", ["kind"],
                                 buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0), registry=self.registry)
        self.errors = Counter("gpu_advisor_errors", "Slack requests that ended in an error", ["kind"],
                              registry=self.registry)
        self.answers = Counter("gpu_advisor_answers", "Answers given, by intent", ["intent"], registry=self.registry)
        self.http = Counter("gpu_advisor_http_responses", "HTTP responses by path and status", ["path", "status"],
                            registry=self.registry)
        self.rejections = Counter("gpu_advisor_http_rejections", "Requests refused at the HTTP edge, by reason",
                                  ["reason"], registry=self.registry)
        self.reloads = Counter("gpu_advisor_knowledge_reloads", "Knowledge base reloads by result", ["result"],
                               registry=self.registry)
        self._knowledge_tracked = False
        self._lock = threading.Lock()

    def observe(self, record: RequestRecord) -> None:
        """Count one finished Slack request (requests, latency, errors, answers by intent)."""
        self.requests.labels(record.kind, record.outcome).inc()
        if record.latency_ms is not None:
            self.latency.labels(record.kind).observe(record.latency_ms / 1000)
        if record.outcome in ERROR_OUTCOMES:
            self.errors.labels(record.kind).inc()
        if record.outcome == "answered" and record.intent:
            self.answers.labels(record.intent).inc()

    def observe_http(self, path: str, status: int | str) -> None:
        """Count one HTTP response; paths outside the served set count as ``other``."""
        self.http.labels(path if path in _PATHS else "other", str(status).split(" ")[0]).inc()

    def observe_rejection(self, reason: str) -> None:
        """Count one request refused at the HTTP edge (``reason`` is one of bot.slack.edge's fixed codes)."""
        self.rejections.labels(reason).inc()

    def observe_reload(self, ok: bool) -> None:
        """Count one knowledge reload attempt (``ok`` or ``rejected``)."""
        self.reloads.labels("ok" if ok else "rejected").inc()

    def track_knowledge(self, kb_provider: Callable[[], KnowledgeBase],
                        today: Callable[[], date] = date.today) -> None:
        """Export the price data age of whatever ``kb_provider`` returns at scrape time (once per registry)."""
        with self._lock:
            if not self._knowledge_tracked:
                self.registry.register(_KnowledgeCollector(kb_provider, today))
                self._knowledge_tracked = True

    def exposition(self) -> tuple[bytes, str]:
        """The text exposition format and its content type, for ``GET /metrics``."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


_default: Metrics | None = None
_default_lock = threading.Lock()


def get_metrics() -> Metrics:
    """The process-wide :class:`Metrics` (created on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Metrics()
        return _default


_LABEL_FIELDS = ("request_id", "type", "team_id", "channel_type", "intent", "event_id", "ref")


def report_request(record: RequestRecord, metrics: Metrics) -> None:
    """Count ``record`` in ``metrics`` and write its one JSON log line.

    Fields that come from the request body (type, team, event id ...) are passed through
    :func:`bot.ops.logs.safe_label`, so a crafted payload cannot put free text into the log or
    into a metric label.
    """
    fields = asdict(record)
    for name in _LABEL_FIELDS:
        fields[name] = safe_label(fields[name])
    if fields["latency_ms"] is not None:
        fields["latency_ms"] = round(fields["latency_ms"], 1)
    safe = RequestRecord(**fields)
    metrics.observe(safe)
    log_request(fields)
