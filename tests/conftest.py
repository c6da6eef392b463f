"""Shared fixtures: the real knowledge base (loaded once per session) and a tiny valid one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bot.kb.loader import KnowledgeBase, load_knowledge

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The bundled knowledge base."""
    return load_knowledge(REPO / "knowledge")


TINY_GPUS = textwrap.dedent("""\
    gpus:
    - id: h100-sxm-80gb
      name: H100 SXM5 80GB
      vendor: NVIDIA
      architecture: Hopper
      compute_capability: '9.0'
      memory_gb: 80
      memory_bandwidth_gb_s: 3350
      dense_tflops: {bf16: 989, fp16: 989, fp8: 1979}
      sparse_tflops: {bf16_fp16: 1979, fp8: 3958}
      supported_precisions: [fp32, bf16, fp16, fp8]
      form_factor: SXM5
      segment: datacenter
      launch_year: 2022
      aliases: [H100 SXM]
      default_for: [H100]
      sources: [https://example.org/h100]
      as_of: 2026-11-29
    - id: a100-sxm-80gb
      name: A100 SXM4 80GB
      vendor: NVIDIA
      architecture: Ampere
      compute_capability: '8.0'
      memory_gb: 80
      memory_bandwidth_gb_s: 2039
      dense_tflops: {bf16: 312, fp16: 312}
      supported_precisions: [fp32, bf16, fp16, int8]
      form_factor: SXM4
      segment: datacenter
      launch_year: 2020
      aliases: [A100 SXM]
      default_for: [A100]
      sources: [https://example.org/a100]
      as_of: 2026-11-29
    """)

TINY_MODELS = textwrap.dedent("""\
    models:
    - id: llama-2-7b
      name: Llama 2 7B
      family: llama
      params_total_b: 6.738415616
      num_hidden_layers: 32
      hidden_size: 4096
      num_attention_heads: 32
      num_key_value_heads: 32
      vocab_size: 32000
      aliases: [llama2 7b]
      sources: [https://example.org/llama2]
      as_of: 2026-11-29
    """)

TINY_PRICES = textwrap.dedent("""\
    provider: acme
    provider_name: Acme Cloud
    offers:
    - provider: acme
      instance_type: big-8
      gpu: h100-sxm-80gb
      gpu_count: 8
      price_per_hour_usd: 40.0
      as_of: 2026-10-01
      source: https://example.org/acme
    """)

TINY_BENCHMARKS = textwrap.dedent("""\
    benchmarks:
    - id: bench-1
      kind: inference
      model: Llama 2 7B
      model_id: llama-2-7b
      gpu: H100
      gpu_id: h100-sxm-80gb
      gpu_count: 1
      precision: fp16
      framework: vllm
      metric: tokens/s
      value: 100
      unit: tokens/s
      source: https://example.org/bench
      date: 2024-01
    """)


def write_tiny_kb(root: Path, **overrides: str) -> Path:
    """Write a small valid knowledge directory under ``root``; ``overrides`` replace whole files.

    Keys: ``gpus``, ``models``, ``prices`` (prices/acme.yaml), ``benchmarks``.
    """
    files = {"gpus": TINY_GPUS, "models": TINY_MODELS, "prices": TINY_PRICES, "benchmarks": TINY_BENCHMARKS}
    files.update(overrides)
    kdir = root / "knowledge"
    (kdir / "prices").mkdir(parents=True, exist_ok=True)
    (kdir / "gpus.yaml").write_text(files["gpus"], encoding="utf-8")
    (kdir / "models.yaml").write_text(files["models"], encoding="utf-8")
    (kdir / "prices" / "acme.yaml").write_text(files["prices"], encoding="utf-8")
    (kdir / "benchmarks.yaml").write_text(files["benchmarks"], encoding="utf-8")
    return kdir


@pytest.fixture
def tiny_kb_dir(tmp_path: Path) -> Path:
    """A small valid knowledge directory in ``tmp_path``."""
    return write_tiny_kb(tmp_path)
