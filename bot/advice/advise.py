"""From a request to an Answer: one table from the routed intent to the module that answers it.

The intent is decided once, by :func:`bot.parsing.route.route` (the parser's last step); every module
answers over the same planner (:mod:`bot.advice.planner`) and never calls another module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from bot.advice import (
    compare,
    diagnose,
    finetune,
    help,
    providers,
    quote,
    recommend,
    serving,
    spec,
    training,
    unknown_gpu,
)
from bot.advice.answer import Answer
from bot.advice.context import Context
from bot.advice.markets import apply_market_rules
from bot.advice.observed import observation_notes, offload_notes
from bot.advice.options import config
from bot.advice.specs import claim_verdicts, software_caveats, spec_fact
from bot.advice.traffic import traffic_at_estimate
from bot.kb.loader import KnowledgeBase
from bot.notes import note
from bot.parsing.query import Query
from bot.pricing.currency import cny_per_usd

__all__ = ["ROUTES", "advise"]

log = logging.getLogger(__name__)

#: Intent -> the module that answers it.
ROUTES: dict[str, Callable[[Context], Answer]] = {
    "compare": compare.answer,
    "size_inference": serving.answer,
    "size_training": training.answer,
    "finetune": finetune.answer,
    "quote": quote.answer,
    "recommend": recommend.answer,
    "spec_lookup": spec.answer,
    "diagnose": diagnose.answer,
    "help": help.answer,
    "unknown": help.answer,
}


#: Answers that size or price a workload on the GPUs named.
_SIZING_INTENTS = frozenset({"size_inference", "size_training", "finetune", "compare", "quote", "recommend"})


def advise(query: Query, kb: KnowledgeBase, *, today: date | None = None) -> Answer:
    """Answer a request.

    Args:
        query: from :func:`bot.parsing.parser.parse_question` (or a merged follow-up).
        kb: the knowledge base.
        today: the date price staleness is judged against (default: today).

    Returns:
        The :class:`Answer`. A request missing what it needs gets a question back, with examples.

    Raises:
        AdvisorError: only for an inconsistent knowledge base (a bug in the data, not in the question).
    """
    ctx = Context(query, kb, today or date.today())
    if query.config_error:
        return ctx.answer(title=note("title_config_error"), headline=note("config_error", reason=query.config_error),
                          details=[note("config_error_fix")], examples=["a 13B model, 40 layers, GQA 8"])
    if unknown_gpu.applies(ctx):
        # the GPU the user named is the question; it is never swapped for cards the knowledge base has
        return unknown_gpu.answer(ctx)
    out = ROUTES.get(query.intent, help.answer)(ctx)
    if providers.applies(ctx, out):
        # "... on RunPod vs Lambda": which provider is cheaper for the job leads
        out = providers.compare_providers(ctx, out)
    named_gpus = [kb.gpus[i] for i in dict.fromkeys(g.id for g in query.gpus if g.id in kb.gpus)]
    if query.intent in _SIZING_INTENTS and named_gpus:
        # a figure asked beside a fit question ("910B 显存多大，能跑 Qwen2.5 72B 吗"): both parts answered, the verdict
        # first and the figures right under it; what the software stacks do not do on the accelerators named is said
        # (a figure asked: "spec", or memory not already answered by the model's memory breakdown ("how much VRAM
        # does it take"); a memory word inside a fit question, "enough VRAM?", asks no figure)
        asked = "spec" in query.asks or ("memory" in query.asks and out.headline.code != "memory_breakdown")
        facts = [spec_fact(g) for g in named_gpus] if query.spec_fields and asked else []
        caveats = [n for n in software_caveats(named_gpus) if n not in out.warnings]
        out = out.model_copy(update={"details": [*facts, *out.details], "warnings": [*caveats, *out.warnings]})
    # "can I rent H100 in China": the sourced export rule for each GPU named in that market (first when asked)
    out = apply_market_rules(ctx, out)
    if (load := traffic_at_estimate(ctx.traffic, ctx.traffic_output_tokens, out)) is not None:
        # "10k DAU, 20 messages a day": the time a request takes on the setup picked, and the requests in flight then
        out = out.model_copy(update={"details": [load, *out.details]})
    out = _roofline(ctx, out)
    out = _measured_below_bound(ctx, out)
    seen = observation_notes(out.query, out, kb)
    if not seen and _offload_asked(query):
        # "half the layers in RAM, what tok/s?": the speed that split allows is the answer, not "does not fit"
        own = next((x for x in out.options if not x.changes), None)
        expected = offload_notes(kb, query, own, None) if own is not None else []
        if expected:
            return _quoted_converted(ctx, out.model_copy(update={
                "headline": expected[0], "details": [*expected[1:], out.headline, *out.details]}))
    if seen and seen[0].params.get("verdict") and not (set(query.asks) - {"speed", "fit", "memory"}):
        # "I only get 12 tokens/s, is that normal?" with nothing else asked: the verdict on the user's figure leads
        out = out.model_copy(update={"headline": seen[0], "details": [*seen[1:], out.headline, *out.details]})
    elif seen:
        # the user's own figures beside another question: each beside the estimate, first among the details
        out = out.model_copy(update={"details": [*seen, *out.details]})
    named = {g.id for g in query.gpus if g.id in kb.gpus}
    if query.claims and query.intent == "spec_lookup" and query.models and len(named) >= 2:
        # a claim about two GPUs with the user's workload named ("H100 比 A100 快 30 倍吗？我们跑 Llama 2 70B"):
        # the claim's verdict first, then the two GPUs compared on that workload
        wctx = Context(query.model_copy(update={"intent": "compare"}), kb, ctx.today)
        work = compare.answer(wctx)
        out = out.model_copy(update={
            "details": [note("claim_on_your_workload"), work.headline, *work.details[:3], *out.details],
            "assumptions": list(dict.fromkeys([*out.assumptions, *work.assumptions])),
            "sources": list(dict.fromkeys([*out.sources, *work.sources]))})
    if query.claims and query.intent == "compare":
        # a ratio claim about two named GPUs asked beside the user's model: whether the claim holds is the
        # question; its verdict leads, the comparison on the user's workload follows
        verdicts = claim_verdicts(ctx)
        if verdicts:
            return _quoted_converted(ctx, out.model_copy(update={
                "headline": verdicts[0],
                "details": [*verdicts[1:], note("claim_on_your_workload"), out.headline, *out.details],
                "sources": list(dict.fromkeys([*out.sources, *ctx.sources]))}))
    if query.claims and query.intent != "spec_lookup":
        # a claim quoted beside a sizing question: that question is answered first, the claim's verdict second
        verdicts = claim_verdicts(ctx)
        out = out.model_copy(update={"details": [*verdicts, *out.details],
                                     "sources": list(dict.fromkeys([*out.sources, *ctx.sources]))})
    return _quoted_converted(ctx, out)


#: A one-user speed below this share of the memory-bandwidth bound is explained by a measurement when one exists.
_FAR_BELOW_BOUND = 0.5


def _measured_below_bound(ctx: Context, out: Answer) -> Answer:
    """A one-user speed on one GPU type far below what its memory bandwidth allows (H20: compute-bound decode) is
    backed, right under the headline, by the published batch-1 measurement on that GPU
    (:func:`bot.advice.compare.batch1_measurement`), so the low figure is not read as an error. ``out`` unchanged
    otherwise, or when the bound itself is the answer."""
    if out.intent != "size_inference" or not out.options or out.headline.code == "decode_roofline":
        return out
    o = out.options[out.recommendation if out.recommendation is not None else 0]
    gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0])
    one = o.single_user_tps or o.decode_tps
    if gpu is None or not gpu.memory_bandwidth_gb_s or not o.weights_gb or not one:
        return out
    bound = gpu.memory_bandwidth_gb_s * (o.tensor_parallel or 1) / o.weights_gb
    model = ctx.kb.models.get(o.model or "") or next((ctx.kb.models[m.id] for m in ctx.query.models
                                                       if m.id in ctx.kb.models), None)
    if one >= _FAR_BELOW_BOUND * bound or model is None or any(d.code == "measured_batch1" for d in out.details):
        return out
    if (o.gpu_count or 1) > 1:
        return out  # a group's speed has other causes (the link between the GPUs)
    measured = compare.batch1_measurement(ctx, gpu, model)
    if measured is None or measured.params["measured_tps"] >= _FAR_BELOW_BOUND * measured.params["bandwidth_tps"]:
        return out  # only a measurement that itself runs far below the bound explains a figure far below it
    return out.model_copy(update={"details": [measured, *out.details],
                                  "sources": list(dict.fromkeys([*out.sources, *ctx.sources]))})


def _roofline(ctx: Context, out: Answer) -> Answer:
    """The theoretical bound asked ("理论上每秒多少 token", "theoretical max tok/s"): one user's decode can go no faster
    than reading every weight (and its KV cache) once per token at the GPUs' memory bandwidth,
    ``tokens/s <= bandwidth x GPUs / (weights + KV GB)`` (the roofline, batch 1); it leads, the realistic estimate
    follows. ``out`` unchanged when the bound is not asked or the answer has no setup with its memory figures."""
    q = ctx.query
    if not q.bound_asked or not out.options:
        return out
    o = out.options[out.recommendation if out.recommendation is not None else 0]
    gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0])
    if gpu is None or not gpu.memory_bandwidth_gb_s or not o.weights_gb:
        return out
    # one replica's weights and one sequence's KV cache, read by its tensor-parallel GPUs together (pipeline stages
    # read theirs one after another, so they add no bandwidth)
    read_gb = o.weights_gb + (o.kv_cache_gb or 0.0) / max(1, o.users or 1)
    bw = gpu.memory_bandwidth_gb_s * (o.tensor_parallel or 1)
    line = note("decode_roofline", config=config(o), read_gb=read_gb, bandwidth_gb_s=bw, bound_tps=bw / read_gb,
                estimate_tps=o.single_user_tps or o.decode_tps)
    return out.model_copy(update={"headline": line, "details": [out.headline, *out.details]})


def _offload_asked(query: Query) -> bool:
    """A speed or fit asked of a setup with part of the model in system RAM (an offload stated: a share, GB or the
    word), with no speed seen to judge."""
    offload = query.offload_share is not None or query.offload_gb is not None or query.cpu_offload
    seen = any(o.kind == "tokens_per_s" and not o.quoted for o in query.observations)
    return offload and not seen and query.intent == "size_inference" and bool(query.gpus)


def _quoted_converted(ctx: Context, out: Answer) -> Answer:
    """An amount the user quotes in one of USD/CNY while the answer is asked in the other ("2.24 美元...换算人民币多少"):
    the amount in the asked currency at the knowledge base's dated rate, first among the details
    (``quoted_converted``: amount x CNY per USD, or / it). ``out`` unchanged when there is none or no rate."""
    q = ctx.query
    want = q.answer_currency
    quoted = [m for m in q.quoted_prices if want in ("usd", "cny") and m.currency in ("usd", "cny") and m.currency != want]
    rate = cny_per_usd(ctx.kb) if quoted else None
    if rate is None:
        return out
    lines = [note("quoted_converted", amount={"amount": m.amount, "currency": m.currency},
                  converted={"amount": m.amount * rate[0] if want == "cny" else m.amount / rate[0], "currency": want},
                  rate=rate[0], rate_date=rate[1]) for m in quoted[:3]]
    return out.model_copy(update={"details": [*lines, *out.details]})
