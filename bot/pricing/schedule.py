"""The server's scheduled price refresh: one replica refreshes, every replica uses the stored table.

:func:`start_price_refresh` loads the catalog stored in the state store at once (so the first answer
already uses it) and then, in a daemon thread, every ``poll_seconds``:

1. when a refresh is due (the newest run in the store, by any replica, is older than the interval, or
   older than an hour when it refreshed nothing) and this replica takes the ``price-refresh`` lease,
   it runs :func:`bot.pricing.refresh.refresh_prices` (each provider keeps its last good table on any
   failure, timeout or implausible result, and the run is written in one transaction);
2. when the stored catalog's generation changed (a refresh here, on another replica, or a
   ``gpu-advisor prices refresh``), it reloads the catalog and hands it to pricing
   (:func:`bot.pricing.offers.set_catalog`).

Nothing here imports SQLAlchemy: the store is passed in.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.pricing.offers import set_catalog
from bot.pricing.refresh import DEFAULT_TIMEOUT_S, Fetcher, refresh_prices

__all__ = ["LEASE_NAME", "PriceRefresher", "start_price_refresh"]

log = logging.getLogger("gpu_advisor.prices")

#: The lease replicas take before refreshing (``gpu_advisor_leases``).
LEASE_NAME = "price-refresh"
#: How long a lease holds: longer than any refresh (a crashed holder's lease expires after it).
LEASE_TTL = timedelta(hours=2)
#: A run that refreshed no provider (no network, all implausible) is retried after this long.
RETRY_AFTER = timedelta(hours=1)


class PriceRefresher:
    """Refresh on a schedule and keep pricing on the stored catalog's newest generation.

    Args:
        catalog_store: the state store's catalog (``Store.catalog``: generation, snapshot, last_run,
            try_lease, release_lease, provider_offers, write_run).
        interval_hours: hours between refreshes; 0 never refreshes here (the stored table is still
            followed, so a ``prices refresh`` run by hand reaches every replica).
        kb_provider: returns the knowledge base being served.
        catalog_dir: a gpuhunt catalog directory instead of the network (``GPUHUNT_CATALOG_DIR``).
        timeout: seconds one provider's fetch may take.
        holder: this replica's name in the lease and the run log (default ``host:pid``).
        fetcher: fetches one provider (tests); default gpuhunt.
        now: the clock (tests).
    """

    def __init__(self, catalog_store: Any, *, interval_hours: float, kb_provider: Callable[[], KnowledgeBase] = get_knowledge,
                 catalog_dir: str | Path | None = None, timeout: float = DEFAULT_TIMEOUT_S, holder: str | None = None,
                 fetcher: Fetcher | None = None, now: Callable[[], datetime] | None = None):
        self.store = catalog_store
        self.interval = timedelta(hours=interval_hours) if interval_hours > 0 else None
        self.kb_provider = kb_provider
        self.catalog_dir = catalog_dir
        self.timeout = timeout
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}"
        self.fetcher = fetcher
        self.now = now or (lambda: datetime.now(UTC))
        self.generation: int | None = None
        self.refreshes = 0
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None

    def sync(self) -> bool:
        """Reload the stored catalog when its generation changed; ``True`` when pricing got a new one."""
        generation = self.store.generation()
        if generation is None or generation == self.generation:
            return False
        snapshot = self.store.snapshot()
        if snapshot is None:
            return False
        set_catalog(snapshot)
        self.generation = snapshot.generation
        log.info("price catalog loaded: generation %d, %d offers", snapshot.generation, len(snapshot.offers),
                 extra={"generation": snapshot.generation, "offers": len(snapshot.offers)})
        return True

    def due(self) -> bool:
        """A refresh is due: scheduling is on and the newest stored run is older than the interval
        (or than :data:`RETRY_AFTER` when it refreshed nothing)."""
        if self.interval is None:
            return False
        last = self.store.last_run()
        if last is None:
            return True
        _run_id, started, refreshed_any = last
        wait = self.interval if refreshed_any else min(self.interval, RETRY_AFTER)
        return self.now() - started >= wait

    def run_once(self) -> bool:
        """One round: refresh if due and this replica takes the lease, then follow the stored generation.

        Never raises (the next round tries again). Returns ``True`` when this replica ran a refresh.
        """
        ran = False
        try:
            if self.due() and self.store.try_lease(LEASE_NAME, self.holder, LEASE_TTL, now=self.now()):
                try:
                    if self.due():  # another replica may have finished a run just before we took the lease
                        refresh_prices(self.kb_provider(), self.store, catalog_dir=self.catalog_dir,
                                       fetcher=self.fetcher, timeout=self.timeout, trigger="schedule",
                                       holder=self.holder, now=self.now)
                        self.refreshes += 1
                        ran = True
                finally:
                    self.store.release_lease(LEASE_NAME, self.holder)
        except Exception:  # noqa: BLE001 - a failed round keeps the last good table; logged, retried
            log.exception("scheduled price refresh failed; the last good price table stays")
        try:
            self.sync()
        except Exception:  # noqa: BLE001 - the database may be briefly unreachable
            log.exception("reading the stored price catalog failed; the loaded one stays")
        return ran

    def start(self, poll_seconds: float) -> threading.Thread:
        """Run :meth:`run_once` every ``poll_seconds`` in a daemon thread."""
        def loop() -> None:
            while not self._stop.wait(poll_seconds):
                self.run_once()

        self.thread = threading.Thread(target=loop, name="gpu-advisor-prices", daemon=True)
        self.thread.start()
        return self.thread

    def stop(self, timeout: float | None = None) -> None:
        """Stop the thread after its current round."""
        self._stop.set()
        if self.thread is not None:
            self.thread.join(timeout)


def start_price_refresh(catalog_store: Any, *, interval_hours: float, poll_seconds: float = 60.0,
                        kb_provider: Callable[[], KnowledgeBase] = get_knowledge,
                        catalog_dir: str | Path | None = None, timeout: float = DEFAULT_TIMEOUT_S,
                        holder: str | None = None, fetcher: Fetcher | None = None) -> PriceRefresher:
    """Load the stored catalog now, then refresh on schedule and follow the store in a daemon thread.

    Args:
        catalog_store: ``Store.catalog`` of the server's state store.
        interval_hours: ``GPU_ADVISOR_PRICE_REFRESH_HOURS`` (default 24; 0: no refreshing here).
        poll_seconds: how often the thread checks whether a refresh is due and the generation moved.
        kb_provider: returns the knowledge base being served (reloads included).
        catalog_dir: ``GPUHUNT_CATALOG_DIR``.
        timeout: seconds one provider's fetch may take.
        holder: this replica's name (default ``host:pid``).
        fetcher: fetches one provider (tests).

    Returns:
        The running :class:`PriceRefresher` (``stop()`` ends it).
    """
    refresher = PriceRefresher(catalog_store, interval_hours=interval_hours, kb_provider=kb_provider,
                               catalog_dir=catalog_dir, timeout=timeout, holder=holder, fetcher=fetcher)
    try:
        refresher.sync()
    except Exception:  # noqa: BLE001 - start with curated prices; the thread retries
        log.exception("reading the stored price catalog failed at start; curated prices until it can be read")
    refresher.start(poll_seconds)
    log.info("price refresh %s; following the stored catalog every %g s",
             f"every {interval_hours:g} h" if interval_hours > 0 else "off (GPU_ADVISOR_PRICE_REFRESH_HOURS=0)",
             poll_seconds)
    return refresher
