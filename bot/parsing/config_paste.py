"""A Hugging Face ``config.json`` pasted into a message (in a code block or bare JSON).

The config is read with the knowledge base's importer (:mod:`bot.kb.importers.hf_config`), so
a pasted config gives exactly the architecture (and KV cache) a knowledge entry built from the
same file would. Invalid JSON or a config missing required fields becomes a ``config_error``
naming what is wrong, which the advisor shows instead of guessing.

Bounds (stated in the error when hit): :data:`MAX_CONFIG_CHARS` characters, :data:`MAX_CONFIG_DEPTH`
levels of nesting (checked before parsing, so no nesting can exhaust the stack), integers of at most
:data:`MAX_CONFIG_INT_DIGITS` digits, finite numbers only (no ``NaN``, ``Infinity``, ``1e400``). Strings are
made valid Unicode (a ``"\\ud800"`` escape is replaced), so the config can be shown and sent.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from bot.kb.importers.hf_config import ConfigImportError, import_hf_config

__all__ = ["MAX_CONFIG_CHARS", "MAX_CONFIG_DEPTH", "MAX_CONFIG_INT_DIGITS", "PastedConfig", "find_pasted_config"]

#: Longest pasted config.json read, characters: published ones are a few KB (Gemma 3's, with per-layer
#: lists, under 10 KB); parsing 1,000,000 characters takes ~10 ms.
MAX_CONFIG_CHARS = 1_000_000
#: Deepest nesting of objects and arrays read: real configs nest 3-4 levels (``text_config`` ->
#: ``rope_scaling`` -> values); Python's JSON parser fails near 1,000.
MAX_CONFIG_DEPTH = 32
#: Most digits of an integer read: every size a config holds is far below 10^18 (the largest vocabulary,
#: context and widths in knowledge/models.yaml have at most 8 digits).
MAX_CONFIG_INT_DIGITS = 18

# Keys that mark a JSON object as a model config rather than any other JSON.
_CONFIG_KEYS = re.compile(r'"(?:num_hidden_layers|hidden_size|model_type|architectures|n_layer|n_embd|num_attention_heads)"')
#: Config fields kept in the Query (the rest of a config is irrelevant to sizing).
KEPT_FIELDS = (
    "architectures", "model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
    "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "sliding_window", "tie_word_embeddings",
    "torch_dtype", "num_local_experts", "num_experts_per_tok", "n_routed_experts", "n_shared_experts",
    "moe_intermediate_size", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "attention_bias", "n_layer", "n_embd", "n_head", "num_kv_heads", "multi_query", "text_config",
)


@dataclass(frozen=True)
class PastedConfig:
    """What a pasted config gave: the model entry (dict) or an error, and the JSON's span in the text."""

    entry: dict[str, Any] | None
    config: dict[str, Any] | None
    error: str | None
    start: int
    end: int


class _OutOfBounds(ValueError):
    """A JSON number the config reader does not take (NaN, infinite, too many digits); the message says which."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _OutOfBounds(f"{text[:12]}, which overflows: only finite numbers are read")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_CONFIG_INT_DIGITS:
        raise _OutOfBounds(f"an integer of {digits:,} digits: at most {MAX_CONFIG_INT_DIGITS} digits are read")
    return int(text)


def _no_constant(text: str) -> float:
    raise _OutOfBounds(f"{text}: only finite numbers are read")


def _valid_text(value: Any) -> Any:
    """``value`` with every string made valid Unicode (lone surrogates replaced); nesting is bounded."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_valid_text(k): _valid_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_text(v) for v in value]
    return value


def _first_negative(config: dict[str, Any]) -> tuple[str, float] | None:
    """(field, value) of the first negative number in ``config`` (nested values named by their top field)."""
    for key, value in config.items():
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, int | float) and not isinstance(item, bool) and item < 0:
                return key, item
    return None


def _json_span(text: str) -> tuple[int, int, int] | None:
    """(start, end, deepest nesting) of the first JSON object in ``text`` (to the end when unbalanced)."""
    start = text.find("{")
    while start != -1:
        depth = deepest = 0
        in_str = False
        escape = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch in "{[":
                depth += 1
                deepest = max(deepest, depth)
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return start, i + 1, deepest
        # unbalanced: the JSON runs to the end of the message
        return start, len(text), deepest
    return None


def find_pasted_config(text: str) -> PastedConfig | None:
    """A pasted model config in ``text``, or ``None`` when there is none.

    Returns:
        :class:`PastedConfig` with ``entry`` (a knowledge-style model entry, parameter count
        computed from the architecture) and ``config`` (the sizing-relevant fields), or with
        ``error`` ("the pasted config.json is missing num_hidden_layers") when it cannot be used.
    """
    if "{" not in text or not _CONFIG_KEYS.search(text):
        return None
    span = _json_span(text)
    if span is None:
        return None
    start, end, deepest = span
    raw = text[start:end]
    if end - start > MAX_CONFIG_CHARS:
        return PastedConfig(None, None, f"the pasted config.json is {end - start:,} characters long; at most "
                                        f"{MAX_CONFIG_CHARS:,} are read", start, end)
    if deepest > MAX_CONFIG_DEPTH:
        return PastedConfig(None, None, f"the pasted config.json nests {deepest:,} levels deep; at most "
                                        f"{MAX_CONFIG_DEPTH} are read", start, end)
    try:
        config = json.loads(raw, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant)
    except _OutOfBounds as exc:
        return PastedConfig(None, None, f"the pasted config.json holds {exc}", start, end)
    except json.JSONDecodeError as exc:
        return PastedConfig(None, None, f"the pasted config.json is not valid JSON ({exc.msg} at line {exc.lineno}, "
                                        f"column {exc.colno})", start, end)
    if not isinstance(config, dict):
        return PastedConfig(None, None, "the pasted JSON is not a config object", start, end)
    kept = _valid_text({k: v for k, v in config.items() if k in KEPT_FIELDS})
    negative = _first_negative(kept)
    if negative is not None:
        return PastedConfig(None, None, f"the pasted config.json field {negative[0]} is {negative[1]:g}: no size, "
                                        "count or flag of a model is negative", start, end)
    try:
        result = import_hf_config(kept, "pasted-config")
    except ConfigImportError as exc:
        missing = getattr(exc, "missing", None) or []
        if missing:
            return PastedConfig(None, kept, "the pasted config.json is missing " + ", ".join(missing), start, end)
        return PastedConfig(None, kept, f"the pasted config.json cannot be used: {exc}", start, end)
    except (ValueError, TypeError, ArithmeticError) as exc:  # a value of the wrong type or out of range
        return PastedConfig(None, kept, f"the pasted config.json holds a value that cannot be used "
                                        f"({type(exc).__name__})", start, end)
    return PastedConfig(result.entry, kept, None, start, end)
