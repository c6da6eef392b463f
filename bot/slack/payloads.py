"""Small pure checks over Slack request bodies, run before Bolt sees them.

Bolt and our listeners read fields of a payload with the shapes Slack documents (``event`` is an
object whose ``type`` is a string, a ``block_actions`` payload has at least one action ...).
A body that breaks those shapes made Bolt raise (``body["actions"][0]`` on an empty list,
``payload.get("event", {}).get(...)`` on ``"event": null``), which became an HTTP 500. These
functions parse and check a body and name the first problem, so the edge answers 400 instead.

They know nothing of HTTP and nothing of the core; problems are fixed phrases naming a field,
never a value (they are logged).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

__all__ = ["PayloadError", "check_envelope", "parse_body"]


class PayloadError(ValueError):
    """A body that is not a Slack payload; ``str()`` names the problem (never a value from the body)."""


def _reject_constant(name: str) -> float:
    raise PayloadError(f"JSON holds {name}, which is not JSON")


def _loads(text: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except PayloadError:
        raise
    except RecursionError:
        raise PayloadError(f"{what} nests too deeply") from None
    except ValueError:  # JSONDecodeError, a byte-order mark, an integer of more than 4,300 digits
        raise PayloadError(f"{what} is not valid JSON") from None
    if not isinstance(data, dict):
        raise PayloadError(f"{what} is not a JSON object")
    return data


def parse_body(text: str, content_type: str | None) -> dict[str, Any]:
    """Parse a request body the way Slack sends it (and Bolt reads it), strictly.

    JSON when the content type is ``application/json`` or the body starts with ``{`` (Events
    API); otherwise a form: an interaction is ``payload=<JSON>``, a slash command is plain form
    fields. Unlike Bolt's parser, a slash command whose *text* contains the word "payload" is
    still read as a slash command.

    Args:
        text: the body, already decoded as UTF-8.
        content_type: the media type without parameters (``application/json``), or ``None``.

    Returns:
        The payload as a dict (``{}`` for an empty body).

    Raises:
        PayloadError: invalid JSON, JSON that is not an object, NaN/Infinity, nesting too deep.
    """
    if not text:
        return {}
    if content_type == "application/json" or text.startswith("{"):
        return _loads(text, "the JSON body")
    fields = dict(parse_qsl(text, keep_blank_values=True))
    if "payload" in fields:
        return _loads(fields["payload"], "the form field payload")
    return fields


#: Keys whose value must be a string (or null) wherever they appear in the checked objects.
_STRING_KEYS = ("type", "subtype", "token", "team_id", "enterprise_id", "api_app_id", "event_id", "challenge",
                "command", "text", "user_id", "channel_id", "channel_type", "response_url", "trigger_id",
                "callback_id", "action_id", "ts", "thread_ts", "event_ts", "bot_id", "tab", "user_team", "value")
#: Keys whose value must be an object when present (Bolt calls ``.get`` on them).
_OBJECT_KEYS = ("event", "view", "message", "previous_message", "container", "item", "assistant_thread",
                "function_data", "state", "workflow_step")
#: Keys that are an id string or an object with an ``id`` (``team``, ``user``, ``channel``).
_REF_KEYS = ("team", "user", "channel", "enterprise")
#: Keys whose value must be a list of objects.
_OBJECT_LIST_KEYS = ("authorizations", "actions", "response_urls")


def _check_object(obj: dict[str, Any], where: str) -> str | None:
    for key in _STRING_KEYS:
        if obj.get(key) is not None and not isinstance(obj[key], str):
            return f"{where}{key} must be a string"
    for key in _OBJECT_KEYS:
        if key in obj and not isinstance(obj[key], dict):
            return f"{where}{key} must be an object"
    for key in _REF_KEYS:
        value = obj.get(key)
        if value is not None and not isinstance(value, str | dict):
            return f"{where}{key} must be an id or an object"
        if isinstance(value, dict) and value.get("id") is not None and not isinstance(value["id"], str):
            return f"{where}{key}.id must be a string"
    for key in _OBJECT_LIST_KEYS:
        value = obj.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
            return f"{where}{key} must be a list of objects"
    flag = obj.get("is_enterprise_install")
    if flag is not None and not isinstance(flag, bool | str):
        return f"{where}is_enterprise_install must be a boolean"
    return None


def check_envelope(body: dict[str, Any]) -> str | None:
    """The first way ``body`` breaks the payload shapes Slack documents, or ``None`` when it does not.

    Checks the top level and the objects Bolt and the listeners read (``event``, ``message``,
    ``previous_message``, ``item``, ``view``, ``container``, each ``authorizations`` entry and
    each action), then the rules of the payload type: an ``event_callback`` has an ``event``
    object with a ``type``; a ``block_actions`` payload has at least one action, each with an
    ``action_id``; a ``url_verification`` has a ``challenge``; a view payload's view has a
    ``type`` and ``callback_id``. These are the fields Bolt's matchers index without checking
    (``slack_bolt.request.payload_utils``, ``slack_bolt.listener_matcher.builtins``).

    Returns:
        A phrase naming the field (``"actions must not be empty"``), or ``None``.
    """
    problem = _check_object(body, "")
    if problem:
        return problem
    nested: list[tuple[str, Any]] = [(k, body.get(k)) for k in _OBJECT_KEYS]
    event = body.get("event")
    if isinstance(event, dict):
        nested += [(f"event.{k}", event.get(k)) for k in _OBJECT_KEYS]
    nested += [(f"authorizations[{i}]", a) for i, a in enumerate(body.get("authorizations") or [])]
    nested += [(f"actions[{i}]", a) for i, a in enumerate(body.get("actions") or [])]
    for where, obj in nested:
        if isinstance(obj, dict) and (problem := _check_object(obj, where + ".")):
            return problem
    kind = body.get("type")
    if kind == "event_callback" and not (isinstance(event, dict) and isinstance(event.get("type"), str)):
        return "event_callback needs an event object with a type"
    if kind == "url_verification" and not isinstance(body.get("challenge"), str):
        return "url_verification needs a challenge"
    if kind in ("block_actions", "interactive_message") and "actions" in body:
        actions = body["actions"]
        if not actions:
            return "actions must not be empty"
        if kind == "block_actions" and not all(isinstance(a.get("action_id"), str) for a in actions):
            return "every action needs an action_id"
    if kind == "block_actions" and "actions" not in body:
        return "block_actions needs actions"
    view = body.get("view")
    if isinstance(view, dict) and "callback_id" in view and kind in ("view_submission", "view_closed") and (
            not isinstance(view.get("type"), str) or not isinstance(view.get("callback_id"), str)):
        return "a view payload needs a view type and callback_id"
    if (isinstance(event, dict) and event.get("type") == "workflow_step_execute" and "workflow_step" in event
            and not isinstance(event.get("callback_id"), str)):
        return "workflow_step_execute needs a callback_id"
    return None
