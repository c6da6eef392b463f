"""``compare``: two or more GPUs for a workload - which is faster, which is cheaper, is it worth upgrading.

Every GPU named is answered (never only the first). For serving, each GPU is shown twice over: at the
count that holds the model (single-stream decode speed, TTFT) and at its cheapest-per-token configuration
at full load (the count among the smallest and twice it whose cost per 1M tokens is lowest at the
per-user floor), so a card is not judged at a batch that leaves it no room for KV cache. The headline
answers the comparison asked: the cheaper per token, the faster per user (with the bandwidth or compute
ratio that explains it), or the per-GPU training speed. Without a model, the GPUs' specs are compared.
"""

from __future__ import annotations

import math

from bot.advice.answer import Answer, Option, Table
from bot.advice.asked import STATES, lead_with_asks
from bot.advice.context import Context
from bot.advice.models import model_label, resolve_models
from bot.advice.non_llm import answer_non_llm
from bot.advice.options import (
    caveats,
    cheapest_per_token,
    config,
    hour_cell,
    mention_cost,
    next_actions,
    quality_tier,
    variant_notes,
)
from bot.advice.planner import (
    GpuChoice,
    ServingLoad,
    candidate_gpus,
    canonical_precision,
    excluded_providers,
    machine_size,
    plan_serving,
    precisions_for,
    secondary_price,
    serving_load,
    serving_option,
)
from bot.advice.runs import (
    finetune_setups,
    finetune_table,
    finetune_tokens,
    training_runs,
    training_table,
    training_tokens,
)
from bot.advice.specs import ratio_facts, spec_table
from bot.errors import AdvisorError
from bot.estimation import efficiency_for
from bot.kb.schema import Gpu, Model
from bot.notes import note
from bot.parsing.lexicon import get_lexicon
from bot.parsing.route import trains_released_model
from bot.pricing.mentions import mention_for
from bot.pricing.offers import Placement
from bot.pricing.offers import place as all_placements

__all__ = ["answer", "batch1_measurement"]


def answer(ctx: Context) -> Answer:
    """Answer a comparison (see the module docstring).

    A side the knowledge base has no figures for (an unlisted accelerator such as the Hygon DCU K100, or an
    unknown name) is never dropped silently: the headline says that side cannot be estimated, the known side
    is answered, and the table shows what is known of the other (memory, 16-bit TFLOPS) beside it.
    """
    q = ctx.query
    variant_notes(ctx)
    choices = [c for c in candidate_gpus(ctx, "serving") if c.fixed]
    every = resolve_models(ctx)
    models = [m for m in every if m.kind == "llm"]
    if every and not models:
        return answer_non_llm(ctx, every)
    gpus = [c.gpu for c in choices]
    absent = [t for t in q.unknown_terms if t.kind == "gpu"] if len(gpus) < 2 else []
    if not models:
        if len(gpus) >= 2:
            facts = ratio_facts(gpus[0], gpus[1])
            headline = note("spec_compare_headline", facts=facts)
        elif absent and gpus:
            headline = _side_unknown(ctx, gpus, absent)
        else:
            headline = note("compare_needs_two")
        ctx.assume("dense_not_sparse")
        table = spec_table(ctx, gpus) if gpus else None
        if table is not None and absent:
            table.rows += _known_rows(ctx, absent)
        return ctx.answer(title=note("title_specs", gpu_names=[g.name for g in gpus] + [
                              _absent_name(ctx, t) for t in absent]), headline=headline,
                          details=[note("compare_ask_model")], table=table,
                          examples=[" vs ".join(_short_names(gpus[:2]))
                                    + (" 跑 Llama 3 8B" if ctx.zh else " for Llama 3 8B")] if gpus else [])
    model = models[0]
    # training a released model on a modest token count is fine-tuning it, as it is routed (rule 12)
    finetuning = q.workload == "finetune" or bool(q.method) or trains_released_model(q, q.text.lower(), get_lexicon())
    if q.workload == "training" and not finetuning:
        out = _training(ctx, model, choices)
    elif finetuning:
        out = _finetune(ctx, model, choices)
    else:
        out = _serving(ctx, model, choices)
    if absent and gpus:
        # the comparison lost a side: that leads; what was estimated for the known side follows
        out = out.model_copy(update={"headline": _side_unknown(ctx, gpus, absent, model),
                                     "details": [out.headline, *out.details]})
    return out


def _absent_name(ctx: Context, term) -> str:
    """The display name of a GPU named without figures: the unlisted entry's name, else the name as written."""
    return next((u.name for u in ctx.kb.unlisted if u.name == term.unlisted), term.as_written)



def _short_names(gpus: list[Gpu]) -> list[str]:
    """The GPUs' names as an example question writes them: the first word ("H100", "L40S") when that tells them
    apart, else the full names (variants of one product, "H100 PCIe 80GB" and "H100 SXM5 80GB", or "RTX 4090" and
    "RTX 4090 D", share their first word)."""
    short = [g.name.split()[0] for g in gpus]
    return short if len(set(short)) == len(short) else [g.name for g in gpus]

def _side_unknown(ctx: Context, gpus: list, absent: list, model: Model | None = None):
    """The headline of a comparison with a side the knowledge base has no figures for (with the memory an
    unlisted entry gives, when a model is compared)."""
    names = [_absent_name(ctx, t) for t in absent]
    if model is None:
        return note("compare_side_unknown", unknown=names, known=[g.name for g in gpus])
    memory = next((u.memory_gb for t in absent for u in ctx.kb.unlisted if u.name == t.unlisted), None)
    return note("compare_side_unknown_model", unknown=names, known=[g.name for g in gpus],
                model_name=model_label(model), memory_gb=memory)


def _known_rows(ctx: Context, absent: list) -> list[list]:
    """Spec-table rows for GPUs with no entry: the figures an unlisted entry gives (memory, 16-bit TFLOPS)."""
    rows = []
    for t in absent:
        u = next((u for u in ctx.kb.unlisted if u.name == t.unlisted), None)
        if u is None:
            continue
        ctx.cite(*u.sources[:1])
        rows.append([u.name, u.memory_gb, None, u.dense16_tflops, None, None, None, None])
    return rows


#: Speeds within 2% are reported as the same (the estimates are not that precise).
_SAME = 1.02
#: A claimed speed ratio holds when within this factor of the estimated one: the spread the estimator is judged
#: by on its calibration rows (bench/accuracy.py: inference medians within ~5-15%, rows up to 1.25x apart).
_CLAIM_TOLERANCE = 1.25


