"""Time to acknowledgement of signed slash commands: our HTTP app vs a bare Bolt app that only acks.

Usage: ``python bench/slack_ack.py [-n 200]``. Both apps run side by side on 127.0.0.1 behind the
same threaded WSGI server, with the Web API pointed at the local mock (tests/slack/mock_web_api.py);
requests alternate between them so machine noise hits both alike. Prints p50 and p99 per app and
the ratio. Target (issue: Slack app): at most 1.5x. Only loopback traffic; stops by itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from slack_bolt import App
from slack_sdk.signature import SignatureVerifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.settings import Settings  # noqa: E402
from bot.slack.app import build_app, make_client  # noqa: E402
from bot.slack.runner import start_http_server  # noqa: E402
from bot.storage.store import Store  # noqa: E402
from tests.slack.mock_web_api import start_mock_slack  # noqa: E402

SECRET = "bench-signing-secret"


def _post(base: str, text: str, response_url: str) -> float:
    body = urlencode({"team_id": "T0000001", "channel_id": "C1", "user_id": "U1", "command": "/gpu", "text": text,
                      "response_url": response_url, "trigger_id": "1", "api_app_id": "A1"})
    ts = str(int(time.time()))
    sig = SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body)
    req = urllib.request.Request(base + "/slack/events", data=body.encode(), method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded", "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": sig})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="requests per app (bounded)")
    args = parser.parse_args()
    n = max(10, min(args.n, 2000))
    mock = start_mock_slack()
    settings = Settings(slack_bot_token="xoxb-bench", slack_signing_secret=SECRET, slack_api_url=mock.url)
    store = Store(f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}")
    ours, _ = start_http_server(build_app(settings, store), store, host="127.0.0.1", port=0)

    bare = App(signing_secret=SECRET, client=make_client(settings))

    @bare.command("/gpu")
    def _ack_only(ack):
        ack()

    bare_server, _ = start_http_server(bare, store, host="127.0.0.1", port=0)
    ours_url = f"http://127.0.0.1:{ours.server_port}"
    bare_url = f"http://127.0.0.1:{bare_server.server_port}"
    questions = ["H100 vs A100 for Llama 2 70B", "8x H100 for 3 days", "serve llama 3 8b to 50 users"]
    for i in range(5):  # warm up both
        _post(ours_url, questions[i % 3], mock.response_url_base + "w")
        _post(bare_url, "x", mock.response_url_base + "w")
    t_ours, t_bare = [], []
    for i in range(n):
        t_ours.append(_post(ours_url, questions[i % 3], mock.response_url_base + str(i)))
        t_bare.append(_post(bare_url, "x", mock.response_url_base + "b"))
    mock.wait_for("response_url", n, timeout=120)  # every answer did arrive after its ack

    def pct(xs: list[float], p: float) -> float:
        return statistics.quantiles(xs, n=100)[int(p) - 1] * 1000

    p50o, p99o = statistics.median(t_ours) * 1000, pct(t_ours, 99)
    p50b, p99b = statistics.median(t_bare) * 1000, pct(t_bare, 99)
    print(f"requests per app: {n}")
    print(f"ours: p50 {p50o:.2f} ms, p99 {p99o:.2f} ms")
    print(f"bare Bolt ack-only: p50 {p50b:.2f} ms, p99 {p99b:.2f} ms")
    print(f"ratio ours/bare: p50 {p50o / p50b:.2f}x, p99 {p99o / p99b:.2f}x (target <= 1.5x)")
    ours.shutdown()
    bare_server.shutdown()
    mock.server.shutdown()


if __name__ == "__main__":
    main()
