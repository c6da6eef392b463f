"""Training runs and fine-tuning setups over the GPUs of a request: the shared search of the training,
fine-tuning and quote answers (a cost question about a run is answered with the same runs).

* :func:`training_runs`: per GPU, the count given, or the fewest GPUs that hold the run and (when that is
  slower than the policy's month, or the user's deadline) the fewest that finish in time;
* :func:`finetune_setups`: per GPU and method, the first setup that fits (see
  :func:`bot.advice.planner.plan_finetune`), the user's count, method and sharding kept.
"""

from __future__ import annotations

import math

from bot.advice.answer import Option, Table
from bot.advice.context import Context
from bot.advice.options import config
from bot.advice.planner import (
    GpuChoice,
    candidate_gpus,
    finetune_option,
    group_cap,
    plan_finetune,
    plan_training,
    training_option,
)
from bot.kb.schema import Gpu, Model
from bot.notes import note

__all__ = ["finetune_alternatives", "finetune_setups", "finetune_table", "training_precision", "training_runs",
           "training_table", "training_tokens"]


def training_tokens(ctx: Context, model: Model) -> float:
    """The tokens of a run: the user's; else samples x tokens per sample x epochs ("1M documents of 2k tokens
    each"), each sample one sequence of that length (stated); else Chinchilla-optimal 20 per parameter (stated)."""
    q = ctx.query
    if q.training_tokens:
        return q.training_tokens * (q.epochs or 1)
    if q.documents and q.tokens_per_item:
        epochs = q.epochs or 1
        tokens = q.documents * q.tokens_per_item * epochs
        ctx.assume("finetune_tokens_from_examples", examples=q.documents, per_example_tokens=q.tokens_per_item,
                   epochs=epochs if epochs != 1 else None, tokens_tokens=tokens)
        _sequence_from_samples(ctx)
        return tokens
    per_param = ctx.policy.training.chinchilla_tokens_per_param.value
    tokens = per_param * model.compute_params_b * 1e9
    ctx.assume("chinchilla_tokens", tokens_tokens=tokens, per_param=per_param)
    return tokens


def finetune_tokens(ctx: Context) -> float:
    """The tokens of a fine-tuning run: the user's tokens x epochs; else examples x tokens per example
    (the user's, or the policy's ``default_tokens_per_example``) x epochs; else the policy's typical run.
    Each default is stated as an assumption."""
    q = ctx.query
    pol = ctx.policy.finetune
    epochs = q.epochs or 1
    if q.training_tokens:
        return q.training_tokens * epochs
    if q.documents:
        per = q.tokens_per_item or pol.default_tokens_per_example.value
        tokens = q.documents * per * epochs
        ctx.assume("finetune_tokens_from_examples" if q.tokens_per_item else "finetune_tokens_per_example_assumed",
                   examples=q.documents, per_example_tokens=per, epochs=epochs if epochs != 1 else None,
                   tokens_tokens=tokens)
        _sequence_from_samples(ctx)
        return tokens
    tokens = pol.default_tokens.value * epochs
    ctx.assume("default_finetune_tokens", tokens_tokens=tokens)
    return tokens


def _sequence_from_samples(ctx: Context) -> None:
    """States that the length of each sample is the sequence length the memory is sized at
    (:attr:`bot.parsing.query.Query.sequence_tokens`), when no context was given."""
    q = ctx.query
    if q.sequence_tokens and not q.context_tokens:
        ctx.assume("sequence_from_samples", seq_tokens=q.sequence_tokens)


def training_precision(ctx: Context, gpu: Gpu) -> str:
    """bf16 unless the user named fp8/fp16/fp32; fp16 on GPUs without bf16 (V100, T4)."""
    fixed = next((p for p in ctx.query.precisions if p in ("bf16", "fp16", "fp8", "fp32")), None)
    if fixed:
        return fixed
    return "bf16" if gpu.supports("bf16") else "fp16"


