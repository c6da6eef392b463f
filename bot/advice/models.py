"""The models of a request as :class:`~bot.kb.schema.Model` objects: knowledge entries, pasted configs,
and models known only by their size (the single owner of the generic-shape rule).

A model given only by size ("a 13B model", "100B MoE with 10B active") takes the shape (layers, hidden,
KV heads) of the nearest published Llama/Qwen/Mistral dense model within 2.5x, so its KV cache is realistic;
weights and compute follow the stated parameter count exactly. Shape figures the user gives win; missing
ones come from P ~ 12 x layers x hidden^2 (4h^2 attention + 8h^2 MLP per layer, Kaplan et al. 2020).
"""

from __future__ import annotations

import math

from bot.advice.context import Context
from bot.estimation import generic_model
from bot.kb.importers.hf_config import ConfigImportError, import_hf_config
from bot.kb.loader import KnowledgeBase
from bot.kb.schema import Model
from bot.notes import Note, note
from bot.parsing.query import ModelMention

__all__ = ["model_label", "model_question", "nearest_published", "resolve_model", "resolve_models"]

#: Families whose shapes stand for "a typical decoder" when a user gives only a size: the mainstream
#: GQA/MHA Llama-style decoders most teams train and fine-tune (not MQA Falcon, not MoE or MLA).
_REFERENCE_FAMILIES = {"llama", "qwen", "mistral"}
#: The id of a model built from a pasted config.json (named in the reader's language by :func:`model_label`).
_PASTED_ID = "pasted-config"
#: Largest model size read as a model (a 5,000B = 5T-parameter model is beyond anything published).
MAX_PARAMS_B = 5000.0


def model_question(ctx: Context, code: str) -> tuple[Note, list[Note]]:
    """The headline and details of an answer that must ask which model: the question (message ``code``), led by
    what was understood when a family was named without a size ("部署 Qwen5 要几张卡": no data for that version,
    the family's known models), else the question alone."""
    family = next((n for n in ctx.query.notes if n.code == "family_without_size"), None)
    if family is None:
        return note(code), []
    return family, [note(code)]


def model_label(model: Model) -> str | dict[str, str]:
    """How an answer names a model: its name, or for a model known only by its size a phrase in each
    language ({"en": "a 7B model", "zh": "7B 模型"}), rendered in the user's language."""
    if model.id == _PASTED_ID:
        return {"en": "the model of the pasted config.json", "zh": "粘贴的 config.json 对应的模型"}
    if model.family != "generic":
        return model.name
    total = model.params_total_b
    if model.params_active_b:
        return {"en": f"a {total:g}B MoE model ({model.params_active_b:g}B active)",
                "zh": f"{total:g}B MoE 模型（激活 {model.params_active_b:g}B）"}
    return {"en": f"a {total:g}B model", "zh": f"{total:g}B 模型"}


def resolve_models(ctx: Context) -> list[Model]:
    """Every model of the request that can be sized, in order (unusable ones are reported as warnings); with none
    named and a kind of image, speech or embedding work named (``Query.non_llm_task``), that kind's default model
    (policy ``non_llm.default_models``), said in a warning."""
    out: list[Model] = []
    for mention in ctx.query.models:
        model = resolve_model(ctx, mention)
        if model is not None and all(m.id != model.id for m in out):
            out.append(model)
    task = ctx.query.non_llm_task
    if not out and task and (default := ctx.policy.non_llm.default_models.get(task)) in ctx.kb.models:
        # "an embedding API at 300 requests/s": the work is named, not the model: its default model is sized, said
        model = ctx.kb.models[default]
        ctx.warn("non_llm_default_model", task=task, model_name=model.name)
        ctx.cite(*model.sources[:1])
        out.append(model)
    context = ctx.query.context_tokens
    for model in out:  # a context beyond what the model was trained for is said, not silently sized
        if context and model.max_position_embeddings and context > model.max_position_embeddings:
            ctx.warn("context_over_max", context_tokens=context, max_tokens=model.max_position_embeddings,
                     model_name=model_label(model))
    return out


