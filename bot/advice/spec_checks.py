"""A spec figure or ratio the user states, checked against ``knowledge/gpus.yaml`` (``Query.spec_checks``).

The rule, in one place:

* **Which GPUs.** A GPU named without its variant ("H100", "A100": ``GpuMention.variant_assumed``) stands for every
  variant of its family (``Gpu.family``: H100 SXM5, PCIe and NVL), of the memory size the name states when it states
  one ("A100 80GB": SXM4 or PCIe 80GB); a GPU is never compared with itself; a figure the question states for that GPU that
  matches only some variants narrows it to those ("H100 显存带宽 3.35TB/s" is the H100 SXM5). A named variant, or a
  GPU without a family, is itself.
* **Matching.** A stated figure or ratio matches when it is within ``policy.spec_check.match_tolerance`` of the
  knowledge base's (a fraction of it: 5%). A TFLOPS figure is compared with the dense figure of the precision named
  (``Gpu.dense_tflops``), then with the 2:4-sparse one (``Gpu.sparse_tflops``; ``bf16_fp16`` for bf16 and fp16);
  with no precision named, with every precision's. A ratio bounded "more than" holds at or above the stated ratio
  less the tolerance, "less than" at or below it plus the tolerance.
* **Verdict.** ``true``: it holds for every variant considered; ``sparse_only``: a TFLOPS figure that is only the
  sparse figure (of some variants); ``depends_on_variant``: it holds for some variants only; ``false``: for none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Gpu
from bot.parsing.query import GpuMention, SpecCheck

__all__ = ["FigureCase", "RatioCase", "SpecVerdict", "check_specs", "spec_figure"]

Verdict = Literal["true", "sparse_only", "depends_on_variant", "false"]
#: how bad a verdict is, for ordering several checks: the one that is not simply true leads
SEVERITY: dict[str, int] = {"false": 0, "sparse_only": 1, "depends_on_variant": 2, "true": 3}
_DENSE16 = ("bf16", "fp16")


@dataclass(frozen=True)
class FigureCase:
    """One GPU's figure for a stated figure.

    Attributes:
        gpu: the variant.
        dense: its figure (for TFLOPS the dense one of ``precision``), in the check's unit; ``None`` when not known.
        sparse: for TFLOPS, the 2:4-sparse figure of ``precision``, else ``None``.
        precision: for TFLOPS, the precision whose figures these are.
        outcome: ``dense`` (the stated figure is ``dense``), ``sparse`` (it is ``sparse``) or ``none``.
    """

    gpu: Gpu
    dense: float | None
    sparse: float | None
    precision: str | None
    outcome: Literal["dense", "sparse", "none"]


@dataclass(frozen=True)
class RatioCase:
    """One pair of variants for a stated ratio: ``gpu``'s figure over ``other``'s (dense TFLOPS for compute)."""

    gpu: Gpu
    other: Gpu
    numerator: float
    denominator: float
    holds: bool

    @property
    def value(self) -> float:
        """The ratio, dimensionless."""
        return self.numerator / self.denominator


@dataclass(frozen=True)
class SpecVerdict:
    """A :class:`SpecCheck` checked: its verdict and the cases it rests on (figures or ratios, best first)."""

    check: SpecCheck
    verdict: Verdict
    figures: tuple[FigureCase, ...] = ()
    ratios: tuple[RatioCase, ...] = ()


def spec_figure(gpu: Gpu, spec: str, precision: str | None = None) -> float | None:
    """A GPU's figure for a spec, in the spec's unit (dense TFLOPS of ``precision``, bf16 then fp16 when ``None``).

    Args:
        gpu: the GPU.
        spec: a :data:`~bot.parsing.query.SpecField`.
        precision: for ``tflops``, a key of ``Gpu.dense_tflops``.

    Returns:
        The figure, or ``None`` when the knowledge base has none.
    """
    if spec == "tflops":
        for p in (precision,) if precision else _DENSE16:
            if (v := getattr(gpu.dense_tflops, p, None)) is not None:
                return float(v)
        return None
    value = getattr(gpu, spec, None)
    return float(value) if isinstance(value, int | float) else None


def _sparse(gpu: Gpu, precision: str) -> float | None:
    value = gpu.sparse_tflops.get("bf16_fp16" if precision in _DENSE16 else precision)
    return float(value) if value is not None else None


def _near(stated: float, actual: float | None, tolerance: float) -> bool:
    return actual is not None and actual > 0 and abs(stated / actual - 1) <= tolerance


def _variants(kb: KnowledgeBase, gpu_id: str, mentions: list[GpuMention]) -> list[Gpu]:
    """The GPU itself first, then the other variants of its family when the question did not say which (of the
    memory size the name states, when it states one: "A100 80GB" is the SXM4 or PCIe 80GB)."""
    gpu = kb.gpus[gpu_id]
    mention = next((m for m in mentions if m.id == gpu_id), None)
    if mention is None or not mention.variant_assumed or gpu.family is None:
        return [gpu]
    same = [g for g in kb.gpus.values() if g.family == gpu.family and g.id != gpu.id and not g.aftermarket_of]
    if mention.memory_gb is not None or re.search(rf"(?<![\d.]){gpu.memory_gb:g}(?![\d.])", mention.as_written):
        same = [g for g in same if g.memory_gb == gpu.memory_gb]
    return [gpu, *same]


def _figure_case(gpu: Gpu, check: SpecCheck, tolerance: float) -> FigureCase:
    stated = float(check.value or 0)
    if check.spec != "tflops":
        actual = spec_figure(gpu, check.spec)
        return FigureCase(gpu, actual, None, None, "dense" if _near(stated, actual, tolerance) else "none")
    precisions = [check.precision] if check.precision else [
        p for p in ("bf16", "fp16", "fp8", "int8", "fp4", "int4", "tf32", "fp32", "fp64")
        if getattr(gpu.dense_tflops, p, None) is not None]
    cases = [FigureCase(gpu, spec_figure(gpu, "tflops", p), _sparse(gpu, p), p, "none") for p in precisions]
    for outcome in ("dense", "sparse"):
        hit = next((c for c in cases if _near(stated, c.dense if outcome == "dense" else c.sparse, tolerance)), None)
        if hit is not None:
            return FigureCase(gpu, hit.dense, hit.sparse, hit.precision, outcome)
    return cases[0] if cases else FigureCase(gpu, None, None, check.precision, "none")


def _ratio_holds(check: SpecCheck, value: float, tolerance: float) -> bool:
    stated = float(check.ratio or 0)
    if check.bound == "more_than":
        return value >= stated * (1 - tolerance)
    if check.bound == "less_than":
        return value <= stated * (1 + tolerance)
    return abs(value / stated - 1) <= tolerance


def check_specs(kb: KnowledgeBase, checks: list[SpecCheck], mentions: list[GpuMention]) -> list[SpecVerdict]:
    """Every stated spec figure and ratio checked (see the module docstring for the rule).

    Args:
        kb: the knowledge base (GPUs, and ``policy.spec_check.match_tolerance``).
        checks: ``Query.spec_checks``.
        mentions: ``Query.gpus`` (which were named without their variant).

    Returns:
        One :class:`SpecVerdict` per check whose GPUs the knowledge base has figures for, the checks that are not
        simply true first, then ratios before figures, then in the question's order.
    """
    tolerance = kb.policy.spec_check.match_tolerance.value
    known = [c for c in checks if c.gpu in kb.gpus and (c.other_gpu is None or c.other_gpu in kb.gpus)]
    figures: dict[int, SpecVerdict] = {}
    narrowed: dict[str, list[Gpu]] = {}
    for i, check in enumerate(known):
        if check.value is None:
            continue
        cases = [_figure_case(g, check, tolerance) for g in _variants(kb, check.gpu, mentions)]
        outcomes = {c.outcome for c in cases}
        verdict: Verdict = ("true" if outcomes == {"dense"} else "depends_on_variant" if "dense" in outcomes
                            else "sparse_only" if "sparse" in outcomes else "false")
        order = {"dense": 0, "sparse": 1, "none": 2}
        figures[i] = SpecVerdict(check, verdict, figures=tuple(sorted(cases, key=lambda c: order[c.outcome])))
        matching = [c.gpu for c in cases if c.outcome != "none"]
        if matching:  # a stated figure tells which variant was meant
            narrowed[check.gpu] = matching
    out: list[SpecVerdict] = []
    for i, check in enumerate(known):
        if i in figures:
            out.append(figures[i])
            continue
        ratios = []
        for a in narrowed.get(check.gpu) or _variants(kb, check.gpu, mentions):
            for b in narrowed.get(check.other_gpu or "") or _variants(kb, check.other_gpu or "", mentions):
                num, den = spec_figure(a, check.spec), spec_figure(b, check.spec)
                if a.id != b.id and num and den and not any(r.numerator == num and r.denominator == den for r in ratios):
                    ratios.append(RatioCase(a, b, num, den, _ratio_holds(check, num / den, tolerance)))
        if not ratios:
            continue
        held = {r.holds for r in ratios}
        verdict = "true" if held == {True} else "false" if held == {False} else "depends_on_variant"
        out.append(SpecVerdict(check, verdict, ratios=tuple(ratios)))
    # at equal severity a ratio leads: it is the conclusion the question draws, and a figure stated with it is its
    # premise (it often only says which variant is meant)
    return sorted(out, key=lambda v: (SEVERITY[v.verdict], not v.ratios))
