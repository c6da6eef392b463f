"""Settings from the environment: every invalid value stops the start naming the variable."""

from __future__ import annotations

import subprocess

import pytest

from bot.settings import Settings, SettingsError, load_settings
from tests.conftest import REPO
from tests.slack.procs import clean_env, gpu_advisor_command

_OWN = ("SLACK_", "GPU_ADVISOR_", "DATABASE_URL", "PORT", "HOST", "LOG_LEVEL", "LOG_FORMAT")


@pytest.fixture
def env(monkeypatch):
    """A clean slate of GPU Advisor's variables; returns monkeypatch.setenv."""
    import os

    for name in list(os.environ):
        if name.startswith(_OWN):
            monkeypatch.delenv(name)
    return monkeypatch.setenv


@pytest.mark.parametrize("variable, value", [
    ("PORT", "abc"),
    ("PORT", "70000"),
    ("LOG_LEVEL", "loud"),
    ("LOG_FORMAT", "xml"),
    ("SLACK_API_URL", "ftp://slack.example"),
    ("SLACK_REDIRECT_URI", "slack.example/cb"),
    ("GPU_ADVISOR_MODE", "carrier-pigeon"),
    ("GPU_ADVISOR_RELOAD_SECONDS", "-1"),
    ("GPU_ADVISOR_RELOAD_SECONDS", "soon"),
    ("GPU_ADVISOR_KNOWLEDGE", "/no/such/knowledge-dir"),
    ("DATABASE_URL", "not a url"),
    ("SLACK_BOT_TOKEN", "xoxp-user-token-value"),
    ("SLACK_APP_TOKEN", "xoxb-wrong-kind-value"),
    ("SLACK_STATE_SECRET", "short-value"),
])
def test_invalid_value_names_the_variable_and_hides_the_value(env, variable, value):
    env(variable, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(f"invalid environment: {variable}: ")
    if variable.startswith("SLACK_") and variable != "SLACK_API_URL" and variable != "SLACK_REDIRECT_URI":
        assert value not in message  # secrets are never echoed


def test_defaults_and_empty_values(env):
    env("SLACK_APP_TOKEN", "")  # as an .env line `SLACK_APP_TOKEN=` passes it
    env("GPU_ADVISOR_MODE", "SOCKET")
    settings = load_settings()
    assert settings.slack_app_token is None
    assert settings.gpu_advisor_mode == "socket"
    assert settings.port == 3000 and settings.gpu_advisor_reload_seconds == 300
    assert settings.slack_api_url == "https://slack.com/api/"
    assert not settings.multi_workspace


def test_secrets_never_appear_in_repr(env):
    env("SLACK_BOT_TOKEN", "xoxb-very-secret-1")
    env("SLACK_CLIENT_SECRET", "client-secret-2")
    text = repr(load_settings())
    assert "very-secret-1" not in text and "client-secret-2" not in text


def _serve(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*gpu_advisor_command(), "serve"], cwd=REPO, env=clean_env(**env), capture_output=True,
                          text=True, timeout=60)


def test_serve_stops_with_exit_2_and_no_traceback():
    proc = _serve(PORT="abc", SLACK_BOT_TOKEN="xoxp-1234-secret", SLACK_SIGNING_SECRET="s")
    assert proc.returncode == 2
    assert "PORT" in proc.stderr and "SLACK_BOT_TOKEN" in proc.stderr
    assert "Traceback" not in proc.stderr and "1234-secret" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_gpu_advisor_mode_chooses_socket_mode():
    # Socket Mode needs SLACK_APP_TOKEN: the message proves the variable chose the mode.
    proc = _serve(GPU_ADVISOR_MODE="socket", SLACK_BOT_TOKEN="xoxb-1", SLACK_SIGNING_SECRET="s")
    assert proc.returncode == 2
    assert "socket mode needs SLACK_APP_TOKEN" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_settings_fields_cover_the_documented_variables():
    names = {name.upper() for name in Settings.model_fields}
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "SLACK_CLIENT_ID",
            "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET", "DATABASE_URL", "GPU_ADVISOR_KNOWLEDGE", "GPU_ADVISOR_MODE",
            "GPU_ADVISOR_RELOAD_SECONDS", "PORT", "LOG_LEVEL"} <= names
