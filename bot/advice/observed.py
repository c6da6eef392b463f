"""The user's own figures beside the estimate: "I get only 10 tokens/s", "3 times slower than the A10", "40s per image".

A figure the user saw (:class:`bot.parsing.query.Observation`) is never a target; the answer sets the estimate for
the configuration it describes beside it, so "is that normal?" gets the number that decides it. Figures someone else
published (``quoted``) are not set beside anything here: a claim has its own verdict (:mod:`bot.advice.specs`).
"""

from __future__ import annotations

from bot.advice.answer import Answer, Option
from bot.advice.options import config
from bot.kb.loader import KnowledgeBase
from bot.notes import Note, note
from bot.parsing.query import Query

__all__ = ["ABOVE_SHARE", "BELOW_SHARE", "image_time_note", "likely_causes", "observation_notes"]

#: A speed the user sees below this share of the estimate is called out: the estimates are a single stream's speed at
#: the knowledge base's efficiency factors (knowledge/efficiency.yaml), which real setups reach within tens of percent;
#: at under 60% something else is the bottleneck (layers on the CPU, an engine without batching or fused kernels).
BELOW_SHARE = 0.6
#: A speed the user sees above this multiple of the estimate is not one stream at the format estimated (a smaller
#: quantisation, speculative decoding, or an aggregate over several requests). Between the two the figure is normal:
#: the expected range is ``[BELOW_SHARE x estimate, ABOVE_SHARE x estimate]``.
ABOVE_SHARE = 1.25
#: Compute capability from which a GPU has native bf16 (NVIDIA Ampere, sm_80; CUDA C Programming Guide, "Arithmetic
#: instructions"): below it bf16 is emulated or refused, so a model run in bf16 there is slow.
_BF16_CC = 8.0
#: Bytes per parameter of weights in 16-bit and 32-bit floats.
_HALF_BYTES, _FULL_BYTES = 2, 4


def _verdict(share: float) -> str:
    """``slow``, ``normal`` or ``fast`` for what the user sees as a share of the estimate (speed seen / estimated, or
    time estimated / seen)."""
    return "slow" if share < BELOW_SHARE else "fast" if share > ABOVE_SHARE else "normal"


def _estimate(answer: Answer) -> Option | None:
    """The option the user's figures are about: the recommended one when it keeps what the user fixed, else the first
    such one that fits with a decode speed; ``None`` when the user's own setup does not fit (no speed to compare)."""
    if answer.recommendation is not None:
        rec = answer.options[answer.recommendation]
        if rec.decode_tps and rec.fits and not rec.changes:
            return rec
    return next((o for o in answer.options if o.decode_tps and o.fits and not o.changes), None)


def observation_notes(query: Query, answer: Answer, kb: KnowledgeBase | None = None) -> list[Note]:
    """Sentences that set each figure the user saw beside the answer's estimate, with a verdict ("is that normal?").

    Args:
        query: the request (its ``observations``).
        answer: the answer built for it (its options carry the estimate: decode speed, time per output token).
        kb: the knowledge base, for the likely causes of a speed well below the estimate (:func:`likely_causes`);
            ``None`` gives the verdict alone.

    Returns:
        ``observed_speed`` for a generation speed (tokens/s, against one user's decode speed; ``verdict`` ``normal``
        within ``[low_tps, high_tps]`` = ``[BELOW_SHARE, ABOVE_SHARE] x`` the estimate, else ``slow`` or ``fast``, and
        under a ``slow`` one the likely causes), ``observed_tpot`` for a
        time per output token (ms), ``observed_ratio`` for a ratio between two GPUs (against the ratio of their
        estimated decode speeds at the same precision and count); none when the answer has no such estimate.
    """
    out: list[Note] = []
    opt = _estimate(answer)
    for o in query.observations:
        if o.quoted:
            continue
        own = next((x for x in answer.options if not x.changes), None)
        if o.kind == "tokens_per_s" and opt is None and own is not None and not own.fits and own.memory_total_gb \
                and kb is not None and (gpu := kb.gpus.get((own.gpu or "").split("@")[0])) is not None:
            # "70B q4 on one 3090 gets 2 tok/s, expected?": the setup does not hold the model, so the engine runs it
            # with layers in CPU RAM (read over PCIe every token): a few tokens/s is what that gives
            memory = (own.usable_gb or gpu.memory_gb) * (own.gpu_count or 1)  # (what the engine can use, GB)
            out.append(note("observed_offload", observed_tps=o.value, config=config(own), need_gb=own.memory_total_gb,
                            memory_gb=memory, spill_gb=max(0.0, own.memory_total_gb - memory), verdict="offloaded"))
            continue
        if o.kind == "tokens_per_s" and opt is not None:
            one = opt.single_user_tps or opt.decode_tps  # the sentence says "for one user": the batch-1 figure
            verdict = _verdict(o.value / one)
            out.append(note("observed_speed", observed_tps=o.value, decode_tps=one, config=config(opt),
                            below=verdict == "slow", normal=verdict == "normal", above=verdict == "fast",
                            verdict=verdict, low_tps=BELOW_SHARE * one, high_tps=ABOVE_SHARE * one))
            if verdict == "slow" and kb is not None:
                out.extend(likely_causes(kb, query, opt))
        elif o.kind == "seconds_per_item" and o.item == "token" and opt is not None and opt.tpot_ms:
            out.append(note("observed_tpot", observed_ms=o.value * 1000, tpot_ms=opt.tpot_ms, config=config(opt),
                            below=opt.tpot_ms < BELOW_SHARE * o.value * 1000))
        elif o.kind == "ratio":
            pair = _same_setup_pair(answer.options)
            if pair is not None:
                fast, slow = sorted(pair, key=lambda x: -x.decode_tps)
                out.append(note("observed_ratio", observed_x=o.value, estimate_x=fast.decode_tps / slow.decode_tps,
                                fast_gpu=fast.gpu_name, slow_gpu=slow.gpu_name))
    return out


