"""Render an Answer as terminal text: the result first, at most 20 lines unless ``verbose``."""

from __future__ import annotations

import unicodedata

from bot.advice.answer import Answer
from bot.render.compose import Composed, compose

__all__ = ["DEFAULT_ROWS", "render_table", "render_text"]

#: Table rows shown by default; ``--verbose`` shows every row, assumption and source.
DEFAULT_ROWS = 5


def _width(text: str) -> int:
    """Display width: East Asian wide characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def render_table(columns: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell (wide characters counted twice), header underlined."""
    widths = [_width(c) for c in columns]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(cell))

    def line(cells: list[str]) -> str:
        return "  ".join(_pad(c, widths[i]) for i, c in enumerate(cells)).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def render_text(answer: Answer, *, verbose: bool = False) -> str:
    """The answer as text.

    Args:
        answer: the advisor's answer.
        verbose: every table row, assumption, warning and source (default: the result, a short table, what
            is missing, the first warnings and a count of the assumptions, within 20 lines).
    """
    c = compose(answer)
    return _layout(c, verbose) + "\n"


def _layout(c: Composed, verbose: bool) -> str:
    out = [c.title, c.headline]
    details = c.details if verbose else c.details[:3]
    out += details
    out += [f"! {m}" for m in c.missing]
    if c.rows:
        rows = c.rows if verbose else c.rows[:DEFAULT_ROWS]
        out.append("")
        out.append(render_table(c.columns, rows))
        if len(c.rows) > len(rows):
            out.append("(" + c.labels.get("more_rows_cli", "+{n}").format(n=len(c.rows) - len(rows)) + ")")
    warnings = c.warnings if verbose else c.warnings[:3]
    if warnings:
        out.append("")
        out += [f"! {w}" for w in warnings]
    if c.examples:
        out.append("")
        out.append(c.labels["try_for_example"])
        out += [f"  {e}" for e in c.examples]
    if verbose:
        if c.assumptions:
            out.append("")
            out.append(c.labels["assumptions"] + ":")
            out += [f"  - {a}" for a in c.assumptions]
        if c.price_dates:
            out.append(c.price_dates)
        if c.sources:
            out.append(c.labels["sources"] + ":")
            out += [f"  - {s}" for s in c.sources]
    else:
        tail = []
        if c.price_dates:
            tail.append(c.price_dates)
        hidden = len(c.assumptions) + max(0, len(c.warnings) - len(warnings)) + max(0, len(c.details) - len(details))
        if hidden or c.sources:
            tail.append(c.verbose_hint)
        if tail:
            out.append("")
            out += tail
    return "\n".join(line.rstrip() for line in out)
