"""Parse a user question into the complete request, :class:`~bot.parsing.query.Query`.

The steps, each a pure function over the prepared, lower-cased text (one ordered list, read here):

1. :func:`~bot.parsing.slack_text.clean_slack_text`; a pasted ``config.json`` is taken out and read by the
   knowledge base's importer; pasted error lines are set aside (read by :mod:`bot.parsing.diagnosis`);
2. :func:`~bot.parsing.text.prepare_text`: Unicode NFKC, Chinese numerals before counters, spaces at
   CJK/Latin boundaries, glued counts, MoE sizes, family aliases; a GPU name glued to a memory size before it
   or to a word after it ("80GA100", "3090lora") is spaced (:func:`~bot.parsing.gpus.split_glued_names`);
3. names: models first (:mod:`bot.parsing.models`), so that "llama-2-70b" is not read as a count of GPUs,
   then cloud instances and GPUs (:mod:`bot.parsing.gpus`), then GPUs named only by their memory;
4. quantities (:mod:`bot.parsing.quantities`) and the lexicon's words (precisions, engines, methods,
   pricing, providers, features, what is asked);
5. every number no step used is listed in ``not_understood``, with every quantity that is zero or negative;
   a bound the message hit (its length, a number's digits, a quantity above what is sized) is a note in
   ``limits``, which the answer states;
6. the intent (:func:`bot.parsing.route.route`).

The lexicon (``bot/parsing/lexicon/*.yaml``) is compiled once; alias tables are built once per knowledge
base (:func:`bot.parsing.tables.get_tables`).
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import replace
from functools import lru_cache

from bot.kb.claims import match_claims, quotes_article_wording
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.notes import Note, note
from bot.parsing.closed import FoundClosed, scan_closed
from bot.parsing.config_paste import find_pasted_config
from bot.parsing.diagnosis import error_detail_spans, find_diagnosis, gpus_for_capacity, is_error_paste
from bot.parsing.gpus import (
    MAX_GPU_COUNT,
    FoundGpu,
    scan_capacity_gpus,
    scan_duration_lookalikes,
    scan_form_variants,
    scan_gpus,
    scan_instances,
    scan_standalone_counts,
    share_listed_counts,
    split_glued_names,
)
from bot.parsing.lexicon import Lexicon, get_lexicon
from bot.parsing.models import looks_like_a_name, scan_models, shape_hints
from bot.parsing.numbers import MAX_DIGITS
from bot.parsing.quantities import QUANTITY_LIMITS, QuantityScan, scan_quantities, unclaimed_numbers
from bot.parsing.query import GpuMention, ModelMention, Money, Observation, Query, UnknownTerm
from bot.parsing.route import RouteInputs, find_workload, route
from bot.parsing.slack_text import clean_slack_text
from bot.parsing.spec_checks import find_spec_checks
from bot.parsing.tables import ParserTables, get_tables, product_key
from bot.parsing.text import PreparedText, SpanSet, detect_language, prepare_text

__all__ = ["MAX_MESSAGE_CHARS", "parse_question"]

log = logging.getLogger(__name__)

#: Characters of a message that are read. Questions are a few hundred characters; a longer message is a
#: paste (a log, a config), whose first part says what it is. Bounds the work on any input (linear scans).
MAX_MESSAGE_CHARS = 4000
#: Unknown names reported per message; more is noise (a pasted log), not a question.
MAX_UNKNOWN_TERMS = 5
_PROVIDER_WORD = re.compile(r"[a-z0-9]+(?:\.[a-z]+)?")
#: Provider aliases that are also common words: only a provider next to a cue word of the lexicon.
_AMBIGUOUS_PROVIDERS = frozenset({"do", "google", "lambda", "vast", "amazon", "oracle"})
#: A llama.cpp (GGUF) quantisation type by its naming scheme, bits then block kind then size ("q4_k_m", "q5_0",
#: "iq4_xs"), written with "_", "-" or nothing between the parts ("Q4KM", "IQ4XS", "q4-k-m"); read in its canonical
#: underscored form (:func:`_gguf_name`), the form ``knowledge/efficiency.yaml`` names its formats by.
_GGUF = re.compile(r"\b(?:(q[2-8])[_-]?(k)(?:[_-]?([sml]))?|(q[2-8])[_-]([01])|(iq[1-4])[_-]?(xxs|xs|nl|s|m))\b")


def _gguf_name(m: re.Match[str]) -> str:
    """The canonical name of a GGUF type matched by :data:`_GGUF` ("Q4KM" -> "q4_k_m")."""
    return "_".join(p for p in m.groups() if p)

_SPECIFIC_FORMATS = ("gptq", "awq", "nf4", "exl2")
#: Images/min in one image per unit of each image rate the lexicon reads (``rates.images_per_*``).
_IMAGES_PER_MINUTE = {"images_per_min": 1.0, "images_per_s": 60.0, "images_per_hour": 1 / 60, "images_per_day": 1 / 1440}
# "how many" right before a GPU name asks for a count of that GPU, whatever the GPU ("how many MI300X", "how many
# of the L40S"); the lexicon's phrases cover "how many gpus/cards"
_HOW_MANY_BEFORE = re.compile(r"\bhow\s+many\s+(?:of\s+(?:the\s+|those\s+|these\s+)?)?$")
_REGION = re.compile(
    r"\b(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d"
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|north|south|central|northeast"
    r"|southeast|northwest|southwest)\d"
    r"|(?:east|west|central|north|south|northcentral|southcentral|westcentral)(?:us|europe)\d?)\b"
)
#: A pasted log line: the error reader takes these, the number accounting skips them.
_PASTE_LINE = re.compile(
    r"(?im)^.*(?:traceback|error|exception|warning|\bfile \"|line \d+|torch\.|cuda|gib|mib|\binfo\b|\bdebug\b"
    r"|at 0x|\.py\b|>>>|nvidia-smi|\|\s*\d+\s*\|).*$")
#: What makes a line a log line (the markers of ``_PASTE_LINE``), and the end of a sentence of the user's before it.
_PASTE_MARKER = re.compile(
    r"(?i)traceback|error|exception|warning|\bfile \"|line \d+|torch\.|cuda|gib|mib|\binfo\b|\bdebug\b"
    r"|at 0x|\.py\b|>>>|nvidia-smi|\|\s*\d+\s*\|")
_SENTENCE_END = re.compile(r"[:.?!;](?:\s+|$)|[：。？！；]")


def _paste_span(m: re.Match[str]) -> tuple[int, int]:
    """The part of a log line that is the log: from the end of the user's own sentence before the first marker
    ("LoRA on a 3090, seq len 2048, micro batch 16: torch.OutOfMemoryError: ..." keeps the settings), else the
    whole line."""
    line = m.group(0)
    first = _PASTE_MARKER.search(line)
    cut = 0
    if first is not None:
        ends = [e.end() for e in _SENTENCE_END.finditer(line, 0, first.start())]
        cut = ends[-1] if ends else 0
    return m.start() + cut, m.end()


_HELP_STRIP = re.compile(r"[\s!.?？！。]+")
#: A run of digits longer than the number reader takes (:data:`bot.parsing.numbers.MAX_DIGITS`).
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
#: Codes of the notes that state a bound the message hit; they go to ``Query.limits`` (shown as warnings).
#: Hours in a commitment term (365 x 24 a year).
_TERM_HOURS = {"1y": 8760.0, "3y": 26280.0}
_LIMIT_CODES = frozenset({"message_truncated", "quantity_over_limit", "long_number_ignored", "quantity_unusable",
                          "closed_model", "closed_model_beside", "currency_without_rate", "unknown_variant"})
#: One unit of time in hours (an hour, a day, a week, a month of 730 h, a year): lengths that read as periods.
_ONE_UNIT_HOURS = frozenset({1.0, 24.0, 168.0, 730.0, 8760.0})


#: A token count at least this large next to a cost per token is a volume to price (no request is that long).
_TOKEN_VOLUME_MIN = 1_000_000

def parse_question(text: str, kb: KnowledgeBase | None = None) -> Query:
    """Parse one user message.

    Args:
        text: the message, possibly with Slack markup (mentions, links, code fences).
        kb: the knowledge base to resolve names against; ``None`` means :func:`bot.kb.loader.get_knowledge`.

    Returns:
        The :class:`Query`. Never raises: an internal failure (a bug, never the user's doing) is logged with a
        reference id and without the message text, and returned as intent ``unknown`` with a
        ``parse_failed`` note carrying the same reference.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates cannot be printed or sent
    try:
        return _parse(text, kb if kb is not None else get_knowledge(), get_lexicon())
    except Exception:  # the bot must answer something for any message; the log has the bug
        ref = uuid.uuid4().hex[:8]
        log.exception("parse_question failed (ref %s, message of %d characters)", ref, len(text),
                      extra={"ref": ref})
        return Query(text=text[:MAX_MESSAGE_CHARS], intent="unknown", notes=[note("parse_failed", ref=ref)],
                     language=detect_language(text[:MAX_MESSAGE_CHARS]))


def _replace_family_aliases(text: str, tables: ParserTables) -> str:
    pattern = tables.family_alias_regex
    if pattern is None:
        return text
    return pattern.sub(lambda m: f" {tables.family_alias_map[m.group(0).lower()]} ", text)


def _replace_model_words(text: str, lex: Lexicon) -> str:
    """Words of a model name in the user's language, written as the model ids spell them ("蒸馏版" -> distill)."""
    if lex.model_words.pattern == "(?!)":
        return text
    return lex.model_words.regex.sub(lambda m: f" {lex.model_words.value(m.group(0))} ", text)


def _parse(raw: str, kb: KnowledgeBase, lex: Lexicon) -> Query:
    tables = get_tables(kb)
    notes: list[Note] = []
    cleaned = clean_slack_text(raw)
    pasted = find_pasted_config(cleaned)
    if pasted is not None:  # scan the words around a pasted config.json, not its numbers
        cleaned = (cleaned[:pasted.start] + " " + cleaned[pasted.end:]).strip()
    if len(cleaned) > MAX_MESSAGE_CHARS:
        notes.append(note("message_truncated", chars=MAX_MESSAGE_CHARS, total_chars=len(cleaned)))
        cleaned = cleaned[:MAX_MESSAGE_CHARS]
    prepared = prepare_text(_replace_model_words(_replace_family_aliases(cleaned, tables), lex), lex)
    prepared = PreparedText(split_glued_names(prepared.text, tables, lex))  # "80GA100", "3090lora"
    low = prepared.low
    unknown: list[UnknownTerm] = []
    error_paste = is_error_paste(low)
    paste_spans = SpanSet([_paste_span(m) for m in _PASTE_LINE.finditer(low)] if error_paste else [])

    # 3. names: models first, their spans ("llama-2-70b", "Qwen3-235B-A22B") are not GPU text
    # a closed model's name ("claude 3.5 sonnet") is read whole first: no model size or quantity is read inside it
    closed = scan_closed(low, prepared.written, kb, lex)
    open_low = "".join(" " if any(c.start <= i < c.end for c in closed) else ch for i, ch in enumerate(low)) \
        if closed else low
    model_found, model_spans, family_only = scan_models(open_low, prepared.written, tables, lex)
    model_found = _one_model_per_name(model_found, low, prepared.written, kb)
    for c in closed:
        model_spans.add((c.start, c.end))
    instances = scan_instances(low, tables)
    masked = SpanSet(model_spans.spans())
    for f in instances:
        masked.add((f.start, f.end))
    # "for l4 days": a length of time with a letter in its number names no GPU; said not understood
    lookalikes = scan_duration_lookalikes(low, lex, masked)
    for span in lookalikes:
        masked.add(span)
    gpu_found = sorted(instances + scan_gpus(low, prepared.written, tables, masked, lex), key=lambda f: f.start)
    gpu_found, form_variants = scan_form_variants(low, prepared.written, gpu_found, tables, lex, masked)
    gpu_found = sorted(gpu_found + form_variants, key=lambda f: f.start)
    name_spans = SpanSet([*model_spans.spans(), *((f.span_start, f.span_end) for f in gpu_found), *lookalikes])
    capacity = scan_capacity_gpus(low, prepared.written, tables, name_spans, lex, gpu_found)
    for f in capacity:
        name_spans.add((f.span_start, f.span_end))
    gpu_found = share_listed_counts(sorted(gpu_found + capacity, key=lambda f: f.start), low, lex)
    for f in gpu_found:
        if f.id is None and len(unknown) < MAX_UNKNOWN_TERMS and f.as_written.lower() not in {
                u.as_written.lower() for u in unknown}:
            if f.capacity_only:  # a memory no card has: answered by that memory alone
                notes.extend(f.notes)
                unknown.append(UnknownTerm(as_written=f.as_written, kind="gpu", memory_gb=f.memory_gb))
                continue
            listed = tables.index.lookup("unlisted", f.as_written, fuzzy=False)
            unknown.append(UnknownTerm(as_written=f.as_written, kind="gpu", suggestions=f.suggestions[:3],
                                       unlisted=listed.id if listed else None))

    # 4. words with digits ("1 year", "4-bit", "flash attention 2") first, then quantities
    vocab_spans = SpanSet()
    # a commitment term is also a length of time ("for one year", "用一年"): the duration scan reads it too
    for phrases in (lex.engines, lex.methods, lex.sharding, lex.pricing, lex.features,
                    lex.gradient_checkpointing, lex.asks, lex.workloads, lex.spec_fields, lex.precisions):
        for m in phrases.finditer(low):
            if any(c.isdigit() for c in m.group(0)) and m.start() not in name_spans:
                vocab_spans.add(m.span())
    scan = scan_quantities(low, lex, SpanSet([*name_spans.spans(), *paste_spans.spans(), *vocab_spans.spans()]))
    # an amount with no currency is in the currency of the question's language (yuan in Chinese, dollars else)
    default_currency = "cny" if detect_language(cleaned) == "zh" else "usd"
    for f in scan.all("money"):
        f.value["currency"] = f.value["currency"] or default_currency
    _set_aside_unrated_money(scan, kb, notes)
    for m in lex.commitment_terms.finditer(low):
        vocab_spans.add(m.span())  # read above as a length of time or not: the term itself is understood
    _counted_pictures(scan, lex, name_spans)
    fields = _quantity_fields(scan, notes, lex)
    precisions, kv_precisions = _precisions(low, lex, vocab_spans, model_spans)
    models = _models(model_found, low, pasted, unknown, notes, vocab_spans)
    _non_llm_names(low, prepared.written, lex, tables, model_found, name_spans, unknown, notes)
    models += _closed_alternatives(closed, kb, notes, offer=not models)
    for m in models:
        if m.precision and m.precision not in precisions:
            precisions.append(m.precision)
    for f in model_found:  # "qwen2.5 7b fp16 vs qwen2.5 7b int4": the precision of the model named again
        precisions += [p for p in f.also_precisions if p not in precisions]
    precisions = _merge_precisions(precisions)
    family_ids: list[str] = []
    full_model = None
    if family_only and not models and lex.full_precision_words.search(low):
        # "DeepSeek 满血版", "the full-size Qwen3": the family's largest model as released (the newest among equals),
        # not a distilled or quantized one
        written, family, version = family_only[0]
        ids = tables.family_model_ids(family, version)
        if ids:
            full_model = max(ids, key=lambda i: (kb.models[i].params_total_b, ids.index(i)))
            models.append(ModelMention(id=full_model, as_written=written, variant_assumed=True))
            notes.append(note("full_model_assumed", written=written, model_name=kb.models[full_model].name))
    if family_only and not models:
        written, family, version = family_only[0]
        family_ids = tables.family_model_ids(family, version)
        notes.append(note("family_without_size", written=written,
                          unknown_version=bool(version) and not tables.has_version(family, version),
                          models=tables.family_models(family, version)))
    task = lex.non_llm_tasks.search(low) if not models and not pasted and not family_only else None
    if task is not None:
        # "an embedding API at 300 requests/s", "文生图服务": the kind of work, sized with its default model (the
        # planner's), not an unknown model named "an embedding API"
        fields["non_llm_task"] = lex.non_llm_tasks.value(task.group(0))
    elif not models and not pasted and len(unknown) < MAX_UNKNOWN_TERMS:
        # (a quantity is never a name: "serve under $2/hour at 16k")
        named = _model_object(low, prepared.written, lex,
                              SpanSet([*name_spans.spans(), *((f.start, f.end) for f in scan.found)]))
        if named and named.lower() not in {u.as_written.lower() for u in unknown}:
            # no suggestions: the words are a name the knowledge base lacks, and fuzzy neighbours of a whole
            # phrase ("glm 4.5 air" -> DeepSeek-R1) mislead more than they help
            unknown.append(UnknownTerm(as_written=named, kind="model"))
    other_quantities = SpanSet([(f.start, f.end) for f in scan.found if f.field != "gpu_count"])
    gpus = _merge_gpus(gpu_found, low, lex, fields, notes, other_quantities)
    too_many = next((f for f in scan.over_limit if f.field == "gpu_count"), None)
    uncounted = [g for g in gpus if g.count is None and g.count_over_limit is None]
    if too_many is not None and fields.get("gpu_count") is None and len(uncounted) == 1:
        # "100万张4090", "1,000,000 H100 GPUs": the count set aside belongs to the one GPU named without a count
        gpus[gpus.index(uncounted[0])] = uncounted[0].model_copy(update={"count_over_limit": int(too_many.value)})
    diagnosis = find_diagnosis(low)
    if diagnosis and diagnosis.total_capacity_gib and not gpus:
        gpus.extend(_gpu_from_capacity(kb, tables, diagnosis.total_capacity_gib, notes))
    elif (diagnosis or error_paste) and len(gpus) == 1 and gpus[0].count is None and fields.get("gpu_count") is None:
        # a pasted error comes from the user's setup ("V100 32G 上跑 ... 报 ValueError", "GPU 0 has a total capacity
        # of 23.65 GiB"): with no count said, the card named is one card, not a count to search
        gpus = [gpus[0].model_copy(update={"count": 1})]
    if not gpus and not diagnosis and not error_paste:
        fields["memory_pool_gb"] = _memory_pool(scan, low, lex)
    providers = _providers(low, tables, lex, gpu_found, vocab_spans)
    # no ask is read from inside a model's name ("70亿参数的模型": 参数 is its size, not a spec question) or from
    # an error message's memory details
    ask_text = _masked(low, SpanSet([*model_spans.spans(), *(error_detail_spans(low) if diagnosis else [])]))
    ask_text = _masked(ask_text, _cost_of_time(ask_text, lex))
    # "比如 v100、a40" (for example): words holding a comparison word that compare nothing
    not_comparing = SpanSet([m.span() for m in lex.not_comparison_words.finditer(low)])
    ask_text = _masked(ask_text, not_comparing)
    # a load the user states in figures asks nothing: "50 concurrent users at 8k" states the users (not "how many
    # users"), "at 20 tok/s per user?" the speed wanted (not "what speed"); a figure the user saw stays (it asks whether
    # it is normal), and so does a count in words inside an ask ("tok/s for one user")
    ask_text = _masked(ask_text, SpanSet([(f.start, f.end) for f in scan.found if (
        f.field == "concurrent_users" or (f.field == "rate" and f.value.get("seen") not in ("observed", "quoted")))
        and scan.text[f.start:f.end].lstrip()[:1].isdigit()]))
    asks = [a for group in lex.asks.found_overlapping(ask_text) for a in (group if isinstance(group, list) else [group])]
    fit_clause = fit_question_clause(ask_text, lex)
    if fit_clause is not None and "fit" not in asks and not {"gpu_count", "node_count", "users_served"} & set(asks):
        # "can the 3090 run X", "4090 可以跑 70B 吗": asked in the first clause, it is the first thing asked; a count
        # asked in the same question ("4090 跑 70B 要几张卡吗") is what it asks, not a yes/no
        asks.insert(0 if fit_clause == 0 else len(asks), "fit")
    if "gpu_count" not in asks and any(_HOW_MANY_BEFORE.search(low[:f.span_start]) for f in gpu_found):
        asks.append("gpu_count")  # "how many MI300X ...", "how many of the L40S": a count of the GPU named
    asks = list(dict.fromkeys(asks))
    if "break_even" not in asks and {"comparison", "cheapest"} & set(asks) and lex.purchase_words.search(low) and \
            lex.rent_verbs.search(low):
        # buying and renting both said in a comparison ("买 4 张 4090 自己搭 vs 在 AutoDL 上租，哪个划算") is buy vs rent
        asks.append("break_even")
    rented_gpu = _rented_gpu(low, lex, gpu_found) if "break_even" in asks else None
    layout = _layout(low, lex, vocab_spans)
    region = _REGION.search(low)
    if region:
        vocab_spans.add(region.span())
    providers, region_code = _regional_providers(low, kb, providers, region.group(0) if region else None, vocab_spans)
    for written in _unknown_providers(low, prepared.written, lex, SpanSet([*vocab_spans.spans(), *name_spans.spans()])):
        if len(unknown) < MAX_UNKNOWN_TERMS and written.lower() not in {u.as_written.lower() for u in unknown}:
            unknown.append(UnknownTerm(as_written=written, kind="provider"))
    gpus = [_provider_variant(kb, tables, g, providers, notes) for g in gpus]

    system = _system_of(low, lex, gpu_found)
    if system is not None and system[4] is not None:
        vocab_spans.add(system[4])

    # 5. every number accounted for: the unusable quantities first, then the numbers nothing read
    claimed = SpanSet([*name_spans.spans(), *scan.claimed.spans(), *vocab_spans.spans(), *paste_spans.spans()])
    not_understood = list(dict.fromkeys(low[f.start:f.end].strip() for f in scan.rejected))
    not_understood += [w for s, e in lookalikes if (w := prepared.written(s, e).strip()) not in not_understood]
    not_understood += [n for n in unclaimed_numbers(low, lex, claimed) if n not in not_understood]
    # a figure glued to a GPU name ("910b280T"): the name is read, the figure is said not to be
    not_understood += [f.glued_figure for f in gpu_found if f.glued_figure and f.glued_figure not in not_understood]
    # a stated spec figure or ratio asked about ("is the 4090 really 165 TFLOPS?"); a TFLOPS figure is read for
    # nothing else, so one no check uses is not understood
    spec_checks, unused_computes = find_spec_checks(low, prepared.written, scan, gpu_found, lex,
                                                     has_model=bool(models))
    not_understood += [w for f in unused_computes if (w := low[f.start:f.end].strip()) not in not_understood]
    for f in scan.rejected:
        notes.append(note("quantity_unusable", written=prepared.written(f.start, f.end).strip(), quantity=f.field))
    for f in scan.over_limit:
        notes.append(note("quantity_over_limit", written=prepared.written(f.start, f.end), quantity=f.field,
                          max_n=QUANTITY_LIMITS[f.field]))
    # "10 million users": more than are ever in flight at once; kept, so the answer says what it would take
    users_over_limit = next((int(f.value) for f in scan.over_limit if f.field == "concurrent_users"), None)
    long_number = _LONG_NUMBER.search(low)
    if long_number:
        digits = long_number.group(0)
        notes.append(note("long_number_ignored", max_digits=MAX_DIGITS, digits_n=len(digits),
                          written=digits if len(digits) <= 24 else f"{digits[:20]}…"))

    engine = next(iter(lex.engines.found(_masked(low, model_spans))), None)
    if engine is None and any(n.code == "ollama_default_quant" or (n.code == "assumed_model" and ":" in str(
            n.params.get("written", ""))) for n in notes) or (engine is None and any(":" in m.as_written for m in models)):
        engine = "ollama"
    if fields.get("concurrent_users") is None and lex.single_user_words.search(low):
        fields["concurrent_users"] = 1
    if "gpu_count" in asks and "users_served" in asks and fields.get("concurrent_users"):
        # "how many H100s to serve 80 concurrent users": the users are the load given, the count is what is asked
        asks.remove("users_served")
    gpus_per_node, machines_asked = _per_machine_count(low, lex)
    for f in gpu_found:
        if gpus_per_node is None and system is not None and system[0] is f:
            gpus_per_node, machines_asked = system[1], system[2]
            if system[3] and not machines_asked and len(gpus) == 1:
                # "on 4 DGX H100": four machines of eight
                nodes = system[3]
                gpus = [gpus[0].model_copy(update={"count": nodes * gpus_per_node})]
                fields["node_count"] = nodes
                notes.append(note("gpus_per_node", nodes=nodes, per_node=gpus_per_node, count=nodes * gpus_per_node))
        # "how many 8xA100 nodes": a count glued to a GPU named as a machine is the machine's count
        if gpus_per_node is None and f.count and re.match(rf"\s*(?:{lex.per_machine_machine.pattern})",
                                                          low[f.span_end:f.span_end + 16]):
            gpus_per_node = f.count
            machines_asked = bool(re.search(rf"(?:{lex.per_machine_asked.pattern})\s*$",
                                            low[max(0, f.span_start - 16):f.span_start]))
        elif gpus_per_node is None and f.count and re.search(rf"(?:{lex.per_machine_asked.pattern})\s*$",
                                                             low[max(0, f.span_start - 16):f.span_start]):
            # "要几台 8 卡 H20": machines are asked of a counted GPU, so the count is per machine
            gpus_per_node, machines_asked = f.count, True
    machines = _machines_of(low, lex)
    if machines is not None and len(gpus) == 1 and gpus[0].count in (None, machines[0]) and not machines_asked:
        # "要 4 台 8 卡机器" said apart from the GPU: 4 machines of 8 = 32 GPUs
        gpus = [gpus[0].model_copy(update={"count": machines[0] * machines[1]})]
        fields["node_count"] = machines[0]
        notes.append(note("gpus_per_node", nodes=machines[0], per_node=machines[1], count=machines[0] * machines[1]))
    one_machine = bool(lex.same_machine_words.search(low))
    if one_machine and fields.get("node_count") is None and not machines_asked:
        # "单机八卡", "on one node", "in a single server": the GPUs said are one machine's
        fields["node_count"] = 1
    if machines_asked and "node_count" not in asks:
        asks.append("node_count")
    if "node_count" in asks and "gpu_count" not in asks:
        asks.append("gpu_count")  # machines are a GPU count in whole machines
    if "node_count" not in asks:
        gpus_per_node = None
    if gpus_per_node is not None:
        # "每台8卡，要几台": the count is per machine and the machines are asked, so no total count is fixed
        gpus = [g.model_copy(update={"count": None}) if g.count == gpus_per_node else g for g in gpus]
        if fields.get("gpu_count") == gpus_per_node:
            fields.pop("gpu_count")
    term = next(iter(lex.commitment_terms.found(low)), None)
    # the period asked, other than the term itself ("包年和按需每月差多少": 包年 is the term, 每月 the period)
    period = next((f for f in scan.all("period_hours") if f.value != _TERM_HOURS.get(term)), None)
    committed = bool(term) and "commitment" in lex.pricing.found(low)
    term_spans = [m.span() for m in lex.commitment_terms.finditer(low)] if committed else []
    # a length said apart from the term phrase ("3-year commitment for 6 months", "6 months on a 3-year term"): with
    # a commitment word the term phrase names the contract, and the other length is the use to price, whatever the order
    used = next((f for f in scan.all("duration_hours")
                 if not any(s < f.end and f.start < e for s, e in term_spans)), None)
    if committed and fields.get("duration_hours") == _TERM_HOURS.get(term) and used is not None:
        fields["duration_hours"] = used.value
    elif committed and period is not None and fields.get("duration_hours") == _TERM_HOURS.get(term):
        # "reserved 1yr, monthly cost?": the term is the contract; the period asked is the answer's length (a period
        # priced, not a length of use), and the term is no second period asked
        fields["duration_hours"] = period.value
        fields["duration_is_period"] = True
        periods = [h for h in fields.get("periods_hours", []) if h != _TERM_HOURS.get(term)]
        fields["periods_hours"] = periods if len(periods) > 1 else []
    monthly_note = next((n for n in notes if n.code == "monthly_limit_per_hour"), None)
    if monthly_note is not None and "monthly" in lex.billing_terms.found(low) and fields.get("price_limit_per_hour"):
        # "按量 6.68 元/小时，包月 3500 元": beside pay-as-you-go the month's amount is the plan's price, not a limit
        fields["monthly_price"] = Money(amount=monthly_note.params["amount"], currency=monthly_note.params["currency"])
        fields.pop("price_limit_per_hour", None)
        fields.pop("price_limit_per_gpu", None)
        notes.remove(monthly_note)
    # a currency word that is an amount's unit ("2.24 美元") says what the amount is in, not what the answer is asked in
    asked_currencies = lex.answer_currency.found(_masked(low, SpanSet([(f.start, f.end) for f in scan.all("money")])))
    gpus = _prices_each(gpus, gpu_found, scan, low)
    if fields.get("gpu_count") and fields["gpu_count"] > 1 and len(gpus) == 1 and gpus[0].count == 1 and any(
            f.id == gpus[0].id and re.search(rf"(?:^|[^a-z])(?:{lex.articles.pattern})\s+$", low[:f.start])
            for f in gpu_found):
        # "if an L40S costs $0.90/h, what do 4 of them cost": the article names the card; the count said apart counts it
        gpus = [gpus[0].model_copy(update={"count": None})]
    _purchase_budget(fields, asks, gpus, low, lex)
    query = Query(
        text=cleaned,
        language=_language(cleaned, low, lex),
        users_over_limit=users_over_limit,
        asks=asks,
        gpus=gpus,
        models=models,
        family_model_ids=family_ids,
        precisions=precisions,
        kv_precision=kv_precisions[0] if kv_precisions else None,
        kv_precisions=kv_precisions if len(kv_precisions) > 1 else [],
        full_precision=bool(lex.full_precision_words.search(low)),
        method=next(iter(lex.methods.found(low)), None),
        workload=find_workload(low, lex),
        engine=engine,
        full_context_prompts=bool(lex.full_context_words.search(low)),
        one_machine=one_machine,
        single_item=bool(lex.single_item_words.search(low)),
        bound_asked=bool(lex.bound_words.search(low)),
        offline=bool(lex.batch_job_words.search(low)),
        days_asked=bool(lex.days_asked_words.search(low)),
        at_home=bool(lex.home_words.search(low)),
        market=lex.markets.value(m.group(0)) if (m := lex.markets.search(low)) else None,
        billing_terms=_billing_terms(low, lex, scan),
        rented_gpu=rented_gpu,
        co_hosted=len(models) >= 2 and _cohost_cue(low, gpu_found, lex),
        providers=providers,
        pricing=lex.pricing.found(low),
        commitment_term=term,
        gpus_per_node=gpus_per_node,
        region=region_code,
        sharding=next((s for s in lex.sharding.found(low) if s != "offload"), None),
        cpu_offload="offload" in lex.sharding.found(low),
        gradient_checkpointing=True if lex.gradient_checkpointing.search(low) else None,
        features=lex.features.found(low),
        spec_fields=lex.spec_fields.found(low),
        # the currency asked for, else the one the user's own amounts are in ("按每卡每小时 15 块算" -> CNY)
        # and for a question in Chinese about clouds that publish in CNY only, the currency they publish in
        both_currencies={"cny", "usd"} <= set(asked_currencies),
        answer_currency=next(iter(asked_currencies), None) or (
            "cny" if any(f.value["currency"] == "cny" for f in scan.all("money")) else None) or (
            "cny" if default_currency == "cny" and _publish_in_cny(kb, providers) else None),
        claims=(claims := [c.id for c in match_claims(kb, cleaned)]),
        claims_wording_quoted=[c for c in claims if quotes_article_wording(kb.claims[c], cleaned)],
        spec_checks=spec_checks,
        diagnosis=diagnosis,
        config_error=pasted.error if pasted is not None and pasted.entry is None else None,
        unknown_terms=unknown,
        not_understood=not_understood[:8],
        notes=[n for n in dict.fromkeys(notes) if n.code not in _LIMIT_CODES],
        limits=[n for n in dict.fromkeys(notes) if n.code in _LIMIT_CODES],
        **layout,
        **fields,
    )
    if "token_cost" in query.asks and query.workload not in ("training", "finetune"):
        # "what does 1M output tokens cost", "10M tokens cost to generate": a count of a million tokens or more
        # next to a cost per token is the volume to price, not a request's length nor a training set
        volume = next((v for v in (query.output_tokens, query.training_tokens, query.input_tokens)
                       if v and v >= _TOKEN_VOLUME_MIN), None)
        if volume is not None:
            query = query.model_copy(update={"tokens_priced": float(volume), **{
                f: None for f in ("output_tokens", "training_tokens", "input_tokens")
                if (getattr(query, f) or 0) >= _TOKEN_VOLUME_MIN}})
    if query.commitment_term and query.duration_hours is None and query.deadline_hours is None \
            and "commitment" not in query.pricing:
        # a term said with no commitment word is a length of time ("8张 H100 跑一年": a year of use)
        query = query.model_copy(update={"duration_hours": _TERM_HOURS[query.commitment_term]})
    if query.commitment_term and "on_demand" in query.pricing and "commitment" not in query.pricing and (
            "comparison" in query.asks or query.billing_terms):
        # "annual vs monthly vs on-demand": a term compared with on-demand is a billing term, not a length
        query = query.model_copy(update={"pricing": ["commitment", *query.pricing]})
    if query.commitment_term is None and "commitment" in query.pricing and query.duration_hours:
        # "reserved price for a year": the length said is the term reserved (a year -> the 1-year term)
        term = next((t for t, h in _TERM_HOURS.items() if abs(h - query.duration_hours) < 1e-6), None)
        if term is not None:
            query = query.model_copy(update={"commitment_term": term})
    marked = _mark_gpus(_masked(low, not_comparing), gpu_found)
    # the ask phrases of the message, scanned once for the router's two questions about them
    ask_hits = [(m.group(0), lex.asks.value(m.group(0)))
                for m in (scan.ask_matches if scan.text == low else lex.asks.finditer(low))]
    intent = route(query, RouteInputs(
        low=low, marked=marked,
        gpu_names=len({f.id or f.as_written.lower() for f in gpu_found}),
        error_paste=error_paste,
        help_only=not _HELP_STRIP.sub("", low) or bool(lex.help_phrases.fullmatch(_HELP_STRIP.sub(" ", low).strip())),
        strong_recommend=_strong_recommend(ask_hits, lex, bool(gpu_found)),
        explicit_spec=any("spec" in (value or []) and not lex.features.fullmatch(text) for text, value in ask_hits),
        gpu_setups=max(_gpu_setups(gpu_found), len({(g.id, g.count) for g in gpus})),
        setup_question=bool(lex.setup_question_words.search(low)),
        consumer_gpus=bool(gpus) and all(g.id in kb.gpus and kb.gpus[g.id].segment == "consumer" for g in gpus),
    ), lex)
    return query.model_copy(update={"intent": intent})


def fit_question_clause(text: str, lex: Lexicon) -> int | None:
    """The index of the first clause of ``text`` that asks whether a setup can do the work, or ``None``.

    A clause asks it when it opens with one of the lexicon's ``fit_questions.openers`` and holds one of its ``verbs``
    after it ("can the 3090 run qwen2.5 32b", "will my A10 cope with mistral 7b"; not with one of its
    ``not_subjects`` right after the opener: "could you run the numbers"), or holds one of the ``verbs``
    followed by one of the ``closers`` that ends the clause ("4090 可以跑 70B 吗", "3090 带得动 32B 吗"). Clauses end
    at the lexicon's ``clause_ends`` (Latin punctuation only before a space or the end: "qwen2.5" is one word).

    Args:
        text: the lower-cased question (model names blanked, so no verb is read inside one).
        lex: the lexicon.

    Returns:
        The 0-based index of the clause, or ``None`` when no clause asks it.
    """
    ends = "|".join(re.escape(c) + (r"(?=\s|$)" if c.isascii() else "") for c in sorted(lex.clause_ends))
    clauses = re.split(ends, text) if ends else [text]
    for k, clause in enumerate(clauses):
        opener = re.match(rf"\s*(?:{lex.fit_openers.pattern})", clause)
        if opener and re.match(rf"\s*(?:{lex.fit_not_subjects.pattern})", clause[opener.end():]):
            opener = None  # "could you run the numbers": asked of the advisor
        if opener and lex.fit_verbs.search(clause, opener.end()):
            return k
        closer = re.search(rf"(?:{lex.fit_closers.pattern})\s*$", clause)
        if closer and lex.fit_verbs.search(clause[:closer.start()]):
            return k
    return None


def _masked(low: str, spans: SpanSet) -> str:
    """``low`` with the given spans blanked (vocabulary inside a model name, "-hf", "-awq", is not a word)."""
    chars = list(low)
    for start, end in spans.spans():
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _cost_of_time(text: str, lex: Lexicon) -> SpanSet:
    """The cost words of ``text`` followed by a length of time ("faster-whisper costs 8s", "it costs 2 hours"):
    they say how long something took, not money, so they ask no cost. A number then a duration or latency unit of
    the lexicon is a length of time."""
    spans = SpanSet()
    time_figure = _time_figure(lex.approx_words.pattern, lex.duration_units.pattern, lex.latency_units.pattern)
    for figure in time_figure.finditer(text):  # few figures: the ask words are read only just before each
        lo = max(0, figure.start() - 24)
        for m in lex.asks.finditer(text[lo:figure.start()]):
            value = lex.asks.value(m.group(0))
            if "cost" in (value if isinstance(value, list) else [value]) and not text[lo + m.end():figure.start()].strip():
                spans.add((lo + m.start(), lo + m.end()))
    return spans


@lru_cache(maxsize=4)
def _time_figure(approx: str, duration_units: str, latency_units: str) -> re.Pattern[str]:
    """A length of time: a number (an approximation word before it allowed) then a duration or latency unit."""
    return re.compile(rf"(?:(?:{approx})\s*)?(?<![\w.])\d[\d.,]*\s*(?:{duration_units}|{latency_units})(?![a-z])")


def _strong_recommend(ask_hits: list[tuple[str, object]], lex: Lexicon, gpus_named: bool) -> bool:
    """A recommendation asked in so many words, not just "best": a pick of hardware ("recommend", "what should I buy",
    "推荐": lexicon ``recommend_words.pick``), or advice ("any suggestions", "有什么建议", "方案": ``advice``) when no
    GPU is named; advice asked beside the user's GPUs ("T4的卡，有啥建议", "只有4090，有多卡推理方案吗") is how to make
    that setup work, which the sizing answer gives. ``ask_hits`` are the message's ask phrases with their values."""
    best = [text for text, value in ask_hits if "best" in (value or [])]
    return any(lex.recommend_pick.fullmatch(t) or (lex.recommend_advice.fullmatch(t) and not gpus_named) for t in best)


# --------------------------------------------------------------------------- pieces

def _language(cleaned: str, low: str, lex: Lexicon) -> str:
    """The language to answer in: ``zh`` or ``other`` by script (:func:`detect_language`); a Latin-script
    question with a marker word of another language file ("pour", "für", "para": ``language_markers``) is
    ``other``, answered in English with a note saying so."""
    language = detect_language(cleaned)
    if language == "en":
        marker = lex.language_markers.search(low)
        if marker and lex.language_markers.value(marker.group(0)) not in ("en", "zh"):
            return "other"
    return language


def _set_aside_unrated_money(scan: QuantityScan, kb: KnowledgeBase, notes: list[Note]) -> None:
    """Take out of ``scan`` every amount in a currency the knowledge base has no dated rate for (GBP, JPY, BTC...).

    Every price is in USD, so such an amount can be neither a budget nor a limit; it is never read as dollars. Its
    span stays claimed (the number is not read as anything else), and one ``currency_without_rate`` note (a limit,
    which leads the answer) names each amount as written, with the currencies that are converted
    (``knowledge/prices/common/exchange_rates.yaml``).
    """
    rated = {"usd"} | {r.currency.lower() for r in kb.exchange_rates.values()}
    unrated = [f for f in scan.all("money") if f.value["currency"] not in rated]
    if not unrated:
        return
    scan.found = [f for f in scan.found if f not in unrated]
    items = [{"money": {"amount": f.value["amount"], "currency": f.value["currency"]},
              "per_hour": f.value["period"] == "hour", "per_month": f.value["period"] == "month",
              "per_kwh": f.value["period"] == "kwh"} for f in unrated]
    notes.append(note("currency_without_rate", items=items,
                      currencies=list(dict.fromkeys(f.value["currency"].upper() for f in unrated)),
                      rated=sorted(c.upper() for c in rated - {"usd"})))


_CLAUSE_BREAK = re.compile(r"[,;:.?!，；：。？！]\s")


@lru_cache(maxsize=4)
def _pool_patterns(requirement: str, approx: str, totals: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A requirement word ending a text ("needs", "占用 ~"), and a total word ending it ("总共"): compiled once."""
    # "总共 320G": a word that is both (总共, 一共) says a total the user has
    return re.compile(rf"(?:{requirement})\W*(?:{approx})?\W*$"), re.compile(rf"(?:{totals})\W*$")


def _memory_pool(scan: QuantityScan, low: str, lex: Lexicon) -> float | None:
    """The GPU memory the user has in all when no GPU is named ("we have 1.5TB of VRAM", "我们有0.5T显存"), GB: the
    largest memory size stated that no requirement word leads ("needs 140gb", "占用 20G": what something takes, not
    what the user has); ``None`` when there is none."""
    requirement, total = _pool_patterns(lex.memory_requirement_words.pattern, lex.approx_words.pattern,
                                        lex.memory_total_words.pattern)
    had = [f.value for f in scan.all("memory_gb") if total.search(low[max(0, f.start - 24):f.start])
           or not requirement.search(low[max(0, f.start - 24):f.start])]
    return max(had) if had else None


def _quantity_fields(scan: QuantityScan, notes: list[Note], lex: Lexicon) -> dict:
    """Query fields from the quantities read (the first of each kind; money by its role)."""
    out: dict = {}
    simple = {"concurrent_users": int, "daily_active_users": int, "monthly_active_users": int, "batch_size": int, "lora_rank": int, "image_steps": int,
              "node_count": int, "context_tokens": int, "input_tokens": int, "output_tokens": int,
              "training_tokens": float, "documents": float, "tokens_per_item": float, "images": float,
              "epochs": float, "audio_hours": float, "duration_hours": float, "deadline_hours": float,
              "utilization_pct": float, "gpu_hours": float, "days_used": float}
    rename = {"steps": "image_steps"}
    # several user counts ("500 people use it, 60 online at peak"): the one said to be simultaneous sizes the load
    users = scan.all("concurrent_users")
    if len(users) > 1:
        # the cue may be part of the phrase ("同时在线 60") or stand just before it ("峰值并发 50 个用户")
        cued = [f for f in users if lex.simultaneous_words.search(scan.text[max(0, f.start - 8):f.end])]
        if cued:
            out["concurrent_users"] = int(cued[0].value)
    for f in scan.found:
        name = rename.get(f.field, f.field)
        if name in simple and name not in out:
            out[name] = simple[name](f.value)
    users_found = next((f for f in users if int(f.value) == out.get("concurrent_users")), None)
    if users_found is not None and "documents" not in out and lex.batch_job_words.search(scan.text) and re.search(
            rf"(?:{lex.quantity_units['documents'].pattern})$", scan.text[users_found.start:users_found.end]) and \
            not lex.simultaneous_words.search(scan.text[max(0, users_found.start - 8):users_found.end + 16]):
        # "summarize 300k support chats": chats or conversations to run a job over are items, not users at once
        out["documents"] = float(out.pop("concurrent_users"))
    phrase = scan.first("deadline_phrase")
    if phrase is not None and "deadline_hours" not in out:
        # "by tomorrow": a deadline with no number, in the hours the lexicon gives it, said in the answer
        out["deadline_hours"] = phrase.value["hours"]
        notes.append(note("deadline_phrase_read", written=phrase.value["written"], deadline_hours=phrase.value["hours"]))
    periods = [f.value for f in scan.all("period_hours")]
    lengths = {f.value for f in scan.all("duration_hours")}
    if len(lengths) > 1 and lengths <= _ONE_UNIT_HOURS:
        # "多少钱一小时？一个月呢？": several lengths, each one unit of time, are periods asked, not one length
        periods += sorted(lengths)
        out.pop("duration_hours", None)
    if "duration_hours" not in out and periods:
        # "按小时多少钱？包月多少？", "hourly and monthly cost": the longest period is the length priced; the hourly
        # price is in every quote, and each period named is kept (``periods_hours``)
        out["duration_hours"] = max(periods)
        out["duration_is_period"] = True
    if periods and out.get("duration_hours") and out["duration_hours"] not in periods:
        # "按天租多少钱？租 10 天呢": the price per period named and the length said, both
        periods = [*periods, out["duration_hours"]]
    if len(periods) > 1:
        out["periods_hours"] = sorted(set(periods))
    gpu_count = scan.first("gpu_count")
    if gpu_count:
        out["gpu_count"] = int(gpu_count.value)
    if res := scan.first("resolution"):
        out["resolution"] = res.value
    # rates and latency
    observations: list[Observation] = []
    for f in scan.found:  # figures the user saw (or quotes), in order: never targets
        written = scan.text[f.start:f.end].strip()
        if f.field == "rate" and f.value["kind"] in ("tokens_per_s", "prefill_tokens_per_s") and \
                f.value.get("seen") in ("observed", "quoted"):
            observations.append(Observation(kind=f.value["kind"], value=f.value["value"], as_written=written,
                                            quoted=f.value["seen"] == "quoted", measured=bool(f.value.get("measured"))))
        elif f.field == "observed_time":
            observations.append(Observation(kind="seconds_per_item", value=f.value["value"], item=f.value["item"],
                                            as_written=written))
        elif f.field == "observed_ratio":
            observations.append(Observation(kind="ratio", value=f.value["value"], direction=f.value["direction"],
                                            as_written=written))
    out["observations"] = observations
    images_targeted = False
    for f in scan.all("rate"):
        kind, value = f.value["kind"], f.value["value"]
        if kind == "tokens_per_s" and f.value.get("seen") in ("observed", "quoted"):
            continue
        if kind == "tokens_per_s" and "target_tokens_per_s" not in out:
            out["target_tokens_per_s"], out["target_scope"] = value, f.value["scope"]
        elif kind == "tokens_per_s" and {out.get("target_scope"), f.value["scope"]} == {"per_user", "total"} \
                and "per_user_tokens_per_s" not in out:
            # "300 tok/s in total, at least 20 per user": the aggregate is the target, the other the per-user floor
            if f.value["scope"] == "total":
                out["per_user_tokens_per_s"] = out["target_tokens_per_s"]
                out["target_tokens_per_s"], out["target_scope"] = value, "total"
            else:
                out["per_user_tokens_per_s"] = value
        elif kind == "requests_per_day" and "requests_per_user_per_day" not in out and (
                f.value["scope"] == "per_user" or value < (out.get("daily_active_users") or 0)):
            # each user's requests a day, said so or fewer than the daily users (a whole service's day has more)
            out["requests_per_user_per_day"] = value
        elif kind == "requests_per_day" and "requests_per_user_per_day" not in out and out.get("daily_active_users"):
            # the whole service's day beside its daily users ("5k DAU, 50k requests a day"): each user's share of it
            out["requests_per_user_per_day"] = value / out["daily_active_users"]
        elif kind.startswith("images_per") and f.value.get("seen") not in ("observed", "quoted") and (
                "images_per_minute" not in out or (f.value.get("seen") == "target" and not images_targeted)):
            # "20 images per minute", "1,000 images an hour": a live service's target rate, in images/min; of several,
            # the one said as wanted ("每秒 1 张不够，要 3 张/秒")
            out["images_per_minute"] = value * _IMAGES_PER_MINUTE[kind]
            images_targeted = f.value.get("seen") == "target"
        elif kind.startswith("requests_per") and "requests_per_s" not in out:
            out["requests_per_s"] = value / {"requests_per_s": 1, "requests_per_min": 60,
                                             "requests_per_day": 86400}[kind]
            out["requests_per_day"] = value if kind == "requests_per_day" else None
    if out.get("requests_per_user_per_day") and out.get("concurrent_users") and not out.get("daily_active_users") \
            and users_found is not None and not lex.simultaneous_words.search(
                scan.text[max(0, users_found.start - 8):users_found.end]):
        # "公司 2000 人，每人每天问 5 次", "2,000 employees, 5 questions a day each": a head count with each one's
        # requests a day is a user base over the day, not 2,000 users at once (sized by Little's law)
        out["daily_active_users"] = out.pop("concurrent_users")
        notes.append(note("head_count_daily", users=out["daily_active_users"],
                          requests_per_day=out["requests_per_user_per_day"]))
    for f in scan.all("latency"):
        field = {"ttft_ms": "ttft_ms_max", "tpot_ms": "tpot_ms_max", "latency_ms": "latency_ms_max"}[f.value["kind"]]
        out.setdefault(field, f.value["ms"])
        if f.value["percentile"]:
            out.setdefault("latency_percentile", f.value["percentile"])
    # money by role; in a buy-vs-rent question a lump sum is what the machine costs ("8x H200 server $400k") and an
    # hourly price is the rent to compare with ("or rent at $3.5 per GPU hour"), with no purchase word needed
    buy_vs_rent = any("break_even" in (g if isinstance(g, list) else [g]) for g in lex.asks.found(scan.text))
    hourly, quoted = [], []
    quoted_hourly: list[tuple[Money, bool]] = []
    for f in scan.all("money"):
        v = f.value
        money = Money(amount=v["amount"], currency=v["currency"])
        if v["role"] == "purchase" or (buy_vs_rent and v["period"] is None and v["role"] == "amount"
                                       and "purchase_price" not in out):
            if "purchase_price" in out and bool(v["per_gpu"]) != out["purchase_price_per_gpu"] and not buy_vs_rent:
                # "$300k to buy H100s at $25k each": the amount per card is the card's price, the lump sum the money
                # to spend (whichever is said first)
                lump = out["purchase_price"] if v["per_gpu"] else money
                if v["per_gpu"]:
                    out["purchase_price"], out["purchase_price_per_gpu"] = money, True
                out.setdefault("budget", lump)
                continue
            out.setdefault("purchase_price", money)
            out.setdefault("purchase_price_per_gpu", bool(v["per_gpu"]))
        elif buy_vs_rent and v["period"] == "hour" and v["role"] != "limit" and "given_price_per_hour" not in out:
            out["given_price_per_hour"], out["given_price_per_gpu"] = money, v["per_gpu"]
        elif v["role"] == "electricity":
            out.setdefault("electricity_per_kwh", money)
        elif v["role"] == "quoted":
            quoted.append(money)
            if v["period"] == "hour":
                quoted_hourly.append((money, v["per_gpu"]))
        elif v["period"] == "month":
            out.setdefault("price_limit_per_hour", Money(amount=v["amount"] / 730, currency=v["currency"]))
            out.setdefault("duration_hours", 730.0)  # a monthly amount prices a month of rental
            notes.append(note("monthly_limit_per_hour", amount=v["amount"], currency=v["currency"]))
        elif v["period"] == "hour" and v["role"] == "given":
            out.setdefault("given_price_per_hour", money)
            out.setdefault("given_price_per_gpu", v["per_gpu"])
            quoted.append(money)
        elif v["period"] == "hour":
            hourly.append((v["role"] == "limit", money, v["per_gpu"]))
        elif v["role"] == "budget" or "budget" not in out:
            if "budget" in out:
                quoted.append(money)
            else:
                out["budget"] = money
    if lex.use_quoted_words.search(scan.text) and not quoted_hourly and len(hourly) == 1 and not hourly[0][0]:
        # "H100 2.24 美元一小时起 ... 按这个价总共多少钱": the one hourly price said is the one to compute with, per GPU
        # (a headline "from $X/h" figure is per GPU-hour), not a limit
        quoted_hourly.append((hourly[0][1], True))
        hourly = []
    limits = [h for h in hourly if h[0]]
    if limits:
        out["price_limit_per_hour"], out["price_limit_per_gpu"] = limits[0][1], limits[0][2]
    elif len(hourly) == 1 and "budget" not in out:
        out["price_limit_per_hour"], out["price_limit_per_gpu"] = hourly[0][1], hourly[0][2]
    elif hourly:
        notes.append(note("prices_quoted", amounts=[h[1].amount for h in hourly], currency=hourly[0][1].currency))
    if quoted:
        notes.append(note("prices_quoted", amounts=[q.amount for q in quoted], currency=quoted[0].currency))
    out["quoted_prices"] = [h[1] for h in hourly] + quoted
    if len(quoted_hourly) == 1 and "given_price_per_hour" not in out and lex.use_quoted_words.search(scan.text):
        # "文章说 2.24 美元一小时，按这个价……", "at that price": the figure quoted is the one to compute with
        out["given_price_per_hour"], out["given_price_per_gpu"] = quoted_hourly[0][0], True
    # memory amounts, ratios, percents, power
    out["memory_stated_gb"] = [f.value for f in scan.all("memory_gb")]
    out["bandwidth_stated_gb_s"] = [f.value for f in scan.all("bandwidth_gb_s")]
    if peak := scan.first("peak_factor"):
        out["peak_factor"] = peak.value["value"]
    ratio = scan.first("multiplier")
    if ratio:
        out["claimed_ratio"] = ratio.value["value"]
    percents = [f for f in scan.all("percent")]
    for f in percents:
        # "at 40% MFU", "MFU of 45%", "算力利用率 40%": a training MFU, not a bare percent
        near = scan.text[max(0, f.start - 24):f.start] + " " + scan.text[f.end:f.end + 16]
        if lex.mfu_words.search(near) and "mfu_pct" not in out and 0 < f.value <= 100:
            out["mfu_pct"] = f.value
            percents = [p for p in percents if p is not f]
            break
    if out.get("tokens_per_item") and out.get("concurrent_users") and not out.get("documents") and \
            not out.get("context_tokens"):
        # "120 users, 8k tokens each": the tokens each user holds are the context, not the size of a batch item
        out["context_tokens"] = int(out.pop("tokens_per_item"))
    users = out.get("concurrent_users") or out.get("daily_active_users") or out.get("monthly_active_users")
    for f in percents:
        # "2000 employees, 10% use it at the same time": the users in flight are that share of the users named
        # the share's own clause: from the last clause break before it to the next one after it
        start = max((m.end() for m in _CLAUSE_BREAK.finditer(scan.text, 0, f.start)), default=0)
        end = m.start() if (m := _CLAUSE_BREAK.search(scan.text, f.end)) else len(scan.text)
        near = scan.text[max(start, f.start - 40):f.start] + " " + scan.text[f.end:min(end, f.end + 60)]
        if users and 0 < f.value < 100 and lex.concurrent_share_words.search(near):
            out["concurrent_users"] = max(1, round(users * f.value / 100))
            out.pop("daily_active_users", None)
            out.pop("monthly_active_users", None)
            notes.append(note("concurrent_share", users=users, percent=f.value, concurrent=out["concurrent_users"]))
            percents = [p for p in percents if p is not f]
            break
    percents = _offloaded_part(scan, lex, out, percents)
    out["percents"] = [f.value for f in percents]
    power = scan.first("power_watts")
    if power:
        out["power_watts"] = power.value
    return out


def _offloaded_part(scan: QuantityScan, lex: Lexicon, out: dict, percents: list) -> list:
    """Read the part of a model the user put in system RAM into ``out`` and return the percents not used for it.

    In the clause of a lexicon ``offload_words`` phrase ("I offload half of a 70B to system RAM", "30% of the layers
    in RAM", "--cpu-offload-gb 20"): a lexicon ``offload_shares`` phrase or a percent below 100 is ``offload_share``
    (a fraction), the memory amount nearest the offload word is ``offload_gb`` (and no longer a memory the question
    states otherwise). The system memory named anywhere ("DDR5") is ``host_memory``.
    """
    if kinds := lex.host_memory_types.found(scan.text):
        out["host_memory"] = kinds[0]
    for m in lex.offload_words.finditer(scan.text):
        start = max((b.end() for b in _CLAUSE_BREAK.finditer(scan.text, 0, m.start())), default=0)
        end = b.start() if (b := _CLAUSE_BREAK.search(scan.text, m.end())) else len(scan.text)
        shares = lex.offload_shares.found(scan.text[start:end])
        pct = next((f for f in percents if start <= f.start < end and 0 < f.value < 100), None)
        amounts = [f for f in scan.all("memory_gb") if start <= f.start < end]
        if shares:
            out["offload_share"] = float(shares[0])
        elif pct is not None:
            out["offload_share"] = pct.value / 100
            percents = [p for p in percents if p is not pct]
        if amounts:
            near = min(amounts, key=lambda f: min(abs(f.start - m.end()), abs(m.start() - f.end)))
            out["offload_gb"] = near.value
            stated = list(out.get("memory_stated_gb", []))
            if near.value in stated:
                stated.remove(near.value)
            out["memory_stated_gb"] = stated
        if shares or pct is not None or amounts:
            break
    return percents


def _precisions(low: str, lex: Lexicon, spans: SpanSet, names: SpanSet | None = None
                ) -> tuple[list[str], list[str]]:
    """(weight precisions in order, KV-cache precisions in order). A precision next to a KV-cache word is the KV's,
    and so is one joined to it by a comparison ("fp16 vs fp8 kv": both are KV formats); one inside a model name
    ("llama3:70b-q8_0", "-AWQ") is the model's own, which the model mention carries."""
    kv: list[str] = []
    kv_end = 0
    hits: list[tuple[int, int, str]] = []
    kv_words = lex.kv_cache_words.pattern
    joined = rf"\s*(?:{lex.compare_connectors.pattern}|and|&|和|与|跟)\s*$"
    for m in lex.precisions.finditer(low):
        if names is not None and m.start() in names:
            continue
        value = lex.precisions.value(m.group(0))
        spans.add(m.span())
        before, after = low[max(0, m.start() - 22):m.start()], low[m.end():m.end() + 14]
        if kv and re.fullmatch(joined, low[kv_end:m.start()]) and not re.match(r"\s*(?:weights?\b|权重)", after):
            # "kv cache fp16 和 fp8": joined to a KV format (not "kv cache fp8 and bf16 weights")
            kv.append(value)
            kv_end = m.end()
            continue
        if re.search(rf"(?:{kv_words})\s*(?:in|=|:|as|to|dtype)?\s*$", before) or re.match(rf"\s*(?:{kv_words})", after):
            # the precisions just before, joined to this one, are KV formats compared
            while hits and re.fullmatch(joined, low[hits[-1][1]:m.start()]):
                kv.insert(0, hits.pop()[2])
            kv.append(value)
            kv_end = m.end()
            continue
        hits.append((m.start(), m.end(), value))
    for m in _GGUF.finditer(low):
        spans.add(m.span())
        hits.append((m.start(), m.end(), _gguf_name(m)))
    hits.sort()
    return list(dict.fromkeys(v for _, _, v in hits)), list(dict.fromkeys(kv))


def _merge_precisions(precisions: list[str]) -> list[str]:
    """A quantisation format names how the weights were quantised, so it replaces a bare bit width of the
    same size ("int4-gptq" is GPTQ, "4bit nf4" is NF4); other precisions are kept in order."""
    specific = [p for p in precisions if p in _SPECIFIC_FORMATS or _GGUF.fullmatch(p)]
    if specific:
        return [p for p in precisions if p != "int4"] if "int4" in precisions else precisions
    return precisions


def _machines_of(low: str, lex) -> tuple[int, int] | None:
    """(machines, GPUs per machine) said together apart from a GPU name ("4 台 8 卡机器", "2 machines of 8 gpus"),
    from the lexicon's machine and GPU counters; ``None`` when the text has no such pair."""
    m = re.search(rf"(?<![\d.])(\d{{1,4}})\s*((?:{lex.quantity_units['node_count'].pattern}|台))\s*(?:of\s+|x\s*|×\s*)?"
                  rf"(\d{{1,4}})\s*(?:{lex.quantity_units['gpu_count'].pattern})", low)
    if not m or int(m.group(1)) <= 0 or int(m.group(3)) <= 0:
        return None
    machines, cards = int(m.group(1)), int(m.group(3))
    if lex.per_machine_total_after.fullmatch(m.group(2).strip()) and not re.match(
            rf"\d+\s*(?:{lex.per_machine_after.pattern})", low[m.start(3):]):
        # "2机16卡": the cards are counted over all the machines (lexicon ``per_machine.total_after``)
        cards, rest = divmod(cards, machines)
        if rest:
            return None
    return (machines, cards) if 0 < cards <= 16 else None


def _system_of(low: str, lex, gpu_found) -> tuple | None:
    """A GPU named as a system of several ("DGX H100": lexicon ``per_machine.systems``): (the GPU found, GPUs per
    machine, whether the machines are asked ("how many DGX H100"), the machines counted before it ("4 DGX H100")
    or ``None``, that count's span or ``None``); ``None`` when no GPU is named so."""
    for f in gpu_found:
        if f.count:
            continue
        lo = max(0, f.span_start - 12)
        system = re.search(rf"(?:{lex.per_machine_systems.pattern})[\s-]*$", low[lo:f.span_start])
        if not system:
            continue
        per_node = int(lex.per_machine_systems.value(system.group(0).strip(" -")))
        start = lo + system.start()
        asked = bool(re.search(rf"(?:{lex.per_machine_asked.pattern})\s*$", low[max(0, start - 16):start]))
        counted = re.search(r"(?<![\d.])(\d{1,4})\s*[x×]?\s*$", low[max(0, start - 8):start])
        if counted and not asked and int(counted.group(1)) > 0:
            span = (max(0, start - 8) + counted.start(1), max(0, start - 8) + counted.end(1))
            return f, per_node, asked, int(counted.group(1)), span
        return f, per_node, asked, None, None
    return None


def _per_machine_count(low: str, lex) -> tuple[int | None, bool]:
    """(GPUs per machine when the text says the count is per machine, whether the machines are asked for).

    "每台8卡", "8 gpus per node", "8卡机器" give the per-machine count (lexicon ``per_machine``); "how many 8-gpu
    nodes" also asks for the machines. ``(None, False)`` when no count is said per machine.
    """
    for pattern in (rf"(?:{lex.per_machine_before.pattern})\s*(\d{{1,2}})(?!\d)",
                    rf"(?<![\d.])(\d{{1,2}})[\s-]*(?:x\s*)?(?:{lex.per_machine_after.pattern})"):
        m = re.search(pattern, low)
        if m and 0 < int(m.group(1)) <= 16:
            asked = re.search(rf"(?:{lex.per_machine_asked.pattern})\s*$", low[max(0, m.start() - 16):m.start()])
            return int(m.group(1)), bool(asked)
    return None, False


#: The most words a model's name is read over after a workload verb ("deepseek coder v2 lite instruct").
_OBJECT_MAX_WORDS = 5


def _counted_pictures(scan: QuantityScan, lex: Lexicon, names: SpanSet) -> None:
    """In a question about pictures (lexicon ``image_words``), a GPU count written with a counter shared with
    pictures (``image_counters``: 张) and not followed by a GPU name counts the pictures: "出一张图要几秒？一万张要
    多久" asks for 10,000 images, not 10,000 cards. The job's count is the largest such figure."""
    if not lex.image_counters or not lex.image_words.search(scan.text):
        return
    for f in scan.found:
        if f.field != "gpu_count" or not lex.image_counters.regex.search(scan.text[f.start:f.end]):
            continue
        after = f.end + len(scan.text[f.end:]) - len(scan.text[f.end:].lstrip())
        if any(a == after for a, _ in names.spans()):
            continue  # "两张 4090": cards
        f.field = "images"
    pictures = [f for f in scan.found if f.field == "images"]
    if len(pictures) > 1:  # "出一张 ... 一万张要多久": the job is the largest count, one picture the unit
        biggest = max(pictures, key=lambda f: f.value)
        scan.found[:] = [f for f in scan.found if f.field != "images" or f is biggest]


def _model_object(low: str, written, lex, names: SpanSet) -> str | None:
    """The model a question names that the knowledge base lacks: the words after a workload verb up to a
    preposition or punctuation ("serve kimi k2 on h200s" -> "kimi k2", "部署 kimi k2 要几张卡"), as written, or
    ``None`` when there is none, it is a GPU, a number or a vocabulary word (lexicon ``model_object``)."""
    for verb in lex.object_verbs.finditer(low):
        start = verb.end()
        while start < len(low) and low[start] == " ":
            start += 1
        end_m = lex.object_ends.search(low, start)
        end = end_m.start() if end_m else len(low)
        phrase = low[start:end].strip().rstrip(".")
        if not phrase or any(a < end and start < b for a, b in names.spans()):
            continue
        if (len(phrase.split()) > _OBJECT_MAX_WORDS or not any(c.isalpha() for c in phrase)
                or lex.object_skip.fullmatch(phrase) or lex.object_verbs.fullmatch(phrase)
                or not re.search(r"[a-z]", phrase) or phrase[0].isdigit()):  # model names carry Latin letters
            continue
        return written(start, start + len(phrase))
    return None


#: Relative difference of parameter counts from which a size written after a model's name is another model.
_OTHER_SIZE = 0.1


def _one_model_per_name(found: list, low: str, written, kb: KnowledgeBase) -> list:
    """The models named, with a name written without a size or version counted once (``FoundModel`` records in order).

    A name written with no digit that stands for one model ("bloom", "whisper"):

    * followed by a size that is not that model's ("bloom 7b", "bloom-7b") names the family at that size: one model
      the knowledge base lacks, sized by that count (``unknown_model_generic``), not the aliased model and a size;
    * said beside another model of its family ("Whisper ... ggml-large-v2") is that model: it is left out.

    A name of any kind carrying another size further in the same name ("GLM-4.5-Air-REAP-82B-A12B", a pruned GLM-4.5-Air
    of 82B) is a derivative of that size: one model the knowledge base lacks, sized by that count.
    """
    out = list(found)
    for a in list(out):
        if a.id is None or a.generic or a.id not in kb.models:
            continue
        digits = any(c.isdigit() for c in a.as_written)
        model = kb.models[a.id]
        sized = next((b for b in out if b is not a and b.generic and b.params_total_b and (
            (not digits and b.start >= a.end and re.fullmatch(r"[\s\-_]?", low[a.end:b.start]))
            or b.start <= a.start < a.end <= b.end)), None)
        if digits and sized is None:
            continue
        if sized is not None and abs(model.params_total_b - sized.params_total_b) > _OTHER_SIZE * sized.params_total_b:
            start, end = min(a.start, sized.start), max(a.end, sized.end)
            name = written(start, end)
            size = f"{sized.params_total_b:g}B"
            merged = replace(sized, as_written=name, start=start, end=end, unknown=name, suggestions=[model.name],
                             notes=[note("unknown_model_generic", written=name, size=size, suggestions=[model.name])])
            out[out.index(sized)] = merged
            out.remove(a)
        elif any(b is not a and b.id and b.id != a.id and b.id in kb.models and kb.models[b.id].family == model.family
                 for b in out):
            out.remove(a)
    return out


#: A word as a model name is written: letters, digits, dots, hyphens, underscores and slashes (an org/name repo).
_NAME_TOKEN = r"[a-z][a-z0-9._/-]*[a-z0-9]"


def _non_llm_names(low: str, written, lex: Lexicon, tables: ParserTables, found, names: SpanSet,
                   unknown: list[UnknownTerm], notes: list[Note]) -> None:
    """Names beside an image, speech or embedding model of the knowledge base that it lacks, said, never dropped:

    * a variant word right after the model's name ("sdxl turbo", "whisper small", "flux pro"; lexicon
      ``model_variant_words``) that no longer name of the knowledge base took: a note (``model_variant_unknown``)
      saying which model stands in for it;
    * a name listed with the model ("bge-m3 and nomic-embed-text", "gte-large vs e5-large"; lexicon
      ``model_list_joins``) that is no GPU, model or vocabulary word and is written as a name (a digit, a hyphen or
      a capital after its first letter): an unknown model term.
    """
    known = [f for f in found if f.id is not None and tables.kb.models[f.id].kind == "non_llm"]
    if not known:
        return
    vocab = (lex.object_skip, lex.precisions, lex.engines, lex.methods, lex.features)
    join = lex.model_list_joins.pattern
    taken = {u.as_written.lower() for u in unknown}
    for f in known:
        variant = re.match(rf"[\s-]+({lex.model_variant_words.pattern})(?![a-z0-9])", low[f.end:])
        if variant and not any(a < f.end + variant.end() and f.end < b for a, b in names.spans()
                               if (a, b) != (f.start, f.end)):
            said = written(f.start, f.end + variant.end())
            notes.append(note("model_variant_unknown", written=said, model_id=f.id,
                              model_name=tables.kb.models[f.id].name))
        after = re.compile(rf"\s*(?:{join})\s*(?P<name>{_NAME_TOKEN})").match(low, f.end)
        before = re.search(rf"(?P<name>{_NAME_TOKEN})\s*(?:{join})\s*$", low[:f.start])
        for m in (after, before):
            if m is None:
                continue
            start, end = m.span("name")
            word = low[start:end]
            as_written = written(start, end)
            if any(a < end and start < b for a, b in names.spans()) or not looks_like_a_name(as_written) or \
                    any(v.fullmatch(part) for v in vocab for part in (word, *word.split("-"))) or \
                    word in tables.gpu_keys or as_written.lower() in taken or len(unknown) >= MAX_UNKNOWN_TERMS:
                continue
            taken.add(as_written.lower())
            unknown.append(UnknownTerm(as_written=as_written, kind="model",
                                       suggestions=tables.index.suggest("model", as_written)[:3]))


def _closed_alternatives(closed: list[FoundClosed], kb: KnowledgeBase, notes: list[Note], offer: bool
                         ) -> list[ModelMention]:
    """A note for each closed model named (its weights are not published, so it cannot run on the user's GPUs;
    source in knowledge/models.yaml ``closed``) and, when ``offer`` (no open model was named), the open-weight
    models offered in its place, each marked ``alternative_to`` the closed name."""
    out: list[ModelMention] = []
    for c in closed:
        alternatives = [kb.models[i] for i in c.alternatives if i in kb.models] if offer else []
        # said first when it is the model asked about; beside an open model it is a warning
        notes.append(note("closed_model" if offer else "closed_model_beside", written=c.as_written,
                          vendor=c.model.vendor, alternatives=[m.name for m in alternatives]))
        out += [ModelMention(id=m.id, as_written=m.name, alternative_to=c.as_written) for m in alternatives
                if all(o.id != m.id for o in out)]
        offer = False  # one closed model's alternatives are enough
    return out


def _models(found, low: str, pasted, unknown: list[UnknownTerm], notes: list[Note], spans: SpanSet
            ) -> list[ModelMention]:
    models: list[ModelMention] = []
    for f in found:
        notes.extend(f.notes)
        sized = bool(f.unknown and f.generic and f.params_total_b)  # "pythia-2.8b": sized by its parameter count
        if f.unknown and len(unknown) < MAX_UNKNOWN_TERMS:
            unknown.append(UnknownTerm(as_written=f.unknown, kind="model", suggestions=f.suggestions[:3], sized=sized))
        models.append(ModelMention(id=f.id, as_written=f.as_written, variant_assumed=f.variant_assumed,
                                   generic=f.generic, params_total_b=f.params_total_b,
                                   params_active_b=f.params_active_b, precision=f.precision, name_unknown=sized))
    layers, hidden, kv_heads, shape_spans = shape_hints(low)
    for span in shape_spans:
        spans.add(span)
    generic = [i for i, m in enumerate(models) if m.generic]
    if generic and (layers or hidden or kv_heads):
        i = generic[0]
        models[i] = models[i].model_copy(update={"layers": layers, "hidden_size": hidden, "kv_heads": kv_heads})
    elif not models and layers and hidden:  # a pasted config.json without a parameter count
        models.append(ModelMention(as_written="(model config)", generic=True, layers=layers, hidden_size=hidden,
                                   kv_heads=kv_heads))
    if pasted is not None and pasted.entry is not None:
        e = pasted.entry
        models = [ModelMention(as_written="pasted config.json", generic=True, params_total_b=e["params_total_b"],
                               params_active_b=e.get("params_active_b"), layers=e.get("num_hidden_layers"),
                               hidden_size=e.get("hidden_size"), kv_heads=e.get("num_key_value_heads"),
                               config=pasted.config)] + models
        notes.append(note("pasted_config_used", layers=e.get("num_hidden_layers"), hidden=e.get("hidden_size"),
                          kv_heads=e.get("num_key_value_heads"), params_b=round(e["params_total_b"], 2)))
    return models


def _merge_gpus(found: list[FoundGpu], low: str, lex: Lexicon, fields: dict, notes: list[Note],
                quantities: SpanSet | None = None) -> list[GpuMention]:
    """One mention per GPU id (first count wins), but one per setup when one GPU is compared with itself at another
    count ("2 x 4090 slower than just 4090", "8x A100 vs 4x A100": :func:`_compared_between`); a count stated
    apart ("6 gpus") goes to the only GPU
    named without a count, or stays ``Query.gpu_count`` when no GPU type is named. ``quantities`` are spans
    other quantities read ("8 块钱" is money, not 8 cards)."""
    by_id: dict[str | tuple[str, int], GpuMention] = {}
    last: dict[str, FoundGpu] = {}  # the previous mention of each GPU, for the text between two mentions
    found = _one_variant_per_product(found, low, lex)
    # "四卡3090 ... 3090单卡显存的限制", "4 3090s, but a single 3090's memory": beside a larger count of the GPU, one
    # card's memory is the unit of a figure, not a setup of one card
    found = [replace(f, count=None) if f.count == 1 and _memory_word_after(low, f.span_end, lex) and any(
        g.id == f.id and (g.count or 0) > 1 for g in found) else f for f in found]
    counts_of: dict[str, set[int]] = {}  # the counts stated of each GPU
    for f in found:
        if f.id is not None and f.count:
            counts_of.setdefault(f.id, set()).add(f.count)

    def new(f: FoundGpu, count: int | None) -> GpuMention:
        return GpuMention(id=f.id, as_written=f.as_written, count=count, memory_gb=f.memory_gb,
                          capacity_only=f.capacity_only, variant_assumed=f.variant_assumed,
                          instance_type=f.instance_type, provider=f.provider, count_over_limit=f.count_over_limit)

    for f in found:
        if f.id is None:
            continue
        notes.extend(f.notes)
        mention = by_id.get(f.id)
        previous, last[f.id] = last.get(f.id), f
        if mention is None:
            by_id[f.id] = new(f, f.count)
            continue
        compared = previous is not None and _compared_between(low[previous.span_end:f.span_start], lex)
        # two counts stated of one GPU, compared or not ("Minimum 2x4090 48G. But I have only 1 4090 48G", "4 张 4090
        # 很慢，2 张 4090 也能跑"), are the two setups weighed; more counts are arithmetic over one setup ("1 GPU by
        # default ... 2xH100 ... so 10 H100s?"), whose first count stands
        two_setups = f.count and mention.count and f.count != mention.count and len(counts_of[f.id]) == 2
        if (compared and (f.count or mention.count) and f.count != mention.count) or two_setups:
            # "4 张 4090 ... 2 张 4090", "2 x 4090 slower than just 4090": the same GPU in two setups, each kept with its
            # count (a GPU compared with a counted setup of itself and said without one is one card)
            if mention.count is None:
                by_id[f.id] = mention.model_copy(update={"count": 1})
            count = f.count or 1
            if (f.id, count) not in by_id and by_id[f.id].count != count:
                by_id[(f.id, count)] = new(f, count)
            continue
        update: dict = {}
        if mention.count is None and f.count is not None:
            update["count"] = f.count
        if mention.memory_gb is None and f.memory_gb is not None and not f.capacity_only and \
                re.search(r"[a-z]", _VARIANT_WRITTEN.sub("", f.as_written.lower())):
            update["memory_gb"] = f.memory_gb  # "MI210 ... Setup: MI210 (32GB)": the memory said the second time
        if mention.variant_assumed and not f.variant_assumed:  # named precisely elsewhere
            update.update(variant_assumed=False, as_written=f.as_written)
        if update:
            by_id[f.id] = mention.model_copy(update=update)
    mentions = list(by_id.values())
    standalone = fields.get("gpu_count")
    per_unit = bool(lex.unit_price_words.search(low))
    if standalone is None or (per_unit and standalone == 1):
        counts = scan_standalone_counts(low, SpanSet([*((f.span_start, f.span_end) for f in found),
                                                      *(quantities.spans() if quantities else [])]), lex)
        if per_unit and any(c > 1 for c in counts):
            counts = [c for c in counts if c > 1]  # "多少钱一张 ... 要 16 张": the one is the price's unit
        standalone = counts[0] if counts else standalone
    if per_unit and standalone and standalone > 1 and len(mentions) == 1 and mentions[0].count == 1:
        # "what's an H100 per hour? we need 16 of them": the count needed is the one stated apart
        mentions[0] = mentions[0].model_copy(update={"count": None})
    if standalone is not None:
        without = [i for i, m in enumerate(mentions) if m.count is None]
        if len(without) == 1 and (len(mentions) == 1 or without == [0]):
            mentions[without[0]] = mentions[without[0]].model_copy(update={"count": standalone})
            fields.pop("gpu_count", None)
        elif not mentions:
            fields["gpu_count"] = standalone
    for f in found:  # "2台 H100*8": the machines are the nodes
        if f.nodes and fields.get("node_count") is None:
            fields["node_count"] = f.nodes
    nodes = fields.get("node_count")
    if nodes and len(mentions) == 1 and mentions[0].count is None:
        mentions[0] = mentions[0].model_copy(update={"count": nodes * 8})
        notes.append(note("nodes_of_eight", nodes=nodes, count=nodes * 8))
    elif (nodes and nodes > 1 and len(mentions) == 1 and mentions[0].count and not any(f.nodes for f in found)
          and lex.per_node_words.search(low) and nodes * mentions[0].count <= MAX_GPU_COUNT):
        # "3 nodes, 8 GPUs per node", "单机16卡 * 4机": the count is per machine
        per_node = mentions[0].count
        mentions[0] = mentions[0].model_copy(update={"count": nodes * per_node})
        notes.append(note("gpus_per_node", nodes=nodes, per_node=per_node, count=nodes * per_node))
    return mentions


def _memory_word_after(low: str, end: int, lex: Lexicon) -> bool:
    """Whether a GPU mention ending at ``end`` is followed by a word for its memory (lexicon ``spec_fields``
    ``memory_gb``: "memory", "vram", "显存"), after a possessive or not ("a single 3090's memory", "3090单卡显存")."""
    m = lex.spec_fields.search(low, end + len(re.match(r"(?:'s)?\s*", low[end:]).group(0)))
    return bool(m and m.start() == end + len(re.match(r"(?:'s)?\s*", low[end:]).group(0))
                and lex.spec_fields.value(m.group(0)) == "memory_gb")


#: A variant written with a GPU's name: a memory size or a form factor ("A100-PCIE 40G", "H100 SXM", "MI210 (32GB)").
_VARIANT_WRITTEN = re.compile(r"\d\s*(?:gb|gib|g)\b|\b(?:sxm\d?|pcie|nvl)\b")


def _one_variant_per_product(found: list[FoundGpu], low: str, lex: Lexicon) -> list[FoundGpu]:
    """``found`` with a product named bare (its default variant assumed) taken as the one variant of that product the
    text names elsewhere ("A100, RTX 3090 ... NVIDIA A100-PCIE 40G": one A100, the PCIe 40 GB), unless the two are
    compared ("H100 vs H100 PCIe": :func:`_compared_between`), stated at different counts, or the text names several
    variants of the product (then which one is meant is unknown)."""
    def bare(f: FoundGpu) -> bool:  # the product's name alone: no memory or form factor written with it
        return f.variant_assumed and not _VARIANT_WRITTEN.search(f.as_written.lower())

    named: dict[str, set[str]] = {}
    for f in found:
        if f.id is not None and not bare(f) and not f.capacity_only and _VARIANT_WRITTEN.search(f.as_written.lower()) \
                and re.search(r"[a-z]", _VARIANT_WRITTEN.sub("", f.as_written.lower())):
            named.setdefault(product_key(f.id), set()).add(f.id)
    out = list(found)
    for i, f in enumerate(found):
        if f.id is None or not bare(f) or f.capacity_only or len(named.get(product_key(f.id), ())) != 1:
            continue
        (variant,) = named[product_key(f.id)]
        others = [g for g in found if g.id == variant and not bare(g)]
        apart = all(not _compared_between(low[min(f.span_end, g.span_end):max(f.span_start, g.span_start)], lex)
                    and (f.count is None or g.count is None or f.count == g.count) for g in others)
        if variant != f.id and apart:  # (the default variant was not taken after all: its note goes)
            out[i] = replace(f, id=variant, variant_assumed=all(g.variant_assumed for g in others),
                             notes=[n for n in f.notes if n.code != "assumed_variant"])
    return out


#: The most characters between two mentions of one GPU that still join them as compared setups.
_COMPARED_GAP_MAX = 48


def _compared_between(gap: str, lex: Lexicon) -> bool:
    """Whether ``gap``, the text between two mentions of one GPU, compares them ("2 x 4090 slower than just 4090", "8x
    A100 vs A100"): short, in one sentence, with a comparison connector or relation of the lexicon."""
    if len(gap) > _COMPARED_GAP_MAX or re.search(r"[.?!;。？！；]", gap):
        return False
    return bool(lex.compare_connectors.search(gap) or lex.compare_relations.search(gap))


def _gpu_from_capacity(kb: KnowledgeBase, tables: ParserTables, total_gib: float, notes: list[Note]
                       ) -> list[GpuMention]:
    candidates = gpus_for_capacity(kb, total_gib)
    if not candidates:
        return []
    names = [tables.index.display_name("gpu", c) for c in candidates[:6]]
    notes.append(note("error_capacity_gpu", total_gib=total_gib, memory_gb=kb.gpus[candidates[0]].memory_gb,
                      gpu_names=names, gpu_name=names[0]))
    return [GpuMention(id=candidates[0], as_written=f"{total_gib:g} GiB total capacity", variant_assumed=True,
                       capacity_only=True, count=1)]  # the one GPU the traceback names


def _providers(low: str, tables: ParserTables, lex: Lexicon, gpus: list[FoundGpu], spans: SpanSet) -> list[str]:
    """Providers named, in order; a common-word alias ("vast", "lambda") needs a cue word next to it (a lexicon cue
    word, or a GPU name right after it, a count between: "lambda h100", "lambda 8x h100")."""
    words = [(m.group(0), m.start(), m.end()) for m in _PROVIDER_WORD.finditer(low)]
    keys = tables.provider_keys
    found: list[tuple[int, str]] = []
    pending: list[tuple[int, int, str]] = []  # common-word aliases without a cue: kept if listed with providers
    i = 0
    while i < len(words):
        hit = None
        for n in (3, 2, 1):
            if i + n > len(words):
                continue
            key = "".join(w for w, _, _ in words[i:i + n]).replace(".", "") if n > 1 else words[i][0]
            provider = keys.get(key) or keys.get(key.replace(".", ""))
            if provider is None:
                continue
            if n == 1 and words[i][0] in _AMBIGUOUS_PROVIDERS:
                before = low[max(0, words[i][1] - 12):words[i][1]]
                after = low[words[i][2]:words[i][2] + 14]
                cue_before = re.search(rf"(?:{lex.provider_cue_before.pattern})\s*$", before)
                cue_after = re.match(rf"\s*(?:{lex.provider_cue_after.pattern})", after)
                # a GPU named right after it is a cue too ("lambda h100 price": the cloud, not the word)
                gpu_after = any(f.start >= words[i][2] and re.fullmatch(r"\s*(?:\d+\s*[x×]?\s*)?",
                                                                        low[words[i][2]:f.start])
                                for f in gpus)
                if words[i][0] == "do" or not (cue_before or cue_after or gpu_after):
                    if words[i][0] != "do":
                        pending.append((words[i][1], words[i][2], provider))
                    continue
            hit = (n, provider)
            break
        if hit:
            n, provider = hit
            found.append((words[i][1], provider))
            spans.add((words[i][1], words[i + n - 1][2]))
            i += n
        else:
            i += 1
    # names in Chinese ("阿里云", "共绩算力") are matched as substrings: Chinese text has no word boundaries
    for key, provider in keys.items():
        if not key.isascii():
            at = low.find(key)
            if at >= 0 and not any(p == provider for _, p in found):
                found.append((at, provider))
                spans.add((at, at + len(key)))
    # "aws, gcp, lambda and runpod": a common word in a list of providers is one too
    for start, end, provider in pending:
        for other, _ in list(found):
            lo, hi = (end, other) if other > start else (other, start)
            between = low[lo:hi]
            if abs(other - start) < 40 and re.fullmatch(r"[a-z0-9. ]*?(?:\s*(?:,|/|&|and|or|vs\.?|versus|、|和|或)\s*)",
                                                         between[-12:] if other < start else between[:12]):
                found.append((start, provider))
                spans.add((start, end))
                break
    for f in gpus:
        if f.provider:
            found.append((f.start, f.provider))
    found.sort()
    return list(dict.fromkeys(p for _, p in found))


def _billing_terms(low: str, lex: Lexicon, scan: QuantityScan) -> list[str]:
    """Billing terms named (lexicon ``billing_terms``), and a monthly plan named as a month set against pay-as-you-go
    ("per month vs pay as you go", "按月还是按量"): a period of a month (``durations.periods``, 730 h) joined by a
    comparison or list word (``compare_connectors``, ``variant_connectors``) to an on-demand word (``pricing.on_demand``)
    is the monthly billing mode asked beside on-demand, not a length of time alone."""
    terms = list(dict.fromkeys(lex.billing_terms.found(low)))
    if "monthly" in terms:
        return terms
    months = [f for f in scan.all("period_hours") if f.value == 730]
    on_demand = [m for m in lex.pricing.finditer(low) if lex.pricing.value(m.group(0)) == "on_demand"]
    for f in months:
        for m in on_demand:
            lo, hi = (f.end, m.start()) if f.end <= m.start() else (m.end(), f.start)
            between = low[lo:hi]
            if 0 <= hi - lo <= 24 and not re.search(r"\d", between) and lex.variant_connectors.search(between):
                return [*terms, "monthly"]
    return terms


_HAN_RUN = re.compile(r"[\u4e00-\u9fff]+$")


def _unknown_providers(low: str, written, lex: Lexicon, taken: SpanSet) -> list[str]:
    """Clouds named that the knowledge base does not know, as written, in order (lexicon ``unknown_providers``).

    A Latin name of one or two words between a word that leads a provider (``before``: "on", "at", "vs") and a
    cloud's word (``suffixes``: "cloud", "AI"), written with a capital letter ("on Lightning AI", "at Acme Cloud"); a
    Chinese name of two or three characters right before a cloud's word ("恒源云", "在矩池云上"): the characters after the
    last word that leads a provider, or the last two when more follow it ("对比一下矩池云"). A name that holds one of ``not_names`` ("the cloud", "私有云")
    or that overlaps a name already read (a known provider, a GPU, a model: ``taken``) is none.

    Args:
        low: the prepared, lower-cased message.
        written: ``(start, end) -> str``, the user's text for a span.
        lex: the lexicon.
        taken: spans already read (known providers, GPU and model names).

    Returns:
        The names with their cloud word, as the user wrote them ("Lightning AI", "恒源云").
    """
    suffixes, before = lex.unknown_provider_suffixes, lex.unknown_provider_before
    if not suffixes or not before:
        return []
    not_names = lex.unknown_provider_not_names
    found: list[tuple[int, str]] = []
    latin = re.compile(rf"(?:{before.pattern})\s+(?P<name>[a-z][a-z0-9.\-]*(?:\s+[a-z][a-z0-9.\-]*)??)\s+"
                       rf"(?P<suffix>{suffixes.pattern})")
    for m in latin.finditer(low):
        start, end = m.start("name"), m.end("suffix")
        if any(p in taken for p in range(start, end)) or not re.search(r"[A-Z]", written(start, end)):
            continue
        if any(not_names.regex.fullmatch(w) for w in m.group("name").split()):
            continue
        found.append((start, written(start, end)))
    for m in suffixes.finditer(low):
        if m.group(0).isascii() or m.start() in taken:
            continue
        run = _HAN_RUN.search(low, 0, m.start())
        if run is None:
            continue
        cut = max((c.end() for c in before.finditer(run.group(0))), default=0)
        name = run.group(0)[cut:]
        if len(name) > 3:  # words before the name ("对比一下矩池云"): most clouds' names are two characters
            name = name[-2:]
        start = m.start() - len(name)
        if len(name) < 2 or any(p in taken for p in range(start, m.end())) or not_names.search(name):
            continue
        found.append((start, written(start, m.end())))
    return [w for _, w in sorted(found)]


def _said(low: str, word: str) -> re.Match[str] | None:
    """Where ``word`` is written in ``low``: a Latin word whole ("china", not "chinatown"), a Chinese one anywhere."""
    w = word.lower()
    return re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])" if w.isascii() else re.escape(w), low)


def _regional_providers(low: str, kb: KnowledgeBase, providers: list[str], region: str | None,
                        spans: SpanSet) -> tuple[list[str], str | None]:
    """The providers named, with a cloud's separately run regions for the cloud itself when the question says
    them ("AWS 北京区域", "aws in cn-north-1", "AWS 中国区": AWS China, ``PriceFile.regional_of``), and the region
    asked: a code as written, or the code of a region name of the provider so named ("北京" -> ``cn-north-1``).

    Args:
        low: the lower-cased message.
        kb: the knowledge base (``knowledge/prices/*.yaml`` ``regional_of``, ``region_words``, ``regions``).
        providers: provider ids found, in order.
        region: a region code found in the text, else ``None``.
        spans: the text read as vocabulary; the region words used are added.

    Returns:
        ``(providers, region)``.
    """
    out = list(providers)
    for pid, pf in kb.providers.items():
        if pf.regional_of is None or pf.regional_of not in out:
            continue
        named_region = next(((code, m) for code, names in pf.regions.items() for w in [code, *names]
                             if (m := _said(low, w))), None)
        word = next((m for w in pf.region_words if (m := _said(low, w))), None)
        if named_region is None and word is None:
            continue
        out = [pid if p == pf.regional_of else p for p in out]
        for m in (word, named_region[1] if named_region else None):
            if m is not None:
                spans.add(m.span())
        if named_region is not None and region is None:
            region = named_region[0]
    return list(dict.fromkeys(out)), region


def _provider_variant(kb: KnowledgeBase, tables: ParserTables, mention: GpuMention, providers: list[str],
                      notes: list[Note]) -> GpuMention:
    """A GPU named without its variant ("A100") at providers that rent none of the variant assumed but one other
    variant of the same product (AWS China rents the A100 only as the 40 GB p4d): that variant, and a note saying
    so (replacing the default's note). Any other mention is returned as it is.

    Args:
        kb: the knowledge base (offers per GPU and provider).
        tables: the parser tables (``products``: a product's variants).
        mention: the GPU as read.
        providers: the providers named.
        notes: the request's notes; the ``assumed_variant`` note of ``mention`` is replaced.
    """
    if not mention.variant_assumed or mention.memory_gb or mention.instance_type or not providers:
        return mention
    priced = [p for p in providers if p in kb.providers]
    if not priced or any(o.provider in priced for o in kb.offers_for(mention.id)):
        return mention
    rented = [g for g in tables.products.get(product_key(mention.id), [])
              if g != mention.id and any(o.provider in priced for o in kb.offers_for(g))]
    if len(rented) != 1:
        return mention
    chosen = rented[0]
    default = tables.index.display_name("gpu", mention.id)
    for i, n in enumerate(notes):
        if n.code == "assumed_variant" and n.params.get("written") == mention.as_written:
            notes[i] = note("assumed_variant_provider", gpu_name=tables.index.display_name("gpu", chosen),
                            written=mention.as_written, provider=kb.providers[priced[0]].provider_name,
                            default_name=default)
    return mention.model_copy(update={"id": chosen})


def _publish_in_cny(kb: KnowledgeBase, providers: list[str]) -> bool:
    """Every provider named has price rows, all published in CNY (``currency: CNY``: AWS China, Gongji), so its
    prices are said in yuan as published; ``False`` when none is named, or one is a cloud without price rows (its
    secondary-source figures are said in CNY with their USD equivalent, other clouds' rows in USD)."""
    files = [kb.providers.get(pid) for pid in providers]
    return bool(files) and all(pf is not None and pf.offers and all(o.currency == "CNY" for o in pf.offers)
                               for pf in files)


def _layout(low: str, lex: Lexicon, spans: SpanSet) -> dict:
    """A parallel layout the user fixed ("tp=4", "--tensor-parallel-size 2", "pp 2")."""
    out: dict = {}
    pattern = re.compile(rf"(?P<key>{lex.layout_keys.pattern})\s*[=:]?\s*(?P<n>\d{{1,2}})(?![\d.])")
    for m in pattern.finditer(low):
        field = lex.layout_keys.value(m.group("key"))
        value = int(m.group("n"))
        if field and value in (1, 2, 4, 8, 16) and field not in out:
            out[field] = value
            spans.add(m.span())
    return out


def _gpu_setups(found: list[FoundGpu]) -> int:
    """Distinct setups among the GPU mentions: each GPU with each count said, and each GPU said only without a
    count once ("4x A100 vs 8x A100": 2; "8 x 910B4 ... rather than the 910B4": 1)."""
    counted = {(f.id or f.as_written.lower(), f.count) for f in found if f.count}
    named = {f.id or f.as_written.lower() for f in found}
    return len(counted) + len(named - {name for name, _ in counted})


def _cohost_cue(low: str, found: list[FoundGpu], lex: Lexicon) -> bool:
    """Whether the models named are said to share GPUs: a lexicon ``cohost_words`` phrase in ``low``, or in ``low``
    with each GPU mention read as the word "gpu", so a phrase written with "gpu" ("on the same gpu", "同一张 gpu")
    holds whatever card is named there ("on the same A100 80GB", "放在同一张 4090 上")."""
    return bool(lex.cohost_words.search(low)) or bool(
        found and lex.cohost_words.search(_mark_gpus(low, found).replace("§g", "gpu")))


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


#: What a purchase budget asks: how many, which, or what they serve.
_PURCHASE_BUDGET_ASKS = frozenset({"gpu_count", "node_count", "best", "cheapest", "comparison", "users_served"})


#: The most characters between a GPU's name and a price per card said for it ("H100 at $28k each", "H20 按 11 万一张").
_PRICE_EACH_GAP = 16


def _prices_each(gpus: list[GpuMention], found: list, scan: QuantityScan, low: str) -> list[GpuMention]:
    """A price per card said right after a GPU's name ("L40S at $8k each or H100 at $28k each", "H20 按 11 万一张、4090
    48G 按 2.2 万一张") is that GPU's (``price_each_amount``): each card priced apart, where a single ``purchase_price``
    could hold one. Only when two or more GPUs are named (one GPU keeps ``purchase_price``) and no other GPU name lies
    between the name and the amount."""
    if len({g.id for g in gpus if g.id}) < 2:
        return gpus
    named = sorted((f for f in found if f.id), key=lambda f: f.start)
    prices: dict[str, tuple[float, str]] = {}
    for m in scan.all("money"):
        v = m.value
        if not v.get("per_gpu") or v.get("period") is not None:
            continue
        before = [f for f in named if f.span_end <= m.start]
        if not before:
            continue
        f = before[-1]
        if m.start - f.span_end <= _PRICE_EACH_GAP and f.id not in prices:
            prices[f.id] = (v["amount"], v["currency"] or "usd")
    if not prices:
        return gpus
    return [g.model_copy(update={"price_each_amount": prices[g.id][0], "price_each_currency": prices[g.id][1]})
            if g.id in prices else g for g in gpus]


def _purchase_budget(fields: dict, asks: list[str], gpus: list[GpuMention], low: str, lex: Lexicon) -> None:
    """Money to spend buying cards, with how many (or which) to buy asked: moved to ``purchase_budget`` in ``fields``.

    It is a purchase amount or a budget (not per hour or month), in a question that says buying
    (``purchase_budget_words``) and neither renting nor GPU time (``rent_verbs``, ``rented_time_words``: "how many H100
    hours can $1000 buy" is a rental), with no GPU count stated and no buy vs rent asked, and a count, a choice or the
    users served asked (or a budget word said: "we have $300k to buy GPUs"). A price per card said beside it ("at $25k
    each") stays ``purchase_price`` per GPU.
    """
    if "break_even" in asks or fields.get("gpu_count") or any(g.count for g in gpus) or fields.get("gpu_hours") or \
            fields.get("duration_hours"):
        return
    each = fields.get("purchase_price") if fields.get("purchase_price_per_gpu") else None
    money = fields.get("budget") if each is not None or fields.get("purchase_price") is None else fields["purchase_price"]
    if money is None or not lex.purchase_budget_words.search(low) or lex.rent_verbs.search(low) or \
            lex.rented_time_words.search(low):
        return
    if not (_PURCHASE_BUDGET_ASKS & set(asks) or lex.budget_words.search(low)):
        return
    fields["purchase_budget"] = money
    fields.pop("budget", None)
    if each is None:
        fields.pop("purchase_price", None)
        fields.pop("purchase_price_per_gpu", None)


def _rented_gpu(low: str, lex: Lexicon, found: list) -> str | None:
    """In a buy-vs-rent question naming two GPU types ("buy 2x 4090 or rent an A100", "买两张4090还是租A100"), the one
    named as the rental: a GPU whose stretch of text since the previous GPU (or the start) has a rent verb after any
    purchase word, when another GPU type is named as bought. ``None`` when one GPU type is named (it is both bought
    and rented) or no rental is marked."""
    known = [f for f in found if f.id]
    if len({f.id for f in known}) < 2:
        return None
    rented: list[str] = []
    prev = 0
    for f in known:
        stretch = low[prev:f.start]
        rent = [m.start() for m in lex.rent_verbs.finditer(stretch)]
        buy = [m.start() for m in lex.purchase_words.finditer(stretch)]
        if rent and (not buy or max(rent) > max(buy)):
            rented.append(f.id)
        prev = f.end
    bought = {f.id for f in known} - set(rented)
    return rented[0] if rented and bought else None
