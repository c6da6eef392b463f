"""``gpu-advisor serve`` and ``gpu-advisor manifest``: the CLI's entry into the Slack layer."""

from __future__ import annotations

import argparse
import json
import logging
import sys

import yaml

from bot.settings import load_settings

__all__ = ["register"]


def cmd_manifest(args: argparse.Namespace) -> int:
    """Print the app manifest (YAML, or JSON with ``--json``), with request URLs for HTTP mode."""
    from bot.slack.manifest import load_manifest

    manifest = load_manifest(args.http_url)
    if args.json:
        print(json.dumps(manifest, indent=2))
    else:
        print(yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=110), end="")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the bot in Socket Mode or HTTP mode; exit 2 naming missing variables."""
    from bot.kb.loader import get_knowledge
    from bot.slack.app import build_app
    from bot.slack.runner import check_settings, serve_http, serve_socket
    from bot.storage.store import Store

    settings = load_settings()
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    mode = "socket" if args.socket else "http"
    check_settings(settings, mode)
    get_knowledge()  # fail before connecting when the knowledge base does not validate
    store = Store(settings.database_url)
    app = build_app(settings, store)
    if mode == "socket":
        serve_socket(app, settings)
    else:
        serve_http(app, store, port=args.port or settings.port)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` and ``manifest`` to the CLI's subcommands."""
    p = sub.add_parser("serve", help="run the Slack bot (Socket Mode or HTTP mode)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--socket", action="store_true", help="Socket Mode (needs SLACK_APP_TOKEN)")
    group.add_argument("--http", action="store_true", help="HTTP mode (default): POST /slack/events, GET /healthz")
    p.add_argument("--port", type=int, default=None, help="HTTP port (default: $PORT or 3000)")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("manifest", help="print the Slack app manifest")
    p.add_argument("--http-url", default=None, help="public base URL for HTTP mode (fills in request URLs)")
    p.add_argument("--json", action="store_true", help="JSON instead of YAML")
    p.set_defaults(func=cmd_manifest)
