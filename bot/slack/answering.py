"""The one seam between the Slack layer and the advice core.

Everything the Slack layer asks of the core goes through this module: :func:`answer_message` takes the
message text (or a submitted form) and the conversation's previous question (as stored JSON) and returns
a :class:`Reply`, the payload to post, the chart to upload and what to remember; :func:`form_for`
turns a stored question back into a form, :func:`price_status` gives the price data's age per provider.
Nothing else in ``bot/slack`` imports ``bot.advice``, ``bot.parsing``, ``bot.render`` or ``bot.pricing``,
so a change of the core's API is made here only.

Requests and replies are plain, picklable data: :mod:`bot.slack.workers` runs this function in
separate processes, so a CPU-heavy answer never holds up an acknowledgement. Tests and benches
inject another function with the same signature (a slow one, a failing one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from pydantic import ValidationError

from bot.advice.advise import advise
from bot.advice.answer import Action, Answer
from bot.advice.conversation import EXAMPLE_QUESTIONS, Turn, help_turn, respond_to
from bot.advice.followup import recommended_gpu
from bot.kb.loader import KnowledgeBase
from bot.notes import note
from bot.parsing.query import GpuMention, ModelMention, Money, Query
from bot.parsing.slack_text import clean_slack_text
from bot.parsing.text import detect_language
from bot.pricing.offers import (
    CATALOG_STALE_AFTER_DAYS,
    STALE_AFTER_DAYS,
    ProviderPriceStatus,
    current_catalog,
    provider_status,
    set_catalog,
)
from bot.render.blockkit import TABLE_ROWS, render_assumptions, render_message
from bot.render.compose import compose
from bot.render.i18n import renderer_for
from bot.slack.forms import FORM_PRECISIONS, PRICING_CHOICES, QuoteForm, SizingForm

__all__ = ["CATALOG_STALE_AFTER_DAYS", "EXAMPLE_QUESTIONS", "STALE_AFTER_DAYS", "AnswerFunction", "AnswerRequest", "ProviderPriceStatus", "Reply", "answer_message", "layer_message",
           "catalog_generation", "form_for", "price_status", "use_stored_catalog", "warm_up_charts"]

log = logging.getLogger("gpu_advisor.answering")

Mode = Literal["message", "help", "reset", "follow_up", "assumptions", "show_all", "form"]


@dataclass(frozen=True)
class AnswerRequest:
    """What to answer.

    Attributes:
        mode: ``message`` (a mention, DM or slash command), ``help`` (an empty slash command),
            ``reset`` (the user asked to start over), ``follow_up`` (a button whose value is a
            follow-up message to ``previous_query_json``), ``assumptions`` (the "Show
            assumptions" button: ``previous_query_json`` answered again, every assumption listed),
            ``show_all`` (the "Show all options" button: answered again with every table row) or
            ``form`` (a submitted sizing or quote form, ``form``).
        text: the message as Slack sent it (markup and all); ``""`` when there is none.
        previous_query_json: the conversation's last question as stored (``Query`` JSON), or ``None``.
        force_intent: the intent a slash command implies (``/gpu-quote`` -> ``quote``).
        usage: the usage line shown by ``help`` (``/gpu-quote 8x H100 for 3 days``).
        action_context: the id buttons in the reply carry, under which the Slack layer stores
            the reply's question.
        form: the submitted form (mode ``form``).
        chart: draw the answer's chart when it has one (see :attr:`Reply.chart_png`).
    """

    mode: Mode = "message"
    text: str = ""
    previous_query_json: str | None = None
    force_intent: str | None = None
    usage: str | None = None
    action_context: str | None = None
    form: SizingForm | QuoteForm | None = None
    chart: bool = True


@dataclass(frozen=True)
class Reply:
    """What to post, and what to remember.

    Attributes:
        message: ``{"text": ..., "blocks": [...]}``, ready for ``chat.postMessage`` or a
            ``response_url``; empty when ``status`` is ``expired``.
        status: ``answered``, or ``expired`` when a button needs a previous question that is
            gone or can no longer be read (stored before an upgrade changed its shape).
        query_json: the (possibly merged) question to remember for follow-ups; ``None`` if none.
        intent: the answer's intent (``compare``, ``size_inference``, ``help`` ...).
        verdict: the answer's one-sentence verdict (stored with the context, never logged).
        visible: a real answer, posted for the channel to see (help and requests for missing
            details are shown only to the asker).
        remember: the question should become the conversation's context.
        question: what the user asked, to show back to them (App Home's last questions; never
            logged): the message without Slack markup, or a submitted form's answer title; ``""`` when
            the reply is not an answer to a question.
        chart_png: the answer's chart as a 960 x 540 PNG (:func:`bot.render.charts.render_png`), to upload
            into the answer's thread; ``None`` when the answer has no chart or drawing it failed.
        chart_alt: the chart's alt text, which states the same result in words (the user's language).
        chart_title: the chart's title (the uploaded file's title).
    """

    message: dict[str, Any]
    status: Literal["answered", "expired"] = "answered"
    query_json: str | None = None
    intent: str | None = None
    verdict: str = ""
    visible: bool = False
    remember: bool = False
    question: str = ""
    chart_png: bytes | None = None
    chart_alt: str = ""
    chart_title: str = ""


#: The signature of :func:`answer_message` (and of anything injected in its place).
AnswerFunction = Callable[[AnswerRequest, KnowledgeBase], Reply]

_NOT_AN_ANSWER = ("help", "unknown")


def _previous(query_json: str | None) -> Query | None:
    if not query_json:
        return None
    try:
        return Query.model_validate_json(query_json)
    except ValidationError:  # stored by an older version whose Query had another shape
        return None


def _unicode_text(text: str) -> str:
    """``text`` with lone surrogates (``"\\ud800"`` escapes in a JSON body) replaced by U+FFFD.

    Slack sends UTF-8, which cannot hold a lone surrogate; a JSON escape can. Such a string cannot
    be stored as JSON or posted back, so it is made valid before the core sees it.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def layer_message(code: str, text: str | None = None, **params) -> str:
    """A message of the Slack layer itself (an apology, an expired or unreadable button, a full queue), from the
    render catalogs, in the language of ``text`` (the user's question or follow-up); in English and Chinese both
    when the language is not known (``text`` is ``None``).

    Args:
        code: the catalog message code (``slack_apology_timeout``, ``slack_expired``...).
        text: what the user wrote, or ``None``.
        params: the message's parameters (``ref``).
    """
    if text is None:
        return "\n".join(renderer_for(lang).say(note(code, **params)) for lang in ("en", "zh"))
    return renderer_for("zh" if detect_language(text) == "zh" else "en").say(note(code, **params))


