"""Property tests: parse_question never raises, and noise is never read as a question."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.parsing import parse_question
from bot.parsing.query import Query

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
EMOJI = st.sampled_from(list("🤔💸🖥️❓😀🔥🚀💯🙏👍✨🎉❤️🤖📈⚡"))
#: Noise without letters, digits, "$" or CJK: nothing a keyword or name can come from.
NOISE = st.text(alphabet=st.one_of(EMOJI, st.sampled_from(list(" \t\n.,;:!-_=+*/\\|~^#%()[]{}<>'\"…·•—"))),
                max_size=200)
BINARY_LOOKING = st.binary(max_size=300).map(lambda b: bytes(c for c in b if not chr(c).isalnum()
                                                             and c != ord("$")).decode("latin-1"))


@SETTINGS
@given(text=st.text(max_size=400))
def test_arbitrary_text_never_raises(kb, text):
    query = parse_question(text, kb)
    assert isinstance(query, Query)
    assert not any("could not be parsed" in n for n in query.notes)


@SETTINGS
@given(text=st.one_of(NOISE, BINARY_LOOKING))
def test_noise_is_help_or_unknown(kb, text):
    query = parse_question(text, kb)
    assert query.gpus == [] and query.model is None
    assert query.intent in {"help", "unknown"}


@SETTINGS
@given(words=st.lists(st.sampled_from(["h100", "8x", "llama", "70b", "fp8", "a 100", "$5k", "vs", "3d", "lora",
                                        "qwen2.5:72b", "4张", "卡", "ctx", "8k", "-", "(", "tok/s", "p5.48xlarge"]),
                      max_size=40))
def test_word_salad_of_real_terms_never_raises(kb, words):
    query = parse_question(" ".join(words), kb)
    assert all(g.id in kb.gpus for g in query.gpus)


def test_40000_character_message_is_handled_quickly(kb):
    message = ("8x h100 llama-2-70b fp8 $5k a 100 users ctx 8k " * 900)[:40_000]
    started = time.perf_counter()
    query = parse_question(message, kb)
    assert time.perf_counter() - started < 2.0
    assert query.gpus[0].id == "h100-sxm-80gb"


def test_40000_character_noise_and_binary(kb):
    assert parse_question("🤔" * 40_000, kb).intent == "unknown"
    assert parse_question(bytes(range(256)).decode("latin-1") * 150, kb).intent in {"help", "unknown", "diagnose"}


def test_non_string_input_is_tolerated(kb):
    assert parse_question(None, kb).intent == "help"  # type: ignore[arg-type]
