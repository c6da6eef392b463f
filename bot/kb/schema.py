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
    "PLACEHOLDER",
    "PRECISIONS",
    "VENDORS",
    "Article",
    "Benchmark",
    "Bilingual",
    "Claim",
    "ClaimConstant",
    "ClaimFile",
    "ClosedModel",
    "Cues",
    "CatalogGpuInstanceRule",
    "CatalogGpuName",
    "CatalogNames",
    "CatalogNotMapped",
    "CatalogProvider",
    "DenseTflops",
    "Engine",
    "ExchangeRate",
    "ExchangeRateFile",
    "Gpu",
    "GpuTruth",
    "InstanceShape",
    "InstanceType",
    "ListPrice",
    "Model",
    "Feature",
    "Market",
    "MarketRule",
    "ModelFamily",
    "Operand",
    "PeerLink",
    "Policy",
    "PriceFile",
    "PriceMention",
    "PriceMentionFile",
    "PriceOffer",
    "PriceStandIn",
    "Ratio",
    "Software",
    "UnlistedGpu",
    "Verdict",
    "gpu_field_unit",
]

#: Numeric formats a GPU may have a tensor (matrix) path for, widest first.
PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
Precision = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]

#: Accelerator vendors in the knowledge base. ``compute_capability`` (a CUDA notion) is NVIDIA-only.
VENDORS = ("NVIDIA", "AMD", "Intel", "Huawei", "Hygon", "Cambricon", "Kunlunxin", "Moore Threads", "Biren")
Vendor = Literal["NVIDIA", "AMD", "Intel", "Huawei", "Hygon", "Cambricon", "Kunlunxin", "Moore Threads", "Biren"]

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


class PeerLink(_Strict):
    """A vendor GPU-to-GPU link other than NVLink (HCCS, MLU-Link, MTLink, BLink).

    NVLink stays in :attr:`Gpu.nvlink_gb_s`; this records the other vendors' links with their own
    names so an answer never calls them NVLink.

    Attributes:
        name: the vendor's name for the link (``"HCCS"``).
        gb_s: total bandwidth per device as the source states it, GB/s.
        topology: how devices are joined (``"8-card full mesh in a node"``), when stated.
    """

    name: str
    gb_s: PositiveFloat | None = None
    topology: str | None = None


class Software(_Strict):
    """What the common software stacks support on an accelerator, as their documentation states.

    Attributes:
        toolkit: the vendor's compute stack (``"CUDA"``, ``"CANN"``, ``"DTK"``, ``"NeuWare"``, ``"MUSA"``).
        cuda_compatible: ``native`` (NVIDIA CUDA), ``vendor_claimed`` (the vendor says CUDA code runs;
            not independently confirmed), ``no`` (code must be ported to another stack) or
            ``not_stated``.
        serving: inference engines that document support (``vllm-ascend``, ``mindie``, ``sglang``).
        training: training stacks that document support (``torch_npu``).
        fp8_in_common_stacks: ``supported``, ``not_supported`` (the stacks' docs say no, or list other
            formats only) or ``not_stated``.
        quantization: weight/activation formats the stacks document (``w8a8``, ``w4a16``...).
        limits: documented limits an answer must mention (eager mode only, FP16 only...).
        sources: where each statement comes from.
    """

    toolkit: str
    cuda_compatible: Literal["native", "vendor_claimed", "no", "not_stated"]
    serving: list[str] = Field(default_factory=list)
    training: list[str] = Field(default_factory=list)
    fp8_in_common_stacks: Literal["supported", "not_supported", "not_stated"]
    quantization: list[str] = Field(default_factory=list)
    limits: list[str] = Field(default_factory=list)
    sources: Annotated[list[str], Field(min_length=1)]


class ListPrice(_Strict):
    """What buying one card costs, from a public source: the vendor's launch list price (MSRP) or a dated street
    price. Used for buy vs rent when the user gives no purchase price, labelled as an assumption.

    Attributes:
        amount: the price of one card in ``currency`` (whole card, without tax or a host machine).
        currency: ``usd`` or ``cny``, as published.
        kind: ``launch_msrp`` (the vendor's announced price) or ``street`` (a retailer's listing).
        as_of: the date of the announcement or listing.
        source: where the figure is published.
    """

    amount: PositiveFloat
    currency: Literal["usd", "cny"]
    kind: Literal["launch_msrp", "street"]
    as_of: date
    source: Annotated[str, Field(min_length=10)]


