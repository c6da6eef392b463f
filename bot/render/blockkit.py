"""Render an Answer as Slack Block Kit, built with ``slack_sdk.models.blocks`` (data only, no network).

Slack's limits (https://api.slack.com/reference/block-kit/blocks) are enforced here by
truncation, so every message validates: at most 50 blocks, section text 3,000 characters,
header 150, 10 fields, 10 context elements, button text 75, and under 12,000 characters of
text in total (chat.postMessage truncates ``text`` beyond 40,000; we stay well under).
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

from bot.advice.answer import Answer, Table

__all__ = ["MAX_BLOCKS", "MAX_TOTAL_TEXT", "escape_mrkdwn", "render_assumptions", "render_blocks", "render_message"]

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_TEXT = 75
MAX_CONTEXT_ELEMENTS = 10
MAX_TOTAL_TEXT = 12000


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack treats as control characters in message text.

    Slack's "Formatting text for app surfaces": replace ``&`` with ``&amp;``, ``<`` with
    ``&lt;`` and ``>`` with ``&gt;``; then ``<!channel>`` and ``<@U123>`` are shown, not acted on.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table_text(table: Table, limit: int = MAX_SECTION_TEXT) -> str:
    widths = [len(c) for c in table.columns]
    for row in table.rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(table.columns)).rstrip()]
    for row in table.rows:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    body = "\n".join(lines)
    # The table sits in a code block; keep it inside the section limit with room for the fences.
    return "```" + escape_mrkdwn(_cut(body, limit - 10)) + "```"


def render_blocks(answer: Answer, *, show_assumptions: bool = False,
                  action_context: str | None = None) -> list[dict[str, Any]]:
    """Block Kit blocks for ``answer``, as JSON-ready dicts.

    Args:
        answer: the advisor's answer.
        show_assumptions: list every assumption (the "Show assumptions" button) instead of
            the first few.
        action_context: an id the Slack layer stored the answer's query under; buttons carry
            it (``{"c": id, "v": follow-up text}``) so a click can continue the conversation.

    Returns:
        A list of block dicts, at most :data:`MAX_BLOCKS`, each within Slack's limits.
    """
    blocks: list[Block] = [HeaderBlock(text=_cut(answer.title, MAX_HEADER_TEXT))]
    blocks.append(SectionBlock(text=MarkdownTextObject(text=_cut(f"*{escape_mrkdwn(answer.verdict)}*",
                                                                 MAX_SECTION_TEXT))))
    if answer.details:
        blocks.append(SectionBlock(text=MarkdownTextObject(
            text=_cut(escape_mrkdwn("\n".join(answer.details)), MAX_SECTION_TEXT))))
    if answer.table and answer.table.rows:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=_table_text(answer.table))))
    if answer.warnings:
        warn = "\n".join(f":warning: {escape_mrkdwn(w)}" for w in answer.warnings[:8])
        blocks.append(SectionBlock(text=MarkdownTextObject(text=_cut(warn, MAX_SECTION_TEXT))))
    if answer.examples:
        ex = "\n".join(f"• `{escape_mrkdwn(e)}`" for e in answer.examples[:5])
        blocks.append(SectionBlock(text=MarkdownTextObject(text=_cut("Try for example:\n" + ex, MAX_SECTION_TEXT))))

    context: list[str] = []
    assumptions = answer.assumptions if show_assumptions else answer.assumptions[:3]
    if assumptions:
        more = len(answer.assumptions) - len(assumptions)
        text = "Assumptions: " + "; ".join(assumptions) + (f" (+{more} more)" if more > 0 else "")
        context.append(text)
    if answer.price_dates:
        context.append(answer.price_dates)
    if answer.sources:
        context.append("Sources: " + "; ".join(answer.sources[: 8 if show_assumptions else 3]))
    if context:
        blocks.append(DividerBlock())
        elements = [MarkdownTextObject(text=_cut(escape_mrkdwn(c), 1900)) for c in context[:MAX_CONTEXT_ELEMENTS]]
        blocks.append(ContextBlock(elements=elements))
    if answer.actions:
        buttons = [
            ButtonElement(text=_cut(a.label, MAX_BUTTON_TEXT), action_id=a.action_id,
                          value=json.dumps({"c": action_context or "", "v": a.value[:1000]}))
            for a in answer.actions[:5]
        ]
        blocks.append(ActionsBlock(elements=buttons))
    out = [b.to_dict() for b in blocks[:MAX_BLOCKS]]
    return _fit_total(out)


def _fit_total(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop trailing detail blocks until the whole message is under :data:`MAX_TOTAL_TEXT`."""
    while len(json.dumps(blocks)) > MAX_TOTAL_TEXT and len(blocks) > 2:
        # remove the longest non-header, non-verdict block
        victim = max(range(2, len(blocks)), key=lambda i: len(json.dumps(blocks[i])))
        del blocks[victim]
    return blocks


def render_message(answer: Answer, *, show_assumptions: bool = False,
                   action_context: str | None = None) -> dict[str, Any]:
    """A ``chat.postMessage``-ready payload: ``{"text": fallback, "blocks": [...]}``."""
    return {"text": _cut(escape_mrkdwn(answer.text), 3000),
            "blocks": render_blocks(answer, show_assumptions=show_assumptions, action_context=action_context)}


def render_assumptions(answer: Answer) -> dict[str, Any]:
    """The "Show assumptions" reply: every assumption and source of ``answer``, without repeating it.

    Returns:
        A ``chat.postMessage``-ready payload within Slack's limits.
    """
    blocks: list[Block] = [HeaderBlock(text=_cut(f"Assumptions: {answer.title}", MAX_HEADER_TEXT))]
    chunk: list[str] = []
    for line in [f"• {escape_mrkdwn(a)}" for a in answer.assumptions] or ["• (none)"]:
        if sum(len(c) + 1 for c in chunk) + len(line) > MAX_SECTION_TEXT - 10:
            blocks.append(SectionBlock(text=MarkdownTextObject(text="\n".join(chunk))))
            chunk = []
        chunk.append(_cut(line, MAX_SECTION_TEXT - 10))
    blocks.append(SectionBlock(text=MarkdownTextObject(text="\n".join(chunk))))
    context = [c for c in (answer.price_dates, "Sources: " + "; ".join(answer.sources[:10]) if answer.sources else None)
               if c]
    if context:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=_cut(escape_mrkdwn(c), 1900)) for c in context]))
    out = _fit_total([b.to_dict() for b in blocks[:MAX_BLOCKS]])
    text = "Assumptions: " + "; ".join(answer.assumptions)
    return {"text": _cut(escape_mrkdwn(text), 3000), "blocks": out}
