"""Find GPUs, cloud instances and GPU counts in a message.

How a name is found (each step only where the previous one found nothing):

1. cloud instance types (``p5.48xlarge``, ``a2-highgpu-8g``) and instance families (``p5``, ``g5``,
   ``a3-highgpu``): exact names from the price files and ``instances.yaml``; a family is read as its
   largest instance (with a note), a close misspelling (``p4dn.24xlarge``) is accepted with a note;
2. word windows: up to N consecutive words ("rtx a6000 ada", "a100 80g", "a 100") are joined and looked
   up as an exact alias; a plural ("4090s"), a glued count ("a100x8") and the letter O typed for a zero
   ("H1OO") are understood;
3. a vendor word ("Telsa P40", "GTX 1080 Ti") or a GPU-shaped word ("A40900", "mi300") is looked up
   fuzzily (:mod:`bot.kb.index`: score threshold plus digit guard). What still does not resolve is
   reported as an unknown term with suggestions, never guessed;
4. a GPU named only by its memory ("my 16gb card", "two 48gb cards", "8x 40g") is a GPU of that memory
   (:func:`scan_capacity_gpus`).

A memory size next to a name ("a100 40g", "40gb a100", "4090 48G") picks the variant of that product
with that memory; when the knowledge base has none, the GPU keeps the stated memory (``memory_gb``) and a
note says so. A number or a counter of the lexicon next to the name ("8x A100", "h100 x8", "4张4090",
"双卡A4000", "T4 15G 4장") is the count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from bot.kb.index import repair_name
from bot.notes import Note, note
from bot.parsing.lexicon import Lexicon, Phrases
from bot.parsing.tables import GPU_WORD, ParserTables, product_key
from bot.parsing.text import SpanSet

__all__ = ["FoundGpu", "scan_capacity_gpus", "scan_duration_lookalikes", "scan_form_variants", "scan_gpus",
           "scan_instances", "scan_standalone_counts", "share_listed_counts", "split_glued_names"]

_GLUED_SUFFIX = re.compile(r"^(.+?)x(\d{1,2})$")  # "a100x8"
_GLUED_PREFIX = re.compile(r"^(\d{1,3})x([a-z0-9]+)$")  # "2x3090", "4xa100" (a count glued before a name)
_DECIMAL_AFTER = re.compile(r"^[.,]\d")
_TIGHT_GAP = re.compile(r"^\s?$")
_GLUED_WORD = re.compile(r"^[a-z0-9]+x\d{1,2}$")
#: A card name glued to a figure ("910b280t": the 910B and "280T"): a name ending in a letter, then a number
#: with an optional unit. The figure is split off, so it is read (or reported as not understood) on its own.
_GLUED_FIGURE = re.compile(r"^([a-z0-9]*[a-z])(\d{1,5}(?:\.\d+)?[a-z]{0,6})$")
_MEMORY_WORD = re.compile(r"^(\d{1,3})(?:g|gb|gib)$")
_JOIN_GAP = re.compile(r"^[ \t\-_]{0,2}$")
_CHAINED_COUNT = re.compile(r"(?<![\w.])(\d{1,3})\s*[x×*]\s*$")  # the "3*" of "3*8*A100"
#: A product code after a brand word ("Ascend 310P", "Hopper H20"): the brand alone names another product.
_MODEL_CODE = re.compile(r"^(?:\d{2,5}[a-z]{0,3}|[a-z]{1,2}\d{2,5}[a-z]{0,3})$")
_MEMORY_AT_END = re.compile(r"[\s(\-_/]*\d{1,3}\s*(?:g|gb|gib)\)?$", re.I)  # "a100 80g" -> "a100"
_MEMORY_GAP = re.compile(r"^[ \t(\-_/*×]{0,3}$")  # "a100 40g", "A100 (80GB)", "A100/40GB", "H20 * 96G"
#: Largest GPU count read from a question: the biggest clusters built fit (xAI's Colossus, 100,000 H100s in
#: 2024 and about 200,000 GPUs in 2025: x.ai/colossus), so frontier-scale training questions are answered;
#: anything larger is set aside and said (quotes still multiply it out at list price).
MAX_GPU_COUNT = 262_144

#: Words that introduce a GPU name; a name starting here that is not in the knowledge base
#: is an unknown GPU, not a sentence word.
VENDOR_WORDS = frozenset(
    {"rtx", "gtx", "tesla", "telsa", "quadro", "geforce", "radeon", "rx", "instinct", "nvidia", "titan", "arc",
     "ascend", "atlas"}
)
#: A vendor word glued to a model number ("rtx4000", "gtx1080"): a vendor window of one word.
_VENDOR_GLUED = re.compile(r"^(?:rtx|gtx|rx|quadro|tesla)\d{2,5}[a-z]{0,4}$")
_VENDOR_TAIL = re.compile(r"^(?:\d{2,5}[a-z]{0,4}|[a-z]{1,2}\d{2,5}[a-z]{0,3}|ti|super|xt|xtx|ada|titan|pro|max|ultra|s)$")
#: A word shaped like a GPU model code (letter series + digits): "a40900", "h300", "mi355x", "910b".
_GPU_SHAPED = re.compile(r"^(?:a|h|b|l|v|p|k|t|mi|gh|gb)\d{2,5}[a-z]{0,2}$")
_ACTIVE_PARAMS = re.compile(r"^a\d+(?:\.\d+)?b$")  # "A22B" in Qwen3-235B-A22B is not a GPU
#: After "a 100" the article reading ("a 100 users") is more likely than the GPU unless one
#: of these follows.
_SPLIT_NAME_FOLLOWERS = frozenset(
    {"or", "vs", "and", "for", "with", "to", "on", "in", "gpu", "gpus", "card", "cards", "sxm", "sxm4", "sxm5",
     "pcie", "nvl", "x", "is", "are", "was", "vs.", "versus", "but", "than", "s"}
)
#: Units after a bare number that make it a quantity, not a GPU ("4090 tokens").
_QUANTITY_UNITS = frozenset(
    {"tokens", "token", "tok", "usd", "dollars", "hours", "hour", "h", "hrs", "ms", "steps", "rows", "samples",
     "mb", "mib", "users", "requests", "req", "words", "files", "seconds", "s", "sec", "k", "m", "b", "px",
     "epochs", "images", "days", "d", "w", "watts", "mhz", "ctx", "context"}
)
#: Quantities whose unit after a number makes it no GPU's digits ("a 100-token reply", "a 100-user pilot").
_UNIT_AFTER_FIELDS = ("tokens_plain", "concurrent_users", "documents", "images", "steps", "epochs")
_APPLE = re.compile(r"(?:mac\s*(?:studio|mini|pro|book(?:\s*pro)?)\s*(?:with\s*)?)?(?:apple\s*)?\bm[1-4][\s-]*(?:ultra|max|pro)\b")
_INSTANCE = re.compile(
    r"\b(?:[a-z]\d[a-z]{0,3}\.\d{0,2}x?large|[a-z]\d[a-z]{0,3}\.metal"
    r"|a\d-(?:high|ultra|mega|edge)gpu-\d+g|g2-standard-\d+"
    r"|standard_n[a-z]\d+[a-z_0-9]*|(?:bm|vm)\.gpu[a-z0-9.\-]*|gpu_\d+x_[a-z0-9_]+)\b"
)
_INSTANCE_FAMILY = re.compile(r"(?<![\w.])(?:[pg]\d[a-z]{0,3}|a\d-(?:high|ultra|mega|edge)gpu)(?![\w.])")


@dataclass
class FoundGpu:
    """A GPU (or an unknown GPU-like name) found in the text.

    Attributes:
        id: GPU id, or ``None`` for an unknown name.
        as_written: the user's text.
        start, end: character span of the name in the lower-cased text.
        span_start, span_end: the span including a count and memory size next to it.
        count: GPUs of this kind, when stated.
        variant_assumed: the default variant was taken.
        provider: provider id, for a cloud instance type.
        instance_type: the instance named, for a cloud instance type.
        memory_gb: the memory the text gives with the name, GB.
        capacity_only: named only by its memory.
        nodes: machines the count was stated per ("2台 H100*8" -> 2, count 16).
        count_over_limit: a count stated above :data:`MAX_GPU_COUNT` (set aside: ``count`` stays ``None``).
        glued_figure: a figure glued to the name and not read ("280T" of "910b280T"), as written.
        notes: what was assumed or corrected.
        suggestions: for unknown names, close knowledge-base names.
    """

    id: str | None
    as_written: str
    start: int
    end: int
    span_start: int
    span_end: int
    count: int | None = None
    variant_assumed: bool = False
    provider: str | None = None
    instance_type: str | None = None
    memory_gb: float | None = None
    capacity_only: bool = False
    nodes: int | None = None
    count_over_limit: int | None = None
    notes: list[Note] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    glued_figure: str | None = None
    #: the count is written after the name ("A100 x8", "4090 单卡"), so it may cover names listed before it
    count_after: bool = False


@dataclass(frozen=True)
class _CountPatterns:
    before: re.Pattern[str]
    after: re.Pattern[str]
    standalone: re.Pattern[str]
    words: dict[str, float]
    nodes: re.Pattern[str] = re.compile("(?!)")
    # a zero or negative count before a name ("0 H100s", "-2 A100"): set aside and reported, never used
    unusable: re.Pattern[str] = re.compile("(?!)")


@lru_cache(maxsize=4)
def _count_patterns(words_pattern: str, counters: str, words_key: tuple, name_counters: str = "(?!)",
                    describers: str = "(?!)") -> _CountPatterns:
    # up to 15 digits, so that a count above MAX_GPU_COUNT is read (and set aside, saying so), never skipped;
    # never the digits of a negative number ("-5 h100": a minus after no letter, digit or dot)
    # thousands written with commas ("1,024 H100s") are one number, never the "024" after a comma
    num = rf"\d{{1,3}}(?:,\d{{3}})+(?![\d,])|\d{{1,15}}|{words_pattern}"
    cnt = rf"x|×|\*|-|{counters}"
    unsigned = r"(?<![a-z0-9.$])(?<!\d,)(?<!(?<![a-z0-9_.])[-−])"
    before = re.compile(
        rf"{unsigned}({num})\s*(?:(?:{cnt}|{name_counters})\s*[(（]?)?\s*(?:of\s+)?(?:(?:{describers})\s+)?"
        rf"(?:(?:nvidia|geforce|tesla|amd)\s+)?$")
    # a parenthesis may open after the multiplier: "8*(V100 32G)", "8x (A100 80GB)"
    # after the name: "h100 x8", "h100 8张", and "h200 8x" (not a ratio: "h100 3x faster")
    # (a number word needs its counter after the name: "H20 十张", "h100 eight cards")
    after = re.compile(rf"^\s*(?:(?:x|×|\*)\s*(\d{{1,15}})(?![\d.])(?!\s*(?:g|gb|gib|g显存)(?![a-z]))|(\d{{1,15}}|{words_pattern})\s*(?:{counters}"
                       rf"|(?<=\d)\s*(?:x|×)(?![a-z0-9])"
                       rf"(?!\s*(?:faster|slower|quicker|more|less|cheaper|dearer|better|worse|bigger|larger|smaller"
                       rf"|higher|lower|as\b|the\b|speed|perf|throughput|倍|快|慢))))")
    standalone = re.compile(
        rf"{unsigned}({num})\s*(?:x\s*)?(?:gpus?(?![\s-]*h(?:ou)?rs?\b)(?![a-z])|cards?\b|accelerators?\b|{counters})")
    # a bare number only: "0 gpus", "0x" are read (and set aside) by the quantity scanner
    unusable = re.compile(r"(?<![a-z0-9.$])((?:[-−]\s*)?\d{1,15})\s*$")
    return _CountPatterns(before, after, standalone, dict(words_key), unusable=unusable)


def _counts(lex: Lexicon) -> _CountPatterns:
    counters = lex.quantity_units["gpu_count"].pattern
    base = _count_patterns(lex.number_words.pattern, counters, tuple(lex.number_words.values.items()),
                           lex.name_counters.pattern, lex.count_describers.pattern)
    return _CountPatterns(base.before, base.after, base.standalone, base.words,
                          _nodes_pattern(lex.quantity_units["node_count"].pattern), base.unusable)


@lru_cache(maxsize=4)
def _nodes_pattern(node_units: str) -> re.Pattern[str]:
    """Machines stated before a per-machine count: "2台" of "2台8卡H800", "2 nodes of" of "2 nodes of 8 h100"."""
    return re.compile(rf"(?<![a-z0-9.$])(\d{{1,3}})\s*({node_units}|台)\s*(?:of\s+|x\s*|×\s*|\*\s*|,\s*)?$")


def _too_many(word: str, patterns: _CountPatterns | None = None) -> bool:
    """Whether ``word`` is a count above :data:`MAX_GPU_COUNT`, in digits or (with ``patterns``) a number word
    ("a million")."""
    return (_over_value(word, patterns) or 0) > MAX_GPU_COUNT


def _over_value(word: str, patterns: _CountPatterns | None = None) -> int | None:
    """The count ``word`` stands for, in digits or a number word of ``patterns``, unbounded; ``None`` when neither."""
    word = word.strip().replace(",", "")
    if word.isdecimal():
        return int(word)
    value = patterns.words.get(re.sub(r"[\s_\-]+", "", word)) if patterns is not None else None
    return int(value) if value else None


def _count_value(word: str, patterns: _CountPatterns) -> int | None:
    word = word.strip()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", word):
        word = word.replace(",", "")
    if word.isdigit():
        value = int(word)
    else:
        value = patterns.words.get(re.sub(r"[\s_\-]+", "", word))
    return int(value) if value and 0 < value <= MAX_GPU_COUNT and value == int(value) else None


def _signed(word: str) -> int:
    """The integer of "-2", "− 3" or "0" (a minus sign, spaces, digits)."""
    value = int(re.sub(r"\D", "", word))
    return -value if word.lstrip().startswith(("-", "−")) else value


def _repair_word(word: str) -> str:
    """"h1oo" -> "h100": the letter O typed for a zero, only next to a digit."""
    if "o" in word and any(c.isdigit() for c in word):
        return repair_name(word)
    return word


def scan_instances(low: str, tables: ParserTables) -> list[FoundGpu]:
    """Cloud instance types and instance families, each as ``gpu_count`` x its GPU, with the provider.

    Args:
        low: the lower-cased message.
        tables: the knowledge base's parser tables.

    Returns:
        One :class:`FoundGpu` per instance name that resolves (exactly, or fuzzily with a note).
    """
    found = []
    for m in _INSTANCE.finditer(low):
        match = tables.index.lookup("instance", m.group(0))
        if match is None:
            continue
        notes = []
        if match.score < 100:
            notes.append(note("read_instance", written=m.group(0), instance=match.alias, count=match.gpu_count,
                              gpu_name=tables.index.display_name("gpu", match.id)))
        found.append(FoundGpu(match.id, m.group(0), m.start(), m.end(), m.start(), m.end(), match.gpu_count,
                              False, match.provider, match.alias, notes=notes))
    claimed = SpanSet([(f.start, f.end) for f in found])
    for m in _INSTANCE_FAMILY.finditer(low):
        family = tables.instance_families.get(m.group(0))
        if family is None or m.start() in claimed or m.group(0) in tables.gpu_keys:
            continue
        gpu_id, count, provider, instance = family
        found.append(FoundGpu(gpu_id, m.group(0), m.start(), m.end(), m.start(), m.end(), count, False, provider,
                              instance, notes=[note("read_instance_family", written=m.group(0), instance=instance,
                                                    count=count, gpu_name=tables.index.display_name("gpu", gpu_id))]))
    found.sort(key=lambda f: f.start)
    return found


#: A memory size glued before another word ("80GA100": 80G then A100).
_MEMORY_GLUED_BEFORE = re.compile(r"^(\d{1,3}(?:gb|gib|g))(.+)$")
#: A memory size glued after a name by "x" ("4090x24gib", "8x4090x24gib": a card of that memory, not 4090 cards).
_MEMORY_GLUED_AFTER = re.compile(r"^(.+?)(x)(\d{1,3}(?:gb|gib|g))$")
_WORD_RUN = re.compile(r"[A-Za-z0-9]+")


def _glued_tail(tail: str, lex: Lexicon) -> bool:
    """Whether ``tail`` is a word of the lexicon that may be typed glued after a GPU name ("3090lora", "4090fp16",
    "a100gpu"): a fine-tuning method, precision, engine, workload, feature, sharding or card word."""
    return any(p.fullmatch(tail) for p in (lex.methods, lex.precisions, lex.engines, lex.workloads, lex.features,
                                           lex.sharding, lex.card_words))


def _split_glued_word(word: str, keys: dict[str, str], lex: Lexicon) -> list[str]:
    """``word`` (lower case) as the parts a GPU name glued to its neighbours was typed as: a memory size glued
    before the name ("80ga100" -> 80g, a100) and a lexicon word glued after it ("3090lora" -> 3090, lora). A word
    that is itself a name (or a name's plural) is one part; so is every word that is not a GPU name so glued."""
    if word in keys or (word.endswith("s") and word[:-1] in keys):
        return [word]
    after = _MEMORY_GLUED_AFTER.match(word)
    if after:
        # "8x4090x24gib" -> "8x4090", "x", "24gib": the name (a count glued before it or not) and its memory per card
        name = _GLUED_PREFIX.match(after.group(1))
        if (name.group(2) if name else after.group(1)) in keys:
            return [after.group(1), after.group(2), after.group(3)]
    parts: list[str] = []
    memory = _MEMORY_GLUED_BEFORE.match(word)
    if memory and _name_then_tail(memory.group(2), keys, lex) is not None:
        parts.append(memory.group(1))
        word = memory.group(2)
    split = _name_then_tail(word, keys, lex)
    if split is None:
        return [*parts, word] if parts else [word]
    return [*parts, *split]


def _name_then_tail(word: str, keys: dict[str, str], lex: Lexicon) -> list[str] | None:
    """``[name]`` when ``word`` is a GPU name (or its plural); ``[name, tail]`` when it is the longest GPU name at its
    start glued to a lexicon word (:func:`_glued_tail`); else ``None``."""
    if word in keys or (word.endswith("s") and word[:-1] in keys):
        return [word]
    for cut in range(len(word) - 2, 1, -1):
        head, tail = word[:cut], word[cut:]
        if head in keys and tail[0].isalpha() and _glued_tail(tail, lex):
            return [head, tail]
    return None


def split_glued_names(text: str, tables: ParserTables, lex: Lexicon) -> str:
    """``text`` with a space between a GPU name and what was typed glued to it: a memory size before it ("80GA100",
    "一台80GA100上" -> "80G A100") and a word of the lexicon after it ("3090lora", "4090fp16" -> "3090 lora"), so
    that the name, its memory and the word are each read. The user's letters are kept; only spaces are added.

    Args:
        text: the prepared message (original case).
        tables: the knowledge base's parser tables (GPU names).
        lex: the lexicon (the words that may follow a name).

    Returns:
        The text with those spaces added (the same text when nothing is glued).
    """
    keys = tables.gpu_keys

    def spaced(m: re.Match[str]) -> str:
        word = m.group(0)
        parts = _split_glued_word(word.lower(), keys, lex)
        if len(parts) == 1:
            return word
        out, pos = [], 0
        for part in parts:
            out.append(word[pos:pos + len(part)])
            pos += len(part)
        return " ".join(out)

    return _WORD_RUN.sub(spaced, text)


def _words(low: str, masked: SpanSet) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in GPU_WORD.finditer(low) if m.start() not in masked]


