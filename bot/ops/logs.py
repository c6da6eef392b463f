"""Structured logging: one JSON object per line on stderr, never message text, never a token.

The bot logs what happened, never what was said. Three rules make that hold on every path,
errors and crashes included, whatever code logged the record:

* **Our own loggers** (``gpu_advisor.*``) log ids, team, intent, latency and outcome (see
  :func:`log_request`); their messages are written as formatted.
* **Every other logger** (Bolt, slack_sdk, urllib3, SQLAlchemy, pebble, and any module not under
  ``gpu_advisor``) keeps only its message *template* (a constant in the library's code) with the
  arguments dropped, or ``(message withheld)`` when the message was built before logging (an
  f-string can hold a request body); its ``extra`` fields are dropped and its call site
  (``source``: file:line) is added so the line can still be looked up. Below WARNING they are
  not written at all (Bolt and slack_sdk log whole events at DEBUG).
* **Exceptions** are written as their traceback frames and type only: an exception's message
  is withheld (``ValueError: [message withheld: 42 characters]``) because messages quote their
  input (``could not convert string to float: '3.5.1'``, pydantic's ``input_value=...``,
  SQLAlchemy's bound parameters).

Slack tokens (``xoxb-``, ``xoxp-``, ``xapp-`` ...) are also masked in every line as a second line
of defence. :func:`install_exception_hooks` (called by :func:`configure_logging`) routes
uncaught exceptions of the main thread and of other threads, unraisable exceptions and Python
warnings into the same JSON lines, so nothing reaches stderr as a raw traceback.
"""

from __future__ import annotations

import errno
import json
import logging
import re
import sys
import threading
import traceback
import warnings
from datetime import UTC, datetime
from types import TracebackType
from typing import IO, Any

from pythonjsonlogger.json import JsonFormatter

__all__ = ["CRASH_LOGGER", "REQUEST_LOGGER", "WITHHELD", "configure_logging", "describe_exception",
           "install_exception_hooks", "log_request", "make_formatter", "redact", "safe_label"]

OWN_LOGGER = "gpu_advisor"
REQUEST_LOGGER = "gpu_advisor.request"
CRASH_LOGGER = "gpu_advisor.crash"
#: What replaces a message that may quote input (another library's pre-built message).
WITHHELD = "(message withheld)"
_TOKEN = re.compile(r"\b(xox[abposre]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]+")
_QUIET_LIBRARIES = ("slack_bolt", "slack_sdk", "urllib3", "sqlalchemy", "psycopg", "pebble")
_LABEL = re.compile(r"^[A-Za-z0-9_./:@-]{1,80}$")
#: Attributes every LogRecord has; anything else on a record came from ``extra``.
_STANDARD_ATTRS = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


def redact(text: str) -> str:
    """``text`` with every Slack token replaced by its prefix and ``-***`` (``xoxb-***``)."""
    return _TOKEN.sub(lambda m: m.group(1) + "-***", text)


def safe_label(value: Any) -> str | None:
    """``value`` when it is a short identifier (ids, event types, commands, action ids), else ``"(other)"``.

    Fields that come from a request body (``team_id``, ``event.type``, ``command``) are logged
    through this, so even a crafted signed request cannot put free text into a log line.

    Returns:
        ``None`` for ``None``; the string when it matches ``[A-Za-z0-9_./:@-]{1,80}``; else ``"(other)"``.
    """
    if value is None:
        return None
    return value if isinstance(value, str) and _LABEL.match(value) else "(other)"


