"""China-market accelerators, the modified 48 GB RTX 4090 boards, the dense figures filled in from
gpu_specs_china.yaml, and accelerators that are named but have no sourced figures ("unlisted").

Each figure below is checked against the source the entry cites (see knowledge/gpus.yaml).
"""

from __future__ import annotations

import textwrap

import pytest

from bot.cli import main
from bot.errors import KnowledgeError
from bot.estimation import estimate_finetune, estimate_inference, estimate_training
from bot.kb.index import get_index
from bot.kb.loader import load_knowledge
from tests.conftest import TINY_GPUS, write_tiny_kb

NEW_GPUS = [
    "rtx-4090-48gb", "rtx-4090-d-48gb", "ascend-910b2-64gb", "ascend-910b3-64gb", "ascend-910b4-32gb",
    "ascend-910c-128gb", "ascend-950pr-128gb", "atlas-300i-duo-96gb", "hygon-k100-ai-64gb", "hygon-bw200-64gb",
    "cambricon-mlu370-x8-48gb", "moore-threads-s4000-48gb", "biren-br100-64gb", "biren-br104-32gb",
]


@pytest.mark.parametrize(
    ("written", "gpu_id", "assumed"),
    [
        # The names Chinese-speaking users type, as the name index resolves them.
        ("910B", "ascend-910b3-64gb", True),
        ("昇腾 910B", "ascend-910b3-64gb", True),
        ("昇腾910B", "ascend-910b3-64gb", True),
        ("华为 910B", "ascend-910b3-64gb", True),
        ("昇腾", "ascend-910b3-64gb", True),
        ("910B2", "ascend-910b2-64gb", False),
        ("Ascend 910B2C", "ascend-910b2-64gb", False),
        ("昇腾910B4", "ascend-910b4-32gb", False),
        ("910B 32G", "ascend-910b4-32gb", False),
        ("910C", "ascend-910c-128gb", False),
        ("昇腾 950PR", "ascend-950pr-128gb", False),
        ("300I Duo", "atlas-300i-duo-96gb", False),
        ("海光 DCU", "hygon-k100-ai-64gb", True),
        ("海光DCU", "hygon-k100-ai-64gb", True),
        ("K100 AI", "hygon-k100-ai-64gb", False),
        ("深算三号", "hygon-bw200-64gb", False),
        ("寒武纪", "cambricon-mlu370-x8-48gb", True),
        ("MLU370-X8", "cambricon-mlu370-x8-48gb", False),
        ("摩尔线程 S4000", "moore-threads-s4000-48gb", False),
        ("壁仞 BR104", "biren-br104-32gb", False),
        ("4090 48g", "rtx-4090-48gb", False),
        ("4090 48gb", "rtx-4090-48gb", False),
        ("RTX 4090 48GB", "rtx-4090-48gb", False),
        ("魔改4090", "rtx-4090-48gb", False),
        ("4090 魔改 48G", "rtx-4090-48gb", False),
        ("魔改 4090 48G", "rtx-4090-48gb", False),
        ("4090D 48G", "rtx-4090-d-48gb", False),
        ("魔改4090D", "rtx-4090-d-48gb", False),
        ("Ｈ１００", "h100-sxm-80gb", True),  # full-width, as Chinese input methods type it (NFKC)
        # Unchanged by the new entries:
        ("4090", "rtx-4090-24gb", True),
        ("4090D", "rtx-4090-d-24gb", False),
        ("RTX 4090 24GB", "rtx-4090-24gb", False),
    ],
)
def test_chinese_and_modified_card_names_resolve(kb, written, gpu_id, assumed):
    match = get_index(kb).lookup("gpu", written)
    assert match is not None, written
    assert (match.id, match.variant_assumed) == (gpu_id, assumed)


@pytest.mark.parametrize("gpu_id", NEW_GPUS)
def test_each_new_gpu_resolves_by_every_name_and_is_sourced(kb, gpu_id):
    gpu = kb.gpus[gpu_id]
    index = get_index(kb)
    for name in (gpu.id, gpu.name, *gpu.aliases, *gpu.default_for):
        assert index.lookup("gpu", name, fuzzy=False).id == gpu_id, name
    assert gpu.sources and str(gpu.as_of) == "2026-12-01"
    assert gpu.memory_gb > 0 and gpu.memory_bandwidth_gb_s > 0


