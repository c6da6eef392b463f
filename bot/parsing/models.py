"""Find the models a message is about, however they are spelled.

A model is resolved by the knowledge base's structure (family, version, size, active size, extra words;
see :class:`bot.parsing.tables.ModelShape`), not by a list of spellings. In order of precedence:

1. Ollama tags (``llama3:70b``, ``qwen2.5:72b-instruct-q4_K_M``): the tag's quant, or Ollama's default
   4-bit Q4_K_M when it names none (with a note);
2. Hugging Face repo ids (``Qwen/Qwen2.5-72B-Instruct``) that are aliases;
3. word windows joined and looked up as exact aliases (``llama-2-70b-gptq``, ``l2 70b``); fine-tune and
   quantisation suffixes after the name (``-instruct``, ``-chat``, ``-AWQ``, ``-GGUF``) map to the base
   model and, where they say so, the precision;
4. family + version + size, spaced, glued or misspelt ("llama 70b", "llama70b", "lama3.1 8b", "qwne2.5 7b",
   "deepseek671b", "qwen3 30b" without its active-size suffix): the newest model of that family and size,
   ``variant_assumed`` with a note; family aliases come from ``models.yaml`` ``families``;
5. sizes listed after a family ("qwen2.5 7b/14b/32b", "llama 3 8b, 70b and 405b", "mistral ... the 8x22b"):
   each size with the family last named;
6. a bare size ("a 7b model", "vicuna-13b", "100B MoE with 10B active", "13B, 40 layers, GQA 8"): a generic
   model; an unknown name before the size is reported as an unknown term. A size that is a GPU name
   ("910B") is left to the GPU scanner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Indel

from bot.kb.index import repair_name
from bot.notes import Note, note
from bot.parsing.lexicon import Lexicon, get_lexicon
from bot.parsing.tables import MODEL_WORD, ParserTables
from bot.parsing.text import SpanSet

__all__ = ["FoundModel", "looks_like_a_name", "scan_models", "shape_hints"]

_SUFFIX_GAP = re.compile(r"^[ \t\-_]{1,2}$")
_SPACE_GAP = re.compile(r"^\s{1,2}$")
_NEAR_GAP = re.compile(r"^[ \t\-_]{0,3}$")
_NAME_BEFORE_SIZE = re.compile(r"([a-z][a-z0-9.]*(?:-[a-z0-9.]+)*)-$")  # "vicuna-" in "vicuna-13b"
_NAME_SPACE_BEFORE_SIZE = re.compile(r"(?<![\w.-])([a-z](?:[a-z0-9.]*(?:-[a-z0-9.]+)*[a-z0-9])?) $")  # "internvl2 " in "internvl2 8b"

_OLLAMA = re.compile(r"(?<![\w/.:-])([a-z][a-z0-9.\-]*[a-z0-9]):([a-z0-9][a-z0-9._\-]*[a-z0-9])")
_OLLAMA_QUANT = re.compile(r"^(?:q\d(?:_k)?(?:_[a-z0-9]+)?|iq\d_[a-z0-9_]+|fp16|f16|bf16|fp8|int4|int8)$")
_HF_REPO = re.compile(r"(?<![\w.])([a-z0-9][\w.\-]*)/([a-z0-9][\w.\-]*[a-z0-9])")
_SIZE_WORD = re.compile(r"^(\d+(?:\.\d+)?)b$")
_MOE_WORD = re.compile(r"^(?:(\d+)x(\d+(?:\.\d+)?)b?|(\d+(?:\.\d+)?)bx(\d+))$")
_FAMILY_HEAD = re.compile(r"^([a-z]+)(\d+(?:\.\d+)?)?$")
_GLUED_FAMILY_SIZE = re.compile(r"^([a-z]+)(?:(\d+(?:\.\d+)?)[-_])?(\d+(?:\.\d+)?b)$")  # "llama70b", "qwen2.5-72b"
_VERSION_WORD = re.compile(r"^v?\d+(?:\.\d+)?$")
#: A mixture of experts written by its active size and expert count ("17bx16e": 17B active, 16 experts), and the
#: count alone after the size ("16e" in "17b-16e").
_ACTIVE_EXPERTS = re.compile(r"^(\d+(?:\.\d+)?)bx?(\d+)e$")
_EXPERT_COUNT = re.compile(r"^(\d+)e$")
_JOIN_GAP = re.compile(r"^[ \t\-_]{0,2}$")
#: Separators that continue a list of sizes after a family ("7b/14b/32b", "8b, 70b and 405b", "the 8x22b").
_LIST_GAP = re.compile(r"^(?:\s*(?:/|,|&|\+|and|or|vs\.?|versus|和|或|还是|、|以及|the|a|an|and the|or the|to)\s*)+$|^\s+$")
#: Words after a model name that name a fine-tune or packaging of the same base model.
_SUFFIX_WORDS = frozenset(
    {"instruct", "chat", "it", "hf", "base", "gptq", "awq", "gguf", "ggml", "int4", "int8", "fp8", "fp16", "bf16", "f16",
     "fp32", "f32",
     "4bit", "8bit", "exl2", "pt", "sft", "dpo", "class", "model", "v1", "v2", "v0.1", "v0.2", "v0.3", "uncensored"}
)
_SUFFIX_PRECISION = {"gptq": "gptq", "awq": "awq", "int4": "int4", "int8": "int8", "fp8": "fp8", "fp16": "fp16",
                     "bf16": "bf16", "4bit": "int4", "8bit": "int8", "f16": "fp16", "fp32": "fp32", "f32": "fp32",
                     "exl2": "exl2", "q4": "int4", "q8": "int8"}
#: Words allowed between a family word and its size ("llama 3 instruct 70b" is rare, but
#: "qwen2.5 coder 32b" is not): they must match the model's extras to choose it.
_BETWEEN_WORDS = frozenset({"instruct", "chat", "base", "it", "hf", "model"})
_APPROX = re.compile(r"(?:~|about|around|roughly|approx\.?|approximately|circa|约|大约)\s*$")
#: Not the digits of a negative number ("-7b": a minus after no letter, digit or dot).
_UNSIGNED = r"(?<!(?<![\w.])[-−])"
#: Words after a size that make it a model's ("a 1T model", "the 345M model", "a 125m gpt", "5亿参数的模型").
_MODEL_AFTER_SIZE = r"[\s-]*(?:params?\b|parameters?\b|model\b|moe\b|llm\b|lm\b|gpt\b|transformer\b|参数|模型|的模型)"
#: A size in billions ("7b", "13 billion params"), or in trillions or millions when a model or parameter word follows
#: ("a 1T model", "1.5 trillion parameters", "the 345M model": a bare "1T" or "5M" is a count of tokens or items far
#: more often); millions also right after a model's name ("pythia-410m", checked by the caller).
_GENERIC_SIZE = re.compile(
    rf"(?<![\w.]){_UNSIGNED}(\d{{1,15}}(?:\.\d+)?)\s?(?:(b)\b|(billion)\b|(t|trillion)(?={_MODEL_AFTER_SIZE})"
    r"|(m|million)(?![\w.]))"
    r"(?:[\s-]*(?:params?|parameters?)\b)?"
    r"(?!\s*(?:(?:concurrent|simultaneous|active|daily|monthly|registered|online|total)\s+)?"
    r"(?:tokens?|tok\b|transistors|rows|samples|examples|words|images|requests|docs|documents|users?\b|people"
    r"|customers|queries|calls|records|pages|chunks|sentences|messages|dollars|usd\b|yuan|个|人|条|张))"
)

@lru_cache(maxsize=4)
def _param_count_pattern(multipliers: str) -> re.Pattern[str]:
    """A parameter count written in full or with Chinese multipliers ("70亿参数", "3000000000 parameters",
    "1.8 万亿参数"); ``multipliers`` are the characters of the lexicon's ``numbers.multipliers``."""
    scale = f"[{re.escape(multipliers)}]+" if multipliers else "(?!)"
    return re.compile(rf"(?<![\w.])(\d{{1,15}}(?:\.\d+)?)\s*({scale})?\s*(?:个)?\s*(?:参数量?|parameters?\b|params\b)")


