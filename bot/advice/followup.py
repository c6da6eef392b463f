"""Follow-ups: merge a new message into the previous request ("what about int4?", "and on A100?", "那 50 个用户呢？").

A pure function over two parsed :class:`~bot.parsing.query.Query` objects; the Slack DMs and threads and
``gpu-advisor chat`` all use it, so a conversation behaves the same everywhere.

Rules: what the new turn names replaces the previous value, everything else is kept. A GPU named without a
count keeps the previous GPU's count ("8x A100 for a week" then "and H100?" prices 8x H100). A price question
with no GPU prices the configuration the previous answer recommended. The intent changes only when the new
turn clearly asks for something else (a price, training, fine-tuning, serving, a comparison of two GPUs);
a price asked with a new GPU after sizing a served model ("换成 A800 呢，要包月多少钱") re-sizes the same model
and load on that GPU and prices it.
"""

from __future__ import annotations

import re

from bot.notes import note
from bot.parsing.lexicon import Lexicon, get_lexicon
from bot.parsing.query import GpuMention, Query
from bot.parsing.text import has_han

__all__ = ["is_follow_up", "merge_follow_up"]

#: Fields a follow-up may change; unset (None or empty) fields keep the previous value.
_FIELDS = (
    "precisions", "kv_precision", "method", "context_tokens", "input_tokens", "output_tokens", "batch_size",
    "concurrent_users", "daily_active_users", "monthly_active_users", "requests_per_user_per_day",
    "peak_factor", "target_tokens_per_s", "target_scope", "requests_per_s", "ttft_ms_max", "tpot_ms_max",
    "latency_ms_max", "latency_percentile", "training_tokens", "epochs", "documents", "tokens_per_item", "images",
    "image_steps", "resolution", "audio_hours", "duration_hours", "deadline_hours", "budget", "price_limit_per_hour",
    "purchase_price", "electricity_per_kwh", "power_watts", "utilization_pct", "answer_currency", "providers",
    "pricing", "commitment_term", "region", "tensor_parallel", "pipeline_parallel", "gpu_count", "node_count",
    "sharding", "gradient_checkpointing", "lora_rank", "engine", "workload", "gpu_hours", "observations",
)
_FLAGS = ("full_precision", "full_context_prompts", "cpu_offload", "price_limit_per_gpu")
#: Intents strong enough to replace the previous one in a follow-up ("how much for 3 days?" turns a sizing
#: conversation into a quote); weaker guesses keep the conversation's intent.
_STEERING_INTENTS = {"quote", "size_training", "finetune", "diagnose", "size_inference"}


def is_follow_up(new: Query, previous: Query | None, lex: Lexicon | None = None) -> bool:
    """Whether ``new`` continues ``previous`` rather than starting a new question.

    A message is a follow-up when there is a previous question and the message opens like one (the
    lexicon's ``followup.openers``: "what about", "and", "那", "换成"), or when it names no model and no GPU
    but sets something a question can vary (precision, context, users, duration, provider...).
    """
    if previous is None or previous.intent in ("help", "unknown"):
        return False
    lex = lex or get_lexicon()
    opener = lex.followup_openers.regex.match(new.text.strip().lower())
    if new.intent == "help" and not opener:
        return False
    if opener:
        return True
    sets_something = any(getattr(new, f) not in (None, [], False) for f in _FIELDS + _FLAGS)
    bare_count = len(previous.gpus) == 1 and _bare_count(new) is not None  # "64?" after "... on 16 A100s"
    return not new.models and not new.gpus and (sets_something or bool(new.asks) or bare_count)