def _serving(ctx: Context, model: Model, choices: list[GpuChoice]) -> Answer:
    q = ctx.query
    load = serving_load(ctx)
    single = ServingLoad(**{**load.__dict__, "users": load.users or 1, "total_tps": None})
    rows: list[tuple[Option, Option | None]] = []
    compute_bound: dict[str, bool] = {}
    common = _common_format(ctx, model, choices, single)
    for choice in choices:
        precisions = precisions_for(ctx, model, choice.gpu)
        # the precision asked (or the model's native one, else the first format that holds the model on every
        # count the user gave) for the like-for-like speed row, on the fewest GPUs that hold it (not a larger
        # rented instance: the counts compared are the ones needed)
        speed_plan = plan_serving(ctx, model, choice.gpu, common or precisions[0][0], single, count=choice.count,
                                  whole_instance=False, objective="fewest")
        speed = serving_option(ctx, speed_plan)
        br = speed_plan.est.decode_breakdown if speed_plan.est is not None else None
        compute_bound[choice.gpu.id] = bool(br and br.compute_ms > br.weights_ms + br.kv_cache_ms)
        cheap = cheapest_per_token(ctx, model, choice, precisions, load) if not load.users else None
        rows.append((speed, cheap))
    speeds = [s for s, _ in rows]
    fits = [s for s in speeds if s.fits and s.decode_tps]
    details = []
    headline = speed_line = cost_line = None
    priced = [c for _, c in rows if c is not None and c.cost_per_million_tokens_usd]
    if "cheapest" in q.asks and len(priced) < len(rows):
        # cost-effectiveness asked: say which side has no price rather than compare speed alone
        for speed, cheap in rows:  # only a GPU type with no price at all (a cost per token may be missing for others)
            if speed.price is None and (cheap is None or cheap.price is None) and _hourly(ctx, speed)[0] is None:
                ctx.lack("no_price_for_gpu", gpu_name=speed.gpu_name, count=speed.gpu_count)
    if len(fits) >= 2:
        ranked = sorted(fits, key=lambda o: -o.decode_tps)
        fast, slow = ranked[0], ranked[-1]
        ga, gb = ctx.kb.gpus.get((fast.gpu or "").split("@")[0]), ctx.kb.gpus.get((slow.gpu or "").split("@")[0])
        if fast.decode_tps / slow.decode_tps < _SAME:
            # (the bandwidth explains equal speeds only GPU for GPU, when neither side is compute-bound)
            speed_line = note("compare_decode_equal", a=config(fast), b=config(slow), a_tps=fast.decode_tps,
                              b_tps=slow.decode_tps,
                              bw_ratio_x=(ga.memory_bandwidth_gb_s / gb.memory_bandwidth_gb_s)
                              if ga and gb and fast.gpu_count == slow.gpu_count and not (
                                  compute_bound.get(fast.gpu or "") or compute_bound.get(slow.gpu or "")) else None)
        else:
            speed_line = note("compare_decode", fast=config(fast), slow=config(slow),
                              ratio_x=fast.decode_tps / slow.decode_tps,
                              fast_tps=fast.decode_tps, slow_tps=slow.decode_tps,
                              same_count=fast.gpu_count == slow.gpu_count,
                              # (the bandwidth explains the gap only when the faster side has more of it: a faster
                              # card with less bandwidth is faster for another reason, e.g. the slower side's layout)
                              bw_ratio_x=(ga.memory_bandwidth_gb_s / gb.memory_bandwidth_gb_s)
                              if ga and gb and fast.gpu_count == slow.gpu_count and not (
                                  compute_bound.get(fast.gpu or "") or compute_bound.get(slow.gpu or ""))
                              and ga.memory_bandwidth_gb_s > gb.memory_bandwidth_gb_s else None,
                              # the slower side's compute explains the gap only when that side is compute-bound
                              compute_bound_gpu=gb.name if gb and compute_bound.get(gb.id) else None,
                              dense_tflops=(gb.dense_tflops.bf16 or gb.dense_tflops.fp16)
                              if gb and compute_bound.get(gb.id) else None)
        if gb and compute_bound.get(gb.id):
            # a compute-bound small-batch decode surprises readers who expect bandwidth to decide: the published
            # batch-1 measurement on that GPU that the estimate is calibrated on is said beside it
            measured = batch1_measurement(ctx, gb, model)
            if measured is not None:
                details.append(measured)
        if fast.gpu_count != slow.gpu_count and ga and gb and ga.id != gb.id:
            # unequal counts (each holds the model on the fewest it needs): per GPU the picture can flip (one GPU
            # compared at two counts, "2x 3090 vs 3090", differs by its count alone)
            details.append(note("compare_counts_differ", a=ga.name, a_count=fast.gpu_count, b=gb.name,
                                b_count=slow.gpu_count, bw_ratio_x=ga.memory_bandwidth_gb_s / gb.memory_bandwidth_gb_s))
        timed = sorted((o for o in fits if o.ttft_s), key=lambda o: o.ttft_s)
        if len(timed) >= 2 and timed[-1].ttft_s / timed[0].ttft_s >= _SAME:
            same_count = timed[0].gpu_count == timed[-1].gpu_count  # else the counts, not the cards, differ
            details.append(note("compare_prefill", fast=timed[0].gpu_name if same_count else config(timed[0]),
                                slow=timed[-1].gpu_name if same_count else config(timed[-1]),
                                ratio_x=timed[-1].ttft_s / timed[0].ttft_s,
                                a_ttft_s=timed[0].ttft_s, b_ttft_s=timed[-1].ttft_s))
        if not {"cheapest", "cost"} & set(q.asks) or len(priced) < 2:
            headline = speed_line
        else:
            details.insert(0, speed_line)
    full = [c for _, c in rows if c is not None and c.throughput_tps and c.max_users]
    if {"cheapest", "token_cost"} & set(q.asks) and len(priced) < 2 and len(full) >= 2:
        # cost-effectiveness without prices: what each does at full load, per GPU (a price per hour divides it)
        capacity = note("compare_capacity", per_user_tps=load.capacity_tps,
                        items=[{"config": config(c), "max_users": c.max_users, "throughput_tps": c.throughput_tps,
                                "per_gpu_tps": c.throughput_tps / (c.gpu_count or 1)} for c in full])
        if headline is not None:
            details.insert(0, headline)
        headline = capacity
        mentioned = _cost_at_mentions(ctx, full)
        if mentioned is not None:  # "哪个划算" without list prices: the cost per token at the figures that exist
            details.insert(0, headline)
            headline = mentioned
    value = None
    if "cheapest" in q.asks and load.users == 1 and not load.total_tps and len(choices) >= 2:
        # "which is best value for one user": per GPU type the cheapest setup that serves one user at the floor, in
        # any format that keeps quality (4-bit only when asked), its hourly price deciding
        value = _value_line(ctx, model, choices, single)
    counted = any(c.count for c in choices)
    if value is not None:
        if headline is not None:
            details.insert(0, headline)
        headline = value
    elif len(choices) >= 2 and ("users_served" in q.asks or (load.users and load.users > 1 and counted)):
        # "how many users can each serve", or a load on GPUs whose count is given: the users each count serves
        # (and, short of the load, the count it would take) lead; single-stream speed follows
        if headline is not None:
            details.insert(0, headline)
        headline = _users_line(ctx, model, choices, speeds, load)
    elif load.total_tps and not load.users and len(fits) >= 2:
        # an aggregate target ("300 tok/s in total"): what each side needs to reach it and what that costs per
        # hour decides, not the cost per token at a full load nobody asked for
        if headline is not None:
            details.insert(0, headline)
        headline = _aggregate_line(ctx, model, choices, speeds, load)
    elif load.users and load.users > 1 and len(fits) >= 2:
        # a load was given: the comparison is what each GPU type needs to carry it, not single-stream speed
        if headline is not None:
            details.insert(0, headline)
        headline = _load_line(ctx, model, speeds, load)
    if len(priced) >= 2:
        cheap, dear = min(priced, key=lambda o: o.cost_per_million_tokens_usd), max(
            priced, key=lambda o: o.cost_per_million_tokens_usd)
        cost_line = note("compare_cost", cheap=config(cheap), dear=config(dear),
                         cheap_usd=cheap.cost_per_million_tokens_usd, dear_usd=dear.cost_per_million_tokens_usd,
                         ratio_x=dear.cost_per_million_tokens_usd / cheap.cost_per_million_tokens_usd,
                         per_user_tps=load.capacity_tps)
        if len(priced) >= 3:
            # three or more GPU types: every one's cost, cheapest first (a near tie in the middle is not hidden)
            cost_line = note("compare_costs", per_user_tps=load.capacity_tps,
                             items=[{"config": config(o), "cost_usd": o.cost_per_million_tokens_usd}
                                    for o in sorted(priced, key=lambda o: o.cost_per_million_tokens_usd)])
        if headline is None:
            headline = cost_line
        else:
            details.append(cost_line)
    at_load = sorted((s for s in speeds if s.meets and s.cost_per_million_tokens_usd), key=lambda s: s.cost_per_million_tokens_usd)
    if "token_cost" in q.asks and (len(at_load) >= 2 if load.users else len(priced) >= 2):
        # "cost per 1M tokens, A vs B": the cost per token leads, at the load asked when one was given (else at
        # full load); the sizing and speed lines follow
        lead = note("compare_costs_at_load", users=load.users, model_name=model_label(model),
                    items=[{"config": config(s), "cost_usd": s.cost_per_million_tokens_usd} for s in at_load]) \
            if load.users else cost_line
        details = [d for d in [headline, *details] if d is not None and d is not lead]
        headline = lead
    if q.claimed_ratio and not q.claims and len(choices) >= 2:  # (an article claim has its own verdict)
        # "H100 比 A100 快 4.6 倍？我们跑 X": the claimed ratio against this workload's, decode and prefill, first
        check = _claimed_ratio_line(q.claimed_ratio, speeds[0], speeds[1], model)
        if check is not None:
            details = [d for d in [headline, *details] if d is not None]
            headline = check
    limit = ctx.usd(q.price_limit_per_hour) if q.price_limit_per_hour is not None else None
    if limit:
        # "budget $4/h": each side's price against it; when none is within it, that leads
        # (a card with no list price at its secondary-source figure, as every answer prices it)
        hourly = {id(s): _hourly(ctx, s)[0] for s in speeds}
        sized = [s for s in speeds if s.fits and hourly[id(s)]]
        within = [s for s in sized if hourly[id(s)] <= limit * 1.0001]
        budget_line = note("compare_budget", limit_usd=limit, within=[config(s) for s in within],
                           over=[{"config": config(s), "price_usd": hourly[id(s)]} for s in sized
                                 if s not in within], none=not within and bool(sized),
                           some=bool(within) and len(within) < len(sized))
        if not within and sized:
            details = [d for d in [headline, *details] if d is not None]
            headline = budget_line
        else:
            details.insert(0, budget_line)
    if "gpu_count" in q.asks and not load.users and not load.total_tps and fits:
        # "要几张卡？H100 还是 H200": the count each GPU type needs leads (the fewest that hold the model, as in its
        # speed row), with its hourly price; the speed and cost-per-token comparison follows
        per_machine = machine_size(ctx)  # "几台机器": the count in whole machines too
        counted = list(speeds)
        shown = {canonical_precision(ctx, s.precision or "") for s in speeds}
        for precision in dict.fromkeys(canonical_precision(ctx, p) for p in q.precisions):
            # several formats asked ("fp8 and int4 on H20 and H800, how many of each"): every format on every GPU
            if precision in shown:
                continue
            for choice in choices:
                plan = plan_serving(ctx, model, choice.gpu, precision, single, count=choice.count,
                                    whole_instance=False, objective="fewest")
                if plan.est is not None:
                    counted.append(serving_option(ctx, plan))
        needed = note("compare_needed", model_name=model_label(model),
                      items=[{"config": config(s), "fits": s.fits, "short": not s.fits,
                              "machines": math.ceil((s.gpu_count or 1) / per_machine) if per_machine else None,
                              "per_machine": per_machine,
                              **dict(zip(("price_usd", "secondary"), _hourly(ctx, s), strict=True))}
                             for s in counted])
        details = [d for d in [headline, *details] if d is not None]
        headline = needed
    asks = set(q.asks)
    if not asks & _NOT_A_PICK and ("speed" not in asks or "cost" in asks) and (load.users or 1) == 1 and \
            not load.total_tps and not limit and not q.claimed_ratio and (q.duration_hours or 0) <= 1:
        # "A vs B vs C for X, which one?" (or how much faster and dearer per hour): no load, no budget, no figure asked
        # that another line answers: each on the fewest GPUs that hold the model, one user's speed and the price per
        # hour, the pick by price; the speed and cost-per-token lines follow
        pick = _pick_line(ctx, model, speeds)
        if pick is not None:
            details = [d for d in [headline, *details] if d is not None]
            headline = pick
    if headline is None:
        failing = [s for s in speeds if not s.fits]
        headline = note("compare_fits", fits=[config(s) for s in fits], fails=[config(s) for s in failing],
                        model_name=model_label(model))
    # "what's the cost per 1M tokens": the cost asked is the cost per token, not a second quantity
    asked = [a for a in q.asks if not (a == "cost" and "token_cost" in q.asks)]
    if len({a for a in asked if a in STATES}) >= 2:
        # several quantities asked of the GPUs compared ("tokens/s per user and max users?", "how much faster and how
        # much dearer per hour?"): each stated for every GPU in the first lines, the first asked first
        def make(ask: str):
            if ask == "speed":
                return speed_line
            if ask in ("users_served", "throughput") and len(choices) >= 2:
                return _users_line(ctx, model, choices, speeds, load)
            if ask == "cost" and (load.users or 1) == 1 and not load.total_tps:
                return _pick_line(ctx, model, speeds)
            if ask == "token_cost":
                return cost_line or (_cost_at_mentions(ctx, full) if len(full) >= 2 else None)
            return None

        headline, details = lead_with_asks(headline, details, asked, make, users=load.users,
                                           keep_headline=headline.code in ("claim_ratio_check", "compare_budget"))
    for s in speeds:
        if not s.fits and headline.code != "compare_users":  # (the users line says what each count serves)
            details.append(note("compare_does_not_fit", config=config(s), reason=s.rejection))
    if not any(n.code == "compare_cost_mentions" for n in [headline, *details]):
        details += _mention_lines(ctx, speeds, run=False)
    options = speeds + [c for _, c in rows if c is not None and c.price is not None]
    for o in options[:4]:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    ctx.assume("compare_method", per_user_tps=load.capacity_tps)
    table = Table(columns=["config", "fits", "gb_per_gpu", "ttft_s", "decode_tps", "max_users", "total_tps",
                           "usd_per_hour", "usd_per_m_tokens"],
                  rows=[[config(o), o.fits, o.memory_per_gpu_gb, o.ttft_s, o.decode_tps, o.users, o.throughput_tps,
                         hour_cell(ctx, o), o.cost_per_million_tokens_usd] for o in options])
    rec = _recommend(options, "cheapest" in q.asks)
    return ctx.answer(title=note("title_compare", gpu_names=[c.gpu.name for c in choices], model_name=model_label(model)),
                      headline=headline, details=details, options=options, recommendation=rec, table=table,
                      actions=next_actions(ctx, options[rec] if rec is not None else None))