def _scale_value(scale: str, multipliers: dict[str, int]) -> float:
    """A run of Chinese multipliers as one factor: each character multiplies (万亿 = 10^4 x 10^8 = 10^12, as
    the lexicon's ``numbers.multipliers`` give them); no run is 1."""
    value = 1.0
    for ch in scale:
        value *= multipliers[ch]
    return value
#: A name glued to a size with no separator ("glm6b"); known families were resolved before.
_GLUED_UNKNOWN = re.compile(r"(?<![\w.\-/:])([a-z]{2,})(\d+(?:\.\d+)?)b(?![\w.])"
                            r"(?!\s*(?:tokens?|tok\b|transistors|rows|samples|images|requests))")
_MOE_GENERIC = re.compile(
    r"(?<![\d.])(\d{1,15}(?:\.\d+)?)\s?(?:b|t|trillion)\b[^.;\n]{0,40}?(?<![\d.])(\d{1,15}(?:\.\d+)?)\s?b\s*(?:params?\s*)?"
    r"(?:active|激活)"
)
_LAYERS = re.compile(rf"(?:\"?num_hidden_layers\"?\s*[=:]\s*(\d{{1,6}})(?!\d))|(?<![\w.]){_UNSIGNED}(\d{{1,3}})\s*"
                     r"(?:layers|transformer blocks|层)")
_HIDDEN = re.compile(r"\"?(?:hidden_size|d_model|n_embd|hidden(?:\s*size)?|dim)\"?\s*[=:]?\s*(\d{3,6})\b")
_KV_HEADS = re.compile(
    r"\"?(?:num_key_value_heads|n_kv_heads|kv[_\s]heads)\"?\s*[=:]?\s*(\d{1,3})\b|\bgqa\s*[=:(]?\s*(\d{1,3})\b"
    rf"|(?<![\w.]){_UNSIGNED}(\d{{1,3}})\s*kv[\s_-]?heads"
)
#: Shortest family word a misspelling is fuzzy-matched for, and the rapidfuzz ratio it needs
#: ("lama" -> llama 88.9, "mistrl" -> mistral 92.3, "qwne" -> qwen 75): short and common words never are.
_FAMILY_FUZZY_MIN_LEN = 4
_FAMILY_FUZZY_CUTOFF = 75.0


