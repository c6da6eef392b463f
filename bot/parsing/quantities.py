"""Numbers and settings in a message: precision, method, context, load, durations, money.

Every function takes the lower-cased message and returns plain values in the units the
:class:`~bot.parsing.query.Query` fields name (tokens, hours, USD), plus notes for what was
assumed. Token counts written with ``k`` follow the convention of their field: a power of
two ("8k", "32k") means 1024 multiples, the way context lengths are set (8k -> 8192);
any other number means thousands ("100k" -> 100,000).
"""

from __future__ import annotations

import re

__all__ = [
    "find_context",
    "find_durations",
    "find_engine",
    "find_io_tokens",
    "find_load",
    "find_method",
    "find_money",
    "find_precision",
    "find_pricing",
    "find_region",
    "find_training_tokens",
    "token_count",
]

_TOKEN_COUNT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(k|m)?\s*")
_GGUF = re.compile(r"^i?q\d")

_POWERS_OF_TWO = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}


def token_count(text: str) -> int | None:
    """``"8k"`` -> 8192, ``"100k"`` -> 100000, ``"32768"`` -> 32768, ``"1.5k"`` -> 1500."""
    m = _TOKEN_COUNT.fullmatch(text)
    if not m:
        return None
    value = float(m.group(1))
    if m.group(2) == "k":
        value *= 1024 if value in _POWERS_OF_TWO else 1000
    elif m.group(2) == "m":
        value *= 1024 * 1024 if value in _POWERS_OF_TWO else 1_000_000
    return int(value) if value >= 1 else None


# ------------------------------------------------------------------ precision and method

_KV = re.compile(
    r"(?:kv[\s_-]?cache(?:[\s_-]?dtype)?|kv)\s*(?:in|=|:|as|to)?\s*(fp8(?:_e4m3|_e5m2)?|int8|int4|fp16|bf16|e4m3|e5m2)\b"
    r"|\b(fp8|int8|int4|fp16|bf16)\s*kv(?:[\s_-]?cache)?"
)
_PRECISIONS: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"\b(q[2-8]_k(?:_[sml])?|q[2-8]_[01]|iq[1-4]_[a-z0-9_]+)\b"), None),  # GGUF, kept as written
    (re.compile(r"\bgptq\b"), "gptq"),
    (re.compile(r"\bawq\b"), "awq"),
    (re.compile(r"\bnf4\b"), "nf4"),
    (re.compile(r"\b(?:fp32|float32|full precision)\b"), "fp32"),
    (re.compile(r"\b(?:bf16|bfloat16)\b"), "bf16"),
    (re.compile(r"\b(?:fp16|float16|half precision|16[\s-]?bits?)\b"), "fp16"),
    (re.compile(r"\b(?:fp8|float8|e4m3)\b"), "fp8"),
    (re.compile(r"\b(?:int8|8[\s-]?bits?|load_in_8bit|w8a8|llm\.int8)\b"), "int8"),
    (re.compile(r"\b(?:int4|4[\s-]?bits?|load_in_4bit|w4a16)\b"), "int4"),
    (re.compile(r"\b(?:fp4|nvfp4|mxfp4)\b"), "fp4"),
]
#: Formats that name how the weights were quantised, so they win over a bare bit width
#: ("int4-gptq" is GPTQ; "4bit nf4" is NF4).
_SPECIFIC = ("gptq", "awq", "nf4")


def find_precision(low: str) -> tuple[str | None, str | None]:
    """(weight precision, KV-cache precision), normalised (see :class:`Query`).

    A quantisation method (GGUF quant, GPTQ, AWQ, NF4) wins over a bare bit width; otherwise
    the first precision mentioned wins ("bf16 -> fp16" is bf16).
    """
    kv = None
    kv_match = _KV.search(low)
    if kv_match:
        kv = (kv_match.group(1) or kv_match.group(2)).split("_")[0].replace("e4m3", "fp8").replace("e5m2", "fp8")
        low = low[:kv_match.start()] + " " * (kv_match.end() - kv_match.start()) + low[kv_match.end():]
    hits: list[tuple[int, str]] = []
    for pattern, value in _PRECISIONS:
        m = pattern.search(low)
        if m:
            hits.append((m.start(), value or m.group(1)))
    if not hits:
        return None, kv
    specific = [h for h in hits if h[1] in _SPECIFIC or _GGUF.match(h[1])]
    return min(specific or hits)[1], kv


