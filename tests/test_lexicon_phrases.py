"""Phrase tables (bot.parsing.lexicon.Phrases): the regex written for speed (each phrase's word-start test after its
first letter, phrases of one first character grouped) finds exactly what one alternative per phrase, with the
word-start test first, finds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bot.parsing.lexicon import _SEP, Phrases, _word_regex, get_lexicon
from bot.parsing.text import prepare_text

DATA = Path(__file__).resolve().parent / "data"


def _plain_pattern(table: Phrases) -> str:
    """``table`` as one alternative per phrase in its order, each starting with its word-start lookbehind."""
    out = []
    for phrase in table.phrases:
        words = [w for w in _SEP.split(phrase.strip().lower()) if w]
        body = r"[\s_\-]*".join(_word_regex(w) for w in words)
        if table.left_bound and re.match(r"[a-z0-9]", phrase[:1].lower()):
            body = r"(?<![a-z0-9])" + body
        if re.match(r"[a-z0-9]", phrase[-1:].lower()):
            body += r"(?![a-z0-9]|_[a-z0-9])"
        out.append(body)
    return "(?:" + "|".join(out) + ")" if out else "(?!)"


_TABLE = {"h100": 1, "h100 sxm": 2, "h200": 3, "hbm": 4, "显存": 5, "显卡": 6}


@pytest.mark.parametrize(("text", "spans"), [
    ("h100 sxm", [(0, 8)]),        # of phrases sharing a first letter the longer is tried first, as in the table
    ("8x h100", [(3, 7)]),
    ("gh100", []),                 # no phrase starts inside a word
    ("(h200)", [(1, 5)]),
    ("h100_q8", []),               # nor ends inside an identifier
    ("h100_sxm", [(0, 8)]),        # "_" separates the words of a phrase
    ("用 h100 的显卡", [(2, 6), (8, 10)]),
])
def test_a_table_matches_whole_words_longest_first(text, spans):
    table = Phrases(_TABLE)
    assert [m.span() for m in table.finditer(text)] == spans
    assert [m.span() for m in re.finditer(_plain_pattern(table), text)] == spans


def test_every_lexicon_table_matches_as_one_alternative_per_phrase_would():
    # every phrase table of the packaged lexicon, over every question of the test sets (prepared as the parser reads
    # them), at every start position a search may be given
    lex = get_lexicon()
    texts = [prepare_text(item["question"], lex).low for path in sorted(DATA.glob("questions-*.yaml"))
             for item in yaml.safe_load(path.read_text(encoding="utf-8"))]
    tables = [v for v in vars(lex).values() if isinstance(v, Phrases)]
    tables += [t for v in vars(lex).values() if isinstance(v, dict) for t in v.values() if isinstance(t, Phrases)]
    assert len(texts) > 300 and len(tables) > 100
    for table in tables:
        plain = re.compile(_plain_pattern(table))
        for text in texts:
            assert [m.span() for m in table.finditer(text)] == [m.span() for m in plain.finditer(text)], (
                table.phrases[:3], text)
            assert [m.span() for m in table.finditer(text[5:])] == [m.span() for m in plain.finditer(text[5:])]
