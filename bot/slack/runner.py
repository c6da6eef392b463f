"""Run the Slack app: Socket Mode, or HTTP mode on a small threaded WSGI server.

HTTP mode serves ``POST /slack/events`` (events, slash commands, interactions: the guards of
:mod:`bot.slack.edge` run first, then Bolt, which verifies the signature and the five-minute
timestamp window again), ``GET /slack/install`` and ``GET /slack/oauth_redirect``
(multi-workspace installs, when OAuth is configured), ``GET /healthz`` and ``GET /metrics``
(Prometheus). It runs behind the standard library's WSGI server with one thread per request;
answers are computed elsewhere (:mod:`bot.slack.workers`), so request threads only acknowledge.
A connection that sends nothing for :data:`SOCKET_TIMEOUT_S` is dropped. Errors of the server
itself (a handler that raised, a client that went away) are logged as JSON lines, never printed.
SIGTERM (``docker stop``) shuts the server down cleanly.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from datetime import date
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App

from bot import __version__
from bot.errors import AdvisorError
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.kb.reload import KnowledgeReloader
from bot.ops.logs import describe_exception
from bot.ops.metrics import Metrics, get_metrics
from bot.settings import Settings
from bot.slack.edge import SlackEdge
from bot.slack.workers import new_ref
from bot.storage.store import Store

__all__ = ["MissingSettingsError", "check_settings", "make_wsgi_app", "serve_health", "serve_http", "serve_socket",
           "start_housekeeping", "start_http_server"]

log = logging.getLogger("gpu_advisor.runner")


class MissingSettingsError(AdvisorError):
    """Environment variables a run mode needs are not set."""


def check_settings(settings: Settings, mode: str) -> None:
    """Raise unless the variables ``mode`` (``http`` or ``socket``) needs are set and consistent.

    HTTP mode needs ``SLACK_SIGNING_SECRET`` and either ``SLACK_BOT_TOKEN`` (one workspace) or all
    of ``SLACK_CLIENT_ID``, ``SLACK_CLIENT_SECRET`` and ``SLACK_STATE_SECRET`` (multi-workspace,
    OAuth); not both. Socket Mode needs ``SLACK_BOT_TOKEN`` and ``SLACK_APP_TOKEN`` and cannot
    serve OAuth installs.

    Args:
        settings: the loaded settings.
        mode: ``"http"`` or ``"socket"``.

    Raises:
        MissingSettingsError: naming exactly the missing or conflicting variables and pointing to the manifest.
    """
    hint = (" Create the app from slack-manifest.yaml (print it with `gpu-advisor manifest`), install it to "
            "your workspace, and copy the tokens from its settings pages (see README, 'Configuration').")
    oauth = settings.oauth_variables
    if any(oauth.values()) and not all(oauth.values()):
        missing = [name for name, present in oauth.items() if not present]
        raise MissingSettingsError(
            f"multi-workspace installs need SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET; "
            f"missing {', '.join(missing)}.{hint}")
    if settings.multi_workspace:
        if mode == "socket":
            raise MissingSettingsError("multi-workspace installs (SLACK_CLIENT_ID ...) need HTTP mode; Socket Mode "
                                       "serves one workspace with SLACK_BOT_TOKEN and SLACK_APP_TOKEN.")
        if settings.slack_bot_token is not None:
            raise MissingSettingsError("set either SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID, "
                                       "SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (multi-workspace), not both.")
        needed = ["SLACK_SIGNING_SECRET"]
    else:
        needed = {"http": ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"],
                  "socket": ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"]}[mode]
    missing = [name for name in needed if getattr(settings, name.lower()) is None]
    if missing:
        raise MissingSettingsError(f"{mode} mode needs {', '.join(missing)} in the environment.{hint}")


#: Seconds a connection may stay silent (headers, body) before it is dropped. Slack sends a whole
#: request at once and gives up on it after 3 s; a client that trickles a body (or declares more
#: than it sends) only holds a thread this long.
SOCKET_TIMEOUT_S = 5.0
#: ``GPU_ADVISOR_MAX_BODY_BYTES``'s default, for callers that pass no settings.
DEFAULT_MAX_BODY_BYTES = Settings.model_fields["gpu_advisor_max_body_bytes"].default


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: a burst of 20 slash commands then saw connection
    # resets. 128 matches the usual somaxconn default.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """socketserver prints the traceback to stderr; log it as one JSON line instead."""
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            log.info("connection ended early: %s", describe_exception(exc))
            return
        log.error("request handling failed in the server", exc_info=exc,
                  extra={"error": describe_exception(exc) if exc else None})


class _ErrorsToLog:
    """The ``stderr`` wsgiref writes tracebacks to: each write logs the exception being handled instead."""

    def __init__(self) -> None:
        self._last: int | None = None

    def write(self, _text: str) -> int:
        exc = sys.exc_info()[1]
        if exc is not None and id(exc) != self._last:
            self._last = id(exc)
            log.error("WSGI handler error", exc_info=exc, extra={"error": describe_exception(exc)})
        return len(_text)

    def flush(self) -> None:
        pass


class _QuietHandler(WSGIRequestHandler):
    timeout = SOCKET_TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # the request line is client input: log the status only
        log.debug("http %s", args[1] if len(args) > 1 and isinstance(args[1], str) else "-")

    def get_stderr(self) -> _ErrorsToLog:
        return _ErrorsToLog()


def _price_age(kb: KnowledgeBase, today: date) -> dict[str, Any]:
    oldest, newest, undated = kb.price_dates()
    return {"price_as_of_oldest": str(oldest), "price_as_of_newest": str(newest), "undated_prices": undated,
            "price_data_age_days": (today - newest).days if newest else None,
            "oldest_price_age_days": (today - oldest).days if oldest else None}


def make_wsgi_app(app: App | None, store: Store, kb_provider: Callable[[], KnowledgeBase] = get_knowledge, *,
                  metrics: Metrics | None = None, reloader: KnowledgeReloader | None = None,
                  today: Callable[[], date] = date.today, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES):
    """A WSGI callable: Bolt at ``/slack/events`` (and the OAuth paths), ``/healthz`` and ``/metrics``.

    Args:
        app: the Bolt app from :func:`bot.slack.app.build_app`; ``None`` serves only ``/healthz``
            and ``/metrics`` (Socket Mode's health port).
        store: the state store (its ``ping`` is the database check of ``/healthz``).
        kb_provider: returns the knowledge base being served.
        metrics: the registry ``/metrics`` exposes and HTTP responses are counted in
            (default: the process-wide one, which the app also uses by default).
        reloader: when knowledge reloading is on, its status is part of ``/healthz``.
        today: the date price ages are counted to.
        max_body_bytes: ``GPU_ADVISOR_MAX_BODY_BYTES``: larger bodies at ``/slack/events`` get 413.

    Returns:
        The WSGI application. ``/healthz`` answers 200 with ``{"status": "ok", ...}`` when the
        database answers and a knowledge base is loaded, else 503.
    """
    metrics = metrics or get_metrics()
    # Bolt keeps the signing secret it was built with (App has no public accessor for it).
    bolt = (SlackEdge(app, signing_secret=app._signing_secret, max_body_bytes=max_body_bytes, metrics=metrics)
            if app is not None else None)
    metrics.track_knowledge(kb_provider, today)
    workspaces = "multi (OAuth)" if app is not None and app.oauth_flow is not None else "single"

    def healthz() -> tuple[str, dict[str, Any]]:
        try:
            kb = kb_provider()
            knowledge: dict[str, Any] = {"loaded": True, "gpus": len(kb.gpus), "models": len(kb.models),
                                         "offers": len(kb.offers), **_price_age(kb, today())}
        except AdvisorError as exc:
            knowledge = {"loaded": False, "error": str(exc).splitlines()[0]}
        if reloader is not None:
            knowledge["reload"] = reloader.status().as_dict()
        db_ok = store.ping()
        ok = db_ok and knowledge.get("loaded", False)
        body = {"status": "ok" if ok else "unhealthy", "version": __version__, "database": db_ok,
                "workspaces": workspaces, "knowledge": knowledge}
        return ("200 OK" if ok else "503 Service Unavailable"), body

    def route(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD")
        if path == "/healthz" and method == "GET":
            status, body = healthz()
            data = json.dumps(body).encode()
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
            return [data]
        if path == "/metrics" and method == "GET":
            data, content_type = metrics.exposition()
            start_response("200 OK", [("Content-Type", content_type), ("Content-Length", str(len(data)))])
            return [data]
        if path.startswith("/slack/") and bolt is not None:
            return bolt(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found"]

    def wsgi(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        def counting_start_response(status: str, headers: list, exc_info: Any = None):
            metrics.observe_http(environ.get("PATH_INFO", ""), status)
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)
        try:
            return route(environ, counting_start_response)
        except Exception as exc:  # noqa: BLE001 - our fault (client input is refused in bot.slack.edge)
            ref = new_ref()
            log.error("HTTP handler failed, reference %s", ref, exc_info=exc,
                      extra={"ref": ref, "error": describe_exception(exc)})
            data = f"internal error, reference {ref}".encode()
            counting_start_response("500 Internal Server Error", [("Content-Type", "text/plain"),
                                                                  ("Content-Length", str(len(data)))], sys.exc_info())
            return [data]

    return wsgi


#: GIL switch interval while serving, seconds. CPython's default (5 ms) lets a thread computing an
#: answer hold the GIL for up to 5 ms at a time, which an ack's socket I/O then waits for; 1 ms keeps
#: acknowledgements prompt while answers are computed (measured in bench/slack_ack.py).
GIL_SWITCH_INTERVAL_S = 0.001


def start_http_server(app: App, store: Store, *, host: str = "0.0.0.0", port: int = 3000,
                      kb_provider: Callable[[], KnowledgeBase] = get_knowledge, metrics: Metrics | None = None,
                      reloader: KnowledgeReloader | None = None,
                      max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> tuple[WSGIServer, threading.Thread]:
    """Start HTTP mode in a background thread.

    Args:
        app, store, kb_provider, metrics, reloader, max_body_bytes: as for :func:`make_wsgi_app`.
        host: listen address.
        port: listen port; 0 picks a free one.

    Returns:
        The server (its ``server_port`` is the port in use) and the thread serving it.
    """
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    server = make_server(host, port, make_wsgi_app(app, store, kb_provider, metrics=metrics, reloader=reloader,
                                                   max_body_bytes=max_body_bytes),
                         server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="gpu-advisor-http", daemon=True)
    thread.start()
    return server, thread


def serve_http(app: App, store: Store, *, host: str = "0.0.0.0", port: int = 3000,
               kb_provider: Callable[[], KnowledgeBase] = get_knowledge, metrics: Metrics | None = None,
               reloader: KnowledgeReloader | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
    """Serve HTTP mode until interrupted or sent SIGTERM (then return after in-flight requests' acks).

    Args:
        app, store, kb_provider, metrics, reloader, max_body_bytes: as for :func:`make_wsgi_app`.
        host: listen address.
        port: listen port.
    """
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    server = make_server(host, port, make_wsgi_app(app, store, kb_provider, metrics=metrics, reloader=reloader,
                                                   max_body_bytes=max_body_bytes),
                         server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)

    def on_sigterm(_signum: int, _frame: Any) -> None:
        log.info("SIGTERM: shutting down")
        threading.Thread(target=server.shutdown, daemon=True).start()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_sigterm)
    log.info("HTTP mode listening on %s:%s (POST /slack/events, GET /healthz, GET /metrics)", host,
             server.server_port, extra={"port": server.server_port})
    try:
        server.serve_forever()
    finally:
        server.server_close()


def serve_health(store: Store, *, host: str = "0.0.0.0", port: int = 3000,
                 kb_provider: Callable[[], KnowledgeBase] = get_knowledge, metrics: Metrics | None = None,
                 reloader: KnowledgeReloader | None = None) -> WSGIServer:
    """Serve only ``/healthz`` and ``/metrics`` in a background thread (Socket Mode has no other HTTP).

    Args:
        store, kb_provider, metrics, reloader: as for :func:`make_wsgi_app`.
        host: listen address.
        port: listen port.

    Returns:
        The running server.
    """
    server = make_server(host, port, make_wsgi_app(None, store, kb_provider, metrics=metrics, reloader=reloader),
                         server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="gpu-advisor-health", daemon=True).start()
    log.info("health endpoint on %s:%s (GET /healthz, GET /metrics)", host, server.server_port)
    return server


def start_housekeeping(store: Store, interval: float = 3600.0) -> threading.Thread:
    """Delete expired conversation contexts and event ids every ``interval`` seconds (daemon thread).

    Every replica may run it: the deletes are idempotent.

    Returns:
        The thread.
    """
    def run() -> None:
        while True:
            time.sleep(interval)
            try:
                removed = store.purge_expired()
                log.info("purged %d expired rows", removed, extra={"purged": removed})
            except Exception:  # noqa: BLE001 - the next round tries again
                log.exception("purging expired rows failed")

    thread = threading.Thread(target=run, name="gpu-advisor-housekeeping", daemon=True)
    thread.start()
    return thread


def serve_socket(app: App, settings: Settings) -> None:
    """Serve Socket Mode (needs ``SLACK_APP_TOKEN``) until interrupted."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(app, settings.slack_app_token.get_secret_value())
    handler.client.web_client.base_url = settings.slack_api_url
    log.info("Socket Mode starting")
    handler.start()
