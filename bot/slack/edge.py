"""The HTTP edge of ``POST /slack/events``: guards that run before Bolt, so client input never gets a 500.

Bolt's WSGI adapter reads whatever ``Content-Length`` says, decodes the body as UTF-8 and parses
it *before* it checks the signature; a body that is not what Slack sends made it raise, and the
server answered 500 (which Slack retries, and which repeated disables the app's event
subscription). :class:`SlackEdge` reads and checks a request first, in this order, and only a
request that passes reaches ``App.dispatch``:

1. ``Content-Length`` must be present and an integer (else 411 / 400), and at most
   ``GPU_ADVISOR_MAX_BODY_BYTES`` (else **413, without reading the body**, whatever size it
   claims); the body is read with the socket timeout of the server (an incomplete body: 400).
2. ``X-Slack-Request-Timestamp`` must be an ASCII integer and ``X-Slack-Signature`` of the form
   ``v0=<64 hex digits>`` (else 401), and the body must be UTF-8 (else 400).
3. The signature and the five-minute window are checked with slack_sdk's
   ``SignatureVerifier`` (else 401). Bolt checks them again; that is cheap.
4. The body must parse as Slack sends it and have Slack's payload shapes
   (:mod:`bot.slack.payloads`; else 400).

Every rejection is counted (``gpu_advisor_http_rejections_total{reason}``) and logged with its
reason, never with the body. Requests Bolt has no listener for are answered 200 by the app's
error handler (see :mod:`bot.slack.app`), so unknown event types are not retried by Slack.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from slack_bolt import App, BoltRequest
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_response import WsgiHttpResponse
from slack_bolt.context import BoltContext
from slack_bolt.request.internals import build_context
from slack_sdk.signature import SignatureVerifier

from bot.ops.logs import describe_exception
from bot.ops.metrics import Metrics
from bot.slack.payloads import PayloadError, check_envelope, parse_body

__all__ = ["EVENTS_PATH", "Rejection", "SlackEdge", "check_headers", "read_body"]

log = logging.getLogger("gpu_advisor.http")

EVENTS_PATH = "/slack/events"
_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
_SIGNATURE = re.compile(r"^v0=[0-9a-f]{64}$")


@dataclass(frozen=True)
class Rejection:
    """Why a request is refused before Bolt: the HTTP status and a fixed reason code."""

    status: int
    reason: str

    @property
    def status_line(self) -> str:
        return {400: "400 Bad Request", 401: "401 Unauthorized", 411: "411 Length Required",
                413: "413 Content Too Large"}[self.status]


def read_body(environ: dict[str, Any], max_bytes: int) -> bytes | Rejection:
    """The request body, read only when its declared length is acceptable.

    Args:
        environ: the WSGI environment.
        max_bytes: ``GPU_ADVISOR_MAX_BODY_BYTES``.

    Returns:
        The body, or a :class:`Rejection`: 411 without ``Content-Length`` (or with
        ``Transfer-Encoding``), 400 for a length that is not a non-negative integer or a body
        that ends early, 413 for a declared length over ``max_bytes`` (nothing is read).
    """
    if environ.get("HTTP_TRANSFER_ENCODING"):
        return Rejection(411, "transfer_encoding")
    declared = (environ.get("CONTENT_LENGTH") or "").strip()
    if not declared:
        return Rejection(411, "no_content_length")
    if not declared.isascii() or not declared.isdigit():
        return Rejection(400, "bad_content_length")
    length = int(declared) if len(declared) <= 19 else max_bytes + 1  # more digits: too large anyway
    if length > max_bytes:
        return Rejection(413, "body_too_large")
    try:
        body = environ["wsgi.input"].read(length) if length else b""
    except (OSError, ValueError):  # the socket timed out or closed while reading
        return Rejection(400, "body_incomplete")
    if len(body) != length:
        return Rejection(400, "body_incomplete")
    return body


def check_headers(headers: dict[str, str]) -> Rejection | None:
    """401 unless the timestamp is an ASCII integer and the signature is ``v0=`` and 64 hex digits.

    slack_sdk's verifier raises on these (``int()`` of a non-integer, ``hmac.compare_digest``
    of a non-ASCII string); checked first, they are a clean 401.
    """
    if not _TIMESTAMP.match(headers.get("x-slack-request-timestamp", "")):
        return Rejection(401, "bad_timestamp_header")
    if not _SIGNATURE.match(headers.get("x-slack-signature", "")):
        return Rejection(401, "bad_signature_header")
    return None


def _headers(environ: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in environ.items():
        if key in ("CONTENT_LENGTH", "CONTENT_TYPE"):
            out[key.lower().replace("_", "-")] = value
        elif key.startswith("HTTP_"):
            out[key[5:].lower().replace("_", "-")] = value
    return out


class SlackEdge:
    """WSGI application for the ``/slack/...`` paths: the guards above, then Bolt.

    Args:
        app: the Bolt app.
        signing_secret: ``SLACK_SIGNING_SECRET``.
        max_body_bytes: ``GPU_ADVISOR_MAX_BODY_BYTES``.
        metrics: where rejections are counted.
    """

    def __init__(self, app: App, *, signing_secret: str, max_body_bytes: int, metrics: Metrics):
        self.app = app
        self.verifier = SignatureVerifier(signing_secret)
        self.max_body_bytes = max_body_bytes
        self.metrics = metrics
        self.oauth_paths = SlackRequestHandler(app)  # Bolt's adapter for GET /slack/install and the redirect

    def _reject(self, rejection: Rejection, start_response: Callable) -> Iterable[bytes]:
        self.metrics.observe_rejection(rejection.reason)
        log.info("request rejected: %s", rejection.reason,
                 extra={"status": rejection.status, "reason": rejection.reason})
        data = rejection.reason.encode()
        # wsgiref's server closes every connection after its response (HTTP/1.0), so an unread body is dropped
        start_response(rejection.status_line, [("Content-Type", "text/plain; charset=utf-8"),
                                               ("Content-Length", str(len(data)))])
        return [data]

    def check(self, environ: dict[str, Any]) -> tuple[str, dict[str, str], dict[str, Any]] | Rejection:
        """Read and check one ``POST /slack/events``.

        Returns:
            (the body as text, the headers, the parsed payload), or the :class:`Rejection`.
        """
        raw = read_body(environ, self.max_body_bytes)
        if isinstance(raw, Rejection):
            return raw
        headers = _headers(environ)
        problem = check_headers(headers)
        if problem:
            return problem
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return Rejection(400, "not_utf8")
        if not self.verifier.is_valid(body=text, timestamp=headers["x-slack-request-timestamp"],
                                      signature=headers["x-slack-signature"]):
            return Rejection(401, "bad_signature")
        content_type = (headers.get("content-type") or "").split(";")[0].strip().lower() or None
        try:
            payload = parse_body(text, content_type)
        except PayloadError:
            return Rejection(400, "malformed_body")
        if check_envelope(payload):
            return Rejection(400, "malformed_payload")
        return text, headers, payload

    def dispatch(self, text: str, headers: dict[str, str], payload: dict[str, Any], query: str) -> WsgiHttpResponse:
        """Run a checked request through Bolt (with the payload parsed as :func:`parse_body` reads it)."""
        request = BoltRequest(body=text, query=query, headers=headers)
        if request.body != payload:  # Bolt's parser reads a slash command mentioning "payload" as {}
            request.body = payload
            request.context = build_context(BoltContext({}), payload)
        response = self.app.dispatch(request)
        return WsgiHttpResponse(status=response.status, headers=response.headers, body=response.body)

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != EVENTS_PATH or environ.get("REQUEST_METHOD") != "POST":
            return self.oauth_paths(environ, start_response)
        checked = self.check(environ)
        if isinstance(checked, Rejection):
            return self._reject(checked, start_response)
        text, headers, payload = checked
        try:
            response = self.dispatch(text, headers, payload, environ.get("QUERY_STRING", ""))
        except Exception as exc:  # noqa: BLE001 - Bolt raised before its own error handling (request setup)
            log.error("Bolt could not take a checked request", exc_info=exc,
                      extra={"error": describe_exception(exc)})
            return self._reject(Rejection(400, "unprocessable_payload"), start_response)
        start_response(response.status, response.get_headers())
        return response.get_body()