class Gpu(_Strict):
    """One GPU or accelerator variant (one form factor and memory size).

    Attributes:
        id: kebab-case with form factor and memory, e.g. ``h100-sxm-80gb``.
        vendor: who designs the chip (for a modified board: the chip's vendor; see ``aftermarket_of``).
        compute_capability: CUDA compute capability; required for NVIDIA, forbidden for others.
        memory_gb: device memory as the vendor markets it, GB. Clouds and nvidia-smi report
            usable MiB (AWS 22888 MiB for a "24 GB" L4), which is not a conflict.
        memory_bandwidth_gb_s: peak DRAM bandwidth, GB/s (decimal).
        dense_tflops: dense tensor rates per precision.
        sparsity_stated: ``False`` when the sources do not say whether the tensor figures are dense
            or 2:4-sparse (most non-NVIDIA vendors): they are recorded in ``dense_tflops`` as quoted
            (vendor peaks) and are not like-for-like with NVIDIA's dense figures.
        sparse_tflops: the with-sparsity figures datasheets headline, kept apart.
        fp16_accumulate_tflops: GeForce FP16-accumulate tensor rate, where sourced.
        nvlink_gb_s: total bidirectional NVLink (or Infinity Fabric) bandwidth per GPU, GB/s;
            ``None`` when the card has none (all 40-series GeForce).
        peer_link: another vendor's GPU-to-GPU link (HCCS, MLU-Link...), never called NVLink.
        supported_precisions: formats the hardware computes natively (tensor or vector path).
        unsupported: formats with no tensor/matrix path, as the sources state them.
        missing_figures: tensor rates the hardware has but no source consulted publishes,
            with the reason (H800's FP8); estimates needing them say so.
        devices_per_package: devices software sees per package (MI250X: 2 GCDs; Ascend 910C: 2
            dies); memory and bandwidth are per package, so a job sized per device uses a share.
        aftermarket_of: for a board modified by a third party (the Chinese 48 GB RTX 4090), the id
            of the vendor SKU its chip comes from; the vendor does not sell or support it.
        family: the product line this variant belongs to (``a100`` for the A100 SXM4/PCIe 40/80 GB): the
            same chip and tensor rates in another memory size or form factor. A provider that does not rent
            the variant asked is priced on the nearest variant of the family it rents, labelled.
        software: documented support in common stacks (serving engines, FP8, CUDA compatibility).
        default_for: generic names for which this variant is assumed (``"H100"`` means the
            SXM 80GB); a match through one of these sets ``variant_assumed``.
        derived: field name to how its value was computed from a sourced figure.
        list_price: what one card costs to buy, with its source and date (consumer and workstation cards
            with a published list price), for buy vs rent when the user gives none.
    """

    id: str
    name: str
    vendor: Vendor
    architecture: str
    compute_capability: str | None = Field(default=None, validate_default=True)
    memory_gb: Annotated[float, Field(ge=1, le=1024)]
    memory_type: str | None = None
    memory_bandwidth_gb_s: Annotated[float, Field(ge=50, le=20000)]
    fp64_vector_tflops: PositiveFloat | None = None
    dense_tflops: DenseTflops
    sparsity_stated: bool = True
    sparse_tflops: dict[str, PositiveFloat] = Field(default_factory=dict)
    fp16_accumulate_tflops: PositiveFloat | None = None
    supported_precisions: list[Precision]
    unsupported: list[str] = Field(default_factory=list)
    missing_figures: dict[str, str] = Field(default_factory=dict)
    nvlink_gb_s: PositiveFloat | None = None
    peer_link: PeerLink | None = None
    interconnect: str | None = None
    pcie_gen: PositiveInt | None = None
    tdp_watts: PositiveFloat | None = None
    form_factor: str
    segment: Literal["datacenter", "workstation", "consumer"]
    launch_year: Annotated[int, Field(ge=2010, le=2030)] | None = None
    transistors_billion: PositiveFloat | None = None
    devices_per_package: PositiveInt = 1
    aftermarket_of: str | None = None
    family: str | None = None
    software: Software | None = None
    aliases: list[str] = Field(default_factory=list)
    default_for: list[str] = Field(default_factory=list)
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
    derived: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    list_price: ListPrice | None = None

    _check_id = field_validator("id")(_check_id)

    @field_validator("compute_capability")
    @classmethod
    def _cc_format(cls, value: str | None, info: ValidationInfo) -> str | None:
        vendor = info.data.get("vendor")
        if value is None and vendor == "NVIDIA":
            raise ValueError("NVIDIA GPUs need a compute_capability")
        if value is not None and vendor is not None and vendor != "NVIDIA":
            raise ValueError(f"compute_capability is a CUDA notion; a {vendor} accelerator has none")
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

    @model_validator(mode="after")
    def _figures_consistent(self) -> Gpu:
        dense = self.dense_tflops.model_dump()
        for key in self.missing_figures:
            if key not in PRECISIONS:
                raise ValueError(f"missing_figures key {key!r} is not a precision ({', '.join(PRECISIONS)})")
            if dense.get(key) is not None:
                raise ValueError(f"dense_tflops.{key} is given, so it cannot also be listed in missing_figures")
        both = set(self.unsupported) & set(self.supported_precisions)
        if both:
            raise ValueError(f"{', '.join(sorted(both))} listed as both supported and unsupported")
        if self.aftermarket_of == self.id:
            raise ValueError("aftermarket_of names the entry itself")
        return self

    @property
    def cc(self) -> float | None:
        """Compute capability as a float (``8.9``), or ``None`` for non-NVIDIA accelerators."""
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


class Sourced(_Strict):
    """A policy number and why it is what it is."""

    value: float
    source: Annotated[str, Field(min_length=10)]


class ServingPolicy(_Strict):
    """Serving defaults: per-user speed, GPUs considered (``candidate_gpus_zh`` for questions in Chinese),
    the largest GPU count sized, the precisions tried (``native`` = the model's released dtype)."""

    min_tokens_per_s_per_user: Sourced
    candidate_gpus: list[str]
    candidate_gpus_zh: list[str] = Field(default_factory=list)
    max_gpus: Sourced
    precisions_tried: list[str]
    shown_options: PositiveInt = 5
    #: requests (chat turns) a daily active user sends a day, for "5k DAU" questions that do not say
    requests_per_daily_user: Sourced | None = None
    #: the busiest hour's request rate over the day's average (a factor > 1), for "5k DAU" questions that do not say
    peak_to_average: Sourced | None = None
    #: the largest fraction of GPU memory an engine can be told to use (a fit above the default reserve needs it)
    max_memory_utilization: Sourced | None = None


class TrainingPolicy(_Strict):
    """Training defaults: the longest run sized, tokens per parameter, GPU counts and GPUs tried.

    Attributes:
        target_days: a run slower than this on the GPUs asked is also sized to finish in it, days.
        budget_target_days: a run with a money budget and no deadline is sized to finish within this many days
            when the budget pays for it (GPU-hours barely change with the count), days.
    """

    target_days: Sourced
    budget_target_days: Sourced
    chinchilla_tokens_per_param: Sourced
    counts: list[PositiveInt]
    candidate_gpus: list[str]
    candidate_gpus_zh: list[str] = Field(default_factory=list)


