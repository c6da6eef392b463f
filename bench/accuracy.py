"""Accuracy of the sizing engine against published measurements.

Runs bot.estimation on every benchmark row and prints id, published value, estimate, error % and,
per kind, the median absolute error, the worst rows and the rows skipped with the reason.

Usage::

    python bench/accuracy.py                       # knowledge/benchmarks.yaml via the kb
    python bench/accuracy.py path/to/benchmarks.yaml   # same format (reference files), names resolved
    python bench/accuracy.py --markdown            # a Markdown table (for bench/RESULTS.md)

Targets (issue 15): median |error| per kind: inference throughput and latency <= 10%, MoE decode
<= 20%, training GPU-hours <= 10%, memory <= 5%, non-LLM <= 25%; no row beyond 1.5x. A training or
fine-tuning throughput row whose published figure would need an MFU above 1 (more FLOP/s than the GPUs'
dense peak, with the estimate's own FLOP count and slowdowns: ``needed_mfu`` = MFU x published /
estimate) is listed apart: no efficiency factor can reach it.

Kinds: rows of group ``moe`` are "MoE decode" (whatever their metric), ``non_llm`` rows "non-LLM",
``finetune`` rows "fine-tuning throughput"; other inference rows are "inference latency" (TTFT,
TPOT, inter-token latency) or "inference throughput"; training and memory rows keep their metric
(GPU-hours, MFU, TFLOP/s, time, memory).

Row handling (each metric is mapped to the estimate that measures the same thing; nothing here is
fitted to the rows; conditions come from the row):

* training GPU-hours -> estimate_training(...).gpu_hours (2,048 GPUs when the row gives none);
  MFU (percent) -> steady-state MFU; TFLOP/s per GPU -> MFU x dense peak; MLPerf epoch time ->
  steady-state wall clock for the logged tokens; training tokens/s (per GPU or per job) ->
  estimate_training / estimate_finetune steady-state tokens/s;
* inference: batch/concurrency from the row (``max`` when the row is an offline max-load run);
  per-user decode rates (llama-bench tg, batch-1 decode, interactivity) -> 1 / TPOT; "speed =
  (prompt + generated) / time" -> (input + output) / (TTFT + output x TPOT); "perceived tokens per
  second" -> output / (TTFT + output x TPOT); llama-bench pp -> prompt tokens / TTFT; aggregate
  throughput -> throughput_tokens_per_s, except a benchmark whose prompts are all in flight at once
  (num_prompts <= concurrency), which is one batch: prompts x TTFT + output x TPOT; TTFT, TPOT and
  inter-token latency directly;
* layout (tp, pp, ep, attention DP), engine (from the framework named) and KV dtype come from the
  row's conditions; nothing else is set, so engine defaults (knowledge/engines.yaml) apply, as of the row's
  date where an engine changed its default (llama.cpp fused attention only since 2025-08-19, so an earlier
  llama-bench row without ``-fa`` runs unfused);
* non-LLM rows -> bot.estimation.non_llm (images, transcription, embeddings);
* memory: GGUF file sizes -> weights_gb; LoRA/QLoRA max GPU RAM -> estimate_finetune; rows that
  are upper bounds ("<48GB") count as 0% error when the estimate is below the bound.

Rows are skipped, with the reason printed, when the published run used something the engine does
not model (speculative decoding, prefill/decode disaggregation across nodes) or when the row lacks
what the estimate needs (a GPU not in the knowledge base, unstated sequence lengths, a missing dense
TFLOPS figure). Framework defaults used where a row names a framework but not its settings
(published defaults, not tuned): LitGPT finetune/lora.py r=8 on query+value; artidoro/qlora qlora.py
gradient checkpointing on, LoRA r=64 on all linear layers; HF PEFT README LoRA r=8 q,v; torchtune
LoRA recipes rank 8 on q,v (Llama 3.1 configs); gpt-fast generates 200 tokens. A training row whose
conditions state ``activation_checkpointing``, ``lora_rank`` or ``lora_targets`` (copied from the run's
published config) runs with them; otherwise checkpointing is off.
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
    EstimationError,
    estimate_embeddings,
    estimate_finetune_for,
    estimate_images,
    estimate_inference_for,
    estimate_training_for,
    estimate_transcription,
    generic_model,
)
from bot.estimation.common import dense_peak_tflops  # noqa: E402
from bot.kb.loader import KnowledgeBase, load_knowledge, normalize_name  # noqa: E402
from bot.kb.schema import Benchmark  # noqa: E402

TARGETS = {"inference throughput": 0.10, "inference latency": 0.10, "MoE decode": 0.20,
           "training GPU-hours": 0.10, "memory": 0.05, "non-LLM": 0.25}
MAX_RATIO = 1.5


@dataclass
class Row:
    id: str
    kind: str
    published: float | None
    estimate: float | None
    unit: str
    note: str = ""
    upper_bound: bool = False
    needed_mfu: float | None = None

    @property
    def above_peak(self) -> bool:
        """The published figure needs more FLOP/s than the GPUs' dense peak (an MFU above 1) under the
        estimate's own FLOP count: no efficiency factor can reach it, so the row is reported apart."""
        return self.needed_mfu is not None and self.needed_mfu > 1.0

    @property
    def error(self) -> float | None:
        if self.published is None or self.estimate is None:
            return None
        if self.upper_bound and self.estimate <= self.published:
            return 0.0
        return self.estimate / self.published - 1


