"""Build a knowledge model entry from a Hugging Face ``config.json``, counting its parameters.

Parameter counts are exact for the architectures below (weights only: no rotary ``inv_freq``
buffers, no vision tower of multimodal wrappers). They follow the module shapes of the
Hugging Face ``transformers`` implementations and reproduce the knowledge base's
``params_from_config_b`` figures, which were checked against published safetensors totals:

Llama-style decoders (llama, mistral, mixtral, qwen2/2.5, qwen3, qwen2/3-moe, gemma 1/2/3,
phi3/phi-4, cohere, deepseek-v2/v3, kimi-k2, internlm2, baichuan, chatglm (ChatGLM2/3, GLM-4),
glm4-moe (GLM-4.5), and unknown ``model_type`` as a fallback, with a warning)::

    embeddings      V*h                          (+ V*h LM head unless tie_word_embeddings)
    per layer       attention  h*(n_heads*d) + 2*h*(n_kv*d) + (n_heads*d)*h
                               + biases: q,k,v (n_heads*d + 2*n_kv*d) for qwen2 / attention_bias,
                                 o (h) for attention_bias
                               + q/k norms 2*d (qwen3, gemma3)
                    MLP        3*h*I gated (gate, up, down)  (+ 2*I + h with mlp_bias)
                    norms      2*h RMSNorm weights (4*h gemma2/3, 1*h cohere)
    final norm      h

MoE layers replace the MLP with ``E x 3*h*I_expert`` plus a router ``h*E`` (mixtral:
``num_local_experts`` with ``intermediate_size``; qwen-moe: ``num_experts`` with
``moe_intermediate_size``, plus a shared expert ``3*h*I_shared + h`` in qwen2-moe; deepseek:
``n_routed_experts`` + ``n_shared_experts`` with ``moe_intermediate_size``, dense MLP in the
first ``first_k_dense_replace`` layers, ``E`` score-correction biases when ``topk_method`` is
``noaux_tc``; kimi_k2 and glm4_moe read the same fields, glm4_moe's router always has the biases).
Active parameters count ``num_experts_per_tok`` routed experts plus everything
else (embeddings, attention, router, shared experts).

ChatGLM (``model_type`` chatglm, remote code) names its fields ``num_layers``, ``ffn_hidden_size``,
``kv_channels`` (head_dim), ``padded_vocab_size`` (embedding rows) and ``seq_length``; K/V heads are
``multi_query_group_num`` when ``multi_query_attention``; ``add_qkv_bias`` gives the q/k/v biases and
``add_bias_linear`` the output and MLP biases. GLM-4.5 (glm4_moe): q/k/v biases with ``attention_bias``
(no output bias) and per-head q/k RMSNorms with ``use_qk_norm``; its MTP layer is not counted.

DeepSeek MLA attention (``kv_lora_rank`` set)::

    q   h*q_lora + q_lora (norm) + q_lora*n_heads*(nope+rope)    (h*n_heads*(nope+rope) without q_lora_rank)
    kv  h*(kv_lora+rope) + kv_lora (norm) + kv_lora*n_heads*(nope+v)
    o   n_heads*v*h

GPT-2 / GPT-BigCode (``n_embd``, ``n_layer``, ``n_head``; non-gated, LayerNorm with bias)::

    V*h + n_positions*h + per layer [4*h (2 LayerNorms) + h*(h + 2*n_kv*d) + (h + 2*n_kv*d)
    + h*h + h + 2*h*I + I + h] + 2*h, LM head tied; I = n_inner or 4*h; n_kv = 1 if multi_query.

Falcon (``model_type`` falcon / RefinedWeb; non-gated, LayerNorm with bias)::

    V*h + per layer [h*(n_heads*d + 2*n_kv*d) + (n_heads*d)*h + 2*h*I (+ biases if bias)
    + LayerNorms: 2 (4*h) with new_decoder_architecture, else 1 (2*h) (+1 if not parallel_attn)]
    + 2*h; n_kv = num_kv_heads (new architecture), 1 (multi_query) or n_heads; I = ffn_hidden_size or 4*h.

Checked by hand (tests/test_importers.py): Llama 2 7B 6,738,415,616; Llama 2 70B
68,976,648,192; Mixtral 8x7B 46,702,792,704 (active 12,879,925,248); DeepSeek-V3 671,026,419,200;
Falcon-7B 6,921,720,704; GPT-2 XL 1,557,611,200; ChatGLM3-6B 6,243,584,000; GLM-4.5-Air
106,852,251,264 (active 13,424,129,664); Kimi K2 1,026,408,209,408 (active 32,861,477,888).

Hostile or broken input: every public function raises :class:`ConfigImportError` and nothing
else for any JSON text or JSON-like dict (any nesting, any numbers, any strings). The bounds are
explicit (:data:`MAX_CONFIG_JSON_CHARS`, :data:`MAX_CONFIG_JSON_DEPTH`,
:data:`MAX_CONFIG_INT_DIGITS`, :data:`FIELD_BOUNDS`) and every message names the field and the bound.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.errors import AdvisorError
from bot.kb.schema import Model

__all__ = [
    "ConfigImportError",
    "HfImportResult",
    "compute_params_from_config",
    "import_hf_config",
    "load_config",
    "load_config_json",
]

#: A declared parameter count further than this (fraction) from the computed one is warned about.
DECLARED_PARAMS_TOLERANCE = 0.02

_REQUIRED = ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size")
#: Canonical field -> other names used by GPT-2, Falcon, MPT-style configs, in lookup order.
_ALIASES: dict[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"),
    "vocab_size": ("padded_vocab_size", "vocab_size"),
    "head_dim": ("head_dim", "kv_channels"),
    "max_position_embeddings": ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length"),
}
_GPT2_TYPES = {"gpt2", "gpt_bigcode"}
_FALCON_TYPES = {"falcon", "refinedweb", "refinedwebmodel"}
_LLAMA_TYPES = {
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3",
    "gemma3_text", "phi3", "cohere", "deepseek_v2", "deepseek_v3", "yi", "internlm2", "olmo", "granite",
    "baichuan", "chatglm", "glm4_moe", "kimi_k2",
}
#: MoE layouts read like DeepSeek's (``n_routed_experts``, ``n_shared_experts``, ``first_k_dense_replace``):
#: Kimi K2 is the DeepSeek-V3 architecture under its own model_type (Moonshot's deployment guide: "Kimi-K2
#: reuses DeepseekV3CausalLM ... change model_type to deepseek_v3"); GLM-4.5's Glm4Moe has the same fields.
_DEEPSEEK_STYLE_MOE = {"deepseek_v2", "deepseek_v3", "kimi_k2", "glm4_moe"}
#: transformers' default for tie_word_embeddings when a config omits it, by model_type.
_TIED_BY_DEFAULT = {"gpt2", "gpt_bigcode", "falcon", "refinedweb", "refinedwebmodel", "gemma", "gemma2",
                    "gemma3", "gemma3_text", "cohere"}
_FAMILY = {
    "llama": "llama", "mistral": "mistral", "mixtral": "mistral (MoE)", "qwen2": "qwen", "qwen3": "qwen",
    "qwen2_moe": "qwen (MoE)", "qwen3_moe": "qwen (MoE)", "gemma": "gemma", "gemma2": "gemma",
    "gemma3": "gemma", "gemma3_text": "gemma", "phi3": "phi", "cohere": "cohere", "falcon": "falcon",
    "refinedweb": "falcon", "refinedwebmodel": "falcon", "gpt2": "gpt2", "gpt_bigcode": "starcoder",
    "deepseek_v2": "deepseek (MoE, MLA)", "deepseek_v3": "deepseek (MoE, MLA)", "kimi_k2": "kimi (MoE, MLA)",
    "chatglm": "glm", "glm4_moe": "glm (MoE)", "internlm2": "internlm", "baichuan": "baichuan",
}
_DTYPES = {
    "float16": "fp16", "fp16": "fp16", "half": "fp16", "bfloat16": "bf16", "bf16": "bf16",
    "float32": "fp32", "fp32": "fp32", "float": "fp32", "float8_e4m3fn": "fp8", "float8_e5m2": "fp8",
}
_QUANT_PRECISION = {"fp8": "fp8", "mxfp4": "fp4"}
_KEBAB = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")
#: What a ``model_type`` looks like in transformers (``llama``, ``qwen2_moe``, ``gemma3_text``).
_MODEL_TYPE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")

# --------------------------------------------------------------------------- bounds
#: Largest JSON text accepted, characters. Published config.json files are a few KB (DeepSeek-V3's
#: is under 2 KB; Gemma 3's, with per-layer lists, under 10 KB); 1,000,000 keeps parsing under ~10 ms.
MAX_CONFIG_JSON_CHARS = 1_000_000
#: Deepest nesting of objects and arrays accepted. Real configs nest at most 3-4 levels
#: (``text_config`` -> ``rope_scaling`` -> values); past ~1,000 Python's parser raises RecursionError.
MAX_CONFIG_JSON_DEPTH = 32
#: Most digits in one JSON integer. Every size the importer reads is bounded far below 10^18
#: (:data:`FIELD_BOUNDS`); Python refuses to parse integers of more than 4,300 digits anyway.
MAX_CONFIG_INT_DIGITS = 18
#: (smallest, largest) accepted value of each integer field read. The upper bounds are about 8x
#: (layers, widths, heads) to 100x (context length) the largest published values in
#: knowledge/models.yaml as of 2026-12: 126 layers and hidden 16,384 (Llama 3.1 405B), 232 heads
#: and intermediate 59,392 (Falcon-180B), head_dim 256 (Gemma 7B), vocabulary 262,208 (Gemma 3),
#: context 10,485,760 (Llama 4 Scout), 256 routed experts and kv_lora_rank 512 (DeepSeek-V3).
#: They keep every count finite and every per-layer loop short; the lower bounds keep divisors
#: (``moe_layer_freq``, ``decoder_sparse_step``, ``sliding_window_pattern``) non-zero.
FIELD_BOUNDS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, 1_024),
    "hidden_size": (1, 131_072),
    "num_attention_heads": (1, 2_048),
    "num_key_value_heads": (1, 2_048),
    "head_dim": (1, 4_096),
    "intermediate_size": (1, 1_048_576),
    "moe_intermediate_size": (1, 1_048_576),
    "shared_expert_intermediate_size": (0, 1_048_576),
    "vocab_size": (1, 4_194_304),
    "max_position_embeddings": (1, 1_073_741_824),
    "sliding_window": (1, 1_073_741_824),
    "sliding_window_pattern": (1, 1_024),
    "max_window_layers": (0, 1_024),
    "num_experts": (1, 4_096),
    "num_experts_per_tok": (1, 4_096),
    "n_shared_experts": (0, 64),
    "first_k_dense_replace": (0, 1_024),
    "moe_layer_freq": (1, 1_024),
    "decoder_sparse_step": (1, 1_024),
    "kv_lora_rank": (1, 65_536),
    "q_lora_rank": (1, 65_536),
    "qk_rope_head_dim": (1, 4_096),
    "qk_nope_head_dim": (1, 4_096),
    "v_head_dim": (1, 4_096),
    "num_ln_in_parallel_attn": (1, 16),
}
#: Longest per-layer list read (``layer_types``, ``mlp_only_layers``): one entry per layer at most.
MAX_LAYER_LIST = FIELD_BOUNDS["num_hidden_layers"][1]

_SHOW = reprlib.Repr()
_SHOW.maxstring = _SHOW.maxother = 40
_SHOW.maxlevel = 2
_SHOW.maxlist = _SHOW.maxdict = 4


def _show(value: Any) -> str:
    """A short, ASCII-safe rendering of a config value for an error message (never the whole value)."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = max(1, math.ceil(value.bit_length() * math.log10(2)))
        return repr(value) if digits <= 12 else f"an integer of about {digits:,} digits"
    return _SHOW.repr(value).encode("ascii", "backslashreplace").decode("ascii")


