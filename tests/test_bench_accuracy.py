"""bench/accuracy.py: rows read the settings their sources publish, and a published figure above the dense peak
is reported apart from the 1.5x check (issue 15)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "bench" / "accuracy.py"
_spec = importlib.util.spec_from_file_location("bench_accuracy", _PATH)
accuracy = importlib.util.module_from_spec(_spec)
sys.modules["bench_accuracy"] = accuracy  # dataclasses look their module up while the class is built
_spec.loader.exec_module(accuracy)


def test_automodel_lora_row_runs_with_the_configs_activation_checkpointing(kb):
    # NeMo AutoModel Llama 3 70B LoRA on 8x H100 (TP2 x PP4, 10 virtual stages, 4 micro-batches of 1 x 4,096 tokens):
    # its benchmark configs set activation_checkpointing: true, so LoRA costs 4ND + 2ND (recompute) = 6ND.
    # per token: 6 x 70.55e9 = 4.233e11 + attention 12 x 8,192 x 80 x 4,096 = 3.221e10 -> 4.555e11 FLOPs;
    # per GPU 989 TFLOPS x MFU 0.42 = 415.4 TFLOP/s; bubble 3 / (40 + 3) -> x 43/40;
    # 415.4e12 / (4.555e11 x 1.075) = 848 tokens/s per GPU (published 608.42; 4ND without recompute gave 1,272)
    row = accuracy.estimate_row(kb, kb.benchmarks["ft-automodel-llama3-70b-lora-8xh100"])
    assert "recompute" in row.note
    assert row.estimate == pytest.approx(848.3, rel=0.01)
    assert row.estimate / row.published < accuracy.MAX_RATIO


def test_a6000_lora_row_needs_more_than_the_dense_peak(kb):
    # torchtune Llama 3.1 8B LoRA, one RTX A6000, 2 x 2,048 packed tokens, no checkpointing (30.3 GiB peak):
    # per token 4 x 8.03e9 = 3.212e10 + attention 2/3 x 12 x 4,096 x 32 x 2,048 = 2.147e9 -> 3.427e10 FLOPs;
    # 4,699 tokens/s x 3.427e10 = 161.0 TFLOP/s = 1.04 x the A6000's 154.8 dense bf16 TFLOPS
    row = accuracy.estimate_row(kb, kb.benchmarks["ft-torchtune-llama31-8b-lora-a6000"])
    assert row.needed_mfu == pytest.approx(1.040, abs=0.005)
    assert row.above_peak
    # the same table's RTX 4090 LoRA row (3,083 tokens/s) needs 3,083 x 3.427e10 / 165.2e12 = 0.64 of its peak
    r4090 = accuracy.estimate_row(kb, kb.benchmarks["ft-torchtune-llama31-8b-lora-4090"])
    assert r4090.needed_mfu == pytest.approx(0.640, abs=0.005)
    assert not r4090.above_peak


def test_summary_lists_rows_above_the_dense_peak_apart():
    Row = accuracy.Row
    rows = [Row("a", "fine-tuning throughput", 4699.0, 2349.0, "tok/s", needed_mfu=1.04),
            Row("b", "fine-tuning throughput", 1000.0, 400.0, "tok/s", needed_mfu=0.9),
            Row("c", "fine-tuning throughput", 1000.0, 1100.0, "tok/s", needed_mfu=0.5)]
    lines = accuracy.summary(rows)
    beyond = next(line for line in lines if line.startswith("rows beyond"))
    above = next(line for line in lines if line.startswith("published above the dense peak"))
    assert "b (0.40x)" in beyond and "a (" not in beyond
    assert "a (0.50x, needs MFU 1.04)" in above