class Skip(Exception):
    """A row the estimator cannot be compared on, with the reason."""


# ----------------------------------------------------------------------------- name resolution

def _index(kb: KnowledgeBase) -> tuple[dict[str, str], dict[str, str]]:
    cache = kb._cache.get("bench.accuracy.index")
    if cache:
        return cache
    models = {}
    for m in kb.models.values():
        for n in (m.id, m.name, *m.aliases, *m.default_for):
            models.setdefault(normalize_name(n), m.id)
    gpus = {}
    for g in kb.gpus.values():
        for n in (g.id, g.name, *g.aliases, *g.default_for):
            gpus.setdefault(normalize_name(n), g.id)
    kb._cache["bench.accuracy.index"] = (models, gpus)
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
    for cand in (text, base, " ".join(base.split()[:3])):
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


# ----------------------------------------------------------------------------- condition parsing

def _engine(framework: str) -> str:
    f = framework.lower()
    for key, eng in (("tensorrt", "tensorrt-llm"), ("lmdeploy", "lmdeploy"), ("nim", "nim"),
                     ("llama.cpp", "llama.cpp"), ("gpt-fast", "gpt-fast"), ("sglang", "sglang"), ("vllm", "vllm")):
        if key in f:
            return eng
    if "not restated" in f or "not stated" in f:
        return "vllm"
    return "hf"


def _precision(text: str) -> str:
    t = text.lower()
    m = re.search(r"q\d_k_[sml]|q\d_\d|q\d_k", t)
    if m:
        return m.group(0)
    for key, p in (("nvfp4", "nvfp4"), ("mxfp4", "mxfp4"), ("fp8", "fp8"), ("nf4", "nf4"), ("awq", "int4"),
                   ("gptq", "int4"), ("int4", "int4"), ("int8", "int8"), ("bf16", "bf16"), ("fp16", "fp16"),
                   ("f16", "fp16")):
        if key in t:
            return p
    return "bf16"


def _num(cond: dict, *keys: str) -> float | None:
    for k in keys:
        v = cond.get(k)
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            return float(v)
    return None


def _lead_int(cond: dict, key: str) -> int | None:
    v = cond.get(key)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return int(v)
    m = re.match(r"\s*(\d+)\b", str(v))
    return int(m.group(1)) if m else None


def _kv_dtype(cond: dict) -> str | None:
    v = str(cond.get("kv_cache_dtype", "")).lower()
    if "fp8" in v:
        return "fp8"
    if "fp16" in v or "bf16" in v:
        return "bf16"
    return None


def _fused_attention(kb: KnowledgeBase, eng: str, b: Benchmark) -> bool | None:
    """``False`` when the row's build predates its engine's fused-attention default
    (``fused_attention_since`` in knowledge/engines.yaml) and the row does not say flash attention
    was turned on (``-fa``); ``None`` (the engine default) otherwise."""
    e = kb.engines.get(eng)
    if e is None or e.fused_attention_since is None or not b.date:
        return None
    said = (b.framework + " " + " ".join(f"{k} {v}" for k, v in dict(b.conditions).items())).lower()
    if re.search(r"-fa\b|flash[ _-]?att", said) and not re.search(r"-fa 0|flash[ _-]?attn?\w* (?:off|0|false)", said):
        return None
    return False if str(b.date) < e.fused_attention_since.isoformat()[:len(str(b.date))] else None


