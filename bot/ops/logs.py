"""Structured logging: one JSON object per line on stderr, with Slack tokens redacted.

The bot logs what happened, never what was said: request lines carry ids, team, intent,
latency and outcome (see :func:`log_request`), never message text; Slack tokens (``xoxb-``,
``xoxp-``, ``xapp-`` ...) are masked in every line, whatever logged them, as a second line of
defence. Other libraries' loggers write WARNING and above only, even with ``LOG_LEVEL=DEBUG``,
because slack_sdk and Bolt log request bodies and events (message text) at DEBUG.
"""

from __future__ import annotations

import logging
import re
import sys
from datetime import UTC, datetime
from typing import IO, Any

from pythonjsonlogger.json import JsonFormatter

__all__ = ["REQUEST_LOGGER", "configure_logging", "log_request", "redact"]

OWN_LOGGER = "gpu_advisor"
REQUEST_LOGGER = "gpu_advisor.request"
_TOKEN = re.compile(r"\b(xox[abposre]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]+")
_QUIET_LIBRARIES = ("slack_bolt", "slack_sdk", "urllib3", "sqlalchemy", "psycopg")


def redact(text: str) -> str:
    """``text`` with every Slack token replaced by its prefix and ``-***`` (``xoxb-***``)."""
    return _TOKEN.sub(lambda m: m.group(1) + "-***", text)


def _iso_time(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


class _RedactingJsonFormatter(JsonFormatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - stdlib name
        return _iso_time(record)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _RedactingTextFormatter(logging.Formatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return _iso_time(record)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _OwnLoggersOnlyBelowWarning(logging.Filter):
    """Drops DEBUG/INFO records of every logger outside ``gpu_advisor``.

    Bolt copies the root level into its own loggers when an App is built, and at DEBUG it logs
    whole events ("Skipped self event: {...}", message text included); a handler-level filter
    holds whatever the loggers' levels are.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.name == OWN_LOGGER or record.name.startswith(OWN_LOGGER + ".")


def make_formatter(fmt: str = "json") -> logging.Formatter:
    """The formatter :func:`configure_logging` installs.

    Args:
        fmt: ``"json"`` (fields ``time``, ``level``, ``logger``, ``message`` and any ``extra``)
            or ``"text"`` (``time level logger message``).

    Returns:
        A formatter that also redacts Slack tokens.
    """
    if fmt == "json":
        return _RedactingJsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                                       rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})
    return _RedactingTextFormatter("%(asctime)s %(levelname)s %(name)s %(message)s")


def configure_logging(level: str = "INFO", fmt: str = "json", stream: IO[str] | None = None) -> None:
    """Send every log record to ``stream`` (stderr) as one line, replacing existing root handlers.

    Args:
        level: ``LOG_LEVEL`` (``DEBUG`` ... ``CRITICAL``) of GPU Advisor's own loggers
            (``gpu_advisor.*``); every other logger (Slack, HTTP and database libraries) writes
            WARNING and above only.
        fmt: ``LOG_FORMAT``, ``"json"`` or ``"text"``.
        stream: where to write; stderr by default.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(make_formatter(fmt))
    handler.addFilter(_OwnLoggersOnlyBelowWarning())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    floor = max(logging.getLevelName(level), logging.WARNING)
    for name in _QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(floor)


def log_request(fields: dict[str, Any]) -> None:
    """Write the one line that describes a finished Slack request, at INFO on ``gpu_advisor.request``.

    Args:
        fields: ids, team, intent, latency and outcome (see ``bot.ops.metrics.RequestRecord``);
            never message text.
    """
    level = logging.ERROR if fields.get("outcome") in ("error", "post_failed") else logging.INFO
    logging.getLogger(REQUEST_LOGGER).log(level, "request", extra=fields)