def _mention_lines(ctx: Context, options: list[Option], *, run: bool) -> list:
    """For each compared GPU with no list price: the secondary-source figure every other kind of answer prices it
    with (quote, serving, fine-tuning, training: :func:`bot.advice.options.mention_cost`), labelled as such, so a
    card is not "n/a" in a comparison and priced elsewhere. The first fitting option of each such GPU; for a run
    (``run``) over its wall clock, else over the length asked. ``[]`` when every side is priced or has no figure."""
    out, said = [], set()
    for o in options:
        if not o.fits or o.price is not None or o.gpu in said:
            continue
        hours = o.wall_clock_hours if run else ctx.query.duration_hours
        mentioned = mention_cost(ctx, config(o), o.gpu, o.gpu_count, hours)
        if mentioned is not None:
            said.add(o.gpu)
            out.append(mentioned)
    return out


def _common_format(ctx: Context, model: Model, choices: list[GpuChoice], single: ServingLoad) -> str | None:
    """The format the speed rows compare in when the user fixed GPU counts but no format and the model as released
    does not fit every one of them ("70B on 2x A6000 vs 1x A100"): the first format of the policy's order that fits
    on all of them, said as an assumption; ``None`` (each side's first format) otherwise."""
    q = ctx.query
    if q.precisions or q.full_precision or not all(c.count for c in choices):
        return None
    orders = [[p for p, _ in precisions_for(ctx, model, c.gpu)] for c in choices]
    native = orders[0][0] if orders and orders[0] else None

    def fits(precision: str, choice: GpuChoice) -> bool:
        plan = plan_serving(ctx, model, choice.gpu, precision, single, count=choice.count, whole_instance=False)
        return plan.est is not None and plan.est.fits

    if native is None or all(native in o and fits(native, c) for o, c in zip(orders, choices, strict=True)):
        return None
    for precision in orders[0][1:]:
        if all(precision in o for o in orders) and all(fits(precision, c) for c in choices):
            ctx.assume("compare_format_to_fit", native=native, precision=precision,
                       configs=[{"gpu_count": c.count, "gpu_name": c.gpu.name} for c in choices])
            return precision
    return None