class _GpuScanner:
    """One pass over one message; see the module docstring for the rules."""

    def __init__(self, low: str, written, tables: ParserTables, masked: SpanSet, lex: Lexicon,
                 max_fuzzy: int = 12):
        self.low = low
        self.written = written
        self.tables = tables
        self.counts = _counts(lex)
        self.total_after = lex.per_machine_total_after  # "2机16卡": 16 cards over both machines
        self.machine_after = re.compile(rf"\s*(?:{lex.per_machine_machine.pattern})")  # "3 H100 nodes"
        self.not_name_prefixes = lex.not_name_prefixes.pattern
        self.percentiles = lex.percentiles  # "p99" is a latency percentile, not a Tesla P-series card
        self.own_card = re.compile(rf"(?:{lex.own_card_words.pattern})\s*$")  # "my 4070 ti super": one card
        self.variant_words = lex.gpu_variant_words
        self.variant_start = re.compile("|".join(  # "ti" of "rtx4070tisuper": a variant word starting the rest
            re.escape(re.sub(r"[\s_\-]", "", k)) for k in lex.gpu_variant_words.values) or "(?!)")
        self.card_then_paren = _card_then_paren(lex.card_words.pattern)  # "A100 GPUs (40GB)", "A100显卡（40G）"
        gpu_hours = lex.quantity_units.get("gpu_hours")
        # "5,000 H100 GPU-hours", "10k A100 hours": the number before the name is GPU time, not a count
        self.hours_after = _hours_after(gpu_hours.pattern if gpu_hours else "(?!)", lex.hour_units.pattern)
        # "a 10-day run", "a 40-minute job", "a 100-token reply": the number is a quantity's, not a GPU's digits
        self.unit_after = _unit_after(_units_of(lex))
        self.memory_gap_before = _memory_gap_before(lex.memory_name_joiners.pattern)  # "40gb a100", "40G的A100"
        # "A100 with 40GB", "RTX 5060 w/ 16GB", "4090有24G": the memory after the name, a joiner between
        self.memory_gap_after = _memory_gap_after(lex.memory_after_name_joiners.pattern)
        self.glued: dict[int, int] = {}
        self.words = self._split_glued_figures(_words(low, masked))
        self.reps = [_repair_word(w) for w, _, _ in self.words]
        self.fuzzy_budget = max_fuzzy  # bounds the work on a 40,000-character message
        self.found: list[FoundGpu] = []
        # where a figure was split off a name ("910b|280t"): name end -> figure end

    def _split_glued_figures(self, words: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
        """Words that are a GPU name glued to a figure ("910b280t") as two words ("910b", "280t"); a word
        that is itself a name, or a name glued to a count or a memory size ("a100x8", "a10080g"), stays whole."""
        out = []
        for word, start, end in words:
            m = _GLUED_FIGURE.match(word)
            if m and m.group(1) in self.tables.gpu_keys and not m.group(1).isdigit() and \
                    self._resolve_key(word, word) is None:
                cut = start + len(m.group(1))
                out += [(m.group(1), start, cut), (m.group(2), cut, end)]
                self.glued[cut] = end
            else:
                out.append((word, start, end))
        return out

    def _joinable(self, k: int) -> bool:
        """Whether word k and word k+1 belong to one name (only spaces or hyphens between)."""
        return k + 1 < len(self.words) and bool(_JOIN_GAP.match(self.low[self.words[k][2]:self.words[k + 1][1]]))

    def _run(self, i: int, limit: int) -> int:
        n = 1
        while n < limit and self._joinable(i + n - 1):
            n += 1
        return n

    def _resolve_key(self, key: str, last_word: str) -> tuple[str, str, int | None, Note | None] | None:
        """(GPU id, matched key, glued count, note) for a joined key, or None."""
        keys = self.tables.gpu_keys
        gpu_id = keys.get(key)
        if gpu_id is not None:
            stem = keys.get(key[:-1]) if key.endswith("s") else None
            # "v100s" is usually the plural of V100, not the rare V100S: a lower-case trailing
            # "s" is read as a plural when no provider rents the s-named GPU but they rent the stem.
            if (stem and stem != gpu_id and last_word.endswith("s")
                    and self.tables.offer_counts.get(gpu_id, 0) == 0 and self.tables.offer_counts.get(stem, 0) > 0):
                n = note("read_plural", written=last_word, gpu_name=self.tables.index.display_name("gpu", stem),
                         other_name=self.tables.index.display_name("gpu", gpu_id))
                return stem, key[:-1], None, n
            return gpu_id, key, None, None
        if key.endswith("s") and key[:-1] in keys:
            return keys[key[:-1]], key[:-1], None, None
        glued = _GLUED_SUFFIX.match(key)
        if glued and glued.group(1) in keys:
            return keys[glued.group(1)], glued.group(1), int(glued.group(2)), None
        glued = _GLUED_PREFIX.match(key)
        if glued and glued.group(2) in keys and 0 < int(glued.group(1)) <= MAX_GPU_COUNT:
            return keys[glued.group(2)], glued.group(2), int(glued.group(1)), None
        return None

    def _bare_number_ok(self, start: int, end: int, next_index: int) -> bool:
        """A GPU named only by digits ("4090") must not be a quantity ("4090 tokens", "$3090")."""
        before = self.low[start - 1] if start else " "
        after = self.low[end:end + 2]
        # "$3090", "v1.4090", "1,090": a number, not a GPU; a comma after a word ("推理时，4090") is punctuation
        thousands = before == "," and start >= 2 and self.low[start - 2].isdigit()
        # "3090/4090": a slash right after a GPU name lists another card, not a fraction or a path
        listed = before == "/" and bool(self.found) and not self.low[self.found[-1].end:start - 1].strip()
        if (before in ".:=$/#" and not listed) or thousands or _DECIMAL_AFTER.match(after):
            return False
        if next_index < len(self.words) and self.words[next_index][0] in _QUANTITY_UNITS:
            gap = self.low[end:self.words[next_index][1]]
            return not _TIGHT_GAP.match(gap)
        return True

    def _split_name_ok(self, next_index: int, end: int) -> bool:
        """"a 100" is the A100 only when followed by a connector, punctuation or the end; never when a unit of a
        quantity follows its number, spaced or hyphenated ("a 10-day run", "a 40 minute job", "a 100-token reply")."""
        if next_index >= len(self.words):
            return True
        if self.unit_after.match(self.low, end):
            return False
        gap = self.low[end:self.words[next_index][1]]
        # "a 30-second clip", "a 100-page report": a hyphen glues the number to the word after it, no name
        return (bool(gap.strip()) and gap.strip() != "-") or self.words[next_index][0] in _SPLIT_NAME_FOLLOWERS or bool(
            _MEMORY_WORD.match(self.words[next_index][0]))

    def _exact_at(self, i: int) -> tuple[int, str, str, int | None, Note | None] | None:
        """Longest exact window starting at word i: (words used, id, key, glued count, note)."""
        first = self.reps[i]
        split_letter = (len(first) == 1 and first in "ahlvtbpk" and i + 1 < len(self.words)
                        and self.reps[i + 1].isdigit() and self._joinable(i))
        glued_prefix = _GLUED_PREFIX.match(first)
        # a whole name typed as one word ("h100sxm", "a100pcie") is a name even when no alias starts with it
        if first not in self.tables.gpu_first_words and first not in self.tables.gpu_keys and not split_letter and not (
                first.endswith("s") and first[:-1] in self.tables.gpu_first_words):
            if not _GLUED_WORD.match(first) and not (glued_prefix and glued_prefix.group(2) in self.tables.gpu_first_words):
                return None
        for n in range(self._run(i, self.tables.gpu_max_words + 1), 0, -1):
            if split_letter and n == 1:
                break
            key = "".join(self.reps[i:i + n])
            hit = self._resolve_key(key, self.words[i + n - 1][0])
            if hit is None:
                continue
            gpu_id, matched_key, glued, n_note = hit
            end = self.words[i + n - 1][2]
            if matched_key.isdigit() and not self._bare_number_ok(self.words[i][1], end, i + n):
                continue
            if n > 1 and self.words[i + n - 1][0].isdigit() and self.counts.after.match(self.low[self.words[i + n - 2][2]:end + 8]):
                # "910B 4 卡", "H100 8 GPUs": a number after the name with a counter is the count, not a variant's
                # digit ("910B4")
                continue
            if split_letter and n == 2 and not self._split_name_ok(i + n, end):
                continue
            return n, gpu_id, matched_key, glued, n_note
        return None

    def _memory_word_at(self, k: int) -> tuple[int, int] | None:
        """(memory GB, words used) when word k (and k+1) spell a memory size ("80gb", "80 gb")."""
        if k >= len(self.words) or k < 0:
            return None
        m = _MEMORY_WORD.match(self.words[k][0])
        if m:
            return int(m.group(1)), 1
        if (self.words[k][0].isdecimal() and len(self.words[k][0]) <= 4  # a card has at most 1,024 GB
                and k + 1 < len(self.words) and self.words[k + 1][0] in ("g", "gb", "gib") and self._joinable(k)):
            return int(self.words[k][0]), 2
        return None

    def _memory_skip(self, end: int, k: int) -> int | None:
        """The words (0 to 2) between a GPU name ending at ``end`` (before word k) and a memory size after it that is
        the name's: a space, a bracket, "-", "/" or "*" ("A100 (80GB)", "H20 * 96G"), a card word then a bracket ("A100
        GPUs (40GB)"), or a joiner of the lexicon (``memory.after_name_joiners``: "A100 with 40GB", "4090有24G");
        ``None`` when no memory size follows so."""
        for skip in (0, 1, 2):
            if k + skip >= len(self.words) or not self._memory_word_at(k + skip):
                continue
            gap_end = self.words[k + skip][1]
            if (skip == 0 and _MEMORY_GAP.match(self.low[end:gap_end])) or self.card_then_paren.fullmatch(
                    self.low, end, gap_end) or self.memory_gap_after.fullmatch(self.low, end, gap_end):
                return skip
        return None

    def _memory_after(self, end: int, k: int) -> tuple[int, int] | None:
        """(memory GB, words used, the words between included) of the memory size after a name (see
        :meth:`_memory_skip`), or ``None``."""
        skip = self._memory_skip(end, k)
        if skip is None:
            return None
        memory, used = self._memory_word_at(k + skip)
        return memory, used + skip

    def _variant_word_at(self, k: int) -> int:
        """Words (0, 1 or 2) at word k that spell a variant word joined to the name before it ("ti", "ti super")."""
        for used in (2, 1):
            if k + used > len(self.words) or not all(self._joinable(j) for j in range(k - 1, k + used - 1)):
                continue
            if self.variant_words.fullmatch(" ".join(w for w, _, _ in self.words[k:k + used])):
                return used
        return 0

    def _add(self, i: int, n: int, gpu_id: str, key: str, glued: int | None, n_note: Note | None) -> int:
        """Record a match of words i..i+n-1; take memory and counts around it. Returns the next word.

        A variant word after the name that makes no GPU of the knowledge base ("RTX 5090 Ti"), or a memory size
        no variant of the product has ("H200 64G"), is an unknown variant: read as the product (with the memory
        stated), and reported with the product's real variants and the nearest known cards (``unknown_variant``).
        """
        suffix_words = self._variant_word_at(i + n) if glued is None else 0
        suffix = " ".join(w for w, _, _ in self.words[i + n:i + n + suffix_words])
        product_end = self.words[i + n - 1][2]  # the product's name as written, before a variant word and memory
        n += suffix_words
        start, end = self.words[i][1], self.words[i + n - 1][2]
        span_start, span_end = start, end
        notes = [n_note] if n_note else []
        memory_gb = None
        # a memory size after the name ("a100 40g", "A100 (80GB)", "4090 48G", "A100 with 40GB") or before it ("40gb
        # a100"), or after a card word, in parentheses ("A100 GPUs (40GB)", "A100显卡（40G）")
        skip = self._memory_skip(end, i + n)
        # a name whose last word is already its memory ("a100 40g/80g") takes no second one: "/80g" is another variant
        named_memory = n > 1 and bool(_MEMORY_WORD.match(self.words[i + n - 1][0]))
        memory_after = False
        if not named_memory and skip is not None:
            memory_after = True
            memory_gb, used = self._memory_word_at(i + n + (skip or 0))
            used += skip or 0
            span_end = self.words[i + n + used - 1][2]
            if self.low[span_end:span_end + 1] == ")":
                span_end += 1
            n += used
        elif i > 0 and _MEMORY_WORD.match(self.words[i - 1][0]) and self.memory_gap_before.fullmatch(
                self.low, self.words[i - 1][2], start):
            memory_gb = int(_MEMORY_WORD.match(self.words[i - 1][0]).group(1))
            span_start = self.words[i - 1][1]
        match = self.tables.index.lookup("gpu", key, fuzzy=False)
        assumed = bool(match and match.variant_assumed)
        if memory_gb is not None:
            variant = self.tables.memory_variant(gpu_id, memory_gb)
            if variant is not None:
                if variant != gpu_id:
                    assumed = assumed and self.tables.variant_ambiguous(variant)
                gpu_id = variant
                memory_gb = None
            elif abs(self.tables.memory_of(gpu_id) - memory_gb) < 1:
                memory_gb = None
            elif memory_after and self.tables.kb.gpus[gpu_id].segment == "datacenter" and \
                    _whole_multiple(memory_gb, self.tables.memory_of(gpu_id)):
                # "H100 NVL with 188GB": a data-center card is never sold with its memory doubled (GeForce cards are,
                # "2080 Ti 22G"), so a whole multiple of its memory is that many cards together, not another card
                memory_gb = None
        written = self.written(start, self.words[i + n - 1][2])
        named_end = span_end
        count = glued
        nodes = None
        over_limit = None
        if count is None and not self.hours_after.match(self.low, span_end):
            before = self.counts.before.search(self.low[max(0, span_start - 24):span_start])
            if before and not self._follows_model_word(span_start - len(before.group(0))):
                count = _count_value(before.group(1), self.counts)
                if count is None and _too_many(before.group(1), self.counts):
                    over_limit = _over_value(before.group(1), self.counts)
                    notes.append(note("quantity_over_limit", written=f"{before.group(0).strip()} {written}",
                                      quantity="gpu_count", max_n=MAX_GPU_COUNT))
                    span_start -= len(before.group(0))
                if count is not None:
                    span_start -= len(before.group(0))
                    outer = _CHAINED_COUNT.search(self.low[max(0, span_start - 12):span_start]) or \
                        self.counts.nodes.search(self.low[max(0, span_start - 16):span_start])
                    total = outer is not None and outer.re is self.counts.nodes and \
                        self.total_after.fullmatch(outer.group(2).strip())
                    if total and count % int(outer.group(1)) == 0:
                        # "2机16卡 H800": the cards are counted over all the machines (lexicon per_machine.total_after)
                        nodes = int(outer.group(1))
                        notes.append(note("gpus_per_node", nodes=nodes, per_node=count // nodes, count=count))
                        span_start -= len(outer.group(0))
                    elif outer and not total and count * int(outer.group(1)) <= MAX_GPU_COUNT:
                        # "3*8*A100", "2台8卡H800", "2 nodes of 8 H100": machines of that many
                        nodes = int(outer.group(1))
                        notes.append(note("gpus_per_node", nodes=nodes, per_node=count, count=nodes * count))
                        count *= nodes
                        span_start -= len(outer.group(0))
                    elif outer is None and self._machines_counted(before, span_end):
                        # "4台 A800 机器", "3 H100 nodes": the count is of machines, whose GPUs are not said
                        nodes, count = count, None
            unusable = self.counts.unusable.search(self.low[max(0, span_start - 24):span_start])
            if count is None and over_limit is None and unusable and _signed(unusable.group(1)) <= 0:
                # "0 H100s", "-2 A100": a count that cannot be used is reported first, and none is assumed from it
                # the number stays unclaimed, so it is listed as not understood too, as other unusable quantities are
                notes.append(note("quantity_unusable", written=f"{unusable.group(0).strip()} {written}",
                                  quantity="gpu_count"))
        counted_after = False
        after_count = self.counts.after.match(self.low[span_end:span_end + 16])
        per_unit = _count_value(after_count.group(1) or after_count.group(2), self.counts) if after_count else None
        if after_count and per_unit is None and _too_many(after_count.group(1) or after_count.group(2)):
            over_limit = _over_value(after_count.group(1) or after_count.group(2))
            notes.append(note("quantity_over_limit", written=f"{written} {after_count.group(0).strip()}",
                              quantity="gpu_count", max_n=MAX_GPU_COUNT))
            span_end += after_count.end()
        elif per_unit is not None and count is None:
            count = per_unit
            span_end += after_count.end()
            counted_after = True
        elif per_unit is not None and nodes is None and after_count.group(1) and count * per_unit <= MAX_GPU_COUNT:
            # a count on each side, "2台 H100*8", "2 x H100 x8": machines of that many GPUs each
            notes.append(note("gpus_per_node", nodes=count, per_node=per_unit, count=count * per_unit))
            nodes, count = count, count * per_unit
            span_end += after_count.end()
        if count is None and self.own_card.search(self.low[max(0, span_start - 12):span_start]) and not \
                written.lower().endswith("s"):
            count = 1  # "my 4070 ti super", "我的 4090": the one card the user has
        if memory_gb is not None and memory_after and count and \
                abs(count * self.tables.memory_of(gpu_id) - memory_gb) < 1:
            memory_gb = None  # "3 x RTX 3090 (72GB)": the memory of all the cards, not one card's
        if suffix or memory_gb is not None:
            notes.append(_unknown_variant(self.tables, gpu_id, self.written(start, named_end),
                                          self.written(start, product_end), memory_gb, suffix))
        if assumed and memory_gb is None:
            notes.append(note("assumed_variant", gpu_name=self.tables.index.display_name("gpu", gpu_id),
                              written=written))
        figure_end = self.glued.get(self.words[i + n - 1][2])
        self.found.append(FoundGpu(gpu_id, written, start, self.words[i + n - 1][2], span_start, span_end, count,
                                   assumed and memory_gb is None, memory_gb=memory_gb, nodes=nodes, notes=notes,
                                   count_over_limit=over_limit if count is None else None,
                                   glued_figure=self.written(span_end, figure_end) if figure_end and
                                   figure_end > span_end else None, count_after=counted_after))
        return i + n

    def _machines_counted(self, before: re.Match[str], name_end: int) -> bool:
        """Whether the count matched by ``before`` (right before a GPU name ending at ``name_end``) counts machines:
        written with no multiplier or card counter, or with 台, and followed by a machine word of the lexicon
        (``per_machine.machine_words``: "4台 A800 机器", "3 H100 nodes"; not "8x A100 nodes", eight per node)."""
        counter = before.group(0)[before.end(1) - before.start(0):].strip()
        return counter in ("", "台") and bool(self.machine_after.match(self.low, name_end)) and \
            (_count_value(before.group(1), self.counts) or 0) > 1  # ("one T4 machine": a machine of T4s)

    def _follows_model_word(self, pos: int) -> bool:
        """"llama 2 a100": the 2 is a model version, not a count."""
        before = self.low[max(0, pos - 12):pos].split()
        return bool(before) and before[-1] in {"llama", "qwen", "gemma", "phi", "mistral", "l", "version", "v"}

    def _fuzzy_or_unknown(self, i: int, vendor: bool, words: int | None = None) -> int | None:
        """Fuzzy-resolve a vendor window or a GPU-shaped word (or the first ``words`` words); report it unknown
        otherwise."""
        n = 1
        if words is not None:
            n = words
        elif vendor:
            while (n < 4 and self._joinable(i + n - 1) and _VENDOR_TAIL.match(self.words[i + n][0])
                   and not _MEMORY_WORD.match(self.words[i + n][0])):  # "RTX 4000 20G": the memory ends the name
                n += 1
            if (n == 1 and not _VENDOR_GLUED.match(self.reps[i])) or not any(
                    ch.isdigit() for w, _, _ in self.words[i:i + n] for ch in w):
                return None
        start, end = self.words[i][1], self.words[i + n - 1][2]
        written = self.written(start, end)
        if self.fuzzy_budget <= 0:
            return None
        self.fuzzy_budget -= 1
        memory = self._memory_after(end, i + n)
        by_memory = self._named_by_memory(i, n, memory[0]) if memory else None
        if by_memory is not None:
            # "RTX 4000 20G": the start of one product's name whose memory is the one stated (the RTX 4000 Ada)
            name = self.tables.index.display_name("gpu", by_memory)
            return self._add(i, n, by_memory, "".join(self.reps[i:i + n]), None,
                             note("read_gpu_as", written=self.written(start, self.words[i + n + memory[1] - 1][2]),
                                  gpu_name=name))
        exact = self.tables.index.lookup("gpu", written, fuzzy=False)
        if exact is not None:
            return self._add(i, n, exact.id, repair_name(exact.alias), None, None)
        key = "".join(self.reps[i:i + n])
        if self.tables.index.lookup("unlisted", written, fuzzy=False) is not None:
            # a product known to exist but not sized here ("海光 K100", not the K100 AI): unknown, never the start of
            # another product's name
            return self._unknown(i, n, memory)
        # (a name whose rest starts with a variant word is another product: "rtx 4070" is not the RTX 4070 Ti Super)
        started = {product_key(g) for k, g in self.tables.gpu_keys.items()
                   if k.startswith(key) and k != key and not self.variant_start.match(k, len(key))}
        if len(started) == 1 and any(c.isdigit() for c in key):
            # "RTX4000", "mi300": the start of one product's name, a word or letter left out (RTX 4000 Ada, MI300X)
            gpu_id = next(g for k, g in self.tables.gpu_keys.items() if k.startswith(key) and k != key
                          and not self.variant_start.match(k, len(key)))
            default = self.tables.index.lookup("gpu", self.tables.index.display_name("gpu", gpu_id), fuzzy=False)
            gpu_id = default.id if default else gpu_id
            return self._add(i, n, gpu_id, key, None,
                             note("read_gpu_as", written=written, gpu_name=self.tables.index.display_name("gpu", gpu_id)))
        if len(started) > 1:
            # the start of several products' names with no memory to pick one: unknown, with those names as
            # suggestions, never a near miss
            return self._unknown(i, n, None)
        match = self.tables.index.lookup("gpu", written)
        if match is not None:
            name = self.tables.index.display_name("gpu", match.id)
            return self._add(i, n, match.id, repair_name(match.alias), None,
                             note("read_gpu_as", written=written, gpu_name=name))
        # a known name inside the window ("geforce 4090") is left to the exact scan
        if vendor and any(self._exact_at(k) for k in range(i + 1, i + n)):
            return None
        return self._unknown(i, n, memory)

    def _unknown(self, i: int, n: int, memory: tuple[int, int] | None) -> int:
        """Record words i..i+n-1 as a GPU name the knowledge base lacks, with the memory size written right after it
        ("RTX 5060 16GB"), which the answer sizes by; returns the next word."""
        start, end = self.words[i][1], self.words[i + n - 1][2]
        written = self.written(start, end)
        span_end = end
        if memory is not None:
            span_end = self.words[i + n + memory[1] - 1][2]
        key = "".join(self.reps[i:i + n])
        started = list(dict.fromkeys(self.tables.index.display_name("gpu", g) for k, g in self.tables.gpu_keys.items()
                                     if k.startswith(key) and k != key))
        suggestions = list(dict.fromkeys([*started, *self.tables.index.suggest("gpu", written)]))
        self.found.append(FoundGpu(None, self.written(start, span_end), start, end, start, span_end,
                                   suggestions=suggestions))
        return i + n + (memory[1] if memory else 0)

    def _named_by_memory(self, i: int, n: int, memory_gb: float) -> str | None:
        """The one GPU of the knowledge base whose name starts with words i..i+n-1 (a word left out: "RTX 4000" of
        "RTX 4000 Ada") and whose memory is ``memory_gb``, or ``None`` when none or several are."""
        key = "".join(self.reps[i:i + n])
        if not any(c.isdigit() for c in key):
            return None
        ids = {g for k, g in self.tables.gpu_keys.items() if k.startswith(key) and k != key}
        hits = [g for g in ids if abs(self.tables.memory_of(g) - memory_gb) < 1]
        return hits[0] if len(hits) == 1 else None

    def _product_number_name(self, i: int) -> int | None:
        """A bare number shaped like a product number of a series the knowledge base has ("5060", "5070") followed by
        a variant word or a memory size ("5060 16GB", "5070 ti"): a card the knowledge base lacks, reported as
        unknown with the memory written (never a count of cards nor a count before a card named by its memory).
        Returns the next word, or ``None`` when word i is no such name."""
        word = self.reps[i]
        if not word.isdecimal() or word in self.tables.gpu_keys or self.tables.is_product_number(word) or \
                not self.tables.product_number_shaped(word) or \
                not self._bare_number_ok(self.words[i][1], self.words[i][2], i + 1):
            return None
        n = 1 + self._variant_word_at(i + 1)
        end = self.words[i + n - 1][2]
        memory = self._memory_after(end, i + n)
        if n == 1 and memory is None:
            return None
        return self._unknown(i, n, memory)

    def _brand_then_code(self, i: int, n: int, key: str) -> bool:
        """A name matched by a brand or series word alone ("ascend") followed by a product code that is not
        part of it ("Ascend 310P"): the user named another product, which the brand's default is not."""
        return (not any(c.isdigit() for c in key) and i + n < len(self.words) and self._joinable(i + n - 1)
                and bool(_MODEL_CODE.match(self.words[i + n][0])) and self._exact_at(i + n) is None)

    def _negated(self, i: int) -> bool:
        """"pre-Hopper", "post-Volta": a name glued after such a prefix names no GPU."""
        start = self.words[i][1]
        return start > 0 and self.low[start - 1] == "-" and bool(
            re.search(rf"(?:{self.not_name_prefixes})$", self.low[max(0, start - 8):start - 1]))

    def scan(self) -> list[FoundGpu]:
        i = 0
        while i < len(self.words):
            exact = self._exact_at(i)
            if exact is not None and self._negated(i):
                i += exact[0]
                continue
            if exact is not None and self._brand_then_code(i, exact[0], exact[2]):
                next_i = self._fuzzy_or_unknown(i, vendor=True, words=exact[0] + 1)
                i = next_i if next_i is not None else i + exact[0]
                continue
            if exact is not None:
                # only a match starting inside this one (a second word of it) can cover more of the same name
                later = self._exact_at(i + 1) if exact[0] >= 2 and i + 1 < len(self.words) else None
                if later is not None and i + 1 + later[0] > i + exact[0]:
                    # the name that covers more text wins: "Tesla V100-SXM2-32GB" is the V100 SXM2 32GB, not a
                    # "Tesla V100" (16 GB default) followed by a stray "32GB"
                    i = self._add(i + 1, *later)
                    continue
                i = self._add(i, *exact)
                continue
            word = self.reps[i]
            next_i = None
            if word in VENDOR_WORDS or _VENDOR_GLUED.match(word):
                next_i = self._fuzzy_or_unknown(i, vendor=True)
            elif word.isdecimal():
                next_i = self._product_number_name(i)
            elif _GPU_SHAPED.match(word) and not _ACTIVE_PARAMS.match(word) and word not in self.percentiles:
                next_i = self._fuzzy_or_unknown(i, vendor=False)
            i = next_i if next_i is not None else i + 1
        return self.found


def scan_gpus(low: str, written, tables: ParserTables, masked: SpanSet, lex: Lexicon) -> list[FoundGpu]:
    """GPU names in ``low`` outside the ``masked`` spans, in order, including unknown ones.

    Args:
        low: the lower-cased message.
        written: ``(start, end) -> str`` giving the user's text for a span.
        tables: the knowledge base's parser tables.
        masked: spans already claimed (instance types, model names).
        lex: the lexicon (number words and counters).

    Returns:
        :class:`FoundGpu` records; ``id`` is ``None`` for names not in the knowledge base.
    """
    found = _GpuScanner(low, written, tables, masked, lex).scan()
    claimed = SpanSet([(f.start, f.end) for f in found])
    for m in _APPLE.finditer(low):
        if m.start() not in claimed:
            text = written(m.start(), m.end())
            found.append(FoundGpu(None, text, m.start(), m.end(), m.start(), m.end(),
                                  suggestions=tables.index.suggest("gpu", text)))
    found.sort(key=lambda f: f.start)
    return found


#: Words before a memory size that make it a card the user has or names ("my 16gb", "an 80g", "on a 24gb").
_CAPACITY_LEAD = re.compile(
    r"(?:\b(?:a|an|my|our|one|single|the|this|that|each|per|on|in|with|into|two|dual|four|eight)\s+|(?:\d{1,4}|[单双])\s*(?:x|×|\*|张|块|个)\s*)$")
#: A memory size right before a card word ("16gb" of "16gb vram 64 gb ram"): that word is the size's.
_MEMORY_BEFORE_CARD_WORD = re.compile(r"\d\s*(?:g|gb|gib)\s*$")
#: The result of arithmetic ("7 x 4 x 4 = 112 GB"): a computed amount, not a card.
_RESULT = re.compile(r"\d\s*[=≈]\s*$")


def scan_capacity_gpus(low: str, written, tables: ParserTables, claimed: SpanSet, lex: Lexicon,
                       named_gpus: list[FoundGpu] | None = None) -> list[FoundGpu]:
    """GPUs named only by their memory ("my 16gb card", "two 48gb cards", "an 80g card", "8x 40g", "16G显存").

    A memory size is a GPU when a card word follows it (``memory.card_words`` in the lexicon: card, gpu,
    vram, 显卡, 显存; or a notebook platform, ``memory.platform_words``: "15 GB colab") or precedes it ("my card has
    12GB", "显存48G", "kaggle 16GB"), or a count or article leads it ("two
    48gb", "8x 40g", "an 80g"). It is not a GPU when a requirement word precedes it ("uses 20gb", "需要
    80G": ``memory.requirement_words``; a count of cards right after the size still makes it one, "I use 32 GB VRAM
    single GPU") or a word after it says whose size it is ("the 140 gb model": ``memory.not_card_after``), when it is
    the memory of several cards together ("my total video memory is 160GB": ``memory.total_words``), when it restates the memory of a GPU already named, alone or all of them
    together ("2x3060 12gb ... 24gb vram"), or when, without a card word, no GPU has exactly that memory
    ("fit it on 17gb").

    The GPU is the most rented knowledge-base GPU of exactly that memory (a consumer card first unless a cloud or
    a platform is named, ``memory.cloud_words``); with none of that memory, the card whose memory tools report as
    that much ("15 GB" is a 16 GB card), else the nearest smaller one, keeps the stated memory
    (:meth:`~bot.parsing.tables.ParserTables.capacity_gpu`). A note names the choice.

    Args:
        low: the lower-cased message.
        written: ``(start, end) -> str``.
        tables: the knowledge base's parser tables.
        claimed: spans already used by names (a memory size next to a GPU name belongs to it).
        lex: the lexicon.
        named_gpus: GPUs already found; a memory size close to one of theirs (or their sum) describes them.

    Returns:
        :class:`FoundGpu` records with ``capacity_only`` set.
    """
    counts = _counts(lex)
    # a notebook platform is said where a card word is ("15 GB colab", "kaggle 16GB")
    cards = f"{lex.card_words.pattern}|{lex.platform_words.pattern}"
    pattern = _capacity_pattern(cards, lex.memory_units.pattern, lex.memory_scaled_units.pattern)
    card_before = _card_before_pattern(cards)
    requirement = _ends_with(lex.memory_requirement_words.pattern, lex.approx_words.pattern)
    not_card = _starts_with(lex.not_card_after.pattern)
    total_before, total_after = _total_patterns(lex.memory_total_words.pattern)
    # "32 GB VRAM single GPU", "24G 单卡": a count of cards right after the size makes it a card, whatever is before
    counted_after = _counted_card_after(lex.number_words.pattern, lex.quantity_units["gpu_count"].pattern,
                                        lex.card_words.pattern)
    out: list[FoundGpu] = []
    named = [tables.memory_of(f.id) for f in named_gpus or [] if f.id]
    totals = [tables.memory_of(f.id) * f.count for f in named_gpus or [] if f.id and f.count and f.count > 1]
    out += _bare_variant_pair(low, named_gpus or [], tables, lex, claimed)
    for m in pattern.finditer(low):
        start, end = m.start(), m.end()
        if start in claimed or (end - 1) in claimed or any(f.start <= start < f.end for f in out):
            continue
        unit = m.group("unit")
        scale = lex.memory_scaled_units.value(unit)
        if scale is None and ("." in m.group("mem") or len(m.group("mem")) > 3):
            continue  # "1.5g", "2000gb": a GB size of a card is a whole number of up to 3 digits
        memory, snapped = _memory_in_gb(float(m.group("mem")), scale, tables)
        shared = _shared_unit_variants(low, start, end, memory, named_gpus or [], tables, lex) if memory >= 1 else []
        if shared:  # "a100 40 vs 80gb", "A100 40/80GB": both memory variants of the product named
            out.extend(shared)
            continue
        variant = _other_variant(low, start, end, memory, named_gpus or [], tables, lex) if memory >= 1 else None
        if variant is not None:  # "v100 32g or 16g": the same product in its other memory
            out.append(variant)
            continue
        if any(0.85 * gb <= memory <= gb * 1.02 for gb in named) or any(abs(memory - t) < 1 for t in totals):
            continue  # "A10 (16 * 23G)", "2x3060 12gb ... 24gb": the named GPUs' memory, as the user reads it
        before = low[max(0, start - 24):start]
        if total_before.search(low[max(0, start - 32):start]) or total_after.match(low, end):
            continue  # "my total video memory is 160GB", "96GB in total": several cards' memory together
        named_card = card_before.search(before)  # "my card has 12GB of RAM": the card's memory
        if named_card and _MEMORY_BEFORE_CARD_WORD.search(before[:named_card.start()]):
            # "16gb Vram 64 gb RAM": the card word belongs to the size before it, not to this one
            named_card = None
        named_card = bool(named_card)
        one_counted = counted_after.match(low, end)
        if not one_counted and (requirement.search(before) or _RESULT.search(before) or (
                not named_card and not_card.match(low[end:end + 20]))):
            continue
        near = counts.before.search(low[max(0, start - 16):start])
        if near and (max(0, start - 16) + near.start(1)) in claimed:
            continue  # "RTX 2060 8GB": the number is the named card's (a name, known or not), the memory its too
        product = near is not None and near.group(0).strip() == near.group(1) and \
            tables.is_product_number(near.group(1))
        if product:
            # "笔记本4060 8G", "laptop 4060 8GB": a GPU product number with no counter before a memory names a card the
            # knowledge base lacks in that form (one of it), not 4,060 cards; the card is read from its memory
            near = None
        lead = _CAPACITY_LEAD.search(low[max(0, start - 12):start]) or near  # "three 24 gb gpus": any count
        # "does 8GB run llama 7b?", "can 12gb handle it": a size asked a fit question of (a fit opener of the lexicon
        # opening the clause right before it, a fit verb after it) is the card asked about
        clause_start = max((i + 1 for i, ch in enumerate(low[:start]) if ch in ",.;:?!\n，。；：？！"), default=0)
        asked_of = re.fullmatch(rf"\s*(?:{lex.fit_openers.pattern})\s+", low[clause_start:start]) and \
            lex.fit_verbs.search(low[end:end + 40])
        named_card = named_card or product
        # a unit of the lexicon may hold the card word itself ("16 gb of vram", "24 gb card")
        card = bool(m.group("card")) or named_card or bool(one_counted) or bool(lex.card_words.search(unit)) or \
            bool(asked_of)
        if not (card or lead):
            continue
        # no card has a size outside the knowledge base's range: said by the memory alone (an explicit unit and a card
        # word needed: "a 2 GB gpu", "12 MB VRAM"), never read as another card
        beyond = not tables.smallest_memory_gb <= memory <= 512
        if beyond and (not card or unit == "g"):
            continue
        count = _count_value(one_counted.group(1), counts) if one_counted else None
        span_start = start
        if lead and count is None:
            cm = counts.before.search(low[max(0, start - 16):start])
            if cm and not (cm.group(0).strip() == cm.group(1) and tables.is_product_number(cm.group(1))):
                count = _count_value(cm.group(1), counts)
                if count is not None and count > 1:
                    span_start = start - len(cm.group(0))
                elif lead.group(0).strip() in ("a", "an", "one", "single", "单"):
                    count = 1
        plural = re.search(r"(?:cards|gpus|each|per card|per gpu)\b", low[start:end + 10]) or re.search(
            r"how many\s*$|几张|多少张|每张|每卡", low[max(0, start - 12):start + 1]) or counts.standalone.search(low)
        if count is None and not plural:  # (a GPU count said anywhere, "16卡", "2 gpus", is the count instead)
            # "my 24GB card", "24G显存能跑吗": one card, unless the words are plural or a count is asked
            count = 1
        span_end = one_counted.end() if one_counted else end  # "... single GPU": the count is the card's
        text = written(span_start, end)
        unit_note = [note("memory_unit_read", written=written(start, m.end("unit")), memory_gb=memory,
                          snapped=snapped, converted_gb=float(m.group("mem")) * scale)] if scale is not None else []
        if beyond:
            out.append(FoundGpu(None, text, start, end, span_start, span_end, count, True, memory_gb=memory,
                                capacity_only=True, notes=unit_note))
            continue
        # a card named by its memory alone is most often one people own (a GeForce), unless a cloud is meant
        cloud = bool(lex.cloud_words.search(low) or lex.platform_words.search(low))
        gpu_id, exact = tables.capacity_gpu(memory, prefer_consumer=not cloud)
        if gpu_id is None or (not exact and not card):
            continue
        others = tables.same_memory(memory, exclude=gpu_id)[:3]
        notes = [*unit_note, note("capacity_gpu", written=text, memory_gb=memory,
                                  gpu_name=tables.index.display_name("gpu", gpu_id),
                                  others=[tables.index.display_name("gpu", o) for o in others])]
        out.append(FoundGpu(gpu_id, text, start, end, span_start, span_end, count, True,
                            memory_gb=None if exact else float(memory), capacity_only=True, notes=notes))
    return out


@lru_cache(maxsize=4)
def _total_patterns(total_words: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(a total word earlier in the clause before a size, one right after it): the size is several cards' memory."""
    return (re.compile(rf"(?:{total_words})[^,.;:?!，。；：？！()（）]{{0,24}}$"),
            re.compile(rf"[\s)）]*(?:{total_words})"))


@lru_cache(maxsize=4)
def _counted_card_after(number_words: str, counters: str, card_words: str) -> re.Pattern[str]:
    """A count then a GPU word right after a size, a card word between ("32 GB VRAM single GPU", "24g 单卡");
    group 1 is the count."""
    return re.compile(rf"\s*(?:(?:{card_words})\s*)?((?:{number_words})|\d{{1,2}})\s*(?:x\s*)?(?:{counters})(?![a-z])")


def _other_variant(low: str, start: int, end: int, memory: int, named: list[FoundGpu], tables: ParserTables,
                   lex: Lexicon) -> FoundGpu | None:
    """A memory size joined to a named GPU by a comparison connector ("a100 80g vs 40g", "v100 32g 还是 16g"):
    that product's variant of this memory (or the same GPU with the stated memory when it has none)."""
    gap = _connector_gap(lex.variant_connectors.pattern)
    for f in named:
        if f.id is None or f.span_end > start or not gap.fullmatch(low, f.span_end, start):
            continue
        if not _MEMORY_AT_END.search(f.as_written):
            continue  # "8 * 4090, 256G memory", "L40S，45G显存": a total or another memory, not a variant listed
        variant = tables.memory_variant(f.id, memory)
        gpu_id = variant or f.id
        return FoundGpu(gpu_id, low[start:end], start, end, start, end,
                        memory_gb=None if variant else float(memory),
                        notes=[] if variant else [_unknown_variant(
                            tables, gpu_id, f"{_MEMORY_AT_END.sub('', f.as_written)} {low[start:end]}",
                            _MEMORY_AT_END.sub("", f.as_written), float(memory))])
    return None


def _shared_unit_variants(low: str, start: int, end: int, memory: float, named: list[FoundGpu], tables: ParserTables,
                          lex: Lexicon) -> list[FoundGpu]:
    """Two memory sizes of a named product sharing one unit ("a100 40 vs 80gb", "A100 40/80GB", "a100 40 and 80 gb"):
    the product's variant of each size (sizes it has no variant of are left out, so nothing is invented)."""
    first = _shared_first(lex.variant_connectors.pattern)
    for f in named:
        if f.id is None or f.span_end > start:
            continue
        m = first.fullmatch(low, f.span_end, start)
        if m is None:
            continue
        out = []
        for size, (a, b) in ((int(m.group(1)), m.span(1)), (memory, (start, end))):
            variant = tables.memory_variant(f.id, size)
            if variant is not None:
                out.append(FoundGpu(variant, low[a:b], a, b, a, b))
        return out if len(out) == 2 else []
    return []


def _bare_variant_pair(low: str, named: list[FoundGpu], tables: ParserTables, lex: Lexicon,
                       claimed: SpanSet) -> list[FoundGpu]:
    """Two sizes without a unit right after a named product ("A100 40 vs 80", "a100 40/80"): both its memory variants,
    only when the product has a variant of each size (so "H100 2 vs 4" stays counts)."""
    pair = _bare_pair(lex.variant_connectors.pattern)
    out: list[FoundGpu] = []
    for f in named:
        m = pair.match(low, f.span_end) if f.id is not None else None
        if m is None or m.start(1) in claimed:
            continue
        found = [(v, m.span(i)) for i in (1, 2) if (v := tables.memory_variant(f.id, int(m.group(i)))) is not None]
        if len(found) == 2:
            out += [FoundGpu(v, low[a:b], a, b, a, b) for v, (a, b) in found]
    return out


@lru_cache(maxsize=4)
def _bare_pair(connectors: str) -> re.Pattern[str]:
    return re.compile(rf"\s*(\d{{2,3}})\s*(?:{connectors}|,)\s*(\d{{2,3}})(?![\w.])")


@lru_cache(maxsize=4)
def _shared_first(connectors: str) -> re.Pattern[str]:
    """Between a GPU name and a memory size: another size without a unit and a connector ("a100| 40 vs |80gb")."""
    return re.compile(rf"\s*(\d{{2,3}})\s*(?:g|gb)?\s*(?:{connectors}|,)\s*")


_WORD_AFTER = re.compile(r"[\s(\-_/]{0,3}([a-z]+\d?)\b")  # "a100 80gb pcie", "H100 (SXM5)"


def scan_form_variants(low: str, written, named: list[FoundGpu], tables: ParserTables, lex: Lexicon,
                       claimed: SpanSet) -> tuple[list[FoundGpu], list[FoundGpu]]:
    """Form-factor words said next to a named GPU (``ParserTables.form_variant``: SXM, PCIe, NVL, OAM).

    Right after the name and its memory, the word makes it that variant ("A100 80GB PCIe" is the A100 PCIe 80GB);
    after a comparison or list connector (lexicon ``variant_connectors``: vs, or, and, 和, 还是, ...), alone, it names
    the product's variant in that form, another GPU ("H100 PCIe vs SXM", "H100 PCIe 和 SXM 差多少"): of the same
    memory when there is one.

    Args:
        low: the lower-cased message.
        written: ``(start, end) -> str``.
        named: the GPUs found by name.
        tables: the knowledge base's parser tables.
        lex: the lexicon (``variant_connectors``).
        claimed: spans already used by names.

    Returns:
        (``named`` with the variants said right after a name, the other variants named by a bare form word).
    """
    gap = _connector_gap(lex.variant_connectors.pattern)
    out: list[FoundGpu] = []
    refined: list[FoundGpu] = []
    for f in named:
        m = _WORD_AFTER.match(low, f.span_end) if f.id is not None else None
        variant = tables.form_variant(f.id, m.group(1)) if m and m.start(1) not in claimed else None
        if variant is not None and variant != f.id:
            f = replace(f, id=variant, as_written=written(f.start, m.end(1)), end=m.end(1), span_end=m.end(1),
                        variant_assumed=False, notes=[n for n in f.notes if n.code != "assumed_variant"])
        elif variant is not None:  # "H100 SXM SXM5": the same card
            f = replace(f, span_end=m.end(1))
        elif m and m.start(1) not in claimed and f.id is not None and tables.is_form_word(m.group(1)) and \
                not tables.is_form_word(f.as_written.split()[-1]):
            # "H800 PCIe" when only the H800 SXM is known: said as a variant the knowledge base lacks, estimated as
            # the product's known card (as "H200 64G" is)
            f = replace(f, span_end=m.end(1), variant_assumed=False, notes=[
                *(n for n in f.notes if n.code != "assumed_variant"),
                _unknown_variant(tables, f.id, written(f.start, m.end(1)), written(f.start, f.end), None,
                                 m.group(1))])
        refined.append(f)
    for f in refined:
        if f.id is None:
            continue
        g = gap.match(low, f.span_end)
        m = _WORD_AFTER.match(low, g.end()) if g and g.end() > f.span_end else None
        if m is None or m.start(1) in claimed or any(x.start <= m.start(1) < x.span_end for x in refined):
            continue
        variant = tables.form_variant(f.id, m.group(1))
        if variant is not None and variant != f.id:
            out.append(FoundGpu(variant, written(m.start(1), m.end(1)), m.start(1), m.end(1), m.start(1), m.end(1)))
    return refined, out


def _whole_multiple(total_gb: float, one_gb: float) -> bool:
    """Whether ``total_gb`` is 2 or more cards of ``one_gb`` each (within 1 GB)."""
    k = round(total_gb / one_gb) if one_gb else 0
    return k >= 2 and abs(k * one_gb - total_gb) < 1


def _unknown_variant(tables: ParserTables, gpu_id: str, written: str, product: str, memory_gb: float | None,
                     suffix: str = "") -> Note:
    """The ``unknown_variant`` note of a name that is no GPU of the knowledge base although its product is ("RTX
    5090 Ti", "H200 64G"): what was written, the product as written ("H200"), the GPU the answer is estimated
    for, the memory stated, the product's variants and the nearest known cards
    (:meth:`ParserTables.nearest_cards`), each with its memory unless its name says it."""
    def item(g: str) -> dict:
        shown = tables.index.display_name("gpu", g)
        memory = tables.memory_of(g)
        return {"gpu_name": shown, "memory_gb": None if f"{memory:g}GB" in shown else memory}

    return note("unknown_variant", written=written, product=product, gpu_name=tables.index.display_name("gpu", gpu_id),
                memory_gb=memory_gb, suffix=suffix or None, variants=[item(g) for g in tables.variants_of(gpu_id)],
                nearest=[item(g) for g in tables.nearest_cards(gpu_id, memory_gb)])


def _units_of(lex: Lexicon) -> str:
    """The units that make the number before them a quantity rather than a GPU's digits: lengths of time
    (``durations.units``, ``latency.units``) and the units of :data:`_UNIT_AFTER_FIELDS`."""
    tables = [lex.duration_units, lex.latency_units,
              *(lex.quantity_units[k] for k in _UNIT_AFTER_FIELDS if k in lex.quantity_units)]
    return "|".join(t.pattern for t in tables if t)


@lru_cache(maxsize=4)
def _unit_after(units: str) -> re.Pattern[str]:
    """A unit right after a number, spaced or hyphenated, no other word between ("10-day", "40 minute")."""
    return re.compile(rf"[ \t]?-?[ \t]?(?:{units})")


@lru_cache(maxsize=4)
def _duration_lookalike(cues: str, units: str) -> re.Pattern[str]:
    """A GPU-shaped word between a duration cue and a duration unit ("for l4 days")."""
    return re.compile(rf"(?:{cues})\s+(?P<word>[a-z]{{1,2}}\d{{1,4}})[ \t]?-?[ \t]?(?P<unit>{units})")


#: The pattern of :func:`scan_duration_lookalikes` per lexicon (``False``: the lexicon has none).
_DAY_LOOKALIKES: dict[int, re.Pattern[str] | bool] = {}


def scan_duration_lookalikes(low: str, lex: Lexicon, masked: SpanSet) -> list[tuple[int, int]]:
    """Lengths of time whose number is written with a letter in it, GPU-shaped: "for l4 days", "within t4 weeks" (an
    "l" typed for a "1"). A word of letters then digits right after a word that leads a length of time
    (``durations.deadline_words``, ``durations.rental_words``) and right before a unit of a day or longer
    (``durations.units``) names no GPU: GPU time is counted in hours ("5,000 A100 hours"), never in days after "for".

    Args:
        low: the prepared, lower-cased message.
        lex: the lexicon.
        masked: spans already read (model names, pasted logs).

    Returns:
        The ``(start, end)`` span of each such word with its unit, in order; the parser masks them from the GPU
        scanner and reports them as not understood.
    """
    pattern = _DAY_LOOKALIKES.get(id(lex))
    if pattern is None:  # built once per lexicon: the phrase tables are fixed once loaded
        units = lex.duration_units
        days = Phrases({u: units.value(u) for u in units.phrases if float(units.value(u) or 0) >= 24},
                       left_bound=False)
        cues = "|".join(p.pattern for p in (lex.deadline_words, lex.rental_words) if p)
        pattern = _DAY_LOOKALIKES[id(lex)] = _duration_lookalike(cues, days.pattern) if days and cues else False
    if not pattern:
        return []
    out = []
    for m in pattern.finditer(low):
        if m.start("word") in masked:
            continue
        out.append((m.start("word"), m.end()))
    return out


@lru_cache(maxsize=4)
def _hours_after(gpu_hour_units: str, hour_units: str) -> re.Pattern[str]:
    """A GPU-hour or hour unit right after a GPU name ("H100 GPU-hours", "A100 hours")."""
    return re.compile(rf"\s*(?:{gpu_hour_units}|{hour_units})")


@lru_cache(maxsize=4)
def _memory_gap_after(joiners: str) -> re.Pattern[str]:
    """Between a GPU name and its memory after it: a joiner of the lexicon ("with", "w/", "有")."""
    return re.compile(rf"\s*(?:{joiners})\s*")


@lru_cache(maxsize=4)
def _memory_gap_before(joiners: str) -> re.Pattern[str]:
    """Between a memory size and the GPU name after it: spaces, a multiplication sign ("80gb x a100") or a joiner of
    the lexicon ("40G的A100")."""
    return re.compile(rf"[\s*x×]{{1,3}}|\s*(?:{joiners})\s*")


@lru_cache(maxsize=4)
def _card_then_paren(card_words: str) -> re.Pattern[str]:
    """A card word then an opening parenthesis, between a GPU name and its memory ("A100 GPUs (40GB)")."""
    return re.compile(rf"\s*(?:{card_words})\s*\(\s*")


@lru_cache(maxsize=4)
def _connector_gap(connectors: str) -> re.Pattern[str]:
    return re.compile(rf"\s*\)?\s*(?:{connectors}|,)\s*(?:an?\s+|the\s+)?")


@lru_cache(maxsize=4)
def _card_before_pattern(card_words: str) -> re.Pattern[str]:
    """A card word right before a memory size: "my card has 12GB", "显存48G", "显存只有 8G", "vram: 16gb"."""
    return re.compile(rf"(?:{card_words})\s*(?:has|with|of|is|:|=|有|为|是|只有|仅有|才)?\s*(?:only\s+|about\s+|~\s*)?$")


@lru_cache(maxsize=16)
def _ends_with(*patterns: str) -> re.Pattern[str]:
    """One of the first pattern's phrases at the end of a text, optionally followed by the second's."""
    first, *rest = patterns
    tail = "".join(rf"(?:\s*(?:{p}))?" for p in rest)
    return re.compile(rf"(?:{first}){tail}\s*$")


@lru_cache(maxsize=16)
def _starts_with(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\s*(?:of\s+)?(?:{pattern})")


def _memory_in_gb(value: float, scale: float | None, tables: ParserTables) -> tuple[float, bool]:
    """(GB, snapped) of a memory size written ``value`` in a unit of ``scale`` GB (``None``: GB itself).

    A size converted from MB or MiB within 7% under to 3% over a card size the knowledge base has is that size: a
    card shows a little less than it is sold as (nvidia-smi: 81,559 MiB on an 80 GB H100, 15,360 MiB on a 16 GB T4
    with ECC), and people write binary sizes in MB (8,192 MB for 8 GB). Anything else keeps its converted value.
    """
    if scale is None:
        return value, False
    gb = value * scale
    near = [m for m in tables.memory_sizes_gb if 0.93 * m <= gb <= 1.03 * m]
    if near:
        return float(min(near, key=lambda m: abs(m - gb))), True
    return (round(gb, 3) if gb < 1 else round(gb, 1)), True


@lru_cache(maxsize=4)
def _capacity_pattern(card_words: str, units: str, scaled_units: str) -> re.Pattern[str]:
    # "3x24 GB": a memory right after a count's "x" (the count is read by the caller); "16000 MB", "81559MiB",
    # "1.5 TB" in another unit (converted by the caller); GB units are the lexicon's ("24 gigs")
    return re.compile(rf"(?:(?<![\w.$])|(?<=\dx)|(?<=\d\*)|(?<=\d×))(?P<mem>\d{{1,3}}(?:\.\d{{1,2}})?|\d{{4,6}})\s*"
                      rf"(?P<unit>{units}|{scaled_units})(?![a-z0-9])"
                      rf"(?:\s*(?:of\s+)?(?P<card>{card_words}))?")


def share_listed_counts(found: list[FoundGpu], low: str, lex: Lexicon) -> list[FoundGpu]:
    """GPUs listed with an option connector ("32 A100/H100", "8 张 A800/H800", "A100/H100 x8") share the count said
    with one of them: each option is that many GPUs. A GPU of the list with its own count keeps it ("2x 4090 / 1x
    A6000").

    Args:
        found: the GPUs found, in order of position.
        low: the lower-cased message.
        lex: the lexicon (``option_connectors``).

    Returns:
        ``found``, with the counts shared (the records are updated in place).
    """
    gap = _option_gap(lex.option_connectors.pattern)
    choice = _option_gap(lex.choice_connectors.pattern)
    ordered = sorted(found, key=lambda f: f.span_start)
    pairs = [(a, b) for a, b in zip(ordered, ordered[1:], strict=False)
             if a.id and b.id and gap.fullmatch(low, a.span_end, b.span_start)]
    for a, b in pairs:  # forwards: "32 A100/H100/H200"
        if a.count is not None and b.count is None and b.count_over_limit is None:
            b.count = a.count
    # backwards: "A100/H100 x8"; and a count written after the last of options joined by a choice word ("3090或4090
    # 单卡", "A100 or H100 x8"), never one written before it ("4090 or 2x 3090": one 4090 against two 3090s)
    chosen = [(a, b) for a, b in zip(ordered, ordered[1:], strict=False)
              if a.id and b.id and b.count_after and choice.fullmatch(low, a.span_end, b.span_start)]
    for a, b in reversed(pairs + [p for p in chosen if p not in pairs]):
        if b.count is not None and a.count is None and a.count_over_limit is None:
            a.count = b.count
    return found


@lru_cache(maxsize=4)
def _option_gap(connectors: str) -> re.Pattern[str]:
    return re.compile(rf"\s*(?:{connectors})\s*")


def scan_standalone_counts(low: str, claimed: SpanSet, lex: Lexicon) -> list[int]:
    """Counts stated apart from a GPU name ("6 gpus", "8卡"), outside the ``claimed`` spans."""
    counts = _counts(lex)
    out = []
    for m in counts.standalone.finditer(low):
        if m.start() in claimed:
            continue
        value = _count_value(m.group(1), counts)
        if value is not None:
            out.append(value)
    return out
