"""Every quantity asked is stated in the first lines, in the order asked, for one configuration.

A question may ask several quantities of one setup ("tokens/s for one user, and how many users at 4k?", "how much
VRAM and how fast", "users served and cost per million tokens"). A handler answers the quantity it is built around;
this module says which asked quantity each line states (:data:`STATES`) and puts, for each asked quantity in
order, the line that states it first: the first asked quantity is the headline, the others follow it. A quantity no
line states is supplied by the caller (a line worked out on the same configuration), never left to the table.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.notes import Note

__all__ = ["STATES", "lead_with_asks", "states"]

#: Asked quantity -> the lines (note codes) that state it. A line may state several quantities
#: ("fit_yes": the yes/no, the memory per GPU and the single-user speed).
#: Lines of several items (GPU types compared, models on one setup) state the quantity for every item: "compare_pick"
#: gives each GPU's speed for one user and its price per hour, "users_each" and "users_served_items" each item's users
#: and its speed for one user alone.
STATES: dict[str, frozenset[str]] = {
    "speed": frozenset({"speed_single", "serve_one", "fit_yes", "items_fastest", "compare_decode",
                        "compare_decode_equal", "compare_pick", "compare_value", "compare_users", "users_each",
                        "users_served_items", "claim_ratio_check", "training_per_gpu_ratio", "finetune_compare"}),
    "users_served": frozenset({"users_served", "serve_capacity_line", "token_cost", "compare_users", "users_each",
                               "users_served_items", "compare_capacity"}),
    "throughput": frozenset({"users_served", "throughput_capacity", "token_cost", "serve_total", "compare_capacity",
                             "compare_aggregate"}),
    "memory": frozenset({"memory_breakdown", "memory_summary", "fit_yes", "serve_one"}),
    "fit": frozenset({"fit_yes", "fit_only_quantized", "serve_fixed_fails", "fit_tight_budget", "non_llm_fit_yes",
                      "non_llm_no_fit"}),
    "token_cost": frozenset({"token_cost", "token_cost_unpriced", "compare_costs", "compare_cost",
                             "compare_cost_mentions", "compare_costs_at_load"}),
    "cost": frozenset({"cost_for_duration", "cost_for_duration_unpriced", "mention_cost", "token_cost",
                       "providers_compared", "compare_pick", "compare_value", "compare_needed", "compare_aggregate",
                       "compare_load", "run_costs_compared"}),
    "max_context": frozenset({"max_context", "max_context_capped", "max_context_model"}),
}

#: Lines that state a per-user speed only when the load has several users ("serves 50 users at 12 tokens/s each").
_SPEED_AT_LOAD = frozenset({"serve_users", "compare_load"})


def states(line: Note, ask: str, *, users: int | None = None) -> bool:
    """Whether ``line`` states the asked quantity ``ask``.

    Args:
        line: a headline or detail note.
        ask: an asked quantity (:data:`bot.parsing.query.Ask`).
        users: the concurrent users the question fixed; a per-user speed at a load of several users states
            "how fast" for that load.

    Returns:
        True when :data:`STATES` lists the line's code for ``ask`` (or the speed at a stated load).
    """
    if ask == "speed" and (users or 1) > 1 and line.code in _SPEED_AT_LOAD:
        return True
    return line.code in STATES.get(ask, frozenset())


def lead_with_asks(headline: Note, details: list[Note], asks: list[str], make: Callable[[str], Note | None], *,
                   users: int | None = None, keep_headline: bool = False) -> tuple[Note, list[Note]]:
    """Reorder an answer's lines so that each asked quantity is stated first, in the order asked.

    Only asked quantities listed in :data:`STATES` are placed; others (a GPU count, a time) keep the handler's
    order. For each of them, in order: the first existing line that states it (:func:`states`), else the line
    ``make(ask)`` works out (``None``: nothing to say, e.g. no price known). Lines already placed for an earlier
    quantity are not repeated.

    Args:
        headline, details: the handler's lines.
        asks: the asked quantities, in the order asked (``Query.asks``).
        make: builds the line stating an asked quantity no line states, on the answer's configuration.
        users: the concurrent users the question fixed (see :func:`states`).
        keep_headline: the headline must stay first (it says the configuration fails, or a limit the user hit);
            the asked lines then follow it.

    Returns:
        (headline, details) with the asked lines first, then the other lines in their order.
    """
    placeable = [a for a in dict.fromkeys(asks) if a in STATES]
    lines = [headline, *details]
    first: list[Note] = []
    for ask in placeable:
        if any(states(x, ask, users=users) for x in first):
            continue
        found = next((x for x in lines if states(x, ask, users=users)), None) or make(ask)
        if found is not None:
            first.append(found)
    if not first:
        return headline, details
    if keep_headline:
        first = [headline, *(x for x in first if x is not headline)]
    rest = [x for x in lines if not any(x is y for y in first)]
    ordered = [*first, *rest]
    return ordered[0], ordered[1:]
