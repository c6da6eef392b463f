"""Metrics at /metrics and the JSON request log, driven through the real app over HTTP."""

from __future__ import annotations

import io
import json
import logging
import re
import time
import urllib.request

import pytest

from bot.kb.loader import get_knowledge
from bot.ops.logs import configure_logging, make_formatter, redact
from bot.ops.metrics import Metrics
from bot.settings import Settings
from bot.slack.app import build_app
from bot.slack.runner import start_http_server
from bot.storage.store import Store
from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.mock_web_api import start_mock_slack

BOT_TOKEN = "xoxb-test-token"
QUESTION = "H100 vs A100 for Llama 2 70B nightingale"
DM_TEXT = "serve Llama 3 70B to 200 users for the falcon project"


@pytest.fixture
def observed(tmp_path, answer_pool):
    """The app with its own metrics registry and every log line captured as configured in production."""
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    configure_logging("DEBUG", "json", stream=stream)
    failing = {"on": False}

    def kb_provider():
        if failing["on"]:
            raise RuntimeError("injected failure")
        return get_knowledge()

    mock = start_mock_slack()
    settings = Settings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET, slack_api_url=mock.url)
    store = Store(f"sqlite:///{tmp_path / 'state.db'}")
    metrics = Metrics()
    app = build_app(settings, store, kb_provider=kb_provider, metrics=metrics, answers=answer_pool)
    server, _ = start_http_server(app, store, host="127.0.0.1", port=0, kb_provider=kb_provider, metrics=metrics)
    running = RunningApp(f"http://127.0.0.1:{server.server_port}", mock, store)
    yield running, stream, failing
    server.shutdown()
    server.server_close()
    mock.server.shutdown()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved[0]:
        root.addHandler(handler)
    root.setLevel(saved[1])


def _metrics(running: RunningApp) -> str:
    with urllib.request.urlopen(running.base_url + "/metrics", timeout=5) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain")
        return resp.read().decode()


def _wait_metric(running: RunningApp, line: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = _metrics(running)
        if line in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"{line!r} not in /metrics:\n{text}")


def _request_lines(stream: io.StringIO) -> list[dict]:
    records = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    return [r for r in records if r["logger"] == "gpu_advisor.request"]


def test_metrics_after_a_slash_command(observed):
    running, _, _ = observed
    assert running.slash("/gpu", QUESTION)[0] == 200
    running.mock.wait_for("response_url")
    text = _wait_metric(running, 'gpu_advisor_requests_total{kind="command",outcome="answered"} 1.0')
    assert re.search(r'gpu_advisor_answers_total\{intent="[a-z_]+"\} 1\.0', text)
    assert 'gpu_advisor_request_latency_seconds_count{kind="command"} 1.0' in text
    assert 'gpu_advisor_http_responses_total{path="/slack/events",status="200"} 1.0' in text
    assert re.search(r'gpu_advisor_price_data_age_days\{which="newest"\} \d+', text)
    assert "gpu_advisor_errors_total" in text and 'gpu_advisor_errors_total{kind="command"}' not in text


def test_errors_and_bad_signatures_are_counted(observed):
    running, _, failing = observed
    failing["on"] = True
    running.slash("/gpu", QUESTION)
    assert "reference" in running.mock.wait_for("response_url")[0].params["text"]
    text = _wait_metric(running, 'gpu_advisor_errors_total{kind="command"} 1.0')
    assert 'gpu_advisor_requests_total{kind="command",outcome="error"} 1.0' in text
    assert running.slash("/gpu", "hi", secret="wrong")[0] == 401
    assert 'gpu_advisor_http_responses_total{path="/slack/events",status="401"} 1.0' in _metrics(running)


def test_one_json_line_per_request_without_text_or_tokens(observed):
    running, stream, _ = observed
    running.slash("/gpu", QUESTION)
    running.event({"type": "message", "channel_type": "im", "user": "U0000001", "text": DM_TEXT,
                   "ts": "1764417000.000100", "channel": "D0000001", "event_ts": "1764417000.000100"}, "EvObs1")
    running.event({"type": "message", "channel_type": "im", "user": "U0000001", "text": DM_TEXT,
                   "ts": "1764417000.000100", "channel": "D0000001", "event_ts": "1764417000.000100"}, "EvObs1",
                  headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    running.mock.wait_for("chat.postMessage")
    running.mock.wait_for("response_url")
    deadline = time.monotonic() + 10
    while len(_request_lines(stream)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = _request_lines(stream)
    assert sorted((r["kind"], r["outcome"]) for r in lines) == [
        ("command", "answered"), ("event", "answered"), ("event", "duplicate")]
    for record in lines:
        assert re.fullmatch(r"[0-9a-f]{12}", record["request_id"])
        assert record["team_id"] == "T0000001"
        assert isinstance(record["latency_ms"], float)
    answered = [r for r in lines if r["outcome"] == "answered"]
    assert all(r["intent"] for r in answered)
    assert [r["intent"] for r in lines if r["kind"] == "event" and r["outcome"] == "answered"] == ["size_inference"]
    assert len({r["request_id"] for r in lines}) == 3
    assert [r["event_id"] for r in lines if r["kind"] == "event"] == ["EvObs1", "EvObs1"]  # a retry shares it
    everything = stream.getvalue()
    for secret in (QUESTION, "nightingale", DM_TEXT, "falcon", BOT_TOKEN, SIGNING_SECRET):
        assert secret not in everything, f"{secret!r} was logged"


def test_tokens_are_masked_whatever_logs_them():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(make_formatter("json"))
    logger = logging.getLogger("gpu_advisor.test_redaction")
    logger.addHandler(handler)
    try:
        logger.error("token %s and xapp-1-A2-abc", "xoxb-123-456-secret")
    finally:
        logger.removeHandler(handler)
    line = json.loads(stream.getvalue())
    assert line["message"] == "token xoxb-*** and xapp-***"
    assert redact("Bearer xoxp-1-2-3") == "Bearer xoxp-***"
