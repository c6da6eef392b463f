"""Render an Answer as Slack Block Kit, built with ``slack_sdk.models.blocks`` (data only, no network).

Layout (the result first): a header, the headline in bold, what is missing, a few supporting lines, a table
of at most :data:`TABLE_ROWS` rows, the first warnings, then a context line (assumptions folded, price
dates, sources) and buttons. Slack's limits (https://api.slack.com/reference/block-kit/blocks) are enforced:
at most 50 blocks, 3,000 characters per section, 150 in a header, 75 on a button, 10 context elements and
12,000 characters of text overall; whatever is cut is said ("+3 more rows"), never dropped silently.
User text echoed back is escaped (``&``, ``<``, ``>``) so ``<!channel>`` can never ping anyone.
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
from bot.render.terminal import render_table

__all__ = ["MAX_BLOCKS", "MAX_TOTAL_TEXT", "TABLE_ROWS", "escape_mrkdwn", "render_assumptions", "render_blocks",
           "render_message"]

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_CONTEXT_ELEMENTS = 10
MAX_TOTAL_TEXT = 12000
#: Table rows in a message; "Show all options" replies with every row.
TABLE_ROWS = 5


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
        show_all: every table row (the "Show all options" button).
        action_context: an id the Slack layer stored the answer's request under; buttons carry it
            (``{"c": id, "v": follow-up text}``) so a click can continue the conversation.

    Returns:
        A list of block dicts, at most :data:`MAX_BLOCKS`, each within Slack's limits.
    """
    c = compose(answer)
    blocks: list[Block] = [HeaderBlock(text=_cut(c.title or "GPU Advisor", MAX_HEADER_TEXT)),
                           _section(f"*{escape_mrkdwn(c.headline)}*")]
    if c.missing:
        blocks.append(_section("\n".join(f":grey_question: {escape_mrkdwn(m)}" for m in c.missing[:5])))
    if c.details:
        blocks.append(_section(escape_mrkdwn("\n".join(c.details[: None if show_all else 4]))))
    if c.rows:
        rows = c.rows if show_all else c.rows[:TABLE_ROWS]
        text = _table(c.columns, rows)
        if len(c.rows) > len(rows):
            text += "\n" + escape_mrkdwn(c.labels.get("more_rows_n", "").format(n=len(c.rows) - len(rows))
                                         or f"+{len(c.rows) - len(rows)}")
        blocks.append(_section(text))
    if c.warnings:
        shown = c.warnings if show_all else c.warnings[:4]
        text = "\n".join(f":warning: {escape_mrkdwn(w)}" for w in shown)
        if len(c.warnings) > len(shown):
            text += f"\n(+{len(c.warnings) - len(shown)})"
        blocks.append(_section(text))
    if c.examples:
        ex = "\n".join(f"• `{escape_mrkdwn(e)}`" for e in c.examples[:5])
        blocks.append(_section(f"{c.labels['try_for_example']}\n{ex}"))
    context = _context(c, show_assumptions)
    if context:
        blocks.append(DividerBlock())
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=_cut(escape_mrkdwn(t), 1900))
                                             for t in context[:MAX_CONTEXT_ELEMENTS]]))
    if c.buttons:
        blocks.append(ActionsBlock(elements=[
            ButtonElement(text=_cut(label, MAX_BUTTON_TEXT), action_id=action_id,
                          value=json.dumps({"c": action_context or "", "v": value[:1000]}, ensure_ascii=False))
            for action_id, label, value in c.buttons[:5]]))
    return _fit_total([b.to_dict() for b in blocks[:MAX_BLOCKS]])


def _table(columns: list[str], rows: list[list[str]]) -> str:
    body = render_table(columns, rows)
    # the table sits in a code block; keep it inside the section limit with room for the fences
    return "```" + escape_mrkdwn(_cut(body, MAX_SECTION_TEXT - 60)) + "```"


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


def _fit_total(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop the longest detail blocks until the message is under :data:`MAX_TOTAL_TEXT`, saying so."""
    cut = False
    while len(json.dumps(blocks, ensure_ascii=False)) > MAX_TOTAL_TEXT and len(blocks) > 3:
        victim = max(range(2, len(blocks) - 1), key=lambda i: len(json.dumps(blocks[i], ensure_ascii=False)))
        del blocks[victim]
        cut = True
    if cut:
        blocks.insert(2, SectionBlock(text=MarkdownTextObject(text="_(shortened to fit Slack; ask for details)_")
                                      ).to_dict())
    return blocks


def render_message(answer: Answer, *, show_assumptions: bool = False, show_all: bool = False,
                   action_context: str | None = None) -> dict[str, Any]:
    """A ``chat.postMessage``-ready payload: ``{"text": fallback, "blocks": [...]}``."""
    c = compose(answer)
    text = "\n".join([c.title, c.headline, *c.details[:2]])
    return {"text": _cut(escape_mrkdwn(text), 3000),
            "blocks": render_blocks(answer, show_assumptions=show_assumptions, show_all=show_all,
                                    action_context=action_context)}


def render_assumptions(answer: Answer) -> dict[str, Any]:
    """The "Show assumptions" reply: every assumption, warning and source of ``answer``, without repeating it.

    Returns:
        A ``chat.postMessage``-ready payload within Slack's limits.
    """
    c = compose(answer)
    blocks: list[Block] = [HeaderBlock(text=_cut(f"{c.labels['assumptions']}: {c.title}", MAX_HEADER_TEXT))]
    chunk: list[str] = []
    for line in [f"• {escape_mrkdwn(a)}" for a in c.assumptions + c.warnings] or ["• -"]:
        if sum(len(x) + 1 for x in chunk) + len(line) > MAX_SECTION_TEXT - 10:
            blocks.append(_section("\n".join(chunk)))
            chunk = []
        chunk.append(_cut(line, MAX_SECTION_TEXT - 10))
    blocks.append(_section("\n".join(chunk)))
    context = [x for x in (c.price_dates, f"{c.labels['sources']}: " + "; ".join(c.sources[:10]) if c.sources
                           else None) if x]
    if context:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=_cut(escape_mrkdwn(x), 1900)) for x in context]))
    out = _fit_total([b.to_dict() for b in blocks[:MAX_BLOCKS]])
    return {"text": _cut(escape_mrkdwn(f"{c.labels['assumptions']}: " + "; ".join(c.assumptions)), 3000),
            "blocks": out}
