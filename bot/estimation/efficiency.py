"""The efficiency constants file (``knowledge/efficiency.yaml``): schema, loading and lookups.

Every figure the estimator uses that is not a GPU spec or a model config lives in that file with a
``source`` and an ``as_of`` date: bytes per weight per format, KV-cache element sizes, runtime
overheads, decode MBU per engine class, MFU per GPU generation and precision, TP efficiency.
The file's header comment says how the efficiency factors were set (physics and published
ranges, not fitted row by row).

The parsed table is cached per :class:`~bot.kb.loader.KnowledgeBase` object (in ``kb._cache``), so
an estimate never re-reads YAML.
"""

from __future__ import annotations

import math
import threading
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.errors import KnowledgeError, KnowledgeIssue, UnknownEntityError
from bot.kb.loader import KnowledgeBase, _LineMap
from bot.kb.schema import Engine, Gpu

__all__ = [
    "Constant",
    "EfficiencyTable",
    "EngineProfile",
    "DiffusionModel",
    "HostLink",
    "Interconnect",
    "NonLlmTable",
    "SpeechModel",
    "KvFormat",
    "WeightFormat",
    "efficiency_for",
    "load_efficiency",
]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_lock = threading.Lock()
_CACHE_KEY = "estimation.efficiency"
_MEMORY_LIMITED_SEQS = 4096  # "no fixed cap" engines (SGLang): memory decides, bounded for arithmetic


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(_Strict):
    """Base for every entry: where the figure comes from and when it was checked."""

    source: str
    as_of: date


class WeightFormat(Sourced):
    """A weight storage format.

    Attributes:
        bytes_per_weight: bytes per stored weight including block scales (B/weight).
        kind: ``float`` (matmul in this format), ``integer`` (W8A8), ``weight_only``
            (dequantised to 16-bit before the matmul), ``gguf`` (llama.cpp blocks).
        compute: tensor-core precision the matmuls run in (a key of ``Gpu.dense_tflops``).
        requires: hardware precision the GPU must support (``gpu.supports``), if any.
        mbu_class: which decode-MBU column applies: ``16bit``, ``8bit`` or ``4bit``.
        embeddings_16bit: embeddings/lm_head stay 16-bit (AWQ, GPTQ, bitsandbytes).
        gemm_tile_tokens: token rows of the tensor-core instruction the format's own GEMM kernels
            use on every architecture (AWQ/GPTQ Marlin: ``mma.sync`` m16n8k16 = 16), or ``None``
            when the format runs on the GPU's native GEMMs (``tensor_core_tile_tokens``).
        runs_checkpoints_of: the format whose checkpoints this one runs on GPUs lacking that format's
            ``requires`` (FP8 checkpoints run weight-only as ``fp8-w8a16`` on Ampere), or ``None``.
        min_compute_capability: the NVIDIA compute capability the format's kernels need (other vendors:
            not supported), or ``None`` when only ``requires`` gates it.
        engines: engine ids that run this format as a fallback (``runs_checkpoints_of``); empty = any.
        gemm_call_overhead_us: fixed time each call of the format's own GEMM kernel adds on top of the engine's
            ``layer_overhead_us`` (microseconds; 0 for the GPU's native GEMMs); a dense layer makes four calls
            (qkv, o, gate_up, down), an MoE layer two (qkv, o; the experts' launches are ``moe_layer_overhead_us``).
    """

    bytes_per_weight: float = Field(gt=0)
    kind: Literal["float", "integer", "weight_only", "gguf"]
    compute: str
    requires: str | None = None
    mbu_class: Literal["16bit", "8bit", "4bit"]
    embeddings_16bit: bool = False
    gemm_tile_tokens: int | None = Field(default=None, gt=0)
    runs_checkpoints_of: str | None = None
    min_compute_capability: float | None = Field(default=None, gt=0)
    engines: list[str] = Field(default_factory=list)
    gemm_call_overhead_us: float = Field(default=0.0, ge=0)
    aliases: list[str] = Field(default_factory=list)