_METHOD = [
    (re.compile(r"\bq-?lora\b"), "qlora"),
    (re.compile(r"\blora(?:'?d|s|'s)?\b|\bpeft\b"), "lora"),
    (re.compile(r"\bfull[\s-]*(?:param(?:eter)?s?[\s-]*)?(?:fine[\s-]?tun\w*|finetun\w*|ft|sft|training)\b"
                r"|全参|全量微调|\bfull ft\b"), "full"),
]


def find_method(low: str) -> str | None:
    """``qlora``, ``lora`` or ``full`` when the message names a fine-tuning method."""
    for pattern, value in _METHOD:
        if pattern.search(low):
            return value
    return None


# ------------------------------------------------------------------ context and tokens

_NUMK = r"\d+(?:\.\d+)?\s*k?"
_CONTEXT_AFTER = re.compile(
    r"(?:--max-model-len|max_model_len|max[-_ ]seq(?:uence)?[-_ ]len(?:gth)?|max_position_embeddings|n_ctx|num_ctx"
    r"|context[-_ ]length|context[-_ ]window|context|ctx|seq(?:uence)?[-_ ]len(?:gth)?|上下文(?:长度)?)"
    rf"\s*(?:of|=|:|is|to|at)?\s*({_NUMK})(?![\w.])"
)
_CONTEXT_BEFORE = re.compile(
    rf"(?<![\w.])({_NUMK})\s*(?:-\s*)?(?:tokens?\s*(?:of\s*)?)?(?:context|ctx|seq(?:uence)?\s*len(?:gth)?|上下文)"
)


def find_context(low: str) -> int | None:
    """Context length in tokens ("8k ctx", "--max-model-len 32768", "32k tokens context")."""
    after, before = _CONTEXT_AFTER.search(low), _CONTEXT_BEFORE.search(low)
    if after and before and after.start() < before.end():
        before = None  # "batch size 4 seq len 4096": the keyword belongs to the number after it
    hits = [m for m in (after, before) if m]
    if not hits:
        return None
    return token_count(min(hits, key=lambda m: m.start()).group(1))


_IO_PAIR = re.compile(
    rf"(?<![\w.])({_NUMK})\s*(?:tok(?:en)?s?\s*)?in(?:put)?\b(?:\s*(?:/|,|and|\+|&)\s*|\s+)({_NUMK})\s*(?:tok(?:en)?s?\s*)?"
    r"out(?:put)?\b"
)
_ISL = re.compile(rf"\b(?:isl|input[_ ]len(?:gth)?)\s*[=:]?\s*({_NUMK})\b")
_OSL = re.compile(rf"\b(?:osl|output[_ ]len(?:gth)?|max_new_tokens|max_tokens)\s*[=:]?\s*({_NUMK})\b")
_INPUT = re.compile(
    rf"(?<![\w.])({_NUMK})\s*(?:-\s*)?(?:tok(?:en)?s?\s*)?(?:prompts?|input)\b|\b(?:prompts?|input)\s*(?:of|=|:)\s*({_NUMK})\b"
)
_OUTPUT = re.compile(
    rf"(?<![\w.])({_NUMK})\s*(?:-\s*)?(?:tok(?:en)?s?\s*)?(?:output|completion|generated|new tokens)\b"
    rf"|\b(?:output|completion)s?\s*(?:of|=|:)\s*({_NUMK})\b"
)


def find_io_tokens(low: str) -> tuple[int | None, int | None]:
    """(input tokens, output tokens) per request ("500 tok in / 500 out", "isl 128 osl 128", "2k prompt")."""
    pair = _IO_PAIR.search(low)
    if pair:
        return token_count(pair.group(1)), token_count(pair.group(2))
    inp = _ISL.search(low) or _INPUT.search(low)
    out = _OSL.search(low) or _OUTPUT.search(low)
    return (
        token_count(next(g for g in inp.groups() if g)) if inp else None,
        token_count(next(g for g in out.groups() if g)) if out else None,
    )


