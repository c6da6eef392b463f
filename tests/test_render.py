"""Renderers: Block Kit within Slack's limits and schema, escaping, terminal and JSON."""

from __future__ import annotations

import json

import jsonschema

from bot.advice.answer import Action, Answer, Option, Table
from bot.parsing.query import Query
from bot.render.blockkit import MAX_BLOCKS, MAX_TOTAL_TEXT, escape_mrkdwn, render_blocks, render_message
from bot.render.jsonout import answer_to_dict
from bot.render.terminal import render_text
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "fixtures" / "block-kit.schema.json").read_text(encoding="utf-8"))


def _answer(**kw) -> Answer:
    base = dict(query=Query(text="q", intent="compare"), intent="compare", title="H100 vs A100", verdict="Pick H100.",
                details=["a detail"], table=Table(columns=["config", "$/h"], rows=[["2x H100", "$6.18"]]),
                options=[Option(label="2x H100", gpu="h100-sxm-80gb", gpu_count=2, fits=True)], recommendation=0,
                assumptions=["a1", "a2", "a3", "a4"], sources=["s1"], price_dates="Prices: as of 2026-09-20",
                actions=[Action(action_id="show_assumptions", label="Show assumptions")])
    base.update(kw)
    return Answer(**base)


def _valid(blocks):
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(blocks))
    assert not errors, jsonschema.exceptions.best_match(errors).message


def test_blocks_validate_and_have_the_parts():
    blocks = render_blocks(_answer(), action_context="abc")
    _valid(blocks)
    assert [b["type"] for b in blocks] == ["header", "section", "section", "section", "divider", "context", "actions"]
    button = blocks[-1]["elements"][0]
    assert json.loads(button["value"]) == {"c": "abc", "v": ""}
    assert "(+1 more)" in blocks[5]["elements"][0]["text"]  # three assumptions shown, one more on request


def test_show_assumptions_lists_all():
    blocks = render_blocks(_answer(), show_assumptions=True)
    assert "a4" in json.dumps(blocks)


def test_user_text_is_escaped_so_nobody_is_pinged():
    answer = _answer(verdict="Ask <!channel> & <@U1> about <https://x|y>",
                     warnings=["I don't know \"<!here>\""], table=Table(columns=["c"], rows=[["<!channel>"]]))
    message = render_message(answer)
    dumped = json.dumps(message)
    assert "<!channel>" not in dumped and "<@U1>" not in dumped and "<!here>" not in dumped
    assert "&lt;!channel&gt; &amp; &lt;@U1&gt;" in dumped
    assert escape_mrkdwn("a & b < c > d") == "a &amp; b &lt; c &gt; d"


def test_limits_hold_for_huge_answers():
    huge = _answer(title="T" * 400, verdict="V" * 5000, details=["D" * 4000] * 5,
                   table=Table(columns=["x"] * 8, rows=[["cell" * 20] * 8] * 200),
                   warnings=["W" * 500] * 30, assumptions=["A" * 300] * 50, sources=["S" * 300] * 50,
                   actions=[Action(action_id="quote_this", label="L" * 200, value="v" * 3000)] * 7)
    blocks = render_blocks(huge)
    _valid(blocks)
    assert len(blocks) <= MAX_BLOCKS
    assert len(json.dumps(blocks)) <= MAX_TOTAL_TEXT
    header = blocks[0]
    assert len(header["text"]["text"]) <= 150
    for b in blocks:
        if b["type"] == "section":
            assert len(b["text"]["text"]) <= 3000
        if b["type"] == "actions":
            assert all(len(e["text"]["text"]) <= 75 for e in b["elements"])


def test_terminal_aligns_columns():
    text = render_text(_answer(table=Table(columns=["config", "$/h"], rows=[["2x H100 SXM5 80GB", "$6.18"],
                                                                          ["1x A100", "$1.00"]])))
    lines = text.splitlines()
    row1 = next(line for line in lines if line.startswith("2x H100"))
    row2 = next(line for line in lines if line.startswith("1x A100"))
    assert row1.index("$6.18") == row2.index("$1.00")


def test_json_carries_query_and_options():
    data = answer_to_dict(_answer())
    assert data["query"]["text"] == "q"
    assert data["options"][0]["gpu"] == "h100-sxm-80gb"
    assert data["recommendation"] == 0
    assert data["text"].startswith("H100 vs A100\nPick H100.")


def test_show_assumptions_reply_lists_them_only():
    from bot.render.blockkit import render_assumptions

    message = render_assumptions(_answer(assumptions=[f"assumption {i}" for i in range(200)]))
    _valid(message["blocks"])
    dumped = json.dumps(message["blocks"])
    assert "assumption 0" in dumped and "assumption 199" in dumped
    assert "actions" not in [b["type"] for b in message["blocks"]]  # no buttons: nothing to loop on
