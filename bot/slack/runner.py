"""Run the Slack app: Socket Mode, or HTTP mode on a small threaded WSGI server.

HTTP mode serves ``POST /slack/events`` (events, slash commands, interactions; Bolt verifies
the signature and the five-minute timestamp window) and ``GET /healthz``. It uses
``slack_bolt.adapter.wsgi.SlackRequestHandler`` behind the standard library's WSGI server
with one thread per request, so a slow answer never delays another request's ack.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot import __version__
from bot.errors import AdvisorError
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.settings import Settings
from bot.storage.store import Store

__all__ = ["MissingSettingsError", "check_settings", "make_wsgi_app", "serve_http", "serve_socket", "start_http_server"]

log = logging.getLogger("gpu_advisor.runner")


class MissingSettingsError(AdvisorError):
    """Environment variables a run mode needs are not set."""


def check_settings(settings: Settings, mode: str) -> None:
    """Raise unless the variables ``mode`` (``http`` or ``socket``) needs are set.

    Raises:
        MissingSettingsError: naming exactly the missing variables and pointing to the manifest.
    """
    needed = {"http": ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"], "socket": ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"]}
    missing = [name for name in needed[mode] if getattr(settings, name.lower()) is None]
    if missing:
        raise MissingSettingsError(
            f"{mode} mode needs {', '.join(missing)} in the environment. Create the app from "
            "slack-manifest.yaml (print it with `gpu-advisor manifest`), install it to your workspace, "
            "and copy the tokens from its settings pages (see README, 'Install in your workspace').")


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s - %s", self.address_string(), format % args)


def make_wsgi_app(app: App, store: Store, kb_provider: Callable[[], KnowledgeBase] = get_knowledge):
    """A WSGI callable: Bolt at ``/slack/events`` (and OAuth paths), health at ``/healthz``."""
    bolt = SlackRequestHandler(app)

    def healthz() -> tuple[str, dict[str, Any]]:
        try:
            kb = kb_provider()
            oldest, newest, undated = kb.price_dates()
            knowledge = {"loaded": True, "gpus": len(kb.gpus), "models": len(kb.models),
                         "price_as_of_oldest": str(oldest), "price_as_of_newest": str(newest),
                         "undated_prices": undated}
        except AdvisorError as exc:
            knowledge = {"loaded": False, "error": str(exc).splitlines()[0]}
        db_ok = store.ping()
        ok = db_ok and knowledge.get("loaded", False)
        body = {"status": "ok" if ok else "unhealthy", "version": __version__, "database": db_ok,
                "knowledge": knowledge}
        return ("200 OK" if ok else "503 Service Unavailable"), body

    def wsgi(environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz" and environ.get("REQUEST_METHOD") == "GET":
            status, body = healthz()
            data = json.dumps(body).encode()
            start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
            return [data]
        if path.startswith("/slack/"):
            return bolt(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found"]

    return wsgi


#: GIL switch interval while serving, seconds. CPython's default (5 ms) lets a thread computing an
#: answer hold the GIL for up to 5 ms at a time, which an ack's socket I/O then waits for; 1 ms keeps
#: acknowledgements prompt while answers are computed (measured in bench/slack_ack.py).
GIL_SWITCH_INTERVAL_S = 0.001


def start_http_server(app: App, store: Store, *, host: str = "0.0.0.0", port: int = 3000,
                      kb_provider: Callable[[], KnowledgeBase] = get_knowledge) -> tuple[WSGIServer, threading.Thread]:
    """Start HTTP mode in a background thread; returns the server (``.server_port``) and thread."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    server = make_server(host, port, make_wsgi_app(app, store, kb_provider), server_class=_ThreadingWSGIServer,
                         handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="gpu-advisor-http", daemon=True)
    thread.start()
    return server, thread


def serve_http(app: App, store: Store, *, host: str = "0.0.0.0", port: int = 3000) -> None:
    """Serve HTTP mode until interrupted."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    server = make_server(host, port, make_wsgi_app(app, store), server_class=_ThreadingWSGIServer,
                         handler_class=_QuietHandler)
    log.info("HTTP mode listening on %s:%s (POST /slack/events, GET /healthz)", host, server.server_port)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def serve_socket(app: App, settings: Settings) -> None:
    """Serve Socket Mode (needs ``SLACK_APP_TOKEN``) until interrupted."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(app, settings.slack_app_token.get_secret_value())
    handler.client.web_client.base_url = settings.slack_api_url
    log.info("Socket Mode starting")
    handler.start()
