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
