"""``size_inference``: serving a model - does it fit, how many GPUs, how many users, how fast, memory.

The headline states the asked quantity first:

* ``users_served``: the users a configuration serves at the per-user floor ("serves about 22 users");
* ``gpu_count`` / a load ("200 users", "2,000 tok/s"): the fewest GPUs (cheapest when priced) that carry it;
* ``fit``: yes or no with the memory that decides it;
* ``speed``: tokens/s per user and TTFT;
* ``memory``: weights + KV cache + overhead per model and precision (several models and precisions named
  give one row each).

A configuration the user fixed (GPU, count, precision) is answered as asked; when it does not work the
answer says so first and then shows alternatives, each labelled with what it changes.
"""

from __future__ import annotations

import math
from dataclasses import replace

from bot.advice import batch_job
from bot.advice.answer import Answer, Option, Table
from bot.advice.asked import STATES, lead_with_asks, states
from bot.advice.context import Context
from bot.advice.models import model_label, model_question, resolve_models
from bot.advice.non_llm import answer_non_llm, need_gb
from bot.advice.options import (
    budget_buys_note,
    caveats,
    cheapest_per_token,
    config,
    half_precision_fix,
    hour_cell,
    idle_line,
    machines_first,
    mention_cost,
    money_fleet,
    next_actions,
    oom_despite_fit,
    quality_tier,
    variant_notes,
)
from bot.advice.planner import (
    GpuChoice,
    ServingLoad,
    ServingPlan,
    candidate_gpus,
    canonical_precision,
    cheapest_rental,
    cost_for,
    cost_per_million_tokens,
    fuller_counts,
    machine_size,
    place,
    plan_serving,
    precisions_for,
    price_of,
    rent_usd_per_hour,
    say_secondary,
    secondary_price,
    serving_load,
    serving_option,
    workload_of,
)
from bot.estimation import efficiency_for, estimate_inference, usable_memory_gb
from bot.estimation.common import kv_shape
from bot.estimation.traffic import in_flight
from bot.kb.schema import Model
from bot.notes import note

__all__ = ["answer"]

_EXAMPLES = ["serve Llama 3 70B to 200 users at 8k context", "can a 4090 run 13b int4?",
             "how many users can one H100 serve with Llama 3.1 8B?"]
_EXAMPLES_ZH = ["用 vllm 部署 qwen2.5 32b 给 80 个用户，需要几张 L20", "单张 4090 能跑 qwen2.5 14b int4 吗"]


def answer(ctx: Context) -> Answer:
    """Answer a serving question (see the module docstring)."""
    q = ctx.query
    models = resolve_models(ctx)
    if not models:
        return _ask_for_model(ctx)
    if q.co_hosted and len(models) >= 2:
        # "Llama 8B and Mistral 7B side by side on one A100": the models share the GPUs, their memory adds up
        return _cohosted(ctx, models, candidate_gpus(ctx, "serving"), serving_load(ctx))
    if all(m.kind != "llm" for m in models):
        return answer_non_llm(ctx, [m for m in models if m.kind != "llm"])
    models = [m for m in models if m.kind == "llm"]
    variant_notes(ctx)
    if "memory" in q.asks and not q.gpus:
        return _memory(ctx, models)
    load = serving_load(ctx)
    _workload_notes(ctx, load)
    choices = candidate_gpus(ctx, "serving")
    if batch_job.is_batch_job(q) and len(models) == 1:
        return batch_job.answer(ctx, models[0], choices)
    several = len(models) > 1 or ((len(q.precisions) > 1 or len(q.kv_precisions) > 1) and any(c.fixed for c in choices))
    if "token_cost" in q.asks and not {"users_served", "max_context"} & set(q.asks) and not several:
        return _every_ask(ctx, models[0], choices, load, _token_cost(ctx, models[0], choices, load))
    period_h = q.duration_hours or q.deadline_hours
    if "tokens_in_time" in q.asks and period_h and any(c.fixed for c in choices) and not several \
            and not load.users and load.total_tps is None:
        # "how many tokens can 2x A100 generate in a week": the configuration's full-load output x the period
        out = _tokens_in_period(ctx, models[0], _users_served(ctx, models[0], choices, load), load, period_h)
    elif any(c.fixed for c in choices) and ("users_served" in q.asks or (
            {"throughput", "request_rate"} & set(q.asks) and not load.users and load.total_tps is None)):
        out = _users_served(ctx, models[0], choices, load) if len(models) == 1 else \
            _users_served_items(ctx, models, choices, load)
    elif several:
        out = _items(ctx, models, choices, load)
    else:
        out = _size(ctx, models[0], choices, load)
    fixed = next((c for c in choices if c.fixed), None)
    oom_fix = half_precision_fix(ctx, models[0], fixed.gpu, fixed.count or 1, load) if fixed else None
    if oom_fix is not None:
        # "OOM loading it in fp32": the 16-bit (and 8/4-bit) memory on the same GPUs is the fix, said first
        out = out.model_copy(update={"headline": oom_fix, "details": [out.headline, *out.details]})
    elif fixed is not None and out.recommendation is not None and (
            seen := oom_despite_fit(ctx, out.options[out.recommendation])) is not None:
        # "OOM on my 24 GB card" where the estimate fits: the error reported leads, with the arithmetic
        out = out.model_copy(update={"headline": seen, "details": [out.headline, *out.details]})
    return _every_ask(ctx, models[0], choices, load, out)


# --------------------------------------------------------------------------- several quantities asked

def _every_ask(ctx: Context, model: Model, choices: list[GpuChoice], load: ServingLoad, out: Answer) -> Answer:
    """Several quantities asked of one configuration ("tokens/s for one user, and how many users?", "how much VRAM
    and how fast", "users served and cost per 1M tokens"): each is stated in the first lines, the first asked first
    (:func:`bot.advice.asked.lead_with_asks`), all of the recommended configuration; a quantity the handler's lines
    do not state is worked out on that configuration (same GPU, count and precision)."""
    q = ctx.query
    if len({a for a in q.asks if a in STATES}) < 2 or out.recommendation is None or len(q.models) > 1:
        return out
    o = out.options[out.recommendation]
    choice = next((c for c in choices if c.gpu.id == o.gpu), None)
    if choice is None or not o.fits:
        return out
    fixed = GpuChoice(choice.gpu, o.gpu_count, True, choice.mention)

    def capacity() -> Option | None:
        plans = [p for p in _capacity_plans(ctx, model, fixed, load) if p.capacity > 0 and p.precision == o.precision]
        if not plans:
            return None
        c = serving_option(ctx, plans[0])
        c.max_users = plans[0].capacity
        c.cost_per_million_tokens_usd = cost_per_million_tokens(c.price_per_hour_usd, c.throughput_tps)
        return c

    def make(ask: str):
        if ask == "speed":
            one = ServingLoad(**{**load.__dict__, "users": 1, "total_tps": None})
            single = serving_option(ctx, plan_serving(ctx, model, fixed.gpu, o.precision, one, count=o.gpu_count))
            if single.decode_tps is None:
                return None
            return note("speed_single", config=config(single), model_name=model_label(model),
                        decode_tps=single.decode_tps, ttft_s=single.ttft_s)
        if ask == "memory" and o.weights_gb is not None:
            return note("memory_breakdown", weights_gb=o.weights_gb, kv_gb=o.kv_cache_gb or 0.0,
                        overhead_gb=o.overhead_gb or 0.0, total_gb=o.memory_total_gb, gpu_count=o.gpu_count,
                        replicas=o.replicas or 1, per_gpu_gb=o.memory_per_gpu_gb, usable_gb=o.usable_gb,
                        precision=o.precision, kv_precision=o.kv_precision)
        if ask in ("users_served", "throughput") and (c := capacity()) is not None:
            return _users_note(ctx, model, load, c, "users_served")
        if ask == "token_cost" and (c := capacity()) is not None:
            return _token_cost_note(ctx, model, c)
        return None

    plain = any(states(out.headline, a, users=load.users) for a in q.asks) or out.headline.code == "serve_users"
    headline, details = lead_with_asks(out.headline, list(out.details), list(q.asks), make, users=load.users,
                                       keep_headline=not plain)
    return out.model_copy(update={"headline": headline, "details": details})


# --------------------------------------------------------------------------- models sharing GPUs

def _cohosted(ctx: Context, models: list[Model], choices: list[GpuChoice], load: ServingLoad) -> Answer:
    """Several models on the same GPUs ("side by side", "同时部署"): each one's memory at its precision (an LLM's
    weights, KV cache for the load and engine overhead from its serving plan on those GPUs; another model's weights
    with headroom and a CUDA context, :func:`bot.advice.non_llm.need_gb`), summed against the GPUs' usable memory.
    A precision written with each model is that model's; as many precisions as models, said in order, pair up."""
    q = ctx.query
    _workload_notes(ctx, load)
    choice = next((c for c in choices if c.fixed), choices[0])
    count = choice.count or 1
    own = {m.id: m.precision for m in q.models if m.id and m.precision}
    in_order = dict(zip([m.id for m in models], q.precisions, strict=True)) if len(q.precisions) == len(models) else {}
    usable = usable_memory_gb(efficiency_for(ctx.kb), choice.gpu) * count
    items, options = [], []
    for model in models:
        precision = own.get(model.id) or in_order.get(model.id) or (
            q.precisions[0] if len(q.precisions) == 1 else precisions_for(ctx, model, choice.gpu)[0][0])
        if model.kind == "llm":
            o = serving_option(ctx, plan_serving(ctx, model, choice.gpu, precision, load, count=count))
            need = (o.memory_per_gpu_gb or 0) * count
        else:
            o = Option(model=model.id, model_name=model_label(model), gpu=choice.gpu.id, gpu_name=choice.gpu.name,
                       gpu_count=count, precision=precision)
            o.weights_gb, need = need_gb(ctx, model, precision)
            o.memory_total_gb = o.memory_per_gpu_gb = need
        options.append(o)
        items.append({"model_name": model_label(model), "precision": precision, "mem_gb": need})
    total = sum(i["mem_gb"] for i in items)
    ctx.assume("cohosted_sum")
    fits = total <= usable
    shared = {"gpu_count": count, "gpu_name": choice.gpu.name}
    headline = note("cohosted_fit", fits=fits, not_fits=not fits, items=items, total_gb=total, usable_gb=usable,
                    config=shared)
    speeds = cohosted_speeds(options) if fits else []
    details = []
    if speeds:
        # "how fast is each": each alone, and each while all generate at once on the shared GPUs
        details.append(note("cohosted_speed", items=speeds, shared_n=len(options), config=shared))
        ctx.assume("cohosted_time_shared", shared_n=len(options))
    if "speed" in q.asks and speeds and "fit" not in q.asks:
        details.insert(0, headline)
        headline = details.pop(1)
    columns = ["config", "weights_gb", "gb_per_gpu"]
    rows = [[config(o, with_model=True), o.weights_gb, o.memory_per_gpu_gb] for o in options]
    if speeds:
        columns += ["alone_tps", "shared_tps"]
        by_model = {s["model"]: s for s in speeds}
        for o, row in zip(options, rows, strict=True):
            row += [by_model[o.model]["alone_tps"], by_model[o.model]["shared_tps"]] if o.model in by_model \
                else [None, None]
    return ctx.answer(title=note("title_items", model_names=[model_label(m) for m in models]), headline=headline,
                      details=details, options=options, recommendation=None, table=Table(columns=columns, rows=rows),
                      actions=next_actions(ctx, None))