class ConfigImportError(AdvisorError):
    """A config.json that cannot be imported: invalid JSON, missing or malformed fields.

    Attributes:
        missing: canonical names of required fields the config lacks (``num_hidden_layers``,
            ``hidden_size``, ...); the message names each as "config.json is missing <field>".
        problem: any other problem (invalid JSON, a non-integer size, an unsupported
            architecture), or ``None``.
    """

    def __init__(self, missing: list[str] | None = None, problem: str | None = None):
        self.missing = list(missing or [])
        self.problem = problem
        parts = []
        for name in self.missing:
            others = [a for a in _ALIASES.get(name, ()) if a != name]
            also = f" (also looked for {', '.join(others)})" if others else ""
            parts.append(f"config.json is missing {name}{also}")
        if problem:
            parts.append(problem)
        super().__init__("; ".join(parts) or "config.json cannot be imported")


@dataclass(frozen=True)
class HfImportResult:
    """What :func:`import_hf_config` produced.

    Attributes:
        entry: a knowledge model entry (a dict that ``bot.kb.schema.Model.model_validate``
            accepts; ``None`` fields are left out): id, name, family, kind ``"llm"``, hf_repo
            (when ``model_id`` is a repo id), params_total_b, params_active_b (MoE),
            params_basis, params_from_config_b, the architecture fields, tie_word_embeddings,
            native_precision, aliases, sources, as_of, notes.
        warnings: one line per assumption or disagreement (declared size off by more than 2%,
            defaults assumed, unknown model_type, multimodal parts not counted).
        params_total: the exact computed parameter count.
        params_active: parameters active per token for MoE models, else ``None``.
    """

    entry: dict[str, Any]
    warnings: list[str]
    params_total: int
    params_active: int | None


