"""Requests in flight from a user base: daily active users, requests a day each, the peak-to-average factor and the
time each request takes (Little's law).

"10k daily users, 20 messages a day each, peak 3x average" is no concurrency: the service receives
``10,000 x 20 / 86,400 s = 2.31 requests/s`` on average, ``6.94 requests/s`` at peak, and each request is in flight
for as long as it takes to answer, so ``L = lambda x W`` (J. D. C. Little 1961, Operations Research 9(3):383-387)
requests are served at once: at 25.6 s a request (256 output tokens at 10 tokens/s), ``6.94 x 25.6 = 178``.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

__all__ = ["SECONDS_PER_DAY", "Traffic", "in_flight", "traffic_from_daily_users"]

#: Seconds in a day: a rate a day over it is a rate per second.
SECONDS_PER_DAY = 86_400


class Traffic(BaseModel):
    """The load a user base puts on a service at its busiest, and how it was derived.

    Attributes:
        daily_users: daily active users.
        requests_per_user_per_day: requests each sends a day.
        peak_factor: the busiest rate over the day's average (a factor >= 1).
        average_rps: ``daily_users x requests_per_user_per_day / 86,400``, requests/s.
        peak_rps: ``average_rps x peak_factor``, requests/s.
        seconds_per_request: the time one request is in flight (prefill + decode), s.
        in_flight: ``peak_rps x seconds_per_request`` (Little's law), requests at once (not rounded).
        concurrent: ``in_flight`` rounded up, at least 1: the users sized for.
    """

    model_config = ConfigDict(frozen=True)

    daily_users: int
    requests_per_user_per_day: float
    peak_factor: float
    average_rps: float
    peak_rps: float
    seconds_per_request: float
    in_flight: float
    concurrent: int


def in_flight(rate_per_s: float, seconds_per_request: float) -> float:
    """Requests in flight at once by Little's law, ``L = lambda x W``.

    Args:
        rate_per_s: arrival rate, requests/s (>= 0).
        seconds_per_request: time each request spends in the system, seconds (>= 0).

    Returns:
        The mean number of requests in flight (not rounded).

    Raises:
        ValueError: a negative rate or time.
    """
    if rate_per_s < 0 or seconds_per_request < 0:
        raise ValueError(f"rate {rate_per_s}/s and time {seconds_per_request} s must not be negative")
    return rate_per_s * seconds_per_request


def traffic_from_daily_users(daily_users: int, requests_per_user_per_day: float, peak_factor: float,
                             seconds_per_request: float) -> Traffic:
    """The requests in flight at the busiest time from a user base (see the module docstring).

    Args:
        daily_users: daily active users (> 0).
        requests_per_user_per_day: requests (chat turns, messages) each sends a day (> 0).
        peak_factor: the busiest rate over the day's average; below 1 is read as 1 (a peak is never under the mean).
        seconds_per_request: time one request is in flight, seconds (> 0): its output tokens over the tokens/s each
            user gets, plus the prefill.

    Returns:
        A :class:`Traffic`, ``concurrent = max(1, ceil(in_flight))``.

    Raises:
        ValueError: a count, rate or time that is not positive.
    """
    if daily_users <= 0 or requests_per_user_per_day <= 0 or seconds_per_request <= 0:
        raise ValueError(f"daily users {daily_users}, requests a day {requests_per_user_per_day} and seconds per "
                         f"request {seconds_per_request} must be positive")
    peak = max(1.0, peak_factor)
    average = daily_users * requests_per_user_per_day / SECONDS_PER_DAY
    at_peak = average * peak
    load = in_flight(at_peak, seconds_per_request)
    return Traffic(daily_users=daily_users, requests_per_user_per_day=requests_per_user_per_day, peak_factor=peak,
                   average_rps=average, peak_rps=at_peak, seconds_per_request=seconds_per_request, in_flight=load,
                   concurrent=max(1, math.ceil(load - 1e-9)))
