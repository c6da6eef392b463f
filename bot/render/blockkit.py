"""Render an Answer as Slack Block Kit, built with ``slack_sdk.models.blocks`` (data only, no network).

Layout (the result first): a header, the headline in bold (the verdict, the asked quantity in the user's
units), what is missing, a few supporting lines, a table of at most :data:`TABLE_ROWS` rows, the first
warnings, then a context line (assumptions folded, price dates, sources) and buttons. Slack's limits
(https://api.slack.com/reference/block-kit/blocks) are enforced: at most 50 blocks, 3,000 characters per
section, 150 in a header, 75 on a button, 10 context elements and 12,000 characters of text overall
(measured as the whole JSON of the blocks, markup included, so the text is always under it). Whatever is cut
is said, never dropped silently: "+3 more rows" under a short table; a long table is split over several
sections rather than cut mid-row (and columns with no value in any shown row are left out); when the message is still too long, the least needed parts go first (the
last table parts, then supporting lines and warnings) and a line under the headline says how many parts are
not shown. User text echoed back is escaped (``&``, ``<``, ``>``) so ``<!channel>`` can never ping anyone.
"""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.advice.answer import Answer
from bot.render.compose import Composed, compose
from bot.render.i18n import renderer_for
from bot.render.terminal import render_table

__all__ = ["MAX_BLOCKS", "MAX_SECTION_TEXT", "MAX_TOTAL_TEXT", "TABLE_ROWS", "escape_mrkdwn", "render_assumptions",
           "render_blocks", "render_message"]

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_CONTEXT_ELEMENTS = 10
MAX_TOTAL_TEXT = 12000
#: Table rows in a message; "Show all options" replies with every row.
TABLE_ROWS = 5
#: Room kept for the "shortened" line when parts are left out.
_NOTICE_ROOM = 400
#: How soon a part is left out when a message is too long (higher goes first).
_KEEP_MISSING, _KEEP_TABLE, _KEEP_CONTEXT, _KEEP_WARNINGS, _KEEP_DETAILS, _KEEP_MORE_TABLE = range(6)


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack treats as control characters in message text.

    Slack's "Formatting text for app surfaces": replace ``&`` with ``&amp;``, ``<`` with ``&lt;`` and ``>``
    with ``&gt;``; then ``<!channel>`` and ``<@U123>`` are shown, not acted on.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int, more: str = "…") -> str:
    return text if len(text) <= limit else text[: limit - len(more)] + more


def _section(text: str) -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=_cut(text, MAX_SECTION_TEXT)))


def render_blocks(answer: Answer, *, show_assumptions: bool = False, show_all: bool = False,
                  action_context: str | None = None) -> list[dict[str, Any]]:
    """Block Kit blocks for ``answer``, as JSON-ready dicts.

    Args:
        answer: the advisor's answer.
        show_assumptions: list every assumption (the "Show assumptions" button) instead of folding them.
        show_all: every table row, detail and warning (the "Show all options" button).
        action_context: an id the Slack layer stored the answer's request under; buttons carry it
            (``{"c": id, "v": follow-up text}``) so a click can continue the conversation.

    Returns:
        A list of block dicts, at most :data:`MAX_BLOCKS`, each within Slack's limits and all together
        within :data:`MAX_TOTAL_TEXT` characters; a cut is said (see the module docstring).
    """
    return _blocks(answer, compose(answer), show_assumptions=show_assumptions, show_all=show_all,
                   action_context=action_context)