def answer_message(request: AnswerRequest, kb: KnowledgeBase) -> Reply:
    """Answer one Slack message, button or form with the advice core (the one seam).

    Args:
        request: the message and its conversation (see :class:`AnswerRequest`).
        kb: the knowledge base to answer from.

    Returns:
        The :class:`Reply`. A previous question that cannot be read is treated as no previous
        question for messages, and as ``expired`` for buttons (which need one). Lone surrogates
        in the text are replaced by U+FFFD first. Answers that a form can express carry an "Open in
        form" button; answers with a chart (comparison, sizing, quote, training) carry its PNG when
        ``request.chart`` (a chart that fails to draw is logged, and the answer goes without it).

    Raises:
        Whatever the core raises: the core promises an answer (help for input it does not
        understand) for any text, so an exception here is a bug; the caller apologises with a
        reference id.
    """
    previous = _previous(request.previous_query_json)
    if request.mode in ("follow_up", "assumptions", "show_all") and previous is None:
        return Reply(message={}, status="expired")
    if request.mode in ("assumptions", "show_all"):
        turn = respond_to("", previous, kb=kb, replay=True)
        message = (render_assumptions(turn.answer) if request.mode == "assumptions" else
                   render_message(turn.answer, show_all=True, action_context=request.action_context))
        return Reply(message=message, query_json=turn.query.model_dump_json(), intent=turn.answer.intent,
                     verdict=_verdict(turn.answer), visible=True)
    question = ""
    if request.mode in ("help", "reset"):
        # in the conversation's language: a Chinese reset word or a Chinese conversation gets the Chinese help
        chinese = detect_language(request.text or "") == "zh" or (previous is not None and previous.language == "zh")
        turn = help_turn(kb, reset=request.mode == "reset", usage=request.usage, language="zh" if chinese else "en")
    elif request.mode == "form":
        if request.form is None:
            raise ValueError("a form request needs its form")
        query = _form_query(request.form, kb)
        answer = advise(query, kb)
        turn = Turn(answer, query.model_copy(update={"previous_recommendation": recommended_gpu(answer)}))
        question = compose(answer).title
    else:
        text = _unicode_text(request.text)
        turn = respond_to(text, previous, kb=kb, force_intent=request.force_intent)
        question = clean_slack_text(text).strip()
    answer = _with_buttons(turn.answer, turn.query, kb)
    real = answer.intent not in _NOT_AN_ANSWER
    png, alt, title = _chart(answer) if request.chart and real else (None, "", "")
    return Reply(message=render_message(answer, action_context=request.action_context),
                 query_json=turn.query.model_dump_json(), intent=answer.intent, verdict=_verdict(answer),
                 visible=real and not answer.examples, remember=real and not turn.reset,
                 question=question if real else "", chart_png=png, chart_alt=alt, chart_title=title)


