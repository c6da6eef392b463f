"""Lookup tables the parser derives from one knowledge base, built once and kept with it.

The name index (:mod:`bot.kb.index`) answers "is this exact string an alias?"; the parser also
needs to know where a name can *start* in a sentence (so it tries only a handful of word
windows per message), which model families exist, and what size each model is, to resolve
"llama 70b" to the newest Llama with 70B parameters. All of that is computed here, once per
:class:`~bot.kb.loader.KnowledgeBase`, and stored in ``kb._cache``.
"""

from __future__ import annotations

import math
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
        family: family word (``llama``, ``qwen``, ``codellama``, ``mixtral``, ``deepseek``).
        version: family version as written in the id (``"3.1"``, ``"2.5"``, ``""``).
        size: size word (``"70b"``, ``"8x7b"``); for ids without one, the total size rounded (``"671b"``).
        sizes: every size word the model answers to: the id's, the rounded total parameter count
            (``"30b"`` for Qwen3-30B-A3B, ``"109b"`` for Llama 4 Scout).
        extras: other words of the id (``coder``, ``vision``, ``r1``), which a user must say for this
            model to be chosen by family and size.
        order: sort key for "newest": version, then release date, then file position.
    """

    id: str
    family: str
    version: str
    size: str
    sizes: frozenset[str]
    extras: frozenset[str]
    order: tuple


def _size_words(total_b: float) -> set[str]:
    words = {f"{round(total_b)}b"}
    if total_b < 10:
        words.add(f"{round(total_b, 1):g}b")
    return words


#: A version number ending in ".0" in a normalised name ("sdxl1.0"), not a longer decimal ("v0.1", "1.05").
_POINT_ZERO = re.compile(r"(?<![\d.])(\d+)\.0(?![\d.])")


def _model_shape(model, position: int) -> ModelShape | None:
    model_id = model.id
    parts = model_id.split("-")
    size_at = next((i for i, p in enumerate(parts) if _SIZE.match(p) or _MOE_SIZE.match(p)), None)
    if size_at == 0:
        return None
    if size_at is None:  # "deepseek-v3", "llama-4-scout", "phi-4": the size comes from the parameter count
        prefix, suffix, size = parts, [], f"{round(model.params_total_b)}b"
    else:
        prefix, suffix, size = parts[:size_at], parts[size_at + 1:], parts[size_at]
    if prefix[0] == "code" and len(prefix) > 1:  # "code-llama" is written "codellama"
        prefix = ["codellama", *prefix[2:]]
    head = _FAMILY_HEAD.match(prefix[0])
    if not head:
        return None
    family, version = head.group(1), head.group(2) or ""
    rest = prefix[1:]
    if rest and not version and _VERSION.match(rest[0]):
        version, rest = rest[0].lstrip("v"), rest[1:]
    post_version = ""
    extras = set(rest)
    for word in suffix:
        if _VERSION.match(word) and word.startswith("v"):
            post_version = word
        elif not _ACTIVE_MARK.match(word):
            extras.add(word)
    order = (version_key(version), version_key(post_version), model.release_date or "", position)
    sizes = {size, *_size_words(model.params_total_b)}
    return ModelShape(model_id, family, version, size, frozenset(sizes), frozenset(extras), order)


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
        products: product key ("a100", "rtx-4090") -> GPU ids of its variants (memory, form factor).
        instance_families: instance family ("p5", "g5", "a3-highgpu") -> (GPU id, GPU count of its largest
            instance, provider, that instance's name), for families whose instances all carry one GPU type.
        extra_words: every word a model id carries besides family, version and size ("coder", "nemo",
            "distill"): words a user may put between a family and its size.
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
    products: dict[str, list[str]] = field(default_factory=dict)
    instance_families: dict[str, tuple[str, int | None, str, str]] = field(default_factory=dict)
    family_alias_map: dict[str, str] = field(default_factory=dict)
    family_alias_regex: re.Pattern[str] | None = None
    kb: KnowledgeBase | None = None
    shape_by_id: dict[str, ModelShape] = field(default_factory=dict)
    product_numbers: set[str] = field(default_factory=set)
    extra_words: set[str] = field(default_factory=set)

    def shape_of(self, model_id: str) -> ModelShape | None:
        """The :class:`ModelShape` of a model id, or ``None`` (a model without a family and size)."""
        if not self.shape_by_id:
            self.shape_by_id.update({s.id: s for shapes in self.shapes.values() for s in shapes})
        return self.shape_by_id.get(model_id)

    def is_product_number(self, digits: str) -> bool:
        """Whether ``digits`` ("4060", "3080") is the number of a GPU product of the knowledge base (a part of a
        product key, "rtx-4060-ti"): such a number written alone names a card, it is not a count."""
        if not self.product_numbers:
            self.product_numbers.update(p for key in self.products for p in key.split("-") if p.isdecimal())
        return digits in self.product_numbers

    def product_number_shaped(self, digits: str) -> bool:
        """Whether ``digits`` is shaped like the number of a GPU product series the knowledge base has, whether or not
        it has that product: four digits "G0N0" (generation G, tier N: "5060", "2070") with the generation of a
        product number it has ("5090" makes "5060" one). Written before a memory size or a variant word ("5060 16GB",
        "5070 ti") such a number names a card, not a count."""
        if not re.fullmatch(r"[1-9]0[1-9]0", digits):
            return False
        if not self.product_numbers:
            self.is_product_number(digits)
        return any(len(p) == 4 and p[0] == digits[0] and p[1] == "0" and p[3] == "0" for p in self.product_numbers)

    def memory_of(self, gpu_id: str) -> float:
        """Marketed memory of a GPU, GB."""
        return self.kb.gpus[gpu_id].memory_gb

    @property
    def memory_sizes_gb(self) -> list[float]:
        """Every marketed memory size of the knowledge base's GPUs, GB, ascending (without duplicates)."""
        return sorted({float(g.memory_gb) for g in self.kb.gpus.values()})

    @property
    def smallest_memory_gb(self) -> float:
        """The smallest marketed memory of any GPU in the knowledge base, GB (a smaller card has no stand-in)."""
        return min(g.memory_gb for g in self.kb.gpus.values())

    def memory_variant(self, gpu_id: str, memory_gb: float) -> str | None:
        """The variant of ``gpu_id``'s product with ``memory_gb`` GB ("a100" + 40 -> the A100 40GB of the same
        form factor when there is one), or ``None`` when the product has no such variant."""
        siblings = [g for g in self.products.get(product_key(gpu_id), []) if abs(self.memory_of(g) - memory_gb) < 1]
        if not siblings:
            return None
        form = _form_factor(gpu_id)
        same_form = [g for g in siblings if _form_factor(g) == form]
        defaults = [g for g in siblings if self.kb.gpus[g].default_for]
        return (same_form or defaults or siblings)[0]

    @staticmethod
    def is_form_word(word: str) -> bool:
        """Whether ``word`` names a GPU form factor (``sxm``, ``pcie``, ``nvl``, ``oam``, with or without a generation
        digit: "sxm5")."""
        return word.lower() in _FORM_WORDS or word.lower().rstrip("0123456789") in _FORM_WORDS

    def form_variant(self, gpu_id: str, form_word: str) -> str | None:
        """The variant of ``gpu_id``'s product in the form factor ``form_word`` names ("h100-pcie-80gb" + "sxm" or
        "sxm5" -> "h100-sxm-80gb"): of the same memory when there is one, else the product's default, else the
        first. ``None`` when ``form_word`` is no form factor (``sxm``, ``pcie``, ``nvl``, ``oam``, with or without a
        generation digit) or the product has no variant of it.

        Args:
            gpu_id: a knowledge-base GPU id.
            form_word: a word as written, lower case ("sxm4", "pcie").

        Returns:
            A GPU id of the same product, or ``None``.
        """
        form = form_word.lower().rstrip("0123456789")
        if form_word.lower() not in _FORM_WORDS and form not in _FORM_WORDS:
            return None
        siblings = [g for g in self.products.get(product_key(gpu_id), []) if _form_factor(g).rstrip("0123456789")
                    == form]
        if not siblings:
            return None
        memory = self.memory_of(gpu_id)
        same_memory = [g for g in siblings if abs(self.memory_of(g) - memory) < 1]
        defaults = [g for g in siblings if self.kb.gpus[g].default_for]
        return (same_memory or defaults or siblings)[0]

    def variant_ambiguous(self, gpu_id: str) -> bool:
        """Whether other variants share ``gpu_id``'s product and memory (SXM vs PCIe)."""
        memory = self.memory_of(gpu_id)
        return sum(1 for g in self.products.get(product_key(gpu_id), []) if abs(self.memory_of(g) - memory) < 1) > 1

    def nearest_models(self, family: str, params_b: float, most: int = 3) -> list[str]:
        """Display names of the known models of ``family`` closest in size to ``params_b`` billion parameters (a
        version of the family that does not exist, "Qwen5-200B"): nearest by size ratio; among equals plain models
        before variants with extra name words (coder, air...), then newest first."""
        shapes = [s for s in self.shapes.get(family, []) if s.id in self.kb.models
                  and self.kb.models[s.id].kind == "llm"]

        def distance(s: ModelShape) -> float:
            return abs(math.log(self.kb.models[s.id].params_total_b / params_b))

        shapes.sort(key=lambda s: s.order, reverse=True)  # newest first among equals (a stable sort keeps it)
        shapes.sort(key=lambda s: (round(distance(s), 1), bool(s.extras)))
        return [self.index.display_name("model", s.id) for s in shapes[:most]]

    def family_models(self, family: str, version: str = "", most: int = 4) -> list[str]:
        """Display names of known LLMs of ``family`` (of ``version`` when the family has it), newest first,
        plain models before variants with extra name words: what to offer when a family is named without a size."""
        shapes = [s for s in self.shapes.get(family, []) if s.id in self.kb.models
                  and self.kb.models[s.id].kind == "llm"]
        if version and any(s.version == version for s in shapes):
            shapes = [s for s in shapes if s.version == version]
        shapes.sort(key=lambda s: s.order, reverse=True)
        shapes.sort(key=lambda s: bool(s.extras))
        return [self.index.display_name("model", s.id) for s in shapes[:most]]

    def family_model_ids(self, family: str, version: str = "") -> list[str]:
        """Ids of every known LLM of ``family`` (of ``version`` when the family has it; "3" also matches 3.x),
        for a question over the whole family ("the biggest Qwen I can run"). Empty when there is none."""
        shapes = [s for s in self.shapes.get(family, []) if s.id in self.kb.models
                  and self.kb.models[s.id].kind == "llm"]
        if version and any(s.version == version or s.version.split(".")[0] == version for s in shapes):
            shapes = [s for s in shapes if s.version == version or s.version.split(".")[0] == version]
        return list(dict.fromkeys(s.id for s in shapes))

    def has_version(self, family: str, version: str) -> bool:
        """Whether the knowledge base has a model of ``family`` with ``version`` ("3" also matches 3.x)."""
        return any(s.version == version or s.version.split(".")[0] == version
                   for s in self.shapes.get(family, []))

    def variants_of(self, gpu_id: str) -> list[str]:
        """The GPU ids of ``gpu_id``'s product (every memory and form factor: the A100's 40 and 80 GB, SXM and
        PCIe), stock cards first, then by memory."""
        ids = self.products.get(product_key(gpu_id), [gpu_id])
        return sorted(ids, key=lambda g: (self.kb.gpus[g].aftermarket_of is not None, self.memory_of(g), g))

    def nearest_cards(self, gpu_id: str, memory_gb: float | None, most: int = 2) -> list[str]:
        """Known GPUs closest to a variant of ``gpu_id``'s product that does not exist (``memory_gb`` when one was
        written, else the product's own memory): stock cards of the same vendor from other products, nearest
        memory first; among equals the same segment (data centre, workstation, consumer), then the same
        architecture family, then the most rented."""
        base = self.kb.gpus[gpu_id]
        target = memory_gb if memory_gb is not None else base.memory_gb
        own = set(self.products.get(product_key(gpu_id), [gpu_id]))
        family = base.architecture.split()[0]
        others = [g for g in self.kb.gpus.values() if g.id not in own and g.vendor == base.vendor
                  and g.aftermarket_of is None]
        others.sort(key=lambda g: (abs(g.memory_gb - target), g.segment != base.segment,
                                   g.architecture.split()[0] != family, -self.offer_counts.get(g.id, 0), g.id))
        return [g.id for g in others[:most]]

    def same_memory(self, memory_gb: float, exclude: str | None = None) -> list[str]:
        """GPU ids with exactly ``memory_gb`` GB, most rented first."""
        ids = [g.id for g in self.kb.gpus.values() if abs(g.memory_gb - memory_gb) < 0.5 and g.id != exclude]
        return sorted(ids, key=lambda g: -self.offer_counts.get(g, 0))

    def capacity_gpu(self, memory_gb: float, prefer_consumer: bool = False) -> tuple[str | None, bool]:
        """(GPU id, exact) standing for "a ``memory_gb`` GB card": the most rented GPU of that memory
        (a consumer card first when ``prefer_consumer``; aftermarket boards such as a modified 48 GB 4090 only
        when no stock card has that memory); else the smallest card of which ``memory_gb`` is the memory tools
        report (at least :data:`REPORTED_MEMORY_SHARE` of its own: "15 GB" is a 16 GB card), else the largest
        smaller one; neither is exact (the caller keeps the stated memory)."""
        same = self.same_memory(memory_gb)
        same.sort(key=lambda g: (self.kb.gpus[g].aftermarket_of is not None,
                                 prefer_consumer and self.kb.gpus[g].segment != "consumer"))
        if same:
            return same[0], True
        reported = [g for g in self.kb.gpus.values()
                    if memory_gb < g.memory_gb and memory_gb >= REPORTED_MEMORY_SHARE * g.memory_gb]
        if reported:
            least = min(g.memory_gb for g in reported)
            return self.capacity_gpu(least, prefer_consumer)[0], False
        smaller = [g for g in self.kb.gpus.values() if g.memory_gb < memory_gb]
        if not smaller:
            return None, False
        best = max(g.memory_gb for g in smaller)
        ids = sorted((g.id for g in smaller if g.memory_gb == best), key=lambda g: -self.offer_counts.get(g, 0))
        return ids[0], False


