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
            f"{len(kb.providers)} providers, {len(kb.benchmarks)} benchmarks, {len(kb.claims)} claims")


def cmd_kb_stats(args: argparse.Namespace) -> int:
    """``kb stats``: counts by vendor, segment, model kind, provider and pricing model, price dates, claims."""
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
        f"accelerators named without sourced figures: {len(kb.unlisted)}",
        f"GPUs whose tensor figures do not say dense or sparse: {sum(not g.sparsity_stated for g in kb.gpus.values())}",
        f"claims: {len(kb.claims)} ({_fmt_counter(Counter(c.verdict for c in kb.claims.values()))}), "
        f"{sum(len(c.ratios) for c in kb.claims.values())} computed ratios",
    ]
    print("\n".join(lines))
    return 0


def _fmt_counter(counter: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in counter.most_common())


def cmd_kb_show(args: argparse.Namespace) -> int:
    """``kb show NAME``: the GPU, model or instance NAME names (fuzzy), with its sources; or why a known
    accelerator has no entry."""
    kb = get_knowledge()
    index = get_index(kb)
    name = " ".join(args.name)
    for kind in ("gpu", "model", "instance", "provider", "unlisted"):
        match = index.lookup(kind, name)
        if match is None:
            continue
        if kind == "unlisted":
            item = next(u for u in kb.unlisted if u.name == match.id)
            print(f"# {item.name}: known, but the knowledge base has no sourced figures for it")
            entry = item.model_dump(mode="json", exclude_defaults=True)
        elif kind == "gpu":
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


# --------------------------------------------------------------------------- estimate

def _resolve(kind: str, name: str) -> str:
    """An id from what the user typed (``"llama 2 70b"``, ``"a100 40g"``); exit 2 via UnknownEntityError."""
    kb = get_knowledge()
    table = kb.gpus if kind == "gpu" else kb.models
    if name in table:
        return name
    match = get_index(kb).resolve(kind, name)
    if match.variant_assumed or match.score < 100:
        print(f"# {name!r} read as {get_index(kb).display_name(kind, match.id)} ({match.id})", file=sys.stderr)
    return match.id


def _token_count(text: str) -> float:
    """``"2e12"``, ``"2T"``, ``"300B"``, ``"50M"``, ``"1,000,000"`` -> tokens (argparse type)."""
    raw = text.strip().replace(",", "").replace("_", "")
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}.get(raw[-1:].lower())
    try:
        value = float(raw[:-1]) * scale if scale else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a token count (e.g. 2e12, 2T, 300B, 50M)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _estimate_model(args: argparse.Namespace):
    """A knowledge model, or a generic one from ``--params`` (with optional shape overrides)."""
    from bot.estimation import generic_model

    if args.params is not None:
        return generic_model(args.params / 1e9 if args.params > 1e6 else args.params,
                             (args.active_params / 1e9 if args.active_params and args.active_params > 1e6
                              else args.active_params),
                             num_hidden_layers=args.layers, hidden_size=args.hidden, num_key_value_heads=args.kv_heads)
    if not args.model:
        raise UnknownEntityError("model", "(none given)", ["--model NAME or --params 7e9"])
    return _resolve("model", args.model)


def _print_result(result, as_json: bool) -> None:
    data = result.model_dump(mode="json")
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110), end="")


def cmd_estimate_inference(args: argparse.Namespace) -> int:
    """``estimate inference --model M --gpu G ...``: memory, fit, layout, TTFT, decode and throughput."""
    from bot.estimation import estimate_inference, serving_workload

    kb = get_knowledge()
    batch = "max" if str(args.batch).lower() == "max" else int(args.batch)
    tokens = dict(context_tokens=args.context, input_tokens=args.input_tokens, output_tokens=args.output_tokens,
                  prefix_cached_tokens=args.prefix_cached_tokens)
    if args.workload:
        workload = serving_workload(kb, context_tokens=args.context, input_tokens=args.input_tokens,
                                    output_tokens=args.output_tokens, worst_case=args.workload == "worst-case")
        tokens = workload.estimate_kwargs()
        print(f"# workload: {workload.assumption.text}", file=sys.stderr)
    result = estimate_inference(kb, _estimate_model(args), _resolve("gpu", args.gpu), count=args.count,
                                precision=args.precision, kv_precision=args.kv_precision, batch_size=batch,
                                engine=args.engine, tensor_parallel=args.tp, pipeline_parallel=args.pp,
                                replicas=args.replicas, objective=args.objective, expert_parallel=args.ep,
                                attention_data_parallel=args.attention_dp, **tokens)
    _print_result(result, args.json)
    return 0


