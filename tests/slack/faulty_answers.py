"""Answer functions injected through the seam (bot.slack.answering) to test and bench the edge.

They have :func:`bot.slack.answering.answer_message`'s signature and live at module level so that
worker processes can import them by name. A marker word in the message picks the behaviour;
anything else is answered by the real seam.
"""

from __future__ import annotations

import os
import time

from bot.kb.loader import KnowledgeBase
from bot.slack.answering import AnswerRequest, Reply, answer_message

#: Seconds of pure-Python CPU work a "SLOWCPU" message costs (GIL held the whole time when in-process).
SLOW_SECONDS = float(os.environ.get("GPU_ADVISOR_TEST_SLOW_SECONDS", "4"))


def burn_cpu(seconds: float) -> int:
    """Busy-loop in Python for ``seconds`` (holds the GIL, like a pathological parse would)."""
    deadline = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < deadline:
        for i in range(2_000):
            n += i * i % 7
    return n


def faulty_answer(request: AnswerRequest, kb: KnowledgeBase) -> Reply:
    """``SLOWCPU``: burn CPU for :data:`SLOW_SECONDS`, then answer; ``RAISECORE``: raise with the
    message text in the exception (as a careless core would); ``DIEWORKER``: end the process."""
    text = request.text
    if "SLOWCPU" in text:
        burn_cpu(SLOW_SECONDS)
    if "RAISECORE" in text:
        raise ValueError(f"could not understand {text!r}")
    if "DIEWORKER" in text:
        os._exit(3)
    return answer_message(request, kb)
