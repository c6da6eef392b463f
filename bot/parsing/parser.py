"""Parse a user question into a :class:`~bot.parsing.query.Query`.

The steps, each a pure function over the lower-cased text:

1. :func:`~bot.parsing.slack_text.clean_slack_text`, then :func:`~bot.parsing.text.prepare_text`
   (Unicode NFKC, spaces at CJK/Latin boundaries, "4xA10G" -> "4x A10G");
2. models first (:mod:`bot.parsing.models`), so that "llama-2-70b" is not read as a count of
   GPUs, then cloud instances and GPUs (:mod:`bot.parsing.gpus`);
3. settings and numbers (:mod:`bot.parsing.quantities`) and pasted errors
   (:mod:`bot.parsing.diagnosis`);
4. the intent from keywords and entities (:mod:`bot.parsing.intent`).

Regular expressions are compiled at import; alias tables are built once per knowledge base
(:func:`bot.parsing.tables.get_tables`).
"""

from __future__ import annotations

import logging
import re

from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.parsing import quantities as q
from bot.parsing.config_paste import find_pasted_config
from bot.parsing.diagnosis import find_diagnosis, gpus_for_capacity, is_error_paste
from bot.parsing.gpus import FoundGpu, scan_gpus, scan_instances, scan_standalone_counts
from bot.parsing.intent import IntentInputs, classify_intent, find_workload
from bot.parsing.models import scan_models, shape_hints
from bot.parsing.query import GpuMention, ModelMention, Query, UnknownTerm
from bot.parsing.slack_text import clean_slack_text
from bot.parsing.tables import ParserTables, get_tables
from bot.parsing.text import SpanSet, detect_language, prepare_text

__all__ = ["parse_question"]

log = logging.getLogger(__name__)

#: Unknown names reported per message; more is noise (a pasted log), not a question.
MAX_UNKNOWN_TERMS = 5
_PROVIDER_WORD = re.compile(r"[a-z0-9]+(?:\.[a-z]+)?")
#: Provider aliases that are also common words: only a provider after "on/at/via ..." or
#: before "cloud/labs/gpu".
_AMBIGUOUS_PROVIDERS = frozenset({"do", "google", "lambda", "vast", "amazon", "oracle"})
_PROVIDER_CUE_BEFORE = frozenset({"on", "at", "from", "via", "with", "using", "use", "in", "rent", "rented", "renting",
                                  "through", "vs", "or", "and"})
_PROVIDER_CUE_AFTER = frozenset({"cloud", "labs", "ai", "gpu", "gpus", "instance", "instances", "pricing", "price"})