def shape_words(shape) -> set[str]:
    """The words a model shape's own name already carries (its extras), which cannot stand between again."""
    return set(shape.extras) if shape is not None else set()


def _typo_of(word: str, family: str) -> bool:
    """Whether ``word`` is ``family`` with one letter dropped or added ("lama", "mistrl", "gemm", "deepsek") or two
    neighbours swapped ("qwne"). A changed letter is another name, not a typo ("llava" is not "llama")."""
    if Indel.distance(word, family) == 1:
        return True
    return (len(word) == len(family) and OSA.distance(word, family) == 1 and sorted(word) == sorted(family))


@dataclass
class FoundModel:
    """A model mention with its span in the lower-cased text (see :class:`~bot.parsing.query.ModelMention`).

    ``unknown`` carries a name that is not in the knowledge base (with ``suggestions``).
    """

    id: str | None
    as_written: str
    start: int
    end: int
    variant_assumed: bool = False
    generic: bool = False
    params_total_b: float | None = None
    params_active_b: float | None = None
    precision: str | None = None
    notes: list[Note] = field(default_factory=list)
    unknown: str | None = None
    suggestions: list[str] = field(default_factory=list)
    #: other precisions the same model is named with again ("qwen2.5 7b fp16 vs qwen2.5 7b int4": int4), in order
    also_precisions: list[str] = field(default_factory=list)


def _size_key(word: str) -> str | None:
    """"70b" -> "70b"; "8x7", "8x7b", "7bx8" -> "8x7b"; else None."""
    if _SIZE_WORD.match(word):
        return word
    m = _MOE_WORD.match(word)
    if m:
        if m.group(1):
            return f"{m.group(1)}x{m.group(2)}b"
        return f"{m.group(4)}x{m.group(3)}b"
    return None


def _size_billions(size: str) -> float | None:
    m = _SIZE_WORD.match(size)
    return float(m.group(1)) if m else None


@dataclass
class _Family:
    """The family context a later bare size resolves in ("qwen2.5" before "/14b")."""

    family: str
    version: str
    extras: set[str]
    end: int


