"""The Slack app: one Bolt ``App`` with every listener registered in :func:`build_app`.

The Slack layer is thin: it turns Slack payloads into text, asks the core
(:func:`bot.advice.conversation.respond_to`) and posts the rendered answer. It owns the
platform rules a naive bot breaks:

* ack at once (slash commands call ``ack()`` before any work; events are acked by Bolt
  before the listener runs, because ``process_before_response`` is off);
* never loop, never answer twice: bot messages, the app's own messages and every message
  subtype are ignored; DMs only come through ``message.im`` and channel questions only
  through ``app_mention``, so a mention is answered once although Slack also sends the
  message event; retried events (same ``event_id``) are claimed once in the shared store,
  so a retry reaching another process is not answered again;
* Web API calls go through slack_sdk's retry handlers (429 ``Retry-After``, connection errors);
* an exception gives the user a short apology with a reference id; the traceback goes to the
  log only; tokens are never logged;
* every request ends in one :class:`bot.ops.metrics.RequestRecord` (request id, team, intent,
  latency, outcome; never the text), counted in the metrics and written as one JSON log line.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.advice.conversation import Turn, help_turn, respond_to
from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.ops.metrics import Metrics, RequestRecord, get_metrics, report_request
from bot.parsing.query import Query
from bot.render.blockkit import render_assumptions, render_message
from bot.settings import Settings
from bot.slack.home import home_view
from bot.storage.store import Store

__all__ = ["build_app", "make_client"]

log = logging.getLogger("gpu_advisor.slack")

RESET_WORDS = {"reset", "new", "start over", "重新开始", "重置"}


def make_client(settings: Settings, token: str | None = None) -> WebClient:
    """A WebClient on ``SLACK_API_URL`` with slack_sdk's retry handlers.

    Retries: up to 2 on HTTP 429 (waiting ``Retry-After``) and up to 2 on connection errors
    (slack_sdk.http_retry.builtin_handlers).
    """
    if token is None and settings.slack_bot_token is not None:
        token = settings.slack_bot_token.get_secret_value()
    return WebClient(
        token=token,
        base_url=settings.slack_api_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2), ConnectionErrorRetryHandler(max_retry_count=2)],
    )


def _ref_id() -> str:
    return uuid.uuid4().hex[:8]


def _apology(ref: str) -> str:
    return (f"Sorry, something went wrong while answering that (reference `{ref}`). "
            "Please try again, or rephrase the question.")


def build_app(
    settings: Settings,
    store: Store,
    *,
    kb_provider: Callable[[], KnowledgeBase] = get_knowledge,
    oauth_settings: Any | None = None,
    metrics: Metrics | None = None,
) -> App:
    """Create the Bolt app with all listeners.

    Args:
        settings: tokens, signing secret and Web API URL.
        store: the shared state store (context, processed events, audit).
        kb_provider: returns the current knowledge base (reloads swap what it returns).
        oauth_settings: a ``slack_bolt.oauth.oauth_settings.OAuthSettings`` for
            multi-workspace installs; ``None`` for single-workspace (``SLACK_BOT_TOKEN``).
        metrics: where finished requests are counted (default: the process-wide registry).

    Returns:
        The configured ``slack_bolt.App``.
    """
    signing_secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    if oauth_settings is not None:
        app = App(signing_secret=signing_secret, oauth_settings=oauth_settings, client=make_client(settings, None),
                  process_before_response=False)
    else:
        app = App(signing_secret=signing_secret, client=make_client(settings), process_before_response=False)

    metrics = metrics or get_metrics()

    # ------------------------------------------------------------------ middleware
    @app.middleware
    def deduplicate_events(req, resp, next):  # noqa: A002 - Bolt's parameter name
        body = req.body or {}
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        req.context["gpu_request_id"] = uuid.uuid4().hex[:12]
        req.context["gpu_started"] = time.perf_counter()
        req.context["gpu_event_id"] = event_id
        if event_id and not store.claim_event(event_id, body.get("team_id")):
            log.info("duplicate event %s (retry %s) ignored", event_id,
                     (req.headers.get("x-slack-retry-num") or ["0"])[0])
            report(req.context, "event", (body.get("event") or {}).get("type"), "duplicate")
            return BoltResponse(status=200, body="")
        next()

    def report(context, kind: str, type_: str | None, outcome: str, *, channel_type: str | None = None,
               intent: str | None = None, ref: str | None = None) -> None:
        started = context.get("gpu_started")
        report_request(RequestRecord(
            request_id=context.get("gpu_request_id") or uuid.uuid4().hex[:12], kind=kind, type=type_,
            team_id=context.team_id, channel_type=channel_type, intent=intent, outcome=outcome,
            latency_ms=(time.perf_counter() - started) * 1000 if started else None,
            event_id=context.get("gpu_event_id"), ref=ref), metrics)

    # ------------------------------------------------------------------ helpers
    def answer_and_remember(text: str, key: str | None, *, team_id: str | None, channel_type: str,
                            force_intent: str | None = None) -> tuple[Turn, dict[str, Any]]:
        started = time.perf_counter()
        previous = None
        if key is not None:
            ctx = store.load_context(key)
            if ctx is not None:
                previous = Query.model_validate_json(ctx.query_json)
        if key is not None and text.strip().lower() in RESET_WORDS:
            store.clear_context(key)
            turn = help_turn(kb_provider(), reset=True)
        else:
            turn = respond_to(text, previous, kb=kb_provider(), force_intent=force_intent)
        action_ctx = uuid.uuid4().hex[:16]
        store.save_context(f"answer:{action_ctx}", turn.query.model_dump_json(), turn.answer.verdict,
                           team_id=team_id)
        if key is not None and not turn.reset and turn.answer.intent not in ("help", "unknown"):
            store.save_context(key, turn.query.model_dump_json(), turn.answer.verdict, team_id=team_id)
        store.record_audit(team_id=team_id, channel_type=channel_type, intent=turn.answer.intent,
                           latency_ms=(time.perf_counter() - started) * 1000, outcome="answered")
        return turn, render_message(turn.answer, action_context=action_ctx)

    def post(client: WebClient, *, channel: str, user: str | None, thread_ts: str | None,
             message: dict[str, Any]) -> bool:
        try:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, **message)
            return True
        except SlackApiError as exc:
            req_id = exc.response.headers.get("x-slack-req-id", "-") if exc.response is not None else "-"
            log.error("chat.postMessage failed: %s (x-slack-req-id %s)", exc.response.get("error"), req_id)
            if user:
                try:
                    client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts,
                                              text="Sorry, I could not post the answer here "
                                                   f"({exc.response.get('error')}).")
                except SlackApiError:
                    log.error("chat.postEphemeral failed too (x-slack-req-id %s)", req_id)
            return False

    def fail(client: WebClient, *, channel: str, user: str | None, thread_ts: str | None, team_id: str | None,
             channel_type: str) -> str:
        ref = _ref_id()
        log.exception("advisor error, reference %s", ref)
        store.record_audit(team_id=team_id, channel_type=channel_type, intent=None, latency_ms=None,
                           outcome="error")
        try:
            if user and channel_type != "im":
                client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, text=_apology(ref))
            else:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=_apology(ref))
        except SlackApiError:
            log.error("could not deliver the apology for reference %s", ref)
        return ref

    def reply(event: dict, client: WebClient, context, *, key: str, thread_ts: str | None, event_type: str,
              channel_type: str) -> None:
        """Answer a mention or DM in its conversation (``key``), post it, and report the outcome."""
        channel, user, team_id = event["channel"], event.get("user"), context.team_id
        try:
            turn, message = answer_and_remember(event.get("text", ""), key, team_id=team_id,
                                                channel_type=channel_type)
        except Exception:  # noqa: BLE001 - the user gets an apology, the log the traceback
            ref = fail(client, channel=channel, user=user, thread_ts=thread_ts, team_id=team_id,
                       channel_type=channel_type)
            report(context, "event", event_type, "error", channel_type=channel_type, ref=ref)
            return
        posted = post(client, channel=channel, user=user, thread_ts=thread_ts, message=message)
        report(context, "event", event_type, "answered" if posted else "post_failed", channel_type=channel_type,
               intent=turn.answer.intent)

    # ------------------------------------------------------------------ events
    @app.event("app_mention")
    def on_mention(event: dict, client: WebClient, context) -> None:
        if event.get("bot_id") or event.get("subtype"):
            report(context, "event", "app_mention", "ignored", channel_type="channel")
            return
        channel = event["channel"]
        thread_ts = event.get("thread_ts") or event["ts"]
        reply(event, client, context, key=f"{context.team_id}:{channel}:{thread_ts}", thread_ts=thread_ts,
              event_type="app_mention", channel_type="channel")

    @app.event("message")
    def on_message(event: dict, client: WebClient, context) -> None:
        # Only plain user messages in DMs: every subtype (edits, joins, bot_message, ...) and
        # every bot (including this app) is ignored, so the bot can never answer itself.
        if (event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id")
                or event.get("user") is None or event.get("user") == context.bot_user_id):
            report(context, "event", "message", "ignored", channel_type=event.get("channel_type"))
            return
        thread_ts = event.get("thread_ts")
        key = f"{context.team_id}:{event['channel']}" + (f":{thread_ts}" if thread_ts else "")
        reply(event, client, context, key=key, thread_ts=thread_ts, event_type="message", channel_type="im")

    @app.event("app_home_opened")
    def on_home(event: dict, client: WebClient, context) -> None:
        if event.get("tab", "home") != "home":
            report(context, "event", "app_home_opened", "ignored")
            return
        try:
            client.views_publish(user_id=event["user"], view=home_view(kb_provider()))
        except SlackApiError as exc:
            log.error("views.publish failed: %s", exc.response.get("error"))
            report(context, "event", "app_home_opened", "post_failed")
            return
        report(context, "event", "app_home_opened", "home")

    # ------------------------------------------------------------------ slash commands
    def slash(force_intent: str | None, usage: str) -> Callable[..., None]:
        def handler(ack, command: dict, respond, context) -> None:
            ack()  # within Slack's 3 seconds, before any work
            text = (command.get("text") or "").strip()
            team_id = context.team_id
            name = command.get("command")
            if not text or text.lower() in {"help", "?"}:
                turn = help_turn(kb_provider(), usage=usage)
                respond(response_type="ephemeral", **render_message(turn.answer))
                report(context, "command", name, "help", channel_type="command", intent="help")
                return
            try:
                turn, message = answer_and_remember(text, None, team_id=team_id, channel_type="command",
                                                    force_intent=force_intent)
            except Exception:  # noqa: BLE001
                ref = _ref_id()
                log.exception("advisor error in %s, reference %s", name, ref)
                respond(response_type="ephemeral", text=_apology(ref))
                report(context, "command", name, "error", channel_type="command", ref=ref)
                return
            visible = turn.answer.intent not in ("help", "unknown") and not turn.answer.examples
            respond(response_type="in_channel" if visible else "ephemeral", **message)
            report(context, "command", name, "answered", channel_type="command", intent=turn.answer.intent)
        return handler

    app.command("/gpu")(slash(None, "/gpu H100 vs A100 for Llama 2 70B"))
    app.command("/gpu-quote")(slash("quote", "/gpu-quote 8x H100 for 3 days [on aws]"))
    app.command("/gpu-size")(slash("size_inference", "/gpu-size llama 3 70b, 200 users, 8k context, int4"))

    # ------------------------------------------------------------------ buttons
    def on_button(ack, body: dict, respond, action: dict, context) -> None:
        ack()
        action_id = action.get("action_id")
        try:
            payload = json.loads(action.get("value") or "{}")
        except json.JSONDecodeError:
            payload = {}
        ctx = store.load_context(f"answer:{payload.get('c', '')}")
        message = body.get("message") or {}
        thread_ts = message.get("thread_ts") or message.get("ts")
        if ctx is None:
            respond(response_type="ephemeral", replace_original=False,
                    text="That answer is too old to follow up on; please ask again.")
            report(context, "action", action_id, "expired")
            return
        previous = Query.model_validate_json(ctx.query_json)
        try:
            if action["action_id"] == "show_assumptions":
                turn = respond_to("", previous, kb=kb_provider(), replay=True)
                rendered = render_assumptions(turn.answer)
            else:
                turn = respond_to(payload.get("v", ""), previous, kb=kb_provider())
                new_ctx = uuid.uuid4().hex[:16]
                store.save_context(f"answer:{new_ctx}", turn.query.model_dump_json(), turn.answer.verdict)
                rendered = render_message(turn.answer, action_context=new_ctx)
        except Exception:  # noqa: BLE001
            ref = _ref_id()
            log.exception("advisor error on button %s, reference %s", action_id, ref)
            respond(response_type="ephemeral", replace_original=False, text=_apology(ref))
            report(context, "action", action_id, "error", ref=ref)
            return
        respond(response_type="in_channel", replace_original=False, thread_ts=thread_ts, **rendered)
        report(context, "action", action_id, "answered", intent=turn.answer.intent)

    for action_id in ("show_assumptions", "switch_precision", "quote_this"):
        app.action(action_id)(on_button)

    @app.error
    def on_error(error: Exception, body: dict) -> None:
        log.error("unhandled error %s: %s", type(error).__name__, error, exc_info=error)
        metrics.errors.labels("unhandled").inc()

    return app