#: The least share of a card's memory (GB) that tools report for it, in GiB after the driver's reservation: nvidia-smi
#: shows 15,360 MiB on a 16 GB T4 (0.94 x 16 in GiB terms, the "15 GB" Colab states), 23,028 MiB on a 24 GB A10G and
#: 46,068 MiB on a 48 GB L40S; 2^30 / 10^9 = 1.074 alone makes 16 GB read 14.9 GiB. A stated size this close under a
#: card's is that card as reported.
REPORTED_MEMORY_SHARE = 0.9

_FORM_WORDS = {"sxm", "sxm2", "sxm4", "sxm5", "pcie", "nvl", "oam"}
_MEMORY_SUFFIX = re.compile(r"-\d+(?:\.\d+)?gb$")


def product_key(gpu_id: str) -> str:
    """A GPU id without its memory and form factor: ``"a100-sxm-80gb"`` -> ``"a100"``."""
    return "-".join(p for p in _MEMORY_SUFFIX.sub("", gpu_id).split("-") if p not in _FORM_WORDS)


def _form_factor(gpu_id: str) -> str:
    return next((p for p in gpu_id.split("-") if p in _FORM_WORDS), "")


def _instance_family(name: str) -> str | None:
    """``"p5.48xlarge"`` -> ``"p5"``; ``"a3-highgpu-8g"`` -> ``"a3-highgpu"``; else None."""
    low = name.lower()
    m = re.match(r"^([a-z]\d[a-z]{0,3})\.", low) or re.match(r"^(a\d-(?:high|ultra|mega|edge)gpu)-\d+g$", low)
    return m.group(1) if m else None


