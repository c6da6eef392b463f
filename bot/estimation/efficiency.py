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

import threading
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.errors import KnowledgeError, KnowledgeIssue, UnknownEntityError
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu

__all__ = [
    "Constant",
    "EfficiencyTable",
    "EngineProfile",
    "KvFormat",
    "WeightFormat",
    "efficiency_for",
    "load_efficiency",
]

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_lock = threading.Lock()
_CACHE_KEY = "estimation.efficiency"


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
    """

    bytes_per_weight: float = Field(gt=0)
    kind: Literal["float", "integer", "weight_only", "gguf"]
    compute: str
    requires: str | None = None
    mbu_class: Literal["16bit", "8bit", "4bit"]
    embeddings_16bit: bool = False
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
    """Efficiency profile of a serving-engine class.

    Attributes:
        decode_mbu: kernel-level decode memory-bandwidth utilisation per ``mbu_class``.
        step_overhead_ms: fixed time per decode step (launches, sampling, scheduling), ms.
        prefill_overhead_ms: fixed time added to TTFT, ms.
        inference_mfu_factor: multiplier on the per-generation inference MFU.
        memory_utilization: fraction of device memory the engine may use / pre-allocates.
        max_batch_size: the engine's default cap on concurrent sequences.
        activation_token_budget: tokens per forward pass the activation workspace is sized for
            (0 = the batch's own prompt tokens).
    """

    aliases: list[str] = Field(default_factory=list)
    decode_mbu: dict[str, float]
    step_overhead_ms: float = Field(ge=0)
    prefill_overhead_ms: float = Field(ge=0)
    inference_mfu_factor: float = Field(gt=0, le=1)
    memory_utilization: float = Field(gt=0, le=1)
    max_batch_size: int = Field(gt=0)
    activation_token_budget: int = Field(ge=0)


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
    generations: list[_Generation]
    inference_mfu: dict[str, dict[str, float | str | date]]
    training_mfu: dict[str, dict[str, float | str | date]]
    tp_efficiency: dict[str, dict[int | str, float | str | date]]

    def model_post_init(self, __context: object) -> None:  # build alias maps once
        self._weight_alias = _alias_map(self.weight_formats)
        self._kv_alias = _alias_map(self.kv_formats)
        self._engine_alias = _alias_map(self.engines)

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
        """Canonical engine class and its profile (``"nim"`` -> ``"tensorrt-llm"``).

        Raises:
            UnknownEntityError: kind ``"engine"`` when unknown.
        """
        key = self._engine_alias.get(_norm(name))
        if key is None:
            raise UnknownEntityError("engine", name, _suggest(name, self.engines))
        return key, self.engines[key]

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
        """``nvlink`` (NVLink/Infinity Fabric listed), ``no_p2p`` (consumer card without NVLink) or ``pcie``.

        An NVLink *bridge* on PCIe cards (RTX 3090, A40, RTX A6000, H100 PCIe) joins two cards only, so
        tensor parallelism over more than two of them runs over PCIe."""
        if gpu.nvlink_gb_s and not (tp > 2 and "pcie" in gpu.form_factor.lower()):
            return "nvlink"
        if gpu.nvlink_gb_s:
            return "pcie"
        if gpu.segment == "consumer":
            return "no_p2p"
        if gpu.vendor == "AMD" and gpu.segment == "datacenter":
            return "nvlink"  # Infinity Fabric links on OAM parts (MI300X: 896 GB/s), not in nvlink_gb_s
        return "pcie"

    def tp_efficiency_for(self, gpu: Gpu, tp: int) -> float:
        """Fraction of per-GPU bandwidth/compute kept at tensor-parallel degree ``tp``."""
        if tp <= 1:
            return 1.0
        row = self.tp_efficiency[self.interconnect_class(gpu, tp)]
        if tp in row:
            return float(row[tp])
        known = sorted(k for k in row if isinstance(k, int))
        below = max(k for k in known if k <= tp)
        return float(row[below])


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
        issues = [KnowledgeIssue(str(path), 0, ".".join(str(p) for p in e["loc"]) or "(file)", e["msg"])
                  for e in exc.errors()]
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
                kb._cache[_CACHE_KEY] = table
    return table
