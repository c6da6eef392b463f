"""Every development question answers without raising and renders to valid Block Kit within Slack's limits."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from bot.advice.conversation import respond_to
from bot.render.blockkit import MAX_BLOCKS, MAX_TOTAL_TEXT, render_message
from bot.render.compose import compose
from bot.render.jsonout import render_json
from bot.render.terminal import render_text

DATA = Path(__file__).parent / "data" / "questions-dev.yaml"
QUESTIONS = [q["question"] for q in yaml.safe_load(DATA.read_text(encoding="utf-8"))]
SCHEMA = json.loads((Path(__file__).parent / "fixtures" / "block-kit.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


@pytest.mark.parametrize("question", QUESTIONS, ids=[f"q{i}" for i in range(len(QUESTIONS))])
def test_dev_question_renders_everywhere(kb, question):
    answer = respond_to(question, kb=kb).answer
    message = render_message(answer, action_context="ctx")
    blocks = message["blocks"]
    errors = list(VALIDATOR.iter_errors(blocks))
    assert not errors, jsonschema.exceptions.best_match(errors).message
    assert len(blocks) <= MAX_BLOCKS
    assert len(json.dumps(blocks)) <= MAX_TOTAL_TEXT
    assert compose(answer).headline
    assert len(render_text(answer).splitlines()) <= 22  # the result first, short by default
    assert json.loads(render_json(answer))["query"]["text"] is not None


def test_echoed_user_text_never_pings(kb):
    answer = respond_to("<!channel> H100 vs <@U123> A100 & <!here> for Llama 2 70B? also \"<b>bold</b>\"", kb=kb).answer
    dumped = json.dumps(render_message(answer))
    for raw in ("<!channel>", "<@U123>", "<!here>", "<b>"):
        assert raw not in dumped
