"""Facts a user would check in the bundled knowledge base, with their sources."""

from __future__ import annotations

import re

import pytest

from bot.kb.index import get_index
from bot.kb.loader import normalize_name


def test_coverage_counts(kb):
    # 31 GPUs of gpu_specs.yaml + 41 of gpu_specs_extra.yaml + 14 of gpu_specs_china.yaml with sourced memory
    # and bandwidth (910B2/B3/B4, 910C, 950PR, Atlas 300I Duo, K100 AI, BW200, MLU370-X8, MTT S4000, BR100,
    # BR104, modified 4090 and 4090 D 48GB); 90 LLMs + 11 non-LLM models (Whisper large-v3/v2/v3-turbo/medium, BGE large-en-v1.5 and M3, E5 large-v2, FLUX.1 dev and schnell (schnell from its model card, 2026-12-05), ...); 156 price rows of cloud_prices.yaml
    # + 115 of cloud_prices_2026-12.yaml (AWS 51, AWS China 28, GCP 31, CoreWeave 4, Gongji 1, counting the
    # all-upfront 3-year rates as rows); 99 calibration benchmarks (benchmarks.yaml: 89 + 10 added 2026-12-02);
    # the 14 claims C01-C14.
    assert len(kb.gpus) == 86
    assert len(kb.claims) == 14
    assert len(kb.models) == 110
    assert len(kb.offers) == 285  # +14: GCP g2-standard-24/96 (4 pricing rows each), a2-ultragpu-2g/4g/8g (2 each)
    assert len(kb.benchmarks) == 99


def test_h100_sxm_dense_figures(kb):
    # NVIDIA H100 datasheet via stas00/ml-engineering: 3.35 TB/s; 989 dense BF16 (1979 with sparsity).
    h100 = kb.gpus["h100-sxm-80gb"]
    assert h100.memory_bandwidth_gb_s == 3350
    assert h100.dense_tflops.bf16 == 989
    assert h100.sparse_tflops["bf16_fp16"] == 1979
    assert h100.compute_capability == "9.0"
    assert h100.supports("fp8")


def test_a100_has_no_fp8(kb):
    a100 = kb.gpus["a100-sxm-80gb"]
    assert a100.dense_tflops.fp8 is None
    assert not a100.supports("fp8")
    assert "fp8" in a100.unsupported
    assert a100.supports("bf16")


def test_feature_gates(kb):
    # No bf16 before Ampere (cc 8.0): V100 (7.0), T4 (7.5); no FP8 before Ada (8.9).
    for gid in ("v100-sxm-16gb", "t4-16gb", "p40-24gb"):
        assert not kb.gpus[gid].supports("bf16"), gid
    for gid in ("a100-sxm-80gb", "rtx-3090-24gb", "a800-sxm-80gb"):
        assert not kb.gpus[gid].supports("fp8"), gid
    for gid in ("l4-24gb", "l40s-48gb", "rtx-4090-24gb", "h100-sxm-80gb", "h200-sxm-141gb"):
        assert kb.gpus[gid].supports("fp8"), gid
    # No NVLink on 40-series GeForce; H800's NVLink is cut to 400 GB/s.
    assert kb.gpus["rtx-4090-24gb"].nvlink_gb_s is None
    assert kb.gpus["h800-sxm-80gb"].nvlink_gb_s == 400


def test_llama_2_70b_architecture(kb):
    # meta-llama/Llama-2-70b-hf config.json: 80 layers, 64 heads, 8 KV heads (GQA); 68.98B params.
    m = kb.models["llama-2-70b"]
    assert m.num_key_value_heads == 8
    assert m.num_hidden_layers == 80
    assert m.num_attention_heads == 64
    assert m.params_total_b == pytest.approx(68.98, abs=0.01)


def test_moe_models_keep_total_and_active(kb):
    mixtral = kb.models["mixtral-8x7b"]
    assert mixtral.params_total_b == pytest.approx(46.7, abs=0.05)
    assert mixtral.params_active_b == pytest.approx(12.9, abs=0.05)
    ds = kb.models["deepseek-v3"]
    assert (ds.params_total_b, ds.params_active_b) == (671.0, 37.0)
    assert ds.is_mla and ds.kv_lora_rank == 512 and ds.qk_rope_head_dim == 64


def test_paperspace_2_24_is_a_commitment_price(kb):
    # paperspace.com/pricing (2026-09-20): "HGX H100 (3-year commitment) $2.24/hour"; on-demand H100 $3.09.
    offers = [o for o in kb.offers if o.provider == "paperspace" and o.gpu == "h100-sxm-80gb"]
    commitment = [o for o in offers if o.price_per_hour_usd == 2.24]
    assert len(commitment) == 1
    assert commitment[0].pricing_model == "commitment"
    assert commitment[0].commitment_term == "3 years"
    on_demand = {o.price_per_hour_usd for o in offers if o.pricing_model == "on_demand" and o.as_of}
    assert 3.09 in on_demand


def test_undated_offers_are_kept_as_undated(kb):
    undated = [o for o in kb.offers if o.as_of is None]
    # every SkyPilot catalog snapshot row (refdata-notes.md section 3), and Gongji's RTX 5090 price, whose only
    # source (a benchmark README) carries no date (cloud_prices_2026-12.yaml)
    assert len(undated) == 114
    assert sum("skypilot" in o.source for o in undated) == 113
    assert [o.provider for o in undated if "skypilot" not in o.source] == ["gongji"]


def test_null_prices_say_why(kb):
    nulls = [o for o in kb.offers if o.price_per_hour_usd is None]
    assert {o.instance_type for o in nulls} == {"p5e.48xlarge", "1x_L40S_SECURE"}
    assert all(o.unavailable for o in nulls)


def test_every_entry_is_sourced_and_dated(kb):
    for g in kb.gpus.values():
        assert g.sources and g.as_of
    for m in kb.models.values():
        assert m.sources and m.as_of
    for o in kb.offers:
        assert o.source


def test_gpu_ids_carry_form_factor_and_memory(kb):
    for gid, gpu in kb.gpus.items():
        assert re.search(r"-\d+gb$", gid), gid
        assert str(int(gpu.memory_gb)) + "gb" in gid or gid.startswith("gb200"), gid


def test_aliases_are_unique_per_kind(kb):
    seen: dict[str, str] = {}
    for gpu in kb.gpus.values():
        for name in (gpu.id, gpu.name, *gpu.aliases, *gpu.default_for):
            key = normalize_name(name)
            assert seen.setdefault(key, gpu.id) == gpu.id, (name, seen[key], gpu.id)


def test_every_price_names_a_known_gpu_and_instance_lookup(kb):
    assert all(o.gpu in kb.gpus for o in kb.offers)
    index = get_index(kb)
    p5 = index.lookup("instance", "p5.48xlarge")
    assert (p5.id, p5.gpu_count) == ("h100-sxm-80gb", 8)
    g5 = index.lookup("instance", "g5.12xlarge")
    assert (g5.id, g5.gpu_count) == ("a10g-24gb", 4)


def test_derived_marks_are_kept(kb):
    # gpu_specs_extra.yaml marks RTX 4080's FP32-accumulate FP16 as "derived: fp16acc/2".
    assert "fp16acc/2" in kb.gpus["rtx-4080-16gb"].derived["dense_tflops.bf16"]