def cmd_estimate_images(args: argparse.Namespace) -> int:
    """``estimate images --model M --gpu G``: images per minute, time and cost for a diffusion model."""
    from bot.estimation import estimate_images

    result = estimate_images(get_knowledge(), _resolve("model", args.model), _resolve("gpu", args.gpu),
                             count=args.count or 1, width=args.width, height=args.height, steps=args.steps,
                             batch_size=args.batch, precision=args.precision, engine=args.engine, images=args.images,
                             price_per_gpu_hour=args.price_per_gpu_hour)
    _print_result(result, args.json)
    return 0


def cmd_estimate_transcribe(args: argparse.Namespace) -> int:
    """``estimate transcribe --model M --gpu G --audio-hours H``: real-time factor, hours and cost."""
    from bot.estimation import estimate_transcription

    result = estimate_transcription(get_knowledge(), _resolve("model", args.model), _resolve("gpu", args.gpu),
                                    audio_hours=args.audio_hours, count=args.count or 1, precision=args.precision,
                                    engine=args.engine, batch_size=args.batch, beam_size=args.beam,
                                    price_per_gpu_hour=args.price_per_gpu_hour)
    _print_result(result, args.json)
    return 0


def cmd_estimate_embed(args: argparse.Namespace) -> int:
    """``estimate embed --model M --gpu G --documents N``: embedding tokens/s, time and cost."""
    from bot.estimation import estimate_embeddings

    result = estimate_embeddings(get_knowledge(), _resolve("model", args.model), _resolve("gpu", args.gpu),
                                 documents=args.documents, tokens_per_document=args.tokens_per_document,
                                 count=args.count or 1, precision=args.precision, engine=args.engine,
                                 price_per_gpu_hour=args.price_per_gpu_hour)
    _print_result(result, args.json)
    return 0


def cmd_estimate_training(args: argparse.Namespace) -> int:
    """``estimate training --model M --gpu G --count N --tokens D``: FLOPs, GPU-hours, memory, cost."""
    from bot.estimation import estimate_training

    _use_stored_catalog()
    result = estimate_training(get_knowledge(), _estimate_model(args), _resolve("gpu", args.gpu), args.count,
                               args.tokens, precision=args.precision or "bf16",
                               price_per_gpu_hour=args.price_per_gpu_hour)
    _print_result(result, args.json)
    return 0


def cmd_estimate_finetune(args: argparse.Namespace) -> int:
    """``estimate finetune --model M --gpu G --method lora``: memory per GPU, fit, GPU-hours."""
    from bot.estimation import estimate_finetune

    _use_stored_catalog()
    result = estimate_finetune(get_knowledge(), _estimate_model(args), _resolve("gpu", args.gpu),
                               count=args.count or 1, method=args.method, seq_len=args.seq_len,
                               micro_batch=args.micro_batch, tokens=args.tokens)
    _print_result(result, args.json)
    return 0


_ENGINES = ["vllm", "sglang", "tensorrt-llm", "lmdeploy", "llama.cpp", "hf", "gpt-fast", "nim", "ollama", "tgi"]


