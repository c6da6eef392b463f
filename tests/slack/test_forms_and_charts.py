"""Forms, charts, App Home and message limits through the real Bolt app, with signed requests, against the
local mock of Slack's Web API (tests/slack/mock_web_api.py).

* an empty ``/gpu-size`` or ``/gpu-quote`` opens a modal that validates against Block Kit's ``modal_view``;
* the model and GPU menus are answered from the knowledge base (``block_suggestion``);
* a bad ``view_submission`` is answered with ``response_action: errors`` on its fields (nothing posted); a
  good one posts the answer where the command was run (or in a DM when the bot may not post there);
* a comparison's chart is uploaded with ``files_upload_v2`` after the answer, into its thread, with the
  chart's alt text and a 960 x 540 PNG; a failed upload never loses the answer;
* App Home shows the price data's age per provider (the refreshed catalog's when there is one), the examples
  as buttons and the user's last questions (nothing for a user who never asked);
* a giant answer is cut to Slack's limits with the cut said.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, date, datetime

import pytest

from bot.advice.answer import Action, Answer, Table
from bot.advice.conversation import respond_to
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.notes import note
from bot.parsing.query import Query
from bot.pricing.offers import CatalogRefreshInfo, CatalogSnapshot, Offer, set_catalog
from bot.render.blockkit import MAX_BLOCKS, MAX_TOTAL_TEXT, render_message
from bot.render.charts import chart_for
from bot.slack.answering import AnswerRequest, Reply
from bot.slack.workers import AnswerPool
from tests.slack.conftest import HOME_SCHEMA, assert_valid_blocks, assert_valid_view, params_json, serve_app
from tests.slack.mock_web_api import BOT_USER_ID, TEAM_ID

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which the PNG specification puts first (RFC 2083, 4.1.1)."""
    assert png[:8] == PNG_MAGIC and png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _opened_view(running_app) -> dict:
    return params_json(running_app.mock.wait_for("views.open")[0], "view")


def _submission(callback_id: str, values: dict, metadata: str = "") -> dict:
    return {"type": "view_submission", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
            "token": "x", "trigger_id": "1.2.3",
            "view": {"id": "V0000001", "type": "modal", "callback_id": callback_id, "private_metadata": metadata,
                     "state": {"values": values}}}


def _select(block: str, action: str, value: str) -> dict:
    return {block: {action: {"type": "external_select", "selected_option": {
        "value": value, "text": {"type": "plain_text", "text": value}}}}}


def _select_many(block: str, action: str, *values: str) -> dict:
    return {block: {action: {"type": "multi_external_select", "selected_options": [
        {"value": v, "text": {"type": "plain_text", "text": v}} for v in values]}}}


def _number(block: str, value: str) -> dict:
    return {block: {block: {"type": "number_input", "value": value}}}


def _mention(text: str, ts: str) -> dict:
    return {"type": "app_mention", "user": "U0000001", "text": f"<@{BOT_USER_ID}> {text}", "ts": ts,
            "channel": "C0000001", "event_ts": ts}


def _button_payload(running_app, button: dict, *, thread_ts: str, message_ts: str = "1764417600.000001") -> dict:
    return {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
            "token": "x", "trigger_id": "9.8.7", "channel": {"id": "C0000001"},
            "container": {"type": "message", "message_ts": message_ts},
            "message": {"ts": message_ts, "thread_ts": thread_ts, "text": "answer"},
            "response_url": running_app.mock.response_url_base + "btn",
            "actions": [{"action_id": button["action_id"], "block_id": "b", "value": button["value"],
                         "type": "button", "action_ts": "1"}]}


def _buttons(blocks: list[dict]) -> dict[str, dict]:
    return {e["action_id"]: e for b in blocks if b["type"] == "actions" for e in b["elements"]}


# --------------------------------------------------------------------------- forms


def test_empty_gpu_size_opens_a_valid_sizing_modal(running_app):
    status, seconds = running_app.slash("/gpu-size", "")
    assert status == 200 and seconds < 3.0
    call = running_app.mock.wait_for("views.open")[0]
    assert call.params["trigger_id"] == "1.2.3"
    view = params_json(call, "view")
    assert_valid_view(view)
    assert view["callback_id"] == "gpu_size_form" and len(view["title"]["text"]) <= 24
    assert json.loads(view["private_metadata"]) == {"c": "C0000001", "t": ""}  # the answer goes where it was asked
    fields = {b["block_id"]: b["element"]["type"] for b in view["blocks"] if b["type"] == "input"}
    assert fields == {"model": "external_select", "own_params": "number_input", "gpus": "multi_external_select",
                      "users": "number_input", "context": "number_input", "input_tokens": "number_input",
                      "output_tokens": "number_input", "precision": "static_select", "target_tps": "number_input",
                      "ttft_ms": "number_input", "budget": "number_input", "provider": "static_select"}
    time.sleep(0.3)
    assert running_app.mock.calls_to("response_url") == []  # a form, not the help text