def _verdict(answer) -> str:
    """The answer's first line (its headline) in the user's language, stored with the context."""
    return renderer_for(answer.query.language).say(answer.headline)


def _chart(answer: Answer) -> tuple[bytes | None, str, str]:
    """(PNG, alt text, title) of ``answer``'s chart; ``(None, "", "")`` when it has none or drawing failed.

    matplotlib is imported here, in the worker, only when there is a chart to draw.
    """
    from bot.render.charts import chart_for, render_png

    try:
        chart = chart_for(answer, answer.query.language)
        if chart is None:
            return None, "", ""
        return render_png(chart), chart.alt_text, chart.title
    except Exception as exc:  # noqa: BLE001 - the answer goes without its chart; the type is logged, no text
        log.warning("chart not drawn: %s", type(exc).__name__, extra={"intent": answer.intent})
        return None, "", ""


# --------------------------------------------------------------------------- forms


def _form_query(form: SizingForm | QuoteForm, kb: KnowledgeBase) -> Query:
    """The typed request a submitted form makes (never a sentence parsed again)."""
    if isinstance(form, QuoteForm):
        gpu = kb.gpus[form.gpu_id]
        pricing, term = (PRICING_CHOICES[form.pricing][1:] if form.pricing else (None, None))
        return Query(text="", intent="quote", asks=["cost"],
                     gpus=[GpuMention(id=gpu.id, as_written=gpu.name, count=form.count)],
                     duration_hours=form.duration_hours, pricing=[pricing] if pricing else [],
                     commitment_term=term, providers=[form.provider] if form.provider else [])
    notes = []
    if form.model_id:
        model = ModelMention(id=form.model_id, as_written=kb.models[form.model_id].name)
    else:
        size = f"{form.own_params_b:g}B"
        model = ModelMention(as_written=size, generic=True, params_total_b=form.own_params_b)
        notes.append(note("generic_model", size=size, active_b=None))
    return Query(
        text="", intent="size_inference", workload="inference", models=[model],
        gpus=[GpuMention(id=g, as_written=kb.gpus[g].name) for g in form.gpu_ids],
        concurrent_users=form.users, context_tokens=form.context_tokens, input_tokens=form.input_tokens,
        output_tokens=form.output_tokens, precisions=[form.precision] if form.precision else [],
        target_tokens_per_s=form.target_tokens_per_s,
        target_scope="per_user" if form.target_tokens_per_s is not None else None, ttft_ms_max=form.ttft_ms,
        price_limit_per_hour=Money(amount=form.budget_usd_per_hour) if form.budget_usd_per_hour else None,
        providers=[form.provider] if form.provider else [], notes=notes)


def _form_of(query: Query, kb: KnowledgeBase) -> SizingForm | QuoteForm | None:
    """The form that asks ``query`` again, or ``None`` when no form can say it.

    A quote of one GPU type becomes the quote form; serving one model (sizing, a comparison, the best
    setup under a budget) the sizing form, whose budget field keeps the budget. What the form has no field
    for (an engine, a KV-cache precision) is not carried.
    """
    gpus = [g for g in query.gpus if g.id in kb.gpus and not g.capacity_only]
    if query.intent == "quote":
        if len(gpus) != 1:
            return None
        pricing = None
        if query.pricing:
            wanted = (query.pricing[0], query.commitment_term if query.pricing[0] == "commitment" else None)
            pricing = next((k for k, (_label, model, term) in PRICING_CHOICES.items() if (model, term) == wanted), None)
        return QuoteForm(gpu_id=gpus[0].id, count=gpus[0].count or query.gpu_count or 1,
                         duration_hours=query.duration_hours, pricing=pricing,
                         provider=query.providers[0] if query.providers and query.providers[0] in kb.providers else None)
    if query.intent not in ("size_inference", "compare", "recommend") or len(query.models) != 1:
        return None
    mention = query.models[0]
    model = kb.models.get(mention.id) if mention.id else None
    if model is not None and model.kind != "llm":
        return None
    if model is None and not (mention.generic and mention.params_total_b):
        return None
    limit = query.price_limit_per_hour
    return SizingForm(
        model_id=model.id if model else None, own_params_b=None if model else mention.params_total_b,
        gpu_ids=tuple(dict.fromkeys(g.id for g in gpus)), users=query.concurrent_users,
        context_tokens=query.context_tokens, input_tokens=query.input_tokens, output_tokens=query.output_tokens,
        precision=next((p for p in query.precisions if p in FORM_PRECISIONS), None),
        target_tokens_per_s=query.target_tokens_per_s if query.target_scope != "total" else None,
        ttft_ms=query.ttft_ms_max,
        budget_usd_per_hour=limit.amount if limit and limit.currency == "usd" and not query.price_limit_per_gpu
        else None,
        provider=query.providers[0] if query.providers and query.providers[0] in kb.providers else None)


