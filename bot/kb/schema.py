"""The knowledge model: pydantic v2 classes for GPUs, models, price offers and benchmarks.

Units live in field names: ``memory_gb`` (GB = 10^9 bytes), ``memory_bandwidth_gb_s`` (GB/s),
``*_tflops`` (10^12 FLOP/s; int8/int4 entries are TOPS), ``price_per_hour_usd`` (USD/hour).
Tensor figures are *dense* (no 2:4 structured sparsity): datasheets headline the sparse
figure, exactly twice the dense one (refdata-notes.md section 1; estimation-notes.md).

Every entry carries ``sources`` and an ``as_of`` date: the date the figures were last
checked against their sources when copied into ``knowledge/``.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    computed_field,
    field_validator,
    model_validator,
)

__all__ = [
    "PRECISIONS",
    "Benchmark",
    "DenseTflops",
    "Engine",
    "Gpu",
    "InstanceType",
    "Model",
    "PriceFile",
    "PriceOffer",
]

#: Numeric formats a GPU may have a tensor (matrix) path for, widest first.
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
Precision = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]

_KEBAB = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")
PositiveFloat = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_id(value: str) -> str:
    if not _KEBAB.match(value):
        raise ValueError(f"id {value!r} must be kebab-case: lowercase letters, digits, '-' or '.'")
    return value


class DenseTflops(_Strict):
    """Dense (no sparsity) tensor/matrix throughput per precision, TFLOPS (TOPS for int8/int4).

    ``fp32`` is the vector (CUDA-core) rate where the hardware has no FP32 matrix path;
    ``bf16``/``fp16`` are the FP32-accumulate rates used by mixed-precision training (GeForce
    cards run these at half their FP16-accumulate rate: refdata-notes.md section 1).
    ``None`` means not published in the sources consulted, or not supported (see
    ``Gpu.unsupported``).
    """

    fp64: PositiveFloat | None = None
    fp32: PositiveFloat | None = None
    tf32: PositiveFloat | None = None
    bf16: PositiveFloat | None = None
    fp16: PositiveFloat | None = None
    fp8: PositiveFloat | None = None
    int8: PositiveFloat | None = None
    int4: PositiveFloat | None = None
    fp4: PositiveFloat | None = None


class Gpu(_Strict):
    """One GPU variant (one form factor and memory size).

    Attributes:
        id: kebab-case with form factor and memory, e.g. ``h100-sxm-80gb``.
        memory_gb: device memory as the vendor markets it, GB. Clouds and nvidia-smi report
            usable MiB (AWS 22888 MiB for a "24 GB" L4), which is not a conflict.
        memory_bandwidth_gb_s: peak DRAM bandwidth, GB/s (decimal).
        dense_tflops: dense tensor rates per precision.
        sparse_tflops: the with-sparsity figures datasheets headline, kept apart.
        fp16_accumulate_tflops: GeForce FP16-accumulate tensor rate, where sourced.
        nvlink_gb_s: total bidirectional NVLink (or Infinity Fabric) bandwidth per GPU, GB/s;
            ``None`` when the card has none (all 40-series GeForce).
        supported_precisions: formats the hardware computes natively (tensor or vector path).
        unsupported: formats with no tensor/matrix path, as the sources state them.
        missing_figures: tensor rates the hardware has but no source consulted publishes,
            with the reason (H100 NVL's per-card figures); estimates needing them say so.
        default_for: generic names for which this variant is assumed (``"H100"`` means the
            SXM 80GB); a match through one of these sets ``variant_assumed``.
        derived: field name to how its value was computed from a sourced figure.
    """

    id: str
    name: str
    vendor: Literal["NVIDIA", "AMD", "Intel"]
    architecture: str
    compute_capability: str | None = Field(default=None, validate_default=True)
    memory_gb: Annotated[float, Field(ge=1, le=1024)]
    memory_type: str | None = None
    memory_bandwidth_gb_s: Annotated[float, Field(ge=50, le=20000)]
    fp64_vector_tflops: PositiveFloat | None = None
    dense_tflops: DenseTflops
    sparse_tflops: dict[str, PositiveFloat] = Field(default_factory=dict)
    fp16_accumulate_tflops: PositiveFloat | None = None
    supported_precisions: list[Precision]
    unsupported: list[str] = Field(default_factory=list)
    missing_figures: dict[str, str] = Field(default_factory=dict)
    nvlink_gb_s: PositiveFloat | None = None
    interconnect: str | None = None
    pcie_gen: PositiveInt | None = None
    tdp_watts: PositiveFloat | None = None
    form_factor: str
    segment: Literal["datacenter", "workstation", "consumer"]
    launch_year: Annotated[int, Field(ge=2010, le=2030)]
    transistors_billion: PositiveFloat | None = None
    aliases: list[str] = Field(default_factory=list)
    default_for: list[str] = Field(default_factory=list)
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
    derived: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    _check_id = field_validator("id")(_check_id)

    @field_validator("compute_capability")
    @classmethod
    def _cc_format(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and info.data.get("vendor") == "NVIDIA":
            raise ValueError("NVIDIA GPUs need a compute_capability")
        if value is not None and not re.fullmatch(r"\d{1,2}\.\d", value):
            raise ValueError(f"compute capability {value!r} must look like '8.0'")
        return value

    @field_validator("dense_tflops")
    @classmethod
    def _dense_plausible(cls, value: DenseTflops) -> DenseTflops:
        for key, tflops in value.model_dump().items():
            if tflops is not None and tflops > 20000:
                raise ValueError(f"dense_tflops.{key} {tflops} is not plausible (> 20000)")
        return value

    @field_validator("sparse_tflops")
    @classmethod
    def _dense_below_sparse(cls, value: dict[str, float], info: ValidationInfo) -> dict[str, float]:
        dense = info.data.get("dense_tflops")
        if dense is None:
            return value
        for key, sparse in value.items():
            d = getattr(dense, "bf16" if key == "bf16_fp16" else key, None)
            if d is not None and d > sparse:
                raise ValueError(f"dense {key} {d} exceeds the with-sparsity figure {sparse}; dense must be <= sparse")
        return value

    @field_validator("supported_precisions")
    @classmethod
    def _dense_needs_support(cls, value: list[str], info: ValidationInfo) -> list[str]:
        dense = info.data.get("dense_tflops")
        for key, tflops in (dense.model_dump().items() if dense else ()):
            if tflops is not None and key not in value and key != "fp64":
                raise ValueError(f"dense_tflops.{key} is given but {key} is not listed")
        return value

    @property
    def cc(self) -> float | None:
        """Compute capability as a float (``8.9``), or ``None`` for non-NVIDIA GPUs."""
        return float(self.compute_capability) if self.compute_capability else None

    def supports(self, precision: str) -> bool:
        """Whether the GPU computes ``precision`` natively (``"fp8"``, ``"bf16"``, ...)."""
        return precision in self.supported_precisions


class Model(_Strict):
    """A model architecture, with field names as in Hugging Face ``config.json``.

    Attributes:
        params_total_b: all parameters, billions (exact where published: Llama 2 70B is
            68.976648192); memory follows this.
        params_active_b: parameters used per token for MoE models, billions; compute and
            decode bandwidth follow this. ``None`` for dense models.
        params_from_config_b: the count summed from the config's weight shapes, billions.
        params_config_gap: why ``params_total_b`` differs from ``params_from_config_b`` by more
            than 2% (a vision tower counted, a tied head stored twice), when it does.
        head_dim: per-head dimension (the config's ``head_dim``, else hidden/heads).
        sliding_window: attention window, tokens, on the layers that use it.
        sliding_window_layers: how many of ``num_hidden_layers`` use the window (Gemma 2:
            half; Gemma 3: 5 of 6); ``None`` when no layer does.
        kv_lora_rank, qk_rope_head_dim: MLA (DeepSeek) compressed KV cache dimensions.
        kv_cache_bytes_per_token_bf16: reference figure from the sources, kept as a
            cross-check for the estimator (not used by it).
        native_precision: the dtype the published weights ship in.
        kind: ``llm`` (decoder LLM) or ``non_llm`` (Whisper, diffusion).
        architecture_gaps: config fields no source confirmed, with the reason; the
            estimator refuses what needs them (the KV cache) and says why.
    """

    id: str
    name: str
    family: str
    kind: Literal["llm", "non_llm"] = "llm"
    hf_repo: str | None = None
    hf_repo_variants: list[str] = Field(default_factory=list)
    params_total_b: Annotated[float, Field(ge=0.01, le=5000)]
    params_active_b: PositiveFloat | None = None
    params_basis: str | None = None
    params_from_config_b: PositiveFloat | None = None
    params_config_gap: str | None = None
    num_hidden_layers: PositiveInt | None = None
    hidden_size: PositiveInt | None = None
    num_attention_heads: PositiveInt | None = None
    num_key_value_heads: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    intermediate_size: PositiveInt | None = None
    moe_intermediate_size: PositiveInt | None = None
    vocab_size: PositiveInt | None = None
    max_position_embeddings: PositiveInt | None = None
    sliding_window: PositiveInt | None = None
    sliding_window_layers: Annotated[int, Field(ge=0)] | None = None
    attention_layout: str | None = None
    num_local_experts: PositiveInt | None = None
    num_experts_per_tok: PositiveInt | None = None
    n_shared_experts: Annotated[int, Field(ge=0)] | None = None
    kv_lora_rank: PositiveInt | None = None
    q_lora_rank: PositiveInt | None = None
    qk_rope_head_dim: PositiveInt | None = None
    qk_nope_head_dim: PositiveInt | None = None
    v_head_dim: PositiveInt | None = None
    tie_word_embeddings: bool | None = None
    native_precision: str | None = None
    kv_cache_bytes_per_token_bf16: PositiveInt | None = None
    typical_fp16_weight_gb: PositiveFloat | None = None
    runtime_memory_hint: str | None = None
    release_date: str | None = None
    license: str | None = None
    aliases: list[str] = Field(default_factory=list)
    default_for: list[str] = Field(default_factory=list)
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
    architecture_gaps: dict[str, str] = Field(default_factory=dict)
    conflicts: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    _check_id = field_validator("id")(_check_id)

    @model_validator(mode="after")
    def _consistent(self) -> Model:
        if self.params_active_b is not None and self.params_active_b > self.params_total_b:
            raise ValueError("params_active_b exceeds params_total_b")
        if self.kind == "llm":
            missing = [
                f
                for f in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                          "vocab_size")
                if getattr(self, f) is None and f not in self.architecture_gaps
            ]
            if missing:
                raise ValueError(f"an LLM needs {', '.join(missing)} (or a reason under architecture_gaps)")
            if (self.num_attention_heads and self.num_key_value_heads
                    and self.num_attention_heads % self.num_key_value_heads):
                raise ValueError("num_attention_heads must be a multiple of num_key_value_heads")
            if self.sliding_window_layers and self.sliding_window_layers > self.num_hidden_layers:
                raise ValueError("sliding_window_layers exceeds num_hidden_layers")
            if self.sliding_window_layers and not self.sliding_window:
                raise ValueError("sliding_window_layers is set but sliding_window is not")
        if (self.params_from_config_b and abs(self.params_from_config_b / self.params_total_b - 1) > 0.02
                and not self.params_config_gap):
            raise ValueError(f"params_total_b {self.params_total_b:g} differs from params_from_config_b "
                             f"{self.params_from_config_b:g} by more than 2%: record why in params_config_gap")
        return self

    @property
    def is_moe(self) -> bool:
        """True for mixture-of-experts models (``params_active_b`` set)."""
        return self.params_active_b is not None

    @property
    def is_mla(self) -> bool:
        """True for Multi-head Latent Attention (DeepSeek-V2/V3/R1)."""
        return self.kv_lora_rank is not None

    @property
    def effective_head_dim(self) -> int | None:
        """``head_dim`` from the config, else ``hidden_size // num_attention_heads``."""
        if self.head_dim:
            return self.head_dim
        if self.hidden_size and self.num_attention_heads:
            return self.hidden_size // self.num_attention_heads
        return None

    @property
    def compute_params_b(self) -> float:
        """Parameters that take part in each token's compute, billions (active for MoE)."""
        return self.params_active_b or self.params_total_b


class PriceOffer(_Strict):
    """One way to rent GPUs: an instance type at one provider under one pricing model.

    Attributes:
        price_per_hour_usd: the whole instance (all ``gpu_count`` GPUs and its host), USD/hour;
            ``None`` when the source lists no price (``unavailable`` says why).
        pricing_model: ``on_demand`` (pay as you go), ``spot`` (interruptible) or
            ``commitment`` (reserved for ``commitment_term``).
        marketplace: the price is one host's asking price (Vast.ai), not a list price.
        condition: a caveat the source attaches (a footnote not captured, a minimum term);
            offers with a condition are never chosen as "cheapest on-demand".
        as_of: the date of the source; ``None`` for undated catalog snapshots (flagged).
        gpu_variant_verified: ``False`` when the source does not state SXM vs PCIe or memory.
    """

    provider: str
    instance_type: str
    gpu: str
    gpu_count: PositiveInt
    price_per_hour_usd: PositiveFloat | None
    pricing_model: Literal["on_demand", "spot", "commitment"] = "on_demand"
    commitment_term: str | None = None
    marketplace: bool = False
    condition: str | None = None
    unavailable: str | None = None
    region: str | None = None
    as_of: date | None
    source: str
    extra_sources: list[str] = Field(default_factory=list)
    gpu_variant_verified: bool = True
    vm_part_usd: PositiveFloat | None = None
    gpu_part_usd: PositiveFloat | None = None
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> PriceOffer:
        if self.price_per_hour_usd is None and not self.unavailable:
            raise ValueError("a null price_per_hour_usd needs 'unavailable' saying why")
        if self.price_per_hour_usd is not None and not 0.01 <= self.price_per_hour_usd / self.gpu_count <= 200:
            raise ValueError(
                f"price per GPU-hour {self.price_per_hour_usd / self.gpu_count:.2f} USD is not plausible (0.01-200)"
            )
        if self.pricing_model == "commitment" and not self.commitment_term:
            raise ValueError("a commitment price needs commitment_term")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_gpu_hour_usd(self) -> float | None:
        """``price_per_hour_usd / gpu_count``, USD per GPU-hour (derived, not stored)."""
        if self.price_per_hour_usd is None:
            return None
        return round(self.price_per_hour_usd / self.gpu_count, 5)


class PriceFile(_Strict):
    """One provider's file in ``knowledge/prices/``."""

    provider: str
    provider_name: str
    aliases: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    offers: list[PriceOffer]

    _check_id = field_validator("provider")(_check_id)

    @model_validator(mode="after")
    def _offers_match(self) -> PriceFile:
        for offer in self.offers:
            if offer.provider != self.provider:
                raise ValueError(f"offer {offer.instance_type!r} names provider {offer.provider!r}")
        return self


class InstanceType(_Strict):
    """A cloud instance type and the GPUs it carries, for instances without a price row."""

    provider: str
    instance_type: str
    gpu: str
    gpu_count: PositiveInt
    source: str
    as_of: date


class Benchmark(_Strict):
    """A published measurement, for calibration and the accuracy report.

    ``model``/``gpu`` are as the source wrote them; ``model_id``/``gpu_id`` resolve them to
    knowledge entries (``model_id`` is ``None`` when the model is not in the knowledge base,
    and ``params_b`` then gives its size; ``gpu_id`` is ``None`` when the GPU is not in it).

    Attributes:
        group: the family of measurement the row belongs to (``moe``, ``long_context``,
            ``latency_layout``, ``consumer_china``, ``non_llm``, ``finetune``; ``None`` for the
            original calibration set); the accuracy report groups rows by it.
        date: publication date of the source (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``), ``None``
            when the source does not state one (``notes`` then says so).
    """

    id: str
    kind: Literal["training", "inference", "memory"]
    group: Literal["moe", "long_context", "latency_layout", "consumer_china", "non_llm", "finetune"] | None = None
    model: str
    model_id: str | None = None
    params_b: PositiveFloat | None = None
    gpu: str
    gpu_id: str | None = None
    gpu_count: PositiveInt | None = None
    precision: str
    framework: str
    conditions: dict[str, object] = Field(default_factory=dict)
    metric: str
    value: PositiveFloat
    unit: str
    source: str
    date: str | None
    notes: str | None = None

    @field_validator("date")
    @classmethod
    def _date_format(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"\d{4}(-\d{2}){0,2}\b", value):
            raise ValueError(f"date {value!r} must start with YYYY, YYYY-MM or YYYY-MM-DD")
        return value


class Engine(_Strict):
    """Documented defaults of a serving engine (``knowledge/engines.yaml``), each with its source.

    These are facts about the engine's behaviour out of the box, not efficiency factors (those
    live in ``knowledge/efficiency.yaml`` under ``engines``, keyed by ``efficiency_class``).

    Attributes:
        id: kebab-case engine id (``vllm``, ``tensorrt-llm``); ``aliases`` are what users type.
        efficiency_class: the ``efficiency.yaml`` engine profile whose MBU/MFU/overheads apply.
        kv_cache_dtype_default: ``model`` = the activation dtype (fp16/bf16) whatever the weights;
            ``checkpoint`` = follows the checkpoint's quantization metadata, so quantized
            checkpoints listed in ``kv_cache_dtype_quantized`` keep that KV dtype.
        kv_cache_dtype_quantized: weight precision -> KV dtype under the ``checkpoint`` rule
            (``{fp8: fp8, nvfp4: fp8}``).
        max_num_seqs: default cap on sequences in flight per replica; ``None`` = memory only.
        max_num_batched_tokens: tokens one forward pass may carry (the chunked-prefill budget);
            ``None`` = no fixed budget (the whole prompt in one pass).
        chunked_prefill: long prompts are split into ``max_num_batched_tokens`` chunks and mixed
            with decode steps by default.
        continuous_batching: requests join and leave the running batch every step.
        prefix_caching: KV of a shared prompt prefix is reused across requests by default.
        cuda_graphs: decode steps are replayed as CUDA graphs (no per-kernel CPU launch).
        memory_utilization: fraction of device memory the engine pre-allocates or may use.
        memory_utilization_of: ``total`` = of the GPU's memory, weights included (vLLM
            gpu_memory_utilization); ``free`` = of what is left after weights and activations
            (TensorRT-LLM kv_cache_free_gpu_mem_fraction), so it sizes only the KV cache.
        multi_gpu_split: how the engine spreads one model over GPUs by default (``tensor`` =
            tensor parallelism, ``layer`` = consecutive layers per GPU, a pipeline).
        fp16_accumulate: fp16 GEMMs may accumulate in fp16, so GeForce cards run them at their
            ``fp16_accumulate_tflops`` rate.
    """

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    efficiency_class: str
    kv_cache_dtype_default: Literal["model", "checkpoint"]
    kv_cache_dtype_quantized: dict[str, str] = Field(default_factory=dict)
    max_num_seqs: PositiveInt | None
    max_num_batched_tokens: PositiveInt | None
    chunked_prefill: bool
    continuous_batching: bool
    prefix_caching: bool
    cuda_graphs: bool
    memory_utilization: Annotated[float, Field(gt=0, le=1)]
    memory_utilization_of: Literal["total", "free"] = "total"
    multi_gpu_split: Literal["tensor", "layer"] = "tensor"
    fp16_accumulate: bool = False
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
    notes: list[str] = Field(default_factory=list)

    _check_id = field_validator("id")(_check_id)

    @model_validator(mode="after")
    def _consistent(self) -> Engine:
        if self.kv_cache_dtype_default == "checkpoint" and not self.kv_cache_dtype_quantized:
            raise ValueError("kv_cache_dtype_default 'checkpoint' needs kv_cache_dtype_quantized")
        if self.chunked_prefill and not self.max_num_batched_tokens:
            raise ValueError("chunked_prefill needs max_num_batched_tokens (the chunk budget)")
        return self