def test_empty_gpu_quote_opens_the_quote_modal(running_app):
    running_app.slash("/gpu-quote", "")
    view = _opened_view(running_app)
    assert_valid_view(view)
    assert view["callback_id"] == "gpu_quote_form"
    assert [b["block_id"] for b in view["blocks"]] == ["gpu", "count", "duration", "duration_unit", "pricing",
                                                      "provider"]


def test_gpu_size_help_still_gives_help(running_app):
    running_app.slash("/gpu-size", "help")
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params["response_type"] == "ephemeral"
    assert "open_form" in _buttons(call.params["blocks"])  # "Size it" opens the form
    assert running_app.mock.calls_to("views.open") == []


def test_model_and_gpu_menus_come_from_the_knowledge_base(running_app):
    suggestion = {"type": "block_suggestion", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
                  "api_app_id": "A0000001", "token": "x", "action_id": "model_choice", "block_id": "model",
                  "value": "llama 3 70", "view": {"id": "V1", "type": "modal", "callback_id": "gpu_size_form"}}
    status, body = running_app.interact(suggestion)
    assert status == 200
    options = json.loads(body)["options"]
    # knowledge/models.yaml: Llama 3 70B has 70,553,706,496 parameters (70.6B)
    assert {"text": {"type": "plain_text", "text": "Llama 3 70B (70.6B)", "emoji": True},
            "value": "llama-3-70b"} in options
    status, body = running_app.interact({**suggestion, "action_id": "gpu_choice", "block_id": "gpus", "value": ""})
    options = json.loads(body)["options"]
    assert len(options) <= 100 and options[0]["value"] == "h100-sxm-80gb"  # policy.yaml serving.candidate_gpus[0]


def test_bad_submission_is_answered_with_field_errors_and_nothing_is_posted(running_app):
    values = {**_number("own_params", "0"), **_number("users", "2.5"), **_number("context", "1000"),
              **_number("input_tokens", "900"), **_number("output_tokens", "200"),
              **_select_many("gpus", "gpu_choice", "h100-sxm-80gb", "no-such-gpu")}
    status, body = running_app.interact(_submission("gpu_size_form", values))
    assert status == 200
    answer = json.loads(body)
    assert answer["response_action"] == "errors"
    assert set(answer["errors"]) == {"own_params", "users", "context", "gpus"}
    assert answer["errors"]["users"] == "Enter a whole number."
    assert answer["errors"]["own_params"] == "Enter a number from 0.01 to 5,000."
    assert "1,100 tokens" in answer["errors"]["context"]  # 900 prompt + 200 output > 1,000
    # nothing chosen at all: the model field says what is needed
    status, body = running_app.interact(_submission("gpu_size_form", {}))
    assert json.loads(body)["errors"] == {"model": "Pick a model, or give your own model's size below."}
    time.sleep(0.5)
    assert running_app.mock.calls_to("chat.postMessage") == []


def test_good_submission_posts_the_answer_where_the_command_was_run(running_app):
    running_app.slash("/gpu-size", "")
    metadata = _opened_view(running_app)["private_metadata"]
    values = {**_select("model", "model_choice", "llama-3-70b"), **_number("users", "200"),
              **_number("context", "8192")}
    status, body = running_app.interact(_submission("gpu_size_form", values, metadata))
    assert status == 200 and body == ""  # the modal closes
    posted = running_app.mock.wait_for("chat.postMessage")[0]
    assert posted.params["channel"] == "C0000001" and not posted.params.get("thread_ts")
    blocks = params_json(posted, "blocks")
    assert_valid_blocks(blocks)
    assert "Llama 3 70B" in posted.params["text"] and "200" in posted.params["text"]
    assert {"show_assumptions", "open_form"} <= set(_buttons(blocks))
    assert blocks[-2] == {"type": "context", "elements": [{"type": "mrkdwn",
                                                           "text": "<@U0000001> asked with the sizing form"}]}
    # the answer's thread continues the conversation: a mention there follows up on the form's question
    # (the context is saved right after the post, whose ts it is keyed by: wait for it, as a follow-up would arrive)
    deadline = time.monotonic() + 5.0
    while (stored := running_app.store.load_context(f"{TEAM_ID}:C0000001:1764417600.000001")) is None and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    assert stored is not None and json.loads(stored.query_json)["concurrent_users"] == 200
    assert json.loads(stored.query_json)["text"] == ""  # built from the form's fields, never from text


