"""Accuracy of the sizing engine against published measurements.

Runs bot.estimation on every benchmark row and prints id, published value, estimate, error % and
the median absolute error per kind, plus rows skipped with the reason.

Usage::

    python bench/accuracy.py                       # knowledge/benchmarks.yaml via the kb
    python bench/accuracy.py path/to/benchmarks-calibration.yaml   # same format, names resolved
    python bench/accuracy.py --markdown            # a Markdown table (for bench/RESULTS.md)

Targets (issue): memory median |err| <= 10%, inference throughput/latency <= 25%, training
GPU-hours <= 15%, no row off by more than 2x.

Row handling (each kind is mapped to the estimate that measures the same thing; nothing here is
fitted to the rows):

* training GPU-hours -> estimate_training(...).gpu_hours (the GPU count does not change GPU-hours
  in this model; 2,048 GPUs are assumed when the row gives none);
* training MFU (percent) -> the steady-state MFU; TFLOP/s per GPU -> MFU x dense peak;
  MLPerf epoch time -> steady-state wall clock for the logged tokens;
* inference tokens/s at batch 1 -> per-sequence decode rate (llama-bench tg) or aggregate
  throughput (prompt + decode); offline/max throughput rows -> batch_size="max"; first-token
  latency -> ttft_s; inter-token latency -> tpot_ms;
* memory: GGUF file sizes -> weights_gb; LoRA/QLoRA max GPU RAM -> estimate_finetune; rows that
  are upper bounds ("<48GB") count as 0% error when the estimate is below the bound.

Framework defaults used where a row names a framework but not its settings (published defaults,
not tuned): LitGPT finetune/lora.py r=8 on query+value; artidoro/qlora qlora.py gradient
checkpointing on, LoRA r=64 on all linear layers; HF PEFT README LoRA r=8 q,v.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.estimation import (  # noqa: E402
    estimate_finetune_for,
    estimate_inference_for,
    estimate_training_for,
    generic_model,
)
from bot.estimation.common import dense_peak_tflops  # noqa: E402
from bot.kb.loader import KnowledgeBase, load_knowledge, normalize_name  # noqa: E402
from bot.kb.schema import Benchmark  # noqa: E402


@dataclass
class Row:
    id: str
    kind: str
    published: float | None
    estimate: float | None
    unit: str
    note: str = ""
    upper_bound: bool = False

    @property
    def error(self) -> float | None:
        if self.published is None or self.estimate is None:
            return None
        if self.upper_bound and self.estimate <= self.published:
            return 0.0
        return self.estimate / self.published - 1


# ----------------------------------------------------------------------------- name resolution

def _index(kb: KnowledgeBase) -> tuple[dict[str, str], dict[str, str]]:
    models = {}
    for m in kb.models.values():
        for n in (m.id, m.name, *m.aliases, *m.default_for):
            models.setdefault(normalize_name(n), m.id)
    gpus = {}
    for g in kb.gpus.values():
        for n in (g.id, g.name, *g.aliases, *g.default_for):
            gpus.setdefault(normalize_name(n), g.id)
    return models, gpus


def resolve_model(kb: KnowledgeBase, text: str) -> str | None:
    models, _ = _index(kb)
    base = re.sub(r"\(.*?\)", "", text).strip()
    for cand in (text, base, base.replace("LLaMA", "Llama 1"), base.replace(" Chat", "").replace(" Instruct", "")):
        mid = models.get(normalize_name(cand))
        if mid:
            return mid
    return None


def resolve_gpu(kb: KnowledgeBase, text: str) -> str | None:
    _, gpus = _index(kb)
    base = re.sub(r"\(.*?\)", "", text).strip()
    for cand in (text, base):
        gid = gpus.get(normalize_name(cand))
        if gid:
            return gid
    t = text.lower()
    if "h100" in t:
        return "h100-pcie-80gb" if "pcie" in t else "h100-sxm-80gb"
    if "a100" in t:
        return "a100-sxm-40gb" if "40" in t else "a100-sxm-80gb"
    if "4090" in t:
        return "rtx-4090-24gb"
    return None


# ----------------------------------------------------------------------------- row estimators

def _engine(framework: str) -> str:
    f = framework.lower()
    for key, eng in (("tensorrt", "tensorrt-llm"), ("lmdeploy", "lmdeploy"), ("nim", "nim"),
                     ("llama.cpp", "llama.cpp"), ("vllm", "vllm"), ("sglang", "sglang")):
        if key in f:
            return eng
    return "hf"


def _precision(text: str) -> str:
    t = text.lower()
    m = re.search(r"q\d_k_[sml]|q\d_\d|q\d_k", t)
    if m:
        return m.group(0)
    for key, p in (("fp8", "fp8"), ("nf4", "nf4"), ("awq", "int4"), ("gptq", "int4"), ("int4", "int4"),
                   ("int8", "int8"), ("bf16", "bf16"), ("fp16", "fp16"), ("f16", "fp16")):
        if key in t:
            return p
    return "bf16"


def _num(cond: dict, *keys: str) -> float | None:
    for k in keys:
        v = cond.get(k)
        if isinstance(v, (int, float)):
            return float(v)
    return None


def estimate_row(kb: KnowledgeBase, b: Benchmark) -> Row:
    cond = dict(b.conditions)
    unit = b.unit.lower()
    metric = b.metric.lower()
    model_id = b.model_id or resolve_model(kb, b.model)
    gpu_id = b.gpu_id or resolve_gpu(kb, b.gpu)
    model = kb.models[model_id] if model_id else (generic_model(b.params_b) if b.params_b else None)
    if model is None:
        return Row(b.id, b.kind, b.value, None, b.unit, "skipped: model not resolved")
    prec = _precision(b.precision)

    if b.kind == "memory" and "file size" in metric:
        r = estimate_inference_for(kb, model, kb.gpus["h100-sxm-80gb"], count=None, precision=prec)
        return Row(b.id, "memory", b.value, r.memory.weights_gb, "GB", f"weights at {r.precision}")
    if gpu_id is None and b.kind == "memory" and "48" in b.gpu:
        gpu = kb.gpus["rtx-a6000-48gb"]  # "a single 48GB GPU" (the QLoRA paper's professional GPU)
    elif gpu_id is None:
        return Row(b.id, b.kind, b.value, None, b.unit, f"skipped: GPU {b.gpu!r} not resolved")
    else:
        gpu = kb.gpus[gpu_id]

    if b.kind == "memory":
        method = str(cond.get("method", "")).lower()
        text = (b.precision + " " + method).lower()
        qlora = "nf4" in text or "qlora" in text
        m = re.search(r"max (\d+) tokens", str(cond.get("dataset", "")))
        seq = int(m.group(1)) if m else None
        fw = b.framework.lower()
        kwargs: dict = {}
        if "litgpt" in fw:
            kwargs = dict(lora_rank=8, lora_targets=("q_proj", "v_proj"))
        elif "qlora" in fw or "bitsandbytes" in fw:
            kwargs = dict(lora_rank=64, lora_targets=("all-linear",), gradient_checkpointing=True)
        elif "peft" in fw:
            kwargs = dict(lora_rank=8, lora_targets=("q_proj", "v_proj"))
        r = estimate_finetune_for(kb, model, gpu, method="qlora" if qlora else "lora", seq_len=seq,
                                  micro_batch=int(_num(cond, "micro_batch") or 1),
                                  double_quant="double" in text, **kwargs)
        upper = "upper bound" in unit or "<" in unit
        return Row(b.id, "memory", b.value, r.memory_per_gpu_gb, "GB",
                   f"{r.method} seq {r.seq_len}" + (" (bound)" if upper else ""), upper_bound=upper)

    if b.kind == "training":
        tokens = _num(cond, "tokens_trained", "trained_tokens_logged") or 1e12
        seq = _num(cond, "seq_len", "context")
        count = b.gpu_count or 2048
        tp = _num(cond, "TP")
        pp = _num(cond, "PP")
        r = estimate_training_for(kb, model, gpu, count, tokens, precision=prec if prec in ("fp8",) else "bf16",
                                  seq_len=int(seq) if seq else None,
                                  tensor_parallel=int(tp) if tp else None, pipeline_parallel=int(pp) if pp else None)
        if "gpu-hours" in unit:
            return Row(b.id, "training GPU-hours", b.value, r.gpu_hours, "GPU-h")
        if unit == "percent":
            return Row(b.id, "training MFU", b.value, r.mfu * 100, "%", "steady-state MFU")
        if "tflop" in unit:
            peak, _ = dense_peak_tflops(gpu, "bf16")
            return Row(b.id, "training TFLOP/s", b.value, r.mfu * (peak or 0), "TFLOP/s", "MFU x dense bf16 peak")
        if unit.startswith("seconds"):
            return Row(b.id, "training time", b.value, r.steady_state_wall_clock_hours * 3600, "s",
                       f"{tokens:.3g} tokens, steady state")
        return Row(b.id, b.kind, b.value, None, b.unit, f"skipped: unit {b.unit!r} not handled")

    # inference
    eng = _engine(b.framework)
    tp = _num(cond, "TP")
    count = b.gpu_count or 1
    isl = _num(cond, "isl", "input_len", "prompt_tokens")
    osl = _num(cond, "osl", "output_tokens")
    batch = _num(cond, "batch", "concurrency")
    test = str(cond.get("test", ""))
    if test.startswith("tg"):
        isl, osl = isl or 1, float(test[2:])
    if osl is None and "samples_per_s" in cond:  # derived output tokens per sample
        osl = b.value / float(cond["samples_per_s"])
        isl = isl or osl
    common = dict(count=count, precision=prec, engine=eng, tensor_parallel=int(tp) if tp else None,
                  input_tokens=int(isl) if isl else None, output_tokens=int(osl) if osl else None)
    if "first-token" in metric or "ttft" in metric:
        r = estimate_inference_for(kb, model, gpu, batch_size=1, **{**common, "output_tokens": 1})
        return Row(b.id, "inference latency", b.value, (r.ttft_s or 0) * 1000, "ms", f"TTFT {eng}")
    if "inter-token" in metric:
        r = estimate_inference_for(kb, model, gpu, batch_size=int(batch or 1), **common)
        return Row(b.id, "inference latency", b.value, r.tpot_ms, "ms", f"TPOT {eng}")
    if batch is None:
        r = estimate_inference_for(kb, model, gpu, batch_size="max", **common)
        return Row(b.id, "inference throughput", b.value, r.throughput_tokens_per_s, "tok/s",
                   f"max batch {r.batch_size} x{r.replicas} TP{r.tensor_parallel} {eng}")
    r = estimate_inference_for(kb, model, gpu, batch_size=int(batch), **common)
    est = r.decode_tokens_per_s_per_sequence if test.startswith("tg") else r.throughput_tokens_per_s
    return Row(b.id, "inference throughput", b.value, est, "tok/s", f"batch {int(batch)} {eng}")


def load_rows(kb: KnowledgeBase, path: str | None) -> list[Benchmark]:
    if path is None:
        return list(kb.benchmarks.values())
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    items = raw["benchmarks"] if isinstance(raw, dict) else raw
    out = []
    for item in items:
        item = {k: v for k, v in item.items() if k in Benchmark.model_fields}
        item["date"] = str(item.get("date", "2000"))
        out.append(Benchmark.model_validate(item))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="benchmarks file (benchmarks-calibration.yaml format)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    kb = load_knowledge()
    rows = []
    for b in load_rows(kb, args.file):
        try:
            rows.append(estimate_row(kb, b))
        except Exception as exc:  # noqa: BLE001 - report, do not stop the run
            rows.append(Row(b.id, b.kind, b.value, None, b.unit, f"skipped: {type(exc).__name__}: {exc}"))
    md = args.markdown
    if md:
        print("| id | kind | published | estimate | error | note |\n|---|---|---:|---:|---:|---|")
    else:
        print(f"{'id':45} {'kind':22} {'published':>12} {'estimate':>12} {'error':>8}  note")
    for r in rows:
        err = f"{r.error * 100:+.1f}%" if r.error is not None else "-"
        est = f"{r.estimate:,.4g}" if r.estimate is not None else "-"
        pub = f"{r.published:,.6g}"
        if md:
            print(f"| {r.id} | {r.kind} | {pub} {r.unit} | {est} | {err} | {r.note} |")
        else:
            print(f"{r.id:45} {r.kind:22} {pub:>12} {est:>12} {err:>8}  {r.note}")
    print()
    kinds = sorted({r.kind for r in rows})
    worst = 0.0
    for k in kinds:
        errs = [abs(r.error) for r in rows if r.kind == k and r.error is not None]
        skipped = sum(1 for r in rows if r.kind == k and r.error is None)
        if errs:
            worst = max(worst, *errs)
            line = f"{k}: median |err| {statistics.median(errs) * 100:.1f}% over {len(errs)} rows, max {max(errs) * 100:.1f}%"
        else:
            line = f"{k}: no rows estimated"
        line += f" ({skipped} skipped)" if skipped else ""
        print(("- " if md else "") + line)
    ratio_ok = all(r.estimate is None or r.published is None or
                   (0.5 <= r.estimate / r.published <= 2.0) or (r.upper_bound and r.error == 0.0) for r in rows)
    print(("- " if md else "") + f"every estimated row within 2x: {'yes' if ratio_ok else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