# ------------------------------------------------------------------ load

_BATCH = re.compile(r"\b(?:micro[\s_-]?batch[\s_-]?size|batch[\s_-]?size|batch|bs|mbs)\s*(?:of|=|:|is)?\s*(\d{1,5})\b")
_USERS = re.compile(
    r"(?<![\w.$])(\d[\d,]*)\s*(k)?\+?\s*(?:concurrent|simultaneous|parallel|active)?\s*"
    r"(?:users|people|clients|sessions|concurrent requests|parallel requests|requests in flight|streams)\b"
    r"|\bconcurren(?:cy|t requests|t users)\s*(?:of|=|:|is)?\s*(\d{1,6})\b"
    r"|并发\s*(?:数|量)?\s*(?:为|是|:|=)?\s*(\d{1,6})|(\d{1,6})\s*(?:个|路)?\s*并发"
)
_SINGLE_USER = re.compile(r"\b(?:single|one|1)\s*(?:concurrent\s*)?user\b|\bconcurrency\s*(?:of\s*)?1\b|单用户")
_TOKS = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*-\s*\d+(?:\.\d+)?)?\s*(?:tok(?:en)?s?|t)\s*/\s*s(?:ec)?\b"
    r"|(?<![\w.])(\d+(?:\.\d+)?)\s*(?:tok(?:en)?s?)\s*(?:per|a)\s*sec(?:ond)?\b|(?<![\w.])(\d+(?:\.\d+)?)\s*tps\b"
)
_TOTAL_SCOPE = re.compile(r"\b(?:total|aggregate|overall|combined|system|throughput)\b|总|合计")
_USER_SCOPE = re.compile(r"\bper[\s-]?(?:user|request|stream)\b|\beach user\b|\bsingle (?:user|stream)\b|每个?用户|单用户")
_RPS = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:req(?:uest)?s?|queries|qps|rps)\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b"
    r"|(?<![\w.])(\d+(?:\.\d+)?)\s*(?:rps|qps)\b"
)


def find_load(low: str) -> dict:
    """Batch size, concurrent users, a tokens/s figure with its scope, and requests/s.

    Returns:
        A dict with any of ``batch_size``, ``concurrent_users``, ``target_tokens_per_s``,
        ``target_scope``, ``requests_per_s``.
    """
    out: dict = {}
    m = _BATCH.search(low)
    if m:
        out["batch_size"] = int(m.group(1))
    m = _USERS.search(low)
    if m:
        if m.group(1):
            value = int(m.group(1).replace(",", "")) * (1000 if m.group(2) else 1)
        else:
            value = int(next(g for g in m.groups()[2:] if g))
        if value > 0:
            out["concurrent_users"] = value
    elif _SINGLE_USER.search(low):
        out["concurrent_users"] = 1
    m = _TOKS.search(low)
    if m:
        out["target_tokens_per_s"] = float(next(g for g in m.groups() if g))
        window = low[max(0, m.start() - 40):m.end() + 40]
        out["target_scope"] = "total" if _TOTAL_SCOPE.search(window) and not _USER_SCOPE.search(window) else "per_user"
    m = _RPS.search(low)
    if m:
        out["requests_per_s"] = float(next(g for g in m.groups() if g))
    return out


# ------------------------------------------------------------------ training data

_TRAIN_TOKENS = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(m|b|t|million|billion|trillion)\s*tokens?\b(?!\s*(?:of\s*)?(?:context|ctx))"
)
_SCALE = {"m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9, "t": 1e12, "trillion": 1e12}
_SAMPLES = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(k|m)?\s*(?:instruction\s+|training\s+|chat\s+)?"
    r"(samples|examples|rows|conversations|instructions|documents|pairs)\b"
)


