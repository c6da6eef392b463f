"""Median time to parse one message, over the dev question set, against a trivial baseline.

Usage: python bench/parse_speed.py [FILE] [--rounds N]

The baseline is ``str.lower()`` of the same messages, timed in the same run, so the ratio
is comparable across machines. The knowledge base and the parser's tables are built before
timing (they are built once per process in the bot too).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.kb.loader import load_knowledge  # noqa: E402
from bot.parsing import parse_question  # noqa: E402

DEFAULT_FILE = ROOT / "tests" / "data" / "questions-dev.yaml"


def per_message_seconds(func, messages: list[str], rounds: int) -> list[float]:
    """For each message, the fastest of ``rounds`` timed calls of ``func(message)``, seconds."""
    out = []
    for message in messages:
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            func(message)
            best = min(best, time.perf_counter() - started)
        out.append(best)
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 20
    if "--rounds" in argv:
        args = [a for a in args if a != str(rounds)]
    path = Path(args[0]) if args else DEFAULT_FILE
    messages = [e.get("question") or "" for e in yaml.safe_load(path.read_text(encoding="utf-8"))]
    kb = load_knowledge(ROOT / "knowledge")
    for message in messages:  # warm-up: builds the tables, fills regex caches
        parse_question(message, kb)
    parse = per_message_seconds(lambda m: parse_question(m, kb), messages, rounds)
    baseline = per_message_seconds(str.lower, messages, rounds)
    median_parse, median_base = statistics.median(parse), statistics.median(baseline)
    print(f"parse_speed on {path.name}: {len(messages)} messages, best of {rounds} per message")
    print(f"  parse_question median {median_parse * 1e6:8.1f} us   max {max(parse) * 1e6:8.1f} us")
    print(f"  str.lower      median {median_base * 1e6:8.3f} us")
    print(f"  ratio (median parse / median baseline): {median_parse / median_base:,.0f}x")
    long_message = "8x h100 llama 70b fp8 " * 1800  # ~40,000 characters, Slack's maximum
    started = time.perf_counter()
    parse_question(long_message, kb)
    print(f"  one {len(long_message):,}-character message: {(time.perf_counter() - started) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
