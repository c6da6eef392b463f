"""Two HTTP replicas under load, on loopback only: throughput, latency, errors, duplicate answers.

Starts the local mock of Slack's Web API (tests/slack/mock_web_api.py), two ``gpu-advisor serve
--http`` processes on 127.0.0.1 sharing one database (a fresh schema in the PostgreSQL on
127.0.0.1:5432, database ``test``, dropped afterwards; SQLite when nothing listens there), then
sends a bounded number of signed requests from several client threads:

* slash commands (``/gpu``, ``/gpu-quote``, ``/gpu-size``), each with its own ``response_url``;
* channel mentions, each in its own thread;
* DMs, each in its own DM channel;
* a share of the events is delivered to BOTH replicas at the same moment (the second copy marked
  as Slack retry 1), as when a retry reaches another replica.

Every logical request must be answered exactly once. Reported: HTTP throughput, ack latency
(request to HTTP response) and answer latency (request to the mock receiving the answer) p50/p99,
errors (non-200 responses, connection errors, apologies, missing answers) and duplicate answers.
It stops by itself: the request count is fixed and every wait has a deadline. Exit code 1 when
there were errors or duplicates.

    python bench/load_replicas.py [--requests 200] [--clients 8] [--duplicate-share 0.25]
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from slack_sdk.signature import SignatureVerifier  # noqa: E402

from tests.slack.mock_web_api import TEAM_ID, MockSlack, start_mock_slack  # noqa: E402
from tests.slack.procs import ServerProcess, create_schema, drop_schema, pg_up, start_server  # noqa: E402

SIGNING_SECRET = "bench-signing-secret"
BOT_TOKEN = "xoxb-bench-token"
COMMANDS = [("/gpu", "H100 vs A100 for Llama 2 70B"), ("/gpu-quote", "8x H100 for 3 days"),
            ("/gpu-size", "llama 3 70b, 200 users, 8k context, int4"), ("/gpu", "can a 4090 run 13b int8?")]
MENTIONS = ["H100 vs A100 for Llama 2 70B", "price of 8x H100 for a week", "serve Llama 3 8B on an L4"]
DMS = ["serve Llama 3 70B to 200 users at 8k context", "can i qlora llama 70b on 2x 3090",
       "how long to pretrain a 3b model on 300B tokens with 32 H100s"]


@dataclass
class Logical:
    """One user request; ``deliveries`` HTTP posts carry it (2 when delivered to both replicas)."""

    key: str  # how its answer is recognised in the mock: ("response", id) / ("thread", ts) / ("dm", channel)
    kind: str
    body: str
    content_type: str
    deliveries: int = 1
    sent_at: float | None = None


@dataclass
class Stats:
    """HTTP-side figures collected by the client threads."""

    ack_ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    per_replica: Counter = field(default_factory=Counter)
    connection_errors: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _plan(total_http: int, duplicate_share: float) -> list[Logical]:
    """Logical requests whose deliveries add up to ``total_http``."""
    plans: list[Logical] = []
    http = 0
    n = 0
    events = 0
    every = round(1 / duplicate_share) if duplicate_share > 0 else 0  # every Nth event goes to both replicas
    now = int(time.time())
    while http < total_http:
        n += 1
        choice = n % 10
        if choice < 4:  # slash command
            command, text = COMMANDS[n % len(COMMANDS)]
            form = {"token": "x", "team_id": TEAM_ID, "team_domain": "bench", "channel_id": "C0000001",
                    "channel_name": "bench", "user_id": "U0000001", "user_name": "bench", "command": command,
                    "text": text, "api_app_id": "A0000001", "response_url": f"RESPONSE_BASE{n}", "trigger_id": "1.2.3"}
            plans.append(Logical(f"response:/response/{n}", "command", urlencode(form),
                                 "application/x-www-form-urlencoded"))
            http += 1
            continue
        ts = f"{now}.{n:06d}"
        if choice < 7:
            event = {"type": "app_mention", "user": "U0000001", "text": f"<@UBOT0001> {MENTIONS[n % len(MENTIONS)]}",
                     "ts": ts, "channel": "C0000001", "event_ts": ts}
            key, kind = f"thread:{ts}", "mention"
        else:
            channel = f"D{n:08d}"
            event = {"type": "message", "channel_type": "im", "user": "U0000001", "text": DMS[n % len(DMS)],
                     "ts": ts, "channel": channel, "event_ts": ts}
            key, kind = f"dm:{channel}", "dm"
        body = {"token": "x", "team_id": TEAM_ID, "api_app_id": "A0000001", "event": event, "type": "event_callback",
                "event_id": f"EvBench{n:06d}", "event_time": now,
                "authorizations": [{"team_id": TEAM_ID, "user_id": "UBOT0001", "is_bot": True}]}
        events += 1
        dup = every > 0 and events % every == 0 and total_http - http >= 2
        plans.append(Logical(key, kind, json.dumps(body), "application/json", deliveries=2 if dup else 1))
        http += 2 if dup else 1
    return plans


def _post(base_url: str, logical: Logical, retry: bool, mock: MockSlack, stats: Stats, replica: int) -> None:
    body = logical.body.replace("RESPONSE_BASE", mock.response_url_base)
    ts = str(int(time.time()))
    headers = {"Content-Type": logical.content_type, "X-Slack-Request-Timestamp": ts,
               "X-Slack-Signature": SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=ts, body=body)}
    if retry:
        headers.update({"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    req = urllib.request.Request(base_url + "/slack/events", data=body.encode(), method="POST", headers=headers)
    started = time.perf_counter()
    if logical.sent_at is None:
        logical.sent_at = started
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status = resp.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        with stats.lock:
            stats.connection_errors += 1
        return
    with stats.lock:
        stats.ack_ms.append((time.perf_counter() - started) * 1000)
        stats.statuses[status] += 1
        stats.per_replica[replica] += 1


def _answers(mock: MockSlack) -> dict[str, list]:
    """Answer calls recorded by the mock, keyed like :attr:`Logical.key`."""
    out: dict[str, list] = {}
    with mock.lock:
        calls = [c for c in mock.calls if c.status == 200]
    for call in calls:
        if call.method == "response_url":
            key = f"response:{call.path}"
        elif call.method == "chat.postMessage":
            channel = call.params.get("channel", "")
            key = f"dm:{channel}" if channel.startswith("D") else f"thread:{call.params.get('thread_ts')}"
        else:
            continue
        out.setdefault(key, []).append(call)
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def run(total: int, clients: int, duplicate_share: float, database_url: str | None) -> int:
    """Start the mock and two replicas, send ``total`` requests from ``clients`` threads, print the figures.

    Args:
        total: HTTP requests in all (duplicate deliveries included).
        clients: concurrent client threads.
        duplicate_share: share of events delivered to both replicas.
        database_url: the shared database; ``None`` means a fresh schema on 127.0.0.1:5432/test
            (SQLite in a temporary directory when nothing listens there).

    Returns:
        0 when every request was answered exactly once without errors, else 1.
    """
    mock = start_mock_slack()
    schema = None
    logdir = Path(tempfile.mkdtemp(prefix="load-replicas-"))
    if database_url is None:
        if pg_up():
            schema = create_schema()
            database_url = schema.url
        else:
            database_url = f"sqlite:///{logdir / 'state.db'}"
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": mock.url,
           "DATABASE_URL": database_url, "LOG_LEVEL": "INFO", "LOG_FORMAT": "json"}
    servers: list[ServerProcess] = []
    try:
        servers = [start_server(logdir / f"replica-{i}.log", **env) for i in range(2)]
        for server in servers:
            server.wait_healthy(timeout=60)
        plans = _plan(total, duplicate_share)
        work: queue.Queue = queue.Queue()
        for i, logical in enumerate(plans):
            if logical.deliveries == 2:  # adjacent items: two clients deliver them at about the same moment
                work.put((logical, 0, False))
                work.put((logical, 1, True))
            else:
                work.put((logical, i % 2, False))
        stats = Stats()

        def client() -> None:
            while True:
                try:
                    logical, replica, retry = work.get_nowait()
                except queue.Empty:
                    return
                _post(servers[replica].base_url, logical, retry, mock, stats, replica)

        started = time.perf_counter()
        threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        sent_seconds = time.perf_counter() - started

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_answers(mock)) < len(plans):
            time.sleep(0.1)
        answered_seconds = time.perf_counter() - started
        time.sleep(1.5)  # room for a late duplicate to show up
        answers = _answers(mock)

        missing = [p.key for p in plans if p.key not in answers]
        duplicates = [p.key for p in plans if len(answers.get(p.key, [])) > 1]
        apologies = [p.key for p in plans for c in answers.get(p.key, [])
                     if "something went wrong" in str(c.params.get("text", ""))]
        answer_ms = [(answers[p.key][0].at - p.sent_at) * 1000 for p in plans if p.key in answers and p.sent_at]
        http_total = sum(stats.statuses.values()) + stats.connection_errors
        non_200 = sum(v for k, v in stats.statuses.items() if k != 200)
        errors = non_200 + stats.connection_errors + len(missing) + len(apologies)
        outcomes: Counter = Counter()
        for server in servers:
            for record in server.log_records():
                if record.get("logger") == "gpu_advisor.request":
                    outcomes[record["outcome"]] += 1

        kinds = Counter(p.kind for p in plans)
        print(f"two replicas on 127.0.0.1, database {'PostgreSQL schema ' + schema.name if schema else database_url}")
        print(f"requests: {http_total} HTTP ({len(plans)} logical: {kinds['command']} slash commands, "
              f"{kinds['mention']} mentions, {kinds['dm']} DMs; {sum(1 for p in plans if p.deliveries == 2)} events "
              f"delivered to both replicas), {clients} client threads")
        print(f"per replica: {dict(sorted(stats.per_replica.items()))}; HTTP statuses {dict(stats.statuses)}")
        print(f"throughput: {http_total / sent_seconds:.1f} HTTP requests/s (all sent in {sent_seconds:.2f} s); "
              f"{len(answers) / answered_seconds:.1f} answers/s (all answered in {answered_seconds:.2f} s)")
        print(f"ack latency ms: p50 {_pct(stats.ack_ms, 50):.1f}, p99 {_pct(stats.ack_ms, 99):.1f}, "
              f"max {max(stats.ack_ms, default=float('nan')):.1f}")
        print(f"answer latency ms: p50 {_pct(answer_ms, 50):.1f}, p99 {_pct(answer_ms, 99):.1f}, "
              f"max {max(answer_ms, default=float('nan')):.1f}")
        print(f"replica request outcomes: {dict(sorted(outcomes.items()))}")
        print(f"errors: {errors} (non-200 {non_200}, connection {stats.connection_errors}, missing answers "
              f"{len(missing)}, apologies {len(apologies)})")
        print(f"duplicate answers: {len(duplicates)}")
        return 1 if errors or duplicates else 0
    finally:
        for server in servers:
            server.stop()
        mock.server.shutdown()
        if schema is not None:
            drop_schema(schema)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the load, print the figures; returns 1 on errors or duplicate answers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="HTTP requests in total (bounded)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent client threads")
    parser.add_argument("--duplicate-share", type=float, default=0.25,
                        help="share of events (mentions, DMs) delivered to both replicas")
    parser.add_argument("--database-url", default=None, help="default: a fresh schema on 127.0.0.1:5432/test")
    args = parser.parse_args(argv)
    if not 1 <= args.requests <= 5000 or not 1 <= args.clients <= 64:
        parser.error("--requests must be 1..5000 and --clients 1..64")
    return run(args.requests, args.clients, args.duplicate_share, args.database_url)


if __name__ == "__main__":
    raise SystemExit(main())