def _add_estimate(sub: argparse._SubParsersAction) -> None:
    est = sub.add_parser("estimate", help="run the sizing engine directly (JSON out with --json)")
    est_sub = est.add_subparsers(dest="estimate_command", required=True)
    for name, func in (("inference", cmd_estimate_inference), ("training", cmd_estimate_training),
                       ("finetune", cmd_estimate_finetune)):
        p = est_sub.add_parser(name)
        p.add_argument("--model", help="model name as you would type it (\"llama 2 70b\")")
        p.add_argument("--params", type=float, help="a model not in the knowledge base: parameters (7e9 or 7)")
        p.add_argument("--active-params", type=float, help="MoE: parameters active per token")
        p.add_argument("--layers", type=int)
        p.add_argument("--hidden", type=int)
        p.add_argument("--kv-heads", type=int)
        p.add_argument("--gpu", required=True, help="GPU name (\"H100\", \"a100 40g\")")
        p.add_argument("--count", type=int, required=name == "training",
                       help="GPUs (inference: default the smallest that fits)")
        p.add_argument("--precision", default=None)
        p.add_argument("--json", action="store_true")
        if name == "inference":
            p.add_argument("--kv-precision", default=None, help="KV-cache dtype (default: the engine's)")
            p.add_argument("--context", type=int, default=None, help="tokens per sequence (default 4096)")
            p.add_argument("--input-tokens", type=int, default=None)
            p.add_argument("--output-tokens", type=int, default=None)
            p.add_argument("--prefix-cached-tokens", type=int, default=None,
                           help="prompt tokens already in the KV cache (earlier turns): prefill covers the rest")
            p.add_argument("--workload", choices=["chat", "worst-case"], default=None,
                           help="size for chat turns on cached conversations, or every request a full fresh prompt")
            p.add_argument("--batch", default="1", help="concurrent sequences per replica, or 'max'")
            p.add_argument("--engine", default="vllm", choices=_ENGINES)
            p.add_argument("--tp", type=int, default=None, help="tensor-parallel degree (fixes that part of the layout)")
            p.add_argument("--pp", type=int, default=None, help="pipeline stages")
            p.add_argument("--replicas", type=int, default=None, help="data-parallel replicas")
            p.add_argument("--ep", type=int, default=None, help="MoE: expert-parallel ranks inside the TP group")
            p.add_argument("--attention-dp", action="store_true", help="MoE: attention data-parallel across the group")
            p.add_argument("--objective", choices=["latency", "throughput"], default=None,
                           help="pick the layout for latency (one group) or throughput (replicas); default by batch")
        elif name == "training":
            p.add_argument("--tokens", type=_token_count, required=True, help="training tokens: 2e12, 2T, 300B")
            p.add_argument("--price-per-gpu-hour", type=float, default=None)
        else:
            p.add_argument("--method", choices=["full", "lora", "qlora"], required=True)
            p.add_argument("--seq-len", type=int, default=None)
            p.add_argument("--micro-batch", type=int, default=1)
            p.add_argument("--tokens", type=_token_count, default=None, help="fine-tuning tokens: 50M, 1e8")
        p.set_defaults(func=func)
    for name, func, helptext in (("images", cmd_estimate_images, "diffusion: images per minute, time, cost"),
                                 ("transcribe", cmd_estimate_transcribe, "Whisper-class: real-time factor, hours"),
                                 ("embed", cmd_estimate_embed, "embedding models: tokens/s, hours, cost")):
        p = est_sub.add_parser(name, help=helptext)
        p.add_argument("--model", required=True, help="model name (\"sdxl\", \"whisper large v3\", \"bge large\")")
        p.add_argument("--gpu", required=True, help="GPU name")
        p.add_argument("--count", type=int, default=1, help="GPUs, each with its own copy (default 1)")
        p.add_argument("--precision", default=None)
        p.add_argument("--price-per-gpu-hour", type=float, default=None)
        p.add_argument("--json", action="store_true")
        if name == "images":
            p.add_argument("--width", type=int, default=None)
            p.add_argument("--height", type=int, default=None)
            p.add_argument("--steps", type=int, default=None)
            p.add_argument("--batch", type=int, default=1)
            p.add_argument("--images", type=int, default=None, help="images in the job (for hours and cost)")
            p.add_argument("--engine", default="diffusers", choices=["diffusers", "diffusers-compiled"])
        elif name == "transcribe":
            p.add_argument("--audio-hours", type=float, default=None, help="hours of audio (for hours and cost)")
            p.add_argument("--batch", type=int, default=1, help="30-second windows decoded together")
            p.add_argument("--beam", type=int, default=5)
            p.add_argument("--engine", default="faster-whisper",
                           choices=["faster-whisper", "openai-whisper", "transformers", "whisper.cpp"])
        else:
            p.add_argument("--documents", type=_token_count, default=None, help="documents to embed: 100M, 1e8")
            p.add_argument("--tokens-per-document", type=int, default=512)
            p.add_argument("--engine", default="tei", choices=["tei", "infinity", "sentence-transformers"])
        p.set_defaults(func=func)