class FinetunePolicy(_Strict):
    """Fine-tuning defaults: tokens when none are given, GPU counts and GPUs tried."""

    default_tokens: Sourced
    default_tokens_per_example: Sourced
    counts: list[PositiveInt]
    candidate_gpus: list[str]
    candidate_gpus_zh: list[str] = Field(default_factory=list)


class NonLlmPolicy(_Strict):
    """GPUs tried for image generation, transcription and embeddings when the question names none;
    ``image_batch_max``: the largest batch of images per denoiser call a throughput is stated at (the largest the
    memory holds up to it); ``default_models``: the model of each kind of work sized when none is named."""

    candidate_gpus: list[str]
    candidate_gpus_zh: list[str] = Field(default_factory=list)
    image_batch_max: Sourced
    #: the model sized when the question names a kind of work (embeddings, transcription, image generation) but no
    #: model ("an embedding API at 300 requests/s"), said as an assumption; ``default_models_source`` says why each
    default_models: dict[Literal["images", "transcription", "embeddings"], str] = Field(default_factory=dict)
    default_models_source: str | None = None


class LimitsPolicy(_Strict):
    """Hardware shapes the planner does not propose: ``consumer_group_max_gpus`` caps the GPUs of one
    tensor-parallel, pipeline or sharded (ZeRO/FSDP) job on consumer cards (no NVLink, no InfiniBand);
    ``gpus_per_machine`` is the step multi-machine training runs are sized in (whole 8-GPU nodes)."""

    consumer_group_max_gpus: Sourced
    gpus_per_machine: Sourced


class QuotePolicy(_Strict):
    """Quote defaults: hours priced when none are given, hours in a month."""

    default_hours: Sourced
    month_hours: Sourced


class OfferChoicePolicy(_Strict):
    """How an offer is chosen among those that rent the GPUs needed, the same for every answer (serving, comparisons,
    cost per token, quotes, buy vs rent): ``bot.pricing.offers.OfferRule``.

    Attributes:
        undated_after_dated: an undated catalog snapshot is used only when no dated price rents the count.
        marketplace_after_list: a marketplace host's ask (Vast.ai) is used only when no list price rents the count
            (``False``: it competes on price, and its caveat is said).
        source: why.
    """

    undated_after_dated: bool
    marketplace_after_list: bool
    source: Annotated[str, Field(min_length=10)]


class MemoryPolicy(_Strict):
    """Memory headroom: above ``tight_fraction`` of usable memory a fit is flagged as tight."""

    tight_fraction: Sourced


class BreakEvenPolicy(_Strict):
    """Buy-vs-rent defaults: electricity price, PUE, host power per machine (CPUs, memory, NICs, fans: W for a
    server of data-centre GPUs, W for a workstation of consumer or workstation cards), colocation price,
    utilisation, lifetime; for a desktop or workstation (up to ``desk_max_cards`` consumer or workstation cards,
    run at home or in an office): the home electricity price and no colocation or facility cooling; the continuous
    load one household circuit carries (``home_circuit_w``), said when a machine at home draws more."""

    electricity_usd_per_kwh: Sourced
    home_electricity_usd_per_kwh: Sourced
    desk_max_cards: Sourced
    home_circuit_w: Sourced
    pue: Sourced
    server_host_power_w: Sourced
    workstation_host_power_w: Sourced
    hosting_usd_per_kw_month: Sourced
    default_utilization_pct: Sourced
    amortization_years: Sourced


class SpecCheckPolicy(_Strict):
    """Checking a spec figure or ratio the user states (``Query.spec_checks``): ``match_tolerance`` is the largest
    relative difference (a fraction) at which a stated figure or ratio matches the knowledge base's."""

    match_tolerance: Sourced


class Policy(_Strict):
    """``knowledge/policy.yaml``: the advice policy (defaults and candidate lists), each with a source."""

    as_of: date
    serving: ServingPolicy
    training: TrainingPolicy
    finetune: FinetunePolicy
    non_llm: NonLlmPolicy
    limits: LimitsPolicy
    quote: QuotePolicy
    offers: OfferChoicePolicy | None = None
    memory: MemoryPolicy
    break_even: BreakEvenPolicy
    spec_check: SpecCheckPolicy

    def gpu_ids(self) -> list[tuple[str, str]]:
        """(section.field, GPU id) for every GPU the policy names, for the loader's cross-check."""
        out = []
        for section in ("serving", "training", "finetune", "non_llm"):
            for name in ("candidate_gpus", "candidate_gpus_zh"):
                out += [(f"{section}.{name}", g) for g in getattr(getattr(self, section), name)]
        return out


class Market(_Strict):
    """A market a GPU may or may not be sold into (``knowledge/markets.yaml`` ``markets``).

    Attributes:
        id: market id (``china_mainland``), as the parser's lexicon (``markets``) names it.
        name / name_zh: display names in English and Chinese.
    """

    id: str
    name: str
    name_zh: str


class MarketRule(_Strict):
    """What a source states about selling some GPUs into a market (``knowledge/markets.yaml`` ``rules``).

    Attributes:
        market: the market id.
        status: ``licence_required`` (a US export licence is needed to ship them there), ``licence_case_by_case``
            (licences granted case by case, with conditions), ``barred`` (under export controls, no sales allowed),
            ``china_market`` (a part made for that market under the rules).
        gpus: the GPU ids the rule covers.
        since: the date the rule took effect, when the source gives it.
        as_of: the date of the fact (a page without a date: the date it was read, said in ``source``).
        source: where it is stated (URL and what it says).
    """

    market: str
    status: Literal["licence_required", "licence_case_by_case", "barred", "china_market"]
    gpus: list[str] = Field(min_length=1)
    since: date | None = None
    as_of: date
    source: Annotated[str, Field(min_length=10)]