def batch1_measurement(ctx: Context, gpu, model: Model):
    """The ``measured_batch1`` note of the published single-GPU, batch-1 decode measurement on ``gpu`` in
    ``knowledge/benchmarks.yaml`` of the dense model nearest in size to ``model`` (tokens/s), with what the GPU's
    memory bandwidth alone would allow for that model in that format (bandwidth / weight bytes, efficiency.yaml
    bytes per weight); ``None`` when there is none."""
    eff = efficiency_for(ctx.kb)
    size = model.params_total_b or 0
    for b in sorted(ctx.kb.benchmarks.values(), key=lambda b: abs((b.params_b or 0) - size)):
        if b.gpu_id != gpu.id or b.kind != "inference" or b.gpu_count != 1 or b.conditions.get("batch") != 1 \
                or b.unit != "tokens/s" or not b.params_b:
            continue
        if float(b.conditions.get("input_tokens") or 0) > 64:  # (its speed counts a long prompt's tokens too)
            continue
        model = ctx.kb.models.get(b.model_id or "")
        if model is None or model.is_moe:  # a dense model's weights are all read per token: the bandwidth bound
            continue
        try:
            bytes_per_weight = eff.weight_format(b.precision.lower())[1].bytes_per_weight
        except (AdvisorError, KeyError, ValueError):
            continue
        ctx.cite(b.source)
        return note("measured_batch1", gpu_name=gpu.name, framework=b.framework, model=b.model, precision=b.precision,
                    measured_tps=b.value, bandwidth_tps=gpu.memory_bandwidth_gb_s / (b.params_b * bytes_per_weight))
    return None