def test_submission_goes_to_a_dm_when_the_bot_may_not_post_in_the_channel(running_app):
    running_app.mock.fail_next["chat.postMessage"] = [(200, {}, {"ok": False, "error": "not_in_channel"})]
    values = {**_select("gpu", "gpu_choice", "h100-sxm-80gb"), **_number("count", "8"), **_number("duration", "3"),
              "duration_unit": {"duration_unit": {"type": "static_select", "selected_option": {
                  "value": "days", "text": {"type": "plain_text", "text": "days"}}}}}
    running_app.interact(_submission("gpu_quote_form", values, json.dumps({"c": "C0000009", "t": ""})))
    refused, posted = running_app.mock.wait_for("chat.postMessage", 2)
    assert refused.params["channel"] == "C0000009"  # answered "not_in_channel" ...
    assert posted.params["channel"] == "U0000001"  # ... so the answer goes to the app's DM with the user
    assert "72 h" in posted.params["text"]  # 3 days x 24 h


def test_open_in_form_prefills_the_answers_question(running_app):
    running_app.event(_mention("serve Llama 3 70B to 200 users at 8k context", "1764417000.000100"), "EvF1")
    posted = running_app.mock.wait_for("chat.postMessage")[0]
    button = _buttons(params_json(posted, "blocks"))["open_form"]
    running_app.action(_button_payload(running_app, button, thread_ts="1764417000.000100"))
    view = _opened_view(running_app)
    assert_valid_view(view)
    fields = {b["block_id"]: b["element"] for b in view["blocks"] if b["type"] == "input"}
    assert fields["model"]["initial_option"]["value"] == "llama-3-70b"
    assert fields["users"]["initial_value"] == "200" and fields["context"]["initial_value"] == "8192"  # 8k = 8,192
    assert json.loads(view["private_metadata"]) == {"c": "C0000001", "t": "1764417000.000100"}


def _table_rows(blocks: list[dict]) -> int:
    """Rows of the code-block table(s) in ``blocks``, without each part's header and rule lines."""
    return sum(len(b["text"]["text"].split("```")[1].split("\n")[2:])
               for b in blocks if b["type"] == "section" and b["text"]["text"].startswith("```"))


def test_show_all_options_replies_in_the_thread_with_every_row(running_app, kb):
    question = "H100 vs A100 vs L40S vs H200 vs B200 vs MI300X for Llama 3 70B"
    rows = len(respond_to(question, kb=kb).answer.table.rows)
    assert rows > 5
    running_app.event(_mention(question, "1764417000.000200"), "EvF2")
    posted = running_app.mock.wait_for("chat.postMessage")[0]
    blocks = params_json(posted, "blocks")
    assert _table_rows(blocks) == 5  # bot.render.blockkit.TABLE_ROWS ...
    assert f"+{rows - 5} more rows: press Show all options" in json.dumps(blocks)  # ... and the cut is said
    button = _buttons(blocks)["show_all"]  # so the button is there
    running_app.action(_button_payload(running_app, button, thread_ts="1764417000.000200"))
    reply = running_app.mock.wait_for("response_url")[0]
    assert reply.params["thread_ts"] == "1764417000.000200"
    assert_valid_blocks(reply.params["blocks"])
    assert _table_rows(reply.params["blocks"]) == rows


# --------------------------------------------------------------------------- charts


def test_comparison_chart_is_uploaded_into_the_answers_thread(running_app, kb):
    question = "H100 vs A100 for Llama 2 70B"
    running_app.event(_mention(question, "1764417000.000300"), "EvC1")
    complete = running_app.mock.wait_for("files.completeUploadExternal", timeout=20)[0]
    post = running_app.mock.calls_to("chat.postMessage")[0]
    url_call = running_app.mock.calls_to("files.getUploadURLExternal")[0]
    upload = running_app.mock.calls_to("file_upload")[0]
    assert post.at < url_call.at < upload.at < complete.at  # after the answer is posted, in the 3 steps of v2
    png = upload.params["data"]
    assert int(url_call.params["length"]) == len(png) == upload.params["length"]
    assert _png_size(png) == (960, 540)  # charts.FIGURE_SIZE_IN (8 x 4.5 in) at DPI 120
    expected = chart_for(respond_to(question, kb=kb).answer, "en")
    assert url_call.params["alt_txt"] == expected.alt_text  # the same result in words
    assert "H100" in url_call.params["alt_txt"] and "A100" in url_call.params["alt_txt"]
    assert complete.params["channel_id"] == "C0000001" and complete.params["thread_ts"] == "1764417000.000300"
    assert json.loads(complete.params["files"])[0]["title"] == expected.title


