"""Charts from real answers (bot/render/charts.py): the chart's data is the answer's data, each kind renders a
valid 960 x 540 PNG, text comes from the catalogs in the user's language, and ``ask --chart`` writes the file.

Each kind is rendered once (a render takes about 0.3 s); the rest checks the typed :class:`Chart`.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from bot.advice.conversation import respond_to
from bot.cli import main
from bot.render import charts
from bot.render.charts import DPI, FIGURE_SIZE_IN, PALETTE, chart_for, render_png
from bot.render.i18n import get_catalog, renderer_for

# 8 in x 120 dpi = 960 px, 4.5 in x 120 dpi = 540 px.
WIDTH_PX, HEIGHT_PX = 960, 540
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _answer(kb, text):
    return respond_to(text, None, kb=kb).answer


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which the PNG specification puts first (RFC 2083, 4.1.1)."""
    assert png[:8] == PNG_MAGIC
    assert png[12:16] == b"IHDR"
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def _config(answer, k: int) -> str:
    """The recommended option's label as the catalog writes it (e.g. ``5x MI300X, fp8``)."""
    o = answer.options[k]
    r = renderer_for(answer.query.language)
    c = {"gpu_count": o.gpu_count, "gpu_name": o.gpu_name}
    c |= {"method": o.method} if o.method else {"precision": o.precision} if o.precision else {}
    return r.config(c)


