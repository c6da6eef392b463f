"""Charts drawn from an Answer: where a picture reads faster than a table.

:func:`chart_for` picks a chart kind from the answer's typed data (never from its rendered text) and makes a
:class:`Chart`: plain data (title, axis labels with units, series of marks, footnote, alt text) in the user's
language, through the message catalogs (``chart_*`` codes in ``bot/render/messages/<lang>.yaml``).
:func:`render_png` draws it with matplotlib (Agg backend, imported only when a chart is drawn, so importing
:mod:`bot.render` never loads matplotlib).

The kinds, in the order they are tried (:data:`CHART_KINDS`):

* ``quote``: price per hour per offer (provider and pricing model, with each price's ``as_of`` date).
* ``memory`` (when the question asks about memory or fit, or an option does not fit): a stacked bar per
  option (weights, KV cache, overhead and activations, per GPU) against the GPU's usable memory; for a
  memory summary without options, the memory of one copy of the model per precision, from the answer's table.

A chart needs two points or offers at least (one says no more than the headline); a memory chart needs one
bar (its capacity line is the news).
* ``run`` (training and fine-tuning): wall-clock days against total cost, one point per configuration
  (GPU type and count), coloured by GPU type.
* ``serving`` (serving and comparisons): tokens/s per user against cost per 1M output tokens.

Options without the plotted figures (no price, no cost per token at this load) are named in a footnote. The
recommended option is drawn as a star and its label starts with ``★``.

Chinese text needs a CJK font: :func:`cjk_font` looks for one among the fonts matplotlib knows. Without one,
the drawn text of a Chinese chart falls back to the English catalog (``Chart.language == "en"``) instead of
drawing empty boxes; its ``alt_text`` stays Chinese (it is shown by Slack, not drawn).
"""

from __future__ import annotations

import functools
import io
import math
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from bot.advice.answer import Answer, Option
from bot.render.i18n import Renderer, renderer_for

__all__ = ["CHART_KINDS", "DPI", "FIGURE_SIZE_IN", "PALETTE", "Chart", "Mark", "Series", "chart_for",
           "cjk_font", "render_png"]

ChartKind = Literal["quote", "memory", "run", "serving"]

#: Figure size, inches, and resolution: 960 x 540 px, legible at Slack's full view (~1000 px wide) and
#: still readable as its 360 px thumbnail.
FIGURE_SIZE_IN = (8.0, 4.5)
DPI = 120

#: Okabe & Ito's colour-blind safe palette (Okabe M, Ito K (2008), "Color Universal Design",
#: https://jfly.uni-koeln.de/color/), ordered for contrast on white (yellow last).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000", "#F0E442")
#: Marker shapes cycled with the colours, so groups differ in shape too.
_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "h")

#: Footnote line width in columns (a Chinese character takes two) at 9 pt across 960 px.
_FOOTNOTE_WIDTH = 104
#: At most this many names in a footnote, then "+N more".
_FOOTNOTE_NAMES = 4
#: Slack's alt text is a short description: cut beyond this many characters.
_ALT_TEXT_MAX = 1000
#: An axis whose values span more than this ratio is drawn on a log scale.
_LOG_RATIO = 8.0

#: matplotlib's rcParams are global: one chart is drawn at a time (Slack listeners run in threads).
_RENDER_LOCK = threading.Lock()

#: Families tried first for Chinese text (then any installed font that has the glyphs).
_CJK_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Micro Hei",
                 "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "Hiragino Sans GB", "SimHei",
                 "Droid Sans Fallback", "AR PL UMing CN", "Noto Sans CJK JP", "Noto Sans CJK TC")


@dataclass(frozen=True)
class Mark:
    """One plotted value.

    Attributes:
        label: what is drawn next to it (a configuration, an offer, a memory part).
        x, y: its position in axis units. For bar charts ``x`` is the bar's index (top bar 0) and ``y`` its
            length; for scatter charts both are data values.
        option: the index into ``Answer.options`` it comes from (``None`` for a table row).
        recommended: it is the answer's recommended option.
        text: a value label drawn at the bar's end (bar charts), or ``""``.
    """

    label: str
    x: float
    y: float
    option: int | None = None
    recommended: bool = False
    text: str = ""


@dataclass(frozen=True)
class Series:
    """Marks drawn alike.

    Attributes:
        name: its legend entry ("weights", "on-demand", a GPU name).
        style: ``point`` (scatter), ``bar`` (stacked in series order), ``limit`` (a capacity marker per bar).
        marks: its marks.
        colour: a :data:`PALETTE` colour. marker: a matplotlib marker for points (shapes differ with colours).
    """

    name: str
    style: Literal["point", "bar", "limit"]
    marks: tuple[Mark, ...]
    colour: str = PALETTE[0]
    marker: str = "o"


