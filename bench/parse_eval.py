"""Accuracy of the question parser on a labelled question set.

Usage: python bench/parse_eval.py [FILE]   (default tests/data/questions-dev.yaml)

Two label formats are read:

* the development set (``questions-dev.yaml``: ``entities`` describe the whole source thread) is scored by
  :func:`score` (rules below): intent, GPU set, GPU count, model and precision accuracy;
* the evaluation set (``questions-eval.yaml``: every entry lists ``gpus`` and ``models``, written down from the
  question text alone) is scored by :func:`score_eval` (rules in its docstring): intent, GPUs, every model named,
  several-models questions and capacity-only GPU figures, plus precisions and quantities.

Prints the figures, then every miss.

Development-set scoring rules (the labels describe the whole source thread, the parser sees one message):

* intent: the label ``other`` accepts ``unknown``, ``diagnose`` or ``help``.
* GPU set: each expected canonical name is mapped to a knowledge-base id ("(variant
  unspecified)" -> the default variant); names not in the knowledge base are expected
  to be reported as unknown terms, not resolved. Only expected GPUs whose product name
  appears in the question text count (a thread may name GPUs the question does not, e.g.
  A100 in q013). A parsed default variant (``variant_assumed``) matches any expected variant
  of the same product, since the question did not say which one the thread later settled on.
* count: only entries with a single expected count (an int); the first GPU's count.
* model: expected names are mapped to model ids; when the expected model's name and size
  do not appear in the question (it comes from the thread), the parser must not assert a
  knowledge-base model (``None`` or a generic/unresolved mention passes). Otherwise the ids
  must agree, or the parser's generic size must equal the expected size when the expected
  model is not in the knowledge base, is only a "-class", or its family is not in the text.
* precision: compared as (bit width, method) where the expected precision's word appears
  in the question; GGUF quants of the same width agree with each other.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.kb.index import get_index  # noqa: E402
from bot.kb.loader import KnowledgeBase, load_knowledge  # noqa: E402
from bot.parsing import parse_question  # noqa: E402
from bot.parsing.query import Query  # noqa: E402
from bot.parsing.tables import product_key  # noqa: E402

DEFAULT_FILE = ROOT / "tests" / "data" / "questions-dev.yaml"
OTHER_OK = {"unknown", "diagnose", "help"}


def expected_gpu_id(kb: KnowledgeBase, name: str) -> str | None:
    """Map a canonical GPU name from the labels to a KB id, or None when the KB lacks it."""
    index = get_index(kb)
    base = re.sub(r"\s*\([^)]*\)", "", name).strip()
    for candidate in (base, re.sub(r"\s*\d+\s*GB$", "", base, flags=re.I)):
        match = index.lookup("gpu", candidate, fuzzy=False)
        if match:
            if candidate != base:  # memory stripped: put it back through the variant aliases
                memory = re.search(r"(\d+)\s*GB$", base, flags=re.I)
                with_memory = index.lookup("gpu", f"{candidate} {memory.group(1)}GB", fuzzy=False) if memory else None
                return (with_memory or match).id
            return match.id
    match = index.lookup("gpu", base)
    return match.id if match else None


def product_of(gpu_id: str) -> str:
    """The product line of a GPU id, without form factor and memory ("a100-sxm-40gb" -> "a100")."""
    parts = [p for p in gpu_id.split("-") if not re.fullmatch(r"\d+gb|sxm|pcie|nvl", p)]
    return "".join(parts)


def product_in_text(gpu_id: str, text: str) -> bool:
    """Whether the product's model number ("a100", "3090") appears in the text ("a 100" and "H1OO" count)."""
    core = next((p for p in gpu_id.split("-") if re.search(r"\d", p) and not re.fullmatch(r"\d+gb", p)), gpu_id)
    loose = r"[\s\-]?".join(re.escape(c) for c in core)
    low = re.sub(r"(?<=\d)o|o(?=\d)", "0", re.sub(r"(?<=\d)o|o(?=\d)", "0", text.lower()))
    return re.search(rf"(?<![0-9]){loose}(?!\d)", low) is not None


def expected_model_id(kb: KnowledgeBase, name: str) -> str | None:
    """Map a labelled model name to a KB model id (trying the text, its parenthesis, minus suffixes)."""
    index = get_index(kb)
    inner = re.findall(r"\(([^)]*)\)", name)
    outer = re.sub(r"\s*\([^)]*\)", "", name).strip()
    for candidate in [outer, *inner]:
        candidate = re.split(r"\s*/\s*|\s+\+\s+", candidate)[0]
        for form in (candidate, re.sub(r"(?i)[-\s](?:class|backbone|fine-tune|gptq.*|chat|instruct.*)$", "", candidate)):
            match = index.lookup("model", form, fuzzy=False)
            if match:
                return match.id
    match = index.lookup("model", outer)
    return match.id if match else None


