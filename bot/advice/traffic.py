"""A user base's load set beside the setup recommended for it: the time a request takes at the estimate's speed.

The sizing derives the requests in flight from daily users at the slowest speed it allows
(:meth:`bot.advice.context.Context._users_from_daily_users`); the setup it picks is usually faster, so each request
ends sooner and fewer are in flight at once (Little's law, :func:`bot.estimation.traffic.in_flight`). Saying both
shows the margin the sizing leaves.
"""

from __future__ import annotations

import math

from bot.advice.answer import Answer
from bot.advice.options import config
from bot.estimation.traffic import Traffic, in_flight
from bot.notes import Note, note

__all__ = ["traffic_at_estimate"]


def traffic_at_estimate(traffic: Traffic | None, output_tokens: int, answer: Answer) -> Note | None:
    """``traffic_at_estimate``: the recommended setup's time per request and the requests in flight at peak with it.

    Args:
        traffic: the load derived from daily users (``None``: none was derived).
        output_tokens: output tokens per request, the ones the derivation used.
        answer: the serving answer (its recommended option: TTFT in s, tokens/s per user at the load sized).

    Returns:
        The note (``request_s = ttft_s + output_tokens / tps_per_user``; ``in_flight = peak_rps x request_s``), or
        ``None`` without a derived load or a recommended option with both figures.
    """
    if traffic is None or answer.recommendation is None:
        return None
    opt = answer.options[answer.recommendation]
    if not opt.tps_per_user or opt.ttft_s is None or not opt.fits:
        return None
    seconds = opt.ttft_s + output_tokens / opt.tps_per_user
    return note("traffic_at_estimate", config=config(opt), tps_per_user_tps=opt.tps_per_user, ttft_s=opt.ttft_s,
                request_s=seconds, peak_rps=traffic.peak_rps, in_flight=math.ceil(in_flight(traffic.peak_rps, seconds)),
                users=traffic.concurrent)