def _cost_at_mentions(ctx: Context, full: list[Option]):
    """Cost per 1M tokens at full load for each configuration, when at least one has no list price but every
    one has a price: its cheapest list price, else the secondary-source figure every answer uses for it
    (:func:`bot.pricing.mentions.mention_for`: the cloud named first; never an unverified range). Cost per 1M tokens = USD per GPU-hour / (tokens/s per GPU x 3,600) x 10^6.
    ``None`` when a side has neither (the answer then compares speed per card only)."""
    items = []
    for c in full:
        per_gpu_tps = c.throughput_tps / (c.gpu_count or 1)
        if c.price is not None:
            items.append({"config": config(c), "per_gpu_usd": c.price.price_per_gpu_hour_usd, "per_gpu_tps": per_gpu_tps,
                          "where": c.price.provider_name, "mention": False})
            continue
        mp = mention_for(ctx.kb, c.gpu, ctx.query.providers) if c.gpu and "@" not in c.gpu else None
        if mp is None or mp.low_usd is None:
            rate = _per_gpu_rate(ctx, c.gpu)
            if rate is None:
                return None
            # no instance of this size is listed, but smaller ones are: its GPUs at their per-GPU rate, said
            items.append({"config": config(c), "per_gpu_usd": rate.price_per_gpu_hour_usd, "per_gpu_tps": per_gpu_tps,
                          "where": rate.offer.provider_name, "mention": False, "scaled": True,
                          "instance_gpus": rate.offer.gpu_count})
            ctx.cite(rate.offer.source)
            continue
        items.append({"config": config(c), "per_gpu_usd": mp.low_usd, "per_gpu_tps": per_gpu_tps,
                      "where": mp.mention.where, "mention": True,
                      "per_gpu_cny": mp.mention.low_per_gpu_hour if mp.mention.currency == "cny"
                      and ctx.query.answer_currency != "cny" else None})  # asked in RMB: the ¥ figure is said once
        ctx.cite(mp.mention.source)
        if mp.rate is not None:
            ctx.assume("cny_rate_used", rate=mp.rate[0], rate_date=mp.rate[1])
    if len(items) < 2 or not any(i["mention"] or i.get("scaled") for i in items):
        return None
    for i in items:
        i["cost_usd"] = i["per_gpu_usd"] / (i["per_gpu_tps"] * 3600) * 1e6
    items.sort(key=lambda i: i["cost_usd"])
    return note("compare_cost_mentions", items=items, cheap=items[0]["config"],
                scaled=any(i.get("scaled") for i in items), mentioned=any(i["mention"] for i in items),
                ratio_x=items[-1]["cost_usd"] / items[0]["cost_usd"])


def _per_gpu_rate(ctx: Context, gpu_id: str | None) -> Placement | None:
    """The lowest on-demand price per GPU-hour of any instance of ``gpu_id`` the question's market allows (one GPU's
    placement on it), for pricing a count no listed instance holds at that rate; ``None`` when nothing lists it."""
    gpu = ctx.kb.gpus.get(gpu_id or "") if gpu_id and "@" not in gpu_id else None
    if gpu is None:
        return None
    exclude = excluded_providers(ctx)
    found = [p for p in all_placements(ctx.offers, gpu.id, 1, today=ctx.today, limit=20)
             if p.offer.provider not in exclude and p.offer.condition is None]
    return min(found, key=lambda p: p.price_per_gpu_hour_usd, default=None)


def _users_line(ctx: Context, model: Model, choices: list[GpuChoice], speeds: list[Option], load: ServingLoad):
    """The users each GPU type serves at the per-user floor, on the count the user gave (else the fewest GPUs that
    hold the model, as in its speed row), in the precision of its speed row (the one asked, else the model's own):
    the capacity plan of :func:`bot.advice.planner.plan_serving` (KV cache of every user within the engine's
    memory budget, each user at the floor with prefill counted). With a load asked that a side's count cannot
    carry, the fewest GPUs of that type that do are said beside it. The ratio compares the two capacities."""
    capacity_load = ServingLoad(**{**load.__dict__, "users": None, "total_tps": None,
                                   "per_user_tps": load.capacity_tps})
    items = []
    for choice, speed in zip(choices, speeds, strict=False):
        precision = speed.precision or precisions_for(ctx, model, choice.gpu)[0][0]
        count = choice.count or speed.gpu_count or 1
        plan = plan_serving(ctx, model, choice.gpu, precision, capacity_load, count=count, objective="capacity",
                            whole_instance=False)
        served = plan.capacity if plan.capacity > 0 else 0
        label = {"gpu_count": count, "gpu_name": choice.gpu.name, "precision": precision}
        item = {"config": label, "max_users": served or None, "users": load.users, "none": served == 0,
                "single_tps": (speed.single_user_tps or speed.decode_tps) if speed.fits and
                speed.gpu_count == count and speed.precision == precision else None,
                "enough": bool(load.users and served >= load.users), "short": bool(load.users and served < load.users),
                "needed": None, "price_usd": plan.placement.price_per_hour_usd if plan.placement else None,
                "rented": plan.placement.gpus_rented if plan.placement and plan.placement.idle_gpus > 0 else None}
        if load.users and served < load.users:
            need = plan_serving(ctx, model, choice.gpu, precision, load, whole_instance=False, objective="fewest")
            if need.meets:
                item["needed"] = {"gpu_count": need.count, "gpu_name": choice.gpu.name, "precision": precision}
        items.append(item)
    served = sorted((i for i in items if i["max_users"]), key=lambda i: -i["max_users"])
    ratio = served[0]["max_users"] / served[-1]["max_users"] if len(served) >= 2 else None
    return note("compare_users", model_name=model_label(model), per_user_tps=load.capacity_tps, items=items,
                more=served[0]["config"] if ratio and ratio >= _SAME else None, ratio_x=ratio if ratio and ratio >= _SAME
                else None, equal=bool(ratio and ratio < _SAME))


def _load_line(ctx: Context, model: Model, speeds: list[Option], load: ServingLoad):
    """What each GPU type needs to serve the users asked; the pick is the lowest price per hour when every
    side is priced (its list price, else the secondary-source figure every answer uses for that GPU, said), else the
    fewest GPUs."""
    meets = [s for s in speeds if s.meets]
    hours = ctx.query.duration_hours  # "which is cheaper per month": each side's cost for that period
    hourly = {id(s): _hourly(ctx, s) for s in speeds}
    items = [{"config": config(s), "per_user_tps": s.tps_per_user, "price_usd": hourly[id(s)][0],
              "secondary": hourly[id(s)][1],
              "rented": s.price.gpus_rented if s.price and s.price.idle_gpus > 0 else None,
              "period_usd": hourly[id(s)][0] * hours if hours and hourly[id(s)][0] else None,
              "period_hours": hours if hours and hourly[id(s)][0] else None, "meets": s.meets} for s in speeds]
    pick, by = None, None
    if meets:
        if all(hourly[id(s)][0] for s in meets):
            pick, by = min(meets, key=lambda s: hourly[id(s)][0]), "price"
        else:
            pick, by = min(meets, key=lambda s: (s.gpu_count or 0, -(s.tps_per_user or 0))), "gpus"
    return note("compare_load", users=load.users, model_name=model_label(model), per_user_tps=load.capacity_tps,
                items=items, pick=config(pick) if pick else None, by_price=by == "price", by_gpus=by == "gpus")