class Feature(_Strict):
    """A kernel or hardware feature and what a GPU needs to have it (``knowledge/features.yaml``).

    Attributes:
        id: feature id (``flash_attention_2``), as the parser's lexicon names it.
        name: display name.
        vendors: vendors whose GPUs can have it.
        min_compute_capability / max_compute_capability: the NVIDIA compute capability range supported.
        amd_architectures: AMD architectures (``CDNA3``) with support.
        gpus: GPU ids that have it regardless of the rules above (MIG is listed per product).
        source: where the requirement is stated.
    """

    id: str
    name: str
    vendors: list[str]
    min_compute_capability: float | None = None
    max_compute_capability: float | None = None
    amd_architectures: list[str] = Field(default_factory=list)
    gpus: list[str] = Field(default_factory=list)
    source: Annotated[str, Field(min_length=10)]

    def supported_by(self, gpu: Gpu) -> bool:
        """Whether ``gpu`` has this feature (see the class docstring)."""
        if self.gpus:
            return gpu.id in self.gpus
        if gpu.vendor not in self.vendors:
            return False
        if gpu.vendor == "NVIDIA":
            cc = gpu.cc or 0.0
            return (self.min_compute_capability is None or cc >= self.min_compute_capability) and (
                self.max_compute_capability is None or cc <= self.max_compute_capability)
        if gpu.vendor == "AMD":
            return any(a.lower() in gpu.architecture.lower() for a in self.amd_architectures)
        return True


class ModelFamily(_Strict):
    """Other names users give a model family ("羊驼" for Llama, "ds" for DeepSeek).

    Attributes:
        family: the family word, as the first word of its models' ids (``llama``, ``qwen``).
        aliases: names that stand for the family word in a question.
    """

    family: str
    aliases: list[str] = Field(default_factory=list)


class ClosedModel(_Strict):
    """A model family whose weights are not published (served only through its vendor's API), so it cannot
    run on the user's GPUs; listed under ``closed:`` in models.yaml so a question naming it is answered with
    that fact and with open-weight models offered as labelled alternatives (never a question back).

    Attributes:
        name: display name of the family ("GPT-4 / GPT-4o / o-series").
        vendor: who serves it.
        aliases: names users type, matched as whole words with spaces or hyphens optional ("gpt-4", "claude").
        tail_words: words that may follow a name as part of it ("sonnet", "turbo", "pro"); version numbers
            after a name are part of it too ("claude 3.5 sonnet").
        small_words: tail words that name the vendor's small tier ("mini", "haiku", "flash").
        alternatives: open-weight model ids offered in its place (its size is not published, so they are a
            choice of tier, not an equivalent).
        small_alternatives: open-weight model ids offered for the small tier.
        sources: where it is stated that the weights are not published (API-only).
    """

    name: str
    vendor: str
    aliases: Annotated[list[str], Field(min_length=1)]
    tail_words: list[str] = Field(default_factory=list)
    small_words: list[str] = Field(default_factory=list)
    alternatives: Annotated[list[str], Field(min_length=1)]
    small_alternatives: list[str] = Field(default_factory=list)
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date