def cohosted_speeds(options: list[Option]) -> list[dict]:
    """Each co-hosted LLM's tokens/s per user alone on the GPUs and while every model generates at once.

    Decode reads each model's weights and KV cache from the same GPU memory, so models that generate at the same time
    share its time and bandwidth: with one engine process per model and no MPS the GPU runs one process's kernels at a
    time and switches between them; with MPS the kernels overlap but read the same memory (NVIDIA Multi-Process Service
    documentation, docs.nvidia.com/deploy/mps). Decode is bound by memory reads either way, so each of ``n`` busy
    models gets about ``1/n`` of its speed alone.

    Args:
        options: the co-hosted models' options on the shared GPUs (LLMs carry ``tps_per_user`` at the load, or
            ``single_user_tps`` / ``decode_tps`` for one user; other models carry no speed and are skipped).

    Returns:
        One dict per LLM with a speed: ``model`` (id), ``model_name``, ``precision``, ``alone_tps`` (tokens/s per
        user with the other models idle) and ``shared_tps`` (``alone_tps / n``, n = all the models co-hosted, the
        other kinds included: their compute takes its share of the time too). Empty when no option has a speed.
    """
    n = len(options)
    out = []
    for o in options:
        alone = o.tps_per_user if (o.users or 1) > 1 else (o.single_user_tps or o.decode_tps or o.tps_per_user)
        if not alone or not o.fits:
            continue
        out.append({"model": o.model, "model_name": o.model_name, "precision": o.precision, "alone_tps": alone,
                    "shared_tps": alone / n})
    return out


# --------------------------------------------------------------------------- sizing a load