def test_non_nvidia_vendors_have_no_compute_capability_and_unstated_sparsity(kb):
    for gid in NEW_GPUS:
        gpu = kb.gpus[gid]
        if gpu.vendor == "NVIDIA":
            assert gpu.compute_capability == "8.9" and gpu.sparsity_stated, gid
        else:
            # Vendor figures do not say dense or 2:4 sparse (gpu_specs_china.yaml conventions).
            assert gpu.compute_capability is None and not gpu.sparsity_stated, gid
            assert gpu.nvlink_gb_s is None, gid  # their links (HCCS, MLU-Link, ...) are not NVLink


def test_ascend_910b_figures(kb):
    # Hardware-model config: 910B2 353.8 TFLOPS = 24 AI cores x 4096 MAC x 2 x 1.8 GHz; 910B3 294.9 = 20 cores;
    # 910B4 245.7 = 20 cores at 1.5 GHz; 64/64/32 GB (HAMi device plugin), 1.6/1.6/0.8 TB/s.
    b2, b3, b4 = (kb.gpus[f"ascend-910b{n}"] for n in ("2-64gb", "3-64gb", "4-32gb"))
    assert b2.dense_tflops.fp16 == pytest.approx(24 * 4096 * 2 * 1.8e9 / 1e12, abs=0.2)
    assert b3.dense_tflops.fp16 == pytest.approx(20 * 4096 * 2 * 1.8e9 / 1e12, abs=0.2)
    assert b4.dense_tflops.fp16 == pytest.approx(20 * 4096 * 2 * 1.5e9 / 1e12, abs=0.2)
    assert (b2.memory_gb, b3.memory_gb, b4.memory_gb) == (64, 64, 32)
    assert (b2.memory_bandwidth_gb_s, b3.memory_bandwidth_gb_s, b4.memory_bandwidth_gb_s) == (1600, 1600, 800)
    assert b2.dense_tflops.int8 == 707.9 and "int8" in b3.missing_figures
    assert b2.peer_link.name == "HCCS"


def test_ascend_910c_is_two_910b_dies(kb):
    # Derived in gpus.yaml: 2 dies x (64 GB, 1.6 TB/s, 353.8 TFLOPS) per die; software sees each die as an NPU.
    c, b2 = kb.gpus["ascend-910c-128gb"], kb.gpus["ascend-910b2-64gb"]
    assert c.devices_per_package == 2
    assert (c.memory_gb, c.memory_bandwidth_gb_s) == (2 * b2.memory_gb, 2 * b2.memory_bandwidth_gb_s)
    assert c.dense_tflops.bf16 == pytest.approx(2 * b2.dense_tflops.bf16)
    assert {"memory_gb", "memory_bandwidth_gb_s", "dense_tflops.fp16"} <= set(c.derived)


def test_fp8_software_facts(kb):
    # SGLang's Ascend quantization table: MXFP8/MXFP4 only on Ascend 950, not on A2 (910B) or A3 (910C).
    for gid in ("ascend-910b2-64gb", "ascend-910b3-64gb", "ascend-910b4-32gb", "ascend-910c-128gb",
                "atlas-300i-duo-96gb"):
        gpu = kb.gpus[gid]
        assert not gpu.supports("fp8") and "fp8" in gpu.unsupported, gid
        assert gpu.software.fp8_in_common_stacks == "not_supported" and gpu.software.cuda_compatible == "no", gid
    assert kb.gpus["ascend-910b3-64gb"].software.serving == ["mindie", "vllm-ascend", "sglang"]
    assert kb.gpus["ascend-950pr-128gb"].software.fp8_in_common_stacks == "supported"
    # vllm-ascend v0.11.0: the 310P (Atlas 300I Duo) runs float16 in eager mode only, experimentally.
    duo = kb.gpus["atlas-300i-duo-96gb"]
    assert not duo.supports("bf16") and duo.devices_per_package == 2
    assert any("eager" in limit for limit in duo.software.limits)
    assert kb.gpus["moore-threads-s4000-48gb"].software.cuda_compatible == "vendor_claimed"  # tweakpc, unverified


