"""Prices at catalog scale: pricing time and load time with a 20,000-offer catalog, and CLI cold start.

Usage: ``python bench/prices.py [--offers 20000] [--repeat 5] [--runs 11] [--skip-cli]``.

All ratios are measured in one run against a baseline measured in the same run:

1. Pricing: ``best_placement`` and ``place(limit=10)`` per call, and an answer's pricing (48 configurations
   priced with best_placement: 6 GPUs x 4 GPU counts x on-demand and spot, plus a 10-row table of
   alternatives per GPU), p50 and p95, on the curated table alone (``knowledge/prices``, the baseline) and
   on the curated table merged with a synthetic catalog of ``--offers`` rows. Target (issue 16): p95 <= 1.2x.
2. Load: ``load_knowledge()`` and the first answer's pricing (baseline), against the same with the synthetic
   catalog in a SQLite state store, read lazily (``read_catalog``, sqlite3: what ``ask`` does) and read
   whole (what the server does once per catalog generation). Target: <= 2x.
3. CLI cold start (fresh interpreters, median of ``--runs``): ``gpu-advisor ask`` and ``kb stats``, with no
   state store and with the 20,000-offer store, against ``python -c "import yaml, pydantic, rapidfuzz"``.
   Target: <= 2x. Also ``ask`` with the Slack layer imported first, which is what ``ask`` paid before
   ``cli`` imported it only for ``serve``/``manifest``.

The synthetic catalog: every GPU that has a curated price, at 12 providers, in 1/2/4/8-GPU instances,
in up to 25 regions, on-demand and spot, priced within 0.5-2x of the GPU's median curated price per
GPU-hour, dated within the last 10 days (seeded, so every run builds the same table).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bot.kb.loader import load_knowledge
from bot.pricing.offers import (
    CatalogRefreshInfo,
    Offer,
    best_placement,
    offer_table,
    place,
    set_catalog,
)
from bot.pricing.refresh import ProviderRefresh, RefreshRun
from bot.storage.catalog_read import read_catalog

REPO = Path(__file__).resolve().parents[1]
TODAY = date(2026, 12, 1)
PROVIDERS = ["aws", "azure", "gcp", "lambda", "runpod", "nebius", "verda", "oci", "cloudrift", "vast", "crusoe",
             "vultr"]
QUESTION = "8x h100 for 3 days"
BASELINE_CODE = "import yaml, pydantic, rapidfuzz"


def synthetic_catalog(kb, n: int, seed: int = 16) -> list[Offer]:
    """``n`` catalog offers over the GPUs with curated prices (deterministic)."""
    rng = random.Random(seed)
    base: dict[str, list[float]] = {}
    for o in offer_table(kb).offers:
        base.setdefault(o.gpu, []).append(o.price_per_gpu_hour_usd)
    gpus = sorted(base)
    per_gpu = {g: statistics.median(v) for g, v in base.items()}
    out = []
    for i in range(n):
        gpu = gpus[i % len(gpus)]
        provider = PROVIDERS[(i // len(gpus)) % len(PROVIDERS)]
        count = (1, 2, 4, 8)[rng.randrange(4)]
        spot = rng.random() < 0.35
        price = per_gpu[gpu] * count * rng.uniform(0.5, 2.0) * (0.45 if spot else 1.0)
        out.append(Offer(provider=provider, provider_name=provider.upper(), instance_type=f"{provider}-{gpu}-{count}x-{i}",
                         gpu=gpu, gpu_count=count, price_per_hour_usd=round(price, 4),
                         pricing_model="spot" if spot else "on_demand",
                         as_of=TODAY - timedelta(days=rng.randrange(10)), source="synthetic bench catalog",
                         region=f"region-{rng.randrange(25)}", origin="catalog", marketplace=provider == "vast"))
    return out


def _pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def _workload(kb) -> list[tuple[str, int, int, str]]:
    table = offer_table(kb)
    gpus = [g for g in ("h100-sxm-80gb", "a100-sxm-80gb", "l40s-48gb", "mi300x-192gb", "rtx-4090-24gb", "l4-24gb")
            if g in table.gpus()]
    return [(g, n, min(n, 8), pm) for g in gpus for n in (1, 2, 8, 16) for pm in ("on_demand", "spot")]


def _answer(kb) -> None:
    """An answer's pricing: every candidate configuration with best_placement, and one table of
    alternatives per GPU with place(limit=10)."""
    table = offer_table(kb)
    work = _workload(kb)
    for gpu, n, group, pm in work:
        best_placement(table, gpu, n, today=TODAY, group=group, pricing_model=pm)
    for gpu in dict.fromkeys(w[0] for w in work):
        place(table, gpu, 8, today=TODAY, group=8, limit=10)


def _rows_listed(kb) -> int:
    table = offer_table(kb)
    return sum(len(place(table, gpu, 8, today=TODAY, group=8, limit=10))
               for gpu in dict.fromkeys(w[0] for w in _workload(kb)))


def time_pricing(kb, repeat: int) -> dict[str, list[float]]:
    """Seconds per best_placement, per place(limit=10), and per answer (48 + 6 calls)."""
    table = offer_table(kb)
    work = _workload(kb)
    best, listed, answers = [], [], []
    for _ in range(repeat):
        for gpu, n, group, pm in work:
            t0 = time.perf_counter()
            best_placement(table, gpu, n, today=TODAY, group=group, pricing_model=pm)
            t1 = time.perf_counter()
            place(table, gpu, n, today=TODAY, group=group, pricing_model=pm, limit=10)
            t2 = time.perf_counter()
            best.append(t1 - t0)
            listed.append(t2 - t1)
    for _ in range(repeat * 40):  # short samples: many of them, for a stable p95
        t0 = time.perf_counter()
        _answer(kb)
        answers.append(time.perf_counter() - t0)
    return {"best_placement": best, "place(limit=10)": listed, "answer (48 best + 6 tables)": answers}


def write_store(kb, offers: list[Offer], path: Path) -> str:
    from bot.storage.store import Store

    url = f"sqlite:///{path}"
    store = Store(url)
    now = datetime(2026, 12, 1, 6, tzinfo=UTC)
    by: dict[str, list[Offer]] = {}
    for o in offers:
        by.setdefault(o.provider, []).append(o)
    providers = tuple(ProviderRefresh(CatalogRefreshInfo(p, now, "refreshed", None, TODAY, len(rows)), p, tuple(rows))
                      for p, rows in by.items())
    store.catalog.write_run(RefreshRun(now, now, "cli", "bench", providers))
    store.engine.dispose()
    return url


def time_load(url: str, repeat: int) -> dict[str, list[float]]:
    """Knowledge load + offer table + the first answer's pricing (which builds the GPUs it prices), fresh
    each time: curated only (baseline), with the catalog store read lazily (what ``ask`` does), and with
    every stored offer read and indexed (what the server does once per catalog generation)."""
    out: dict[str, list[float]] = {"curated": [], "store, lazy": [], "store, everything": []}
    for _ in range(repeat):
        set_catalog(None)
        t0 = time.perf_counter()
        kb = load_knowledge(REPO / "knowledge")
        _answer(kb)
        out["curated"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        kb = load_knowledge(REPO / "knowledge")
        set_catalog(read_catalog(url))
        _answer(kb)
        out["store, lazy"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        kb = load_knowledge(REPO / "knowledge")
        set_catalog(read_catalog(url).materialized())
        len(offer_table(kb).offers)
        _answer(kb)
        out["store, everything"].append(time.perf_counter() - t0)
    set_catalog(None)
    return out


def _wall(cmd: list[str], runs: int, env: dict[str, str], cwd: str) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_cli(url: str, runs: int) -> list[tuple[str, float]]:
    exe = [sys.executable, "-c", "from bot.cli import main; raise SystemExit(main())"]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "GPUHUNT_CATALOG_DIR")}
    with tempfile.TemporaryDirectory() as empty:
        no_store = {**env, "DATABASE_URL": f"sqlite:///{Path(empty) / 'none.db'}"}
        with_store = {**env, "DATABASE_URL": url}
        cases = [
            ("python -c 'import yaml, pydantic, rapidfuzz' (baseline)", [sys.executable, "-c", BASELINE_CODE], env),
            ("gpu-advisor kb stats", [*exe, "kb", "stats"], no_store),
            (f"gpu-advisor ask {QUESTION!r}, no state store", [*exe, "ask", QUESTION], no_store),
            (f"gpu-advisor ask {QUESTION!r}, 20,000-offer store", [*exe, "ask", QUESTION], with_store),
            ("  same, Slack layer imported first (before this change)",
             [sys.executable, "-c", "import bot.slack.commands; from bot.cli import main; raise SystemExit(main())",
              "ask", QUESTION], no_store),
        ]
        return [(name, _wall(cmd, runs, e, empty)) for name, cmd, e in cases]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--skip-cli", action="store_true")
    args = parser.parse_args()

    kb = load_knowledge(REPO / "knowledge")
    set_catalog(None)
    curated = offer_table(kb)
    catalog = synthetic_catalog(kb, args.offers)
    print(f"curated table: {len(curated)} offers; synthetic catalog: {len(catalog)} offers over "
          f"{len(curated.gpus())} GPUs")
    time_pricing(kb, 1)  # warm
    base = time_pricing(kb, args.repeat)
    curated_rows = _rows_listed(kb)
    kb_big = load_knowledge(REPO / "knowledge")
    from bot.pricing.offers import CatalogSnapshot

    set_catalog(CatalogSnapshot(generation=1, offers=tuple(catalog)))
    t0 = time.perf_counter()
    _answer(kb_big)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    big = offer_table(kb_big)
    size = len(big.offers)
    build = time.perf_counter() - t0
    print(f"merged table: {size} offers; the first answer built its 6 GPUs in {first * 1000:.1f} ms, the other "
          f"GPUs took {build * 1000:.1f} ms more")
    time_pricing(kb_big, 1)
    ours = time_pricing(kb_big, args.repeat)
    print(f"\n{'pricing':28} {'curated p50':>12} {'p95':>9} {'+catalog p50':>13} {'p95':>9} {'p95 ratio':>10}")
    for key in base:
        b50, b95 = statistics.median(base[key]), _pct(base[key], 95)
        o50, o95 = statistics.median(ours[key]), _pct(ours[key], 95)
        print(f"{key:28} {b50 * 1e6:>10.1f}us {b95 * 1e6:>7.1f}us {o50 * 1e6:>11.1f}us {o95 * 1e6:>7.1f}us "
              f"{o95 / b95:>9.2f}x")
    # Size alone: a catalog a tenth as large returns as many rows per table, so this ratio isolates the index.
    kb_small = load_knowledge(REPO / "knowledge")
    set_catalog(CatalogSnapshot(generation=2, offers=tuple(synthetic_catalog(kb, args.offers // 10))))
    time_pricing(kb_small, 1)
    small = time_pricing(kb_small, args.repeat)
    set_catalog(CatalogSnapshot(generation=1, offers=tuple(catalog)))
    key = "answer (48 best + 6 tables)"
    print(f"rows in the 6 tables of alternatives: curated {curated_rows}, with the catalog {_rows_listed(kb_big)}")
    print(f"{key}: {args.offers // 10:,}-offer catalog p95 {_pct(small[key], 95) * 1e6:.1f}us, {args.offers:,}-offer "
          f"p95 {_pct(ours[key], 95) * 1e6:.1f}us: ratio {_pct(ours[key], 95) / _pct(small[key], 95):.2f}x")
    set_catalog(None)

    with tempfile.TemporaryDirectory() as tmp:
        url = write_store(kb, catalog, Path(tmp) / "state.db")
        loads = time_load(url, args.repeat)
        base_load = statistics.median(loads["curated"])
        print("\nload_knowledge + first answer's pricing, fresh each time (median):")
        for name, values in loads.items():
            print(f"  {name:20} {statistics.median(values) * 1000:7.1f} ms  {statistics.median(values) / base_load:5.2f}x")
        if not args.skip_cli:
            results = time_cli(url, args.runs)
            baseline = results[0][1]
            print(f"\nCLI cold start, median of {args.runs} fresh interpreters:")
            for name, seconds in results:
                print(f"  {name:70} {seconds * 1000:7.1f} ms  {seconds / baseline:5.2f}x")


if __name__ == "__main__":
    main()
