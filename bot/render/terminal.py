"""Render an Answer as plain terminal text with aligned columns (for ``ask`` and ``chat``)."""

from __future__ import annotations

from bot.advice.answer import Answer, Table

__all__ = ["render_table", "render_text"]


def render_table(table: Table) -> str:
    """The table with columns padded to their widest cell, header underlined."""
    widths = [len(c) for c in table.columns]
    for row in table.rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip()
    out = [line(table.columns), line(["-" * w for w in widths])]
    out += [line(r) for r in table.rows]
    return "\n".join(out)


def render_text(answer: Answer, *, verbose: bool = True) -> str:
    """Title, verdict, details, table, warnings, assumptions, price dates and sources as text.

    Args:
        answer: the advisor's answer.
        verbose: include every assumption and source (``False``: the first three of each).
    """
    parts = [answer.title, "=" * min(len(answer.title), 100), answer.verdict]
    if answer.details:
        parts.append("\n".join(answer.details))
    if answer.table and answer.table.rows:
        parts.append(render_table(answer.table))
    if answer.warnings:
        parts.append("\n".join(f"! {w}" for w in answer.warnings))
    if answer.examples:
        parts.append("Try for example:\n" + "\n".join(f"  {e}" for e in answer.examples))
    limit = None if verbose else 3
    if answer.assumptions:
        parts.append("Assumptions:\n" + "\n".join(f"  - {a}" for a in answer.assumptions[:limit]))
    if answer.price_dates:
        parts.append(answer.price_dates)
    if answer.sources:
        parts.append("Sources:\n" + "\n".join(f"  - {s}" for s in answer.sources[:limit]))
    return "\n\n".join(parts) + "\n"
