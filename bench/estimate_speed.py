"""Median in-process time of one estimate, and its ratio to a trivial baseline from the same run.

Usage: python bench/estimate_speed.py [--runs N]

The baseline is constructing a small pydantic object and a dict lookup (the floor for any
"estimate" that returns a validated result), so the ratio is comparable across machines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel  # noqa: E402

from bot.estimation import estimate_finetune, estimate_inference, estimate_training  # noqa: E402
from bot.kb.loader import load_knowledge  # noqa: E402


class _Baseline(BaseModel):
    model: str
    gpu: str
    value: float


def _median(fn, runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args(argv)
    kb = load_knowledge()
    cases = {
        "inference llama-2-70b fp16 on h100 (smallest count)":
            lambda: estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", precision="fp16"),
        "inference llama-2-70b fp8 8xh100 batch=max":
            lambda: estimate_inference(kb, "llama-2-70b", "h100-sxm-80gb", count=8, precision="fp8", batch_size="max"),
        "training llama-2-7b 2T tokens 2048xa100":
            lambda: estimate_training(kb, "llama-2-7b", "a100-sxm-80gb", 2048, 2e12),
        "finetune llama-2-7b qlora a100-40gb":
            lambda: estimate_finetune(kb, "llama-2-7b", "a100-sxm-40gb", method="qlora", tokens=1e8),
    }
    base = _median(lambda: _Baseline(model=kb.models["llama-2-7b"].id, gpu=kb.gpus["h100-sxm-80gb"].id, value=1.0),
                   args.runs)
    print(f"baseline (dict lookups + small pydantic object): {base * 1e6:.2f} us")
    for name, fn in cases.items():
        t = _median(fn, args.runs)
        print(f"{name}: median {t * 1e6:.1f} us ({t * 1e3:.3f} ms), {t / base:.0f}x baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
