"""parse_question over the dev question set (tests/data/questions-dev.yaml, a copy of the shared file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from bot.parsing import parse_question
from bot.parsing.query import Query

DEV_FILE = Path(__file__).parent / "data" / "questions-dev.yaml"
ENTRIES = yaml.safe_load(DEV_FILE.read_text(encoding="utf-8"))
OTHER_OK = {"unknown", "diagnose", "help"}


def _intent_ok(expected: str, got: str) -> bool:
    return got == expected or (expected == "other" and got in OTHER_OK)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_every_dev_question_parses(kb, entry):
    query = parse_question(entry.get("question") or "", kb)
    assert isinstance(query, Query)
    assert not any("could not be parsed" in n for n in query.notes)
    for gpu in query.gpus:
        assert gpu.id in kb.gpus
    if query.model and query.model.id:
        assert query.model.id in kb.models


def test_dev_intent_accuracy_at_least_90_percent(kb):
    misses = [(e["id"], e["intent"], q.intent) for e in ENTRIES
              if not _intent_ok(e["intent"], (q := parse_question(e.get("question") or "", kb)).intent)]
    accuracy = 1 - len(misses) / len(ENTRIES)
    assert accuracy >= 0.9, misses


def test_dev_gpu_model_precision_scores_meet_targets(kb):
    """The same scoring as bench/parse_eval.py (see its docstring for the rules)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.parse_eval import score

    totals: dict[str, list[int]] = {}
    for entry in ENTRIES:
        for aspect, result in score(entry, parse_question(entry.get("question") or "", kb), kb).items():
            if result is not None:
                totals.setdefault(aspect, []).append(result[0])
    assert sum(totals["gpus"]) / len(totals["gpus"]) >= 0.95
    assert sum(totals["model"]) / len(totals["model"]) >= 0.95