def _size(text: str) -> float | None:
    m = re.search(r"(\d+(?:\.\d+)?)\s*B\b", text, flags=re.I)
    return float(m.group(1)) if m else None


def _precision_class(text: str) -> tuple[int | None, str | None]:
    t = text.lower()
    method = next((m for m in ("gptq", "awq", "nf4") if m in t), None)
    if re.search(r"q\d_", t):
        method = "gguf"
    bits = None
    for pattern, b in ((r"fp32|float32", 32), (r"bf16|bfloat16|fp16|float16|16[\s-]?bit", 16), (r"fp8|int8|8[\s-]?bit", 8),
                       (r"int4|4[\s-]?bit|q4|nf4|gptq|awq", 4)):
        if re.search(pattern, t):
            bits = b
            break
    if bits == 8 and "fp8" in t:
        method = "fp8"
    if bits == 16:
        method = "bf16" if "bf16" in t or "bfloat16" in t else "fp16"
    return bits, method


def score(entry: dict, query: Query, kb: KnowledgeBase) -> dict[str, tuple[bool, str] | None]:
    """Per-aspect (ok, detail), or None when the aspect is not scored for this entry."""
    text = entry.get("question") or ""
    ents = entry.get("entities") or {}
    out: dict[str, tuple[bool, str] | None] = {}
    expected_intent = entry["intent"]
    ok = query.intent == expected_intent or (expected_intent == "other" and query.intent in OTHER_OK)
    out["intent"] = (ok, f"{query.intent} (expected {expected_intent})")

    expected_ids, expected_unknown = set(), []
    for name in ents.get("gpus") or []:
        gpu_id = expected_gpu_id(kb, name)
        if gpu_id is None:
            expected_unknown.append(name)
        elif product_in_text(gpu_id, text):
            expected_ids.add(gpu_id)
    parsed = {g.id: g for g in query.gpus}
    def covers(mention, expected_id: str) -> bool:
        return mention.id == expected_id or (mention.variant_assumed and product_of(mention.id) == product_of(expected_id))

    extra = [gpu_id for gpu_id, m in parsed.items() if not any(covers(m, e) for e in expected_ids)]
    unmatched_expected = [e for e in expected_ids if not any(covers(m, e) for m in parsed.values())]
    if expected_ids or parsed or expected_unknown:
        ok = not extra and not unmatched_expected
        out["gpus"] = (ok, f"parsed {sorted(parsed)} expected {sorted(expected_ids)} "
                           f"(+unknown {expected_unknown}, parser unknown {[u.as_written for u in query.unknown_terms]})")
    else:
        out["gpus"] = None

    count = ents.get("gpu_count")
    if not expected_ids:
        out["count"] = None  # the count belongs to GPUs the question does not name
    elif isinstance(count, int) and query.gpus:
        out["count"] = (query.gpus[0].count == count, f"parsed {query.gpus[0].count} expected {count}")
    elif isinstance(count, int):
        out["count"] = (False, f"no GPU parsed, expected count {count}")
    else:
        out["count"] = None

    model_name = ents.get("model")
    if model_name:
        exp_id = expected_model_id(kb, str(model_name))
        exp_size = _size(str(model_name))
        low = text.lower()
        size_in_text = exp_size is not None and re.search(rf"(?<![\d.]){exp_size:g}\s*b\b", low) is not None
        family = (kb.models[exp_id].family.split()[0] if exp_id else "").lower()
        family_in_text = bool(family) and family in low
        model = query.model
        if not size_in_text and not (exp_id and family_in_text and model and model.id == exp_id):
            ok = model is None or model.id is None or model.id == exp_id
        elif model is None:
            ok = False
        elif exp_id and model.id == exp_id:
            ok = True
        elif model.id is None and exp_size is not None and model.params_total_b == exp_size:
            ok = exp_id is None or "class" in str(model_name).lower() or not family_in_text
        else:
            ok = False
        parsed_desc = None if model is None else (model.id or f"generic {model.params_total_b}B")
        out["model"] = (ok, f"parsed {parsed_desc} expected {model_name!r} -> {exp_id}")
    else:
        out["model"] = None if query.model is None else (True, "no expected model")

    exp_precision = ents.get("precision")
    if exp_precision:
        words = re.findall(r"[a-z0-9]+", str(exp_precision).lower().split("->")[0])
        in_text = any(w in text.lower() for w in words if len(w) > 2 and w not in ("bit", "base", "weights", "default"))
        if in_text:
            exp_bits, exp_method = _precision_class(str(exp_precision).split("->")[0])
            got = _precision_class(query.precision or "")
            ok = got[0] == exp_bits and (exp_method is None or got[1] == exp_method or exp_method == "gguf" == got[1])
            out["precision"] = (ok, f"parsed {query.precision} expected {exp_precision!r}")
        else:
            out["precision"] = None  # the precision comes from the thread, not the question
    else:
        out["precision"] = None
    return out


