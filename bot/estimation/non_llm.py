"""Speed and cost of non-LLM workloads: images (diffusion), transcription (Whisper-class), embeddings.

Each estimate is physics scaled by the GPU's published figures (dense tensor peak from
``gpus.yaml``, memory bandwidth) with an efficiency set from published measurements
(``knowledge/efficiency.yaml`` ``non_llm``, each factor stating the benchmark row it comes from):

* images: FLOPs per denoising step = forwards per step (2 with classifier-free guidance) x batch x
  the model's FLOPs per forward at its base resolution, scaled with pixels ((1 - a) x r + a x r^2,
  a = attention share, r = pixels / base pixels); step time = FLOPs / (peak x GEMM efficiency x
  architecture factor) + the runtime's launch cost per denoiser call, and in eager PyTorch at least the
  host's time to issue the call's kernels where measured (``eager_issue_ms``);
* transcription: audio is cut into 30-second windows (openai/whisper ``transcribe``); each window
  costs one encoder pass (2 x 12 d^2 L_enc FLOPs per frame + attention) and the decoder runs one
  step per output token (tokens per audio second from data): max(decoder weights + cross-attention
  KV bytes / (bandwidth x MBU), FLOPs / compute) + the engine's fixed per-step cost, shared by the
  windows decoded together (``batch_size``);
* embeddings: FLOPs per token = 2 x (4 h^2 + 2 h i) x L + attention 4 x L x tokens x h (BERT-style
  encoder), at the GPU's peak x GEMM efficiency x the server's efficiency factor.

Several GPUs are data-parallel copies: throughput scales with their number. Costs use the cheapest
dated on-demand offer (see :func:`bot.estimation.cost.gpu_hour_price`) unless a price is given.
"""

from __future__ import annotations

from bot.estimation.common import dense_peak_tflops, get_gpu, get_model, require_positive, resolve_precision
from bot.estimation.cost import gpu_hour_price
from bot.estimation.efficiency import EfficiencyTable, efficiency_for
from bot.estimation.results import EmbeddingEstimate, EstimationError, ImageEstimate, TranscriptionEstimate
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model

__all__ = ["estimate_embeddings", "estimate_images", "estimate_transcription"]

_SRC = "knowledge/efficiency.yaml non_llm (efficiencies from the published rows of knowledge/benchmarks.yaml group non_llm)"


def _peak(eff: EfficiencyTable, gpu: Gpu, model: Model, precision: str | None, fp16_accumulate: bool
          ) -> tuple[str, float | None, float, list[str], list[str], list[str]]:
    """(precision used, dense peak FLOP/s or None, GEMM efficiency, assumptions, warnings, missing)."""
    prec = resolve_precision(eff, gpu, model, precision)
    assumptions, warnings, missing = list(prec.assumptions), list(prec.warnings), []
    compute = prec.compute
    # A neighbouring precision stands in when this one has no published figure (bf16 <-> fp16; int8 on a card with no
    # integer figure runs at its fp8 or 16-bit rate, as weight-only int8 in diffusers and CTranslate2 does).
    tflops, stand_in = dense_peak_tflops(gpu, compute)
    if tflops and stand_in and compute not in ("bf16", "fp16"):
        assumptions.append(stand_in)
    if not tflops:
        missing.append(f"dense {compute} tensor TFLOPS of {gpu.name}")
        warnings.append(f"no dense {compute} TFLOPS is published for {gpu.name}: speed not estimated")
        return prec.name, None, 0.0, assumptions, warnings, missing
    if fp16_accumulate and compute == "fp16" and gpu.fp16_accumulate_tflops and gpu.fp16_accumulate_tflops > tflops:
        assumptions.append(f"fp16 GEMMs accumulate in fp16: {gpu.name} at {gpu.fp16_accumulate_tflops:g} TFLOPS "
                           f"instead of {tflops:g}")
        tflops = gpu.fp16_accumulate_tflops
    mfu, _ = eff.inference_mfu_for(gpu, compute)
    if gpu.cc is not None and gpu.cc < 8.0:
        mfu *= eff.c("no_flash_attention_prefill_factor")
    return prec.name, tflops * 1e12, mfu, assumptions, warnings, missing