def test_modified_4090_48gb(kb):
    # woter.ai / Tom's Hardware: the RTX 4090 chip on a clamshell board with 48 GB; compute and bandwidth are the
    # donor's (recorded as derived: no source measured the board).
    mod, donor = kb.gpus["rtx-4090-48gb"], kb.gpus["rtx-4090-24gb"]
    assert mod.memory_gb == 48 and mod.aftermarket_of == donor.id
    assert mod.dense_tflops == donor.dense_tflops and mod.memory_bandwidth_gb_s == donor.memory_bandwidth_gb_s
    assert {"memory_bandwidth_gb_s", "dense_tflops"} <= set(mod.derived)
    assert mod.nvlink_gb_s is None and mod.segment == "consumer"
    mod_d = kb.gpus["rtx-4090-d-48gb"]
    assert mod_d.aftermarket_of == "rtx-4090-d-24gb" and mod_d.dense_tflops == kb.gpus["rtx-4090-d-24gb"].dense_tflops


@pytest.mark.parametrize(
    ("gpu_id", "field", "expected"),
    [
        # NVIDIA H100 datasheet table (jishuzhan copy), H100 NVL per card, sparse headline / 2.
        ("h100-nvl-94gb", "bf16", 1671 / 2),
        ("h100-nvl-94gb", "fp8", 3341 / 2),
        ("h100-nvl-94gb", "tf32", 835 / 2),
        # ArthurChiao's compiled table and AutoDL: L20 119.5 TFLOPS 16-bit, 239 INT8 TOPS.
        ("l20-48gb", "bf16", 119.5),
        ("l20-48gb", "int8", 239),
        # hmc-tech: RTX 4090 D = RTX 4090 x 114/128 SMs at the same boost clock (165.2 x 114 / 128 = 147.1).
        ("rtx-4090-d-24gb", "bf16", 165.2 * 114 / 128),
        ("rtx-4090-d-24gb", "int8", 660.6 * 114 / 128),
        # Quadro RTX 6000: 576 Turing tensor cores; 130.5 FP16 (FP16 or FP32 accumulate per the Quadro datasheet).
        ("quadro-rtx-6000-24gb", "fp16", 130.5),
        ("quadro-rtx-6000-24gb", "int8", 261),
    ],
)
def test_filled_dense_figures(kb, gpu_id, field, expected):
    assert getattr(kb.gpus[gpu_id].dense_tflops, field) == pytest.approx(expected, rel=2e-3)


def test_figures_no_datasheet_gives_stay_null_with_a_reason(kb):
    h800 = kb.gpus["h800-sxm-80gb"]
    assert h800.dense_tflops.fp8 is None and "DeepGEMM" in h800.missing_figures["fp8"]
    assert kb.gpus["l20-48gb"].dense_tflops.fp8 is None and kb.gpus["l20-48gb"].missing_figures["fp8"]
    assert "bf16" not in kb.gpus["h100-nvl-94gb"].missing_figures


@pytest.mark.parametrize(
    ("written", "unlisted", "nearest"),
    [
        ("Hygon K100", "Hygon DCU K100", ["Hygon DCU K100 AI"]),  # not the K100 AI: a different card
        ("海光 K100", "Hygon DCU K100", ["Hygon DCU K100 AI"]),
        ("Ascend 910", "Ascend 910 (first generation)", ["Ascend 910B3"]),  # not the 910B
        ("910B1", "Ascend 910B1", ["Ascend 910B2", "Ascend 910B3"]),
        ("寒武纪 MLU590", "Cambricon MLU590", ["Cambricon MLU370-X8"]),
        ("昆仑芯 P800", "Kunlunxin P800", []),
    ],
)
def test_named_accelerators_without_figures_are_never_replaced(kb, written, unlisted, nearest):
    index = get_index(kb)
    assert index.lookup("gpu", written) is None
    assert index.lookup("unlisted", written).id == unlisted
    assert index.suggest("gpu", written) == nearest
    item = next(u for u in kb.unlisted if u.name == unlisted)
    assert item.reason.en and item.reason.zh and item.sources