def _iso_time(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


def _is_own(name: str) -> bool:
    return name == OWN_LOGGER or name.startswith(OWN_LOGGER + ".")


def describe_exception(exc: BaseException) -> str:
    """``module.Type`` of ``exc`` plus, for OS errors, the errno name (``ECONNREFUSED``); never its message."""
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    code = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    return f"{name} ({errno.errorcode.get(code, code)})" if code is not None else name


def _format_exception(exc: BaseException) -> str:
    """A traceback with frames and exception types, every exception's message withheld."""
    chain: list[tuple[BaseException, str | None]] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    link: str | None = None
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append((current, link))
        if current.__cause__ is not None:
            current, link = current.__cause__, "The above exception was the direct cause of the following exception:"
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, "During handling of the above exception, another exception occurred:"
        else:
            current = None
    parts: list[str] = []
    for item, how in reversed(chain):
        frames = "".join(traceback.StackSummary.extract(traceback.walk_tb(item.__traceback__)).format())
        message = str(item) if not isinstance(item, KeyboardInterrupt) else ""
        withheld = f": [message withheld: {len(message)} characters]" if message else ""
        parts.append(f"Traceback (most recent call last):\n{frames}{describe_exception(item)}{withheld}")
        if how:
            parts.append(how)
    # the chain was collected from the newest exception back; print oldest first, as Python does
    return "\n\n".join(parts)


def _exc_of(exc_info: Any) -> BaseException | None:
    if isinstance(exc_info, BaseException):
        return exc_info
    if isinstance(exc_info, tuple) and len(exc_info) == 3 and isinstance(exc_info[1], BaseException):
        return exc_info[1]
    return None


def _sanitized(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of ``record`` that follows the module's rules (the original is left alone)."""
    copy = logging.makeLogRecord(record.__dict__)
    if not _is_own(record.name):
        template = record.msg if isinstance(record.msg, str) and record.args else None
        copy.msg = template if template is not None else WITHHELD
        copy.args = ()
        for key in list(copy.__dict__):
            if key not in _STANDARD_ATTRS:
                delattr(copy, key)
        copy.source = f"{'/'.join(record.pathname.replace(chr(92), '/').split('/')[-3:])}:{record.lineno}"
    elif not isinstance(copy.msg, str):
        copy.msg = str(copy.msg)
    copy.exc_text = None
    return copy


class _SafeExceptions:
    """Mixin: tracebacks without exception messages; records sanitized before formatting."""

    def formatException(self, ei: Any) -> str:  # noqa: N802 - stdlib name
        exc = _exc_of(ei)
        return _format_exception(exc) if exc is not None else "(no exception)"

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return _iso_time(record)


class _RedactingJsonFormatter(_SafeExceptions, JsonFormatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(_sanitized(record)))


class _RedactingTextFormatter(_SafeExceptions, logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = redact(super().format(_sanitized(record)))
        return line.encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates cannot break stderr


class _OwnLoggersOnlyBelowWarning(logging.Filter):
    """Drops DEBUG/INFO records of every logger outside ``gpu_advisor``.

    Bolt copies the root level into its own loggers when an App is built, and at DEBUG it logs
    whole events ("Skipped self event: {...}", message text included); a handler-level filter
    holds whatever the loggers' levels are.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or _is_own(record.name)


class _JsonLineHandler(logging.StreamHandler):
    """A stream handler whose own failures are reported as one JSON line, not a raw traceback."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - stdlib name
        try:
            exc = sys.exc_info()[1]
            self.stream.write(json.dumps({"time": _iso_time(record), "level": "ERROR", "logger": "gpu_advisor.logs",
                                          "message": "a log record could not be written",
                                          "error": describe_exception(exc) if exc else None,
                                          "record_logger": record.name}) + "\n")
            self.flush()
        except Exception:  # noqa: BLE001 - nothing left to report to
            pass


def make_formatter(fmt: str = "json") -> logging.Formatter:
    """The formatter :func:`configure_logging` installs.

    Args:
        fmt: ``"json"`` (fields ``time``, ``level``, ``logger``, ``message``, ``exc_info`` and any
            ``extra`` of our own loggers; ``source`` for other libraries) or ``"text"``
            (``time level logger message``).

    Returns:
        A formatter that follows the module's rules (templates only for other libraries,
        exception messages withheld, Slack tokens masked).
    """
    if fmt == "json":
        return _RedactingJsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s",
                                       rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})
    return _RedactingTextFormatter("%(asctime)s %(levelname)s %(name)s %(message)s")


def _log_uncaught(kind: str, exc: BaseException | None, **fields: Any) -> None:
    if exc is None:
        return
    logging.getLogger(CRASH_LOGGER).critical(
        "uncaught exception (%s)", kind, exc_info=(type(exc), exc, exc.__traceback__),
        extra={"error": describe_exception(exc), **fields})


def install_exception_hooks() -> None:
    """Send uncaught exceptions (main thread, other threads), unraisable exceptions and warnings to the log.

    Each becomes one JSON line on ``gpu_advisor.crash`` (warnings on ``gpu_advisor.warnings``)
    with the traceback inside the record, instead of Python's raw text on stderr.
    """
    def excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        _log_uncaught("main thread", exc.with_traceback(tb))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        _log_uncaught("thread", args.exc_value, thread_name=safe_label(args.thread.name if args.thread else None))

    def unraisable_hook(args: Any) -> None:
        _log_uncaught("unraisable", args.exc_value)

    def show_warning(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
                     line: str | None = None) -> None:
        logging.getLogger("gpu_advisor.warnings").warning(
            "%s at %s:%d", category.__name__, filename.rsplit("/", 1)[-1], lineno,
            extra={"category": category.__name__})

    sys.excepthook = excepthook
    threading.excepthook = thread_hook
    sys.unraisablehook = unraisable_hook
    warnings.showwarning = show_warning


def configure_logging(level: str = "INFO", fmt: str = "json", stream: IO[str] | None = None) -> None:
    """Send every log record to ``stream`` (stderr) as one line, replacing existing root handlers.

    Also installs :func:`install_exception_hooks`, so uncaught exceptions are log lines too.

    Args:
        level: ``LOG_LEVEL`` (``DEBUG`` ... ``CRITICAL``) of GPU Advisor's own loggers
            (``gpu_advisor.*``); every other logger (Slack, HTTP and database libraries) writes
            WARNING and above only.
        fmt: ``LOG_FORMAT``, ``"json"`` or ``"text"``.
        stream: where to write; stderr by default.
    """
    handler = _JsonLineHandler(stream or sys.stderr)
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
    install_exception_hooks()


def log_request(fields: dict[str, Any]) -> None:
    """Write the one line that describes a finished Slack request, at INFO on ``gpu_advisor.request``.

    Args:
        fields: ids, team, intent, latency and outcome (see ``bot.ops.metrics.RequestRecord``);
            never message text.
    """
    level = logging.ERROR if fields.get("outcome") in ("error", "post_failed", "timeout") else logging.INFO
    logging.getLogger(REQUEST_LOGGER).log(level, "request", extra=fields)