def _render_checked(chart) -> bytes:
    """Render and check the PNG: magic bytes, IHDR size, and no glyph missing from the fonts (no tofu)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        png = render_png(chart)
    assert _png_size(png) == (WIDTH_PX, HEIGHT_PX)
    missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
    assert missing == []
    return png


def test_figure_size_is_960_by_540():
    assert (FIGURE_SIZE_IN[0] * DPI, FIGURE_SIZE_IN[1] * DPI) == (WIDTH_PX, HEIGHT_PX)


def test_importing_bot_render_and_charting_english_do_not_import_matplotlib():
    code = ("import sys, bot.render.charts, bot.render.terminal, bot.render.compose, bot.render.jsonout; "
            "from bot.advice.conversation import respond_to; from bot.kb.loader import load_knowledge; "
            "a = respond_to('serve Llama 3 70B to 200 users at 8k context', None, kb=load_knowledge()).answer; "
            "c = bot.render.charts.chart_for(a, 'en'); assert c is not None; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'); print(bad); "
            "sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_serving_chart_plots_each_options_speed_and_cost(kb):
    a = _answer(kb, "serve Llama 3 70B to 200 users at 8k context")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "serving"
    plotted = {m.option: (m.x, m.y) for m in chart.marks("point")}
    expected = {i: (o.tps_per_user, o.cost_per_million_tokens_usd) for i, o in enumerate(a.options)
                if o.tps_per_user is not None and o.cost_per_million_tokens_usd is not None}
    assert plotted == expected and len(plotted) >= 2
    assert [m.option for m in chart.marks() if m.recommended] == [a.recommendation]
    assert (chart.x_label, chart.y_label) == ("tokens/s per user", "cost per 1M output tokens ($)")
    # Okabe-Ito colours, one per GPU type (past eight types, colour and shape together tell them apart)
    assert {s.colour for s in chart.series} <= set(PALETTE)
    gpus = len({a.options[i].gpu for i in plotted})
    assert len({s.colour for s in chart.series}) == min(gpus, len(PALETTE))
    assert len({(s.colour, s.marker) for s in chart.series}) == gpus
    best = _config(a, a.recommendation)
    assert f"Recommended: {best}." in chart.alt_text
    cheapest = min(expected, key=lambda i: expected[i][1])
    assert f"Cheapest per token: {_config(a, cheapest)}, " in chart.alt_text
    assert chart.alt_text.endswith(renderer_for("en").say(a.headline))  # the same result as the headline
    _render_checked(chart)


def test_serving_chart_names_the_options_it_cannot_plot(kb):
    # Single-user options have no cost per token at full load: they are named in the footnote, not drawn.
    a = _answer(kb, "H100 vs A100 for Llama 2 70B")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "serving"
    drawn = {m.option for m in chart.marks()}
    for i, o in enumerate(a.options):
        label = _config(a, i)
        if i in drawn:
            assert o.tps_per_user is not None and o.cost_per_million_tokens_usd is not None
        else:
            assert o.cost_per_million_tokens_usd is None
            assert label in chart.footnote
            if i == a.recommendation:
                assert f"{label} (★ recommended)" in chart.footnote


def test_memory_chart_stacks_the_parts_per_gpu_against_usable_memory(kb):
    a = _answer(kb, "does llama 3 70b fit on 2x A100 40GB in int4?")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "memory"
    assert chart.y_label == "memory per GPU (GB)"
    names = [s.name for s in chart.series]
    assert names == ["weights", "KV cache", "overhead and activations", "usable memory per GPU"]
    for k, i in enumerate(m.option for m in chart.series[0].marks):
        o = a.options[i]
        # one replica's weights + KV cache + overhead, split over its GPUs: they add up to the per-GPU figure
        parts = [m.y for s in chart.series if s.style == "bar" for m in s.marks if int(m.x) == k]
        assert math.isclose(sum(parts), o.memory_per_gpu_gb, rel_tol=1e-9)
        scale = o.memory_per_gpu_gb / o.memory_total_gb  # 1/2 for two GPUs holding one replica (TP2)
        assert math.isclose(parts[0], o.weights_gb * scale, rel_tol=1e-9)
        limit = [m.y for s in chart.series if s.style == "limit" for m in s.marks if int(m.x) == k]
        assert limit == [o.usable_gb]
    rec = a.recommendation
    assert chart.categories[rec].startswith("★ ")
    assert f"{_config(a, rec)}: " in chart.alt_text
    _render_checked(chart)


def test_memory_summary_without_options_is_drawn_from_its_table(kb):
    a = _answer(kb, "how much memory for llama 3 70b")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "memory" and not a.options
    cols = a.table.columns
    for k, row in enumerate(a.table.rows):
        bars = [m.y for s in chart.series for m in s.marks if int(m.x) == k]
        assert math.isclose(sum(bars), row[cols.index("total_gb")], rel_tol=1e-9)
        assert bars[0] == row[cols.index("weights_gb")] and bars[1] == row[cols.index("kv_gb")]
    assert chart.y_label == "memory for one copy of the model (GB)"


def test_quote_chart_shows_each_offers_price_and_date(kb):
    a = _answer(kb, "8x H100 for 3 days")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "quote"
    marks = sorted(chart.marks("bar"), key=lambda m: m.x)
    assert [m.y for m in marks] == [o.price.price_per_hour_usd for o in a.options]
    for label, o in zip(chart.categories, a.options, strict=True):
        assert o.price.provider_name in label
        assert (f"as of {o.price.as_of.isoformat()}" if o.price.as_of else "undated") in label
    assert [c.startswith("★ ") for c in chart.categories] == [i == a.recommendation for i in range(len(a.options))]
    # 72 h at Lambda's $31.92/h = $2,298.24
    lambda_mark = next(m for m in marks if a.options[m.option].price.provider_name == "Lambda")
    assert lambda_mark.text == "$31.92/h, $2,298 in all"
    assert chart.footnote == "Totals are for 72 h (3.0 days)."
    assert chart.y_label == "price per hour ($/h)"
    rec = a.options[a.recommendation].price
    assert f"Recommended: {rec.provider_name}, on-demand (as of {rec.as_of.isoformat()})." in chart.alt_text
    _render_checked(chart)


def test_money_is_charted_in_rmb_when_asked(kb):
    a = _answer(kb, "rent 8x H100 for 3 days, quote in RMB")
    assert a.query.answer_currency == "cny" and a.cny_per_usd
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "quote" and chart.currency == "cny"
    marks = sorted(chart.marks("bar"), key=lambda m: m.x)
    # the same offers at the answer's dated rate (knowledge/prices/common/exchange_rates.yaml)
    assert [m.y for m in marks] == [o.price.price_per_hour_usd * a.cny_per_usd for o in a.options]
    assert chart.y_label == "price per hour (¥/h)"
    assert all(m.text.startswith("¥") for m in marks)


def test_run_chart_plots_days_against_total_cost(kb):
    a = _answer(kb, "train llama 3 8b on 1T tokens")
    chart = chart_for(a, "en")
    assert chart is not None and chart.kind == "run"
    plotted = {m.option: (m.x, m.y) for m in chart.marks("point")}
    assert plotted == {i: (o.wall_clock_hours / 24, o.total_cost_usd) for i, o in enumerate(a.options)
                       if o.wall_clock_hours is not None and o.total_cost_usd is not None}
    days = [x for x, _ in plotted.values()]
    assert chart.x_log == (max(days) / min(days) > 8)  # spans of more than 8x are drawn on a log scale
    assert (chart.x_label, chart.y_label) == ("wall clock (days)", "total cost ($)")
    assert f"Recommended: {_config(a, a.recommendation)}." in chart.alt_text
    _render_checked(chart)  # ten points: numbered, with a key beside the plot


def test_chinese_chart_speaks_chinese(kb, monkeypatch):
    a = _answer(kb, "给 200 个用户部署 llama 3 70b，8k 上下文，需要什么卡")
    assert a.query.language == "zh"
    monkeypatch.setattr(charts, "cjk_font", lambda: "Some CJK Font")
    chart = chart_for(a, "zh")
    assert chart is not None and chart.language == "zh"
    assert chart.x_label == "每用户 tokens/s" and chart.y_label == "每百万输出 token 成本（$）"
    assert _CJK.search(chart.alt_text) and "推荐：" in chart.alt_text


def test_without_a_cjk_font_the_drawn_text_falls_back_to_english(kb, monkeypatch):
    a = _answer(kb, "给 200 个用户部署 llama 3 70b，8k 上下文，需要什么卡")
    monkeypatch.setattr(charts, "cjk_font", lambda: None)
    chart = chart_for(a, "zh")
    assert chart is not None and chart.language == "en"
    drawn = [chart.title, chart.x_label, chart.y_label, chart.footnote, chart.hint, *chart.categories,
             *(s.name for s in chart.series), *(m.label for m in chart.marks()), *(m.text for m in chart.marks())]
    assert [t for t in drawn if _CJK.search(t)] == []
    assert _CJK.search(chart.alt_text)  # alt text is shown by Slack, not drawn: it stays Chinese


@pytest.mark.skipif(charts.cjk_font() is None, reason="no font with Chinese glyphs installed")
def test_chinese_chart_renders_without_missing_glyphs(kb):
    a = _answer(kb, "两张A100 40G能跑70b吗")
    chart = chart_for(a, "zh")
    assert chart is not None and chart.kind == "memory" and chart.language == "zh"
    _render_checked(chart)


@pytest.mark.parametrize("question", ["what can I run for $2/hr", "H100 memory bandwidth"])
def test_answers_without_a_picture_have_no_chart(kb, question):
    assert chart_for(_answer(kb, question), "en") is None


def test_every_chart_code_has_both_sentences():
    source = Path(charts.__file__).read_text(encoding="utf-8")
    codes = set(re.findall(r'"(chart_[a-z_]+)"', source)) - set(dir(charts))
    assert len(codes) > 20
    for lang in ("en", "zh"):
        messages = get_catalog(lang).messages
        assert sorted(c for c in codes if c not in messages) == [], lang


def test_footnotes_wrap_chinese_without_breaking_before_punctuation():
    text = "未画出（此负载下没有每 token 成本）：12 张 H800 SXM5 80GB（fp8）；16 张 H20（fp8）；16 张 A800 SXM4 80GB（fp16）。"
    lines = charts._wrap(text, 40)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(not line.startswith(tuple("，。；：）")) and not line.endswith("（") for line in lines)
    assert all(sum(2 if _CJK.match(ch) or ch in "（）：；。" else 1 for ch in line) <= 40 for line in lines)


def test_cli_ask_chart_writes_the_png(tmp_path, capsys):
    out = tmp_path / "quote.png"
    assert main(["ask", "8x H100 for 3 days", "--chart", str(out)]) == 0
    assert _png_size(out.read_bytes()) == (WIDTH_PX, HEIGHT_PX)
    assert f"quote chart written to {out}" in capsys.readouterr().err


def test_cli_ask_chart_says_when_there_is_none(tmp_path, capsys):
    out = tmp_path / "none.png"
    assert main(["ask", "what can I run for $2/hr", "--chart", str(out)]) == 0
    assert not out.exists()
    assert "no chart for this answer" in capsys.readouterr().err
    assert main(["ask", "-", "--chart", str(out)]) == 2
