"""Sentences in the user's language: message catalogs and number formatting.

``bot/render/messages/<lang>.yaml`` holds, per language, the sentence of every message code the core
emits (:class:`~bot.notes.Note`), table column labels and kinds, and a few words (yes/no, pricing models).
A parameter is formatted by its name's unit suffix, so the same figure reads the same way everywhere:

* ``*_usd`` money (``$1,234``, ``$12.34``; in Chinese ``$14.9 万`` above 100,000; converted to ``¥`` with
  the knowledge base's dated rate when the user asked for RMB); ``*_cny`` an amount published in CNY (``¥4.98``);
* ``*_gb`` one decimal; ``*_tps`` tokens/s; ``*_s`` seconds; ``*_ms`` milliseconds; ``*_x`` a ratio;
  ``*_pct`` a percentage; ``*_hours`` a duration with its unit (days beyond 48 h); ``*_tokens`` a token
  count (``1.4T``, ``8,192``; ``1.4 万亿`` in Chinese); ``*_b`` billions of parameters;
* ``{flag:?}`` inside ``[[...]]`` keeps the part when ``flag`` is set and renders nothing itself;
* a dict with ``gpu_name`` is a configuration ("2x H100 SXM5 80GB, fp8"); a list is joined; ``True`` and
  ``False`` are the catalog's yes/no.

Templates are ``str.format`` strings with two additions: ``[[ ... ]]`` is an optional part, dropped when a
parameter inside it is missing, ``None``, ``False`` or empty; ``{items:@code}`` renders each element of a list
(a dict of parameters) with the template ``code`` and joins them. A parameter that is itself a note is
rendered as its sentence.

Unknown codes fall back to English and, failing that, to the code itself (a test checks every code the
core emits has a sentence in both languages).
"""

from __future__ import annotations

import math
import re
import string
import threading
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from bot.notes import Note

__all__ = ["Catalog", "Renderer", "get_catalog", "renderer_for"]

MESSAGES_DIR = Path(__file__).parent / "messages"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ColumnSpec(BaseModel):
    """A table column: its header and how its cells are formatted."""

    model_config = ConfigDict(extra="forbid")
    label: str
    kind: str = "text"


class Catalog(BaseModel):
    """One language's message catalog (``bot/render/messages/<lang>.yaml``)."""

    model_config = ConfigDict(extra="forbid")
    language: str
    list_separator: str = ", "
    words: dict[str, str] = Field(default_factory=dict)
    columns: dict[str, ColumnSpec] = Field(default_factory=dict)
    messages: dict[str, str] = Field(default_factory=dict)


_lock = threading.Lock()
_catalogs: dict[str, Catalog] = {}


def get_catalog(language: str) -> Catalog:
    """The catalog of ``language`` (``en`` or ``zh``; anything else is English), loaded once."""
    language = language if language in ("en", "zh") else "en"
    if language not in _catalogs:
        with _lock:
            if language not in _catalogs:
                path = MESSAGES_DIR / f"{language}.yaml"
                raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
                _catalogs[language] = Catalog.model_validate(raw)
    return _catalogs[language]


