"""One turn of a conversation: parse a message, merge it into the previous request, advise.

The Slack DMs and threads, slash commands and ``gpu-advisor chat`` all go through :func:`respond_to`, so
they behave alike.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import date

from bot.advice import help as help_module
from bot.advice.advise import advise
from bot.advice.answer import Answer
from bot.advice.context import Context
from bot.advice.followup import is_follow_up, merge_follow_up, recommended_gpu
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.notes import Note, note
from bot.parsing.parser import parse_question
from bot.parsing.query import Query

__all__ = ["EXAMPLE_QUESTIONS", "Turn", "help_turn", "respond_to"]

log = logging.getLogger(__name__)

EXAMPLE_QUESTIONS = [*help_module.EXAMPLES, help_module.EXAMPLES_ZH[0]]


@dataclass(frozen=True)
class Turn:
    """The result of one message.

    Attributes:
        answer: what to show.
        query: the (possibly merged) request to remember for the next follow-up, with the configuration
            the answer recommended.
        reset: the user asked to start over.
    """

    answer: Answer
    query: Query
    reset: bool = False


def respond_to(text: str, previous: Query | None = None, *, kb: KnowledgeBase | None = None,
               force_intent: str | None = None, replay: bool = False) -> Turn:
    """Answer ``text``, treating it as a follow-up of ``previous`` when it reads like one.

    Args:
        text: the message (Slack markup is cleaned by the parser).
        previous: the conversation's last request, or ``None``.
        kb: the knowledge base (default: the process-wide one).
        force_intent: the intent a slash command implies (``/gpu-quote`` -> ``quote``).
        replay: answer ``previous`` again unchanged (the "Show assumptions" button).

    Returns:
        The :class:`Turn`. Never raises: noise gets a help answer, a problem in the message gets an answer
        naming it; only a failure of ours (a bug, a broken knowledge base) gets an apology, whose reference
        id is in the log line that holds the traceback (never the message text). The conversation keeps
        ``previous`` then.
    """
    kb = kb or get_knowledge()
    query = previous if replay and previous is not None else parse_question(text, kb)
    failed = next((n for n in query.notes if n.code == "parse_failed"), None)
    if failed is not None:
        return Turn(_apology(query, kb, failed), previous or query)
    try:
        return _respond(query, previous, kb, force_intent=force_intent, replay=replay)
    except Exception:  # our fault, never the user's: apologise with a reference the log holds
        ref = uuid.uuid4().hex[:8]
        log.exception("respond_to failed (ref %s, message of %d characters)", ref, len(text or ""),
                      extra={"ref": ref})
        return Turn(_apology(query, kb, note("internal_error", ref=ref)), previous or query)


def _apology(query: Query, kb: KnowledgeBase, headline: Note) -> Answer:
    """The answer to a message we failed on: the apology with its reference, and example questions."""
    failed = Query(text="", intent="unknown", language=query.language)
    ctx = Context(failed, kb, date.today())
    examples = help_module.EXAMPLES_ZH[:2] if ctx.zh else help_module.EXAMPLES[:3]
    return ctx.answer(title=note("title_internal_error"), headline=headline, examples=examples, intent="unknown")


def _respond(query: Query, previous: Query | None, kb: KnowledgeBase, *, force_intent: str | None,
             replay: bool) -> Turn:
    if replay and previous is not None:
        return Turn(advise(previous, kb), previous)
    follow = is_follow_up(query, previous)
    if follow:
        query = merge_follow_up(previous, query)
    if force_intent and query.intent not in ("help",) and (query.gpus or query.models):
        query = query.model_copy(update={"intent": force_intent})
    answer = advise(query, kb)
    if follow and previous.precisions and query.precisions == previous.precisions and query.gpus != previous.gpus \
            and answer.recommendation is None and answer.options:
        # a precision carried over made the new GPU infeasible: drop it, and say so
        retry = query.model_copy(update={"precisions": [], "notes": [*query.notes, note(
            "dropped_carried_precision", precisions=previous.precisions)]})
        retried = advise(retry, kb)
        if retried.recommendation is not None:
            query, answer = retry, retried
    remembered = query.model_copy(update={"previous_recommendation": recommended_gpu(answer)})
    return Turn(answer, remembered)


def help_turn(kb: KnowledgeBase | None = None, *, reset: bool = False, usage: str | None = None,
              language: str = "en") -> Turn:
    """A help answer (what the bot does, example questions), e.g. for an empty ``/gpu``."""
    kb = kb or get_knowledge()
    query = Query(text="", intent="help", language=language if language in ("en", "zh") else "en")
    return Turn(help_module.answer(Context(query, kb, date.today()), reset=reset, usage=usage), query, reset=reset)
