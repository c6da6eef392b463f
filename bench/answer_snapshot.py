"""Snapshot every answer to the question sets, to check that a speed change changes no answer.

Usage: ``python bench/answer_snapshot.py OUT.json`` writes, for each question in
``tests/data/questions-*.yaml``, the verbose terminal text, the JSON answer and the Block Kit message of
``respond_to``; ``python bench/answer_snapshot.py OUT.json --compare BEFORE.json`` also lists every question
whose rendering differs (exit status 1 when any does).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from bot.advice.conversation import respond_to
from bot.kb.loader import get_knowledge
from bot.render.blockkit import render_message
from bot.render.jsonout import render_json
from bot.render.terminal import render_text

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def snapshot(data: Path = DATA) -> dict[str, dict[str, str]]:
    """Render every question of every set.

    Args:
        data: the folder holding ``questions-*.yaml``.

    Returns:
        ``{"<file>:<id>": {"text": ..., "json": ..., "blocks": ...}}``, each value a string.
    """
    kb = get_knowledge()
    out: dict[str, dict[str, str]] = {}
    for path in sorted(data.glob("questions-*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")):
            answer = respond_to(item["question"], kb=kb).answer
            out[f"{path.stem}:{item['id']}"] = {
                "text": render_text(answer, verbose=True),
                "json": render_json(answer, indent=1),
                "blocks": json.dumps(render_message(answer), sort_keys=True, ensure_ascii=False),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, help="an earlier snapshot to compare with")
    parser.add_argument("--data", type=Path, default=DATA, help="folder of questions-*.yaml")
    args = parser.parse_args()
    snap = snapshot(args.data)
    args.out.write_text(json.dumps(snap, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(snap)} answers written to {args.out}")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        differ = sorted(k for k in before.keys() | snap.keys() if before.get(k) != snap.get(k))
        for key in differ:
            kinds = [f for f in ("text", "json", "blocks") if (before.get(key) or {}).get(f) != (snap.get(key) or {}).get(f)]
            print(f"differs: {key} ({', '.join(kinds)})")
        print(f"{len(differ)} of {len(snap)} answers differ")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