def find_training_tokens(low: str) -> tuple[float | None, list[str]]:
    """(training tokens, notes) from "on 300B tokens", "2T tokens"; samples only get a note."""
    notes = []
    m = _TRAIN_TOKENS.search(low)
    tokens = float(m.group(1)) * _SCALE[m.group(2)] if m else None
    s = _SAMPLES.search(low)
    if s and tokens is None:
        count = float(s.group(1)) * {"k": 1e3, "m": 1e6}.get(s.group(2) or "", 1)
        notes.append(f"{count:,.0f} {s.group(3)}: the token count needs an average length per sample.")
    return tokens, notes


# ------------------------------------------------------------------ durations

_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "twelve": 12,
              # small Chinese numerals, as in 三天 (three days), 两周 (two weeks), 十小时 (ten hours)
              "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
              "半": 0.5}
_DURATIONS: list[tuple[re.Pattern[str], float, str | None]] = [
    (re.compile(r"(?<![\w.$/])(\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b(?!\s*/)|(\d+(?:\.\d+)?|[一二两三四五六七八九十半])\s*(?:个)?小时"), 1.0, None),
    (re.compile(r"(?<![\w.$/])(\d+(?:\.\d+)?)\s*(?:min|mins|minutes)\b|(\d+)\s*分钟"), 1 / 60, None),
    (re.compile(r"(?<![\w.$/])(\d+(?:\.\d+)?)\s*(?:d|days?)\b|(\d+|[一二两三四五六七八九十半])\s*天"), 24.0, None),
    (re.compile(r"(?<![\w.$/])(\d+(?:\.\d+)?|an?|one|two|three|four|six)\s*(?:weeks?|wks?)\b|(\d+|[一二两三四五六七八九十])\s*(?:周|个?星期)"),
     168.0, None),
    (re.compile(r"(?<![\w.$/])(\d+(?:\.\d+)?|an?|one|two|three|six|twelve)\s*months?\b|(\d+)\s*个月"
                r"|(?:\bper|/|\ba)\s*(month)\b|\b(monthly)\b|每(月)"), 730.0,
     "A month is taken as 730 hours (365 x 24 / 12)."),
]


def find_durations(low: str) -> tuple[float | None, list[str]]:
    """(hours, notes) for the first duration stated ("3 days" -> 72, "72h", "3d", "a week", "1 month" -> 730)."""
    best: tuple[int, float, str | None] | None = None
    for pattern, hours, note in _DURATIONS:
        m = pattern.search(low)
        if m and (best is None or m.start() < best[0]):
            raw = next(g for g in m.groups() if g)
            value = 1 if raw in ("month", "monthly", "月") else _NUM_WORDS.get(raw)
            value = float(raw) if value is None else float(value)
            best = (m.start(), value * hours, note)
    if best is None or best[1] <= 0:
        return None, []
    return round(best[1], 4), [best[2]] if best[2] else []


# ------------------------------------------------------------------ money

_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)\s*(k|m)?"
_USD = re.compile(rf"(?:\$|\busd\s*|\bus\$)\s*{_AMOUNT}(?![\w.])|(?<![\w.]){_AMOUNT}\s*(?:usd|dollars|bucks)\b")
_PER_HOUR = re.compile(r"^\s*(?:/|per|an|a)\s*(?:gpu[\s-]?)?(?:h|hr|hour)\b|^\s*(?:hourly|/gpu[\s-]?h(?:ou)?r?)\b")
_BUDGET = re.compile(rf"\bbudget\s*(?:of|is|:|~|around|about|=)?\s*(?:\$|usd)?\s*{_AMOUNT}(?![\w.])")
_LIMIT_WORD = re.compile(r"(?:under|below|less than|at most|max(?:imum)?|<=?|up to|within|no more than|cheaper than)\s*$")
_CNY = re.compile(rf"[¥￥]\s*{_AMOUNT}|(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(万)?\s*(?:元|块钱|rmb|cny)")


def _amount(number: str, scale: str | None) -> float:
    return float(number.replace(",", "")) * {"k": 1e3, "m": 1e6}.get(scale or "", 1)