def _blocks(answer: Answer, c: Composed, *, show_assumptions: bool, show_all: bool,
            action_context: str | None) -> list[dict[str, Any]]:
    """:func:`render_blocks` of ``answer`` whose text ``c`` is composed already."""
    head: list[Block] = [HeaderBlock(text=_cut(c.title or "GPU Advisor", MAX_HEADER_TEXT)),
                         _section(f"*{escape_mrkdwn(c.headline)}*")]
    body: list[tuple[int, Block]] = []
    if c.missing:
        body.append((_KEEP_MISSING, _section("\n".join(f":grey_question: {escape_mrkdwn(m)}" for m in c.missing[:5]))))
    if c.details:
        body.append((_KEEP_DETAILS, _section(escape_mrkdwn("\n".join(c.details[: None if show_all else 4])))))
    if c.rows:
        rows = c.rows if show_all else c.rows[:TABLE_ROWS]
        more = ""
        if len(c.rows) > len(rows):
            n = len(c.rows) - len(rows)
            more = escape_mrkdwn(c.labels.get("more_rows_n", "").format(n=n) or f"+{n}")
        columns, rows = _informative_columns(answer, c.columns, rows)
        chunks = _table_sections(columns, rows, reserve=len(more) + 1)
        chunks[-1] += "\n" + more if more else ""
        body += [(_KEEP_TABLE if i == 0 else _KEEP_MORE_TABLE, _section(chunk)) for i, chunk in enumerate(chunks)]
    if c.warnings:
        shown = c.warnings if show_all else c.warnings[:4]
        text = "\n".join(f":warning: {escape_mrkdwn(w)}" for w in shown)
        if len(c.warnings) > len(shown):
            text += f"\n(+{len(c.warnings) - len(shown)})"
        body.append((_KEEP_WARNINGS, _section(text)))
    if c.examples:
        ex = "\n".join(f"• `{escape_mrkdwn(e)}`" for e in c.examples[:5])
        body.append((_KEEP_MISSING, _section(f"{c.labels['try_for_example']}\n{ex}")))
    context = _context(c, show_assumptions)
    if context:
        body.append((_KEEP_CONTEXT, DividerBlock()))
        body.append((_KEEP_CONTEXT, ContextBlock(elements=[MarkdownTextObject(text=_cut(escape_mrkdwn(t), 1900))
                                                           for t in context[:MAX_CONTEXT_ELEMENTS]])))
    tail: list[Block] = []
    if c.buttons:
        tail.append(ActionsBlock(elements=[
            ButtonElement(text=_cut(label, MAX_BUTTON_TEXT), action_id=action_id,
                          value=json.dumps({"c": action_context or "", "v": value[:1000]}, ensure_ascii=False))
            for action_id, label, value in c.buttons[:5]]))
    return _fit(c, head, body, tail)


def _informative_columns(answer: Answer, columns: list[str], rows: list[list[str]]
                         ) -> tuple[list[str], list[list[str]]]:
    """``columns`` and ``rows`` without the columns that have no value in any row shown (every raw value
    ``None``, e.g. no price for any option), which would only print "n/a" down the table and widen it past a
    Slack message's width. Decided on the typed table (``answer.table``), not on the formatted cells."""
    raw = answer.table.rows[: len(rows)] if answer.table is not None else []
    if len(raw) != len(rows) or not columns:
        return columns, rows
    keep = [i for i in range(len(columns)) if any(i < len(r) and r[i] is not None for r in raw)]
    if not keep or len(keep) == len(columns):
        return columns, rows
    return [columns[i] for i in keep], [[row[i] for i in keep if i < len(row)] for row in rows]


