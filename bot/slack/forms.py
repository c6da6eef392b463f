"""The sizing and quote forms: Slack modals built with ``slack_sdk.models.views``, read back into typed requests.

``/gpu-size`` and ``/gpu-quote`` with no text, the "Size it" and "Open in form" buttons and the App Home
open these modals. A submitted modal is read by :func:`read_sizing_form` / :func:`read_quote_form` into a
:class:`SizingForm` / :class:`QuoteForm` (plain, picklable data), which the seam
(:func:`bot.slack.answering.answer_message`, mode ``form``) turns into the core's request directly: a form
is never written out as a sentence and parsed again.

Every choice comes from the knowledge base: model and GPU typeahead (``external_select`` backed by
:func:`model_options` / :func:`gpu_options`, answered by Bolt's ``app.options``), providers, precisions
(:data:`bot.kb.schema.PRECISIONS` that weights are served in) and the hours of a month (``policy.yaml``).
A submission is checked here, in the serving process, before it is acknowledged: what is wrong is
answered with ``response_action: errors`` on the field, so the form stays open with everything typed.

The forms are in English, like the rest of the Slack layer's own text (answers are in the question's
language; a form has no question to take the language from).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ContextBlock,
    ExternalDataMultiSelectElement,
    ExternalDataSelectElement,
    InputBlock,
    MarkdownTextObject,
    NumberInputElement,
    Option,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from bot.kb.loader import KnowledgeBase, normalize_name
from bot.kb.schema import PRECISIONS

__all__ = ["DURATION_UNITS", "FORM_PRECISIONS", "MODEL_ACTION", "GPU_ACTION", "PRICING_CHOICES", "QUOTE_CALLBACK",
           "SIZING_CALLBACK", "FormErrors", "FormPlace", "QuoteForm", "SizingForm", "gpu_options", "model_options",
           "quote_modal", "read_place", "read_quote_form", "read_sizing_form", "sizing_modal"]

SIZING_CALLBACK = "gpu_size_form"
QUOTE_CALLBACK = "gpu_quote_form"
#: ``action_id`` of the model and GPU typeahead menus (Bolt ``app.options`` listeners answer them).
MODEL_ACTION = "model_choice"
GPU_ACTION = "gpu_choice"

#: Weight precisions offered, in the knowledge base's names (fp64/fp32/tf32 are not serving formats).
FORM_PRECISIONS = tuple(p for p in PRECISIONS if p not in ("fp64", "fp32", "tf32"))
#: Pricing choices: value -> (label, pricing model, commitment term).
PRICING_CHOICES: dict[str, tuple[str, str, str | None]] = {
    "on_demand": ("On-demand", "on_demand", None),
    "spot": ("Spot (interruptible)", "spot", None),
    "commitment_1y": ("1-year commitment", "commitment", "1y"),
    "commitment_3y": ("3-year commitment", "commitment", "3y"),
}
#: Duration units of the quote form: value -> (label, hours per unit; ``None`` = the policy's month).
DURATION_UNITS: dict[str, tuple[str, float | None]] = {
    "hours": ("hours", 1.0), "days": ("days", 24.0), "weeks": ("weeks", 168.0), "months": ("months", None)}

#: Input bounds. Not advice policy: they only reject what no deployment has (a typo, a tampered payload),
#: and Slack's number fields enforce the same bounds as the user types.
_BOUNDS: dict[str, tuple[float, float]] = {
    "own_params": (0.01, 5000.0),     # billions of parameters, as knowledge/models.yaml allows
    "users": (1, 1_000_000),
    "context": (1, 10_000_000),       # tokens
    "input_tokens": (1, 10_000_000),
    "output_tokens": (1, 10_000_000),
    "target_tps": (0.1, 100_000.0),   # tokens/s per user
    "ttft_ms": (1, 3_600_000),        # milliseconds
    "budget": (0.01, 1_000_000.0),    # USD per hour
    "count": (1, 100_000),            # GPUs
    "duration": (0.01, 1_000_000.0),  # in the chosen unit
}
#: Slack's limits: 100 options per menu, 75 characters per option text, 3,000 of private metadata.
_MAX_OPTIONS = 100
_OPTION_TEXT = 75
_NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")

#: ``view_submission`` errors: block id -> what is wrong, shown under that field.
FormErrors = dict[str, str]


@dataclass(frozen=True)
class SizingForm:
    """A submitted sizing form: what to serve and the targets, in knowledge-base ids and units in names.

    Attributes:
        model_id: a model in ``knowledge/models.yaml``; or ``None`` with ``own_params_b`` set.
        own_params_b: the user's own model, billions of parameters.
        gpu_ids: GPUs to consider (empty: the advisor chooses).
        users: concurrent users. context_tokens: context per user, tokens.
        input_tokens, output_tokens: prompt and output per request, tokens.
        precision: weight precision (one of :data:`FORM_PRECISIONS`), or ``None`` (the advisor chooses).
        target_tokens_per_s: decode speed each user must get, tokens/s.
        ttft_ms: time to first token at most, milliseconds.
        budget_usd_per_hour: price ceiling for the whole configuration, USD/hour.
        provider: a provider id of ``knowledge/prices``, or ``None`` (any).
    """

    model_id: str | None = None
    own_params_b: float | None = None
    gpu_ids: tuple[str, ...] = ()
    users: int | None = None
    context_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    precision: str | None = None
    target_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    budget_usd_per_hour: float | None = None
    provider: str | None = None


@dataclass(frozen=True)
class QuoteForm:
    """A submitted quote form.

    Attributes:
        gpu_id: the GPU (``knowledge/gpus.yaml`` id). count: how many.
        duration_hours: how long, hours (``None``: priced per hour).
        pricing: a key of :data:`PRICING_CHOICES`, or ``None`` (every pricing model).
        provider: a provider id, or ``None`` (every provider).
    """

    gpu_id: str
    count: int = 1
    duration_hours: float | None = None
    pricing: str | None = None
    provider: str | None = None


@dataclass(frozen=True)
class FormPlace:
    """Where a form's answer goes (the modal's ``private_metadata``).

    Attributes:
        channel: the conversation the form was opened from (a slash command's channel, the channel of
            an answer's "Open in form" button); ``""`` when opened from App Home (answer in a DM).
        thread_ts: the thread of the answer the form was opened from, if any.
    """

    channel: str = ""
    thread_ts: str = ""

    def to_metadata(self) -> str:
        """The ``private_metadata`` string (``{"c": channel, "t": thread_ts}``)."""
        return json.dumps({"c": self.channel, "t": self.thread_ts})


def read_place(metadata: Any) -> FormPlace:
    """The :class:`FormPlace` in a modal's ``private_metadata``; an empty place (a DM) when unreadable."""
    try:
        data = json.loads(metadata) if isinstance(metadata, str) and metadata else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}
    channel, thread = data.get("c"), data.get("t")
    ok = lambda v: isinstance(v, str) and bool(re.fullmatch(r"[A-Za-z0-9.]{1,40}", v))  # noqa: E731
    return FormPlace(channel if ok(channel) else "", thread if ok(thread) else "")