@dataclass
class Renderer:
    """Formats notes, values and table cells in one language.

    Attributes:
        language: ``en`` or ``zh``.
        cny_per_usd: when set, money is shown in CNY at this rate (the user asked for RMB).
        both: with ``cny_per_usd``, money given in USD is said in CNY with the USD beside it (both asked).
        days: the user asked in days ("how many days", "要多少天"): durations of an hour or more also say days.
    """

    language: str = "en"
    cny_per_usd: float | None = None
    days: bool = False
    both: bool = False
    _catalog: Catalog = field(init=False)
    _fallback: Catalog = field(init=False)

    def __post_init__(self) -> None:
        self._catalog = get_catalog(self.language)
        self._fallback = get_catalog("en")

    @property
    def zh(self) -> bool:
        return self._catalog.language == "zh"

    # ------------------------------------------------------------------ words and sentences
    def word(self, key: str) -> str:
        """A catalog word (``yes``, ``no``, ``on_demand``...), or ``key`` itself."""
        return self._catalog.words.get(key) or self._fallback.words.get(key) or key

    def template(self, code: str) -> str:
        """The sentence template of ``code``."""
        return self._catalog.messages.get(code) or self._fallback.messages.get(code) or code

    def say(self, n: Note | dict | None) -> str:
        """The sentence of a note, its parameters formatted by their unit suffixes."""
        if n is None:
            return ""
        if isinstance(n, dict):
            n = Note(code=n.get("code", ""), params=n.get("params") or {})
        return self.fill(self.template(n.code), n.params)

    def fill(self, template: str, params: dict) -> str:
        """A template with its optional parts resolved and its parameters formatted."""
        template = _OPTIONAL.sub(lambda m: m.group(1) if _present(m.group(1), params) else "", template)
        return _NoteFormatter(self).format(template, **params).strip()

    def column(self, code: str) -> ColumnSpec:
        """A column's header and kind."""
        spec = self._catalog.columns.get(code) or self._fallback.columns.get(code)
        return spec or ColumnSpec(label=code)

    # ------------------------------------------------------------------ values
    def value(self, name: str, value: Any) -> str:
        """Format one value by its parameter name (see the module docstring)."""
        if value is None:
            return self.word("na")
        if isinstance(value, Note) or (isinstance(value, dict) and set(value) == {"code", "params"}):
            return self.say(value)
        if isinstance(value, bool):
            return self.word("yes" if value else "no")
        if isinstance(value, dict) and "en" in value and "zh" in value and len(value) == 2:
            return value["zh"] if self.zh else value["en"]
        if isinstance(value, dict):
            if "gpu_name" in value:
                return self.config(value)
            if "model_name" in value:
                return self.fill(self.template("model_precision_item"), value)
            if "amount" in value and "currency" in value:
                if self.both and self.cny_per_usd and value["currency"] == "cny":  # both asked: the USD beside it
                    cny, usd = self.money_in(value["amount"], "cny"), self.money_in(value["amount"] / self.cny_per_usd,
                                                                                      "usd")
                    return f"{cny}（{usd}）" if self.zh else f"{cny} ({usd})"
                # a secondary-source figure (not a list price) is marked approximate in a table cell
                return ("~" if value.get("secondary") else "") + self.money_in(value["amount"], value["currency"])
            return ", ".join(f"{k}={v}" for k, v in value.items())
        if isinstance(value, (list, tuple)):
            if value and all(isinstance(v, Note) or (isinstance(v, dict) and set(v) == {"code", "params"})
                             for v in value):
                return " ".join(self.say(v) for v in value)
            return self._catalog.list_separator.join(self.value(name, v) for v in value)
        if isinstance(value, date):
            return value.isoformat()
        if isinstance(value, str):
            if name == "method":
                return self.word(f"method:{value}")
            if name == "quantity":
                return self.word(f"quantity:{value}")
            if name == "spec":
                return self.word(f"spec:{value}")
            if name == "term":
                return self.word(f"term:{value}")
            if name == "task":
                return self.word(f"task:{value}")
            return self.word(value) if name in ("pricing_model", "verdict", "workload", "intent", "changes",
                                                "alternative", "provider", "provider_name") else value
        if not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
            return self.word("na")
        kind = _kind_of(name)
        return self.number(kind, value)

    def number(self, kind: str, x: float) -> str:
        """Format a number of ``kind`` (``usd``, ``gb``, ``tps``, ``s``, ``ms``, ``x``, ``pct``, ``hours``,
        ``tokens``, ``b``, ``int``, ``num``)."""
        if kind == "usd":
            return self.usd(x)
        if kind == "cny":  # an amount published in CNY, shown as published
            return self.money_in(x, "cny")
        if kind == "gb":
            if 0 < x < 0.1:  # "12 MB" is 0.012 GB, not "0.0"
                return f"{x:.2g}"
            return f"{x:,.0f}" if x >= 1000 or x == int(x) else f"{x:,.1f}"
        if kind == "tps":
            return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"
        if kind == "s":
            return f"{x:,.2f}" if x < 10 else f"{x:,.1f}"
        if kind == "ms":
            return f"{x:,.0f}"
        if kind == "x":
            return f"{x:.2f}" if x < 10 else f"{x:.1f}"
        if kind == "pct":
            return f"{x:.0f}%"
        if kind == "cc":
            return f"{x:.1f}"
        if kind == "num1":
            return f"{x:,.1f}"
        if kind == "hours":
            return self.duration(x)
        if kind == "tokens":
            return self.count(x, tokens=True)
        if kind == "b":  # model sizes are written without separators: "671B", "5000B", "1.5B"
            return (f"{x:.0f}B" if x >= 100 else f"{_sig3(x)}B") if x >= 1 else f"{_sig3(x * 1000)}M"
        if kind == "int":
            return self.count(x)
        return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.2f}".rstrip("0").rstrip(".")

    def count(self, x: float, tokens: bool = False) -> str:
        """A count: ``8,192``; large token counts as ``1.4T``/``72B``/``100M`` (``1.4 万亿``/``720 亿`` in Chinese)."""
        if self.zh and x >= 1e4 and (tokens or x >= 1e5):
            for scale, unit in ((1e12, "万亿"), (1e8, "亿"), (1e4, "万")):
                if x >= scale:
                    return f"{_sig3(x / scale)} {unit}"
        if tokens and x >= 1e6:
            for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
                if x >= scale:
                    return f"{_sig3(x / scale)}{unit}"
        return f"{x:,.0f}" if x == int(x) or x >= 100 else f"{x:,.1f}"

    def usd(self, x: float) -> str:
        """Money given in USD, shown in CNY when the user asked for RMB."""
        if self.cny_per_usd and self.both:
            cny, usd = self.money_in(x * self.cny_per_usd, "cny"), self.money_in(x, "usd")
            return f"{cny}（{usd}）" if self.zh else f"{cny} ({usd})"
        if self.cny_per_usd:
            return self.money_in(x * self.cny_per_usd, "cny")
        return self.money_in(x, "usd")

    def money_in(self, x: float, currency: str) -> str:
        """An amount in ``currency`` (``usd``, ``cny``, ``eur``, ``gbp``, ...) with its sign; a currency without one
        of its own is written with its code after the amount (``5,000 JPY``, ``0.1 BTC``)."""
        sign = _CURRENCY_SIGNS.get(currency)
        if sign is None:
            digits = f"{x:,.0f}" if abs(x) >= 1000 else f"{x:,.2f}" if abs(x) >= 1 else f"{x:.4g}"
            return f"{digits} {currency.upper()}"
        if self.zh and abs(x) >= 1e5:
            return f"{sign}{x / 1e4:,.1f} 万" if abs(x) < 1e8 else f"{sign}{x / 1e8:,.2f} 亿"
        if abs(x) >= 1000:
            return f"{sign}{x:,.0f}"
        return f"{sign}{x:,.2f}" if abs(x) >= 0.01 or x == 0 else f"{sign}{x:.4f}"

    def duration(self, hours: float) -> str:
        """``72 h (3.0 days)``; ``15.5 h``; under an hour in minutes (``1.5 min``) and under a minute in seconds
        (``40 s``), never ``0 h``; in Chinese ``72 小时（3.0 天）``, ``1.5 分钟``, ``40 秒``."""
        if 0 < hours < 1:
            minutes = hours * 60
            if minutes < 1:
                return f"{minutes * 60:,.0f} {'秒' if self.zh else 's'}"
            text = f"{minutes:,.1f}".removesuffix(".0")
            return f"{text} {'分钟' if self.zh else 'min'}"
        if self.zh:
            if hours >= 48 or (self.days and hours >= 1):
                return f"{hours:,.0f} 小时（{hours / 24:,.1f} 天）"
            return f"{hours:,.1f} 小时".replace(".0 小时", " 小时")
        if hours >= 48 or (self.days and hours >= 1):
            return f"{hours:,.0f} h ({hours / 24:,.1f} days)"
        return f"{hours:,.1f} h".replace(".0 h", " h")

    def config(self, c: dict) -> str:
        """A configuration label from a dict with ``gpu_count``, ``gpu_name`` and optional ``precision``,
        ``method``, ``model_name``."""
        parts = {k: c.get(k) for k in ("gpu_count", "gpu_name", "precision", "method", "model_name")}
        code = "config_" + "_".join(k for k in ("model_name", "precision", "method") if parts.get(k)) \
            if any(parts.get(k) for k in ("model_name", "precision", "method")) else "config"
        return _NoteFormatter(self).format(self.template(code), **{k: v for k, v in parts.items() if v is not None})

    def cell(self, column: str, value: Any) -> str:
        """One table cell, formatted by its column's kind."""
        if value is None:
            return self.word("na")
        kind = self.column(column).kind
        if isinstance(value, bool):
            return self.word("yes" if value else "no_caps")
        if isinstance(value, dict):
            return self.value(column, value)
        if isinstance(value, str) and (kind in ("text", "word") or value in self._catalog.words):
            # a catalog word ("none", "unsupported", "unpublished") in any cell, a number column's included, is
            # said in the reader's language
            return self.word(value)
        if isinstance(value, (int, float)) and kind != "text":
            return self.number(kind, value)
        return self.value(column, value)


