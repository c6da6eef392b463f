"""Result objects of the sizing engine (pydantic v2). Units are in the field names; GB = 1e9 bytes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.errors import AdvisorError

__all__ = [
    "DecodeBreakdown",
    "EmbeddingEstimate",
    "EstimationError",
    "ImageEstimate",
    "TranscriptionEstimate",
    "FinetuneEstimate",
    "InferenceEstimate",
    "MemoryBreakdown",
    "TrainingEstimate",
    "TrainingMemory",
]


class EstimationError(AdvisorError, ValueError):
    """An estimate was asked with arguments that cannot be honoured (e.g. a TP degree that does not
    divide the attention heads, a non-positive token count)."""


class _Result(BaseModel):
    model_config = ConfigDict(frozen=False, extra="forbid")

    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class MemoryBreakdown(BaseModel):
    """Inference memory of one model replica.

    Attributes:
        weights_gb: one copy of the weights, GB.
        kv_cache_gb: KV cache of all ``batch_size`` sequences at ``context_tokens`` summed over the
            replica's GPUs (includes KV heads replicated when TP > KV heads), GB; ``None`` when the
            model's shape is unknown.
        overhead_gb: CUDA context + engine activation workspace + communication buffers, summed
            over the replica's GPUs, GB.
        total_gb: ``weights_gb + kv_cache_gb + overhead_gb``.
        per_gpu_gb: what one GPU needs, GB (the fit criterion compares this with ``usable_memory_gb``).
        per_gpu_gib: the same in GiB (2^30 bytes), for comparing with nvidia-smi.
        gpu_memory_gb: the GPU's memory as marketed, GB.
        usable_memory_gb: what CUDA reports as total capacity, GB (the fit criterion; binary GiB
            marketing, minus ECC reservation on GDDR datacenter cards).
        kv_cache_bytes_per_token: KV bytes per token over all layers (before sliding-window caps).
        engine_reserved_gb_per_gpu: what the engine pre-allocates regardless of need (vLLM:
            gpu_memory_utilization 0.9 x memory), GB; ``None`` for engines that allocate on demand.
    """

    weights_gb: float
    kv_cache_gb: float | None
    overhead_gb: float
    total_gb: float
    per_gpu_gb: float
    per_gpu_gib: float
    gpu_memory_gb: float
    usable_memory_gb: float | None = None
    kv_cache_bytes_per_token: float | None = None
    engine_reserved_gb_per_gpu: float | None = None


class DecodeBreakdown(BaseModel):
    """Where one decode step's time goes, ms, for one replica at its batch.

    ``weights_ms``/``kv_cache_ms`` split the memory time (bytes / (bandwidth x MBU));
    ``compute_ms`` is the tensor-core time (padded to the instruction tile for small batches);
    the step takes the larger of memory and compute, plus the fixed costs: per-layer kernel
    boundaries, MoE routing, collectives (tensor/expert parallel), pipeline hand-offs and the
    engine's per-step cost. ``total_ms`` is the TPOT.
    """

    weights_ms: float
    kv_cache_ms: float
    compute_ms: float
    layer_overhead_ms: float
    moe_overhead_ms: float
    collectives_ms: float
    pipeline_hops_ms: float
    step_overhead_ms: float
    total_ms: float


class InferenceEstimate(_Result):
    """Serving estimate for one model on one GPU type.

    Speeds are ``None`` for non-LLM models (see :mod:`bot.estimation.non_llm`).
    ``throughput_tokens_per_s`` is aggregate output tokens/s over all ``gpu_count`` GPUs (all
    replicas) in steady state, prefill included; it and ``ttft_s`` are ``None`` when the GPU lacks
    the dense tensor figure they need (``missing_figures`` names it), so GPUs are never compared
    on different bases. ``decode_tokens_per_s_per_sequence`` is then the memory-bound decode rate.

    Layout: ``tensor_parallel`` x ``pipeline_stages`` GPUs per replica, ``replicas`` copies;
    ``expert_parallel`` ranks share the experts of MoE layers inside the TP group;
    ``attention_data_parallel`` puts each rank's own requests through attention (MoE serving).
    ``objective`` is what the layout was chosen for. ``kv_precision_reason`` says why the KV
    dtype is what it is (``requested``, ``checkpoint_quantization`` = the engine keeps the
    quantized checkpoint's KV dtype, ``engine_default`` = the engine's activation dtype).
    ``max_context_tokens`` is the longest sequence whose KV cache fits the engine's KV budget at
    ``batch_size`` sequences, capped at the model's ``max_position_embeddings``;
    ``max_context_tokens_memory`` is the same before that cap (``None`` when only sliding-window layers
    grow, or the shape is unknown), so an answer can say when memory allows more than the model supports.
    ``new_input_tokens`` are the prompt tokens prefilled per request (``input_tokens`` minus
    ``prefix_cached_tokens``); ``request_latency_s`` = TTFT + output x TPOT.
    """

    model: str
    gpu: str
    gpu_count: int
    tensor_parallel: int
    pipeline_stages: int
    replicas: int
    expert_parallel: int = 1
    attention_data_parallel: bool = False
    objective: Literal["latency", "throughput"] | None = None
    interconnect: str | None = None
    engine: str
    precision: str
    requested_precision: str | None
    kv_precision: str | None
    kv_precision_reason: Literal["requested", "checkpoint_quantization", "engine_default"] | None = None
    fits: bool
    memory: MemoryBreakdown
    context_tokens: int
    input_tokens: int
    output_tokens: int
    prefix_cached_tokens: int = 0
    new_input_tokens: int | None = None
    batch_size: int
    max_batch_size: int | None
    max_context_tokens: int | None
    max_context_tokens_memory: int | None = None
    ttft_s: float | None
    tpot_ms: float | None
    decode_tokens_per_s_per_sequence: float | None
    throughput_tokens_per_s: float | None
    request_latency_s: float | None = None
    bound: Literal["memory-bandwidth", "compute"] | None
    mbu: float | None
    mfu: float | None
    decode_breakdown: DecodeBreakdown | None = None
    missing_figures: list[str] = Field(default_factory=list)


class TrainingMemory(BaseModel):
    """Per-GPU training memory, GB: model states (weights, gradients, optimizer) and activations."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    overhead_gb: float
    total_gb: float