@dataclass(frozen=True)
class Chart:
    """A chart as data, its text in one language.

    Attributes:
        kind: ``quote``, ``memory``, ``run`` or ``serving``.
        language: the language of the drawn text (``en`` or ``zh``; ``en`` for a Chinese answer when no CJK
            font is installed).
        title: the chart's title (the answer's title).
        x_label, y_label: axis labels with their units. For bar charts (drawn horizontally) ``y_label`` is
            the value axis.
        series: what is drawn.
        categories: the bars' labels, top to bottom (bar charts), else empty.
        x_kind, y_kind: how tick values are formatted: ``num``, ``tps``, ``gb``, ``usd`` (money in
            ``currency``), ``days``.
        x_log, y_log: log scale.
        currency: ``usd`` or ``cny`` (values already converted at the answer's dated rate).
        footnote: what is not plotted and why, or ``""``.
        alt_text: the chart's result in words in the user's language, ending with the answer's headline.
        hint: which way is better ("better: right (faster) and down (cheaper)"), drawn above the plot, or ``""``.
    """

    kind: ChartKind
    language: str
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    alt_text: str
    categories: list[str] = field(default_factory=list)
    x_kind: str = "num"
    y_kind: str = "num"
    x_log: bool = False
    y_log: bool = False
    currency: str = "usd"
    footnote: str = ""
    hint: str = ""

    def marks(self, style: str | None = None) -> list[Mark]:
        """Every mark (of one ``style``), in series order."""
        return [m for s in self.series if style in (None, s.style) for m in s.marks]


# --------------------------------------------------------------------------- choosing and building


@dataclass
class _Ctx:
    """What every builder needs: the answer, the drawn-text renderer and the alt-text renderer."""

    answer: Answer
    draw: Renderer
    say: Renderer
    rate: float  # values are multiplied by this (1, or CNY per USD)
    currency: str

    @property
    def sign(self) -> str:
        return "¥" if self.currency == "cny" else "$"

    def money(self, usd: float) -> float:
        return usd * self.rate


def chart_for(answer: Answer, language: str = "en") -> Chart | None:
    """The chart that shows ``answer``'s result, or ``None`` when a picture would not add to the text.

    Args:
        answer: the advisor's answer.
        language: the user's language (``en``, ``zh``; anything else is English), usually
            ``answer.query.language``. A Chinese chart is drawn in English when :func:`cjk_font` finds no
            font with Chinese glyphs; its ``alt_text`` stays Chinese.

    Returns:
        A :class:`Chart` of the first kind in :data:`CHART_KINDS` whose data the answer has, else ``None``.
        Money is in USD, or in CNY at the answer's dated rate when the user asked for RMB.
    """
    lang = "zh" if language == "zh" else "en"
    cny = answer.cny_per_usd if answer.query.answer_currency == "cny" and answer.cny_per_usd else None
    draw_lang = lang if lang != "zh" or cjk_font() else "en"
    ctx = _Ctx(answer=answer, draw=renderer_for(draw_lang, cny_per_usd=cny), say=renderer_for(lang, cny_per_usd=cny),
               rate=cny or 1.0, currency="cny" if cny else "usd")
    for _kind, build in CHART_KINDS:
        chart = build(ctx)
        if chart is not None:
            return chart
    return None


def _labels(ctx: _Ctx, options: list[Option], r: Renderer) -> list[str]:
    """Short configuration labels: count x GPU, with the method (fine-tuning) or precision, and the model
    when the options cover several models."""
    models = {o.model for o in options if o.model}
    out = []
    for o in options:
        c: dict = {"gpu_count": o.gpu_count or 1, "gpu_name": o.gpu_name or o.gpu or "?"}
        if o.method:
            c["method"] = o.method
        elif o.precision:
            c["precision"] = o.precision
        if len(models) > 1 and o.model_name:
            c["model_name"] = r.value("model_name", o.model_name)
            c.pop("method", None)
        out.append(r.config(c))
    for k, o in enumerate(options):  # the same configuration twice: say what the alternative changes
        if o.changes and out.count(out[k]) > 1:
            out[k] = r.say({"code": "chart_label_changed", "params": {"label": out[k], "changes": o.changes}})
    return out


def _star(label: str, recommended: bool) -> str:
    return f"★ {label}" if recommended else label


def _footnote(r: Renderer, code: str, names: list[str]) -> str:
    """A sentence naming what is not plotted (at most :data:`_FOOTNOTE_NAMES`, then "+N more")."""
    if not names:
        return ""
    shown = names[:_FOOTNOTE_NAMES]
    if len(names) > len(shown):
        shown.append(r.say({"code": "chart_more", "params": {"n": len(names) - len(shown)}}))
    return r.say({"code": code, "params": {"configs": ("；" if r.zh else "; ").join(shown)}})


