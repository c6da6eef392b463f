"""``gpu-advisor serve`` and ``gpu-advisor manifest``: the CLI's entry into the Slack layer."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

import yaml

from bot import __version__
from bot.errors import AdvisorError
from bot.settings import load_settings

__all__ = ["DatabaseUnavailableError", "SlackUnavailableError", "register"]

log = logging.getLogger("gpu_advisor.serve")


def cmd_manifest(args: argparse.Namespace) -> int:
    """Print the app manifest (YAML, or JSON with ``--json``), with request URLs for HTTP mode."""
    from bot.slack.manifest import load_manifest

    manifest = load_manifest(args.http_url)
    if args.json:
        print(json.dumps(manifest, indent=2))
    else:
        print(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=110), end="")
    return 0


def _open_store(url: str):
    """The state store, or a clean error naming DATABASE_URL (password hidden) when it cannot connect."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from bot.storage.store import Store

    try:
        return Store(url)
    except (SQLAlchemyError, ImportError) as exc:
        shown = make_url(url).render_as_string(hide_password=True)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise DatabaseUnavailableError(f"DATABASE_URL: cannot use the database at {shown}: {reason}") from exc


class DatabaseUnavailableError(AdvisorError):
    """The database named by DATABASE_URL cannot be reached or used."""


class SlackUnavailableError(AdvisorError):
    """The start-up token check (``auth.test``) failed: a wrong token or an unreachable SLACK_API_URL."""


def _build(build_app, settings, store, oauth_settings, metrics, answers):
    """``build_app``, turning a failed start-up token check into a clean error (no token in it)."""
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackApiError, SlackClientError

    try:
        return build_app(settings, store, oauth_settings=oauth_settings, metrics=metrics, answers=answers)
    except (BoltError, SlackApiError, SlackClientError, OSError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SlackUnavailableError(f"SLACK_BOT_TOKEN / SLACK_API_URL: the token check (auth.test at "
                                    f"{settings.slack_api_url}) failed: {reason}") from exc


def cmd_serve(args: argparse.Namespace, *, answer_fn: Any = None) -> int:
    """Run the bot in Socket Mode or HTTP mode.

    The mode is ``--socket`` / ``--http``, else ``GPU_ADVISOR_MODE`` (default ``http``). With
    ``GPU_ADVISOR_KNOWLEDGE`` set, the knowledge base reloads on SIGHUP and when its files change.
    With the three OAuth variables set, multi-workspace installs are served.

    Args:
        args: ``--socket`` / ``--http`` and ``--port``.
        answer_fn: the seam answers are computed with (default
            :func:`bot.slack.answering.answer_message`); tests inject a slow or failing one.

    Returns:
        0 after a clean shutdown (SIGTERM, Ctrl-C).

    Raises:
        AdvisorError: (exit 2 via the CLI, no traceback) for an invalid or missing variable, or an
            unreachable database; KnowledgeError (exit 1) when the knowledge base does not validate.
    """
    from bot.kb.loader import get_knowledge
    from bot.ops.logs import configure_logging
    from bot.ops.metrics import get_metrics
    from bot.slack.app import answer_pool_from_settings, build_app
    from bot.slack.runner import check_settings, serve_health, serve_http, serve_socket, start_housekeeping

    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
    mode = "socket" if args.socket else "http" if args.http else settings.gpu_advisor_mode
    check_settings(settings, mode)
    kb = get_knowledge()  # fail before connecting when the knowledge base does not validate
    metrics = get_metrics()
    store = _open_store(settings.database_url)
    oauth_settings = None
    if settings.multi_workspace:
        from bot.slack.oauth import build_oauth_settings

        oauth_settings = build_oauth_settings(settings, store.engine)
    answers = answer_pool_from_settings(settings, kb, answer_fn=answer_fn)  # workers start now
    try:
        app = _build(build_app, settings, store, oauth_settings, metrics, answers)
    except BaseException:
        answers.close()
        raise
    reloader = None
    if settings.gpu_advisor_knowledge:
        from bot.kb.reload import KnowledgeReloader

        def reloaded(ok: bool) -> None:
            metrics.observe_reload(ok)
            if ok:  # the workers load the new knowledge base now, not with the next question
                answers.warm_knowledge(get_knowledge())

        reloader = KnowledgeReloader(kb.directory, interval=settings.gpu_advisor_reload_seconds,
                                     on_result=reloaded)
        reloader.install_sighup()
        reloader.start()
    start_housekeeping(store)
    from bot.pricing.schedule import start_price_refresh

    start_price_refresh(store.catalog, interval_hours=settings.gpu_advisor_price_refresh_hours,
                        catalog_dir=settings.gpuhunt_catalog_dir)
    port = args.port if args.port is not None else settings.port
    log.info("starting %s mode (%s workspace), version %s", mode, "multi" if oauth_settings else "single",
             __version__, extra={"mode": mode, "version": __version__})
    try:
        if mode == "socket":
            serve_health(store, host=settings.host, port=port, metrics=metrics, reloader=reloader)
            serve_socket(app, settings)
        else:
            serve_http(app, store, host=settings.host, port=port, metrics=metrics, reloader=reloader,
                       max_body_bytes=settings.gpu_advisor_max_body_bytes)
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # address in use, unknown host, no permission for the port
        print(f"error: cannot listen on {settings.host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        if reloader is not None:
            reloader.stop(timeout=1)
        answers.close()
    log.info("stopped")
    return 0


def _port(text: str) -> int:
    """argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is outside 0-65535")
    return value


def _https_url(text: str) -> str:
    """argparse type: Slack only calls request URLs over https."""
    if not text.startswith("https://") or len(text) <= len("https://"):
        raise argparse.ArgumentTypeError(f"{text!r}: Slack request URLs must start with https://")
    return text


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` and ``manifest`` to the CLI's subcommands."""
    p = sub.add_parser("serve", help="run the Slack bot (Socket Mode or HTTP mode)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--socket", action="store_true", help="Socket Mode (needs SLACK_APP_TOKEN)")
    group.add_argument("--http", action="store_true",
                       help="HTTP mode: POST /slack/events, GET /healthz, GET /metrics "
                            "(default unless GPU_ADVISOR_MODE=socket)")
    p.add_argument("--port", type=_port, default=None,
                   help="HTTP port (default: $PORT or 3000); in Socket Mode the port of /healthz and /metrics")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("manifest", help="print the Slack app manifest")
    p.add_argument("--http-url", type=_https_url, default=None,
                   help="public https base URL for HTTP mode (fills in request URLs)")
    p.add_argument("--json", action="store_true", help="JSON instead of YAML")
    p.set_defaults(func=cmd_manifest)