class _ModelScanner:
    def _spaced_name(self, start: int) -> re.Match[str] | None:
        """A name the knowledge base lacks written before a size with a space ("InternVL2 8B", "Qwen2-VL 7B"): a
        word that looks like a model's name (:func:`looks_like_a_name`) and is no vocabulary word (lexicon
        ``model_object.skip``); the match covers the word and the space."""
        m = _NAME_SPACE_BEFORE_SIZE.search(self.low[max(0, start - 30):start])
        if m is None:
            return None
        word = m.group(1)
        begin = start - len(m.group(0))
        vocab = (self.lex.object_skip, self.lex.precisions, self.lex.engines, self.lex.methods, self.lex.features)
        if self._is_masked(begin) or not looks_like_a_name(self.written(begin, begin + len(word))) or any(
                v.fullmatch(part) for v in vocab for part in (word, *word.split("-"))):
            return None  # ("fp16 7b", "AWQ 32B", "GPTQ-int4 14b": a format, then a size)
        return m

    def __init__(self, prepared_low: str, written, tables: ParserTables, lex: Lexicon):
        self.low = prepared_low
        self.lex = lex
        self.written = written
        self.tables = tables
        self.found: list[FoundModel] = []
        self.masked = SpanSet()
        self.family_only: list[tuple[str, str, str]] = []  # (as written, family, version) named without a size
        self.context: _Family | None = None
        self.synonyms = {a.lower(): fam for fam, aliases in tables.kb.model_families.items() for a in aliases
                         if re.fullmatch(r"[a-z0-9]+", a.lower())}
        self.families = sorted(tables.families)

    def _is_masked(self, pos: int) -> bool:
        return pos in self.masked

    def _display(self, model_id: str) -> str:
        return self.tables.index.display_name("model", model_id)

    # ----------------------------------------------------------------- 1. Ollama tags
    def ollama(self) -> None:
        for m in _OLLAMA.finditer(self.low):
            name, tag = m.group(1), m.group(2)
            head = _FAMILY_HEAD.match(name.split("-")[0])
            family = head.group(1) if head else ""
            if family not in self.tables.families and name not in self.tables.model_first_words:
                continue
            parts = tag.split("-")
            size = _size_key(parts[0])
            model_id = None
            if size is not None:
                model_id = self.tables.model_keys.get(repair_name(f"{name}:{size}"))
            if model_id is None:
                model_id = self.tables.model_keys.get(repair_name(f"{name}:{parts[0]}")) or (
                    self.tables.model_keys.get(repair_name(name)) if not size else None)
            assumed, notes = False, []
            if model_id is None and size is not None and head:
                extras = {p for p in name.split("-")[1:] if not _VERSION_WORD.match(p)}
                model_id, assumed = self._by_family(family, head.group(2) or "", size, extras)
                if model_id:
                    notes.append(note("assumed_model", model_name=self._display(model_id), written=m.group(0)))
            if model_id is None:
                continue
            quant = next((p for p in parts[1:] if _OLLAMA_QUANT.match(p)), None)
            if quant is None:
                precision = "q4_k_m"
                notes.append(note("ollama_default_quant", written=m.group(0)))
            else:
                precision = "fp16" if quant == "f16" else quant
            self.found.append(FoundModel(model_id, self.written(m.start(), m.end()), m.start(), m.end(), assumed,
                                         precision=precision, notes=notes))
            self.masked.add(m.span())

    # ----------------------------------------------------------------- 2. HF repo ids
    def hf_repos(self) -> None:
        for m in _HF_REPO.finditer(self.low):
            if self._is_masked(m.start()):
                continue
            model_id = self.tables.model_keys.get(repair_name(m.group(0)))
            if model_id is None:
                continue  # the part after "/" is scanned as a name below
            end = m.end()
            precision, end = self._suffixes(end)
            # the repository's own name may carry the format ("Qwen/Qwen3-235B-A22B-FP8")
            named = next((_SUFFIX_PRECISION[w] for w in reversed(re.split(r"[-_/.]", m.group(0)))
                          if w in _SUFFIX_PRECISION), None)
            self.found.append(FoundModel(model_id, self.written(m.start(), end), m.start(), end,
                                         precision=precision or named))
            self.masked.add((m.start(), end))

    # ----------------------------------------------------------------- 3.-5. word windows
    def _words(self) -> list[tuple[str, int, int]]:
        return [(m.group(0), m.start(), m.end()) for m in MODEL_WORD.finditer(self.low) if not self._is_masked(m.start())]

    def _suffixes(self, end: int) -> tuple[str | None, int]:
        """Consume "-instruct-gptq"-style words after ``end``; return (precision, new end)."""
        precision = None
        for m in MODEL_WORD.finditer(self.low, end):
            if not _SUFFIX_GAP.match(self.low[end:m.start()]):
                break
            word = m.group(0)
            if word not in _SUFFIX_WORDS and not _OLLAMA_QUANT.match(word):
                break
            if word in _SUFFIX_PRECISION and (precision is None or precision in ("int4", "int8")):
                precision = _SUFFIX_PRECISION[word]
            elif _OLLAMA_QUANT.match(word) and word.startswith(("q", "iq")):
                precision = word
            end = m.end()
        return precision, end

    def _by_family(self, family: str, version: str, size: str, extras: set[str]) -> tuple[str | None, bool]:
        """The newest model of ``family`` with ``size`` (and ``version`` when given; "3" also matches 3.x)."""
        shapes = [s for s in self.tables.shapes.get(family, []) if size in s.sizes]
        for exact in (True, False):
            same = [s for s in shapes if not version or (s.version == version if exact else
                                                          s.version.split(".")[0] == version.split(".")[0])]
            candidates = [s for s in same if s.extras <= extras]
            if not candidates and version and len(same) == 1:
                return same[0].id, True  # "llama 3.2 11b" is the 11B Vision: the only one
            if candidates:
                best = max(candidates, key=lambda s: s.order)
                return best.id, (not version or len(candidates) > 1 or not exact)
        if extras:  # "deepseek-r1:70b": the one model whose name extends the words given with that size
            wider = [s for s in shapes if extras <= s.extras and (not version or s.version == version)]
            if len(wider) == 1:
                return wider[0].id, True
        return None, False

    def _only_model(self, family: str, version: str, extras: set[str]) -> str | None:
        """The one model of ``family`` with ``version`` (when given) whose name has the ``extras`` words, or None."""
        shapes = [s for s in self.tables.shapes.get(family, [])
                  if (not version or s.version == version) and extras <= s.extras]
        if not extras:
            shapes = [s for s in shapes if not s.extras]  # "deepseek v3" is DeepSeek-V3, not a V3-based variant
        return shapes[0].id if len(shapes) == 1 else None

    def _family_word(self, word: str) -> tuple[str, str] | None:
        """(family, version) a word spells: an exact family ("qwen2.5"), a synonym ("l2", "ds") or a
        misspelling of a family ("lama3.1", "qwne"), never a short common word."""
        head = _FAMILY_HEAD.match(word)
        if not head:
            return None
        family, version = head.group(1), head.group(2) or ""
        if family in self.tables.families:
            return family, version
        if word in self.tables.gpu_keys:
            return None  # "l4" (after the alias "l" of llama) and "l40s" are GPUs
        if family in self.synonyms and (version or family not in ("l",)):
            return self.synonyms[family], version
        if len(family) >= _FAMILY_FUZZY_MIN_LEN and word not in _SUFFIX_WORDS:
            hit = process.extractOne(family, self.families, scorer=fuzz.ratio, score_cutoff=_FAMILY_FUZZY_CUTOFF)
            if hit and hit[0][:1] == family[:1] and _typo_of(family, hit[0]):
                return hit[0], version
        return None

    def windows(self) -> None:
        words = self._words()
        reps = [w for w, _, _ in words]
        i = 0
        while i < len(words):
            word = reps[i]
            if self._list_size(words, i):
                i += 1
                continue
            head = _FAMILY_HEAD.match(word)
            # (a first word glued to its version, "sdxl1", starts a name too)
            is_start = word in self.tables.model_first_words or (head and (
                head.group(1) in self.tables.families or (head.group(2) and head.group(1) in self.tables.model_first_words)))
            if not is_start:
                moe = _size_key(word) if _MOE_WORD.match(word) else None
                if moe and moe in self.tables.sizes and len({s.family for s in self.tables.sizes[moe]}) == 1:
                    shape = max(self.tables.sizes[moe], key=lambda s: s.order)
                    written = self.written(words[i][1], words[i][2])
                    self.found.append(FoundModel(shape.id, written, words[i][1], words[i][2], True,
                                                 notes=[note("assumed_model", model_name=self._display(shape.id),
                                                             written=written)]))
                    self.masked.add((words[i][1], words[i][2]))
                    self.context = _Family(shape.family, shape.version, set(), words[i][2])
                    i += 1
                    continue
            hit = None
            if is_start:
                run = 1
                while (run < self.tables.model_max_words + 1 and i + run < len(words)
                       and _JOIN_GAP.match(self.low[words[i + run - 1][2]:words[i + run][1]])):
                    run += 1
                for n in range(run, 0, -1):
                    key = repair_name("".join(reps[i:i + n]))
                    model_id = self.tables.model_keys.get(key)
                    if model_id is not None and (n > 1 or not _VERSION_WORD.match(word)):
                        hit = (n, model_id)
                        break
            if hit is not None:
                n, model_id = hit
                start, end = words[i][1], words[i + n - 1][2]
                shape = next((s for ss in self.tables.shapes.values() for s in ss if s.id == model_id), None)
                extended = None
                # extra words of the family may stand between the name and a size ("deepseek-r1 distill 14b")
                between: set[str] = set()
                k = i + n
                while (k < len(words) - 1 and reps[k] in self.tables.extra_words and reps[k] not in shape_words(shape)
                       and _NEAR_GAP.match(self.low[words[k - 1][2]:words[k][1]])):
                    between.add(reps[k])
                    k += 1
                if between and shape is not None and _size_key(words[k][0]):
                    extended, _ = self._by_family(shape.family, shape.version, _size_key(words[k][0]),
                                                  set(shape.extras) | between)
                    if extended is not None and extended != model_id:
                        model_id, end, n = extended, words[k][2], k - i + 1
                        shape = None
                if shape is not None and i + n < len(words) and _NEAR_GAP.match(self.low[end:words[i + n][1]]):
                    size = _size_key(words[i + n][0])
                    if size in shape.sizes:
                        end = words[i + n][2]  # "deepseek-r1 671b": the size restates the model's own
                        n += 1
                    elif size and shape.extras and not any(_size_key(w) for w in reps[i:i + n]):
                        # "deepseek-r1 70b": a model named without its size, then another size: the model
                        # whose name extends it with that size (DeepSeek-R1-Distill-Llama-70B), if only one
                        extended, _ = self._by_family(shape.family, shape.version, size, set(shape.extras))
                        if extended is not None and extended != model_id:
                            model_id, end = extended, words[i + n][2]
                            n += 1
                # a name whose alias carries its format ("Qwen3-235B-A22B-FP8", a released FP8 repository) keeps
                # that format, as a format written after the name does
                named = next((_SUFFIX_PRECISION[w] for w in reversed(reps[i:i + n]) if w in _SUFFIX_PRECISION), None)
                precision, end = self._suffixes(end)
                precision = precision or named
                written = self.written(start, end)
                self.found.append(FoundModel(model_id, written, start, end, variant_assumed=extended == model_id,
                                             precision=precision,
                                             notes=[note("assumed_model", model_name=self._display(model_id),
                                                         written=written)] if extended == model_id else []))
                self.masked.add((start, end))
                shape = next((s for ss in self.tables.shapes.values() for s in ss if s.id == model_id), None)
                if shape is not None:
                    self.context = _Family(shape.family, shape.version, set(shape.extras), end)
                i += n
                while i < len(words) and words[i][1] < end:
                    i += 1
                continue
            used = self._family_size(words, i)
            i += used or 1

    def _list_size(self, words: list[tuple[str, int, int]], i: int) -> bool:
        """A bare size continuing a list after a family ("/14b", ", 70b and 405b", "... the 8x22b")."""
        ctx = self.context
        size = _size_key(words[i][0])
        if ctx is None or size is None or words[i][1] < ctx.end:
            return False
        gap = self.low[ctx.end:words[i][1]]
        if not (_LIST_GAP.match(gap) or (len(gap) < 80 and re.search(r"\b(?:the|a|an)\s*$", gap))):
            return False
        model_id, _ = self._by_family(ctx.family, ctx.version, size, ctx.extras)
        if model_id is None:
            model_id, _ = self._by_family(ctx.family, "", size, ctx.extras)
        if model_id is None and size in self.tables.sizes and len({s.family for s in self.tables.sizes[size]}) == 1:
            model_id = max(self.tables.sizes[size], key=lambda s: s.order).id
        if model_id is None:
            return False
        written = self.written(words[i][1], words[i][2])
        self.found.append(FoundModel(model_id, written, words[i][1], words[i][2], True,
                                     notes=[note("assumed_model", model_name=self._display(model_id),
                                                 written=written)]))
        self.masked.add((words[i][1], words[i][2]))
        ctx.end = words[i][2]
        return True

    def _family_size(self, words: list[tuple[str, int, int]], i: int) -> int:
        """Family + size resolution starting at word i; returns the words consumed (0 if none)."""
        word = words[i][0]
        glued = _GLUED_FAMILY_SIZE.match(word)
        size = None
        if glued:  # "llama70b", "deepseek671b", "qwen2.5-72b" written as one word
            fam = self._family_word(glued.group(1) + (glued.group(2) or ""))
            if fam is None:
                return 0
            family, version = fam
            size = glued.group(3)
            k = i + 1
            extras: set[str] = set()
            start, end = words[i][1], words[i][2]
        else:
            fam = self._family_word(word)
            if fam is None:
                return 0
            family, version = fam
            k = i + 1
            if not version and k < len(words) and _VERSION_WORD.match(words[k][0]) and self._near(words, k):
                version = words[k][0].lstrip("v")
                k += 1
            experts = self._active_experts(words, k, family, version) if k < len(words) and self._near(words, k) \
                else None
            if experts is not None:  # "llama4_17bx16e", "llama 4 17b-16e": Llama 4 Scout (17B active, 16 experts)
                model_id, used = experts
                start, end = words[i][1], words[k + used - 1][2]
                self.found.append(FoundModel(model_id, self.written(start, end), start, end))
                self.masked.add((start, end))
                shape = self.tables.shape_of(model_id)
                self.context = _Family(family, shape.version if shape else version,
                                       set(shape.extras) if shape else set(), end)
                return k + used - i
            extras = set()
            for j in range(k, min(k + 3, len(words))):
                if not self._near(words, j):
                    break
                size = _size_key(words[j][0])
                if size:
                    k = j + 1
                    break
                if words[j][0] not in self.tables.extra_words and words[j][0] not in _BETWEEN_WORDS:
                    break  # "l4 for mistral 7b": "for" names no model
                extras.add(words[j][0])
            start, end = words[i][1], words[k - 1][2] if size else words[i][2]
            if size is None and i > 0 and _SPACE_GAP.match(self.low[words[i - 1][2]:words[i][1]]):
                size = _size_key(words[i - 1][0])  # "70b llama2"
                if size:
                    start = words[i - 1][1]
        if size is None:
            named = extras - _BETWEEN_WORDS
            last = max([i] + [j for j in range(i + 1, min(i + 5, len(words)))
                              if words[j][0] in named or (j < k and _VERSION_WORD.match(words[j][0]))])
            only = self._only_model(family, version, named) if (version or named) else None
            if only is not None:  # "deepsek v3", "mistral nemo", "phi 4": the one model of that family so named
                start, end = words[i][1], words[last][2]
                written = self.written(start, end)
                self.found.append(FoundModel(only, written, start, end, True,
                                             notes=[note("assumed_model", model_name=self._display(only),
                                                         written=written)]))
                self.masked.add((start, end))
                shape = self.tables.shape_of(only)
                self.context = _Family(family, shape.version if shape else version, set(shape.extras) if shape else named,
                                       end)
                return last - i + 1
            self.family_only.append((self.written(words[i][1], words[last][2]), family, version))
            self.masked.add((words[i][1], words[last][2]))  # "gemma 2 is ...": the version is part of the name
            self.context = _Family(family, version, named, words[last][2])
            return last - i + 1
        written = self.written(start, end)
        approx = _APPROX.search(self.low[max(0, start - 12):start])
        model_id, assumed = (None, False) if approx else self._by_family(family, version, size, extras - _BETWEEN_WORDS)
        ctx = self.context
        if not approx and not version and ctx is not None and ctx.family == family and ctx.version:
            # "llama-2-70b ... llama-70B": a later mention without a version keeps the version named before
            carried, _ = self._by_family(family, ctx.version, size, extras - _BETWEEN_WORDS)
            if carried is not None:
                model_id, assumed = carried, False
        if model_id is not None:
            notes = [note("assumed_model", model_name=self._display(model_id), written=written)] if assumed else []
            self.found.append(FoundModel(model_id, written, start, end, assumed, notes=notes))
        else:
            billions = _size_billions(size)
            if not billions:
                return 0
            # a version of a known family that is not in the knowledge base ("Qwen5-200B"): sized as a generic model
            # of that size and said first, with the family's models nearest in size
            nearest = [] if approx else (self.tables.nearest_models(family, billions)
                                         or self.tables.index.suggest("model", written))
            self.found.append(FoundModel(None, written, start, end, generic=True, params_total_b=billions,
                                         notes=[note("generic_model_named", written=written, size=size.upper(),
                                                     approximate=True) if approx else
                                                note("unknown_model_generic", written=written, size=size.upper(),
                                                     suggestions=nearest)],
                                         unknown=None if approx else written, suggestions=nearest))
        self.masked.add((start, end))
        self.context = _Family(family, version, extras - _BETWEEN_WORDS, end)
        return max(1, k - i)

    def _active_experts(self, words: list[tuple[str, int, int]], k: int, family: str, version: str
                        ) -> tuple[str, int] | None:
        """(model id, words used) when word k writes a mixture of experts by its active size and expert count, as
        Meta names Llama 4 ("17bx16e", "17b-16e": 17B active, 16 experts), and one model of ``family`` (``version``
        when given) has that shape in the knowledge base (``params_active_b`` within 5%, ``num_local_experts``)."""
        glued = _ACTIVE_EXPERTS.match(words[k][0])
        if glued:
            active, experts, used = float(glued.group(1)), int(glued.group(2)), 1
        elif (_SIZE_WORD.match(words[k][0]) and k + 1 < len(words) and self._near(words, k + 1)
              and (count := _EXPERT_COUNT.match(words[k + 1][0]))):
            active, experts, used = float(_SIZE_WORD.match(words[k][0]).group(1)), int(count.group(1)), 2
        else:
            return None
        ids = [s.id for s in self.tables.shapes.get(family, []) if (not version or s.version == version)]
        models = [self.tables.kb.models[i] for i in ids if i in self.tables.kb.models]
        hits = [m.id for m in models if m.params_active_b and abs(m.params_active_b - active) <= 0.05 * active
                and m.num_local_experts == experts]
        return (hits[0], used) if len(hits) == 1 else None

    def _near(self, words: list[tuple[str, int, int]], j: int) -> bool:
        return bool(_NEAR_GAP.match(self.low[words[j - 1][2]:words[j][1]]))

    # ----------------------------------------------------------------- 6. generic sizes
    def glued_unknown(self, gpu_keys: dict[str, str]) -> None:
        """A name the knowledge base lacks glued to a size ("glm6b", "baichuan13b"): a generic model of that size,
        reported as unknown (the size is never dropped, the name never replaced)."""
        for m in _GLUED_UNKNOWN.finditer(self.low):
            if self._is_masked(m.start()) or m.group(0) in gpu_keys or m.group(1) in _SUFFIX_WORDS:
                continue
            total = float(m.group(2))
            if not 0 < total <= 5000:
                continue
            written = self.written(m.start(), m.end())
            nearest = self.tables.index.suggest("model", written)
            self.found.append(FoundModel(None, written, m.start(), m.end(), generic=True, params_total_b=total,
                                         notes=[note("unknown_model_generic", written=written, size=f"{m.group(2)}B",
                                                     suggestions=nearest)],
                                         unknown=written, suggestions=nearest))
            self.masked.add(m.span())

    def generic(self, gpu_keys: dict[str, str]) -> None:
        multipliers = {k: v for k, v in self.lex.zh_multipliers.items() if len(k) == 1}
        for m in _param_count_pattern("".join(sorted(multipliers))).finditer(self.low):
            # "70亿参数的模型", "30 亿参数", "3000000000 parameters": a parameter count in full, as a size
            if self._is_masked(m.start()):
                continue
            total = float(m.group(1)) * _scale_value(m.group(2) or "", multipliers) / 1e9
            if not 0.01 <= total <= 100_000:
                continue
            self.found.append(FoundModel(None, self.written(m.start(), m.end()), m.start(), m.end(), generic=True,
                                         params_total_b=total,
                                         notes=[note("generic_model", size=f"{total:g}B", active_b=None)]))
            self.masked.add((m.start(), m.end()))
        moe = _MOE_GENERIC.search(self.low)
        active_spans = []
        for m in _GENERIC_SIZE.finditer(self.low):
            if self._is_masked(m.start()) or any(s <= m.start() < e for s, e in active_spans):
                continue
            token = self.low[m.start():m.end()].replace(" ", "")
            if token in gpu_keys or re.sub(r"billion$", "b", token) in gpu_keys:
                continue  # "910B" is an accelerator, not a 910-billion-parameter model
            start = m.start()
            name = _NAME_BEFORE_SIZE.search(self.low[max(0, start - 30):start])
            if name is None and (spaced := self._spaced_name(start)) is not None and \
                    spaced.group(1).replace(" ", "") not in gpu_keys:  # ("H100 70B": a GPU, then a size)
                name = spaced
            if m.group(5) and not name and not re.match(_MODEL_AFTER_SIZE, self.low[m.end(5):m.end(5) + 16]):
                continue  # "5M documents", "1m context": millions of something else, no model's size
            unknown = None
            if name:
                start -= len(name.group(0))
                unknown = self.written(start, m.end())
            total = round(float(m.group(1)) * (1000 if m.group(4) else 1) / (1000 if m.group(5) else 1), 6)
            if total <= 0:
                continue
            active = None
            if moe and moe.start() <= m.start() < moe.end() and float(moe.group(2)) < total:
                active = float(moe.group(2))
                active_spans.append((moe.start(2), moe.end()))
            size = f"{total:g}B"
            nearest = self.tables.index.suggest("model", unknown) if unknown else []
            notes = [note("unknown_model_generic", written=unknown, size=size, suggestions=nearest) if unknown
                     else note("generic_model", size=size, active_b=active)]
            self.found.append(FoundModel(None, self.written(start, m.end()), start, m.end(), generic=True,
                                         params_total_b=total, params_active_b=active, notes=notes, unknown=unknown,
                                         suggestions=nearest))
            self.masked.add((start, m.end()))


