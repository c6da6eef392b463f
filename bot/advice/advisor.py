"""The advisor: from a parsed question to an Answer, one function per intent.

It knows no output format (Slack, terminal and JSON renderers read the Answer) and no Slack.
Every figure comes from :mod:`bot.estimation` (formulas and efficiency factors with sources)
or the knowledge base (specs, prices with ``as_of``); what was assumed is listed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date

from bot.advice.answer import Action, Answer, Option, Table
from bot.errors import AdvisorError
from bot.estimation import (
    EstimationError,
    InferenceEstimate,
    cost_per_million_tokens,
    efficiency_for,
    estimate_finetune,
    estimate_inference,
    estimate_training,
    generic_model,
    usable_memory_gb,
    valid_tp_degrees,
)
from bot.kb.importers.hf_config import import_hf_config
from bot.kb.index import get_index
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model
from bot.parsing.query import Query
from bot.pricing.quotes import STALE_AFTER_DAYS, QuoteRow, best_on_demand, price_age_note, quote_prices

__all__ = ["EXAMPLES", "EXAMPLES_ZH", "advise", "help_answer"]

EXAMPLES = [
    "H100 vs A100 for Llama 2 70B",
    "serve Llama 3 70B to 200 users at 8k context",
    "8x H100 for 3 days, how much?",
    "can i qlora llama 70b on 2x 3090",
    "how long to pretrain a 3b model on 300B tokens with 32 H100s",
]
EXAMPLES_ZH = ["两张A100 40G能跑70b吗", "H100 和 A100 哪个适合推理 Llama 2 70B", "8张H100 三天多少钱"]

#: Per-user decode speed a chat user perceives as fluent, tokens/s, used when the user gives
#: none: above typical reading speed (~5 words/s ~ 7 tokens/s); a stated assumption in answers.
DEFAULT_MIN_TOKENS_PER_S = 10.0
#: Training tokens when none are given: Chinchilla-optimal 20 tokens per parameter
#: (Hoffmann et al. 2022, arXiv:2203.15556).
CHINCHILLA_TOKENS_PER_PARAM = 20.0
#: Fine-tuning tokens used to show time and cost when none are given (a stated default).
DEFAULT_FINETUNE_TOKENS = 100e6
#: Hours quoted when no duration is given.
DEFAULT_QUOTE_HOURS = 1.0
#: GPUs tried when a sizing question names none: datacenter and consumer GPUs that have priced offers.
MAX_GPUS_PER_CONFIG = 64

_TRAINING_GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "h200-sxm-141gb", "b200-180gb", "l40s-48gb")
_FINETUNE_GPUS = ("rtx-4090-24gb", "l40s-48gb", "a100-sxm-80gb", "h100-sxm-80gb")


# --------------------------------------------------------------------------- formatting

def _usd(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"${x:,.0f}" if x >= 1000 else f"${x:,.2f}"


def _num(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    return f"{x:,.{digits}f}"


def _hours(h: float | None) -> str:
    if h is None:
        return "n/a"
    if h >= 48:
        return f"{h:,.0f} h ({h / 24:,.1f} days)"
    return f"{h:,.1f} h"


def _usable(kb: KnowledgeBase, gpu_id: str) -> float:
    """Usable memory of one GPU, GB (what the fit checks compare with; see bot.estimation.usable_memory_gb)."""
    return usable_memory_gb(efficiency_for(kb), kb.gpus[gpu_id])


def _gpu_label(kb: KnowledgeBase, gpu_id: str) -> str:
    return kb.gpus[gpu_id].name if gpu_id in kb.gpus else gpu_id


def _cfg(kb: KnowledgeBase, gpu_id: str, count: int, precision: str | None = None) -> str:
    base = f"{count}x {_gpu_label(kb, gpu_id)}"
    return f"{base}, {precision}" if precision else base


def _dedupe(items: list[str]) -> list[str]:
    seen: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.append(item)
    return seen


# --------------------------------------------------------------------------- shared steps

class _Context:
    """What one answer accumulates: assumptions, warnings and sources, and the knowledge base."""

    def __init__(self, query: Query, kb: KnowledgeBase, today: date):
        self.query, self.kb, self.today = query, kb, today
        self.assumptions: list[str] = list(query.notes)
        self.warnings: list[str] = []
        self.sources: list[str] = []
        self.price_dates: list[date | None] = []
        for term in query.unknown_terms:
            hint = f" Did you mean {', '.join(term.suggestions)}?" if term.suggestions else ""
            self.warnings.append(f"I don't know \"{term.as_written}\", so I left it out.{hint}")

    def absorb(self, est, label: str | None = None) -> None:
        """Take an estimate's assumptions, warnings and sources; ``label`` (a GPU name) prefixes the
        assumptions that differ from those already taken, so two GPUs' efficiency lines stay apart."""
        for a in est.assumptions:
            if a not in self.assumptions:
                self.assumptions.append(f"{label}: {a}" if label else a)
        self.warnings += est.warnings
        self.sources += est.sources

    def price_note(self, row: QuoteRow | None) -> None:
        if row is not None:
            self.price_dates.append(row.offer.as_of)
            self.sources.append(row.offer.source)

    def answer(self, **fields) -> Answer:
        dated = [d for d in self.price_dates if d]
        undated = sum(1 for d in self.price_dates if d is None)
        price_dates = None
        if self.price_dates:
            span = (f"as of {min(dated)}" if min(dated) == max(dated) else f"as of {min(dated)} to {max(dated)}"
                    ) if dated else ""
            price_dates = "Prices: list prices" + (f", {span}" if span else "") + (
                f"; {undated} from undated catalog snapshots (re-check before buying)" if undated else "")
        fields.setdefault("assumptions", _dedupe(self.assumptions))
        fields.setdefault("warnings", _dedupe(self.warnings))
        fields.setdefault("sources", _dedupe(self.sources)[:12])
        fields.setdefault("price_dates", price_dates)
        return Answer(query=self.query, intent=fields.pop("intent", self.query.intent), **fields)


def _product_number(name: str) -> str:
    """The token that identifies a GPU product: the first word with a digit ("H100", "4090", "A6000")."""
    return next((w for w in name.split() if any(c.isdigit() for c in w)), name.split()[0]).lower()


def _variant_notes(ctx: _Context) -> list[str]:
    """For each GPU named without its variant: what else it could be, with the bandwidth that differs."""
    lines = []
    for mention in ctx.query.gpus:
        if not mention.variant_assumed:
            continue
        chosen = ctx.kb.gpus[mention.id]
        key = _product_number(chosen.name)
        others = [g for g in ctx.kb.gpus.values() if g.id != chosen.id and _product_number(g.name) == key]
        if others:
            alt = ", ".join(f"{g.name} ({g.memory_bandwidth_gb_s:,.0f} GB/s)" for g in others[:3])
            lines.append(f"\"{mention.as_written}\" could also be {alt}; I assumed {chosen.name} "
                         f"({chosen.memory_bandwidth_gb_s:,.0f} GB/s). Say which if it matters.")
    return lines


def _model(ctx: _Context) -> Model | None:
    mention = ctx.query.model
    if mention is None:
        return None
    if mention.config is not None:
        entry = import_hf_config(mention.config, "pasted-config").entry
        ctx.assumptions.append("architecture from the pasted config.json (parameter count computed from its shapes)")
        return Model.model_validate({**entry, "name": "the model of the pasted config.json"})
    if mention.id and mention.id in ctx.kb.models:
        return ctx.kb.models[mention.id]
    if mention.generic and mention.params_total_b:
        return _generic(ctx, mention.params_total_b, mention.params_active_b, mention.layers, mention.hidden_size,
                        mention.kv_heads)
    return None