def _aggregate_line(ctx: Context, model: Model, choices: list[GpuChoice], speeds: list[Option], load: ServingLoad):
    """What each GPU type needs to reach the aggregate output target ``load.total_tps`` (tokens/s summed over
    requests), in the precision of its speed row, on the count the user gave (else the fewest GPUs that reach it):
    the plan of :func:`bot.advice.planner.plan_serving` (replicas x the largest batch that keeps the per-user floor
    and any TTFT limit). A side whose given count falls short gets the fewest GPUs that would reach it beside it.
    The pick is the lowest price per hour among the sides that reach the target (they deliver the same tokens, so
    the hourly price is the cost), else the fewest GPUs.

    Returns:
        The ``compare_aggregate`` note.
    """
    items, reaching = [], []
    hours = ctx.query.duration_hours if (ctx.query.duration_hours or 0) > 1 else None  # (not "每小时")
    for choice, speed in zip(choices, speeds, strict=False):
        precision = speed.precision or precisions_for(ctx, model, choice.gpu)[0][0]
        # the cheapest way to reach the total: replicas may fill whole nodes that cost less per GPU than the
        # fewest GPUs rented as small instances
        plan = plan_serving(ctx, model, choice.gpu, precision, load, count=choice.count,
                            objective="fewest" if choice.count else "cheapest", whole_instance=choice.count is None)
        option, needed = serving_option(ctx, plan), None
        priced = option  # the configuration whose hourly price is said: the one that reaches the target
        if not plan.meets and choice.count:
            need = plan_serving(ctx, model, choice.gpu, precision, load, objective="fewest", whole_instance=False)
            if need.meets:
                priced = serving_option(ctx, need)
                needed = config(priced)
        hourly, secondary = _hourly(ctx, priced)
        items.append({"config": config(option), "meets": plan.meets, "short": not plan.meets,
                      "throughput_tps": option.throughput_tps, "needed": needed,
                      "per_request_tps": priced.tps_per_user if priced.meets else None,
                      "price_usd": hourly if priced.meets else None, "secondary": secondary and priced.meets,
                      # "包月多少钱": each side's cost for the period asked
                      "period_usd": hourly * hours if hours and hourly and priced.meets else None,
                      "period_hours": hours if hours and hourly and priced.meets else None,
                      "rented": priced.price.gpus_rented if priced.meets and priced.price
                      and priced.price.idle_gpus > 0 else None})
        if priced.meets:
            reaching.append((priced, hourly))
    pick, by = None, None
    if reaching and all(h for _, h in reaching):
        pick, by = min(reaching, key=lambda r: r[1])[0], "price"
    elif reaching:
        pick, by = min((o for o, _ in reaching), key=lambda o: o.gpu_count or 0), "gpus"
    return note("compare_aggregate", total_tps=load.total_tps, model_name=model_label(model),
                per_user_tps=load.per_user_tps if load.per_user_given else None, items=items,
                pick=config(pick) if pick else None, by_price=by == "price", by_gpus=by == "gpus")


def _value_line(ctx: Context, model: Model, choices: list[GpuChoice], single: ServingLoad):
    """For one user: per GPU type, the cheapest setup per hour that serves them at the per-user floor, trying the
    formats of :func:`bot.advice.planner.precisions_for` that keep quality (4-bit only when the user asked for it),
    on the count given, else the fewest GPUs that hold it. The pick is the lowest price per hour (list price, else
    the GPU's secondary figure, said); ``None`` when fewer than two sides are priced.

    Returns:
        The ``compare_value`` note, or ``None``.
    """
    q = ctx.query
    items, priced = [], []
    for choice in choices:
        best = None
        for precision, fixed in precisions_for(ctx, model, choice.gpu):
            if quality_tier(precision) and not fixed:
                continue
            plan = plan_serving(ctx, model, choice.gpu, precision, single, count=choice.count, objective="cheapest",
                                whole_instance=False)
            option = serving_option(ctx, plan)
            hourly, secondary = _hourly(ctx, option)
            if option.meets and hourly and (best is None or hourly < best[1]):
                best = (option, hourly, secondary)
        if best is None:
            items.append({"gpu_name": choice.gpu.name, "none": True})
            continue
        option, hourly, secondary = best
        items.append({"config": config(option), "price_usd": hourly, "secondary": secondary,
                      "single_tps": option.single_user_tps or option.tps_per_user, "none": False})
        priced.append((option, hourly))
    if len(priced) < 2:
        return None
    pick = min(priced, key=lambda p: p[1])[0]
    return note("compare_value", model_name=model_label(model), items=items, pick=config(pick),
                per_user_tps=single.capacity_tps if q.target_tokens_per_s else None)


#: Asked quantities that a choice's pick line (one user's speed and price per hour on the fewest GPUs that hold the
#: model) does not answer: another line answers them (cost per token, users, GPU count, fit, ...).
_NOT_A_PICK = frozenset({"cheapest", "token_cost", "users_served", "throughput", "request_rate", "gpu_count",
                         "node_count", "memory", "fit", "max_context", "time", "tokens_in_time", "spec", "break_even"})