#: Signs written before an amount; other currencies are written with their code after it.
_CURRENCY_SIGNS = {"usd": "$", "cny": "¥", "eur": "€", "gbp": "£", "inr": "₹", "krw": "₩"}

_OPTIONAL = re.compile(r"\[\[(.*?)\]\]", re.S)
_FIELD = re.compile(r"\{([a-z_0-9]+)[^}]*\}")


def _present(fragment: str, params: dict) -> bool:
    """Whether every parameter an optional fragment names has a value worth showing."""
    for name in _FIELD.findall(fragment):
        v = params.get(name)
        if v is None or v is False or v == "" or v == [] or (isinstance(v, float) and not math.isfinite(v)):
            return False
    return True


_SUFFIX_KINDS = (("_usd", "usd"), ("_cny", "cny"), ("_gb", "gb"), ("_tps", "tps"), ("_ms", "ms"), ("_s", "s"), ("_x", "x"),
                 ("_pct", "pct"), ("_hours", "hours"), ("_tokens", "tokens"), ("_b", "b"), ("count", "int"),
                 ("users", "int"), ("_n", "int"))


def _sig3(v: float) -> str:
    """About three significant digits, never in exponent notation: 1,400 / 72.5 / 1.25."""
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}".rstrip("0").rstrip(".") if v >= 10 else f"{v:.2f}".rstrip("0").rstrip(".")