def _cost(kb: KnowledgeBase, gpu: Gpu, count: int, hours: float | None, price: float | None
          ) -> tuple[float | None, float | None, float | None, str | None, list[str]]:
    """(GPU-hours, USD/GPU-hour, cost USD, price source, warnings)."""
    if hours is None:
        return None, None, None, None, []
    p, src, warn = gpu_hour_price(kb, gpu, count, price)
    gpu_hours = hours * count
    return gpu_hours, p, (gpu_hours * p if p is not None else None), src, warn


def estimate_images(
    kb: KnowledgeBase, model_id: str | Model, gpu_id: str | Gpu, count: int = 1, width: int | None = None,
    height: int | None = None, steps: int | None = None, batch_size: int = 1, precision: str | None = None,
    engine: str = "diffusers", images: int | None = None, price_per_gpu_hour: float | None = None,
) -> ImageEstimate:
    """Images per minute (and time and cost for ``images``) for a diffusion model on ``count`` GPUs.

    Args:
        kb: the knowledge base. model_id: a diffusion model with a compute entry in
            ``efficiency.yaml`` (``stable-diffusion-1.5``, ``stable-diffusion-xl-1.0-base``,
            ``flux.1-dev``). gpu_id: a GPU id or :class:`Gpu`.
        count: GPUs, each running its own copy (data parallel).
        width, height: pixels (default: the model's base resolution); steps: denoising steps
            (default: the pipeline's); batch_size: images per denoiser call.
        precision: fp16 (default), bf16, fp8 ...; engine: ``diffusers`` (eager, default) or
            ``diffusers-compiled`` (torch.compile and similar) or an alias.
        images: how many images the job makes (for hours and cost).
        price_per_gpu_hour: USD; default the cheapest dated on-demand offer.

    Returns:
        :class:`ImageEstimate`: seconds per step and per image (denoising only), images per minute
        over all GPUs, hours, GPU-hours and cost when ``images`` is given.

    Raises:
        UnknownEntityError: unknown model, GPU, precision or engine.
        EstimationError: a model with no diffusion compute entry; non-positive sizes.
    """
    for name, value in (("count", count), ("width", width), ("height", height), ("steps", steps),
                        ("batch_size", batch_size), ("images", images)):
        require_positive(name, value)
    eff = efficiency_for(kb)
    model, gpu = get_model(kb, model_id), get_gpu(kb, gpu_id)
    spec = eff.non_llm.diffusion.models.get(model.id)
    if spec is None:
        raise EstimationError(f"no diffusion compute figures for {model.name}; known: "
                              f"{', '.join(eff.non_llm.diffusion.models)}")
    eng_name, eng = eff.non_llm.engine("diffusion", engine)
    arch = eff.non_llm.diffusion.architectures[spec.architecture]
    w, h = width or spec.base_width, height or spec.base_height
    n_steps = steps or spec.default_steps
    prec, peak, mfu, assumptions, warnings, missing = _peak(eff, gpu, model, precision, eng.fp16_accumulate)
    r = (w * h) / (spec.base_width * spec.base_height)
    per_forward = spec.gflops_per_forward * 1e9 * ((1 - spec.attention_fraction) * r + spec.attention_fraction * r * r)
    flops_step = per_forward * spec.forwards_per_step * batch_size
    efficiency = mfu * arch.efficiency_factor if peak else None
    sps = flops_step / (peak * efficiency) + eng.forward_overhead_ms / 1000 if peak else None
    host = "server" if gpu.segment == "datacenter" else "desktop"
    issue_ms = spec.eager_issue_ms.get(host) if (eng.host_issued and spec.eager_issue_ms) else None
    if sps and issue_ms and issue_ms / 1000 > sps:
        # eager PyTorch: the GPU waits for the host to issue the network's kernels (one batched call per step)
        sps = issue_ms / 1000
        assumptions.append(f"eager: the {host} host issues one {model.name} call in {issue_ms:g} ms, longer than "
                           "the GPU needs, so the host sets the step (torch.compile / CUDA graphs remove it)")
    spi = n_steps * sps / batch_size if sps else None
    ipm = 60 / spi * count if spi else None
    hours = images * spi / count / 3600 if (images and spi) else None
    gpu_hours, price, cost, price_src, pwarn = _cost(kb, gpu, count, hours, price_per_gpu_hour)
    assumptions += [
        f"{model.name}: {spec.gflops_per_forward:,.0f} GFLOPs per denoiser pass at {spec.base_width}x{spec.base_height}, "
        f"x{spec.forwards_per_step} per step" + (" (classifier-free guidance)" if spec.forwards_per_step > 1 else "")
        + (f"; scaled to {w}x{h} ({spec.attention_fraction:.0%} of it attention, growing with pixels squared)"
           if r != 1 else ""),
        f"{n_steps} steps, batch {batch_size}; denoising only (text encoding and VAE decode add a few percent)",
        (f"efficiency {efficiency:.2f} of the dense {prec} peak ({peak / 1e12:g} TFLOPS): the generation's GEMM "
         f"efficiency x {arch.efficiency_factor:g} for a {spec.architecture.upper()}; + {eng.forward_overhead_ms:g} ms "
         f"launch cost per denoiser call ({eng_name})" if peak else "no dense peak: speed not estimated"),
        f"{count} GPU(s), each with its own copy of the model",
    ]
    return ImageEstimate(
        model=model.id, gpu=gpu.id, gpu_count=count, engine=eng_name, precision=prec, efficiency=efficiency,
        width=w, height=h, steps=n_steps, batch_size=batch_size, flops_per_step=flops_step, seconds_per_step=sps,
        iterations_per_s=1 / sps if sps else None, seconds_per_image=spi, images_per_minute=ipm, images=images,
        hours=hours, gpu_hours=gpu_hours, price_per_gpu_hour_usd=price, cost_usd=cost, price_source=price_src,
        missing_figures=missing, assumptions=assumptions, warnings=warnings + pwarn,
        sources=[spec.source, arch.source, eng.source, *gpu.sources[:1], _SRC])


