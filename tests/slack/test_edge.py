"""Hostile and broken HTTP requests through the real app (issue 17): 400/401/411/413 before any
handler runs, 200 for what we do not handle, a polite reply to tampered buttons, never a 500.

Requests are signed with the real signing secret unless the test is about the signature, and
sent over loopback to the app served by bot.slack.runner; the mock Web API records what the
app posted (nothing, for a refused request).
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.request
from urllib.parse import urlencode, urlparse

import pytest
from slack_sdk.signature import SignatureVerifier

from bot.slack.app import TAMPERED_TEXT
from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.mock_web_api import TEAM_ID

FORM = "application/x-www-form-urlencoded"


def _send(app: RunningApp, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    url = urlparse(app.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("POST", "/slack/events", body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _signed(app: RunningApp, body: bytes, content_type: str = "application/json",
            **headers: str) -> tuple[int, bytes]:
    """POST ``body`` (bytes, sent as is) with a valid signature over it."""
    ts = str(int(time.time()))
    # slack_sdk signs text; for bytes that are not UTF-8 sign the same bytes by hand
    import hashlib
    import hmac
    base = b"v0:" + ts.encode() + b":" + body
    sig = "v0=" + hmac.new(SIGNING_SECRET.encode(), base, hashlib.sha256).hexdigest()
    return _send(app, body, {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
                             "X-Slack-Signature": sig, **headers})


def _no_handler_ran(app: RunningApp) -> None:
    time.sleep(0.3)
    assert [c.method for c in app.mock.calls if c.method != "auth.test"] == []


def _event(event: dict, event_id: str = "EvEdge1") -> bytes:
    return json.dumps({"token": "x", "team_id": TEAM_ID, "api_app_id": "A0000001", "type": "event_callback",
                       "event": event, "event_id": event_id, "event_time": int(time.time())}).encode()


def _action(actions: list, **extra) -> bytes:
    payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
               "actions": actions, **extra}
    return urlencode({"payload": json.dumps(payload)}).encode()


# --------------------------------------------------------------------------- 400: malformed bodies

@pytest.mark.parametrize("body, content_type", [
    (b'{"type": "event_callback", "event": {', "application/json"),           # truncated JSON
    (b"[1, 2]", "application/json"),                                           # JSON, not an object
    (b'"event_callback"', "application/json"),
    ('\ufeff{"type": "event_callback"}'.encode(), "application/json"),        # byte-order mark
    (b'{"type": "event_callback", "event": {"type": "app_mention", "text": "\xff\xfe"}}', "application/json"),
    (b"command=%2Fgpu&text=hello&team_id=T0000001", "application/json"),      # a form labelled as JSON
    (b'{"type": "event_callback", "event_time": NaN}', "application/json"),
    (b"[" * 100_000 + b"]" * 100_000, "application/json"),                     # nesting deeper than the parser
    (urlencode({"payload": "{not json"}).encode(), FORM),
    (urlencode({"payload": "[1]"}).encode(), FORM),
], ids=["truncated", "array", "string", "bom", "invalid-utf8", "form-as-json", "nan", "deep", "bad-payload",
        "payload-array"])
def test_malformed_bodies_get_400_before_any_handler(running_app, body, content_type):
    status, reason = _signed(running_app, body, content_type)
    assert status == 400, reason
    _no_handler_ran(running_app)


@pytest.mark.parametrize("body", [
    _action([]),                                                               # an empty actions list
    _action([{"block_id": "b", "value": "x"}]),                                # an action without action_id
    _action([{"action_id": "quote_this", "value": "{}"}], message=[]),         # message must be an object
    _event(None),                                                              # "event": null
    _event({"text": "hi"}),                                                    # an event without a type
    _event({"type": {"nested": 1}}),
    _event({"type": "app_mention", "channel": 5, "text": "hi", "ts": "1.1"}),
    json.dumps({"type": "event_callback", "authorizations": ["T1"], "event": {"type": "x"}}).encode(),
    json.dumps({"type": "url_verification"}).encode(),
    json.dumps({"command": 7, "text": "hi"}).encode(),
], ids=["empty-actions", "no-action-id", "message-list", "event-null", "event-no-type", "event-type-object",
        "channel-number", "authorizations-strings", "no-challenge", "command-number"])
def test_payloads_of_the_wrong_shape_get_400(running_app, body):
    content_type = FORM if body.startswith(b"payload=") else "application/json"
    status, reason = _signed(running_app, body, content_type)
    assert (status, reason) == (400, b"malformed_payload")
    _no_handler_ran(running_app)


# --------------------------------------------------------------------------- 401: timestamps and signatures

def _headers_with(ts: str | None, sig: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if ts is not None:
        headers["X-Slack-Request-Timestamp"] = ts
    if sig is not None:
        headers["X-Slack-Signature"] = sig
    return headers


@pytest.mark.parametrize("ts, sig", [
    (None, "v0=" + "0" * 64), ("", "v0=" + "0" * 64), ("abc", "v0=" + "0" * 64), ("12.5", "v0=" + "0" * 64),
    (" 1764417600", "v0=" + "0" * 64), ("1" * 40, "v0=" + "0" * 64),
    ("NOW", None), ("NOW", ""), ("NOW", "v0=" + "é" * 64), ("NOW", "v0=" + "g" * 64), ("NOW", "v1=" + "0" * 64),
], ids=["ts-missing", "ts-empty", "ts-letters", "ts-float", "ts-space", "ts-40-digits", "sig-missing", "sig-empty",
        "sig-non-ascii", "sig-not-hex", "sig-v1"])
def test_bad_timestamps_and_signatures_get_401(running_app, ts, sig):
    body = _event({"type": "app_mention", "channel": "C1", "ts": "1.1", "text": "hi"})
    ts = str(int(time.time())) if ts == "NOW" else ts
    headers = _headers_with(ts, sig)
    # http.client encodes header values as latin-1: send the non-ASCII signature's UTF-8 bytes that way
    headers = {k: v.encode("utf-8").decode("latin-1") for k, v in headers.items()}
    status, _ = _send(running_app, body, headers)
    assert status == 401
    _no_handler_ran(running_app)


def test_a_wrong_signature_over_a_valid_body_gets_401(running_app):
    body = _event({"type": "app_mention", "channel": "C1", "ts": "1.1", "text": "hi"}).decode()
    ts = str(int(time.time()))
    sig = SignatureVerifier("another-secret").generate_signature(timestamp=ts, body=body)
    assert _send(running_app, body.encode(), _headers_with(ts, sig))[0] == 401


# --------------------------------------------------------------------------- 411 / 413 / incomplete

def test_a_declared_length_over_the_limit_gets_413_unread(running_app):
    # 10 GB claimed, 2 bytes sent: answered at once, nothing reserved, nothing read
    started = time.perf_counter()
    status, reason = _send(running_app, b"{}", {"Content-Length": str(10 * 10**9), "Content-Type": "application/json",
                                                "X-Slack-Request-Timestamp": "1", "X-Slack-Signature": "v0="})
    assert (status, reason) == (413, b"body_too_large")
    assert time.perf_counter() - started < 1.0
    status, _ = _send(running_app, b"{}", {"Content-Length": "9" * 400})  # more digits than any integer type
    assert status == 413


def test_a_real_body_over_the_limit_is_refused_and_not_answered(running_app):
    text = "x" * (600 * 1024)  # over the 512 KiB default
    body = _event({"type": "app_mention", "channel": "C1", "ts": "1.1", "text": text})
    try:
        status, _ = _signed(running_app, body)
        assert status == 413
    except (ConnectionResetError, BrokenPipeError):
        pass  # the server answered 413 and closed before the client finished sending
    _no_handler_ran(running_app)
    with urllib.request.urlopen(running_app.base_url + "/metrics", timeout=5) as resp:
        assert 'gpu_advisor_http_rejections_total{reason="body_too_large"}' in resp.read().decode()


def test_missing_or_invalid_content_length(running_app):
    url = urlparse(running_app.base_url)
    for header, expected in ((b"", b"411"), (b"Content-Length: -5\r\n", b"400"), (b"Content-Length: abc\r\n", b"400"),
                             (b"Transfer-Encoding: chunked\r\n", b"411")):
        with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
            sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n")
            assert sock.recv(64).split(b" ")[1] == expected


def test_a_body_shorter_than_declared_gets_400(running_app):
    url = urlparse(running_app.base_url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{}")
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(64).split(b" ")[1] == b"400"


# --------------------------------------------------------------------------- 200: what we do not handle

@pytest.mark.parametrize("event", [
    {"type": "reaction_added", "user": "U1", "reaction": "tada", "item": {"type": "message", "channel": "C1", "ts": "1.1"}},
    {"type": "member_joined_channel", "user": "U1", "channel": "C1", "channel_type": "C", "team": TEAM_ID},
    {"type": "app_uninstalled"},
    {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT0001"]}},
    {"type": "message", "subtype": "channel_join", "channel_type": "im", "user": "U1", "channel": "D1", "ts": "1.1"},
    {"type": "message", "subtype": "made_up_subtype", "channel_type": "im", "channel": "D1", "ts": "1.2"},
    {"type": "a_type_slack_has_not_invented_yet"},
], ids=["reaction_added", "member_joined_channel", "app_uninstalled", "tokens_revoked", "subtype", "unknown-subtype",
        "unknown-type"])
def test_unknown_event_types_and_subtypes_get_200_and_are_ignored(running_app, event):
    status, _ = _signed(running_app, _event(event, event_id=f"Ev-{event['type']}-{event.get('subtype')}"))
    assert status == 200
    _no_handler_ran(running_app)


def test_unknown_commands_actions_and_payload_types_get_200(running_app):
    assert running_app.slash("/not-ours", "hello")[0] == 200
    assert _signed(running_app, _action([{"action_id": "not_ours", "value": "x"}]), FORM)[0] == 200
    assert _signed(running_app, urlencode({"payload": json.dumps({"type": "view_submission", "view": {
        "type": "modal", "callback_id": "v"}, "team": {"id": TEAM_ID}, "user": {"id": "U1"}})}).encode(), FORM)[0] == 200
    assert _signed(running_app, json.dumps({"type": "something_else"}).encode())[0] == 200
    _no_handler_ran(running_app)


def test_a_slash_command_mentioning_payload_is_answered(running_app):
    # Bolt's own parser reads any form body containing "payload" as an interaction and drops it
    assert running_app.slash("/gpu", "which payload size fits 8x H100 80GB for a week")[0] == 200
    call = running_app.mock.wait_for("response_url", timeout=20)[0]
    assert call.params.get("blocks")


# --------------------------------------------------------------------------- tampered buttons

@pytest.mark.parametrize("value", [
    "not json", "[1, 2]", '{"c": 5, "v": "int4"}', '{"c": "../../etc", "v": "x"}', '{"c": "abc", "v": ["x"]}',
    '{"c": "' + "a" * 40 + '"}', "x" * 2_001,
], ids=["not-json", "array", "c-number", "c-path", "v-list", "c-too-long", "too-long"])
def test_tampered_button_values_get_a_polite_ephemeral_reply(running_app, value):
    body = _action([{"action_id": "quote_this", "block_id": "b", "value": value, "type": "button"}],
                   response_url=running_app.mock.response_url_base + "tampered")
    assert _signed(running_app, body, FORM)[0] == 200
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params == {"response_type": "ephemeral", "replace_original": False, "text": TAMPERED_TEXT}
    assert "Sorry" not in call.params["text"] and "reference" not in call.params["text"]  # not our fault


def test_an_expired_button_says_so(running_app):
    body = _action([{"action_id": "switch_precision", "value": json.dumps({"c": "0123456789abcdef", "v": "int4"})}],
                   response_url=running_app.mock.response_url_base + "expired")
    assert _signed(running_app, body, FORM)[0] == 200
    assert "too old" in running_app.mock.wait_for("response_url")[0].params["text"]


# --------------------------------------------------------------------------- never a 500

_FIELDS = ["type", "event", "actions", "team", "user", "channel", "authorizations", "command", "text", "view",
           "message", "container", "event_id", "team_id", "response_url", "is_enterprise_install", "challenge",
           "callback_id", "is_ext_shared_channel", "enterprise", "response_urls", "function_data"]
_TYPES = ["event_callback", "block_actions", "url_verification", "view_submission", "shortcut", "message_action",
          "interactive_message", "block_suggestion", "dialog_submission", "app_rate_limited", "ssl_check"]


def _random_value(rng: random.Random, depth: int = 0):
    kinds = ["str", "int", "null", "bool", "list", "dict", "type"] if depth < 3 else ["str", "int", "null", "bool"]
    kind = rng.choice(kinds)
    if kind == "str":
        return rng.choice(["", "x", "T0000001", "C1", "\ud800", "1.1", "payload", "{"])
    if kind == "int":
        return rng.choice([0, -1, 10**30])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "list":
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if kind == "dict":
        return {rng.choice(_FIELDS + ["id"]): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if kind == "type":
        return rng.choice(_TYPES + ["app_mention", "message"])
    return None


def test_random_signed_payloads_never_get_500(running_app):
    rng = random.Random(17)
    statuses = []
    for i in range(150):
        payload = {rng.choice(_FIELDS): _random_value(rng) for _ in range(rng.randint(1, 6))}
        payload.setdefault("type", rng.choice(_TYPES))
        if payload["type"] == "event_callback" and rng.random() < 0.7:
            payload["event"] = {k: _random_value(rng, 1) for k in rng.sample(_FIELDS, 3)} | {
                "type": rng.choice(["app_mention", "message", "app_home_opened", "reaction_added"])}
        payload["event_id"] = f"EvFuzz{i}"
        body = json.dumps(payload)
        as_form = rng.random() < 0.4 and payload["type"] != "event_callback"
        data = urlencode({"payload": body}).encode() if as_form else body.encode("utf-8", "surrogatepass")
        statuses.append(_signed(running_app, data, FORM if as_form else "application/json")[0])
    assert 500 not in statuses
    assert set(statuses) <= {200, 400}
    assert statuses.count(200) > 10 and statuses.count(400) > 10  # both kinds were exercised