@dataclass
class _Arch:
    style: str  # "llama" | "gpt2" | "falcon"
    model_type: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    positions: int | None
    tied: bool
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    norms_per_layer: int = 2
    qk_norm: bool = False
    # MoE
    experts: int = 0
    experts_per_tok: int | None = None
    expert_intermediate: int = 0
    shared_experts: int = 0  # deepseek: count of shared experts of expert_intermediate size
    shared_intermediate: int = 0  # qwen2-moe: one shared expert of this size, with a 1-output gate
    moe_layers: int = 0
    score_bias: bool = False
    # MLA
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    # GPT-2 / Falcon
    linear_bias: bool = True
    falcon_layernorms: int = 1


# --------------------------------------------------------------------------- public API


def load_config(config: dict | str | Path) -> tuple[dict[str, Any], str]:
    """Read a config given as a dict, JSON text or a file path.

    Args:
        config: a parsed dict; a string starting with ``{`` (JSON text); or a path (str or Path).

    Returns:
        (the config dict, a source label: ``"pasted config.json"`` or the path as given).

    Raises:
        ConfigImportError: the file cannot be read, the JSON is invalid, or it is not an object.
    """
    if isinstance(config, dict):
        return config, "pasted config.json"
    if not isinstance(config, str | Path):
        raise ConfigImportError(problem=f"config must be a dict, JSON text or a path, not {type(config).__name__}")
    label = "pasted config.json"
    if isinstance(config, Path) or not str(config).lstrip().startswith("{"):
        label = str(config)
        try:
            path = Path(config)
            if path.stat().st_size > 4 * MAX_CONFIG_JSON_CHARS:  # UTF-8: at most 4 bytes per character
                raise ConfigImportError(problem=f"{_show(label)} is larger than {MAX_CONFIG_JSON_CHARS:,} characters")
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, ValueError) as exc:  # ValueError: NUL in the path, or not UTF-8 (UnicodeError)
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise ConfigImportError(problem=f"cannot read {_show(label)}: {reason}") from exc
    else:
        text = str(config)
    return load_config_json(text), label


