"""Lookup tables the parser derives from one knowledge base, built once and kept with it.

The name index (:mod:`bot.kb.index`) answers "is this exact string an alias?"; the parser also
needs to know where a name can *start* in a sentence (so it tries only a handful of word
windows per message), which model families exist, and what size each model is, to resolve
"llama 70b" to the newest Llama with 70B parameters. All of that is computed here, once per
:class:`~bot.kb.loader.KnowledgeBase`, and stored in ``kb._cache``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.kb.index import NameIndex, get_index, repair_name
from bot.kb.loader import KnowledgeBase

__all__ = ["ModelShape", "ParserTables", "get_tables", "split_words", "version_key"]

#: Words of a GPU or model name as the scanners see them. GPU names split on everything
#: that is not a letter or digit ("H100-SXM" -> h100, sxm); model names keep dots and
#: underscores inside a word ("qwen2.5", "q4_k_m") because versions live there.
GPU_WORD = re.compile(r"[a-z0-9]+")
MODEL_WORD = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*\+?")

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)b$")
_MOE_SIZE = re.compile(r"^(\d+)x(\d+(?:\.\d+)?)b$")
_FAMILY_HEAD = re.compile(r"^([a-z]+)(\d+(?:\.\d+)?)?$")
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)$")
_ACTIVE_MARK = re.compile(r"^a\d+(?:\.\d+)?b$")


def split_words(text: str, pattern: re.Pattern[str] = GPU_WORD) -> list[str]:
    """The lower-cased words of ``text`` under ``pattern`` (``"H100 PCI-E"`` -> h100, pci, e)."""
    return pattern.findall(text.lower())


def version_key(version: str) -> tuple[int, ...]:
    """``"3.1"`` -> ``(3, 1)``; ``""`` -> ``(0,)``: versions compare as integer tuples."""
    if not version:
        return (0,)
    return tuple(int(p) for p in re.findall(r"\d+", version)) or (0,)


@dataclass(frozen=True)
class ModelShape:
    """A knowledge-base model taken apart the way users name it.

    Attributes:
        id: model id.
        family: family word (``llama``, ``qwen``, ``codellama``, ``mixtral``).
        version: family version as written in the id (``"3.1"``, ``"2.5"``, ``""``).
        size: size word (``"70b"``, ``"8x7b"``).
        extras: other words of the id (``coder``, ``vision``, ``nemo``), which a user must
            say for this model to be chosen by family and size.
        order: sort key for "newest": version, then release date, then file position.
    """

    id: str
    family: str
    version: str
    size: str
    extras: frozenset[str]
    order: tuple


def _model_shape(model_id: str, release: str | None, position: int) -> ModelShape | None:
    parts = model_id.split("-")
    size_at = next((i for i, p in enumerate(parts) if _SIZE.match(p) or _MOE_SIZE.match(p)), None)
    if size_at is None or size_at == 0:
        return None
    prefix, suffix = parts[:size_at], parts[size_at + 1:]
    if prefix[0] == "code" and len(prefix) > 1:  # "code-llama" is written "codellama"
        prefix = ["codellama", *prefix[2:]]
    head = _FAMILY_HEAD.match(prefix[0])
    if not head:
        return None
    family, version = head.group(1), head.group(2) or ""
    rest = prefix[1:]
    if rest and not version and _VERSION.match(rest[0]):
        version, rest = rest[0], rest[1:]
    post_version = ""
    extras = set(rest)
    for word in suffix:
        if _VERSION.match(word) and word.startswith("v"):
            post_version = word
        elif not _ACTIVE_MARK.match(word):
            extras.add(word)
    order = (version_key(version), version_key(post_version), release or "", position)
    return ModelShape(model_id, family, version, parts[size_at], frozenset(extras), order)


@dataclass
class ParserTables:
    """Alias and shape tables of one knowledge base (see the module docstring).

    Attributes:
        index: the knowledge base's :class:`~bot.kb.index.NameIndex`.
        gpu_keys: normalised GPU alias -> GPU id.
        gpu_first_words: words a GPU name can start with.
        gpu_max_words: the most words in any GPU alias.
        gpu_keys_by_id: GPU id -> its normalised aliases (to add a memory size to).
        model_keys: normalised model alias -> model id.
        model_first_words: words a model name can start with.
        model_max_words: the most words in any model alias.
        families: model family words.
        shapes: family -> shapes of its models.
        sizes: size word -> shapes (for "8x7b" written without a family).
        offer_counts: GPU id -> number of price offers (how commonly it is rented).
        provider_keys: normalised provider alias -> provider id.
    """

    index: NameIndex
    gpu_keys: dict[str, str] = field(default_factory=dict)
    gpu_first_words: set[str] = field(default_factory=set)
    gpu_max_words: int = 1
    gpu_keys_by_id: dict[str, list[str]] = field(default_factory=dict)
    model_keys: dict[str, str] = field(default_factory=dict)
    model_first_words: set[str] = field(default_factory=set)
    model_max_words: int = 1
    families: set[str] = field(default_factory=set)
    shapes: dict[str, list[ModelShape]] = field(default_factory=dict)
    sizes: dict[str, list[ModelShape]] = field(default_factory=dict)
    offer_counts: dict[str, int] = field(default_factory=dict)
    provider_keys: dict[str, str] = field(default_factory=dict)


def _build(kb: KnowledgeBase) -> ParserTables:
    index = get_index(kb)
    tables = ParserTables(index=index)
    tables.gpu_keys = index.aliases("gpu")
    for gpu in kb.gpus.values():
        for name in (gpu.id, gpu.name, *gpu.aliases, *gpu.default_for):
            words = [repair_name(w) for w in split_words(name)]
            if words:
                tables.gpu_first_words.add(words[0])
                tables.gpu_max_words = max(tables.gpu_max_words, len(words))
        tables.gpu_keys_by_id[gpu.id] = [k for k, v in tables.gpu_keys.items() if v == gpu.id]
        tables.offer_counts[gpu.id] = len(kb.offers_for(gpu.id))
    tables.provider_keys = index.aliases("provider")
    tables.model_keys = index.aliases("model")
    for position, model in enumerate(kb.models.values()):
        for name in (model.id, model.name, *model.aliases, *model.default_for):
            words = split_words(name.split("/")[-1], MODEL_WORD)
            if words:
                tables.model_first_words.add(words[0])
                tables.model_max_words = max(tables.model_max_words, len(words))
        shape = _model_shape(model.id, model.release_date, position)
        if shape is not None:
            tables.families.add(shape.family)
            tables.shapes.setdefault(shape.family, []).append(shape)
            tables.sizes.setdefault(shape.size, []).append(shape)
        else:
            head = _FAMILY_HEAD.match(model.id.split("-")[0])
            if head:
                tables.families.add(head.group(1))
    return tables


def get_tables(kb: KnowledgeBase) -> ParserTables:
    """The :class:`ParserTables` of ``kb``, built on first use and kept in ``kb._cache``."""
    tables = kb._cache.get("parser_tables")
    if tables is None:
        tables = kb._cache["parser_tables"] = _build(kb)
    return tables