def _size(ctx: Context, model: Model, choices: list[GpuChoice], load: ServingLoad) -> Answer:
    q = ctx.query
    if "fit" in q.asks and "gpu_count" not in q.asks and (load.users or 1) == 1 and not q.gpu_count and \
            load.total_tps is None:
        # "3090 能跑 X 吗", "can the 3090 run X": one card is the question, not the count that would hold it; when
        # it does not fit, more of them come as a labelled alternative
        one = [c for c in choices if c.fixed and c.count is None]
        if one:
            choices = [replace(c, count=1) if c in one else c for c in choices]
            ctx.assume("one_card_assumed", gpu_names=[c.gpu.name for c in one])
    fixed = [c for c in choices if c.fixed]
    plans: list[ServingPlan] = []
    # "how many GPUs" is answered with the fewest that carry the load; an instance sold only in larger sizes is
    # said beside it (_instance_line), not silently taken as the count
    whole = "gpu_count" not in ctx.query.asks
    cheaper: list[ServingPlan] = []
    # the plans of each choice: one GPU named at two counts ("1 A6000 ... would 2 A6000 help?") is two setups, each
    # answered with its own plans
    plans_of: dict[int, list[ServingPlan]] = {}
    for k, choice in enumerate(choices):
        # a GPU named without a count asks for its count: the fewest that carry the load (cheapest among them);
        # a layout of more GPUs that rents for less (small instances, independent replicas) is said beside it
        counted = choice.fixed and choice.count is None
        for precision, _fixed in precisions_for(ctx, model, choice.gpu):
            plan = plan_serving(ctx, model, choice.gpu, precision, load, count=choice.count,
                                whole_instance=whole, objective="fewest" if counted else "cheapest")
            plans.append(plan)
            plans_of.setdefault(k, []).append(plan)
            if counted and plan.meets:
                cheaper.append(plan_serving(ctx, model, choice.gpu, precision, load, whole_instance=False))
    limit = ctx.hourly_limit_usd()
    before_limit = [p for p in plans if p.meets and p.placement is not None]
    if limit is not None:
        _apply_limit(ctx, plans, limit)
    working = [p for p in plans if p.meets]
    options: list[Option] = []
    layout: list[Option] = []
    if fixed:
        # every GPU the user named is answered; best precision first per GPU
        for k, choice in enumerate(choices):
            if not choice.fixed:
                continue
            best = _best(plans_of.get(k, []))
            if best is not None:
                options.append(serving_option(ctx, best))
        options.sort(key=lambda o: (not o.meets, _rank(o)))
        if not any(o.meets for o in options):
            options += _alternatives(ctx, model, fixed, load)
        elif options[0].meets and options[0].price is not None:
            layout = _cheaper_layout(ctx, options[0], cheaper)
            options += layout
    else:
        by_gpu: dict[str, ServingPlan] = {}
        for p in working:
            if p.gpu.id not in by_gpu or _plan_key(p) < _plan_key(by_gpu[p.gpu.id]):
                by_gpu[p.gpu.id] = p
        options = sorted((serving_option(ctx, p) for p in by_gpu.values()), key=_rank)
    # every option goes into the answer; the renderers show the first rows and say how many more there are
    shown = options
    rec = next((i for i, o in enumerate(shown) if o.meets), None)
    for o in shown[:3]:
        caveats(ctx, o, ctx.kb.gpus.get(o.gpu.split("@")[0]) if o.gpu else None)
    if rec is not None:
        _assumptions_of(ctx, model, shown[rec])
        if quality_tier(shown[rec].precision) and not ctx.query.precisions:
            ctx.warn("quantization_quality", precision=shown[rec].precision, model_name=model_label(model))
    if rec is not None and fixed and not load.per_user_given and load.per_user_tps == 0 and load.users and \
            shown[rec].tps_per_user is not None and shown[rec].tps_per_user < load.floor_tps:
        ctx.warn("below_reading_speed", config=config(shown[rec]), per_user_tps=shown[rec].tps_per_user,
                 floor_tps=load.floor_tps)
    if rec is not None and load.per_request and not load.per_user_given and shown[rec].tps_per_user is not None \
            and shown[rec].tps_per_user < load.floor_tps:
        # sized at the best batch for a total: each request is slower than reading, which a live chat would notice
        ctx.warn("aggregate_below_reading", config=config(shown[rec]), per_user_tps=shown[rec].tps_per_user,
                 floor_tps=load.floor_tps)
    headline = _headline(ctx, model, load, shown, rec)
    details = _details(ctx, model, load, shown, rec)
    q = ctx.query
    if headline.code == "fit_tight_budget" and "speed" in q.asks and "fit" not in q.asks and (load.users or 1) <= 1:
        # the speed was asked of a setup that holds the model with the memory setting raised: the speed and first
        # token lead, the setting follows
        first = shown[0]
        headline, details = note("speed_single", config=config(first), model_name=model_label(model),
                                 users=first.users, per_user_tps=first.tps_per_user,
                                 decode_tps=first.single_user_tps or first.decode_tps, mem_gb=first.memory_per_gpu_gb,
                                 usable_gb=first.usable_gb, price_usd=first.price_per_hour_usd,
                                 provider=first.price.provider_name if first.price else None, ttft_s=first.ttft_s,
                                 total_tps=first.throughput_tps, layout=_layout(first)), [headline, *details]
    if layout and rec == 0:
        # more GPUs that rent for less (replicas on small instances): said right under the fewest, not only a row
        o, alt = shown[0], layout[0]
        details.insert(0, note("cheaper_layout", config=config(alt), price_usd=alt.price_per_hour_usd,
                               provider=alt.price.provider_name if alt.price else None,
                               shown_config=config(o), shown_price_usd=o.price_per_hour_usd,
                               per_user_tps=alt.tps_per_user, layout=_layout(alt)))
    if rec is not None and not ctx.query.precisions and not ctx.query.full_precision and shown[rec].gpu:
        # a quantized format chosen by us, not the user: the model as released is said beside it (its count), so the
        # answer never implies quantizing is needed when it is only cheaper
        o = shown[rec]
        gpu = ctx.kb.gpus.get(o.gpu.split("@")[0])
        native = precisions_for(ctx, model, gpu)[0][0] if gpu is not None else None
        if native and o.precision and canonical_precision(ctx, o.precision) != canonical_precision(ctx, native):
            line = _native_alternative(ctx, model, load, o, native, gpu, [
                p for p in plans if p.meets and p.gpu.id == o.gpu and p.precision == native])
            if line is not None:
                details.insert(0, line)
    if rec is not None and any(a.code == "full_precision_upcast" for a in ctx.assumptions):
        # 满血 upcast to 16-bit on a GPU without the released format: the 8-bit quantized deployment is what many
        # run instead; shown beside it with its quality cost, never in its place
        o = shown[rec]
        gpu = ctx.kb.gpus.get((o.gpu or "").split("@")[0])
        eight = "fp8" if gpu is not None and gpu.supports("fp8") else "int8"
        if gpu is not None and gpu.supports(eight):
            alt_plan = plan_serving(ctx, model, gpu, eight, load, whole_instance=whole)
            if alt_plan.meets and alt_plan.count < (o.gpu_count or 0):
                alt = serving_option(ctx, alt_plan, changes=["precision"])
                shown.append(alt)
                per_node = machine_size(ctx)
                details.append(note("upcast_quantized_alternative", config=config(alt), precision=eight,
                                    machines=math.ceil(alt.gpu_count / per_node) if per_node else None,
                                    per_node=per_node))
    if not shown:
        # nothing within the search carries the load: roughly what it would take, against the money when given
        scale = _scale_needed(ctx, model, load, choices)
        if scale is not None:
            details.insert(0, headline)
            headline = scale
    if rec is not None and not whole:
        same = [p for p in plans if p.meets and p.gpu.id == shown[rec].gpu and p.count == shown[rec].gpu_count]
        same.sort(key=lambda p: p.precision != shown[rec].precision)
        line = _instance_line(ctx, model, load, same[0]) if same else []
        if line:  # the line says the instance size and the idle GPUs: the generic warning would repeat it
            ctx.warnings[:] = [w for w in ctx.warnings if w.code != "idle_gpus"]
        details += line
        # fewer GPUs would hold the users but not at the speed floor: the speed, not memory, sets the count, which
        # the reader needs next to the count (not after the memory lines)
        details[:0] = _memory_would_fit(ctx, model, load, same[0]) if same else []
    if rec is not None:  # machines asked: they lead, the sizing line follows
        headline, details = machines_first(ctx, headline, details, config(shown[rec]), model_label(model))
    if limit is not None and fixed and shown and shown[0].price is not None and not shown[0].changes:
        mine = shown[0].price.price_per_hour_usd / ((shown[0].gpu_count or 1) if limit[1] else 1)
        if mine > limit[0] + 1e-9:  # the user's own setup is also over their price limit: say so too
            details.insert(0, note("fixed_over_limit", config=config(shown[0]), price_usd=mine, limit_usd=limit[0]))
    if limit is not None and not working and before_limit:
        # the price limit, not the hardware, rules everything out: say so with the cheapest that would serve
        cheapest = min(before_limit, key=lambda p: (quality_tier(p.precision), p.placement.price_per_hour_usd))
        alt = serving_option(ctx, cheapest, changes=["price"])
        shown.append(alt)
        details = _details(ctx, model, load, [alt], 0)
        hours = ctx.query.duration_hours if ctx.query.duration_hours and not limit[1] else None  # "每月预算5万"
        headline = note("serve_over_limit", model_name=model_label(model), users=load.users or 1,
                        limit_usd=limit[0], per_gpu=limit[1], config=config(alt), price_usd=alt.price_per_hour_usd,
                        provider=alt.price.provider_name if alt.price else None, hours=hours,
                        limit_total_usd=limit[0] * hours if hours else None,
                        total_usd=alt.price_per_hour_usd * hours if hours and alt.price_per_hour_usd else None)
    q = ctx.query
    if rec is not None and "cost" in q.asks and q.duration_hours:
        # the cost for the stated length was asked: it leads (the sizing line follows)
        cost = next((d for d in details if d.code in ("cost_for_duration", "cost_for_duration_unpriced")
                     or (d.code == "mention_cost" and d.params.get("hours"))), None)
        if cost is not None:
            details = [headline] + [d for d in details if d is not cost]
            headline = cost
    tight = headline.code == "fit_tight_budget"
    if (rec is not None or tight) and fixed and "fit" in q.asks and not q.precisions and \
            headline.code in ("fit_yes", "serve_one", "fit_tight_budget"):
        # "does it fit" with no format named: the model as released first; a quantized fit comes second (also one
        # that holds only once the engine's memory reserve is raised: the headline's option, shown first)
        o = shown[0] if tight else shown[rec]
        native = next((p for p in plans if p.gpu.id == o.gpu and p.count == o.gpu_count
                       and p.precision == precisions_for(ctx, model, p.gpu)[0][0]), None)
        if native is not None and native.precision != o.precision and not native.meets and native.est is not None:
            details.insert(0, headline)
            headline = note("fit_only_quantized", config=config(o, with_precision=False),
                            model_name=model_label(model), native=native.precision,
                            need_gb=native.est.memory.per_gpu_gb, usable_gb=native.est.memory.usable_memory_gb,
                            precision=o.precision, mem_gb=o.memory_per_gpu_gb)
    if "max_context" in q.asks:
        # "最多能开多长上下文": the longest context the configuration holds leads; the sizing line follows
        longest = _max_context(ctx, model, fixed, plans, shown[rec] if rec is not None else None)
        if longest is not None:
            details.insert(0, headline)
            headline = longest
    if limit is not None and "gpu_count" in ctx.query.asks and fixed:
        # "how many X can my budget rent": the count the budget pays for, and what that many serve
        affordable = _budget_buys(ctx, model, fixed[0], load, limit[0])
        if affordable is not None:
            details.insert(0, headline)
            headline = affordable
    if rec is not None and shown[rec].price is not None and shown[rec].price.idle_gpus > 0 and not any(
            d.code == "instance_larger_than_needed" for d in details):
        # the configuration answered pays for idle GPUs (a provider that rents only larger nodes): said under the
        # headline with the way to rent just the count, not only in a footnote
        details[:0] = idle_line(ctx, shown[rec])
    whole_note = next((n for n in shown[rec].notes if n.code == "uses_whole_instance"), None) \
        if rec is not None else None
    if whole_note is not None and headline.code not in ("machines_needed",):
        # fewer GPUs would hold it, but the instance rented holds more, all paid for: said first, not in a footnote
        details.insert(0, headline)
        headline = note("serve_whole_instance", config=config(shown[rec]), model_name=model_label(model),
                        **whole_note.params)
    if rec is not None and ctx.traffic is not None and load.total_tps is None and \
            (fixed_point := _traffic_fixed_point(ctx, model, load, plans, shown[rec])) is not None:
        # a user base sized at the floor: the count sized as the tokens the peak needs is said beside it, labelled
        details.insert(0, fixed_point)
    # one user is no audience to name in the title ("Serving X: 1 users")
    return ctx.answer(title=note("title_serving", model_name=model_label(model),
                                 users=load.users if (load.users or 0) > 1 else None,
                                 total_tps=load.total_tps),
                      headline=headline, details=details, options=shown, recommendation=rec,
                      table=_table(ctx, shown), actions=next_actions(ctx, shown[rec] if rec is not None else None,
                                                                show_all=len(options) > ctx.policy.serving.shown_options))


def _traffic_fixed_point(ctx: Context, model: Model, load: ServingLoad, plans: list[ServingPlan], o: Option):
    """The GPUs a user base needs sized by the tokens its peak asks for, beside the floor-based count.

    The sizing from daily users (:meth:`bot.advice.context.Context._users_from_daily_users`) holds every request in
    flight at the per-user floor for its whole length (the longest a request may take, so the most in flight) and
    then gives each of them the floor: an upper bound. Practitioners size the same peak by its tokens: ``peak
    requests/s x output tokens`` = tokens/s needed, served by replicas each at the largest batch that still keeps the
    floor (prefill counted). There requests run at that batch's speed, so fewer are in flight (Little's law) and the
    two agree when that speed is the floor itself; they differ when memory, not speed, caps the batch (each user then
    gets more than the floor, ``per-user speed / floor`` times). Planned with the same GPU and format as ``o``
    (:func:`bot.advice.planner.plan_serving` with the aggregate target, fewest GPUs, no whole-instance rounding).

    Args:
        ctx: the request context (its ``traffic``, ``traffic_output_tokens``).
        model: the model served. load: the load sized (its floor and workload).
        plans: the plans searched (the recommended option's GPU is found among them).
        o: the recommended option (GPU, format, count).

    Returns:
        ``traffic_fixed_point`` (tokens/s needed, the replica's batch and tokens/s, the replicas and GPUs, the
        requests in flight at that speed, the count sized and the ratio), or ``None`` when it does not plan.
    """
    traffic, out_tokens = ctx.traffic, ctx.traffic_output_tokens
    plan = next((p for p in plans if p.gpu.id == o.gpu and p.precision == o.precision), None)
    if traffic is None or plan is None or not out_tokens or not o.gpu_count:
        return None
    need_tps = traffic.peak_rps * out_tokens
    aggregate = ServingLoad(**{**load.__dict__, "users": None, "total_tps": need_tps})
    fp = plan_serving(ctx, model, plan.gpu, plan.precision, aggregate, objective="fewest", whole_instance=False)
    if not fp.meets or fp.est is None or not fp.est.throughput_tokens_per_s or not fp.batch:
        return None
    per_user = fp.est.throughput_tokens_per_s / fp.batch
    request_s = (fp.est.ttft_s or 0.0) + out_tokens / per_user
    fo = serving_option(ctx, fp)
    return note("traffic_fixed_point", need_tps=need_tps, peak_rps=traffic.peak_rps, output_tokens=out_tokens,
                floor_tps=load.capacity_tps, batch_users=fp.batch, replica_tps=fp.est.throughput_tokens_per_s,
                per_user_tps=per_user, replicas=fp.replicas, config=config(fo), count=fp.count,
                in_flight_n=math.ceil(in_flight(traffic.peak_rps, request_s)), sized_count=o.gpu_count,
                sized_config=config(o), same=fp.count == o.gpu_count, fewer=fp.count < o.gpu_count,
                share_pct=100 * fp.count / o.gpu_count, price_usd=fo.price_per_hour_usd)


