"""Renderers: the same Answer in English and Chinese, Block Kit within Slack's limits, terminal, JSON."""

from __future__ import annotations

import json
import re
from datetime import date

import jsonschema

from bot.advice.answer import Action, Answer, Option, Table
from bot.notes import note
from bot.parsing.query import Query
from bot.render.blockkit import MAX_BLOCKS, MAX_TOTAL_TEXT, escape_mrkdwn, render_blocks, render_message
from bot.render.compose import compose
from bot.render.i18n import Renderer
from bot.render.jsonout import answer_to_dict, render_json
from bot.render.terminal import render_text
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "tests" / "fixtures" / "block-kit.schema.json").read_text(encoding="utf-8"))


def _answer(language: str = "en", **kw) -> Answer:
    base = dict(query=Query(text="q", intent="quote", language=language), intent="quote",
                title=note("title_quote", items=[{"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}], hours=72),
                headline=note("quote_one", config={"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}, hours=72,
                              total_usd=2298.24, provider="Lambda", instance="8x H100", price_usd=31.92,
                              per_gpu_usd=3.99, pricing_model="on_demand", as_of="2026-09-20"),
                details=[note("priced_per_hour")],
                table=Table(columns=["config", "usd_per_hour", "total_usd"],
                            rows=[[{"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}, 31.92, 2298.24]] * 8),
                options=[Option(gpu="h100-sxm-80gb", gpu_count=8)], recommendation=0,
                assumptions=[note("one_user"), note("priced_per_hour"), note("dense_not_sparse"), note("prompt_is_context")],
                sources=["s1"], price_as_of=[date(2026, 9, 20)],
                actions=[Action(action_id="show_assumptions", label=note("button_show_assumptions"))])
    base.update(kw)
    return Answer(**base)


def _valid(blocks):
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(blocks))
    assert not errors, jsonschema.exceptions.best_match(errors).message


def test_formatting_by_unit_suffix():
    r = Renderer("en")
    assert r.value("total_usd", 2298.24) == "$2,298"
    assert r.value("price_usd", 31.92) == "$31.92"
    assert r.value("hours", 72) == "72 h (3.0 days)"
    assert r.value("context_tokens", 8192) == "8,192"
    assert r.value("tokens_tokens", 1.4e12) == "1.4T"
    zh = Renderer("zh")
    assert zh.value("hours", 72) == "72 小时（3.0 天）"
    assert zh.value("tokens_tokens", 1.4e12) == "1.4 万亿"
    assert zh.value("total_usd", 148600) == "$14.9 万"
    assert Renderer("zh", cny_per_usd=6.8012).value("total_usd", 100) == "¥680.12"


def test_optional_parts_drop_when_a_value_is_missing():
    r = Renderer("en")
    with_price = r.say(note("serve_one", config={"gpu_count": 1, "gpu_name": "L4"}, model_name="M", decode_tps=12.5,
                            ttft_s=None, mem_gb=10.0, usable_gb=24.0, price_usd=0.7, provider="RunPod"))
    assert "first token" not in with_price and "$0.70/h on RunPod" in with_price
    assert r.say(note("serve_one", config={"gpu_count": 1, "gpu_name": "L4"}, model_name="M", decode_tps=12.5,
                      mem_gb=10.0, usable_gb=24.0)).endswith("GB per GPU.")


def test_same_answer_in_two_languages():
    en, zh = compose(_answer("en")), compose(_answer("zh"))
    assert en.headline.startswith("8x H100 SXM5 80GB for 72 h (3.0 days): $2,298 at Lambda")
    assert zh.headline.startswith("8 张 H100 SXM5 80GB 用 72 小时（3.0 天）：Lambda 共 $2,298")
    assert en.columns == ["config", "$/h", "total"] and zh.columns == ["配置", "每小时", "总价"]


def test_blocks_validate_lead_with_the_result_and_say_cuts():
    blocks = render_blocks(_answer(), action_context="abc")
    _valid(blocks)
    assert blocks[0]["type"] == "header" and blocks[1]["text"]["text"].startswith("*8x H100")
    table = next(b for b in blocks if b["type"] == "section" and "```" in b["text"]["text"])
    assert table["text"]["text"].count("H100") == 5  # five rows shown ...
    assert "+3 more rows" in table["text"]["text"]   # ... and the cut is said
    button = blocks[-1]["elements"][0]
    assert json.loads(button["value"]) == {"c": "abc", "v": ""}


def test_user_text_is_escaped_so_nobody_is_pinged():
    message = render_message(_answer(examples=["<!channel> please"]))
    dumped = json.dumps(message)
    assert "<!channel>" not in dumped
    assert escape_mrkdwn("a & b < c > d") == "a &amp; b &lt; c &gt; d"


def test_limits_hold_for_huge_answers():
    huge = _answer(details=[note("not_understood", items=["x" * 500] * 20)] * 30,
                   table=Table(columns=["config"] * 8, rows=[["cell" * 40] * 8] * 200))
    blocks = render_blocks(huge, show_all=True)
    _valid(blocks)
    assert len(blocks) <= MAX_BLOCKS and len(json.dumps(blocks)) <= MAX_TOTAL_TEXT


def test_terminal_is_short_by_default_and_complete_with_verbose():
    short, full = render_text(_answer()), render_text(_answer(), verbose=True)
    assert len(short.splitlines()) <= 20 and "Assumptions:" not in short
    assert "Assumptions:" in full and len(re.findall("H100 SXM5", full)) >= 8


def test_json_is_the_typed_answer_plus_its_text():
    data = answer_to_dict(_answer("zh"))
    assert data["headline"]["code"] == "quote_one" and data["text"]["language"] == "zh"
    assert json.loads(render_json(_answer()))["text"]["headline"].startswith("8x H100")
