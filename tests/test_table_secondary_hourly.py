"""A table row whose configuration has no list price shows the secondary-source hourly figure the answer's sentence
uses (marked "~" as approximate), never "n/a" beside a sentence that prices it; a diffusion model quantized to int8 on
a card with no published integer rate gets a speed at its 16-bit rate instead of none.

Figures (hand-computed from the knowledge base):
* knowledge/prices/common/price_mentions.yaml: AutoDL A800-80GB ¥4.98 per GPU-hour (a user's copy of AutoDL's
  table, as_of 2026-05-01). 24 GPUs: 24 x 4.98 = ¥119.52/h; 16 GPUs: 16 x 4.98 = ¥79.68/h.
* knowledge/gpus.yaml rtx-3090-24gb: dense bf16/fp16 71.0 TFLOPS (GA102 whitepaper, FP32 accumulate), no int8 figure.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def _hour_cells(answer) -> dict[int, object]:
    col = answer.table.columns.index("usd_per_hour")
    return {row[0]["gpu_count"]: row[col] for row in answer.table.rows}


def test_unpriced_rows_show_the_secondary_hourly_figure(kb):
    a = ask(kb, "serve deepseek r1 on a800s, how many 8-gpu servers and how fast")
    cells = _hour_cells(a)
    a800 = [row[0] for row in a.table.rows if row[0]["gpu_name"].startswith("A800")]
    assert a800, "the A800 rows are shown"
    for label in a800:
        cell = cells[label["gpu_count"]]
        assert cell == {"amount": label["gpu_count"] * 4.98, "currency": "cny", "secondary": True}
    text = render_text(a)
    assert f"~¥{a800[0]['gpu_count'] * 4.98:,.2f}" in text


def test_priced_rows_keep_their_list_price(kb):
    a = ask(kb, "H100 vs A100 for llama 3 70b, 20 users")
    for o, row in zip(a.options, a.table.rows, strict=True):
        if o.price is not None:
            assert row[a.table.columns.index("usd_per_hour")] == o.price.price_per_hour_usd


def test_int8_diffusion_on_a_card_without_an_integer_rate_gets_a_speed(kb):
    a = ask(kb, "how long does one 1024x1024 flux dev image take on an rtx 3090 in int8, 28 steps")
    o = a.options[a.recommendation]
    assert o.gpu == "rtx-3090-24gb" and o.precision == "int8"
    rate_col = a.table.columns.index("images_per_min")
    rate = a.table.rows[a.recommendation][rate_col]
    # knowledge/efficiency.yaml flux.1-dev: 74,000 GFLOPs per step, one forward per step, 28 steps; at the 16-bit
    # rate (71 TFLOPS) x the int8 GEMM efficiency 0.70, plus diffusers' 5 ms launch cost per step:
    # 28 x (74e12 / (71e12 x 0.70) + 0.005) = 28 x (1.4889 + 0.005) = 41.83 s per image = 1.434 images/min
    assert rate is not None and 60 / rate == pytest.approx(41.83, rel=0.005)