class PriceOffer(_Strict):
    """One way to rent GPUs: an instance type at one provider under one pricing model.

    Attributes:
        price_per_hour_usd: the whole instance (all ``gpu_count`` GPUs and its host), USD/hour;
            ``None`` when the source lists no price (``unavailable`` says why). For a price the source
            publishes in CNY this is derived: ``price_per_hour_cny / cny_per_usd`` of the exchange rate
            ``fx_rate`` names (the loader checks the arithmetic).
        pricing_model: ``on_demand`` (pay as you go), ``spot`` (interruptible) or
            ``commitment`` (reserved for ``commitment_term``).
        commitment_term: the term as the source states it (``"1y"``, ``"3 years"``).
        term_months: the commitment term in months (12, 36); required for commitments.
        upfront: what a commitment pays in advance: ``none`` (the hourly rate is all), ``partial`` or
            ``all`` (``price_per_hour_usd`` is then the effective hourly rate: upfront / term hours).
        interruption_frequency: spot only: how often the provider reclaims such instances, as the
            source buckets it (AWS Spot Instance Advisor: ``"<5%"``, ``"5-10%"``, ... ``">20%"`` per month).
        currency: the currency the source publishes the price in (``USD`` or ``CNY``).
        price_per_hour_cny: the whole instance, CNY/hour, as published (``currency: CNY`` only).
        fx_rate: id of the exchange rate (``prices/common/exchange_rates.yaml``) the USD price is derived with.
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
    term_months: PositiveInt | None = None
    upfront: Literal["none", "partial", "all"] | None = None
    interruption_frequency: str | None = None
    currency: Literal["USD", "CNY"] = "USD"
    price_per_hour_cny: PositiveFloat | None = None
    fx_rate: str | None = None
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
        if self.pricing_model == "commitment":
            if not self.commitment_term:
                raise ValueError("a commitment price needs commitment_term")
            if not self.term_months:
                raise ValueError("a commitment price needs term_months (12 for 1 year, 36 for 3 years)")
        elif self.term_months is not None or self.upfront is not None:
            raise ValueError("term_months and upfront belong to commitment prices only")
        if self.interruption_frequency is not None and self.pricing_model != "spot":
            raise ValueError("interruption_frequency belongs to spot prices only")
        if self.currency == "CNY":
            if self.price_per_hour_cny is None or self.fx_rate is None:
                raise ValueError("a CNY price needs price_per_hour_cny (as published) and fx_rate (the rate the USD "
                                 "price is derived with)")
        elif self.price_per_hour_cny is not None or self.fx_rate is not None:
            raise ValueError("price_per_hour_cny and fx_rate belong to prices published in CNY (currency: CNY)")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_gpu_hour_usd(self) -> float | None:
        """``price_per_hour_usd / gpu_count``, USD per GPU-hour (derived, not stored)."""
        if self.price_per_hour_usd is None:
            return None
        return round(self.price_per_hour_usd / self.gpu_count, 5)


class InstanceShape(_Strict):
    """The GPU counts per instance in which one provider rents one GPU (``PriceFile.shapes``).

    Attributes:
        gpu: knowledge-base GPU id.
        gpu_counts: GPUs per instance that can be rented, ascending.
        complete: ``True`` when the source lists every size the provider offers for this GPU (then
            every price row of the provider for this GPU must use one of ``gpu_counts``); ``False``
            when only the sizes read are listed.
        instances: the instance names per size, as the source gives them.
        source: where the sizes come from.
        as_of: the date of the source (``None``: undated).
    """

    gpu: str
    gpu_counts: list[PositiveInt] = Field(min_length=1)
    complete: bool
    instances: list[str] = Field(default_factory=list)
    source: str
    as_of: date | None
    notes: list[str] = Field(default_factory=list)

    @field_validator("gpu_counts")
    @classmethod
    def _ascending(cls, value: list[int]) -> list[int]:
        if value != sorted(set(value)):
            raise ValueError("gpu_counts must be ascending without repeats")
        return value


class PriceFile(_Strict):
    """One provider's file in ``knowledge/prices/``: its offers and the instance sizes it rents.

    ``market``: ``global``, or ``china_mainland`` for clouds that rent only to customers with a mainland-China
    business licence (AWS China's Beijing/Ningxia regions, domestic platforms); answers use those only for
    questions asked in Chinese or naming the provider.

    A provider that is one cloud's separately run regions (AWS China: Beijing and Ningxia) names that cloud in
    ``regional_of``: the cloud's name written with one of ``region_words`` ("AWS 中国区", "aws beijing") or with a
    region of ``regions`` (a code, "cn-north-1", or a name users write for it, "北京") names this provider, and a
    region so named restricts the prices to that region.

    Attributes:
        regional_of: id of the cloud whose separately run regions these are (``aws``), else ``None``.
        region_words: words that, in a question naming ``regional_of``, mean this provider ("中国", "china").
        regions: region code -> the names users write for it (``cn-north-1: [北京, beijing]``); every code must
            be the region of at least one offer.
    """

    provider: str
    provider_name: str
    market: Literal["global", "china_mainland"] = "global"
    aliases: list[str] = Field(default_factory=list)
    regional_of: str | None = None
    region_words: list[str] = Field(default_factory=list)
    regions: dict[str, list[str]] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    offers: list[PriceOffer]
    shapes: list[InstanceShape] = Field(default_factory=list)

    _check_id = field_validator("provider")(_check_id)

    @model_validator(mode="after")
    def _offers_match(self) -> PriceFile:
        for offer in self.offers:
            if offer.provider != self.provider:
                raise ValueError(f"offer {offer.instance_type!r} names provider {offer.provider!r}")
        offered = {o.region for o in self.offers}
        for code in self.regions:
            if code not in offered:
                raise ValueError(f"regions names {code!r}, the region of no offer in this file")
        if (self.region_words or self.regions) and not self.regional_of:
            raise ValueError("region_words and regions need regional_of (the cloud whose regions these are)")
        seen: set[str] = set()
        for shape in self.shapes:
            if shape.gpu in seen:
                raise ValueError(f"two shapes entries for GPU {shape.gpu!r}")
            seen.add(shape.gpu)
        return self


class UnpricedProvider(_Strict):
    """A cloud users name that has no price rows (``prices/common/unpriced_providers.yaml``)."""

    id: str
    name: str
    market: Literal["global", "china_mainland"] = "global"
    aliases: list[str] = Field(default_factory=list)


class UnpricedProviderFile(_Strict):
    """``prices/common/unpriced_providers.yaml``: named clouds without sourced prices."""

    as_of: date
    source: Annotated[str, Field(min_length=10)]
    providers: list[UnpricedProvider]


class PriceMention(_Strict):
    """A price figure for a GPU that no tracked cloud lists, found in a secondary source (``prices/common/
    price_mentions.yaml``): shown with its source and caveat so a team can decide, never used as an offer.

    Attributes:
        gpu: GPU id.
        where: the platform or market the figure is about (``"AutoDL"``, ``"Chinese rental market"``).
        where_zh: ``where`` in Chinese when it is not a name (``"国内租赁市场"``).
        provider: the id of the cloud the figure is about (``prices/common/unpriced_providers.yaml``:
            ``autodl``), so a question naming that cloud gets this figure; ``None`` for a market.
        low_per_gpu_hour: the figure (or the low end of a range) per GPU-hour, in ``currency`` as published.
        high_per_gpu_hour: the high end of a range; equal to ``low_per_gpu_hour`` for one figure.
        currency: ``cny`` or ``usd``, as published.
        reliability: ``secondary`` (a copy of a platform's table in someone else's document) or ``unverified``
            (an article with no platform or date per figure).
        caveat, caveat_zh: what is not known about the figure (billing mode, date, platform), in English and
            Chinese.
        as_of: the date of the document, ``None`` when it has none.
        source: where the figure is published.
    """

    gpu: str
    where: str
    where_zh: str | None = None
    provider: str | None = None
    low_per_gpu_hour: PositiveFloat
    high_per_gpu_hour: PositiveFloat
    currency: Literal["cny", "usd"]
    reliability: Literal["secondary", "unverified"]
    caveat: Annotated[str, Field(min_length=10)]
    caveat_zh: Annotated[str, Field(min_length=4)]
    as_of: date | None
    source: Annotated[str, Field(min_length=10)]

    @model_validator(mode="after")
    def _range(self) -> PriceMention:
        if self.high_per_gpu_hour < self.low_per_gpu_hour:
            raise ValueError(f"high_per_gpu_hour {self.high_per_gpu_hour} is below low_per_gpu_hour")
        return self


class PriceStandIn(_Strict):
    """The nearest GPU with prices, for a GPU that has none (the A800 is an A100 with NVLink capped): its price is
    shown labelled as another card's, never as this one's.

    Attributes:
        gpu: the unpriced GPU id.
        nearest: the priced GPU id it is closest to.
        why, why_zh: what the two share and where they differ, in English and Chinese.
        source: where that is stated.
    """

    gpu: str
    nearest: str
    why: Annotated[str, Field(min_length=10)]
    why_zh: Annotated[str, Field(min_length=4)]
    source: Annotated[str, Field(min_length=10)]


class PriceMentionFile(_Strict):
    """``prices/common/price_mentions.yaml``: secondary-source price figures and stand-ins for unpriced GPUs."""

    as_of: date
    mentions: list[PriceMention] = Field(default_factory=list)
    stand_ins: list[PriceStandIn] = Field(default_factory=list)


class ExchangeRate(_Strict):
    """A dated exchange rate prices published in another currency are converted to USD with.

    Attributes:
        id: kebab-case id price rows refer to (``fx_rate``).
        currency: the other currency, an ISO 4217 code (``CNY``, ``EUR``).
        per_usd: units of ``currency`` per 1 USD.
        date: the date of the rate.
        derived: the rate is arithmetic on published rates (``derivation`` says which).
    """

    id: str
    currency: Literal["CNY", "EUR"]
    per_usd: PositiveFloat
    date: date
    source: str
    derived: bool = False
    derivation: str | None = None
    notes: list[str] = Field(default_factory=list)

    _check_id = field_validator("id")(_check_id)

    @model_validator(mode="after")
    def _derivation(self) -> ExchangeRate:
        if self.derived and not self.derivation:
            raise ValueError("a derived rate needs 'derivation'")
        return self


class ExchangeRateFile(_Strict):
    """``knowledge/prices/common/exchange_rates.yaml``."""

    exchange_rates: list[ExchangeRate]


class CatalogProvider(_Strict):
    """A provider of a live price catalog and the knowledge-base provider id its offers are stored under."""

    catalog: str
    provider: str
    provider_name: str
    online: bool = False
    marketplace: bool = False
    notes: list[str] = Field(default_factory=list)

    _check_id = field_validator("provider")(_check_id)


class CatalogGpuInstanceRule(_Strict):
    """A provider's instance names that state the form factor a catalog's GPU name leaves out."""

    provider: str
    instance_contains: str
    gpu: str


class CatalogGpuName(_Strict):
    """One GPU name (and memory size) a price catalog uses, and the knowledge-base GPU it is.

    Attributes:
        name: the catalog's GPU name (``"H100"``, ``"RTX4090"``).
        memory_gb: memory per GPU in the catalog, GB; a catalog row matches when its memory is
            within 7% (gpuhunt's own tolerance, ``correct_gpu_memory_gib``): memory selects the variant.
        gpu: the knowledge-base GPU id.
        variant_verified: ``False`` when the catalog name does not say the form factor (SXM vs PCIe) and
            ``gpu`` is the knowledge base's default variant for the name.
        by_instance: provider instance names that do say the form factor, and the GPU they mean.
    """

    name: str
    memory_gb: PositiveFloat
    gpu: str
    variant_verified: bool = True
    by_instance: list[CatalogGpuInstanceRule] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class CatalogNotMapped(_Strict):
    """A catalog GPU name deliberately left unmapped, and why (reported, never guessed)."""

    name: str
    memory_gb: PositiveFloat
    reason: str


class CatalogNames(_Strict):
    """``knowledge/prices/common/<catalog>.yaml``: how a live catalog's names map to the knowledge base."""

    catalog: str
    source: str
    as_of: date
    providers: list[CatalogProvider]
    gpus: list[CatalogGpuName]
    not_mapped: list[CatalogNotMapped] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


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
        fused_attention: attention runs as one fused (FlashAttention-style) kernel by default, so
            the score matrix never reaches device memory.
        fused_attention_since: the date from which the engine's builds use fused attention by
            default; earlier builds materialise the score matrix unless asked (llama.cpp ``-fa``).
            ``None`` = every build the knowledge base covers behaves as ``fused_attention`` says.
        attention_dp_replicates: which weights every rank holds whole when attention runs
            data-parallel across a tensor-parallel group (TensorRT-LLM ``enable_attention_dp``,
            SGLang ``--enable-dp-attention``): ``attention`` = only the attention projections;
            ``non_expert`` = every weight but the routed experts (attention, dense MLP layers,
            shared experts, embeddings and LM head), which then run at TP 1 on each rank.
        offload_runs_on: where layers offloaded to system RAM run: ``gpu`` = copied to the GPU over PCIe for each
            forward pass (vLLM ``--cpu-offload-gb``), ``cpu`` = computed by the CPU from system RAM (llama.cpp
            layers beyond ``-ngl``); ``None`` = not documented here.
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
    fused_attention: bool = True
    fused_attention_since: date | None = None
    attention_dp_replicates: Literal["attention", "non_expert"] = "attention"
    offload_runs_on: Literal["gpu", "cpu"] | None = None
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


# --------------------------------------------------------------------------- claims (knowledge/claims.yaml)

#: How a claim holds up, from best to worst: ``true`` (holds as stated), ``needs_context`` (holds
#: only under conditions the claim leaves out), ``partly_true`` (one part right, one part wrong),
#: ``misleading`` (the figure exists but the framing implies something false), ``false``, and
#: ``unverified`` (the conditions behind it could not be found).
Verdict = Literal["true", "needs_context", "partly_true", "misleading", "false", "unverified"]

_RATIO_ID = re.compile(r"^[a-z][a-z0-9_]*$")
#: A placeholder in claim text: ``{ratio_id}`` (the ratio, 2 decimals), ``{ratio_id%}`` (as a
#: percentage), ``{ratio_id.num}`` / ``{ratio_id.den}`` (an operand's value), optionally scaled for
#: display with ``*N`` (``{c02_transistors.num*10}`` writes 80 billion as 800 亿).
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)(?:\.(num|den))?(?:\*([0-9]+(?:\.[0-9]+)?))?(%)?\}")