def parse_question(text: str, kb: KnowledgeBase | None = None) -> Query:
    """Parse one user message.

    Args:
        text: the message, possibly with Slack markup (mentions, links, code fences).
        kb: the knowledge base to resolve names against; ``None`` means
            :func:`bot.kb.loader.get_knowledge`.

    Returns:
        The :class:`Query`. Never raises: an internal failure is logged and returned as
        intent ``unknown`` with a note (a bug to fix, not an expected outcome).
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    try:
        return _parse(text, kb if kb is not None else get_knowledge())
    except Exception:  # the bot must answer something for any message; the log has the bug
        log.exception("parse_question failed on %r", text[:200])
        return Query(text=text[:2000], intent="unknown", notes=["The question could not be parsed."])


def _parse(raw: str, kb: KnowledgeBase) -> Query:
    tables = get_tables(kb)
    cleaned = clean_slack_text(raw)
    pasted = find_pasted_config(cleaned)
    if pasted is not None:  # scan the words around a pasted config.json, not its numbers
        cleaned = (cleaned[:pasted.start] + " " + cleaned[pasted.end:]).strip()
    prepared = prepare_text(cleaned)
    low = prepared.low
    notes: list[str] = []
    unknown: list[UnknownTerm] = []

    # models first: their spans ("llama-2-70b", "Qwen3-235B-A22B") are not GPU text
    model_found, model_spans, family_only = scan_models(low, prepared.written, tables)
    instances = scan_instances(low, tables)
    masked = model_spans
    for f in instances:
        masked.add((f.start, f.end))
    gpu_found = sorted(instances + scan_gpus(low, prepared.written, tables, masked), key=lambda f: f.start)

    gpus = _merge_gpus(gpu_found, low, notes)
    for f in gpu_found:
        if f.id is None and len(unknown) < MAX_UNKNOWN_TERMS and f.as_written.lower() not in {
                u.as_written.lower() for u in unknown}:
            unknown.append(UnknownTerm(as_written=f.as_written, suggestions=f.suggestions[:3]))

    model = None
    precision, kv_precision = q.find_precision(low)
    if model_found:
        best = model_found[0]
        model = ModelMention(id=best.id, as_written=best.as_written, variant_assumed=best.variant_assumed,
                             generic=best.generic, params_total_b=best.params_total_b,
                             params_active_b=best.params_active_b)
        notes.extend(best.notes)
        if best.unknown and len(unknown) < MAX_UNKNOWN_TERMS:
            unknown.append(UnknownTerm(as_written=best.unknown, suggestions=best.suggestions[:3]))
        if best.generic:
            layers, hidden, kv_heads = shape_hints(low)
            model = model.model_copy(update={"layers": layers, "hidden_size": hidden, "kv_heads": kv_heads})
        if best.precision and (precision is None or best.precision not in ("int4", "int8")):
            precision = best.precision if precision not in ("gptq", "awq", "nf4") else precision
    elif family_only:
        notes.append(f"'{family_only[0]}' names a model family but no size; the size is needed to estimate.")
    else:
        layers, hidden, kv_heads = shape_hints(low)
        if layers and hidden:  # a pasted config.json without a parameter count
            model = ModelMention(id=None, as_written="(model config)", generic=True, layers=layers,
                                 hidden_size=hidden, kv_heads=kv_heads)

    config_error = None
    if pasted is not None and pasted.entry is not None:
        e = pasted.entry
        model = ModelMention(id=None, as_written="pasted config.json", generic=True,
                             params_total_b=e["params_total_b"], params_active_b=e.get("params_active_b"),
                             layers=e.get("num_hidden_layers"), hidden_size=e.get("hidden_size"),
                             kv_heads=e.get("num_key_value_heads"), config=pasted.config)
        notes.append(f"Used the pasted config.json: {e.get('num_hidden_layers')} layers, hidden {e.get('hidden_size')}, "
                     f"{e.get('num_key_value_heads')} KV heads, {e['params_total_b']:.2f}B parameters computed from it.")
    elif pasted is not None:
        config_error = pasted.error

    diagnosis = find_diagnosis(low)
    if diagnosis and diagnosis.total_capacity_gib and not gpus:
        gpus.extend(_gpu_from_capacity(kb, tables, diagnosis.total_capacity_gib, notes))

    fields: dict = {}
    fields["context_tokens"] = q.find_context(low)
    fields["input_tokens"], fields["output_tokens"] = q.find_io_tokens(low)
    fields.update(q.find_load(low))
    fields["training_tokens"], more = q.find_training_tokens(low)
    notes.extend(more)
    fields["duration_hours"], more = q.find_durations(low)
    notes.extend(more)
    money = q.find_money(low)
    notes.extend(money.pop("notes"))
    fields.update(money)
    fields["pricing"] = q.find_pricing(low)
    fields["region"] = q.find_region(low)
    fields["engine"] = q.find_engine(low) or ("ollama" if any("Ollama tag" in n for n in notes) else None)
    fields["provider"] = _find_provider(low, tables) or next((f.provider for f in gpu_found if f.provider), None)

    marked = _mark_gpus(low, gpu_found)
    intent = classify_intent(IntentInputs(
        low=low,
        marked=marked,
        gpu_names=len({f.id or f.as_written.lower() for f in gpu_found}),
        has_model=model is not None or config_error is not None,
        precision=precision,
        diagnosis_kind=diagnosis.kind if diagnosis else None,
        error_paste=is_error_paste(low),
        has_entities=bool(gpu_found or model or unknown or config_error),
        rental_terms=bool(fields["duration_hours"] or fields["provider"] or fields["pricing"]),
    ))
    return Query(
        text=cleaned,
        intent=intent,
        gpus=gpus,
        model=model,
        precision=precision,
        kv_precision=kv_precision,
        method=q.find_method(low),
        workload=find_workload(low),
        diagnosis=diagnosis,
        config_error=config_error,
        language=detect_language(cleaned),
        unknown_terms=unknown,
        notes=list(dict.fromkeys(notes)),
        **fields,
    )


def _merge_gpus(found: list[FoundGpu], low: str, notes: list[str]) -> list[GpuMention]:
    """One mention per GPU id (first count wins); counts stated apart ("6 gpus") go to the first GPU."""
    by_id: dict[str, GpuMention] = {}
    notes_by_id: dict[str, list[str]] = {}
    for f in found:
        if f.id is None:
            continue
        notes_by_id.setdefault(f.id, []).extend(f.notes)
        mention = by_id.get(f.id)
        if mention is None:
            by_id[f.id] = GpuMention(id=f.id, count=f.count, as_written=f.as_written, variant_assumed=f.variant_assumed)
            continue
        update: dict = {}
        if mention.count is None and f.count is not None:
            update["count"] = f.count
        if mention.variant_assumed and not f.variant_assumed:  # named precisely elsewhere
            update.update(variant_assumed=False, as_written=f.as_written)
        if update:
            by_id[f.id] = mention.model_copy(update=update)
    for gpu_id, mention in by_id.items():
        notes.extend(n for n in notes_by_id[gpu_id] if mention.variant_assumed or not n.startswith("Assumed "))
    mentions = list(by_id.values())
    if mentions and mentions[0].count is None:
        standalone = scan_standalone_counts(low, SpanSet([(f.span_start, f.span_end) for f in found]))
        if standalone:
            mentions[0] = mentions[0].model_copy(update={"count": standalone[0]})
    return mentions


def _gpu_from_capacity(kb: KnowledgeBase, tables: ParserTables, total_gib: float, notes: list[str]) -> list[GpuMention]:
    candidates = gpus_for_capacity(kb, total_gib)
    if not candidates:
        return []
    names = ", ".join(tables.index.display_name("gpu", c) for c in candidates[:6])
    chosen = tables.index.display_name("gpu", candidates[0])
    notes.append(f"The error's {total_gib:g} GiB total capacity fits a {kb.gpus[candidates[0]].memory_gb:g} GB card "
                 f"({names}); assumed {chosen}.")
    return [GpuMention(id=candidates[0], count=None, as_written=f"{total_gib:g} GiB total capacity", variant_assumed=True)]


def _find_provider(low: str, tables: ParserTables) -> str | None:
    """The first provider named; a common-word alias ("vast", "lambda") needs a cue word."""
    words = [(m.group(0), m.start(), m.end()) for m in _PROVIDER_WORD.finditer(low)]
    keys = tables.provider_keys
    for i, (word, _start, _end) in enumerate(words):
        for n in (3, 2, 1):
            if i + n > len(words):
                continue
            key = "".join(w for w, _, _ in words[i:i + n]).replace(".", "") if n > 1 else word
            provider = keys.get(key) or keys.get(key.replace(".", ""))
            if provider is None:
                continue
            if n == 1 and word in _AMBIGUOUS_PROVIDERS:
                before = words[i - 1][0] if i else ""
                after = words[i + 1][0] if i + 1 < len(words) else ""
                if word == "do" or (before not in _PROVIDER_CUE_BEFORE and after not in _PROVIDER_CUE_AFTER):
                    continue
            return provider
    return None


def _mark_gpus(low: str, found: list[FoundGpu]) -> str:
    """``low`` with each GPU mention (count and memory included) replaced by `` §g ``."""
    out, pos = [], 0
    for f in sorted(found, key=lambda f: f.span_start):
        if f.span_start < pos:
            continue
        out.append(low[pos:f.span_start])
        out.append(" §g ")
        pos = f.span_end
    out.append(low[pos:])
    return "".join(out)
