"""Name lookup: exact aliases, typos, variants, and both sides of the fuzzy threshold."""

from __future__ import annotations

import pytest

from bot.errors import UnknownEntityError
from bot.kb.index import FUZZY_CUTOFF, get_index


@pytest.mark.parametrize(
    ("written", "gpu_id", "assumed"),
    [
        ("H100", "h100-sxm-80gb", True),
        ("H1OO", "h100-sxm-80gb", True),  # letter O typed for zero
        ("a 100", "a100-sxm-80gb", True),
        ("a100 40g", "a100-sxm-40gb", True),
        ("A100-SXM4-80GB", "a100-sxm-80gb", False),
        ("h100 pcie", "h100-pcie-80gb", False),
        ("GTX 3090", "rtx-3090-24gb", False),  # a common mistake for the RTX 3090
        ("A6000 ADA", "rtx-6000-ada-48gb", False),
        ("A6000", "rtx-a6000-48gb", True),
        ("4090D", "rtx-4090-d-24gb", False),
        ("Tesla P40", "p40-24gb", False),
        ("H20 96G", "h20-96gb", False),
        ("A800 80G", "a800-sxm-80gb", False),
    ],
)
def test_gpu_names_people_type(kb, written, gpu_id, assumed):
    match = get_index(kb).lookup("gpu", written)
    assert match is not None, written
    assert (match.id, match.variant_assumed) == (gpu_id, assumed)


def test_one_letter_typo_passes_the_threshold(kb):
    match = get_index(kb).lookup("gpu", "Telsa P40")
    assert match.id == "p40-24gb"
    assert FUZZY_CUTOFF <= match.score < 100  # 87.5: "telsap40" vs "teslap40"


@pytest.mark.parametrize("written", ["RTX 3050", "RTX 3095", "banana", "Apple M2 Ultra", "GTX 1080 Ti"])
def test_unknown_gpus_are_not_mapped_far_away(kb, written):
    assert get_index(kb).lookup("gpu", written) is None


def test_different_number_never_fuzzy_matches(kb):
    index = get_index(kb)
    assert index.lookup("model", "llama 2 13b").id == "llama-2-13b"
    assert index.lookup("model", "lama 2 13b").id == "llama-2-13b"  # typo in letters: fine
    assert index.lookup("model", "llama 2 14b") is None  # different number: never


@pytest.mark.parametrize(
    ("written", "model_id"),
    [
        ("llama-2-70b-chat-hf", "llama-2-70b"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("llama3:70b", "llama-3-70b"),
        ("deepseek-r1:671b", "deepseek-r1"),
        ("mixtral:8x7b", "mixtral-8x7b"),
        ("LLaMA 7B", "llama-1-7b"),
    ],
)
def test_model_names(kb, written, model_id):
    assert get_index(kb).lookup("model", written).id == model_id


def test_resolve_raises_with_suggestions(kb):
    with pytest.raises(UnknownEntityError) as exc:
        get_index(kb).resolve("gpu", "RTX 3050")
    assert exc.value.kind == "gpu"
    assert 1 <= len(exc.value.suggestions) <= 3
    assert "RTX 3050" in str(exc.value)


def test_index_is_built_once_per_kb(kb):
    assert get_index(kb) is get_index(kb)