def _native_alternative(ctx: Context, model: Model, load: ServingLoad, o: Option, native: str, gpu,
                        same: list[ServingPlan]):
    """The model as released beside a quantized pick ``o`` (a format we chose, not the user): the cheapest way to serve
    the load in ``native`` on the same GPU type (the plans of ``same``, and, when the user fixed no count, the
    planner's cheapest layout, replicas on small instances included), each priced like the pick at the cheapest real
    rental of its layout (:func:`bot.advice.planner.cheapest_rental`: a larger instance with idle GPUs when it rents
    for less, said). The pick is called cheaper only when its own cheapest rental costs less per hour than that;
    otherwise, when it needs fewer GPUs, it is said to need fewer. ``None`` when the released format is neither
    dearer nor larger (or does not serve the load).

    Returns:
        The ``native_alternative`` note, or ``None``.
    """
    if gpu is None or not same:
        return None
    candidates = list(same)
    if not any(m.id == gpu.id and m.count for m in ctx.query.gpus):
        cheapest = plan_serving(ctx, model, gpu, native, load, whole_instance=False)
        if cheapest.meets:
            candidates.append(cheapest)

    def rental(p: ServingPlan):
        return cheapest_rental(ctx, gpu, p.count, p.tp * p.pp)

    priced = [(p, rental(p)) for p in candidates]
    best, best_rental = min(priced, key=lambda r: (r[1].price_per_hour_usd if r[1] is not None else math.inf,
                                                   r[0].count))
    n = serving_option(ctx, best, changes=["precision"])
    n.price = price_of(ctx, best_rental) if best_rental is not None else n.price
    own = cheapest_rental(ctx, gpu, o.gpu_count or 1, (o.tensor_parallel or 1) * (o.pipeline_parallel or 1))
    mine = min((x for x in (o.price_per_hour_usd, own.price_per_hour_usd if own else None) if x), default=None)
    theirs = n.price_per_hour_usd
    cheaper = bool(mine and theirs and mine < theirs - 0.005)
    fewer = (o.gpu_count or 0) < (n.gpu_count or 0)
    if not (cheaper or fewer):
        return None
    p = n.price
    return note("native_alternative", precision=o.precision, native=native, config=config(n), price_usd=theirs,
                cheaper=cheaper, fewer=fewer and not cheaper, provider=p.provider_name if p else None,
                rented=p.gpus_rented if p and p.idle_gpus > 0 else None,
                instance=p.instance_type if p and p.idle_gpus > 0 else None,
                idle=p.idle_gpus if p and p.idle_gpus > 0 else None)


def _instance_line(ctx: Context, model: Model, load: ServingLoad, plan: ServingPlan) -> list:
    """When the fewest GPUs that work are rented only inside a larger instance (DigitalOcean's MI300X droplets
    hold 1 or 8): the instance, its price, and what all of its GPUs would serve instead of sitting idle."""
    p = plan.placement
    if p is None or p.idle_gpus <= 0:
        return []
    fuller = plan_serving(ctx, model, plan.gpu, plan.precision,
                          ServingLoad(**{**load.__dict__, "users": None, "total_tps": None,
                                         "per_user_tps": load.capacity_tps}),
                          count=p.gpus_rented, objective="capacity", whole_instance=False)
    est = fuller.est if fuller.capacity > 0 else None
    return [note("instance_larger_than_needed", count=plan.count, gpu_name=plan.gpu.name, gpus_rented=p.gpus_rented,
                 instance=p.offer.instance_type, provider=p.offer.provider_name, price_usd=p.price_per_hour_usd,
                 idle=p.idle_gpus, max_users=fuller.capacity if est else None,
                 per_user_tps=load.capacity_tps if est else None,
                 max_context_tokens=est.max_context_tokens if est else None)]


def _memory_would_fit(ctx: Context, model: Model, load: ServingLoad, plan: ServingPlan) -> list:
    """When the per-user speed floor, not memory, sets the count: the fewer GPUs that would hold the users' KV
    cache, and the speed each user would get there (so "how many" shows both bounds)."""
    if not load.users or load.users <= 1 or load.per_user_tps <= 0 or load.total_tps is not None:
        return []
    memory_only = plan_serving(ctx, model, plan.gpu, plan.precision,
                               ServingLoad(**{**load.__dict__, "per_user_tps": 0.0, "ttft_s": None, "tpot_ms": None}),
                               whole_instance=False)
    if not memory_only.meets or memory_only.count >= plan.count or memory_only.est is None:
        return []
    return [note("memory_fits_fewer", count=memory_only.count, gpu_name=plan.gpu.name, users=load.users,
                 mem_gb=memory_only.est.memory.per_gpu_gb, usable_gb=memory_only.est.memory.usable_memory_gb,
                 per_user_tps=memory_only.per_user_tps, decode_tps=memory_only.est.decode_tokens_per_s_per_sequence,
                 floor_tps=load.per_user_tps)]


def _budget_buys(ctx: Context, model: Model, choice: GpuChoice, load: ServingLoad, hourly_usd: float):
    """How many of ``choice``'s GPU a budget per hour (USD) rents to serve ``model``, and how many users they serve:
    the most users at the per-user floor over every count of whole replicas the budget rents
    (:func:`bot.advice.options.money_fleet`), a format that keeps quality first. ``None`` when the GPU has no price at all."""
    fleet = money_fleet(ctx, model, choice.gpu, load, hourly_usd)
    if fleet is None:
        one = rent_usd_per_hour(ctx, choice.gpu, 1, 1)
        if one is None:
            return None
        p = place(ctx, choice.gpu, 1, 1)
        secondary = secondary_price(ctx, choice.gpu, 1) if p is None else None
        return note("budget_buys_none", gpu_name=choice.gpu.name, price_usd=one, limit_usd=hourly_usd,
                    provider=p.offer.provider_name if p is not None else secondary.provider_name)
    o = serving_option(ctx, fleet)
    o.max_users = fleet.capacity
    if o.price is None:  # a card no tracked cloud lists: its secondary-source figure, said in the line
        o.price = secondary_price(ctx, choice.gpu, o.gpu_count)
        say_secondary(ctx, o)
    return budget_buys_note(ctx, o, model, load, hourly_usd)


def _apply_limit(ctx: Context, plans: list[ServingPlan], limit: tuple[float, bool, str]) -> None:
    """Reject plans above the user's hourly limit (or budget / rental hours); unpriced plans cannot be shown
    to keep it, so they are rejected too, saying why."""
    usd, per_gpu, kind = limit
    ctx.assume("hourly_limit_used", limit_usd=usd, per_gpu=per_gpu, from_budget=kind == "budget")
    for p in plans:
        if not p.meets:
            continue
        if p.placement is None:
            p.meets, p.rejection = False, note("reject_unpriced_limit", limit_usd=usd)
            continue
        hourly = p.placement.price_per_hour_usd / (p.count if per_gpu else 1)
        if hourly > usd + 1e-9:
            p.meets, p.rejection = False, note("reject_over_limit", price_usd=hourly, limit_usd=usd)


def _cheaper_layout(ctx: Context, shown: Option, cheaper: list[ServingPlan]) -> list[Option]:
    """The cheapest-per-hour plan of the GPU shown when it uses more GPUs than the fewest that serve (e.g. replicas
    on small instances that rent for less per GPU than one larger machine), labelled as changing the count."""
    same = [p for p in cheaper if p.meets and p.gpu.id == shown.gpu and p.placement is not None
            and quality_tier(p.precision) == quality_tier(shown.precision)]
    if not same:
        return []
    best = min(same, key=_plan_key)
    if best.count <= (shown.gpu_count or 0) or best.placement.price_per_hour_usd >= shown.price_per_hour_usd - 1e-9:
        return []
    return [serving_option(ctx, best, changes=["count"])]


def _best(plans: list[ServingPlan]) -> ServingPlan | None:
    """The plan to show for one GPU: a working one (cheapest, fewest GPUs) before the closest failure."""
    working = [p for p in plans if p.meets]
    if working:
        return min(working, key=_plan_key)
    fitting = [p for p in plans if p.est is not None and p.est.fits]
    pool = fitting or [p for p in plans if p.est is not None] or plans
    return max(pool, key=lambda p: (p.per_user_tps or 0)) if pool else None


def _plan_key(p: ServingPlan) -> tuple:
    """Quality tier, then price, then fewest GPUs; at the same price and count (a count the user fixed) the model
    as released before a quantized copy (quantizing is not needed when the released weights serve the load), then
    the faster."""
    price = p.placement.price_per_hour_usd if p.placement else float("inf")
    native = p.model.native_precision or "fp16"
    as_released = p.precision == native or {p.precision, native} <= {"bf16", "fp16"}
    return (quality_tier(p.precision), p.placement is None, price, p.count, not as_released, -(p.per_user_tps or 0))


def _rank(o: Option) -> tuple:
    """Quality first (4-bit after 16-bit/FP8), then priced options by $/h, then unpriced by GPU count;
    options without a published compute figure last."""
    return (o.ttft_s is None, quality_tier(o.precision), o.price is None,
            o.price.price_per_hour_usd if o.price else o.gpu_count or 0, o.gpu_count or 0)


