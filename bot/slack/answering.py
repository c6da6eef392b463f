"""The one seam between the Slack layer and the advice core.

Everything the Slack layer asks of the core goes through :func:`answer_message`: it takes the
message text and the conversation's previous question (as stored JSON) and returns a
:class:`Reply`, the payload to post plus what to remember. Nothing else in ``bot/slack`` imports
``bot.advice``, ``bot.parsing`` or ``bot.render``, so a change of the core's API is made here only.

Requests and replies are plain, picklable data: :mod:`bot.slack.workers` runs this function in
separate processes, so a CPU-heavy answer never holds up an acknowledgement. Tests and benches
inject another function with the same signature (a slow one, a failing one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from bot.advice.conversation import EXAMPLE_QUESTIONS, help_turn, respond_to
from bot.kb.loader import KnowledgeBase
from bot.parsing.query import Query
from bot.render.blockkit import render_assumptions, render_message
from bot.render.i18n import renderer_for

__all__ = ["EXAMPLE_QUESTIONS", "AnswerFunction", "AnswerRequest", "Reply", "answer_message"]

Mode = Literal["message", "help", "reset", "follow_up", "assumptions"]


@dataclass(frozen=True)
class AnswerRequest:
    """What to answer.

    Attributes:
        mode: ``message`` (a mention, DM or slash command), ``help`` (an empty slash command),
            ``reset`` (the user asked to start over), ``follow_up`` (a button whose value is a
            follow-up message to ``previous_query_json``) or ``assumptions`` (the "Show
            assumptions" button: ``previous_query_json`` answered again, every assumption listed).
        text: the message as Slack sent it (markup and all); ``""`` when there is none.
        previous_query_json: the conversation's last question as stored (``Query`` JSON), or ``None``.
        force_intent: the intent a slash command implies (``/gpu-quote`` -> ``quote``).
        usage: the usage line shown by ``help`` (``/gpu-quote 8x H100 for 3 days``).
        action_context: the id buttons in the reply carry, under which the Slack layer stores
            the reply's question.
    """

    mode: Mode = "message"
    text: str = ""
    previous_query_json: str | None = None
    force_intent: str | None = None
    usage: str | None = None
    action_context: str | None = None


@dataclass(frozen=True)
class Reply:
    """What to post, and what to remember.

    Attributes:
        message: ``{"text": ..., "blocks": [...]}``, ready for ``chat.postMessage`` or a
            ``response_url``; empty when ``status`` is ``expired``.
        status: ``answered``, or ``expired`` when a button needs a previous question that is
            gone or can no longer be read (stored before an upgrade changed its shape).
        query_json: the (possibly merged) question to remember for follow-ups; ``None`` if none.
        intent: the answer's intent (``compare``, ``size_inference``, ``help`` ...).
        verdict: the answer's one-sentence verdict (stored with the context, never logged).
        visible: a real answer, posted for the channel to see (help and requests for missing
            details are shown only to the asker).
        remember: the question should become the conversation's context.
    """

    message: dict[str, Any]
    status: Literal["answered", "expired"] = "answered"
    query_json: str | None = None
    intent: str | None = None
    verdict: str = ""
    visible: bool = False
    remember: bool = False


#: The signature of :func:`answer_message` (and of anything injected in its place).
AnswerFunction = Callable[[AnswerRequest, KnowledgeBase], Reply]

_NOT_AN_ANSWER = ("help", "unknown")


def _previous(query_json: str | None) -> Query | None:
    if not query_json:
        return None
    try:
        return Query.model_validate_json(query_json)
    except ValidationError:  # stored by an older version whose Query had another shape
        return None


def _unicode_text(text: str) -> str:
    """``text`` with lone surrogates (``"\\ud800"`` escapes in a JSON body) replaced by U+FFFD.

    Slack sends UTF-8, which cannot hold a lone surrogate; a JSON escape can. Such a string cannot
    be stored as JSON or posted back, so it is made valid before the core sees it.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def answer_message(request: AnswerRequest, kb: KnowledgeBase) -> Reply:
    """Answer one Slack message or button with the advice core (the one seam).

    Args:
        request: the message and its conversation (see :class:`AnswerRequest`).
        kb: the knowledge base to answer from.

    Returns:
        The :class:`Reply`. A previous question that cannot be read is treated as no previous
        question for messages, and as ``expired`` for buttons (which need one). Lone surrogates
        in the text are replaced by U+FFFD first.

    Raises:
        Whatever the core raises: the core promises an answer (help for input it does not
        understand) for any text, so an exception here is a bug; the caller apologises with a
        reference id.
    """
    previous = _previous(request.previous_query_json)
    if request.mode in ("follow_up", "assumptions") and previous is None:
        return Reply(message={}, status="expired")
    if request.mode in ("help", "reset"):
        turn = help_turn(kb, reset=request.mode == "reset", usage=request.usage)
    elif request.mode == "assumptions":
        turn = respond_to("", previous, kb=kb, replay=True)
        return Reply(message=render_assumptions(turn.answer), query_json=turn.query.model_dump_json(),
                     intent=turn.answer.intent, verdict=_verdict(turn.answer), visible=True)
    else:
        turn = respond_to(_unicode_text(request.text), previous, kb=kb, force_intent=request.force_intent)
    answer = turn.answer
    real = answer.intent not in _NOT_AN_ANSWER
    return Reply(message=render_message(answer, action_context=request.action_context),
                 query_json=turn.query.model_dump_json(), intent=answer.intent, verdict=_verdict(answer),
                 visible=real and not answer.examples, remember=real and not turn.reset)


def _verdict(answer) -> str:
    """The answer's first line (its headline) in the user's language, stored with the context."""
    return renderer_for(answer.query.language).say(answer.headline)
