"""The App Home tab: what the bot does, example questions, the commands and the price data's age."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import ContextBlock, DividerBlock, HeaderBlock, MarkdownTextObject, SectionBlock

from bot.kb.loader import KnowledgeBase
from bot.slack.answering import EXAMPLE_QUESTIONS

__all__ = ["home_view"]


def home_view(kb: KnowledgeBase) -> dict[str, Any]:
    """A ``views.publish`` home view for ``kb``.

    Returns:
        ``{"type": "home", "blocks": [...]}`` with five example questions, the three slash
        commands, and the oldest and newest price ``as_of`` dates (plus how many are undated).
    """
    oldest, newest, undated = kb.price_dates()
    examples = "\n".join(f"• `{q}`" for q in EXAMPLE_QUESTIONS[:5])
    blocks = [
        HeaderBlock(text="GPU Advisor"),
        SectionBlock(text=MarkdownTextObject(text=(
            "I tell you which GPUs to use for a model, how many, how fast they run and what they cost, "
            "with the formulas, assumptions and sources behind every figure. Mention me in a channel, "
            "DM me (follow-ups such as _what about int4?_ keep the context; say _reset_ to start over), "
            "or use a slash command."))),
        SectionBlock(text=MarkdownTextObject(text="*Try asking*\n" + examples)),
        SectionBlock(text=MarkdownTextObject(text=(
            "*Commands*\n"
            "• `/gpu <question>`: anything (empty for help)\n"
            "• `/gpu-quote 8x H100 for 3 days [on aws]`: a price quote across providers\n"
            "• `/gpu-size llama 3 70b, 200 users, 8k context, int4`: instance sizing"))),
        DividerBlock(),
        ContextBlock(elements=[MarkdownTextObject(text=(
            f"Knowledge: {len(kb.gpus)} GPUs, {len(kb.models)} models, {len(kb.offers)} price offers. "
            f"Price data as of {oldest or 'n/a'} (oldest dated) to {newest or 'n/a'} (newest); "
            f"{undated} catalog prices are undated and flagged in answers."))]),
    ]
    return {"type": "home", "blocks": [b.to_dict() for b in blocks]}
