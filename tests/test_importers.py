"""Tests for bot.kb.importers: SkyPilot catalog CSVs and Hugging Face config.json.

Fixture rows in tests/fixtures/importers/*.csv are copied verbatim from skypilot-org/skypilot-catalog
(aws @001367d2, gcp @017e2502, lambda @11580132; see the README there), except the GCP T4 row,
which is illustrative. Expected values below are worked out by hand from those rows.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date
from pathlib import Path

import pytest

from bot.errors import AdvisorError
from bot.kb.importers import (
    CatalogImportError,
    ConfigImportError,
    compute_params_from_config,
    import_hf_config,
    import_skypilot_csv,
)
from bot.kb.loader import KnowledgeBase, load_knowledge
from bot.kb.schema import Model, PriceFile, PriceOffer

FIXTURES = Path(__file__).parent / "fixtures" / "importers"
AWS_HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge()


def _by(offers: list[dict], instance_type: str, region: str) -> dict:
    matches = [o for o in offers if o["instance_type"] == instance_type and o["region"] == region]
    assert len(matches) == 1, (instance_type, region, offers)
    return matches[0]


def _gpu_info(name: str, count: int, mib: int) -> str:
    return (f"\"{{'Gpus': [{{'Name': '{name}', 'Manufacturer': 'NVIDIA', 'Count': {count}, "
            f"'MemoryInfo': {{'SizeInMiB': {mib}}}}}], 'TotalGpuMemoryInMiB': {count * mib}}}\"")


# =========================================================================== SkyPilot


def test_aws_catalog_offers(kb):
    result = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb)
    assert result.rows_read == 11  # the a1.large CPU row is read but ignored
    # p5.48xlarge: 98.32 USD/h for the whole 8x H100 instance, one offer per region.
    p5 = _by(result.offers, "p5.48xlarge", "us-east-1")
    assert p5["gpu"] == "h100-sxm-80gb" and p5["gpu_count"] == 8
    assert p5["price_per_hour_usd"] == 98.32 and p5["pricing_model"] == "on_demand"
    assert p5["as_of"] is None and p5["source"] == str(FIXTURES / "aws_vms.csv")
    assert p5["gpu_variant_verified"] is False  # 'H100' 81920 MiB: SXM vs PCIe not stated
    assert _by(result.offers, "p5.48xlarge", "us-east-2")["price_per_hour_usd"] == 98.32
    assert _by(result.offers, "p4d.24xlarge", "us-east-1")["price_per_hour_usd"] == 32.7726
    # g6.24xlarge: AWS reports 22888 MiB usable per L4 (22.35 GiB, 7% under 24 GB) -> still the L4.
    g6 = _by(result.offers, "g6.24xlarge", "us-east-1")
    assert (g6["gpu"], g6["gpu_count"], g6["price_per_hour_usd"]) == ("l4-24gb", 4, 6.6752)
    assert g6["gpu_variant_verified"] is True  # the L4 has one variant
    for offer in result.all_offers:
        PriceOffer.model_validate(offer)
    assert [o["instance_type"] for o in result.offers] == sorted(o["instance_type"] for o in result.offers)


def test_blank_price_is_skipped_with_a_warning_naming_the_row(kb):
    result = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb)
    # Line 12 (header = line 1) is p5e.48xlarge in us-east-2 with an empty Price (Capacity Blocks only).
    assert not [o for o in result.offers if o["instance_type"] == "p5e.48xlarge"]
    [warning] = [w for w in result.warnings if "p5e.48xlarge" in w]
    assert "line 12" in warning and "us-east-2" in warning and "blank" in warning
    # Its SpotPrice (16.3895) is not blank, so the spot offer stays.
    spot = _by(result.spot_offers, "p5e.48xlarge", "us-east-2")
    assert spot["price_per_hour_usd"] == 16.3895 and spot["gpu"] == "h200-sxm-141gb"  # 144384 MiB = 141 GiB


def test_spot_offers_take_the_cheapest_zone(kb):
    result = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb)
    # p5.48xlarge us-east-1: zones use1-az1 30.3260 and use1-az2 27.6948 -> 27.6948.
    spot = _by(result.spot_offers, "p5.48xlarge", "us-east-1")
    assert spot["pricing_model"] == "spot" and spot["price_per_hour_usd"] == 27.6948
    # p4de.24xlarge use1-az4: one row with SpotPrice 7.8074, one with a blank SpotPrice.
    assert _by(result.spot_offers, "p4de.24xlarge", "us-east-1")["price_per_hour_usd"] == 7.8074
    assert all(o["pricing_model"] == "on_demand" for o in result.offers)


def test_gpu_info_memory_picks_the_a100_variant(kb):
    result = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb)
    assert _by(result.offers, "p4d.24xlarge", "us-east-1")["gpu"] == "a100-sxm-40gb"  # 40960 MiB = 40 GiB
    assert _by(result.offers, "p4de.24xlarge", "us-east-1")["gpu"] == "a100-sxm-80gb"  # 81920 MiB = 80 GiB
    # The same accelerator name 'A100' resolves by memory alone (GCP calls the 40 GB part 'A100'
    # while the knowledge base's default for a bare 'A100' is the 80 GB one).
    text = "\n".join([
        AWS_HEADER,
        f"x.small,A100,8.0,96.0,1152.0,{_gpu_info('A100', 8, 40960)},32.7726,,us-east-1,use1-az1",
        f"x.large,A100,8.0,96.0,1152.0,{_gpu_info('A100', 8, 81920)},40.96575,,us-east-1,use1-az1",
    ])
    offers = import_skypilot_csv(text, "aws", kb).offers
    assert _by(offers, "x.small", "us-east-1")["gpu"] == "a100-sxm-40gb"
    assert _by(offers, "x.large", "us-east-1")["gpu"] == "a100-sxm-80gb"


def test_gcp_sums_host_vm_and_gpu_rows(kb):
    result = import_skypilot_csv(FIXTURES / "gcp_vms.csv", "gcp", kb)
    # a3-highgpu-8g us-east4: VM row 9.46006 + H100 x8 GPU row 78.37241 = 87.83247 USD/h.
    east4 = _by(result.offers, "a3-highgpu-8g", "us-east4")
    assert east4["price_per_hour_usd"] == 87.83247
    assert (east4["vm_part_usd"], east4["gpu_part_usd"]) == (9.46006, 78.37241)
    assert east4["gpu"] == "h100-sxm-80gb" and east4["gpu_count"] == 8
    # us-central1: 9.46006 + 33.60609 = 43.06615 (the anomalously low H100 row, refdata-notes 6.7).
    assert _by(result.offers, "a3-highgpu-8g", "us-central1")["price_per_hour_usd"] == 43.06615
    # a2-highgpu-1g: 0.73948 + A100 (40960 MiB) 2.93391 = 3.67339 -> the 40 GB A100.
    a2 = _by(result.offers, "a2-highgpu-1g", "us-central1")
    assert (a2["price_per_hour_usd"], a2["gpu"]) == (3.67339, "a100-sxm-40gb")
    # a2-ultragpu-1g: 1.09962 + A100-80GB 1.84620 = 2.94582 -> the 80 GB A100.
    ultra = _by(result.offers, "a2-ultragpu-1g", "us-central1")
    assert (ultra["price_per_hour_usd"], ultra["gpu"]) == (2.94582, "a100-sxm-80gb")
    # Spot is summed the same way: 1.70352 + 14.1056 = 15.80912.
    assert _by(result.spot_offers, "a3-highgpu-8g", "us-east4")["price_per_hour_usd"] == 15.80912
    # Same figures as the hand-entered knowledge base (knowledge/prices/gcp.yaml): its on-demand rows from the
    # SkyPilot catalog (undated); the dated 2026 rows beside them come from other sources.
    kb_prices = {(o.instance_type, o.region): o.price_per_hour_usd for o in kb.providers["gcp"].offers
                 if o.pricing_model == "on_demand" and o.as_of is None}
    for offer in result.offers:
        if (offer["instance_type"], offer["region"]) in kb_prices:
            assert kb_prices[(offer["instance_type"], offer["region"])] == offer["price_per_hour_usd"]
    assert {o["instance_type"] for o in result.offers} == {"a2-highgpu-1g", "a2-ultragpu-1g", "a3-highgpu-8g"}
    joined = "\n".join(result.warnings)
    assert "T4" in joined and "no fixed host VM" in joined  # attachable GPU without a machine type
    assert "line 15" in joined and "H100 x8" in joined  # us-east5 GPU row without an a3 VM row
    assert "TPU" in joined


def test_lambda_catalog_with_its_own_column_order(kb):
    result = import_skypilot_csv(FIXTURES / "lambda_vms.csv", "lambda", kb)
    assert _by(result.offers, "gpu_8x_h100_sxm5", "us-east-1")["price_per_hour_usd"] == 23.92
    assert _by(result.offers, "gpu_8x_h100_sxm5", "us-west-1")["price_per_hour_usd"] == 23.92
    sxm = _by(result.offers, "gpu_8x_h100_sxm5", "us-east-1")
    assert sxm["gpu"] == "h100-sxm-80gb" and sxm["gpu_variant_verified"] is True  # 'sxm' in the name
    pcie = _by(result.offers, "gpu_1x_h100_pcie", "us-east-1")
    assert (pcie["gpu"], pcie["gpu_count"], pcie["gpu_variant_verified"]) == ("h100-pcie-80gb", 1, True)
    # Lambda's TotalGpuMemoryInMiB is the per-GPU figure (16384 for 8 GPUs): the per-GPU size is used.
    assert _by(result.offers, "gpu_8x_v100", "us-east-1")["gpu"] == "v100-sxm-16gb"
    assert result.spot_offers == []  # SpotPrice column present but empty
    assert result.warnings == []


def test_columns_are_read_by_header_name_not_position(kb):
    original = (FIXTURES / "aws_vms.csv").read_text()
    rows = list(csv.reader(io.StringIO(original)))
    order = list(reversed(range(len(rows[0]))))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([[row[i] for i in order] for row in rows])
    shuffled = import_skypilot_csv(out.getvalue(), "aws", kb)
    baseline = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb)

    def strip(offers):
        return [{k: v for k, v in o.items() if k != "source"} for o in offers]

    assert strip(shuffled.offers) == strip(baseline.offers)
    assert strip(shuffled.spot_offers) == strip(baseline.spot_offers)


def test_unknown_accelerator_warns_and_is_skipped(kb):
    text = "\n".join([
        AWS_HEADER,
        "inf2.xlarge,Inferentia2,1.0,4.0,16.0,,0.7582,0.2,us-east-1,use1-az1",
        "inf2.xlarge,Inferentia2,1.0,4.0,16.0,,0.7582,0.21,us-east-1,use1-az2",
    ])
    result = import_skypilot_csv(text, "aws", kb)
    assert result.offers == [] and result.spot_offers == []
    [warning] = result.warnings
    assert "unknown accelerator 'Inferentia2'" in warning and "lines 2, 3" in warning and "inf2.xlarge" in warning


def test_region_policy_and_region_filter(kb):
    cheapest = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb, region_policy="cheapest")
    p5 = [o for o in cheapest.offers if o["instance_type"] == "p5.48xlarge"]
    # us-east-1 and us-east-2 both 98.32: the tie goes to the first region name.
    assert [(o["region"], o["price_per_hour_usd"]) for o in p5] == [("us-east-1", 98.32)]
    assert "Cheapest of 2 regions" in p5[0]["notes"][-1]
    # Spot: us-east-2 14.3773 beats us-east-1 27.6948.
    [p5_spot] = [o for o in cheapest.spot_offers if o["instance_type"] == "p5.48xlarge"]
    assert (p5_spot["region"], p5_spot["price_per_hour_usd"]) == ("us-east-2", 14.3773)

    east2 = import_skypilot_csv(FIXTURES / "aws_vms.csv", "aws", kb, regions=["us-east-2"])
    assert {(o["instance_type"], o["region"]) for o in east2.offers} == {("p5.48xlarge", "us-east-2")}


def test_pasted_text_source_and_as_of(kb):
    text = (FIXTURES / "lambda_vms.csv").read_text()
    result = import_skypilot_csv(text, "lambda", kb, as_of=date(2025, 3, 1))
    offer = result.offers[0]
    assert offer["source"] == "SkyPilot catalog CSV (pasted text)" and offer["as_of"] == date(2025, 3, 1)
    custom = import_skypilot_csv(text, "lambda", kb, source="repo:skypilot-org/skypilot-catalog@11580132")
    assert {o["source"] for o in custom.offers} == {"repo:skypilot-org/skypilot-catalog@11580132"}


def test_offers_form_a_valid_price_file(kb):
    result = import_skypilot_csv(FIXTURES / "gcp_vms.csv", "gcp", kb)
    price_file = PriceFile.model_validate({"provider": "gcp", "provider_name": "GCP", "offers": result.all_offers})
    assert len(price_file.offers) == len(result.offers) + len(result.spot_offers) == 8
    assert all(o.gpu in kb.gpus for o in price_file.offers)


def test_catalog_errors(kb, tmp_path):
    with pytest.raises(CatalogImportError) as err:
        import_skypilot_csv("InstanceType,AcceleratorName,AcceleratorCount,Region\np5,H100,8,us\n", "aws", kb)
    assert err.value.missing == ["Price"] and "Price" in str(err.value)
    assert isinstance(err.value, AdvisorError)
    with pytest.raises(CatalogImportError, match="cannot read"):
        import_skypilot_csv(tmp_path / "absent.csv", "aws", kb)
    with pytest.raises(CatalogImportError, match="kebab-case"):
        import_skypilot_csv(FIXTURES / "aws_vms.csv", "Amazon Web Services", kb)


def test_fractional_gpu_count_is_skipped(kb):
    text = "\n".join([AWS_HEADER, "g.half,T4,0.5,4.0,16.0,,0.3,,us-east-1,use1-az1"])
    result = import_skypilot_csv(text, "aws", kb)
    assert result.offers == [] and "not a whole number of GPUs" in result.warnings[0]


# =========================================================================== Hugging Face config.json


def test_llama_2_7b_config(tmp_path):
    path = FIXTURES / "llama-2-7b-config.json"
    result = import_hf_config(path, "meta-llama/Llama-2-7b-hf", as_of=date(2026, 1, 2))
    # By hand (h=4096, L=32, heads=kv=32, d=128, I=11008, V=32000, untied):
    #   embeddings + LM head  2 * 32000 * 4096                 =   262,144,000
    #   per layer  attention  4 * 4096 * 4096                  =    67,108,864
    #              MLP        3 * 4096 * 11008                 =   135,266,304
    #              norms      2 * 4096                         =         8,192
    #              sum                                         =   202,383,360  x 32 = 6,476,267,520
    #   final norm                                             =         4,096
    #   total                                                    = 6,738,415,616
    assert result.params_total == 6_738_415_616 and result.params_active is None
    entry = result.entry
    model = Model.model_validate(entry)
    assert model.id == "llama-2-7b-hf" and model.hf_repo == "meta-llama/Llama-2-7b-hf"
    assert model.params_total_b == 6.738415616 == model.params_from_config_b
    assert (model.num_hidden_layers, model.hidden_size, model.num_attention_heads) == (32, 4096, 32)
    assert (model.num_key_value_heads, model.head_dim, model.intermediate_size) == (32, 128, 11008)
    assert (model.vocab_size, model.max_position_embeddings) == (32000, 4096)
    assert model.tie_word_embeddings is False and model.native_precision == "fp16"
    assert model.family == "llama" and model.kind == "llm"
    assert model.sources == [str(path)] and model.as_of == date(2026, 1, 2)
    assert result.warnings == []
    pasted = import_hf_config(path.read_text(), "llama-2-7b")
    assert pasted.entry["sources"] == ["pasted config.json"] and pasted.entry["id"] == "llama-2-7b"
    assert pasted.entry["as_of"] == date.today()
    assert compute_params_from_config(json.loads(path.read_text())) == (6_738_415_616, None)


def test_llama_2_70b_matches_the_knowledge_base(kb):
    config = {"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
              "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 32000,
              "tie_word_embeddings": False}
    # By hand (d = 8192/64 = 128, kv width 8*128 = 1024):
    #   embeddings + LM head  2 * 32000 * 8192                       =    524,288,000
    #   attention  8192*8192 (q) + 2*8192*1024 (k,v) + 8192*8192 (o) =    150,994,944
    #   MLP        3 * 8192 * 28672                                  =    704,643,072
    #   norms      2 * 8192                                          =         16,384
    #   per layer  855,654,400 x 80                                  = 68,452,352,000
    #   final norm                                                   =          8,192
    #   total                                                        = 68,976,648,192
    assert compute_params_from_config(config) == (68_976_648_192, None)
    # The knowledge base agrees (bot/kb/schema.py's Model docstring says 68.976653312: a typo there).
    assert kb.models["llama-2-70b"].params_total_b == 68.976648192


def test_missing_required_field_raises_naming_it():
    config = json.loads((FIXTURES / "llama-2-7b-config.json").read_text())
    del config["num_hidden_layers"]
    with pytest.raises(ConfigImportError) as err:
        import_hf_config(config, "broken")
    assert "config.json is missing num_hidden_layers" in str(err.value)
    assert err.value.missing == ["num_hidden_layers"] and isinstance(err.value, AdvisorError)
    del config["vocab_size"], config["hidden_size"]
    with pytest.raises(ConfigImportError) as err:
        compute_params_from_config(config)
    for name in ("num_hidden_layers", "hidden_size", "vocab_size"):
        assert f"config.json is missing {name}" in str(err.value)


def test_invalid_json_and_bad_values_raise():
    with pytest.raises(ConfigImportError, match="not valid JSON"):
        import_hf_config('{"hidden_size": 4096,', "x")
    with pytest.raises(ConfigImportError, match="positive integer"):
        compute_params_from_config({"num_hidden_layers": "32", "hidden_size": 4096, "num_attention_heads": 32,
                                    "vocab_size": 32000, "intermediate_size": 11008})
    with pytest.raises(ConfigImportError, match="encoder-decoder"):
        compute_params_from_config({"is_encoder_decoder": True, "d_model": 512})


def test_declared_params_three_percent_off_warns():
    path = FIXTURES / "llama-2-7b-config.json"
    # Computed 6.738415616B; declared 6.94 is 3.0% higher -> warning; 6.80 is 0.9% -> none.
    off = import_hf_config(path, "llama-2-7b", declared_params_b=6.94)
    assert any("differs from the computed 6.738415616B by 3.0%" in w for w in off.warnings)
    close = import_hf_config(path, "llama-2-7b", declared_params_b=6.80)
    assert close.warnings == []


def test_kv_heads_default_to_attention_heads():
    config = json.loads((FIXTURES / "llama-2-7b-config.json").read_text())
    del config["num_key_value_heads"]
    result = import_hf_config(config, "llama-2-7b")
    assert result.entry["num_key_value_heads"] == 32 and result.params_total == 6_738_415_616
    assert any("num_key_value_heads absent" in w for w in result.warnings)


def test_mixtral_moe_total_and_active():
    config = {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
              "num_local_experts": 8, "num_experts_per_tok": 2, "tie_word_embeddings": False,
              "sliding_window": None, "torch_dtype": "bfloat16"}
    # attention 2*4096*4096 + 2*4096*1024 = 41,943,040; one expert 3*4096*14336 = 176,160,768;
    # router 4096*8 = 32,768; norms 8,192.
    # total per layer 41,943,040 + 8*176,160,768 + 32,768 + 8,192 = 1,451,270,144 x 32 = 46,440,644,608
    #   + embeddings 2*32000*4096 = 262,144,000 + final 4,096          = 46,702,792,704
    # active per layer 41,943,040 + 2*176,160,768 + 32,768 + 8,192 = 394,305,536 x 32 = 12,617,777,152
    #   + 262,144,000 + 4,096                                          = 12,879,925,248
    result = import_hf_config(config, "mistralai/Mixtral-8x7B-v0.1")
    assert (result.params_total, result.params_active) == (46_702_792_704, 12_879_925_248)
    model = Model.model_validate(result.entry)
    assert (model.num_local_experts, model.num_experts_per_tok, model.params_active_b) == (8, 2, 12.879925248)
    assert model.family == "mistral (MoE)" and model.native_precision == "bf16" and model.sliding_window is None


def test_deepseek_v3_mla_and_moe():
    config = {"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
              "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
              "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256,
              "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
              "topk_method": "noaux_tc", "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
              "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280,
              "max_position_embeddings": 163840, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
              "quantization_config": {"quant_method": "fp8", "fmt": "e4m3"}}
    # MLA attention: q_a 7168*1536 + norm 1536 + q_b 1536*128*192       =  48,760,320
    #                kv_a 7168*576 + norm 512 + kv_b 512*128*256         =  20,906,496
    #                o 128*128*7168                                       = 117,440,512  -> 187,107,328
    # dense layer (first 3): 187,107,328 + norms 14,336 + 3*7168*18432 (396,361,728) = 583,483,392
    # MoE layer: 256 experts * 3*7168*2048 (44,040,192) = 11,274,289,152 + 1 shared 44,040,192
    #            + router 7168*256 = 1,835,008 + score bias 256 + attention + norms = 11,507,286,272
    # total 3*583,483,392 + 58*11,507,286,272 + embeddings 2*129280*7168 (1,853,358,080) + 7,168
    #     = 671,026,419,200 (the knowledge base's params_from_config for deepseek-v3)
    # active MoE layer: 8 routed (352,321,536) + shared + router + bias + attention + norms = 585,318,656
    # active 1,750,450,176 + 58*585,318,656 + 1,853,358,080 + 7,168 = 37,552,297,472
    result = import_hf_config(config, "deepseek-ai/DeepSeek-V3")
    assert (result.params_total, result.params_active) == (671_026_419_200, 37_552_297_472)
    entry = result.entry
    Model.model_validate(entry)
    assert (entry["kv_lora_rank"], entry["q_lora_rank"], entry["qk_rope_head_dim"]) == (512, 1536, 64)
    assert (entry["qk_nope_head_dim"], entry["v_head_dim"], entry["n_shared_experts"]) == (128, 128, 1)
    assert (entry["num_local_experts"], entry["moe_intermediate_size"]) == (256, 2048)
    assert entry["native_precision"] == "fp8"  # the published weights are FP8 (quantization_config)


def test_chatglm_remote_code_names():
    # THUDM/chatglm3-6b config.json (copy in BarryZ001/OntoThink_V4 download_chatglm3.sh; shapes also in
    # mindspore-lab/mindformers configs/glm3/run_glm3_6b.yaml): ChatGLM's own field names.
    config = {"model_type": "chatglm", "num_layers": 28, "padded_vocab_size": 65024, "vocab_size": 65024,
              "hidden_size": 4096, "ffn_hidden_size": 13696, "kv_channels": 128, "num_attention_heads": 32,
              "seq_length": 8192, "add_bias_linear": False, "add_qkv_bias": True, "multi_query_attention": True,
              "multi_query_group_num": 2, "tie_word_embeddings": False, "torch_dtype": "float16"}
    # per layer: query_key_value 4096 x (32 + 2 x 2) x 128 = 18,874,368 + bias 4,608; dense 4096 x 4096 = 16,777,216;
    #            MLP dense_h_to_4h 4096 x 2 x 13696 + dense_4h_to_h 13696 x 4096 = 168,296,448; 2 RMSNorms 8,192
    #            = 203,960,832; x 28 = 5,710,903,296
    # embedding + output layer 2 x 65024 x 4096 = 532,676,608; final norm 4,096 -> 6,243,584,000
    result = import_hf_config(config, "THUDM/chatglm3-6b")
    assert (result.params_total, result.params_active) == (6_243_584_000, None)
    entry = result.entry
    assert (entry["num_hidden_layers"], entry["num_key_value_heads"], entry["head_dim"]) == (28, 2, 128)
    assert (entry["intermediate_size"], entry["vocab_size"], entry["max_position_embeddings"]) == (13696, 65024, 8192)
    assert entry["family"] == "glm" and entry["native_precision"] == "fp16" and result.warnings == []


def test_glm4_moe_shared_expert_dense_first_layer_and_router_bias():
    # GLM-4.5-Air (vllm-project/vime scripts/models/glm4.5-106B-A12B.sh; NVIDIA-NeMo/Megatron-Bridge docs glm45.md)
    config = {"model_type": "glm4_moe", "num_hidden_layers": 46, "hidden_size": 4096, "intermediate_size": 10944,
              "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "attention_bias": True,
              "use_qk_norm": False, "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8,
              "moe_intermediate_size": 1408, "first_k_dense_replace": 1, "vocab_size": 151552,
              "max_position_embeddings": 131072, "tie_word_embeddings": False}
    # attention: q 4096 x 96 x 128 = 50,331,648; k, v 2 x 4096 x 8 x 128 = 8,388,608; o 50,331,648;
    #            q/k/v biases 12,288 + 2,048 (no output bias) -> 109,066,240; + 2 norms 8,192 = 109,074,432 x 46
    #            = 5,017,423,872
    # dense layer 0 MLP: 3 x 4096 x 10944 = 134,479,872
    # MoE layer: 128 experts x 3 x 4096 x 1408 (17,301,504) = 2,214,592,512 + 1 shared 17,301,504
    #            + router 4096 x 128 = 524,288 + expert bias 128 = 2,232,418,432; x 45 = 100,458,829,440
    # embeddings 2 x 151552 x 4096 = 1,241,513,984; final norm 4,096 -> 106,852,251,264
    # active MoE layer: 8 x 17,301,504 + shared + router + bias = 156,237,952 x 45 = 7,030,707,840
    #   -> 1,241,513,984 + 5,017,423,872 + 134,479,872 + 7,030,707,840 + 4,096 = 13,424,129,664
    result = import_hf_config(config, "zai-org/GLM-4.5-Air")
    assert (result.params_total, result.params_active) == (106_852_251_264, 13_424_129_664)
    entry = result.entry
    assert (entry["num_local_experts"], entry["n_shared_experts"], entry["moe_intermediate_size"]) == (128, 1, 1408)
    assert entry["family"] == "glm (MoE)" and result.warnings == []
    # GLM-4.5 adds per-head q/k RMSNorms (use_qk_norm): 2 x 128 per layer
    with_norm = compute_params_from_config({**config, "use_qk_norm": True})[0]
    assert with_norm - result.params_total == 46 * 2 * 128


def test_kimi_k2_is_read_as_deepseek_v3():
    # ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/moonshotai--Kimi-K2-Instruct_config.json
    config = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2", "num_hidden_layers": 61,
              "hidden_size": 7168, "num_attention_heads": 64, "num_key_value_heads": 64, "intermediate_size": 18432,
              "vocab_size": 163840, "max_position_embeddings": 131072, "n_routed_experts": 384, "n_shared_experts": 1,
              "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "moe_layer_freq": 1, "first_k_dense_replace": 1,
              "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
              "v_head_dim": 128, "routed_scaling_factor": 2.827, "torch_dtype": "bfloat16", "use_cache": True,
              "tie_word_embeddings": False}
    # MLA: q_a 7168 x 1536 + norm 1536 + q_b 1536 x 64 x 192 = 29,885,952; kv_a 7168 x 576 + norm 512
    #      + kv_b 512 x 64 x 256 = 12,517,888; o 64 x 128 x 7168 = 58,720,256 -> 101,124,096; + norms 14,336
    #      = 101,138,432 x 61 = 6,169,444,352
    # dense layer 0 MLP 3 x 7168 x 18432 = 396,361,728
    # MoE layer: 384 x 3 x 7168 x 2048 (44,040,192) = 16,911,433,728 + shared 44,040,192 + router 7168 x 384
    #            = 2,752,512 -> 16,958,226,432 x 60 = 1,017,493,585,920 (no topk_method: no expert bias)
    # embeddings 2 x 163840 x 7168 = 2,348,810,240; final norm 7,168 -> 1,026,408,209,408
    # active MoE layer 8 x 44,040,192 + shared + router = 399,114,240 x 60 = 23,946,854,400
    #   -> 2,348,810,240 + 6,169,444,352 + 396,361,728 + 23,946,854,400 + 7,168 = 32,861,477,888
    result = import_hf_config(config, "moonshotai/Kimi-K2-Instruct")
    assert (result.params_total, result.params_active) == (1_026_408_209_408, 32_861_477_888)
    entry = result.entry
    assert (entry["kv_lora_rank"], entry["num_local_experts"], entry["n_shared_experts"]) == (512, 384, 1)
    assert entry["family"] == "kimi (MoE, MLA)" and result.warnings == []


def test_multimodal_text_config_is_unwrapped():
    llama = json.loads((FIXTURES / "llama-2-7b-config.json").read_text())
    text = {k: v for k, v in llama.items() if k not in ("torch_dtype", "tie_word_embeddings")}
    wrapper = {"model_type": "llava", "text_config": text, "vision_config": {"hidden_size": 1024},
               "torch_dtype": "float16", "tie_word_embeddings": False}
    result = import_hf_config(wrapper, "llava-7b")
    assert result.params_total == 6_738_415_616 and result.entry["native_precision"] == "fp16"
    assert any("text_config" in w for w in result.warnings)


def test_gpt2_style_names():
    config = {"model_type": "gpt2", "n_embd": 1600, "n_layer": 48, "n_head": 25, "n_positions": 1024,
              "n_inner": None, "vocab_size": 50257, "torch_dtype": "float32"}
    # wte 50257*1600 = 80,411,200; wpe 1024*1600 = 1,638,400
    # per layer: 2 LayerNorms 4*1600 = 6,400; c_attn 1600*4800 + 4800 = 7,684,800;
    #   attn c_proj 1600*1600 + 1600 = 2,561,600; c_fc 1600*6400 + 6400 = 10,246,400;
    #   mlp c_proj 6400*1600 + 1600 = 10,241,600 -> 30,740,800 x 48 = 1,475,558,400
    # ln_f 3,200; LM head tied. Total 1,557,611,200 (knowledge base gpt-2-xl).
    result = import_hf_config(config, "openai-community/gpt2-xl")
    assert result.params_total == 1_557_611_200
    assert (result.entry["num_hidden_layers"], result.entry["hidden_size"]) == (48, 1600)
    assert result.entry["max_position_embeddings"] == 1024 and result.entry["tie_word_embeddings"] is True
    Model.model_validate(result.entry)


def test_falcon_style_names(kb):
    falcon_7b = {"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32, "num_attention_heads": 71,
                 "multi_query": True, "new_decoder_architecture": False, "parallel_attn": True, "bias": False,
                 "vocab_size": 65024}
    # d = 64; qkv 4544*(71*64 + 2*64) = 21,229,568; dense 4544*4544 = 20,647,936;
    # MLP 2*4544*18176 = 165,183,488; one LayerNorm 2*4544 = 9,088 -> 207,070,080 x 32 = 6,626,242,560
    # + embeddings 65024*4544 = 295,469,056 (tied) + ln_f 9,088 = 6,921,720,704
    assert compute_params_from_config(falcon_7b) == (6_921_720_704, None)
    falcon_40b = {"model_type": "falcon", "hidden_size": 8192, "n_layer": 60, "n_head": 128, "num_kv_heads": 8,
                  "new_decoder_architecture": True, "parallel_attn": True, "bias": False, "vocab_size": 65024}
    # qkv 8192*(8192 + 2*8*64) = 75,497,472; dense 67,108,864; MLP 536,870,912; ln_attn + ln_mlp 32,768
    # -> 679,510,016 x 60 = 40,770,600,960 + 532,676,608 + 16,384 = 41,303,293,952
    assert compute_params_from_config(falcon_40b) == (41_303_293_952, None)
    for model_id, config in (("falcon-7b", falcon_7b), ("falcon-40b", falcon_40b)):
        assert kb.models[model_id].params_from_config_b == compute_params_from_config(config)[0] / 1e9
    entry = import_hf_config(falcon_7b, "tiiuae/falcon-7b").entry
    assert entry["num_key_value_heads"] == 1 and entry["head_dim"] == 64


def test_sliding_window_fields():
    mistral = {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
               "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
               "sliding_window": 4096, "tie_word_embeddings": False}
    entry = import_hf_config(mistral, "mistral-7b-v0.1").entry
    assert (entry["sliding_window"], entry["sliding_window_layers"]) == (4096, 32)
    assert entry["params_total_b"] == 7.241732096
    qwen = {**mistral, "model_type": "qwen2", "sliding_window": 131072, "use_sliding_window": False}
    assert "sliding_window" not in import_hf_config(qwen, "qwen-like").entry


#: Knowledge-base families the cross-check does not cover, and why.
CROSS_CHECK_SKIPPED_FAMILIES = {
    "falcon": "Model entries lack new_decoder_architecture (covered by test_falcon_style_names)",
    "gpt": "GPT-3 has no config.json",
    "gpt2": "covered by test_gpt2_style_names",
    "bloom": "ALiBi + embedding LayerNorm architecture; formula not implemented",
    "opt": "learned positions with offset, LayerNorm biases; formula not implemented",
    "mpt": "no biases, non-gated MLP; formula not implemented",
    "starcoder": "GPT-BigCode; entries lack n_positions",
    "dbrx (MoE)": "DBRX nests its sizes under ffn_config/attn_config; formula not implemented",
    "deepseek (MoE, MLA)": "entries lack first_k_dense_replace/topk_method (covered by test_deepseek_v3_mla_and_moe)",
    "kimi (MoE, MLA)": "entries lack first_k_dense_replace (covered by test_kimi_k2_is_read_as_deepseek_v3)",
    "glm": "q/k/v bias only (add_qkv_bias); entries hold no bias flags (covered by test_chatglm_remote_code_names)",
    "glm (MoE)": "entries lack first_k_dense_replace and bias flags (covered by "
                 "test_glm4_moe_shared_expert_dense_first_layer_and_router_bias)",
}


def _model_type(model) -> str | None:
    family, ident = model.family, model.id
    if family == "qwen (MoE)":
        return "qwen3_moe"
    if family == "mistral (MoE)":
        return "mixtral"
    if family.startswith("qwen") or family == "deepseek-r1 distill (qwen2.5)":
        return "qwen3" if ident.startswith("qwen3") else "qwen2"
    if family.startswith("gemma"):
        return "gemma3_text" if ident.startswith("gemma-3-") else "gemma2" if ident.startswith("gemma-2-") else "gemma"
    if family == "phi" and (ident.startswith("phi-3") or ident == "phi-4"):
        return "phi3"
    if family == "mistral":
        return "mistral"
    if family in ("llama", "llama (code)", "deepseek-r1 distill (llama)", "yi", "internlm", "baichuan"):
        return "llama"
    if family == "cohere":
        return "cohere"
    return None


def test_formula_agrees_with_the_knowledge_base(kb):
    checked, skipped = [], []
    for model in kb.models.values():
        if model.kind != "llm" or model.params_from_config_b is None:
            continue
        model_type = _model_type(model)
        if model_type is None:
            skipped.append(model.id)
            assert model.family in CROSS_CHECK_SKIPPED_FAMILIES, (model.id, model.family)
            continue
        config = {"model_type": model_type, "num_hidden_layers": model.num_hidden_layers,
                  "hidden_size": model.hidden_size, "num_attention_heads": model.num_attention_heads,
                  "num_key_value_heads": model.num_key_value_heads, "head_dim": model.head_dim,
                  "intermediate_size": model.intermediate_size, "vocab_size": model.vocab_size,
                  "tie_word_embeddings": model.tie_word_embeddings}
        if model.num_local_experts:
            config.update(num_local_experts=model.num_local_experts, num_experts=model.num_local_experts,
                          num_experts_per_tok=model.num_experts_per_tok,
                          moe_intermediate_size=model.moe_intermediate_size)
        total, active = compute_params_from_config({k: v for k, v in config.items() if v is not None})
        expected = model.params_from_config_b * 1e9
        assert abs(total - expected) / expected <= 0.02, (model.id, total, expected)
        assert total == round(expected), (model.id, total, expected)  # in fact exact for every family covered
        if model.params_active_b is not None and active is not None:
            assert abs(active - model.params_active_b * 1e9) / (model.params_active_b * 1e9) <= 0.02, model.id
        checked.append(model.id)
    assert len(checked) >= 50 and "llama-2-70b" in checked and "qwen3-30b-a3b" in checked
    assert {"falcon-7b", "deepseek-v3"} <= set(skipped)
