"""A local mock of Slack's Web API that records every call (in the spirit of bolt-python's
tests/mock_web_api_server). It answers like Slack for the methods the bot uses, also serves
``response_url`` posts under ``/response/...`` and file uploads under ``/upload/...`` (the URL
``files.getUploadURLExternal`` hands out, recorded as method ``file_upload`` with the bytes), and can
answer 429 with ``Retry-After`` (or any error) on demand. Parameters sent in the query string (slack_sdk
sends ``files.getUploadURLExternal``'s that way) are recorded with the body's.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

BOT_USER_ID = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM_ID = "T0000001"


@dataclass
class Call:
    """One recorded request: the Web API method (or ``response_url``), its parameters and headers."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    status: int = 200
    path: str = ""
    at: float = field(default_factory=time.perf_counter)  # when the mock received it


@dataclass
class MockSlack:
    """The running mock: ``url`` for SLACK_API_URL, ``calls`` recorded, ``fail_next`` to inject errors."""

    server: ThreadingHTTPServer
    calls: list[Call] = field(default_factory=list)
    # method -> list of (status, headers, body) answered before the normal answer, in order
    fail_next: dict[str, list[tuple[int, dict[str, str], dict[str, Any]]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ts_counter: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/api/"

    @property
    def response_url_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/response/"

    def calls_to(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method and c.status == 200]

    def wait_for(self, method: str, count: int = 1, timeout: float = 30.0) -> list[Call]:
        """Wait until ``count`` successful calls to ``method`` were recorded; return them. (30 s: a real server process
        answers in well under a second, but a loaded 2-core machine running other suites has taken over 10 s.)"""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.calls_to(method)
            if len(found) >= count:
                return found
            time.sleep(0.02)
        raise AssertionError(f"expected {count} call(s) to {method}; recorded: {[c.method for c in self.calls]}")

    def next_ts(self) -> str:
        with self.lock:
            self.ts_counter += 1
            return f"1764417600.{self.ts_counter:06d}"


def _answer(mock: MockSlack, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "auth.test":
        return {"ok": True, "url": "https://example.slack.com/", "team": "Example", "user": "gpu-advisor",
                "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}
    if method == "chat.postMessage":
        ts = mock.next_ts()
        channel = params.get("channel") or ""
        if channel.startswith("U"):  # posting to a user id posts in the app's DM with them
            channel = "D" + channel[1:]
        return {"ok": True, "channel": channel, "ts": ts,
                "message": {"type": "message", "text": params.get("text", ""), "ts": ts, "bot_id": BOT_ID}}
    if method == "chat.postEphemeral":
        return {"ok": True, "message_ts": mock.next_ts()}
    if method in ("views.publish", "chat.update", "views.open"):
        return {"ok": True, "view": {"id": "V0000001"}, "ts": params.get("ts")}
    if method == "files.getUploadURLExternal":
        with mock.lock:
            mock.ts_counter += 1
            file_id = f"F{mock.ts_counter:08d}"
        return {"ok": True, "file_id": file_id,
                "upload_url": f"http://127.0.0.1:{mock.server.server_port}/upload/v1/{file_id}"}
    if method == "files.completeUploadExternal":
        files = json.loads(params.get("files") or "[]")
        return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files]}
    if method == "oauth.v2.access":
        return {"ok": True, "access_token": "xoxb-installed-token", "token_type": "bot", "scope": "chat:write,commands",
                "bot_user_id": BOT_USER_ID, "app_id": "A0000001", "team": {"id": TEAM_ID, "name": "Example"},
                "enterprise": None, "is_enterprise_install": False,
                "authed_user": {"id": "U0000001", "scope": "", "access_token": None, "token_type": None}}
    return {"ok": True}


def start_mock_slack() -> MockSlack:
    """Start the mock on 127.0.0.1 on a free port, in a daemon thread."""
    holder: dict[str, MockSlack] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            mock = holder["mock"]
            length = int(self.headers.get("Content-Length") or 0)
            data_in = self.rfile.read(length) if length else b""
            ctype = self.headers.get("Content-Type", "")
            query = {k: v[0] for k, v in parse_qs(self.path.partition("?")[2]).items()}
            if self.path.startswith("/upload/"):
                method, params = "file_upload", {"data": data_in, "length": len(data_in)}
            else:
                raw = data_in.decode("utf-8")
                if "json" in ctype:
                    params = {**query, **json.loads(raw or "{}")}
                else:
                    params = {**query, **{k: v[0] for k, v in parse_qs(raw).items()}}
                if self.path.startswith("/response/"):
                    method = "response_url"
                else:
                    method = self.path.removeprefix("/api/").split("?")[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            with mock.lock:
                queued = mock.fail_next.get(method) or []
                failure = queued.pop(0) if queued else None
            if failure is not None:
                status, extra_headers, body = failure
                with mock.lock:
                    mock.calls.append(Call(method, params, headers, status, self.path))
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in extra_headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            with mock.lock:
                mock.calls.append(Call(method, params, headers, path=self.path))
            if method in ("response_url", "file_upload"):
                data = b"ok" if method == "response_url" else b"OK - 8"
                ctype_out = "text/plain"
            else:
                data = json.dumps(_answer(mock, method, params)).encode()
                ctype_out = "application/json"
            self.send_response(200)
            self.send_header("Content-Type", ctype_out)
            self.send_header("x-slack-req-id", "mockreq")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    mock = MockSlack(server)
    holder["mock"] = mock
    threading.Thread(target=server.serve_forever, daemon=True, name="mock-slack").start()
    return mock
