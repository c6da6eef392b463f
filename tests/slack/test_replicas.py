"""Two HTTP replicas (real ``gpu-advisor serve`` processes) sharing one PostgreSQL schema."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.procs import ServerProcess, start_server

BOT_TOKEN = "xoxb-test-token"
FIRST = "serve Llama 3 70B to 200 users at 8k context"
FOLLOW_UP = "what about int4?"


@pytest.fixture
def replicas(pg_schema, mock_slack, tmp_path):
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": mock_slack.url,
           "DATABASE_URL": pg_schema.url, "LOG_LEVEL": "DEBUG", "LOG_FORMAT": "json"}
    # Started together: both create the tables at the same moment (an advisory lock serialises it).
    servers = [start_server(tmp_path / f"replica-{name}.log", **env) for name in ("a", "b")]
    try:
        for server in servers:
            health = server.wait_healthy()
            assert health["database"] is True
        yield [RunningApp(s.base_url, mock_slack, None) for s in servers], servers
    finally:
        codes = [s.stop() for s in servers]
    assert codes == [0, 0]  # SIGTERM is a clean shutdown


def _dm(text: str, ts: str) -> dict:
    return {"type": "message", "channel_type": "im", "user": "U0000001", "text": text, "ts": ts,
            "channel": "D0000001", "event_ts": ts}


def test_one_event_delivered_to_both_replicas_is_answered_once(replicas):
    (a, b), servers = replicas
    event = {"type": "app_mention", "user": "U0000001", "text": "<@UBOT0001> H100 vs A100 for Llama 2 70B",
             "ts": "1764417000.000100", "channel": "C0000001", "event_ts": "1764417000.000100"}
    statuses: list[int] = []
    barrier = threading.Barrier(2)

    def deliver(app: RunningApp, retry: bool) -> None:
        barrier.wait()
        headers = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"} if retry else None
        statuses.append(app.event(event, "EvReplica1", headers=headers)[0])

    threads = [threading.Thread(target=deliver, args=(a, False)), threading.Thread(target=deliver, args=(b, True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert statuses == [200, 200]
    a.mock.wait_for("chat.postMessage", 1)
    time.sleep(1.0)
    assert len(a.mock.calls_to("chat.postMessage")) == 1
    outcomes = [r.get("outcome") for s in servers for r in s.log_records() if r.get("logger") == "gpu_advisor.request"]
    assert sorted(outcomes) == ["answered", "duplicate"]


def test_dm_context_written_by_one_replica_is_used_by_the_other(replicas):
    (a, b), servers = replicas
    assert a.event(_dm(FIRST, "1764417000.000200"), "EvCtx1")[0] == 200
    a.mock.wait_for("chat.postMessage", 1)
    assert b.event(_dm(FOLLOW_UP, "1764417000.000300"), "EvCtx2")[0] == 200
    second = b.mock.wait_for("chat.postMessage", 2)[1]
    reply = second.params["text"]
    assert "Llama 3 70B" in reply or "llama-3-70b" in reply  # the model came from replica A's context
    assert "int4" in reply.lower()
    # The bot's own message comes back as an event; Bolt logs such events whole at DEBUG, and
    # LOG_LEVEL=DEBUG must still keep that text out of the log.
    own = {**_dm("H100 pricing for project nightingale", "1764417600.000001"), "user": "UBOT0001",
           "bot_id": "BBOT0001"}
    assert a.event(own, "EvCtx3")[0] == 200
    time.sleep(0.5)
    assert len(a.mock.calls_to("chat.postMessage")) == 2
    _assert_logs_are_clean(servers, [FIRST, FOLLOW_UP, "project nightingale"])


def _assert_logs_are_clean(servers: list[ServerProcess], texts: list[str]) -> None:
    """Every line is JSON; request lines carry the fields; no line has message text or a secret."""
    request_lines = 0
    for server in servers:
        for line in server.log_lines():
            record = json.loads(line)
            for secret in (BOT_TOKEN, SIGNING_SECRET, *texts):
                assert secret not in line, f"{secret!r} leaked into the log: {line}"
            if record.get("logger") == "gpu_advisor.request":
                request_lines += 1
                assert {"request_id", "team_id", "intent", "latency_ms", "outcome"} <= set(record)
    assert request_lines >= 2