def merge_follow_up(previous: Query, new: Query) -> Query:
    """``previous`` with what ``new`` says changed (see the module docstring).

    Returns:
        A new Query (neither input is modified); its ``notes`` say what was carried over.
    """
    update: dict = {}
    # precisions said in this turn are the user's; carried ones stay carried (and become so on a new GPU, below)
    update["precisions_carried"] = previous.precisions_carried and not new.precisions
    for field in _FIELDS:
        value = getattr(new, field)
        if value not in (None, []):
            update[field] = value
    for flag in _FLAGS:
        if getattr(new, flag):
            update[flag] = True
    notes = []
    if new.gpus:
        gpus = list(new.gpus)
        counts = [g.count for g in previous.gpus if g.count]
        if len(counts) == 1 and all(g.count is None for g in gpus) and new.gpu_count is None:
            gpus = [g.model_copy(update={"count": counts[0]}) for g in gpus]
            notes.append(note("kept_count", count=counts[0]))
        update["gpus"] = gpus
        if previous.precisions and not new.precisions:
            notes.append(note("kept_precision", precisions=previous.precisions))
            update["precisions_carried"] = True
    elif len(previous.gpus) == 1 and (new.gpu_count or _bare_count(new)):
        # "with 64 of them?", "and 16?": a new count for the one GPU type of the conversation
        count = new.gpu_count or _bare_count(new)
        update["gpus"] = [previous.gpus[0].model_copy(update={"count": count})]
        update["gpu_count"] = None
        if not new.gpu_count:
            notes.append(note("number_read_as_count", count=count, gpu_name=previous.gpus[0].as_written))
            update["not_understood"] = []
    elif previous.previous_recommendation is not None and "cost" in new.asks and (
            not previous.gpus or all(g.count is None for g in previous.gpus)):
        # "serve llama 70b to 100 users on h100s" then "how much for a week?": the configuration recommended (4x)
        # is what is priced, not one of the GPU type named without a count
        update["gpus"] = [previous.previous_recommendation]
        notes.append(note("priced_recommendation", written=previous.previous_recommendation.as_written))
    if new.models:
        update["models"] = new.models
    if new.diagnosis is not None:
        update["diagnosis"] = new.diagnosis
    # "换成 A800 呢，要包月多少钱" after sizing a served model: the cost of serving it on the new GPU needs the serving
    # plan first (as in the router: a serving cost is answered by the sizing answer, which prices it), so the
    # model, load and sizing question are kept and the cost is added to what is asked
    # ("一个月多少钱" with no GPU named is the same: the served model's cost for that long, on the plan recommended)
    serving_cost = bool(not new.models and previous.models and previous.intent == "size_inference"
                        and (new.gpus or "cost" in new.asks)
                        and (new.intent == "quote" or ("cost" in new.asks and new.intent == "size_inference")))
    if serving_cost:
        update["intent"] = "size_inference"
        update["asks"] = list(dict.fromkeys([*previous.asks, *new.asks, "cost"]))
    elif new.intent == "size_inference" and new.workload is None and previous.intent in ("finetune", "size_training") \
            and not (new.concurrent_users or new.target_tokens_per_s or new.requests_per_s or new.context_tokens):
        pass  # "what if we use H100s" after a fine-tuning run: the run again on the new GPUs, not a serving question
    elif new.intent in _STEERING_INTENTS or (new.intent == "compare" and len(new.gpus) >= 2):
        update["intent"] = new.intent
    elif "cost" in new.asks and new.intent in ("quote", "recommend") or (not new.models and "cost" in new.asks):
        update["intent"] = "quote"
    if serving_cost:
        pass  # asks merged above
    elif new.asks:
        update["asks"] = new.asks
    elif new.concurrent_users or new.target_tokens_per_s or new.requests_per_s:
        # a load is now given ("并发改成100"): the capacity question of the last turn is answered by it
        update["asks"] = [a for a in previous.asks if a not in ("users_served", "throughput", "request_rate")]
    elif new.duration_hours and not any(getattr(new, f) not in (None, [], False) for f in _FIELDS
                                        if f != "duration_hours"):
        update["asks"] = [*previous.asks, "cost"]  # "租一个月呢": what the same setup costs for that long
    kept = []
    if previous.models and not new.models:
        kept.append(", ".join(m.as_written for m in previous.models))
    if previous.gpus and not new.gpus:
        kept.append(", ".join(g.as_written for g in previous.gpus))
    notes.insert(0, note("follow_up_of", previous=previous.text.split(" | ")[-1][:120], kept=kept))
    update["text"] = f"{previous.text.split(' | ')[-1]} | {new.text}"  # the last two messages, never a whole log
    update["notes"] = notes + [n for n in new.notes if n not in previous.notes]
    update["unknown_terms"] = new.unknown_terms
    update.setdefault("not_understood", new.not_understood)
    update["limits"] = new.limits
    if new.duration_hours:
        update["periods_hours"] = new.periods_hours  # a new length replaces the periods said before
    update["language"] = _follow_up_language(previous, new)
    update["previous_recommendation"] = None
    return previous.model_copy(update=update, deep=True)


def _follow_up_language(previous: Query, new: Query) -> str:
    """The language a follow-up is answered in: its own, except that a short turn after a Chinese one stays
    Chinese when it has a Chinese character ("int4 呢？") or no word of its own ("int4?", "H200?")."""
    if previous.language == "zh" and new.language == "en" and (
            has_han(new.text) or not _LATIN_WORD.search(new.text)):
        return "zh"
    return new.language


#: A Latin word of four letters or more (names like "h200", "int4" carry digits).
_LATIN_WORD = re.compile(r"(?<![a-z0-9])[a-z]{4,}(?![a-z0-9])", re.IGNORECASE)


def _bare_count(new: Query) -> int | None:
    """A lone whole number that nothing else claimed ("with 128?"), read as a GPU count in a follow-up."""
    if new.models or new.gpus or len(new.not_understood) != 1:
        return None
    token = new.not_understood[0].strip()
    return int(token) if token.isdigit() and 0 < int(token) <= 100_000 else None


def recommended_gpu(answer) -> GpuMention | None:
    """The recommended configuration of an answer as a GPU mention (for a later "how much for a month?")."""
    if answer.recommendation is None or not answer.options:
        return None
    o = answer.options[answer.recommendation]
    if not o.gpu or "@" in o.gpu or not o.gpu_count:
        return None
    return GpuMention(id=o.gpu, as_written=f"{o.gpu_count}x {o.gpu_name}", count=o.gpu_count)