def _kind_of(name: str) -> str:
    if "gpu_hours" in name or name.endswith(("_gb_s", "_w", "_tflops")):
        return "int"
    if name in ("hours", "wall_hours"):
        return "hours"
    if name.endswith("_cc"):
        return "cc"
    if name.endswith("months") or name in ("kw", "days", "years"):
        return "num1"
    for suffix, kind in _SUFFIX_KINDS:
        if name.endswith(suffix):
            return kind
    return "num"


class _NoteFormatter(string.Formatter):
    """str.format with values formatted by the Renderer (missing parameters render as n/a)."""

    def __init__(self, r: Renderer):
        self.r = r

    def get_value(self, key, args, kwargs):
        if isinstance(key, str):
            return kwargs.get(key)
        return super().get_value(key, args, kwargs)

    def format_field(self, value, format_spec):  # the name is not known here: see convert_field
        return value if isinstance(value, str) else str(value)

    def _vformat(self, format_string, args, kwargs, used_args, recursion_depth, auto_arg_index=0):
        out = []
        for literal, name, spec, _conversion in self.parse(format_string):
            out.append(literal)
            if name is None:
                continue
            value = kwargs.get(name)
            if spec == "?":  # a flag: decides an optional [[...]] part, renders nothing
                continue
            if spec.startswith("@"):
                items = value if isinstance(value, (list, tuple)) else [value] if value else []
                sep = self.r._catalog.list_separator if not spec.endswith("/") else " "
                out.append(sep.join(self.r.fill(self.r.template(spec[1:].rstrip("/")), item) for item in items
                                    if isinstance(item, dict)))
            elif spec:
                out.append(format(value, spec) if value is not None else self.r.word("na"))
            else:
                out.append(self.r.value(name, value))
        return "".join(out), auto_arg_index


def renderer_for(answer_language: str, cny_per_usd: float | None = None, days: bool = False,
                 both: bool = False) -> Renderer:
    """A :class:`Renderer` for an answer's language (Japanese, Korean and other questions get English); ``days``:
    durations also in days (the user asked in days); ``both``: CNY with USD beside it."""
    return Renderer(language="zh" if answer_language == "zh" else "en", cny_per_usd=cny_per_usd, days=days,
                    both=both)