@pytest.mark.parametrize("failing", ["files.getUploadURLExternal", "file_upload", "files.completeUploadExternal"])
def test_answer_is_posted_when_the_chart_upload_fails(running_app, failing, caplog):
    status = 500 if failing == "file_upload" else 200
    running_app.mock.fail_next[failing] = [(status, {}, {"ok": False, "error": "missing_scope"})]
    running_app.event(_mention("H100 vs A100 for Llama 2 70B", "1764417000.000400"), "EvC2-" + failing)
    post = running_app.mock.wait_for("chat.postMessage", timeout=20)[0]
    assert "H100" in post.params["text"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "chart upload failed" not in caplog.text:
        time.sleep(0.05)
    assert "chart upload failed" in caplog.text  # logged (Slack's error code, no text) ...
    assert any(c.method == failing for c in running_app.mock.calls)
    if failing != "files.completeUploadExternal":  # the steps after a failed one are not tried
        assert running_app.mock.calls_to("files.completeUploadExternal") == []
    assert len(running_app.mock.calls_to("chat.postMessage")) == 1  # ... and no apology: the answer stands


def test_answers_without_a_chart_upload_nothing(running_app):
    running_app.event(_mention("can 4090s do p2p?", "1764417000.000500"), "EvC3")
    running_app.mock.wait_for("chat.postMessage")
    time.sleep(0.5)
    assert running_app.mock.calls_to("files.getUploadURLExternal") == []


# --------------------------------------------------------------------------- App Home


def _home(running_app, event_id: str, count: int) -> dict:
    running_app.event({"type": "app_home_opened", "user": "U0000001", "channel": "D0000001", "tab": "home",
                       "event_ts": "1764417000.009000"}, event_id)
    view = params_json(running_app.mock.wait_for("views.publish", count)[count - 1], "view")
    assert_valid_view(view, HOME_SCHEMA)
    return view


def test_app_home_shows_price_ages_examples_and_last_questions(running_app):
    first = json.dumps(_home(running_app, "EvH1", 1))
    assert "Your last questions" not in first  # nothing for a user who never asked
    assert "*AWS*" in first and "days old" in first
    assert first.count('"action_id": "ask_example"') == 6
    running_app.event({"type": "message", "channel_type": "im", "user": "U0000001", "text": "8x H100 for 3 days",
                       "ts": "1764417000.000600", "channel": "D0000001", "event_ts": "1764417000.000600"}, "EvH2")
    running_app.mock.wait_for("chat.postMessage")
    second = _home(running_app, "EvH3", 2)
    section = next(b["text"]["text"] for b in second["blocks"]
                   if b["type"] == "section" and b["text"]["text"].startswith("*Your last questions*"))
    assert "8x H100 for 3 days" in section


def test_app_home_shows_the_refreshed_catalogs_age(running_app):
    refreshed = datetime(2026, 11, 28, 6, 0, tzinfo=UTC)
    offer = Offer(provider="aws", provider_name="AWS", instance_type="p5.48xlarge", gpu="h100-sxm-80gb", gpu_count=8,
                  price_per_hour_usd=50.0, pricing_model="on_demand", as_of=date(2026, 11, 28), source="test",
                  region="us-east-1", origin="catalog")
    info = CatalogRefreshInfo("aws", refreshed, "refreshed", as_of=date(2026, 11, 28), offers=1)
    set_catalog(CatalogSnapshot(generation=991, offers=(offer,), refreshes=(info,), last_good=(info,)))
    try:
        view = _home(running_app, "EvH4", 1)
    finally:
        set_catalog(None)
    prices = next(b["text"]["text"] for b in view["blocks"]
                  if b["type"] == "section" and b["text"]["text"].startswith("*Price data by provider*"))
    aws = next(line for line in prices.splitlines() if line.startswith("• *AWS*"))
    age = (date.today() - date(2026, 11, 28)).days
    assert f"newest 2026-11-28 ({age} day" in aws and "live catalog refreshed 2026-11-28" in aws


def test_home_example_button_answers_in_a_dm(running_app):
    payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
               "token": "x", "trigger_id": "5.5.5", "container": {"type": "view", "view_id": "V0000001"},
               "view": {"id": "V0000001", "type": "home", "callback_id": ""},
               "actions": [{"action_id": "ask_example", "block_id": "ex1", "value": "8x H100 for 3 days, how much?",
                            "type": "button", "action_ts": "1"}]}
    assert running_app.action(payload)[0] == 200
    post = running_app.mock.wait_for("chat.postMessage")[0]
    assert post.params["channel"] == "U0000001" and "H100" in post.params["text"]
    home = params_json(running_app.mock.wait_for("views.publish")[0], "view")
    assert "8x H100 for 3 days, how much?" in json.dumps(home)  # now among the last questions
    assert running_app.store.load_context(f"{TEAM_ID}:D0000001") is not None  # a DM follow-up continues it


