"""The planner: one search over configurations, used by every intent.

A configuration is a model on GPU type x count x weight precision x KV precision x layout (tensor-parallel
group x pipeline stages x independent replicas) x engine x a real instance to rent. The planner

* keeps every constraint the user fixed (a GPU, a count, a precision, a provider, a pricing model): a
  candidate never replaces one; when the fixed configuration cannot work, its plan says why (a typed
  rejection) and the advice module shows it first, then alternatives labelled with what they change;
* evaluates candidates with :mod:`bot.estimation` (memory, TTFT, decode, throughput, training time) and
  prices them as instances that exist (:mod:`bot.pricing.offers`: a tensor-parallel group lives in one
  instance; idle GPUs of a larger instance are paid for);
* solves for the asked quantity: the fewest GPUs for a load, the users a configuration serves, the
  aggregate throughput at a per-user floor, the time for N tokens, the tokens in a given time.

Searches are bounded: the candidate GPUs come from ``knowledge/policy.yaml``, layouts are the tensor-parallel
degrees the model allows (1, 2, 4, 8, then pipeline stages of 8), a batch is found by bisection, and every
estimate is computed once per answer (memoised).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from bot.advice.answer import Option, Price
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.errors import AdvisorError
from bot.estimation import (
    EstimationError,
    FinetuneEstimate,
    InferenceEstimate,
    ServingWorkload,
    TrainingEstimate,
    efficiency_for,
    estimate_finetune,
    estimate_inference,
    estimate_training,
    serving_workload,
    usable_memory_gb,
    valid_tp_degrees,
    weight_bytes,
)
from bot.kb.schema import Gpu, Model
from bot.notes import Note, note
from bot.parsing.query import GpuMention
from bot.pricing.mentions import mention_for
from bot.pricing.offers import Offer, Placement, best_placement, billed_hours
from bot.pricing.offers import place as all_placements

__all__ = [
    "GpuChoice",
    "ServingLoad",
    "excluded_providers",
    "canonical_precision",
    "given_placement",
    "group_cap",
    "fuller_counts",
    "machine_size",
    "workload_of",
    "ServingPlan",
    "candidate_gpus",
    "cost_for",
    "cost_per_million_tokens",
    "engine_for",
    "one_copy_memory",
    "finetune_option",
    "plan_finetune",
    "plan_serving",
    "plan_training",
    "place",
    "place_nearest_variant",
    "precisions_for",
    "price_of",
    "rent_usd_per_hour",
    "replica_counts_within",
    "resolve_gpu",
    "serving_load",
    "serving_option",
    "training_option",
]

#: Most sequences searched per replica (vLLM's default max_num_seqs is 256; larger engines allow 2,048).
_MAX_BATCH = 2048
_MAX_PIPELINE = 8
#: Most GPUs a money limit is searched up to (:func:`replica_counts_within`): a bound on the bisection, far above
#: any fleet a budget in a question pays for (65,536 GPUs).
_MAX_FLEET_GPUS = 1 << 16


# --------------------------------------------------------------------------- GPUs

@dataclass(frozen=True)
class GpuChoice:
    """A GPU type considered, and what the user fixed about it.

    Attributes:
        gpu: the GPU (a copy with the stated memory when the user gave one the datasheet lacks).
        count: the count the user fixed, or ``None``.
        fixed: the user named this GPU (it must be answered, never replaced).
        mention: the mention it came from.
    """

    gpu: Gpu
    count: int | None
    fixed: bool
    mention: GpuMention | None = None


def resolve_gpu(ctx: Context, mention: GpuMention) -> Gpu:
    """The :class:`Gpu` a mention stands for; with a memory size the datasheet lacks ("3080 20G", a modified
    "4090 48G") a copy with that memory, under an id no price row has (it is not the stock card). A card named
    only by its memory with a bandwidth stated ("一款国产卡，48GB 显存，带宽 1TB/s") is that card: a copy of the
    same-memory stand-in with the stated bandwidth, named by both (speed follows the bandwidth; compute figures
    stay the stand-in's, which the capacity note says)."""
    gpu = ctx.kb.gpus[mention.id]
    stated_bw = ctx.query.bandwidth_stated_gb_s
    if mention.capacity_only and len(stated_bw) == 1 and abs(stated_bw[0] - gpu.memory_bandwidth_gb_s) >= 1:
        ctx.assume("stated_bandwidth_used", memory_gb=gpu.memory_gb, bandwidth_gb_s=stated_bw[0], gpu_name=gpu.name)
        return gpu.model_copy(update={"id": f"{gpu.id}@{stated_bw[0]:g}gbs", "memory_bandwidth_gb_s": stated_bw[0],
                                      "name": f"{gpu.memory_gb:g}GB GPU ({stated_bw[0]:,.0f} GB/s)"})
    if mention.memory_gb and abs(mention.memory_gb - gpu.memory_gb) >= 1:
        ctx.assume("stated_memory_used", gpu_name=gpu.name, memory_gb=mention.memory_gb)
        stock = gpu.name.rsplit(" ", 1)[0] if re.search(r"\d+GB$", gpu.name) else gpu.name  # "A100 SXM4 80GB"
        return gpu.model_copy(update={"id": f"{gpu.id}@{mention.memory_gb:g}gb", "memory_gb": mention.memory_gb,
                                      "name": f"{stock} {mention.memory_gb:g}GB"})
    return gpu


def candidate_gpus(ctx: Context, section: Literal["serving", "training", "finetune", "non_llm"]) -> list[GpuChoice]:
    """The GPUs named (fixed, with their counts), else the policy's candidates for this kind of work
    (``candidate_gpus_zh`` for questions in Chinese, which a team in mainland China can rent or buy)."""
    q = ctx.query
    named = [m for m in q.gpus if m.id in ctx.kb.gpus]
    if named:
        # a count said once for several GPU types ("910B vs A800, 8 cards each") applies to each of them
        shared = q.gpu_count if len(named) == 1 or all(m.count is None for m in named) else None
        counted = {m.count for m in named if m.count}
        if shared is None and len(counted) == 1 and len(named) > 1:
            # "32 张 H20 ... 换成 A100 呢", "8x H100 vs A100": the other GPUs are asked at the same count
            shared = counted.pop()
            for m in named:
                if m.count is None and m.id in ctx.kb.gpus:
                    ctx.assume("count_carried", count=shared, gpu_name=ctx.kb.gpus[m.id].name)
        return [GpuChoice(resolve_gpu(ctx, m), m.count or shared, True, m) for m in named]
    pol = getattr(ctx.policy, section)
    ids = pol.candidate_gpus_zh if ctx.zh and pol.candidate_gpus_zh else pol.candidate_gpus
    if ctx.zh and pol.candidate_gpus_zh:
        ctx.assume("china_candidates")
    return [GpuChoice(ctx.kb.gpus[g], q.gpu_count, False) for g in ids if g in ctx.kb.gpus]


# --------------------------------------------------------------------------- precisions and engines

def precisions_for(ctx: Context, model: Model, gpu: Gpu) -> list[tuple[str, bool]]:
    """(precision, fixed) pairs to try for ``model`` on ``gpu``.

    The user's precisions are fixed and tried as given (an unsupported one is rejected by the plan, never
    swapped); "满血"/"full precision" fixes the model's released dtype (upcast to 16-bit on a GPU that lacks it,
    which keeps every value); otherwise the policy's list
    (``native``, ``fp8``, ``int4``), with INT8 for FP8 on GPUs without FP8 and skipping formats the GPU cannot
    run natively.
    """
    q = ctx.query
    native = model.native_precision or "fp16"
    lacking = []
    if q.precisions and q.precisions_carried:  # (a format needing hardware the GPU lacks; weight-only formats such as
        # AWQ/GPTQ int4 dequantize to 16-bit and run anywhere: efficiency.yaml weight_formats ``requires``)
        lacking = [p for p in q.precisions if _lacks_format(ctx, gpu, p)]
    if lacking:
        # "换 910B 呢" after an fp8 turn: the format was the last GPU's, not a constraint on this one; the new GPU is
        # planned in the formats it has, and the answer says the carried one was dropped
        ctx.assume("kept_precision_dropped", precisions=lacking, gpu_name=gpu.name)
    elif q.precisions:
        return [(p, True) for p in q.precisions]
    if q.full_precision:
        if not gpu.supports(native) and native not in ("fp16", "bf16", "fp32"):
            # the released format (FP8 for DeepSeek-V3/R1) is one the GPU lacks (Ascend, Ampere): upcast to 16-bit
            # holds the same values at twice the memory, which is how vLLM-Ascend/MindIE and Ampere users run them;
            # quantizing would not be 满血
            upcast = "bf16" if gpu.supports("bf16") else "fp16"
            ctx.assume("full_precision_upcast", gpu_name=gpu.name, released=native, precision=upcast)
            return [(upcast, True)]
        return [(native, True)]
    out: list[tuple[str, bool]] = []
    for p in ctx.policy.serving.precisions_tried:
        name = native if p == "native" else p
        if name in ("bf16",) and not gpu.supports("bf16"):
            name = "fp16"
        if name == "fp8" and not gpu.supports("fp8"):
            # the 8-bit step before 4-bit on GPUs without FP8: INT8 (W8A8, vLLM/TensorRT-LLM on Ampere/Turing)
            if not gpu.supports("int8"):
                continue
            name = "int8"
        if name not in [x for x, _ in out]:
            out.append((name, False))
    return out


def _lacks_format(ctx: Context, gpu: Gpu, precision: str) -> bool:
    """Whether ``gpu`` lacks the hardware weight format ``precision`` needs (its ``requires`` in efficiency.yaml,
    e.g. FP8 tensor cores); a name that is no weight format is judged by the GPUs' native formats."""
    try:
        fmt = efficiency_for(ctx.kb).weight_format(precision)[1]
    except AdvisorError:
        compute_formats = {f for g in ctx.kb.gpus.values() for f in g.supported_precisions}
        return precision in compute_formats and not gpu.supports(precision)
    return fmt.requires is not None and not gpu.supports(fmt.requires)


def engine_for(ctx: Context, gpu: Gpu, precision: str | None) -> str:
    """The engine assumed: the one named, else llama.cpp for GGUF quants and pre-Volta GPUs (vLLM needs
    compute capability 7.0), else vLLM."""
    engine = ctx.query.engine
    eff = efficiency_for(ctx.kb)
    if engine:
        try:
            return eff.engine(engine)[0]
        except AdvisorError:
            ctx.assume("engine_unknown", engine=engine)
    if precision and precision.startswith(("q", "iq")) and "_" in precision:
        return "llama.cpp"
    if gpu.cc is not None and gpu.cc < 7.0:
        return "llama.cpp"
    return "vllm"


# --------------------------------------------------------------------------- prices

def place(ctx: Context, gpu: Gpu, count: int, group: int, *, pricing: str | None = None,
          provider: str | None = None, given: bool = True, fallback: bool = True) -> Placement | None:
    """The placement this answer prices ``count`` x ``gpu`` with: the user's own price when they gave one (unless
    ``given`` is ``False``: the market's price to compare it with), else the user's providers and pricing model
    when they named them, every TP group in one instance (:func:`bot.pricing.offers.best_placement`);
    mainland-China clouds (``market: china_mainland``) only for questions in Chinese or naming them.

    The GPUs and count the user named ("on 2x 4090") are priced even where no instance holds the group (a card
    rented only as 1-GPU instances): as separate instances (``Placement.group_split``, which the answer warns
    about), ranked after any placement that holds the group; a count the planner chose stays within one instance.
    Across the providers named, the best placement under the table's one :class:`bot.pricing.offers.OfferRule`.

    With ``fallback``, a run or service the user prices "at <provider>" where that provider has no price for it
    ("按阿里云价格" with no Alibaba Cloud row) is priced at the best other offer, with a warning naming both, rather
    than left without a cost (quotes pass ``fallback=False``: they say per provider what is missing).

    Returns:
        The :class:`Placement`, or ``None`` when nothing rents ``count`` x ``gpu`` under these constraints.
    """
    q = ctx.query
    users = given_placement(ctx, gpu, count, group) if given else None
    if users is not None:
        return users
    pricing = pricing or (q.pricing[0] if q.pricing else "on_demand")
    providers = [None] if provider == _ANY_PROVIDER else [provider] if provider else (q.providers or [None])
    term = {"1y": 12, "3y": 36}.get(q.commitment_term or "") if pricing == "commitment" else None
    exclude = excluded_providers(ctx)
    # the GPUs and count the user named are priced even when no instance holds a whole group (a card rented only as
    # 1-GPU instances, "2x 4090"): as separate instances, ranked after any that holds the group, and said
    # (``group_split``); a count the planner chose itself stays within one instance
    fixed = any(m.id == gpu.id.split("@")[0] and m.count == count for m in q.gpus)
    rule = ctx.offers.rule
    found = [f for p in providers
             if (f := best_placement(ctx.offers, gpu.id, count, today=ctx.today, group=max(1, min(group, 8)),
                                     pricing_model=pricing, provider=p, term_months=term, exclude_providers=exclude,
                                     region=ctx.price_region(), allow_split=fixed)) is not None]
    if not found and fallback and provider is None and q.providers and not _named_price_exists(ctx, gpu):
        other = place(ctx, gpu, count, group, pricing=pricing, provider=_ANY_PROVIDER, given=given)
        if other is not None:
            ctx.warn("provider_fallback", providers=[provider_label(ctx, p) for p in q.providers],
                     gpu_name=gpu.name, used=other.offer.provider_name)
        return other
    return min(found, key=lambda f: f.rank(rule), default=None)


def cheapest_rental(ctx: Context, gpu: Gpu, count: int, group: int) -> Placement | None:
    """The lowest-priced real rental of ``count`` x ``gpu`` with each group of ``group`` GPUs (a tensor-parallel or
    pipeline group) in one instance: what two layouts are compared on when an answer says one is cheaper. Unlike
    :func:`place`, whose rule ranks instances the GPUs fill before larger ones, a larger instance whose extra GPUs
    sit idle is taken when it rents for less (``Placement.idle_gpus`` says how many; the caller says them). The
    question's own price, providers, pricing model, region and market apply as in :func:`place`; a provider's dated
    price for an instance size supersedes its undated snapshot of that size; equal prices to the cent go to
    :func:`place`'s choice. A commitment is priced by :func:`place` (its terms are not comparable by the hour).

    Returns:
        The :class:`Placement`, or ``None`` when nothing rents ``count`` x ``gpu`` under these constraints.
    """
    chosen = place(ctx, gpu, count, group)
    q = ctx.query
    pricing = q.pricing[0] if q.pricing else "on_demand"
    if q.given_price_per_hour is not None or pricing == "commitment":
        return chosen
    exclude = excluded_providers(ctx)
    found = [x for p in (q.providers or [None])
             for x in all_placements(ctx.offers, gpu.id.split("@")[0], count, today=ctx.today,
                                     group=max(1, min(group, 8)), pricing_model=pricing, provider=p,
                                     region=ctx.price_region(), limit=20)
             if x.offer.provider not in exclude and x.offer.condition is None]
    dated = {(x.offer.provider, x.offer.gpu_count) for x in found if x.offer.as_of is not None}
    found = [x for x in found if x.offer.as_of is not None or (x.offer.provider, x.offer.gpu_count) not in dated]
    return min([*([chosen] if chosen is not None else []), *found], key=lambda x: round(x.price_per_hour_usd, 2),
               default=None)


def _named_price_exists(ctx: Context, gpu: Gpu) -> bool:
    """Whether the providers the user named have some price for ``gpu`` that the answer uses before any other
    provider's: a secondary-source figure of theirs (:func:`bot.pricing.mentions.mention_for`) or a list price for
    another variant of its family (:func:`place_nearest_variant`)."""
    named = set(ctx.query.providers)
    gpu_id = gpu.id.split("@")[0]
    mp = mention_for(ctx.kb, gpu_id, list(named))
    if mp is not None and mp.mention.provider in named:
        return True
    return bool(gpu.family) and any(o.provider in named for other in ctx.kb.gpus.values()
                                    if other.family == gpu.family and other.id != gpu_id
                                    for o in ctx.kb.offers_for(other.id))


#: ``place(provider=_ANY_PROVIDER)``: every provider, whatever the question named (the fallback's own search).
_ANY_PROVIDER = "*"


def provider_label(ctx: Context, provider: str) -> str:
    """A provider id's display name: a priced provider's, else an unpriced one's (knowledge/prices), else the id."""
    pf = ctx.kb.providers.get(provider)
    if pf is not None:
        return pf.provider_name
    up = ctx.kb.unpriced_providers.get(provider)
    return up.name if up is not None else provider


def machine_size(ctx: Context) -> int | None:
    """GPUs per machine for an answer that gives machines ("几台机器", "how many servers").

    The count the question states per machine ("每台8卡", "8-GPU nodes"); else, when machines are asked without
    one, the policy's machine size (``knowledge/policy.yaml`` ``limits.gpus_per_machine``: 8-GPU servers), stated
    as an assumption; ``None`` when machines are not asked.
    """
    q = ctx.query
    if q.gpus_per_node:
        return q.gpus_per_node
    if "node_count" not in q.asks:
        return None
    per_node = int(ctx.policy.limits.gpus_per_machine.value)
    ctx.assume("machine_size_assumed", per_node=per_node)
    return per_node


def fuller_counts(ctx: Context, fewest: int) -> list[int]:
    """``fewest`` GPUs (the fewest that hold a model) and two and four times that within one machine (policy
    ``limits.gpus_per_machine``): GPUs beyond the weights hold KV cache for a larger batch, which often does more
    work per GPU (a lower cost per token, fewer GPU-hours for a batch job)."""
    per_machine = int(ctx.policy.limits.gpus_per_machine.value)
    return sorted({fewest, *(n for n in (fewest * 2, fewest * 4) if n <= per_machine)})


def place_nearest_variant(ctx: Context, gpu: Gpu, count: int, group: int, need_gb: float | None
                          ) -> tuple[Placement | None, Gpu | None]:
    """When the providers the user named do not rent ``gpu`` itself: the nearest variant of its family they do
    rent (``family`` in gpus.yaml: the same chip in another memory size or form factor), so a cost can still be
    given, labelled with the variant priced.

    Args:
        ctx: the request context (its providers and pricing model apply).
        gpu: the GPU of the option. count: GPUs rented. group: GPUs that must share one instance.
        need_gb: memory the job needs per GPU, GB; a variant whose usable memory is smaller is skipped.

    Returns:
        (placement, the variant priced), or ``(None, None)`` when no provider was named, the GPU has no family,
        or no variant that holds the job is rented there. Nearest = the closest memory size, then the same form
        factor (SXM or PCIe), then the cheaper.
    """
    if not ctx.query.providers or not gpu.family:
        return None, None
    eff = efficiency_for(ctx.kb)
    found = []
    for other in ctx.kb.gpus.values():
        if other.family != gpu.family or other.id == gpu.id.split("@")[0]:
            continue
        if need_gb is not None and usable_memory_gb(eff, other) < need_gb:
            continue
        placement = place(ctx, other, count, group, fallback=False)
        if placement is not None:
            same_form = (other.form_factor or "")[:3] == (gpu.form_factor or "")[:3]  # SXM vs PCIe
            found.append((abs(other.memory_gb - gpu.memory_gb), not same_form, placement.price_per_hour_usd,
                          other.id, placement, other))
    if not found:
        return None, None
    *_, placement, other = min(found, key=lambda f: f[:4])
    return placement, other


def group_cap(ctx: Context, gpu: Gpu) -> int:
    """The most GPUs one tensor-parallel, pipeline or sharded job is planned on: consumer cards stay within one
    machine (policy ``limits.consumer_group_max_gpus``); other GPUs are not capped here."""
    if gpu.segment == "consumer":
        return int(ctx.policy.limits.consumer_group_max_gpus.value)
    return 1 << 30


def given_placement(ctx: Context, gpu: Gpu, count: int, group: int = 1) -> Placement | None:
    """The user's own price ("at $2/hr per GPU", "按每卡每小时 15 块算") as a placement of ``count`` x ``gpu``,
    or ``None`` when none was given or the question names other GPUs only. A price not marked per GPU is for
    the GPUs the question names with their count, and per GPU when no count is stated."""
    q = ctx.query
    if q.given_price_per_hour is None:
        return None
    named = [m for m in q.gpus if m.id]
    if named and gpu.id.split("@")[0] not in {m.id for m in named}:
        return None
    usd = ctx.usd(q.given_price_per_hour)
    if not usd or usd <= 0:
        return None
    asked = next((m.count for m in named if m.id == gpu.id.split("@")[0] and m.count), None) or q.gpu_count
    # "$2.5/hr" with no count stated is read per GPU (how GPU prices are quoted); with "8x ... at $20/hr" the
    # price is for the GPUs named
    per_gpu = usd if (q.given_price_per_gpu or not asked) else usd / asked
    if not q.given_price_per_gpu and asked and asked > 1:
        market = min((o.price_per_hour_usd / o.gpu_count for o in ctx.kb.offers_for(gpu.id.split("@")[0])
                      if o.gpu_count and o.price_per_hour_usd), default=None)  # (rows priced otherwise have none)
        if market and per_gpu < 0.5 * market <= usd <= 2 * market:
            # "4x 4090 ... rent on vast at $0.35/h": as a price for all 4 it is a fraction of any market's price for
            # one; as a price per card it is a market's. Read per card, and say so.
            per_gpu = usd
            ctx.assume("given_price_read_per_gpu", price_usd=usd, count=asked, gpu_name=gpu.name)
    offer = Offer(provider="user", provider_name="given_price", instance_type=f"{count}x {gpu.name}", gpu=gpu.id,
                  gpu_count=count, price_per_hour_usd=per_gpu * count,
                  pricing_model=(q.pricing[0] if q.pricing else "on_demand"), as_of=ctx.today, source="the question")
    return Placement(offer=offer, instances=1, gpus_needed=count, group=max(1, group), group_split=False,
                     price_per_hour_usd=per_gpu * count, stale=False)


def excluded_providers(ctx: Context) -> frozenset[str]:
    """Providers an answer does not offer unasked: clouds that rent only to mainland-China companies
    (``market: china_mainland`` in knowledge/prices/) for a question not asked in Chinese and not naming them."""
    if ctx.zh:
        return frozenset()
    return frozenset(pid for pid, pf in ctx.kb.providers.items()
                     if pf.market == "china_mainland" and pid not in ctx.query.providers)


def secondary_price(ctx: Context, gpu: Gpu, count: int) -> Price | None:
    """A :class:`Price` from the one secondary-source figure every answer uses for ``gpu``
    (:func:`bot.pricing.mentions.mention_for`: a copy of a platform's table, not a list price), for ``count`` GPUs,
    with ``origin="secondary"``; for answers that rank setups by price where the GPU has no list price (the
    China-market cards). A lookup only: the answer that shows such a price says so (:func:`say_secondary`).
    ``None`` when there is no usable figure.
    """
    mp = mention_for(ctx.kb, gpu.id.split("@")[0], list(ctx.query.providers)) if "@" not in gpu.id else None
    if mp is None or not mp.low_usd:
        return None
    m = mp.mention
    return Price(provider=m.provider or "secondary", provider_name=m.where, instance_type="secondary figure",
                 gpus_rented=count, origin="secondary", price_per_hour_usd=mp.low_usd * count,
                 price_per_gpu_hour_usd=mp.low_usd, as_of=m.as_of, stale=True, source=m.source, marketplace=True)


def say_secondary(ctx: Context, o: Option) -> None:
    """Warn (once per GPU) that the price an option shows is a secondary-source figure (:func:`secondary_price`),
    naming where it is from, and cite it."""
    if o.price is None or o.price.origin != "secondary":
        return
    ctx.cite(o.price.source)
    mp = mention_for(ctx.kb, (o.gpu or "").split("@")[0], list(ctx.query.providers))
    where = mp.mention.where_zh if mp is not None and ctx.zh and mp.mention.where_zh else o.price.provider_name
    ctx.warn("priced_secondary", gpu_name=o.gpu_name, where=where)


def price_of(ctx: Context, placement: Placement | None) -> Price | None:
    """The answer's :class:`Price` for a placement (``None`` for none), its date and source recorded."""
    if placement is None:
        return None
    o = placement.offer
    if o.as_of:
        ctx.price_dates.append(o.as_of)
    ctx.cite(o.source)
    return Price(provider=o.provider, provider_name=o.provider_name, instance_type=o.instance_type,
                 instances=placement.instances, gpus_rented=placement.gpus_rented, idle_gpus=placement.idle_gpus,
                 pricing_model=o.pricing_model,
                 commitment_term=f"{o.term_months // 12}y" if o.term_months else o.commitment_term,
                 term_hours=o.term_hours, region=o.region, origin=o.origin,
                 price_per_hour_usd=placement.price_per_hour_usd, price_per_gpu_hour_usd=o.price_per_gpu_hour_usd,
                 as_of=o.as_of, stale=placement.stale, separate_instances=placement.separate_instances,
                 group_split=placement.group_split, source=o.source, marketplace=o.marketplace)


def rent_usd_per_hour(ctx: Context, gpu: Gpu, count: int, group: int) -> float | None:
    """USD per hour to rent ``count`` x ``gpu`` with every ``group`` GPUs in one instance (:func:`place`), else at the
    GPU's secondary-source figure (:func:`secondary_price`, for cards no tracked cloud lists); ``None`` when neither
    prices it."""
    memo = _memo(ctx).rents
    key = (gpu.id, gpu.memory_gb, count, group)
    if key not in memo:
        p = place(ctx, gpu, count, group)
        secondary = secondary_price(ctx, gpu, count) if p is None else None
        memo[key] = p.price_per_hour_usd if p is not None else \
            secondary.price_per_hour_usd if secondary is not None else None
    return memo[key]


def replica_counts_within(ctx: Context, model: Model, gpu: Gpu, precision: str,
                          cost_usd: Callable[[int, int], float | None], limit_usd: float
                          ) -> list[tuple[int, tuple[int, int]]]:
    """GPU counts a money limit pays for in whole serving replicas of ``model`` on ``gpu`` in ``precision``.

    For each replica layout that can hold the model (TP x PP GPUs, :func:`_layouts`; consumer cards within one
    machine, :func:`group_cap`), the most replicas ``k`` whose cost ``cost_usd(k x group, group)`` is within
    ``limit_usd``, found by doubling then bisection (a cost grows with the replicas). Replicas are independent
    copies that need no fast link between machines, so the count is not bounded by one machine: a budget that
    pays for five 8-GPU machines is planned on all five.

    Args:
        ctx: the answer being built.
        model, gpu, precision: what is served.
        cost_usd: the money ``n`` GPUs in groups of ``group`` cost, in the limit's unit (USD per hour for a rental
            budget, :func:`rent_usd_per_hour`; USD for cards bought), ``None`` when they cannot be had.
        limit_usd: the money available, same unit.

    Returns:
        ``(GPU count k x group, (TP, PP))`` per layout with at least one replica within the limit, the most GPUs
        first (plan each with ``plan_serving(count=..., layout=...)``). At most :data:`_MAX_FLEET_GPUS` GPUs.
    """
    engine = engine_for(ctx, gpu, precision)
    fleets = []
    for tp, pp in _layouts(model, gpu, precision, engine, ctx.kb, None, group_cap(ctx, gpu)):
        group = tp * pp
        k = _most_within(lambda k, g=group: cost_usd(k * g, g), limit_usd, _MAX_FLEET_GPUS // group)
        if k:
            fleets.append((k * group, (tp, pp)))
    return sorted(fleets, key=lambda f: -f[0])


def _most_within(cost: Callable[[int], float | None], limit: float, bound: int) -> int:
    """The largest ``k`` in 1..``bound`` with ``cost(k) <= limit`` (``cost`` non-decreasing, ``None`` = no price):
    doubling from 1, then bisection; 0 when even ``k = 1`` is over the limit or unpriced."""
    def within(k: int) -> bool:
        c = cost(k)
        return c is not None and c <= limit * (1 + 1e-9)  # (amounts converted through USD round)

    if bound < 1 or not within(1):
        return 0
    lo, hi = 1, 2
    while hi <= bound and within(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, bound + 1)  # within(lo); hi is over the limit or past the bound
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if within(mid):
            lo = mid
        else:
            hi = mid
    return lo


def cost_for(price: Price | None, hours: float | None) -> float | None:
    """USD for ``hours`` of use of an option priced ``price``: ``price_per_hour_usd x billed hours``, where a commitment
    is billed for whole terms (:func:`bot.pricing.offers.billed_hours`: 3 months on a 1-year term pay 8,760 h).
    ``None`` when there is no price or no hours."""
    if price is None or hours is None:
        return None
    return price.price_per_hour_usd * billed_hours(hours, price.term_hours)


def cost_per_million_tokens(price_per_hour_usd: float | None, tokens_per_s: float | None) -> float | None:
    """USD per 1M output tokens: price per hour / (tokens/s x 3600) x 10^6 (estimation-notes.md, "Cost")."""
    if not price_per_hour_usd or not tokens_per_s or tokens_per_s <= 0:
        return None
    return price_per_hour_usd / (tokens_per_s * 3600) * 1e6


# --------------------------------------------------------------------------- serving

@dataclass(frozen=True)
class ServingLoad:
    """The load a serving configuration must carry.

    Attributes:
        users: concurrent users (sequences in flight) the user fixed, or ``None``.
        per_user_tps: the floor each user must get, tokens/s (prefill counted).
        per_user_given: the user gave that floor.
        total_tps: an aggregate output target, tokens/s, or ``None``.
        ttft_s: a time-to-first-token limit, s, or ``None``. tpot_ms: a time-per-token limit, ms.
        context_tokens, input_tokens, output_tokens: per sequence, as the user stated them (``None``
            when not stated; :func:`workload_of` fills them in).
        kv_precision: the KV-cache format fixed by the user, or ``None``.
        worst_case: every request sends a fresh prompt filling the context (the user asked for it);
            otherwise chat turns on a cached conversation (:func:`bot.estimation.serving_workload`).
        floor_tps: the policy's per-user reading-speed floor, tokens/s (reported against, even when not
            a constraint).
        per_request: an aggregate target with no users: each request is sized on its own (the stated
            lengths, else the median whole chat request), not as a user's cached conversation.
    """

    users: int | None
    per_user_tps: float
    per_user_given: bool
    total_tps: float | None
    ttft_s: float | None
    tpot_ms: float | None
    context_tokens: int | None
    input_tokens: int | None
    output_tokens: int | None
    kv_precision: str | None
    worst_case: bool = False
    floor_tps: float = 0.0
    per_request: bool = False

    @property
    def capacity_tps(self) -> float:
        """The per-user speed capacity and cost-at-full-load figures are stated at: the constraint when one
        applies, else the policy floor (a single user on named hardware has no constraint, but "full load"
        still means users at the floor)."""
        return self.per_user_tps or self.floor_tps


def workload_of(ctx: Context, load: ServingLoad) -> ServingWorkload:
    """The per-request token counts the estimates use for ``load``: the stated ones, else a chat turn of
    ``chat_turn_new_tokens`` new prompt tokens on a cached conversation filling the context (the ShareGPT
    human turn, efficiency.yaml), a fresh full-context prompt when ``load.worst_case``, or for an aggregate
    target (``load.per_request``) a whole request of ``chat_request_prompt_tokens`` (the median of production
    chat traces).

    Args:
        ctx: the request context (its kb supplies the defaults).
        load: the load being planned.

    Returns:
        :class:`~bot.estimation.ServingWorkload`; a stated prompt + output longer than the stated context
        sizes the context for both (the estimator warns the same way).
    """
    key = ("workload", load.context_tokens, load.input_tokens, load.output_tokens, load.worst_case, load.per_request)
    memo = _memo(ctx).estimates
    if key not in memo:
        try:
            memo[key] = serving_workload(ctx.kb, load.context_tokens, load.input_tokens, load.output_tokens,
                                         worst_case=load.worst_case, per_request=load.per_request)
        except EstimationError:
            memo[key] = serving_workload(ctx.kb, None, load.input_tokens, load.output_tokens,
                                         worst_case=load.worst_case, per_request=load.per_request)
    return memo[key]


def serving_load(ctx: Context) -> ServingLoad:
    """The :class:`ServingLoad` of the request: the user's targets, the policy's floor where none is given.

    A tokens/s figure with no scope is per user when users are given, else aggregate when no single stream
    could reach it; a request rate becomes an aggregate target at the output length. An aggregate target with
    no users and no per-user speed asked is sized on tokens/s in all at the largest batch each replica holds
    (no per-user floor: the answer states the per-user speed that results), each request sized on its own.
    """
    q = ctx.query
    floor = ctx.policy.serving.min_tokens_per_s_per_user.value
    per_user, given, total = floor, False, None
    users = q.concurrent_users or q.batch_size
    if q.target_tokens_per_s:
        if q.target_scope == "total" or (q.target_scope is None and not users and q.target_tokens_per_s > 250):
            total = q.target_tokens_per_s
            if q.target_scope is None:
                ctx.assume("tps_read_as_total", target_tps=total)
        else:
            per_user, given = q.target_tokens_per_s, True
    if q.per_user_tokens_per_s:  # a per-user floor stated beside the aggregate target
        per_user, given = q.per_user_tokens_per_s, True
    if q.requests_per_s and total is None and not users:
        out = q.output_tokens or int(efficiency_for(ctx.kb).c("default_output_tokens"))
        rps = q.requests_per_s
        peak_policy = ctx.policy.serving.peak_to_average
        if q.requests_per_day and (q.peak_factor or peak_policy is not None):
            # a day's requests are its average: a service is sized for its busiest hour, peak x average (the factor
            # said, else the policy's, as for daily users)
            peak = q.peak_factor or peak_policy.value
            rps = q.requests_per_s * peak
            # said up front, not among the assumptions: it moves the count 2-3x
            ctx.warn("daily_requests_peak", requests_per_day=q.requests_per_day, average_rps=q.requests_per_s,
                       peak_factor=peak, peak_rps=rps, peak_assumed=q.peak_factor is None)
            if q.peak_factor is None:
                ctx.cite(f"knowledge/policy.yaml serving.peak_to_average: {peak_policy.source}")
        total = rps * out
        ctx.assume("rps_to_tps", requests_per_s=rps, output_tokens=out, target_tps=total)
    capacity_asked = bool({"users_served", "throughput", "request_rate", "token_cost"} & set(q.asks))
    counted = any(g.id for g in q.gpus) and all(g.count or q.gpu_count for g in q.gpus if g.id)
    if not given and not users and total is None and any(g.id for g in q.gpus) and not capacity_asked:
        # one user on hardware the user named: report its speed, do not fail it against a default floor
        per_user = 0.0
    elif not given and counted and total is None and not capacity_asked:
        # "两张能不能跑 ... 10个人同时用": the user's own GPUs and count answer whether they fit and keep the stated
        # targets; the policy floor is our comfort figure, not the user's, so it is reported (serving.py says when
        # each user gets less), not a reason for "no"
        per_user = 0.0
    aggregate = total is not None and not users
    if not given and not aggregate and per_user:
        ctx.assume("per_user_floor", per_user_tps=floor)
    if aggregate and not given and (q.offline or q.documents):
        # "5,000 tok/s in all" of an offline job: the target is a total, so each replica runs at its best batch
        # (the most tokens/s per GPU) and the per-user speed that results is stated, not required
        per_user = 0.0
        ctx.assume("aggregate_best_batch", floor_tps=floor)
    elif aggregate and not given:
        # a live service's total ("serving at 2,000 tok/s aggregate", "20 requests/s"): each stream still gets the
        # reading-speed floor, or the replies crawl; an offline job is sized without it
        ctx.assume("aggregate_with_floor", floor_tps=floor)
    ttft = q.ttft_ms_max / 1000 if q.ttft_ms_max else None
    if q.latency_ms_max and ttft is None and q.tpot_ms_max is None:
        ttft = q.latency_ms_max / 1000
        ctx.assume("latency_as_ttft", latency_ms=q.latency_ms_max, percentile=q.latency_percentile)
    return ServingLoad(users=users, per_user_tps=per_user, per_user_given=given, total_tps=total, ttft_s=ttft,
                       tpot_ms=q.tpot_ms_max, context_tokens=q.context_tokens, input_tokens=q.input_tokens,
                       output_tokens=q.output_tokens, kv_precision=q.kv_precision,
                       worst_case=q.full_context_prompts, floor_tps=floor, per_request=aggregate)


@dataclass
class ServingPlan:
    """The best layout of ``model`` on ``gpu`` in ``precision`` for a load.

    Attributes:
        gpu, model, precision: what was planned. engine: the engine assumed.
        tp, pp, replicas: the layout; ``count`` = tp x pp x replicas GPUs.
        users: sequences in flight in total (all replicas); batch: per replica.
        capacity: the most users this count serves at the per-user floor (all replicas); when the plan's choice did
            not need it, it is searched on first read (:meth:`defer_capacity`).
        capacity_tps: output tokens/s of all replicas at ``capacity`` users (the full load a cost per token is
            stated at), 0 when it serves none; searched with ``capacity``.
        est: the estimate of one replica at ``batch``. single: one replica at batch 1 (one user alone).
        placement: how it is rented, or ``None``.
        meets: every target holds. rejection: why not, when it does not.
        fixed_count: the count was the user's.
        dp_attention: attention runs data-parallel across the TP group (MLA models), experts spread over it.
        whole_instance: why the count is the rented instance's size, when the plan grew to use every GPU paid for.
    """

    gpu: Gpu
    model: Model
    precision: str
    engine: str
    tp: int = 1
    pp: int = 1
    replicas: int = 1
    users: int = 1
    batch: int = 1
    est: InferenceEstimate | None = None
    single: InferenceEstimate | None = None
    placement: Placement | None = None
    meets: bool = False
    rejection: Note | None = None
    fixed_count: bool = False
    dp_attention: bool = False
    whole_instance: Note | None = None
    _capacity: int = field(default=0, init=False, repr=False)
    _capacity_tps: float = field(default=0.0, init=False, repr=False)
    _capacity_search: Callable[[], tuple[int, float]] | None = field(default=None, init=False, repr=False)

    def _searched(self) -> None:
        if self._capacity_search is not None:
            (self._capacity, self._capacity_tps), self._capacity_search = self._capacity_search(), None

    @property
    def capacity(self) -> int:
        """The most users this count serves at the per-user floor (all replicas); 0 when it serves none."""
        self._searched()
        return self._capacity

    @capacity.setter
    def capacity(self, users: int) -> None:
        self._capacity, self._capacity_search = users, None

    @property
    def capacity_tps(self) -> float:
        """Output tokens/s of all replicas at :attr:`capacity` users; 0 when it serves none."""
        self._searched()
        return self._capacity_tps

    def set_capacity(self, users: int, tps: float) -> None:
        """Set :attr:`capacity` (users, all replicas) and :attr:`capacity_tps` (tokens/s, all replicas)."""
        self._capacity, self._capacity_tps, self._capacity_search = users, tps, None

    def defer_capacity(self, search: Callable[[], tuple[int, float]]) -> None:
        """Find :attr:`capacity` and :attr:`capacity_tps` with ``search`` (a pure function of the plan) when first
        read: the batch bisection costs about ten estimates per layout, and most layouts searched are never shown."""
        self._capacity, self._capacity_tps, self._capacity_search = 0, 0.0, search

    @property
    def count(self) -> int:
        return self.tp * self.pp * self.replicas

    @property
    def per_user_tps(self) -> float | None:
        """Tokens/s each user gets over time, prefill counted: throughput / sequences."""
        if self.est is None:
            return None
        if self.est.throughput_tokens_per_s:
            return self.est.throughput_tokens_per_s / max(1, self.batch)
        return self.est.decode_tokens_per_s_per_sequence

    @property
    def throughput_tps(self) -> float | None:
        """All replicas together, tokens/s."""
        if self.est is None or not self.est.throughput_tokens_per_s:
            return None
        return self.est.throughput_tokens_per_s * self.replicas


@dataclass
class _Memo:
    estimates: dict = field(default_factory=dict)
    rents: dict = field(default_factory=dict)  # (gpu id, memory, count, group) -> USD/h (rent_usd_per_hour)


def _memo(ctx: Context) -> _Memo:
    memo = getattr(ctx, "_planner_memo", None)
    if memo is None:
        memo = _Memo()
        ctx._planner_memo = memo  # type: ignore[attr-defined]
    return memo


def _estimate(ctx: Context, model: Model, gpu: Gpu, precision: str, engine: str, tp: int, pp: int, batch: int,
              load: ServingLoad, dp_attention: bool = False) -> InferenceEstimate | None:
    """One replica (tp x pp GPUs) at ``batch`` sequences; ``None`` when the estimator refuses the layout."""
    workload = workload_of(ctx, load)
    key = (model.id, gpu.id, gpu.memory_gb, precision, engine, tp, pp, batch, load.kv_precision, workload,
           dp_attention)
    memo = _memo(ctx).estimates
    if key not in memo:
        try:
            memo[key] = estimate_inference(
                ctx.kb, model, gpu, count=tp * pp, precision=precision, kv_precision=load.kv_precision,
                batch_size=batch, engine=engine, tensor_parallel=tp, pipeline_parallel=pp, replicas=1,
                attention_data_parallel=dp_attention, expert_parallel=tp if dp_attention and model.is_moe else None,
                **workload.estimate_kwargs())
        except (EstimationError, AdvisorError):
            memo[key] = None
    return memo[key]


def one_copy_memory(ctx: Context, model: Model, gpu: Gpu, precision: str, count: int,
                    load: ServingLoad) -> InferenceEstimate | None:
    """One copy of ``model`` in ``precision`` spread over ``count`` x ``gpu`` (tensor parallel, else pipeline stages
    when the heads do not split ``count`` ways), at the load's users (at least one): what loading it there takes,
    the same layout for every precision so their memory per GPU compares. ``None`` when neither layout estimates.
    """
    batch = max(1, load.users or 1)
    engine = engine_for(ctx, gpu, precision)
    return _estimate(ctx, model, gpu, precision, engine, count, 1, batch, load) or (
        _estimate(ctx, model, gpu, precision, engine, 1, count, batch, load) if count > 1 else None)


def _meets(est: InferenceEstimate, batch: int, load: ServingLoad) -> Note | None:
    """``None`` when one replica at ``batch`` meets the load's per-user and latency targets, else why not."""
    if not est.fits:
        return note("reject_memory", need_gb=est.memory.per_gpu_gb, usable_gb=est.memory.usable_memory_gb)
    if est.max_batch_size is not None and est.max_batch_size < batch:
        return note("reject_engine_budget", max_users=est.max_batch_size, users=batch)
    per_user = (est.throughput_tokens_per_s / batch) if est.throughput_tokens_per_s else \
        est.decode_tokens_per_s_per_sequence
    if per_user is not None and per_user + 1e-9 < load.per_user_tps:
        return note("reject_speed", per_user_tps=per_user, target_tps=load.per_user_tps)
    if load.ttft_s is not None and est.ttft_s is not None and est.ttft_s > load.ttft_s:
        return note("reject_ttft", ttft_s=est.ttft_s, limit_s=load.ttft_s)
    if load.tpot_ms is not None and est.tpot_ms is not None and est.tpot_ms > load.tpot_ms:
        return note("reject_tpot", tpot_ms=est.tpot_ms, limit_ms=load.tpot_ms)
    return None


def canonical_precision(ctx: Context, precision: str) -> str:
    """The weight format's canonical name (``awq`` -> ``int4``), or ``precision`` itself when unknown."""
    try:
        return efficiency_for(ctx.kb).weight_format(precision)[0]
    except AdvisorError:
        return precision


def _runs_as_asked(ctx: Context, precision: str, used: str) -> bool:
    """Whether the estimate's format ``used`` runs checkpoints of the asked ``precision``: the same format, or the
    engine's weight-only fallback for it (an FP8 checkpoint on Ampere runs as ``fp8-w8a16``, efficiency.yaml)."""
    asked = canonical_precision(ctx, precision)
    if asked == used:
        return True
    try:
        return efficiency_for(ctx.kb).weight_format(used)[1].runs_checkpoints_of == asked
    except AdvisorError:
        return False


def _serves_one(ctx: Context, model: Model, gpu: Gpu, precision: str, engine: str, tp: int, pp: int,
                load: ServingLoad, dp_attention: bool = False) -> tuple[InferenceEstimate | None, Note | None]:
    """(one replica's estimate at one sequence, why it does not serve even one: ``None`` when it does)."""
    first = _estimate(ctx, model, gpu, precision, engine, tp, pp, 1, load, dp_attention)
    if first is None:
        return None, note("reject_layout", tp=tp, pp=pp)
    if not _runs_as_asked(ctx, precision, first.precision) and (
            precision in ctx.query.precisions or ctx.query.full_precision):
        # a precision the user fixed is never swapped: the GPU lacks it, which is the answer
        return first, note("reject_precision", precision=precision, gpu_name=gpu.name, nearest=first.precision)
    return first, _meets(first, 1, load)


def _most_sequences(ctx: Context, model: Model, gpu: Gpu, precision: str, engine: str, tp: int, pp: int,
                    load: ServingLoad, dp_attention: bool, first: InferenceEstimate) -> tuple[int, InferenceEstimate]:
    """(most sequences one replica serves meeting the load's targets, its estimate there), by bisection between 1
    (``first``, which :func:`_serves_one` passed) and :func:`_batch_limit`."""
    hi = _batch_limit(first)
    lo, best = 1, first
    while lo < hi:
        mid = (lo + hi + 1) // 2
        est = _estimate(ctx, model, gpu, precision, engine, tp, pp, mid, load, dp_attention)
        if est is not None and _meets(est, mid, load) is None:
            lo, best = mid, est
        else:
            hi = mid - 1
    return lo, best


def _batch_limit(first: InferenceEstimate) -> int:
    """The most sequences a replica is searched at: the engine's batch limit at that layout (memory and
    ``max_num_seqs``, from its estimate at one sequence), at most 2,048."""
    return min(_MAX_BATCH, first.max_batch_size if first.max_batch_size is not None else 1)


def _replicas_times_most(most: Callable[[], tuple[int, InferenceEstimate]], replicas: int) -> tuple[int, float]:
    """(users, output tokens/s) all replicas serve at capacity: ``replicas`` x the most sequences one serves and
    its throughput there (``most``: :func:`_most_sequences`)."""
    cap, est = most()
    return replicas * cap, replicas * _tps_of(est)


def _tps_of(est: InferenceEstimate | None) -> float:
    """An estimate's output tokens/s, 0 when there is none."""
    return (est.throughput_tokens_per_s or 0.0) if est is not None else 0.0


def _layouts(model: Model, gpu: Gpu, precision: str, engine: str, kb, count: int | None,
             cap: int = 1 << 30) -> list[tuple[int, int]]:
    """(TP, PP) replica shapes to try: TP 1, 2, 4, 8 dividing the heads whose weights can fit, then 8 x PP
    stages (also when 8 GPUs hold the weights with little room left); with a fixed count, only shapes that
    divide it; never more than ``cap`` GPUs in one replica (:func:`group_cap`). llama.cpp splits layers
    (pipeline) instead."""
    return [(tp, pp) for tp, pp in _layout_shapes(model, gpu, precision, engine, kb, count) if tp * pp <= cap]


def _layout_shapes(model: Model, gpu: Gpu, precision: str, engine: str, kb, count: int | None) -> list[tuple[int, int]]:
    eff = efficiency_for(kb)
    try:
        fmt = eff.weight_format(precision)[1]
        weights_gb = weight_bytes(model, fmt) / 1e9
    except AdvisorError:
        weights_gb = model.params_total_b * 2
    usable = usable_memory_gb(eff, gpu)
    if engine == "llama.cpp":
        stages = [pp for pp in range(1, _MAX_PIPELINE + 1) if weights_gb / pp < usable * 0.98]
        if count is not None:
            return [(1, count)]
        return [(1, stages[0])] if stages else [(1, _MAX_PIPELINE)]
    out = []
    for tp in valid_tp_degrees(model):
        if weights_gb / tp < usable * 0.98 and (count is None or count % tp == 0):
            out.append((tp, 1))
    # pipeline stages of 8 when nothing smaller holds the weights, and, when the weights fill most of an 8-GPU
    # group, one larger group too: it leaves room for the KV cache of many users (DeepSeek on H20 nodes)
    tight = bool(out) and out[-1][0] == 8 and weights_gb / 8 > usable * 0.5
    if not out or tight or (count is not None and count > 8):
        for pp in range(2, _MAX_PIPELINE + 1):
            if 8 in valid_tp_degrees(model) and weights_gb / (8 * pp) < usable * 0.98 and (
                    count is None or count % (8 * pp) == 0):
                out.append((8, pp))
                if count is None:
                    break
        # a mixture-of-experts model is also served as one tensor/expert-parallel group spanning nodes (TP 16 over
        # InfiniBand, experts split over the 16 ranks, attention data-parallel for MLA): SGLang's DeepSeek V3/R1
        # recipe for 2 x 8 H100/H800/H20 nodes (docs.sglang.io basic_usage/deepseek_v3, "--tp 16" with
        # --enable-dp-attention), vLLM's DP+EP multi-node recipe
        if model.is_moe and 16 in valid_tp_degrees(model, max_tp=16) and weights_gb / 16 < usable * 0.98 and (
                count is None or count % 16 == 0):
            out.append((16, 1))
    spans = any(tp * pp == count for tp, pp in out)
    if count is not None and 1 < count <= 8 * _MAX_PIPELINE and not spans:
        # a count the user fixed that no TP degree spans ("3x RTX 4090", "3x A100 40GB for 20 users"): also one
        # group with pipeline stages over all of them (vLLM --pipeline-parallel-size, llama.cpp's layer split), the
        # largest TP that divides it first: replicas that hold the weights may not hold the users' KV cache
        for tp in sorted((t for t in valid_tp_degrees(model) if count % t == 0 and count // t > 1), reverse=True):
            if weights_gb / count < usable * 0.98 and count // tp <= _MAX_PIPELINE:
                out.append((tp, count // tp))
                break
    if out:
        return out
    if count is not None:  # nothing fits the count given: answer at that count as one group (the memory says why,
        # per GPU of all the GPUs given, not of a replica of some of them)
        tp = max([t for t in valid_tp_degrees(model) if count % t == 0] or [1])
        return [(tp, count // tp if count // tp <= _MAX_PIPELINE else 1)]
    return [(max(valid_tp_degrees(model) or [1]), 1)]


def plan_serving(ctx: Context, model: Model, gpu: Gpu, precision: str, load: ServingLoad,
                 count: int | None = None, objective: Literal["cheapest", "capacity", "fewest"] = "cheapest",
                 whole_instance: bool = True, layout: tuple[int, int] | None = None) -> ServingPlan:
    """Plan serving ``model`` on ``gpu`` in ``precision`` for ``load``.

    * With ``count`` fixed: the layout of that many GPUs that meets the load (users split evenly over
      replicas), else the one that comes closest, with the reason it falls short.
    * Without: the fewest GPUs (cheapest when priced) that meet the load: users at the per-user floor,
      or the aggregate target (replicas x the largest batch that keeps the floor and the TTFT limit).
    * ``objective="capacity"``: with a fixed count, the layout serving the most users at the floor.
    * ``objective="fewest"``: the fewest GPUs that meet the load (cheapest among those): comparisons of GPU types
      compare the counts each needs, not whatever instance happens to be cheapest.
    * ``whole_instance``: when the cheapest instance holds more GPUs than the plan needs (and they are
      paid for), plan on all of them; comparisons turn it off to keep the GPU counts equal.
    * ``layout``: only this (TP, PP) replica shape, ``count`` being a multiple of it (the replicas a budget rents
      of that shape, :func:`replica_counts_within`).

    Returns:
        The :class:`ServingPlan` (``meets`` False with a ``rejection`` when nothing works).
    """
    engine = engine_for(ctx, gpu, precision)
    max_gpus = int(ctx.policy.serving.max_gpus.value)
    users = load.users
    plans: list[ServingPlan] = []
    closest: ServingPlan | None = None
    # MLA models under TP are also tried with attention data-parallel (each rank keeps only its own sequences'
    # latent KV cache, attention weights copied to every rank, experts spread over the group), as SGLang
    # (--enable-dp-attention) and vLLM (data-parallel attention with expert parallelism) deploy DeepSeek
    layouts = [layout] if layout is not None else _layouts(model, gpu, precision, engine, ctx.kb, count,
                                                           group_cap(ctx, gpu))
    shapes = [(tp, pp, adp) for tp, pp in layouts for adp in ((False, True) if model.is_mla and tp > 1 else (False,))]
    for tp, pp, adp in shapes:
        group = tp * pp
        first, why = _serves_one(ctx, model, gpu, precision, engine, tp, pp, load, adp)
        plan = ServingPlan(gpu, model, precision, engine, tp, pp, fixed_count=count is not None, dp_attention=adp)
        if count is not None:
            plan.replicas = max(1, count // group)
        if why is not None:  # not even one user: capacity 0
            plan.est, plan.rejection = first, why
            plan.users, plan.batch = users or 1, max(1, math.ceil((users or 1) / plan.replicas))
            if why is not None and plan.batch > 1:
                # the asked load's memory decides first when it does not fit: say what the users need, not
                # what one user needs (nor a per-user speed computed for one)
                at_load = _estimate(ctx, model, gpu, precision, engine, tp, pp, plan.batch, load, adp)
                if at_load is not None and (why.code == "reject_memory" or not at_load.fits):
                    plan.est = at_load
                    plan.rejection = note("reject_memory", need_gb=at_load.memory.per_gpu_gb,
                                          usable_gb=at_load.memory.usable_memory_gb)
                elif at_load is not None and why.code == "reject_engine_budget":
                    # one user is already beyond the engine's default budget: the memory shown and judged (a
                    # setting away, or not) is the asked load's, not one user's
                    plan.est = at_load
                    plan.rejection = note("reject_engine_budget", max_users=at_load.max_batch_size or 0,
                                          users=plan.batch)
            if first is not None and (closest is None or _closer(plan, closest)):
                closest = plan
            continue
        if objective == "capacity" and plans and users is None and load.total_tps is None and \
                plan.replicas * _batch_limit(first) < max(p.capacity for p in plans):
            # even at its batch limit this layout serves fewer users than one already found: it cannot be the one
            # with the most, so its batch is not searched
            continue
        # the batch bisection runs only where the layout's replicas, batch or rank need the capacity (the users of a
        # count not fixed, above the one user the layout serves; an aggregate target; the capacity objective), and
        # otherwise when the capacity is first read
        most = partial(_most_sequences, ctx, model, gpu, precision, engine, tp, pp, load, adp, first)
        needed = (users is not None and count is None and users > 1) or load.total_tps is not None or \
            objective == "capacity"
        cap, cap_est = most() if needed else (None, first)
        if users is not None:
            replicas = plan.replicas if count is not None else math.ceil(users / cap) if cap is not None else 1
            batch = math.ceil(users / replicas)
        elif load.total_tps is not None:
            per_replica = (cap_est.throughput_tokens_per_s or 0.0) if cap_est else 0.0
            replicas = plan.replicas if count is not None else max(1, math.ceil(load.total_tps / max(per_replica, 1e-9)))
            batch = cap
        elif count is not None:
            replicas, batch = plan.replicas, cap if objective == "capacity" else 1
        else:
            replicas, batch = 1, 1
        plan.replicas = replicas
        plan.batch = batch
        if users is not None:
            plan.users = users
        elif load.total_tps is not None or objective == "capacity":
            plan.users = batch * replicas
        else:
            plan.users = 1
        if cap is not None:
            plan.set_capacity(cap * replicas, _tps_of(cap_est) * replicas)
        else:
            plan.defer_capacity(partial(_replicas_times_most, most, replicas))
        plan.est = _estimate(ctx, model, gpu, precision, engine, tp, pp, batch, load, adp) or cap_est
        plan.single = _estimate(ctx, model, gpu, precision, engine, tp, pp, 1, load, adp)  # (memoised: _capacity's)
        why = _meets(plan.est, batch, load) if plan.est is not None else note("reject_layout", tp=tp, pp=pp)
        if why is None and load.total_tps is not None and (plan.throughput_tps or 0) + 1e-6 < load.total_tps:
            why = note("reject_total", throughput_tps=plan.throughput_tps or 0, target_tps=load.total_tps)
        if why is None and plan.count > max_gpus and count is None:
            why = note("reject_too_many", count=plan.count, max_count=max_gpus)
        plan.rejection, plan.meets = why, why is None
        if plan.meets:
            plans.append(plan)
        elif closest is None or _closer(plan, closest):
            closest = plan
    if plans:
        for p in plans:
            p.placement = place(ctx, gpu, p.count, p.tp * p.pp)
        if objective == "capacity":
            return max(plans, key=lambda p: (p.capacity, p.per_user_tps or 0))
        if count is not None and (users or 1) == 1 and load.total_tps is None:
            # one stream on GPUs the user fixed: latency is the objective, so the layout that decodes it fastest
            # (one TP group spanning the GPUs when that lowers TPOT; replicas would leave all but one GPU idle)
            return max(plans, key=lambda p: (round(p.per_user_tps or 0, 1), [-x for x in _plan_cost(p)[:1]]))
        best = min(plans, key=(lambda p: (p.count, *_plan_cost(p))) if objective == "fewest" else _plan_cost)
        per_node = ctx.query.gpus_per_node
        if count is None and per_node and best.count % per_node:
            # the machines were asked ("每台8卡，要几台"): the fewest whole machines that hold the plan
            whole = plan_serving(ctx, model, gpu, precision, load, count=per_node * math.ceil(best.count / per_node),
                                 objective=objective, whole_instance=False)
            if whole.meets:
                return whole
        if count is None and whole_instance and best.placement is not None and best.placement.idle_gpus > 0:
            # the instance holds more GPUs than the plan uses and they are paid for: use them all
            fuller = plan_serving(ctx, model, gpu, precision, load, count=best.placement.gpus_rented,
                                  objective=objective)
            if fuller.meets:
                # said only if this plan is the one recommended (see serving_option)
                fuller.whole_instance = note("uses_whole_instance", gpus=best.placement.gpus_rented,
                                             instance=best.placement.offer.instance_type, needed=best.count,
                                             provider=best.placement.offer.provider_name,
                                             price_usd=best.placement.price_per_hour_usd,
                                             idle_count=best.placement.idle_gpus)
                return fuller
        return best
    if closest is None:
        cap = group_cap(ctx, gpu)
        why = note("reject_group_cap", max_gpus=cap, gpu_name=gpu.name) if not shapes and cap < (1 << 30) else \
            note("reject_layout", tp=1, pp=1)
        closest = ServingPlan(gpu, model, precision, engine, rejection=why, fixed_count=count is not None)
    if closest.est is not None:
        closest.placement = place(ctx, gpu, closest.count, closest.tp * closest.pp)
    return closest


def _plan_cost(p: ServingPlan) -> tuple:
    """Cheapest per hour when priced, else fewest GPUs; ties go to the faster per user (to 0.1 tokens/s), then to
    the less memory per GPU (room for longer conversations: DP attention keeps one copy of an MLA cache where TP
    holds it on every rank)."""
    price = p.placement.price_per_hour_usd if p.placement else math.inf
    mem = p.est.memory.per_gpu_gb if p.est is not None else math.inf
    return (p.placement is None, price, p.count, -round(p.per_user_tps or 0, 1), mem)


def _closer(a: ServingPlan, b: ServingPlan) -> bool:
    """Whether plan ``a`` comes closer to working than ``b``: it fits, then more per-user speed."""
    fa = a.est is not None and a.est.fits
    fb = b.est is not None and b.est.fits
    if fa != fb:
        return fa
    return (a.per_user_tps or 0) > (b.per_user_tps or 0)


def serving_option(ctx: Context, plan: ServingPlan, *, changes: list[str] | None = None) -> Option:
    """The answer's :class:`Option` for a serving plan (figures of one replica scaled to all)."""
    est = plan.est
    price = price_of(ctx, plan.placement)
    throughput = plan.throughput_tps
    swapped = plan.rejection is not None and plan.rejection.code == "reject_precision"
    opt = Option(model=plan.model.id, model_name=model_label(plan.model), gpu=plan.gpu.id, gpu_name=plan.gpu.name,
                 gpu_count=plan.count, gpu_memory_gb=plan.gpu.memory_gb if "@" in plan.gpu.id else None,
                 precision=plan.precision if swapped or est is None or canonical_precision(ctx, plan.precision) == est.precision
                 else est.precision, kv_precision=est.kv_precision if est else None,
                 engine=plan.engine, tensor_parallel=plan.tp, pipeline_parallel=plan.pp, replicas=plan.replicas,
                 fits=est.fits if est else False, meets=plan.meets, users=plan.users,
                 max_users=plan.capacity or None, price=price, changes=changes or [], rejection=plan.rejection,
                 notes=[n for n in (plan.whole_instance,
                                    note("dp_attention_used", tp=plan.tp) if plan.dp_attention else None) if n])
    if est is not None:
        m = est.memory
        opt.weights_gb, opt.kv_cache_gb, opt.overhead_gb = m.weights_gb, m.kv_cache_gb, m.overhead_gb
        opt.memory_total_gb, opt.memory_per_gpu_gb, opt.usable_gb = m.total_gb, m.per_gpu_gb, m.usable_memory_gb
    if est is not None and est.fits:  # speed and cost of a configuration that does not fit mean nothing
        opt.ttft_s, opt.tpot_ms, opt.decode_tps = est.ttft_s, est.tpot_ms, est.decode_tokens_per_s_per_sequence
        one = plan.single if plan.single is not None else est if plan.batch == 1 else None
        opt.single_user_tps = one.decode_tokens_per_s_per_sequence if one is not None and one.fits else None
        opt.tps_per_user, opt.throughput_tps = plan.per_user_tps, throughput
        opt.full_load_tps = plan.capacity_tps or None
        if plan.users > 1:  # a cost per token at one user describes an idle machine, not a price
            opt.cost_per_million_tokens_usd = cost_per_million_tokens(price.price_per_hour_usd if price else None,
                                                                      throughput)
    return opt


# --------------------------------------------------------------------------- training

def _training_price(ctx: Context, gpu: Gpu, count: int) -> tuple[Placement | None, float | None]:
    """Training shards over NVLink inside a node and data-parallel across nodes: GPUs in groups of up to 8."""
    placement = place(ctx, gpu, count, min(count, 8))
    per_gpu = placement.price_per_hour_usd / count if placement else None
    return placement, per_gpu


def plan_training(ctx: Context, model: Model, gpu: Gpu, count: int, tokens: float, precision: str
                  ) -> tuple[TrainingEstimate | None, Placement | None, Note | None]:
    """(estimate, placement, rejection) of pretraining ``model`` on ``count`` x ``gpu`` for ``tokens``."""
    placement, per_gpu = _training_price(ctx, gpu, count)
    q = ctx.query
    try:
        est = estimate_training(ctx.kb, model, gpu, count, tokens, precision=precision,
                                price_per_gpu_hour=per_gpu, seq_len=q.sequence_tokens,
                                sharding=_sharding(q.sharding), recompute=bool(q.gradient_checkpointing),
                                micro_batch=q.batch_size or 1, mfu=q.mfu_pct / 100 if q.mfu_pct else None)
    except (EstimationError, AdvisorError) as exc:
        return None, placement, note("estimate_refused", reason=str(exc))
    why = None if est.fits else note("reject_memory", need_gb=est.memory_per_gpu_gb,
                                     usable_gb=usable_memory_gb(efficiency_for(ctx.kb), gpu))
    return est, placement, why


def _sharding(name: str | None) -> str:
    return {"fsdp": "zero3", "zero1": "zero1", "zero2": "zero2", "zero3": "zero3"}.get(name or "", "auto")


def training_option(ctx: Context, model: Model, gpu: Gpu, est: TrainingEstimate | None, placement: Placement | None,
                    rejection: Note | None, *, changes: list[str] | None = None) -> Option:
    """The answer's :class:`Option` for a training run."""
    price = price_of(ctx, placement)
    opt = Option(model=model.id, model_name=model_label(model), gpu=gpu.id, gpu_name=gpu.name,
                 gpu_count=est.gpu_count if est else None, price=price, changes=changes or [], rejection=rejection,
                 usable_gb=usable_memory_gb(efficiency_for(ctx.kb), gpu))
    if est is not None:
        opt.precision, opt.fits, opt.meets = est.precision, est.fits, est.fits
        opt.memory_per_gpu_gb, opt.tokens, opt.gpu_hours = est.memory_per_gpu_gb, est.tokens, est.gpu_hours
        opt.wall_clock_hours, opt.mfu, opt.sharding = est.wall_clock_hours, est.mfu, est.sharding
        opt.tensor_parallel, opt.pipeline_parallel = est.tensor_parallel, est.pipeline_stages
        if est.gpu_hours and price:
            opt.total_cost_usd = cost_for(price, est.gpu_hours / est.gpu_count)
        # what turns 6ND into the wall clock shown: attention FLOPs on top, and time lost to restarts
        opt.notes.append(note("training_factors", attention_pct=est.attention_flops / est.flops * 100,
                              goodput_pct=est.goodput * 100))
    return opt


# --------------------------------------------------------------------------- fine-tuning

def plan_finetune(ctx: Context, model: Model, gpu: Gpu, count: int | None, method: str, tokens: float,
                  seq_len: int | None = None) -> FinetuneEstimate | None:
    """The first setup that fits, in the order practitioners reach for them: the fewest GPUs (or the count
    given), then gradient checkpointing, then sharding (FSDP of the frozen base for LoRA/QLoRA, ZeRO-3 for a
    full fine-tune; the QLoRA paper uses checkpointing, FSDP+QLoRA shards the 4-bit base). A sharding or
    checkpointing the user named is always used. Returns the last setup tried when none fits, ``None`` when
    the estimator refuses the model."""
    q = ctx.query
    cap = group_cap(ctx, gpu)
    counts = [count] if count else [c for c in ctx.policy.finetune.counts if c <= (cap if method == "full" else
                                                                                   min(8, cap))]
    last = None
    for n in counts:
        placement = place(ctx, gpu, n, min(n, 8))
        if not count and placement is not None and n < placement.gpus_rented <= min(8, cap) and \
                "gpu_count" not in q.asks:  # (a count asked is answered with the fewest that hold the run)
            # the only instance rents more GPUs than n (a whole node): the run uses every GPU it pays for
            # (data parallel inside the node), so it is planned on all of them
            n = placement.gpus_rented
            ctx.assume("run_fills_instance", gpus=n)
        setups = [(False, "auto"), (True, "auto")]
        if n > 1:
            setups.append((True, "fsdp" if method != "full" else "zero3"))
        if q.gradient_checkpointing:
            setups = [s for s in setups if s[0]]
        if q.sharding and n > 1:
            setups = [(True, _sharding(q.sharding) if method == "full" else "fsdp")]
        per_gpu = placement.price_per_hour_usd / n if placement else None
        for checkpointing, sharding in setups:
            try:
                est = estimate_finetune(ctx.kb, model, gpu, count=n, method=method, seq_len=seq_len or q.sequence_tokens,
                                        tokens=tokens, gradient_checkpointing=checkpointing, sharding=sharding,
                                        lora_rank=q.lora_rank or 16, micro_batch=q.batch_size or 1,
                                        price_per_gpu_hour=per_gpu)
            except (EstimationError, AdvisorError):
                return last
            last = est
            if est.fits:
                return est
    return last


def finetune_option(ctx: Context, model: Model, gpu: Gpu, est: FinetuneEstimate, *,
                    changes: list[str] | None = None) -> Option:
    """The answer's :class:`Option` for a fine-tuning setup."""
    placement = place(ctx, gpu, est.gpu_count, min(est.gpu_count, 8))
    variant = None
    if placement is None:  # the provider named rents another variant of this GPU: price the run on it, labelled
        placement, variant = place_nearest_variant(ctx, gpu, est.gpu_count, min(est.gpu_count, 8),
                                                   est.memory_per_gpu_gb)
    price = price_of(ctx, placement)
    if price is not None and variant is not None:
        price.gpu_variant, price.gpu_variant_name = variant.id, variant.name
    usable = usable_memory_gb(efficiency_for(ctx.kb), gpu)
    opt = Option(model=model.id, model_name=model_label(model), gpu=gpu.id, gpu_name=gpu.name, gpu_count=est.gpu_count,
                 precision=est.precision, method=est.method, fits=est.fits, meets=est.fits,
                 memory_per_gpu_gb=est.memory_per_gpu_gb, usable_gb=usable, tokens=est.tokens,
                 gpu_hours=est.gpu_hours, wall_clock_hours=est.wall_clock_hours, mfu=est.mfu, sharding=est.sharding,
                 price=price, changes=changes or [])
    if not est.fits:  # the time and cost of a setup that does not fit mean nothing
        opt.rejection = note("reject_memory", need_gb=est.memory_per_gpu_gb, usable_gb=usable)
        opt.gpu_hours = opt.wall_clock_hours = None
    if est.fits and est.gpu_hours and price:
        opt.total_cost_usd = cost_for(price, est.gpu_hours / est.gpu_count)
    if any(a.startswith("activations: full recompute") for a in est.assumptions):
        opt.notes.append(note("gradient_checkpointing_used"))
    return opt
