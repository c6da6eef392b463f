"""Non-LLM models: image generation (diffusion), transcription (Whisper-class), embeddings.

For each GPU considered (the ones named, else the policy's ``non_llm`` candidates) the answer gives the
memory fit and, where :mod:`bot.estimation.non_llm` has a published basis for the model, the rate
(images/min, times real time, documents/s) and, for a stated job (images, audio hours, documents), its
wall clock and cost at the price the user's constraints allow (providers, pricing model). A deadline
sets the count: copies of the model run data-parallel, so ``ceil(hours on one GPU / deadline)`` GPUs. A live
service's target rate sets it too (images/min, live audio streams each at 1x real time, documents or requests/s):
``ceil(target / one GPU's rate)`` GPUs. A price limit per hour, or a budget for the whole job, rules out the setups
above it. Without a named GPU the recommendation is the cheapest job (the cheapest per hour for a target rate; the
cheapest per unit when neither is given) among the GPUs that hold the model and meet every limit.

Several weight formats named for one fit ("bf16 or fp8?") get a row each and a verdict each; several models
named get their own rows, and a model the knowledge base lacks is said to be unknown in the first lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from bot.advice.answer import Answer, Option, Table
from bot.advice.context import Context
from bot.advice.models import model_label
from bot.advice.observed import image_time_note
from bot.advice.options import caveats, config, hour_cell, machines_first, mention_cost, next_actions
from bot.advice.planner import GpuChoice, candidate_gpus, cost_for, place, price_of
from bot.errors import AdvisorError
from bot.estimation import (
    EmbeddingEstimate,
    ImageEstimate,
    TranscriptionEstimate,
    efficiency_for,
    estimate_embeddings,
    estimate_images,
    estimate_transcription,
    usable_memory_gb,
)
from bot.kb.schema import Gpu, Model
from bot.notes import Note, note

__all__ = ["answer_non_llm", "need_gb", "target_rate", "task_of"]

#: Most copies a target rate or a deadline sizes (each copy is one GPU; far beyond any request seen).
MAX_COPIES = 4096

#: Activation and workspace headroom over the fp16 weights for diffusion and speech models (UNet/DiT
#: activations at 1024px and Whisper's 30 s windows stay within ~20% of the weights in fp16; stated).
ACTIVATION_HEADROOM = 0.2

Task = Literal["images", "transcription", "embeddings"]
_Estimate = ImageEstimate | TranscriptionEstimate | EmbeddingEstimate

#: The rate column of each task's table and the Option field it comes from.
_RATE = {"images": "images_per_min", "transcription": "x_realtime", "embeddings": "docs_per_s"}


def _one_image_s(est, other) -> float | None:
    """Seconds one image takes alone (batch 1): ``est``'s steps x seconds per step when it runs unbatched, else
    the batch-1 estimate ``other`` beside it (``None`` when there is none)."""
    one = est if est.batch_size == 1 else other
    return one.steps * one.seconds_per_step if one is not None else None


def task_of(ctx: Context, model: Model) -> Task | None:
    """Which estimator covers ``model``: ``images`` (a diffusion compute entry in efficiency.yaml),
    ``transcription`` (a speech shape entry), ``embeddings`` (an encoder with layers and hidden size), or
    ``None`` (memory only)."""
    nl = efficiency_for(ctx.kb).non_llm
    if model.id in nl.diffusion.models:
        return "images"
    if model.id in nl.speech.models:
        return "transcription"
    if model.num_hidden_layers and model.hidden_size:
        return "embeddings"
    return None


@dataclass
class _Row:
    choice: GpuChoice
    count: int
    need_gb: float
    usable_gb: float
    est: _Estimate | None
    option: Option
    #: the estimate in the other mode: images at the other batch (batch 1 beside a batched rate, the batched rate
    #: beside one image); transcription one file window by window beside the batched pipeline, or the reverse
    other: ImageEstimate | TranscriptionEstimate | None = None


def _batched(ctx: Context, task: Task | None) -> bool:
    """Whether images are made in batches: a rate or a job of many images with no batch stated and no single image
    asked ("latency", "one image": :attr:`Query.single_item`, or a job of one image)."""
    q = ctx.query
    return task == "images" and q.batch_size is None and not q.single_item and (q.images or 2) > 1


def image_batch(ctx: Context, model: Model, precision: str, usable_gb: float) -> int:
    """The largest batch of images (powers of two up to the policy's ``non_llm.image_batch_max``) whose memory
    fits ``usable_gb``: the weights in ``precision`` + per image ``ACTIVATION_HEADROOM`` x the weights, scaled by the
    pixels over the model's base resolution (activations grow with the latents) + the CUDA context; 1 when even
    two do not fit.

    Args:
        ctx: the request (resolution from ``Query.resolution``).
        model: a diffusion model with a compute entry in efficiency.yaml.
        precision: the weight format used. usable_gb: one GPU's usable memory, GB.

    Returns:
        Images per denoiser call.
    """
    eff = efficiency_for(ctx.kb)
    spec = eff.non_llm.diffusion.models.get(model.id)
    weights, _ = need_gb(ctx, model, precision)
    w, h = (ctx.query.resolution or [None, None])[:2]
    r = ((w or spec.base_width) * (h or spec.base_height)) / (spec.base_width * spec.base_height) if spec else 1.0
    per_image = ACTIVATION_HEADROOM * weights * r
    batch, top = 1, int(ctx.policy.non_llm.image_batch_max.value)
    while batch * 2 <= top and weights + per_image * batch * 2 + eff.c("cuda_context_gb") <= usable_gb:
        batch *= 2
    return batch


def need_gb(ctx: Context, model: Model, precision: str = "fp16") -> tuple[float, float]:
    """(weights GB in ``precision``, GB needed: weights x (1 + headroom) + the CUDA context); the weights
    scale from the published fp16 size by the format's bytes per weight (efficiency.yaml)."""
    eff = efficiency_for(ctx.kb)
    weights = (model.typical_fp16_weight_gb or model.params_total_b * 2) * \
        eff.weight_format(precision)[1].bytes_per_weight / 2
    return weights, weights * (1 + ACTIVATION_HEADROOM) + eff.c("cuda_context_gb")


def _precisions(ctx: Context, gpu: Gpu) -> list[str]:
    """The weight formats tried, in order: the user's, else fp16 and then an 8-bit format the GPU runs
    natively (FP8 from Ada/Hopper, INT8 before) for models whose 16-bit weights do not fit, then 4-bit NF4
    (bitsandbytes, as diffusers and the FLUX community run it on 12 GB cards)."""
    if ctx.query.precisions:
        return ctx.query.precisions[:1]  # (several named: one row each, see :func:`answer_non_llm`)
    return ["fp16", "fp8" if gpu.supports("fp8") else "int8", "nf4"]


def _estimate(ctx: Context, task: Task, model: Model, gpu: Gpu, count: int, price: float | None,
              precision: str, batch: int | bool | None = None) -> _Estimate:
    """One estimate for ``count`` copies on ``gpu`` at ``price`` USD/GPU-h (the job's size from the question;
    images in batches of ``batch``, else the batch stated, else one at a time; transcription batched unless
    ``batch`` is ``False`` or one file is asked).

    Raises:
        AdvisorError: the estimator refuses (unknown engine or precision, no figures for the model).
    """
    q = ctx.query
    common = {"count": count, "price_per_gpu_hour": price, "precision": precision}
    if q.engine:
        common["engine"] = q.engine
    if task == "images":
        w, h = (q.resolution or [None, None])[:2]
        return estimate_images(ctx.kb, model, gpu, width=w, height=h, steps=q.image_steps,
                               batch_size=batch or q.batch_size or 1, images=q.images, **common)
    if task == "transcription":
        # a stated batch size is used as given; else the engine's batched pipeline, for a rate or a live service as for
        # a job (estimate_transcription decides for a job: enough audio to fill a batch), so one GPU has one speed in
        # every answer; one file at a time ("latency", "one file") or ``batch=False`` decodes window by window
        if batch is None:
            batch = not (q.single_item or q.batch_size)
        return estimate_transcription(ctx.kb, model, gpu, audio_hours=q.audio_hours,
                                      batch_size=q.batch_size or 1,
                                      batched=False if not batch else (None if q.audio_hours else True), **common)
    # an embedding request's input is the document: "documents of 500 tokens" (an input length) is its length
    return estimate_embeddings(ctx.kb, model, gpu, documents=q.documents,
                               tokens_per_document=int(q.tokens_per_item or q.input_tokens or 512), **common)


def _job_given(ctx: Context, task: Task) -> bool:
    q = ctx.query
    return bool({"images": q.images, "transcription": q.audio_hours, "embeddings": q.documents}[task])


def target_rate(ctx: Context, task: Task | None) -> float | None:
    """The rate a live service must reach, in the unit of the task's rate, or ``None`` when none is stated.

    * images: ``Query.images_per_minute``, else ``requests_per_s`` x 60 (one image per request), images/min;
    * transcription: ``Query.concurrent_users`` live audio streams, each transcribed at 1x real time, so that many
      times real time in all;
    * embeddings: ``requests_per_s`` (one document per request), else an aggregate ``target_tokens_per_s`` over the
      document length (``tokens_per_item``, else the input length, else 512), documents/s.
    """
    q = ctx.query
    if task == "images":
        return q.images_per_minute or (q.requests_per_s * 60 if q.requests_per_s else None)
    if task == "transcription":
        return float(q.concurrent_users) if q.concurrent_users else None
    if task == "embeddings":
        if q.requests_per_s:
            return q.requests_per_s
        if q.target_tokens_per_s and q.target_scope != "per_user":
            return q.target_tokens_per_s / int(q.tokens_per_item or q.input_tokens or 512)
    return None


def _per_gpu_rate(task: Task | None, est: _Estimate | None) -> float | None:
    """One GPU's rate (images/min, times real time, documents/s) in an estimate over ``est.gpu_count`` copies."""
    rate = _rate(task, est)
    if rate is None or est is None:
        return None
    return rate if task == "transcription" else rate / est.gpu_count


def _total_rate(task: Task | None, est: _Estimate | None) -> float | None:
    """All copies' rate together (the transcription figure is per GPU, so times the count)."""
    rate = _rate(task, est)
    if rate is None or est is None:
        return None
    return rate * est.gpu_count if task == "transcription" else rate


def _copies_needed(ctx: Context, task: Task, one: _Estimate) -> int:
    """Copies (one per GPU) that meet the target rate and the deadline, from the one-GPU estimate ``one``:
    ``ceil(target / one GPU's rate)`` and ``ceil(hours on one GPU / deadline)``, the larger, capped at
    :data:`MAX_COPIES`."""
    q = ctx.query
    n = 1
    target, rate = target_rate(ctx, task), _per_gpu_rate(task, one)
    if target and rate:
        n = max(n, math.ceil(target / rate * (1 - 1e-9)))
    if q.deadline_hours and one.hours and one.hours > q.deadline_hours:
        n = max(n, math.ceil(one.hours / q.deadline_hours * (1 - 1e-9)))
    return min(n, MAX_COPIES)


def _limits(ctx: Context, task: Task | None) -> tuple[tuple[float, bool] | None, float | None]:
    """(hourly limit as (USD, per GPU-hour?), budget for the whole job in USD): a stated price per hour; a budget is
    the job's total when a job is given, else (or when said per period, "每小时预算 1 美元") spread over the rental
    length or period (:meth:`Context.hourly_limit_usd`)."""
    q = ctx.query
    job = task is not None and _job_given(ctx, task)
    if q.budget is not None and job and not q.duration_is_period:
        total = ctx.usd(q.budget)
        limit = ctx.usd(q.price_limit_per_hour) if q.price_limit_per_hour is not None else None
        return ((limit, q.price_limit_per_gpu) if limit else None), total
    hourly = ctx.hourly_limit_usd()
    return ((hourly[0], hourly[1]) if hourly else None), None


def _row(ctx: Context, task: Task | None, model: Model, choice: GpuChoice, precision: str | None = None) -> _Row:
    """Estimate ``model`` on one GPU choice: the count fixed, else what the target rate and the deadline need
    (one GPU when neither is given); ``precision`` fixes the weight format (else the first that fits)."""
    q = ctx.query
    eff = efficiency_for(ctx.kb)
    usable = usable_memory_gb(eff, choice.gpu)
    tried = [precision] if precision else _precisions(ctx, choice.gpu)
    fitting = [p for p in tried if need_gb(ctx, model, p)[1] <= usable]
    precision = fitting[0] if fitting else tried[-1]
    need = need_gb(ctx, model, precision)[1]
    count = choice.count or 1
    est = other = None
    price = price_of(ctx, place(ctx, choice.gpu, count, 1))
    # images: a rate or a bulk job at the largest batch memory holds, with one image alone beside it (or the
    # reverse when one image's time is asked); transcription: the batched pipeline with one file window by window
    # beside it (or the reverse)
    mine: int | bool | None
    beside: int | bool | None
    if task == "images":
        batch = image_batch(ctx, model, precision, usable) if q.batch_size is None else None
        mine, beside = (batch, 1) if _batched(ctx, task) else (None, batch)
    elif task == "transcription" and q.batch_size is None:
        mine = not q.single_item
        beside = not mine
    else:
        mine = beside = None
    if task is not None and need <= usable:
        try:
            est = _estimate(ctx, task, model, choice.gpu, count, price.price_per_gpu_hour_usd if price else None,
                            precision, mine)
            if choice.count is None and (copies := _copies_needed(ctx, task, est)) > 1:
                count = copies
                price = price_of(ctx, place(ctx, choice.gpu, count, 1))
                est = _estimate(ctx, task, model, choice.gpu, count,
                                price.price_per_gpu_hour_usd if price else None, precision, mine)
            if task == "images" and beside and beside != (mine or 1):
                other = _estimate(ctx, task, model, choice.gpu, count, None, precision, beside)
            elif task == "transcription" and beside is not None:
                alt = _estimate(ctx, task, model, choice.gpu, count, None, precision, beside)
                if alt.batch_size != est.batch_size or alt.batched_speedup != est.batched_speedup:
                    other = alt
        except AdvisorError as exc:
            ctx.warn("estimate_refused", reason=str(exc))
            est = None
    opt = Option(model=model.id, model_name=model_label(model), gpu=choice.gpu.id, gpu_name=choice.gpu.name,
                 gpu_count=count, precision=est.precision if est else precision, engine=est.engine if est else None,
                 fits=need <= usable, memory_total_gb=need, usable_gb=usable, price=price,
                 wall_clock_hours=est.hours if est else None, gpu_hours=est.gpu_hours if est else None,
                 duration_hours=est.hours if est else None)
    if est is not None and est.hours and price is not None:
        # the rental in whole instances: idle GPUs of an instance are paid too
        opt.total_cost_usd = cost_for(price, est.hours)
    opt.meets = opt.fits
    target, total = target_rate(ctx, task), _total_rate(task, est)
    hourly, budget = _limits(ctx, task)
    if not opt.fits:
        opt.rejection = note("reject_memory", need_gb=need, usable_gb=usable)
    elif q.deadline_hours and est is not None and est.hours and est.hours > q.deadline_hours * 1.000001:
        opt.meets = False
        opt.rejection = note("reject_deadline", hours=est.hours, deadline_hours=q.deadline_hours)
    elif target and total is not None and total < target * 0.999999:
        opt.meets = False
        opt.rejection = note(f"reject_target_{task}", rate=total, target=target)
    elif hourly and price is not None and (price.price_per_gpu_hour_usd if hourly[1] else price.price_per_hour_usd) \
            > hourly[0] * 1.000001:
        opt.meets = False
        opt.rejection = note("reject_over_limit", limit_usd=hourly[0],
                             price_usd=price.price_per_gpu_hour_usd if hourly[1] else price.price_per_hour_usd)
    elif budget and opt.total_cost_usd is not None and opt.total_cost_usd > budget * 1.000001:
        opt.meets = False
        opt.rejection = note("reject_over_budget_total", total_usd=opt.total_cost_usd, budget_usd=budget)
    return _Row(choice, count, need, usable, est, opt, other)


def _rate(task: Task | None, est: _Estimate | None) -> float | None:
    if est is None or task is None:
        return None
    if task == "images":
        return est.images_per_minute
    if task == "transcription":
        return est.speed_x_realtime
    return est.documents_per_s


def _unit_cost(row: _Row, task: Task | None) -> float:
    """USD per unit of work (per image, per audio hour, per document) at the option's price; inf when unknown."""
    rate = _rate(task, row.est)
    price = row.option.price
    if not rate or price is None:
        return math.inf
    per_hour_units = {"images": rate * 60, "transcription": rate * row.count, "embeddings": rate * 3600}[task]
    return price.price_per_hour_usd / per_hour_units


def _fixed_step_share(ctx: Context, row: _Row) -> float | None:
    """Percent of one file's decode time (window by window) that is the engine's fixed work per decoder step
    (``step_overhead_ms`` x tokens per audio second / seconds per audio second): the part no GPU speeds up, which is
    why a faster GPU gains little over a mid-range one for Whisper decoding; ``None`` without a transcription
    estimate."""
    one = row.est if isinstance(row.est, TranscriptionEstimate) and not row.est.batched_speedup else row.other
    if not isinstance(one, TranscriptionEstimate) or not one.real_time_factor or one.batch_size != 1:
        return None
    nl = efficiency_for(ctx.kb).non_llm
    step_s = nl.engine("speech", one.engine)[1].step_overhead_ms / 1000
    return 100 * nl.speech.tokens_per_audio_second * step_s / one.real_time_factor


def _speech_mode(e: TranscriptionEstimate) -> Note:
    """How a transcription estimate decodes, said beside its speed: the engine's batched pipeline (windows decoded
    together) or one file at a time, window by window; the engine and the beam either way."""
    if e.batched_speedup:
        return note("transcribe_mode_batched", engine=e.engine, batch=e.batch_size, beam=e.beam_size)
    return note("transcribe_mode_one", engine=e.engine, beam=e.beam_size, batch=e.batch_size if e.batch_size > 1 else None)


def _speech_other(row: _Row) -> dict:
    """The other decoding mode's speed beside a transcription figure: ``other_one_x`` (one file at a time) beside a
    batched figure, ``other_batched_x`` beside a one-file figure; empty when there is none."""
    o = row.other
    if not isinstance(o, TranscriptionEstimate) or not o.speed_x_realtime:
        return {}
    return {"other_batched_x": o.speed_x_realtime} if o.batched_speedup else {"other_one_x": o.speed_x_realtime}


def _deadline_of(ctx: Context, row: _Row) -> float | None:
    """The deadline when it set the row's count (more than one GPU, chosen by the planner), for the job's line."""
    return ctx.query.deadline_hours if row.count > 1 and row.choice.count is None else None


def _target_headline(ctx: Context, task: Task, model: Model, row: _Row, target: float) -> Note:
    """The first line of a live service's target: the setup that reaches it (the cheapest per hour when the GPU was
    not named), one GPU's rate and the count ``ceil(target / rate)``; when the setup shown does not reach it, that
    first, with the count that would."""
    o, e = row.option, row.est
    name = model_label(model)
    cfg = config(o, with_precision=o.precision not in (None, "fp16", "bf16"))
    per_gpu = _per_gpu_rate(task, e)
    params: dict = {"config": cfg, "model_name": name, "target": target, "per_gpu": per_gpu,
                    "price_usd": o.price.price_per_hour_usd if o.price else None}
    if task == "images":
        params.update(resolution=f"{e.width}x{e.height}", steps=e.steps, batch=e.batch_size if e.batch_size > 1 else None)
    elif task == "transcription":
        params.update(mode=_speech_mode(e))
    else:
        params.update(per_item_tokens=e.tokens_per_document)
    if o.meets is False and o.rejection is not None and o.rejection.code.startswith("reject_target_"):
        needed = min(math.ceil(target / per_gpu * (1 - 1e-9)), MAX_COPIES) if per_gpu else None
        return note(f"target_short_{task}", rate=_total_rate(task, e), needed_count=needed, gpu_name=o.gpu_name,
                    **params)
    return note(f"target_{task}", count=row.count, **params)


def _headline(ctx: Context, task: Task | None, model: Model, row: _Row) -> object:
    q = ctx.query
    o, e = row.option, row.est
    name = model_label(model)
    cfg = config(o, with_precision=o.precision not in (None, "fp16", "bf16"))
    if e is None or _rate(task, e) is None:
        return note("non_llm_memory_headline", model_name=name, need_gb=row.need_gb, fits=[o.gpu_name] if o.fits else [],
                    precision=o.precision if o.precision not in ("fp16", "bf16") else None)
    if task == "images":
        if q.images and q.images > 1:  # (one image asked is its time: the rate line below)
            return note("images_job", config=cfg, model_name=name, images=q.images, resolution=f"{e.width}x{e.height}",
                        deadline_hours=_deadline_of(ctx, row),
                        steps=e.steps, hours=e.hours, total_usd=o.total_cost_usd, images_per_minute=e.images_per_minute,
                        batch=e.batch_size if e.batch_size > 1 and q.batch_size is None else None,
                        # one image alone (batch 1): its latency, what "how many seconds per image" asks
                        per_image_s=_one_image_s(e, row.other))
        if e.batch_size > 1 and row.other is not None:
            # a rate: the batched throughput, with one image alone (batch 1, its latency) beside it
            one = row.other
            return note("images_rate_batched", config=cfg, model_name=name, images_per_minute=e.images_per_minute,
                        resolution=f"{e.width}x{e.height}", steps=e.steps, batch=e.batch_size,
                        batch_s=e.steps * e.seconds_per_step, per_image_s=one.seconds_per_image,
                        batch_max=int(ctx.policy.non_llm.image_batch_max.value),
                        single_images_per_minute=one.images_per_minute)
        return note("images_rate", config=cfg, model_name=name, images_per_minute=e.images_per_minute,
                    resolution=f"{e.width}x{e.height}", steps=e.steps, per_image_s=e.seconds_per_image)
    if task == "transcription":
        if q.audio_hours:
            return note("transcribe_job", config=cfg, model_name=name, audio_hours_n=q.audio_hours, hours=e.hours,
                        speed_x=e.speed_x_realtime, total_usd=o.total_cost_usd, mode=_speech_mode(e),
                        deadline_hours=_deadline_of(ctx, row), **_speech_other(row))
        return note("transcribe_rate", config=cfg, model_name=name, speed_x=e.speed_x_realtime,
                    per_audio_hour_s=e.seconds_per_audio_hour, mode=_speech_mode(e), **_speech_other(row))
    if q.documents:
        return note("embed_job", config=cfg, model_name=name, documents=q.documents, per_item_tokens=e.tokens_per_document,
                    deadline_hours=_deadline_of(ctx, row),
                    hours=e.hours, total_usd=o.total_cost_usd, documents_per_second=e.documents_per_s)
    return note("embed_rate", config=cfg, model_name=name, throughput_tps=e.tokens_per_s,
                documents_per_second=e.documents_per_s,
                per_item_tokens=e.tokens_per_document)


def _answer_one(ctx: Context, model: Model) -> Answer:
    """Memory fit, rate, wall clock and cost of one non-LLM model on the GPUs named (or the policy's candidates).

    Args:
        ctx: the request (its query gives the job: images with resolution and steps, audio hours, documents
            with tokens each; a deadline; providers and pricing).
        model: a ``non_llm`` model of the knowledge base.

    Returns:
        :class:`Answer` whose options are one per GPU (count set by the user or the deadline), recommended:
        the GPU named first that fits, else the cheapest job (or unit) among those that fit.
    """
    q = ctx.query
    task = task_of(ctx, model)
    if task == "transcription" and q.audio_hours is None and q.duration_hours:
        # "transcribe 200 hours": for a speech model a bare duration is the audio, not a rental length
        q = ctx.query = q.model_copy(update={"audio_hours": q.duration_hours, "duration_hours": None})
        ctx.assume("duration_as_audio", audio_hours_n=q.audio_hours)
    if task is not None and _job_given(ctx, task) and q.duration_hours and not q.deadline_hours and \
            not (q.budget is not None and q.duration_is_period):  # ("每小时预算 1 美元": the budget's period)
        # "5万张 a day", "1M documents in 10 hours": with a job given, a length of time is its deadline
        q = ctx.query = q.model_copy(update={"deadline_hours": q.duration_hours})
        ctx.assume("duration_as_deadline", deadline_hours=q.deadline_hours)
    choices = candidate_gpus(ctx, "non_llm")
    fixed = any(c.fixed for c in choices)
    # several formats named ("bf16 or fp8?"): a row for each on every GPU, each answered
    formats = list(dict.fromkeys(q.precisions)) if len(q.precisions) > 1 else [None]
    rows = [_row(ctx, task, model, c, p) for c in choices[:8] for p in formats]
    weights, _ = need_gb(ctx, model)
    target = target_rate(ctx, task)
    hourly, budget = _limits(ctx, task)
    job = task is not None and _job_given(ctx, task)
    if fixed and not target:
        ordered = rows
    else:
        # a target rate: the cheapest per hour that reaches it; a job: the cheapest job; else the cheapest per unit
        ordered = sorted(rows, key=lambda r: (
            not r.option.meets, (r.option.total_cost_usd or math.inf) if job else
            (r.option.price.price_per_hour_usd if r.option.price else math.inf) if target else _unit_cost(r, task),
            r.count))
    rec = next((i for i, r in enumerate(ordered) if r.option.meets), None)
    for r in ordered[:3]:
        caveats(ctx, r.option, r.choice.gpu)
    ctx.cite(*model.sources[:2])
    ctx.assume("non_llm_memory", model_name=model_label(model), weights_gb=weights,
               headroom_pct=ACTIVATION_HEADROOM * 100)
    shown = ordered[rec] if rec is not None else (ordered[0] if ordered else None)
    memory_asked = "memory" in q.asks and not ({"speed", "time", "cost", "throughput"} & set(q.asks))
    if task is None:
        ctx.lack("non_llm_speed_unknown", model_name=model_label(model))
    elif shown is not None and shown.est is not None:
        if _rate(task, shown.est) is None:
            ctx.lack("non_llm_no_peak", gpu_name=shown.option.gpu_name)
        ctx.cite(*shown.est.sources)
        ctx.assume("non_llm_engine", engine=shown.est.engine, precision=shown.est.precision)
        if task == "images":
            ctx.assume("images_denoise_only")
        elif task == "transcription":
            ctx.assume("transcribe_beam", beam=shown.est.beam_size,
                       tokens_per_audio_second=shown.est.tokens_per_audio_second)
            if shown.est.batched_speedup:
                ctx.assume("transcribe_batched", engine=shown.est.engine, batch=shown.est.batch_size,
                           speedup=shown.est.batched_speedup)
            if (fixed_pct := _fixed_step_share(ctx, shown)) is not None:
                ctx.assume("transcribe_step_bound", engine=shown.est.engine, gpu_name=shown.option.gpu_name,
                           share_pct=fixed_pct, step_ms=efficiency_for(ctx.kb).non_llm.engine(
                               "speech", shown.est.engine)[1].step_overhead_ms)
        elif not (q.tokens_per_item or q.input_tokens):
            ctx.assume("embed_default_tokens", per_item_tokens=shown.est.tokens_per_document)
        if shown.option.precision not in ("fp16", "bf16") and not q.precisions:
            ctx.assume("non_llm_8bit", precision=shown.option.precision, gpu_name=shown.option.gpu_name,
                       need16_gb=need_gb(ctx, model)[1])
        if not _job_given(ctx, task) and not memory_asked and not target:
            ctx.lack("non_llm_job_size", model_name=model_label(model))
        if shown.count > 1 and shown.choice.count is None and q.deadline_hours:
            ctx.assume("non_llm_count_for_deadline", count=shown.count, deadline_hours=q.deadline_hours)
    if memory_asked and shown is not None:
        # "how much VRAM for flux dev": the memory leads, in the precision asked (else 16-bit), then what it fits on
        precision = q.precisions[0] if q.precisions else "fp16"
        need = need_gb(ctx, model, precision)[1]
        fits = list(dict.fromkeys(r.option.gpu_name for r in ordered if r.usable_gb is not None and r.usable_gb >= need))[:3]
        headline = note("non_llm_memory_headline", model_name=model_label(model), need_gb=need,
                        precision=precision if q.precisions else None, fits=fits)
    elif shown is None:
        headline = note("non_llm_memory_headline", model_name=model_label(model), need_gb=need_gb(ctx, model)[1],
                        fits=[])
    elif rec is None and not shown.option.fits:
        headline = note("non_llm_no_fit", model_name=model_label(model), need_gb=shown.need_gb,
                        precision=shown.option.precision,
                        gpus=[{"gpu_name": r.option.gpu_name, "usable_gb": r.usable_gb} for r in ordered[:3]])
    else:
        headline = _headline(ctx, task, model, shown)
        rated = [r for r in ordered if r.choice.fixed and r.option.fits and _rate(task, r.est)]
        if len(rated) >= 2 and not memory_asked and not target and len(formats) == 1:
            # two or more GPUs named ("a 4090 or an A10G"): the comparison leads, each GPU's own figure follows
            fast = max(rated, key=lambda r: _rate(task, r.est))
            slow = min(rated, key=lambda r: _rate(task, r.est))
            ctx_details = [headline] if shown is fast else [headline, _headline(ctx, task, model, fast)]
            headline = note(f"non_llm_compare_{task}", fast=config(fast.option, with_precision=False),
                            slow=config(slow.option, with_precision=False), model_name=model_label(model),
                            ratio_x=_rate(task, fast.est) / _rate(task, slow.est), fast_rate=_rate(task, fast.est),
                            slow_rate=_rate(task, slow.est))
            compare_details = ctx_details
    if target and task is not None and shown is not None and shown.est is not None and shown.option.fits and \
            _rate(task, shown.est) is not None and not memory_asked:
        # "300 requests/s", "20 images/min", "50 live streams": the GPUs that reach it lead
        pre_details = [headline] if headline.code != "non_llm_memory_headline" else []
        headline = _target_headline(ctx, task, model, shown, target)
    else:
        pre_details = []
    over = [r for r in ordered if r.option.rejection is not None and
            r.option.rejection.code in ("reject_over_limit", "reject_over_budget_total")]
    if rec is None and over and not memory_asked:
        # nothing within the budget: say so first, with the cheapest setup that does the work and its price
        cheapest = over[0]
        pre_details = [headline, *pre_details]
        headline = note("non_llm_over_limit" if hourly and cheapest.option.rejection.code == "reject_over_limit"
                        else "non_llm_over_budget", limit_usd=hourly[0] if hourly else None,
                        budget_usd=budget, config=config(cheapest.option, with_precision=False),
                        price_usd=cheapest.option.price.price_per_hour_usd if cheapest.option.price else None,
                        total_usd=cheapest.option.total_cost_usd,
                        hours=cheapest.est.hours if cheapest.est else None)
    elif over and rec is not None:
        # the budget ruled some setups out: said under the first line, with what they cost
        pre_details.append(note("non_llm_budget_applied", limit_usd=hourly[0] if hourly else None,
                                budget_usd=budget if not hourly else None,
                                over=[{"config": config(r.option, with_precision=False),
                                       "cost_usd": r.option.rejection.params.get("price_usd")
                                       if r.option.rejection.code == "reject_over_limit" else r.option.total_cost_usd,
                                       "per_hour": r.option.rejection.code == "reject_over_limit"}
                                      for r in over[:3]]))
    rated_formats = [r for r in rows if r.choice is rows[0].choice and r.option.fits and _rate(task, r.est)] \
        if task is not None else []
    if len(formats) > 1 and fixed and "fit" not in q.asks and not memory_asked and not target and \
            len(rated_formats) > 1:
        # "bf16 vs fp8 images per minute on an H100": each format's rate on the first GPU named
        pre_details = [headline, *pre_details]
        headline = note(f"non_llm_precisions_{task}", model_name=model_label(model),
                        config=config(rows[0].option, with_precision=False),
                        items=[{"precision": asked, "rate": _rate(task, r.est)}
                               for asked, r in zip(formats, rows, strict=False) if r in rated_formats])
    elif len(formats) > 1 and ("fit" in q.asks or memory_asked or fixed):
        # "bf16 or fp8?": each format named gets its verdict, on the first GPU named (its memory need alone without one)
        first = [r for r in rows if r.choice is rows[0].choice]
        items = [{"precision": asked, "need_gb": r.need_gb, "fits": r.option.fits, "short": not r.option.fits,
                  "ran_as": r.option.precision if r.option.precision != asked else None}
                 for asked, r in zip(formats, first, strict=False)]
        pre_details = [headline, *pre_details]
        if fixed:
            headline = note("non_llm_precisions_fit", model_name=model_label(model), gpu_name=rows[0].option.gpu_name,
                            usable_gb=rows[0].usable_gb, items=items)
        else:
            headline = note("non_llm_precisions_need", model_name=model_label(model), items=items)
    rate_col = _RATE.get(task) if task else None
    columns = ["config", "fits", "need_gb"] + ([rate_col, "wall_clock"] if rate_col else []) + [
        "usd_per_hour", "total_usd"]
    table_rows = []
    for r in ordered:
        row = [config(r.option, with_precision=r.option.precision not in (None, "fp16", "bf16")), r.option.fits,
               r.need_gb]
        if rate_col:
            row += [_rate(task, r.est), r.est.hours if r.est else None]
        row += [hour_cell(ctx, r.option), r.option.total_cost_usd]
        table_rows.append(row)
    details = [note("non_llm_hint", hint=model.runtime_memory_hint)] if model.runtime_memory_hint and task is None \
        else []
    if headline.code.startswith("non_llm_compare_"):
        details = compare_details + details
    details = [*pre_details, *details]
    if task == "images" and shown is not None and shown.est is not None and shown.other is not None \
            and shown.est.batch_size == 1 and headline.code in ("images_rate", "images_job"):
        # one image's time asked: the throughput in batches (as memory allows) beside it
        b = shown.other
        details.insert(0, note("images_batched_line", config=config(shown.option, with_precision=False),
                               batch=b.batch_size, images_per_minute=b.images_per_minute,
                               batch_max=int(ctx.policy.non_llm.image_batch_max.value),
                               batch_s=b.steps * b.seconds_per_step))
    if task == "images" and shown is not None and shown.est is not None:
        # "SDXL takes 40s per image on my T4": the user's own time per image beside the estimate (one image alone)
        alone = shown.other if shown.est.batch_size > 1 and shown.other is not None else shown.est
        seen = image_time_note(q, alone.seconds_per_image,
                               config(shown.option, with_precision=shown.option.precision not in (None, "fp16", "bf16")))
        details = ([seen] if seen else []) + details
    if rec is not None and ordered[rec].option.price is None and (mentioned := mention_cost(
            ctx, config(ordered[rec].option, with_precision=False), ordered[rec].option.gpu,
            ordered[rec].option.gpu_count, ordered[rec].est.hours if ordered[rec].est else None)):
        details.insert(0, mentioned)  # no list price: the secondary-source figure, labelled as such
    if "fit" in q.asks and fixed and not memory_asked and shown is not None and shown.option.fits and \
            shown.choice.fixed and not headline.code.startswith("non_llm_compare_") and len(formats) == 1 and \
            not target:
        # "does sdxl fit on a T4", "T4 能跑 sdxl 吗": the yes with the memory that decides it leads; the rate follows
        precision = shown.option.precision or "fp16"
        weights = need_gb(ctx, model, precision)[0]
        details = [headline, *details]
        headline = note("non_llm_fit_yes", model_name=model_label(model),
                        config=config(shown.option, with_precision=precision not in ("fp16", "bf16")),
                        need_gb=shown.need_gb, usable_gb=shown.usable_gb, weights_gb=weights, precision=precision,
                        headroom_gb=weights * ACTIVATION_HEADROOM,
                        cuda_context_gb=efficiency_for(ctx.kb).c("cuda_context_gb"))
    if rec is not None and not memory_asked:  # machines asked: they lead
        headline, details = machines_first(ctx, headline, details,
                                           config(ordered[rec].option, with_precision=False), model_label(model))
    return ctx.answer(title=note("title_non_llm", model_name=model_label(model)), headline=headline, details=details,
                      options=[r.option for r in ordered], recommendation=rec,
                      table=Table(columns=columns, rows=table_rows),
                      actions=next_actions(ctx, None, precision_switch=False))


def answer_non_llm(ctx: Context, models: Model | list[Model]) -> Answer:
    """Memory fit, rate, wall clock and cost of the non-LLM models named, on the GPUs named (or the policy's
    candidates).

    Args:
        ctx: the request (its query gives the job: images with resolution and steps, audio hours, documents
            with tokens each; a target rate for a live service; a deadline; a price limit or budget; providers and
            pricing).
        models: the ``non_llm`` models of the knowledge base named, in order (one, or a list).

    Returns:
        :class:`Answer` whose options are one per GPU (and per weight format when several are named), count set by
        the user, the target rate or the deadline, recommended: the GPU named first that meets the question, else
        the cheapest that does (per job, per hour for a target, per unit otherwise). With several models each is
        answered in turn (its first line among the first lines, its rows in the table, the recommended row of each
        first); a model name the knowledge base lacks is said to be unknown right under the first line.
    """
    several = models if isinstance(models, list) else [models]
    unknown = [w for w in ctx.warnings if w.code == "non_llm_default_model"] + _unknown_models(ctx)
    if len(several) == 1:
        out = _answer_one(ctx, several[0])
        return _with_unknown(out, unknown)
    parts: list[Answer] = []
    for m in several:
        sub = Context(ctx.query, ctx.kb, ctx.today)
        parts.append(_answer_one(sub, m))
        for mine, theirs in ((ctx.assumptions, sub.assumptions), (ctx.warnings, sub.warnings),
                             (ctx.missing, sub.missing), (ctx.sources, sub.sources), (ctx.price_dates, sub.price_dates)):
            mine.extend(x for x in theirs if x not in mine)
    ctx.query = parts[0].query
    columns = ["model", *parts[0].table.columns] if parts[0].table else ["model"]
    firsts, rests = [], []
    for part in parts:
        cols = part.table.columns if part.table else []
        for i, (opt, row) in enumerate(zip(part.options, part.table.rows if part.table else [], strict=False)):
            cells = dict(zip(cols, row, strict=False))
            line = (opt, [opt.model_name, *(cells.get(c) for c in columns[1:])])
            (firsts if i == (part.recommendation or 0) else rests).append(line)
    ordered = firsts + rests
    rec = 0 if parts[0].recommendation is not None else None
    details = [p.headline for p in parts[1:]]
    for p in parts:
        details += [d for d in p.details if d not in details]
    return _with_unknown(ctx.answer(
        title=note("title_non_llm_several", model_names=[model_label(m) for m in several]),
        headline=parts[0].headline, details=details, options=[o for o, _ in ordered], recommendation=rec,
        table=Table(columns=columns, rows=[r for _, r in ordered]), actions=parts[0].actions), unknown)


def _unknown_models(ctx: Context) -> list[Note]:
    """A note for each model name the question gives that the knowledge base lacks and that was not sized by a
    parameter count ("nomic-embed-text" beside bge-m3): said, never dropped silently."""
    out = [note("non_llm_model_unknown", written=t.as_written, suggestions=t.suggestions)
           for t in ctx.query.unknown_terms if t.kind == "model" and not t.sized]
    spec = efficiency_for(ctx.kb).non_llm.diffusion.models
    for n in ctx.query.notes:
        if n.code == "model_variant_unknown" and (model := ctx.kb.models.get(n.params.get("model_id", ""))):
            # "sdxl turbo": the stand-in and what it is, so the user can tell how far it is from their variant
            steps = spec[model.id].default_steps if model.id in spec else None
            out.append(note("non_llm_variant_stand_in", written=n.params["written"], model_name=model.name,
                            params_b=model.params_total_b, steps=steps, license=model.license))
    return out


def _with_unknown(out: Answer, unknown: list[Note]) -> Answer:
    """``out`` with the notes on the model itself (a default model sized, a name unknown, a variant's stand-in)
    right under its first line, and not again among the warnings."""
    if not unknown:
        return out
    written = {n.params.get("written") for n in unknown}
    warnings = [w for w in out.warnings if w not in unknown and not (
        w.code in ("unknown_term", "unknown_model") and w.params.get("written") in written)]
    assumptions = [a for a in out.assumptions if a.code != "model_variant_unknown"]
    return out.model_copy(update={"details": [*unknown, *[d for d in out.details if d not in unknown]],
                                  "warnings": warnings, "assumptions": assumptions})
