"""The Slack app manifest validates against Slack's app-manifest v1 JSON Schema (tests/fixtures copy)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from bot.slack.manifest import load_manifest
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "fixtures" / "app-manifest-v1.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("http_url", [None, "https://gpu.example.com"])
def test_manifest_is_valid(http_url):
    manifest = load_manifest(http_url)
    errors = list(jsonschema.Draft7Validator(SCHEMA).iter_errors(manifest))
    assert errors == []


def test_manifest_has_what_the_bot_needs():
    from bot.slack.app import QUOTE_SHORTCUT, SIZE_SHORTCUT

    manifest = load_manifest()
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {"app_mentions:read", "chat:write", "im:history", "commands"} <= scopes
    assert "files:write" in scopes  # files.getUploadURLExternal / files.completeUploadExternal (charts)
    assert manifest["settings"]["interactivity"]["is_enabled"] is True  # buttons, forms, typeahead menus
    shortcuts = {s["callback_id"]: s for s in manifest["features"]["shortcuts"]}
    assert set(shortcuts) == {SIZE_SHORTCUT, QUOTE_SHORTCUT}  # the app listens for exactly these
    assert all(s["type"] == "global" and len(s["name"]) <= 24 for s in shortcuts.values())
    assert {c["command"] for c in manifest["features"]["slash_commands"]} == {"/gpu", "/gpu-quote", "/gpu-size"}
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {
        "app_mention", "message.im", "app_home_opened"}
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True


def test_http_manifest_fills_request_urls():
    manifest = load_manifest("https://gpu.example.com/")
    url = "https://gpu.example.com/slack/events"
    assert manifest["settings"]["event_subscriptions"]["request_url"] == url
    assert manifest["settings"]["interactivity"]["request_url"] == url
    assert manifest["settings"]["interactivity"]["message_menu_options_url"] == url  # external_select options
    assert all(c["url"] == url for c in manifest["features"]["slash_commands"])
    assert manifest["settings"]["socket_mode_enabled"] is False


def test_manifest_refuses_a_non_https_url(capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["manifest", "--http-url", "http://gpu.example.com"])
    assert exc.value.code == 2
    assert "must start with https://" in capsys.readouterr().err


def test_serve_refuses_an_impossible_port(capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["serve", "--http", "--port", "99999"])
    assert exc.value.code == 2
    assert "outside 0-65535" in capsys.readouterr().err
