"""Shared pieces of the sizing engine: id resolution, precision feature gates, weight and KV-cache
bytes, valid tensor-parallel degrees, and generic model specs.

Formulas (estimation-notes.md, "Memory for inference"):

* weights = P_total x bytes/weight (MoE: total parameters, all experts are resident);
* KV cache per token = 2 (K and V) x layers x n_kv_heads x head_dim x bytes(KV dtype) (GQA/MQA aware);
  MLA (DeepSeek): layers x (kv_lora_rank + qk_rope_head_dim) x bytes (one compressed latent, no 2x);
* sliding-window layers hold at most ``model.sliding_window`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from bot.errors import UnknownEntityError
from bot.estimation.efficiency import EfficiencyTable, WeightFormat
from bot.estimation.results import EstimationError
from bot.kb.index import get_index
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu, Model

__all__ = [
    "GB",
    "GIB",
    "KvShape",
    "ResolvedPrecision",
    "generic_model",
    "get_gpu",
    "get_model",
    "kv_shape",
    "resolve_precision",
    "valid_tp_degrees",
    "weight_bytes",
]

GB = 1e9  #: bytes in a GB (decimal), the unit of every ``*_gb`` field
GIB = 2**30  #: bytes in a GiB (binary); nvidia-smi reports MiB


def get_gpu(kb: KnowledgeBase, gpu: str | Gpu) -> Gpu:
    """The :class:`Gpu` for an id (or the object itself).

    Raises:
        UnknownEntityError: kind ``"gpu"`` with up to three close names (the name index's suggestions).
    """
    if isinstance(gpu, Gpu):
        return gpu
    if gpu not in kb.gpus:
        raise UnknownEntityError("gpu", gpu, get_index(kb).suggest("gpu", gpu))
    return kb.gpus[gpu]


def get_model(kb: KnowledgeBase, model: str | Model) -> Model:
    """The :class:`Model` for an id (or the object itself).

    Raises:
        UnknownEntityError: kind ``"model"`` with up to three close names (the name index's suggestions).
    """
    if isinstance(model, Model):
        return model
    if model not in kb.models:
        raise UnknownEntityError("model", model, get_index(kb).suggest("model", model))
    return kb.models[model]


def generic_model(params_total_b: float, params_active_b: float | None = None, *, name: str | None = None,
                  num_hidden_layers: int | None = None, hidden_size: int | None = None,
                  num_attention_heads: int | None = None, num_key_value_heads: int | None = None,
                  head_dim: int | None = None, vocab_size: int | None = None,
                  intermediate_size: int | None = None, assume_shape: bool = True) -> Model:
    """A :class:`Model` for "a 7B model" that is not in the knowledge base.

    With ``assume_shape`` and no shape given, a typical modern decoder shape is assumed (and said
    so in ``notes``, which the estimators copy into ``assumptions``): hidden size from
    P ~ 12 x L x h^2 with an aspect ratio h / L = 128 (Llama 2 7B: 4096 / 32), h rounded to a multiple of
    1,024 (8 heads; 128 below 2,048), 128-dim heads,
    GQA with 8 KV heads (Llama 3, Qwen 2.5, Mistral), vocab 32,000, SwiGLU intermediate 2.6875 h.
    Without ``assume_shape`` the shape fields stay unknown and the KV cache is refused.

    Args:
        params_total_b: all parameters, billions (memory follows this).
        params_active_b: parameters per token for MoE, billions (compute follows this).

    Returns:
        A validated Model with id ``generic-<P>b``.
    """
    notes: list[str] = []
    gaps: dict[str, str] = {}
    if assume_shape and num_hidden_layers is None and hidden_size is None:
        dense_b = params_total_b if params_active_b is None else params_active_b
        h = (dense_b * 1e9 * 128 / 12) ** (1 / 3)
        # a multiple of 8 heads x 128 from 2,048 up (every Llama/Qwen/Mistral width is), so tensor parallelism of
        # 2, 4 and 8 divides the heads as vLLM and Megatron require
        step = 1024 if h >= 2048 else 128
        hidden_size = max(256, int(round(h / step)) * step)
        num_hidden_layers = max(2, int(round(hidden_size / 128)))
        num_attention_heads = hidden_size // 128
        num_key_value_heads = 8 if num_attention_heads % 8 == 0 else num_attention_heads
        head_dim, vocab_size = 128, vocab_size or 32000
        intermediate_size = intermediate_size or int(hidden_size * 2.6875)
        notes.append(
            f"shape assumed for a generic {params_total_b:g}B model: {num_hidden_layers} layers, hidden "
            f"{hidden_size}, {num_attention_heads} heads, {num_key_value_heads} KV heads (GQA), head_dim 128")
    for f, v in (("num_hidden_layers", num_hidden_layers), ("hidden_size", hidden_size),
                 ("num_attention_heads", num_attention_heads), ("num_key_value_heads", num_key_value_heads),
                 ("vocab_size", vocab_size)):
        if v is None:
            gaps[f] = "not given for a generic model"
    label = name or f"generic {params_total_b:g}B model"
    return Model(
        id=f"generic-{params_total_b:g}b".replace(".", "-"), name=label, family="generic", kind="llm",
        params_total_b=params_total_b, params_active_b=params_active_b, num_hidden_layers=num_hidden_layers,
        hidden_size=hidden_size, num_attention_heads=num_attention_heads, num_key_value_heads=num_key_value_heads,
        head_dim=head_dim, vocab_size=vocab_size, intermediate_size=intermediate_size,
        sources=["user-supplied parameter count"], as_of=date(2026, 11, 29), architecture_gaps=gaps, notes=notes)


# --------------------------------------------------------------------------- precision and feature gates

@dataclass
class ResolvedPrecision:
    """The weight precision actually used, after feature gates.

    Attributes:
        name: canonical format name used (``"int8"`` when ``"fp8"`` was asked on an A100).
        requested: the name asked for (``None`` when defaulted).
        fmt: its :class:`WeightFormat`.
        compute: tensor precision of the matmuls on this GPU (``"fp16"`` for bf16 formats on V100).
        warnings, assumptions: text for the result.
    """

    name: str
    requested: str | None
    fmt: WeightFormat
    compute: str
    warnings: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)


def _cc_text(gpu: Gpu) -> str:
    return f"compute capability {gpu.compute_capability}" if gpu.compute_capability else gpu.architecture


def resolve_precision(eff: EfficiencyTable, gpu: Gpu, model: Model, requested: str | None,
                      engine: str | None = None) -> ResolvedPrecision:
    """Pick the weight format for ``model`` on ``gpu``, applying the hardware feature gates.

    Gates (estimation-notes.md "Feature gates"): FP8 tensor cores need compute capability >= 8.9
    (Ada, Hopper); bf16 needs >= 8.0 (Ampere); NVFP4 needs Blackwell. A format the GPU lacks first runs
    as the engine's weight-only fallback when the knowledge base has one for this GPU
    (:meth:`EfficiencyTable.weight_only_fallback`: FP8 checkpoints on Ampere under vLLM run W8A16 on FP8
    Marlin). Otherwise a warning and the nearest alternative: FP8 -> INT8 (W8A8) if the GPU has INT8
    tensor cores, else INT4 weight-only (AWQ/GPTQ); bf16 -> fp16; FP4 -> FP8, else INT4 weight-only.

    Args:
        requested: a precision name (case-insensitive: ``bf16``, ``FP8``, ``awq``, ``Q4_K_M``) or
            ``None`` for the model's native dtype (fp16 when unknown).
        engine: the canonical serving engine id, or ``None`` (training, non-LLM: no weight-only fallback).

    Raises:
        UnknownEntityError: kind ``"precision"`` for unknown names.
    """
    warnings: list[str] = []
    assumptions: list[str] = []
    if requested is None:
        native = model.native_precision
        try:
            name, fmt = eff.weight_format(native) if native else eff.weight_format("fp16")
        except UnknownEntityError:
            name, fmt = eff.weight_format("fp16")
        assumptions.append(f"precision not given: using the model's native {name}" if native
                           else "precision not given and the model's native dtype is unknown: using fp16")
    else:
        name, fmt = eff.weight_format(requested)
    fallback = eff.weight_only_fallback(name, gpu, engine) if fmt.requires and not gpu.supports(fmt.requires) \
        else None
    if fallback is not None:
        assumptions.append(f"{name} checkpoint on {gpu.name} ({_cc_text(gpu)}, no {fmt.requires} tensor cores): "
                           f"{engine} runs it weight-only as {fallback[0]} ({fallback[1].bytes_per_weight:g} B/weight, "
                           f"matmuls in {fallback[1].compute})")
        name, fmt = fallback
    elif fmt.requires and not gpu.supports(fmt.requires):
        alt = None
        if fmt.requires == "fp8":
            # the same byte width first: a card with an INT8 path runs W8A8 (Ascend's W8A8, SmoothQuant), whether
            # or not its INT8 peak is published (a missing peak is reported where compute is used)
            alt = "int8" if gpu.supports("int8") else "int4"
            warnings.append(
                f"{gpu.name} has no FP8 tensor cores (FP8 needs compute capability >= 8.9: Ada or Hopper; "
                f"it has {_cc_text(gpu)}). Nearest alternatives: INT8 (W8A8, e.g. SmoothQuant) or INT4 "
                f"weight-only (AWQ/GPTQ); estimating with {alt.upper()}.")
        elif fmt.requires == "bf16":
            alt = "fp16"
            warnings.append(f"{gpu.name} has no bf16 ({_cc_text(gpu)}; bf16 needs 8.0+, Ampere): "
                            "estimating with fp16 (same memory; watch for overflow in bf16-trained models).")
        elif fmt.requires == "fp4":
            alt = "fp8" if gpu.supports("fp8") else "int4"
            warnings.append(f"{gpu.name} has no FP4 tensor cores (Blackwell only): estimating with {alt.upper()}.")
        elif fmt.requires == "int8":
            alt = "int4"
            warnings.append(f"{gpu.name} lists no INT8 tensor path: estimating with INT4 weight-only.")
        name, fmt = eff.weight_format(alt)
    compute = fmt.compute
    if compute == "bf16" and not gpu.supports("bf16"):
        compute = "fp16"
    return ResolvedPrecision(name, requested, fmt, compute, warnings, assumptions)


def dense_peak_tflops(gpu: Gpu, compute: str) -> tuple[float | None, str | None]:
    """Dense (never 2:4-sparse) tensor peak for ``compute`` on ``gpu``, TFLOPS, with a note when a
    neighbouring precision had to stand in (bf16 <-> fp16). ``(None, note)`` when none is published."""
    dense = gpu.dense_tflops
    value = getattr(dense, compute, None)
    if value:
        return value, None
    for alt in {"bf16": ("fp16",), "fp16": ("bf16",), "int8": ("fp8", "fp16"), "fp8": ("int8",),
                "fp4": ("fp8",), "fp32": ("tf32",)}.get(compute, ()):
        v = getattr(dense, alt, None)
        if v:
            return v, f"no dense {compute} TFLOPS published for {gpu.name}: using its dense {alt} figure"
    return None, f"no dense {compute} TFLOPS published for {gpu.name}: compute-bound figures omitted"


def weight_bytes(model: Model, fmt: WeightFormat) -> float:
    """Bytes of one copy of the weights: P_total x bytes/weight.

    For formats that leave embeddings and lm_head in 16-bit (AWQ, GPTQ, NF4), ``vocab x hidden``
    (twice when untied) is priced at 2 B/weight when the shape is known.
    """
    p = model.params_total_b * 1e9
    if fmt.embeddings_16bit and model.vocab_size and model.hidden_size:
        emb = model.vocab_size * model.hidden_size * (1 if model.tie_word_embeddings else 2)
        emb = min(emb, 0.5 * p)
        return (p - emb) * fmt.bytes_per_weight + emb * 2.0
    return p * fmt.bytes_per_weight


# --------------------------------------------------------------------------- KV cache

@dataclass(frozen=True)
class KvShape:
    """KV-cache geometry of a model.

    Attributes:
        elements_per_token_layer: stored values per token per layer (2 x n_kv x head_dim, or
            kv_lora_rank + qk_rope_head_dim for MLA).
        full_layers, window_layers: layers growing with the context / capped at ``window``.
        window: sliding-window size, tokens (0 when none).
        n_kv_heads: KV heads (``None`` for MLA, whose latent is replicated on every TP rank).
        mla: Multi-head Latent Attention.
    """

    elements_per_token_layer: int
    full_layers: int
    window_layers: int
    window: int
    n_kv_heads: int | None
    mla: bool

    def bytes_per_token(self, bytes_per_element: float) -> float:
        """KV bytes per token summed over all layers, ignoring the window cap."""
        return self.elements_per_token_layer * (self.full_layers + self.window_layers) * bytes_per_element

    def bytes_per_sequence(self, tokens: float, bytes_per_element: float) -> float:
        """KV bytes for one sequence of ``tokens``, window layers capped at the window."""
        held = self.full_layers * tokens + self.window_layers * min(tokens, self.window)
        return self.elements_per_token_layer * held * bytes_per_element

    def max_tokens(self, budget_bytes: float, bytes_per_element: float) -> float:
        """Longest sequence whose KV fits ``budget_bytes`` (inf when only window layers grow)."""
        per_layer_tok = self.elements_per_token_layer * bytes_per_element
        if budget_bytes <= 0:
            return 0.0
        all_layers = self.full_layers + self.window_layers
        s = budget_bytes / (per_layer_tok * all_layers)
        if s <= self.window or self.window_layers == 0:
            return s
        if self.full_layers == 0:
            return float("inf")
        return (budget_bytes / per_layer_tok - self.window_layers * self.window) / self.full_layers

    def tp_shard(self, tp: int) -> float:
        """Fraction of the KV cache one GPU holds at TP degree ``tp``: 1/min(tp, n_kv) (KV heads are
        replicated when tp > n_kv); 1 for MLA (vLLM keeps the whole latent cache on every rank)."""
        if self.mla or not self.n_kv_heads:
            return 1.0
        return 1.0 / min(tp, self.n_kv_heads)


def kv_shape(model: Model) -> tuple[KvShape | None, str | None]:
    """The model's :class:`KvShape`, or ``(None, reason)`` when its config lacks the fields."""
    layers = model.num_hidden_layers
    if model.is_mla:
        if not layers or not model.qk_rope_head_dim:
            return None, f"{model.name}: MLA config lacks num_hidden_layers or qk_rope_head_dim"
        per = model.kv_lora_rank + model.qk_rope_head_dim
        return KvShape(per, layers, 0, 0, None, True), None
    missing = [f for f in ("num_hidden_layers", "num_key_value_heads") if getattr(model, f) is None]
    hd = model.effective_head_dim
    if hd is None:
        missing.append("head_dim")
    if missing:
        why = "; ".join(f"{f}: {model.architecture_gaps[f]}" for f in missing if f in model.architecture_gaps)
        return None, (f"KV cache not estimated: {model.name} has no confirmed {', '.join(missing)}"
                      + (f" ({why})" if why else "") + ". Memory covers weights and overhead only.")
    swl = model.sliding_window_layers or 0
    window = (model.sliding_window or 0) if swl else 0
    return KvShape(2 * model.num_key_value_heads * hd, layers - swl, swl, window, model.num_key_value_heads,
                   False), None


def valid_tp_degrees(model: Model, max_tp: int = 8) -> list[int]:
    """Tensor-parallel degrees 1, 2, 4, 8 (16, 32 when ``max_tp`` allows: groups spanning nodes)
    that divide the attention heads and are compatible with the KV heads (n_kv % tp == 0, or
    tp % n_kv == 0 with KV heads replicated), as vLLM and Megatron require. Unknown head counts
    allow every degree up to ``max_tp``."""
    out = []
    for tp in (1, 2, 4, 8, 16, 32):
        if tp > max_tp:
            break
        heads, kv = model.num_attention_heads, model.num_key_value_heads
        if heads and heads % tp:
            continue
        if kv and kv % tp and tp % kv:
            continue
        out.append(tp)
    return out


def usable_memory_gb(eff: EfficiencyTable, gpu: Gpu) -> float:
    """What CUDA reports as the GPU's total capacity, GB (10^9 bytes).

    Marketed sizes are binary: an "80 GB" HBM card has 80 GiB of DRAM, of which ~79.2 GiB is
    usable (estimation-notes.md failure mode 6); datacenter GDDR cards with ECC on expose ~93%
    (refdata-notes.md 5.16). So usable GB = memory_gb x 2^30 / 10^9 x fraction
    (``usable_memory_fraction_hbm`` or ``usable_memory_fraction_gddr_ecc`` in efficiency.yaml).

    Args:
        eff: the efficiency table. gpu: the GPU.

    Returns:
        Usable memory in GB, e.g. 85.1 for an 80 GB A100 (79.2 GiB).
    """
    gddr_ecc = gpu.segment in ("datacenter", "workstation") and (gpu.memory_type or "").upper().startswith("GDDR")
    fraction = eff.c("usable_memory_fraction_gddr_ecc" if gddr_ecc else "usable_memory_fraction_hbm")
    return gpu.memory_gb * GIB / GB * fraction


def require_positive(name: str, value: float | None) -> None:
    """Raise :class:`EstimationError` when ``value`` is given and not > 0."""
    if value is not None and value <= 0:
        raise EstimationError(f"{name} must be positive, got {value}")
