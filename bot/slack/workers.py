"""Where answers are computed: worker processes behind a bounded queue, so acks never wait on answers.

Slack wants every request acknowledged within 3 seconds. Acknowledging is cheap (check the
signature, claim the event id, hand the work over); answering is CPU work in the core, and in
the serving process a CPU-heavy answer holds the GIL that every ack thread needs. So:

* answers run in ``GPU_ADVISOR_ANSWER_WORKERS`` separate processes (a ``pebble.ProcessPool``
  with the ``spawn`` start method, niced by :data:`WORKER_NICENESS` so the serving process gets
  the CPU first when cores are busy);
* at most ``workers + GPU_ADVISOR_ANSWER_QUEUE`` answers are admitted at once; past that
  :meth:`AnswerPool.start` returns ``False`` at once and the caller replies "busy" instead of
  queueing without bound (back-pressure);
* an answer that runs longer than ``GPU_ADVISOR_ANSWER_TIMEOUT_SECONDS`` has its worker stopped
  (pebble terminates it and starts a fresh one) and gives an :class:`AnswerFailure`, as does a
  worker that dies or an exception in the core; each failure has a reference id that is logged
  (by the worker for an exception, with its traceback) and shown to the user.

Each worker loads the knowledge base itself and reloads it when the serving process's
knowledge base changes (a :class:`KnowledgeRef` travels with every request). Likewise the
refreshed price catalog: with a ``catalog_url`` (the state store's ``DATABASE_URL``) a worker
reads the stored catalog whenever the serving process prices with a new generation of it, so
answers use the same prices as App Home shows. With
``GPU_ADVISOR_ANSWER_WORKERS=0`` answers are computed in threads of the serving process instead
(one at a time), which is simpler to debug but lets CPU-heavy answers slow acks down.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Literal

from pebble import ProcessExpired, ProcessPool

from bot.kb.loader import KnowledgeBase, load_knowledge, set_knowledge
from bot.ops.logs import configure_logging, describe_exception
from bot.slack.answering import (
    AnswerFunction,
    AnswerRequest,
    Reply,
    answer_message,
    catalog_generation,
    use_stored_catalog,
    warm_up_charts,
    warm_up_core,
)

__all__ = ["WORKER_NICENESS", "AnswerFailure", "AnswerPool", "KnowledgeRef", "new_ref"]

log = logging.getLogger("gpu_advisor.workers")

#: Niceness added to answer workers: when both cores are busy computing answers, the serving
#: process (acks, posting) is scheduled first. Answers are throughput work, acks latency work.
WORKER_NICENESS = 10
#: Short I/O tasks (busy notices, App Home views) that may wait at once; more are dropped and logged.
MAX_PENDING_NOTICES = 64


def new_ref() -> str:
    """A reference id for an apology: 8 hex digits, shown to the user and written to the log."""
    return uuid.uuid4().hex[:8]


@dataclass(frozen=True)
class KnowledgeRef:
    """Which knowledge base to answer from: its directory and a generation that changes on reload."""

    directory: str
    generation: int


@dataclass(frozen=True)
class AnswerFailure:
    """An answer that could not be computed: our fault, apologised for with ``ref``.

    Attributes:
        ref: the reference id (in the log line with the traceback or the reason).
        reason: ``error`` (the core raised), ``timeout`` (over the time budget; the worker was
            stopped) or ``crashed`` (the worker process died).
    """

    ref: str
    reason: Literal["error", "timeout", "crashed"]


# --------------------------------------------------------------------------- inside a worker

_worker_knowledge: tuple[KnowledgeRef, KnowledgeBase] | None = None
#: The worker's state store URL (``None``: curated prices only) and the catalog generation it prices with.
_worker_catalog: dict[str, object] = {"url": None, "generation": None}


def _knowledge(ref: KnowledgeRef) -> KnowledgeBase:
    """The worker's knowledge base for ``ref``, loaded (and made process-wide) when it changed."""
    global _worker_knowledge
    if _worker_knowledge is None or _worker_knowledge[0] != ref:
        kb = load_knowledge(ref.directory)
        set_knowledge(kb)
        _worker_knowledge = (ref, kb)
    return _worker_knowledge[1]