class KvFormat(Sourced):
    """A KV-cache element format: ``bytes_per_element`` per stored K or V value."""

    bytes_per_element: float = Field(gt=0)
    aliases: list[str] = Field(default_factory=list)


class Constant(Sourced):
    """A named scalar with its unit."""

    value: float
    unit: str


class EngineProfile(Sourced):
    """Efficiency profile of a serving engine, merged with its documented defaults.

    The efficiency fields come from ``efficiency.yaml`` (``engines``, one entry per efficiency
    class); the defaults (KV dtype rule, batch limits, chunked prefill, CUDA graphs, memory
    fraction) from ``knowledge/engines.yaml`` when the knowledge base has it (see
    :meth:`EfficiencyTable.attach_engines`), else the neutral values below.

    Attributes:
        decode_mbu: kernel-level decode memory-bandwidth utilisation per ``mbu_class``.
        layer_overhead_us: fixed time per transformer layer per decode step, us.
        moe_layer_overhead_us: extra fixed time per MoE layer per decode step, us.
        step_overhead_ms: fixed time per decode step (scheduling, sampling), ms.
        prefill_overhead_ms: fixed time added to TTFT, ms.
        inference_mfu_factor: multiplier on the per-generation inference MFU.
        decode_tile_padding: small-batch decode GEMMs run on tensor cores, padded to a tile.
        moe_gemm_efficiency: efficiency of the grouped expert GEMMs relative to dense GEMMs.
        mla_layer_overhead_us: extra fixed time per Multi-head Latent Attention layer per decode
            step (its extra latency-bound kernels), us.
        efficiency_class: the ``efficiency.yaml`` entry these factors come from.
        memory_utilization: fraction of device memory the engine may use / pre-allocates
            (``memory_utilization_of``: of the total, or of what weights and activations leave).
        max_batch_size: the engine's default cap on sequences in flight (memory-limited engines:
            a large number).
        activation_token_budget: tokens per forward pass (chunk budget); 0 = the batch's prompts.
        kv_cache_dtype_default, kv_cache_dtype_quantized: the engine's KV dtype rule
            (:class:`bot.kb.schema.Engine`).
        chunked_prefill, continuous_batching, prefix_caching, cuda_graphs, fp16_accumulate,
        multi_gpu_split, fused_attention, fused_attention_since, attention_dp_replicates: documented
        defaults (:class:`bot.kb.schema.Engine`).
        fact_sources: sources of the documented defaults.
    """

    decode_mbu: dict[str, float]
    layer_overhead_us: float = Field(ge=0)
    moe_layer_overhead_us: float = Field(ge=0)
    step_overhead_ms: float = Field(ge=0)
    prefill_overhead_ms: float = Field(ge=0)
    inference_mfu_factor: float = Field(gt=0, le=1)
    decode_tile_padding: bool
    moe_gemm_efficiency: float = Field(default=1.0, gt=0, le=1)
    mla_layer_overhead_us: float = Field(default=0.0, ge=0)
    efficiency_class: str = ""
    memory_utilization: float = Field(default=0.9, gt=0, le=1)
    memory_utilization_of: Literal["total", "free"] = "total"
    max_batch_size: int = Field(default=256, gt=0)
    activation_token_budget: int = Field(default=8192, ge=0)
    kv_cache_dtype_default: Literal["model", "checkpoint"] = "model"
    kv_cache_dtype_quantized: dict[str, str] = Field(default_factory=dict)
    chunked_prefill: bool = True
    continuous_batching: bool = True
    prefix_caching: bool = True
    cuda_graphs: bool = True
    fp16_accumulate: bool = False
    multi_gpu_split: Literal["tensor", "layer"] = "tensor"
    fused_attention: bool = True
    fused_attention_since: date | None = None
    attention_dp_replicates: Literal["attention", "non_expert"] = "attention"
    fact_sources: list[str] = Field(default_factory=list)


