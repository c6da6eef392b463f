"""The Slack app manifest, optionally with HTTP-mode request URLs filled in."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

__all__ = ["load_manifest", "manifest_path"]


def manifest_path() -> Path:
    """``slack-manifest.yaml``: the copy packaged in the wheel, else the checkout's root."""
    packaged = Path(__file__).resolve().parent / "slack-manifest.yaml"
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "slack-manifest.yaml"


def load_manifest(http_url: str | None = None) -> dict[str, Any]:
    """The app manifest as a dict.

    Args:
        http_url: the public base URL of an HTTP-mode deployment (``https://host``). When
            given, events, interactivity, the options load URL of the typeahead menus and every slash
            command point at ``{http_url}/slack/events``,
            the OAuth redirect URL is ``{http_url}/slack/oauth_redirect`` (multi-workspace installs)
            and Socket Mode is turned off; otherwise the manifest is for Socket Mode.

    Returns:
        The manifest, valid against Slack's app-manifest v1 JSON Schema.
    """
    manifest = yaml.safe_load(manifest_path().read_text(encoding="utf-8"))
    if http_url:
        manifest = copy.deepcopy(manifest)
        url = http_url.rstrip("/") + "/slack/events"
        settings = manifest["settings"]
        settings["event_subscriptions"]["request_url"] = url
        settings["interactivity"]["request_url"] = url
        settings["interactivity"]["message_menu_options_url"] = url
        settings["socket_mode_enabled"] = False
        for command in manifest["features"]["slash_commands"]:
            command["url"] = url
        manifest["oauth_config"]["redirect_urls"] = [http_url.rstrip("/") + "/slack/oauth_redirect"]
    return manifest