#: Numeric :class:`Gpu` fields a ratio may read, with their units. ``dense_tflops.<p>`` and
#: ``sparse_tflops.<key>`` are added by :func:`gpu_field_unit`.
GPU_FIGURE_UNITS = {
    "memory_gb": "GB",
    "memory_bandwidth_gb_s": "GB/s",
    "nvlink_gb_s": "GB/s",
    "tdp_watts": "W",
    "transistors_billion": "billion transistors",
    "fp64_vector_tflops": "TFLOPS",
    "fp16_accumulate_tflops": "TFLOPS",
}


def gpu_field_unit(field: str) -> str | None:
    """The unit of a numeric :class:`Gpu` field path, or ``None`` when ratios may not read it.

    Args:
        field: ``memory_bandwidth_gb_s``, ``dense_tflops.bf16``, ``sparse_tflops.bf16_fp16`` ...

    Returns:
        ``"GB/s"``, ``"TFLOPS"`` (``"TOPS"`` for int8/int4), ... or ``None``.
    """
    if field in GPU_FIGURE_UNITS:
        return GPU_FIGURE_UNITS[field]
    head, _, key = field.partition(".")
    if head == "dense_tflops" and key in PRECISIONS:
        return "TOPS" if key in ("int8", "int4") else "TFLOPS"
    if head == "sparse_tflops" and key:
        return "TOPS" if key in ("int8", "int4") else "TFLOPS"
    return None


