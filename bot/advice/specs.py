"""GPU facts shared by the spec and comparison answers: a spec table, feature support, interconnect facts,
and the verdicts of article claims quoted beside another question.

Every figure is a ``knowledge/gpus.yaml`` field (dense tensor TFLOPS, never the 2:4-sparse headline); a
figure a datasheet does not state is shown as missing, never filled in.
"""

from __future__ import annotations

from bot.advice.answer import Table
from bot.advice.context import Context
from bot.advice.planner import place
from bot.estimation import efficiency_for
from bot.kb.claims import claim_text
from bot.kb.schema import Gpu
from bot.notes import Note, note

__all__ = ["claim_verdicts", "feature_support", "interconnect_fact", "ratio_facts", "software_caveats", "spec_fact",
           "spec_table"]


def spec_fact(gpu: Gpu) -> Note:
    """One GPU's headline figures: memory (GB), bandwidth (GB/s), dense bf16/fp16 and fp8 TFLOPS, TDP (W), as
    ``knowledge/gpus.yaml`` gives them."""
    return note("spec_one", gpu_name=gpu.name, memory_gb=gpu.memory_gb, bandwidth_gb_s=gpu.memory_bandwidth_gb_s,
                tflops=gpu.dense_tflops.bf16 or gpu.dense_tflops.fp16, fp8_tflops=gpu.dense_tflops.fp8,
                tdp_w=gpu.tdp_watts)


def software_caveats(gpus: list[Gpu]) -> list[Note]:
    """What the common software stacks do not do on these accelerators (``Gpu.software`` in
    ``knowledge/gpus.yaml``, sourced there): CUDA code that does not run (the vendor's toolkit and the serving
    engines that document support instead), and no FP8 in the common serving stacks. One note per fact and GPU,
    in order; none for a GPU with no ``software`` entry (NVIDIA cards: CUDA)."""
    out: list[Note] = []
    for g in gpus:
        sw = g.software
        if sw is None:
            continue
        if sw.cuda_compatible == "no":
            out.append(note("software_stack", gpu_name=g.name, toolkit=sw.toolkit, serving=sw.serving))
        if sw.fp8_in_common_stacks == "not_supported":
            out.append(note("no_fp8_in_stacks", gpu_name=g.name))
    return list(dict.fromkeys(out))


def spec_table(ctx: Context, gpus: list[Gpu]) -> Table:
    """Memory, bandwidth, dense bf16/fp16 and fp8 TFLOPS, NVLink, TDP and the cheapest $/GPU-h per GPU."""
    rows = []
    for g in gpus:
        p = place(ctx, g, 1, 1) if g.id in ctx.kb.gpus else None
        if p is not None and p.offer.as_of:
            ctx.price_dates.append(p.offer.as_of)
        ctx.cite(*g.sources[:1])
        dense16 = g.dense_tflops.bf16 or g.dense_tflops.fp16
        # supported with no datasheet figure (H800) is "not published", never read as "no FP8"
        fp8 = g.dense_tflops.fp8 if g.dense_tflops.fp8 else ("unsupported" if not g.supports("fp8") else "unpublished")
        rows.append([g.name, g.memory_gb, g.memory_bandwidth_gb_s, dense16, fp8, g.nvlink_gb_s or "none",
                     g.tdp_watts, p.offer.price_per_gpu_hour_usd if p else None])
    return Table(columns=["gpu", "memory_gb", "bandwidth_gb_s", "dense16_tflops", "fp8_tflops", "nvlink_gb_s",
                          "tdp_w", "usd_per_gpu_hour"], rows=rows)


def claim_verdicts(ctx: Context) -> list[Note]:
    """The verdict of each article claim the request quotes (``knowledge/claims.yaml``), cited, in order.

    Used when a claim is quoted beside a question that is answered first ("H100 NVL 188GB 单卡能装下 70B fp16
    吗": the fit, then the claim). Returns an empty list when no claim is quoted.
    """
    kb, out = ctx.kb, []
    for cid in ctx.query.claims:
        claim = kb.claims.get(cid)
        if claim is None:
            continue
        out.append(note("claim_verdict", verdict=claim.verdict, en=claim_text(kb, claim, claim.verdict_text.en),
                        zh=claim_text(kb, claim, claim.verdict_text.zh)))
        ctx.cite(*claim.sources[:3])
    return out


