"""Fixtures that run the real Bolt app over HTTP against the local mock of Slack's Web API."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlencode

import jsonschema
import pytest
from slack_sdk.signature import SignatureVerifier

from bot.kb.loader import get_knowledge
from bot.settings import Settings
from bot.slack.app import build_app
from bot.slack.runner import start_http_server
from bot.slack.workers import AnswerPool
from bot.storage.store import Store
from tests.conftest import REPO
from tests.slack.mock_web_api import TEAM_ID, MockSlack, start_mock_slack

SIGNING_SECRET = "test-signing-secret"
BLOCK_KIT_SCHEMA = json.loads((REPO / "tests" / "fixtures" / "block-kit.schema.json").read_text(encoding="utf-8"))
#: The schema's ``modal_view`` as a schema of its own (its ``$ref``s resolve in the copied ``$defs``).
MODAL_SCHEMA = {"$ref": "#/$defs/modal_view", "$defs": BLOCK_KIT_SCHEMA["$defs"]}
HOME_SCHEMA = {"$ref": "#/$defs/home_view", "$defs": BLOCK_KIT_SCHEMA["$defs"]}


def assert_valid_blocks(blocks: list[dict]) -> None:
    """Valid against the Block Kit JSON Schema and within Slack's 50-blocks-per-message limit."""
    assert 1 <= len(blocks) <= 50
    errors = list(jsonschema.Draft202012Validator(BLOCK_KIT_SCHEMA).iter_errors(blocks))
    assert not errors, jsonschema.exceptions.best_match(errors).message


def assert_valid_view(view: dict, schema: dict = MODAL_SCHEMA) -> None:
    """Valid against Block Kit's ``modal_view`` (or ``home_view``) schema."""
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(view))
    assert not errors, jsonschema.exceptions.best_match(errors).message


def params_json(call, key: str):
    """A recorded parameter that slack_sdk may send as a JSON string (``blocks``, ``view``)."""
    value = call.params[key]
    return json.loads(value) if isinstance(value, str) else value


@dataclass
class RunningApp:
    base_url: str
    mock: MockSlack
    store: Store

    def post(self, body: str, content_type: str, *, timestamp: int | None = None, secret: str = SIGNING_SECRET,
             headers: dict[str, str] | None = None) -> tuple[int, float]:
        """POST a signed request to /slack/events; returns (HTTP status, seconds until the response)."""
        ts = str(timestamp if timestamp is not None else int(time.time()))
        signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
        req = urllib.request.Request(
            self.base_url + "/slack/events", data=body.encode(), method="POST",
            headers={"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
                     "X-Slack-Signature": signature, **(headers or {})})
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, time.perf_counter() - started
        except urllib.error.HTTPError as exc:
            return exc.code, time.perf_counter() - started

    def slash(self, command: str, text: str, response_id: str = "1", **kw) -> tuple[int, float]:
        form = {"token": "x", "team_id": TEAM_ID, "team_domain": "example", "channel_id": "C0000001",
                "channel_name": "ml-infra", "user_id": "U0000001", "user_name": "ana", "command": command,
                "text": text, "api_app_id": "A0000001", "response_url": self.mock.response_url_base + response_id,
                "trigger_id": "1.2.3"}
        return self.post(urlencode(form), "application/x-www-form-urlencoded", **kw)

    def event(self, event: dict, event_id: str, headers: dict[str, str] | None = None) -> tuple[int, float]:
        body = {"token": "x", "team_id": TEAM_ID, "api_app_id": "A0000001", "event": event, "type": "event_callback",
                "event_id": event_id, "event_time": int(time.time()),
                "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}]}
        return self.post(json.dumps(body), "application/json", headers=headers)

    def action(self, payload: dict) -> tuple[int, float]:
        return self.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    def interact(self, payload: dict) -> tuple[int, str]:
        """POST a signed interaction payload (``view_submission``, ``block_suggestion``); (status, response body).

        These are the requests whose HTTP response carries data (field errors, menu options).
        """
        body = urlencode({"payload": json.dumps(payload)})
        ts = str(int(time.time()))
        signature = SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=ts, body=body)
        req = urllib.request.Request(
            self.base_url + "/slack/events", data=body.encode(), method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": ts,
                     "X-Slack-Signature": signature})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8", "replace")


@pytest.fixture(scope="session")
def answer_pool():
    """Two answer worker processes with the real seam, shared by the tests (they take a second to start)."""
    pool = AnswerPool(workers=2, queue=32, timeout_s=20, knowledge=get_knowledge())
    pool.warm_up()
    yield pool
    pool.close()


@contextmanager
def serve_app(tmp_path, pool: AnswerPool, **build_kw):
    """The real app on a free loopback port, answering through ``pool``, posting to a fresh mock Web API."""
    mock = start_mock_slack()
    settings = Settings(slack_bot_token="xoxb-test-token", slack_signing_secret=SIGNING_SECRET,
                        slack_api_url=mock.url)
    store = Store(f"sqlite:///{tmp_path / 'state.db'}")
    app = build_app(settings, store, answers=pool, **build_kw)
    server, _thread = start_http_server(app, store, host="127.0.0.1", port=0, **{
        k: v for k, v in build_kw.items() if k in ("kb_provider", "metrics")})
    try:
        yield RunningApp(f"http://127.0.0.1:{server.server_port}", mock, store)
    finally:
        server.shutdown()
        server.server_close()
        mock.server.shutdown()


@pytest.fixture
def running_app(tmp_path, answer_pool):
    with serve_app(tmp_path, answer_pool) as running:
        yield running


@pytest.fixture
def pg_schema():
    """A fresh PostgreSQL schema on 127.0.0.1:5432/test, dropped afterwards (skipped when nothing listens)."""
    from tests.slack.procs import create_schema, drop_schema, pg_up

    if not pg_up():
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    schema = create_schema()
    yield schema
    drop_schema(schema)


@pytest.fixture
def mock_slack():
    """The mock Web API alone (for apps started by the test itself)."""
    mock = start_mock_slack()
    yield mock
    mock.server.shutdown()
