"""Buying 3-4 consumer cards: where they run (home or a colocation rack) is stated, with its electricity, cooling and
hosting, and the household circuit when the machine draws more than one carries.

Policy (knowledge/policy.yaml break_even): a desktop holds up to desk_max_cards = 2 consumer cards; more are costed
as a server in colocation: PUE 1.4, commercial electricity $0.13/kWh (EIA), $200 per kW-month (CBRE); at home:
PUE 1, household electricity $0.19/kWh (BLS), no hosting; workstation host 400 W; one 15 A, 120 V circuit carries
1,440 W continuously (NEC 210.19/210.20: 80% of the breaker). RTX 4090 TDP 450 W, RTX 3090 350 W (gpus.yaml);
rent: RunPod one RTX 4090 $0.69/h, one RTX 3090 $0.43/h (runpod.yaml); a month is 730 h.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_three_4090s_say_they_are_costed_in_colocation_and_what_home_would_be(kb):
    a = ask(kb, "thinking of buying three RTX 4090 for $6,000 total, or should we rent?")
    kw = (3 * 450 + 400) / 1000  # 1.75 kW
    rent = 3 * 0.40 * 730  # $876.00 a month (vast.yaml 1x-RTX_4090 $0.40/h, the cheapest: policy offers)
    colo = kw * 1.4 * 730 * 0.13 + kw * 200  # $232.51 power + $350 hosting
    assert a.headline.code == "break_even"
    assert a.headline.params["months"] == pytest.approx(6000 / (rent - colo), rel=1e-3)  # 20.44
    line = next(d for d in a.details if d.code == "break_even_over_desk")
    assert line.params["max_cards"] == 2 and line.params["pue"] == 1.4
    assert line.params["hosting_month_usd"] == pytest.approx(kw * 200)
    home_power = kw * 730 * 0.19  # $242.73
    assert line.params["home_power_month_usd"] == pytest.approx(home_power)
    assert line.params["home_months"] == pytest.approx(6000 / (rent - home_power), rel=1e-3)  # 9.54
    assert line.params["circuit_w"] == 1440 and line.params["draw_w"] == pytest.approx(1750)
    text = " ".join(compose(a).details)
    assert "costed as a server in a colocation rack" in text and "Say \"at home\" to cost it that way" in text


@pytest.mark.parametrize("text", ["4 rtx 3090 at home for $3200, buy vs rent",
                                  "home lab: 4x 3090 for $3,200 or rent in the cloud?",
                                  "build a rig in my basement with 4 used 3090s at $800 each vs cloud"])
def test_four_3090s_at_home_pay_home_power_and_no_hosting(kb, text):
    a = ask(kb, text)
    kw = (4 * 350 + 400) / 1000  # 1.8 kW
    purchase = 3200
    rent = 4 * 0.25 * 730  # $730.00 (vast.yaml 1x-RTX_3090 $0.25/h, the cheapest: policy offers)
    power = kw * 1.0 * 730 * 0.19  # $249.66: PUE 1, household rate, no colocation
    assert a.headline.code == "break_even"
    assert a.headline.params["purchase_usd"] == purchase
    assert a.headline.params["own_month_usd"] == pytest.approx(power)
    assert a.headline.params["months"] == pytest.approx(purchase / (rent - power), rel=1e-3)  # 6.66
    assert any(n.code == "break_even_at_home" for n in a.assumptions)
    assert not any(d.code == "break_even_over_desk" for d in a.details)
    # 1,800 W is over one 15 A, 120 V circuit's 1,440 W continuous
    circuit = next(w for w in a.warnings if w.code == "home_circuit")
    assert circuit.params["draw_w"] == pytest.approx(1800)


def test_two_cards_stay_a_desktop_without_a_circuit_warning(kb):
    # 2 x 450 + 400 = 1,300 W, under 1,440 W
    a = ask(kb, "2x 4090 $3600 buy or rent break even")
    assert any(n.code == "break_even_desk" for n in a.assumptions)
    assert not any(w.code == "home_circuit" for w in a.warnings)


def test_a_count_with_a_describing_word_is_the_count(kb):
    q = parse_question("build a rig in my basement with 4 used 3090s at $800 each vs cloud", kb)
    assert q.gpus[0].count == 4 and q.at_home and q.purchase_price_per_gpu
    assert "break_even" in q.asks


def test_the_chinese_answer_states_colocation_in_chinese(kb):
    a = ask(kb, "买 3 张 4090 花 4 万元，还是租？")
    assert any(d.code == "break_even_over_desk" for d in a.details)
    assert any("按托管机柜里的服务器计算" in line for line in compose(a).details)
    b = ask(kb, "买 4 张 4090 放家里，一共 6 万元，和租比多久回本")
    assert any(n.code == "break_even_at_home" for n in b.assumptions)