def looks_like_a_name(written: str) -> bool:
    """A word written as a model's name: a digit, a hyphen or a capital after its first letter ("InternVL2",
    "Qwen2-VL", "LLaVA"), not a plain word."""
    return any(c.isdigit() for c in written) or "-" in written or any(c.isupper() for c in written[1:])


def shape_hints(low: str) -> tuple[int | None, int | None, int | None, list[tuple[int, int]]]:
    """(layers, hidden size, KV heads, spans used) stated in the text ("40 layers, GQA 8", a config.json).

    A zero ("0 layers", "GQA 0") is not a shape: it is not used and its span is left unclaimed, so the
    answer lists it as not understood.
    """
    values: list[int | None] = []
    spans = []
    for m in (_LAYERS.search(low), _HIDDEN.search(low), _KV_HEADS.search(low)):
        value = int(next(g for g in m.groups() if g)) if m else None
        values.append(value or None)
        if value:
            spans.append(m.span())
    return values[0], values[1], values[2], spans


#: An underscore between two letters or digits of a name ("qwen_7b", "sd_xl_base_1.0", "Qwen2.5-14B_bf16").
_NAME_UNDERSCORE = re.compile(r"(?<=[a-z0-9.])_(?=[a-z0-9])")
#: A llama.cpp quant type, whose underscores are part of it ("q4_k_m", "iq2_xs").
_GGUF_QUANT = re.compile(r"(?<![a-z0-9])i?q\d(?:_[a-z0-9]+)+")


