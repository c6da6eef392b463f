"""The user's own figures beside the estimate: "I get only 10 tokens/s", "3 times slower than the A10", "40s per image".

A figure the user saw (:class:`bot.parsing.query.Observation`) is never a target; the answer sets the estimate for
the configuration it describes beside it, so "is that normal?" gets the number that decides it. Figures someone else
published (``quoted``) are not set beside anything here: a claim has its own verdict (:mod:`bot.advice.specs`).
"""

from __future__ import annotations

from bot.advice.answer import Answer, Option
from bot.advice.options import config
from bot.errors import AdvisorError
from bot.estimation import efficiency_for, weight_bytes
from bot.estimation.offload import offload_paths
from bot.kb.loader import KnowledgeBase
from bot.notes import Note, note
from bot.parsing.query import Query

__all__ = ["ABOVE_SHARE", "BELOW_SHARE", "image_time_note", "likely_causes", "observation_notes", "offload_notes"]

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
        if o.kind == "tokens_per_s" and kb is not None and own is not None and \
                (seen := offload_notes(kb, query, own, o.value, held=opt is not None)):
            # "70B q4 on one 3090 gets 2 tok/s, expected?", "I offload half of it to RAM": layers in system RAM are
            # read every token, so the bandwidth of RAM or PCIe bounds the speed
            out.extend(seen)
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


def offload_notes(kb: KnowledgeBase, query: Query, own: Option, observed_tps: float | None, *, held: bool = False
                  ) -> list[Note]:
    """A speed seen with part of the model in system RAM, set beside the bandwidth bound of that split.

    The part offloaded is the user's (``Query.offload_gb``, else ``Query.offload_share`` of the weights), else, when
    the user's setup does not hold the model, what does not fit (the memory it needs minus the usable memory).
    Each token reads the rest on the GPU at its memory bandwidth and the offloaded part from system RAM (the CPU
    computes those layers: llama.cpp, Ollama) or over PCIe (the engine copies them to the GPU: vLLM, accelerate), as
    the engine named does; a mixture of experts reads only its active share of each part (``params_active_b /
    params_total_b``) (``knowledge/engines.yaml`` ``offload_runs_on``; both with none named):
    :func:`bot.estimation.offload.offload_paths`. The expected range is ``[BELOW_SHARE x`` the slowest way's typical
    speed (its link at the bandwidth a decode reaches), the fastest way's bound``]``; above the bound is faster than
    that split can go.

    Args:
        kb: the knowledge base (the GPU, the engines, efficiency.yaml ``host_links``).
        query: the request (the offload stated, the engine, the system memory named).
        own: the user's own setup (GPU, count, precision, weights and memory need).
        observed_tps: the tokens/s the user sees; ``None`` when the speed is asked, not seen ("half the layers in
            RAM, what tok/s?"): the first note is then ``offload_expected``, the range that split allows.
        held: the answer has a setup as asked that holds the model (then only a stated offload counts).

    Returns:
        ``observed_offload`` (``verdict`` ``expected``, ``slow`` or ``impossible`` = faster than the bound allows,
        with ``low_tps``/``high_tps``) then ``offload_bound`` (the arithmetic of each way), then the likely causes
        of a verdict off the range (``offload_slow_causes``, ``offload_fast_causes``); empty when nothing is offloaded
        or the figures are missing.
    """
    gpu = kb.gpus.get((own.gpu or "").split("@")[0])
    if gpu is None or not own.weights_gb or not gpu.memory_bandwidth_gb_s:
        return []
    count = own.gpu_count or 1
    memory = (own.usable_gb or gpu.memory_gb) * count  # (what the engine can use, GB)
    stated = query.offload_gb or (query.offload_share * own.weights_gb if query.offload_share else None)
    if stated is None and (held or own.fits or not own.memory_total_gb):
        return []
    spill = max(0.0, (own.memory_total_gb or 0.0) - memory)
    eff = efficiency_for(kb)
    precision, weights = own.precision, own.weights_gb
    named = bool(query.precisions) or any(m.precision for m in query.models)
    if stated is not None and not named and precision:
        precision, weights = _format_of_split(kb, eff, gpu, query, own.precision, own.weights_gb, memory)
        if query.offload_share and not query.offload_gb:
            stated = query.offload_share * weights
    offloaded = min(weights, stated) if stated else min(weights, spill)
    if offloaded <= 0:
        return []
    on_gpu = weights - offloaded
    # a mixture of experts reads only its active parameters each token (their share of each part, the experts spread
    # evenly over the layers): Mixtral 8x7B reads 12.9 of 46.7 B
    model = kb.models.get(own.model or "") or next(
        (kb.models[m.id] for m in query.models if m.id in kb.models), None)
    active = next((m.params_active_b / m.params_total_b for m in query.models
                   if m.generic and m.params_active_b and m.params_total_b), None)
    if model is not None and model.params_active_b and model.params_total_b:
        active = model.params_active_b / model.params_total_b
    read = min(1.0, active or 1.0)
    runs_on = None
    if query.engine:
        try:
            key, _ = eff.engine(query.engine)
        except AdvisorError:
            key = None
        runs_on = kb.engines[key].offload_runs_on if key in kb.engines else None
    paths = offload_paths(eff, gpu, on_gpu * read, offloaded * read, gpu_count=count, runs_on=runs_on,
                          host_memory=query.host_memory)
    if not paths:
        return []
    low, high = BELOW_SHARE * min(p.typical_tps for p in paths), paths[-1].bound_tps
    gpu_bw = gpu.memory_bandwidth_gb_s * count
    gpu_read, offload_read = on_gpu * read, offloaded * read
    if observed_tps is None:
        # asked, not seen: the range that split allows leads (the slowest way's typical speed to the fastest way's bound)
        verdict = None
        first = note("offload_expected", config=config(own, with_precision=False), precision=precision,
                     weights_gb=weights, offload_gb=offloaded, spilled=stated is None, need_gb=own.memory_total_gb,
                     memory_gb=memory, high_tps=high,
                     # one figure when the ways agree to within 5% ("about 0.4", not "0.4-0.4")
                     low_tps=None if min(p.typical_tps for p in paths) > 0.95 * high else min(
                         p.typical_tps for p in paths))
    else:
        verdict = "impossible" if observed_tps > high else "slow" if observed_tps < low else "expected"
        first = None
    out = [first or note("observed_offload", observed_tps=observed_tps, config=config(own, with_precision=False),
                precision=precision, weights_gb=weights, offload_gb=offloaded, gpu_gb=on_gpu,
                spilled=stated is None, need_gb=own.memory_total_gb, memory_gb=memory, spill_gb=spill,
                low_tps=low, high_tps=high, verdict=verdict, expected=verdict == "expected", slow=verdict == "slow",
                impossible=verdict == "impossible"),
           note("offload_bound", gpu_gb=gpu_read, gpu_bw_gb_s=gpu_bw, gpu_ms=gpu_read / gpu_bw * 1000,
                offload_gb=offload_read, fits_elsewhere=not held, precision=precision,
                active_pct=100 * read if read < 1 else None,
                format_from_split=stated is not None and not named and precision != own.precision,
                memory_gb=memory,
                paths=[{"label": p.link.label, "bandwidth_gb_s": p.link.bandwidth_gb_s, "path_ms": p.offload_s * 1000,
                        "bound_tps": p.bound_tps, "on_cpu": p.runs_on == "cpu", "to_gpu": p.runs_on == "gpu"}
                       for p in paths])]
    if verdict == "slow":
        out.append(note("offload_slow_causes"))
    elif verdict == "impossible":
        out.append(note("offload_fast_causes", offload_gb=offloaded))
    return out