def _same_setup_pair(options: list[Option]) -> tuple[Option, Option] | None:
    """The first two options on different GPUs with the same precision and GPU count (the user's setups, nothing
    changed), whose decode speeds make the estimated ratio; ``None`` when there are none."""
    kept = [x for x in options if x.decode_tps and x.gpu and not x.changes]
    for i, a in enumerate(kept):
        for b in kept[i + 1:]:
            if b.gpu != a.gpu and b.precision == a.precision and b.gpu_count == a.gpu_count:
                return a, b
    return None


def image_time_note(query: Query, seconds_per_image: float | None, cfg: dict) -> Note | None:
    """``observed_image_time`` when the user saw a time per image and the answer estimated one (seconds), else
    ``None``; its ``verdict`` is ``normal`` within ``[low_s, high_s]`` (the estimate over ``ABOVE_SHARE`` and over
    ``BELOW_SHARE``), else ``slow`` or ``fast``."""
    seen = next((o for o in query.observations if o.kind == "seconds_per_item" and o.item == "image" and not o.quoted),
                None)
    if seen is None or not seconds_per_image:
        return None
    verdict = _verdict(seconds_per_image / seen.value)
    return note("observed_image_time", observed_s=seen.value, per_image_s=seconds_per_image, config=cfg,
                below=verdict == "slow", normal=verdict == "normal", above=verdict == "fast", verdict=verdict,
                low_s=seconds_per_image / ABOVE_SHARE, high_s=seconds_per_image / BELOW_SHARE)


def likely_causes(kb: KnowledgeBase, query: Query, opt: Option) -> list[Note]:
    """Why a setup runs well below its estimate, most likely first, each with the figure that makes it likely.

    Args:
        kb: the knowledge base (the GPU's memory, compute capability and FP16 rate; the model's parameters).
        query: the request (its first model the knowledge base has).
        opt: the option the estimate is about (GPU, count).

    Returns:
        With no precision stated in the question: ``cause_offload`` when the model's 16-bit weights (parameters x 2 bytes, GB) exceed the GPUs' memory (layers
        then run from CPU RAM); ``cause_fp32`` with the 32-bit weights (parameters x 4 bytes: a load without a dtype,
        twice the bytes read per token and, above the memory, offloaded); ``cause_no_bf16`` on a GPU below compute
        capability 8.0; ``cause_no_fp16`` on a GPU with no published 16-bit tensor rate; last, with no engine named
        ``cause_engine`` (one request at a time without fused kernels), else the named engine's own slow paths
        (``cause_tp_pcie`` for tensor parallelism over GPUs without NVLink, ``cause_engine_settings``). Empty without the option's GPU in ``kb``.
    """
    gpu = kb.gpus.get(opt.gpu or "")
    if gpu is None:
        return []
    count = opt.gpu_count or 1
    memory = gpu.memory_gb * count
    model = next((kb.models[m.id] for m in query.models if m.id in kb.models and kb.models[m.id].kind == "llm"), None)
    # a model known by its size alone ("70b") has its parameters too
    params_b = model.params_total_b if model is not None else next(
        (m.params_total_b for m in query.models if m.generic and m.params_total_b), None)
    out: list[Note] = []
    stated = bool(query.precisions) or any(m.precision for m in query.models)
    if params_b and not stated:  # a format the user named is the one loaded: no 16/32-bit reading of it
        half, full = params_b * _HALF_BYTES, params_b * _FULL_BYTES
        if half > memory:
            out.append(note("cause_offload", weights_gb=half, memory_gb=memory, gpu_count=count, gpu_name=gpu.name))
        if query.engine in (None, "hf"):  # (an fp32 load is a transformers default; serving engines load 16-bit)
            out.append(note("cause_fp32", fp32_gb=full, half_gb=half, spills=full > memory, memory_gb=memory))
    cc = float(gpu.compute_capability) if gpu.compute_capability else None
    if cc is not None and cc < _BF16_CC:
        out.append(note("cause_no_bf16", gpu_name=gpu.name, cc=gpu.compute_capability))
    if gpu.dense_tflops.fp16 is None and gpu.dense_tflops.bf16 is None:
        out.append(note("cause_no_fp16", gpu_name=gpu.name))
    if query.engine and query.engine != "hf":
        # the user runs a serving engine already: what slows one down, not "use an engine"
        if count > 1 and not gpu.nvlink_gb_s:
            out.append(note("cause_tp_pcie", gpu_count=count, gpu_name=gpu.name))
        out.append(note("cause_engine_settings", engine=query.engine))
    else:
        out.append(note("cause_engine"))
    return out
