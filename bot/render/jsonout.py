"""Render an Answer as JSON: the typed Answer itself, plus its text in the user's language."""

from __future__ import annotations

import json
import math
from typing import Any

from bot.advice.answer import Answer
from bot.render.compose import compose

__all__ = ["answer_to_dict", "render_json"]


def _finite(value: Any) -> Any:
    """NaN and infinities become ``None``: the output is always valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def answer_to_dict(answer: Answer) -> dict[str, Any]:
    """The answer as JSON-ready data: every Answer field, and ``text`` (its sentences, in the user's language)."""
    data = _finite(answer.model_dump(mode="json"))
    c = compose(answer)
    data["text"] = {"language": c.language, "title": c.title, "headline": c.headline, "details": c.details,
                    "missing": c.missing, "warnings": c.warnings, "assumptions": c.assumptions,
                    "table": {"columns": c.columns, "rows": c.rows}, "price_dates": c.price_dates}
    return data


def render_json(answer: Answer, *, indent: int | None = None) -> str:
    """:func:`answer_to_dict` serialised; one line when ``indent`` is ``None`` (JSON lines)."""
    return json.dumps(answer_to_dict(answer), ensure_ascii=False, indent=indent, allow_nan=False)