@pytest.mark.parametrize("gpu_id", NEW_GPUS)
def test_estimators_run_on_every_new_gpu(kb, gpu_id):
    # Qwen2.5-72B in fp16 is 145.4 GB of weights: every new accelerator needs several cards, which the
    # estimator chooses; training and fine-tuning say what is missing instead of failing.
    inf = estimate_inference(kb, "qwen2.5-72b", gpu_id)
    assert inf.gpu_count >= 2
    train = estimate_training(kb, "llama-2-7b", gpu_id, 8, 1e9)
    assert train is not None
    ft = estimate_finetune(kb, "qwen2.5-7b", gpu_id, method="lora")
    assert ft is not None


def test_cli_estimate_on_910b(capsys):
    # "910B" is a GPU name (the 910B3 assumed), never a 910-billion-parameter model.
    assert main(["estimate", "inference", "--model", "qwen2.5 72b", "--gpu", "910B"]) == 0
    captured = capsys.readouterr()
    assert "read as Ascend 910B3 (ascend-910b3-64gb)" in captured.err


def test_cli_estimate_on_an_unlisted_accelerator_is_a_clear_error(capsys):
    assert main(["estimate", "inference", "--model", "qwen2.5 72b", "--gpu", "Kunlunxin P800"]) == 2
    assert "unknown gpu 'Kunlunxin P800'" in capsys.readouterr().err


# --------------------------------------------------------------------------- schema rules, file:line errors

def _errors(tmp_path, gpus: str) -> list[str]:
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(write_tiny_kb(tmp_path, gpus=gpus))
    return [str(i) for i in exc.value.issues]


def test_compute_capability_is_nvidia_only(tmp_path):
    errors = _errors(tmp_path, TINY_GPUS.replace("vendor: NVIDIA\n  architecture: Ampere",
                                                 "vendor: Huawei\n  architecture: Ampere"))
    assert errors == ["knowledge/gpus.yaml:23: compute_capability: compute_capability is a CUDA notion; a Huawei "
                      "accelerator has none (entry a100-sxm-80gb)"]


def test_unknown_vendor_is_rejected(tmp_path):
    errors = _errors(tmp_path, TINY_GPUS.replace("vendor: NVIDIA\n  architecture: Ampere",
                                                 "vendor: Huawai\n  architecture: Ampere"))
    assert len(errors) == 1 and errors[0].startswith("knowledge/gpus.yaml:21: vendor: Input should be 'NVIDIA'")


def test_missing_figure_cannot_also_be_given(tmp_path):
    errors = _errors(tmp_path, TINY_GPUS.replace("  form_factor: SXM4\n",
                                                 "  missing_figures: {bf16: not published}\n  form_factor: SXM4\n"))
    assert errors == ["knowledge/gpus.yaml:19: (entry): dense_tflops.bf16 is given, so it cannot also be listed in "
                      "missing_figures (entry a100-sxm-80gb)"]


def test_aftermarket_of_must_name_a_gpu(tmp_path):
    errors = _errors(tmp_path, TINY_GPUS.replace("  form_factor: SXM4\n",
                                                 "  aftermarket_of: a100-sxm-40gb\n  form_factor: SXM4\n"))
    assert errors == ["knowledge/gpus.yaml:28: aftermarket_of: unknown GPU id 'a100-sxm-40gb' (entry a100-sxm-80gb)"]


UNLISTED = textwrap.dedent("""\
    unlisted:
    - name: Acme X1
      vendor: Biren
      aliases: [X1, A100 SXM]
      reason: {en: no figures, zh: 没有数据}
      nearest: [a100-sxm-80gb, h200-sxm-141gb]
      sources: [https://example.org/x1]
      as_of: 2026-12-01
    """)


def test_unlisted_entries_are_cross_checked(tmp_path):
    # TINY_GPUS has 34 lines: line 35 is "unlisted:", 36 its entry, 40 "nearest".
    errors = _errors(tmp_path, TINY_GPUS + UNLISTED)
    assert errors == [
        "knowledge/gpus.yaml:40: nearest: unknown GPU id 'h200-sxm-141gb' (unlisted Acme X1)",
        "knowledge/gpus.yaml:36: aliases: alias 'A100 SXM' of unlisted Acme X1 also names gpu a100-sxm-80gb",
    ]