def _model(kb: KnowledgeBase, b: Benchmark):
    model_id = b.model_id or resolve_model(kb, b.model)
    if model_id:
        return kb.models[model_id]
    if b.params_b:
        active = _num(dict(b.conditions), "active_params_b")
        return generic_model(b.params_b, active)
    return None


# ----------------------------------------------------------------------------- row estimators

def _training_row(kb, b, model, gpu, prec) -> Row:
    cond = dict(b.conditions)
    unit, metric = b.unit.lower(), b.metric.lower()
    seq = _num(cond, "seq_len", "context")
    count = b.gpu_count or 2048
    if b.group == "finetune" or ("throughput" in metric and "tokens/s" in unit):
        method = str(cond.get("method", "")).lower()
        kind = "fine-tuning throughput" if b.group == "finetune" else "training throughput"
        mb = int(_num(cond, "micro_batch", "batch_size") or 1)
        tokens = 1e9
        pp = _lead_int(cond, "pp")
        # micro-batches per step: gradient accumulation x interleaved (virtual) stages, which divide the bubble
        accum = int((_num(cond, "grad_accum", "gradient_accumulation") or
                     (_num(cond, "local_batch") or mb) / mb) * (_num(cond, "vp") or 1))
        # activation checkpointing as the row's source states it (its published config), else off
        ac = cond.get("activation_checkpointing")
        checkpointing = ac if isinstance(ac, bool) else False
        if "lora" in method or "qlora" in method:
            qlora = "qlora" in method
            rank = int(_num(cond, "lora_rank") or 8)
            targets = tuple(str(cond["lora_targets"]).split(",")) if cond.get("lora_targets") else ("q_proj", "v_proj")
            r = estimate_finetune_for(kb, model, gpu, count=b.gpu_count or 1, method="qlora" if qlora else "lora",
                                      seq_len=int(seq) if seq else None, micro_batch=mb, tokens=tokens,
                                      lora_rank=rank, lora_targets=targets, pipeline_parallel=pp,
                                      gradient_accumulation=accum, gradient_checkpointing=checkpointing)
            est, mfu = r.tokens_per_s, r.mfu
        else:
            r = estimate_training_for(kb, model, gpu, b.gpu_count or 1, tokens, precision="bf16",
                                      seq_len=int(seq) if seq else None, micro_batch=mb, pipeline_parallel=pp,
                                      gradient_accumulation=accum, recompute=checkpointing)
            est = tokens / (r.steady_state_wall_clock_hours * 3600) if r.steady_state_wall_clock_hours else None
            mfu = r.mfu
        if est is not None and "/gpu" in unit:
            est /= (b.gpu_count or 1)
        note = f"{method or 'full'} mb {mb}" + (" recompute" if checkpointing else "")
        # the MFU the estimate would need to give the published figure, with its own FLOP count and slowdowns;
        # above 1 no efficiency can reach it (needed_mfu)
        needed = mfu * b.value / est if est and mfu else None
        return Row(b.id, kind, b.value, est, "tok/s", note, needed_mfu=needed)
    tokens = _num(cond, "tokens_trained", "trained_tokens_logged") or 1e12
    tp, pp = _num(cond, "TP", "tp"), _num(cond, "PP", "pp")
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
    raise Skip(f"unit {b.unit!r} not handled")


def _memory_row(kb, b, model, prec) -> Row:
    cond = dict(b.conditions)
    metric, unit = b.metric.lower(), b.unit.lower()
    if "file size" in metric:
        r = estimate_inference_for(kb, model, kb.gpus["h100-sxm-80gb"], count=None, precision=prec)
        return Row(b.id, "memory", b.value, r.memory.weights_gb, "GB", f"weights at {r.precision}")
    gpu_id = b.gpu_id or resolve_gpu(kb, b.gpu)
    gpu = kb.gpus[gpu_id] if gpu_id else (kb.gpus["rtx-a6000-48gb"] if "48" in b.gpu else None)
    if gpu is None:
        raise Skip(f"GPU {b.gpu!r} not in the knowledge base")
    method = str(cond.get("method", "")).lower()
    text = (b.precision + " " + method).lower()
    qlora = "nf4" in text or "qlora" in text
    m = re.search(r"max (\d+) tokens", str(cond.get("dataset", "")))
    seq = int(m.group(1)) if m else None
    fw = b.framework.lower()
    kwargs: dict = {}
    if "litgpt" in fw:  # finetune/lora.py: no activation checkpointing, QLoRA included
        kwargs = dict(lora_rank=8, lora_targets=("q_proj", "v_proj"), gradient_checkpointing=False)
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