def find_money(low: str) -> dict:
    """Budget and hourly price limit in USD; CNY amounts are noted, not converted.

    A per-hour amount ("$2/hr") is a price limit when a limit word precedes it ("under") or
    it is the only amount in the message; several quoted prices ("$0.34/h vs $1.19") are
    only noted. Any other USD amount is a budget.

    Returns:
        A dict with any of ``budget_usd``, ``price_limit_per_hour_usd`` and ``notes``.
    """
    out: dict = {"notes": []}
    hourly: list[tuple[float, bool]] = []
    totals: list[float] = []
    for m in _USD.finditer(low):
        number, scale = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        value = _amount(number, scale)
        if _PER_HOUR.match(low[m.end():m.end() + 16]):
            hourly.append((value, bool(_LIMIT_WORD.search(low[max(0, m.start() - 14):m.start()]))))
        else:
            totals.append(value)
    budget = _BUDGET.search(low)
    if budget:
        out["budget_usd"] = _amount(budget.group(1), budget.group(2))
    elif totals and not hourly:
        out["budget_usd"] = totals[0]
    limited = [v for v, is_limit in hourly if is_limit]
    if limited:
        out["price_limit_per_hour_usd"] = limited[0]
    elif len(hourly) == 1 and not totals:
        out["price_limit_per_hour_usd"] = hourly[0][0]
    elif hourly or (totals and len(totals) > 1 and not budget):
        quoted = ", ".join(f"${v:g}" for v, _ in hourly) or ", ".join(f"${v:g}" for v in totals)
        out["notes"].append(f"Prices quoted in the question: {quoted} (taken as context, not as a limit).")
    cny = _CNY.search(low)
    if cny:
        number = cny.group(1) or cny.group(3)
        value = _amount(number, cny.group(2) if cny.group(1) else None) * (1e4 if cny.group(4) else 1)
        out["notes"].append(f"Amount in CNY noted (¥{value:,.0f}); not converted to USD.")
    return out


# ------------------------------------------------------------------ provider settings

_PRICING = [
    (re.compile(r"\b(?:spot|pre-?emptible|interruptible|preemptable)\b|抢占式|竞价"), "spot"),
    (re.compile(r"\b(?:reserved|reservation|commit(?:ment|ted)?|[13][\s-]?(?:year|yr)s?|savings plan)\b|包年|预留"),
     "commitment"),
    (re.compile(r"\bon[\s-]?demand\b|按需"), "on_demand"),
]


def find_pricing(low: str) -> str | None:
    """The first pricing model named: ``spot``, ``commitment`` or ``on_demand``."""
    hits = [(m.start(), value) for pattern, value in _PRICING if (m := pattern.search(low))]
    return min(hits)[1] if hits else None


_REGION = re.compile(
    r"\b(?:(?:us|eu|ap|sa|ca|me|af|il|mx)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d"
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|north|south|central|northeast"
    r"|southeast|northwest|southwest)\d"
    r"|(?:east|west|central|north|south|northcentral|southcentral|westcentral)(?:us|europe)\d?)\b"
)


def find_region(low: str) -> str | None:
    """A cloud region code (``us-east-1``, ``europe-west4``, ``eastus``)."""
    m = _REGION.search(low)
    return m.group(0) if m else None


_ENGINES = [
    (re.compile(r"\bvllm\b"), "vllm"),
    (re.compile(r"\btgi\b|text-generation-inference"), "tgi"),
    (re.compile(r"\btensorrt(?:[\s-]?llm)?\b|\btrt[\s-]?llm\b"), "tensorrt-llm"),
    (re.compile(r"\bllama[\s.-]?cpp\b"), "llama.cpp"),
    (re.compile(r"\bollama\b"), "ollama"),
    (re.compile(r"\bexllama(?:v2)?\b|\bexl2\b"), "exllama"),
    (re.compile(r"(?<![\w-])hf\b|\btransformers\b|\bhugging ?face\b|\bdevice_map\b"), "hf"),
]


def find_engine(low: str) -> str | None:
    """The first serving/training engine named (``vllm``, ``tgi``, ``tensorrt-llm``, ...)."""
    hits = [(m.start(), value) for pattern, value in _ENGINES if (m := pattern.search(low))]
    return min(hits)[1] if hits else None
