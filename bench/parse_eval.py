"""Accuracy of the question parser on a labelled question set.

Usage: python bench/parse_eval.py [FILE]   (default tests/data/questions-dev.yaml)

Prints intent, GPU-set, GPU-count, model and precision accuracy, then every miss.

Scoring rules (the labels describe the whole source thread, the parser sees one message):

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


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_FILE
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    kb = load_knowledge(ROOT / "knowledge")
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