def _format_of_split(kb: KnowledgeBase, eff, gpu, query: Query, planned: str, planned_gb: float, memory_gb: float
                     ) -> tuple[str, float]:
    """The weight format a stated offload implies when the question names none: the first of the policy's formats
    (``serving.precisions_tried``: as released, 8-bit, 4-bit) whose part left on the GPU (the weights less the GB or
    share offloaded) fits its usable memory; someone who offloads half of a 70B to a 24 GB card runs it in 4 bits, of
    a 14B to a 16 GB card in 8. The weights of each format are parameters x its bytes per weight (``efficiency.yaml``
    ``weight_formats``, :func:`bot.estimation.common.weight_bytes`). Returns ``(format, weights GB)``; the planned one when none fits."""
    model = next((kb.models[m.id] for m in query.models if m.id in kb.models), None)
    native = model.native_precision if model is not None and model.native_precision else "bf16"
    try:
        per_weight = eff.weight_format(planned)[1].bytes_per_weight
    except AdvisorError:
        return planned, planned_gb
    names = []
    for p in kb.policy.serving.precisions_tried if kb.policy is not None else ["native", "fp8", "int4"]:
        name = native if p == "native" else p
        if name == "bf16" and not gpu.supports("bf16"):
            name = "fp16"
        if name == "fp8" and not gpu.supports("fp8"):
            name = "int8"
        names.append(name)
    params_b = next((m.params_total_b for m in query.models if m.generic and m.params_total_b), None)
    for name in names:
        try:
            fmt = eff.weight_format(name)[1]
        except AdvisorError:
            continue
        if eff.weight_format(name)[0] == eff.weight_format(planned)[0]:
            gb = planned_gb  # (the planned format: its own figure, embeddings as the planner counted them)
        elif model is not None:
            gb = weight_bytes(model, fmt) / 1e9
        else:
            gb = params_b * fmt.bytes_per_weight if params_b else planned_gb * fmt.bytes_per_weight / per_weight
        left = gb - query.offload_gb if query.offload_gb else gb * (1 - (query.offload_share or 0))
        if 0 < left <= memory_gb:
            return name, gb
    return planned, planned_gb


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
