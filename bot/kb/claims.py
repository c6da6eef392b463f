"""The H100 article's claims (``knowledge/claims.yaml``): their ratios, their texts, and how a
question that quotes or paraphrases one is recognised.

Every number a claim's verdict cites is a :class:`~bot.kb.schema.Ratio` computed here from the
knowledge base at run time (GPU fields from gpus.yaml, the claims file's sourced constants, price
offers), and its texts cite them through placeholders (``{c01_bf16}``), so a figure corrected in
gpus.yaml corrects every verdict that uses it.

Recognition (:func:`match_claims`) applies the claims' ``cues`` as data: an alternative matches when
all of its terms occur in the question. Both the question and the terms are normalised with Unicode
NFKC and case folding (full-width ``３０倍`` is ``30倍``, ``H100`` is ``h100``, ``×`` is ``x``); a
space or hyphen in a term is optional in the question (``chip to chip`` matches ``chip-to-chip``),
as is a space between a number and its unit (``30倍`` matches ``30 倍``). Numbers are matched whole:
``30x`` does not match inside ``130x``, ``h100`` not inside ``h1000``, ``六倍`` not inside ``十六倍``;
a term that ends in a letter may take a plural ``s`` but not another letter (``nvl`` does not match
``nvlink``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Literal

from bot.kb.schema import PLACEHOLDER, Claim, ClaimConstant, Gpu, Operand, PriceOffer, Ratio, gpu_field_unit

if TYPE_CHECKING:
    from bot.kb.loader import KnowledgeBase

__all__ = [
    "Figure",
    "RatioValue",
    "claim_text",
    "compile_term",
    "match_claims",
    "normalize_question",
    "quotes_article_wording",
    "ratio_values",
    "resolve_operand",
]

Lang = Literal["en", "zh"]

_CJK_NUMERALS = "零〇一二两三四五六七八九十百千万亿"
_SEPARATORS = " -_"
_SEP = r"[\s\-_]*"


@dataclass(frozen=True)
class Figure:
    """One side of a computed ratio.

    Attributes:
        value: the figure times the operand's ``times``, in ``unit``.
        unit: ``"GB/s"``, ``"TFLOPS"``, ``"USD/GPU-hour"`` ...
        what: where it comes from, for an answer's sources: ``"h100-sxm-80gb nvlink_gb_s x 8"``,
            ``"constant pcie_gen5_x16_gb_s"``, ``"offer paperspace H100 (hourly)"``.
        as_of: the date of the figure (the GPU entry's, the constant's or the offer's).
    """

    value: float
    unit: str
    what: str
    as_of: date | None


@dataclass(frozen=True)
class RatioValue:
    """A :class:`~bot.kb.schema.Ratio` evaluated: ``numerator.value / denominator.value``."""

    ratio: Ratio
    numerator: Figure
    denominator: Figure

    @property
    def value(self) -> float:
        """The ratio, dimensionless."""
        return self.numerator.value / self.denominator.value


def resolve_operand(op: Operand, gpus: Mapping[str, Gpu], constants: Mapping[str, ClaimConstant],
                    offers: tuple[PriceOffer, ...] | list[PriceOffer]) -> Figure:
    """The value of one ratio operand.

    Args:
        op: the operand.
        gpus: GPU id -> :class:`Gpu` (``KnowledgeBase.gpus``).
        constants: the claims file's constants.
        offers: every price offer (``KnowledgeBase.offers``).

    Returns:
        The :class:`Figure`, already multiplied by ``op.times``.

    Raises:
        ValueError: the GPU, field, constant or offer does not exist, or the figure is null
            (the message says which); the loader reports it as ``file:line: field: message``.
    """
    suffix = f" x {op.times:g}" if op.times != 1 else ""
    if op.gpu is not None and op.field is not None:
        gpu = gpus.get(op.gpu)
        if gpu is None:
            raise ValueError(f"unknown GPU id {op.gpu!r}")
        value: object = gpu
        for part in op.field.split("."):
            value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if not isinstance(value, int | float):
            raise ValueError(f"{op.gpu} {op.field} is null in gpus.yaml")
        return Figure(float(value) * op.times, gpu_field_unit(op.field) or "", f"{op.gpu} {op.field}{suffix}",
                      gpu.as_of)
    if op.constant is not None:
        const = constants.get(op.constant)
        if const is None:
            raise ValueError(f"unknown constant {op.constant!r} (not under the file's constants)")
        return Figure(const.value * op.times, const.unit, f"constant {op.constant}{suffix}", const.as_of)
    for offer in offers:
        if offer.provider == op.provider and offer.instance_type == op.instance_type:
            if offer.price_per_gpu_hour_usd is None:
                raise ValueError(f"offer {op.provider} {op.instance_type!r} has no price")
            return Figure(offer.price_per_gpu_hour_usd * op.times, "USD/GPU-hour",
                          f"offer {op.provider} {op.instance_type}{suffix}", offer.as_of)
    raise ValueError(f"no price offer {op.instance_type!r} from provider {op.provider!r}")


def ratio_values(kb: KnowledgeBase, claim: Claim) -> dict[str, RatioValue]:
    """Every ratio of ``claim`` computed from ``kb``.

    Args:
        kb: the knowledge base (its GPUs, offers and the claims file's constants).
        claim: a claim of ``kb.claims``.

    Returns:
        Ratio id -> :class:`RatioValue`, in the claim's order.

    Raises:
        ValueError: an operand does not resolve; cannot happen for a knowledge base that
            :func:`bot.kb.loader.load_knowledge` accepted, which checks every operand.
    """
    out: dict[str, RatioValue] = {}
    for ratio in claim.ratios:
        num = resolve_operand(ratio.numerator, kb.gpus, kb.claim_constants, kb.offers)
        den = resolve_operand(ratio.denominator, kb.gpus, kb.claim_constants, kb.offers)
        out[ratio.id] = RatioValue(ratio, num, den)
    return out


def _fmt_ratio(value: float) -> str:
    if value >= 10:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.2f}"


def _fmt_figure(value: float) -> str:
    value = round(value, 2)
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def claim_text(kb: KnowledgeBase, claim: Claim, text: str) -> str:
    """``text`` (one of ``claim``'s texts) with its placeholders replaced by computed figures.

    ``{r}`` is ratio ``r`` (``3.17``; ``18`` from 10 up; ``0.60`` below 1), ``{r%}`` the ratio as a
    percentage (``60%``), ``{r.num}`` / ``{r.den}`` its operands (``3,350``), and ``*N`` scales an
    operand for display (``{r.num*10}``: 80 billion written as 800 亿).

    Args:
        kb: the knowledge base the figures come from.
        claim: the claim whose ratios the placeholders name.
        text: e.g. ``claim.verdict_text.zh``.

    Returns:
        The text with every placeholder filled.
    """
    values = ratio_values(kb, claim)

    def fill(match: re.Match[str]) -> str:
        rv = values[match.group(1)]
        scale = float(match.group(3)) if match.group(3) else 1.0
        if match.group(2) == "num":
            return _fmt_figure(rv.numerator.value * scale)
        if match.group(2) == "den":
            return _fmt_figure(rv.denominator.value * scale)
        if match.group(4):
            return f"{rv.value * scale * 100:.0f}%"
        return _fmt_ratio(rv.value * scale)

    return PLACEHOLDER.sub(fill, text)


# --------------------------------------------------------------------------- recognition

def normalize_question(text: str) -> str:
    """NFKC, case-folded, ``×`` as ``x``: the form cues are matched against."""
    return unicodedata.normalize("NFKC", text).casefold().replace("×", "x")


def _is_ascii_letter(ch: str) -> bool:
    return "a" <= ch <= "z"


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def compile_term(term: str) -> re.Pattern[str]:
    """The regular expression a cue term matches with (see the module docstring for the rules).

    Args:
        term: one cue term as written in claims.yaml (``"30x faster"``, ``"六倍"``, ``"chip to chip"``).

    Returns:
        A compiled pattern to search in :func:`normalize_question` output.

    Raises:
        ValueError: the term is empty after normalisation.
    """
    chars = normalize_question(term).strip()
    if not chars.strip(_SEPARATORS):
        raise ValueError(f"empty cue term {term!r}")
    parts: list[str] = []
    prev: str | None = None
    for ch in chars:
        if ch in _SEPARATORS:
            if parts and parts[-1] != _SEP:
                parts.append(_SEP)
            prev = None
            continue
        if prev is not None and _is_digit(prev) != _is_digit(ch):
            parts.append(r"\s*")  # "30倍" also matches "30 倍"; "h100" also "h 100"
        parts.append(re.escape(ch))
        prev = ch
    first, last = chars[0], chars[-1]
    # what may not come before the first character is tested after it (lookbehinds ending with it), so the pattern
    # starts with a literal and the regex engine skips, in C, to where that character occurs; parts[0] is it
    if _is_ascii_letter(first):
        lead = f"(?:(?<![a-z]{first})|(?<=[0-9]x{first}))"  # "h100" in "8xh100" but not in "gh100"
    elif _is_digit(first):
        lead = f"(?<![0-9.]{first})"
    elif first in _CJK_NUMERALS:
        lead = f"(?<![0-9{_CJK_NUMERALS}]{first})"
    else:
        lead = ""
    if lead:
        parts.insert(1, lead)
    if _is_ascii_letter(last):
        trail = r"s?(?![a-z0-9])"
    elif _is_digit(last):
        trail = r"(?![0-9]|\.[0-9])"
    elif last in _CJK_NUMERALS:
        trail = f"(?![{_CJK_NUMERALS}])"
    else:
        trail = ""
    return re.compile("".join(parts) + trail)


@dataclass(frozen=True)
class _CompiledClaim:
    claim: Claim
    alternatives: tuple[tuple[re.Pattern[str], ...], ...]
    exclusions: tuple[re.Pattern[str], ...]


def _compiled(kb: KnowledgeBase) -> list[_CompiledClaim]:
    cached = kb._cache.get("claim_cues")
    if cached is None:
        cached = []
        for claim in kb.claims.values():
            alts = tuple(tuple(compile_term(t) for t in alt) for alt in (*claim.cues.en, *claim.cues.zh))
            cached.append(_CompiledClaim(claim, alts, tuple(compile_term(t) for t in claim.cue_exclusions)))
        kb._cache["claim_cues"] = cached
    return cached


def match_claims(kb: KnowledgeBase, text: str) -> list[Claim]:
    """The claims of ``kb`` that ``text`` quotes or paraphrases, best match first.

    A claim matches when all terms of one of its cue alternatives (either language) occur in the
    text and none of its ``cue_exclusions`` does. Claims are ordered by the number of terms of their
    best matching alternative (more specific first), then by file order.

    Args:
        kb: the knowledge base (``kb.claims``); the compiled cues are cached with it.
        text: the question, any language, as the user wrote it.

    Returns:
        Matching claims; empty for a question that quotes no claim.
    """
    question = normalize_question(text)
    # many alternatives share terms ("4090", "显存"): each term is searched for once per question
    said: dict[re.Pattern[str], bool] = {}

    def says(term: re.Pattern[str]) -> bool:
        hit = said.get(term)
        if hit is None:
            hit = said[term] = term.search(question) is not None
        return hit

    found: list[tuple[int, int, Claim]] = []
    for position, compiled in enumerate(_compiled(kb)):
        if any(says(p) for p in compiled.exclusions):
            continue
        best = max((len(alt) for alt in compiled.alternatives if all(says(p) for p in alt)), default=0)
        if best:
            found.append((-best, position, compiled.claim))
    return [claim for *_, claim in sorted(found, key=lambda item: (item[0], item[1]))]


def quotes_article_wording(claim: Claim, text: str) -> bool:
    """Whether ``text`` quotes the article's own wording of ``claim`` (``Claim.article_wording``): all terms of one of
    its cue alternatives occur in it, matched as :func:`match_claims` matches a claim's cues.

    Args:
        claim: a claim of the knowledge base.
        text: the question, any language, as the user wrote it.

    Returns:
        ``False`` for a claim without ``article_wording``.
    """
    wording = claim.article_wording
    if wording is None:
        return False
    question = normalize_question(text)
    return any(all(compile_term(t).search(question) for t in alt) for alt in (*wording.cues.en, *wording.cues.zh))
