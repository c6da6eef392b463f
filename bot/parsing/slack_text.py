"""Turn Slack's message markup into the plain text a user meant."""

from __future__ import annotations

import re

__all__ = ["clean_slack_text"]

_SPACES = re.compile(r"[ \t]+")

_USER_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_SPECIAL_MENTION = re.compile(r"<!(?:channel|here|everyone)(?:\|[^>]*)?>|<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_CHANNEL_LINK = re.compile(r"<#[A-Z0-9]+(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto|ftp):[^>|]*)(?:\|([^>]*))?>")
_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\n?")
_QUOTE = re.compile(r"^[ \t]*(?:>|&gt;)+[ \t]?", re.MULTILINE)


def clean_slack_text(text: str) -> str:
    """Remove Slack markup, keeping what the user typed or pasted.

    * ``<@U123>`` user mentions and ``<!channel>``/``<!here>`` are dropped;
    * ``<https://x|label>`` becomes ``label``, ``<https://x>`` becomes ``https://x``;
    * ``&amp;``, ``&lt;``, ``&gt;`` are unescaped (after links, whose ``<>`` are real markup);
    * code fences are dropped but their content (a pasted error, a config.json) is kept;
    * ``>`` quote markers at line starts are stripped.

    Args:
        text: the message text as Slack delivers it (``event["text"]``).

    Returns:
        The plain text, stripped of leading and trailing whitespace.
    """
    if not text:
        return ""
    text = _USER_MENTION.sub(" ", text)
    text = _SPECIAL_MENTION.sub(lambda m: m.group(1) or " ", text)
    text = _CHANNEL_LINK.sub(lambda m: f"#{m.group(1)}" if m.group(1) else " ", text)
    text = _LINK.sub(lambda m: m.group(2) if m.group(2) else m.group(1), text)
    text = _QUOTE.sub("", text)  # before unescaping, so a pasted "a &gt; b" keeps its ">"
    text = _FENCE.sub("\n", text).replace("`", "")
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return _SPACES.sub(" ", text).strip()
