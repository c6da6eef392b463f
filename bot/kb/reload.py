"""Reload the knowledge base without a redeploy: on SIGHUP, and when its files change.

A :class:`KnowledgeReloader` watches one knowledge directory. A background thread compares the
modification time and size of every file under it every ``interval`` seconds (a cheap
``stat`` walk; no inotify, so it works on any volume) and reloads when anything changed, was
added or was removed; SIGHUP (or :meth:`KnowledgeReloader.request_reload`) reloads at once.

A reload validates the whole directory with :func:`bot.kb.loader.load_knowledge` first and only
then swaps it in with :func:`bot.kb.loader.set_knowledge`, so readers always see either the old
or the new knowledge base, never a mix. A broken update is rejected: the last good knowledge
base keeps serving and every validation error is logged as ``file:line: field: message``.

No Slack, HTTP or database imports here.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.errors import KnowledgeError
from bot.kb.loader import KnowledgeBase, load_knowledge, set_knowledge

__all__ = ["KnowledgeReloader", "ReloadStatus", "snapshot"]

log = logging.getLogger("gpu_advisor.kb.reload")

Snapshot = dict[str, tuple[int, int]]


def snapshot(directory: Path) -> Snapshot:
    """``{relative path: (mtime_ns, size)}`` of every file under ``directory`` (recursively).

    Args:
        directory: the knowledge directory.

    Returns:
        The mapping; empty when the directory is missing. Files that vanish during the walk are skipped.
    """
    out: Snapshot = {}
    if not directory.is_dir():
        return out
    for path in directory.rglob("*"):
        try:
            if path.is_file():
                st = path.stat()
                out[str(path.relative_to(directory))] = (st.st_mtime_ns, st.st_size)
        except OSError:
            continue
    return out


@dataclass(frozen=True)
class ReloadStatus:
    """What the reloader last did, for ``/healthz``.

    Attributes:
        directory: the watched knowledge directory.
        loaded_at: when the knowledge base being served was loaded (UTC).
        reloads: successful reloads since start.
        rejected: reloads rejected because the new files did not validate.
        last_error_at: when the last rejected reload happened, or ``None``.
        last_error_count: how many validation errors it had (0 when none).
        interval_seconds: the change-check period (0: off).
    """

    directory: str
    loaded_at: datetime | None
    reloads: int
    rejected: int
    last_error_at: datetime | None
    last_error_count: int
    interval_seconds: float

    def as_dict(self) -> dict:
        """JSON-ready form (ISO timestamps)."""
        return {"directory": self.directory,
                "loaded_at": self.loaded_at.isoformat() if self.loaded_at else None,
                "reloads": self.reloads, "rejected": self.rejected,
                "last_error_at": self.last_error_at.isoformat() if self.last_error_at else None,
                "last_error_count": self.last_error_count, "interval_seconds": self.interval_seconds}


class KnowledgeReloader:
    """Reloads the process-wide knowledge base from ``directory`` when asked or when files change.

    Args:
        directory: the knowledge directory (``GPU_ADVISOR_KNOWLEDGE``).
        interval: seconds between change checks (``GPU_ADVISOR_RELOAD_SECONDS``); 0 turns them off.
        load: loads and validates a directory (default :func:`bot.kb.loader.load_knowledge`).
        install: makes a loaded knowledge base the one served (default :func:`bot.kb.loader.set_knowledge`).
        on_result: called with ``True`` after each successful reload and ``False`` after each
            rejected one (metrics).

    The first snapshot is taken on construction: call it right after the initial load so that
    only later edits count as changes.
    """

    def __init__(self, directory: str | Path, *, interval: float = 300,
                 load: Callable[[Path], KnowledgeBase] = load_knowledge,
                 install: Callable[[KnowledgeBase], None] = set_knowledge,
                 on_result: Callable[[bool], None] | None = None):
        self.directory = Path(directory)
        self.interval = float(interval)
        self._load = load
        self._install = install
        self._on_result = on_result
        self._snapshot = snapshot(self.directory)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._forced = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loaded_at: datetime | None = datetime.now(UTC)
        self._reloads = 0
        self._rejected = 0
        self._last_error_at: datetime | None = None
        self._last_error_count = 0

    # ------------------------------------------------------------------ actions
    def reload(self, reason: str = "requested") -> bool:
        """Load and validate the directory; serve it if valid, else keep the current one.

        Args:
            reason: why (``"SIGHUP"``, ``"files changed"``), for the log.

        Returns:
            ``True`` when the new knowledge base is now served, ``False`` when it was rejected.
            Never raises for a broken knowledge directory: each error is logged at ERROR as
            ``file:line: field: message``.
        """
        with self._lock:
            before = snapshot(self.directory)
            started = time.perf_counter()
            try:
                kb = self._load(self.directory)
            except KnowledgeError as exc:
                self._snapshot = before  # do not retry the same broken files every interval
                self._rejected += 1
                self._last_error_at = datetime.now(UTC)
                self._last_error_count = len(exc.issues)
                for issue in exc.issues:
                    log.error("knowledge error %s", issue,
                              extra={"file": issue.file, "line": issue.line, "field": issue.field})
                log.error("knowledge reload (%s) rejected: %d error(s) in %s; still serving the knowledge "
                          "base loaded at %s", reason, len(exc.issues), self.directory,
                          self._loaded_at.isoformat() if self._loaded_at else "start")
                self._notify(False)
                return False
            self._install(kb)
            self._snapshot = before
            self._reloads += 1
            self._loaded_at = datetime.now(UTC)
            oldest, newest, _ = kb.price_dates()
            log.info("knowledge reloaded (%s) from %s in %.0f ms: %d GPUs, %d models, %d price offers, "
                     "newest price %s", reason, self.directory, (time.perf_counter() - started) * 1000,
                     len(kb.gpus), len(kb.models), len(kb.offers), newest)
            self._notify(True)
            return True

    def changed(self) -> bool:
        """True when any file under the directory changed, appeared or vanished since the last (re)load."""
        return snapshot(self.directory) != self._snapshot

    def check(self) -> bool | None:
        """Reload if the files changed.

        Returns:
            ``None`` when nothing changed, else the result of :meth:`reload`.
        """
        if not self.changed():
            return None
        return self.reload("files changed")

    def request_reload(self) -> None:
        """Ask the background thread to reload now (safe from a signal handler: it only sets flags)."""
        self._forced = True
        self._wake.set()

    # ------------------------------------------------------------------ background thread
    def start(self) -> threading.Thread:
        """Start the background thread (daemon) that serves :meth:`request_reload` and the periodic check.

        Returns:
            The thread.
        """
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="gpu-advisor-kb-reload", daemon=True)
            self._thread.start()
        return self._thread

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the background thread and wait up to ``timeout`` seconds for it."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.interval if self.interval > 0 else None)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                if self._forced:
                    self._forced = False
                    self.reload("SIGHUP")
                elif self.interval > 0:
                    self.check()
            except Exception:  # noqa: BLE001 - the watcher must outlive an unexpected error
                log.exception("knowledge reload failed unexpectedly; will try again")

    def install_sighup(self) -> None:
        """Reload on SIGHUP (call from the main thread; the handler only wakes the background thread).

        Raises:
            ValueError: when called outside the main thread (Python's signal rule).
        """
        signal.signal(signal.SIGHUP, lambda _signum, _frame: self.request_reload())

    # ------------------------------------------------------------------ status
    def status(self) -> ReloadStatus:
        """The current :class:`ReloadStatus`."""
        return ReloadStatus(str(self.directory), self._loaded_at, self._reloads, self._rejected,
                            self._last_error_at, self._last_error_count, self.interval)

    def _notify(self, ok: bool) -> None:
        if self._on_result is not None:
            try:
                self._on_result(ok)
            except Exception:  # noqa: BLE001
                log.exception("reload callback failed")
