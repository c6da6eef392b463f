"""The Slack layer reaches the advice core through one seam (bot/slack/answering.py), so the core's API
can change in one place; and the seam's requests and replies cross process boundaries (picklable)."""

from __future__ import annotations

import ast
import json
import pickle
from pathlib import Path

from bot.kb.loader import get_knowledge
from bot.slack.answering import AnswerRequest, Reply, answer_message
from tests.conftest import REPO

CORE = ("bot.advice", "bot.parsing", "bot.render")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_seam_imports_the_advice_core():
    offenders = {}
    for path in sorted((REPO / "bot" / "slack").glob("*.py")):
        core = {name for name in _imports(path) if name.startswith(CORE)}
        if core and path.name != "answering.py":
            offenders[path.name] = core
    assert offenders == {}


def test_requests_and_replies_survive_a_process_boundary():
    request = AnswerRequest(text="H100 vs A100 for Llama 2 70B", action_context="0123456789abcdef")
    reply = answer_message(pickle.loads(pickle.dumps(request)), get_knowledge())
    reply = pickle.loads(pickle.dumps(reply))
    assert isinstance(reply, Reply) and reply.status == "answered" and reply.visible and reply.remember
    assert reply.intent == "compare" and "H100" in reply.message["text"]
    follow = answer_message(AnswerRequest(mode="follow_up", text="what about int4?",
                                          previous_query_json=reply.query_json), get_knowledge())
    assert follow.status == "answered" and "int4" in follow.message["text"].lower()


def test_a_previous_question_that_cannot_be_read_is_no_previous_question():
    kb = get_knowledge()
    stale = '{"shape": "of an older version"}'
    assert answer_message(AnswerRequest(mode="assumptions", previous_query_json=stale), kb).status == "expired"
    assert answer_message(AnswerRequest(mode="follow_up", text="int4", previous_query_json=None), kb).status == "expired"
    reply = answer_message(AnswerRequest(text="8x H100 for 3 days", previous_query_json=stale), kb)
    assert reply.status == "answered"


def test_lone_surrogates_reach_the_core_as_replacement_characters():
    # "\ud800" can only arrive as a JSON escape; it cannot be stored as JSON or posted back
    reply = answer_message(AnswerRequest(text="llama 3 8b on h100 \ud800"), get_knowledge())
    reply.query_json.encode("utf-8")
    json.dumps(reply.message, ensure_ascii=False).encode("utf-8")


def test_a_form_is_answered_from_its_fields_and_its_chart_crosses_the_boundary():
    from bot.slack.forms import SizingForm

    kb = get_knowledge()
    form = SizingForm(model_id="llama-3-70b", gpu_ids=("h100-sxm-80gb", "a100-sxm-80gb"), users=200,
                      context_tokens=8192)
    reply = answer_message(pickle.loads(pickle.dumps(AnswerRequest(mode="form", form=form, action_context="f1"))), kb)
    reply = pickle.loads(pickle.dumps(reply))
    query = json.loads(reply.query_json)
    assert query["text"] == "" and query["intent"] == "size_inference"  # typed fields, no sentence parsed
    assert query["models"][0]["id"] == "llama-3-70b"
    assert [g["id"] for g in query["gpus"]] == ["h100-sxm-80gb", "a100-sxm-80gb"]
    assert query["concurrent_users"] == 200 and query["context_tokens"] == 8192
    assert reply.visible and reply.question == "Serving Llama 3 70B: 200 users"  # the answer's title
    assert reply.chart_png[:8] == b"\x89PNG\r\n\x1a\n" and "Llama 3 70B" in reply.chart_alt


def test_open_in_form_round_trips_the_question():
    from bot.slack.answering import form_for
    from bot.slack.forms import QuoteForm, SizingForm

    kb = get_knowledge()
    sized = answer_message(AnswerRequest(text="serve Llama 3 70B to 200 users at 8k context, fp8, under $40/h"), kb)
    form = form_for(sized.query_json, kb)
    assert form == SizingForm(model_id="llama-3-70b", users=200, context_tokens=8192, precision="fp8",
                              budget_usd_per_hour=40.0)
    quoted = answer_message(AnswerRequest(text="8x H100 for 3 days on runpod spot"), kb)
    # 3 days = 72 hours; "H100" is the SXM5 80GB (gpus.yaml default_for)
    assert form_for(quoted.query_json, kb) == QuoteForm(gpu_id="h100-sxm-80gb", count=8, duration_hours=72.0,
                                                        pricing="spot", provider="runpod")
    assert form_for('{"shape": "of an older version"}', kb) is None


def test_open_in_form_is_offered_only_where_a_form_can_ask_the_question():
    kb = get_knowledge()

    def buttons(text):
        message = answer_message(AnswerRequest(text=text), kb).message
        return [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]

    assert "open_form" in buttons("serve a 13b model to 10 users")  # the form's "my own model" field
    assert "open_form" not in buttons("how long to pretrain a 3b model on 300B tokens with 32 H100s")
    assert "open_form" not in buttons("can 4090s do p2p?")


def test_assumptions_and_show_all_replies_carry_no_chart():
    kb = get_knowledge()
    first = answer_message(AnswerRequest(text="H100 vs A100 for Llama 2 70B"), kb)
    assert first.chart_png is not None  # uploaded once, with the answer
    for mode in ("assumptions", "show_all"):
        again = answer_message(AnswerRequest(mode=mode, previous_query_json=first.query_json), kb)
        assert again.status == "answered" and again.chart_png is None