class Interconnect(Sourced):
    """Collective-communication cost of one interconnect class (``efficiency.yaml`` ``interconnects``).

    Attributes:
        allreduce_latency_us, allreduce_latency_per_doubling_us: latency of one small all-reduce
            over n GPUs = base + per_doubling x log2(n), us.
        alltoall_latency_us: latency of one expert-parallel dispatch or combine, us.
        bandwidth_fraction: share of half the GPU's bidirectional ``nvlink_gb_s`` that collectives
            achieve (NVLink class only); ``bandwidth_gb_s`` is used when the GPU has no figure.
        bandwidth_gb_s: collective bus bandwidth per GPU, GB/s.
        hop_latency_us: one pipeline-stage activation hand-off, us.
    """

    allreduce_latency_us: float = Field(ge=0)
    allreduce_latency_per_doubling_us: float = Field(ge=0)
    alltoall_latency_us: float = Field(ge=0)
    bandwidth_fraction: float | None = Field(default=None, gt=0, le=1)
    bandwidth_gb_s: float = Field(gt=0)
    hop_latency_us: float = Field(ge=0)


class HostLink(Sourced):
    """Where offloaded weights are read from each token (``efficiency.yaml`` ``host_links``).

    Attributes:
        kind: ``pcie`` (the GPU's link to the host: offloaded layers copied to the GPU for each forward pass) or
            ``ram`` (system memory: offloaded layers computed by the CPU).
        pcie_gen: the PCIe generation (``pcie`` only; x16 lanes).
        memory_type: ``ddr4`` or ``ddr5`` (``ram`` only).
        label: how the answer names it ("PCIe 4.0 x16", "dual-channel DDR5-5600").
        bandwidth_gb_s: the most a transfer reaches, GB/s (measured for PCIe, the JEDEC rate for DDR).
        peak_gb_s: the raw signalling rate per direction, GB/s, where it differs.
        achieved_fraction: the share of ``bandwidth_gb_s`` a decode reading weights through it typically reaches
            (1 for the measured PCIe figures; below 1 for a CPU decoding from DDR at its JEDEC rate).
    """

    kind: Literal["pcie", "ram"]
    pcie_gen: int | None = Field(default=None, gt=0)
    memory_type: Literal["ddr4", "ddr5"] | None = None
    label: str
    bandwidth_gb_s: float = Field(gt=0)
    peak_gb_s: float | None = Field(default=None, gt=0)
    achieved_fraction: float = Field(default=1.0, gt=0, le=1)


class _Tile(Sourced):
    value: int = Field(gt=0)


class DiffusionModel(Sourced):
    """Compute of one diffusion model (``non_llm.diffusion.models``).

    Attributes:
        architecture: ``unet`` or ``dit`` (picks the efficiency factor).
        base_width, base_height: resolution the FLOPs figure is for, pixels.
        gflops_per_forward: FLOPs of one denoiser forward for one image at the base resolution, GFLOP.
        attention_fraction: share of those FLOPs in self-attention (grows with pixels squared).
        forwards_per_step: denoiser passes per step (2 with classifier-free guidance).
        default_steps: the pipeline's default step count.
        eager_issue_ms: host CPU time to issue one eager denoiser call (every kernel of the network, launched
            from Python), ms, by host class (``server``: the CPUs of cloud GPU servers, for datacenter GPUs;
            ``desktop``: workstation and consumer cards), where a benchmark measures it; an eager step takes at
            least this long however fast the GPU is. ``None`` = not measured (the launch cost is added instead).
    """

    architecture: Literal["unet", "dit"]
    base_width: int = Field(gt=0)
    base_height: int = Field(gt=0)
    gflops_per_forward: float = Field(gt=0)
    attention_fraction: float = Field(ge=0, lt=1)
    forwards_per_step: int = Field(gt=0)
    default_steps: int = Field(gt=0)
    eager_issue_ms: dict[Literal["server", "desktop"], float] | None = None


class _Factor(Sourced):
    efficiency_factor: float = Field(gt=0, le=1)