def resolve_model(ctx: Context, mention: ModelMention) -> Model | None:
    """The :class:`Model` a mention stands for, or ``None`` (with a warning) when it cannot be sized."""
    if mention.config is not None:
        try:
            entry = import_hf_config(mention.config, _PASTED_ID).entry
            model = Model.model_validate({**entry, "id": _PASTED_ID, "name": "the model of the pasted config.json"})
        except (ConfigImportError, ValueError):
            ctx.warn("config_unusable")
            return None
        ctx.assume("pasted_config_architecture")
        return model
    if mention.id and mention.id in ctx.kb.models:
        model = ctx.kb.models[mention.id]
        ctx.cite(*model.sources[:1])
        return model
    if mention.generic and mention.params_total_b:
        total = mention.params_total_b
        if not 0.01 <= total <= MAX_PARAMS_B:
            # the user's own words first: "0.005B" shown as "5M" alone would not say which size was meant
            ctx.warn("model_size_out_of_range", written=mention.as_written, params_b=total, min_b=0.01,
                     max_b=MAX_PARAMS_B)
            return None
        active = mention.params_active_b if mention.params_active_b and mention.params_active_b < total else None
        return generic_shape(ctx, total, active, mention.layers, mention.hidden_size, mention.kv_heads)
    return None


def nearest_published(kb: KnowledgeBase, params_b: float) -> Model | None:
    """The published Llama/Qwen/Mistral dense model closest in size (log ratio), within 2.5x, preferring
    grouped-query attention: current decoders of every size use GQA (Llama 2 70B onwards, Llama 3, Qwen2.5,
    Mistral), so an older multi-head model (Llama 1 33B: 52 KV heads) would inflate the KV cache of
    "a 32B model" several times."""
    near = []
    for m in kb.models.values():
        if (m.family not in _REFERENCE_FAMILIES or m.kind != "llm" or m.is_moe or m.architecture_gaps
                or not m.num_hidden_layers or m.sliding_window):
            continue
        gap = abs(math.log(m.params_total_b / params_b))
        if gap < math.log(2.5):
            gqa = bool(m.num_key_value_heads and m.num_attention_heads
                       and m.num_key_value_heads < m.num_attention_heads)
            near.append((not gqa, gap, m.id, m))
    return min(near)[3] if near else None


def generic_shape(ctx: Context, total_b: float, active_b: float | None, layers: int | None, hidden: int | None,
                  kv_heads: int | None) -> Model:
    """A model known by its size, shaped as the module docstring says; the assumption is recorded."""
    dense_b = active_b or total_b
    like = nearest_published(ctx.kb, dense_b)
    name = f"a {total_b:g}B model" + (f" ({active_b:g}B active)" if active_b else "")
    if layers is not None and layers <= 0 or hidden is not None and hidden <= 0:
        layers = hidden = None
    if layers is None and hidden is None:
        if like is None:
            model = generic_model(total_b, active_b, name=name, num_key_value_heads=kv_heads)
            ctx.assume("generic_shape_formula", params_b=total_b, layers=model.num_hidden_layers,
                       hidden=model.hidden_size, kv_heads=model.num_key_value_heads)
            return model
        layers, hidden = like.num_hidden_layers, like.hidden_size
        heads, head_dim = like.num_attention_heads, like.effective_head_dim
        kv = kv_heads if kv_heads and heads % kv_heads == 0 else like.num_key_value_heads
        ctx.assume("generic_shape_like", params_b=total_b, like_name=like.name, layers=layers, hidden=hidden,
                   kv_heads=kv)
        ctx.cite(*like.sources[:1])
        vocab, inter = like.vocab_size, like.intermediate_size
    else:
        if hidden is None:
            hidden = max(256, round(math.sqrt(dense_b * 1e9 / (12 * layers)) / 128) * 128)
        if layers is None:
            layers = max(1, round(dense_b * 1e9 / (12 * hidden * hidden)))
        head_dim = 128
        heads = max(1, hidden // head_dim)
        kv = kv_heads or heads
        if heads % kv:
            kv = heads
        vocab, inter = 32000, int(hidden * 2.6875)
        ctx.assume("generic_shape_given", params_b=total_b, layers=layers, hidden=hidden, heads=heads, kv_heads=kv)
    return generic_model(total_b, active_b, name=name, num_hidden_layers=layers, hidden_size=hidden,
                         num_attention_heads=heads, num_key_value_heads=kv, head_dim=head_dim, vocab_size=vocab,
                         intermediate_size=inter)