class _Oversized:
    """Stands for a JSON integer with too many digits until the object holding it names the field."""

    def __init__(self, digits: int):
        self.digits = digits


class _NonFinite:
    """Stands for ``NaN``, ``Infinity`` or a float that overflows (``1e400``) until its field is known."""

    def __init__(self, text: str):
        self.text = text[:12]


def _parse_int(text: str) -> int | _Oversized:
    digits = len(text.lstrip("-"))
    return _Oversized(digits) if digits > MAX_CONFIG_INT_DIGITS else int(text)


def _parse_float(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def _reject_placeholders(key: str, value: Any) -> None:
    """Raise naming ``key`` when ``value`` (or an element of a list in it) is an out-of-bound number."""
    stack: list[tuple[str, Any]] = [(key, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, _Oversized):
            raise ConfigImportError(problem=f"config.json field {where} is an integer of {item.digits:,} digits; "
                                            f"at most {MAX_CONFIG_INT_DIGITS} digits are accepted")
        if isinstance(item, _NonFinite):
            raise ConfigImportError(problem=f"config.json field {where} is {item.text}: only finite numbers "
                                            "are accepted (no NaN, Infinity or overflowing exponents)")
        if isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    for key, value in pairs:
        _reject_placeholders(_show(key).strip("'"), value)
    return dict(pairs)


def _depth_exceeds(data: Any, limit: int) -> bool:
    """Whether ``data`` nests objects/arrays deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def load_config_json(text: str) -> dict[str, Any]:
    """Parse config.json text within the importer's bounds.

    Args:
        text: the JSON text (a byte-order mark and surrounding whitespace are allowed).

    Returns:
        The config as a plain dict of JSON values: no NaN or infinite floats, no integer of more
        than :data:`MAX_CONFIG_INT_DIGITS` digits, nesting at most :data:`MAX_CONFIG_JSON_DEPTH`.

    Raises:
        ConfigImportError: not text, longer than :data:`MAX_CONFIG_JSON_CHARS` characters, not valid
            JSON (with line and column), not an object, nested too deep, or holding an out-of-bound
            number (the message names the field and the bound). Never another exception.
    """
    if not isinstance(text, str):
        raise ConfigImportError(problem=f"config.json must be text, not {type(text).__name__}")
    if len(text) > MAX_CONFIG_JSON_CHARS:
        raise ConfigImportError(problem=f"config.json is {len(text):,} characters long; at most "
                                        f"{MAX_CONFIG_JSON_CHARS:,} are accepted")
    text = text.removeprefix("\ufeff")
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_NonFinite,
                          object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise ConfigImportError(
            problem=f"config.json is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc
    except RecursionError as exc:
        raise ConfigImportError(problem=f"config.json nests deeper than {MAX_CONFIG_JSON_DEPTH} levels") from exc
    except ValueError as exc:  # the parse hooks raise ConfigImportError themselves; this is a safety net
        raise ConfigImportError(problem=f"config.json is not valid JSON ({type(exc).__name__})") from exc
    _reject_placeholders("(top level)", data)
    if not isinstance(data, dict):
        raise ConfigImportError(problem=f"config.json must be a JSON object, not {type(data).__name__}")
    if _depth_exceeds(data, MAX_CONFIG_JSON_DEPTH):
        raise ConfigImportError(problem=f"config.json nests deeper than {MAX_CONFIG_JSON_DEPTH} levels")
    return data


def compute_params_from_config(config: dict) -> tuple[int, int | None]:
    """Exact parameter count of a decoder described by a Hugging Face config dict.

    Args:
        config: the parsed config.json (multimodal wrappers with ``text_config`` are accepted;
            only the language model is counted).

    Returns:
        (total parameters, active parameters per token for MoE models or ``None`` for dense).
        Formulas: see the module docstring.

    Raises:
        ConfigImportError: a required field is missing or not a positive integer, or the
            config describes an encoder-decoder model.
    """
    arch, _ = _architecture(config)
    return _count(arch)


def import_hf_config(
    config: dict | str | Path,
    model_id: str,
    declared_params_b: float | None = None,
    *,
    as_of: date | None = None,
) -> HfImportResult:
    """Build a knowledge ``models.yaml`` entry from a config.json (pure: reads, never writes).

    Args:
        config: the config as a dict, JSON text (string starting with ``{``) or a file path.
        model_id: a Hugging Face repo id (``meta-llama/Llama-2-7b-hf``: the entry id becomes
            ``llama-2-7b-hf`` and ``hf_repo`` is set) or a knowledge id (``llama-2-7b``).
        declared_params_b: the size the publisher states, billions; a warning is given when the
            computed count differs from it by more than 2%.
        as_of: date for the entry's ``as_of``; default today.

    Returns:
        :class:`HfImportResult` whose ``entry`` validates with ``Model.model_validate``.
        ``sources`` is ``["pasted config.json"]`` or ``[<path>]``. ``num_key_value_heads``
        defaults to ``num_attention_heads`` when absent; ``head_dim`` to hidden/heads;
        ``native_precision`` comes from ``torch_dtype`` (or ``dtype``; fp8/mxfp4 checkpoints
        from ``quantization_config``).

    Raises:
        ConfigImportError: invalid JSON, missing required fields (message: "config.json is
            missing <field>" for each), unusable ``model_id``, or an entry the knowledge schema
            rejects.
    """
    if not isinstance(model_id, str):
        raise ConfigImportError(problem=f"model_id must be text, not {type(model_id).__name__}")
    if declared_params_b is not None and (
            isinstance(declared_params_b, bool) or not isinstance(declared_params_b, int | float)
            or not math.isfinite(declared_params_b) or not 0 < declared_params_b <= 1e6):
        raise ConfigImportError(problem=f"the declared size must be a number of billions above 0 and at most "
                                        f"1,000,000, not {_show(declared_params_b)}")
    data, source = load_config(config)
    arch, warnings = _architecture(data)
    total, active = _count(arch)
    cfg = _text_config(data)

    slug = re.sub(r"[^a-z0-9.]+", "-", model_id.strip().split("/")[-1].lower())
    slug = re.sub(r"[-.]{2,}", "-", slug).strip("-.")
    if not slug or not _KEBAB.match(slug):
        raise ConfigImportError(problem=f"model_id {_show(model_id)} gives no usable knowledge id")

    total_b = round(total / 1e9, 9)
    notes = [f"Parameter count computed from config.json by bot.kb.importers.hf_config "
             f"({arch.style}-style formula): {total:,}" + (f", active {active:,}" if active else "") + "."]
    if declared_params_b is not None:
        gap = abs(declared_params_b - total_b) / total_b  # relative to the computed count
        notes.append(f"Declared size: {declared_params_b}B.")
        if gap > DECLARED_PARAMS_TOLERANCE:
            warnings.append(
                f"declared {declared_params_b}B differs from the computed {total_b}B by {gap:.1%} "
                f"(more than {DECLARED_PARAMS_TOLERANCE:.0%}): check the config or the declared size"
            )

    sliding_window, sliding_layers = _sliding_window(cfg, arch)
    precision = _precision(cfg, warnings)
    entry: dict[str, Any] = {
        "id": slug,
        "name": model_id.strip().split("/")[-1],
        "family": _FAMILY.get(arch.model_type, arch.model_type or "unknown"),
        "kind": "llm",
        "hf_repo": model_id.strip() if "/" in model_id else None,
        "params_total_b": total_b,
        "params_active_b": round(active / 1e9, 9) if active is not None else None,
        "params_basis": "exact, computed from config.json by the importer",
        "params_from_config_b": total_b,
        "num_hidden_layers": arch.layers,
        "hidden_size": arch.hidden,
        "num_attention_heads": arch.heads,
        "num_key_value_heads": arch.kv_heads,
        "head_dim": arch.head_dim,
        "intermediate_size": arch.intermediate,
        "moe_intermediate_size": _int_field(cfg, "moe_intermediate_size"),
        "vocab_size": arch.vocab,
        "max_position_embeddings": arch.positions,
        "sliding_window": sliding_window,
        "sliding_window_layers": sliding_layers,
        "num_local_experts": arch.experts or None,
        "num_experts_per_tok": arch.experts_per_tok if arch.experts else None,
        "n_shared_experts": arch.shared_experts if arch.experts and arch.model_type in _DEEPSEEK_STYLE_MOE else None,
        "kv_lora_rank": arch.kv_lora_rank,
        "q_lora_rank": arch.q_lora_rank,
        "qk_rope_head_dim": arch.qk_rope_head_dim or None,
        "qk_nope_head_dim": arch.qk_nope_head_dim or None,
        "v_head_dim": arch.v_head_dim or None,
        "tie_word_embeddings": arch.tied,
        "native_precision": precision,
        "aliases": [model_id.strip()] if model_id.strip() != slug else [],
        "sources": [source],
        "as_of": as_of or date.today(),
        "notes": notes + [f"Importer: {w}." for w in warnings],
    }
    entry = {k: v for k, v in entry.items() if v is not None and v != []}
    try:
        Model.model_validate(entry)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'entry'}: "
                             f"{err['msg'].removeprefix('Value error, ')}" for err in exc.errors())
        raise ConfigImportError(problem=f"the entry built from config.json is not valid: {problems}") from exc
    return HfImportResult(entry, warnings, total, active)


# --------------------------------------------------------------------------- reading the config


def _text_config(data: dict[str, Any]) -> dict[str, Any]:
    """The language-model part: ``text_config`` of multimodal wrappers, topped up from the outer level."""
    inner = data.get("text_config")
    if not isinstance(inner, dict):
        return data
    merged = dict(inner)
    for key in ("torch_dtype", "dtype", "tie_word_embeddings", "quantization_config", "vocab_size"):
        if key not in merged and key in data:
            merged[key] = data[key]
    return merged


def _get(cfg: dict[str, Any], name: str) -> Any:
    for key in _ALIASES.get(name, (name,)):
        if cfg.get(key) is not None:
            return cfg[key]
    return None


def _int_field(cfg: dict[str, Any], name: str, *, key: str | None = None, required: bool = False,
               missing: list[str] | None = None) -> int | None:
    """The integer field ``name`` (looked up under its aliases, or exactly ``key``), within :data:`FIELD_BOUNDS`.

    Returns:
        The value, or ``None`` when absent (then appended to ``missing`` if ``required``).

    Raises:
        ConfigImportError: naming the field and its bounds, for a value that is not an integer
            (a whole float such as ``4096.0`` counts) or lies outside them.
    """
    value = cfg.get(key) if key is not None else _get(cfg, name)
    if value is None:
        if required and missing is not None:
            missing.append(name)
        return None
    low, high = FIELD_BOUNDS.get(name, (1, 1_073_741_824))
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if not whole or not low <= value <= high:
        kind = f"a positive integer of at most {high:,}" if low == 1 else f"an integer from {low:,} to {high:,}"
        raise ConfigImportError(problem=f"config.json field {key or name} must be {kind} "
                                        f"(the importer's bound), not {_show(value)}")
    return int(value)


def _layer_list(cfg: dict[str, Any], key: str) -> list[Any]:
    """A per-layer list (``layer_types``, ``mlp_only_layers``); ``[]`` when absent."""
    value = cfg.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_LAYER_LIST:
        raise ConfigImportError(problem=f"config.json field {key} must be a list of at most {MAX_LAYER_LIST:,} "
                                        f"entries (one per layer), not {_show(value)}")
    return value


def _model_type(cfg: dict[str, Any], data: dict[str, Any], warnings: list[str]) -> str:
    raw = cfg.get("model_type") or data.get("model_type") or ""
    model_type = raw.lower() if isinstance(raw, str) else ""
    if raw and not _MODEL_TYPE.match(model_type):
        warnings.append(f"model_type {_show(raw)} is not a model type name; ignored")
        return ""
    return model_type


def _architecture(data: dict[str, Any]) -> tuple[_Arch, list[str]]:
    warnings: list[str] = []
    if not isinstance(data, dict):
        raise ConfigImportError(problem="config.json must be a JSON object")
    if data.get("is_encoder_decoder"):
        raise ConfigImportError(problem="encoder-decoder models (T5, BART, Whisper) are not supported: "
                                        "the importer counts decoder-only LLMs")
    cfg = _text_config(data)
    if cfg is not data:
        warnings.append("multimodal config: counted the language model in text_config only "
                        "(vision/audio towers not included)")
    model_type = _model_type(cfg, data, warnings)
    if model_type in _GPT2_TYPES or (not model_type and "n_embd" in cfg):
        style = "gpt2"
    elif model_type in _FALCON_TYPES:
        style = "falcon"
    else:
        style = "llama"
        if model_type not in _LLAMA_TYPES:
            warnings.append(f"model_type {model_type or '(none)'!r} is not one the importer knows; "
                            "counted as a Llama-style decoder (gated MLP, RMSNorm): check the result")

    missing: list[str] = []
    layers = _int_field(cfg, "num_hidden_layers", required=True, missing=missing)
    hidden = _int_field(cfg, "hidden_size", required=True, missing=missing)
    heads = _int_field(cfg, "num_attention_heads", required=True, missing=missing)
    vocab = _int_field(cfg, "vocab_size", required=True, missing=missing)
    intermediate = _int_field(cfg, "intermediate_size", required=style == "llama", missing=missing)
    mla_rank = _int_field(cfg, "kv_lora_rank")
    mla: dict[str, int | None] = {}
    if mla_rank:
        for name in ("qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"):
            mla[name] = _int_field(cfg, name, required=True, missing=missing)
    experts = next((n for k in ("num_local_experts", "num_experts", "n_routed_experts")
                    if (n := _int_field(cfg, "num_experts", key=k)) is not None), 0)
    expert_intermediate = 0
    if experts:
        if model_type == "mixtral" or (model_type not in _LLAMA_TYPES and cfg.get("moe_intermediate_size") is None):
            expert_intermediate = intermediate or 0
        else:
            expert_intermediate = _int_field(cfg, "moe_intermediate_size", required=True, missing=missing) or 0
        if _get(cfg, "num_experts_per_tok") is None:
            missing.append("num_experts_per_tok")
    if missing:
        raise ConfigImportError(missing=missing)
    assert layers and hidden and heads and vocab

    kv_heads = _int_field(cfg, "num_key_value_heads")
    if style == "falcon":
        new_arch = bool(cfg.get("new_decoder_architecture"))
        if not new_arch:
            kv_heads = 1 if cfg.get("multi_query", True) else heads
    elif style == "gpt2" and cfg.get("multi_query"):
        kv_heads = 1
    elif model_type == "chatglm":  # ChatGLM2/3, GLM-4 (remote code): grouped K/V when multi_query_attention
        groups = _int_field(cfg, "num_key_value_heads", key="multi_query_group_num")
        if cfg.get("multi_query_attention") and groups:
            kv_heads = groups
    if kv_heads is None:
        kv_heads = heads
        if style == "llama":
            warnings.append("num_key_value_heads absent: assumed equal to num_attention_heads (multi-head attention)")

    head_dim = _int_field(cfg, "head_dim")
    if head_dim is None:
        if hidden % heads:
            warnings.append(f"hidden_size {hidden} is not a multiple of num_attention_heads {heads}; "
                            f"head_dim taken as {hidden // heads}")
        head_dim = hidden // heads

    tied = cfg.get("tie_word_embeddings")
    if tied is None:
        tied = model_type in _TIED_BY_DEFAULT or style == "gpt2"
        warnings.append(f"tie_word_embeddings absent: assumed {str(tied).lower()} "
                        f"(the transformers default for {model_type or 'this config'})")

    arch = _Arch(
        style=style, model_type=model_type, layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads,
        head_dim=head_dim, intermediate=intermediate or 4 * hidden, vocab=vocab,
        positions=_int_field(cfg, "max_position_embeddings"), tied=bool(tied),
    )
    if style == "gpt2":
        arch.head_dim = hidden // heads
        if arch.positions is None:
            raise ConfigImportError(missing=["max_position_embeddings"])
        return arch, warnings
    if style == "falcon":
        arch.linear_bias = bool(cfg.get("bias", False))
        if cfg.get("new_decoder_architecture"):
            arch.falcon_layernorms = _int_field(cfg, "num_ln_in_parallel_attn") or 2
        else:
            arch.falcon_layernorms = 1 if cfg.get("parallel_attn", True) else 2
        return arch, warnings

    # Llama-style details
    arch.qkv_bias = model_type in ("qwen2", "qwen2_moe") or bool(cfg.get("attention_bias"))
    arch.o_bias = bool(cfg.get("attention_bias")) and model_type not in ("qwen2", "qwen2_moe", "glm4_moe")
    arch.mlp_bias = bool(cfg.get("mlp_bias"))
    if model_type == "chatglm":  # query_key_value bias = add_qkv_bias; dense and MLP biases = add_bias_linear
        arch.qkv_bias = bool(cfg.get("add_qkv_bias"))
        arch.o_bias = arch.mlp_bias = bool(cfg.get("add_bias_linear"))
    arch.qk_norm = model_type in ("qwen3", "qwen3_moe", "gemma3", "gemma3_text") or (
        model_type == "glm4_moe" and bool(cfg.get("use_qk_norm")))
    arch.norms_per_layer = 4 if model_type in ("gemma2", "gemma3", "gemma3_text") else (
        1 if model_type == "cohere" else 2)
    if mla_rank:
        arch.kv_lora_rank = mla_rank
        arch.q_lora_rank = _int_field(cfg, "q_lora_rank")
        arch.qk_rope_head_dim = mla["qk_rope_head_dim"] or 0
        arch.qk_nope_head_dim = mla["qk_nope_head_dim"] or 0
        arch.v_head_dim = mla["v_head_dim"] or 0
    if experts:
        arch.experts = experts
        arch.experts_per_tok = _int_field(cfg, "num_experts_per_tok")
        arch.expert_intermediate = expert_intermediate
        if model_type in _DEEPSEEK_STYLE_MOE:
            arch.shared_experts = _int_field(cfg, "n_shared_experts") or 0
            first_dense = _int_field(cfg, "first_k_dense_replace") or 0
            freq = _int_field(cfg, "moe_layer_freq") or 1
            arch.moe_layers = sum(1 for i in range(layers) if i >= first_dense and i % freq == 0)
            # the router's e_score_correction_bias: DeepSeek with noaux_tc; Glm4Moe's router always has it
            arch.score_bias = cfg.get("topk_method") == "noaux_tc" or model_type == "glm4_moe"
        elif model_type in ("qwen2_moe", "qwen3_moe"):
            arch.shared_intermediate = _int_field(cfg, "shared_expert_intermediate_size") or 0
            step = _int_field(cfg, "decoder_sparse_step") or 1
            dense_layers = {i for i in _layer_list(cfg, "mlp_only_layers") if isinstance(i, int)}
            arch.moe_layers = sum(1 for i in range(layers) if i not in dense_layers and (i + 1) % step == 0)
        else:
            arch.moe_layers = layers
    return arch, warnings


# --------------------------------------------------------------------------- counting


def _count(a: _Arch) -> tuple[int, int | None]:
    if a.style == "gpt2":
        return _count_gpt2(a), None
    if a.style == "falcon":
        return _count_falcon(a), None
    h, d = a.hidden, a.head_dim
    embeddings = a.vocab * h * (1 if a.tied else 2)

    if a.kv_lora_rank:
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        if a.q_lora_rank:
            q = h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.heads * qk
        else:
            q = h * a.heads * qk
        kv = (h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank
              + a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim))
        attention = q + kv + a.heads * a.v_head_dim * h
    else:
        attention = h * a.heads * d + 2 * h * a.kv_heads * d + a.heads * d * h
        if a.qkv_bias:
            attention += a.heads * d + 2 * a.kv_heads * d
        if a.o_bias:
            attention += h
        if a.qk_norm:
            attention += 2 * d
    norms = a.norms_per_layer * h

    def gated(inner: int) -> int:
        return 3 * h * inner

    dense_mlp = gated(a.intermediate) + ((2 * a.intermediate + h) if a.mlp_bias else 0)
    if not a.experts:
        total = embeddings + a.layers * (attention + norms + dense_mlp) + h
        return total, None

    shared = a.shared_experts * gated(a.expert_intermediate)
    if a.shared_intermediate:
        shared += gated(a.shared_intermediate) + h  # qwen2-moe shared expert + its 1-output gate
    router = h * a.experts + (a.experts if a.score_bias else 0)
    moe_total = a.experts * gated(a.expert_intermediate) + shared + router
    moe_active = (a.experts_per_tok or a.experts) * gated(a.expert_intermediate) + shared + router
    dense_layers = a.layers - a.moe_layers
    common = embeddings + a.layers * (attention + norms) + dense_layers * dense_mlp + h
    return common + a.moe_layers * moe_total, common + a.moe_layers * moe_active


def _count_gpt2(a: _Arch) -> int:
    h, inner = a.hidden, a.intermediate
    qkv_out = h + 2 * a.kv_heads * a.head_dim
    per_layer = (2 * 2 * h                      # ln_1, ln_2 (weight + bias)
                 + h * qkv_out + qkv_out        # c_attn
                 + h * h + h                    # attn c_proj
                 + h * inner + inner            # mlp c_fc
                 + inner * h + h)               # mlp c_proj
    lm_head = 0 if a.tied else a.vocab * h
    return a.vocab * h + (a.positions or 0) * h + a.layers * per_layer + 2 * h + lm_head


def _count_falcon(a: _Arch) -> int:
    h, d, inner = a.hidden, a.head_dim, a.intermediate
    qkv_out = a.heads * d + 2 * a.kv_heads * d
    per_layer = h * qkv_out + a.heads * d * h + 2 * h * inner + a.falcon_layernorms * 2 * h
    if a.linear_bias:
        per_layer += qkv_out + h + inner + h
    lm_head = 0 if a.tied else a.vocab * h
    return a.vocab * h + a.layers * per_layer + 2 * h + lm_head


# --------------------------------------------------------------------------- other entry fields


def _sliding_window(cfg: dict[str, Any], a: _Arch) -> tuple[int | None, int | None]:
    window = cfg.get("sliding_window")
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        return None, None
    window = _int_field(cfg, "sliding_window")
    if cfg.get("use_sliding_window") is False:
        return None, None
    layer_types = _layer_list(cfg, "layer_types")
    if layer_types:
        count = sum(1 for t in layer_types if t == "sliding_attention")
        return (window, count) if count else (None, None)
    if a.model_type == "gemma2":
        return window, (a.layers + 1) // 2
    if a.model_type in ("gemma3", "gemma3_text"):
        pattern = _int_field(cfg, "sliding_window_pattern") or 6
        return window, a.layers - a.layers // pattern
    if cfg.get("use_sliding_window") and cfg.get("max_window_layers") is not None:
        count = max(0, a.layers - (_int_field(cfg, "max_window_layers") or 0))
        return (window, count) if count else (None, None)
    return window, a.layers


def _precision(cfg: dict[str, Any], warnings: list[str]) -> str | None:
    quant = cfg.get("quantization_config")
    if isinstance(quant, dict):
        raw = quant.get("quant_method")
        method = raw.lower() if isinstance(raw, str) else ""
        if method in _QUANT_PRECISION:
            return _QUANT_PRECISION[method]
        warnings.append(f"quantized checkpoint (quant_method {_show(raw) if raw else '?'}): native_precision is "
                        "the compute dtype, not the stored weight format")
    dtype = cfg.get("torch_dtype") or cfg.get("dtype")
    if dtype is None:
        return None
    name = dtype.lower().removeprefix("torch.") if isinstance(dtype, str) else ""
    if name not in _DTYPES:
        warnings.append(f"torch_dtype {_show(dtype)} not recognized; native_precision left empty")
        return None
    return _DTYPES[name]