def estimate_transcription(
    kb: KnowledgeBase, model_id: str | Model, gpu_id: str | Gpu, audio_hours: float | None = None,
    count: int = 1, precision: str | None = None, engine: str = "faster-whisper", batch_size: int = 1,
    beam_size: int = 5, price_per_gpu_hour: float | None = None, batched: bool | None = None,
) -> TranscriptionEstimate:
    """Real-time factor, hours and cost to transcribe ``audio_hours`` with a Whisper-class model.

    Args:
        kb: the knowledge base. model_id: a speech model with a shape entry in ``efficiency.yaml``
            (``whisper-large-v2``, ``whisper-large-v3``, ``whisper-large-v3-turbo``,
            ``whisper-medium``). gpu_id: a GPU id or :class:`Gpu`.
        audio_hours: hours of audio (for wall clock, GPU-hours and cost); ``None`` = rates only.
        count: GPUs, each transcribing its own share of the files.
        precision: fp16 (default), bf16, int8 ...; engine: ``faster-whisper`` (default),
            ``openai-whisper``, ``transformers``, ``whisper.cpp`` or an alias.
        batch_size: 30-second windows decoded together (faster-whisper BatchedInferencePipeline,
            transformers pipelines); beam_size: beams per window (5 is the default of
            faster-whisper and of openai/whisper's CLI).
        price_per_gpu_hour: USD; default the cheapest dated on-demand offer.
        batched: run the engine's published batched pipeline, when it has one
            (``SpeechEngine.batched_batch_size``/``batched_speedup``): the real-time factor is the
            unbatched one (``batch_size`` 1) divided by the published speed-up, and ``batch_size``
            becomes the published one. ``None`` (default) = a bulk job: batched when ``audio_hours``
            is given, ``batch_size`` is 1 and the audio fills at least one batch of windows
            (batched_batch_size x ``window_seconds``: 8 x 30 s = 4 minutes for faster-whisper); a
            rate question (no hours) stays unbatched, the single-file latency case. ``False`` never.

    Returns:
        :class:`TranscriptionEstimate`: real-time factor per GPU, seconds per audio hour, wall
        clock, GPU-hours and cost.

    Raises:
        UnknownEntityError: unknown model, GPU, precision or engine.
        EstimationError: a model with no speech shape entry; non-positive sizes.
    """
    for name, value in (("audio_hours", audio_hours), ("count", count), ("batch_size", batch_size),
                        ("beam_size", beam_size)):
        require_positive(name, value)
    eff = efficiency_for(kb)
    model, gpu = get_model(kb, model_id), get_gpu(kb, gpu_id)
    sp = eff.non_llm.speech
    shape = sp.models.get(model.id)
    if shape is None:
        raise EstimationError(f"no speech-model shape for {model.name}; known: {', '.join(sp.models)}")
    eng_name, eng = eff.non_llm.engine("speech", engine)
    speedup = 1.0
    if batched is None:
        batched = bool(audio_hours and batch_size == 1 and eng.batched_batch_size
                       and audio_hours * 3600 >= eng.batched_batch_size * sp.window_seconds)
    if batched and eng.batched_batch_size and eng.batched_speedup:
        batch_size, speedup = 1, eng.batched_speedup
    prec, peak, mfu, assumptions, warnings, missing = _peak(eff, gpu, model, precision, False)
    bpw = eff.weight_format(prec)[1].bytes_per_weight
    d, f = shape.d_model, shape.encoder_frames
    enc_flops = 2 * 12 * d * d * shape.encoder_layers * f + 4 * shape.encoder_layers * f * f * d
    dec_params = 16 * d * d * shape.decoder_layers + shape.vocab_size * d
    streams = batch_size * beam_size
    dec_bytes = dec_params * bpw + batch_size * shape.decoder_layers * f * d * 2 * 2  # + cross-attention K/V (fp16)
    dec_flops = 2 * dec_params * streams + 4 * shape.decoder_layers * f * d * streams
    efficiency = mfu * eng.efficiency_factor if peak else None
    rtf = sps_hour = None
    if peak:
        rate = peak * efficiency
        bw = gpu.memory_bandwidth_gb_s * 1e9 * eng.decode_mbu
        step = max(dec_bytes / bw, dec_flops / rate) + eng.step_overhead_ms / 1000
        per_audio_s = (enc_flops / rate / sp.window_seconds + sp.tokens_per_audio_second * step / batch_size) / speedup
        rtf = per_audio_s
        sps_hour = per_audio_s * 3600
    hours = audio_hours * sps_hour / count / 3600 if (audio_hours and sps_hour) else None
    gpu_hours, price, cost, price_src, pwarn = _cost(kb, gpu, count, hours, price_per_gpu_hour)
    assumptions += [
        f"{model.name}: {shape.encoder_layers} encoder + {shape.decoder_layers} decoder layers, d_model {d}: "
        f"{enc_flops / 1e12:.2f} TFLOPs per {sp.window_seconds:g}-s window to encode, {dec_bytes / 1e9:.2f} GB read per "
        "decoder step",
        f"{sp.tokens_per_audio_second:g} output tokens per audio second ({sp.tokens_source})",
        (f"beam {beam_size}, batched pipeline ({eng.batched_batch_size} windows together): the unbatched time / "
         f"{speedup:g}, the speed-up {eng_name} publishes" if speedup > 1 else
         f"beam {beam_size}, {batch_size} window(s) decoded together; {eng.step_overhead_ms:g} ms fixed per decoder "
         f"step ({eng_name})"),
        (f"encoder at {efficiency:.2f} of the dense {prec} peak ({peak / 1e12:g} TFLOPS); decoder reads at "
         f"{eng.decode_mbu:.2f} of {gpu.memory_bandwidth_gb_s:g} GB/s" if peak else "no dense peak: speed not estimated"),
        f"{count} GPU(s), each transcribing its own files",
    ]
    return TranscriptionEstimate(
        model=model.id, gpu=gpu.id, gpu_count=count, engine=eng_name, precision=prec, efficiency=efficiency,
        audio_hours=audio_hours, batch_size=eng.batched_batch_size if speedup > 1 else batch_size,
        batched_speedup=speedup if speedup > 1 else None, beam_size=beam_size,
        tokens_per_audio_second=sp.tokens_per_audio_second, real_time_factor=rtf,
        speed_x_realtime=1 / rtf if rtf else None, seconds_per_audio_hour=sps_hour, hours=hours, gpu_hours=gpu_hours,
        price_per_gpu_hour_usd=price, cost_usd=cost, price_source=price_src, missing_figures=missing,
        assumptions=assumptions, warnings=warnings + pwarn, sources=[shape.source, eng.source, *gpu.sources[:1], _SRC])


