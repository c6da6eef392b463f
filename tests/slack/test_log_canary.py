"""No log line holds message text, on any path (issue 17): a canary word sent in every message must
appear in no line of the server's log (the serving process and its answer workers), across normal
answers, help, errors in the core, a dead worker, an answer over its budget, a full queue, a failed
post, malformed and refused requests; and every line is one JSON object.

The server is ``gpu-advisor serve --http`` (cmd_serve) as a process, with faulty answers injected
through the seam (tests/slack/serve_faulty.py), so worker processes log to the same stderr.
"""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
import threading
import time
from urllib.parse import urlencode

import pytest

from bot.ops.logs import configure_logging
from tests.conftest import REPO
from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.mock_web_api import TEAM_ID
from tests.slack.procs import ServerProcess, clean_env, free_port
from tests.slack.test_edge import _action, _event, _send, _signed

CANARY = "quokkafjord"


@pytest.fixture
def faulty_server(tmp_path, mock_slack):
    port = free_port()
    log_path = tmp_path / "server.log"
    env = clean_env(HOST="127.0.0.1", SLACK_BOT_TOKEN="xoxb-canary-token-0000", SLACK_SIGNING_SECRET=SIGNING_SECRET,
                    SLACK_API_URL=mock_slack.url, DATABASE_URL=f"sqlite:///{tmp_path / 'state.db'}",
                    LOG_LEVEL="DEBUG", LOG_FORMAT="json", GPU_ADVISOR_ANSWER_WORKERS="1",
                    GPU_ADVISOR_ANSWER_QUEUE="1", GPU_ADVISOR_ANSWER_TIMEOUT_SECONDS="1.5",
                    GPU_ADVISOR_TEST_SLOW_SECONDS="3")
    with open(log_path, "w", encoding="utf-8") as log_file:
        proc = subprocess.Popen([sys.executable, "-m", "tests.slack.serve_faulty", str(port)], cwd=REPO, env=env,
                                stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT)
    server = ServerProcess(proc, port, log_path)
    try:
        server.wait_healthy(timeout=60)
        yield server, RunningApp(server.base_url, mock_slack, None)
    finally:
        server.stop()


def _refs(texts: list[str]) -> set[str]:
    return {m for t in texts for m in re.findall(r"reference `([0-9a-f]{8})`", t)}