# --------------------------------------------------------------------------- evaluation set (question text only)

#: Relative difference within which a knowledge-base model's parameter count is "that size" (Qwen3-30B-A3B is
#: 30.5B, Llama 1 "30B" is 32.5B).
SIZE_TOLERANCE = 0.1
EVAL_ASPECTS = ("intent", "gpus", "models", "several_models", "capacity_only", "model_recall", "precisions",
                "quantities")


def _gpu_matches(expected: dict, mention, kb: KnowledgeBase) -> bool:
    """Whether a parsed :class:`GpuMention` is the expected GPU (see :func:`score_eval`)."""
    if mention.id is None:
        return False
    memory = mention.memory_gb if mention.memory_gb is not None else kb.gpus[mention.id].memory_gb
    if "capacity_gb" in expected:
        if not mention.capacity_only or abs(memory - expected["capacity_gb"]) >= 1:
            return False
    elif mention.capacity_only:
        return False
    elif "id" in expected:
        if mention.id != expected["id"]:
            return False
    elif product_key(mention.id) != expected["gpu"]:
        return False
    if expected.get("memory_gb") is not None and abs(memory - expected["memory_gb"]) >= 1:
        return False
    return expected.get("count") is None or mention.count == expected["count"]


def _model_matches(expected: dict, mention, kb: KnowledgeBase) -> bool:
    """Whether a parsed :class:`ModelMention` is the expected model (see :func:`score_eval`)."""
    if "id" in expected:
        return mention.id == expected["id"]
    size = float(expected["size_b"])
    if mention.id is None:
        return mention.params_total_b is not None and abs(mention.params_total_b - size) < 0.05
    if "family" not in expected:
        return False  # a model known only by its size (or not in the knowledge base) is never replaced
    model = kb.models[mention.id]
    return (mention.id.split("-")[0].rstrip("0123456789.") == expected["family"]
            and abs(model.params_total_b - size) <= SIZE_TOLERANCE * size)


def _pair(expected: list[dict], parsed: list, match) -> tuple[list[dict], list]:
    """Greedy one-to-one matching in order: (expected items not found, parsed items left over)."""
    left = list(parsed)
    missing = []
    for item in expected:
        hit = next((p for p in left if match(item, p)), None)
        if hit is None:
            missing.append(item)
        else:
            left.remove(hit)
    return missing, left


def _same(a, b) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return abs(a - b) <= 0.01 * max(abs(a), abs(b), 1e-9)
    return a == b


