"""Parse + advise + render Block Kit, in process, over the development questions.

Usage: ``python bench/answer_speed.py [--repeat N]``. Prints the median and p90 time per question
for the whole path and, measured in the same run, for parsing alone (the baseline), with the ratio.
Targets: median under 5 ms; p95 under 50 ms (issue 13).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import yaml

from bot.advice.conversation import respond_to
from bot.kb.loader import get_knowledge
from bot.parsing.parser import parse_question
from bot.render.blockkit import render_message

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "questions-dev.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    kb = get_knowledge()
    questions = [q["question"] for q in yaml.safe_load(DATA.read_text(encoding="utf-8"))]
    for q in questions:  # warm caches (alias tables, efficiency table)
        render_message(respond_to(q, kb=kb).answer)
    full, parse_only, per_question = [], [], {}
    for _ in range(args.repeat):
        for q in questions:
            t0 = time.perf_counter()
            parse_question(q, kb)
            t1 = time.perf_counter()
            render_message(respond_to(q, kb=kb).answer)
            t2 = time.perf_counter()
            parse_only.append(t1 - t0)
            full.append(t2 - t1)
            per_question.setdefault(q, []).append(t2 - t1)
    med, p90 = statistics.median(full), statistics.quantiles(full, n=10)[-1]
    p95 = statistics.quantiles(full, n=20)[-1]
    base = statistics.median(parse_only)
    slowest = sorted(per_question.items(), key=lambda kv: -statistics.median(kv[1]))[:3]
    print(f"questions: {len(questions)} x {args.repeat}")
    print(f"parse + advise + Block Kit: median {med * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms "
          "(targets: median < 5 ms, p95 < 50 ms)")
    print(f"parse alone (baseline): median {base * 1000:.2f} ms; ratio {med / base:.1f}x")
    for q, ts in slowest:
        print(f"  slowest: {statistics.median(ts) * 1000:.1f} ms  {q[:70]!r}")


if __name__ == "__main__":
    main()