def _follow_catalog(generation: int | None) -> None:
    """Price with the stored catalog of ``generation`` (the serving process's), read when it changed."""
    url = _worker_catalog["url"]
    if url is None or generation == _worker_catalog["generation"]:
        return
    use_stored_catalog(str(url) if generation is not None else None)
    _worker_catalog["generation"] = generation


def _init_worker(log_level: str, log_format: str, ref: KnowledgeRef | None, catalog_url: str | None = None) -> None:
    configure_logging(log_level, log_format)
    _worker_catalog["url"] = catalog_url
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not permitted here: run at the same priority
        pass
    if ref is not None:
        kb = _knowledge(ref)  # warm: the first answer does not pay for loading
        try:
            # nor for compiling the lexicon, building the parser's name tables and the offer table: a worker
            # started to replace a stopped one answers its first question within the same time budget
            warm_up_core(kb)
        except Exception as exc:  # noqa: BLE001 - a warm-up failure shows again, and is reported, when answering
            log.warning("core not warmed up: %s", describe_exception(exc))
        try:
            warm_up_charts()  # nor for importing matplotlib to draw its chart
        except Exception as exc:  # noqa: BLE001 - charts are drawn (or skipped, logged) when answering
            log.warning("charts not warmed up: %s", describe_exception(exc))


def _answer_safely(answer_fn: AnswerFunction, request: AnswerRequest, kb: KnowledgeBase) -> Reply | AnswerFailure:
    try:
        return answer_fn(request, kb)
    except Exception as exc:  # noqa: BLE001 - logged with a reference; the user gets an apology
        ref = new_ref()
        log.error("answer failed, reference %s", ref, exc_info=exc,
                  extra={"ref": ref, "mode": request.mode, "error": describe_exception(exc)})
        return AnswerFailure(ref, "error")


def _run_in_worker(answer_fn: AnswerFunction, request: AnswerRequest, ref: KnowledgeRef,
                   catalog: int | None = None) -> Reply | AnswerFailure:
    try:
        kb = _knowledge(ref)
        _follow_catalog(catalog)
    except Exception as exc:  # noqa: BLE001 - e.g. the directory changed again and does not validate
        failure = new_ref()
        log.error("worker could not load the knowledge base, reference %s", failure, exc_info=exc,
                  extra={"ref": failure})
        return AnswerFailure(failure, "error")
    return _answer_safely(answer_fn, request, kb)


def _noop() -> int:
    return os.getpid()


def _warm(ref: KnowledgeRef) -> int:
    """Load the knowledge base of ``ref`` in this worker and answer one question with it (see
    :meth:`AnswerPool.warm_knowledge`); a failure shows again, and is reported, when answering."""
    try:
        warm_up_core(_knowledge(ref))
    except Exception as exc:  # noqa: BLE001
        log.warning("core not warmed up after a reload: %s", describe_exception(exc))
    return os.getpid()


def _snapshot(kb: KnowledgeBase) -> str | None:
    """A private copy of ``kb``'s directory for workers, checked to validate; ``None`` (with a log line)
    when the directory changed since it was loaded and no longer validates."""
    target = tempfile.mkdtemp(prefix="gpu-advisor-kb-")
    try:
        shutil.copytree(kb.directory, target, dirs_exist_ok=True)
        load_knowledge(target)
    except Exception as exc:  # noqa: BLE001 - the served knowledge stays; workers keep the last snapshot
        log.warning("knowledge snapshot for workers not taken: %s", describe_exception(exc))
        shutil.rmtree(target, ignore_errors=True)
        return None
    return target


# --------------------------------------------------------------------------- in the serving process