# --------------------------------------------------------------------------- typeahead


def _cut(text: str, limit: int = _OPTION_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _search(entries: list[tuple[str, str, list[str]]], typed: str) -> list[tuple[str, str]]:
    """(id, label) of the entries whose name or an alias contains ``typed`` (normalised), best first:
    names that start with it, then names that contain it, then aliases that contain it; file order within."""
    key = normalize_name(typed or "")
    if not key:
        return [(i, label) for i, label, _ in entries]
    ranked: list[tuple[int, int, str, str]] = []
    for order, (entry_id, label, names) in enumerate(entries):
        name = normalize_name(label)
        if name.startswith(key):
            rank = 0
        elif key in name:
            rank = 1
        elif any(key in normalize_name(n) for n in names):
            rank = 2
        else:
            continue
        ranked.append((rank, order, entry_id, label))
    return [(i, label) for _, _, i, label in sorted(ranked)]


def _options(pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [Option(value=i, text=_cut(label)).to_dict() for i, label in pairs[:_MAX_OPTIONS]]


def model_options(kb: KnowledgeBase, typed: str) -> list[dict[str, Any]]:
    """The model menu's options for what the user typed (Bolt ``app.options``; at most 100).

    Args:
        kb: the knowledge base.
        typed: the text typed in the menu (``""``: the first 100 language models in file order).

    Returns:
        ``[{"text": {"type": "plain_text", "text": "Llama 3 70B (70.6B)"}, "value": "llama-3-70b"}, ...]``:
        the knowledge base's language models (the form sizes serving of tokens) whose name, id or alias
        contains ``typed``, ignoring case, spaces and hyphens.
    """
    entries = [(m.id, f"{m.name} ({m.params_total_b:,.3g}B)", [m.id, *m.aliases])
               for m in kb.models.values() if m.kind == "llm"]
    return _options(_search(entries, typed))


def gpu_options(kb: KnowledgeBase, typed: str) -> list[dict[str, Any]]:
    """The GPU menu's options for what the user typed (at most 100).

    With nothing typed, the GPUs the serving policy considers come first (``policy.yaml``
    ``serving.candidate_gpus``), then the rest in file order.
    """
    preferred = [g for g in kb.policy.serving.candidate_gpus if g in kb.gpus]
    ordered = preferred + [g for g in kb.gpus if g not in preferred]
    entries = [(g, kb.gpus[g].name, [g, *kb.gpus[g].aliases]) for g in ordered]
    return _options(_search(entries, typed))


# --------------------------------------------------------------------------- modals


def _plain(x: float, decimal: bool) -> str:
    """``x`` as Slack's number fields want it: digits, a point and digits (never ``1e+06``)."""
    if not decimal:
        return str(int(round(x)))
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _number(block_id: str, label: str, *, decimal: bool = False, initial: float | None = None,
            hint: str | None = None, placeholder: str | None = None, optional: bool = True) -> InputBlock:
    low, high = _BOUNDS[block_id]
    shown = _plain(initial, decimal) if initial is not None else None
    return InputBlock(block_id=block_id, label=label, optional=optional, hint=hint, element=NumberInputElement(
        action_id=block_id, is_decimal_allowed=decimal, initial_value=shown, placeholder=placeholder,
        min_value=_plain(low, decimal), max_value=_plain(high, decimal)))


def _static(block_id: str, label: str, choices: list[tuple[str, str]], initial: str | None,
            *, hint: str | None = None, placeholder: str = "Any", optional: bool = True) -> InputBlock:
    options = [Option(value=v, text=_cut(t)) for v, t in choices[:_MAX_OPTIONS]]
    chosen = next((o for o in options if o.value == initial), None)
    return InputBlock(block_id=block_id, label=label, optional=optional, hint=hint, element=StaticSelectElement(
        action_id=block_id, placeholder=placeholder, options=options, initial_option=chosen))


def _providers(kb: KnowledgeBase) -> list[tuple[str, str]]:
    return sorted(((p, f.provider_name) for p, f in kb.providers.items()), key=lambda x: x[1].lower())


def sizing_modal(kb: KnowledgeBase, place: FormPlace, initial: SizingForm | None = None) -> dict[str, Any]:
    """The sizing modal for ``views.open``.

    Args:
        kb: the knowledge base (menus, precisions, providers).
        place: where the answer goes (kept in ``private_metadata``).
        initial: values to start from (an answer's request, for "Open in form").

    Returns:
        The view as a dict (``{"type": "modal", "callback_id": SIZING_CALLBACK, ...}``), valid against Block
        Kit's ``modal_view``.
    """
    f = initial or SizingForm()
    model = kb.models.get(f.model_id) if f.model_id else None
    gpus = [Option(value=g, text=_cut(kb.gpus[g].name)) for g in f.gpu_ids if g in kb.gpus]
    blocks = [
        ContextBlock(elements=[MarkdownTextObject(text=(
            "Fill in what you know: I assume the rest (a chat workload, 10 tokens/s per user) and say what I "
            "assumed. The answer is posted where you opened this form."))]),
        InputBlock(block_id="model", label="Model", optional=True, hint="Type part of its name, e.g. llama 3 70b",
                   element=ExternalDataSelectElement(
                       action_id=MODEL_ACTION, placeholder="Search the models I know", min_query_length=0,
                       initial_option=Option(value=model.id, text=_cut(f"{model.name} ({model.params_total_b:,.3g}B)"))
                       if model else None)),
        _number("own_params", "Or your own model: billions of parameters", decimal=True, initial=f.own_params_b,
                placeholder="e.g. 13"),
        InputBlock(block_id="gpus", label="GPUs to consider", optional=True, hint="Leave empty and I choose.",
                   element=ExternalDataMultiSelectElement(
                       action_id=GPU_ACTION, placeholder="Any GPU", min_query_length=0,
                       initial_options=gpus or None, max_selected_items=8)),
        _number("users", "Concurrent users", initial=f.users, placeholder="e.g. 200"),
        _number("context", "Context per user (tokens)", initial=f.context_tokens, placeholder="e.g. 8192",
                hint="Or give the prompt and output lengths below."),
        _number("input_tokens", "Prompt tokens per request", initial=f.input_tokens),
        _number("output_tokens", "Output tokens per request", initial=f.output_tokens),
        _static("precision", "Weight precision", [(p, p.upper()) for p in FORM_PRECISIONS], f.precision,
                placeholder="I choose"),
        _number("target_tps", "Tokens/s per user, at least", decimal=True, initial=f.target_tokens_per_s),
        _number("ttft_ms", "Time to first token, at most (ms)", initial=f.ttft_ms),
        _number("budget", "Budget, at most ($ per hour)", decimal=True, initial=f.budget_usd_per_hour),
        _static("provider", "Provider", _providers(kb), f.provider),
    ]
    view = View(type="modal", callback_id=SIZING_CALLBACK, title="Size GPUs", submit="Size it", close="Cancel",
                private_metadata=place.to_metadata(), blocks=blocks)
    return view.to_dict()


def quote_modal(kb: KnowledgeBase, place: FormPlace, initial: QuoteForm | None = None) -> dict[str, Any]:
    """The quote modal for ``views.open`` (GPU, count, duration, pricing model, provider); see :func:`sizing_modal`."""
    f = initial
    gpu = kb.gpus.get(f.gpu_id) if f else None
    duration, unit = None, "days"
    if f and f.duration_hours:
        duration, unit = f.duration_hours, "hours"
        for name, (_label, hours) in reversed(DURATION_UNITS.items()):
            per = hours or kb.policy.quote.month_hours.value
            if f.duration_hours >= per and math.isclose(f.duration_hours / per, round(f.duration_hours / per)):
                duration, unit = f.duration_hours / per, name
                break
    blocks = [
        InputBlock(block_id="gpu", label="GPU", hint="Type part of its name, e.g. h100",
                   element=ExternalDataSelectElement(
                       action_id=GPU_ACTION, placeholder="Search the GPUs I know", min_query_length=0,
                       initial_option=Option(value=gpu.id, text=_cut(gpu.name)) if gpu else None)),
        _number("count", "How many GPUs", initial=f.count if f else 1, optional=False),
        _number("duration", "For how long", decimal=True, initial=duration, hint="Leave empty for a price per hour."),
        _static("duration_unit", "Unit", [(k, v[0]) for k, v in DURATION_UNITS.items()], unit, optional=False,
                placeholder="days"),
        _static("pricing", "Pricing model", [(k, v[0]) for k, v in PRICING_CHOICES.items()], f.pricing if f else None),
        _static("provider", "Provider", _providers(kb), f.provider if f else None),
    ]
    view = View(type="modal", callback_id=QUOTE_CALLBACK, title="Price GPUs", submit="Quote", close="Cancel",
                private_metadata=place.to_metadata(), blocks=blocks)
    return view.to_dict()


# --------------------------------------------------------------------------- reading a submission


def _value(values: dict[str, Any], block_id: str) -> dict[str, Any]:
    block = values.get(block_id) if isinstance(values, dict) else None
    if not isinstance(block, dict) or not block:
        return {}
    state = next(iter(block.values()))
    return state if isinstance(state, dict) else {}


def _selected(values: dict[str, Any], block_id: str) -> str | None:
    option = _value(values, block_id).get("selected_option")
    value = option.get("value") if isinstance(option, dict) else None
    return value if isinstance(value, str) and _ID.match(value) else None


def _selected_many(values: dict[str, Any], block_id: str) -> list[str] | None:
    """The chosen values; ``None`` when one of them is not an id."""
    options = _value(values, block_id).get("selected_options") or []
    out = [o.get("value") if isinstance(o, dict) else None for o in options] if isinstance(options, list) else [None]
    return out if all(isinstance(v, str) and _ID.match(v) for v in out) else None


def _read_number(values: dict[str, Any], block_id: str, errors: FormErrors, *, integer: bool) -> float | None:
    raw = _value(values, block_id).get("value")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    text = str(raw).strip().replace(",", "")
    low, high = _BOUNDS[block_id]
    if not _NUMBER.match(text):
        errors[block_id] = "Enter a number."
        return None
    number = float(text)
    if integer and number != int(number):
        errors[block_id] = "Enter a whole number."
        return None
    if not low <= number <= high:
        errors[block_id] = f"Enter a number from {low:,g} to {high:,g}."
        return None
    return int(number) if integer else number


def read_sizing_form(values: dict[str, Any], kb: KnowledgeBase) -> SizingForm | FormErrors:
    """Read a submitted sizing modal (``view["state"]["values"]``).

    Args:
        values: block id -> action id -> the element's state, as Slack sends it.
        kb: the knowledge base the menus came from (ids are checked against it).

    Returns:
        The :class:`SizingForm`, or the errors per block id (a model or a size is needed, not both; numbers
        within bounds; whole numbers where a count is asked; a prompt and output that fit in the context;
        ids the knowledge base has).
    """
    errors: FormErrors = {}
    model_id = _selected(values, "model")
    if model_id is not None and model_id not in kb.models:
        errors["model"] = "I do not know this model any more; pick it again."
    own = _read_number(values, "own_params", errors, integer=False)
    if model_id is None and own is None and "own_params" not in errors and "model" not in errors:
        errors["model"] = "Pick a model, or give your own model's size below."
    if model_id is not None and own is not None:
        errors["own_params"] = "Pick a model or give a size, not both."
    gpu_ids = _selected_many(values, "gpus")
    if gpu_ids is None or any(g not in kb.gpus for g in gpu_ids):
        errors["gpus"] = "One of these GPUs is not one I know; pick them again."
    numbers = {name: _read_number(values, name, errors, integer=name in ("users", "context", "input_tokens",
                                                                         "output_tokens", "ttft_ms"))
               for name in ("users", "context", "input_tokens", "output_tokens", "target_tps", "ttft_ms", "budget")}
    context, prompt, output = numbers["context"], numbers["input_tokens"], numbers["output_tokens"]
    if context is not None and (prompt or 0) + (output or 0) > context:
        errors["context"] = f"The prompt and output ({(prompt or 0) + (output or 0):,.0f} tokens) do not fit in this context."
    precision = _selected(values, "precision")
    if precision is not None and precision not in FORM_PRECISIONS:
        errors["precision"] = "Pick one of the listed precisions."
    provider = _selected(values, "provider")
    if provider is not None and provider not in kb.providers:
        errors["provider"] = "Pick one of the listed providers."
    if errors:
        return errors
    return SizingForm(model_id=model_id, own_params_b=own, gpu_ids=tuple(gpu_ids or ()), users=numbers["users"],
                      context_tokens=context, input_tokens=prompt, output_tokens=output, precision=precision,
                      target_tokens_per_s=numbers["target_tps"], ttft_ms=numbers["ttft_ms"],
                      budget_usd_per_hour=numbers["budget"], provider=provider)


def read_quote_form(values: dict[str, Any], kb: KnowledgeBase) -> QuoteForm | FormErrors:
    """Read a submitted quote modal; see :func:`read_sizing_form`. The duration is converted to hours
    (a month is ``policy.yaml`` ``quote.month_hours``)."""
    errors: FormErrors = {}
    gpu = _selected(values, "gpu")
    if gpu is None or gpu not in kb.gpus:
        errors["gpu"] = "Pick a GPU." if gpu is None else "I do not know this GPU any more; pick it again."
    count = _read_number(values, "count", errors, integer=True)
    if count is None and "count" not in errors:
        errors["count"] = "How many GPUs?"
    duration = _read_number(values, "duration", errors, integer=False)
    unit = _selected(values, "duration_unit") or "days"
    if unit not in DURATION_UNITS:
        errors["duration_unit"] = "Pick one of the listed units."
    pricing = _selected(values, "pricing")
    if pricing is not None and pricing not in PRICING_CHOICES:
        errors["pricing"] = "Pick one of the listed pricing models."
    provider = _selected(values, "provider")
    if provider is not None and provider not in kb.providers:
        errors["provider"] = "Pick one of the listed providers."
    if errors:
        return errors
    hours = None
    if duration is not None:
        hours = duration * (DURATION_UNITS[unit][1] or kb.policy.quote.month_hours.value)
    return QuoteForm(gpu_id=gpu, count=int(count), duration_hours=hours, pricing=pricing, provider=provider)
