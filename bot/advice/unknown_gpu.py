"""Questions about a GPU the knowledge base does not have ("llama 3 8b on my rtx 2060 6gb").

The named GPU is the user's constraint, so it is never replaced by other cards. With a memory size in the
question the answer is what fits in that memory (weights + KV cache + overhead per weight format, the
same memory model as every serving answer); speed is not estimated, as it needs the card's bandwidth and
compute. Without one, the answer says the name is unknown, offers the closest names and asks for the
memory. Other GPUs appear only as the suggestions the user can pick.

The same memory-only answer serves memory the user has in all with no card named ("we have 640GB of VRAM", "总共 0.5T
显存", "320 GB across 4 cards"): which formats fit it, never a setup of cards the user did not name.
"""

from __future__ import annotations

import re

from bot.advice.answer import Answer, Table
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.non_llm import need_gb as non_llm_need_gb
from bot.errors import AdvisorError
from bot.estimation import EstimationError, efficiency_for, estimate_inference
from bot.estimation.common import GB, GIB
from bot.kb.schema import Model
from bot.notes import note

__all__ = ["answer", "applies"]

#: A memory size written inside an unknown GPU's name ("arc b580 12gb", "p150 32G").
_MEMORY_IN_NAME = re.compile(r"(?<![\d.])(\d{1,3})\s*g(?:b|ib)?\b", re.I)

#: Intents whose answer is about the GPU the user named.
_INTENTS = ("size_inference", "finetune", "quote", "recommend", "size_training")

#: Weight formats a memory-fit answer walks through when the user fixed none: 16-bit, 8-bit, 4-bit.
_PRECISIONS = ("native", "int8", "int4")
_NON_LLM_PRECISIONS = ("fp16", "int8", "nf4")


def applies(ctx: Context) -> bool:
    """Whether the question names a GPU the knowledge base lacks and no GPU it has, or names no GPU at all but the
    memory the user has in all and asks whether a model fits in it ("we have 640GB of VRAM, can we run X")."""
    q = ctx.query
    return (q.intent in _INTENTS and not any(g.id in ctx.kb.gpus for g in q.gpus)
            and any(t.kind == "gpu" for t in q.unknown_terms)) or _pool_asked(ctx)


def _pool_asked(ctx: Context) -> bool:
    """A fit asked of a memory pool: no GPU named, a model, the memory the user has (``memory_pool_gb``) and no other
    quantity asked than the fit or the memory."""
    q = ctx.query
    return (q.intent == "size_inference" and not q.gpus and q.memory_pool_gb is not None and bool(q.models)
            # ("can it serve X" is asked as users served: with no card known, whether X fits is what can be answered)
            and ("fit" in q.asks or q.gpu_count is not None) and not set(q.asks) - {"fit", "memory", "users_served"})


def _usable_gb(ctx: Context, memory_gb: float) -> float:
    """Usable GB of a card marketed with ``memory_gb`` (binary GiB, efficiency.yaml's HBM/GDDR-without-ECC
    fraction, as :func:`bot.estimation.usable_memory_gb` uses for consumer cards)."""
    return memory_gb * GIB / GB * efficiency_for(ctx.kb).c("usable_memory_fraction_hbm")


def _need_gb(ctx: Context, model: Model, precision: str) -> tuple[str, float] | None:
    """(format used, GB one GPU needs): weights + KV cache for the users at the context + overhead for an LLM;
    weights + activation headroom for image, speech and embedding models (:mod:`bot.advice.non_llm`)."""
    q = ctx.query
    if model.kind != "llm":
        try:
            return precision, non_llm_need_gb(ctx, model, precision)[1]
        except AdvisorError:
            return None
    ref = ctx.kb.gpus.get("h100-sxm-80gb")  # any GPU: only the memory breakdown is read, not its fit or speed
    try:
        est = estimate_inference(ctx.kb, model, ref, count=1, precision=None if precision == "native" else precision,
                                 kv_precision=q.kv_precision, context_tokens=q.context_tokens,
                                 input_tokens=q.input_tokens, output_tokens=q.output_tokens,
                                 batch_size=q.concurrent_users or 1)
    except (EstimationError, AdvisorError):
        return None
    return est.precision, est.memory.total_gb


