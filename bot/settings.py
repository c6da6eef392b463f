"""Process settings from the environment (pydantic-settings).

Secrets come only from the environment and are typed ``SecretStr`` so they never appear in a
repr or a log line. An invalid value stops the start with a message naming the variable.
"""

from __future__ import annotations

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
        database_url: ``DATABASE_URL``, SQLAlchemy URL of the state store.
        gpu_advisor_knowledge: ``GPU_ADVISOR_KNOWLEDGE``, a knowledge directory to use instead
            of the bundled one.
        port: ``PORT``, HTTP mode listen port.
        log_level: ``LOG_LEVEL``.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore", case_sensitive=False)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    database_url: str = DEFAULT_DATABASE_URL
    gpu_advisor_knowledge: str | None = None
    port: int = Field(default=3000, ge=1, le=65535)
    log_level: str = "INFO"

    @field_validator("slack_api_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value if value.endswith("/") else value + "/"

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return level


def load_settings() -> Settings:
    """Read :class:`Settings` from the environment.

    Raises:
        SettingsError: naming each invalid variable, e.g. ``PORT: Input should be a valid integer``.
    """
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']).upper()}: {e['msg']}" for e in exc.errors())
        raise SettingsError(f"invalid environment: {problems}") from exc