def _pick_line(ctx: Context, model: Model, speeds: list[Option]):
    """Which GPU, asked with no load and no budget ("A vs B vs C for X, which one?"): each GPU type on the fewest GPUs
    that hold the model (its speed row), with its speed for one user (batch-1 decode) and its price per hour (list
    price, else the secondary-source figure every answer uses for that GPU, else, for a count no listed instance holds,
    its GPUs at the lowest per-GPU rate of the instances listed: each said). The pick is the lowest price per
    hour among the sides that hold the model (equal prices to the cent: the faster); when the fastest side is another
    one, how much faster it is and what it costs more per hour is said beside the pick. With fewer than two sides
    priced, the pick is the fastest, said as such.

    Args:
        ctx: the request context.
        model: the model compared.
        speeds: the speed rows of :func:`_serving`, one per GPU type (fewest GPUs that hold the model, one user).

    Returns:
        The ``compare_pick`` note, or ``None`` when fewer than two sides hold the model.
    """
    fitting = [s for s in speeds if s.fits and (s.single_user_tps or s.decode_tps)]
    if len(fitting) < 2:
        return None
    items, priced = [], []
    for s in speeds:
        tps = (s.single_user_tps or s.decode_tps) if s.fits else None
        hourly, secondary = _hourly(ctx, s) if s.fits else (None, False)
        cell = hour_cell(ctx, s) if s.fits else None
        # no instance of this count is listed: its GPUs at the lowest per-GPU rate of the instances that are, said
        rate = _per_gpu_rate(ctx, s.gpu) if s.fits and hourly is None else None
        if rate is not None:
            hourly = rate.price_per_gpu_hour_usd * (s.gpu_count or 1)
            ctx.cite(rate.offer.source)
        items.append({"config": config(s), "short": not s.fits, "single_tps": tps,
                      "price_usd": hourly if hourly is not None and not secondary and rate is None else None,
                      "hour": cell if secondary and isinstance(cell, dict) else hourly if secondary else None,
                      "scaled_usd": hourly if rate is not None else None,
                      "where": rate.offer.provider_name if rate is not None else None,
                      "instance_gpus": rate.offer.gpu_count if rate is not None else None,
                      "unpriced": s.fits and hourly is None,
                      "rented": s.price.gpus_rented if s.price is not None and s.price.idle_gpus > 0 else None})
        if s.fits and hourly is not None:
            priced.append((s, hourly, tps or 0.0))
    fastest = max(fitting, key=lambda s: s.single_user_tps or s.decode_tps or 0.0)
    faster = None
    if len(priced) >= 2:
        pick, pick_usd, pick_tps = min(priced, key=lambda p: (round(p[1], 2), -p[2]))
        fast_tps = fastest.single_user_tps or fastest.decode_tps or 0.0
        fast_usd = next((h for s, h, _ in priced if s is fastest), None)
        if fastest is not pick and pick_tps and fast_tps / pick_tps >= _SAME:
            faster = {"config": config(fastest), "ratio_x": fast_tps / pick_tps,
                      "extra_usd": fast_usd - pick_usd if fast_usd is not None else None}
        by_price = True
    else:
        pick, by_price = fastest, False
    return note("compare_pick", model_name=model_label(model), items=items, pick=config(pick), by_price=by_price,
                by_speed=not by_price, faster=faster["config"] if faster else None,
                faster_x=faster["ratio_x"] if faster else None, extra_usd=faster["extra_usd"] if faster else None)


def _claimed_ratio_line(claimed: float, a: Option, b: Option, model: Model):
    """A claimed speed ratio of the first GPU named over the second, checked on the user's model: the decode speed
    (one user) and time to first token of each, as estimated for this workload. The claim holds when it is within
    :data:`_CLAIM_TOLERANCE` of the decode ratio (the generation speed).

    Returns:
        The ``claim_ratio_check`` note, or ``None`` when either side has no speed.
    """
    if not (a.fits and b.fits and a.decode_tps and b.decode_tps):
        return None
    decode_x = a.decode_tps / b.decode_tps
    prefill_x = b.ttft_s / a.ttft_s if a.ttft_s and b.ttft_s else None
    # judged on decode, the speed a chat user sees token by token (prefill, a larger gap on compute-rich cards,
    # only shortens the wait for the first token, which is said beside it)
    best = decode_x
    return note("claim_ratio_check", claimed_x=claimed, a=a.gpu_name, b=b.gpu_name, model_name=model_label(model),
                decode_x=decode_x, prefill_x=prefill_x, holds=best / _CLAIM_TOLERANCE <= claimed <= best * _CLAIM_TOLERANCE,
                overstated=claimed > best * _CLAIM_TOLERANCE, understated=claimed < best / _CLAIM_TOLERANCE)


def _hourly(ctx: Context, o: Option) -> tuple[float | None, bool]:
    """The option's price per hour, USD, and whether it is a secondary-source figure: its list price, else the
    secondary figure every answer uses for that GPU (:func:`bot.advice.planner.secondary_price`) x its GPU count."""
    if o.price_per_hour_usd:
        return o.price_per_hour_usd, False
    gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0]) if o.gpu and "@" not in o.gpu else None
    sp = secondary_price(ctx, gpu, o.gpu_count or 1) if gpu is not None else None
    return (sp.price_per_hour_usd, True) if sp is not None else (None, False)


def _recommend(options: list[Option], cheapest: bool) -> int | None:
    priced = [i for i, o in enumerate(options) if o.fits and o.cost_per_million_tokens_usd]
    if priced and cheapest:
        return min(priced, key=lambda i: options[i].cost_per_million_tokens_usd)
    fitting = [i for i, o in enumerate(options) if o.fits and o.decode_tps]
    if not fitting:
        return None
    return max(fitting, key=lambda i: options[i].decode_tps)


#: Below this ratio of GPU-hours two GPU types train at the same speed as far as the estimate can tell (its
#: efficiency factors are one per GPU generation, so a smaller gap is the layout, not the card).
_SAME_SPEED = 1.03


def _training(ctx: Context, model: Model, choices: list[GpuChoice]) -> Answer:
    tokens = training_tokens(ctx, model)
    options = training_runs(ctx, model, tokens, choices)
    per_gpu: dict[str, Option] = {}
    for o in options:
        # each GPU type at its most efficient layout shown (fewest GPU-hours): a small count's layout (recompute,
        # replication) is not the card's speed
        if o.gpu_hours and (o.gpu not in per_gpu or o.gpu_hours < per_gpu[o.gpu].gpu_hours):
            per_gpu[o.gpu] = o
    ranked = sorted(per_gpu.values(), key=lambda o: o.gpu_hours)
    if len(ranked) >= 2:
        fast, slow = ranked[0], ranked[-1]
        ratio = slow.gpu_hours / fast.gpu_hours
        headline = note("training_per_gpu_ratio" if ratio >= _SAME_SPEED else "training_per_gpu_same",
                        fast_gpu=fast.gpu_name, slow_gpu=slow.gpu_name, ratio_x=ratio,
                        fast_gpu_hours=fast.gpu_hours, slow_gpu_hours=slow.gpu_hours)
    else:
        headline = note("compare_fits", fits=[config(o) for o in options if o.fits],
                        fails=[config(o) for o in options if not o.fits], model_name=model_label(model))
    for o in options[:3]:
        caveats(ctx, o)
    details = [note("training_time_line", config=config(o), wall_hours=o.wall_clock_hours, total_usd=o.total_cost_usd,
                    tokens_tokens=tokens) for o in options if o.wall_clock_hours]
    if set(ctx.query.asks) & _MONEY_ASKS and (costs := _run_costs(ctx, options)) is not None:
        # "how much faster, and how much more expensive": the run's cost on each GPU type right under the speed
        details.insert(0, costs)
    details += nvlink_difference(choices, options)
    details += _mention_lines(ctx, options, run=True)
    return ctx.answer(title=note("title_compare", gpu_names=[c.gpu.name for c in choices], model_name=model_label(model)),
                      headline=headline, details=details, options=options, table=training_table(options),
                      actions=next_actions(ctx, None, precision_switch=False))


