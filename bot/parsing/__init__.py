"""Question parsing: turn a user's message into a typed :class:`Query` (pure Python, no Slack)."""

from bot.parsing.parser import parse_question
from bot.parsing.query import Diagnosis, GpuMention, Intent, ModelMention, Query, UnknownTerm
from bot.parsing.slack_text import clean_slack_text

__all__ = [
    "Diagnosis",
    "GpuMention",
    "Intent",
    "ModelMention",
    "Query",
    "UnknownTerm",
    "clean_slack_text",
    "parse_question",
]