def test_size_it_on_home_opens_a_form_answered_in_a_dm(running_app):
    payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
               "token": "x", "trigger_id": "5.5.6", "container": {"type": "view", "view_id": "V0000001"},
               "view": {"id": "V0000001", "type": "home", "callback_id": ""},
               "actions": [{"action_id": "open_form", "block_id": "home_forms", "value": '{"c": "", "v": ""}',
                            "type": "button", "action_ts": "1"}]}
    running_app.action(payload)
    view = _opened_view(running_app)
    assert view["callback_id"] == "gpu_size_form" and json.loads(view["private_metadata"]) == {"c": "", "t": ""}


def test_size_it_on_an_ephemeral_help_opens_a_form_answered_in_that_channel(running_app):
    # block_actions from an ephemeral message carry the channel but not the message
    payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"}, "api_app_id": "A0000001",
               "token": "x", "trigger_id": "5.5.7", "channel": {"id": "C0000002"},
               "container": {"type": "message", "message_ts": "1.2", "channel_id": "C0000002", "is_ephemeral": True},
               "response_url": running_app.mock.response_url_base + "help",
               "actions": [{"action_id": "open_form", "block_id": "b", "value": '{"c": "", "v": ""}',
                            "type": "button", "action_ts": "1"}]}
    running_app.action(payload)
    assert json.loads(_opened_view(running_app)["private_metadata"]) == {"c": "C0000002", "t": ""}


def test_global_shortcut_opens_the_quote_form(running_app):
    running_app.action({"type": "shortcut", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
                        "api_app_id": "A0000001", "token": "x", "trigger_id": "4.4.4", "callback_id": "quote_gpus"})
    assert _opened_view(running_app)["callback_id"] == "gpu_quote_form"


# --------------------------------------------------------------------------- limits


def giant_answer(request: AnswerRequest, kb: KnowledgeBase) -> Reply:
    """A reply far over Slack's limits: 30 details, 200 table rows of 8 wide cells, 40 warnings."""
    answer = Answer(query=Query(text="q", intent="quote"), intent="quote",
                    title=note("title_quote", items=[{"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}], hours=72),
                    headline=note("quote_one", config={"gpu_count": 8, "gpu_name": "H100 SXM5 80GB"}, hours=72,
                                  total_usd=2298.24, provider="Lambda", instance="8x H100", price_usd=31.92,
                                  per_gpu_usd=3.99, pricing_model="on_demand", as_of="2026-09-20"),
                    details=[note("not_understood", items=["x" * 400] * 6)] * 30,
                    table=Table(columns=["config"] * 8, rows=[["cell" * 30] * 8] * 200),
                    warnings=[note("not_understood", items=["w" * 300])] * 40,
                    actions=[Action(action_id="show_assumptions", label=note("button_show_assumptions"))])
    return Reply(message=render_message(answer, show_all=True, action_context=request.action_context),
                 intent="quote", visible=True, remember=False, question=request.text)


def test_a_giant_answer_is_cut_to_slacks_limits_and_says_so(tmp_path):
    pool = AnswerPool(workers=0, queue=4, timeout_s=30, answer_fn=giant_answer, knowledge=get_knowledge())
    try:
        with serve_app(tmp_path, pool) as running:
            running.event(_mention("anything", "1764417000.000700"), "EvL1")
            post = running.mock.wait_for("chat.postMessage")[0]
    finally:
        pool.close()
    blocks = params_json(post, "blocks")
    assert_valid_blocks(blocks)
    assert len(blocks) <= MAX_BLOCKS and len(json.dumps(blocks, ensure_ascii=False)) <= MAX_TOTAL_TEXT
    assert all(len(b["text"]["text"]) <= 3000 for b in blocks if b["type"] == "section")
    said = blocks[2]["text"]["text"]  # right under the headline
    assert said.startswith("_(Shortened to fit Slack's message limits:") and "part(s) of this answer are not shown" in said
    assert blocks[-1]["type"] == "actions"  # the buttons survive the cut
