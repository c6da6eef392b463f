"""The Slack message renderer (bot/render/blockkit.py) against Slack's limits: 50 blocks, 3,000 characters per
section, 12,000 characters of text in all (https://api.slack.com/reference/block-kit/blocks); a cut is always
said, in the answer's language, and a long table is split between rows, never cut inside one."""

from __future__ import annotations

import json

import jsonschema
import pytest

from bot.advice.answer import Action, Answer, Table
from bot.notes import note
from bot.parsing.query import Query
from bot.render.blockkit import MAX_BLOCKS, MAX_SECTION_TEXT, MAX_TOTAL_TEXT, TABLE_ROWS, render_message
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "fixtures" / "block-kit.schema.json").read_text(encoding="utf-8"))


def _answer(language: str = "en", **kw) -> Answer:
    base = dict(query=Query(text="q", intent="quote", language=language), intent="quote",
                title=note("title_quote", items=[{"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}], hours=72),
                headline=note("quote_one", config={"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}, hours=72,
                              total_usd=2298.24, provider="Lambda", instance="8x H100", price_usd=31.92,
                              per_gpu_usd=3.99, pricing_model="on_demand", as_of="2026-09-20"),
                assumptions=[note("one_user")], sources=["s1"],
                actions=[Action(action_id="show_assumptions", label=note("button_show_assumptions"))])
    base.update(kw)
    return Answer(**base)


def _giant(language: str) -> Answer:
    return _answer(language, details=[note("not_understood", items=["x" * 400] * 6)] * 30,
                   table=Table(columns=["config"] * 8, rows=[["cell" * 30] * 8] * 200),
                   warnings=[note("not_understood", items=["w" * 300])] * 40)


def _check(blocks: list[dict]) -> None:
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(blocks))
    assert not errors, jsonschema.exceptions.best_match(errors).message
    assert len(blocks) <= MAX_BLOCKS
    assert len(json.dumps(blocks, ensure_ascii=False)) <= MAX_TOTAL_TEXT
    assert all(len(b["text"]["text"]) <= MAX_SECTION_TEXT for b in blocks if b["type"] == "section")


@pytest.mark.parametrize(("language", "said"), [
    ("en", "_(Shortened to fit Slack's message limits: "),
    ("zh", "_（为符合 Slack 的消息长度限制，本回答有 "),
])
def test_a_giant_answer_is_cut_to_slacks_limits_and_the_cut_is_said(language, said):
    blocks = render_message(_giant(language), show_all=True, action_context="c1")["blocks"]
    _check(blocks)
    assert blocks[0]["type"] == "header" and blocks[1]["text"]["text"].startswith("*")  # the result first
    assert blocks[2]["text"]["text"].startswith(said)  # the cut, right under the headline
    assert blocks[-1]["type"] == "actions"  # the buttons are never cut


def test_an_answer_within_the_limits_is_not_shortened():
    blocks = render_message(_answer(table=Table(columns=["config"], rows=[["a"]] * 3)))["blocks"]
    _check(blocks)
    assert "Shortened" not in json.dumps(blocks)


def test_a_long_table_is_split_between_rows_never_inside_one():
    # 40 rows of 2 x 60 characters (~125 per line): ~5,000 characters, more than one section holds
    rows = [[f"row {i:02d} " + "a" * 53, "b" * 60] for i in range(40)]
    blocks = render_message(_answer(table=Table(columns=["config", "provider"], rows=rows)), show_all=True)["blocks"]
    _check(blocks)
    tables = [b["text"]["text"] for b in blocks if b["type"] == "section" and b["text"]["text"].startswith("```")]
    assert len(tables) == 2
    shown = [line for t in tables for line in t.split("```")[1].split("\n")[2:]]  # each part repeats the header
    assert [line[:6] for line in shown] == [f"row {i:02d}" for i in range(40)]
    assert all(line.endswith("b" * 60) for line in shown)  # no row cut


def test_a_short_table_shows_five_rows_and_says_how_many_more():
    rows = [[f"r{i}"] for i in range(8)]
    blocks = render_message(_answer(table=Table(columns=["config"], rows=rows)))["blocks"]
    table = next(b["text"]["text"] for b in blocks if b["type"] == "section" and b["text"]["text"].startswith("```"))
    assert TABLE_ROWS == 5 and table.count("\nr") == 5
    assert table.endswith("+3 more rows: press Show all options")


def test_a_column_without_any_value_is_left_out_of_the_slack_table():
    # no price for any option: "$/h" and "total" would print n/a down the table; a column with one value stays
    table = Table(columns=["config", "usd_per_hour", "total_usd"],
                  rows=[[{"gpu_count": 2, "gpu_name": "RTX 3090"}, None, None],
                        [{"gpu_count": 4, "gpu_name": "RTX 3090"}, None, 120.0]])
    text = next(b["text"]["text"] for b in render_message(_answer(table=table))["blocks"]
                if b["type"] == "section" and b["text"]["text"].startswith("```"))
    header = text.split("```")[1].split("\n")[0].split()
    assert header == ["config", "total"]
