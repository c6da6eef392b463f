"""One turn of a conversation: parse a message, merge it into the previous question, advise.

The Slack DMs and threads, slash commands and ``gpu-advisor chat`` all go through
:func:`respond_to`, so they behave alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.advice.advisor import EXAMPLES, EXAMPLES_ZH, advise, help_answer
from bot.advice.answer import Answer
from bot.advice.followup import is_follow_up, merge_follow_up
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.parsing.parser import parse_question
from bot.parsing.query import Query

__all__ = ["EXAMPLE_QUESTIONS", "Turn", "help_turn", "respond_to"]

EXAMPLE_QUESTIONS = [*EXAMPLES, EXAMPLES_ZH[0]]


@dataclass(frozen=True)
class Turn:
    """The result of one message.

    Attributes:
        answer: what to show.
        query: the (possibly merged) question to remember for the next follow-up.
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
        previous: the conversation's last question, or ``None``.
        kb: the knowledge base (default: the process-wide one).
        force_intent: the intent a slash command implies (``/gpu-quote`` -> ``quote``).
        replay: answer ``previous`` again unchanged (the "Show assumptions" button).

    Returns:
        The :class:`Turn`. Never raises for odd input: noise gets a help answer.
    """
    kb = kb or get_knowledge()
    if replay and previous is not None:
        return Turn(advise(previous, kb), previous)
    query = parse_question(text, kb)
    if is_follow_up(query, previous):
        query = merge_follow_up(previous, query)
    if force_intent and query.intent not in ("help",) and (query.gpus or query.model):
        query = query.model_copy(update={"intent": force_intent})
    return Turn(advise(query, kb), query)


def help_turn(kb: KnowledgeBase | None = None, *, reset: bool = False, usage: str | None = None) -> Turn:
    """A help answer (what the bot does, example questions), e.g. for an empty ``/gpu``."""
    kb = kb or get_knowledge()
    query = Query(text="", intent="help")
    return Turn(help_answer(query, kb, reset=reset, usage=usage), query, reset=reset)
