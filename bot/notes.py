"""Typed sentences: what the core wants to say, made into words only when an answer is rendered.

The parser, the planner and the advice modules never write prose: they record a :class:`Note` (a message
code and its parameters). ``bot/render/messages/<lang>.yaml`` holds the sentence of every code in each
language, so the English and Chinese answers are made from the same data and can never disagree.

Parameter names carry their units, which decides how a value is formatted (see
:mod:`bot.render.i18n`): ``*_usd`` money, ``*_gb`` gigabytes (10^9 bytes), ``*_hours`` durations,
``*_s`` seconds, ``*_ms`` milliseconds, ``*_tps`` tokens per second, ``*_tokens`` token counts.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Note", "note"]


class Note(BaseModel):
    """One sentence to be rendered.

    Attributes:
        code: the message code (``"assumed_variant"``), a key of the message catalogs.
        params: its parameters (JSON values), named with their units.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    params: dict[str, Any] = Field(default_factory=dict)

    def __hash__(self) -> int:  # notes are deduplicated by value
        return hash((self.code, repr(sorted(self.params.items()))))


def note(code: str, **params: Any) -> Note:
    """Shorthand: ``note("assumed_variant", gpu_name="H100 SXM5 80GB", written="h100")``."""
    return Note(code=code, params=params)
