"""The real Bolt app, driven by signed HTTP requests, posting to a local mock of Slack's Web API."""

from __future__ import annotations

import json
import time

from tests.slack.conftest import assert_valid_blocks
from tests.slack.mock_web_api import BOT_ID, BOT_USER_ID, TEAM_ID


def _mention(text: str, ts: str, thread_ts: str | None = None) -> dict:
    event = {"type": "app_mention", "user": "U0000001", "text": f"<@{BOT_USER_ID}> {text}", "ts": ts,
             "channel": "C0000001", "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def _dm(text: str, ts: str, **extra) -> dict:
    return {"type": "message", "channel_type": "im", "user": "U0000001", "text": text, "ts": ts,
            "channel": "D0000001", "event_ts": ts, **extra}


def test_slash_command_acks_fast_then_answers_in_channel(running_app):
    status, seconds = running_app.slash("/gpu", "H100 vs A100 for Llama 2 70B")
    assert status == 200
    assert seconds < 3.0  # Slack's acknowledgement deadline
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params["response_type"] == "in_channel"
    assert "H100" in call.params["text"] and "A100" in call.params["text"]
    assert_valid_blocks(call.params["blocks"])


def test_empty_slash_command_gives_ephemeral_help(running_app):
    assert running_app.slash("/gpu", "")[0] == 200
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params["response_type"] == "ephemeral"
    assert "/gpu-quote" in json.dumps(call.params["blocks"])
    assert_valid_blocks(call.params["blocks"])


def test_gpu_quote_command(running_app):
    assert running_app.slash("/gpu-quote", "8x H100 for 3 days")[0] == 200
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params["response_type"] == "in_channel"
    assert "72" in call.params["text"] or "72" in json.dumps(call.params["blocks"])  # 3 days = 72 hours
    assert_valid_blocks(call.params["blocks"])


def test_mention_gets_a_threaded_reply(running_app):
    assert running_app.event(_mention("H100 vs A100 for Llama 2 70B", "1764417000.000100"), "Ev001")[0] == 200
    call = running_app.mock.wait_for("chat.postMessage")[0]
    assert call.params["channel"] == "C0000001"
    assert call.params["thread_ts"] == "1764417000.000100"
    assert_valid_blocks(json.loads(call.params["blocks"]) if isinstance(call.params["blocks"], str)
                        else call.params["blocks"])


def test_mention_inside_a_thread_replies_in_that_thread(running_app):
    running_app.event(_mention("price of 8x H100", "1764417000.000300", thread_ts="1764417000.000200"), "Ev002")
    call = running_app.mock.wait_for("chat.postMessage")[0]
    assert call.params["thread_ts"] == "1764417000.000200"


def test_dm_follow_up_uses_context(running_app):
    running_app.event(_dm("serve Llama 3 70B to 200 users at 8k context", "1764417000.000400"), "Ev003")
    running_app.mock.wait_for("chat.postMessage", 1)
    running_app.event(_dm("what about int4?", "1764417000.000500"), "Ev004")
    second = running_app.mock.wait_for("chat.postMessage", 2)[1]
    text = second.params["text"]
    assert "Llama 3 70B" in text or "llama-3-70b" in text  # the model came from the context
    assert "int4" in text.lower() or "INT4" in text


def test_dm_reset_starts_over(running_app):
    running_app.event(_dm("serve Llama 3 70B to 200 users", "1764417000.000600"), "Ev005")
    running_app.mock.wait_for("chat.postMessage", 1)
    running_app.event(_dm("reset", "1764417000.000700"), "Ev006")
    running_app.mock.wait_for("chat.postMessage", 2)
    assert running_app.store.load_context(f"{TEAM_ID}:D0000001") is None


def test_retried_event_is_answered_once(running_app):
    event = _mention("H100 vs A100 for Llama 2 70B", "1764417000.000800")
    running_app.event(event, "Ev007")
    running_app.event(event, "Ev007", headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    running_app.mock.wait_for("chat.postMessage", 1)
    time.sleep(0.5)
    assert len(running_app.mock.calls_to("chat.postMessage")) == 1


def test_bad_signature_and_old_timestamp_get_401(running_app):
    assert running_app.slash("/gpu", "hi", secret="wrong-secret")[0] == 401
    assert running_app.slash("/gpu", "hi", timestamp=int(time.time()) - 6 * 60)[0] == 401
    time.sleep(0.2)
    assert running_app.mock.calls_to("response_url") == []


def test_bot_messages_and_edits_get_no_answer(running_app):
    running_app.event(_dm("H100 vs A100", "1764417000.000900", bot_id=BOT_ID, subtype="bot_message"), "Ev008")
    running_app.event(_dm("H100 vs A100", "1764417000.001000", user=BOT_USER_ID), "Ev009")
    edited = {"type": "message", "subtype": "message_changed", "channel_type": "im", "channel": "D0000001",
              "ts": "1764417000.001100", "message": {"text": "H100 vs A100", "user": "U0000001"}}
    running_app.event(edited, "Ev010")
    time.sleep(0.7)
    assert running_app.mock.calls_to("chat.postMessage") == []


def test_button_click_answers_in_the_same_thread(running_app):
    running_app.event(_mention("serve Llama 2 70B on H100", "1764417000.001200"), "Ev011")
    posted = running_app.mock.wait_for("chat.postMessage")[0]
    blocks = posted.params["blocks"]
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert buttons, "the answer offers next steps"
    button = buttons[0]
    payload = {"type": "block_actions", "team": {"id": TEAM_ID}, "user": {"id": "U0000001"},
               "api_app_id": "A0000001", "token": "x", "trigger_id": "1.2.3",
               "channel": {"id": "C0000001"}, "container": {"type": "message", "message_ts": "1764417600.000001"},
               "message": {"ts": "1764417600.000001", "thread_ts": "1764417000.001200", "text": "answer"},
               "response_url": running_app.mock.response_url_base + "btn",
               "actions": [{"action_id": button["action_id"], "block_id": "b", "value": button["value"],
                            "type": "button", "action_ts": "1"}]}
    assert running_app.action(payload)[0] == 200
    call = running_app.mock.wait_for("response_url")[0]
    assert call.params["thread_ts"] == "1764417000.001200"
    assert_valid_blocks(call.params["blocks"])


def test_app_home_is_published(running_app):
    running_app.event({"type": "app_home_opened", "user": "U0000001", "channel": "D0000001", "tab": "home",
                       "event_ts": "1764417000.001300"}, "Ev012")
    call = running_app.mock.wait_for("views.publish")[0]
    view = json.loads(call.params["view"]) if isinstance(call.params["view"], str) else call.params["view"]
    assert view["type"] == "home"
    text = json.dumps(view)
    assert "/gpu-quote" in text and "Price data by provider" in text
    assert_valid_blocks(view["blocks"])


def test_rate_limited_post_is_retried(running_app):
    running_app.mock.fail_next["chat.postMessage"] = [(429, {"Retry-After": "1"}, {"ok": False, "error": "ratelimited"})]
    running_app.event(_mention("price of 8x H100 for a week", "1764417000.001400"), "Ev013")
    running_app.mock.wait_for("chat.postMessage", 1, timeout=15)
    attempts = [c for c in running_app.mock.calls if c.method == "chat.postMessage"]
    assert [c.status for c in attempts] == [429, 200]


def test_a_burst_of_slash_commands_is_accepted(running_app):
    # 20 at once: socketserver's default listen backlog of 5 used to reset some of these connections.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(lambda i: running_app.slash("/gpu", "8x H100 price", response_id=f"b{i}"), range(20)))
    assert [status for status, _ in results] == [200] * 20
    running_app.mock.wait_for("response_url", 20, timeout=60)