def _build(kb: KnowledgeBase) -> ParserTables:
    index = get_index(kb)
    tables = ParserTables(index=index, kb=kb)
    for gpu in kb.gpus.values():
        tables.products.setdefault(product_key(gpu.id), []).append(gpu.id)
    # family aliases written with spaces or in another script ("meta llama", "通义千问") and whole-word Latin
    # aliases of five letters or more ("whisperx") are replaced by the family word before scanning; short
    # one-word aliases ("ds", "l"), which are also parts of other words, are looked up by the model scanner
    for family, aliases in kb.model_families.items():
        for alias in aliases:
            if not re.fullmatch(r"[a-z0-9]+", alias.lower()) or len(alias) >= 5:
                tables.family_alias_map[alias.lower()] = family
    if tables.family_alias_map:
        alts = sorted(tables.family_alias_map, key=len, reverse=True)
        tables.family_alias_regex = re.compile(
            "|".join(rf"(?<![a-z0-9]){re.escape(a)}(?![a-z])" if a[:1].isascii() else re.escape(a) for a in alts),
            re.IGNORECASE)
    families: dict[str, list[tuple[str, int, str, str]]] = {}
    for row in [*kb.offers, *kb.instances]:
        family = _instance_family(row.instance_type)
        if family:
            families.setdefault(family, []).append((row.gpu, row.gpu_count, row.provider, row.instance_type))
    for family, rows in families.items():
        if len({r[0] for r in rows}) == 1:
            # the family's own provider: "g5" is AWS's, also listed by its regional variant "aws-china"
            providers = {r[2] for r in rows}
            parents = {p for p in providers if not any(p.startswith(o + "-") for o in providers if o != p)}
            provider = min(parents, key=lambda p: (-sum(1 for r in rows if r[2] == p), p))
            largest = max((r for r in rows if r[2] == provider), key=lambda r: r[1])
            # "p5" means the 8-GPU p5.48xlarge; "g5" (1, 4 or 8 GPUs) names the GPU but no count
            count = largest[1] if len({r[1] for r in rows}) <= 2 else None
            tables.instance_families[family] = (largest[0], count, largest[2], largest[3])
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
    for key, model_id in list(tables.model_keys.items()):
        # a version "N.0" is also written "N" ("SDXL1" for SDXL 1.0), where no other name is spelt so
        tables.model_keys.setdefault(_POINT_ZERO.sub(r"\1", key), model_id)
    for position, model in enumerate(kb.models.values()):
        for name in (model.id, model.name, *model.aliases, *model.default_for):
            words = split_words(name.split("/")[-1], MODEL_WORD)
            if words:
                tables.model_first_words.add(words[0])
                tables.model_max_words = max(tables.model_max_words, len(words))
        shape = _model_shape(model, position)
        if shape is not None:
            tables.families.add(shape.family)
            tables.shapes.setdefault(shape.family, []).append(shape)
            for size in shape.sizes:
                tables.sizes.setdefault(size, []).append(shape)
            tables.extra_words.update(shape.extras)
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
