"""Numbers as people write them: digits with separators and scales, number words, Chinese numerals.

* ``"2,000"``, ``"1.5"``, ``"2e12"``, ``"8k"``, ``"1.5 million"``, ``"5万"`` (scales from the lexicon);
* Chinese numerals before a counter or unit word of the lexicon: ``"三天"`` -> ``"3天"``, ``"两张"`` ->
  ``"2张"``, ``"一百个用户"`` -> ``"100个用户"``, ``"三十倍"`` -> ``"30倍"``, ``"半天"`` -> ``"0.5天"``.
  Only before a counter, so words that merely contain a numeral character (统一, 一下) stay words; or right
  after a quantity key of the lexicon (``numbers.numeral_keys``) at the end of a phrase: ``"上下文三万二"`` ->
  ``"上下文 32000"``. A last digit after 百/千/万 counts the next unit down (spoken shorthand: 三万二 = 32,000).
"""

from __future__ import annotations

import re
from functools import lru_cache

from bot.parsing.lexicon import Lexicon, phrase_key

__all__ = ["MAX_DIGITS", "chinese_numerals_to_digits", "number_regex", "number_value", "token_scale"]

#: Longest run of digits read as a number; longer runs (pasted ids, hashes, noise) are not quantities.
#: No GPU question needs more than 15 significant digits, and capping keeps parsing linear.
MAX_DIGITS = 15

#: Decimals keep up to 15 fractional digits (a figure printed by a tool, "eval rate: 6.149277563422422 tokens/s", is read
#: whole, not from its last digits).
#: Thousands are grouped with commas ("2,000"), or, as in much of Europe, with a (thin or no-break) space
#: ("10 000 users", "1 000 000 tokens"); a plain space only after a group of 2-3 digits (or one digit before two
#: groups) and before groups not followed by a letter or digit, so "8 100GB cards" and "4 128k" stay two numbers.
_NUM_CORE = (r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d{1,6})?|\d{1,3}(?:[\u00a0\u202f]\d{3})+(?![\w.,])"
             r"|(?:\d{2,3}(?: \d{3})+|\d(?: \d{3}){2,})(?![\w.,])|\d{1,15}(?:\.\d{1,15})?|\.\d{1,15})"
             r"(?:e\+?(?P<exp>\d{1,2})(?![\d]))?")
#: Characters that may not precede a number: it would be part of a word, an identifier or a version; a comma
#: only after a digit ("1,000" is read whole; "以内,20 个用户" after a full-width comma is a number).
_NUM_GUARD = r"(?<![a-z0-9_./#\\:$¥￥€])(?<!\d,)"
#: A minus sign (ASCII or U+2212) directly before the digits and not after a letter, digit or dot is the
#: number's sign ("-5 users", "$-1/hr", "(−3 GPUs)"), so a negative figure is read as negative and refused
#: by the scanners, never read as its absolute value. "3-5 days", "llama-2-70b" keep their hyphen.
_SIGN = r"(?P<sign>(?<![A-Za-z0-9_.])[-−](?=\.?\d))?"
#: Digits right after such a sign are only ever read with it.
_NOT_AFTER_SIGN = r"(?(sign)|(?<!(?<![A-Za-z0-9_.])[-−]))"


#: The characters a number can start with (an approximation sign, a minus sign, a digit, a decimal point), tested
#: first: where the next character is none of them, the regex engine gives up before trying the guards and groups.
_NUM_START = r"(?=[~\-−\d.])"


@lru_cache(maxsize=8)
def _number_pattern(scale_pattern: str, guarded: bool) -> str:
    guard = _NUM_GUARD if guarded else ""
    return rf"{_NUM_START}{guard}(?:~\s*)?{_SIGN}{_NOT_AFTER_SIGN}{_NUM_CORE}(?![\d])(?:\s?(?P<scale>{scale_pattern}))?"


def number_regex(lex: Lexicon, *, guarded: bool = True) -> str:
    """The regex source of a number with an optional sign and scale, with groups ``sign``, ``num``, ``exp``,
    ``scale``.

    Usable inside larger patterns (each compiled pattern may contain it once). ``guarded`` refuses a
    number glued to a word, an identifier or a currency sign before it; a caller that matches the
    currency sign itself passes ``False``.
    """
    return _number_pattern(lex.scale_pattern, guarded)


def number_value(m: re.Match[str], lex: Lexicon, *, binary_k: bool = False) -> float:
    """The value of a number matched by :func:`number_regex`.

    Args:
        m: the match (groups ``num``, ``exp`` and ``scale``).
        lex: the lexicon (scale values).
        binary_k: read ``k`` after a power of two as 1024 (``"8k"`` context = 8,192 tokens, the way
            context lengths are set), any other number as thousands (``"100k"`` = 100,000).

    Returns:
        The number (float), negative when the match has a sign.
    """
    value = float(re.sub(r"[,\s]", "", m.group("num")))
    if m.group("sign"):
        value = -value
    if m.group("exp"):
        value *= 10 ** int(m.group("exp"))
    scale = m.group("scale")
    if scale:
        key = phrase_key(scale)
        factor = lex.scales.get(key, 1.0)
        if binary_k and key == "k" and token_scale(value):
            factor = 1024.0
        value *= factor
    return value


