"""The App Home tab: forms to open, example questions to ask, the user's last questions, the price data's age.

Built with ``slack_sdk.models.blocks`` from plain data the caller gathers (the knowledge base, the price
status per provider from :func:`bot.slack.answering.price_status`, the user's recent questions from the
state store), so it can be tested without Slack.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.kb.loader import KnowledgeBase
from bot.slack.answering import (
    CATALOG_STALE_AFTER_DAYS,
    EXAMPLE_QUESTIONS,
    STALE_AFTER_DAYS,
    ProviderPriceStatus,
)
from bot.storage.store import RecentQuestion

__all__ = ["ASK_EXAMPLE_ACTION", "HOME_EXAMPLES", "OPEN_QUOTE_FORM_ACTION", "OPEN_SIZING_FORM_ACTION", "home_view"]

#: Button action ids on the Home tab.
OPEN_SIZING_FORM_ACTION = "open_form"
OPEN_QUOTE_FORM_ACTION = "open_quote_form"
ASK_EXAMPLE_ACTION = "ask_example"
#: Examples shown as buttons.
HOME_EXAMPLES = 6
#: Characters of a recent question shown (the rest is cut with "…").
_QUESTION_CHARS = 200


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _age(status: ProviderPriceStatus, today: date) -> str:
    """One provider's line: newest price and its age, stale and undated offers, the live catalog's refresh."""
    parts = [f"{status.offers} offer{'s' if status.offers != 1 else ''}"]
    if status.newest_as_of is not None:
        days = status.age_days if status.age_days is not None else (today - status.newest_as_of).days
        parts.append(f"newest {status.newest_as_of.isoformat()} ({days} day{'s' if days != 1 else ''} old)")
    if status.stale:
        parts.append(f"{status.stale} stale")
    if status.undated:
        parts.append(f"{status.undated} undated")
    good = status.last_good_refresh
    if good is not None:
        parts.append(f"live catalog refreshed {good.refreshed_at.date().isoformat()}")
    elif status.catalog_offers == 0:
        parts.append("curated")
    return f"• *{_escape(status.provider_name)}*: " + ", ".join(parts)


def home_view(kb: KnowledgeBase, *, statuses: Sequence[ProviderPriceStatus] = (),
              questions: Sequence[RecentQuestion] = (), today: date | None = None) -> dict[str, Any]:
    """A ``views.publish`` home view.

    Args:
        kb: the knowledge base (counts).
        statuses: the price data per provider (:func:`bot.slack.answering.price_status`), from the refreshed
            catalog when there is one.
        questions: the user's last questions, newest first (none for a user who never asked: the section
            is left out).
        today: the date ages are counted to (default: today).

    Returns:
        ``{"type": "home", "blocks": [...]}``: buttons that open the sizing and quote forms, the example
        questions each with an "Ask" button (answered in a DM), the user's last questions, the commands,
        and per provider the number of offers, the newest price's date and age, stale and undated offers
        and the last live-catalog refresh. At most 100 blocks (Slack's limit for a Home tab).
    """
    today = today or date.today()
    blocks: list[Any] = [
        HeaderBlock(text="GPU Advisor"),
        SectionBlock(text=MarkdownTextObject(text=(
            "I tell you which GPUs to use for a model, how many, how fast they run and what they cost, with the "
            "formulas, assumptions and sources behind every figure. Mention me in a channel, DM me (follow-ups "
            "such as _what about int4?_ keep the context; say _reset_ to start over), use a slash command, or "
            "fill in a form."))),
        ActionsBlock(block_id="home_forms", elements=[
            ButtonElement(text="Size it", action_id=OPEN_SIZING_FORM_ACTION, style="primary",
                          value=json.dumps({"c": "", "v": ""})),
            ButtonElement(text="Price GPUs", action_id=OPEN_QUOTE_FORM_ACTION, value=json.dumps({"c": "", "v": ""})),
        ]),
        DividerBlock(),
        SectionBlock(text=MarkdownTextObject(text="*Try asking* (I answer in a DM)")),
    ]
    for example in EXAMPLE_QUESTIONS[:HOME_EXAMPLES]:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=f"`{_escape(example)}`"),
                                   accessory=ButtonElement(text="Ask", action_id=ASK_EXAMPLE_ACTION,
                                                           value=example[:2000])))
    if questions:
        lines = "\n".join(f"• {_escape(_cut(q.text, _QUESTION_CHARS))}  _({q.asked_at.date().isoformat()})_"
                          for q in questions)
        blocks += [DividerBlock(), SectionBlock(text=MarkdownTextObject(text=f"*Your last questions*\n{lines}"))]
    blocks += [
        DividerBlock(),
        SectionBlock(text=MarkdownTextObject(text=(
            "*Commands*\n"
            "• `/gpu <question>`: anything (empty for help)\n"
            "• `/gpu-size`: the sizing form, or `/gpu-size llama 3 70b, 200 users, 8k context, int4`\n"
            "• `/gpu-quote`: the quote form, or `/gpu-quote 8x H100 for 3 days [on aws]`"))),
    ]
    if statuses:
        lines = [_age(s, today) for s in statuses if s.offers]
        text = (f"*Price data by provider* (answers flag curated prices older than {STALE_AFTER_DAYS} days, "
                f"live-catalog prices older than {CATALOG_STALE_AFTER_DAYS} days and undated prices)\n"
                + "\n".join(lines))
        blocks += [DividerBlock(), SectionBlock(text=MarkdownTextObject(text=_cut(text, 3000)))]
    oldest, newest, undated = kb.price_dates()
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=(
        f"Knowledge: {len(kb.gpus)} GPUs, {len(kb.models)} models, {len(kb.offers)} curated price offers. "
        f"Curated price data as of {oldest or 'n/a'} (oldest dated) to {newest or 'n/a'} (newest); "
        f"{undated} are undated and flagged in answers."))]))
    return {"type": "home", "blocks": [b.to_dict() for b in blocks[:100]]}