def _deadline_hours(ctx: Context) -> float:
    return ctx.query.deadline_hours or ctx.policy.training.target_days.value * 24


def training_runs(ctx: Context, model: Model, tokens: float, choices: list[GpuChoice] | None = None,
                  target_hours: float | None = None) -> list[Option]:
    """Options for pretraining ``model`` on ``tokens`` over the request's GPUs (see the module docstring).

    Args:
        target_hours: the time the fewest-GPUs-in-time run must finish in, hours (default: the user's deadline,
            else the policy's ``target_days``; a money budget passes the policy's ``budget_target_days``).
    """
    choices = choices if choices is not None else candidate_gpus(ctx, "training")
    out: list[Option] = []
    deadline = target_hours or _deadline_hours(ctx)
    for choice in choices:
        precision = training_precision(ctx, choice.gpu)
        if choice.count is not None:
            est, placement, why = plan_training(ctx, model, choice.gpu, choice.count, tokens, precision)
            out.append(training_option(ctx, model, choice.gpu, est, placement, why))
            continue
        smallest = in_time = None
        last = missed = None
        for n in (c for c in ctx.policy.training.counts if c <= group_cap(ctx, choice.gpu)):
            est, placement, why = plan_training(ctx, model, choice.gpu, n, tokens, precision)
            if est is None:
                break
            if placement is not None and n < placement.gpus_rented <= min(8, group_cap(ctx, choice.gpu)) and \
                    "gpu_count" not in ctx.query.asks:  # (a count asked is answered with the fewest that do it)
                # the only instance rents more GPUs than n (a whole 8-GPU node): a run uses every GPU it pays for
                # (data parallel inside the node), so it is planned on all of them
                full = plan_training(ctx, model, choice.gpu, placement.gpus_rented, tokens, precision)
                if full[0] is not None and full[0].fits:
                    est, placement, why = full
                    ctx.assume("run_fills_instance", gpus=placement.gpus_rented)
            last = (est, placement, why)
            if est.fits and smallest is None:
                smallest = last
            if smallest is not None and (est.wall_clock_hours or 0) <= deadline:
                in_time = last
                break
            missed = n
        if in_time is not None and missed is not None:
            in_time = _fewest_whole_machines(ctx, model, choice.gpu, tokens, precision, missed, in_time, deadline)
        elif in_time is None and smallest is not None and last is not None and ctx.query.deadline_hours:
            in_time = _beyond_counts(ctx, model, choice.gpu, tokens, precision, last, deadline)
        if smallest is None:
            if last is not None:
                out.append(training_option(ctx, model, choice.gpu, *last))
            continue
        first = training_option(ctx, model, choice.gpu, *smallest)
        out.append(first)
        if in_time is not None and in_time[0].gpu_count != smallest[0].gpu_count:
            out.append(training_option(ctx, model, choice.gpu, *in_time))
        machine = int(ctx.policy.limits.gpus_per_machine.value)
        if "gpu_count" not in ctx.query.asks and _whole_machine_worth_trying(ctx, first, machine) and \
                not any(o.gpu == choice.gpu.id and o.gpu_count == machine for o in out):
            at = plan_training(ctx, model, choice.gpu, machine, tokens, precision)
            whole = training_option(ctx, model, choice.gpu, *at) if at[0] is not None else None
            if _cheaper_run(whole, first):
                out.append(whole)
    if any(c.count is None for c in choices) and target_hours is None:
        ctx.assume("training_counts", days=deadline / 24)
    return out


