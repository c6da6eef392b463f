"""The Slack app: one Bolt ``App`` with every listener registered in :func:`build_app`.

The Slack layer is thin: it turns Slack payloads into an :class:`~bot.slack.answering.AnswerRequest`,
has it answered through the one seam (:func:`bot.slack.answering.answer_message`, run by an
:class:`~bot.slack.workers.AnswerPool`) and posts the reply. It owns the platform rules a naive
bot breaks:

* **ack at once, never after an answer**: listeners run before the response
  (``process_before_response``) but only hand the work to the answer pool and return, so an
  ack waits for a database claim and a queue slot, never for an answer or a Web API call; when
  every worker and queue slot is taken the user is told to ask again (back-pressure);
* **never loop, never answer twice**: bot messages, the app's own messages and every message
  subtype are ignored; DMs only come through ``message.im`` and channel questions only
  through ``app_mention``; retried events (same ``event_id``) are claimed once in the shared
  store, so a retry reaching another process is not answered again;
* **unknown requests get 200**: event types, subtypes, commands and actions without a listener
  (``reaction_added``, ``member_joined_channel`` ...) are acknowledged and ignored, so Slack
  does not retry them; in multi-workspace mode ``app_uninstalled`` and ``tokens_revoked``
  delete the workspace's installation (Bolt's token revocation listeners);
* **an apology means our fault**: an exception in the core, an answer over its time budget, a
  failed post or a full queue gives a short apology with a reference id that is in the log; a
  button whose value was tampered with, or whose answer has expired, gets a plain explanation;
  input the core does not understand gets the core's help answer, never an apology;
* Web API calls go through slack_sdk's retry handlers (429 ``Retry-After``, connection errors);
* every request ends in one :class:`bot.ops.metrics.RequestRecord` (request id, team, intent,
  latency, outcome; never the text), counted in the metrics and written as one JSON log line.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from datetime import date
from typing import Any

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from bot.kb.loader import KnowledgeBase, get_knowledge
from bot.ops.logs import describe_exception
from bot.ops.metrics import Metrics, RequestRecord, get_metrics, report_request
from bot.settings import Settings
from bot.slack.answering import (
    AnswerFunction,
    AnswerRequest,
    Reply,
    answer_message,
    form_for,
    price_status,
)
from bot.slack.answering import layer_message as _say
from bot.slack.forms import (
    GPU_ACTION,
    MODEL_ACTION,
    QUOTE_CALLBACK,
    SIZING_CALLBACK,
    FormPlace,
    QuoteForm,
    SizingForm,
    gpu_options,
    model_options,
    quote_modal,
    read_place,
    read_quote_form,
    read_sizing_form,
    sizing_modal,
)
from bot.slack.home import ASK_EXAMPLE_ACTION, OPEN_QUOTE_FORM_ACTION, OPEN_SIZING_FORM_ACTION, home_view
from bot.slack.workers import AnswerFailure, AnswerPool, new_ref
from bot.storage.store import Store

__all__ = ["answer_pool_from_settings", "build_app", "make_client"]

log = logging.getLogger("gpu_advisor.slack")

RESET_WORDS = {"reset", "new", "start over", "重新开始", "重置"}
#: A button value is ``{"c": <stored answer id>, "v": <follow-up text>}`` (bot.render.blockkit);
#: Slack caps button values at 2,000 characters.
_CONTEXT_ID = re.compile(r"^[0-9a-f]{0,32}$")
MAX_BUTTON_VALUE_CHARS = 2_000
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,30}$")
#: Slack's limit on a message's text, held by the renderer (bot.render.blockkit.MAX_TOTAL_TEXT, measured as JSON).
MAX_MESSAGE_CHARS = 12_000

TAMPERED_TEXT = _say("slack_tampered")
EXPIRED_TEXT = _say("slack_expired")
BUSY_FORM_TEXT = _say("slack_busy_form")
#: Global shortcuts (the manifest's ``features.shortcuts``) that open the forms.
SIZE_SHORTCUT = "size_gpus"
QUOTE_SHORTCUT = "quote_gpus"


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


def answer_pool_from_settings(settings: Settings, kb: KnowledgeBase | None = None,
                              answer_fn: AnswerFunction | None = None) -> AnswerPool:
    """The :class:`AnswerPool` that ``GPU_ADVISOR_ANSWER_*``, ``LOG_LEVEL``, ``LOG_FORMAT`` and ``DATABASE_URL``
    (where workers read the refreshed price catalog) describe.

    Args:
        settings: the settings.
        kb: the knowledge base workers load at start.
        answer_fn: the seam (default :func:`bot.slack.answering.answer_message`).
    """
    return AnswerPool(workers=settings.gpu_advisor_answer_workers, queue=settings.gpu_advisor_answer_queue,
                      timeout_s=settings.gpu_advisor_answer_timeout_seconds, log_level=settings.log_level,
                      log_format=settings.log_format, knowledge=kb, answer_fn=answer_fn or answer_message,
                      catalog_url=settings.database_url)


def _apology(failure: AnswerFailure, text: str | None = "") -> str:
    """The apology for a failed answer, in the language of the question ``text`` (both when unknown)."""
    code = "slack_apology_timeout" if failure.reason == "timeout" else "slack_apology_error"
    return _say(code, text, ref=failure.ref)


def _busy(ref: str, text: str | None = "") -> str:
    """The reply when the answer queue is full, in the language of the question ``text``."""
    return _say("slack_busy", text, ref=ref)


def _utf8(value: Any) -> Any:
    """``value`` with lone surrogates in its strings replaced by U+FFFD, so it can always be posted."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, dict):
        return {k: _utf8(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_utf8(v) for v in value]
    return value


def _asked_by(message: dict[str, Any], user: Any, form: str) -> dict[str, Any]:
    """``message`` with a context line naming who asked with which form (before its buttons), so a form's
    answer in a channel says whose question it is, as a slash command's response does. Unchanged when
    the line would take the message over Slack's limits (50 blocks, :data:`MAX_MESSAGE_CHARS`) or ``user``
    is not a user id."""
    blocks = list(message.get("blocks") or [])
    if not blocks or len(blocks) >= 50 or not isinstance(user, str) or not _USER_ID.match(user):
        return message
    line = {"type": "context", "elements": [{"type": "mrkdwn", "text": f"<@{user}> asked with the {form} form"}]}
    if len(json.dumps([*blocks, line], ensure_ascii=False)) > MAX_MESSAGE_CHARS:
        return message
    at = len(blocks) - 1 if blocks[-1].get("type") == "actions" else len(blocks)
    return {**message, "blocks": [*blocks[:at], line, *blocks[at:]]}


def _button_value(raw: Any) -> tuple[str, str] | None:
    """(stored answer id, follow-up text) from a button value, or ``None`` when it is not one of ours."""
    if not isinstance(raw, str) or len(raw) > MAX_BUTTON_VALUE_CHARS:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    context, text = data.get("c", ""), data.get("v", "")
    if not isinstance(context, str) or not _CONTEXT_ID.match(context) or not isinstance(text, str):
        return None
    return context, text


def build_app(
    settings: Settings,
    store: Store,
    *,
    kb_provider: Callable[[], KnowledgeBase] = get_knowledge,
    oauth_settings: Any | None = None,
    metrics: Metrics | None = None,
    answers: AnswerPool | None = None,
) -> App:
    """Create the Bolt app with all listeners.

    Args:
        settings: tokens, signing secret and Web API URL.
        store: the shared state store (context, processed events, audit).
        kb_provider: returns the current knowledge base (reloads swap what it returns).
        oauth_settings: a ``slack_bolt.oauth.oauth_settings.OAuthSettings`` for
            multi-workspace installs; ``None`` for single-workspace (``SLACK_BOT_TOKEN``).
        metrics: where finished requests are counted (default: the process-wide registry).
        answers: where answers are computed (default: :func:`answer_pool_from_settings`);
            tests and benches pass one with an injected answer function.

    Returns:
        The configured ``slack_bolt.App``.
    """
    signing_secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    options = {"signing_secret": signing_secret, "process_before_response": True,
               "raise_error_for_unhandled_request": True}
    if oauth_settings is not None:
        app = App(oauth_settings=oauth_settings, client=make_client(settings, None), **options)
        app.enable_token_revocation_listeners()
    else:
        app = App(client=make_client(settings), **options)

    metrics = metrics or get_metrics()
    pool = answers or answer_pool_from_settings(settings, kb_provider())

    # ------------------------------------------------------------------ middleware
    @app.middleware
    def deduplicate_events(req, resp, next):  # noqa: A002 - Bolt's parameter name
        body = req.body or {}
        event_id = body.get("event_id") if body.get("type") == "event_callback" else None
        req.context["gpu_request_id"] = uuid.uuid4().hex[:12]
        req.context["gpu_started"] = time.perf_counter()
        req.context["gpu_event_id"] = event_id
        if event_id and not store.claim_event(event_id, body.get("team_id")):
            log.info("duplicate event ignored", extra={"retry": (req.headers.get("x-slack-retry-num") or ["0"])[0]})
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

    # ------------------------------------------------------------------ posting
    def post(client: WebClient, *, channel: str, user: str | None, thread_ts: str | None,
             message: dict[str, Any]) -> str | None:
        """Post ``message``; the posted message's ts, or ``None`` (logged, and the asker told) when it failed."""
        try:
            response = client.chat_postMessage(channel=channel, thread_ts=thread_ts, **_utf8(message))
            return response.get("ts") or ""
        except Exception as exc:  # noqa: BLE001 - SlackApiError, or the connection failed after retries
            ref = new_ref()
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else describe_exception(exc)
            log.error("chat.postMessage failed: %s, reference %s", error, ref, extra={"ref": ref})
            if user:
                try:
                    client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts,
                                              text=f"Sorry, I could not post the answer here (reference `{ref}`).")
                except Exception:  # noqa: BLE001
                    log.error("chat.postEphemeral failed too, reference %s", ref, extra={"ref": ref})
            return None

    def deliver(client: WebClient, *, channel: str, thread_ts: str | None, user: str,
                message: dict[str, Any]) -> tuple[str, str] | None:
        """Post ``message`` in ``channel`` (a thread of it), else (no channel, or the bot may not post
        there) in a DM to ``user``. Returns (channel, ts) of the posted message, or ``None`` (logged)."""
        if channel:
            try:
                response = client.chat_postMessage(channel=channel, thread_ts=thread_ts or None, **_utf8(message))
                return response.get("channel") or channel, response.get("ts") or ""
            except Exception as exc:  # noqa: BLE001 - not_in_channel, channel_not_found ...: a DM instead
                error = exc.response.get("error") if isinstance(exc, SlackApiError) else describe_exception(exc)
                log.info("posting in the form's channel failed (%s); answering in a DM", error)
        try:
            response = client.chat_postMessage(channel=user, **_utf8(message))
            return response.get("channel") or user, response.get("ts") or ""
        except Exception as exc:  # noqa: BLE001
            ref = new_ref()
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else describe_exception(exc)
            log.error("chat.postMessage to a DM failed: %s, reference %s", error, ref, extra={"ref": ref})
            return None

    def upload_chart(client: WebClient, reply: Reply, *, channel: str, thread_ts: str | None) -> None:
        """Upload the reply's chart into the answer's thread, after the answer was posted, off the answer
        path (a notice task). A failed upload is logged (Slack's error code or the exception type, never
        text) and counted; the answer is already posted."""
        if not reply.chart_png:
            return
        png, alt, title = reply.chart_png, reply.chart_alt, reply.chart_title or "GPU Advisor chart"
        filename = f"gpu-advisor-{reply.intent or 'answer'}.png"

        def run() -> None:
            try:
                client.files_upload_v2(channel=channel, thread_ts=thread_ts or None, file=png, filename=filename,
                                       title=_utf8(title)[:250], alt_txt=_utf8(alt))
            except Exception as exc:  # noqa: BLE001 - the answer stands without its chart
                error = exc.response.get("error") if isinstance(exc, SlackApiError) else describe_exception(exc)
                log.warning("chart upload failed: %s", error, extra={"intent": reply.intent})
                metrics.errors.labels("chart_upload").inc()

        pool.notify(run)

    def record_question(team_id: str | None, user: str | None, reply: Reply) -> None:
        """Keep the question for the asker's App Home (the state store only; never logged)."""
        if user and reply.question:
            try:
                store.record_question(team_id, user, reply.question)
            except Exception as exc:  # noqa: BLE001 - the answer matters more than its history
                log.warning("could not record a recent question: %s", describe_exception(exc))

    def tell(client: WebClient, *, channel: str, user: str | None, thread_ts: str | None, channel_type: str,
             text: str) -> None:
        """A short notice: only to the asker in a channel, in the conversation in a DM."""
        try:
            if user and channel_type != "im":
                client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts, text=text)
            else:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text)
        except Exception as exc:  # noqa: BLE001
            log.error("could not deliver a notice: %s", describe_exception(exc))

    def remember(reply: Reply, action_context: str, key: str | None, team_id: str | None) -> None:
        if reply.query_json is None:
            return
        store.save_context(f"answer:{action_context}", reply.query_json, reply.verdict, team_id=team_id)
        if key is not None and reply.remember:
            store.save_context(key, reply.query_json, reply.verdict, team_id=team_id)

    def audit(team_id: str | None, channel_type: str, intent: str | None, started: float, outcome: str) -> None:
        store.record_audit(team_id=team_id, channel_type=channel_type, intent=intent,
                           latency_ms=(time.perf_counter() - started) * 1000, outcome=outcome)

    def busy(context, kind: str, type_: str | None, notify: Callable[[str], None], *,
             channel_type: str | None = None, text: str | None = "") -> None:
        ref = new_ref()
        log.warning("answer queue full (%d in flight), reference %s", pool.capacity, ref, extra={"ref": ref})
        pool.notify(lambda: notify(_busy(ref, text)))
        report(context, kind, type_, "busy", channel_type=channel_type, ref=ref)

    def publish_home(client: WebClient, user: str, team_id: str | None) -> bool:
        """Publish ``user``'s App Home (price ages per provider, their last questions); ``False`` if it failed."""
        try:
            view = home_view(kb_provider(), statuses=price_status(kb_provider(), date.today()),
                             questions=store.recent_questions(team_id, user))
            client.views_publish(user_id=user, view=view)
            return True
        except SlackApiError as exc:
            log.error("views.publish failed: %s", exc.response.get("error"))
        except Exception as exc:  # noqa: BLE001
            log.error("building the App Home failed: %s", describe_exception(exc))
        return False

    # ------------------------------------------------------------------ events
    def converse(event: dict, client: WebClient, context, *, key: str, thread_ts: str | None, event_type: str,
                 channel_type: str) -> None:
        """Answer a mention or DM in its conversation (``key``) off the ack path, post it, report it."""
        channel, user, team_id = event["channel"], event.get("user"), context.team_id
        text = event.get("text") or ""

        def job() -> None:
            started = time.perf_counter()
            try:
                action_context = uuid.uuid4().hex[:16]
                if text.strip().lower() in RESET_WORDS:
                    stored = store.load_context(key)  # its language is the reply's
                    store.clear_context(key)
                    request = AnswerRequest(mode="reset", text=text,
                                            previous_query_json=stored.query_json if stored else None)
                else:
                    stored = store.load_context(key)
                    request = AnswerRequest(text=text, previous_query_json=stored.query_json if stored else None,
                                            action_context=action_context)
                outcome = pool.answer(request, kb_provider())
                if isinstance(outcome, AnswerFailure):
                    tell(client, channel=channel, user=user, thread_ts=thread_ts, channel_type=channel_type,
                         text=_apology(outcome, text))
                    audit(team_id, channel_type, None, started, "error")
                    report(context, "event", event_type, "timeout" if outcome.reason == "timeout" else "error",
                           channel_type=channel_type, ref=outcome.ref)
                    return
                remember(outcome, action_context, key, team_id)
                record_question(team_id, user, outcome)
                audit(team_id, channel_type, outcome.intent, started, "answered")
                ts = post(client, channel=channel, user=user, thread_ts=thread_ts, message=outcome.message)
                if ts is not None:
                    upload_chart(client, outcome, channel=channel, thread_ts=thread_ts or ts)
                report(context, "event", event_type, "answered" if ts is not None else "post_failed",
                       channel_type=channel_type, intent=outcome.intent)
            except Exception as exc:  # noqa: BLE001 - our fault: the user gets an apology, the log the traceback
                failure = AnswerFailure(new_ref(), "error")
                log.error("answering failed, reference %s", failure.ref, exc_info=exc, extra={"ref": failure.ref})
                tell(client, channel=channel, user=user, thread_ts=thread_ts, channel_type=channel_type,
                     text=_apology(failure, text))
                report(context, "event", event_type, "error", channel_type=channel_type, ref=failure.ref)

        if not pool.start(job):
            busy(context, "event", event_type, lambda t: tell(client, channel=channel, user=user, thread_ts=thread_ts,
                                                             channel_type=channel_type, text=t),
                 channel_type=channel_type, text=text)

    @app.event("app_mention")
    def on_mention(event: dict, client: WebClient, context) -> None:
        channel, ts = event.get("channel"), event.get("ts")
        if event.get("bot_id") or event.get("subtype") or not isinstance(channel, str) or not isinstance(ts, str):
            report(context, "event", "app_mention", "ignored", channel_type="channel")
            return
        thread_ts = event.get("thread_ts") or ts
        converse(event, client, context, key=f"{context.team_id}:{channel}:{thread_ts}", thread_ts=thread_ts,
                 event_type="app_mention", channel_type="channel")

    @app.event("message")
    def on_message(event: dict, client: WebClient, context) -> None:
        # Only plain user messages in DMs: every subtype (edits, joins, bot_message, ...) and
        # every bot (including this app) is ignored, so the bot can never answer itself.
        channel = event.get("channel")
        if (event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id")
                or not isinstance(event.get("user"), str) or event.get("user") == context.bot_user_id
                or not isinstance(channel, str)):
            report(context, "event", "message", "ignored", channel_type=event.get("channel_type"))
            return
        thread_ts = event.get("thread_ts")
        key = f"{context.team_id}:{channel}" + (f":{thread_ts}" if thread_ts else "")
        converse(event, client, context, key=key, thread_ts=thread_ts, event_type="message", channel_type="im")

    @app.event("app_home_opened")
    def on_home(event: dict, client: WebClient, context) -> None:
        user = event.get("user")
        if event.get("tab", "home") != "home" or not isinstance(user, str):
            report(context, "event", "app_home_opened", "ignored")
            return
        team_id = context.team_id

        def publish() -> None:
            ok = publish_home(client, user, team_id)
            report(context, "event", "app_home_opened", "home" if ok else "post_failed")

        pool.notify(publish)

    # ------------------------------------------------------------------ forms
    def open_modal(client: WebClient, context, trigger_id: Any, view: Callable[[], dict[str, Any]], kind: str,
                   type_: str | None) -> None:
        """``views.open`` off the ack path (a notice task: a trigger id lives 3 seconds)."""
        if not isinstance(trigger_id, str) or not trigger_id:
            report(context, kind, type_, "ignored")
            return

        def run() -> None:
            try:
                client.views_open(trigger_id=trigger_id, view=view())
                report(context, kind, type_, "form")
            except SlackApiError as exc:
                log.error("views.open failed: %s", exc.response.get("error"))
                report(context, kind, type_, "post_failed")

        pool.notify(run)

    def sizing(place: FormPlace, initial: SizingForm | None = None) -> Callable[[], dict[str, Any]]:
        return lambda: sizing_modal(kb_provider(), place, initial)

    def quoting(place: FormPlace, initial: QuoteForm | None = None) -> Callable[[], dict[str, Any]]:
        return lambda: quote_modal(kb_provider(), place, initial)

    @app.options(MODEL_ACTION)
    def on_model_options(ack, body: dict) -> None:
        typed = body.get("value") if isinstance(body.get("value"), str) else ""
        ack(options=model_options(kb_provider(), typed[:100]))

    @app.options(GPU_ACTION)
    def on_gpu_options(ack, body: dict) -> None:
        typed = body.get("value") if isinstance(body.get("value"), str) else ""
        ack(options=gpu_options(kb_provider(), typed[:100]))

    def on_form(reader: Callable[[dict[str, Any], KnowledgeBase], Any], first_field: str,
                name: str) -> Callable[..., None]:
        def handler(ack, body: dict, view: dict, client: WebClient, context) -> None:
            state = (view.get("state") or {}).get("values") or {}
            form = reader(state if isinstance(state, dict) else {}, kb_provider())
            callback = view.get("callback_id")
            if isinstance(form, dict):  # field errors: the form stays open with what was typed
                ack(response_action="errors", errors=form)
                report(context, "view", callback, "invalid")
                return
            user = (body.get("user") or {}).get("id")
            team_id = context.team_id
            place = read_place(view.get("private_metadata"))
            action_context = uuid.uuid4().hex[:16]

            def job() -> None:
                started = time.perf_counter()
                try:
                    outcome = pool.answer(AnswerRequest(mode="form", form=form, action_context=action_context),
                                          kb_provider())
                    if isinstance(outcome, AnswerFailure):
                        deliver(client, channel="", thread_ts=None, user=user, message={"text": _apology(outcome)})
                        audit(team_id, "form", None, started, "error")
                        report(context, "view", callback, "timeout" if outcome.reason == "timeout" else "error",
                               ref=outcome.ref)
                        return
                    audit(team_id, "form", outcome.intent, started, "answered")
                    message = _asked_by(outcome.message, user, name) if place.channel else outcome.message
                    posted = deliver(client, channel=place.channel, thread_ts=place.thread_ts, user=user,
                                     message=message)
                    if posted is None:
                        report(context, "view", callback, "post_failed", intent=outcome.intent)
                        return
                    channel, ts = posted
                    thread = place.thread_ts if channel == place.channel and place.thread_ts else ts
                    remember(outcome, action_context, f"{team_id}:{channel}:{thread}" if not channel.startswith("D")
                             else f"{team_id}:{channel}", team_id)
                    record_question(team_id, user, outcome)
                    upload_chart(client, outcome, channel=channel, thread_ts=thread)
                    report(context, "view", callback, "answered", intent=outcome.intent)
                except Exception as exc:  # noqa: BLE001
                    failure = AnswerFailure(new_ref(), "error")
                    log.error("answering a form failed, reference %s", failure.ref, exc_info=exc,
                              extra={"ref": failure.ref})
                    deliver(client, channel="", thread_ts=None, user=user, message={"text": _apology(failure)})
                    report(context, "view", callback, "error", ref=failure.ref)

            if not isinstance(user, str) or not pool.start(job):
                ack(response_action="errors", errors={first_field: BUSY_FORM_TEXT})
                report(context, "view", callback, "busy")
                return
            ack()  # closes the modal; the answer follows in the channel or a DM
        return handler

    app.view(SIZING_CALLBACK)(on_form(read_sizing_form, "model", "sizing"))
    app.view(QUOTE_CALLBACK)(on_form(read_quote_form, "gpu", "quote"))

    @app.shortcut(SIZE_SHORTCUT)
    def on_size_shortcut(ack, body: dict, client: WebClient, context) -> None:
        ack()
        open_modal(client, context, body.get("trigger_id"), sizing(FormPlace()), "shortcut", SIZE_SHORTCUT)

    @app.shortcut(QUOTE_SHORTCUT)
    def on_quote_shortcut(ack, body: dict, client: WebClient, context) -> None:
        ack()
        open_modal(client, context, body.get("trigger_id"), quoting(FormPlace()), "shortcut", QUOTE_SHORTCUT)

    # ------------------------------------------------------------------ slash commands
    def slash(force_intent: str | None, usage: str, form: str | None = None) -> Callable[..., None]:
        def handler(ack, command: dict, respond, client: WebClient, context) -> None:
            ack()  # Bolt sends it when this function returns, which is before any answer
            text = (command.get("text") or "").strip()
            name = command.get("command")
            team_id = context.team_id
            channel, user = command.get("channel_id"), command.get("user_id")
            if not text and form is not None:  # an empty /gpu-size or /gpu-quote opens its form
                place = FormPlace(channel if isinstance(channel, str) else "")
                open_modal(client, context, command.get("trigger_id"),
                           sizing(place) if form == "size" else quoting(place), "command", name)
                return
            action_context = uuid.uuid4().hex[:16]
            if not text or text.lower() in {"help", "?"}:
                request = AnswerRequest(mode="help", usage=usage, action_context=action_context)
            else:
                request = AnswerRequest(text=text, force_intent=force_intent, action_context=action_context)

            def job() -> None:
                started = time.perf_counter()
                try:
                    outcome = pool.answer(request, kb_provider())
                    if isinstance(outcome, AnswerFailure):
                        respond(response_type="ephemeral", text=_apology(outcome, text))
                        audit(team_id, "command", None, started, "error")
                        report(context, "command", name, "timeout" if outcome.reason == "timeout" else "error",
                               channel_type="command", ref=outcome.ref)
                        return
                    if request.mode == "help":
                        respond(response_type="ephemeral", **_utf8(outcome.message))
                        report(context, "command", name, "help", channel_type="command", intent="help")
                        return
                    remember(outcome, action_context, None, team_id)
                    record_question(team_id, user, outcome)
                    audit(team_id, "command", outcome.intent, started, "answered")
                    respond(response_type="in_channel" if outcome.visible else "ephemeral", **_utf8(outcome.message))
                    if outcome.visible and isinstance(channel, str):
                        # a response_url message has no ts to thread under: the chart follows it in the channel
                        upload_chart(client, outcome, channel=channel, thread_ts=None)
                    report(context, "command", name, "answered", channel_type="command", intent=outcome.intent)
                except Exception as exc:  # noqa: BLE001
                    failure = AnswerFailure(new_ref(), "error")
                    log.error("answering %s failed, reference %s", name, failure.ref, exc_info=exc,
                              extra={"ref": failure.ref})
                    try:
                        respond(response_type="ephemeral", text=_apology(failure, text))
                    except Exception:  # noqa: BLE001
                        log.error("could not deliver the apology, reference %s", failure.ref)
                    report(context, "command", name, "error", channel_type="command", ref=failure.ref)

            if not pool.start(job):
                busy(context, "command", name, lambda t: respond(response_type="ephemeral", text=t),
                     channel_type="command", text=text)
        return handler

    app.command("/gpu")(slash(None, "/gpu H100 vs A100 for Llama 2 70B"))
    app.command("/gpu-quote")(slash("quote", "/gpu-quote 8x H100 for 3 days [on aws]", form="quote"))
    app.command("/gpu-size")(slash("size_inference", "/gpu-size llama 3 70b, 200 users, 8k context, int4",
                                   form="size"))

    # ------------------------------------------------------------------ buttons
    def on_button(ack, body: dict, respond, action: dict, client: WebClient, context) -> None:
        ack()
        action_id = action.get("action_id")
        value = _button_value(action.get("value"))
        if value is None:
            pool.notify(lambda: respond(response_type="ephemeral", replace_original=False, text=TAMPERED_TEXT))
            report(context, "action", action_id, "tampered")
            return
        stored_id, follow_up = value
        message = body.get("message") if isinstance(body.get("message"), dict) else {}
        thread_ts = message.get("thread_ts") or message.get("ts")
        channel = (body.get("channel") or {}).get("id") if isinstance(body.get("channel"), dict) else None
        new_context = uuid.uuid4().hex[:16]
        modes = {"show_assumptions": "assumptions", "show_all": "show_all"}

        def job() -> None:
            try:
                stored = store.load_context(f"answer:{stored_id}")
                outcome: Reply | AnswerFailure | None = None
                if stored is not None:
                    request = AnswerRequest(mode=modes.get(action_id, "follow_up"), text=follow_up,
                                            previous_query_json=stored.query_json, action_context=new_context)
                    outcome = pool.answer(request, kb_provider())
                if isinstance(outcome, AnswerFailure):
                    respond(response_type="ephemeral", replace_original=False, text=_apology(outcome, follow_up))
                    report(context, "action", action_id, "timeout" if outcome.reason == "timeout" else "error",
                           ref=outcome.ref)
                    return
                if outcome is None or outcome.status == "expired":
                    respond(response_type="ephemeral", replace_original=False, text=_say("slack_expired", follow_up))
                    report(context, "action", action_id, "expired")
                    return
                if action_id != "show_assumptions":
                    remember(outcome, new_context, None, context.team_id)
                respond(response_type="in_channel", replace_original=False, thread_ts=thread_ts,
                        **_utf8(outcome.message))
                if isinstance(channel, str) and thread_ts:
                    upload_chart(client, outcome, channel=channel, thread_ts=thread_ts)
                report(context, "action", action_id, "answered", intent=outcome.intent)
            except Exception as exc:  # noqa: BLE001
                failure = AnswerFailure(new_ref(), "error")
                log.error("answering button %s failed, reference %s", action_id, failure.ref, exc_info=exc,
                          extra={"ref": failure.ref})
                try:
                    respond(response_type="ephemeral", replace_original=False, text=_apology(failure, follow_up))
                except Exception:  # noqa: BLE001
                    log.error("could not deliver the apology, reference %s", failure.ref)
                report(context, "action", action_id, "error", ref=failure.ref)

        if not pool.start(job):
            busy(context, "action", action_id,
                 lambda t: respond(response_type="ephemeral", replace_original=False, text=t))

    for action_id in ("show_assumptions", "show_all", "switch_precision", "quote_this"):
        app.action(action_id)(on_button)

    def on_open_form(ack, body: dict, action: dict, respond, client: WebClient, context) -> None:
        """"Size it" / "Open in form" / "Price GPUs": open the form, filled with the answer's question when
        the button belongs to one; answers go to the message's channel and thread, or a DM from App Home."""
        ack()
        action_id = action.get("action_id")
        value = _button_value(action.get("value"))
        if value is None:
            pool.notify(lambda: respond(response_type="ephemeral", replace_original=False, text=TAMPERED_TEXT))
            report(context, "action", action_id, "tampered")
            return
        # a button in a message (an ephemeral one, such as help, comes without its message): the answer goes
        # to that channel, in the message's thread when there is one; from App Home (no channel): a DM
        message = body.get("message") if isinstance(body.get("message"), dict) else {}
        channel = (body.get("channel") or {}).get("id") if isinstance(body.get("channel"), dict) else ""
        channel = channel if isinstance(channel, str) else ""
        place = FormPlace(channel, (message.get("thread_ts") or message.get("ts") or "") if channel else "")
        stored_id = value[0]

        def view() -> dict[str, Any]:
            stored = store.load_context(f"answer:{stored_id}") if stored_id else None
            initial = form_for(stored.query_json, kb_provider()) if stored else None
            if isinstance(initial, QuoteForm) or (initial is None and action_id == OPEN_QUOTE_FORM_ACTION):
                return quote_modal(kb_provider(), place, initial if isinstance(initial, QuoteForm) else None)
            return sizing_modal(kb_provider(), place, initial)

        open_modal(client, context, body.get("trigger_id"), view, "action", action_id)

    app.action(OPEN_SIZING_FORM_ACTION)(on_open_form)
    app.action(OPEN_QUOTE_FORM_ACTION)(on_open_form)

    @app.action(ASK_EXAMPLE_ACTION)
    def on_ask_example(ack, body: dict, action: dict, client: WebClient, context) -> None:
        """An example question's "Ask" button on App Home: answered in the user's DM with the bot."""
        ack()
        user = (body.get("user") or {}).get("id") if isinstance(body.get("user"), dict) else None
        text = action.get("value")
        if not isinstance(user, str) or not isinstance(text, str) or not text.strip():
            report(context, "action", ASK_EXAMPLE_ACTION, "ignored")
            return
        team_id = context.team_id

        def job() -> None:
            started = time.perf_counter()
            action_context = uuid.uuid4().hex[:16]
            try:
                outcome = pool.answer(AnswerRequest(text=text[:2000], action_context=action_context), kb_provider())
                if isinstance(outcome, AnswerFailure):
                    deliver(client, channel="", thread_ts=None, user=user, message={"text": _apology(outcome)})
                    report(context, "action", ASK_EXAMPLE_ACTION, "error", ref=outcome.ref)
                    return
                audit(team_id, "home", outcome.intent, started, "answered")
                posted = deliver(client, channel="", thread_ts=None, user=user, message=outcome.message)
                if posted is None:
                    report(context, "action", ASK_EXAMPLE_ACTION, "post_failed", intent=outcome.intent)
                    return
                channel, ts = posted
                remember(outcome, action_context, f"{team_id}:{channel}", team_id)
                record_question(team_id, user, outcome)
                upload_chart(client, outcome, channel=channel, thread_ts=ts)
                publish_home(client, user, team_id)  # the question joins "Your last questions"
                report(context, "action", ASK_EXAMPLE_ACTION, "answered", intent=outcome.intent)
            except Exception as exc:  # noqa: BLE001
                failure = AnswerFailure(new_ref(), "error")
                log.error("answering an example failed, reference %s", failure.ref, exc_info=exc,
                          extra={"ref": failure.ref})
                deliver(client, channel="", thread_ts=None, user=user, message={"text": _apology(failure)})
                report(context, "action", ASK_EXAMPLE_ACTION, "error", ref=failure.ref)

        if not pool.start(job):
            busy(context, "action", ASK_EXAMPLE_ACTION,
                 lambda t: deliver(client, channel="", thread_ts=None, user=user, message={"text": t}))

    # ------------------------------------------------------------------ everything else
    @app.error
    def on_error(error: Exception, body: dict, context) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            # No listener: an event type, subtype, command or action we do not use. 200 so that
            # Slack does not retry it (and does not count it as a failure).
            body = body if isinstance(body, dict) else {}
            if body.get("type") == "event_callback":
                report(context, "event", (body.get("event") or {}).get("type"), "ignored")
            elif "command" in body:
                report(context, "command", body.get("command"), "ignored")
            else:
                report(context, "other", body.get("type"), "ignored")
            return BoltResponse(status=200, body="")
        ref = new_ref()
        log.error("unhandled error, reference %s", ref, exc_info=error,
                  extra={"ref": ref, "error": describe_exception(error)})
        metrics.errors.labels("unhandled").inc()
        return None

    return app