def _alternatives(ctx: Context, model: Model, fixed: list[GpuChoice], load: ServingLoad) -> list[Option]:
    """When the user's configuration does not work: the nearest ones that do, each labelled with what it changes
    (the fewest GPUs that work, not a larger rented instance)."""
    out: list[Option] = []
    choice = fixed[0]
    gpu = choice.gpu
    q = ctx.query
    # 1. the same GPU, more of them (when the count was fixed)
    if choice.count is not None:
        # the fewest GPUs that work, in the precision asked, else in any format tried (quality breaks ties)
        plans = [plan_serving(ctx, model, gpu, precision, load, whole_instance=False)
                 for precision, _ in precisions_for(ctx, model, gpu)]
        plans = [p for p in plans if p.meets and p.count != choice.count]
        if plans:
            p = min(plans, key=lambda p: (p.count, quality_tier(p.precision)))
            out.append(serving_option(ctx, p, changes=["count"]))
    # 2. the same GPU and count, another precision (when the precision was fixed or unsupported)
    if q.precisions or q.full_precision:
        for precision in ("fp8", "int8", "int4"):
            if precision in q.precisions or (precision == "fp8" and not gpu.supports("fp8")):
                continue
            p = plan_serving(ctx, model, gpu, precision, load, count=choice.count)
            if p.meets:
                out.append(serving_option(ctx, p, changes=["precision"]))
                break
    # 3. an FP8 KV cache on the same configuration (long contexts)
    if load.kv_precision is None:
        kv_load = ServingLoad(**{**load.__dict__, "kv_precision": "fp8"})
        for precision, _ in precisions_for(ctx, model, gpu):
            p = plan_serving(ctx, model, gpu, precision, kv_load, count=choice.count)
            if p.meets:
                out.append(serving_option(ctx, p, changes=["kv_precision"]))
                break
    # 4. another GPU with more memory, in no more GPUs than the user has (or one 8-GPU node)
    if len(out) < 2:
        pol = ctx.policy.serving
        ids = pol.candidate_gpus_zh if ctx.zh and pol.candidate_gpus_zh else pol.candidate_gpus  # what they can rent
        bigger = sorted((g for g in (ctx.kb.gpus.get(i) for i in ids) if g
                         and g.memory_gb > gpu.memory_gb), key=lambda g: g.memory_gb)
        limit = max(choice.count or 1, 8)
        for g in bigger:
            precision = q.precisions[0] if q.precisions else precisions_for(ctx, model, g)[0][0]
            p = plan_serving(ctx, model, g, precision, load, whole_instance=False)
            if p.meets and p.count <= limit:
                out.append(serving_option(ctx, p, changes=["gpu"]))
                break
    return out[:3]


def _headline(ctx: Context, model: Model, load: ServingLoad, shown: list[Option], rec: int | None):
    q = ctx.query
    if not shown:
        return note("serve_nothing", model_name=model_label(model), users=load.users or 1, per_user_tps=load.capacity_tps,
                    max_count=int(ctx.policy.serving.max_gpus.value))
    first = shown[0]
    fixed = any(g.id for g in q.gpus)
    if fixed and (fix := _tight_fix(ctx, first)) is not None:
        # everything fits the GPU, only the engine's default reserve does not: a setting, not a "no"
        return note("fit_tight_budget", config=config(first), model_name=model_label(model),
                    mem_gb=first.memory_per_gpu_gb, usable_gb=first.usable_gb, **fix)
    if fixed and not first.meets:
        # the user's configuration does not work: say so first, with the reason
        return note("serve_fixed_fails", config=config(first), model_name=model_label(model), reason=first.rejection,
                    users=load.users or 1)
    o = shown[rec] if rec is not None else first
    common = dict(config=config(o), model_name=model_label(model), users=o.users, per_user_tps=o.tps_per_user,
                  decode_tps=o.decode_tps, mem_gb=o.memory_per_gpu_gb, usable_gb=o.usable_gb,
                  price_usd=o.price_per_hour_usd, provider=o.price.provider_name if o.price else None,
                  ttft_s=o.ttft_s, total_tps=o.throughput_tps, layout=_layout(o))
    if load.total_tps is not None:
        return note("serve_total", target_tps=load.total_tps, ttft_limit_s=load.ttft_s, **common)
    if (load.users or 1) > 1:
        return note("serve_users", **common)
    one = {**common, "decode_tps": o.single_user_tps or o.decode_tps}  # "for one user": the batch-1 figure
    if "fit" in q.asks and fixed:
        return note("fit_yes", **one)
    if "speed" in q.asks:
        return note("speed_single", **one)
    return note("serve_one", **one)


def _only_engine_budget(ctx: Context, o: Option) -> bool:
    """True when ``o`` fails only on the engine's default memory reserve and stays within the policy's ceiling
    (``serving.max_memory_utilization``): it runs once the setting is raised, so it is "just", not "no"."""
    ceiling = ctx.policy.serving.max_memory_utilization
    return not o.meets and o.rejection is not None and ceiling is not None and \
        o.rejection.code == "reject_engine_budget" and bool(o.memory_per_gpu_gb) and bool(o.usable_gb) and \
        o.memory_per_gpu_gb <= ceiling.value * o.usable_gb


def _scale_needed(ctx: Context, model: Model, load: ServingLoad, choices: list[GpuChoice]):
    """A floor on what a load beyond the search takes: the KV cache of every user at the full context
    (users x KV bytes per sequence, 16-bit) plus one copy of the 16-bit weights, over the usable memory of the
    candidate GPU that holds it cheapest per hour; priced at its cheapest GPU-hour and, when the user gave a budget
    or price limit, compared with it (how many times short). ``None`` when the shape or prices are unknown."""
    shape, _ = kv_shape(model)
    users = load.users or 1
    if shape is None:
        return None
    context = workload_of(ctx, load).context_tokens
    kv_gb = users * shape.bytes_per_sequence(context, 2) / 1e9
    weights_gb = model.params_total_b * 2
    eff = efficiency_for(ctx.kb)
    best = None
    for choice in choices:
        usable = usable_memory_gb(eff, choice.gpu)
        gpus = math.ceil((kv_gb + weights_gb) / usable)
        offer = place(ctx, choice.gpu, 8, 8)
        if offer is None:
            continue
        hourly = gpus * offer.price_per_gpu_hour_usd
        if best is None or hourly < best[2]:
            best = (choice.gpu, gpus, hourly)
    if best is None:
        return None
    gpu, gpus, hourly = best
    limit = ctx.hourly_limit_usd()
    month = ctx.policy.quote.month_hours.value
    params = dict(model_name=model_label(model), users=users, context_tokens=context,
                  kv_per_token_kb=shape.bytes_per_token(2) / 1e3, kv_gb=kv_gb, weights_gb=weights_gb, count=gpus,
                  gpu_name=gpu.name, month_usd=hourly * month)
    if limit is not None and not limit[1] and limit[0] > 0:
        return note("serve_scale_over_budget", budget_month_usd=limit[0] * month, short_x=hourly / limit[0], **params)
    return note("serve_scale", **params)


def _layout(o: Option) -> dict | None:
    if (o.tensor_parallel or 1) == 1 and (o.pipeline_parallel or 1) == 1 and (o.replicas or 1) == 1:
        return None
    return {"tp": o.tensor_parallel or 1, "pp": o.pipeline_parallel if (o.pipeline_parallel or 1) > 1 else None,
            "replicas": o.replicas or 1}


def _details(ctx: Context, model: Model, load: ServingLoad, shown: list[Option], rec: int | None) -> list:
    out = []
    o = shown[rec] if rec is not None else (shown[0] if shown else None)
    # the memory line explains the headline: the user's own setup when it fails and an alternative is offered
    m = shown[0] if shown and not shown[0].meets and not shown[0].changes else o
    many = ctx.query.users_over_limit
    if many and o is not None and o.max_users and o.gpu_count and load.total_tps is None:
        # "10 million users": all of them in flight at once, at the capacity of the configuration above (said
        # first: the number the user gave is the question)
        copies = math.ceil(many / o.max_users)
        out.append(note("users_over_limit_scale", users=many, config=config(o), max_users=o.max_users,
                        copies=copies, gpus=copies * o.gpu_count,
                        price_usd=copies * o.price_per_hour_usd if o.price_per_hour_usd else None))
    if m is not None and m.weights_gb is not None:
        out.append(note("memory_breakdown", weights_gb=m.weights_gb, kv_gb=m.kv_cache_gb or 0.0,
                        overhead_gb=m.overhead_gb or 0.0, total_gb=m.memory_total_gb, gpu_count=m.gpu_count,
                        replicas=m.replicas or 1, per_gpu_gb=m.memory_per_gpu_gb, usable_gb=m.usable_gb,
                        precision=m.precision, kv_precision=m.kv_precision))
    if o is not None and o.max_users and (load.users or 1) < o.max_users and load.total_tps is None \
            and load.per_user_tps > 0:
        out.append(note("serve_capacity_line", config=config(o), max_users=o.max_users,
                        per_user_tps=load.capacity_tps))
    for alt in (x for x in shown if x.changes):
        out.append(note("alternative_line", config=config(alt), changes=alt.changes, per_user_tps=alt.tps_per_user,
                        users=alt.users, price_usd=alt.price_per_hour_usd))
    if ctx.query.duration_hours and o is not None and o.price is not None:
        o.duration_hours = ctx.query.duration_hours
        o.total_cost_usd = cost_for(o.price, ctx.query.duration_hours)
        out.append(note("cost_for_duration", config=config(o), hours=ctx.query.duration_hours,
                        total_usd=o.total_cost_usd))
    elif o is not None and o.price is None and (mentioned := mention_cost(
            ctx, config(o), o.gpu, o.gpu_count, ctx.query.duration_hours)):
        # no list price, but a secondary-source figure for this GPU (at the cloud named, when it has one): the same
        # figure every kind of answer uses, labelled as such, said first (a priced option says its price in the
        # headline)
        out.insert(0, mentioned)
    elif ctx.query.duration_hours and "cost" in ctx.query.asks and o is not None and o.meets:
        # the cost for a length was asked but no tracked provider lists this GPU: say so, with the count to price
        out.append(note("cost_for_duration_unpriced", config=config(o), hours=ctx.query.duration_hours,
                        count=o.gpu_count, gpu_name=o.gpu_name))
    if ctx.query.diagnosis is not None and ctx.query.diagnosis.kind == "oom":
        out += [note("oom_fix_serving_1"), note("oom_fix_serving_2"), note("oom_fix_serving_3")]
    return out