# --------------------------------------------------------------------------- parse, ask, chat

def _lines(arg: str) -> list[str]:
    """``-`` means one message per line of standard input; anything else is one message."""
    if arg == "-":
        return [line.rstrip("\n") for line in sys.stdin if line.strip()]
    return [arg]


def cmd_parse(args: argparse.Namespace) -> int:
    """``parse "TEXT" [--json]``; ``parse - --json`` reads one message per line, writes JSON lines."""
    from bot.parsing.parser import parse_question

    kb = get_knowledge()
    for text in _lines(args.text):
        query = parse_question(text, kb)
        if args.json or args.text == "-":
            print(query.model_dump_json(exclude_defaults=False))
        else:
            print(yaml.safe_dump(query.model_dump(mode="json", exclude_defaults=True), sort_keys=False,
                                 allow_unicode=True, width=110), end="")
    return 0


def _render(answer, args: argparse.Namespace, *, one_line: bool) -> str:
    # Each renderer is imported only when used: Block Kit needs slack_sdk, which text output does not.
    if args.json:
        from bot.render.jsonout import render_json

        return render_json(answer, indent=None if one_line else 2)
    if args.blocks:
        from bot.render.blockkit import render_message

        return json.dumps(render_message(answer), ensure_ascii=False, indent=None if one_line else 2)
    from bot.render.terminal import render_text

    return render_text(answer, verbose=getattr(args, "verbose", False))


def cmd_ask(args: argparse.Namespace) -> int:
    """``ask "QUESTION" [--json | --blocks] [--chart PNG]``; ``ask -`` answers one question per input line."""
    from bot.advice.conversation import respond_to

    chart_path = getattr(args, "chart", None)
    if chart_path and args.question == "-":
        print("error: --chart draws the answer to one question, not to standard input (-)", file=sys.stderr)
        return 2
    kb = get_knowledge()
    _use_stored_catalog()
    for text in _lines(args.question):
        turn = respond_to(text, None, kb=kb)
        print(_render(turn.answer, args, one_line=args.question == "-"))
        if chart_path:
            return _write_chart(turn.answer, chart_path)
    return 0