def _alt(ctx: _Ctx, code: str, params: dict, recommended: str | None = None) -> str:
    """Alt text: the chart's result, the recommendation, then the answer's headline, in the user's language.

    ``recommended`` names the recommended option (default: its configuration label)."""
    parts = [ctx.say.say({"code": code, "params": params})]
    rec = ctx.answer.recommendation
    if recommended is None and rec is not None and 0 <= rec < len(ctx.answer.options):
        recommended = _labels(ctx, ctx.answer.options, ctx.say)[rec]
    if recommended:
        parts.append(ctx.say.say({"code": "chart_alt_recommended", "params": {"config": recommended}}))
    parts.append(ctx.say.say(ctx.answer.headline))
    text = " ".join(p for p in parts if p)
    return text if len(text) <= _ALT_TEXT_MAX else text[:_ALT_TEXT_MAX - 1].rstrip() + "…"


def _items(r: Renderer, code: str, items: list[dict]) -> str:
    """Each item's sentence (template ``code``), joined by semicolons (labels hold commas)."""
    return ("；" if r.zh else "; ").join(r.say({"code": code, "params": item}) for item in items)


def _groups(keys: list[str]) -> dict[str, int]:
    """A palette index per distinct key, in order of first appearance."""
    out: dict[str, int] = {}
    for k in keys:
        out.setdefault(k, len(out) % len(PALETTE))
    return out


def _spans(values: list[float]) -> bool:
    """Whether positive values span enough to need a log axis (more than :data:`_LOG_RATIO`)."""
    pos = [v for v in values if v > 0]
    return len(pos) >= 2 and max(pos) / min(pos) > _LOG_RATIO


def _dated(r: Renderer, d) -> str:
    """``as of 2026-09-20``, or ``undated``."""
    return r.say({"code": "chart_as_of", "params": {"as_of": d.isoformat()}}) if d else r.word("undated")


def _quote_chart(ctx: _Ctx) -> Chart | None:
    """Price per hour per offer (provider, pricing model, price date), for price quotes."""
    a = ctx.answer
    if a.intent != "quote":
        return None
    priced = [(i, o) for i, o in enumerate(a.options) if o.price is not None]
    if len(priced) < 2:  # one price says no more than the headline
        return None
    r = ctx.draw
    configs = _labels(ctx, [o for _, o in priced], r)
    several = len(set(configs)) > 1
    colour_of = _groups([o.price.pricing_model for _, o in priced])

    def offer_label(rr: Renderer, o: Option, config: str) -> str:
        p = o.price
        pricing = f"commitment:{p.commitment_term}" if p.pricing_model == "commitment" and p.commitment_term \
            else p.pricing_model
        return rr.say({"code": "chart_quote_label_config" if several else "chart_quote_label",
                       "params": {"config": config, "provider": p.provider_name, "pricing_model": pricing,
                                  "dated": _dated(rr, p.as_of)}})

    categories, marks, hours = [], {}, set()
    for row, ((i, o), config) in enumerate(zip(priced, configs, strict=True)):
        p = o.price
        label = offer_label(r, o, config)
        rec = i == a.recommendation
        categories.append(_star(label, rec))
        text = r.say({"code": "chart_quote_value", "params": {"price_usd": p.price_per_hour_usd,
                                                                "total_usd": o.total_cost_usd
                                                                if a.query.duration_hours else None}})
        if o.total_cost_usd is not None and o.duration_hours and a.query.duration_hours:
            hours.add(o.duration_hours)
        marks.setdefault(p.pricing_model, []).append(
            Mark(label=label, x=row, y=ctx.money(p.price_per_hour_usd), option=i, recommended=rec, text=text))
    series = [Series(name=r.word(model), style="bar", marks=tuple(ms), colour=PALETTE[colour_of[model]])
              for model, ms in marks.items()]
    cheap = min(priced, key=lambda t: t[1].price.price_per_hour_usd)[1]
    dear = max(priced, key=lambda t: t[1].price.price_per_hour_usd)[1]

    def offer(o: Option, prefix: str) -> dict:
        return {f"{prefix}provider": o.price.provider_name, f"{prefix}pricing": ctx.say.word(o.price.pricing_model),
                f"{prefix}usd": o.price.price_per_hour_usd, f"{prefix}dated": _dated(ctx.say, o.price.as_of)}

    params = {"n": len(priced), **offer(cheap, "cheap_"),
              **(offer(dear, "dear_") if dear is not cheap else {"dear_provider": None})}
    rec = a.recommendation
    rec_label = None
    if rec is not None and 0 <= rec < len(a.options) and a.options[rec].price is not None:
        rec_label = offer_label(ctx.say, a.options[rec], _labels(ctx, [a.options[rec]], ctx.say)[0])
    footnote = r.say({"code": "chart_quote_totals", "params": {"hours": hours.pop()}}) if len(hours) == 1 else ""
    return Chart(kind="quote", language=r.language, title=r.say(a.title), x_label="",
                 y_label=r.say({"code": "chart_axis_price_per_hour", "params": {"sign": ctx.sign}}),
                 series=series, categories=categories, y_kind="usd", currency=ctx.currency, footnote=footnote,
                 alt_text=_alt(ctx, "chart_alt_quote", params, recommended=rec_label))