def answer(ctx: Context) -> Answer:
    """Answer for the unknown GPU the user named (see the module docstring), or for a card named only by a memory
    no knowledge-base GPU has ("a 2 GB card", "12 MB VRAM"): what fits in that memory.

    Returns:
        :class:`Answer`: headline ``unknown_gpu_fit`` (what fits in the stated memory) or ``unknown_gpu``
        (name unknown, memory asked for), a table of formats x fit when a model and memory are given.
    """
    q = ctx.query
    if _pool_asked(ctx) and not any(t.kind == "gpu" for t in q.unknown_terms):
        return _pool_answer(ctx)
    term = next(t for t in q.unknown_terms if t.kind == "gpu")
    memory = term.memory_gb or (q.memory_stated_gb[0] if q.memory_stated_gb else None)
    inside = _MEMORY_IN_NAME.search(term.as_written) if term.memory_gb is None else None
    if memory is None and inside:  # "arc b580 12gb": the memory written as part of the name
        memory = float(inside.group(1))
    listed = next((u for u in ctx.kb.unlisted if u.name == term.unlisted), None) if term.unlisted else None
    from_list = memory is None and listed is not None and bool(listed.memory_gb)
    if from_list:
        memory = listed.memory_gb  # known of, with a sourced memory figure (Hygon K100: 64 GB) but no bandwidth
    models = resolve_models(ctx)
    # the warning that the name was left out does not apply: this answer is about it
    ctx.warnings = [w for w in ctx.warnings if not (w.code == "unknown_term" and w.params.get("written") ==
                                                     term.as_written)]
    examples = [f"{term.as_written} 8GB"] + [s for s in term.suggestions[:2]]
    if memory is None or not models:
        return ctx.answer(title=note("title_unknown_gpu", written=term.as_written),
                          headline=note("unknown_gpu", written=term.as_written, suggestions=term.suggestions),
                          examples=examples)
    usable = _usable_gb(ctx, memory)
    rows, fits, too_big = [], [], []
    for model in models[:3]:
        for precision in (q.precisions or list(_PRECISIONS if model.kind == "llm" else _NON_LLM_PRECISIONS)):
            found = _need_gb(ctx, model, precision)
            if found is None:
                continue
            used, need = found
            ok = need <= usable
            label = {"model_name": model_label(model), "precision": used}
            rows.append([label, need, usable, ok])
            (fits if ok else too_big).append(label)
    ctx.assume("memory_method", context_tokens=q.context_tokens or int(efficiency_for(ctx.kb).c(
        "default_context_tokens")), users=q.concurrent_users or 1)
    ctx.lack("unknown_gpu_speed", written=term.as_written)
    return ctx.answer(title=note("title_unknown_gpu", written=term.as_written),
                      headline=note("unknown_gpu_fit", written=term.as_written, memory_gb=memory, usable_gb=usable,
                                    fits=fits, too_big=too_big, listed=from_list,
                                    stated=not from_list and term.memory_gb is None,
                                    memory_only=term.memory_gb is not None, named=term.memory_gb is None),
                      table=Table(columns=["model_precision", "need_gb", "usable_gb", "fits"], rows=rows),
                      examples=[])


