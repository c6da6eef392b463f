"""Names of models whose weights are not published (``closed:`` in knowledge/models.yaml).

"can I run gpt-4 on 2 h100s", "claude 3.5 sonnet on 8x H100": the name is read whole (family alias, then any
version numbers and tail words: "claude 3.5 sonnet", "gpt-4o mini"), its span is masked so no other scanner
reads "3.5" or "4o" as a quantity or a model size, and the request gets the open-weight models the knowledge
base offers in its place, each marked with the closed name it stands in for
(:attr:`bot.parsing.query.ModelMention.alternative_to`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import ClosedModel
from bot.parsing.lexicon import Lexicon, Phrases

__all__ = ["FoundClosed", "scan_closed"]


@dataclass(frozen=True)
class FoundClosed:
    """A closed model named in a message.

    Attributes:
        model: the knowledge entry (vendor, alternatives, sources).
        as_written: the name as the user wrote it ("Claude 3.5 Sonnet").
        small: the name carries one of the entry's ``small_words`` (its small tier: "gpt-4o mini").
        start, end: its span in the lower-cased message.
    """

    model: ClosedModel
    as_written: str
    small: bool
    start: int
    end: int

    @property
    def alternatives(self) -> list[str]:
        """The open-weight model ids offered in its place (the small tier's when it names that)."""
        return (self.model.small_alternatives or self.model.alternatives) if self.small else self.model.alternatives


def _patterns(kb: KnowledgeBase) -> list[tuple[ClosedModel, re.Pattern[str], Phrases]]:
    cached = kb._cache.get("closed_patterns")
    if cached is None:
        cached = []
        for closed in kb.closed_models:
            names = Phrases({a: True for a in closed.aliases})
            tails = Phrases({t: True for t in closed.tail_words})
            # a name, then up to three version numbers or tail words ("claude 3.5 sonnet", "gemini 2.5 pro exp")
            tail = rf"(?:[\s\-]*(?:\d+(?:\.\d+)?(?![\d.]*\s*(?:x|gpus?|cards?)\b)[a-z]?|{tails.pattern}))"
            cached.append((closed, re.compile(rf"{names.pattern}{tail}{{0,3}}(?![a-z0-9])"),
                           Phrases({w: True for w in closed.small_words})))
        kb._cache["closed_patterns"] = cached
    return cached


def scan_closed(low: str, written, kb: KnowledgeBase, lex: Lexicon) -> list[FoundClosed]:
    """Every closed model named in ``low``, in order, one per entry; a name followed by one of the lexicon's
    ``not_model_suffixes`` ("chatgpt-like", "gpt-4 class") is a point of comparison and is not read.

    Args:
        low: the prepared, lower-cased message.
        written: ``(start, end) -> str`` giving the user's text for a span.
        kb: the knowledge base (its ``closed_models``).
        lex: the lexicon.

    Returns:
        The :class:`FoundClosed` mentions.
    """
    found: list[FoundClosed] = []
    for closed, pattern, small in _patterns(kb):
        m = next((m for m in pattern.finditer(low) if not re.match(
            rf"[\s\-]*(?:{lex.not_model_suffixes.pattern})", low[m.end():m.end() + 16])), None)
        if m is not None:
            found.append(FoundClosed(closed, written(m.start(), m.end()).strip(), bool(small.search(m.group(0))),
                                     m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)
