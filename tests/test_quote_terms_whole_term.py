"""On-demand vs a commitment for a need shorter than any term ("for one quarter, on-demand vs reserved"): the
commitment's total is its whole term (a 1-year term bills 8,760 h even for 2,190 h of need; AWS Reserved Instances
and GCP committed use bill every hour of the term), and the commitment chosen is the one whose whole-term total is
lowest, not the lowest hourly rate.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def test_a_commitment_is_totalled_over_its_whole_term(kb):
    a = advise(parse_question("16x H100 for one quarter: on-demand vs reserved?", kb), kb, today=TODAY)
    assert a.headline.code == "quote_terms"
    items = {i["pricing_model"].split(":")[0]: i for i in a.headline.params["items"]}
    od, commit = items["on_demand"], items["commitment"]
    assert od["hours"] == pytest.approx(2190)  # a quarter = 8,760 / 4 h (knowledge lexicon)
    assert commit["hours"] >= 8760  # at least one whole 1-year term
    assert commit["total_usd"] == pytest.approx(commit["price_usd"] * commit["hours"])
