"""Database URLs without importing SQLAlchemy: the default, the environment's, and SQLite file paths.

Kept apart from :mod:`bot.storage.store` so that a command which only reads the refreshed price table
(``gpu-advisor ask``) can find and open a SQLite state store with the standard library alone.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote

__all__ = ["DEFAULT_DATABASE_URL", "database_url_from_env", "sqlite_path"]

DEFAULT_DATABASE_URL = "sqlite:///./gpu-advisor.db"


def database_url_from_env() -> str:
    """``DATABASE_URL`` from the environment, or :data:`DEFAULT_DATABASE_URL` when unset or empty.

    The same rule as :class:`bot.settings.Settings` (an empty variable counts as unset), without
    importing pydantic-settings; commands that start the server validate the URL through Settings.
    """
    return os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL, or ``None`` for other back ends and in-memory databases.

    ``sqlite:///./gpu-advisor.db`` -> ``./gpu-advisor.db``; ``sqlite:////srv/state.db`` -> ``/srv/state.db``
    (SQLAlchemy's URL form: three slashes, then the path). Query parameters are dropped.

    Args:
        url: a SQLAlchemy database URL.
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+")[0].lower() != "sqlite":
        return None
    path = unquote(rest.split("?", 1)[0])
    if not path.startswith("/"):
        return None  # sqlite://host/... is not a file URL SQLAlchemy accepts
    path = path[1:]
    if path in ("", ":memory:"):
        return None
    return Path(path)
