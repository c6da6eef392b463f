"""The user's own figures beside the estimate: "I get only 10 tokens/s", "3 times slower than the A10", "40s per image".

A figure the user saw (:class:`bot.parsing.query.Observation`) is never a target; the answer sets the estimate for
the configuration it describes beside it, so "is that normal?" gets the number that decides it. Figures someone else
published (``quoted``) are not set beside anything here: a claim has its own verdict (:mod:`bot.advice.specs`).
"""

from __future__ import annotations

from bot.advice.answer import Answer, Option
from bot.advice.options import config
from bot.notes import Note, note
from bot.parsing.query import Query

__all__ = ["BELOW_SHARE", "image_time_note", "observation_notes"]

#: A speed the user sees below this share of the estimate is called out: the estimates are a single stream's speed at
#: the knowledge base's efficiency factors (knowledge/efficiency.yaml), which real setups reach within tens of percent;
#: at under 60% something else is the bottleneck (layers on the CPU, an engine without batching or fused kernels).
BELOW_SHARE = 0.6


def _estimate(answer: Answer) -> Option | None:
    """The option the user's figures are about: the recommended one when it keeps what the user fixed, else the first
    such one that fits with a decode speed; ``None`` when the user's own setup does not fit (no speed to compare)."""
    if answer.recommendation is not None:
        rec = answer.options[answer.recommendation]
        if rec.decode_tps and rec.fits and not rec.changes:
            return rec
    return next((o for o in answer.options if o.decode_tps and o.fits and not o.changes), None)


def observation_notes(query: Query, answer: Answer) -> list[Note]:
    """Sentences that set each figure the user saw beside the answer's estimate.

    Args:
        query: the request (its ``observations``).
        answer: the answer built for it (its options carry the estimate: decode speed, time per output token).

    Returns:
        ``observed_speed`` for a generation speed (tokens/s, against one user's decode speed), ``observed_tpot`` for a
        time per output token (ms), ``observed_ratio`` for a ratio between two GPUs (against the ratio of their
        estimated decode speeds at the same precision and count); none when the answer has no such estimate.
    """
    out: list[Note] = []
    opt = _estimate(answer)
    for o in query.observations:
        if o.quoted:
            continue
        if o.kind == "tokens_per_s" and opt is not None:
            one = opt.single_user_tps or opt.decode_tps  # the sentence says "for one user": the batch-1 figure
            out.append(note("observed_speed", observed_tps=o.value, decode_tps=one, config=config(opt),
                            below=o.value < BELOW_SHARE * one))
        elif o.kind == "seconds_per_item" and o.item == "token" and opt is not None and opt.tpot_ms:
            out.append(note("observed_tpot", observed_ms=o.value * 1000, tpot_ms=opt.tpot_ms, config=config(opt),
                            below=opt.tpot_ms < BELOW_SHARE * o.value * 1000))
        elif o.kind == "ratio":
            pair = _same_setup_pair(answer.options)
            if pair is not None:
                fast, slow = sorted(pair, key=lambda x: -x.decode_tps)
                out.append(note("observed_ratio", observed_x=o.value, estimate_x=fast.decode_tps / slow.decode_tps,
                                fast_gpu=fast.gpu_name, slow_gpu=slow.gpu_name))
    return out


def _same_setup_pair(options: list[Option]) -> tuple[Option, Option] | None:
    """The first two options on different GPUs with the same precision and GPU count (the user's setups, nothing
    changed), whose decode speeds make the estimated ratio; ``None`` when there are none."""
    kept = [x for x in options if x.decode_tps and x.gpu and not x.changes]
    for i, a in enumerate(kept):
        for b in kept[i + 1:]:
            if b.gpu != a.gpu and b.precision == a.precision and b.gpu_count == a.gpu_count:
                return a, b
    return None


def image_time_note(query: Query, seconds_per_image: float | None, cfg: dict) -> Note | None:
    """``observed_image_time`` when the user saw a time per image and the answer estimated one (seconds), else
    ``None``."""
    seen = next((o for o in query.observations if o.kind == "seconds_per_item" and o.item == "image" and not o.quoted),
                None)
    if seen is None or not seconds_per_image:
        return None
    return note("observed_image_time", observed_s=seen.value, per_image_s=seconds_per_image, config=cfg,
                below=seconds_per_image < BELOW_SHARE * seen.value)