def _generic(ctx: _Context, total_b: float, active_b: float | None, layers: int | None, hidden: int | None,
             kv_heads: int | None) -> Model:
    """A model known by its size: weights and compute follow the stated parameters exactly; the KV-cache
    shape comes from what the user gave (layers, hidden size, KV heads) and, for the rest, from the
    nearest published model of that size, or from P ~ 12 x layers x hidden^2 when one of the two is given
    (the transformer block count: 4h^2 attention + 8h^2 MLP per layer, Kaplan et al. 2020)."""
    dense_b = active_b or total_b
    like = _nearest_published(ctx.kb, dense_b)
    name = f"a {total_b:g}B model" + (f" ({active_b:g}B active)" if active_b else "")
    if layers is None and hidden is None:
        if like is None:
            model = generic_model(total_b, active_b, name=name, num_key_value_heads=kv_heads)
            ctx.assumptions += model.notes
            return model
        layers, hidden = like.num_hidden_layers, like.hidden_size
        heads, head_dim, kv = like.num_attention_heads, like.effective_head_dim, kv_heads or like.num_key_value_heads
        ctx.assumptions.append(
            f"{name} was given the shape of {like.name} ({layers} layers, hidden {hidden}, {kv} KV heads); weights "
            f"and compute follow {total_b:g}B exactly, the KV cache follows this assumed shape")
        ctx.sources += like.sources[:1]
        vocab, inter = like.vocab_size, like.intermediate_size
    else:
        if hidden is None:
            hidden = max(256, round(math.sqrt(dense_b * 1e9 / (12 * layers)) / 128) * 128)
        if layers is None:
            layers = max(1, round(dense_b * 1e9 / (12 * hidden * hidden)))
        head_dim = 128
        heads = max(1, hidden // head_dim)
        kv = kv_heads or heads
        if heads % kv:
            kv = heads
        vocab, inter = 32000, int(hidden * 2.6875)
        ctx.assumptions.append(
            f"{name}: {layers} layers, hidden {hidden}, {heads} heads of 128, {kv} KV heads (what you gave, the rest "
            "from P ~ 12 x layers x hidden^2); the KV cache follows this shape")
    return generic_model(total_b, active_b, name=name, num_hidden_layers=layers, hidden_size=hidden,
                         num_attention_heads=heads, num_key_value_heads=kv, head_dim=head_dim, vocab_size=vocab,
                         intermediate_size=inter)


#: Families whose shapes stand for "a typical decoder" when a user gives only a size: the mainstream
#: GQA/MHA Llama-style decoders most teams train and fine-tune (not MQA Falcon, not MoE or MLA).
_REFERENCE_FAMILIES = {"llama", "qwen", "mistral"}


def _nearest_published(kb: KnowledgeBase, params_b: float) -> Model | None:
    """The published Llama/Qwen/Mistral dense model closest in size (log ratio), within 2.5x."""
    best, best_gap = None, math.inf
    for m in kb.models.values():
        if (m.family not in _REFERENCE_FAMILIES or m.kind != "llm" or m.is_moe or m.architecture_gaps
                or not m.num_hidden_layers or m.sliding_window):
            continue
        gap = abs(math.log(m.params_total_b / params_b))
        if gap < best_gap - 1e-9:
            best, best_gap = m, gap
    return best if best_gap < math.log(2.5) else None


def _engine(query: Query, gpu: Gpu | None = None) -> str:
    """The serving engine class: what the user named, else vLLM; llama.cpp on GPUs older than
    compute capability 7.0 (Pascal and older), which vLLM does not support."""
    if query.engine is None and gpu is not None and gpu.cc is not None and gpu.cc < 7.0:
        return "llama.cpp"
    if query.engine is None and query.precision and re.fullmatch(r"q\d(_k)?(_[sml0-9])?|q\d_\d", query.precision):
        return "llama.cpp"  # a GGUF quant (Q4_K_M, Q8_0) runs in llama.cpp, which splits layers across GPUs
    engine = query.engine or "vllm"
    return {"ollama": "llama.cpp", "exllama": "llama.cpp", "tgi": "vllm"}.get(engine, engine)


def _inference(ctx: _Context, model: Model, gpu_id: str, *, count: int | None, precision: str | None,
               batch: int | str = 1, absorb: bool = True) -> InferenceEstimate:
    q = ctx.query
    est = estimate_inference(ctx.kb, model, gpu_id, count=count, precision=precision, kv_precision=q.kv_precision,
                             context_tokens=q.context_tokens, input_tokens=q.input_tokens,
                             output_tokens=q.output_tokens, batch_size=batch,
                             engine=_engine(q, ctx.kb.gpus.get(gpu_id) if isinstance(gpu_id, str) else None))
    if absorb:
        ctx.absorb(est)
    return est


def _missing(ctx: _Context, what: str, question: str, examples: list[str]) -> Answer:
    return ctx.answer(title="One more thing", verdict=question,
                      details=[f"I need {what} to answer this."], examples=examples, intent=ctx.query.intent)


# --------------------------------------------------------------------------- compare

def _compare(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    model = _model(ctx)
    gpus = q.gpus
    if not gpus:
        return _missing(ctx, "the GPUs to compare", "Which GPUs should I compare?",
                        ["H100 vs A100 for Llama 2 70B", "L4 or A10G for Mistral 7B", "4090 vs 3090 for 13B int4"])
    if model is None:
        return _spec_comparison(ctx, [g.id for g in gpus], ask_model=True)
    if model.kind != "llm":
        return _non_llm(ctx, model, [g.id for g in gpus])
    if q.workload == "finetune" or q.method:
        return _finetune(ctx)
    if q.workload == "training":
        return _size_training(ctx)

    options: list[Option] = []
    base_rows: list[tuple[Gpu, Option, InferenceEstimate]] = []
    for position, mention in enumerate(gpus):
        gpu = kb.gpus[mention.id]
        try:
            est = _inference(ctx, model, gpu.id, count=mention.count, precision=q.precision, absorb=False)
            ctx.absorb(est, label=gpu.name if position else None)
            best = _inference(ctx, model, gpu.id, count=est.gpu_count, precision=q.precision, batch="max",
                              absorb=False)
        except EstimationError as exc:
            ctx.warnings.append(f"{gpu.name}: {exc}")
            continue
        opt = _inference_option(ctx, gpu, est, best)
        options.append(opt)
        base_rows.append((gpu, opt, est))
        if q.precision is None and gpu.supports("fp8") and est.precision not in ("fp8",) and model.native_precision != "fp8":
            try:
                # same GPUs and the same tensor-parallel layout as the 16-bit row: what FP8 gains on that hardware
                est8 = _inference_tp(ctx, model, gpu.id, est, "fp8")
                best8 = _inference_tp(ctx, model, gpu.id, est, "fp8", batch="max")
                options.append(_inference_option(ctx, gpu, est8, best8))
            except EstimationError:
                pass
    if not options:
        return ctx.answer(title=f"Comparison for {model.name}", verdict="None of these GPUs could be sized.")

    fitting = [o for o in options if o.fits]
    recommendation = _pick(options)
    verdict, verdict_lines = _compare_verdict(ctx, model, base_rows, options, recommendation)
    table = Table(
        columns=["config", "fits", "GB/GPU", "TTFT s", "tok/s/user", "max tok/s", "$/h", "$/1M tok"],
        rows=[[o.label, "yes" if o.fits else "NO", _num(o.memory_per_gpu_gb), _num(o.ttft_s, 2),
               _num(o.decode_tokens_per_s_per_sequence), _num(o.throughput_tokens_per_s, 0),
               _usd(o.price_per_hour_usd), _usd(o.cost_per_million_tokens_usd)] for o in options])
    details = list(verdict_lines) + _variant_notes(ctx)
    if fitting:
        details.append("tok/s/user: one stream (batch 1); max tok/s: the largest batch that fits, all GPUs; "
                       "$/1M tok at max throughput on the cheapest on-demand offer.")
    paperspace = [o for o in options if "Paperspace" in " ".join(o.notes)]
    if paperspace:
        details.append("Paperspace lists: "
                       + "; ".join(n.removeprefix("Paperspace ") for o in paperspace for n in o.notes if "Paperspace" in n)
                       + " for the same GPU count.")
    actions = _next_actions(q, model, options[recommendation] if recommendation is not None else None)
    return ctx.answer(title=_title(f"{' vs '.join(g.name for g, _, _ in base_rows) or 'GPUs'} for {model.name}"),
                      verdict=verdict, details=details, table=table, options=options,
                      recommendation=recommendation, actions=actions)


def _inference_tp(ctx: _Context, model: Model, gpu_id: str, like: InferenceEstimate, precision: str,
                  batch: int | str = 1) -> InferenceEstimate:
    q = ctx.query
    try:
        return estimate_inference(ctx.kb, model, gpu_id, count=like.gpu_count, precision=precision,
                                  kv_precision=q.kv_precision, context_tokens=q.context_tokens,
                                  input_tokens=q.input_tokens, output_tokens=q.output_tokens, batch_size=batch,
                                  engine=_engine(q, ctx.kb.gpus[gpu_id]), tensor_parallel=like.tensor_parallel)
    except EstimationError:
        return _inference(ctx, model, gpu_id, count=like.gpu_count, precision=precision, batch=batch, absorb=False)


def _price_fields(price: QuoteRow | None, gpu_count: int | None = None) -> dict:
    """Option fields for an on-demand price row; ``gpu_count`` scales its per-GPU price to that many GPUs."""
    if price is None:
        return {}
    per_hour = price.price_per_gpu_hour_usd * gpu_count if gpu_count else price.price_per_hour_usd
    return {"provider": price.offer.provider, "instance_type": price.offer.instance_type,
            "pricing_model": "on_demand", "price_per_hour_usd": per_hour, "price_as_of": price.offer.as_of,
            "price_stale": price.stale}


def _group(est: InferenceEstimate) -> int:
    """GPUs that must share one machine: a tensor-parallel group (pipeline stages may span hosts)."""
    return max(1, est.tensor_parallel)


def _price_for(ctx: _Context, gpu_id: str, count: int, group: int, notes: list[str],
               provider: str | None = None) -> QuoteRow | None:
    """The cheapest fresh on-demand price for ``count`` GPUs whose instances hold ``group`` together; failing
    that, separate smaller instances, with a note that their GPUs have no NVLink between them."""
    price = best_on_demand(ctx.kb, gpu_id, count, today=ctx.today, provider=provider, group=group)
    if price is None and group > 1:
        price = best_on_demand(ctx.kb, gpu_id, count, today=ctx.today, provider=provider)
        if price is not None:
            notes.append(f"no priced instance holds {group} of these GPUs together: priced as {price.instances} "
                         f"separate {price.offer.gpu_count}-GPU instances, whose GPUs have no NVLink between them")
    return price


def _inference_option(ctx: _Context, gpu: Gpu, est: InferenceEstimate, best: InferenceEstimate) -> Option:
    notes: list[str] = []
    price = _price_for(ctx, gpu.id, est.gpu_count, _group(est), notes)
    ctx.price_note(price)
    cpm = None
    if price is not None and best.throughput_tokens_per_s:
        cpm = cost_per_million_tokens(price.price_per_hour_usd, best.throughput_tokens_per_s)
    pp = _price_for(ctx, gpu.id, est.gpu_count, _group(est), [], provider="paperspace")
    if pp is not None and (price is None or pp.offer is not price.offer):
        notes.append(f"Paperspace {pp.offer.instance_type}: {_usd(pp.price_per_hour_usd)}/h "
                     f"({price_age_note(pp.offer, ctx.today)})")
    if price is not None:
        notes.append(f"price: {price.offer.provider} {price.offer.instance_type} "
                     f"({price_age_note(price.offer, ctx.today)})")
    return Option(
        label=_cfg(ctx.kb, gpu.id, est.gpu_count, est.precision), gpu=gpu.id, gpu_name=gpu.name,
        gpu_count=est.gpu_count, precision=est.precision, fits=est.fits, memory_per_gpu_gb=est.memory.per_gpu_gb,
        gpu_memory_gb=est.memory.usable_memory_gb or est.memory.gpu_memory_gb, ttft_s=est.ttft_s,
        decode_tokens_per_s_per_sequence=est.decode_tokens_per_s_per_sequence,
        throughput_tokens_per_s=best.throughput_tokens_per_s, cost_per_million_tokens_usd=cpm, notes=notes,
        **_price_fields(price))


def _pick(options: list[Option]) -> int | None:
    fitting = [i for i, o in enumerate(options) if o.fits]
    if not fitting:
        return None
    priced = [i for i in fitting if options[i].cost_per_million_tokens_usd is not None]
    if priced:
        return min(priced, key=lambda i: options[i].cost_per_million_tokens_usd)
    return max(fitting, key=lambda i: options[i].decode_tokens_per_s_per_sequence or 0)


def _compare_verdict(ctx: _Context, model: Model, rows: list[tuple[Gpu, Option, InferenceEstimate]],
                     options: list[Option], rec: int | None) -> tuple[str, list[str]]:
    """One-sentence verdict (the pick and its reason) and the supporting lines."""
    lines: list[str] = []
    base = [(g, o, e) for g, o, e in rows if o.fits]
    counts = ", ".join(f"{o.gpu_count}x {g.name}" for g, o, _ in rows)
    if rows:
        lines.append(f"In {rows[0][2].precision}, {model.name} needs {counts}"
                     + ("" if all(o.fits for _, o, _ in rows) else " (some do not fit at the count given)") + ".")
    reason = ""
    if len(base) >= 2:
        fastest = max(base, key=lambda r: r[1].decode_tokens_per_s_per_sequence or 0)
        slowest = min(base, key=lambda r: r[1].decode_tokens_per_s_per_sequence or 0)
        if fastest[0].id != slowest[0].id and slowest[1].decode_tokens_per_s_per_sequence:
            ratio = fastest[1].decode_tokens_per_s_per_sequence / slowest[1].decode_tokens_per_s_per_sequence
            bw = fastest[0].memory_bandwidth_gb_s / slowest[0].memory_bandwidth_gb_s
            bound = "memory-bandwidth bound" if fastest[2].bound == "memory-bandwidth" else "compute bound"
            reason = f"it decodes {ratio:.2f}x faster per user" if rec is not None and fastest[1] is options[rec] else ""
            if fastest[1].gpu_count == slowest[1].gpu_count:
                lines.append(f"{fastest[0].name} decodes {ratio:.2f}x faster per user than {slowest[0].name}: "
                             f"single-stream decode is {bound}, and bandwidth is "
                             f"{fastest[0].memory_bandwidth_gb_s:,.0f} vs {slowest[0].memory_bandwidth_gb_s:,.0f} GB/s "
                             f"({bw:.2f}x).")
            else:
                lines.append(f"{fastest[1].label} decodes {ratio:.2f}x faster per user than {slowest[1].label} "
                             f"(single-stream decode is {bound}; the counts differ because of memory: tensor "
                             "parallelism adds the GPUs' bandwidth, less communication).")
        lacking = [g.name for g, _, _ in base if not g.supports("fp8")]
        having = [g.name for g, _, _ in base if g.supports("fp8")]
        fp8_rows = [o for o in options if o.precision == "fp8" and o.fits]
        if lacking and having:
            extra = ""
            if fp8_rows:
                f = fp8_rows[0]
                extra = (f": {f.label} runs at {_num(f.decode_tokens_per_s_per_sequence)} tokens/s per user"
                         + (f", {_usd(f.cost_per_million_tokens_usd)} per 1M tokens" if f.cost_per_million_tokens_usd
                            else ""))
            lines.append(f"FP8 helps further on {', '.join(having)}, which {', '.join(lacking)} lacks{extra}.")
    not_fitting = [o.label for o in options if not o.fits]
    if not_fitting:
        lines.append(f"Does not fit: {', '.join(not_fitting)}.")
    if rec is None:
        return (f"None of these fits {model.name} at the count given; add GPUs or quantise (try int4).", lines)
    chosen = options[rec]
    why = []
    if chosen.cost_per_million_tokens_usd is not None:
        why.append(f"the lowest cost per token ({_usd(chosen.cost_per_million_tokens_usd)} per 1M output tokens at "
                   "full load)")
    if reason:
        why.append(reason)
    if chosen.precision == "fp8":
        why.append("FP8 halves the weights")
    return (f"Pick {chosen.label}: " + (", and ".join(why) if why else "it is the fastest that fits") + ".", lines)


def _spec_comparison(ctx: _Context, gpu_ids: list[str], *, ask_model: bool) -> Answer:
    kb = ctx.kb
    rows = []
    for gid in gpu_ids:
        g = kb.gpus[gid]
        price = best_on_demand(kb, gid, 1, today=ctx.today)
        ctx.price_note(price)
        ctx.sources += g.sources[:1]
        rows.append([g.name, _num(g.memory_gb, 0), _num(g.memory_bandwidth_gb_s, 0), _num(g.dense_tflops.bf16 or g.dense_tflops.fp16, 0),
                     _num(g.dense_tflops.fp8, 0) if g.dense_tflops.fp8 else "-",
                     f"{g.nvlink_gb_s:,.0f}" if g.nvlink_gb_s else "none", _num(g.tdp_watts, 0),
                     _usd(price.price_per_gpu_hour_usd) if price else "n/a"])
    verdict = ("Specs side by side (dense tensor TFLOPS, no sparsity). Name a model for speed, fit and cost "
               "per token, e.g. \"" + " vs ".join(kb.gpus[g].name.split()[0] for g in gpu_ids[:2]) + " for Llama 3 8B\".")
    details = _spec_facts(ctx, gpu_ids) + _variant_notes(ctx)
    ctx.assumptions.append("per-GPU price: cheapest on-demand offer for one GPU, fresh prices first")
    return ctx.answer(
        title=_title(" vs ".join(kb.gpus[g].name for g in gpu_ids)), verdict=verdict, details=details,
        table=Table(columns=["GPU", "GB", "GB/s", "bf16/fp16 TF", "fp8 TF", "NVLink GB/s", "TDP W", "$/GPU-h"],
                    rows=rows),
        examples=[f"{kb.gpus[gpu_ids[0]].name.split()[0]} for Llama 3 70B"] if ask_model else [])


def _spec_facts(ctx: _Context, gpu_ids: list[str]) -> list[str]:
    kb = ctx.kb
    facts = []
    gs = [kb.gpus[g] for g in gpu_ids]
    if len(gs) >= 2:
        a, b = gs[0], gs[1]
        facts.append(f"{a.name} vs {b.name}: memory bandwidth {a.memory_bandwidth_gb_s / b.memory_bandwidth_gb_s:.2f}x"
                     + (f", dense bf16 {a.dense_tflops.bf16 / b.dense_tflops.bf16:.2f}x"
                        if a.dense_tflops.bf16 and b.dense_tflops.bf16 else "")
                     + ". Single-stream LLM decode follows bandwidth; batched work and training follow TFLOPS.")
    for g in gs:
        feats = []
        if not g.supports("bf16"):
            feats.append("no bf16 (use fp16)")
        if g.supports("fp8"):
            feats.append("FP8")
        elif g.vendor == "NVIDIA":
            feats.append("no FP8")
        if g.nvlink_gb_s is None and g.segment == "consumer":
            feats.append("no NVLink/P2P: tensor parallelism goes over PCIe")
        if g.compute_capability:
            feats.append(f"compute capability {g.compute_capability}")
        facts.append(f"{g.name}: {', '.join(feats)}.")
    return facts


def _non_llm(ctx: _Context, model: Model, gpu_ids: list[str]) -> Answer:
    kb = ctx.kb
    weights = model.typical_fp16_weight_gb or model.params_total_b * 2
    rows = []
    any_short = False
    for gid in gpu_ids or ["l4-24gb", "rtx-4090-24gb", "a100-sxm-80gb"]:
        g = kb.gpus[gid]
        fits = weights * (1 + NON_LLM_ACTIVATION_HEADROOM) + efficiency_for(kb).c("cuda_context_gb") <= _usable(kb, gid)
        any_short = any_short or not fits
        rows.append([g.name, _num(_usable(kb, gid)), _num(weights), "yes" if fits else "NO"])
    ctx.sources += model.sources[:2]
    ctx.assumptions.append(f"{model.name}: fp16 weights {weights:.1f} GB (knowledge entry), plus "
                           f"{NON_LLM_ACTIVATION_HEADROOM:.0%} for activations and the CUDA context")
    details = [f"{model.name} is not an LLM: I size its memory and fit only; my throughput estimates are for LLMs."]
    if model.runtime_memory_hint:
        details.append(f"Published: {model.runtime_memory_hint}.")
    if any_short:
        details.append(f"Where it does not fit in fp16: fp8 or int8 weights halve the {weights:.1f} GB, and "
                       "offloading the text encoders or idle components to the CPU (diffusers' "
                       "enable_model_cpu_offload) trades speed for memory.")
    return ctx.answer(title=_title(f"{model.name}: memory and fit"),
                      verdict=f"{model.name} needs about {weights:.1f} GB of fp16 weights.", details=details,
                      table=Table(columns=["GPU", "usable GB", "weights GB", "fits"], rows=rows))


# --------------------------------------------------------------------------- size_inference

def _size_inference(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    model = _model(ctx)
    if model is None:
        return _missing(ctx, "the model", "Which model do you want to serve? (a name such as Llama 3 70B, or a size "
                        "such as \"a 13B model\")", ["serve Llama 3 70B to 200 users at 8k context",
                                                      "can a 4090 run 13b int4?", "serve a 7b model in fp16"])
    if model.kind != "llm":
        return _non_llm(ctx, model, [g.id for g in q.gpus])
    users: int | None = q.concurrent_users or q.batch_size
    total = None
    if q.target_tokens_per_s and q.target_scope == "total":
        total = q.target_tokens_per_s
    elif q.requests_per_s and not users:
        out = q.output_tokens or 256
        total = q.requests_per_s * out
        ctx.assumptions.append(f"{q.requests_per_s:g} requests/s x {out} output tokens each = {total:,.0f} output "
                               "tokens/s in aggregate")
    target = q.target_tokens_per_s if q.target_tokens_per_s and q.target_scope != "total" else None
    if target is None:
        target = DEFAULT_MIN_TOKENS_PER_S
        ctx.assumptions.append(f"at least {DEFAULT_MIN_TOKENS_PER_S:g} tokens/s per user (faster than reading)")
    if total is not None:
        users = None
        ctx.assumptions.append(f"sized for {total:,.0f} output tokens/s in aggregate at the largest batch that fits")
    elif not users:
        users = 1
        ctx.assumptions.append("1 concurrent user (say e.g. \"for 50 users\")")

    if q.gpus:
        candidates = [(g.id, g.count) for g in q.gpus]
    else:
        candidates = [(gid, None) for gid in _priced_gpus(kb)]
    precisions = [q.precision] if q.precision else [None, "fp8", "int4"]  # int8 is shown as a delta

    options: list[Option] = []
    for gid, count in candidates:
        for prec in precisions:
            opt = _smallest_config(ctx, model, gid, count, prec, users, target, total)
            if opt is not None:
                options.append(opt)
    options = _dedupe_options(options)
    fitting = [o for o in options if o.fits]
    known = [o for o in fitting if o.ttft_s is not None]
    if known:  # a configuration without published compute figures has no prefill cost: it cannot be compared
        fitting = known
    # cheapest first; configurations without published compute figures (no TTFT) only after the others
    priced = sorted((o for o in fitting if o.price_per_hour_usd is not None),
                    key=lambda o: (o.ttft_s is None, o.price_per_hour_usd))
    unpriced = [o for o in fitting if o.price_per_hour_usd is None]
    shown = (priced[:3] + unpriced[: max(0, 3 - len(priced))]) if not q.gpus else sorted(
        options, key=lambda o: (not o.fits, o.price_per_hour_usd or math.inf))
    recommendation = 0 if shown and shown[0].fits else None
    for o in shown:
        ctx.price_dates.append(o.price_as_of)
    top_est = None
    if shown:  # the figures shown carry the assumptions and sources of the configuration they describe
        top = shown[0]
        try:
            top_est = _for_users(ctx, model, top.gpu, top.gpu_count, top.precision, users, total, target)
            ctx.absorb(top_est)
        except (EstimationError, AdvisorError):
            pass

    load = (f"{total:,.0f} output tokens/s in aggregate" if total is not None
            else f"{users} concurrent user{'s' if users != 1 else ''}")
    title = _title(f"Serving {model.name}" + (f": {load}" if (users or 1) > 1 or total else ""))
    details = []
    if not shown:
        tries = ["a shorter context"] + ([] if q.precision in ("int4", "awq", "gptq", "nf4") else ["int4"]) + [
            "an fp8 KV cache" if q.kv_precision is None else None, "fewer users per deployment"]
        verdict = (f"Nothing I know serves {model.name} for {load} at {target:g} tokens/s per user within "
                   f"{MAX_GPUS_PER_CONFIG} GPUs; try {', '.join(t for t in tries if t)}.")
    elif recommendation is None:
        o = shown[0]
        if o.memory_per_gpu_gb and o.gpu_memory_gb and o.memory_per_gpu_gb > o.gpu_memory_gb:
            reason = f"it needs {_num(o.memory_per_gpu_gb)} GB per GPU of {_num(o.gpu_memory_gb)} GB usable"
        elif o.max_batch_size is not None and o.batch_size and o.max_batch_size < o.batch_size:
            reason = (f"vLLM's 0.9 memory budget leaves KV-cache room for {o.max_batch_size} of the {o.batch_size} "
                      "sequences per replica (raise --gpu-memory-utilization or shorten the context)")
        else:
            reason = (f"each user gets only {_num(o.tokens_per_s_per_user)} tokens/s once prefill is counted "
                      f"(target {target:g})")
        verdict = f"{o.label} does not serve {model.name} for {load}: {reason}. Use more GPUs or a smaller precision."
    else:
        o = shown[0]
        per_user = (f"{_num(o.tokens_per_s_per_user)} tokens/s per user" if users is not None
                    else f"{_num(o.throughput_tokens_per_s, 0)} output tokens/s in all")
        verdict = (f"{o.label} serves {load}: {per_user} (decoding at {_num(o.decode_tokens_per_s_per_sequence)}), "
                   f"{_num(o.memory_per_gpu_gb)} of {_num(o.gpu_memory_gb)} GB usable per GPU"
                   + (f", {_usd(o.price_per_hour_usd)}/h on {o.provider}{_price_caveat(ctx, o)}"
                      if o.price_per_hour_usd else "") + ".")
    if top_est is not None:
        verdict = (f"{model.name} in {top_est.precision} needs {_num(top_est.memory.weights_gb)} GB of weights + "
                   f"{_num(top_est.memory.kv_cache_gb)} GB of KV cache here. " + verdict)
    if top_est is not None:
        m = top_est.memory
        details.append(f"Memory in all: weights {_num(m.weights_gb)} GB + KV cache {_num(m.kv_cache_gb)} GB "
                       f"({top_est.context_tokens:,} tokens x {top_est.batch_size} sequences per replica) + "
                       f"overhead {_num(m.overhead_gb)} GB = {_num(m.total_gb)} GB, over {top_est.gpu_count} GPU(s).")
        details.append(f"Each request is assumed to bring a {top_est.input_tokens:,}-token prompt and "
                       f"{top_est.output_tokens:,} output tokens (say e.g. \"500 tokens in, 200 out\"); tok/s/user "
                       "counts the time spent on every prompt's prefill, so users x tok/s/user = total tok/s, "
                       "and $/1M tok is at this load.")
    if q.duration_hours and shown and shown[0].price_per_hour_usd:
        o = shown[0]
        o.total_cost_usd = o.price_per_hour_usd * q.duration_hours
        details.append(f"For {_hours(q.duration_hours)}: {_usd(o.total_cost_usd)} on-demand ({o.label}).")
    details += _precision_deltas(ctx, model, shown[recommendation] if recommendation is not None else None, users)
    if q.diagnosis is not None and q.diagnosis.kind == "oom":
        details = _oom_fixes(q, training=False) + details
    table = Table(columns=["config", "serves", "GB/GPU", "TTFT s", "decode tok/s", "tok/s/user", "total tok/s",
                           "$/h", "$/1M tok"],
                  rows=[[o.label, "yes" if o.fits else "NO", _num(o.memory_per_gpu_gb), _num(o.ttft_s, 2),
                         _num(o.decode_tokens_per_s_per_sequence), _num(o.tokens_per_s_per_user),
                         _num(o.throughput_tokens_per_s, 0), _usd(o.price_per_hour_usd),
                         _usd(o.cost_per_million_tokens_usd)] for o in shown[:6]])
    return ctx.answer(title=title, verdict=verdict, details=details, table=table, options=shown[:6],
                      recommendation=recommendation,
                      actions=_next_actions(q, model, shown[recommendation] if recommendation is not None else None))


def _priced_gpus(kb: KnowledgeBase) -> list[str]:
    seen: list[str] = []
    for offer in kb.offers:
        if offer.pricing_model == "on_demand" and offer.price_per_hour_usd and offer.gpu not in seen:
            seen.append(offer.gpu)
    return seen


def _price_caveat(ctx: _Context, o: Option) -> str:
    """" (price as of 2026-05-28, older than 90 days; separate instances, no NVLink between them)" or ""."""
    parts = []
    if o.price_stale:
        parts.append(f"price as of {o.price_as_of}, older than {STALE_AFTER_DAYS} days" if o.price_as_of
                     else "undated catalog price")
    if any("no NVLink between them" in n for n in o.notes):
        parts.append("priced as separate instances: no machine with this many of them has a price")
    return f" ({'; '.join(parts)})" if parts else ""


def _per_user(est: InferenceEstimate) -> float:
    """Tokens/s each concurrent user gets over time, counting every request's prefill:
    aggregate throughput / (sequences per replica x replicas); the decode speed when no
    throughput is known (no published compute peak)."""
    if est.throughput_tokens_per_s:
        return est.throughput_tokens_per_s / max(1, est.batch_size * est.replicas)
    return est.decode_tokens_per_s_per_sequence or 0.0


def _serves(est: InferenceEstimate, target: float) -> bool:
    """A configuration serves its users when it fits, the engine's memory budget holds the batch
    (``max_batch_size``, at vLLM's 0.9 of memory), and each user gets ``target`` tokens/s over time,
    prefill included (:func:`_per_user`), so users x per-user speed = total throughput."""
    holds = est.max_batch_size is None or est.max_batch_size >= est.batch_size
    return est.fits and holds and _per_user(est) >= target


def _for_users(ctx: _Context, model: Model, gpu_id: str, n: int, precision: str | None, users: int | None,
               total: float | None, target: float = DEFAULT_MIN_TOKENS_PER_S) -> InferenceEstimate:
    """``n`` GPUs serving ``users`` concurrent sequences, or (``users`` None) the largest batch that fits.

    Each tensor-parallel degree that divides ``n`` (and the attention heads) is tried, the users split
    evenly over the replicas the layout makes; of the layouts that serve the load the one with the
    fastest per-user decode wins, else the layout closest to fitting.
    """
    tps = [tp for tp in valid_tp_degrees(model) if tp <= n and n % tp == 0] or [None]
    best, serving = None, []
    for tp in tps:
        replicas = n // tp if tp else 1
        batch: int | str = "max" if users is None else max(1, math.ceil(users / replicas))
        try:
            est = estimate_inference(ctx.kb, model, gpu_id, count=n, precision=precision,
                                     kv_precision=ctx.query.kv_precision, context_tokens=ctx.query.context_tokens,
                                     input_tokens=ctx.query.input_tokens, output_tokens=ctx.query.output_tokens,
                                     batch_size=batch, engine=_engine(ctx.query, ctx.kb.gpus[gpu_id]),
                                     tensor_parallel=tp)
        except EstimationError:
            continue
        if users is not None and est.replicas * est.batch_size < users:
            continue  # this layout did not spread the users as assumed
        if _meets(est, target, total):
            serving.append(est)
            continue
        if best is None or _closeness(est) > _closeness(best):
            best = est
    if serving:  # of the layouts that serve the load: the most throughput for a total target, else the
        # fastest for each user (prefill included)
        if users is None:
            return max(serving, key=lambda e: (e.throughput_tokens_per_s or 0, -e.tensor_parallel))
        return max(serving, key=lambda e: (_per_user(e), -e.tensor_parallel))
    if best is None:
        return _inference(ctx, model, gpu_id, count=n, precision=precision,
                          batch="max" if users is None else users, absorb=False)
    return best


def _closeness(est: InferenceEstimate) -> tuple:
    """How close a layout comes to serving its load: fits, then the engine budget holds the batch,
    then per-user speed, then the least memory; used to explain the best failing layout."""
    holds = est.max_batch_size is None or est.max_batch_size >= est.batch_size
    return (est.fits, holds, _per_user(est) if est.fits else 0.0, -est.memory.per_gpu_gb)


def _smallest_config(ctx: _Context, model: Model, gpu_id: str, count: int | None, precision: str | None,
                     users: int | None, target: float, total: float | None = None) -> Option | None:
    """The fewest GPUs of ``gpu_id`` that serve the load: ``users`` concurrent sequences at ``target``
    tokens/s each, or (``users`` None) ``total`` output tokens/s in aggregate. With ``count`` given,
    that count, whether it serves the load or not."""
    kb = ctx.kb
    gpu = kb.gpus[gpu_id]
    asked = precision is not None and precision == ctx.query.precision
    if count is None and precision is not None and not asked:
        canonical = _canonical(kb, precision)
        if canonical in ("fp8", "bf16", "fp4", "int8") and not gpu.supports(canonical):
            return None  # the fallback precision has its own row; no need to estimate it twice
    if count is None:
        weights_gb = model.params_total_b * _bytes_per_weight(kb, precision or model.native_precision or "fp16")
        if weights_gb > gpu.memory_gb * MAX_GPUS_PER_CONFIG:
            return None
    try:
        base = _inference(ctx, model, gpu_id, count=count, precision=precision, absorb=False)
        if precision is not None and count is None and not asked and base.precision != _canonical(ctx.kb, precision):
            return None  # a fallback precision (FP8 -> INT8 on an A100) is already covered by its own row
        if count is not None:
            est = _for_users(ctx, model, gpu_id, count, precision, users, total, target)
            return _sized_option(ctx, gpu_id, est, served=_meets(est, target, total))
        if not base.fits:
            return None
        group, replicas = base.gpu_count, 1
        while group * replicas <= MAX_GPUS_PER_CONFIG:
            est = _for_users(ctx, model, gpu_id, group * replicas, precision, users, total, target)
            if _meets(est, target, total):
                return _sized_option(ctx, gpu_id, est, served=True)
            replicas *= 2
    except (EstimationError, AdvisorError):
        return None
    return None


def _meets(est: InferenceEstimate, target: float, total: float | None) -> bool:
    if total is not None:
        return _serves(est, target) and (est.throughput_tokens_per_s or 0) >= total
    return _serves(est, target)


def _bytes_per_weight(kb: KnowledgeBase, precision: str) -> float:
    try:
        return efficiency_for(kb).weight_format(precision)[1].bytes_per_weight
    except AdvisorError:
        return 2.0


def _canonical(kb: KnowledgeBase, precision: str) -> str:
    try:
        return efficiency_for(kb).weight_format(precision)[0]
    except AdvisorError:
        return precision


def _sized_option(ctx: _Context, gpu_id: str, est: InferenceEstimate, *, served: bool | None = None) -> Option:
    """An Option for ``est``; ``fits`` is ``served`` when given (memory, engine budget and speed all hold)."""
    gpu = ctx.kb.gpus[gpu_id]
    price_notes: list[str] = []
    price = _price_for(ctx, gpu_id, est.gpu_count, _group(est), price_notes)
    cpm = None
    if price is not None and est.throughput_tokens_per_s:
        cpm = cost_per_million_tokens(price.price_per_hour_usd, est.throughput_tokens_per_s)
    notes = [w for w in est.warnings][:2] + price_notes
    if price is not None:
        notes.append(f"price: {price.offer.provider} {price.offer.instance_type} ({price_age_note(price.offer, ctx.today)})")
    return Option(
        label=_cfg(ctx.kb, gpu_id, est.gpu_count, est.precision), gpu=gpu_id, gpu_name=gpu.name,
        gpu_count=est.gpu_count, precision=est.precision, fits=est.fits if served is None else served,
        memory_per_gpu_gb=est.memory.per_gpu_gb,
        gpu_memory_gb=est.memory.usable_memory_gb or est.memory.gpu_memory_gb, ttft_s=est.ttft_s,
        decode_tokens_per_s_per_sequence=est.decode_tokens_per_s_per_sequence, tokens_per_s_per_user=_per_user(est),
        throughput_tokens_per_s=est.throughput_tokens_per_s, batch_size=est.batch_size,
        max_batch_size=est.max_batch_size, cost_per_million_tokens_usd=cpm, notes=notes, **_price_fields(price))


def _dedupe_options(options: list[Option]) -> list[Option]:
    seen, out = set(), []
    for o in options:
        key = (o.gpu, o.gpu_count, o.precision)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def _precision_deltas(ctx: _Context, model: Model, chosen: Option | None, users: int | None) -> list[str]:
    if chosen is None or chosen.gpu is None:
        return []
    lines = []
    for prec in ("fp8", "int8", "int4"):
        if prec == chosen.precision:
            continue
        try:
            est = _inference(ctx, model, chosen.gpu, count=None, precision=prec, absorb=False)
        except (EstimationError, AdvisorError):
            continue
        if est.precision != prec:
            lines.append(f"{prec}: not on {chosen.gpu_name} (falls back to {est.precision}).")
            continue
        lines.append(f"{prec}: {est.gpu_count}x {chosen.gpu_name} for the weights, "
                     f"{_num(est.decode_tokens_per_s_per_sequence)} tokens/s per stream "
                     f"({_num(est.memory.weights_gb)} GB of weights).")
    return lines[:3]


# --------------------------------------------------------------------------- training and fine-tuning

def _size_training(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    model = _model(ctx)
    if model is None:
        return _missing(ctx, "the model or its size", "Which model, or what size (e.g. \"a 7B model\")?",
                        ["how long to pretrain a 3b model on 300B tokens with 32 H100s",
                         "train llama 2 7b on 2T tokens on 512 A100s"])
    tokens = q.training_tokens
    if tokens is None:
        tokens = CHINCHILLA_TOKENS_PER_PARAM * model.compute_params_b * 1e9
        ctx.assumptions.append(f"{tokens / 1e9:,.0f}B training tokens: Chinchilla-optimal 20 tokens per parameter "
                               "(Hoffmann et al. 2022); say e.g. \"on 300B tokens\"")
    given = {g.count for g in q.gpus if g.count}
    shared = given.pop() if len(given) == 1 else None  # "L40S vs A100 ... 8 GPUs": the count applies to each
    configs = [(g.id, g.count or shared) for g in q.gpus] or [(g, None) for g in _TRAINING_GPUS]
    if any(count is None for _, count in configs):
        ctx.assumptions.append(f"where no GPU count was given: the fewest GPUs (8, 16, 32, ...) whose memory holds the "
                               f"run, and also the count that finishes within {TARGET_TRAINING_DAYS} days")
    precision = q.precision if q.precision in ("bf16", "fp16", "fp8", "fp32") else "bf16"
    options = []
    for gid, count in configs:
        for est in _training_runs(ctx, model, gid, count, tokens, precision):
            ctx.absorb(est)
            node = min(est.gpu_count, 8)  # training shards over NVLink inside a node, data-parallel across nodes
            price = best_on_demand(kb, gid, est.gpu_count, today=ctx.today, group=node)
            ctx.price_note(price)
            cost = est.gpu_hours * price.price_per_gpu_hour_usd if price and est.gpu_hours else None
            options.append(Option(
                label=_cfg(kb, gid, est.gpu_count, est.precision), gpu=gid, gpu_name=_gpu_label(kb, gid),
                gpu_count=est.gpu_count, precision=est.precision, fits=est.fits,
                memory_per_gpu_gb=est.memory_per_gpu_gb, gpu_memory_gb=_usable(kb, gid),
                gpu_hours=est.gpu_hours, wall_clock_hours=est.wall_clock_hours, total_cost_usd=cost,
                notes=[f"MFU {est.mfu:.0%}, {est.sharding}"], **_price_fields(price, est.gpu_count)))
    if not options:
        return ctx.answer(title=_title(f"Training {model.name}"), verdict="I could not size this training run.")
    rec = _pick_cheapest_run(options)
    o = options[rec] if rec is not None else options[0]
    if o.gpu_hours is None:
        verdict = (f"I cannot time {model.name} on {o.label}: no source gives its dense tensor TFLOPS, so the "
                   f"compute is unknown. Memory: {_num(o.memory_per_gpu_gb)} of {_num(o.gpu_memory_gb)} GB usable "
                   f"per GPU ({'fits' if o.fits else 'does NOT fit'}).")
    else:
        verdict = (f"{model.name} on {tokens / 1e9:,.0f}B tokens: {_num(o.gpu_hours, 0)} GPU-hours on {o.label} "
                   f"= {_hours(o.wall_clock_hours)} wall clock"
                   + (f", about {_usd(o.total_cost_usd)} on-demand" if o.total_cost_usd else "") + "."
                   + ("" if o.fits else " It does NOT fit in memory at this count: add GPUs or shard more."))
    table = Table(columns=["config", "fits", "GB/GPU", "GPU-hours", "wall clock", "$/h", "total"],
                  rows=[[x.label, "yes" if x.fits else "NO", _num(x.memory_per_gpu_gb), _num(x.gpu_hours, 0),
                         _hours(x.wall_clock_hours), _usd(x.price_per_hour_usd), _usd(x.total_cost_usd)]
                        for x in options])
    details = ["FLOPs = 6 x parameters x tokens (8x with full activation recompute); time = FLOPs / (GPUs x dense "
               "peak x MFU); whole-run figures include restarts and evaluation (goodput)."]
    if len({x.gpu for x in options}) >= 2:
        per_gpu = {}
        for x in options:
            if x.gpu_hours and x.gpu not in per_gpu:
                per_gpu[x.gpu] = x
        ranked = sorted(per_gpu.values(), key=lambda x: x.gpu_hours)
        if len(ranked) >= 2:
            fast, slow = ranked[0], ranked[-1]
            details.insert(0, f"Per GPU, {fast.gpu_name} trains {slow.gpu_hours / fast.gpu_hours:.1f}x faster than "
                              f"{slow.gpu_name} ({_num(fast.gpu_hours, 0)} vs {_num(slow.gpu_hours, 0)} GPU-hours): "
                              f"dense {fast.precision} peak {_num(kb.gpus[fast.gpu].dense_tflops.bf16, 0)} vs "
                              f"{_num(kb.gpus[slow.gpu].dense_tflops.bf16, 0)} TFLOPS.")
            nv = {x.gpu_name: kb.gpus[x.gpu].nvlink_gb_s for x in ranked}
            if len(set(nv.values())) > 1:
                details.insert(1, "NVLink per GPU: " + ", ".join(f"{k} {v:,.0f} GB/s" if v else f"{k} none"
                                                                 for k, v in nv.items())
                               + " (matters for tensor parallelism across GPUs).")
    return ctx.answer(title=_title(f"Training {model.name}"), verdict=verdict, details=details, table=table,
                      options=options, recommendation=rec, actions=[Action(action_id="show_assumptions",
                                                                           label="Show assumptions")])


#: Wall clock a training run is sized for when the user gives no GPU count, days.
TARGET_TRAINING_DAYS = 30
_TRAINING_COUNTS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def _training_runs(ctx: _Context, model: Model, gpu_id: str, count: int | None, tokens: float, precision: str):
    """The run at the count given; or, without one, the fewest GPUs that fit and (if slower than
    :data:`TARGET_TRAINING_DAYS`) the fewest that finish within it."""
    try:
        if count is not None:
            return [estimate_training(ctx.kb, model, gpu_id, count, tokens, precision=precision)]
        runs, smallest = [], None
        for n in _TRAINING_COUNTS:
            est = estimate_training(ctx.kb, model, gpu_id, n, tokens, precision=precision)
            if est.fits and smallest is None:
                smallest = est
                runs.append(est)
            if smallest is not None and (est.wall_clock_hours or 0) <= TARGET_TRAINING_DAYS * 24:
                if est is not smallest:
                    runs.append(est)
                break
        return runs or [estimate_training(ctx.kb, model, gpu_id, _TRAINING_COUNTS[-1], tokens, precision=precision)]
    except (EstimationError, AdvisorError) as exc:
        ctx.warnings.append(f"{_gpu_label(ctx.kb, gpu_id)}: {exc}")
        return []


def _pick_cheapest_run(options: list[Option]) -> int | None:
    fitting = [i for i, o in enumerate(options) if o.fits]
    if not fitting:
        return None
    in_time = [i for i in fitting if (options[i].wall_clock_hours or math.inf) <= TARGET_TRAINING_DAYS * 24]
    fitting = in_time or fitting
    priced = [i for i in fitting if options[i].total_cost_usd is not None]
    if priced:
        return min(priced, key=lambda i: options[i].total_cost_usd)
    return min(fitting, key=lambda i: options[i].wall_clock_hours or math.inf)


def _finetune(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    model = _model(ctx)
    if model is None:
        return _missing(ctx, "the model", "Which model do you want to fine-tune?",
                        ["can i qlora llama 70b on 2x 3090", "lora llama 3 8b with 8k ctx on 1x a100 80gb"])
    methods = [q.method] if q.method else ["full", "lora", "qlora"]
    gpus = [(g.id, g.count) for g in q.gpus] or [(g, None) for g in _FINETUNE_GPUS]
    tokens = q.training_tokens
    if tokens is None:
        ctx.assumptions.append(f"time and cost shown for {DEFAULT_FINETUNE_TOKENS / 1e6:,.0f}M fine-tuning tokens "
                               "(epochs x dataset tokens; say e.g. \"on 50M tokens\")")
    seq = q.context_tokens
    options: list[Option] = []
    for gid, count in gpus:
        for method in methods:
            est = _fit_finetune(ctx, model, gid, count, method, seq, tokens)
            if est is None:
                continue
            ctx.absorb(est)
            price = best_on_demand(kb, gid, est.gpu_count, today=ctx.today, group=min(est.gpu_count, 8))
            ctx.price_note(price)
            cost = est.gpu_hours * price.price_per_gpu_hour_usd if price and est.gpu_hours else None
            options.append(Option(
                label=f"{_cfg(kb, gid, est.gpu_count)}, {method}", gpu=gid, gpu_name=_gpu_label(kb, gid),
                gpu_count=est.gpu_count, precision=est.precision, fits=est.fits,
                memory_per_gpu_gb=est.memory_per_gpu_gb, gpu_memory_gb=_usable(kb, gid),
                gpu_hours=est.gpu_hours, wall_clock_hours=est.wall_clock_hours, total_cost_usd=cost,
                notes=[f"{method}: {est.trainable_params / 1e6:,.1f}M trainable parameters, {est.sharding}"
                       + (", gradient checkpointing" if _checkpointed(est) else "")], **_price_fields(price)))
    if not options:
        return ctx.answer(title=_title(f"Fine-tuning {model.name}"), verdict="I could not size this fine-tune.")
    extra = _finetune_comparison(options, [g for g, _ in gpus]) if len(gpus) >= 2 else []
    fitting = [i for i, o in enumerate(options) if o.fits]
    rec = min(fitting, key=lambda i: (options[i].total_cost_usd or math.inf, options[i].gpu_count)) if fitting else None
    if rec is not None:
        o = options[rec]
        verdict = (f"{o.label} fits: {_num(o.memory_per_gpu_gb)} of {_num(o.gpu_memory_gb)} GB usable per GPU "
                   f"({o.notes[0].split(', ', 1)[1] if ', ' in o.notes[0] else o.notes[0]})"
                   + (f"; {_num(o.gpu_hours)} GPU-hours, about {_usd(o.total_cost_usd)}" if o.total_cost_usd else "")
                   + ".")
        full = [x for x in options if x.label.endswith(", full") and not x.fits]
        if full and "full" in methods and len(methods) > 1:
            extra.insert(0, f"Full fine-tuning does not fit on {full[0].label.removesuffix(', full')}: it needs "
                            f"{_num(full[0].memory_per_gpu_gb)} GB per GPU even sharded (16 bytes per parameter).")
    else:
        o = min(options, key=lambda x: x.memory_per_gpu_gb or math.inf)
        tried_qlora = "qlora" in methods
        fixes = ("a shorter sequence (say e.g. \"1k context\"), more GPUs, CPU offload of the optimizer, or a "
                 "bigger GPU") if tried_qlora else "QLoRA, more GPUs, a shorter sequence or a bigger GPU"
        verdict = (f"None of these fits: the lightest, {o.label}, needs {_num(o.memory_per_gpu_gb)} GB per GPU of "
                   f"{_num(o.gpu_memory_gb)} GB usable (already with gradient checkpointing and sharding where "
                   f"they apply). Try {fixes}.")
        if seq is None and o.gpu:  # the sequence length was our default: does a shorter one fit?
            method = o.label.rsplit(", ", 1)[-1]
            short = _fit_finetune(ctx, model, o.gpu, o.gpu_count, method, 1024, tokens)
            if short is not None and short.fits:
                extra.insert(0, f"At a 1,024-token sequence {o.label} fits: {_num(short.memory_per_gpu_gb)} GB per "
                                "GPU (say e.g. \"1k context\" if your examples are that short).")
    table = Table(columns=["config", "fits", "GB/GPU", "GPU-hours", "$/h", "total"],
                  rows=[[x.label, "yes" if x.fits else "NO", _num(x.memory_per_gpu_gb), _num(x.gpu_hours),
                         _usd(x.price_per_hour_usd), _usd(x.total_cost_usd)] for x in options[:9]])
    if q.diagnosis is not None and q.diagnosis.kind == "oom":
        extra = _oom_fixes(q, training=True) + extra
    details = extra + ["Full: 16 bytes/param (bf16 weights and grads, fp32 Adam states) + activations, sharded with "
                       "ZeRO when it helps; LoRA: frozen 16-bit base + adapters; QLoRA: 4-bit NF4 base + adapters."]
    return ctx.answer(title=_title(f"Fine-tuning {model.name}"), verdict=verdict, details=details, table=table,
                      options=options[:9], recommendation=rec if rec is not None and rec < 9 else None,
                      actions=[Action(action_id="show_assumptions", label="Show assumptions")])


def _checkpointed(est) -> bool:
    return any(a.startswith("activations: full recompute") for a in est.assumptions)


def _finetune_comparison(options: list[Option], gpu_ids: list[str]) -> list[str]:
    """"A100 SXM4 80GB runs this 2.9x faster than V100 (x vs y GPU-hours) and costs $a vs $b per run"."""
    lines = []
    for method in ("full", "lora", "qlora"):
        rows = [o for o in options if o.label.endswith(f", {method}") and o.fits and o.gpu_hours]
        by_gpu = {o.gpu: o for o in rows}
        if len(by_gpu) < 2:
            continue
        a, b = by_gpu.get(gpu_ids[0]), by_gpu.get(gpu_ids[1])
        if a is None or b is None:
            continue
        fast, slow = (a, b) if a.gpu_hours <= b.gpu_hours else (b, a)
        line = (f"{method}: per GPU, {fast.gpu_name} is {slow.gpu_hours / fast.gpu_hours:.1f}x faster than "
                f"{slow.gpu_name} ({_num(fast.gpu_hours)} vs {_num(slow.gpu_hours)} GPU-hours; wall clock "
                f"{_hours(fast.wall_clock_hours)} on {fast.gpu_count} vs {_hours(slow.wall_clock_hours)} on "
                f"{slow.gpu_count})")
        if a.total_cost_usd and b.total_cost_usd:
            cheap, dear = (a, b) if a.total_cost_usd <= b.total_cost_usd else (b, a)
            line += (f"; {cheap.gpu_name} is cheaper per run: {_usd(cheap.total_cost_usd)} vs "
                     f"{_usd(dear.total_cost_usd)}")
        lines.append(line + ".")
    return lines


def _fit_finetune(ctx: _Context, model: Model, gpu_id: str, count: int | None, method: str, seq: int | None,
                  tokens: float | None):
    """The first setup that fits: fewest GPUs (or the count given), then gradient checkpointing, then
    FSDP sharding of the frozen weights (LoRA/QLoRA) - the order practitioners reach for them
    (the QLoRA paper uses checkpointing; FSDP+QLoRA shards the 4-bit base across GPUs)."""
    last = None
    counts = [count] if count else ([1, 2, 4, 8, 16, 32, 64, 128, 256] if method == "full" else [1, 2, 4, 8])
    for n in counts:
        setups = [(False, "auto"), (True, "auto")]
        if n > 1:
            setups.append((True, "fsdp" if method != "full" else "zero3"))
        for checkpointing, sharding in setups:
            try:
                est = estimate_finetune(ctx.kb, model, gpu_id, count=n, method=method, seq_len=seq,
                                        tokens=tokens or DEFAULT_FINETUNE_TOKENS,
                                        gradient_checkpointing=checkpointing, sharding=sharding)
            except (EstimationError, AdvisorError) as exc:
                ctx.warnings.append(f"{_gpu_label(ctx.kb, gpu_id)} {method}: {exc}")
                return last
            last = est
            if est.fits:
                return est
    return last


# --------------------------------------------------------------------------- quote

def _quote(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    if q.model is not None and (not q.gpus or q.method or q.workload in ("finetune", "training")):
        # "cost to pretrain a 7B", "4090 vs a100 for 7b lora, which is cheaper": the price of a workload
        if q.workload == "finetune" or q.method:
            return _finetune(ctx)
        if q.workload == "training":
            return _size_training(ctx)
        return _size_inference(ctx)
    if not q.gpus and (q.price_limit_per_hour_usd or q.budget_usd):
        return _recommend(ctx)  # "what can I run for $2/hr": a budget, not a GPU to price
    if not q.gpus:
        return _missing(ctx, "the GPU", "Which GPU, and how many? (e.g. \"8x H100 for 3 days\")",
                        ["8x H100 for 3 days", "price of p5.48xlarge", "A100 80GB on runpod per hour"])
    hours = q.duration_hours
    if hours is None:
        hours = DEFAULT_QUOTE_HOURS
        ctx.assumptions.append("priced per hour (say e.g. \"for 3 days\" for a total)")
    details, options, tables = [], [], []
    lead: list[str] = []  # what the user asked for and I do not have: said first, in the verdict
    rows_all: list[tuple[str, QuoteRow]] = []
    for mention in q.gpus[:3]:
        count = mention.count or 1
        if mention.count is None:
            ctx.assumptions.append(f"1x {_gpu_label(kb, mention.id)} (say e.g. \"8x\")")
        rows = quote_prices(kb, mention.id, count, hours, today=ctx.today, provider=q.provider, pricing=q.pricing)
        if rows and q.pricing and q.pricing != "on_demand":  # "commitment vs on-demand": show both, asked first
            others = quote_prices(kb, mention.id, count, hours, today=ctx.today, provider=q.provider,
                                  pricing="on_demand")
            rows = rows + others
        if not rows and q.pricing:
            lead.append(f"I have no {q.pricing.replace('_', '-')} prices for {count}x {_gpu_label(kb, mention.id)}; "
                        "these are every pricing model I have.")
            rows = quote_prices(kb, mention.id, count, hours, today=ctx.today, provider=q.provider)
        if not rows and q.provider:
            ctx.warnings.append(f"{kb.providers[q.provider].provider_name if q.provider in kb.providers else q.provider} "
                                f"has no price for {count}x {_gpu_label(kb, mention.id)} in my data; showing all providers")
            rows = quote_prices(kb, mention.id, count, hours, today=ctx.today, pricing=q.pricing)
        instance = get_index(kb).lookup("instance", mention.as_written, fuzzy=False)
        if instance is not None:
            named = [r for r in rows if r.offer.instance_type == instance.alias]
            if named:  # the instance the user named goes first, whatever it costs
                rows = named + [r for r in rows if r not in named]
            else:
                lead.append(f"I have no price for {instance.alias} ({instance.gpu_count}x "
                            f"{_gpu_label(kb, instance.id)}); these are other ways to rent the same GPUs.")
        if count > 1:  # one machine with all the GPUs before several smaller instances (no NVLink between them)
            rows.sort(key=lambda r: (r.instances > 1, r.total_usd))
        rows_all += [(mention.id, r) for r in rows]
    if not rows_all:
        names = ", ".join(_gpu_label(kb, g.id) for g in q.gpus)
        return ctx.answer(title=_title(f"Prices for {names}"),
                          verdict=f"I have no prices for {names} in a size that divides the count asked.",
                          details=["Try another count (instances come in 1, 2, 4 or 8 GPUs)."])
    table_rows = []
    for gid, r in rows_all[:20]:
        o = r.offer
        pricing = {"on_demand": "on-demand", "spot": "spot", "commitment": f"commitment ({o.commitment_term})"}[
            o.pricing_model]
        if o.marketplace:
            pricing += ", marketplace"
        if o.condition:
            pricing += ", conditional"
        table_rows.append([kb.providers[o.provider].provider_name, o.instance_type[:38],
                           f"{r.instances} separate" if r.instances > 1 else "1", pricing, _usd(r.price_per_hour_usd),
                           _usd(r.total_usd), (str(o.as_of) if o.as_of else "undated") + (" (!)" if r.stale else "")])
        options.append(Option(label=f"{kb.providers[o.provider].provider_name} {o.instance_type}", gpu=gid,
                              gpu_name=_gpu_label(kb, gid), gpu_count=r.instances * o.gpu_count,
                              provider=o.provider, instance_type=o.instance_type, pricing_model=o.pricing_model,
                              price_per_hour_usd=r.price_per_hour_usd, price_as_of=o.as_of, price_stale=r.stale,
                              total_cost_usd=r.total_usd, notes=list(o.notes[:1])))
        ctx.price_dates.append(o.as_of)
        ctx.sources.append(o.source)
    fresh = [i for i, (_, r) in enumerate(rows_all[:20])
             if r.offer.pricing_model == "on_demand" and not r.stale and not r.offer.condition]
    one_machine = [i for i in fresh if rows_all[i][1].instances == 1]
    rec = (one_machine or fresh or [0])[0] if rows_all else None
    if rec is not None and rows_all[rec][1].instances > 1:
        r = rows_all[rec][1]
        details.append(f"No single instance with {r.instances * r.offer.gpu_count} of these GPUs has a fresh price: "
                       f"this is {r.instances} separate {r.offer.gpu_count}-GPU instances, with no NVLink between "
                       "them (fine for independent jobs or data parallelism, slow for tensor parallelism).")
    best = options[rec] if rec is not None else None
    count = best.gpu_count if best else 1
    label = f"{count}x {best.gpu_name}" if best else ""
    verdict = (f"Cheapest current on-demand for {label}: {best.label} at {_usd(best.price_per_hour_usd)}/h, "
               f"{_usd(best.total_cost_usd)} for {_hours(hours)}." if best else "No price found.")
    if not fresh and best:
        verdict = (f"Cheapest listed for {label}: {best.label} at {_usd(best.price_per_hour_usd)}/h "
                   f"({_usd(best.total_cost_usd)} for {_hours(hours)}), but no fresh on-demand price: re-check it.")
    if lead:
        verdict = " ".join(lead) + " " + verdict
    commitment = [r for _, r in rows_all if r.offer.pricing_model == "commitment"]
    if commitment:
        c = commitment[0]
        details.append(f"{kb.providers[c.offer.provider].provider_name}'s {_usd(c.price_per_gpu_hour_usd)}/GPU-hour is a "
                       f"commitment price ({c.offer.commitment_term}), not on-demand: \"from ${c.price_per_gpu_hour_usd:.2f}\" "
                       "headlines usually hide the term.")
    stale = sum(1 for _, r in rows_all[:20] if r.stale)
    if stale:
        details.append(f"(!) {stale} price(s) are undated catalog snapshots or older than {STALE_AFTER_DAYS} days; "
                       "cloud prices change monthly, re-check before buying.")
    tables.append(Table(columns=["provider", "instance", "instances", "pricing", "$/h", f"total {_hours(hours)}",
                                 "as of"],
                        rows=table_rows))
    variants = [m for m in q.gpus if m.variant_assumed]
    for m in variants:
        ctx.assumptions.append(f"\"{m.as_written}\" priced as {_gpu_label(kb, m.id)}; other variants differ")
    return ctx.answer(title=_title(f"Price for {label}" + (f", {_hours(hours)}" if q.duration_hours else "")),
                      verdict=verdict, details=details, table=tables[0], options=options, recommendation=rec)


# --------------------------------------------------------------------------- recommend

def _recommend(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    if q.model is not None:
        return _size_inference(ctx)
    if q.gpus and (q.pricing or q.provider or q.duration_hours):
        return _quote(ctx)  # "cheapest H100 spot": renting a named GPU is a price question
    if q.gpus:
        return _what_fits(ctx)
    limit = q.price_limit_per_hour_usd
    if limit is None and q.budget_usd and q.duration_hours:
        limit = q.budget_usd / q.duration_hours
    if limit is None:
        return _missing(ctx, "a model or a budget", "What will you run (a model), or what budget per hour?",
                        ["best GPU for serving Llama 3 8B", "what can I run for $2/hr", "双卡A4000有好的方案吗？"])
    rows, options = [], []
    for gid in _priced_gpus(kb):
        best = best_on_demand(kb, gid, 1, today=ctx.today)
        if best is None or best.price_per_hour_usd > limit:
            continue
        g = kb.gpus[gid]
        options.append(Option(label=g.name, gpu=gid, gpu_name=g.name, gpu_count=1, gpu_memory_gb=g.memory_gb,
                              provider=best.offer.provider, instance_type=best.offer.instance_type,
                              price_per_hour_usd=best.price_per_hour_usd, price_as_of=best.offer.as_of,
                              price_stale=best.stale))
        ctx.price_note(best)
    options.sort(key=lambda o: (-(o.gpu_memory_gb or 0), o.price_per_hour_usd))
    for o in options[:8]:
        largest = {label: m for label, m, _ in _largest_models(ctx, kb.gpus[o.gpu], 1)}
        rows.append([o.label, _num(o.gpu_memory_gb, 0), _num(kb.gpus[o.gpu].memory_bandwidth_gb_s, 0),
                     _usd(o.price_per_hour_usd), o.provider or "",
                     largest["bf16/fp16"].name if largest["bf16/fp16"] else "-",
                     largest["int4"].name if largest["int4"] else "-"])
    verdict = (f"Within {_usd(limit)}/h per GPU, {options[0].label} gives the most memory "
               f"({_num(options[0].gpu_memory_gb, 0)} GB)." if options else f"Nothing I know costs under {_usd(limit)}/h.")
    return ctx.answer(title=_title(f"GPUs under {_usd(limit)}/h"), verdict=verdict,
                      table=Table(columns=["GPU", "GB", "GB/s", "$/h", "provider", "largest fp16 model",
                                           "largest int4 model"], rows=rows),
                      options=options[:8], recommendation=0 if options else None)


#: Activation memory of a non-LLM model (diffusion UNet/transformer, Whisper) as a share of its fp16
#: weights, for "does it fit": a stated rule of thumb, since these models' activations depend on image
#: size and batch.
NON_LLM_ACTIVATION_HEADROOM = 0.2

#: Share of the engine's memory budget left for the KV cache and activations when answering "what fits"
#: without a workload: room for a few users at a few thousand tokens of context (a stated assumption).
KV_HEADROOM_FRACTION = 0.15


def _largest_models(ctx: _Context, gpu: Gpu, count: int) -> list[tuple[str, Model | None, float]]:
    """Per precision (16-bit, int8, int4): the largest known LLM whose weights fit on ``count`` x ``gpu``,
    and the parameter budget (billions): usable memory x the engine's 0.9 budget x (1 - KV headroom),
    less 1 GB runtime per GPU, divided by the format's bytes per weight (efficiency.yaml)."""
    eff = efficiency_for(ctx.kb)
    budget_gb = (usable_memory_gb(eff, gpu) * eff.engine("vllm")[1].memory_utilization - eff.c("cuda_context_gb"))
    budget_gb *= count * (1 - KV_HEADROOM_FRACTION)
    out = []
    for label, fmt in (("bf16/fp16", "fp16"), ("int8", "int8"), ("int4", "int4")):
        bpw = eff.weight_format(fmt)[1].bytes_per_weight
        params_b = budget_gb / bpw
        fits = [m for m in ctx.kb.models.values() if m.kind == "llm" and m.params_total_b <= params_b]
        out.append((label, max(fits, key=lambda m: m.params_total_b, default=None), params_b))
    return out


def _what_fits(ctx: _Context) -> Answer:
    """Which published models fit on the GPUs named (weights only, with KV-cache headroom)."""
    q, kb = ctx.query, ctx.kb
    mention = q.gpus[0]
    count = mention.count or 1
    gpu = kb.gpus[mention.id]
    total_gb = gpu.memory_gb * count
    rows = [[label, f"{m.name} ({m.params_total_b:.0f}B)" if m else "none", f"~{params_b:,.0f}B params"]
            for label, m, params_b in _largest_models(ctx, gpu, count)]
    ctx.assumptions.append(f"{KV_HEADROOM_FRACTION:.0%} of vLLM's memory budget kept for the KV cache and "
                           "activations (a few users at a few thousand tokens), the CUDA context per GPU, and the "
                           "bytes per weight of each format (knowledge/efficiency.yaml)")
    details = _spec_facts(ctx, [gpu.id])
    if count > 1 and gpu.nvlink_gb_s is None:
        details.append(f"{count}x {gpu.name} split a model with tensor or pipeline parallelism over PCIe; "
                       "expect lower efficiency than on NVLink GPUs.")
    product = _product_number(gpu.name).upper()
    return ctx.answer(title=_title(f"What runs on {count}x {gpu.name} ({total_gb:,.0f} GB)"),
                      verdict=f"{count}x {gpu.name} has {total_gb:,.0f} GB in all; the largest models that fit are below.",
                      details=details, table=Table(columns=["precision", "largest known model", "rule of thumb"],
                                                   rows=rows),
                      examples=[f"serve Qwen2.5 32B on {count}x {product} int4"])


# --------------------------------------------------------------------------- spec lookup

_CLAIM = re.compile(r"\b(\d+)\s*x\b|\d+\s*倍|transistor|晶体管|faster|更快", re.IGNORECASE)


def _spec_lookup(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    gpu_ids = [g.id for g in q.gpus]
    if not gpu_ids:
        return _missing(ctx, "the GPU", "Which GPU do you want to know about?",
                        ["H100 specs", "can 4090s do p2p / nvlink?", "is the H100 30x faster than the A100?"])
    if _CLAIM.search(q.text) and len(gpu_ids) >= 1 and ("h100" in " ".join(gpu_ids) or "a100" in " ".join(gpu_ids)):
        return _marketing(ctx, gpu_ids)
    answer = _spec_comparison(ctx, gpu_ids, ask_model=False)
    g = kb.gpus[gpu_ids[0]]
    verdict = f"{g.name}: {g.memory_gb:g} GB {g.memory_type or ''} at {g.memory_bandwidth_gb_s:,.0f} GB/s"
    if g.dense_tflops.bf16 or g.dense_tflops.fp16:
        verdict += f", {(g.dense_tflops.bf16 or g.dense_tflops.fp16):,.0f} dense 16-bit TFLOPS"
    verdict += "."
    if len(gpu_ids) > 1:
        verdict = "Specs side by side (dense tensor TFLOPS, no sparsity)."
    if re.search(r"nv-?link|p2p|peer[\s-]to[\s-]peer|互联|multi-?gpu", q.text, re.IGNORECASE):
        verdict = " ".join(_interconnect_fact(kb.gpus[g]) for g in gpu_ids)
        ctx.sources.append("estimation-notes.md: feature gates (RTX 4090 has no NVLink or P2P)")
    elif q.precision:
        verdict = " ".join(_precision_fact(kb.gpus[g], q.precision) for g in gpu_ids)
    return answer.model_copy(update={"verdict": verdict, "intent": "spec_lookup", "sources": _dedupe(ctx.sources)[:12]})


def _interconnect_fact(g: Gpu) -> str:
    if g.nvlink_gb_s:
        return f"{g.name}: NVLink, {g.nvlink_gb_s:,.0f} GB/s per GPU ({g.interconnect or 'bridge or switch'})."
    if g.segment == "consumer" and g.cc and g.cc >= 8.9:
        return (f"{g.name}: no NVLink, and peer-to-peer (P2P) over PCIe is not enabled on GeForce 40-series and newer: "
                "multi-GPU traffic goes through host memory, so tensor parallelism and data-parallel all-reduces are "
                "slow; prefer pipeline parallelism or one model per GPU.")
    return f"{g.name}: no NVLink; GPUs talk over PCIe Gen{g.pcie_gen or '?'}."


def _precision_fact(g: Gpu, precision: str) -> str:
    if g.supports(precision):
        return f"{g.name} supports {precision}."
    alt = {"bf16": "fp16 (torch_dtype=torch.float16; vLLM --dtype half)",
           "fp8": "INT8 (W8A8) or INT4 weight-only (AWQ/GPTQ)", "tf32": "fp32 or fp16"}.get(precision, "another format")
    return (f"{g.name} has no {precision} (compute capability {g.compute_capability or 'n/a'}): use {alt}. "
            "A model trained in bf16 loads in fp16 after a cast; watch for overflow in activations.")


def _marketing(ctx: _Context, gpu_ids: list[str]) -> Answer:
    kb = ctx.kb
    h, a = kb.gpus["h100-sxm-80gb"], kb.gpus["a100-sxm-80gb"]
    bw = h.memory_bandwidth_gb_s / a.memory_bandwidth_gb_s
    bf16 = h.dense_tflops.bf16 / a.dense_tflops.bf16
    fp8_vs_16 = h.dense_tflops.fp8 / a.dense_tflops.bf16
    ctx.sources += h.sources[:1] + a.sources[:1]
    ctx.sources.append("refdata-notes.md section 8 (marketing claims checked), via knowledge/gpus.yaml entries")
    rows = [["memory bandwidth (single-stream decode)", f"{bw:.2f}x"],
            ["dense bf16 tensor TFLOPS (batched work, training)", f"{bf16:.2f}x"],
            ["H100 fp8 vs A100 bf16 (peak)", f"{fp8_vs_16:.2f}x"]]
    if h.transistors_billion and a.transistors_billion:
        rows.append(["transistors", f"{h.transistors_billion:g}B vs {a.transistors_billion:g}B = "
                                    f"{h.transistors_billion / a.transistors_billion:.2f}x"])
    details = [
        "\"Up to 30x inference / 9x training\" are NVIDIA's cluster-scale claims (large clusters, NVLink Switch, "
        "FP8, selected models), not per-GPU speedups: do not use them as multipliers.",
        f"Per GPU at the same precision: about 1.5-1.8x when decode is bandwidth bound ({bw:.2f}x bandwidth), "
        f"2-2.6x for batched compute-bound work ({bf16:.2f}x peak), 3-4x only with FP8 on the H100 against "
        "FP16 on the A100.",
    ]
    if h.transistors_billion and a.transistors_billion:
        details.append(f"\"80 billion transistors, six times the A100\" is false: the A100 has "
                       f"{a.transistors_billion:g}B, so {h.transistors_billion / a.transistors_billion:.2f}x; "
                       "the \"6x\" is a Transformer-Engine FP8 training claim.")
    return ctx.answer(title="H100 vs A100: what is true per GPU",
                      verdict=f"Measured per GPU, an H100 SXM is {bw:.2f}x an A100 in bandwidth and {bf16:.2f}x in "
                              "dense bf16, not 30x.",
                      details=details, table=Table(columns=["H100 SXM vs A100 SXM 80GB", "ratio"], rows=rows),
                      intent="spec_lookup")


# --------------------------------------------------------------------------- diagnose

def _diagnose(ctx: _Context) -> Answer:
    q, kb = ctx.query, ctx.kb
    d = q.diagnosis
    model = _model(ctx)
    gpu = kb.gpus[q.gpus[0].id] if q.gpus else None
    if d is None or d.kind == "other":
        details = ["Garbage output or generation that never stops across multiple GPUs usually comes from the "
                   "kernel or quantisation path, not from memory: check that the GPTQ/AWQ kernels support the "
                   "GPU (compute capability) and try the same weights with tensor parallelism off."]
        multi_geforce = [kb.gpus[m.id] for m in q.gpus if (m.count or 1) > 1 and kb.gpus[m.id].segment == "consumer"
                         and kb.gpus[m.id].nvlink_gb_s is None]
        if multi_geforce:
            details.insert(0, f"{multi_geforce[0].name} has no NVLink and no PCIe P2P: multi-GPU runs that assume P2P "
                              "can hang or corrupt results; set NCCL_P2P_DISABLE=1 and retry.")
        return ctx.answer(title="About that problem", verdict="That does not look like a memory or speed sizing "
                          "problem; the likely causes are below.", details=details, examples=EXAMPLES[:3])
    if d.kind == "feature_gate":
        feature = (d.feature or "").lower()
        need = d.required_compute_capability
        capable = [g.name for g in kb.gpus.values()
                   if g.cc and need and g.cc >= need and g.segment == "datacenter"][:4]
        fixes = []
        if feature == "fp8":
            fixes = ["Load a 16-bit or INT8/INT4 weight-only checkpoint instead (AWQ/GPTQ int4 or W8A8 int8 run on "
                     "Ampere); FP8 tensor cores need Ada or Hopper (compute capability 8.9/9.0).",
                     f"Or use GPUs with FP8: {', '.join(capable) or 'H100, H200, L40S, L4'}."]
        elif feature == "bf16":
            fixes = ["Use fp16 instead (torch_dtype=torch.float16, --dtype half in vLLM); bf16 needs compute "
                     "capability 8.0 (Ampere) or newer.",
                     "Or fine-tune/serve on an Ampere or newer GPU (A100, A10, L4, RTX 30/40)."]
        else:
            fixes = [f"This needs compute capability {need or 'newer'}: use a newer GPU or a kernel that supports yours."]
        if model is not None and gpu is not None:
            ans = _size_inference(ctx)
            fixes.append(f"On {gpu.name}: {ans.verdict}")
        return ctx.answer(title=f"{(d.feature or 'feature').upper()} needs a newer GPU",
                          verdict=f"The error is a hardware feature gate: {d.feature or 'this feature'} needs compute "
                                  f"capability >= {need or '?'}"
                                  + (f", and {gpu.name} has {gpu.compute_capability}." if gpu and gpu.compute_capability
                                     else "."),
                          details=fixes)
    # out of memory
    details = []
    if d.total_capacity_gib:
        details.append(f"The GPU reports {d.total_capacity_gib:g} GiB total capacity"
                       + (f" (that is {gpu.name}: {gpu.memory_gb:g} GB marketed; GiB = 2^30 bytes)" if gpu else "")
                       + ".")
    if model is not None and gpu is not None and model.kind == "llm":
        count = q.gpus[0].count
        try:
            est = _inference(ctx, model, gpu.id, count=count, precision=q.precision)
            details.append(f"{model.name} on {est.gpu_count}x {gpu.name} ({est.precision}) needs "
                           f"{_num(est.memory.per_gpu_gb)} GB per GPU: weights {_num(est.memory.weights_gb)} GB, "
                           f"KV cache {_num(est.memory.kv_cache_gb)} GB at {est.context_tokens:,} tokens, overhead "
                           f"{_num(est.memory.overhead_gb)} GB." + ("" if est.fits else " It does not fit."))
        except (EstimationError, AdvisorError):
            pass
    training = q.workload in ("training", "finetune") or q.method is not None or bool(
        re.search(r"backward|optimizer|\.step\(|trainer|accelerate|deepspeed|loss", q.text, re.IGNORECASE))
    fixes = _oom_fixes(q, training=training)
    return ctx.answer(title="Out of GPU memory", verdict=(
                      "Training needs more memory than the GPU has (weights, gradients, optimizer states and "
                      "activations); the three fixes that work are below." if training else
                      "The model, its KV cache and the runtime need more memory than the GPU has; the three fixes "
                      "that work are below."), details=details + fixes,
                      actions=_next_actions(q, model) if model else [])


def _oom_fixes(q: Query, *, training: bool) -> list[str]:
    """The three fixes that work for an out-of-memory error, for training or for serving."""
    if training:
        fixes = ["Cut activation memory: a smaller micro-batch (raise gradient accumulation to keep the global batch) "
                 "or a shorter sequence length, and turn on gradient checkpointing (~33% more compute).",
                 "Shard the model states: ZeRO-2/3 or FSDP across the GPUs, an 8-bit optimizer (Adam states 12 -> ~6 "
                 "bytes/param), or LoRA/QLoRA instead of a full fine-tune.",
                 "Fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True when reserved memory is much larger "
                 "than allocated; otherwise more GPUs or a GPU with more memory."]
    else:
        fixes = ["Shorten the context or the batch: lower --max-model-len / max_total_tokens and --max-num-seqs (the "
                 "KV cache grows with context x concurrent sequences).",
                 "Quantise: int8 halves and int4 quarters the weights (AWQ/GPTQ), or use an fp8/int8 KV cache.",
                 "Add GPUs with tensor parallelism (--tensor-parallel-size 2/4/8), or pick a GPU with more memory."]
    return fixes


# --------------------------------------------------------------------------- help and dispatch

def help_answer(query: Query, kb: KnowledgeBase, *, reset: bool = False, usage: str | None = None,
                today: date | None = None) -> Answer:
    """What the bot does and example questions (empty input, "help", noise, "reset")."""
    ctx = _Context(query, kb, today or date.today())
    examples = EXAMPLES_ZH + EXAMPLES[:2] if query.language == "zh" else EXAMPLES
    if usage:
        examples = [usage, *examples[:4]]
    verdict = ("Started over. " if reset else "") + (
        "I size GPUs for AI work: which GPU, how many, how fast and what it costs, with sources.")
    details = ["Ask me to compare GPUs for a model, size serving for N users, estimate training or fine-tuning, "
               "quote prices across providers, or explain a CUDA out-of-memory error.",
               "In Slack: mention me, DM me (follow-ups keep the context; \"reset\" starts over), or use "
               "/gpu <question>, /gpu-quote 8x H100 for 3 days, /gpu-size llama 3 70b, 200 users, 8k context."]
    if query.intent == "unknown" and query.text.strip():
        verdict = "I could not find a GPU, model or workload in that. " + verdict
    return ctx.answer(title="GPU Advisor", verdict=verdict, details=details, examples=examples,
                      intent="help" if query.intent != "unknown" else "unknown", price_dates=None)


_HANDLERS: dict[str, Callable[[_Context], Answer]] = {
    "compare": _compare,
    "size_inference": _size_inference,
    "size_training": _size_training,
    "finetune": _finetune,
    "quote": _quote,
    "recommend": _recommend,
    "spec_lookup": _spec_lookup,
    "diagnose": _diagnose,
}


def advise(query: Query, kb: KnowledgeBase, *, today: date | None = None) -> Answer:
    """Answer a parsed question.

    Args:
        query: from :func:`bot.parsing.parser.parse_question` (or a merged follow-up).
        kb: the knowledge base.
        today: the date price staleness is judged against (default: today).

    Returns:
        The :class:`Answer`. Questions without what they need ask for it, with examples.

    Raises:
        AdvisorError: only for inconsistent knowledge; unknown names come back as warnings.
    """
    today = today or date.today()
    if query.config_error:
        ctx = _Context(query, kb, today)
        return ctx.answer(title="I could not use that config.json", verdict=f"Sorry: {query.config_error}.",
                          details=["Paste the model's whole config.json (it needs num_hidden_layers, hidden_size, "
                                   "num_attention_heads, intermediate_size and vocab_size), or give the size instead, "
                                   "e.g. \"a 13B model, 40 layers, GQA 8\"."], examples=EXAMPLES[:3])
    handler = _HANDLERS.get(query.intent)
    if handler is None:
        return help_answer(query, kb, today=today)
    answer = handler(_Context(query, kb, today))
    if query.language == "zh":
        answer = _with_chinese_summary(answer)
    return answer


_ZH_ASK = {"the model": "请问是哪个模型？（例如 Llama 3 70B，或\u201c一个 13B 模型\u201d）",
           "the model or its size": "请问是哪个模型，或多大参数量（例如 7B）？",
           "the GPUs to compare": "请问要对比哪些 GPU？", "the GPU": "请问是哪种 GPU、几张？（例如\u201c8张H100 三天\u201d）",
           "a model or a budget": "请问要跑什么模型，或每小时预算多少？"}


def _with_chinese_summary(answer: Answer) -> Answer:
    """Chinese-speaking users get the recommendation as one Chinese sentence before the English details.

    The figures are the same as in the English answer; only the summary is translated (the
    assumptions and sources stay in English, as they quote English sources)."""
    if answer.recommendation is None or not answer.options:
        for what, zh in _ZH_ASK.items():
            if answer.details and answer.details[0] == f"I need {what} to answer this.":
                return answer.model_copy(update={"verdict": f"{zh} {answer.verdict}"})
        return answer
    o = answer.options[answer.recommendation]
    parts = [f"推荐：{o.label}"]
    if o.fits is not None and o.memory_per_gpu_gb is not None and o.gpu_memory_gb:
        parts.append(f"每卡显存约 {o.memory_per_gpu_gb:.1f} / {o.gpu_memory_gb:.0f} GB")
    if o.decode_tokens_per_s_per_sequence:
        parts.append(f"单用户约 {o.decode_tokens_per_s_per_sequence:.1f} tokens/s")
    if o.gpu_hours:
        parts.append(f"约 {o.gpu_hours:,.0f} GPU小时")
        if o.wall_clock_hours:
            parts.append(f"耗时约 {o.wall_clock_hours / 24:,.1f} 天")
    if o.price_per_hour_usd:
        parts.append(f"按需价格 ${o.price_per_hour_usd:,.2f}/小时")
    if o.total_cost_usd:
        parts.append(f"总计约 ${o.total_cost_usd:,.0f}")
    summary = "，".join(parts) + "。"
    return answer.model_copy(update={"details": [summary, *answer.details]})


def _title(text: str) -> str:
    return text if len(text) <= 140 else text[:139] + "…"


def _next_actions(query: Query, model: Model | None, chosen: Option | None = None) -> list[Action]:
    """Buttons: show assumptions, switch precision, and quote the recommended configuration (or the GPUs named)."""
    actions = [Action(action_id="show_assumptions", label="Show assumptions")]
    if model is not None:
        if query.precision in (None, "bf16", "fp16", "fp8"):
            actions.append(Action(action_id="switch_precision", label="Try INT4", value="what about int4?"))
        else:
            actions.append(Action(action_id="switch_precision", label="Try FP8", value="what about fp8?"))
    if chosen is not None and chosen.gpu_name and chosen.gpu_count:
        actions.append(Action(action_id="quote_this", label="Quote this",
                              value=f"how much for {chosen.gpu_count}x {chosen.gpu_name} for a week?"))
    elif query.gpus:
        g = query.gpus[0]
        actions.append(Action(action_id="quote_this", label="Quote this",
                              value=f"how much for {g.count or 1}x {g.as_written} for a week?"))
    return actions