class Bilingual(_Strict):
    """A text in English and in Chinese (simplified, as a Chinese engineer writes it)."""

    en: Annotated[str, Field(min_length=1)]
    zh: Annotated[str, Field(min_length=1)]


class ClaimConstant(_Strict):
    """A sourced figure a claim's ratios need that is not a GPU field (PCIe Gen5 x16 bandwidth).

    Attributes:
        value: the figure, in ``unit``.
        unit: as in :data:`GPU_FIGURE_UNITS` (``"GB/s"``) so ratios compare like with like.
        label: what it is, in both languages.
        source: where it comes from; ``derived`` says how it was computed when it was.
    """

    value: PositiveFloat
    unit: str
    label: Bilingual
    source: str
    derived: str | None = None
    as_of: date


class Operand(_Strict):
    """One side of a :class:`Ratio`: a GPU figure, a constant, or a price offer, times a count.

    Exactly one of: ``gpu`` + ``field`` (a numeric :class:`Gpu` field, read from gpus.yaml at run
    time); ``constant`` (a key of the claims file's ``constants``); ``provider`` +
    ``instance_type`` (that offer's price per GPU-hour, USD). ``times`` multiplies it (8 GPUs x
    900 GB/s).
    """

    gpu: str | None = None
    field: str | None = None
    constant: str | None = None
    provider: str | None = None
    instance_type: str | None = None
    times: PositiveFloat = 1.0

    @model_validator(mode="after")
    def _one_kind(self) -> Operand:
        kinds = [self.gpu is not None or self.field is not None, self.constant is not None,
                 self.provider is not None or self.instance_type is not None]
        if sum(kinds) != 1:
            raise ValueError("give exactly one of gpu+field, constant, or provider+instance_type")
        if kinds[0]:
            if self.gpu is None or self.field is None:
                raise ValueError("a GPU figure needs both gpu and field")
            if gpu_field_unit(self.field) is None:
                raise ValueError(f"field {self.field!r} is not a numeric GPU figure "
                                 f"({', '.join(GPU_FIGURE_UNITS)}, dense_tflops.<precision>, sparse_tflops.<key>)")
        if kinds[2] and (self.provider is None or self.instance_type is None):
            raise ValueError("a price needs both provider and instance_type")
        return self


class Ratio(_Strict):
    """A comparison computed at run time from the knowledge base (never a number typed in the claim).

    Attributes:
        id: referenced by placeholders in the claim's texts (``{c01_bf16}``).
        label: what is compared, in both languages.
        numerator, denominator: the two figures; their units must agree.
    """

    id: str
    label: Bilingual
    numerator: Operand
    denominator: Operand

    @field_validator("id")
    @classmethod
    def _ratio_id(cls, value: str) -> str:
        if not _RATIO_ID.match(value):
            raise ValueError(f"ratio id {value!r} must be lowercase letters, digits and '_'")
        return value


class GpuTruth(_Strict):
    """What holds per GPU for some GPUs of a claim, in both languages (placeholders allowed)."""

    gpus: Annotated[list[str], Field(min_length=1)]
    en: Annotated[str, Field(min_length=1)]
    zh: Annotated[str, Field(min_length=1)]


class Cues(_Strict):
    """How a question quoting or paraphrasing a claim is recognised.

    Each language has a list of alternatives; an alternative is a list of terms that must all
    appear in the question (matched by :func:`bot.kb.claims.match_claims`: NFKC, case-insensitive,
    numbers whole, spaces and hyphens optional). Both languages are tried on every question
    (users mix them); they are kept apart so each language's wording can be reviewed.
    """

    en: Annotated[list[Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]],
                  Field(min_length=1)]
    zh: Annotated[list[Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]],
                  Field(min_length=1)]


