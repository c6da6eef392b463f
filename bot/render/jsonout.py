"""Render an Answer as JSON: the Answer itself, with the parsed query and a ``text`` summary."""

from __future__ import annotations

import json
from typing import Any

from bot.advice.answer import Answer

__all__ = ["answer_to_dict", "render_json"]


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    """The answer as JSON-ready data: every Answer field plus ``text`` (the plain summary)."""
    data = answer.model_dump(mode="json")
    data["text"] = answer.text
    return data


def render_json(answer: Answer, *, indent: int | None = None) -> str:
    """:func:`answer_to_dict` serialised; one line when ``indent`` is ``None`` (JSON lines)."""
    return json.dumps(answer_to_dict(answer), ensure_ascii=False, indent=indent)
