"""Normalise a message before scanning: Unicode forms, spacing around CJK, glued counts."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

__all__ = ["PreparedText", "SpanSet", "detect_language", "prepare_text"]

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# Chinese, Japanese and Korean write "4张4090", "16GBで", "4장으로" without spaces; a space at
# each script boundary lets the Latin-script scanners see "4090" and "16GB" as words.
_SCRIPT_BOUNDARY = re.compile(rf"(?<=[{_CJK_CHARS}])(?=[A-Za-z0-9$~(])|(?<=[A-Za-z0-9%)])(?=[{_CJK_CHARS}])")
# "4xA10G", "2xH100": a count glued to a name. Only before a letter, so "8x7b" (Mixtral) and
# "p4d.24xlarge" (an instance: the digits follow a dot) stay whole.
_GLUED_COUNT = re.compile(r"(?<![A-Za-z0-9.])(\d{1,3})\s*([xX×*])\s*(?=[A-Za-z])")
# MoE sizes written with a star or a cross ("8*22b", "22b*8", "8×7B") are written as "8x22b".
_MOE_FIRST = re.compile(r"(?<![\w.])(\d{1,3})\s*[*×]\s*(\d{1,3}(?:\.\d)?)\s*([bB])(?![\w])")
_MOE_LAST = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d)?)([bB])\s?[*×]\s?(\d{1,3})(?![\w.])")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")
_OTHER_LETTER = re.compile(r"[^\W\d_A-Za-z\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


class PreparedText:
    """A message in the forms the scanners need.

    Attributes:
        text: the cleaned message after Unicode NFKC and spacing fixes (original case).
        low: ``text`` lower-cased; all scanning happens on this string.
        aligned: ``low`` and ``text`` have the same length, so a span of ``low`` can be
            shown in the user's own capitalisation.
    """

    __slots__ = ("text", "low", "aligned")

    def __init__(self, text: str):
        self.text = text
        self.low = text.lower()
        self.aligned = len(self.low) == len(self.text)

    def written(self, start: int, end: int) -> str:
        """The user's text for the span ``[start, end)`` of :attr:`low`."""
        return (self.text if self.aligned else self.low)[start:end].strip()


_CJK_PUNCT = re.compile(r"[，、；：。！？]")


def prepare_text(text: str, lex=None) -> PreparedText:
    """NFKC-normalise (full-width "（４０９０）" -> "(4090)"), read Chinese numerals before counters
    ("三天" -> "3 天"), space script boundaries and glued counts, and write MoE sizes one way ("22b*8" ->
    "8x22b").

    Args:
        text: a message already passed through :func:`bot.parsing.slack_text.clean_slack_text`.
        lex: the lexicon (Chinese numerals and counters); ``None`` skips the numerals.

    Returns:
        The :class:`PreparedText`.
    """
    # Chinese punctuation separates phrases: keep a space after it, so "fp8，32k" never reads as the number 8,32
    text = _CJK_PUNCT.sub(lambda m: m.group(0) + " ", text)
    text = unicodedata.normalize("NFKC", text)
    if lex is not None:
        from bot.parsing.numbers import chinese_numerals_to_digits

        text = chinese_numerals_to_digits(text, lex)
    text = _MOE_FIRST.sub(lambda m: f"{m.group(1)}x{m.group(2)}{m.group(3)}", text)
    text = _MOE_LAST.sub(lambda m: f"{m.group(3)}x{m.group(1)}{m.group(2)}", text)
    text = _SCRIPT_BOUNDARY.sub(" ", text)
    text = _GLUED_COUNT.sub(lambda m: f"{m.group(1)}{m.group(2)} ", text)
    return PreparedText(text)


def detect_language(text: str) -> str:
    """``"zh"`` when Chinese characters are present without kana/hangul, ``"other"`` for
    Japanese, Korean or mostly non-Latin scripts, else ``"en"``."""
    if _KANA_HANGUL.search(text):
        return "other"
    han = len(_HAN.findall(text))
    if han >= 2:
        return "zh"
    other = len(_OTHER_LETTER.findall(text))
    if other and other > len(_LATIN.findall(text)):
        return "other"
    return "en"


class SpanSet:
    """Character spans claimed by one scanner, for another to skip; O(log n) membership.

    A 40,000-character message can hold thousands of spans, so membership is a binary
    search over merged, sorted spans rather than a scan of the list.
    """

    def __init__(self, spans: list[tuple[int, int]] | None = None):
        self._spans: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self._dirty = False
        for span in spans or []:
            self.add(span)

    def add(self, span: tuple[int, int]) -> None:
        """Claim ``[start, end)``."""
        if span[1] > span[0]:
            self._spans.append(span)
            self._dirty = True

    def spans(self) -> list[tuple[int, int]]:
        """The claimed spans, merged and sorted."""
        if self._dirty:
            merged: list[tuple[int, int]] = []
            for start, end in sorted(self._spans):
                if merged and start <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                else:
                    merged.append((start, end))
            self._spans, self._starts, self._dirty = merged, [s for s, _ in merged], False
        return self._spans

    def __contains__(self, pos: int) -> bool:
        spans = self.spans()
        i = bisect_right(self._starts, pos) - 1
        return i >= 0 and pos < spans[i][1]