class ArticleWording(_Strict):
    """What the article's own wording of a claim gets wrong beyond the claim's source (C01: the article says training
    and inference are both up to 30x, where NVIDIA said 30x for inference only). Said only to a question that quotes
    the article or that wording's figure (``cues``, matched as the claim's cues are), never to every question the
    claim answers.

    Attributes:
        en, zh: the sentence (placeholders of the claim's ratios allowed).
        cues: terms showing the question quotes the article or the figure ("article", "30x", "文章", "30倍").
    """

    en: Annotated[str, Field(min_length=1)]
    zh: Annotated[str, Field(min_length=1)]
    cues: Cues


class Claim(_Strict):
    """One claim of the H100 article, checked per GPU (``knowledge/claims.yaml``).

    Attributes:
        id: ``C01`` ... in the article's order.
        claim: the article's words (``zh`` quoted from it, ``en`` a translation).
        origin: who said it first, in what document.
        conditions: the conditions behind the figure, as stated (or that they were not found).
        gpus: the GPU ids the claim concerns.
        per_gpu_truth: what holds for one GPU at equal precision.
        verdict: how the claim holds up (:data:`Verdict`).
        verdict_text: the verdict in one or two sentences per language.
        ratios: comparisons computed from the knowledge base at run time; texts cite them through
            placeholders (:data:`PLACEHOLDER`), so no ratio is typed twice.
        cues: how a question that quotes or paraphrases the claim is recognised.
        cue_exclusions: terms that veto a cue match (another claim's subject, as "GPT-3" for the
            per-SM FP8 claim).
        sources: where origin, conditions and truth come from.
        as_of: when the claim was last checked against its sources.
        topic: ``price`` for a claim about what renting costs (answers add today's prices), else ``None``.
        article_wording: what the article's own wording adds wrongly, said only when the question quotes it
            (:class:`ArticleWording`).
    """

    id: str
    topic: Literal["price"] | None = None
    claim: Bilingual
    origin: Bilingual
    conditions: Bilingual
    gpus: Annotated[list[str], Field(min_length=1)]
    per_gpu_truth: Annotated[list[GpuTruth], Field(min_length=1)]
    verdict: Verdict
    verdict_text: Bilingual
    ratios: list[Ratio] = Field(default_factory=list)
    cues: Cues
    cue_exclusions: list[str] = Field(default_factory=list)
    article_wording: ArticleWording | None = None
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
    notes: list[str] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _claim_id(cls, value: str) -> str:
        if not re.fullmatch(r"C\d{2,3}", value):
            raise ValueError(f"claim id {value!r} must look like 'C01'")
        return value

    @model_validator(mode="after")
    def _references(self) -> Claim:
        ratio_ids = [r.id for r in self.ratios]
        dupes = {r for r in ratio_ids if ratio_ids.count(r) > 1}
        if dupes:
            raise ValueError(f"duplicate ratio id(s) {', '.join(sorted(dupes))}")
        for ratio in self.ratios:
            for side in (ratio.numerator, ratio.denominator):
                if side.gpu is not None and side.gpu not in self.gpus:
                    raise ValueError(f"ratio {ratio.id} reads GPU {side.gpu!r}, which is not in the claim's gpus")
        texts = [self.verdict_text.en, self.verdict_text.zh]
        if self.article_wording is not None:
            texts += [self.article_wording.en, self.article_wording.zh]
        for truth in self.per_gpu_truth:
            texts += [truth.en, truth.zh]
            stray = [g for g in truth.gpus if g not in self.gpus]
            if stray:
                raise ValueError(f"per_gpu_truth names {', '.join(stray)}, not in the claim's gpus")
        for text in texts:
            for match in PLACEHOLDER.finditer(text):
                if match.group(1) not in ratio_ids:
                    raise ValueError(f"placeholder {match.group(0)} names no ratio of this claim")
                if match.group(2) and match.group(4):
                    raise ValueError(f"placeholder {match.group(0)}: '%' applies to the ratio, not to an operand")
            rest = PLACEHOLDER.sub("", text)
            if "{" in rest or "}" in rest:
                raise ValueError(f"malformed placeholder in {text[:60]!r}...")
        return self


class Article(_Strict):
    """The article the claims come from."""

    title_zh: str
    publisher: str
    published: date
    modified: date | None = None
    url: str
    translates: str | None = None


class ClaimFile(_Strict):
    """The header of ``knowledge/claims.yaml``: the article and the constants ratios may use.

    The ``claims`` list itself is validated entry by entry (:class:`Claim`) by the loader.
    """

    article: Article
    constants: dict[str, ClaimConstant] = Field(default_factory=dict)
    claims: list[object]


class UnlistedGpu(_Strict):
    """An accelerator users name that the knowledge base knows of but has no sourced figures for.

    Listed under ``unlisted:`` in gpus.yaml so that its names are recognised as "known, no data"
    (an answer says so) instead of being fuzzy-matched to a neighbour ("Hygon K100" is not the
    K100 AI; "Ascend 910" is not the 910B).

    Attributes:
        name: display name.
        vendor: as :attr:`Gpu.vendor`.
        aliases: names users type (Chinese names included); unique across GPUs and unlisted entries.
        reason: why it has no entry (which figure no source gives), in both languages.
        nearest: GPU ids an answer may offer instead, labelled as alternatives.
        memory_gb: its memory, GB, when a source gives that figure (what fits can be answered; speed cannot).
        dense16_tflops: its dense 16-bit (bf16 or fp16) TFLOPS, when a source gives that figure (shown beside
            the GPU it is compared with; a speed still needs the bandwidth).
        sources: where its existence (and any partial figure) comes from.
    """

    name: str
    vendor: Vendor
    aliases: list[str] = Field(default_factory=list)
    reason: Bilingual
    nearest: list[str] = Field(default_factory=list)
    memory_gb: float | None = Field(default=None, gt=0)
    dense16_tflops: float | None = Field(default=None, gt=0)
    sources: Annotated[list[str], Field(min_length=1)]
    as_of: date