#: Asked quantities that are money: a comparison of runs then states what the run costs on each GPU type.
_MONEY_ASKS = frozenset({"cost", "cheapest", "difference", "token_cost"})


def _run_costs(ctx: Context, runs: list[Option]):
    """What one run (training or fine-tuning) costs on each GPU type compared: its GPU-hours x the GPU's price per
    GPU-hour (its list price, else the secondary-source figure every answer uses for that GPU,
    :func:`bot.advice.planner.secondary_price`, said as such). The GPU-hours do not depend on how many GPUs run it,
    so neither does the cost (only the wall clock does).

    Args:
        ctx: the request context.
        runs: the runs planned (several counts per GPU type); per GPU type the one whose rental costs least per
            GPU-hour is priced (each is a real rental of that run's layout).

    Returns:
        The ``run_costs_compared`` note (cheapest first, the ratio of the dearest to the cheapest when two or more
        are priced), or ``None`` when fewer than two GPU types are compared.
    """
    by_gpu: dict[str, Option] = {}
    for o in runs:
        if not o.fits or not o.gpu_hours or not o.gpu:
            continue
        key = (o.price is None, o.price.price_per_gpu_hour_usd if o.price is not None else 0.0, o.gpu_hours)
        mine = by_gpu.get(o.gpu)
        if mine is None or key < (mine.price is None, mine.price.price_per_gpu_hour_usd if mine.price is not None
                                  else 0.0, mine.gpu_hours):
            by_gpu[o.gpu] = o
    if len(by_gpu) < 2:
        return None
    items = []
    for o in by_gpu.values():
        per_gpu, secondary = (o.price.price_per_gpu_hour_usd, False) if o.price is not None else (None, False)
        gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0]) if o.gpu and "@" not in o.gpu else None
        if per_gpu is None and gpu is not None and (sp := secondary_price(ctx, gpu, 1)) is not None:
            per_gpu, secondary = sp.price_per_gpu_hour_usd, True
            ctx.cite(sp.source)
        items.append({"gpu_name": o.gpu_name, "gpu_hours": o.gpu_hours, "per_gpu_usd": per_gpu,
                      "total_usd": o.gpu_hours * per_gpu if per_gpu and o.gpu_hours else None, "secondary": secondary,
                      "unpriced": per_gpu is None})
    priced = sorted((i for i in items if i["total_usd"]), key=lambda i: i["total_usd"])
    items = priced + [i for i in items if not i["total_usd"]]
    ratio = priced[-1]["total_usd"] / priced[0]["total_usd"] if len(priced) >= 2 else None
    return note("run_costs_compared", items=items, cheap=priced[0]["gpu_name"] if ratio else None,
                dear=priced[-1]["gpu_name"] if ratio else None, ratio_x=ratio)


def nvlink_difference(choices: list[GpuChoice], options: list[Option]) -> list:
    """The NVLink ratio of two compared GPU types when runs span several GPUs and the links differ (A800 vs A100,
    H800 vs H100): the estimate uses one efficiency for both, so the link that differs is said, not hidden."""
    gpus = [c.gpu for c in choices]
    multi = any((o.gpu_count or 1) > 1 for o in options)
    if len(gpus) < 2 or not multi:
        return []
    return [f for f in ratio_facts(gpus[0], gpus[1]) if f.code == "ratio_nvlink"]


def _finetune(ctx: Context, model: Model, choices: list[GpuChoice]) -> Answer:
    tokens = finetune_tokens(ctx)
    options = finetune_setups(ctx, model, tokens, choices)
    fitting = [o for o in options if o.fits and o.gpu_hours]
    by_method: dict[str, list[Option]] = {}
    for o in fitting:
        by_method.setdefault(o.method or "", []).append(o)
    headline = None
    details = []
    for method, rows in by_method.items():
        gpus: dict[str, Option] = {}
        for o in rows:  # like for like: each GPU type at the fewest GPUs that run it
            if o.gpu not in gpus or (o.gpu_count or 1) < (gpus[o.gpu].gpu_count or 1):
                gpus[o.gpu] = o
        if len(gpus) < 2:
            continue
        ranked = sorted(gpus.values(), key=lambda o: o.gpu_hours)
        fast, slow = ranked[0], ranked[-1]
        line = note("finetune_compare" if slow.gpu_hours / fast.gpu_hours >= _SAME_SPEED else "finetune_compare_same",
                    method=method, fast=config(fast), slow=config(slow),
                    ratio_x=slow.gpu_hours / fast.gpu_hours, fast_gpu_hours=fast.gpu_hours,
                    slow_gpu_hours=slow.gpu_hours, fast_usd=fast.total_cost_usd, slow_usd=slow.total_cost_usd,
                    run_tokens=tokens if fast.total_cost_usd else None)
        if headline is None:
            headline = line
            if set(ctx.query.asks) & _MONEY_ASKS and None in (fast.total_cost_usd, slow.total_cost_usd) and (
                    costs := _run_costs(ctx, rows)) is not None:
                details.append(costs)  # a side without a list price: the run at its secondary figure
        else:
            details.append(line)
        recomputes = [o for o in (slow, fast) if any(n.code == "gradient_checkpointing_used" for n in o.notes)]
        if len(recomputes) == 1 and recomputes[0] is slow:
            # the per-GPU gap comes from memory, not compute: the smaller card recomputes activations to fit
            details.append(note("finetune_checkpointing_gap", slow=config(slow), fast=config(fast)))
    if headline is None:
        headline = note("compare_fits", fits=[config(o) for o in fitting], fails=[config(o) for o in options
                                                                                 if not o.fits], model_name=model_label(model))
    for o in options[:3]:
        caveats(ctx, o)
    details += nvlink_difference(choices, options)  # (H800 vs H100: the link is what differs across GPUs)
    details += _mention_lines(ctx, options, run=True)
    return ctx.answer(title=note("title_compare", gpu_names=[c.gpu.name for c in choices], model_name=model_label(model)),
                      headline=headline, details=details, options=options, table=finetune_table(options),
                      actions=next_actions(ctx, None, precision_switch=False))