def ratio_facts(a: Gpu, b: Gpu) -> list[Note]:
    """Bandwidth and dense 16-bit ratios of two GPUs, and what each bounds; the NVLink and memory ratios when they
    differ (GPUs.yaml figures: memory GB, bandwidth GB/s, dense TFLOPS, NVLink GB/s)."""
    out = [note("ratio_bandwidth", a=a.name, b=b.name, ratio_x=a.memory_bandwidth_gb_s / b.memory_bandwidth_gb_s,
                a_gb_s=a.memory_bandwidth_gb_s, b_gb_s=b.memory_bandwidth_gb_s)]
    a16, b16 = a.dense_tflops.bf16 or a.dense_tflops.fp16, b.dense_tflops.bf16 or b.dense_tflops.fp16
    if a16 and b16:
        out.append(note("ratio_compute", a=a.name, b=b.name, ratio_x=a16 / b16, a_tflops=a16, b_tflops=b16))
    else:
        missing = [g.name for g, v in ((a, a16), (b, b16)) if not v]
        out.append(note("compute_figure_missing", gpus=missing))
    if a.nvlink_gb_s and b.nvlink_gb_s and abs(a.nvlink_gb_s - b.nvlink_gb_s) > 1:
        # same chip, different GPU-to-GPU link (H800 vs H100, A800 vs A100): what differs for multi-GPU jobs
        out.append(note("ratio_nvlink", a=a.name, b=b.name, ratio_x=a.nvlink_gb_s / b.nvlink_gb_s,
                        a_gb_s=a.nvlink_gb_s, b_gb_s=b.nvlink_gb_s))
    if abs(a.memory_gb - b.memory_gb) >= 1:
        # variants of one chip with different memory (A100 40GB vs 80GB, H100 NVL 94GB vs SXM 80GB): what the memory
        # holds per GPU differs even where speed does not
        out.append(note("ratio_memory", a=a.name, b=b.name, ratio_x=a.memory_gb / b.memory_gb, a_gb=a.memory_gb,
                        b_gb=b.memory_gb))
    return out


def feature_support(ctx: Context, gpu: Gpu, feature: str) -> Note:
    """Whether ``gpu`` has ``feature`` (a precision, a kernel of ``knowledge/features.yaml``, NVLink, P2P)."""
    kb_feature = ctx.kb.features.get(feature)
    if kb_feature is not None:
        ctx.cite(kb_feature.source)
        ok = kb_feature.supported_by(gpu)
        return note("feature_kernel", gpu_name=gpu.name, feature=kb_feature.name, supported=ok,
                    cc=gpu.compute_capability, need_cc=kb_feature.min_compute_capability,
                    alternative="fa1" if feature.startswith("flash_attention") and not ok else None)
    if feature in ("bf16", "fp16", "fp8", "fp4", "int8", "tf32"):
        ok = gpu.supports(feature)
        return note("feature_precision", gpu_name=gpu.name, precision=feature, supported=ok,
                    cc=gpu.compute_capability,
                    alternative={"bf16": "fp16", "fp8": "int8_or_int4", "fp4": "fp8_or_int4"}.get(feature) if not ok
                    else None)
    if feature in ("nvlink", "p2p"):
        return interconnect_fact(ctx, gpu)
    if feature == "ecc":
        return note("feature_unknown", gpu_name=gpu.name, feature="ECC")
    return note("feature_unknown", gpu_name=gpu.name, feature=feature)


def interconnect_fact(ctx: Context, gpu: Gpu) -> Note:
    """NVLink (or Infinity Fabric / HCCS), an NVLink bridge for pairs, or PCIe without P2P on GeForce cards."""
    icls = efficiency_for(ctx.kb).interconnect_class(gpu, 4)
    if gpu.nvlink_gb_s and "pcie" in gpu.form_factor.lower():
        return note("interconnect_bridge", gpu_name=gpu.name, nvlink_gb_s=gpu.nvlink_gb_s, pcie_gen=gpu.pcie_gen)
    if gpu.nvlink_gb_s:
        return note("interconnect_nvlink", gpu_name=gpu.name, nvlink_gb_s=gpu.nvlink_gb_s,
                    per_direction_gb_s=gpu.nvlink_gb_s / 2, vendor=gpu.vendor)
    if icls == "no_p2p":
        return note("interconnect_no_p2p", gpu_name=gpu.name, pcie_gen=gpu.pcie_gen)
    return note("interconnect_pcie", gpu_name=gpu.name, pcie_gen=gpu.pcie_gen)
