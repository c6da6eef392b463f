"""Knowledge-base load time, as a ratio to importing yaml and pydantic, measured in one run.

Usage: ``python bench/kb_load.py [--runs N]``. Each sample is a fresh interpreter, so nothing is
cached between samples: ``python -c "import yaml, pydantic"`` (the baseline) against the same
plus ``load_knowledge()`` (our path). It also prints the in-process median of repeated loads,
which is the figure the 150 ms budget applies to.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASELINE = "import yaml, pydantic"
OURS = "import yaml, pydantic; from bot.kb.loader import load_knowledge; load_knowledge()"


def _median_wall(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    from bot.kb.loader import load_knowledge

    load_knowledge()  # warm the file cache
    in_process = []
    for _ in range(args.runs):
        start = time.perf_counter()
        load_knowledge()
        in_process.append(time.perf_counter() - start)
    base = _median_wall(BASELINE, args.runs)
    ours = _median_wall(OURS, args.runs)
    print(f"in-process load_knowledge() median: {statistics.median(in_process) * 1000:.1f} ms (budget 150 ms)")
    print(f"fresh interpreter: baseline '{BASELINE}' {base * 1000:.1f} ms; with load_knowledge() {ours * 1000:.1f} ms")
    print(f"ratio ours/baseline: {ours / base:.2f}x; load adds {(ours - base) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
