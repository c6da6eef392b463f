"""Name lookup over the knowledge base: exact aliases first, then rapidfuzz, built once per KB.

Users write "H100", "a100 40g", "Telsa P40", "llama2-70b-chat", "p5.48xlarge". Every name is
normalised (:func:`bot.kb.loader.normalize_name` plus a few typo repairs such as the letter O
typed for a zero) and looked up exactly; only then does rapidfuzz compare it with every alias
of that kind. Two guards keep fuzzy matching from guessing wildly:

* a score threshold (:data:`FUZZY_CUTOFF`), higher for short names;
* the digits must agree: "RTX 3080" never fuzzy-matches "RTX 3090", "Llama 2 13B" never
  "Llama 2 70B". Numbers identify products; letters are where people make typos.

Accelerators the knowledge base knows of but has no figures for (gpus.yaml ``unlisted``: "Hygon
K100", "Kunlunxin P800") are their own kind, ``unlisted``. A GPU lookup never answers with a
neighbour of such a name: an exact unlisted name, or a fuzzy one closer than any GPU name, gives
``None`` for ``gpu`` (the caller then asks :meth:`NameIndex.lookup` for ``unlisted`` and says
"no data for X").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from bot.errors import UnknownEntityError
from bot.kb.loader import KnowledgeBase, normalize_name

__all__ = ["FUZZY_CUTOFF", "Match", "NameIndex", "get_index", "repair_name"]

Kind = Literal["gpu", "model", "provider", "instance", "unlisted"]

#: Minimum rapidfuzz ``ratio`` (0-100) for a fuzzy match; names of 5 characters or fewer
#: (after normalising) need :data:`FUZZY_CUTOFF_SHORT`. Chosen so that one-letter typos in
#: names of six or more characters pass ("teslap40" vs "telsap40": 87.5) while unrelated
#: names of the same length do not; tested on both sides in tests/test_kb_index.py.
FUZZY_CUTOFF = 80.0
FUZZY_CUTOFF_SHORT = 88.0

_DIGITS = re.compile(r"\d+")


def repair_name(text: str) -> str:
    """Normalise ``text`` and repair common typos: ``o``/``O`` typed for ``0`` next to a digit.

    >>> repair_name("H1OO SXM")
    'h100sxm'
    """
    words = []
    for word in re.split(r"[\s_/-]+", text.lower()):
        # within a word only: "h1oo" is H100, but the "o" of "pro" before "6000" in "RTX PRO 6000" is a letter
        prev = None
        while prev != word:  # "1oo" needs two passes
            prev = word
            word = re.sub(r"(?<=\d)o|o(?=\d)", "0", word)
        words.append(word)
    return normalize_name(" ".join(words))


@dataclass(frozen=True)
class Match:
    """A name resolved to a knowledge entry.

    Attributes:
        kind: ``gpu``, ``model``, ``provider``, ``instance`` or ``unlisted``.
        id: the entry id (for ``instance``: the offer's GPU id; see ``gpu_count``; for ``unlisted``:
            its display name).
        as_written: the text as the user wrote it.
        alias: the alias that matched.
        score: 100 for an exact alias, else the rapidfuzz ratio.
        variant_assumed: the name did not say which variant (``"A100"``), so the most common
            one was assumed (the entry's ``default_for``).
        gpu_count: for an ``instance`` match, the GPUs in that instance.
        provider: for an ``instance`` match, its provider id.
    """

    kind: Kind
    id: str
    as_written: str
    alias: str
    score: float
    variant_assumed: bool = False
    gpu_count: int | None = None
    provider: str | None = None


@dataclass(frozen=True)
class _Target:
    id: str
    alias: str
    variant_assumed: bool
    gpu_count: int | None = None
    provider: str | None = None


class NameIndex:
    """Alias tables for one knowledge base. Build with :func:`get_index` (cached per KB)."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self._exact: dict[Kind, dict[str, _Target]] = {"gpu": {}, "model": {}, "provider": {}, "instance": {},
                                                       "unlisted": {}}
        for gpu in kb.gpus.values():
            for name in (gpu.id, gpu.name, *gpu.aliases):
                self._add("gpu", name, _Target(gpu.id, name, False))
            for name in gpu.default_for:
                self._add("gpu", name, _Target(gpu.id, name, True))
        for item in kb.unlisted:
            for name in (item.name, *item.aliases):
                self._add("unlisted", name, _Target(item.name, name, False))
        for model in kb.models.values():
            for name in (model.id, model.name, *model.aliases):
                self._add("model", name, _Target(model.id, name, False))
            for name in model.default_for:
                self._add("model", name, _Target(model.id, name, True))
        for pf in kb.providers.values():
            for name in (pf.provider, pf.provider_name, *pf.aliases):
                self._add("provider", name, _Target(pf.provider, name, False))
        for up in kb.unpriced_providers.values():  # named clouds without prices: recognised, then said unpriced
            for name in (up.id, up.name, *up.aliases):
                self._add("provider", name, _Target(up.id, name, False))
        gpu_keys = set(self._exact["gpu"])
        # an instance type sold both in and outside mainland China (AWS "p4d.24xlarge") names the global one; the
        # China region is named as such ("AWS China", "宁夏区域") and questions in Chinese reach it through the provider
        china = {pid for pid, pf in kb.providers.items() if getattr(pf, "market", None) == "china_mainland"}
        for offer in sorted(kb.offers, key=lambda o: o.provider in china):
            # instance types named like a GPU (Paperspace's "H100", "A100-80G") are GPU names to users
            if (offer.instance_type and not offer.instance_type.startswith(("NVIDIA ", "AMD "))
                    and repair_name(offer.instance_type) not in gpu_keys):
                self._add("instance", offer.instance_type,
                          _Target(offer.gpu, offer.instance_type, False, offer.gpu_count, offer.provider))
        for inst in kb.instances:
            self._add("instance", inst.instance_type,
                      _Target(inst.gpu, inst.instance_type, False, inst.gpu_count, inst.provider))
        self._choices: dict[Kind, list[str]] = {k: list(v) for k, v in self._exact.items()}
        self._digits: dict[Kind, list[tuple[str, ...]]] = {
            k: [tuple(_DIGITS.findall(c)) for c in v] for k, v in self._choices.items()
        }

    def _add(self, kind: Kind, name: str, target: _Target) -> None:
        key = repair_name(name)
        if key and key not in self._exact[kind]:
            self._exact[kind][key] = target

    def lookup(self, kind: Kind, text: str, *, fuzzy: bool = True) -> Match | None:
        """Resolve ``text`` to one entry of ``kind``, or ``None`` when nothing is close enough.

        Args:
            kind: which table to search.
            text: the name as written.
            fuzzy: also try rapidfuzz when no alias matches exactly.

        Returns:
            The :class:`Match`, exact aliases first; ``None`` below the fuzzy threshold, when the
            digits disagree, or (for ``gpu``) when the name is an unlisted accelerator's.
        """
        key = repair_name(text)
        if not key:
            return None
        target = self._exact[kind].get(key)
        if target is not None:
            return self._match(kind, text, target, 100.0)
        if kind == "gpu" and key in self._exact["unlisted"]:
            return None  # a known accelerator without data, not a typo of a listed one
        if not fuzzy or len(key) < 3:
            return None
        best = self._fuzzy(kind, key, limit=1)
        if not best:
            return None
        choice, score = best[0]
        if kind == "gpu":
            rival = self._fuzzy("unlisted", key, limit=1)
            if rival and rival[0][1] >= score:
                return None
        return self._match(kind, text, self._exact[kind][choice], score)

    def _fuzzy(self, kind: Kind, key: str, limit: int, cutoff: float | None = None) -> list[tuple[str, float]]:
        if cutoff is None:
            cutoff = FUZZY_CUTOFF_SHORT if len(key) <= 5 else FUZZY_CUTOFF
        digits = tuple(_DIGITS.findall(key))
        found = process.extract(key, self._choices[kind], scorer=fuzz.ratio, limit=limit * 8, score_cutoff=cutoff)
        out = []
        for choice, score, index in found:
            if self._digits[kind][index] != digits:
                continue
            out.append((choice, score))
            if len(out) == limit:
                break
        return out

    def suggest(self, kind: Kind, text: str, limit: int = 3) -> list[str]:
        """Up to ``limit`` display names close to ``text`` (no digit guard, a lower bar), best first.

        For the exact name of an unlisted accelerator (kind ``gpu``), its recorded ``nearest``
        alternatives instead.
        """
        key = repair_name(text)
        if not key:
            return []
        unlisted = self._exact["unlisted"].get(key) if kind == "gpu" else None
        if unlisted is not None:  # a known accelerator without data: its recorded alternatives
            item = next(u for u in self.kb.unlisted if u.name == unlisted.id)
            return [self.display_name("gpu", g) for g in item.nearest[:limit]]
        found = process.extract(key, self._choices[kind], scorer=fuzz.WRatio, limit=limit * 6, score_cutoff=60)
        names: list[str] = []
        for choice, _score, _ in found:
            target = self._exact[kind][choice]
            name = target.alias if kind == "instance" else self.display_name(kind, target.id)
            if name not in names:
                names.append(name)
            if len(names) == limit:
                break
        return names

    def resolve(self, kind: Kind, text: str) -> Match:
        """Like :meth:`lookup` but raises when nothing matches.

        Raises:
            UnknownEntityError: with up to three suggestions.
        """
        match = self.lookup(kind, text)
        if match is None:
            raise UnknownEntityError(kind, text, self.suggest(kind, text))
        return match

    def display_name(self, kind: Kind, ident: str) -> str:
        """Human name of an entry (``"H100 SXM5 80GB"``), or ``ident`` when unknown."""
        if kind == "gpu" and ident in self.kb.gpus:
            return self.kb.gpus[ident].name
        if kind == "model" and ident in self.kb.models:
            return self.kb.models[ident].name
        if kind == "provider" and ident in self.kb.providers:
            return self.kb.providers[ident].provider_name
        if kind == "provider" and ident in self.kb.unpriced_providers:
            return self.kb.unpriced_providers[ident].name
        return ident  # unlisted ids are their display names

    def aliases(self, kind: Kind) -> dict[str, str]:
        """Normalised alias -> entry id, for one kind (a copy; for scanners and tests)."""
        return {k: t.id for k, t in self._exact[kind].items()}

    @staticmethod
    def _match(kind: Kind, text: str, target: _Target, score: float) -> Match:
        return Match(kind, target.id, text, target.alias, score, target.variant_assumed, target.gpu_count,
                     target.provider)


def get_index(kb: KnowledgeBase) -> NameIndex:
    """The :class:`NameIndex` of ``kb``, built on first use and kept with the KB."""
    index = kb._cache.get("name_index")
    if index is None:
        index = kb._cache["name_index"] = NameIndex(kb)
    return index