def _table(ctx: Context, options: list[Option]) -> Table:
    """The serving table; a row that only exceeds the engine's default memory reserve says "just", as the
    headline does (:func:`_only_engine_budget`), not "NO"."""
    return Table(columns=["config", "serves", "gb_per_gpu", "ttft_s", "decode_tps", "tps_per_user", "total_tps",
                          "usd_per_hour", "usd_per_m_tokens"],
                 rows=[[config(o), "tight" if _only_engine_budget(ctx, o) else o.meets, o.memory_per_gpu_gb, o.ttft_s, o.decode_tps, o.tps_per_user,
                        o.throughput_tps, hour_cell(ctx, o), o.cost_per_million_tokens_usd] for o in options])


def _workload_notes(ctx: Context, load: ServingLoad) -> None:
    """State the traffic model behind the figures: defaults taken, chat turns on a cached conversation or
    the worst case of full prompts (see :func:`bot.advice.planner.workload_of`)."""
    wl = workload_of(ctx, load)
    if wl.assumption.kind == "default_request":
        ctx.assume("default_request", input_tokens=wl.input_tokens, output_tokens=wl.output_tokens)
        ctx.cite(wl.assumption.source)
    elif load.context_tokens is None and load.input_tokens is None:
        ctx.assume("default_context", context_tokens=wl.context_tokens, output_tokens=wl.output_tokens)
    elif load.output_tokens is None:
        ctx.assume("default_output", output_tokens=wl.output_tokens)
    if load.users is None and load.total_tps is None and not {"users_served", "throughput", "request_rate", "token_cost"} & set(
            ctx.query.asks):
        ctx.assume("one_user")
    if wl.assumption.kind == "chat_prefix_cached":
        ctx.assume("workload_chat", context_tokens=wl.context_tokens, new_tokens=wl.new_prompt_tokens_per_request,
                   output_tokens=wl.output_tokens)
        ctx.cite(wl.assumption.source)
    elif wl.assumption.kind == "worst_case_full_prompt" and load.worst_case:
        ctx.assume("workload_full_prompt", input_tokens=wl.input_tokens, context_tokens=wl.context_tokens,
                   output_tokens=wl.output_tokens)
    elif wl.assumption.kind == "worst_case_full_prompt":
        ctx.assume("workload_request_fills_context", input_tokens=wl.input_tokens, context_tokens=wl.context_tokens,
                   output_tokens=wl.output_tokens)


def _assumptions_of(ctx: Context, model: Model, o: Option) -> None:
    """The assumptions of the recommended configuration's figures (engine, KV format, efficiencies)."""
    ctx.assume("engine_used", engine=o.engine, kv_precision=o.kv_precision)
    for n in o.notes:  # the recommended configuration's own facts (the rented instance used whole, DP attention)
        ctx.assume(n.code, **n.params)
    if o.gpu and o.gpu in ctx.kb.gpus:
        g = ctx.kb.gpus[o.gpu]
        ctx.assume("usable_memory", gpu_name=g.name, usable_gb=usable_memory_gb(efficiency_for(ctx.kb), g),
                   marketed_gb=g.memory_gb)
        ctx.cite(*g.sources[:1])
    ctx.cite("knowledge/efficiency.yaml (MBU, MFU, overheads per engine and GPU generation)")


# --------------------------------------------------------------------------- longest context

def _max_context(ctx: Context, model: Model, fixed: list[GpuChoice], plans: list[ServingPlan],
                 o: Option | None):
    """The longest context per sequence a configuration holds: the engine's KV budget (memory left after the
    weights and overhead) / KV bytes per token, capped by the model's ``max_position_embeddings`` (the
    estimator's ``max_context_tokens``); when memory would hold more, both figures are said. With no GPU named,
    the model's supported length and one sequence's KV cache at it (``None`` when neither is known)."""
    limit = model.max_position_embeddings
    if not fixed or o is None:
        if not limit:
            return None
        shape, _ = kv_shape(model)
        bytes_per = 1 if (ctx.query.kv_precision or "").startswith(("fp8", "int8")) else 2
        kv_gb = shape.bytes_per_sequence(limit, bytes_per) / 1e9 if shape else None
        return note("max_context_model", model_name=model_label(model), model_max_tokens=limit, kv_gb=kv_gb,
                    kv_precision=ctx.query.kv_precision or "bf16")
    plan = next((p for p in plans if p.gpu.id == o.gpu and p.count == o.gpu_count and p.precision == o.precision
                 and p.est is not None), None) or next(
        (p for p in plans if p.gpu.id == o.gpu and p.count == o.gpu_count and p.est is not None), None)
    if plan is None or plan.est.max_context_tokens is None:
        return None
    est = plan.est
    per_token = est.memory.kv_cache_bytes_per_token
    by_memory = est.max_context_tokens_memory
    seqs = max(1, plan.batch)
    left_gb = by_memory * per_token * seqs / 1e9 if by_memory is not None and per_token else None
    params = dict(config=config(o), model_name=model_label(model), max_context_tokens=est.max_context_tokens,
                  users=seqs if seqs > 1 else None, kv_left_gb=left_gb, weights_gb=est.memory.weights_gb,
                  kv_kb_per_token=per_token / 1e3 if per_token else None, kv_precision=est.kv_precision)
    if limit and by_memory is not None and by_memory > limit:
        return note("max_context_capped", memory_tokens=by_memory, model_max_tokens=limit, **params)
    return note("max_context", **params)


# --------------------------------------------------------------------------- cost per token

def _capacity_plans(ctx: Context, model: Model, choice: GpuChoice, load: ServingLoad) -> list[ServingPlan]:
    """Plans of ``choice`` at full load, per precision tried: the user's count, else the fewest of this GPU that
    hold the model and two and four times that within one 8-GPU machine (GPUs beyond the weights hold KV cache
    for more users, which often lowers the cost per token), each with as many users as keep the per-user floor
    (``objective="capacity"``)."""
    plans = []
    for precision, _ in precisions_for(ctx, model, choice.gpu):
        counts = [choice.count] if choice.count else []
        if not counts:  # the fewest of this GPU that hold the model, and more of them in one machine
            base = plan_serving(ctx, model, choice.gpu, precision, ServingLoad(**{**load.__dict__, "users": 1}))
            if base.est is not None and base.est.fits:
                counts = fuller_counts(ctx, base.count)
        for count in counts:
            plans.append(plan_serving(ctx, model, choice.gpu, precision,
                                      ServingLoad(**{**load.__dict__, "users": None, "total_tps": None}),
                                      count=count, objective="capacity"))
    return plans


def _token_cost(ctx: Context, model: Model, choices: list[GpuChoice], load: ServingLoad) -> Answer:
    """Money per 1M output tokens at full load: the hourly price / (tokens/s at the user capacity x 3,600) x 10^6
    (:func:`bot.advice.planner.cost_per_million_tokens`), for each GPU named (else the candidates, cheapest per
    token first); a volume stated ("what does 10M tokens cost") is priced too."""
    fixed = [c for c in choices if c.fixed]
    options: list[Option] = []
    for choice in fixed or choices:
        working = [p for p in _capacity_plans(ctx, model, choice, load) if p.capacity > 0]
        if not working:
            continue
        opts = []
        for p in working:
            o = serving_option(ctx, p)
            o.max_users = p.capacity
            o.cost_per_million_tokens_usd = cost_per_million_tokens(o.price_per_hour_usd, o.throughput_tps)
            opts.append(o)
        # formats that keep quality first; 4-bit only when asked or nothing else works
        # (with no list price, the most tokens/s per GPU at full load: what any price per GPU-hour divides)
        options.append(min(opts, key=lambda o: (quality_tier(o.precision), o.cost_per_million_tokens_usd or math.inf,
                                                -(o.throughput_tps or 0) / (o.gpu_count or 1))))
    if not fixed:
        options.sort(key=lambda o: (o.cost_per_million_tokens_usd is None, o.cost_per_million_tokens_usd or 0))
    rec = next((i for i, o in enumerate(options) if o.cost_per_million_tokens_usd), None)
    if rec is None and options:
        rec = 0
    for o in options[:3]:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    if rec is None:
        headline = note("serve_nothing", model_name=model_label(model), users=1, per_user_tps=load.capacity_tps,
                        max_count=int(ctx.policy.serving.max_gpus.value))
    else:
        o = options[rec]
        _assumptions_of(ctx, model, o)
        if quality_tier(o.precision) and not ctx.query.precisions:
            # 4-bit only because nothing better holds the model on these GPUs: its quality cost is said
            ctx.warn("quantization_quality", precision=o.precision, model_name=model_label(model))
        headline = _token_cost_note(ctx, model, o)
        ctx.assume("token_cost_method", per_user_tps=load.capacity_tps)
    details = _details(ctx, model, load, options, rec)
    if headline.code == "token_cost_unpriced" and (mentioned := mention_cost(
            ctx, config(options[rec]), options[rec].gpu, options[rec].gpu_count,
            tokens_per_s=options[rec].throughput_tps)):
        # no list price: the secondary-source figure gives the cost per token at this full-load throughput (it
        # leads, the throughput follows)
        throughput = note("token_cost_unpriced", **{**headline.params, "no_price": False})
        headline, details = mentioned, [throughput, *(d for d in details if d.code != "mention_cost")]
    return ctx.answer(title=note("title_serving", model_name=model_label(model), users=None, total_tps=None),
                      headline=headline, details=details, options=options, recommendation=rec, table=_table(ctx, options),
                      actions=next_actions(ctx, options[rec] if rec is not None else None))


