"""``gpu-advisor``: the command line over the library.

The CLI only parses arguments, calls the library and prints; library errors
(:class:`bot.errors.AdvisorError`) become one clean message on stderr and an exit code:
1 for an invalid knowledge base, 2 for bad input (an unknown name, a malformed file).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path

import yaml

from bot.errors import AdvisorError, KnowledgeError, UnknownEntityError
from bot.kb.index import get_index
from bot.kb.loader import KnowledgeBase, default_knowledge_dir, get_knowledge, load_knowledge

__all__ = ["main"]

STALE_DAYS_DEFAULT = 90


def _today() -> date:
    return date.today()


# --------------------------------------------------------------------------- kb commands

def cmd_kb_validate(args: argparse.Namespace) -> int:
    """``kb validate [DIR]``: exit 0 and a summary line, or 1 and one line per error."""
    directory = Path(args.dir) if args.dir else default_knowledge_dir()
    try:
        kb = load_knowledge(directory)
    except KnowledgeError as exc:
        for issue in exc.issues:
            print(issue, file=sys.stderr)
        print(f"{len(exc.issues)} error(s) in {directory}", file=sys.stderr)
        return 1
    print(f"ok: {directory}: {_summary(kb)}")
    return 0


def _summary(kb: KnowledgeBase) -> str:
    return (f"{len(kb.gpus)} GPUs, {len(kb.models)} models, {len(kb.offers)} price offers from "
            f"{len(kb.providers)} providers, {len(kb.benchmarks)} benchmarks")


def cmd_kb_stats(args: argparse.Namespace) -> int:
    """``kb stats``: counts by vendor, segment, model kind, provider and pricing model, and price dates."""
    kb = get_knowledge()
    oldest, newest, undated = kb.price_dates()
    vendors = Counter(g.vendor for g in kb.gpus.values())
    segments = Counter(g.segment for g in kb.gpus.values())
    kinds = Counter(m.kind for m in kb.models.values())
    moe = sum(1 for m in kb.models.values() if m.is_moe)
    pricing = Counter(o.pricing_model for o in kb.offers)
    lines = [
        f"knowledge: {kb.directory}",
        f"GPUs: {len(kb.gpus)} ({_fmt_counter(vendors)}; {_fmt_counter(segments)})",
        f"models: {len(kb.models)} ({kinds.get('llm', 0)} LLMs of which {moe} MoE, {kinds.get('non_llm', 0)} non-LLM)",
        f"price offers: {len(kb.offers)} from {len(kb.providers)} providers ({_fmt_counter(pricing)})",
        "  by provider: " + ", ".join(f"{p.provider_name} {len(p.offers)}" for p in kb.providers.values()),
        f"  price dates: oldest {oldest or '-'}, newest {newest or '-'}, undated {undated}",
        f"benchmarks: {len(kb.benchmarks)} ({_fmt_counter(Counter(b.kind for b in kb.benchmarks.values()))})",
        f"instance types without a price row: {len(kb.instances)}",
    ]
    print("\n".join(lines))
    return 0


def _fmt_counter(counter: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common())


def cmd_kb_show(args: argparse.Namespace) -> int:
    """``kb show NAME``: the GPU, model or instance NAME names (fuzzy), with its sources."""
    kb = get_knowledge()
    index = get_index(kb)
    name = " ".join(args.name)
    for kind in ("gpu", "model", "instance", "provider"):
        match = index.lookup(kind, name)
        if match is None:
            continue
        if kind == "gpu":
            entry = kb.gpus[match.id].model_dump(mode="json", exclude_defaults=True)
        elif kind == "model":
            entry = kb.models[match.id].model_dump(mode="json", exclude_defaults=True)
        elif kind == "provider":
            pf = kb.providers[match.id]
            entry = {"provider": pf.provider, "provider_name": pf.provider_name, "offers": len(pf.offers),
                     "notes": pf.notes}
        else:
            offers = [o.model_dump(mode="json", exclude_defaults=True) for o in kb.offers
                      if o.instance_type == match.alias]
            entry = {"instance_type": match.alias, "provider": match.provider, "gpu": match.id,
                     "gpu_count": match.gpu_count, "offers": offers}
        if match.score < 100:
            print(f"# {name!r} is not an exact name; closest {kind}: {match.alias!r} (score {match.score:.0f})")
        if match.variant_assumed:
            print(f"# {name!r} does not say which variant; showing the default, {index.display_name(kind, match.id)}")
        print(yaml.safe_dump(entry, sort_keys=False, allow_unicode=True, width=110), end="")
        return 0
    suggestions = []
    for kind in ("gpu", "model", "instance"):
        suggestions += index.suggest(kind, name, limit=2)
    raise UnknownEntityError("GPU, model or instance", name, suggestions[:3])


def cmd_kb_stale(args: argparse.Namespace) -> int:
    """``kb stale [--days N]``: price offers older than N days, or undated. Exit 0 either way."""
    kb = get_knowledge()
    cutoff = _today() - timedelta(days=args.days)
    stale = [o for o in kb.offers if o.as_of is None or o.as_of < cutoff]
    stale.sort(key=lambda o: (o.as_of or date.min, o.provider, o.instance_type))
    for o in stale:
        when = o.as_of.isoformat() if o.as_of else "undated"
        price = f"${o.price_per_hour_usd:,.2f}/h" if o.price_per_hour_usd is not None else "no price"
        print(f"{when:10}  {o.provider:12}  {o.instance_type:45}  {o.gpu_count}x {o.gpu:22}  {price}")
    print(f"{len(stale)} of {len(kb.offers)} offers are older than {args.days} days (before {cutoff}) or undated")
    return 0


def cmd_kb_import_skypilot(args: argparse.Namespace) -> int:
    """``kb import-skypilot vms.csv --provider P``: print price entries from a SkyPilot catalog CSV."""
    from bot.kb.importers.skypilot import import_skypilot_csv

    kb = get_knowledge()
    result = import_skypilot_csv(Path(args.csv), args.provider, kb)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    offers = list(result.offers) + list(getattr(result, "spot_offers", []) or [])
    print(yaml.safe_dump({"offers": offers}, sort_keys=False, allow_unicode=True, width=110), end="")
    return 0


def cmd_kb_import_hf(args: argparse.Namespace) -> int:
    """``kb import-hf-config config.json --id NAME``: print a model entry from a Hugging Face config."""
    from bot.kb.importers.hf_config import import_hf_config

    result = import_hf_config(Path(args.config), args.id, declared_params_b=args.declared_params_b)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(yaml.safe_dump({"models": [result.entry]}, sort_keys=False, allow_unicode=True, width=110), end="")
    return 0


# --------------------------------------------------------------------------- wiring

def build_parser() -> argparse.ArgumentParser:
    """The argparse tree of every ``gpu-advisor`` command."""
    parser = argparse.ArgumentParser(prog="gpu-advisor", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    kb = sub.add_parser("kb", help="inspect and validate the knowledge base")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True)
    p = kb_sub.add_parser("validate", help="validate a knowledge directory")
    p.add_argument("dir", nargs="?", help="knowledge directory (default: $GPU_ADVISOR_KNOWLEDGE or bundled)")
    p.set_defaults(func=cmd_kb_validate)
    kb_sub.add_parser("stats", help="counts and price dates").set_defaults(func=cmd_kb_stats)
    p = kb_sub.add_parser("show", help="show a GPU, model or instance (fuzzy name)")
    p.add_argument("name", nargs="+")
    p.set_defaults(func=cmd_kb_show)
    p = kb_sub.add_parser("stale", help="price offers older than N days, or undated")
    p.add_argument("--days", type=int, default=STALE_DAYS_DEFAULT)
    p.set_defaults(func=cmd_kb_stale)
    p = kb_sub.add_parser("import-skypilot", help="print price entries from a SkyPilot catalog vms.csv")
    p.add_argument("csv")
    p.add_argument("--provider", required=True, help="provider id (aws, gcp, azure, lambda, ...)")
    p.set_defaults(func=cmd_kb_import_skypilot)
    p = kb_sub.add_parser("import-hf-config", help="print a model entry from a Hugging Face config.json")
    p.add_argument("config")
    p.add_argument("--id", required=True, help="kebab-case model id for the entry")
    p.add_argument("--declared-params-b", type=float, default=None,
                   help="published parameter count, billions (warns when the computed one differs > 2%%)")
    p.set_defaults(func=cmd_kb_import_hf)

    for register in _extra_commands():
        register(sub)
    return parser


def _extra_commands() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Modules that add their own subcommands (imported here so ``kb`` works without them)."""
    from bot.slack.commands import register as slack_commands

    return [slack_commands]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gpu-advisor`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KnowledgeError as exc:
        print(f"error: the knowledge base does not validate:\n{exc}", file=sys.stderr)
        return 1
    except UnknownEntityError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except AdvisorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `gpu-advisor kb stale | head`
        return 0


def _json_dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


if __name__ == "__main__":
    raise SystemExit(main())
