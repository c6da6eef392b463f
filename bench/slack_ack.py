"""Time to acknowledgement of signed Slack requests: our HTTP app vs a bare Bolt app that only acks,
idle and while two CPU-heavy answers are being computed.

Usage: ``python bench/slack_ack.py [-n 200] [--slow-seconds 12]``. Three apps run side by side on
127.0.0.1 behind the same threaded WSGI server, posting to the local mock Web API
(tests/slack/mock_web_api.py):

* ``bare``: a Bolt app whose listeners only ``ack()`` (``process_before_response``), behind Bolt's
  own WSGI adapter: the baseline;
* ``ours``: ``build_app`` with answers in 2 worker processes (the default), the HTTP edge in front;
* ``inline``: the same with ``GPU_ADVISOR_ANSWER_WORKERS=0`` (answers in threads of the serving
  process), the design before issue 17, to show what the workers buy.

Requests alternate between the apps (half slash commands, half ``app_mention`` events with real
questions) so machine noise hits all alike. Phase 1 is idle; in phase 2 each app first receives two
messages whose answer burns CPU for ``--slow-seconds`` (a slow answer function injected through
the seam, tests/slack/faulty_answers.py), then the same requests are timed while those run.
Prints p50/p99/max per app and phase, and ours/bare ratios. Targets (issue 17): every ack of ours
under 1 s with the burst; p99 ratio to bare at most 1.5x idle. Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode
from wsgiref.simple_server import make_server

SLOW_DEFAULT = 12.0

if __name__ == "__main__":  # the slow answer's duration must be in the environment before workers spawn
    _args = sys.argv[1:]
    if "--slow-seconds" in _args:
        os.environ["GPU_ADVISOR_TEST_SLOW_SECONDS"] = _args[_args.index("--slow-seconds") + 1]
    os.environ.setdefault("GPU_ADVISOR_TEST_SLOW_SECONDS", str(SLOW_DEFAULT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slack_bolt import App  # noqa: E402
from slack_bolt.adapter.wsgi import SlackRequestHandler  # noqa: E402
from slack_sdk.signature import SignatureVerifier  # noqa: E402

from bot.kb.loader import get_knowledge  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.slack.app import build_app, make_client  # noqa: E402
from bot.slack.runner import _QuietHandler, _ThreadingWSGIServer, start_http_server  # noqa: E402
from bot.slack.workers import AnswerPool  # noqa: E402
from bot.storage.store import Store  # noqa: E402
from tests.slack.faulty_answers import faulty_answer  # noqa: E402
from tests.slack.mock_web_api import start_mock_slack  # noqa: E402

SECRET = "bench-signing-secret"
QUESTIONS = ["H100 vs A100 for Llama 2 70B", "8x H100 for 3 days", "serve llama 3 8b to 50 users"]


def _post(base: str, body: str, content_type: str) -> float:
    ts = str(int(time.time()))
    sig = SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body)
    req = urllib.request.Request(base + "/slack/events", data=body.encode(), method="POST", headers={
        "Content-Type": content_type, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sig})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=30) as resp:
        resp.read()
    return time.perf_counter() - start


class Driver:
    """Builds the signed requests for one app (unique event ids, a response URL per command)."""

    def __init__(self, name: str, base: str, response_url: str):
        self.name, self.base, self.response_url = name, base, response_url
        self.count = 0

    def command(self, text: str) -> float:
        self.count += 1
        body = urlencode({"team_id": "T0000001", "channel_id": "C1", "user_id": "U1", "command": "/gpu", "text": text,
                          "response_url": self.response_url, "trigger_id": "1", "api_app_id": "A1"})
        return _post(self.base, body, "application/x-www-form-urlencoded")

    def mention(self, text: str) -> float:
        self.count += 1
        ts = f"1764417000.{self.count:06d}"
        body = json.dumps({"token": "x", "team_id": "T0000001", "api_app_id": "A1", "type": "event_callback",
                           "event_id": f"Ev{self.name}{self.count}{time.time_ns()}", "event_time": int(time.time()),
                           "event": {"type": "app_mention", "user": "U1", "text": f"<@UBOT0001> {text}", "ts": ts,
                                     "channel": "C1", "event_ts": ts}})
        return _post(self.base, body, "application/json")


def _bare_app(settings: Settings) -> App:
    # process_before_response: the ack is returned when the listener returns, with no executor
    # hand-off and no 10 ms polling: the fastest a Bolt app acknowledges.
    bare = App(signing_secret=SECRET, client=make_client(settings), process_before_response=True)

    @bare.command("/gpu")
    def _ack_command(ack):
        ack()

    @bare.event("app_mention")
    def _ack_event():
        pass

    return bare


def _serve_bare(app: App):
    server = make_server("127.0.0.1", 0, SlackRequestHandler(app), server_class=_ThreadingWSGIServer,
                         handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _stats(xs: list[float]) -> tuple[float, float, float]:
    return (statistics.median(xs) * 1000, statistics.quantiles(xs, n=100, method="inclusive")[98] * 1000,
            max(xs) * 1000)


def _measure(drivers: list[Driver], n: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {d.name: [] for d in drivers}
    for i in range(n):
        for d in drivers:
            question = QUESTIONS[i % len(QUESTIONS)]
            times[d.name].append(d.command(question) if i % 2 else d.mention(question))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="requests per app and phase (bounded to 10..1000)")
    parser.add_argument("--slow-seconds", type=float, default=SLOW_DEFAULT,
                        help="CPU time of each of the two slow answers (the burst)")
    args = parser.parse_args()
    n = max(10, min(args.n, 1000))
    mock = start_mock_slack()
    settings = Settings(slack_bot_token="xoxb-bench", slack_signing_secret=SECRET, slack_api_url=mock.url)
    tmp = Path(tempfile.mkdtemp())
    kb = get_knowledge()
    pools = {"ours": AnswerPool(workers=2, queue=2000, timeout_s=120, answer_fn=faulty_answer, knowledge=kb),
             "inline": AnswerPool(workers=0, queue=2000, timeout_s=120, answer_fn=faulty_answer)}
    pools["ours"].warm_up()
    servers = {}
    for name, pool in pools.items():
        store = Store(f"sqlite:///{tmp / (name + '.db')}")
        servers[name], _ = start_http_server(build_app(settings, store, answers=pool), store, host="127.0.0.1",
                                             port=0)
    servers["bare"] = _serve_bare(_bare_app(settings))
    drivers = [Driver(name, f"http://127.0.0.1:{servers[name].server_port}", mock.response_url_base + name)
               for name in ("bare", "ours", "inline")]
    _measure(drivers, 6)  # warm up every path
    time.sleep(2)

    idle = _measure(drivers, n)
    for d in drivers:
        if d.name != "bare":
            d.mention("SLOWCPU first")
            d.mention("SLOWCPU second")
    time.sleep(0.5)
    started = time.perf_counter()
    burst = _measure(drivers, n)
    window = time.perf_counter() - started

    print(f"requests per app and phase: {n} (half /gpu commands, half app_mention events)")
    print(f"burst: 2 answers burning {args.slow_seconds:.0f} s of CPU each, per app; measured over {window:.1f} s"
          + ("" if window < args.slow_seconds else " (longer than the burst: raise --slow-seconds)"))
    for phase, times in (("idle", idle), ("burst", burst)):
        p50b, p99b, _ = _stats(times["bare"])
        for name in ("bare", "ours", "inline"):
            p50, p99, worst = _stats(times[name])
            ratio = "" if name == "bare" else f"  ratio to bare: p50 {p50 / p50b:.2f}x, p99 {p99 / p99b:.2f}x"
            print(f"{phase:5} {name:6}: p50 {p50:7.2f} ms, p99 {p99:7.2f} ms, max {worst:7.2f} ms{ratio}")
    worst_ours = max(burst["ours"]) * 1000
    print(f"ours, slowest ack during the burst: {worst_ours:.1f} ms (target < 1000 ms)")
    for pool in pools.values():
        pool.close(timeout_s=1)
    for server in servers.values():
        server.shutdown()
    mock.server.shutdown()


if __name__ == "__main__":
    main()
