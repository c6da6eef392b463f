"""Follow-ups: merge a new message into the previous question ("what about int4?", "and on A100?").

A pure function over two parsed :class:`~bot.parsing.query.Query` objects; the Slack DMs and
threads and ``gpu-advisor chat`` all use it, so a conversation behaves the same everywhere.
"""

from __future__ import annotations

import re

from bot.parsing.query import Query

__all__ = ["is_follow_up", "merge_follow_up"]

# Words that open a follow-up in English and Chinese: "what about", "and", "with", "for", 那/换成/如果.
_FOLLOW_UP_OPENERS = re.compile(
    r"^\s*(what\s+about|how\s+about|what\s+if|and\b|with\b|without\b|for\b|on\b|in\b|at\b|using\b|try\b|"
    r"instead\b|same\b|now\b|then\b|ok\b|also\b|but\b|那|换成|如果|改成|用)",
    re.IGNORECASE,
)

#: Fields a follow-up may change; unset (None) fields keep the previous value.
_SCALAR_FIELDS = (
    "precision", "kv_precision", "method", "context_tokens", "input_tokens", "output_tokens", "batch_size",
    "concurrent_users", "target_tokens_per_s", "target_scope", "requests_per_s", "training_tokens",
    "duration_hours", "budget_usd", "price_limit_per_hour_usd", "provider", "pricing", "region", "engine",
    "workload",
)

#: Intents strong enough to replace the previous one in a follow-up ("how much for 3 days?"
#: turns a sizing conversation into a quote); weaker guesses keep the conversation's intent.
_STEERING_INTENTS = {"quote", "size_training", "finetune", "diagnose", "size_inference"}


def is_follow_up(new: Query, previous: Query | None) -> bool:
    """Whether ``new`` continues ``previous`` rather than starting a new question.

    A message is a follow-up when there is a previous question and the message opens like one
    ("what about int4?", "and on A100?", "with 8k context", "for 3 days?"), or when it names
    no model and no GPU but sets something a question can vary (precision, context, users,
    duration, provider...).
    """
    if previous is None or previous.intent in ("help", "unknown"):
        return False
    if new.intent in ("help",) and not _FOLLOW_UP_OPENERS.match(new.text):
        return False
    if _FOLLOW_UP_OPENERS.match(new.text):
        return True
    sets_something = any(getattr(new, f) is not None for f in _SCALAR_FIELDS)
    return new.model is None and not new.gpus and sets_something


def merge_follow_up(previous: Query, new: Query) -> Query:
    """``previous`` with what ``new`` says changed.

    Rules: a field set in ``new`` replaces the previous value; GPUs named in ``new`` replace
    the previous GPUs; a model named in ``new`` replaces the previous model; the intent
    changes only when ``new`` asks for something else clearly (a price, training, fine-tuning,
    serving, or a comparison of two or more GPUs). ``text`` joins both messages; notes and
    unknown terms are ``new``'s plus a note saying what was carried over.

    Returns:
        A new Query (neither input is modified).
    """
    update: dict = {}
    for field in _SCALAR_FIELDS:
        value = getattr(new, field)
        if value is not None:
            update[field] = value
    if new.gpus:
        update["gpus"] = new.gpus
    if new.model is not None:
        update["model"] = new.model
    if new.diagnosis is not None:
        update["diagnosis"] = new.diagnosis
    if new.intent in _STEERING_INTENTS or (new.intent == "compare" and len(new.gpus) >= 2):
        update["intent"] = new.intent
    # Precision and KV precision travel together: "what about int4?" after "fp8 kv cache" keeps the KV choice.
    kept = []
    if previous.model is not None and new.model is None:
        kept.append(f"model {previous.model.as_written}")
    if previous.gpus and not new.gpus:
        kept.append("GPUs " + ", ".join(g.as_written for g in previous.gpus))
    note = f"Follow-up to: \"{previous.text[:120]}\"" + (f" (kept {'; '.join(kept)})" if kept else "")
    update["text"] = f"{previous.text.split(' | ')[-1]} | {new.text}"  # the last two messages, never a whole log
    update["notes"] = [note, *[n for n in new.notes if n not in previous.notes]]
    update["unknown_terms"] = new.unknown_terms
    update["language"] = new.language
    return previous.model_copy(update=update, deep=True)