class TrainingEstimate(_Result):
    """Pretraining / full-training estimate.

    ``flops`` is 6 x P_active x tokens (x 4/3 with full recompute); ``attention_flops`` is the
    12 x L x d_attn x seq per-token term (PaLM) that MFU also counts; time uses their sum.
    """

    model: str
    gpu: str
    gpu_count: int
    precision: str
    tokens: float
    flops: float
    attention_flops: float
    mfu: float
    goodput: float
    achieved_tflops_per_gpu: float
    gpu_hours: float | None
    wall_clock_hours: float | None
    steady_state_wall_clock_hours: float | None
    memory_per_gpu_gb: float
    memory: TrainingMemory
    fits: bool
    sharding: str
    tensor_parallel: int
    pipeline_stages: int
    seq_len: int
    micro_batch: int
    price_per_gpu_hour_usd: float | None
    cost_usd: float | None
    price_source: str | None = None


class FinetuneEstimate(_Result):
    """Fine-tuning estimate (full, LoRA or QLoRA); ``gpu_hours`` only when ``tokens`` was given."""

    model: str
    gpu: str
    gpu_count: int
    method: Literal["full", "lora", "qlora"]
    precision: str
    seq_len: int
    micro_batch: int
    lora_rank: int | None
    trainable_params: float
    memory_per_gpu_gb: float
    memory: TrainingMemory
    fits: bool
    sharding: str
    tokens: float | None
    flops: float | None
    mfu: float | None
    gpu_hours: float | None
    wall_clock_hours: float | None
    tokens_per_s: float | None = None
    price_per_gpu_hour_usd: float | None
    cost_usd: float | None


class _NonLlmResult(_Result):
    """Fields every non-LLM speed estimate shares. ``gpu_count`` GPUs work in parallel as data-
    parallel copies of the model; ``hours`` is wall clock for the whole job (``None`` when no job
    size was given), ``gpu_hours`` = hours x GPUs, ``cost_usd`` at ``price_per_gpu_hour_usd``
    (the cheapest dated on-demand offer unless given). ``efficiency`` is the fraction of the dense
    peak the compute-bound part runs at; ``missing_figures`` names a GPU figure that is not
    published (then the speeds are ``None``)."""

    model: str
    gpu: str
    gpu_count: int
    engine: str
    precision: str
    efficiency: float | None
    hours: float | None
    gpu_hours: float | None
    price_per_gpu_hour_usd: float | None
    cost_usd: float | None
    price_source: str | None = None
    missing_figures: list[str] = Field(default_factory=list)


class ImageEstimate(_NonLlmResult):
    """Image generation with a diffusion model (Stable Diffusion, SDXL, FLUX).

    ``seconds_per_step`` is one denoising step for a batch of ``batch_size`` images on one GPU
    (``iterations_per_s`` = its inverse, as diffusers reports it); ``seconds_per_image`` is the
    denoising time per image (steps x step / batch, VAE decode and text encoding not included);
    ``images_per_minute`` is over all GPUs.
    """

    width: int
    height: int
    steps: int
    batch_size: int
    flops_per_step: float
    seconds_per_step: float | None
    iterations_per_s: float | None
    seconds_per_image: float | None
    images_per_minute: float | None
    images: int | None


class TranscriptionEstimate(_NonLlmResult):
    """Speech-to-text with a Whisper-class encoder-decoder over ``audio_hours`` of audio.

    ``real_time_factor`` is processing seconds per audio second on one GPU (0.07 = 14x faster than
    real time); ``speed_x_realtime`` its inverse; ``seconds_per_audio_hour`` on one GPU.
    ``batched_speedup``: the engine's published batched-pipeline speed-up applied (bulk jobs), else
    ``None`` (windows decoded ``batch_size`` at a time as modelled).
    """

    audio_hours: float | None
    batch_size: int
    batched_speedup: float | None = None
    beam_size: int
    tokens_per_audio_second: float
    real_time_factor: float | None
    speed_x_realtime: float | None
    seconds_per_audio_hour: float | None


class EmbeddingEstimate(_NonLlmResult):
    """Embedding ``documents`` x ``tokens_per_document`` tokens with an encoder model.

    ``tokens_per_s`` and ``documents_per_s`` are over all GPUs.
    """

    documents: float | None
    tokens_per_document: int
    flops_per_token: float
    tokens_per_s: float | None
    documents_per_s: float | None
