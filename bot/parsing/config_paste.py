"""A Hugging Face ``config.json`` pasted into a message (in a code block or bare JSON).

The config is read with the knowledge base's importer (:mod:`bot.kb.importers.hf_config`), so
a pasted config gives exactly the architecture (and KV cache) a knowledge entry built from the
same file would. Invalid JSON or a config missing required fields becomes a ``config_error``
naming what is wrong, which the advisor shows instead of guessing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bot.kb.importers.hf_config import ConfigImportError, import_hf_config

__all__ = ["PastedConfig", "find_pasted_config"]

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


def _json_span(text: str) -> tuple[int, int] | None:
    start = text.find("{")
    while start != -1:
        depth = 0
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
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return start, i + 1
        # unbalanced: the JSON runs to the end of the message
        return start, len(text)
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
    start, end = span
    raw = text[start:end]
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as exc:
        return PastedConfig(None, None, f"the pasted config.json is not valid JSON ({exc.msg} at line {exc.lineno}, "
                                        f"column {exc.colno})", start, end)
    if not isinstance(config, dict):
        return PastedConfig(None, None, "the pasted JSON is not a config object", start, end)
    kept = {k: v for k, v in config.items() if k in KEPT_FIELDS}
    try:
        result = import_hf_config(kept, "pasted-config")
    except ConfigImportError as exc:
        missing = getattr(exc, "missing", None) or []
        if missing:
            return PastedConfig(None, kept, "the pasted config.json is missing " + ", ".join(missing), start, end)
        return PastedConfig(None, kept, f"the pasted config.json cannot be used: {exc}", start, end)
    return PastedConfig(result.entry, kept, None, start, end)
