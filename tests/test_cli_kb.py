"""``gpu-advisor kb ...`` commands, run in-process through ``bot.cli.main``."""

from __future__ import annotations

import json
import subprocess
import sys

from bot.cli import main
from bot.kb.loader import set_knowledge
from tests.conftest import REPO, TINY_GPUS, write_tiny_kb


def test_kb_validate_ok(capsys):
    assert main(["kb", "validate", str(REPO / "knowledge")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ")
    # 156 rows of cloud_prices.yaml + 115 of cloud_prices_2026-12.yaml (AWS 51, AWS China 28, GCP 31, CoreWeave 4,
    # Gongji 1; the all-upfront 3-year rates are their own rows); AWS China and Gongji are new providers. 99 benchmarks:
    # 89 + 4 Qwen3 AWQ-INT4 (H20), 5 ModelLink 7-8B (Ascend 910B), 1 faster-whisper batched (2026-12-02).
    assert "86 GPUs, 110 models, 285 price offers from 12 providers, 99 benchmarks, 14 claims" in out


def test_kb_validate_broken_dir_lists_each_error(tmp_path, capsys):
    kdir = write_tiny_kb(tmp_path, gpus=TINY_GPUS.replace("memory_gb: 80\n", "memory_gb: -1\n"))
    assert main(["kb", "validate", str(kdir)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("knowledge/gpus.yaml:7: memory_gb: ")
    assert err[-1] == f"2 error(s) in {kdir}"


def test_kb_stats_counts(capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_KNOWLEDGE", str(REPO / "knowledge"))
    set_knowledge(None)
    try:
        assert main(["kb", "stats"]) == 0
    finally:
        set_knowledge(None)
    out = capsys.readouterr().out
    assert "GPUs: 86" in out and "models: 110" in out
    # C01-C14: misleading C01 C04 C11; needs_context C03 C05 C08; true C12 C13 C14; false C06 C07;
    # unverified C09 C10; partly_true C02 (h100-article-claims.yaml verdicts).
    assert "claims: 14 (misleading 3, needs_context 3, true 3, false 2, unverified 2, partly_true 1)" in out
    # 113 undated SkyPilot snapshot rows + the undated Gongji RTX 5090 row of cloud_prices_2026-12.yaml
    assert "price dates: oldest 2025-08-18, newest 2026-11-09, undated 114" in out


def test_env_var_points_at_another_knowledge_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_KNOWLEDGE", str(write_tiny_kb(tmp_path)))
    set_knowledge(None)
    try:
        assert main(["kb", "stats"]) == 0
    finally:
        set_knowledge(None)
    assert "GPUs: 2 " in capsys.readouterr().out


def test_kb_show_fuzzy_with_sources(capsys):
    assert main(["kb", "show", "Telsa", "P40"]) == 0
    out = capsys.readouterr().out
    assert "closest gpu: 'Tesla P40'" in out
    assert "id: p40-24gb" in out
    assert "sources:" in out


def test_kb_show_unknown_exits_2_with_suggestions(capsys):
    assert main(["kb", "show", "RTX 3050"]) == 2
    err = capsys.readouterr().err
    assert "unknown GPU, model or instance 'RTX 3050'" in err
    assert "Did you mean" in err


def test_kb_stale_lists_undated_and_old(capsys, monkeypatch):
    from datetime import date

    import bot.cli as cli

    monkeypatch.setattr(cli, "_today", lambda: date(2026, 11, 29))
    assert main(["kb", "stale", "--days", "90"]) == 0
    out = capsys.readouterr().out.splitlines()
    # 113 undated + dated offers before 2026-08-31 (DigitalOcean 2026-05-28: 5, AWS PR 2025-08-18: 2) = 120, plus the
    # 2026-12 rows: AWS 51 (2025-11-30), AWS China 28 (2026-01-21), GCP 30 (2026-08-20), Gongji 1 (undated) = 230.
    assert out[-1] == "244 of 285 offers are older than 90 days (before 2026-08-31) or undated"


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "kb", "validate"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_kb_import_skypilot_prints_entries(capsys):
    assert main(["kb", "import-skypilot", str(REPO / "tests/fixtures/importers/aws_vms.csv"), "--provider", "aws"]) == 0
    captured = capsys.readouterr()
    assert "instance_type: p4d.24xlarge" in captured.out
    assert "price_per_hour_usd: 32.7726" in captured.out
    assert "Price blank" in captured.err  # the p5e row has no on-demand price


def test_kb_import_hf_config_warns_on_declared_size(capsys):
    config = REPO / "tests/fixtures/importers/llama-2-7b-config.json"
    assert main(["kb", "import-hf-config", str(config), "--id", "my-7b", "--declared-params-b", "7"]) == 0
    captured = capsys.readouterr()
    assert "params_total_b: 6.738415616" in captured.out
    assert "differs from the computed 6.738415616B by 3.9%" in captured.err


def test_estimate_training_accepts_token_suffixes(capsys):
    assert main(["estimate", "training", "--model", "llama 2 7b", "--gpu", "a100 80gb", "--count", "512",
                 "--tokens", "2T", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"] == 2e12
    # Meta's Llama 2 model card: 184,320 A100-80GB GPU-hours for 7B on 2T tokens; within 15%.
    assert abs(data["gpu_hours"] / 184320 - 1) < 0.15


def test_estimate_unknown_model_exits_2(capsys):
    assert main(["estimate", "inference", "--model", "llama 9 70b", "--gpu", "H100"]) == 2
    assert "Did you mean" in capsys.readouterr().err