def _token_cost_note(ctx: Context, model: Model, o: Option):
    """The line stating ``o``'s money per 1M output tokens at full load (``o`` evaluated at its user capacity, with
    ``cost_per_million_tokens_usd`` set), with a volume stated priced too; ``token_cost_unpriced`` without a price."""
    volume = ctx.query.tokens_priced
    per_m = o.cost_per_million_tokens_usd
    return note("token_cost" if per_m else "token_cost_unpriced", config=config(o),
                model_name=model_label(model), per_million_usd=per_m, max_users=o.max_users,
                per_user_tps=(o.throughput_tps / o.max_users) if o.throughput_tps and o.max_users else None,
                total_tps=o.throughput_tps, price_usd=o.price_per_hour_usd,
                provider=o.price.provider_name if o.price else None,
                volume_tokens=volume if per_m and volume and abs(volume - 1e6) > 1 else None,
                volume_usd=per_m * volume / 1e6 if per_m and volume else None, no_price=True)


def _users_note(ctx: Context, model: Model, load: ServingLoad, o: Option, code: str):
    """The line stating the users ``o`` (evaluated at its user capacity) serves: each user's actual speed there (at
    least the floor; more when memory is the limit), the context, the KV cache and the total; with ``request_rate``
    asked, the requests per second that total makes."""
    wl = workload_of(ctx, load)
    rps = o.throughput_tps / wl.output_tokens if "request_rate" in ctx.query.asks and o.throughput_tps else None
    return note(code, config=config(o), model_name=model_label(model), max_users=o.max_users,
                per_user_tps=(o.throughput_tps / o.max_users) if o.throughput_tps and o.max_users
                else load.per_user_tps, requests_per_second=rps, output_tokens=wl.output_tokens if rps else None,
                context_tokens=wl.context_tokens, kv_gb=o.kv_cache_gb, total_tps=o.throughput_tps, ttft_s=o.ttft_s)


# --------------------------------------------------------------------------- users served

def _tokens_in_period(ctx: Context, model: Model, out: Answer, load: ServingLoad, hours: float) -> Answer:
    """Output tokens the user's configuration generates in ``hours``: its full-load throughput (the most users at
    the per-user floor, from :func:`_users_served`) x the period in seconds; one stream alone beside it (its
    decode speed x the period), so the range between an idle and a busy service is visible.

    Returns:
        ``out`` with the ``serving_tokens_in_time`` line leading (unchanged when nothing serves).
    """
    if out.recommendation is None:
        return out
    o = out.options[out.recommendation]
    if not o.throughput_tps:
        return out
    seconds = hours * 3600
    lead = note("serving_tokens_in_time", config=config(o), model_name=model_label(model), hours=hours,
                tokens_tokens=o.throughput_tps * seconds, total_tps=o.throughput_tps, max_users=o.max_users,
                per_user_tps=o.tps_per_user or load.capacity_tps,
                single_tokens=o.single_user_tps * seconds if o.single_user_tps else None,
                total_usd=o.price_per_hour_usd * hours if o.price_per_hour_usd else None)
    return out.model_copy(update={"headline": lead, "details": [out.headline, *out.details]})


def _users_served_items(ctx: Context, models: list[Model], choices: list[GpuChoice], load: ServingLoad) -> Answer:
    """"Users each of these models serves on <setup>": :func:`_users_served` per model on the same GPUs, one row
    each (users at the per-user floor, tokens/s per user, one stream alone), every model in the first line."""
    options: list[Option] = []
    rows = []
    q = ctx.query
    # "8b / 14b awq / 32b awq": a format written with some models is theirs; the others are served as released
    own = {m.id: m.precision for m in q.models if m.id and m.precision}
    for model in models:
        if own:
            ctx.query = q.model_copy(update={"precisions": [own[model.id]] if model.id in own else []})
        try:
            one = _users_served(ctx, model, choices, load)
        finally:
            ctx.query = q  # (the request as asked again for the next model and the answer)
        if one.recommendation is None:
            rows.append({"model_name": model_label(model), "max_users": None, "none": True})
            continue
        o = one.options[one.recommendation]
        options.append(o)
        rows.append({"model_name": model_label(model), "config": config(o), "max_users": o.max_users,
                     "per_user_tps": o.tps_per_user, "single_tps": o.single_user_tps, "none": False})
    headline = note("users_served_items", rows=rows, per_user_tps=load.capacity_tps)
    table = Table(columns=["config", "max_users", "tps_per_user", "single_user_tps", "usd_per_hour"],
                  rows=[[config(o, with_model=True), o.max_users, o.tps_per_user, o.single_user_tps,
                         hour_cell(ctx, o)] for o in options])
    return ctx.answer(title=note("title_items", model_names=[model_label(m) for m in models]), headline=headline,
                      details=[note("capacity_method", per_user_tps=load.capacity_tps)], options=options,
                      recommendation=0 if options else None, table=table,
                      actions=next_actions(ctx, options[0] if options else None))


def _users_served(ctx: Context, model: Model, choices: list[GpuChoice], load: ServingLoad) -> Answer:
    options = []
    alt_lines: list = []
    for choice in (c for c in choices if c.fixed):
        plans = _capacity_plans(ctx, model, choice, load)
        working = [p for p in plans if p.capacity > 0]
        # most users among the formats that keep quality, on the fewest GPUs that hold the model when no count was
        # given ("how many users can an A100 serve" is per card, not per machine); 4-bit only when the user asked
        # for it or nothing else fits
        best = min(working, key=lambda p: (quality_tier(p.precision), p.count, -p.capacity)) if working \
            else _best(plans)
        if best is not None:
            opt = serving_option(ctx, best)
            opt.max_users = best.capacity
            options.append(opt)
    rec = next((i for i, o in enumerate(options) if o.max_users), None)
    for o in options:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    if rec is not None:
        o = options[rec]
        _assumptions_of(ctx, model, o)
        code = "throughput_capacity" if {"throughput", "request_rate"} & set(ctx.query.asks) and \
            "users_served" not in ctx.query.asks else "users_served"
        headline = _users_note(ctx, model, load, o, code)
    elif options:
        headline = note("users_served_none", config=config(options[0]), model_name=model_label(model),
                        reason=options[0].rejection)
        # nothing the user named serves one user: the nearest setups that do, each with the users it serves
        capacity_load = ServingLoad(**{**load.__dict__, "users": None, "total_tps": None})
        for alt in _alternatives(ctx, model, [c for c in choices if c.fixed], load):
            gpu = ctx.kb.gpus.get((alt.gpu or "").split("@")[0])
            if gpu is None or not alt.precision:
                continue
            plan = plan_serving(ctx, model, gpu, alt.precision, capacity_load, count=alt.gpu_count,
                                objective="capacity")
            if plan.capacity > 0:
                opt = serving_option(ctx, plan, changes=alt.changes)
                opt.max_users = plan.capacity
                options.append(opt)
                alt_lines.append(note("alternative_capacity", config=config(opt), changes=opt.changes,
                                      max_users=plan.capacity, per_user_tps=load.capacity_tps))
    else:
        headline = note("serve_nothing", model_name=model_label(model), users=1, per_user_tps=load.capacity_tps,
                        max_count=int(ctx.policy.serving.max_gpus.value))
    details = _details(ctx, model, load, options, rec)
    each = _users_each(ctx, model, load, [o for o in options if not o.changes])
    if each is not None:
        # several GPU types named ("L20、A800、H20 每卡能支持多少并发"): every one's users lead, not the first one's
        details.insert(0, headline)
        headline = each
    if not ctx.query.concurrent_users:
        details.insert(0, note("capacity_method", per_user_tps=load.capacity_tps))
    if alt_lines:  # (said with the users each serves, in place of the plain alternative lines)
        details = alt_lines + [d for d in details if d.code != "alternative_line"]
    cost = next((d for d in details if d.code == "cost_for_duration"), None)
    if cost is not None and "cost" in ctx.query.asks:  # "租一个月呢": the cost of this setup for that long leads
        details = [headline] + [d for d in details if d is not cost]
        headline = cost
    title = "title_throughput" if headline.code == "throughput_capacity" else "title_users_served"
    return ctx.answer(title=note(title, model_name=model_label(model)), headline=headline, details=details,
                      options=options, recommendation=rec, table=_table(ctx, options),
                      actions=next_actions(ctx, options[rec] if rec is not None else None))


def _users_each(ctx: Context, model: Model, load: ServingLoad, options: list[Option]):
    """The users each of several GPU types named serves (one option per GPU type, at its user capacity): per type the
    most users at the per-user floor, per GPU when it takes several, its speed for one user alone (batch-1 decode)
    and its price per hour (list price, else the secondary-source figure, marked); ``None`` for fewer than two GPU
    types."""
    if len({o.gpu for o in options}) < 2:
        return None
    items = []
    for o in options:
        hour = hour_cell(ctx, o)
        items.append({"config": config(o), "max_users": o.max_users, "none": not o.max_users,
                      "per_gpu_users": o.max_users / o.gpu_count if o.max_users and (o.gpu_count or 1) > 1 else None,
                      "single_tps": o.single_user_tps if o.max_users else None,
                      "price_usd": hour if isinstance(hour, float) else None,
                      "hour": hour if isinstance(hour, dict) else None})
    return note("users_each", model_name=model_label(model), per_user_tps=load.capacity_tps, items=items)


# --------------------------------------------------------------------------- several models or precisions

def _item_row(ctx: Context, o: Option) -> dict:
    """One row of the items summary; a format the GPU lacks says so in place of figures (they are another
    format's: the planner ran the nearest one); a row held only by the engine's default memory reserve says "just",
    with the setting that makes it run (:func:`_tight_fix`), as the one-model answer does."""
    swapped = o.rejection is not None and o.rejection.code == "reject_precision"
    fix = _tight_fix(ctx, o)
    return {"config": config(o, with_model=True), "meets": o.meets,
            "verdict": "tight" if fix is not None else "yes" if o.meets else "no", **(fix or {}),
            "reason": o.rejection if swapped else None,
            "per_user_tps": None if swapped else o.tps_per_user, "mem_gb": None if swapped else o.memory_per_gpu_gb,
            "kv_precision": o.kv_precision}