class AnswerPool:
    """Admits, computes and finishes answers off the acknowledging path.

    Args:
        workers: worker processes (``GPU_ADVISOR_ANSWER_WORKERS``); 0 computes in threads.
        queue: answers that may wait for a worker (``GPU_ADVISOR_ANSWER_QUEUE``).
        timeout_s: time budget of one answer in a worker (``GPU_ADVISOR_ANSWER_TIMEOUT_SECONDS``).
        answer_fn: the seam (:func:`bot.slack.answering.answer_message`) or a function with its
            signature; with workers it must be importable by name (a module-level function).
        log_level, log_format: how workers log (``LOG_LEVEL``, ``LOG_FORMAT``).
        knowledge: the knowledge base workers load at start (they follow reloads later).
        catalog_url: the state store (``DATABASE_URL``) workers read the refreshed price catalog from
            whenever the serving process prices with a new generation; ``None``: curated prices only.
    """

    def __init__(self, *, workers: int = 2, queue: int = 16, timeout_s: float = 10.0,
                 answer_fn: AnswerFunction = answer_message, log_level: str = "INFO", log_format: str = "json",
                 knowledge: KnowledgeBase | None = None, catalog_url: str | None = None):
        self.workers = workers
        self.capacity = max(1, workers) + queue
        self.timeout_s = timeout_s
        self.answer_fn = answer_fn
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._jobs = ThreadPoolExecutor(max_workers=self.capacity, thread_name_prefix="gpu-advisor-answer")
        self._notices = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gpu-advisor-notice")
        self._notice_slots = threading.BoundedSemaphore(MAX_PENDING_NOTICES)
        self._inline = threading.Semaphore(1)
        self._lock = threading.Lock()
        self._pending: set[Future] = set()
        self._pending_lock = threading.Lock()
        self._closed = False
        self._last_kb: KnowledgeBase | None = None
        self._generation = 0
        self._snapshot: str | None = None
        self._snapshots: list[str] = []
        self._pool: ProcessPool | None = None
        if workers > 0:
            initial = self.knowledge_ref(knowledge) if knowledge is not None else None
            self._pool = ProcessPool(max_workers=workers, initializer=_init_worker,
                                     initargs=(log_level, log_format, initial, catalog_url),
                                     context=multiprocessing.get_context("spawn"))

    def knowledge_ref(self, kb: KnowledgeBase) -> KnowledgeRef:
        """The :class:`KnowledgeRef` of ``kb``: a new generation whenever a different object is served.

        Workers load a private snapshot of the directory taken when the generation changes, never the
        live directory: a later edit that does not validate (and that the parent rejected) cannot reach
        a worker that starts or reloads afterwards.
        """
        with self._lock:
            if kb is not self._last_kb:
                snapshot = _snapshot(kb) if self.workers > 0 else None
                if snapshot is not None:
                    self._snapshots.append(snapshot)
                    self._snapshot = snapshot
                self._last_kb = kb
                self._generation += 1
            return KnowledgeRef(self._snapshot or str(kb.directory), self._generation)

    def warm_knowledge(self, kb: KnowledgeBase) -> None:
        """After a knowledge reload: have the workers load ``kb`` now, so that the first question after a
        reload does not pay for loading it (seconds on a busy machine, against the answer's time budget).

        One warm-up task per worker is queued and not waited for; a worker that runs none of them loads the
        knowledge base with its next question, as before.
        """
        if self._pool is None:
            return
        ref = self.knowledge_ref(kb)
        for _ in range(self.workers):
            self._pool.schedule(_warm, args=(ref,))

    def warm_up(self, timeout_s: float = 60.0) -> None:
        """Wait until every worker process has started (and loaded the knowledge base)."""
        if self._pool is None:
            return
        futures = [self._pool.schedule(_noop) for _ in range(self.workers * 2)]
        for future in futures:
            future.result(timeout=timeout_s)

    def start(self, job: Callable[[], None]) -> bool:
        """Run ``job`` (which calls :meth:`answer` and posts the result) on an answer thread.

        Returns:
            ``True`` when admitted; ``False`` at once when ``workers + queue`` answers are
            already in flight (the caller then tells the user to try again).
        """
        if not self._slots.acquire(blocking=False):
            return False

        def run() -> None:
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - jobs handle their own errors; this is a last guard
                log.error("answer job failed", exc_info=exc, extra={"error": describe_exception(exc)})
            finally:
                self._slots.release()

        try:
            self._jobs.submit(run)
        except RuntimeError:  # shutting down
            self._slots.release()
            return False
        return True

    def notify(self, task: Callable[[], None]) -> bool:
        """Run a short I/O task (a busy notice, an App Home view) off the acknowledging path.

        Returns:
            ``False`` (and the task is dropped, with a log line) when too many are pending.
        """
        if not self._notice_slots.acquire(blocking=False):
            log.warning("notice dropped: %d already pending", MAX_PENDING_NOTICES)
            return False

        def run() -> None:
            try:
                task()
            except Exception as exc:  # noqa: BLE001
                log.error("notice failed", exc_info=exc, extra={"error": describe_exception(exc)})
            finally:
                self._notice_slots.release()

        try:
            self._notices.submit(run)
        except RuntimeError:
            self._notice_slots.release()
            return False
        return True

    def answer(self, request: AnswerRequest, kb: KnowledgeBase) -> Reply | AnswerFailure:
        """Compute the reply to ``request`` from ``kb`` (blocks the calling answer thread).

        Returns:
            The :class:`Reply`, or an :class:`AnswerFailure` whose reference id has been logged.
        """
        if self._pool is None:
            with self._inline:
                return _answer_safely(self.answer_fn, request, kb)
        knowledge = self.knowledge_ref(kb)
        with self._pending_lock:
            if self._closed:
                ref = new_ref()
                log.warning("answer refused: shutting down, reference %s", ref, extra={"ref": ref})
                return AnswerFailure(ref, "error")
            future: Future = self._pool.schedule(_run_in_worker, args=(self.answer_fn, request, knowledge,
                                                                       catalog_generation()),
                                                 timeout=self.timeout_s)
            self._pending.add(future)
        try:
            return future.result()
        except FutureTimeout:
            ref = new_ref()
            log.error("answer took longer than %.1f s; worker stopped, reference %s", self.timeout_s, ref,
                      extra={"ref": ref, "mode": request.mode})
            return AnswerFailure(ref, "timeout")
        except CancelledError:
            ref = new_ref()
            log.warning("answer cancelled: shutting down, reference %s", ref, extra={"ref": ref})
            return AnswerFailure(ref, "error")
        except ProcessExpired as exc:
            ref = new_ref()
            log.error("answer worker died (exit code %s), reference %s", exc.exitcode, ref,
                      extra={"ref": ref, "mode": request.mode})
            return AnswerFailure(ref, "crashed")
        except Exception as exc:  # noqa: BLE001 - e.g. a reply that cannot be pickled, or cancelled at shutdown
            ref = new_ref()
            log.error("answer failed in the pool, reference %s", ref, exc_info=exc,
                      extra={"ref": ref, "error": describe_exception(exc)})
            return AnswerFailure(ref, "error")
        finally:
            with self._pending_lock:
                self._pending.discard(future)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop taking answers, cancel those in flight, stop the workers.

        Answer threads waiting on a cancelled answer get an :class:`AnswerFailure` at once, so
        none is left blocked and the interpreter can exit (it joins executor threads at exit).
        """
        with self._pending_lock:
            self._closed = True
            pending = list(self._pending)
        for future in pending:
            future.cancel()
        if self._pool is not None:
            self._pool.stop()
            self._pool.join(timeout=timeout_s)
        self._jobs.shutdown(wait=False, cancel_futures=True)
        self._notices.shutdown(wait=False, cancel_futures=True)
        for snapshot in self._snapshots:
            shutil.rmtree(snapshot, ignore_errors=True)
