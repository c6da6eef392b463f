"""Normalise a message before scanning: Unicode forms, spacing around CJK, glued counts."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from functools import lru_cache

__all__ = ["PreparedText", "SpanSet", "detect_language", "has_han", "prepare_text"]

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
# "llama7/13/70b", "qwen2.5 7/14/32b": the unit written after the last of slashed sizes is each one's unit
_SLASHED_SIZES = re.compile(r"(?<![\d.])(\d{1,4}(?:\.\d)?)((?:\s*/\s*\d{1,4}(?:\.\d)?)+)\s*([bB])(?![\w])")
_GLUED_FAMILY = re.compile(r"(?<![\w.])[A-Za-z]{3,}$")
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
    text = _SLASHED_SIZES.sub(_each_size, text)
    if lex is not None and lex.size_of_family:
        # "the 120b model of gpt-oss": the size said before its family is written after it ("gpt-oss 120b")
        text = _size_of_family(lex.size_of_family.pattern).sub(lambda m: f"{m.group(2)} {m.group(1)}", text)
    text = _SCRIPT_BOUNDARY.sub(" ", text)
    text = _GLUED_COUNT.sub(lambda m: f"{m.group(1)}{m.group(2)} ", text)
    return PreparedText(text)


def _each_size(m: re.Match[str]) -> str:
    """"7/13/70b" -> "7b/13b/70b"; glued to a family word ("llama7/13/70b") a space first. A number glued to
    a short name ("h100/200b") is left alone: it is part of that name."""
    before = m.string[:m.start()]
    glued = before[-1:].isalpha()
    if glued and not _GLUED_FAMILY.search(before):
        return m.group(0)
    sizes = [m.group(1), *(n.strip() for n in m.group(2).split("/") if n.strip())]
    return (" " if glued else "") + "/".join(f"{n}{m.group(3)}" for n in sizes)


@lru_cache(maxsize=4)
def _size_of_family(words: str) -> re.Pattern[str]:
    """A size, a word such as "model of" (``size_of_family`` in the lexicon), then a family with an optional
    version ("120b model of gpt-oss", "70b version of llama 3.1")."""
    return re.compile(rf"(?<![\w.])(\d{{1,4}}(?:\.\d)?\s?[bB])\s+(?:{words})\s+"
                      r"([A-Za-z][\w.\-]*(?:\s+\d{1,2}(?:\.\d)?(?![\w.]))?)", re.IGNORECASE)


def has_han(text: str) -> bool:
    """Whether ``text`` holds a Chinese (Han) character."""
    return bool(_HAN.search(text))


def detect_language(text: str) -> str:
    """``"zh"`` when a Chinese character is present without kana/hangul (a question of names and numbers with one
    Chinese verb, "RTX 4070 Ti SUPER 跑 7b", is written in Chinese), ``"other"`` for Japanese, Korean or mostly
    non-Latin scripts, else ``"en"``."""
    if _KANA_HANGUL.search(text):
        return "other"
    han = len(_HAN.findall(text))
    if han >= 1:
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