def score_eval(entry: dict, query: Query, kb: KnowledgeBase) -> dict[str, tuple[int, int, str] | None]:
    """Score one evaluation entry: per aspect (good, total, detail), or None when the aspect does not apply.

    Rules (labels are what the question text names, see the header of ``questions-eval.yaml``):

    * intent: equal to ``intent`` or to one of ``also_ok``; ``other`` accepts ``unknown``, ``diagnose``, ``help``.
    * gpus (per question): the parsed GPUs and the expected ones pair up one to one, nothing missing and
      nothing extra. A named GPU ``{gpu: product}`` matches a parsed GPU of that product (knowledge-base id
      without memory and form factor) that is not capacity-only; ``{id}`` the exact variant;
      ``{capacity_gb}`` a capacity-only GPU of that memory. ``memory_gb`` (the stated memory, else the
      variant's) and ``count`` must agree when the label gives them.
    * models (per question): the parsed models and the expected ones pair up one to one. ``{id}`` needs that
      id; ``{family, size_b}`` a model of that family within 10% of the size, or a generic model of that
      size; ``{size_b}`` a generic model of that size (a name the knowledge base lacks must not become
      another model).
    * several_models: the models score of the questions that name two or more models.
    * capacity_only (per GPU named only by its memory): found as a capacity-only GPU with that memory and count.
    * model_recall (per model named): found, whatever else was parsed.
    * precisions (per question with labelled precisions): the parsed set equals the labelled set.
    * quantities (per labelled field): the Query field equals the label (numbers within 1%).
    """
    out: dict[str, tuple[int, int, str] | None] = {}
    ok_intents = {entry["intent"], *(entry.get("also_ok") or [])}
    intent_ok = query.intent in ok_intents or ("other" in ok_intents and query.intent in OTHER_OK)
    out["intent"] = (int(intent_ok), 1, f"{query.intent} (expected {'/'.join(sorted(ok_intents))})")

    gpus = entry.get("gpus") or []
    missing, extra = _pair(gpus, query.gpus, lambda e, m: _gpu_matches(e, m, kb))
    parsed_gpus = [(m.id, m.count, m.memory_gb, "capacity" if m.capacity_only else "") for m in query.gpus]
    out["gpus"] = (int(not missing and not extra), 1, f"parsed {parsed_gpus} missing {missing}")
    capacity = [g for g in gpus if "capacity_gb" in g]
    if capacity:
        found = sum(1 for g in capacity if any(_gpu_matches(g, m, kb) for m in query.gpus))
        out["capacity_only"] = (found, len(capacity), f"parsed {parsed_gpus} expected {capacity}")
    else:
        out["capacity_only"] = None

    models = entry.get("models") or []
    missing, extra = _pair(models, query.models, lambda e, m: _model_matches(e, m, kb))
    parsed_models = [m.id or f"generic {m.params_total_b:g}B" if m.params_total_b else m.id or m.as_written
                     for m in query.models]
    detail = f"parsed {parsed_models} missing {missing}"
    out["models"] = (int(not missing and not extra), 1, detail)
    out["several_models"] = (int(not missing and not extra), 1, detail) if len(models) >= 2 else None
    out["model_recall"] = (len(models) - len(missing), len(models), detail) if models else None

    if entry.get("precisions"):
        expected = sorted(set(entry["precisions"]))
        got = sorted(set(query.precisions))
        out["precisions"] = (int(got == expected), 1, f"parsed {got} expected {expected}")
    else:
        out["precisions"] = None
    quantities = entry.get("quantities") or {}
    if quantities:
        wrong = {k: getattr(query, k) for k, v in quantities.items() if not _same(getattr(query, k), v)}
        out["quantities"] = (len(quantities) - len(wrong), len(quantities), f"wrong {wrong} expected {quantities}")
    else:
        out["quantities"] = None
    return out


def _main_eval(entries: list[dict], kb: KnowledgeBase, path: Path) -> int:
    totals: dict[str, list[int]] = {}
    misses: list[str] = []
    started = time.perf_counter()
    for entry in entries:
        query = parse_question(entry.get("question") or "", kb)
        for aspect, result in score_eval(entry, query, kb).items():
            if result is None:
                continue
            good, total, detail = result
            t = totals.setdefault(aspect, [0, 0])
            t[0] += good
            t[1] += total
            if good < total:
                misses.append(f"{entry['id']} {aspect}: {detail}")
    elapsed = time.perf_counter() - started
    chinese = sum(1 for e in entries if re.search(r"[\u4e00-\u9fff]", e.get("question") or ""))
    print(f"parse_eval on {path.name}: {len(entries)} questions ({chinese} Chinese), "
          f"{elapsed * 1000:.0f} ms incl. scoring")
    for aspect in EVAL_ASPECTS:
        good, total = totals.get(aspect, [0, 0])
        print(f"  {aspect:<15} {good:>3}/{total:<3} {100 * good / total if total else 0:5.1f}%")
    print("misses:" if misses else "misses: none")
    for line in misses:
        print("  " + line)
    return 0


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_FILE
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    kb = load_knowledge(ROOT / "knowledge")
    if entries and "models" in entries[0]:
        return _main_eval(entries, kb, path)
    totals: dict[str, list[int]] = {}
    misses: list[str] = []
    started = time.perf_counter()
    for entry in entries:
        query = parse_question(entry.get("question") or "", kb)
        for aspect, result in score(entry, query, kb).items():
            if result is None:
                continue
            ok, detail = result
            t = totals.setdefault(aspect, [0, 0])
            t[0] += ok
            t[1] += 1
            if not ok:
                misses.append(f"{entry['id']} {aspect}: {detail}")
    elapsed = time.perf_counter() - started
    print(f"parse_eval on {path.name}: {len(entries)} questions ({elapsed * 1000:.0f} ms incl. scoring)")
    for aspect in ("intent", "gpus", "count", "model", "precision"):
        good, total = totals.get(aspect, [0, 0])
        print(f"  {aspect:<10} {good:>3}/{total:<3} {100 * good / total if total else 0:5.1f}%")
    print("misses:" if misses else "misses: none")
    for line in misses:
        print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