def _fewest_whole_machines(ctx: Context, model: Model, gpu: Gpu, tokens: float, precision: str, missed: int,
                           met: tuple, deadline_h: float) -> tuple:
    """The fewest GPUs, in whole machines, that still finish by the deadline.

    The policy's counts double (1, 2, 4, ... 512), so the first count that meets a deadline can be nearly twice
    what is needed (a run needing 336 A100s would be planned on 512). Between the last count that missed
    (``missed``) and the one that met (``met``, an (estimate, placement, rejection) tuple) this bisects over
    multiples of one machine (policy ``limits.gpus_per_machine``, 8 GPUs: the HGX/DGX node clusters are rented
    by); wall clock falls with the count, so the bisection finds the fewest machines. Returns the tuple for that
    count, or ``met`` when no whole-machine count in between meets the deadline.
    """
    step = ctx.query.gpus_per_node or int(ctx.policy.limits.gpus_per_machine.value)
    low, high = missed // step, met[0].gpu_count // step   # machines: low misses (or is < 1 machine), high meets
    best = met
    while high - low > 1:
        mid = (low + high) // 2
        est, placement, why = plan_training(ctx, model, gpu, mid * step, tokens, precision)
        if est is not None and est.fits and (est.wall_clock_hours or 0) <= deadline_h:
            high, best = mid, (est, placement, why)
        else:
            low = mid
    return best


def _beyond_counts(ctx: Context, model: Model, gpu: Gpu, tokens: float, precision: str, largest: tuple,
                   deadline_h: float) -> tuple | None:
    """A run past the policy's largest count when the user's deadline needs it (a 1T-parameter model in 90 days).

    Wall clock scales about inversely with the count at a fixed MFU, so the count is the largest tried
    (``largest``, an (estimate, placement, rejection) tuple) times its wall clock over the deadline, in whole
    machines (policy ``limits.gpus_per_machine``), then one more step of machines at a time (at most four) while
    communication keeps it over. Returns that count's tuple, or ``None`` when even that misses.
    """
    step = ctx.query.gpus_per_node or int(ctx.policy.limits.gpus_per_machine.value)
    est = largest[0]
    if not est.wall_clock_hours:
        return None
    need = step * math.ceil(est.gpu_count * est.wall_clock_hours / deadline_h / step)
    for _ in range(5):
        got = plan_training(ctx, model, gpu, need, tokens, precision)
        if got[0] is None:
            return None
        if got[0].fits and (got[0].wall_clock_hours or 0) <= deadline_h:
            return got
        need += step
    return None


def finetune_setups(ctx: Context, model: Model, tokens: float, choices: list[GpuChoice] | None = None,
                    methods: list[str] | None = None) -> list[Option]:
    """Options for fine-tuning ``model`` over the request's GPUs and methods (see the module docstring)."""
    q = ctx.query
    choices = choices if choices is not None else candidate_gpus(ctx, "finetune")
    methods = methods or ([q.method] if q.method else ["full", "lora", "qlora"])
    out: list[Option] = []
    for choice in choices:
        for method in methods:
            est = plan_finetune(ctx, model, choice.gpu, choice.count, method, tokens)
            if est is None:
                ctx.warn("finetune_refused", gpu_name=choice.gpu.name, method=method)
                continue
            option = finetune_option(ctx, model, choice.gpu, est)
            out.append(option)
            if choice.count is None and "gpu_count" not in q.asks:  # (a count asked: the fewest answer it)
                machine = int(ctx.policy.limits.gpus_per_machine.value)
                if _whole_machine_worth_trying(ctx, option, machine):
                    at = plan_finetune(ctx, model, choice.gpu, machine, method, tokens)
                    whole = finetune_option(ctx, model, choice.gpu, at) if at is not None else None
                    if _cheaper_run(whole, option):
                        out.append(whole)
    if q.method is None and len(methods) > 1:
        ctx.assume("methods_compared")
    ctx.assume("finetune_methods_memory")
    return out


def tokens_for_money_asked(q) -> bool:
    """Whether a run question asks how many tokens a money budget buys: a budget beside a token count asked
    ("能训多少 token") or beside "多少 token" read as a speed with no rate given (a run's tokens, not tokens/s)."""
    return q.budget is not None and ("tokens_in_time" in q.asks or ("speed" in q.asks and not q.target_tokens_per_s
                                                                    and not q.observations))