def token_scale(value: float) -> bool:
    """Whether ``value`` is a power of two up to 1024 (so ``value`` k means ``value`` x 1024 tokens)."""
    return value in {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}


def _chinese_value(run: str, lex: Lexicon) -> float | None:
    """Value of a Chinese numeral run ("三十" 30, "两千" 2000, "一百二十" 120, "半" 0.5), or None."""
    if run in lex.zh_half:
        return 0.5
    total, section, current = 0, 0, None
    for ch in run:
        if ch in lex.zh_digits:
            current = lex.zh_digits[ch]
        elif ch in lex.zh_multipliers:
            mult = lex.zh_multipliers[ch]
            if mult >= 10_000:  # 万, 亿 scale everything before them
                total = (total + section + (current or 0)) * mult if (section or current or total) else mult
                section, current = 0, None
            else:
                section += (1 if current is None else current) * mult
                current = None
        else:
            return None
    # a last digit right after 百/千/万/亿 counts the next unit down: "三万二" 32,000, "一千五" 1,500, "一百二" 120
    # (spoken shorthand; "一百零二" is 102, "十二" 12)
    if current and len(run) >= 2 and run[-2] in lex.zh_multipliers and lex.zh_multipliers[run[-2]] >= 100:
        current *= lex.zh_multipliers[run[-2]] // 10
    return total + section + (current or 0)


def chinese_numerals_to_digits(text: str, lex: Lexicon) -> str:
    """Rewrite Chinese numerals that stand before a counter or unit as digits ("三天" -> "3天"), and those
    right after a quantity key that end a phrase ("上下文三万二" -> "上下文 32000", "并发两百左右").

    A numeral after 第 (an ordinal) is left alone, and so is a lone 一/零 after a key ("并发一下"). Digits and
    multipliers come from the lexicon (``numbers.digits``, ``numbers.multipliers``, ``numbers.half``,
    ``numbers.counters``, ``numbers.numeral_keys``, ``numbers.numeral_key_ends``).

    Args:
        text: the NFKC-normalised message.
        lex: the lexicon.

    Returns:
        The text with those numerals written in digits (followed by a space).
    """
    chars = "".join(sorted({*lex.zh_digits, *lex.zh_multipliers, *lex.zh_half}))
    if not chars:
        return text
    pattern = _zh_pattern(chars, lex.counter_pattern)

    def repl(m: re.Match[str]) -> str:
        start = m.start()
        before = m.string[:start].rstrip(" ")
        number = re.search(r"(?<![a-z\d.,])[\d.,]*\d$", before, re.IGNORECASE)  # digits not ending a Latin name
        if number and m.group(1)[0] in lex.zh_multipliers:
            # "10万", "10 万": a scale of the number before it, read by the number scanner; not the digits that end
            # a name ("H20 十张": ten cards)
            return m.group(0)
        value = _chinese_value(m.group(1), lex)
        if value is None:
            return m.group(0)
        digits = (f"{value:g}" if value != int(value) else str(int(value))) + " "
        return (" " + digits) if start and m.string[start - 1].isascii() and m.string[start - 1].isalnum() else digits

    text = pattern.sub(repl, text)

    def key_repl(m: re.Match[str]) -> str:
        run = m.group("run")
        if len(run) == 1 and lex.zh_digits.get(run, 0) <= 1:
            return m.group(0)  # a lone 一/零 after a key is a word more often than a number ("并发一下")
        value = _chinese_value(run, lex)
        if value is None:
            return m.group(0)
        digits = f"{value:g}" if value != int(value) else str(int(value))
        return f"{m.group('key')} {digits} "

    return _zh_key_pattern(chars, lex.numeral_key_pattern, lex.numeral_key_ends).sub(key_repl, text)


@lru_cache(maxsize=4)
def _zh_key_pattern(chars: str, keys: str, ends: str) -> re.Pattern[str]:
    # a numeral right after a key word ("上下文三万二", "并发 五十"), ending the phrase: before no further Chinese
    # word but the few that may follow a number ("的", "左右")
    return re.compile(rf"(?P<key>{keys})[\s:=：是为]*(?P<run>[{re.escape(chars)}]+)(?=$|[^\u4e00-\u9fff]|{ends})")


@lru_cache(maxsize=4)
def _zh_pattern(chars: str, counters: str) -> re.Pattern[str]:
    # not after an ordinal or a decimal point; after digits only a numeral that starts with a digit ("H100一周"),
    # not a scale ("10万人民币" is 10 x 10^4, read by the number scanner; see repl); only from the start of a run
    # of numerals, so a long run is tried once (linear), never from each of its characters
    return re.compile(rf"(?<![第.{re.escape(chars)}])([{re.escape(chars)}]+)\s*(?={counters})")