class DiffusionEngine(Sourced):
    """A diffusion runtime: fixed launch cost per denoiser call (ms), whether fp16 GEMMs may
    accumulate in fp16 (GeForce fp16-accumulate rate), and whether the host issues every kernel of every call
    (``host_issued``: eager PyTorch; a model's ``eager_issue_ms`` then floors the step)."""

    aliases: list[str] = Field(default_factory=list)
    forward_overhead_ms: float = Field(ge=0)
    fp16_accumulate: bool = False
    host_issued: bool = False


class _DiffusionTable(_Strict):
    models: dict[str, DiffusionModel]
    architectures: dict[str, _Factor]
    engines: dict[str, DiffusionEngine]


class SpeechModel(Sourced):
    """Shape of a Whisper-class encoder-decoder (``non_llm.speech.models``)."""

    encoder_layers: int = Field(gt=0)
    decoder_layers: int = Field(gt=0)
    d_model: int = Field(gt=0)
    vocab_size: int = Field(gt=0)
    encoder_frames: int = Field(gt=0)


class SpeechEngine(Sourced):
    """A speech runtime: fixed time per decoded token step (beam search, per-step work), ms; GEMM
    efficiency factor on the encoder; decode memory-bandwidth utilisation.

    ``batched_batch_size`` / ``batched_speedup``: the runtime's published batched pipeline for long
    audio (faster-whisper ``BatchedInferencePipeline``): windows decoded together and the measured
    speed-up over its own unbatched run on the same GPU and audio; ``None`` when not published.
    """

    aliases: list[str] = Field(default_factory=list)
    step_overhead_ms: float = Field(ge=0)
    efficiency_factor: float = Field(gt=0, le=1)
    decode_mbu: float = Field(gt=0, le=1)
    batched_batch_size: int | None = Field(default=None, gt=1)
    batched_speedup: float | None = Field(default=None, gt=1)


class _SpeechTable(_Strict):
    window_seconds: float = Field(gt=0)
    tokens_per_audio_second: float = Field(gt=0)
    tokens_source: str
    models: dict[str, SpeechModel]
    engines: dict[str, SpeechEngine]


class EmbeddingEngine(_Factor):
    """An embedding server: efficiency factor on the generation's GEMM efficiency."""

    aliases: list[str] = Field(default_factory=list)


class _EmbeddingTable(_Strict):
    engines: dict[str, EmbeddingEngine]


class NonLlmTable(_Strict):
    """``non_llm`` section of efficiency.yaml: diffusion, speech and embedding workloads."""

    diffusion: _DiffusionTable
    speech: _SpeechTable
    embedding: _EmbeddingTable

    def engine(self, workload: Literal["diffusion", "speech", "embedding"], name: str):
        """(canonical name, engine entry) for ``name`` or an alias in one workload's engines.

        Raises:
            UnknownEntityError: kind ``"engine"`` when unknown.
        """
        table = getattr(self, workload).engines
        key = _alias_map(table).get(_norm(name))
        if key is None:
            raise UnknownEntityError("engine", name, _suggest(name, table))
        return key, table[key]


class _Generation(_Strict):
    prefix: str
    key: str