def _underscores_as_hyphens(low: str) -> str:
    """``low`` with the underscores of names read as hyphens, as checkpoint and file names use them ("qwen_7b",
    "wan2.1_i2v_720p_14b_bf16", "llama4_17bx16e"), except inside a llama.cpp quant type ("q4_k_m"). One character
    for one: every span stays where it was."""
    kept = [m.span() for m in _GGUF_QUANT.finditer(low)]
    return _NAME_UNDERSCORE.sub(lambda m: "_" if any(s < m.start() < e for s, e in kept) else "-", low)


def scan_models(low: str, written, tables: ParserTables,
                lex: Lexicon | None = None) -> tuple[list[FoundModel], SpanSet, list[tuple[str, str, str]]]:
    """Model mentions in ``low``, in order of appearance.

    Args:
        low: the lower-cased message.
        written: ``(start, end) -> str`` giving the user's text for a span.
        tables: the knowledge base's parser tables.
        lex: the lexicon (its Chinese multipliers scale a parameter count, "70亿参数"); default the packaged one.

    Returns:
        (mentions, the spans they occupy (for the GPU and quantity scanners to skip), family words seen
        without a size as ``(as written, family, version)``).
    """
    scanner = _ModelScanner(_underscores_as_hyphens(low), written, tables, lex if lex is not None else get_lexicon())
    scanner.ollama()
    scanner.hf_repos()
    scanner.windows()
    scanner.glued_unknown(tables.gpu_keys)
    scanner.generic(tables.gpu_keys)
    found = sorted(scanner.found, key=lambda f: f.start)
    return _one_per_model(found, tables), scanner.masked, scanner.family_only