def test_the_canary_is_in_no_log_line(faulty_server):
    server, running = faulty_server
    mock = running.mock

    def dm(text: str, n: int) -> None:
        ts = f"1764417000.{n:06d}"
        running.event({"type": "message", "channel_type": "im", "user": "U0000001", "text": text, "ts": ts,
                       "channel": "D0000001", "event_ts": ts}, f"EvCanary{n}")

    # normal answers, help, a button follow-up
    dm(f"H100 vs A100 for Llama 2 70B {CANARY}", 1)
    first = mock.wait_for("chat.postMessage", 1, timeout=30)[0]
    running.slash("/gpu", f"8x H100 for 3 days {CANARY}", response_id="c1")
    running.slash("/gpu", CANARY, response_id="c2")
    mock.wait_for("response_url", 2, timeout=30)
    blocks = first.params["blocks"]
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    button = next(e for b in blocks if b["type"] == "actions" for e in b["elements"])
    value = json.loads(button["value"])
    running.action({"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
                    "response_url": mock.response_url_base + "b1", "message": {"ts": "1.1"},
                    "actions": [{"action_id": "switch_precision", "value": json.dumps({"c": value["c"],
                                                                                         "v": f"int4 {CANARY}"})}]})
    mock.wait_for("response_url", 3, timeout=30)

    # the core raises with the text in its exception; a worker dies; an answer runs over its budget
    dm(f"RAISECORE {CANARY}", 2)
    mock.wait_for("chat.postMessage", 2, timeout=30)
    dm(f"DIEWORKER {CANARY}", 3)
    mock.wait_for("chat.postMessage", 3, timeout=30)
    dm(f"SLOWCPU {CANARY}", 4)
    time.sleep(0.3)
    # a full queue (1 worker busy + 1 queued): the third gets "busy"
    dm(f"H100 vs A100 {CANARY} second", 5)
    dm(f"H100 vs A100 {CANARY} third", 6)
    mock.wait_for("chat.postMessage", 6, timeout=30)
    # a failed post
    mock.fail_next["chat.postMessage"] = [(200, {}, {"ok": False, "error": "msg_too_long"})]
    dm(f"price of 8x H100 {CANARY}", 7)
    mock.wait_for("chat.postEphemeral", 1, timeout=30)

    # a typeahead search and a form with the canary typed in (answered with a field error), and a chart
    # upload that fails after the canary question's answer
    status, _ = running.interact({"type": "block_suggestion", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
                                  "action_id": "model_choice", "block_id": "model", "value": CANARY,
                                  "view": {"id": "V1", "type": "modal", "callback_id": "gpu_size_form"}})
    assert status == 200
    status, body = running.interact({"type": "view_submission", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
                                     "view": {"id": "V1", "type": "modal", "callback_id": "gpu_size_form",
                                              "private_metadata": CANARY, "state": {"values": {
                                                  "users": {"users": {"type": "number_input", "value": CANARY}}}}}})
    assert status == 200 and CANARY not in body and "errors" in body
    mock.fail_next["files.getUploadURLExternal"] = [(200, {}, {"ok": False, "error": "missing_scope"})]
    dm(f"serve Llama 3 70B to 200 users {CANARY}", 8)
    mock.wait_for("chat.postMessage", 8, timeout=30)

    # refused and ignored requests carrying the canary
    for body, content_type in [
        (f'{{"type": "event_callback", "event": {{"text": "{CANARY}"'.encode(), "application/json"),
        (("\ufeff" + json.dumps({"text": CANARY})).encode(), "application/json"),
        (CANARY.encode() + b"\xff", "application/json"),
        (f"command=/gpu&text={CANARY}".encode(), "application/json"),
        (_action([], text=CANARY), "application/x-www-form-urlencoded"),
        (_action([{"action_id": "quote_this", "value": CANARY}]), "application/x-www-form-urlencoded"),
        (_event({"type": "reaction_added", "text": CANARY}), "application/json"),
        (urlencode({"command": "/unknown", "text": CANARY}).encode(), "application/x-www-form-urlencoded"),
    ]:
        assert _signed(running, body, content_type)[0] in (200, 400)
    assert _send(running, CANARY.encode(), {"Content-Type": "application/json", "X-Slack-Request-Timestamp": CANARY,
                                            "X-Slack-Signature": CANARY})[0] == 401
    assert _send(running, b"x", {"Content-Length": str(10**12), "X-Canary": CANARY})[0] == 413
    time.sleep(2.5)  # let the slow answer end and every request line be written

    apologies = [c.params.get("text", "") for c in mock.calls if c.method in ("chat.postMessage", "chat.postEphemeral")]
    refs = _refs(apologies)
    assert len(refs) >= 4, apologies  # error, dead worker, timeout, busy (and the failed post)
    lines = server.log_lines()
    records = [json.loads(line) for line in lines if line.strip()]  # every line is JSON
    everything = "\n".join(lines)
    assert CANARY not in everything.lower()
    for secret in (SIGNING_SECRET, "xoxb-canary-token-0000"):
        assert secret not in everything
    for ref in refs:
        assert ref in everything, f"reference {ref} shown to a user is not in the log"
    worker_errors = [r for r in records if r.get("logger") == "gpu_advisor.workers" and r.get("exc_info")]
    assert any("ValueError: [message withheld" in r["exc_info"] for r in worker_errors)
    assert {r["logger"] for r in records} >= {"gpu_advisor.request", "gpu_advisor.http", "gpu_advisor.workers"}


def test_threads_uncaught_exceptions_and_server_errors_log_json_without_the_message():
    from bot.slack.runner import _ErrorsToLog, _ThreadingWSGIServer

    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, sys.excepthook, threading.excepthook, sys.unraisablehook)
    configure_logging("DEBUG", "json", stream=stream)
    try:
        thread = threading.Thread(target=lambda: int(f"not a number {CANARY}"), name="canary-thread")
        thread.start()
        thread.join()
        try:
            raise KeyError(f"{CANARY} in a key")
        except KeyError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
            _ErrorsToLog().write(f"Traceback ... {CANARY}")  # what wsgiref prints while handling it
            _ThreadingWSGIServer.handle_error(object.__new__(_ThreadingWSGIServer), None, ("127.0.0.1", 1))
        logging.getLogger("slack_bolt.App").warning(f"Unhandled request ({{'text': '{CANARY}'}})")
        logging.getLogger("bot.parsing.parser").exception("parse_question failed on %r", CANARY)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        sys.excepthook, threading.excepthook, sys.unraisablehook = saved[2:]
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert CANARY not in stream.getvalue()
    crash = [r for r in records if r["logger"] == "gpu_advisor.crash"]
    assert [r["message"] for r in crash] == ["uncaught exception (thread)", "uncaught exception (main thread)"]
    assert "ValueError: [message withheld" in crash[0]["exc_info"] and crash[0]["thread_name"] == "canary-thread"
    assert any(r["message"] == "WSGI handler error" and "KeyError" in r["exc_info"] for r in records)
    assert any(r["message"] == "request handling failed in the server" for r in records)
    bolt = next(r for r in records if r["logger"] == "slack_bolt.App")
    assert bolt["message"] == "(message withheld)" and bolt["source"].endswith(".py:" + str(bolt["source"].split(":")[-1]))
    parser = next(r for r in records if r["logger"] == "bot.parsing.parser")
    assert parser["message"] == "parse_question failed on %r"  # the template, not the text