def _table_sections(columns: list[str], rows: list[list[str]], reserve: int = 0) -> list[str]:
    """The table as code-block section texts: one when it fits in a section, else split between rows (each
    part repeats the header), never cut inside a row. ``reserve``: characters kept free in the last part."""
    lines = render_table(columns, rows).split("\n")
    header, body = lines[:2], lines[2:]
    room = MAX_SECTION_TEXT - 20 - reserve  # the fences, and what follows the table
    parts: list[list[str]] = []
    current: list[str] = []
    for line in body:
        line = escape_mrkdwn(_cut(line, room // 2))
        size = sum(len(x) + 1 for x in (*header, *current, line))
        if current and size > room:
            parts.append(current)
            current = []
        current.append(line)
    parts.append(current)
    return ["```" + "\n".join([*map(escape_mrkdwn, header), *part]) + "```" for part in parts]


def _context(c: Composed, show_assumptions: bool) -> list[str]:
    out = []
    if c.assumptions:
        shown = c.assumptions if show_assumptions else c.assumptions[:2]
        more = len(c.assumptions) - len(shown)
        out.append(f"{c.labels['assumptions']}: " + "; ".join(shown) + (f" (+{more})" if more > 0 else ""))
    if c.price_dates:
        out.append(c.price_dates)
    if c.sources:
        shown = c.sources[: 8 if show_assumptions else 2]
        out.append(f"{c.labels['sources']}: " + "; ".join(shown)
                   + (f" (+{len(c.sources) - len(shown)})" if len(c.sources) > len(shown) else ""))
    return out


def _size(blocks: list[dict[str, Any]]) -> int:
    return len(json.dumps(blocks, ensure_ascii=False))


def _fit(c: Composed, head: list[Block], body: list[tuple[int, Block]], tail: list[Block]) -> list[dict[str, Any]]:
    """``head + body + tail`` as dicts within :data:`MAX_BLOCKS` and :data:`MAX_TOTAL_TEXT`.

    When they are not, body parts are left out, the least needed first (highest rank, the later of equal
    ranks), and a line under the headline says how many (``slack_shortened``).
    """
    kept = [(rank, b.to_dict()) for rank, b in body]
    fixed = [b.to_dict() for b in head], [b.to_dict() for b in tail]

    def total(parts: list[tuple[int, dict]], room: int = 0) -> bool:
        blocks = [*fixed[0], *(b for _, b in parts), *fixed[1]]
        return len(blocks) + (1 if room else 0) <= MAX_BLOCKS and _size(blocks) + room <= MAX_TOTAL_TEXT

    dropped = 0
    while not total(kept, _NOTICE_ROOM if dropped else 0) and kept:
        victim = max(range(len(kept)), key=lambda i: (kept[i][0], i))
        del kept[victim]
        dropped += 1
    # a divider left without its context below it says nothing
    kept = [(r, b) for i, (r, b) in enumerate(kept)
            if not (b["type"] == "divider" and (i + 1 >= len(kept) or kept[i + 1][1]["type"] == "divider"))]
    notice = []
    if dropped:
        line = renderer_for(c.language).say({"code": "slack_shortened", "params": {"n": dropped}})
        notice = [SectionBlock(text=MarkdownTextObject(text=f"_{escape_mrkdwn(line)}_")).to_dict()]
    return [*fixed[0], *notice, *(b for _, b in kept), *fixed[1]]


def render_message(answer: Answer, *, show_assumptions: bool = False, show_all: bool = False,
                   action_context: str | None = None) -> dict[str, Any]:
    """A ``chat.postMessage``-ready payload: ``{"text": fallback, "blocks": [...]}``."""
    c = compose(answer)
    text = "\n".join([c.title, c.headline, *c.details[:2]])
    return {"text": _cut(escape_mrkdwn(text), 3000),
            "blocks": _blocks(answer, c, show_assumptions=show_assumptions, show_all=show_all,
                              action_context=action_context)}


def render_assumptions(answer: Answer) -> dict[str, Any]:
    """The "Show assumptions" reply: every assumption, warning and source of ``answer``, without repeating it.

    Returns:
        A ``chat.postMessage``-ready payload within Slack's limits.
    """
    c = compose(answer)
    head: list[Block] = [HeaderBlock(text=_cut(f"{c.labels['assumptions']}: {c.title}", MAX_HEADER_TEXT))]
    body: list[tuple[int, Block]] = []
    chunk: list[str] = []
    for line in [f"• {escape_mrkdwn(a)}" for a in c.assumptions + c.warnings] or ["• -"]:
        if sum(len(x) + 1 for x in chunk) + len(line) > MAX_SECTION_TEXT - 10:
            body.append((_KEEP_DETAILS + len(body), _section("\n".join(chunk))))
            chunk = []
        chunk.append(_cut(line, MAX_SECTION_TEXT - 10))
    body.append((_KEEP_DETAILS + len(body), _section("\n".join(chunk))))
    context = [x for x in (c.price_dates, f"{c.labels['sources']}: " + "; ".join(c.sources[:10]) if c.sources
                           else None) if x]
    if context:
        body.append((_KEEP_CONTEXT, ContextBlock(elements=[MarkdownTextObject(text=_cut(escape_mrkdwn(x), 1900))
                                                           for x in context])))
    out = _fit(c, head, body, [])
    return {"text": _cut(escape_mrkdwn(f"{c.labels['assumptions']}: " + "; ".join(c.assumptions)), 3000),
            "blocks": out}