def estimate_embeddings(
    kb: KnowledgeBase, model_id: str | Model, gpu_id: str | Gpu, documents: float | None = None,
    tokens_per_document: int = 512, count: int = 1, precision: str | None = None, engine: str = "tei",
    price_per_gpu_hour: float | None = None,
) -> EmbeddingEstimate:
    """Tokens per second, hours and cost to embed ``documents`` with an encoder embedding model.

    Args:
        kb: the knowledge base. model_id: an embedding model with its shape in ``models.yaml``
            (``bge-large-en-v1.5``, ``bge-m3``, ``e5-large-v2``). gpu_id: a GPU id or :class:`Gpu`.
        documents: how many documents (for hours and cost); ``None`` = rates only.
        tokens_per_document: tokens each document has (cut at the model's maximum; longer
            documents are usually chunked, which this does not model).
        count: GPUs, each running its own server copy.
        precision: fp16 (default), bf16 ...; engine: ``tei`` (text-embeddings-inference,
            default), ``infinity``, ``sentence-transformers`` or an alias.
        price_per_gpu_hour: USD; default the cheapest dated on-demand offer.

    Returns:
        :class:`EmbeddingEstimate`: tokens and documents per second over all GPUs, hours,
        GPU-hours and cost.

    Raises:
        UnknownEntityError: unknown model, GPU, precision or engine.
        EstimationError: a model without layers/hidden size; non-positive sizes.
    """
    for name, value in (("documents", documents), ("tokens_per_document", tokens_per_document), ("count", count)):
        require_positive(name, value)
    eff = efficiency_for(kb)
    model, gpu = get_model(kb, model_id), get_gpu(kb, gpu_id)
    if not (model.num_hidden_layers and model.hidden_size):
        raise EstimationError(f"{model.name} has no layer count and hidden size to price its FLOPs")
    eng_name, eng = eff.non_llm.engine("embedding", engine)
    prec, peak, mfu, assumptions, warnings, missing = _peak(eff, gpu, model, precision, False)
    layers, h = model.num_hidden_layers, model.hidden_size
    inter = model.intermediate_size or 4 * h
    seq = min(tokens_per_document, model.max_position_embeddings or tokens_per_document)
    if seq < tokens_per_document:
        warnings.append(f"{tokens_per_document} tokens per document exceed {model.name}'s {seq}-token window: only the "
                        f"first {seq} are embedded (chunk longer documents)")
    flops_token = 2 * (4 * h * h + 2 * h * inter) * layers + 4 * layers * seq * h
    efficiency = mfu * eng.efficiency_factor if peak else None
    tok_s = peak * efficiency / flops_token * count if peak else None
    docs_s = tok_s / seq if tok_s else None
    hours = documents / docs_s / 3600 if (documents and docs_s) else None
    gpu_hours, price, cost, price_src, pwarn = _cost(kb, gpu, count, hours, price_per_gpu_hour)
    assumptions += [
        f"{model.name}: {flops_token / 1e9:.2f} GFLOPs per token (2 x (4h^2 + 2h x intermediate) x {layers} layers + "
        f"attention over {seq} tokens)",
        (f"efficiency {efficiency:.2f} of the dense {prec} peak ({peak / 1e12:g} TFLOPS): the generation's GEMM "
         f"efficiency x {eng.efficiency_factor:g} for {eng_name}" if peak else "no dense peak: speed not estimated"),
        f"{count} GPU(s), each with its own server",
    ]
    return EmbeddingEstimate(
        model=model.id, gpu=gpu.id, gpu_count=count, engine=eng_name, precision=prec, efficiency=efficiency,
        documents=documents, tokens_per_document=seq, flops_per_token=flops_token, tokens_per_s=tok_s,
        documents_per_s=docs_s, hours=hours, gpu_hours=gpu_hours, price_per_gpu_hour_usd=price, cost_usd=cost,
        price_source=price_src, missing_figures=missing, assumptions=assumptions, warnings=warnings + pwarn,
        sources=[eng.source, *model.sources[:1], *gpu.sources[:1], _SRC])
