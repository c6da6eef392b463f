"""Named clouds without sourced prices (knowledge/prices/common/unpriced_providers.yaml)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.errors import KnowledgeError
from bot.kb.loader import load_knowledge

KNOWLEDGE = Path(__file__).resolve().parents[1] / "knowledge"


def test_unpriced_clouds_are_loaded_and_never_hide_a_priced_one(kb):
    assert kb.unpriced_providers["aliyun"].market == "china_mainland"
    assert not set(kb.unpriced_providers) & set(kb.providers)


def test_a_priced_provider_listed_as_unpriced_is_a_file_line_error(tmp_path):
    target = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, target)
    path = target / "prices" / "common" / "unpriced_providers.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "- id: lambda\n  name: Lambda again\n", encoding="utf-8")
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(target)
    assert "unpriced_providers.yaml:" in str(exc.value) and "'lambda' is priced or listed twice" in str(exc.value)