def _inference_kind(b: Benchmark, latency: bool) -> str:
    if b.group == "moe":
        return "MoE decode"
    return "inference latency" if latency else "inference throughput"


def _inference_row(kb, b, model, gpu, prec) -> Row:
    cond = dict(b.conditions)
    unit, metric = b.unit.lower(), b.metric.lower()
    spec = str(cond.get("speculative", "off")).lower()
    if spec not in ("off", "none", "false", ""):
        raise Skip(f"speculative decoding ({cond['speculative']}) is not modelled")
    if any(k in cond for k in ("prefill", "decode")) or "disaggregat" in str(cond.get("layout", "")).lower() \
            or "per node" in unit or "per 8-gpu node" in unit:
        raise Skip("prefill/decode disaggregation across nodes is not modelled")
    if b.gpu_count is None:
        raise Skip("GPU count not stated")
    eng = _engine(b.framework)
    tp = _lead_int(cond, "tp") or _lead_int(cond, "TP")
    pp = _lead_int(cond, "pp")
    ep = _lead_int(cond, "ep")
    adp = bool(cond.get("attention_dp"))
    isl = _num(cond, "input_tokens", "isl", "input_len", "prompt_tokens") or _lead_int(cond, "input_tokens")
    osl = _num(cond, "output_tokens", "osl") or _lead_int(cond, "output_tokens")
    batch = _num(cond, "batch", "concurrency", "peak_concurrent_requests")
    test = str(cond.get("test", "")).split()[0] if cond.get("test") else ""
    if "input_tokens" in cond and isl is None:
        raise Skip("input length not stated")
    if "peak" in metric and isl is None:
        raise Skip("sequence lengths of the peak point not stated")
    if test.startswith("tg"):
        isl, osl = 1, float(test[2:])
    if test.startswith("pp"):
        isl, osl = float(test[2:]), 1
    if eng == "gpt-fast" and osl is None:
        osl = 200
    if osl is None and "samples_per_s" in cond:  # derived output tokens per sample
        osl = b.value / float(cond["samples_per_s"])
        isl = isl or osl
    if model.is_moe is False:
        ep = None
    if ep is not None and tp is not None and tp % ep:
        ep = None
    common = dict(count=b.gpu_count, precision=prec, engine=eng, tensor_parallel=tp, pipeline_parallel=pp,
                  expert_parallel=ep if ep and ep > 1 else None, attention_data_parallel=adp,
                  kv_precision=_kv_dtype(cond), input_tokens=int(isl) if isl else None,
                  output_tokens=int(osl) if osl else None, fused_attention=_fused_attention(kb, eng, b))
    label = f"{eng} TP{tp or '?'}" + (f" EP{ep}" if ep and ep > 1 else "") + (" ADP" if adp else "")

    def est(batch_size):
        r = estimate_inference_for(kb, model, gpu, batch_size=batch_size, **common)
        if r.missing_figures:
            raise Skip(f"no {r.missing_figures[0]} in the knowledge base")
        return r

    if "ttft" in metric or "first-token" in metric:
        r = est(1)
        return Row(b.id, _inference_kind(b, True), b.value, r.ttft_s * 1000, "ms", f"TTFT {label} TP{r.tensor_parallel}")
    if "tpot" in metric or "inter-token" in metric:
        r = est(int(batch or 1))
        return Row(b.id, _inference_kind(b, True), b.value, r.tpot_ms, "ms", f"TPOT {label} b{r.batch_size}")
    if test.startswith("pp"):
        r = est(1)
        return Row(b.id, _inference_kind(b, False), b.value, isl / r.ttft_s, "tok/s", f"prompt {label}")
    if "speed (prompt+generated" in metric:
        r = est(1)
        return Row(b.id, _inference_kind(b, False), b.value, (isl + osl) / (r.ttft_s + osl * r.tpot_ms / 1000),
                   "tok/s", f"(in+out)/time {label} TP{r.tensor_parallel}")
    if "perceived" in metric:
        r = est(int(batch or 1))
        return Row(b.id, _inference_kind(b, False), b.value, osl / (r.ttft_s + osl * r.tpot_ms / 1000), "tok/s/user",
                   f"out/(TTFT+out x TPOT) {label}")
    per_user = (test.startswith("tg") or "per user" in metric or "decode tokens/s" in metric
                or "interactivity" in metric or "generation" in metric or "eval rate" in metric)
    if per_user:
        r = est(int(batch or 1))
        return Row(b.id, _inference_kind(b, False), b.value, r.decode_tokens_per_s_per_sequence, "tok/s/user",
                   f"1/TPOT {label} TP{r.tensor_parallel}x{r.pipeline_stages}")
    r = est("max" if batch is None else int(batch))
    prompts = _num(cond, "num_prompts")
    if prompts and batch and prompts <= batch:
        # a benchmark whose prompts are all in flight at once is one batch: every prompt is prefilled, then the
        # batch decodes; makespan = prompts x prefill time + output x TPOT (no steady state to amortise into)
        makespan = prompts * (r.ttft_s or 0.0) + osl * r.tpot_ms / 1000
        return Row(b.id, _inference_kind(b, False), b.value, prompts * osl / makespan, "tok/s",
                   f"one batch of {int(prompts)} TP{r.tensor_parallel} {label} kv {r.kv_precision}")
    return Row(b.id, _inference_kind(b, False), b.value, r.throughput_tokens_per_s, "tok/s",
               f"batch {r.batch_size} x{r.replicas} TP{r.tensor_parallel} {label} kv {r.kv_precision}")


