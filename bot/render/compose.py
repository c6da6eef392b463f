"""An Answer in words: every part of it made in the user's language, for the terminal, Slack and JSON.

:func:`compose` turns the typed :class:`~bot.advice.answer.Answer` into :class:`Composed` text (title,
headline, details, table cells, warnings, what is missing, assumptions, price dates, sources, buttons),
using one :class:`~bot.render.i18n.Renderer`. The three surfaces lay these out differently but never word
them differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.advice.answer import Answer
from bot.render.i18n import Renderer, renderer_for

__all__ = ["Composed", "compose"]


@dataclass
class Composed:
    """An answer's text parts, in one language.

    Attributes:
        language: ``en`` or ``zh``.
        title, headline: one line each.
        details: supporting sentences.
        columns, rows: the table's headers and formatted cells (every row).
        warnings, missing, assumptions: sentences.
        price_dates: one line on the prices' dates, or ``""``.
        sources: source strings.
        examples: example questions.
        buttons: (action id, label, value) per action.
        labels: the section labels ("Assumptions", "Sources", "Try for example").
        verbose_hint: the terminal's line saying what ``--verbose`` adds.
    """

    language: str
    title: str
    headline: str
    details: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    price_dates: str = ""
    sources: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    verbose_hint: str = ""


def compose(answer: Answer) -> Composed:
    """The text of ``answer`` in its question's language (Chinese for Chinese questions, else English)."""
    r = _renderer(answer)
    columns, rows = [], []
    if answer.table is not None:
        columns = [r.column(c).label for c in answer.table.columns]
        rows = [[r.cell(c, v) for c, v in zip(answer.table.columns, row, strict=False)] for row in answer.table.rows]
    dates = answer.price_as_of
    price_dates = ""
    if dates:
        price_dates = r.say({"code": "price_dates_one" if dates[0] == dates[-1] else "price_dates_range",
                             "params": {"oldest": dates[0].isoformat(), "newest": dates[-1].isoformat()}})
    if answer.cny_per_usd and answer.query.answer_currency == "cny":
        price_dates = (price_dates + " " + r.say({"code": "cny_rate_used", "params": {
            "rate": answer.cny_per_usd, "rate_date": answer.cny_rate_date}})).strip()
    labels = {k: r.word(k) for k in ("assumptions", "sources", "try_for_example", "missing", "not_understood",
                                     "more_rows_n", "more_rows_cli")}
    return Composed(
        language="zh" if r.zh else "en",
        title=r.say(answer.title),
        headline=r.say(answer.headline),
        details=[s for s in (r.say(d) for d in answer.details) if s],
        columns=columns,
        rows=rows,
        warnings=[s for s in (r.say(w) for w in answer.warnings) if s],
        missing=[s for s in (r.say(m) for m in answer.missing) if s],
        assumptions=[s for s in (r.say(a) for a in answer.assumptions) if s],
        price_dates=price_dates,
        sources=list(answer.sources),
        examples=list(answer.examples),
        buttons=[(a.action_id, r.say(a.label), a.value) for a in answer.actions],
        labels=labels,
        verbose_hint=r.say({"code": "verbose_hint", "params": {"assumptions_n": len(answer.assumptions),
                                                               "sources_n": len(answer.sources)}}),
    )


def _renderer(answer: Answer) -> Renderer:
    rate = answer.cny_per_usd if answer.query.answer_currency == "cny" else None
    return renderer_for(answer.query.language, cny_per_usd=rate, days=answer.query.days_asked,
                        both=answer.query.both_currencies)