_PARTS = (("weights_gb", "chart_part_weights", PALETTE[0]), ("kv_cache_gb", "chart_part_kv_cache", PALETTE[1]),
          ("overhead_gb", "chart_part_overhead", PALETTE[2]))


def _memory_chart(ctx: _Ctx) -> Chart | None:
    """Memory per GPU (weights, KV cache, overhead) against usable memory, when memory or fit is asked or an
    option does not fit (then fit decides before speed or cost)."""
    a = ctx.answer
    if not {"memory", "fit"} & set(a.query.asks) and not any(o.fits is False for o in a.options):
        return None
    opts = [(i, o) for i, o in enumerate(a.options) if o.memory_per_gpu_gb is not None]
    if not opts:
        return _memory_table_chart(ctx)
    r = ctx.draw
    labels = _labels(ctx, [o for _, o in opts], r)
    say_labels = _labels(ctx, [o for _, o in opts], ctx.say)
    segs: dict[str, list[Mark]] = {code: [] for _, code, _ in _PARTS}
    segs["chart_part_total"] = []
    limits, categories, items = [], [], []
    for row, ((i, o), label) in enumerate(zip(opts, labels, strict=True)):
        rec = i == a.recommendation
        categories.append(_star(label, rec))
        per_gpu = o.memory_per_gpu_gb
        code = "chart_memory_total" if not o.usable_gb else "chart_memory_over" if o.fits is False \
            else "chart_memory_value"
        value = r.say({"code": code,
                       "params": {"mem_gb": per_gpu, "usable_gb": o.usable_gb}})
        if o.memory_total_gb and all(getattr(o, f) is not None for f, _, _ in _PARTS):
            scale = per_gpu / o.memory_total_gb  # one replica's parts, split over its GPUs as the planner did
            for k, (f, code, _) in enumerate(_PARTS):
                segs[code].append(Mark(label=label, x=row, y=getattr(o, f) * scale, option=i, recommended=rec,
                                       text=value if k == len(_PARTS) - 1 else ""))
        else:  # no breakdown (fine-tuning, training): the total per GPU
            segs["chart_part_total"].append(Mark(label=label, x=row, y=per_gpu, option=i, recommended=rec,
                                                 text=value))
        if o.usable_gb is not None:
            limits.append(Mark(label=label, x=row, y=o.usable_gb, option=i, recommended=rec))
        items.append({"config": say_labels[row], "mem_gb": per_gpu, "usable_gb": o.usable_gb})
    colours = {code: colour for _, code, colour in _PARTS} | {"chart_part_total": PALETTE[4]}
    series = [Series(name=r.say({"code": code}), style="bar", marks=tuple(ms), colour=colours[code])
              for code, ms in segs.items() if ms]
    if limits:
        series.append(Series(name=r.say({"code": "chart_usable"}), style="limit", marks=tuple(limits),
                             colour=PALETTE[6]))
    return Chart(kind="memory", language=r.language, title=r.say(a.title), x_label="",
                 y_label=r.say({"code": "chart_axis_gb_per_gpu"}), series=series, categories=categories,
                 y_kind="gb", alt_text=_alt(ctx, "chart_alt_memory", {"items": _items(ctx.say, "chart_alt_memory_item",
                                                                                      items)}))


def _memory_table_chart(ctx: _Ctx) -> Chart | None:
    """A memory summary without options: one copy of the model per row of the answer's table (columns
    ``weights_gb``, ``kv_gb``, ``total_gb``; the rest of the total is overhead). No capacity line: the
    summary names no GPU."""
    t = ctx.answer.table
    need = ("model_precision", "weights_gb", "kv_gb", "total_gb")
    if t is None or not all(c in t.columns for c in need):
        return None
    col = {c: t.columns.index(c) for c in need}
    rows = [row for row in t.rows if all(isinstance(row[col[c]], (int, float)) for c in need[1:])]
    if not rows:
        return None
    r = ctx.draw
    categories = [r.value("model_precision", row[col["model_precision"]]) for row in rows]
    parts: dict[str, list[Mark]] = {code: [] for _, code, _ in _PARTS}
    for k, (label, row) in enumerate(zip(categories, rows, strict=True)):
        weights, kv, total = row[col["weights_gb"]], row[col["kv_gb"]], row[col["total_gb"]]
        parts["chart_part_weights"].append(Mark(label=label, x=k, y=weights))
        parts["chart_part_kv_cache"].append(Mark(label=label, x=k, y=kv))
        parts["chart_part_overhead"].append(Mark(
            label=label, x=k, y=max(0.0, total - weights - kv),
            text=r.say({"code": "chart_memory_total", "params": {"mem_gb": total}})))
    series = [Series(name=r.say({"code": code}), style="bar", marks=tuple(parts[code]), colour=colour)
              for _, code, colour in _PARTS]
    items = [{"label": ctx.say.value("model_precision", row[col["model_precision"]]),
              "total_gb": row[col["total_gb"]]} for row in rows]
    return Chart(kind="memory", language=r.language, title=r.say(ctx.answer.title), x_label="",
                 y_label=r.say({"code": "chart_axis_gb_replica"}), series=series, categories=categories,
                 y_kind="gb", alt_text=_alt(ctx, "chart_alt_memory_table",
                                            {"items": _items(ctx.say, "chart_alt_memory_table_item", items)}))