def _non_llm_row(kb, b, model, gpu) -> Row:
    cond = dict(b.conditions)
    metric, fw = b.metric.lower(), b.framework.lower()
    prec = _precision(b.precision)
    if "transcribe" in metric:
        minutes = _num(cond, "audio_minutes") or 60
        engine = "openai-whisper" if "openai/whisper" in fw else ("faster-whisper" if "faster-whisper" in fw else "hf")
        r = estimate_transcription(kb, model, gpu, audio_hours=minutes / 60, precision=prec, engine=engine,
                                   beam_size=int(_num(cond, "beam_size") or 5), batch_size=int(_num(cond, "batch") or 1),
                                   batched=bool(_num(cond, "batched_batch_size")))
        if r.missing_figures:
            raise Skip(f"no {r.missing_figures[0]} in the knowledge base")
        return Row(b.id, "non-LLM", b.value, r.hours * 3600, "s", f"{engine} RTF {r.real_time_factor:.3f}")
    if "iterations" in metric or "per image" in metric:
        compiled = "compile" in fw and not re.search(r"\bno\b[^,;)]*compile", fw)
        engine = "diffusers-compiled" if compiled else "diffusers"
        res = re.search(r"(\d+)x(\d+)", str(cond.get("resolution", "")))
        w, h = (int(res.group(1)), int(res.group(2))) if res else (None, None)
        steps = _num(cond, "steps") or _lead_int(cond, "steps")
        r = estimate_images(kb, model, gpu, width=w, height=h, steps=int(steps) if steps else None,
                            batch_size=int(_num(cond, "batch") or 1), precision=prec, engine=engine)
        if r.missing_figures:
            raise Skip(f"no {r.missing_figures[0]} in the knowledge base")
        if "per image" in metric:
            return Row(b.id, "non-LLM", b.value, r.seconds_per_image, "s", f"{engine} {r.steps} steps")
        return Row(b.id, "non-LLM", b.value, r.iterations_per_s, "it/s", f"{engine} batch {r.batch_size}")
    if "requests per second" in metric:
        m = re.search(r"(\d+) sentences / ([\d,]+) tokens", str(cond.get("request", "")))
        if not m:
            raise Skip("request size not stated")
        sentences, tokens = int(m.group(1)), int(m.group(2).replace(",", ""))
        engine = "tei" if "text-embeddings-inference" in fw or "tei" in fw else (
            "sentence-transformers" if "sentence-transformers" in fw else "infinity")
        r = estimate_embeddings(kb, model, gpu, tokens_per_document=tokens // sentences, precision=prec, engine=engine)
        if r.missing_figures:
            raise Skip(f"no {r.missing_figures[0]} in the knowledge base")
        return Row(b.id, "non-LLM", b.value, r.tokens_per_s / tokens, "req/s", f"{engine} {r.tokens_per_s:,.0f} tok/s")
    raise Skip(f"metric {b.metric!r} not handled")


def estimate_row(kb: KnowledgeBase, b: Benchmark) -> Row:
    model = _model(kb, b)
    if model is None:
        raise Skip("model not resolved and no parameter count")
    prec = _precision(b.precision)
    if b.kind == "memory":
        return _memory_row(kb, b, model, prec)
    gpu_id = b.gpu_id or resolve_gpu(kb, b.gpu)
    if gpu_id is None:
        raise Skip(f"GPU {b.gpu!r} not in the knowledge base")
    gpu = kb.gpus[gpu_id]
    if b.group == "non_llm" or model.kind != "llm":
        return _non_llm_row(kb, b, model, gpu)
    if b.kind == "training":
        return _training_row(kb, b, model, gpu, prec)
    return _inference_row(kb, b, model, gpu, prec)


def _kind_of(b: Benchmark) -> str:
    if b.kind == "memory":
        return "memory"
    if b.group == "non_llm":
        return "non-LLM"
    if b.group == "finetune":
        return "fine-tuning throughput"
    if b.group == "moe" and b.kind == "inference":
        return "MoE decode"
    if b.kind == "training":
        return "training"
    return "inference"


def load_rows(kb: KnowledgeBase, path: str | None) -> list[Benchmark]:
    if path is None:
        return list(kb.benchmarks.values())
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    items = raw["benchmarks"] if isinstance(raw, dict) else raw
    out = []
    for item in items:
        item = {k: v for k, v in item.items() if k in Benchmark.model_fields}
        date = str(item.get("date", ""))
        item["date"] = date if re.match(r"\d{4}", date) else None
        if item.get("params_b") is None and not item.get("model_id") and not resolve_model(kb, item["model"]):
            continue
        out.append(Benchmark.model_validate(item))
    return out


def run(kb: KnowledgeBase, benches: list[Benchmark]) -> list[Row]:
    """Estimate every row; skipped rows carry the reason in ``note`` and no estimate."""
    rows = []
    for b in benches:
        try:
            rows.append(estimate_row(kb, b))
        except Skip as why:
            rows.append(Row(b.id, _kind_of(b), b.value, None, b.unit, f"skipped: {why}"))
        except (EstimationError, ValueError, KeyError) as exc:
            rows.append(Row(b.id, _kind_of(b), b.value, None, b.unit, f"skipped: {type(exc).__name__}: {exc}"))
    return rows


def summary(rows: list[Row]) -> list[str]:
    """One line per kind: median |error|, rows, worst row, skipped; then the 1.5x check."""
    lines = []
    for k in sorted({r.kind for r in rows}):
        mine = [r for r in rows if r.kind == k and r.error is not None]
        skipped = sum(1 for r in rows if r.kind == k and r.error is None)
        if mine:
            errs = [abs(r.error) for r in mine]
            worst = max(mine, key=lambda r: abs(r.error))
            target = TARGETS.get(k)
            line = (f"{k}: median |err| {statistics.median(errs) * 100:.1f}% over {len(mine)} rows"
                    + (f" (target <= {target * 100:.0f}%)" if target else "")
                    + f", worst {worst.id} {worst.error * 100:+.1f}%")
        else:
            line = f"{k}: no rows estimated"
        lines.append(line + (f"; {skipped} skipped" if skipped else ""))
    outside = [r for r in rows if r.error is not None and not r.upper_bound
               and not (1 / MAX_RATIO <= r.estimate / r.published <= MAX_RATIO)]
    beyond = [r for r in outside if not r.above_peak]
    lines.append(f"rows beyond {MAX_RATIO}x: " + (", ".join(f"{r.id} ({r.estimate / r.published:.2f}x)" for r in beyond)
                                                 if beyond else "none"))
    above = [r for r in outside if r.above_peak]
    if above:
        lines.append("published above the dense peak (would need an MFU above 1 with the estimate's FLOP count; "
                     "not counted above): " + ", ".join(f"{r.id} ({r.estimate / r.published:.2f}x, needs MFU "
                                                        f"{r.needed_mfu:.2f})" for r in above))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="benchmarks file (benchmarks-calibration.yaml format)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    kb = load_knowledge()
    rows = run(kb, load_rows(kb, args.file))
    md = args.markdown
    if md:
        print("| id | kind | published | estimate | error | note |\n|---|---|---:|---:|---:|---|")
    else:
        print(f"{'id':48} {'kind':22} {'published':>12} {'estimate':>12} {'error':>8}  note")
    for r in rows:
        err = f"{r.error * 100:+.1f}%" if r.error is not None else "-"
        est = f"{r.estimate:,.4g}" if r.estimate is not None else "-"
        pub = f"{r.published:,.6g}"
        if md:
            print(f"| {r.id} | {r.kind} | {pub} {r.unit} | {est} | {err} | {r.note} |")
        else:
            print(f"{r.id:48} {r.kind:22} {pub:>12} {est:>12} {err:>8}  {r.note}")
    print()
    for line in summary(rows):
        print(("- " if md else "") + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
