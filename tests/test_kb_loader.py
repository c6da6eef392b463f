"""Knowledge loader: every cross-check names the file, the line and the field.

Line numbers refer to the tiny fixture in conftest.py (TINY_GPUS line 1 is ``gpus:``, line 2
the first entry's ``- id:``, line 7 its ``memory_gb``, line 10 its ``sparse_tflops``,
line 18 its ``as_of``, line 19 the second entry).
"""

from __future__ import annotations

import pytest

from bot.errors import KnowledgeError
from bot.kb.loader import load_knowledge
from tests.conftest import TINY_BENCHMARKS, TINY_GPUS, TINY_MODELS, TINY_PRICES, write_tiny_kb


def _errors(tmp_path, **files) -> list[str]:
    kdir = write_tiny_kb(tmp_path, **files)
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(kdir)
    return [str(i) for i in exc.value.issues]


def test_tiny_fixture_is_valid(tiny_kb_dir):
    kb = load_knowledge(tiny_kb_dir)
    assert set(kb.gpus) == {"h100-sxm-80gb", "a100-sxm-80gb"}
    # price per GPU-hour is derived: 40.0 USD/h for 8 GPUs = 5.0
    assert kb.offers[0].price_per_gpu_hour_usd == 5.0


def test_negative_memory_names_file_line_field(tmp_path):
    errors = _errors(tmp_path, gpus=TINY_GPUS.replace("memory_gb: 80\n", "memory_gb: -80\n", 1))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/gpus.yaml:7: memory_gb: ")
    assert "h100-sxm-80gb" in errors[0]


def test_dense_above_sparse_is_rejected(tmp_path):
    errors = _errors(tmp_path, gpus=TINY_GPUS.replace("fp8: 3958}", "fp8: 1000}"))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/gpus.yaml:10: sparse_tflops: ")
    assert "dense fp8 1979.0 exceeds" in errors[0]


def test_missing_source_is_rejected(tmp_path):
    gpus = TINY_GPUS.replace("  sources: [https://example.org/a100]\n", "")
    errors = _errors(tmp_path, gpus=gpus)
    assert errors == [
        "knowledge/gpus.yaml:19: sources: Field required (entry a100-sxm-80gb)",
    ]


def test_as_of_must_be_a_date(tmp_path):
    errors = _errors(tmp_path, gpus=TINY_GPUS.replace("as_of: 2026-11-29", "as_of: last week", 1))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/gpus.yaml:18: as_of: ")


def test_ambiguous_alias_names_both_entries(tmp_path):
    # "h100-sxm" normalises to the same key as the H100's alias "H100 SXM".
    errors = _errors(tmp_path, gpus=TINY_GPUS.replace("aliases: [A100 SXM]", "aliases: [A100 SXM, h100-sxm]"))
    assert errors == [
        "knowledge/gpus.yaml:19: aliases: alias 'h100-sxm' of gpu a100-sxm-80gb also names gpu h100-sxm-80gb"
    ]


def test_price_naming_unknown_gpu(tmp_path):
    errors = _errors(tmp_path, prices=TINY_PRICES.replace("gpu: h100-sxm-80gb", "gpu: h100-sxm-81gb"))
    assert errors == ["knowledge/prices/acme.yaml:6: gpu: unknown GPU id 'h100-sxm-81gb' (instance big-8)"]


def test_implausible_price(tmp_path):
    errors = _errors(tmp_path, prices=TINY_PRICES.replace("price_per_hour_usd: 40.0", "price_per_hour_usd: 4000.0"))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/prices/acme.yaml:4: offers.0: ")
    assert "500.00 USD is not plausible" in errors[0]


def test_benchmark_naming_unknown_model(tmp_path):
    errors = _errors(tmp_path, benchmarks=TINY_BENCHMARKS.replace("model_id: llama-2-7b", "model_id: llama-9-7b"))
    assert errors == ["knowledge/benchmarks.yaml:5: model_id: unknown model id 'llama-9-7b'"]


def test_duplicate_model_id(tmp_path):
    second = TINY_MODELS.split("\n", 1)[1].replace("aliases: [llama2 7b]", "aliases: []")
    errors = _errors(tmp_path, models=TINY_MODELS + second)
    assert errors == ["knowledge/models.yaml:14: id: duplicate model id 'llama-2-7b'"]


def test_llm_without_layers_is_rejected(tmp_path):
    errors = _errors(tmp_path, models=TINY_MODELS.replace("  num_hidden_layers: 32\n", ""))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/models.yaml:2: (entry): an LLM needs num_hidden_layers")


def test_yaml_syntax_error_names_line(tmp_path):
    errors = _errors(tmp_path, models=TINY_MODELS.replace("family: llama", "family: [llama"))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/models.yaml:")
    assert "(yaml)" in errors[0]


def test_every_error_is_reported_not_only_the_first(tmp_path):
    gpus = TINY_GPUS.replace("memory_gb: 80\n", "memory_gb: 0\n")  # both entries
    errors = _errors(tmp_path, gpus=gpus, prices=TINY_PRICES.replace("gpu: h100-sxm-80gb", "gpu: nope"))
    assert [e.split(":")[1] for e in errors] == ["7", "24", "6"]
