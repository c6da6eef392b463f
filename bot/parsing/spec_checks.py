"""Spec figures and ratios the user states and asks whether they are true (``Query.spec_checks``).

"is the 4090 really 165 TFLOPS in fp16?", "does an L40S have 864 GB/s?", "MI300X has 2.4x the memory of H100,
right?", "文章里说 H100 显存带宽 3.35TB/s，比 A100 快一倍多，对吗". Read from what the other scanners found (figures
with their units, ratios, GPU names, spec words, precisions), when the question asks whether something is true
(lexicon ``spec_checks.truth_cues`` anywhere, ``truth_openers`` at its start) and names no model (a figure said
beside a model describes a setup to size, not a fact to check).

Rules, in one place:

* a figure's spec is its unit's: TFLOPS/PFLOPS -> ``tflops``, GB -> ``memory_gb``, W -> ``tdp_watts``, GB/s or TB/s ->
  ``memory_bandwidth_gb_s``, or ``nvlink_gb_s`` when the spec word nearest the figure is an NVLink one;
* a figure is about the GPU named nearest before it (else the first named after it); a TFLOPS figure's precision is
  the precision named nearest to it;
* a ratio's spec is the spec word nearest to it, else the spec of a figure stated in the same question
  ("H100 显存带宽 3.35TB/s，比 A100 快一倍多"); it compares the first GPU named (the numerator) with the second; said as
  slower it is inverted ("2x slower than B": 0.5 of B, its bound flipped).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.parsing.gpus import FoundGpu
from bot.parsing.lexicon import Lexicon
from bot.parsing.quantities import Found, QuantityScan
from bot.parsing.query import SpecCheck

__all__ = ["find_spec_checks"]

#: scanner kind -> (spec, unit of the value)
_FIGURES = {"compute_tflops": ("tflops", "TFLOPS"), "bandwidth_gb_s": ("memory_bandwidth_gb_s", "GB/s"),
            "memory_gb": ("memory_gb", "GB"), "power_watts": ("tdp_watts", "W")}
_CHECKABLE = {"memory_gb", "memory_bandwidth_gb_s", "tflops", "tdp_watts", "nvlink_gb_s"}
#: precisions a TFLOPS figure can be given in (keys of ``Gpu.dense_tflops``)
_TENSOR_PRECISIONS = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"}
_FLIP = {"about": "about", "more_than": "less_than", "less_than": "more_than"}


def _nearest(hits: list[tuple[int, str]], start: int, end: int) -> str | None:
    """The value of the hit nearest to ``[start, end)`` (distance between spans), or ``None``."""
    best = min(hits, key=lambda h: min(abs(h[0] - start), abs(h[0] - end)), default=None)
    return best[1] if best else None


def asks_truth(low: str, lex: Lexicon) -> bool:
    """Whether the question asks whether something is true (a truth cue anywhere, or a truth opener first)."""
    return bool(lex.truth_cues.search(low) or re.match(rf"\s*(?:{lex.truth_openers.pattern})", low))


_SENTENCE_END = re.compile(r"[.?!。？！；;]+(?:\s|$)")


def _asked_in_its_sentence(low: str, pos: int, lex: Lexicon) -> bool:
    """Whether the sentence holding ``pos`` asks for a truth ("the paper claims X. ... was it 40GB or 80GB?": the
    figure of the second sentence is a choice, not a claim to check)."""
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(low) if m.end() <= pos]
    start = starts[-1]
    end_m = _SENTENCE_END.search(low, pos)
    sentence = low[start:end_m.end() if end_m else len(low)]
    return asks_truth(sentence, lex) if start == 0 else bool(lex.truth_cues.search(sentence))


def find_spec_checks(low: str, written: Callable[[int, int], str], scan: QuantityScan, gpu_found: list[FoundGpu],
                     lex: Lexicon, has_model: bool) -> tuple[list[SpecCheck], list[Found]]:
    """The spec checks a question asks for (see the module docstring for the rules).

    Args:
        low: the prepared, lower-cased question.
        written: the user's text of a span of ``low`` (``PreparedText.written``).
        scan: the quantities read from it (:func:`bot.parsing.quantities.scan_quantities`).
        gpu_found: the GPU names found, in any order.
        lex: the lexicon.
        has_model: whether the question names a model (then no figure is a spec check).

    Returns:
        (checks in order of the figures and ratios, compute figures read but used by no check), the latter to be
        reported as not understood: a TFLOPS figure is only ever read to be checked.
    """
    computes = scan.all("compute_tflops")
    if has_model or not asks_truth(low, lex):
        return [], computes
    named = sorted((f for f in gpu_found if f.id is not None), key=lambda f: f.start)
    if not named:
        return [], computes
    spec_words = [(m.start(), lex.spec_fields.value(m.group(0))) for m in lex.spec_fields.finditer(low)]
    spec_words = [(pos, spec) for pos, spec in spec_words if spec in _CHECKABLE]
    precisions = [(m.start(), lex.precisions.value(m.group(0))) for m in lex.precisions.finditer(low)]
    precisions = [(pos, p) for pos, p in precisions if p in _TENSOR_PRECISIONS]
    checks: list[tuple[int, SpecCheck]] = []
    for f in scan.found:
        if f.field not in _FIGURES or not _asked_in_its_sentence(low, f.start, lex):
            continue
        spec, unit = _FIGURES[f.field]
        if spec == "memory_bandwidth_gb_s" and _nearest(spec_words, f.start, f.end) == "nvlink_gb_s":
            spec = "nvlink_gb_s"
        before = [g for g in named if g.start < f.start]
        gpu = before[-1] if before else named[0]
        precision = _nearest(precisions, f.start, f.end) if spec == "tflops" else None
        checks.append((f.start, SpecCheck(spec=spec, gpu=gpu.id, value=float(f.value), unit=unit, precision=precision,
                                          as_written=written(f.start, f.end).strip())))
    ids = list(dict.fromkeys(g.id for g in named))
    for f in scan.all("multiplier"):
        spec = _nearest(spec_words, f.start, f.end) or next((c.spec for _, c in checks), None)
        if spec is None or len(ids) < 2:
            continue
        value, bound = float(f.value["value"]), f.value["bound"]
        if f.value["direction"] == "slower":
            value, bound = 1 / value, _FLIP[bound]
        checks.append((f.start, SpecCheck(spec=spec, gpu=ids[0], other_gpu=ids[1], ratio=value, bound=bound,
                                          as_written=written(f.start, f.end).strip())))
    checks.sort(key=lambda c: c[0])
    used = {start for start, c in checks if c.spec == "tflops" and c.value is not None}
    return [c for _, c in checks], [f for f in computes if f.start not in used]