#: Costs within this share of each other are a tie: the fewest GPUs are kept (prices move more than that week to week)
_NEAR_TIE = 0.03


def _whole_machine_worth_trying(ctx: Context, fewest: Option, machine: int) -> bool:
    """Whether to also plan a run with no count given on one whole machine of ``machine`` GPUs (policy
    ``limits.gpus_per_machine``): the fewest GPUs that hold it are fewer, priced, and a group that large is
    allowed on the GPU. Data parallelism keeps the GPU-hours close, so a lower price per GPU-hour on whole 8-GPU
    nodes (marketplaces and neoclouds rent HGX nodes for less per GPU than clouds rent a 4-GPU slice) lowers the
    bill and shortens the wall clock (:func:`_cheaper_run` decides)."""
    gpu = ctx.kb.gpus.get((fewest.gpu or "").split("@")[0])
    return bool(fewest.fits and fewest.total_cost_usd and (fewest.gpu_count or 1) < machine and gpu is not None
                and group_cap(ctx, gpu) >= machine)


def _cheaper_run(other: Option | None, fewest: Option) -> bool:
    """``other`` fits and costs at least 3% less in all than ``fewest`` (a near tie keeps the fewest GPUs)."""
    return bool(other is not None and other.fits and other.total_cost_usd and fewest.total_cost_usd
                and other.total_cost_usd <= fewest.total_cost_usd * (1 - _NEAR_TIE))


def finetune_alternatives(ctx: Context, model: Model, tokens: float, failed: Option, choice: GpuChoice) -> list[Option]:
    """When the user's fine-tuning setup does not fit: a lighter method on the same GPUs, then more GPUs,
    each labelled with what it changes."""
    out = []
    lighter = {"full": ["lora", "qlora"], "lora": ["qlora"], "qlora": []}.get(failed.method or "", [])
    for method in lighter:
        est = plan_finetune(ctx, model, choice.gpu, choice.count, method, tokens)
        if est is not None and est.fits:
            out.append(finetune_option(ctx, model, choice.gpu, est, changes=["method"]))
            break
    if choice.count is not None:
        est = plan_finetune(ctx, model, choice.gpu, None, failed.method or "lora", tokens)
        if est is not None and est.fits and est.gpu_count != choice.count:
            out.append(finetune_option(ctx, model, choice.gpu, est, changes=["count"]))
    if not ctx.query.sequence_tokens and failed.method:
        est = plan_finetune(ctx, model, choice.gpu, choice.count, failed.method, tokens, seq_len=1024)
        if est is not None and est.fits:
            opt = finetune_option(ctx, model, choice.gpu, est, changes=["context"])
            opt.notes.append(note("seq_len_used", seq_tokens=1024))
            out.append(opt)
    return out[:3]


def training_table(options: list[Option]) -> Table:
    """The table of training options: fit, memory per GPU, GPU-hours, wall clock, $/h, total."""
    return Table(columns=["config", "fits", "gb_per_gpu", "gpu_hours", "wall_clock", "usd_per_hour", "total_usd"],
                 rows=[[config(o), o.fits, o.memory_per_gpu_gb, o.gpu_hours, o.wall_clock_hours,
                        o.price_per_hour_usd, o.total_cost_usd] for o in options])


def finetune_table(options: list[Option]) -> Table:
    """The table of fine-tuning options: fit, memory per GPU, GPU-hours, wall clock, $/h, total."""
    return Table(columns=["config", "fits", "gb_per_gpu", "gpu_hours", "wall_clock", "usd_per_hour", "total_usd"],
                 rows=[[config(o), o.fits, o.memory_per_gpu_gb, o.gpu_hours, o.wall_clock_hours,
                        o.price_per_hour_usd, o.total_cost_usd] for o in options])