class EfficiencyTable(_Strict):
    """The whole of ``efficiency.yaml``, validated, with lookup helpers."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    as_of: date
    weight_formats: dict[str, WeightFormat]
    kv_formats: dict[str, KvFormat]
    constants: dict[str, Constant]
    engines: dict[str, EngineProfile]
    interconnects: dict[str, Interconnect]
    host_links: dict[str, HostLink] = Field(default_factory=dict)
    tensor_core_tile_tokens: dict[str, _Tile]
    generations: list[_Generation]
    inference_mfu: dict[str, dict[str, float | str | date]]
    training_mfu: dict[str, dict[str, float | str | date]]
    non_llm: NonLlmTable

    def model_post_init(self, __context: object) -> None:  # build alias maps once
        self._weight_alias = _alias_map(self.weight_formats)
        self._kv_alias = _alias_map(self.kv_formats)
        self._engine_alias = _alias_map(self.engines)
        self._profiles: dict[str, EngineProfile] = {k: v.model_copy(update={"efficiency_class": k})
                                                   for k, v in self.engines.items()}

    def attach_engines(self, engines: dict[str, Engine]) -> None:
        """Merge the knowledge base's documented engine defaults into the efficiency profiles.

        Each :class:`bot.kb.schema.Engine` becomes a profile named after the engine, with the
        efficiency factors of its ``efficiency_class`` and its own defaults; its aliases resolve
        to it (``nim`` -> ``tensorrt-llm``, ``ollama`` -> ``llama.cpp``).

        Raises:
            KnowledgeError: an engine names an efficiency class that ``efficiency.yaml`` lacks.
        """
        issues = [KnowledgeIssue("knowledge/engines.yaml", 0, f"{e.id}.efficiency_class",
                                 f"unknown efficiency class {e.efficiency_class!r} (efficiency.yaml engines: "
                                 f"{', '.join(self.engines)})")
                  for e in engines.values() if e.efficiency_class not in self.engines]
        issues += [KnowledgeIssue("knowledge/efficiency.yaml", 0, f"weight_formats.{k}.engines",
                                  f"unknown engine {x!r} (engines.yaml: {', '.join(engines)})")
                   for k, f in self.weight_formats.items() for x in f.engines if x not in engines]
        issues += [KnowledgeIssue("knowledge/efficiency.yaml", 0, f"weight_formats.{k}.runs_checkpoints_of",
                                  f"unknown weight format {f.runs_checkpoints_of!r}")
                   for k, f in self.weight_formats.items()
                   if f.runs_checkpoints_of is not None and f.runs_checkpoints_of not in self.weight_formats]
        if issues:
            raise KnowledgeError(issues)
        for e in engines.values():
            base = self.engines[e.efficiency_class]
            self._profiles[e.id] = base.model_copy(update={
                "efficiency_class": e.efficiency_class,
                "memory_utilization": e.memory_utilization,
                "memory_utilization_of": e.memory_utilization_of,
                "max_batch_size": e.max_num_seqs or _MEMORY_LIMITED_SEQS,
                "activation_token_budget": e.max_num_batched_tokens or 0,
                "kv_cache_dtype_default": e.kv_cache_dtype_default,
                "kv_cache_dtype_quantized": dict(e.kv_cache_dtype_quantized),
                "chunked_prefill": e.chunked_prefill,
                "continuous_batching": e.continuous_batching,
                "prefix_caching": e.prefix_caching,
                "cuda_graphs": e.cuda_graphs,
                "fp16_accumulate": e.fp16_accumulate,
                "multi_gpu_split": e.multi_gpu_split,
                "fused_attention": e.fused_attention,
                "fused_attention_since": e.fused_attention_since,
                "attention_dp_replicates": e.attention_dp_replicates,
                "fact_sources": list(e.sources),
            })
        alias: dict[str, str] = {}
        for e in engines.values():
            alias[_norm(e.id)] = e.id
            for a in e.aliases:
                alias.setdefault(_norm(a), e.id)
        for key in self.engines:  # efficiency classes stay addressable by name
            alias.setdefault(_norm(key), key)
        self._engine_alias = alias

    # ------------------------------------------------------------------ lookups
    def c(self, name: str) -> float:
        """Value of constant ``name`` (raises ``KeyError`` when absent)."""
        return self.constants[name].value

    def weight_format(self, name: str) -> tuple[str, WeightFormat]:
        """Canonical name and :class:`WeightFormat` for a precision name (case-insensitive).

        Raises:
            UnknownEntityError: kind ``"precision"`` when the name matches no format or alias.
        """
        key = self._weight_alias.get(_norm(name))
        if key is None:
            raise UnknownEntityError("precision", name, _suggest(name, self.weight_formats))
        return key, self.weight_formats[key]

    def weight_only_fallback(self, name: str, gpu: Gpu, engine: str | None) -> tuple[str, WeightFormat] | None:
        """The format that runs checkpoints of format ``name`` on ``gpu`` when it lacks the format's hardware
        precision: a format whose ``runs_checkpoints_of`` is ``name``, whose ``min_compute_capability`` the GPU
        meets and whose ``engines`` include ``engine`` (FP8 checkpoints on Ampere under vLLM run as weight-only
        W8A16 on FP8 Marlin kernels: efficiency.yaml ``fp8-w8a16`` and its source).

        Args:
            name: canonical format name of the checkpoint (``"fp8"``).
            gpu: the accelerator.
            engine: canonical engine id, or ``None`` (no serving engine: training, non-LLM) for no fallback.

        Returns:
            (canonical name, format), or ``None`` when no engine/GPU fact allows a fallback.
        """
        if engine is None:
            return None
        cc = float(gpu.compute_capability) if gpu.compute_capability else None
        for key, fmt in self.weight_formats.items():
            if fmt.runs_checkpoints_of != name or (fmt.engines and engine not in fmt.engines):
                continue
            if fmt.min_compute_capability is not None and (cc is None or cc < fmt.min_compute_capability):
                continue
            if fmt.requires and not gpu.supports(fmt.requires):
                continue
            return key, fmt
        return None

    def kv_format(self, name: str) -> tuple[str, KvFormat]:
        """Canonical name and :class:`KvFormat` for a KV dtype name (case-insensitive).

        Raises:
            UnknownEntityError: kind ``"kv precision"`` when unknown.
        """
        key = self._kv_alias.get(_norm(name))
        if key is None:
            raise UnknownEntityError("kv precision", name, _suggest(name, self.kv_formats))
        return key, self.kv_formats[key]

    def engine(self, name: str) -> tuple[str, EngineProfile]:
        """Canonical engine id and its merged profile (``"nim"`` -> ``"tensorrt-llm"``).

        Raises:
            UnknownEntityError: kind ``"engine"`` when unknown.
        """
        key = self._engine_alias.get(_norm(name))
        if key is None:
            raise UnknownEntityError("engine", name, _suggest(name, self._profiles))
        return key, self._profiles[key]

    def tile_tokens(self, gpu: Gpu, fmt: WeightFormat | None = None) -> int:
        """Token rows of one tensor-core instruction tile on ``gpu`` (``tensor_core_tile_tokens``).

        The tile is a property of the instruction set, which follows the CUDA compute capability rather than
        the marketing generation (GeForce Blackwell, sm_120, has Ampere-style ``mma.sync`` and no ``tcgen05``),
        so a ``cc<major>.<minor>`` or ``cc<major>`` row wins over the generation row; then ``default``. A weight
        format with its own GEMM kernels (``WeightFormat.gemm_tile_tokens``: AWQ/GPTQ int4 on Marlin, which
        issues ``mma.sync`` m16n8k16 on every architecture, Hopper included) uses that tile, never more than
        the GPU's own.

        Args:
            gpu: the accelerator.
            fmt: the weight format of the GEMMs, if known.

        Returns:
            The minimum number of token rows one tensor-core matrix instruction processes.
        """
        table = self.tensor_core_tile_tokens
        keys = [f"cc{gpu.compute_capability}", f"cc{gpu.compute_capability.split('.')[0]}"] \
            if gpu.compute_capability else []
        row = next((table[k] for k in [*keys, self.generation(gpu)] if k in table), None) or table["default"]
        if fmt is not None and fmt.gemm_tile_tokens:
            return min(row.value, fmt.gemm_tile_tokens)
        return row.value

    def gemm_peak_fraction(self, gpu: Gpu, fmt: WeightFormat | None = None) -> float:
        """Fraction of the dense tensor peak a format's own GEMM kernels can reach on ``gpu``.

        A format whose kernels issue a smaller instruction tile than the GPU's (``mma.sync`` on a part whose
        peak needs ``wgmma``/``tcgen05``: Marlin on Hopper or datacenter Blackwell) runs on the legacy path,
        which reaches ``legacy_mma_peak_fraction`` of the peak (constant, FlashAttention-3 paper); else 1.

        Args:
            gpu: the accelerator.
            fmt: the weight format of the GEMMs, if known.

        Returns:
            A multiplier in (0, 1] on the GEMM rate.
        """
        if fmt is None or not fmt.gemm_tile_tokens:
            return 1.0
        return self.c("legacy_mma_peak_fraction") if fmt.gemm_tile_tokens < self.tile_tokens(gpu) else 1.0

    def generation(self, gpu: Gpu) -> str:
        """Generation key (``"ampere"``, ``"hopper"`` ...) from ``gpu.architecture``; ``"default"``."""
        arch = gpu.architecture.lower()
        for g in self.generations:
            if arch.startswith(g.prefix):
                return g.key
        return "default"

    def _mfu(self, table: dict[str, dict], gpu: Gpu, compute: str) -> tuple[float, str]:
        row = table.get(self.generation(gpu)) or table["default"]
        cls = "16bit" if compute in ("bf16", "fp16") else compute
        value = row.get(cls, row.get("default"))
        return float(value), str(row.get("source", ""))

    def inference_mfu_for(self, gpu: Gpu, compute: str) -> tuple[float, str]:
        """(inference MFU for the best engine class, source) for ``gpu`` and compute precision."""
        return self._mfu(self.inference_mfu, gpu, compute)

    def training_mfu_for(self, gpu: Gpu, compute: str) -> tuple[float, str]:
        """(steady-state training MFU, source) for ``gpu`` and compute precision."""
        return self._mfu(self.training_mfu, gpu, compute)

    def interconnect_class(self, gpu: Gpu, tp: int = 2) -> str:
        """``nvlink`` (NVLink, Infinity Fabric or another vendor's device link such as Ascend HCCS), ``no_p2p``
        (consumer card without NVLink) or ``pcie``.

        An NVLink *bridge* on PCIe cards (RTX 3090, A40, RTX A6000, H100 PCIe) joins two cards only, so
        tensor parallelism over more than two of them runs over PCIe."""
        if gpu.nvlink_gb_s and not (tp > 2 and "pcie" in gpu.form_factor.lower()):
            return "nvlink"
        if gpu.nvlink_gb_s:
            return "pcie"
        if gpu.peer_link is not None:
            return "nvlink"  # a vendor device link (HCCS, MLU-Link, MTLink): the NVLink-class parameters apply
        if gpu.segment == "consumer":
            return "no_p2p"
        if gpu.vendor == "AMD" and gpu.segment == "datacenter":
            return "nvlink"  # Infinity Fabric links on OAM parts (MI300X: 896 GB/s), not in nvlink_gb_s
        return "pcie"

    def interconnect(self, gpu: Gpu, group: int, gpus_per_node: int) -> tuple[str, Interconnect, float]:
        """(class, :class:`Interconnect`, collective bandwidth GB/s per GPU) for a group of ``group``
        GPUs of type ``gpu``; ``infiniband`` when the group spans more than ``gpus_per_node``."""
        cls = "infiniband" if group > gpus_per_node else self.interconnect_class(gpu, group)
        ic = self.interconnects[cls]
        bw = ic.bandwidth_gb_s
        link_gb_s = gpu.nvlink_gb_s or (gpu.peer_link.gb_s if gpu.peer_link is not None else None)
        if cls == "nvlink" and link_gb_s and ic.bandwidth_fraction:
            bw = link_gb_s / 2 * ic.bandwidth_fraction
        elif cls == "pcie" and gpu.pcie_gen:
            bw = ic.bandwidth_gb_s * 2 ** (gpu.pcie_gen - 4)  # PCIe bandwidth doubles per generation
        return cls, ic, bw

    def allreduce_s(self, gpu: Gpu, group: int, nbytes: float, gpus_per_node: int) -> float:
        """Seconds for one all-reduce of ``nbytes`` per GPU over ``group`` GPUs: latency(n) +
        2 (n-1)/n x bytes / bandwidth (ring all-reduce; see ``interconnects`` in efficiency.yaml).
        A group spanning nodes reduces hierarchically (NCCL): inside each node over its links, then
        across nodes over InfiniBand, where every GPU's NIC carries 1/node of the bytes."""
        if group <= 1:
            return 0.0
        if group > gpus_per_node:
            nodes = math.ceil(group / gpus_per_node)
            intra = self.allreduce_s(gpu, gpus_per_node, nbytes, gpus_per_node)
            ic = self.interconnects["infiniband"]
            lat = ic.allreduce_latency_us + ic.allreduce_latency_per_doubling_us * math.log2(nodes)
            return intra + lat * 1e-6 + 2 * (nodes - 1) / nodes * nbytes / gpus_per_node / (ic.bandwidth_gb_s * 1e9)
        _, ic, bw = self.interconnect(gpu, group, gpus_per_node)
        lat = ic.allreduce_latency_us + ic.allreduce_latency_per_doubling_us * math.log2(group)
        return lat * 1e-6 + 2 * (group - 1) / group * nbytes / (bw * 1e9)

    def alltoall_s(self, gpu: Gpu, group: int, nbytes: float, gpus_per_node: int) -> float:
        """Seconds for one expert-parallel all-to-all (dispatch or combine) moving ``nbytes`` per GPU."""
        if group <= 1:
            return 0.0
        _, ic, bw = self.interconnect(gpu, group, gpus_per_node)
        return ic.alltoall_latency_us * 1e-6 + (group - 1) / group * nbytes / (bw * 1e9)

    def hop_s(self, gpu: Gpu, nbytes: float, across_nodes: bool) -> float:
        """Seconds for one pipeline-stage hand-off of ``nbytes`` of activations."""
        cls = "infiniband" if across_nodes else self.interconnect_class(gpu, 2)
        ic = self.interconnects[cls]
        bw = gpu.nvlink_gb_s / 2 * ic.bandwidth_fraction if (cls == "nvlink" and gpu.nvlink_gb_s
                                                             and ic.bandwidth_fraction) else ic.bandwidth_gb_s
        return ic.hop_latency_us * 1e-6 + nbytes / (bw * 1e9)


def _norm(name: str) -> str:
    return name.strip().lower().replace(" ", "").replace("_", "-")


def _alias_map(table: dict[str, BaseModel]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, entry in table.items():
        out[_norm(key)] = key
        for alias in getattr(entry, "aliases", []):
            out.setdefault(_norm(alias), key)
    return out


def _suggest(name: str, table: dict) -> list[str]:
    import difflib

    return difflib.get_close_matches(name.lower(), list(table), n=3, cutoff=0.5)


def load_efficiency(path: str | Path) -> EfficiencyTable:
    """Parse and validate an ``efficiency.yaml`` file.

    Args:
        path: the YAML file.

    Returns:
        The validated :class:`EfficiencyTable`.

    Raises:
        KnowledgeError: when the file is missing, is not YAML or does not match the schema.
    """
    path = Path(path)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, yaml.YAMLError) as exc:
        raise KnowledgeError([KnowledgeIssue(str(path), 0, "(file)", str(exc))]) from exc
    try:
        return EfficiencyTable.model_validate(raw)
    except ValidationError as exc:
        lines = _LineMap(path)
        issues = [KnowledgeIssue(str(path), lines.line(list(e["loc"])), ".".join(str(p) for p in e["loc"]) or "(file)",
                                 e["msg"]) for e in exc.errors()]
        raise KnowledgeError(issues) from exc


def efficiency_for(kb: KnowledgeBase) -> EfficiencyTable:
    """The efficiency table of ``kb`` (``kb.directory / "efficiency.yaml"``), loaded once per kb object.

    Raises:
        KnowledgeError: as :func:`load_efficiency`.
    """
    table = kb._cache.get(_CACHE_KEY)
    if table is None:
        with _lock:
            table = kb._cache.get(_CACHE_KEY)
            if table is None:
                table = load_efficiency(kb.directory / "efficiency.yaml")
                table.attach_engines(kb.engines)
                kb._cache[_CACHE_KEY] = table
    return table