def _scatter(ctx: _Ctx, x_of, y_of, missing_code: str) -> tuple | None:
    """Marks for the options with both figures, one series per GPU type.

    Returns:
        ``(series, plotted, footnote)``: ``plotted`` holds ``(option index, option, x, y)``; the footnote names
        the options with one figure missing (the recommended one marked), or ``None`` when nothing plots.
    """
    a = ctx.answer
    r = ctx.draw
    labels = _labels(ctx, a.options, r)
    plotted, unplotted = [], []
    for i, (o, label) in enumerate(zip(a.options, labels, strict=True)):
        x, y = x_of(o), y_of(o)
        if x is None and y is None:
            continue
        if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
            unplotted.append(r.say({"code": "chart_recommended_mark", "params": {"config": label}})
                             if i == a.recommendation else label)
        else:
            plotted.append((i, o, x, ctx.money(y)))
    if len(plotted) < 2:  # one point says no more than the headline
        return None
    colour_of = _groups([o.gpu or "" for _, o, _, _ in plotted])
    by_gpu: dict[str, list[Mark]] = {}
    for i, o, x, y in plotted:
        by_gpu.setdefault(o.gpu or "", []).append(
            Mark(label=labels[i], x=x, y=y, option=i, recommended=i == a.recommendation))
    series = []
    for n, (gpu, ms) in enumerate(by_gpu.items()):
        g = colour_of[gpu]
        name = next((o.gpu_name for _, o, _, _ in plotted if (o.gpu or "") == gpu and o.gpu_name), gpu)
        # more GPU types than colours: the shape moves on with each lap of the palette, so no two share both
        series.append(Series(name=name, style="point", marks=tuple(ms), colour=PALETTE[g],
                             marker=_MARKERS[(g + n // len(PALETTE)) % len(_MARKERS)]))
    footnote = _footnote(r, missing_code, unplotted)
    rec = a.recommendation
    if rec is not None and any(i == rec for i, *_ in plotted):
        footnote = " ".join(s for s in (r.say({"code": "chart_recommended", "params": {"config": labels[rec]}}),
                                        footnote) if s)
    return series, plotted, footnote


def _run_chart(ctx: _Ctx) -> Chart | None:
    """Wall-clock days against total cost per configuration, for training and fine-tuning runs."""
    a = ctx.answer
    if not any(o.wall_clock_hours is not None for o in a.options):
        return None
    built = _scatter(ctx, lambda o: o.wall_clock_hours / 24 if o.wall_clock_hours is not None else None,
                     lambda o: o.total_cost_usd, "chart_not_plotted_price")
    if built is None:
        return None
    series, plotted, footnote = built
    r = ctx.draw
    fast = min(plotted, key=lambda t: (t[2], t[3]))
    cheap = min(plotted, key=lambda t: (t[3], t[2]))
    say_labels = _labels(ctx, a.options, ctx.say)
    params = {"n": len(plotted), "fast": say_labels[fast[0]], "fast_hours": fast[1].wall_clock_hours,
              "fast_usd": fast[1].total_cost_usd, "cheap": say_labels[cheap[0]] if cheap is not fast else None,
              "cheap_hours": cheap[1].wall_clock_hours, "cheap_usd": cheap[1].total_cost_usd}
    xs, ys = [t[2] for t in plotted], [t[3] for t in plotted]
    return Chart(kind="run", language=r.language, title=r.say(a.title),
                 x_label=r.say({"code": "chart_axis_days"}),
                 y_label=r.say({"code": "chart_axis_total_cost", "params": {"sign": ctx.sign}}),
                 series=series, x_kind="days", y_kind="usd", x_log=_spans(xs), y_log=_spans(ys),
                 currency=ctx.currency, footnote=footnote,
                 hint=r.say({"code": "chart_better_run"}) if len(plotted) > 1 else "",
                 alt_text=_alt(ctx, "chart_alt_run", params))


def _serving_chart(ctx: _Ctx) -> Chart | None:
    """Tokens/s per user against cost per 1M output tokens per option, for serving and comparisons."""
    a = ctx.answer
    built = _scatter(ctx, lambda o: o.tps_per_user, lambda o: o.cost_per_million_tokens_usd,
                     "chart_not_plotted_cost")
    if built is None:
        return None
    series, plotted, footnote = built
    r = ctx.draw
    cheap = min(plotted, key=lambda t: (t[3], -t[2]))
    fast = max(plotted, key=lambda t: (t[2], -t[3]))
    say_labels = _labels(ctx, a.options, ctx.say)
    params = {"n": len(plotted), "cheap": say_labels[cheap[0]], "cheap_usd": cheap[1].cost_per_million_tokens_usd,
              "cheap_tps": cheap[1].tps_per_user, "fast": say_labels[fast[0]] if fast is not cheap else None,
              "fast_tps": fast[1].tps_per_user, "fast_usd": fast[1].cost_per_million_tokens_usd}
    xs, ys = [t[2] for t in plotted], [t[3] for t in plotted]
    return Chart(kind="serving", language=r.language, title=r.say(a.title),
                 x_label=r.say({"code": "chart_axis_tps_per_user"}),
                 y_label=r.say({"code": "chart_axis_cost_per_m_tokens", "params": {"sign": ctx.sign}}),
                 series=series, x_kind="tps", y_kind="usd", x_log=_spans(xs), y_log=_spans(ys),
                 currency=ctx.currency, footnote=footnote,
                 hint=r.say({"code": "chart_better_serving"}) if len(plotted) > 1 else "",
                 alt_text=_alt(ctx, "chart_alt_serving", params))


#: The chart kinds, in the order they are tried: the first whose data the answer has is drawn.
CHART_KINDS: tuple[tuple[ChartKind, Callable[[_Ctx], Chart | None]], ...] = (
    ("quote", _quote_chart),
    ("memory", _memory_chart),
    ("run", _run_chart),
    ("serving", _serving_chart),
)


# --------------------------------------------------------------------------- fonts


@functools.cache
def cjk_font() -> str | None:
    """The family name of an installed font with Chinese glyphs, or ``None``.

    Looks through the fonts matplotlib knows (``matplotlib.font_manager.fontManager.ttflist``): the families
    in ``_CJK_FAMILIES`` first, then any font whose character map has the test characters. Imports
    matplotlib's font manager (not pyplot) on first call; the result is cached.
    """
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    fonts = font_manager.fontManager.ttflist
    rank = {name: k for k, name in enumerate(_CJK_FAMILIES)}
    candidates = sorted(fonts, key=lambda f: rank.get(f.name, len(rank)))
    checked: set[str] = set()
    for f in candidates:
        if f.fname in checked or "Mono" in f.name or ("Serif" in f.name and f.name not in rank):
            continue
        checked.add(f.fname)
        try:
            charmap = FT2Font(f.fname).get_charmap()
        except (OSError, RuntimeError, ValueError):
            continue
        if all(ord(ch) in charmap for ch in "显存每小时价格"):
            return f.name
    return None


# --------------------------------------------------------------------------- drawing


def render_png(chart: Chart) -> bytes:
    """Draw ``chart`` as a PNG of :data:`FIGURE_SIZE_IN` at :data:`DPI` (960 x 540 px).

    Scatter points are labelled next to themselves at the first of a few offsets where the label overlaps
    no other label or point and stays inside the axes; when some label finds no such place, the points are
    numbered (in the answer's option order, as its table) and a key beside the plot names them. Bars are
    horizontal (long labels read on the left), the first option at the top, with value labels at their ends.
    Text is drawn as is (no TeX: ``$`` is a dollar sign). Thread-safe: drawings are serialised, since the
    font settings are matplotlib's global rcParams (a drawing takes 0.1-0.3 s).

    Args:
        chart: what to draw (:func:`chart_for`).

    Returns:
        The PNG file's bytes.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    family = [cjk_font() or "DejaVu Sans", "DejaVu Sans"] if chart.language == "zh" else ["DejaVu Sans"]
    rc = {"font.family": "sans-serif", "font.sans-serif": family, "font.size": 12, "axes.labelsize": 12, "axes.spines.top": False, "axes.spines.right": False, "text.parse_math": False,
          "axes.unicode_minus": False}
    with _RENDER_LOCK, matplotlib.rc_context(rc):
        fig = Figure(figsize=FIGURE_SIZE_IN, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)  # the Agg backend, without pyplot's global state
        ax = fig.add_subplot()
        r = renderer_for(chart.language)
        footnote = "\n".join(_wrap(chart.footnote, _FOOTNOTE_WIDTH))
        bottom = 0.0
        if footnote:
            bottom = 0.042 * (footnote.count("\n") + 1) + 0.015
            fig.text(0.01, 0.012, footnote, fontsize=9, color="#333333", va="bottom", ha="left")
        rect = (0, bottom, 1, 1 - bottom)
        fig.get_layout_engine().set(rect=rect, h_pad=0.06)
        fig.suptitle(chart.title, x=0.01, ha="left", fontweight="bold", fontsize=14)
        if chart.categories:
            _draw_bars(fig, ax, chart, r)
        else:
            _draw_points(fig, ax, chart, r, rect)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` columns (wide characters count two), broken at spaces or between wide
    characters (Chinese has no spaces)."""
    def cols(s: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in s)

    tokens, word = [], ""
    for ch in text:  # a token: a run of narrow characters with its trailing space, or one wide character
        if ch in "，。；：、）」！？" and (word or tokens):  # closing punctuation never starts a line
            if word:
                word += ch
            else:
                tokens[-1] += ch
        elif ch in "（「":  # opening punctuation never ends a line
            tokens += [word] if word else []
            word = ch
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            tokens += [word, ch] if word else [ch]
            word = ""
        else:
            word += ch
            if ch == " ":
                tokens.append(word)
                word = ""
    tokens += [word] if word else []
    lines, line = [], ""
    for tok in tokens:
        if line and cols(line + tok.rstrip()) > width:
            lines.append(line.rstrip())
            line = tok.lstrip()
        else:
            line += tok
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _formatter(kind: str, currency: str, r: Renderer):
    """Tick labels: compact money (``$200k``, ``$1.2M``; ``¥20 万`` in Chinese), whole numbers where the ticks
    are whole."""
    from matplotlib.ticker import FuncFormatter

    sign = "¥" if currency == "cny" else "$"

    def fmt(x, _pos=None):
        if kind == "usd":
            if x < 0:
                return ""
            if r.zh and x >= 1e4:
                return f"{sign}{x / 1e4:,.4g} 万" if x < 1e8 else f"{sign}{x / 1e8:,.4g} 亿"
            if x >= 1e6:
                return f"{sign}{x / 1e6:,.4g}M"
            if x >= 1e4:
                return f"{sign}{x / 1e3:,.4g}k"
            return f"{sign}{x:,.0f}" if x == int(x) else f"{sign}{x:,.2f}"
        return f"{x:,.0f}" if x == int(x) else f"{x:,.2f}".rstrip("0").rstrip(".")

    return FuncFormatter(fmt)


def _draw_points(fig, ax, chart: Chart, r: Renderer, rect: tuple) -> None:
    from matplotlib.ticker import LogLocator, NullFormatter

    ax.set_xlabel(chart.x_label)
    ax.set_ylabel(chart.y_label)
    ax.grid(True, color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    handles = {}
    for s in chart.series:
        for m in s.marks:
            h = ax.scatter([m.x], [m.y], s=80, color=s.colour, marker=s.marker, edgecolor="white", linewidth=0.8,
                           zorder=3)
            handles[m.option] = h
            if m.recommended:
                ax.scatter([m.x], [m.y], s=480, marker="*", color=s.colour, edgecolor="black", linewidth=1.0,
                           zorder=4)
    marks = chart.marks("point")
    for axis, log, kind, values in ((ax.xaxis, chart.x_log, chart.x_kind, [m.x for m in marks]),
                                    (ax.yaxis, chart.y_log, chart.y_kind, [m.y for m in marks])):
        which = "x" if axis is ax.xaxis else "y"
        if log:
            (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        lo, hi = _pad_limits(ax, values, log, which, from_zero=which == "y")
        if log:  # 1-2-5 ticks over a decade or so, 1-3 over three, powers of ten beyond
            decades = math.log10(hi / lo)
            axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0) if decades <= 1.6 else (1.0, 3.0)
                                              if decades <= 3.2 else (1.0,)))
        axis.set_major_formatter(_formatter(kind, chart.currency, r))
        axis.set_minor_formatter(NullFormatter())
    if chart.hint:  # under the title, above the plot: clear of the points and of a long title
        ax.set_title(chart.hint, loc="right", fontsize=9, color="#555555", style="italic")
    fig.canvas.draw()
    fig.set_layout_engine("none")  # freeze the layout: labels are placed in display coordinates
    if _place_labels(fig, ax, marks, [m.label for m in marks]):
        return
    # Crowded: number the points and name them in a key beside the plot.
    for t in list(ax.texts):
        if t.get_gid() == "point-label":
            t.remove()
    order = sorted(marks, key=lambda m: m.option if m.option is not None else 0)
    number = {id(m): str(k + 1) for k, m in enumerate(order)}
    fig.set_layout_engine("constrained")
    fig.get_layout_engine().set(rect=rect, h_pad=0.06)
    fig.legend([handles[m.option] for m in order], [f"{number[id(m)]}  {_star(m.label, m.recommended)}"
                                                    for m in order],
               loc="outside right upper", fontsize=9, frameon=False, handletextpad=0.3, borderaxespad=0.2)
    fig.canvas.draw()
    fig.set_layout_engine("none")
    _place_labels(fig, ax, marks, [number[id(m)] for m in marks], force=True)


def _pad_limits(ax, values: list[float], log: bool, which: str, from_zero: bool) -> tuple[float, float]:
    """Room around the points for their labels: 15% of the span each side (a factor on log axes).
    ``from_zero``: a linear axis of non-negative values starts at 0. Returns the limits set."""
    lo, hi = min(values), max(values)
    setter = ax.set_xlim if which == "x" else ax.set_ylim
    if log:
        f = (hi / lo) ** 0.15 if hi > lo else 2.0
        setter(lo / f, hi * f)
        return lo / f, hi * f
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    a = lo - 0.15 * span
    if lo >= 0 and (from_zero or a < 0):
        a = 0.0
    b = hi + 0.15 * (hi - a if a < lo - 0.15 * span else span)
    setter(a, b)
    return a, b


def _place_labels(fig, ax, marks: list[Mark], texts: list[str], force: bool = False) -> bool:
    """Put each text next to its point at the first offset where it overlaps no label or point and stays
    inside the axes (the recommended point first). Returns whether every text found such a place; with
    ``force`` the least bad place is kept, else nothing is drawn when one text finds none."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [Bbox.from_bounds(px - w, py - w, 2 * w, 2 * w) for (px, py), w in
             ((ax.transData.transform((m.x, m.y)), 18 if m.recommended else 9) for m in marks)]
    hint = [t.get_window_extent(renderer) for t in ax.texts]
    offsets = ((10, 0, "left", "center"), (-10, 0, "right", "center"), (0, 11, "center", "bottom"),
               (0, -11, "center", "top"), (9, 9, "left", "bottom"), (-9, 9, "right", "bottom"),
               (9, -9, "left", "top"), (-9, -9, "right", "top"), (0, 24, "center", "bottom"),
               (0, -24, "center", "top"), (22, 14, "left", "bottom"), (-22, 14, "right", "bottom"),
               (22, -14, "left", "top"), (-22, -14, "right", "top"))
    ok = True
    placed = []
    for k in sorted(range(len(marks)), key=lambda k: not marks[k].recommended):
        m = marks[k]
        best = None
        grow = 1.6 if m.recommended else 1.0  # clear of the star's points
        for dx, dy, ha, va in offsets:
            t = ax.annotate(texts[k], (m.x, m.y), xytext=(dx * grow, dy * grow), textcoords="offset points",
                            ha=ha, va=va, fontsize=11, fontweight="bold" if m.recommended else "normal", color="#222222",
                            zorder=5, gid="point-label")
            bb = t.get_window_extent(renderer).expanded(1.04, 1.1)
            inside = frame.x0 <= bb.x0 and bb.x1 <= frame.x1 and frame.y0 <= bb.y0 and bb.y1 <= frame.y1
            clash = sum(bb.overlaps(o) for j, o in enumerate(taken) if j != k) + sum(bb.overlaps(o) for o in hint)
            score = (not inside, clash)
            if best is None or score < best[0]:
                if best is not None:
                    best[1].remove()
                best = (score, t, bb)
            else:
                t.remove()
            if score == (False, 0):
                break
        if best[0] != (False, 0):
            ok = False
            if not force:
                best[1].remove()
                for t in placed:
                    t.remove()
                return False
        taken.append(best[2])
        placed.append(best[1])
    return ok


def _draw_bars(fig, ax, chart: Chart, r: Renderer) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    n = len(chart.categories)
    left = [0.0] * n
    height = 0.62
    recommended = {int(m.x) for m in chart.marks() if m.recommended} if n > 1 else set()
    legend = []
    for s in chart.series:
        if s.style != "bar":
            continue
        legend.append((Patch(facecolor=s.colour), s.name))
        for m in s.marks:
            k = int(m.x)
            ax.barh(k, m.y, left=left[k], height=height, color=s.colour, zorder=2,
                    edgecolor="black" if k in recommended else "white", linewidth=1.4 if k in recommended else 0.6)
            left[k] += m.y
    ends = list(left)
    for s in chart.series:
        if s.style != "limit":
            continue
        legend.append((Line2D([], [], color=s.colour, linewidth=2.4), s.name))
        for m in s.marks:
            k = int(m.x)
            ax.plot([m.y, m.y], [k - 0.45, k + 0.45], color=s.colour, linewidth=2.4, zorder=4,
                    solid_capstyle="butt")
            ends[k] = max(ends[k], m.y)
    top = max(ends) if ends else 1.0
    for m in chart.marks():
        if m.text:
            k = int(m.x)
            ax.text(ends[k] + top * 0.015, k, m.text, va="center", ha="left", fontsize=11, color="#222222",
                    zorder=5)
    ax.set_yticks(range(n))
    ax.set_yticklabels(chart.categories)
    for k, lab in enumerate(ax.get_yticklabels()):
        if any(m.recommended and int(m.x) == k for m in chart.marks()):
            lab.set_fontweight("bold")
    rows = max(n, 3)  # one or two bars keep the thickness they have among three, centred
    centre = (n - 1) / 2
    ax.set_ylim(centre + rows / 2, centre - rows / 2)  # first option on top
    ax.set_xlabel(chart.y_label)
    ax.xaxis.set_major_formatter(_formatter(chart.y_kind, chart.currency, r))
    ax.grid(True, axis="x", color="#dddddd", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    if len(legend) > 1:
        fig.legend([h for h, _ in legend], [name for _, name in legend], loc="outside lower right",
                   ncol=len(legend), fontsize=9, frameon=False)
    ax.set_xlim(0, top * 1.05)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    right = max((t.get_window_extent(renderer).x1 for t in ax.texts), default=frame.x1)
    if right > frame.x1:  # widen the value axis until the value labels fit inside the axes
        room = (right - frame.x0) / frame.width
        ax.set_xlim(0, top * 1.05 * room * 1.02)