def _write_chart(answer, path: str) -> int:
    """``ask ... --chart out.png``: the answer's chart as a PNG (:mod:`bot.render.charts`); says on stderr
    what was written, or that the answer has no chart (exit 0). An unwritable path exits 1."""
    from bot.render.charts import chart_for, render_png

    chart = chart_for(answer, answer.query.language)
    if chart is None:
        print("no chart for this answer: nothing written", file=sys.stderr)
        return 0
    png = render_png(chart)
    try:
        Path(path).write_bytes(png)
    except OSError as exc:
        print(f"error: cannot write the chart to {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{chart.kind} chart written to {path} ({len(png):,} bytes)", file=sys.stderr)
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    """``chat``: an interactive prompt with follow-ups ("what about int4?"), like a Slack DM."""
    from bot.advice.conversation import help_turn, respond_to
    from bot.parsing.lexicon import get_lexicon
    from bot.parsing.text import detect_language

    kb = get_knowledge()
    _use_stored_catalog()
    previous = None
    print("GPU Advisor chat. Ask a question; follow-ups keep the context; 'reset' starts over, 'quit' exits.\n"
          "GPU Advisor 对话：直接提问，追问会沿用上文；输入 reset 重新开始，quit 退出。")
    while True:
        try:
            text = input("> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if text.strip().lower() in {"quit", "exit", "q"}:
            return 0
        if not text.strip():
            continue
        if get_lexicon().reset_words.fullmatch(text.strip().lower()):
            # said in the conversation's language: a Chinese conversation (or 重新开始) gets the Chinese help
            language = "zh" if detect_language(text) == "zh" or (previous and previous.language == "zh") else "en"
            previous = None
            turn = help_turn(kb, reset=True, language=language)
        else:
            turn = respond_to(text, previous, kb=kb)
            if turn.answer.intent not in ("help", "unknown"):
                previous = turn.query
        print(_render(turn.answer, args, one_line=False))


# --------------------------------------------------------------------------- prices

_catalog_installed = False


def _use_stored_catalog() -> None:
    """Let pricing read the catalog ``prices refresh`` stored (``DATABASE_URL``), on first use only.

    SQLite is read with the standard library (no SQLAlchemy import), and a database that does not
    exist costs nothing. A store that cannot be read leaves the curated prices, with a note.
    """
    from bot.pricing.offers import set_catalog
    from bot.storage.catalog_read import read_catalog
    from bot.storage.urls import database_url_from_env

    global _catalog_installed
    _catalog_installed = True
    url = database_url_from_env()

    def load():
        try:
            return read_catalog(url)
        except Exception as exc:  # noqa: BLE001 - any database failure: answer with curated prices, say so
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            print(f"note: the refreshed prices in DATABASE_URL cannot be read ({reason}); using the curated "
                  f"prices only", file=sys.stderr)
            return None

    set_catalog(load)


def _open_state_store():
    """The state store named by the validated ``DATABASE_URL`` (exit 2 with the reason when unusable)."""
    from bot.settings import load_settings

    settings = load_settings()
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from bot.storage.store import Store

    try:
        return settings, Store(settings.database_url)
    except (SQLAlchemyError, ImportError) as exc:
        shown = make_url(settings.database_url).render_as_string(hide_password=True)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise AdvisorError(f"DATABASE_URL: cannot use the database at {shown}: {reason}") from exc


def _holder() -> str:
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def cmd_prices_refresh(args: argparse.Namespace) -> int:
    """``prices refresh [--provider P ...] [--catalog-dir DIR]``: exit 0, or 1 when a provider's refresh failed."""
    import logging

    from bot.pricing.refresh import refresh_prices

    # The summary printed below says what happened and why; the loggers' own lines (gpuhunt logs a
    # traceback per provider it cannot download) would repeat it on stderr.
    for name in ("gpuhunt", "gpu_advisor.prices"):
        logging.getLogger(name).addHandler(logging.NullHandler())
        logging.getLogger(name).propagate = False
    kb = get_knowledge()
    settings, store = _open_state_store()
    catalog_dir = args.catalog_dir or settings.gpuhunt_catalog_dir
    if catalog_dir and not Path(catalog_dir).is_dir():
        raise AdvisorError(f"--catalog-dir: {catalog_dir} is not a directory")
    report = refresh_prices(kb, store.catalog, providers=args.provider, catalog_dir=catalog_dir,
                            timeout=args.timeout, trigger="cli", holder=_holder())
    skipped: dict[str, list[str]] = {}
    for p in report.providers:
        info = p.info
        if info.status == "skipped":
            skipped.setdefault(info.reason or "", []).append(info.provider)
            continue
        extra = []
        if info.malformed:
            extra.append(f"{info.malformed} malformed row(s) skipped")
        if p.rejected:
            extra.append(f"{len(p.rejected)} row(s) with an implausible price dropped")
        if info.unmapped:
            extra.append("unmapped GPU names: " + ", ".join(f"{name} x{n}" for name, n in info.unmapped))
        tail = f" ({'; '.join(extra)})" if extra else ""
        if info.status == "refreshed":
            print(f"{info.provider}: refreshed {info.offers} offers as of {info.as_of}{tail}")
        else:
            print(f"{info.provider}: kept the last good table: {info.reason}{tail}")
    for reason, names in skipped.items():
        print(f"skipped {', '.join(names)}: {reason}")
    print(f"run {report.run_id}: {len(report.refreshed)} refreshed, {len(report.failed)} kept, "
          f"{sum(len(v) for v in skipped.values())} skipped")
    return 1 if report.failed else 0


def _status_rows(kb: KnowledgeBase) -> list[dict]:
    from bot.pricing.offers import provider_status

    today = _today()
    rows = []
    for st in provider_status(kb, today=today):
        last, good = st.last_refresh, st.last_good_refresh
        rows.append({
            "provider": st.provider, "provider_name": st.provider_name, "offers": st.offers,
            "curated_offers": st.curated_offers, "catalog_offers": st.catalog_offers,
            "pricing_models": st.pricing_models,
            "newest_as_of": st.newest_as_of.isoformat() if st.newest_as_of else None,
            "oldest_as_of": st.oldest_as_of.isoformat() if st.oldest_as_of else None,
            "undated": st.undated, "stale": st.stale, "age_days": st.age_days,
            "last_refresh": None if last is None else {
                "at": last.refreshed_at.isoformat(timespec="seconds"), "status": last.status, "reason": last.reason,
                "as_of": last.as_of.isoformat() if last.as_of else None, "offers": last.offers,
                "malformed": last.malformed},
            "last_good_refresh_at": good.refreshed_at.isoformat(timespec="seconds") if good else None,
            "unmapped": [{"name": name, "rows": n} for name, n in st.unmapped],
        })
    return rows


def cmd_prices_status(args: argparse.Namespace) -> int:
    """``prices status [--json]``: per provider, offers, newest and oldest ``as_of``, last refresh, unmapped names."""
    kb = get_knowledge()
    _use_stored_catalog()
    rows = _status_rows(kb)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    print(f"{'provider':14} {'offers':>6} {'curated':>7} {'catalog':>7}  {'newest':10}  {'oldest':10}  "
          f"{'undated':>7} {'stale':>5}  last refresh")
    quiet: dict[str, list[str]] = {}
    for r in rows:
        last = r["last_refresh"]
        if r["offers"] == 0 and last is not None and last["status"] == "skipped":
            quiet.setdefault(last["reason"] or "", []).append(r["provider"])
            continue
        if last is None:
            refresh = "-"
        elif last["status"] == "refreshed":
            refresh = f"{last['at'][:10]} refreshed, catalog as of {last['as_of']}"
        else:
            refresh = f"{last['at'][:10]} {last['status'].replace('_', ' ')}: {last['reason']}"
        print(f"{r['provider']:14} {r['offers']:>6} {r['curated_offers']:>7} {r['catalog_offers']:>7}  "
              f"{r['newest_as_of'] or '-':10}  {r['oldest_as_of'] or '-':10}  {r['undated']:>7} {r['stale']:>5}  "
              f"{refresh}")
    for reason, names in quiet.items():
        print(f"no offers, last refresh skipped ({reason}): {', '.join(names)}")
    unmapped = [(r["provider"], u) for r in rows for u in r["unmapped"]]
    if unmapped:
        print("unmapped GPU names (catalog rows without a knowledge-base GPU, not priced): "
              + "; ".join(f"{p}: {u['name']} ({u['rows']} rows)" for p, u in unmapped))
    print(f"stale = undated, or older than {_stale_days()[0]} days (catalog) / {_stale_days()[1]} days (curated) "
          f"on {_today()}")
    return 0


def _stale_days() -> tuple[int, int]:
    from bot.pricing.offers import CATALOG_STALE_AFTER_DAYS, STALE_AFTER_DAYS

    return CATALOG_STALE_AFTER_DAYS, STALE_AFTER_DAYS


def cmd_prices_show(args: argparse.Namespace) -> int:
    """``prices show GPU [--count N] [--group G] [--pricing P] [--provider P]``: the cheapest placements."""
    from bot.pricing.offers import best_placement, offer_table, place

    kb = get_knowledge()
    _use_stored_catalog()
    gpu = _resolve("gpu", " ".join(args.gpu))
    table = offer_table(kb)
    today = _today()
    provider = None
    if args.provider:
        provider = args.provider.strip().lower()
        if provider not in table.providers():
            raise UnknownEntityError("provider", args.provider, table.providers()[:3])
    best = best_placement(table, gpu, args.count, today=today, group=args.group, pricing_model=args.pricing,
                          provider=provider, region=args.region, term_months=args.term_months)
    rows = place(table, gpu, args.count, today=today, group=args.group, pricing_model=args.pricing,
                 provider=provider, region=args.region, limit=args.limit, term_months=args.term_months)
    if args.json:
        print(json.dumps({"best": _placement_json(best, today), "placements": [_placement_json(p, today) for p in rows]},
                         ensure_ascii=False, indent=2))
        return 0
    label = kb.gpus[gpu].name
    if best is None:
        print(f"no {args.pricing.replace('_', '-')} price for {args.count}x {label}"
              + (f" in groups of {args.group}" if args.group > 1 else "") + (f" at {provider}" if provider else ""))
        return 0
    print(f"{args.count}x {label}, {args.pricing.replace('_', '-')}: {_placement_line(best, today)}")
    print("cheapest per hour (fresh list prices are preferred above):")
    for p in rows:
        print("  " + _placement_line(p, today))
    return 0


def _placement_line(p, today: date) -> str:
    o = p.offer
    terms = []
    if o.pricing_model == "spot":
        terms.append("interruptible" + (f", reclaimed {o.interruption_frequency}/month" if o.interruption_frequency
                                        else ""))
    if o.pricing_model == "commitment":
        if o.upfront == "all":
            upfront = f"all upfront: ${p.upfront_usd:,.0f} at the start"
        elif o.upfront == "none":
            upfront = "no upfront"
        else:
            upfront = "partial upfront" if o.upfront == "partial" else "upfront not stated"
        terms.append(f"{o.term_months}-month term, {upfront}")
    if o.currency == "CNY":
        terms.append(f"published ¥{p.price_per_hour_cny:,.2f}/h, USD at {o.cny_per_usd} CNY/USD of {o.fx_date}")
    if p.idle_gpus:
        terms.append(f"{p.idle_gpus} idle")
    when = f"as of {o.as_of}" if o.as_of else "undated"
    if p.stale:
        when += ", stale"
    return (f"${p.price_per_hour_usd:,.2f}/h (${o.price_per_gpu_hour_usd:,.2f}/GPU-h) {o.provider_name} "
            f"{p.instances}x {o.instance_type} [{o.gpu_count} GPU]{' ' + o.region if o.region else ''}, {when}, "
            f"{o.origin}" + (f"; {'; '.join(terms)}" if terms else ""))


def _placement_json(p, today: date) -> dict | None:
    if p is None:
        return None
    o = p.offer
    return {"provider": o.provider, "provider_name": o.provider_name, "instance_type": o.instance_type,
            "gpu": o.gpu, "gpu_count": o.gpu_count, "instances": p.instances, "idle_gpus": p.idle_gpus,
            "price_per_hour_usd": round(p.price_per_hour_usd, 6),
            "price_per_gpu_hour_usd": round(o.price_per_gpu_hour_usd, 6), "pricing_model": o.pricing_model,
            "term_months": o.term_months, "upfront": o.upfront, "upfront_usd": p.upfront_usd,
            "interruption_frequency": o.interruption_frequency, "currency": o.currency,
            "price_per_hour_cny": p.price_per_hour_cny, "cny_per_usd": o.cny_per_usd,
            "fx_date": o.fx_date.isoformat() if o.fx_date else None, "region": o.region,
            "as_of": o.as_of.isoformat() if o.as_of else None, "age_days": o.age_days(today), "stale": p.stale,
            "origin": o.origin, "source": o.source, "gpu_variant_verified": o.gpu_variant_verified}


def _add_prices(sub: argparse._SubParsersAction) -> None:
    prices = sub.add_parser("prices", help="refresh catalog prices (gpuhunt) and show what prices are known")
    prices_sub = prices.add_subparsers(dest="prices_command", required=True)
    p = prices_sub.add_parser("refresh", help="fetch offers through gpuhunt into the state store (DATABASE_URL)")
    p.add_argument("--provider", action="append", default=None,
                   help="only this provider (aws, lambda or gpuhunt's lambdalabs, ...); repeatable")
    p.add_argument("--catalog-dir", default=None,
                   help="a catalog directory in gpuhunt's CSV format instead of the network "
                        "(default: $GPUHUNT_CATALOG_DIR); online providers are then not queried")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one provider may take (default 300)")
    p.set_defaults(func=cmd_prices_refresh)
    p = prices_sub.add_parser("status", help="per provider: offers, newest/oldest as_of, last refresh, unmapped GPUs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_prices_status)
    p = prices_sub.add_parser("show", help="the cheapest ways to rent N GPUs (curated and refreshed prices)")
    p.add_argument("gpu", nargs="+", help="GPU name (\"a100 80gb\")")
    p.add_argument("--count", type=int, default=1, help="GPUs needed (default 1)")
    p.add_argument("--group", type=int, default=1, help="GPUs that must share one instance (a TP group)")
    p.add_argument("--pricing", choices=["on_demand", "spot", "commitment"], default="on_demand")
    p.add_argument("--provider", default=None, help="provider id (aws, lambda, aws-china, ...)")
    p.add_argument("--term-months", type=int, default=None, help="commitments: only this term (12, 36)")
    p.add_argument("--region", default=None)
    p.add_argument("--limit", type=int, default=10, help="placements listed (default 10)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_prices_show)


# --------------------------------------------------------------------------- wiring

def build_parser(*, extra: bool = True) -> argparse.ArgumentParser:
    """The argparse tree of every ``gpu-advisor`` command.

    Args:
        extra: also the commands other modules register (``serve``, ``manifest``), which import the
            Slack layer; :func:`main` leaves them out when running one of :data:`OWN_COMMANDS`.
    """
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

    _add_estimate(sub)
    p = sub.add_parser("parse", help="show how a question is understood")
    p.add_argument("text", help="the question, or - for one per line on standard input")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_parse)
    for name, helptext, func in (("ask", "answer a question", cmd_ask),
                                 ("chat", "interactive questions with follow-ups", cmd_chat)):
        p = sub.add_parser(name, help=helptext)
        if name == "ask":
            p.add_argument("question", help="the question, or - for one per line on standard input")
        fmt = p.add_mutually_exclusive_group()
        fmt.add_argument("--json", action="store_true", help="the Answer as JSON (JSON lines with -)")
        fmt.add_argument("--blocks", action="store_true", help="the Slack Block Kit message")
        p.add_argument("--verbose", "-v", action="store_true",
                       help="every table row, assumption and source (default: the result in 20 lines or fewer)")
        if name == "ask":
            p.add_argument("--chart", metavar="PNG", default=None,
                           help="also draw the answer's chart (serving, memory, price or run) to this PNG file")
        p.set_defaults(func=func)

    _add_prices(sub)
    for register in _extra_commands() if extra else ():
        register(sub)
    return parser


def _extra_commands() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Modules that add their own subcommands (imported here so ``kb`` works without them)."""
    from bot.slack.commands import register as slack_commands

    return [slack_commands]


#: Commands defined in this module. Anything else (``serve``, ``manifest``, ``--help``) builds the full
#: parser, which imports the Slack layer; these do not, so ``ask`` starts without slack_bolt or SQLAlchemy.
OWN_COMMANDS = frozenset({"kb", "estimate", "parse", "ask", "chat", "prices"})


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gpu-advisor`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(extra=command not in OWN_COMMANDS)
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
    finally:
        _forget_stored_catalog()


def _forget_stored_catalog() -> None:
    """Undo :func:`_use_stored_catalog` when ``main`` returns (it is called in-process by tests and scripts)."""
    global _catalog_installed
    if _catalog_installed:
        from bot.pricing.offers import set_catalog

        set_catalog(None)
        _catalog_installed = False


if __name__ == "__main__":
    raise SystemExit(main())