def _pool_answer(ctx: Context) -> Answer:
    """What fits in the memory the user has in all, with no GPU named ("we have 640GB of VRAM, can we run
    DeepSeek-V3 in fp8").

    The need per weight format is the serving memory of one copy (weights + KV cache for the users at the context +
    overhead, :func:`_need_gb`); the pool's usable part is the stated GB read as the engine sees it (binary GiB x the
    usable fraction, :func:`_usable_gb`), as for any card. A format fits within the serving engine's default memory
    budget (vLLM ``gpu_memory_utilization`` 0.9 of it, knowledge/engines.yaml); one that needs more but no more than the
    policy's ceiling (``serving.max_memory_utilization``) fits only with that setting raised ("tight").

    Returns:
        :class:`Answer`: headline ``memory_pool_fit`` (the formats that fit, fit tightly and do not), a table of
        format x need x usable x fit; the formats are the ones asked, else the released one when "full" (满血) is
        said, else 16-, 8- and 4-bit.
    """
    q = ctx.query
    memory = q.memory_pool_gb
    # a total the user adds up is read as said (GB): the cards' binary-GiB margin is not assumed for memory whose
    # cards are not known, so "usable" never exceeds what the user says they have
    usable = memory * efficiency_for(ctx.kb).c("usable_memory_fraction_hbm")
    # what the serving engine lets the model use of it by default (vLLM gpu_memory_utilization 0.9,
    # knowledge/engines.yaml), and the most a user may raise that to (policy serving.max_memory_utilization)
    engine_name, engine = efficiency_for(ctx.kb).engine(q.engine or "vllm")
    budget = usable * engine.memory_utilization if engine.memory_utilization_of == "total" else usable
    ceiling = ctx.policy.serving.max_memory_utilization
    most = usable * ceiling.value if ceiling is not None else budget
    models = resolve_models(ctx)
    precisions = q.precisions or (["native"] if q.full_precision else list(_PRECISIONS))
    rows, fits, tight, too_big = [], [], [], []
    for model in models[:3]:
        tried = precisions if model.kind == "llm" else (q.precisions or list(_NON_LLM_PRECISIONS))
        if q.precisions and model.kind == "llm":
            # the formats asked first, then the smaller ones, so a "no" comes with what would fit
            tried = [*tried, *(p for p in _PRECISIONS[1:] if p not in tried)]
        for precision in tried:
            found = _need_gb(ctx, model, precision)
            if found is None:
                continue
            used, need = found
            label = {"model_name": model_label(model), "precision": used}
            verdict = need <= budget or ("tight" if need <= most else False)
            rows.append([label, need, usable, verdict])
            (fits if verdict is True else tight if verdict else too_big).append(label)
    if tight and ceiling is not None:
        ctx.cite(ceiling.source)
    ctx.assume("memory_method", context_tokens=q.context_tokens or int(efficiency_for(ctx.kb).c(
        "default_context_tokens")), users=q.concurrent_users or 1)
    ctx.lack("memory_pool_speed")
    asked_rows = [r for r in rows if r[0]["precision"] in set(q.precisions)] if q.precisions else []
    if asked_rows and not any(r[3] for r in asked_rows):
        # the format asked does not fit: that "no" leads, with the smaller formats that would
        return ctx.answer(title=note("title_memory_pool", memory_gb=memory),
                          headline=note("memory_pool_fit_no", memory_gb=memory, usable_gb=usable,
                                        too_big=[r[0] for r in asked_rows], need_gb=asked_rows[0][1],
                                        fits=[r[0] for r in rows if r[3] is True]),
                          table=Table(columns=["model_precision", "need_gb", "usable_gb", "fits"], rows=rows),
                          examples=[])
    return ctx.answer(title=note("title_memory_pool", memory_gb=memory),
                      headline=note("memory_pool_fit", memory_gb=memory, usable_gb=usable, fits=fits, tight=tight,
                                    too_big=too_big, engine=engine_name, sep_tight=bool(fits and tight),
                                    sep_no=bool((fits or tight) and too_big),
                                    default_utilization=engine.memory_utilization),
                      table=Table(columns=["model_precision", "need_gb", "usable_gb", "fits"], rows=rows),
                      examples=[])
