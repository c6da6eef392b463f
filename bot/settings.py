"""Process settings from the environment (pydantic-settings).

Secrets come only from the environment and are typed ``SecretStr`` so they never appear in a
repr or a log line. An invalid value stops the start with a message naming the variable (and
never echoing a secret's value). An empty variable (``SLACK_APP_TOKEN=`` in an ``.env`` file)
counts as unset.

Every field here is documented, with the same default, in README.md ("Configuration"); a test
checks that the table and this class agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import AdvisorError
from bot.storage.store import DEFAULT_DATABASE_URL

__all__ = ["Settings", "SettingsError", "load_settings"]


class SettingsError(AdvisorError):
    """An environment variable has an invalid value; the message names it."""


class Settings(BaseSettings):
    """Every environment variable GPU Advisor reads (documented in README.md, same defaults).

    Attributes:
        slack_bot_token: ``SLACK_BOT_TOKEN`` (xoxb-...), single-workspace mode.
        slack_signing_secret: ``SLACK_SIGNING_SECRET``, verifies HTTP requests from Slack.
        slack_app_token: ``SLACK_APP_TOKEN`` (xapp-...), Socket Mode only.
        slack_api_url: ``SLACK_API_URL``, the Web API base URL (proxies, tests).
        slack_client_id: ``SLACK_CLIENT_ID``, multi-workspace (OAuth) installs.
        slack_client_secret: ``SLACK_CLIENT_SECRET``, multi-workspace installs.
        slack_state_secret: ``SLACK_STATE_SECRET``, signs the OAuth ``state`` parameter
            (at least 16 characters).
        slack_redirect_uri: ``SLACK_REDIRECT_URI``, the OAuth redirect URL registered with
            Slack (``https://host/slack/oauth_redirect``); unset means the app's default.
        database_url: ``DATABASE_URL``, SQLAlchemy URL of the state store (and, with OAuth,
            of the installation store).
        gpu_advisor_knowledge: ``GPU_ADVISOR_KNOWLEDGE``, a knowledge directory to use instead
            of the bundled one; enables reloading (SIGHUP, file changes).
        gpu_advisor_mode: ``GPU_ADVISOR_MODE``, ``http`` or ``socket``: the run mode of
            ``gpu-advisor serve`` when neither ``--http`` nor ``--socket`` is given.
        gpu_advisor_reload_seconds: ``GPU_ADVISOR_RELOAD_SECONDS``, how often the knowledge
            files are checked for changes; 0 turns the check off (SIGHUP still reloads).
        gpu_advisor_price_refresh_hours: ``GPU_ADVISOR_PRICE_REFRESH_HOURS``, how often the server
            refreshes catalog prices through gpuhunt into the state store (one replica at a time);
            0 turns the schedule off (``gpu-advisor prices refresh`` still works).
        gpuhunt_catalog_dir: ``GPUHUNT_CATALOG_DIR`` (gpuhunt's own variable), a catalog directory in
            gpuhunt's CSV format to refresh from instead of the network; must exist.
        gpu_advisor_max_body_bytes: ``GPU_ADVISOR_MAX_BODY_BYTES``, the largest request body
            read at ``/slack/events``; larger ones get 413 unread.
        gpu_advisor_answer_workers: ``GPU_ADVISOR_ANSWER_WORKERS``, processes that compute
            answers; 0 computes them in threads of the serving process (acks may then wait
            on CPU-heavy answers).
        gpu_advisor_answer_queue: ``GPU_ADVISOR_ANSWER_QUEUE``, answers that may wait for a
            worker; past workers + queue a question gets a "busy, try again" reply at once.
        gpu_advisor_answer_timeout_seconds: ``GPU_ADVISOR_ANSWER_TIMEOUT_SECONDS``, the time one
            answer may take in a worker before the worker is stopped and the user gets an apology.
        host: ``HOST``, HTTP mode listen address.
        port: ``PORT``, HTTP mode listen port.
        log_level: ``LOG_LEVEL``.
        log_format: ``LOG_FORMAT``, ``json`` (one JSON object per line) or ``text``.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False, env_ignore_empty=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_state_secret: SecretStr | None = None
    slack_redirect_uri: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    gpu_advisor_knowledge: str | None = None
    gpu_advisor_mode: Literal["http", "socket"] = "http"
    gpu_advisor_reload_seconds: float = Field(default=300, ge=0)
    gpu_advisor_price_refresh_hours: float = Field(default=24, ge=0)
    gpuhunt_catalog_dir: str | None = None
    # Slack truncates messages at 40,000 characters (api.slack.com/changelog/2018-04-truncating-really-long-messages);
    # an event carries the text twice (text and rich_text blocks): 2 x 40,000 x 4 bytes (UTF-8) + envelope
    # < 512 KiB. Interaction payloads and slash commands are smaller.
    gpu_advisor_max_body_bytes: int = Field(default=524_288, ge=1_024, le=67_108_864)
    gpu_advisor_answer_workers: int = Field(default=2, ge=0, le=64)
    gpu_advisor_answer_queue: int = Field(default=16, ge=0, le=10_000)
    gpu_advisor_answer_timeout_seconds: float = Field(default=10, gt=0, le=600)
    host: str = "0.0.0.0"
    port: int = Field(default=3000, ge=1, le=65535)
    log_level: str = "INFO"
    log_format: Literal["json", "text"] = "json"

    @field_validator("slack_api_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value if value.endswith("/") else value + "/"

    @field_validator("slack_redirect_uri")
    @classmethod
    def _redirect(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return level

    @field_validator("gpu_advisor_mode", "log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith("xoxb-"):
            raise ValueError("must be a bot token (starting with xoxb-)")
        return value

    @field_validator("slack_app_token")
    @classmethod
    def _app_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith("xapp-"):
            raise ValueError("must be an app-level token (starting with xapp-)")
        return value

    @field_validator("slack_state_secret")
    @classmethod
    def _state_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < 16:
            raise ValueError("must be at least 16 characters (e.g. `openssl rand -hex 32`)")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            make_url(value)
        except (ArgumentError, ValueError):
            raise ValueError("not a SQLAlchemy database URL (e.g. postgresql+psycopg://user@host:5432/db)") from None
        return value

    @field_validator("gpu_advisor_knowledge", "gpuhunt_catalog_dir")
    @classmethod
    def _knowledge_dir(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_dir():
            raise ValueError("directory not found")
        return value

    @property
    def oauth_variables(self) -> dict[str, bool]:
        """Which of the three multi-workspace variables are set, by variable name."""
        return {"SLACK_CLIENT_ID": self.slack_client_id is not None,
                "SLACK_CLIENT_SECRET": self.slack_client_secret is not None,
                "SLACK_STATE_SECRET": self.slack_state_secret is not None}

    @property
    def multi_workspace(self) -> bool:
        """True when all of SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET are set."""
        return all(self.oauth_variables.values())


def load_settings() -> Settings:
    """Read :class:`Settings` from the environment.

    Returns:
        The validated settings.

    Raises:
        SettingsError: naming each invalid variable, e.g. ``PORT: Input should be a valid integer``.
            Values are never echoed (they may be secrets).
    """
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg'].removeprefix('Value error, ')}"
                             for e in exc.errors())
        raise SettingsError(f"invalid environment: {problems}") from exc
