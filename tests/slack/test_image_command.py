"""The image's command, ``gpu-advisor serve --http``, run outside Docker with the environment
docker-compose.yml gives it: /healthz, /metrics, the Dockerfile's HEALTHCHECK command itself,
knowledge reloads on SIGHUP (a good update served, a broken one rejected), clean SIGTERM.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.slack.conftest import SIGNING_SECRET, RunningApp
from tests.slack.procs import clean_env, free_port, pg_up, start_server

DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")


def _healthcheck_command() -> list[str]:
    """The exec-form CMD of the Dockerfile's HEALTHCHECK."""
    line = DOCKERFILE.split("HEALTHCHECK", 1)[1].split("CMD", 1)[1].split("\n")[0].strip()
    return json.loads(line)


@pytest.fixture
def knowledge_copy(tmp_path):
    target = tmp_path / "knowledge"
    shutil.copytree(REPO / "knowledge", target)
    return target


def _database_url(request, tmp_path) -> str:
    if pg_up():
        return request.getfixturevalue("pg_schema").url
    return f"sqlite:///{tmp_path / 'state.db'}"


def _set_price(path: Path, instance_type: str, new_price: str) -> str:
    """Rewrite the ``price_per_hour_usd`` of ``instance_type`` in a price file; returns the old value."""
    text = path.read_text(encoding="utf-8")
    at = text.index(f"instance_type: {instance_type}\n")
    match = re.compile(r"price_per_hour_usd: (\S+)").search(text, at)
    path.write_text(text[:match.start(1)] + new_price + text[match.end(1):], encoding="utf-8")
    return match.group(1)


def test_the_image_command_serves_health_metrics_and_reloads_knowledge(request, tmp_path, knowledge_copy, mock_slack):
    """``gpu-advisor serve --http`` as the container runs it (env as docker-compose.yml sets it)."""
    port = free_port()
    server = start_server(tmp_path / "bot.log", port=port, SLACK_BOT_TOKEN="xoxb-test-token",
                          SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_URL=mock_slack.url,
                          DATABASE_URL=_database_url(request, tmp_path), GPU_ADVISOR_KNOWLEDGE=str(knowledge_copy),
                          GPU_ADVISOR_MODE="http", GPU_ADVISOR_RELOAD_SECONDS="300", PORT=str(port))
    try:
        health = server.wait_healthy()
        assert health["status"] == "ok" and health["database"] is True and health["version"]
        knowledge = health["knowledge"]
        assert knowledge["loaded"] is True and knowledge["gpus"] > 10
        assert isinstance(knowledge["price_data_age_days"], int)
        assert knowledge["reload"]["directory"] == str(knowledge_copy)

        # The Dockerfile's HEALTHCHECK command, run as Docker would (PORT from the environment).
        check = subprocess.run(_healthcheck_command(), env=clean_env(PORT=str(port)), timeout=10)
        assert check.returncode == 0
        dead = subprocess.run(_healthcheck_command(), env=clean_env(PORT=str(free_port())), timeout=10,
                              capture_output=True)
        assert dead.returncode != 0

        status, body = server.get("/metrics")
        assert status == 200 and b"gpu_advisor_price_data_age_days" in body

        # Knowledge update without a redeploy: change a price, SIGHUP, the new one is served.
        lambda_prices = knowledge_copy / "prices" / "lambda.yaml"
        running = RunningApp(server.base_url, mock_slack, None)
        old_price = _set_price(lambda_prices, "8x NVIDIA H100 SXM", "8.88")
        assert old_price != "8.88"
        server.signal(signal.SIGHUP)
        _wait(lambda: server.healthz()["knowledge"]["reload"]["reloads"] == 1, server)
        running.slash("/gpu-quote", "8x H100 for 3 days on lambda", response_id="q1")
        # the first answer after a reload waits for the workers to load the new knowledge base (seconds on a busy
        # 2-core machine): the reply is waited for longer than an ordinary answer
        reply = json.dumps(mock_slack.wait_for("response_url", timeout=30)[0].params)
        assert "$8.88/h" in reply, reply[:2000]  # the dated 8x NVIDIA H100 SXM row the quote uses

        # A broken update is rejected, the last good knowledge base keeps serving, the log says file:line.
        _set_price(lambda_prices, "gpu_8x_h100_sxm5", "lots")
        server.signal(signal.SIGHUP)
        _wait(lambda: server.healthz()["knowledge"]["reload"]["rejected"] == 1, server)
        health = server.healthz()
        assert health["status"] == "ok" and health["knowledge"]["reload"]["last_error_count"] >= 1
        errors = [r["message"] for r in server.log_records() if r["level"] == "ERROR"]
        assert any(re.search(r"knowledge/prices/lambda\.yaml:\d+: ", m) for m in errors), errors
        running.slash("/gpu-quote", "8x H100 for 3 days on lambda", response_id="q2")
        reply = json.dumps(mock_slack.wait_for("response_url", 2, timeout=30)[1].params)
        assert "$8.88/h" in reply
        status, body = server.get("/metrics")
        assert b'gpu_advisor_knowledge_reloads_total{result="ok"} 1.0' in body
        assert b'gpu_advisor_knowledge_reloads_total{result="rejected"} 1.0' in body
    finally:
        code = server.stop()
    assert code == 0, "\n".join(server.log_lines())


def _wait(condition, server, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met; log:\n" + "\n".join(server.log_lines()))