def _restates(f: FoundModel, model_ids: set[str], tables: ParserTables) -> bool:
    """A bare size equal to a named model's own size restates it ("deepseek-v3 ... 671b", "671B的 DeepSeek R1")."""
    if f.id is not None or f.unknown or f.params_total_b is None:
        return False
    size = f"{f.params_total_b:g}b"
    for model_id in model_ids:
        total = tables.kb.models[model_id].params_total_b
        shape = tables.shape_of(model_id)
        if (shape is not None and size in shape.sizes) or abs(total - f.params_total_b) <= 0.02 * total:
            return True
    return False


def _one_per_model(found: list[FoundModel], tables: ParserTables) -> list[FoundModel]:
    """One mention per model: a knowledge-base model named twice, the same generic size named twice ("13B
    ... 13B-4bits", an unknown name repeated), and a bare size restating a named model's size are one model."""
    model_ids = {f.id for f in found if f.id is not None}
    unique: list[FoundModel] = []
    for f in found:
        if f.id is not None:
            same = next((u for u in unique if u.id == f.id), None)
        elif _restates(f, model_ids, tables):
            continue
        else:
            same = next((u for u in unique if u.id is None and u.params_total_b == f.params_total_b
                         and u.params_active_b == f.params_active_b), None)
        if same is None:
            unique.append(f)
        elif f.precision and f.precision != same.precision and f.precision not in same.also_precisions:
            # the same model named again in another precision: both precisions are asked about
            same.also_precisions.append(f.precision)
    return unique
