"""Helpers that run ``gpu-advisor serve`` as a real process (the image's command, outside Docker)
and give each test a fresh PostgreSQL schema on 127.0.0.1:5432 (database ``test``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

REPO = Path(__file__).resolve().parents[2]
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
_OWN_VARIABLES = ("SLACK_", "GPU_ADVISOR_", "DATABASE_URL", "PORT", "HOST", "LOG_LEVEL", "LOG_FORMAT")


def pg_up() -> bool:
    """True when something listens on 127.0.0.1:5432."""
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            return True
    except OSError:
        return False


@dataclass
class PgSchema:
    """A fresh schema: ``url`` selects it through psycopg's ``options`` (as DATABASE_URL would)."""

    name: str
    url: str
    engine: Engine


def create_schema() -> PgSchema:
    """Create a uniquely named schema in the ``test`` database."""
    name = "t_" + uuid.uuid4().hex[:10]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {name}"))
    admin.dispose()
    url = f"{PG_URL}?options=-csearch_path%3D{name}"
    return PgSchema(name, url, create_engine(url))


def drop_schema(schema: PgSchema) -> None:
    """Drop ``schema`` and everything in it."""
    schema.engine.dispose()
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema.name} CASCADE"))
    admin.dispose()


def gpu_advisor_command() -> list[str]:
    """The installed ``gpu-advisor`` console script next to this interpreter, else ``python -m bot.cli``."""
    script = Path(sys.executable).with_name("gpu-advisor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env(**overrides: str) -> dict[str, str]:
    """This process's environment without GPU Advisor's variables, plus ``overrides`` (price refresh off)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN_VARIABLES)}
    env.update({"GPU_ADVISOR_PRICE_REFRESH_HOURS": "0", **overrides})  # tests never reach the network
    return env


@dataclass
class ServerProcess:
    """A running ``gpu-advisor serve`` whose stderr (the JSON log) goes to ``log_path``."""

    proc: subprocess.Popen
    port: int
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_lines(self) -> list[str]:
        return self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()

    def log_records(self) -> list[dict]:
        """Every log line parsed as JSON (a line that is not JSON fails the test)."""
        return [json.loads(line) for line in self.log_lines() if line.strip()]

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.base_url + path, timeout=timeout) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def healthz(self) -> dict:
        return json.loads(self.get("/healthz")[1])

    def wait_healthy(self, timeout: float = 30.0) -> dict:
        """Poll ``/healthz`` until it answers 200; fail with the process log if it exits or times out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited with {self.proc.returncode}:\n" + "\n".join(self.log_lines()))
            try:
                status, body = self.get("/healthz", timeout=2)
                if status == 200:
                    return json.loads(body)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        raise AssertionError("server not healthy in time:\n" + "\n".join(self.log_lines()))

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, then wait; SIGKILL if it does not exit in ``timeout`` seconds. Returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


def start_server(log_path: Path, *, port: int | None = None, args: tuple[str, ...] = ("--http",),
                 **env: str) -> ServerProcess:
    """Start ``gpu-advisor serve ARGS --port PORT`` on 127.0.0.1 with a clean environment plus ``env``."""
    port = port or free_port()
    full_env = clean_env(HOST="127.0.0.1", **env)
    log_file = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed when the process ends
    proc = subprocess.Popen([*gpu_advisor_command(), "serve", *args, "--port", str(port)], cwd=REPO, env=full_env,
                            stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT)
    log_file.close()
    return ServerProcess(proc, port, log_path)
