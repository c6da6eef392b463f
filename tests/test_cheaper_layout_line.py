"""A GPU named without a count: the fewest that carry the load lead; when more of them rent for less (replicas on
smaller instances), that layout is said right under the headline with both prices, not only as a table row.

Hand check of the layout's price: it is the sum of its instances' list prices (knowledge/prices/*.yaml), and it must
be below the headline configuration's price, or no line is said.
"""

from __future__ import annotations

from datetime import date

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_a_cheaper_layout_is_said_under_the_fewest(kb):
    a = advise(parse_question("serve llama 3.1 8b to 200 users at 8k context on L4", kb), kb, today=TODAY)
    line = next((d for d in a.details if d.code == "cheaper_layout"), None)
    assert line is not None and a.details.index(line) <= 1
    assert line.params["price_usd"] < line.params["shown_price_usd"]
    assert line.params["config"]["gpu_count"] > line.params["shown_config"]["gpu_count"]
    alt = next(o for o in a.options if o.changes == ["count"])
    assert alt.price_per_hour_usd == line.params["price_usd"]
    assert alt.tps_per_user >= 10.0  # the per-user floor still holds on the cheaper layout