def _with_buttons(answer: Answer, query: Query, kb: KnowledgeBase) -> Answer:
    """``answer`` with the buttons its Slack message needs beyond the core's: "Show all options" when the
    message shows only the first :data:`~bot.render.blockkit.TABLE_ROWS` rows of its table (the message
    says "+N more rows: press Show all options"), and "Open in form" when a form can ask its question again.
    """
    if answer.intent in _NOT_AN_ANSWER:
        return answer
    actions = list(answer.actions)
    ids = {a.action_id for a in actions}
    if answer.table is not None and len(answer.table.rows) > TABLE_ROWS and "show_all" not in ids:
        actions.insert(0, Action(action_id="show_all", label=note("button_show_all")))
    if "open_form" not in ids and _form_of(query, kb) is not None:
        actions.append(Action(action_id="open_form", label=note("button_open_in_form")))
    return answer if actions == answer.actions else answer.model_copy(update={"actions": actions})


def form_for(query_json: str | None, kb: KnowledgeBase) -> SizingForm | QuoteForm | None:
    """The form an answer's "Open in form" button opens, filled with its stored question.

    Args:
        query_json: the question as stored with the answer (``Query`` JSON).
        kb: the knowledge base.

    Returns:
        A :class:`~bot.slack.forms.SizingForm` or :class:`~bot.slack.forms.QuoteForm`, or ``None`` when the
        question cannot be read or no form says it (the caller opens an empty sizing form).
    """
    query = _previous(query_json)
    return _form_of(query, kb) if query is not None else None


def price_status(kb: KnowledgeBase, today: date) -> list[ProviderPriceStatus]:
    """The price data's age per provider (:func:`bot.pricing.offers.provider_status`), from the refreshed
    catalog when one was handed to pricing in this process, else from the curated prices."""
    return provider_status(kb, today=today)


def catalog_generation() -> int | None:
    """The generation of the refreshed price catalog this process prices with, or ``None`` (curated only).

    The serving process's is kept current by the scheduled refresh (:mod:`bot.pricing.schedule`); answer
    workers follow it with :func:`use_stored_catalog`.
    """
    catalog = current_catalog()
    return catalog.generation if catalog is not None else None


def use_stored_catalog(database_url: str | None) -> None:
    """Price with the refreshed catalog stored in ``database_url`` (read on first use), or with the curated
    prices only when ``database_url`` is ``None``. A store that cannot be read leaves the curated prices
    (logged with the exception's type).
    """
    if database_url is None:
        set_catalog(None)
        return

    def load():
        from bot.storage.catalog_read import read_catalog

        try:
            return read_catalog(database_url)
        except Exception as exc:  # noqa: BLE001 - answer with the curated prices rather than not at all
            log.warning("refreshed prices not readable: %s; curated prices only", type(exc).__name__)
            return None

    set_catalog(load)


def warm_up_core(kb: KnowledgeBase) -> None:
    """Answer one question now, so that the lexicon is compiled and the parser's name tables and the offer table
    are built before a worker's first real answer (a worker started to replace a stopped one then answers within
    the same time budget). Called by answer workers as they start.

    Args:
        kb: the knowledge base the worker answers from.
    """
    from bot.parsing import parse_question

    advise(parse_question("H100 vs A100 for Llama 2 70B", kb), kb)


def warm_up_charts() -> None:
    """Import matplotlib's Agg drawing and find the CJK font now (about 0.6 s), so that a worker's first
    chart does not delay its answer by that much. Called by answer workers as they start."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    from matplotlib.figure import Figure  # noqa: F401

    from bot.render.charts import cjk_font

    cjk_font()
