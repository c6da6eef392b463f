"""Integrity checks over the whole knowledge base (in the spirit of gpuhunt's catalog tests)."""

from __future__ import annotations

import pytest

from bot.errors import KnowledgeError
from bot.kb.importers.hf_config import compute_params_from_config
from bot.kb.index import get_index
from bot.kb.loader import load_knowledge
from tests.conftest import TINY_MODELS, write_tiny_kb

TENSOR = ("tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")


def test_every_gpu_has_memory_bandwidth_and_a_tensor_figure_or_a_reason(kb):
    for gpu in kb.gpus.values():
        assert gpu.memory_gb > 0 and gpu.memory_bandwidth_gb_s > 0, gpu.id
        dense = gpu.dense_tflops.model_dump()
        has_figure = any(dense[p] for p in TENSOR)
        assert has_figure or gpu.unsupported or gpu.missing_figures, gpu.id


def test_every_alias_resolves_to_exactly_its_entry(kb):
    index = get_index(kb)
    for gpu in kb.gpus.values():
        for name in (gpu.name, *gpu.aliases, *gpu.default_for):
            assert index.lookup("gpu", name, fuzzy=False).id == gpu.id, name
    for model in kb.models.values():
        for name in (model.name, *model.aliases):
            assert index.lookup("model", name, fuzzy=False).id == model.id, name


def test_parameter_counts_agree_with_the_config(kb):
    # Either the config-derived count is within 2% of the published one, or the entry says why.
    for m in kb.models.values():
        if m.params_from_config_b:
            gap = abs(m.params_from_config_b / m.params_total_b - 1)
            assert gap <= 0.02 or m.params_config_gap, m.id
        else:
            assert m.params_basis, m.id


@pytest.mark.parametrize("model_id", ["llama-2-7b", "llama-2-70b", "mixtral-8x7b", "qwen2.5-72b", "gemma-2-9b"])
def test_config_formula_reproduces_published_counts(kb, model_id):
    m = kb.models[model_id]
    config = {**{
        k: getattr(m, k) for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                                   "head_dim", "intermediate_size", "vocab_size", "tie_word_embeddings",
                                   "num_local_experts", "num_experts_per_tok") if getattr(m, k) is not None}}
    config["model_type"] = {"mixtral-8x7b": "mixtral", "qwen2.5-72b": "qwen2", "gemma-2-9b": "gemma2"}.get(model_id,
                                                                                                          "llama")
    total, _active = compute_params_from_config(config)
    assert abs(total / 1e9 / m.params_total_b - 1) <= 0.02


def test_unexplained_parameter_gap_is_rejected(tmp_path):
    models = TINY_MODELS.replace("params_total_b: 6.738415616", "params_total_b: 7.0\n  params_from_config_b: 6.738415616")
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(write_tiny_kb(tmp_path, models=models))
    assert "record why in params_config_gap" in str(exc.value)


def test_every_price_names_a_known_gpu(kb):
    assert {o.gpu for o in kb.offers} <= set(kb.gpus)


def test_consumer_and_china_market_gpus_are_priced_where_the_sources_have_them(kb):
    priced = {o.gpu for o in kb.offers if o.price_per_hour_usd}
    assert {"rtx-4090-24gb", "rtx-3090-24gb", "rtx-5090-32gb", "rtx-a6000-48gb", "rtx-6000-ada-48gb"} <= priced