def _tight_fix(ctx: Context, o: Option) -> dict | None:
    """For an option that exceeds only the engine's default memory reserve (:func:`_only_engine_budget`): the engine
    and the memory fraction to set (memory per GPU / usable memory, rounded up, plus 0.01: the single-model
    ``fit_tight_budget`` line's figure), its source cited; ``None`` otherwise."""
    if not _only_engine_budget(ctx, o):
        return None
    ctx.cite(ctx.policy.serving.max_memory_utilization.source)
    return {"engine": o.engine, "utilization": str(math.ceil(o.memory_per_gpu_gb / o.usable_gb * 100 + 1) / 100),
            "default_utilization": str(efficiency_for(ctx.kb).engine(o.engine or "vllm")[1].memory_utilization)}


def _items(ctx: Context, models: list[Model], choices: list[GpuChoice], load: ServingLoad) -> Answer:
    """One row per model x precision named x KV-cache format named (x GPU when named): does it serve, how fast, at
    what cost. KV formats compared with no weight format named ("fp8 vs fp16 KV, does it fit either way?") are
    each answered at the first weight format (policy order) that serves with any of them, the model as released
    when none does."""
    q = ctx.query
    options: list[Option] = []
    kv_loads = [replace(load, kv_precision=kv) for kv in q.kv_precisions] or [load]
    # "8B fp16, 14B int8, 24B int4": a precision written with each model is that model's, not every model's
    own = {m.id: m.precision for m in q.models if m.id and m.precision}
    for model in models:
        for choice in choices if any(c.fixed for c in choices) else choices[:1]:
            tried = [p for p, _ in precisions_for(ctx, model, choice.gpu)]
            if len(own) >= 2 and model.id in own:
                precisions = [own[model.id]]
            elif q.precisions:
                precisions = tried
            elif len(kv_loads) > 1:
                precisions = [next((p for p in tried if any(
                    plan_serving(ctx, model, choice.gpu, p, kv_load, count=choice.count).meets
                    for kv_load in kv_loads)), tried[0])]
            else:
                precisions = tried[:1]
            # "how many GPUs each": the fewest that hold each, not the instance the cheapest offer rents
            fewest = "gpu_count" in q.asks and choice.count is None
            for precision in precisions:
                for kv_load in kv_loads:
                    plan = plan_serving(ctx, model, choice.gpu, precision, kv_load, count=choice.count,
                                        **({"objective": "fewest", "whole_instance": False} if fewest else {}))
                    options.append(serving_option(ctx, plan))
    for o in options[:4]:
        caveats(ctx, o, ctx.kb.gpus.get((o.gpu or "").split("@")[0]))
    kv_col = len(kv_loads) > 1  # KV formats compared: each row's KV cache, the one thing that differs
    rows = [[config(o, with_model=True), "tight" if _only_engine_budget(ctx, o) else o.meets, o.weights_gb,
             *([o.kv_cache_gb] if kv_col else []),
             o.memory_per_gpu_gb, o.decode_tps, o.tps_per_user, o.price_per_hour_usd] for o in options]
    served = [o for o in options if o.meets]
    # KV formats compared: each one's yes/no leads its row ("fp8 vs fp16 KV, does it fit either way?")
    headline = note("kv_items_summary" if kv_col else "items_summary",
                    rows=[_item_row(ctx, o) for o in options[:6]])
    details: list = []
    if len(models) >= 2 and not kv_col and (len(options) > 6 or "gpu_count" in q.asks):
        # a grid ("8B, 70B and 405B in fp16, fp8 and int4: how many H100s each?"): one sentence per model with
        # the count each format needs, so no model of the grid falls off the first lines
        details.append(headline)
        headline = note("items_counts", groups=[
            {"model_name": model_label(m), "rows": [
                {"gpu_count": o.gpu_count, "gpu_name": o.gpu_name, "precision": o.precision, "meets": o.meets,
                 "short": not o.meets} for o in options if o.model == m.id]} for m in models])
    timed = [o for o in served if o.tps_per_user]
    fast = max(timed, key=lambda o: o.tps_per_user) if timed else None
    slow = min(timed, key=lambda o: o.tps_per_user) if timed else None
    if len(timed) > 1 and not kv_col and ({"comparison", "speed"} & set(q.asks)) and \
            fast.tps_per_user / slow.tps_per_user >= 1.03:
        # "which is fastest?": the answer to the comparison leads; every row's figures follow (a tie within 3%
        # names no fastest: the rows say it)
        fastest = note("items_fastest", config=config(fast, with_model=True), fast_tps=fast.tps_per_user,
                       slow_config=config(slow, with_model=True), slow_tps=slow.tps_per_user,
                       ratio_x=fast.tps_per_user / slow.tps_per_user)
        if headline.code == "items_counts" and "gpu_count" in q.asks:
            details.insert(0, fastest)  # the counts asked lead; the fastest row follows them
        else:
            details.append(headline)
            headline = fastest
    if "token_cost" in q.asks and not kv_col:
        # the cost per 1M tokens of each row at full load ("fp8 or int4: how much faster and cheaper per token?")
        costs = []
        for o in served:
            model = next((m for m in models if m.id == o.model), models[0])
            choice = next(c for c in choices if c.gpu.id == (o.gpu or "").split("@")[0])
            cheap = cheapest_per_token(ctx, model, choice, [(o.precision, True)], load)
            if cheap is not None and cheap.cost_per_million_tokens_usd:
                costs.append({"config": config(cheap, with_model=len(models) > 1),
                              "cost_usd": cheap.cost_per_million_tokens_usd})
        if len(costs) >= 2:
            details.insert(0, note("compare_costs", per_user_tps=load.capacity_tps,
                                   items=sorted(costs, key=lambda i: i["cost_usd"])))
    return ctx.answer(title=note("title_items", model_names=[model_label(m) for m in models]), headline=headline,
                      details=details,
                      options=options, recommendation=options.index(served[0]) if served else None,
                      table=Table(columns=["config", "serves", "weights_gb", *(["kv_gb"] if kv_col else []),
                                           "gb_per_gpu", "decode_tps", "tps_per_user", "usd_per_hour"], rows=rows),
                      actions=next_actions(ctx, served[0] if served else None))


# --------------------------------------------------------------------------- memory

def _memory(ctx: Context, models: list[Model]) -> Answer:
    """How much memory: one row per model x precision x KV format named (weights + one copy of the KV cache at the
    context for the sequences asked + CUDA context). The KV cache is the model's own size: KV bytes per token
    (``kv_cache_bytes_per_token``, window layers capped) x context x sequences. Plain tensor parallelism keeps a
    whole copy of an MLA latent cache on every GPU of the group; the answer says so when the H100 group it names
    holds more than one copy."""
    q = ctx.query
    eff = efficiency_for(ctx.kb)
    # no format asked: the released 16-bit weights, then 8-bit and 4-bit (what people actually deploy)
    kv_formats = q.kv_precisions or [q.kv_precision]
    # KV formats compared with no weight format named: the model as released, one row per KV format
    precisions = q.precisions or ([None] if len(kv_formats) > 1 else [None, "fp8", "int4"])
    context = q.context_tokens or int(eff.c("default_context_tokens"))
    users = q.concurrent_users or q.batch_size or 1
    h100 = ctx.kb.gpus.get("h100-sxm-80gb")
    rows, items, kv = [], [], []
    for model in models:
        shape, _ = kv_shape(model)
        name = model_label(model)
        for precision in precisions:
            for kv_format in kv_formats:
                try:
                    est = estimate_inference(ctx.kb, model, h100, count=None, precision=precision,
                                             kv_precision=kv_format, context_tokens=context, batch_size=users)
                except Exception:  # an unknown precision name is reported, not a crash
                    ctx.warn("precision_unknown", precision=precision)
                    continue
                m = est.memory
                kv_gb = m.kv_cache_gb
                if shape is not None and m.kv_cache_bytes_per_token:
                    element_bytes = m.kv_cache_bytes_per_token / shape.bytes_per_token(1.0)
                    kv_gb = shape.bytes_per_sequence(context, element_bytes) * users / 1e9
                    if m.kv_cache_gb and m.kv_cache_gb > kv_gb * 1.01:
                        ctx.assume("kv_replicated_tp", model_name=name, kv_gb=kv_gb, tp=est.tensor_parallel,
                                   group_kv_gb=m.kv_cache_gb)
                total = m.weights_gb + (kv_gb or 0) + eff.c("cuda_context_gb")
                label = {"model_name": name, "precision": est.precision if len(kv_formats) == 1
                         else f"{est.precision} + {est.kv_precision} KV"}
                rows.append([label, m.weights_gb, kv_gb, total, est.gpu_count])
                if not any((i["model_name"], i["precision"]) == (name, est.precision) for i in items):
                    items.append({"model_name": name, "precision": est.precision, "weights_gb": m.weights_gb,
                                  "total_gb": total})
                kv_item = {"model_name": name, "kv_gb": kv_gb or 0.0, "kv_precision": est.kv_precision}
                if not any(k["model_name"] == name and abs(k["kv_gb"] - kv_item["kv_gb"]) < 1e-6 for k in kv):
                    kv.append(kv_item)  # 16-bit KV is the same size whether it is called bf16 or fp16
    ctx.assume("memory_method", context_tokens=context, users=users)
    ctx.cite("estimation-notes.md: weights = parameters x bytes per weight; KV = 2 x layers x KV heads x head_dim x bytes")
    return ctx.answer(title=note("title_memory", model_names=[model_label(m) for m in models]),
                      headline=note("memory_summary", items=items, context_tokens=context, users=users, kv=kv),
                      table=Table(columns=["model_precision", "weights_gb", "kv_gb", "total_gb", "h100_count"],
                                  rows=rows),
                      actions=next_actions(ctx, None))


def _ask_for_model(ctx: Context) -> Answer:
    headline, details = model_question(ctx, "ask_model")
    return ctx.answer(title=note("title_one_more_thing"), headline=headline, details=details,
                      examples=_EXAMPLES_ZH if ctx.zh else _EXAMPLES)
