"""Numbers with meaning: every quantity in a message, read through the lexicon's units and key words.

One pass per kind of quantity, in this order (an earlier kind claims its span, so "$2/hr" is money and
never also a duration):

1. resolutions (``1024x1024``), then GPU-hours (``5,000 GPU-hours``, ``10k A100 hours``, ``5000卡时``);
2. money (``$5/hr``, ``under $300k``, ``5万元``, ``¥2.24/卡/小时``) with what it is: a price limit per hour
   or per GPU-hour, a budget, a purchase price, an electricity price;
3. rates (``2000 tok/s``, ``5 req/s``, ``100 requests per day``) with the scope of a tokens/s figure and whether
   the user saw it (``I get only 10 tok/s``: an observation, not a target), then times per item the user saw
   (``40s per image``);
4. latency limits (``ttft under 500ms``, ``p99 latency < 2s``);
5. prompt/output pairs (``500 in / 200 out``);
6. durations (``3 days``, ``a week``, ``一个月``, ``monthly``) as a rental length, a deadline or audio hours;
7. memory amounts (``18gb``), compute rates (``4000 TFLOPS``), ratios (``30x``, ``6倍``, ``twice``: quoted, or
   seen: ``3 times slower``), percentages, power (``700W``);
8. the counted and token quantities of ``quantities:`` in the lexicon (users, GPUs, nodes, batch, rank,
   steps, images, documents, epochs, context, input, output, training tokens), from a unit after the
   number or a key word before it; where several readings match, the longest phrase wins.

The scanner reports the spans it used; :func:`unclaimed_numbers` then lists every number no scanner
(and no name) used, which the answer reports as not understood. A quantity that is zero or negative
("0 gpus", "-5 users", "$-1/hr") is never used: it is set aside as ``rejected`` (reported as not
understood); one above its bound in :data:`QUANTITY_LIMITS` is set aside as ``over_limit`` (the answer
states the bound).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from bot.parsing.gpus import MAX_GPU_COUNT
from bot.parsing.lexicon import Lexicon, Phrases, phrase_key
from bot.parsing.numbers import number_regex, number_value
from bot.parsing.text import SpanSet

__all__ = ["QUANTITY_LIMITS", "Found", "QuantityScan", "scan_quantities", "unclaimed_numbers"]

#: Tokens in one request (context, prompt, output, per item): the longest context window in
#: knowledge/models.yaml as of 2026-12 (Llama 4 Scout, ``max_position_embeddings`` 10,485,760).
MAX_REQUEST_TOKENS = 10_485_760
#: The largest value of each quantity that is read (field or scanner kind -> bound, in the field's unit);
#: a larger one is set aside and the answer states the bound. Each is far beyond any real request, and
#: keeps every figure derived from it finite and every loop over it short (a 10^12-token prompt is
#: 10^8 prefill chunks):
#: GPUs: :data:`bot.parsing.gpus.MAX_GPU_COUNT`; nodes: that many GPUs in 8-GPU servers; users (sequences
#: in flight) and batch: 1,000,000 and 65,536; daily users: 10^10 (more than people on Earth) (vLLM's default ``max_num_seqs`` is 256); LoRA rank: 16,384,
#: the widest hidden size in the knowledge base (Llama 3.1 405B), past which a rank adds nothing;
#: diffusion steps: 1,000 (DDPM's whole schedule, Ho et al. 2020); epochs: 100,000; training tokens:
#: 10^15 (the largest published pretraining runs use ~36T tokens, Qwen3 2025); per-request tokens:
#: :data:`MAX_REQUEST_TOKENS`; durations: 1,000 years (no price or GPU generation lasts that long, so a
#: longer one can only be noise); money: 10^12 in any currency (above the largest announced AI
#: infrastructure plans, ~USD 500B in 2025); items and audio: 10^12 and 10^9 hours; GPU-hours: 10^12 (Llama 3.1
#: 405B took 3.08 x 10^7 H100 GPU-hours, its model card on huggingface.co/meta-llama; the largest count read for a
#: whole year is 2.3 x 10^9).
QUANTITY_LIMITS: dict[str, float] = {
    "gpu_count": MAX_GPU_COUNT, "node_count": MAX_GPU_COUNT // 8, "concurrent_users": 1_000_000,
    "daily_active_users": 10_000_000_000, "monthly_active_users": 10_000_000_000,
    "batch_size": 65_536, "lora_rank": 16_384, "steps": 1_000, "epochs": 100_000, "training_tokens": 1e15,
    "context_tokens": MAX_REQUEST_TOKENS, "input_tokens": MAX_REQUEST_TOKENS, "output_tokens": MAX_REQUEST_TOKENS,
    "tokens_per_item": MAX_REQUEST_TOKENS, "tokens_plain": MAX_REQUEST_TOKENS,
    "duration_hours": 8_760_000, "deadline_hours": 8_760_000, "period_hours": 8_760_000, "audio_hours": 1e9,
    "images": 1e12, "documents": 1e12, "money": 1e12, "gpu_hours": 1e12,
}

#: "一天", "一周": one unit of a period, before the hours used in it ("一天跑 6 个小时"), hours per unit.
_ONE_PERIOD_ZH = re.compile(r"(?:一|1)\s*(?:个)?\s*(?:天|日|周|星期)")
_ONE_PERIOD_ZH_HOURS = {"天": 24.0, "日": 24.0, "周": 168.0, "期": 168.0}

#: Characters between a key word and its number ("ctx: 8k", "batch size = 4").
_GAP = r"[\s:=~(]*"
_COUNT_FIELDS = ("concurrent_users", "daily_active_users", "monthly_active_users", "gpu_count", "node_count", "batch_size", "lora_rank", "steps", "images",
                 "documents", "epochs", "transistors", "days_used")
#: Counts whose unit holds a period word, read before durations ("5k daily active users", "users per day": the
#: "daily" is part of the unit, not a rental period).
_BEFORE_DURATIONS = ("daily_active_users", "monthly_active_users")
_TOKEN_FIELDS = ("tokens_per_item", "context_tokens", "input_tokens", "output_tokens", "training_tokens",
                 "tokens_plain")
_BINARY_K_FIELDS = {"context_tokens", "tokens_plain", "input_tokens", "output_tokens"}


@dataclass
class Found:
    """One quantity read from the text.

    Attributes:
        field: what it is (a :class:`~bot.parsing.query.Query` field name, or a scanner kind such as
            ``money``, ``duration``, ``rate``).
        value: the value in the field's unit (tokens, hours, ms, GB, a dict for money and rates).
        start, end: the span of the whole phrase in the lower-cased text.
    """

    field: str
    value: Any
    start: int
    end: int


@dataclass
class QuantityScan:
    """What :func:`scan_quantities` found: quantities by field, in order, and the spans they used.

    ``rejected`` holds quantities that are zero or negative, ``over_limit`` those above
    :data:`QUANTITY_LIMITS`; neither is used, and both spans are claimed so no other reading takes them.
    """

    found: list[Found] = field(default_factory=list)
    claimed: SpanSet = field(default_factory=SpanSet)
    text: str = ""
    rejected: list[Found] = field(default_factory=list)
    over_limit: list[Found] = field(default_factory=list)
    #: the lexicon's ask phrases in ``text``, found once (the scan and the router both read them)
    ask_matches: list[re.Match[str]] = field(default_factory=list)

    def first(self, name: str) -> Found | None:
        """The first quantity of ``name``, or ``None``."""
        return next((f for f in self.found if f.field == name), None)

    def all(self, name: str) -> list[Found]:
        """Every quantity of ``name``, in order of appearance."""
        return [f for f in self.found if f.field == name]


class _Scanner:
    def __init__(self, low: str, lex: Lexicon, masked: SpanSet):
        self.low = low
        self.lex = lex
        self.masked = masked
        self.out = QuantityScan(text=low, ask_matches=list(lex.asks.finditer(low)))
        self.num = number_regex(lex)

    # ------------------------------------------------------------------ helpers
    def free(self, start: int, end: int) -> bool:
        """No earlier scanner or name used any of ``[start, end)``."""
        return not any(p in self.masked or p in self.out.claimed for p in (start, end - 1)) and not any(
            s < end and start < e for s, e in self.out.claimed.spans())

    def claim(self, name: str, value: Any, start: int, end: int) -> None:
        """Record a quantity, or set it aside when it is zero, negative or above its bound."""
        size = _magnitude(value)
        if size is not None and not size > 0:
            self.out.rejected.append(Found(name, value, start, end))
        elif size is not None and size > QUANTITY_LIMITS.get(name, float("inf")):
            self.out.over_limit.append(Found(name, value, start, end))
        else:
            self.out.found.append(Found(name, value, start, end))
        self.out.claimed.add((start, end))

    def before(self, pos: int, width: int = 28) -> str:
        return self.low[max(0, pos - width):pos]

    def after(self, pos: int, width: int = 28) -> str:
        return self.low[pos:pos + width]

    def seen(self, start: int, end: int) -> str | None:
        """How the figure at ``[start, end)`` is said (lexicon ``observations``): ``"quoted"`` (someone else's figure),
        ``"observed"`` (the user saw it) or ``"target"`` (the user wants it), by the cue nearest before it in its
        clause; with none, ``"observed"`` when its sentence then asks whether it is normal; else ``None``."""
        lex = self.lex
        before_start = max(0, start - 80)
        # "," and "." inside a word or number ("qwen2.5", "5,000") end no clause
        ends = [i for i in range(start - 1, before_start - 1, -1) if self.low[i] == "\n" or (
            self.low[i] in lex.clause_ends and not (self.low[i] in ".," and self.low[i + 1:i + 2].isalnum()))]
        before = self.low[ends[0] + 1 if ends else before_start:start]
        # the nearest cue; of two ending together the longer ("i seem to get" over "to get")
        hits = [(m.end(), -m.start(), kind) for kind, phrases in (
            ("quoted", lex.quoted_figure), ("observed", lex.observed_before), ("target", lex.target_before))
            for m in phrases.finditer(before)]
        if hits:
            return max(hits)[2]
        after = re.split(r"[.?!;。？！；\n]", self.low[end:end + 80] + "\n", maxsplit=1)[0]
        if lex.observed_after.search(self.low[end:end + len(after) + 2]):
            return "observed"
        # "why is my L4 so slow with mistral, 6 tokens/s": called slow earlier in its sentence, with no cue of its own
        sentence = re.split(r"[?!;。？！；\n]|\.(?!\d)", self.low[before_start:start])[-1]
        return "observed" if lex.observed_after.search(sentence) else None

    def item_times(self) -> None:
        """A time per item the user saw ("it takes 40s per image", "800 ms per token", "一张图要 25 秒"): an
        observation (``observed_time``: seconds and what they are per). One said as a target ("need under 2s per
        image") is left unread, so the answer says it did not understand it."""
        lex = self.lex
        for pattern in _item_time_patterns(self.num, lex.latency_units.pattern, lex.per_item.pattern,
                                           lex.number_connectors.pattern):
            for m in pattern.finditer(self.low):
                if not self.free(m.start(), m.end()) or self.seen(m.start(), m.end()) == "target":
                    continue
                seconds = number_value(m, lex) * float(lex.latency_units.value(m.group("unit")) or 1) / 1000
                self.claim("observed_time", {"value": seconds, "item": lex.per_item.value(m.group("per"))},
                           m.start(), m.end())

    def ratio(self, m: re.Match[str]) -> None:
        """A multiplier ("3x", "3 times", "慢1倍"): a ratio the user saw (``observed_ratio``: one said with an
        observation cue, or a slowdown stated rather than asked; "N times slower" by N = 1 is twice as slow, "慢一倍")
        or else a ratio quoted to be checked (``multiplier``, ``Query.claimed_ratio``)."""
        lex = self.lex
        value = number_value(m, lex)
        direction_after, direction_before = _direction_patterns(lex.slower_words.pattern, lex.faster_words.pattern)
        after = direction_after.match(self.low[m.end():m.end() + 16])
        before = direction_before.search(self.before(m.start(), 8))
        said = (after or before).group(0).strip() if (after or before) else None
        direction = "slower" if said and lex.slower_words.fullmatch(said) else "faster" if said else None
        seen = self.seen(m.start(), m.end())
        clause = re.split(r"[,.;?!。，；？！\n]", self.before(m.start(), 24))[-1]
        if direction is None and lex.peak_words.search(clause) and value > 1:
            # "peak is 3x average", "高峰是平均的 5 倍": the busiest traffic over the day's average, not a claim
            self.claim("peak_factor", {"value": value}, m.start(), m.end())
            return
        # a slowdown said as a statement ("the L4 is 3x slower than the A10 for mistral") is a complaint about what the
        # user sees; asked ("is the H20 10x slower?") it is a claim to check
        rest = self.low[m.end():m.end() + 80]
        clause_end = next((c for c in rest if c in self.lex.clause_ends or c in ":\n"), "")
        if seen == "observed" or (seen is None and direction == "slower" and clause_end not in ("?", "？")):
            self.claim("observed_ratio", {"value": 2.0 if value == 1 and direction else value, "direction": direction},
                       m.start(), m.end() + (after.end() if after else 0))
        else:
            self._claimed_ratio(value, direction, m.start(), m.end())

    def _claimed_ratio(self, value: float, direction: str | None, start: int, end: int) -> None:
        """A ratio quoted to be checked (``multiplier``): its value, direction and bound ("more than twice", "一倍多":
        ``more_than``; "2 倍以下": ``less_than``). Said with a direction, a ratio of 1 is faster or slower by 100%
        ("快一倍"), so 2, as for a ratio seen."""
        lex = self.lex
        bound = "about"
        before = self.before(start, 14)
        after = self.low[end:end + 8]
        if re.search(rf"(?:{lex.more_than_before.pattern})\s*$", before) or re.match(
                rf"\s*(?:{lex.more_than_after.pattern})", after):
            bound = "more_than"
        elif re.search(rf"(?:{lex.less_than_before.pattern})\s*$", before) or re.match(
                rf"\s*(?:{lex.less_than_after.pattern})", after):
            bound = "less_than"
        self.claim("multiplier", {"value": 2.0 if value == 1 and direction else value, "direction": direction,
                                  "bound": bound}, start, end)

    def ratio_words(self) -> None:
        """A ratio written as a word ("twice the bandwidth", "显存翻倍"): quoted to be checked (``multiplier``)."""
        for m in self.lex.multiplier_words.finditer(self.low):
            if self.free(m.start(), m.end()):
                self._claimed_ratio(float(self.lex.multiplier_words.value(m.group(0))), None, m.start(), m.end())

    # ------------------------------------------------------------------ 1. resolution
    def resolutions(self) -> None:
        for m in _RESOLUTION.finditer(self.low):
            if self.free(m.start(), m.end()):
                self.claim("resolution", [int(m.group(1)), int(m.group(2))], m.start(), m.end())
        for m in re.finditer(r"(?<![\w.])(\d{3,4})\s*px\b", self.low):
            if self.free(m.start(), m.end()):
                self.claim("resolution", [int(m.group(1)), int(m.group(1))], m.start(), m.end())

    # ------------------------------------------------------------------ 2. money
    def money(self) -> None:
        lex = self.lex
        pats = _money_patterns(self.num, number_regex(lex, guarded=False), lex.currency_before.pattern,
                               lex.currency_after.pattern)
        for pattern in pats:
            for m in pattern.finditer(self.low):
                start, end = m.start(), m.end()
                if not self.free(start, end):
                    continue
                if pattern is pats[0] and re.search(r"\d\s*$", self.low[max(0, start - 4):start]):
                    continue  # "2.24 美元一小时": the currency word is the unit of the number before it, not a sign
                currency = lex.currency_before.value(m.group("cur")) or lex.currency_after.value(m.group("cur"))
                amount = number_value(m, lex)
                tail = self.low[end:end + 24]
                period, per_gpu = None, False
                lead_month = re.search(r"(?:" + lex.per_month.pattern + r")\s*(?:" + lex.budget_words.pattern +
                                       r")?\s*$", self.before(start, 14))
                if lead_month and self.free(lead_month.start() + start - len(self.before(start, 14)), start):
                    period = "month"  # "每个月预算 5 万", "monthly budget $3k": the period said before the amount
                lead = re.search(r"(?:" + lex.per_hour.pattern + r")\s*(?:(?:" + lex.lead_fillers.pattern + r")\s*)?$",
                                 self.before(start, 20))
                if lead and self.free(lead.start() + start - len(self.before(start, 20)), start):
                    # "每小时 20 元", "每卡每小时 8 块钱", "hourly $3", "每小时只要 2.24 美元": the period said first
                    period = "hour"
                    said = re.match(r"(?:" + lex.per_hour.pattern + ")", lead.group(0))
                    per_gpu = bool(said and lex.per_gpu_hour_marker.fullmatch(said.group(0).strip()))
                    start -= len(self.before(start, 20)) - lead.start()
                for kind, phrases in (("kwh", lex.per_kwh), ("hour", lex.per_hour), ("month", lex.per_month)):
                    pm = re.match(r"\s*(?:" + phrases.pattern + ")", tail) if period is None else None
                    if pm:
                        period = kind
                        per_gpu = bool(lex.per_gpu_hour_marker.fullmatch(pm.group(0).strip())) or bool(
                            re.match(r"\s*(?:" + lex.per_gpu_hour_marker.pattern + ")", tail))
                        end += pm.end()
                        after = re.match(r"\s*(?:" + lex.per_gpu_after.pattern + ")", self.low[end:end + 14])
                        if kind == "hour" and after:
                            per_gpu = True
                            end += after.end()
                        break
                if period is None:
                    each = re.match(r"\s*(?:" + lex.per_gpu_after.pattern + ")", self.low[end:end + 14])
                    if each:  # "$1,800 each", "1.5万一张": an amount per card (a purchase price per GPU)
                        per_gpu = True
                        end += each.end()
                    elif re.search(r"(?:" + lex.per_gpu_before.pattern + r")\s*(?:(?:" + lex.lead_fillers.pattern
                                   + r")\s*)?$", self.before(start, 16)):
                        per_gpu = True  # "每张 20 万元", "per card $25k": the card's price, said before the amount
                prev = next((f for f in reversed(self.out.found) if f.field == "money"), None)
                if period is None and prev is not None and prev.value["period"] and re.fullmatch(
                        r"[^$¥€\d]{0,40}?(?:vs\.?|versus|or|/|,|and|对比|还是|比)[^$¥€\d]{0,30}", self.low[prev.end:start]):
                    period, per_gpu = prev.value["period"], prev.value["per_gpu"]  # "$0.34/h vs $1.19"
                window = self.before(start, 36)
                role = "amount"
                spent = re.search(r"(?:" + lex.spend_modals.pattern + r")\s*$", self.before(start, 12)) and \
                    re.match(r"\s*(?:" + lex.spend_verbs.pattern + ")", self.low[end:end + 14])
                if period == "kwh":
                    role = "electricity"
                elif spent and period is None:
                    role = "budget"  # "how many H100 hours can $1000 buy": the money spent, not a machine's price
                elif lex.purchase_words.search(self.before(start, 48)) or lex.purchase_words.search(
                        self.after(end, 24)):
                    role = "purchase" if period is None else "price"
                elif period in ("hour", "month"):
                    limit_after = re.match(r"\s*(?:" + lex.limit_words.pattern + ")", self.low[end:end + 8])
                    role = "limit" if re.search(lex.limit_words.pattern + r"\s*$", window) or limit_after or (
                        lex.budget_words.search(window)) else "price"
                    if period == "hour" and not limit_after and not re.search(
                            lex.limit_words.pattern + r"\s*$", window) and re.search(
                            r"(?:" + lex.given_words.pattern + r")[^$¥€。，,;:：]{0,16}$", window):
                        # "at $2/hr", "按每卡每小时 15 块算": the price to compute with (a budget said earlier is
                        # another amount)
                        role = "given"
                    if limit_after:
                        end += limit_after.end()
                elif lex.budget_words.search(window) or re.search(lex.limit_words.pattern + r"\s*$", window):
                    role = "budget"
                if role in ("amount", "price") and lex.quoted_words.search(self.before(start, 24)):
                    role = "quoted"  # "广告说 2.24 美元每卡时": a figure being checked, not the user's money
                self.claim("money", {"amount": amount, "currency": currency, "period": period,
                                     "per_gpu": per_gpu, "role": role}, start, end)

    def bare_budgets(self) -> None:
        """"budget 10k", "budget of 5000", "预算5万", "预算每月20万": a budget word before a number with no currency (the
        parser gives it the currency of the question's language); a month said between them makes it a monthly
        budget."""
        pattern = re.compile(rf"(?:{self.lex.budget_words.pattern})\s*(?P<month>(?:{self.lex.per_month.pattern})\s*)?"
                             rf"(?:of|is|=|:|~|around|about)?\s*{self.num}")
        unit = _any_unit(self.lex)
        stop = "|".join(sorted({re.escape(w) for _, never in self.lex.quantity_describers.values() for w in never}))
        for m in pattern.finditer(self.low):
            if unit.match(self.low, m.end()) or _described_unit(unit.pattern, stop).match(self.low, m.end()):
                continue  # "i have 2 gpus", "spend 3 days", "we have 2000 registered users": a count, not money
            if self.free(m.start("num"), m.end()):
                self.claim("money", {"amount": number_value(m, self.lex), "currency": None,
                                     "period": "month" if m.group("month") else None,
                                     "per_gpu": False, "role": "budget"}, m.start(), m.end())

    def bare_purchases(self) -> None:
        """"买8张4090大概15万", "整机报价120万": a purchase word, then (within a short clause) an amount with no currency
        and no unit: the purchase price, in the currency of the question's language (the parser gives it)."""
        number = _number_pattern(self.num)
        unit = _any_unit(self.lex)
        for pm in re.finditer(self.lex.purchase_words.pattern, self.low):
            window_end = min(len(self.low), pm.end() + 24)
            for m in number.finditer(self.low, pm.end(), window_end):
                if self.low[pm.end():m.start()].strip() and re.search(r"[。，,;；？?!！]", self.low[pm.end():m.start()]):
                    break  # another clause
                if not self.free(m.start(), m.end()) or unit.match(self.low, m.end()):
                    continue  # "买8张": a count
                value = number_value(m, self.lex)
                if value < 100:
                    continue  # no machine or card costs under 100 in any currency read here
                each = re.match(r"\s*(?:" + self.lex.per_gpu_after.pattern + ")", self.low[m.end():m.end() + 14])
                self.claim("money", {"amount": value, "currency": None, "period": None, "per_gpu": bool(each),
                                     "role": "purchase"}, m.start(), m.end() + (each.end() if each else 0))
                break

    def bare_card_prices(self) -> None:
        """"20万一张", "每张 20 万": an amount with no currency said per card, in a question that says buying: the price
        of one card, in the currency of the question's language (the parser gives it)."""
        lex = self.lex
        if not lex.purchase_words.search(self.low):
            return
        number = _number_pattern(self.num)
        unit = _any_unit(lex)
        for m in number.finditer(self.low):
            if not self.free(m.start(), m.end()) or unit.match(self.low, m.end()):
                continue
            value = number_value(m, lex)
            if value < 100:
                continue  # no card costs under 100 in any currency read here (and "2 张" is a count)
            each = re.match(r"\s*(?:" + lex.per_gpu_after.pattern + ")", self.low[m.end():m.end() + 14])
            before = re.search(r"(?:" + lex.per_gpu_before.pattern + r")\s*(?:(?:" + lex.lead_fillers.pattern
                               + r")\s*)?$", self.before(m.start(), 16))
            if each or before:
                self.claim("money", {"amount": value, "currency": None, "period": None, "per_gpu": True,
                                     "role": "purchase"}, m.start(), m.end() + (each.end() if each else 0))

    # ------------------------------------------------------------------ 3. rates
    def rates(self) -> None:
        lex = self.lex
        self._per_user_day_rates()
        pattern = _unit_pattern(self.num, lex.rates.pattern)
        for m in pattern.finditer(self.low):
            if not self.free(m.start(), m.end()):
                continue
            kind = lex.rates.value(m.group("unit"))
            value = number_value(m, lex)
            if kind in _TOKEN_RATE_SECONDS:  # "1M tokens per minute": a tokens/s rate written per minute or hour
                value, kind = value / _TOKEN_RATE_SECONDS[kind], "tokens_per_s"
            scope = None
            unit_text = phrase_key(m.group("unit"))
            if kind == "tokens_per_s":
                scope = "per_user" if unit_text.endswith("/user") else self.rate_scope(m.start(), m.end())
            elif kind == "requests_per_day":
                # "each sends ~20 messages a day": each user's rate, not the whole service's
                clause = re.split(r"[,.;:?!。，；：？！\n]", self.low[max(0, m.start() - 30):m.start()])[-1]
                if lex.per_user_day_words.search(clause) or lex.per_user_words.search(clause):
                    scope = "per_user"
            seen, measured = self.seen(m.start(), m.end()), False
            if kind == "tokens_per_s":
                label = self.tool_label(m.start())
                if label == "prefill":  # "Avg prompt throughput: 102.2 tokens/s": a prefill speed, no generation one
                    kind, seen = "prefill_tokens_per_s", "observed"
                elif label == "measured":  # "eval rate: 6.149 tokens/s": the tool's own measurement
                    seen, measured = "observed", True
            self.claim("rate", {"kind": kind, "value": value, "scope": scope, "seen": seen, "measured": measured},
                       m.start(), m.end())
        # "20 SDXL images/min", "500 flux images per hour": a model's name between the number and an image rate
        named = _named_unit_pattern(self.num, lex.rates.pattern)
        for n in _number_pattern(self.num).finditer(self.low):
            m = named.match(self.low, n.start())
            if m is None or not (kind := lex.rates.value(m.group("unit")) or "").startswith("images_per"):
                continue
            if all(p in self.masked for p in range(m.start("name"), m.end("name"))) and \
                    self.free(m.start(), m.start("name")) and self.free(m.end("name"), m.end()):
                self.claim("rate", {"kind": kind, "value": number_value(m, lex), "scope": None,
                                    "seen": self.seen(m.start(), m.end())}, m.start(), m.end())
        if lex.per_day_before.pattern != "(?!)":
            # "每人每天 10 轮对话": each user's requests a day, written key first
            per_day = re.compile(rf"(?:{lex.per_day_before.pattern})\s*(?:(?:{lex.day_fillers.pattern})\s*)*{self.num}\s*"
                                 rf"(?:{lex.day_nouns.pattern})")
            for m in per_day.finditer(self.low):
                if self.free(m.start(), m.end()):
                    self.claim("rate", {"kind": "requests_per_day", "value": number_value(m, lex), "scope": "per_user"},
                               m.start(), m.end())
        if lex.service_day_before.pattern != "(?!)":
            # "每天 1 万次对话": the whole service's requests a day, written key first
            service_day = _key_first_day(lex.service_day_before.pattern, lex.day_fillers.pattern, self.num,
                                         lex.day_nouns.pattern)
            for m in service_day.finditer(self.low):
                if self.free(m.start(), m.end()):
                    self.claim("rate", {"kind": "requests_per_day", "value": number_value(m, lex), "scope": None},
                               m.start(), m.end())
            if lex.image_day_nouns.pattern != "(?!)":
                # "每天要出 10 万张": pictures a day, a service's rate
                image_day = _key_first_day(lex.service_day_before.pattern, lex.day_fillers.pattern, self.num,
                                           lex.image_day_nouns.pattern)
                for m in image_day.finditer(self.low):
                    if self.free(m.start(), m.end()):
                        self.claim("rate", {"kind": "images_per_day", "value": number_value(m, lex), "scope": None,
                                            "seen": "target"}, m.start(), m.end())
        self._results_per_setup()
        # key first: "QPS 5", "qps=20", "rps: 3"; "每秒 5 个请求", "5 requests every second"
        conn = lex.number_connectors.pattern
        key_first = re.compile(rf"(?P<unit>{lex.rates.pattern})(?:[\s:=]*(?:{conn}))*[\s:=]*{self.num}")
        for m in key_first.finditer(self.low):
            kind = lex.rates.value(m.group("unit"))
            if kind and kind.startswith("requests") and self.free(m.start(), m.end()):
                self.claim("rate", {"kind": kind, "value": number_value(m, lex), "scope": None}, m.start(), m.end())
        nouns, seen_cue = lex.request_nouns.pattern, lex.observed_before.pattern
        for before, seconds in ((lex.per_second_before, 1), (lex.per_minute_before, 60), (lex.per_hour_before, 3600)):
            if before.pattern == "(?!)":
                continue
            per = before.pattern
            # "每秒输出10个token", "每分钟 30万 token": tokens per period written around the number; "每秒只有 2 个
            # token": what the user saw
            target_cue = lex.target_before.pattern  # "每秒至少 20 个 token": a target written inside the phrase
            for m in re.finditer(rf"(?:{per})\s*(?P<cue>{seen_cue})?\s*(?:{target_cue})?\s*(?:输出|生成|吐|出)?\s*"
                                 rf"{self.num}\s*个?\s*tokens?(?![a-z])", self.low):
                if self.free(m.start(), m.end()):
                    scope = self.rate_scope(m.start(), m.end())
                    seen = "observed" if m.group("cue") else self.seen(m.start(), m.end())
                    self.claim("rate", {"kind": "tokens_per_s", "value": number_value(m, lex) / seconds,
                                        "scope": scope, "seen": seen}, m.start(), m.end())
            for around in (re.compile(rf"(?:{per})\s*{self.num}\s*(?:{nouns})"),
                           re.compile(rf"{self.num}\s*(?:{nouns})\s*(?:{per})")):
                for m in around.finditer(self.low):
                    if self.free(m.start(), m.end()):
                        self.claim("rate", {"kind": "requests_per_s", "value": number_value(m, lex) / seconds,
                                            "scope": None}, m.start(), m.end())
            if lex.image_nouns:
                # "每分钟 30 张图", "每小时出 600 张": images per period written around the number, read as images/min
                images = lex.image_nouns.pattern
                for around in (re.compile(rf"(?:{per})\s*(?:生成|出图|出)?\s*{self.num}\s*(?:{images})"),
                               re.compile(rf"{self.num}\s*(?:{images})\s*(?:{per})")):
                    for m in around.finditer(self.low):
                        if self.free(m.start(), m.end()):
                            self.claim("rate", {"kind": "images_per_min", "value": number_value(m, lex) * 60 / seconds,
                                                "scope": None, "seen": self.seen(m.start(), m.end())},
                                       m.start(), m.end())

    def tool_label(self, start: int) -> str | None:
        """The label printed right before the tokens/s figure at ``start`` (lexicon ``observations.prefill`` and
        ``observations.measured``): ``"prefill"`` for a prompt-processing speed ("Avg prompt throughput: 102.2
        tokens/s", "prompt eval rate: 900 tokens/s", "prefill at 3000 tok/s"), ``"measured"`` for a generation speed a
        tool printed after a colon or "=" ("eval rate: 6.15 tokens/s", "Avg generation throughput: 2.2 tokens/s"),
        else ``None``."""
        lex = self.lex
        before = self.low[max(0, start - 48):start]
        approx = rf"(?:(?:{lex.approx_words.pattern})\s*)?"
        if lex.prefill_before.pattern != "(?!)" and re.search(
                rf"(?:{lex.prefill_before.pattern})\s*(?:[:=：]|of|at|is|was)?\s*{approx}$", before):
            return "prefill"
        if lex.measured_before.pattern != "(?!)" and re.search(
                rf"(?:{lex.measured_before.pattern})\s*[:=：]\s*{approx}$", before):
            return "measured"
        return None

    def _per_user_day_rates(self) -> None:
        """"15 messages each per day", "10 queries per person a day", "20 prompts a day each": a count of requests
        (lexicon ``traffic.day_nouns``), a word saying whose (``traffic.per_user_words``) before or after a period of
        one day (``durations.periods`` of 24 h): each user's requests a day, whatever the order of the words."""
        lex = self.lex
        days = _ONE_DAY.get(id(lex))
        if days is None:  # built once per lexicon: the phrase tables are fixed once loaded
            found = [p for p in lex.duration_periods.phrases if float(lex.duration_periods.value(p) or 0) == 24]
            days = _ONE_DAY[id(lex)] = Phrases(dict.fromkeys(found, 24)).pattern if found else ""
        if not days or lex.day_nouns.pattern == "(?!)" or lex.per_user_day_words.pattern == "(?!)":
            return
        pattern = _per_user_day_pattern(self.num, lex.day_nouns.pattern, lex.per_user_day_words.pattern, days)
        for m in pattern.finditer(self.low):
            if (m.group("who") or m.group("who2")) and self.free(m.start(), m.end()):
                self.claim("rate", {"kind": "requests_per_day", "value": number_value(m, lex), "scope": "per_user"},
                           m.start(), m.end())
        daily = lex.quantity_units.get("daily_active_users")
        if daily is not None and daily.search(self.low):
            # "5k daily users, ~15 messages each": beside a user base counted per day, each user's count is a day's
            each = _per_user_count_pattern(self.num, lex.day_nouns.pattern, lex.per_user_day_words.pattern)
            for m in each.finditer(self.low):
                if self.free(m.start(), m.end()):
                    self.claim("rate", {"kind": "requests_per_day", "value": number_value(m, lex),
                                        "scope": "per_user"}, m.start(), m.end())

    def rate_scope(self, start: int, end: int) -> str | None:
        """Whether the tokens/s figure at ``[start, end)`` of the lower-cased text is per user (``"per_user"``), in
        all (``"total"``) or unsaid (``None``): the scope word (lexicon ``per_user_words``, ``aggregate_words``)
        nearest the figure within 40 characters, in its own clause when the clause has one, so "300 tok/s in
        total, 20 per user" gives each figure its own scope."""
        lo, hi = max(0, start - 40), min(len(self.low), end + 40)
        breaks = [b.end() for b in _SCOPE_CLAUSE.finditer(self.low, lo, hi)]
        clause_lo = max((b for b in breaks if b <= start), default=lo)
        clause_hi = min((b - 1 for b in breaks if b > end), default=hi)
        best: tuple[int, str] | None = None
        for a, b in ((clause_lo, clause_hi), (lo, hi)):
            for words, scope in ((self.lex.per_user_words, "per_user"), (self.lex.aggregate_words, "total")):
                for w in words.regex.finditer(self.low, a, b):
                    if start <= w.start() < end:
                        continue  # (inside the figure itself)
                    distance = start - w.end() if w.end() <= start else w.start() - end
                    if best is None or distance < best[0]:
                        best = (distance, scope)
            if best is not None:
                return best[1]
        return None

    def _results_per_setup(self) -> None:
        """"On CPU, 8 tokens/s; on Apple M1, 20 tokens/s; on 8 x P6000, cc 6.1, 40 tokens/s": two or more tokens/s
        figures with no cue, each alone in its clause in a sentence (or a ";" or ":" part) that opens with a setup word
        (lexicon ``observations.setup_before``), are results listed per setup: seen, not targets."""
        listed = []
        for f in self.out.all("rate"):
            if f.value["kind"] != "tokens_per_s" or f.value.get("seen") is not None:
                continue
            sentence = re.split(r"[.?!;:。？！；：\n](?!\d)", self.low[max(0, f.start - 80):f.start])[-1]
            clauses = re.split(r"[,，]", sentence)
            if len(clauses) >= 2 and not clauses[-1].strip() and re.match(
                    rf"\s*(?:{self.lex.setup_before.pattern})\b", sentence):
                listed.append(f)
        if len(listed) >= 2:
            for f in listed:
                f.value["seen"] = "observed"

    # ------------------------------------------------------------------ 4. latency
    def latency(self) -> None:
        lex = self.lex
        key, unit = lex.latency_keys.pattern, lex.latency_units.pattern
        conn = lex.number_connectors.pattern
        key_first = re.compile(
            rf"(?P<key>{key})(?:\s*(?P<key2>{key}))?(?:[\s:=]*(?:{conn}))*[\s:=]*{self.num}\s*(?P<unit>{unit})")
        unit_first = re.compile(rf"{self.num}\s*(?P<unit>{unit})\s*(?:of\s+|的)?(?P<key>{key})")
        for pattern in (key_first, unit_first):
            for m in pattern.finditer(self.low):
                if not self.free(m.start(), m.end()):
                    continue
                kind = lex.latency_keys.value(m.group("key"))
                second = m.groupdict().get("key2")
                if second and kind == "latency_ms":  # "p95 ttft < 500ms": the percentile of a TTFT limit
                    kind = lex.latency_keys.value(second) or kind
                ms = number_value(m, lex) * float(lex.latency_units.value(m.group("unit")) or 1)
                pct = None
                for word in re.findall(r"p\d{2,3}|median", self.low[max(0, m.start() - 16):m.end()]):
                    pct = lex.percentiles.get(word, pct)
                self.claim("latency", {"kind": kind, "ms": ms, "percentile": pct}, m.start(), m.end())

    # ------------------------------------------------------------------ 5. prompt / output pairs
    def io_pairs(self) -> None:
        pattern = _io_pattern(self.num)
        for m in pattern.finditer(self.low):
            if not self.free(m.start(), m.end()):
                continue
            first = _NUMK.match(m.group("a"))
            second = _NUMK.match(m.group("b"))
            if first and second:
                self.claim("input_tokens", _k_tokens(first), m.start("a"), m.end("a"))
                self.claim("output_tokens", _k_tokens(second), m.start("b"), m.end())

    # ------------------------------------------------------------------ 1b. GPU-hours
    def gpu_hours(self) -> None:
        """GPU time as a quantity: a number with a GPU-hour unit ("5,000 GPU-hours", "5000卡时"), or with a GPU's (or
        model's) name between it and a GPU-hour or hour unit ("10k A100 hours", "5,000 H100 GPU-hours"): GPU-hours,
        never a wall clock."""
        lex = self.lex
        units = lex.quantity_units.get("gpu_hours")
        if not units:
            return
        for m in _unit_pattern(self.num, units.pattern).finditer(self.low):
            if self.free(m.start(), m.end()):
                self.claim("gpu_hours", number_value(m, lex), m.start(), m.end())
        named = _named_unit_pattern(self.num, f"{units.pattern}|{lex.hour_units.pattern}", lex.counter_pattern)
        for n in _number_pattern(self.num).finditer(self.low):  # from each number ("a 7b model on 300 h100 hours")
            m = named.match(self.low, n.start())
            if m is not None and all(p in self.masked for p in range(m.start("name"), m.end("name"))) and \
                    self.free(m.start(), m.start("name")) and self.free(m.end("name"), m.end()):
                self.claim("gpu_hours", number_value(m, lex), m.start(), m.end())

    # ------------------------------------------------------------------ 6. durations
    def durations(self) -> None:
        lex = self.lex
        words = lex.number_words.pattern
        # spaced or hyphenated: "3 days", "a 10-day run", "a 4-hour window"
        pattern = re.compile(rf"(?:{self.num}|(?P<word>{words}))\s*(?:-\s*)?(?P<unit>{lex.duration_units.pattern})")
        for m in pattern.finditer(self.low):
            if not self.free(m.start(), m.end()):
                continue
            if m.group("word") is not None:
                value = float(lex.number_words.value(m.group("word")))
            else:
                value = number_value(m, lex)
            hours = value * float(lex.duration_units.value(m.group("unit")))
            start, end = m.start(), m.end()
            if hours <= 0:
                self.claim("duration_hours", hours, start, end)  # set aside: "for -3 days", "0 hours"
                continue
            if value == 1 and _ONE_PERIOD_ZH.fullmatch(self.low[start:end].strip()) and re.match(
                    rf"\s*(?:(?:{lex.usage_fillers.pattern})\s*)*{self.num}", self.low[end:end + 14]):
                continue  # "一天跑 6 个小时": the day is the period of the hours that follow, not a length of time
            if value == 1 and lex.rate_ask_after.pattern != "(?!)" and re.match(
                    rf"\s*(?:{lex.rate_ask_after.pattern})", self.low[end:end + 12]):
                # "一分钟能出几张": the period of the rate asked, not a job's length or deadline
                self.claim("period_hours", hours, start, end)
                continue
            audio = re.match(r"\s*(?:" + lex.audio_after_duration.pattern + ")", self.low[end:end + 20])
            if audio:
                self.claim("audio_hours", hours, start, end + audio.end())
                continue
            before = self.before(start, 20)
            share = self._share_of_period(hours, start, end)
            if share is not None:  # "8 hours a day", "每天用 8 小时": how much of the time it is used
                self.claim("utilization_pct", share[0], share[1], share[2])
                continue
            deadline = re.search(r"(?:" + lex.deadline_words.pattern + r")\s*$", before)
            after_zh = re.match(r"\s*(?:以内|之内|内完成|内)", self.low[end:end + 6])
            self.claim("deadline_hours" if deadline or after_zh else "duration_hours", hours, start, end)
        for m in lex.deadline_phrases.finditer(self.low):
            # "by tomorrow", "overnight", "明天之前": a deadline with no number (lexicon ``deadline_phrases``)
            if self.free(m.start(), m.end()):
                self.claim("deadline_phrase", {"hours": float(lex.deadline_phrases.value(m.group(0))),
                                               "written": self.low[m.start():m.end()]}, m.start(), m.end())
        for m in lex.duration_periods.finditer(self.low):
            if self.free(m.start(), m.end()):
                self.claim("period_hours", float(lex.duration_periods.value(m.group(0))), m.start(), m.end())

    def _share_of_period(self, hours: float, start: int, end: int) -> tuple[float, int, int] | None:
        """(percent, start, end) when a length of time is said per a longer period ("8 hours a day", "40h per
        week", "每天 8 小时", "一天用 12 个小时"): the share of that period the hardware is used, else ``None``."""
        periods = self.lex.duration_periods
        after = re.match(rf"\s*(?:{periods.pattern})", self.low[end:end + 14])
        if after:
            period = float(periods.value(after.group(0).strip()) or 0)
            span = (start, end + after.end())
        else:
            before = re.search(rf"(?P<period>{periods.pattern}|{_ONE_PERIOD_ZH.pattern})\s*"
                               rf"(?:(?:{self.lex.usage_fillers.pattern})\s*)*$", self.before(start, 14))
            if not before:
                return None
            word = before.group("period").strip()
            period = float(periods.value(word) or _ONE_PERIOD_ZH_HOURS.get(word[-1:], 0))
            span = (start - len(self.before(start, 14)) + before.start(), end)
        if not 0 < hours < period or period < 24:
            return None
        return hours / period * 100, span[0], span[1]

    # ------------------------------------------------------------------ 7. memory, ratios, percents, power
    def _keyed_number_after(self, pos: int) -> bool:
        """Whether a bare number follows ``pos`` (a word that is both a unit and a key, "输出"), one with no unit of
        another quantity after it ("输出300 token" yes; "上下文 20 条序列", "4k seq 2x 3090" no): the word is then
        the key of that number, not the unit of the one before."""
        m = _after_key_number(self.num).match(self.low, pos)
        if m is None:
            return False
        rest = self.low[m.end():m.end() + 16]
        if re.match(r"\s*(?:x|×|\*)", rest):
            return False  # "2x 3090": a count
        unit = _any_unit(self.lex).match(rest)
        return unit is None or bool(re.match(r"\s*-?\s*(?:tokens?|tok|个token|个 token)(?![a-z])", rest))

    def units(self) -> None:
        lex = self.lex
        for name, phrases in (("bandwidth_gb_s", lex.bandwidth_units), ("compute_tflops", lex.compute_units),
                              ("memory_gb", lex.memory_units),
                              ("memory_gb", lex.memory_scaled_units), ("multiplier", lex.multiplier_units),
                              ("percent", lex.percent_units), ("power_watts", lex.power_units)):
            for m in _unit_pattern(self.num, phrases.pattern).finditer(self.low):
                if not self.free(m.start(), m.end()):
                    continue
                if m.group("unit") in lex.scales and re.match(lex.counter_pattern,
                                                              self.low[m.end():m.end() + 6].lstrip()):
                    continue  # "1w条": a scale before a counter ("1w" = 10,000), not a unit
                if name == "multiplier":
                    self.ratio(m)
                    continue
                value = number_value(m, lex)
                scale = phrase_key(m.group("scale") or "")
                if name == "memory_gb" and scale in lex.memory_scale_prefixes:
                    # "0.5T 显存": the scale letter is a byte prefix here (TB), not "trillion" GB
                    value = value / lex.scales.get(scale, 1.0) * lex.memory_scale_prefixes[scale]
                if name in ("power_watts", "bandwidth_gb_s", "compute_tflops") or phrases is lex.memory_scaled_units:
                    value *= float(phrases.value(m.group("unit")) or 1)
                self.claim(name, value, m.start(), m.end())

    # ------------------------------------------------------------------ 8. counted and token quantities
    def counted(self, fields: tuple[str, ...] = (*_COUNT_FIELDS, *_TOKEN_FIELDS)) -> None:
        lex = self.lex
        candidates: list[tuple[int, int, str, float, int, int]] = []
        conn = lex.number_connectors.pattern
        any_unit = _any_unit(lex)
        # spans of the ask phrases ("how many concurrent users"): a key inside one names the quantity asked
        asked = [(m.start(), m.end()) for m in self.out.ask_matches]
        for name in fields:
            units, keys = lex.quantity_units.get(name), lex.quantity_keys.get(name)
            binary = name in _BINARY_K_FIELDS
            if units:
                for m in _unit_pattern(self.num, units.pattern).finditer(self.low):
                    if keys and name in _TOKEN_FIELDS and re.search(rf"(?:{keys.pattern})$", m.group("unit")) and \
                            self._keyed_number_after(m.end()):
                        # "输入1500输出300", "输入 2000 token 输出 200 token": 输出 is the key of the number after it,
                        # not the unit of the one before
                        continue
                    candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0), name,
                                       number_value(m, lex, binary_k=binary), m.start(), m.end()))
                if name in _COUNT_FIELDS:  # "two users", "five nodes"
                    for m in _word_unit_pattern(lex.count_words.pattern, units.pattern).finditer(self.low):
                        candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0), name,
                                           float(lex.count_words.value(m.group("word"))), m.start(), m.end()))
                    # "one SDXL image", "two flux images": a count word, a model or GPU name, then the unit
                    for m in _named_word_unit_pattern(lex.count_words.pattern, units.pattern).finditer(self.low):
                        if all(p in self.masked for p in range(m.start("name"), m.end("name"))):
                            candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0), name,
                                               float(lex.count_words.value(m.group("word"))), m.start(), m.end()))
                    # "10000 SDXL images", "5M bge-m3 embeddings": a model or GPU name between number and unit
                    for m in _named_unit_pattern(self.num, units.pattern, lex.counter_pattern).finditer(self.low):
                        if all(p in self.masked for p in range(m.start("name"), m.end("name"))):
                            candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0), name,
                                               number_value(m, lex), m.start(), m.end()))
                    if name in lex.quantity_describers:
                        # "50k support tickets", "1M product reviews": plain words describing the unit
                        most, never = lex.quantity_describers[name]
                        for m in _described_unit_pattern(self.num, units.pattern, most).finditer(self.low):
                            words = m.group("words").split()
                            if not any(w in never for w in words) and not any(
                                    p in self.masked for p in range(m.start("words"), m.end("words"))):
                                candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0), name,
                                                   number_value(m, lex), m.start(), m.end()))
            if keys:
                # token quantities may repeat their unit after the number ("每条平均 1k token")
                tail = r"(?:\s*(?:tokens?|tok|个token|个 token))?" if name in _TOKEN_FIELDS else (
                    r"(?:\s*(?:张图片|张图|张|幅|images?|pictures?))?" if name == "images" else "")  # "出5万张"
                pattern = _key_number_pattern(keys.pattern, conn, self.num, tail)
                for m in pattern.finditer(self.low):
                    if re.search(r"[a-z]", m.group("conn") or "") and any(a < m.start() < b for a, b in asked):
                        # "how many concurrent users at 4k?": the quantity is asked, so a number joined to it by a
                        # connector ("at", "with") is something else (a context here), never its value
                        continue
                    before = _NUMBER_BEFORE.search(self.low[max(0, m.start() - 12):m.start()])
                    after = self.low[m.end():m.end() + 24].lstrip()
                    if units and before and max(0, m.start() - 12) + before.start() not in self.masked and \
                            name not in _TOKEN_FIELDS and re.fullmatch(units.pattern, m.group("key")) and (
                                any_unit.match(after) or not after or after[0] in lex.clause_ends):
                        # "150 concurrent users at 8k context", "300 concurrent users at 8k": the phrase is the unit
                        # of the number before it; the number after is something else (a context, here)
                        continue
                    rest = self.low[m.end():m.end() + 24].lstrip()
                    unit_after = any_unit.match(rest)
                    if name in _COUNT_FIELDS and unit_after and not (units and re.match(units.pattern, rest)) \
                            and not rest[unit_after.end():].lstrip()[:1].isdigit():
                        continue  # "服务 8 张卡": the number has another quantity's unit after it
                    if name in _TOKEN_FIELDS and self._other_token_unit(name, self.low[m.end():m.end() + 24]):
                        continue  # "每条 2k 输入 512 输出", "avg 2k input": the prompt's length, not the item's
                    candidates.append((m.end() - m.start(), _PRIORITY.get(name, 0) - 1, name,
                                       number_value(m, lex, binary_k=binary), m.start(), m.end()))
        candidates.sort(key=lambda c: (-c[0], -c[1], c[4]))
        for _length, _prio, name, value, start, end in candidates:
            if not self.free(start, end):
                continue
            if name == "training_tokens" and value < 1e6:
                continue
            if name == "input_tokens" and self.low[start:end].rstrip().endswith(" in") and re.match(
                    rf"\s*(?:{self.num})\s*(?:{self.lex.duration_units.pattern})", self.low[end:end + 24]):
                continue  # "15T tokens in 30 days": "in" begins a length of time, the tokens are not a prompt
            if name == "tokens_plain":
                if value >= 1e6:
                    continue
                name = "context_tokens"
            if name in _COUNT_FIELDS and name != "epochs" and value > 0 and value != int(value):
                continue  # "2.5 users" is no count (a zero or negative one is set aside by claim)
            self.claim(name, value, start, end)

    def _other_token_unit(self, name: str, rest: str) -> bool:
        """Whether ``rest`` (the text after a number read by the key word of ``name``, an item's or a context's length)
        opens with the unit of a prompt or output length ("每条 2k 输入", "avg 1k input"): the number is that length."""
        if name in ("input_tokens", "output_tokens"):
            return False  # "输入长度 2000 输出长度 500": the word after is the next number's key
        for other in ("input_tokens", "output_tokens"):
            units = self.lex.quantity_units.get(other)
            if units and re.match(rf"\s*-?\s*(?:{units.pattern})", rest):
                return True
        return False

    # ------------------------------------------------------------------ 9. tokens of each item
    def item_lengths(self) -> None:
        """"200k samples of 2k tok", "1M docs @ 512 tokens", "5w条，每条 1k token": the length of each item
        said right after a count of items."""
        if self.out.first("tokens_per_item") is not None:
            return
        after = re.compile(rf"^\s*(?:of|@|with|at|x|×|,)?\s*(?:(?:{self.lex.approx_words.pattern})\s*)?{self.num}\s*"
                           r"(?:tok(?:en)?s?|token)\b")
        for f in self.out.all("documents"):
            m = after.match(self.low[f.end:f.end + 40])
            if not m:
                continue
            value = number_value(m, self.lex)
            if not 0 < value <= 1e6:
                continue
            start, end = f.end + m.start("num"), f.end + m.end()
            # a bare "2k tok" read earlier as a context length belongs to the items it follows
            # (overlapping the number, as the reading may begin at an approximation sign: "of ~300 tokens")
            taken = next((g for g in self.out.found if g.field == "context_tokens" and g.start < end and g.end > start),
                         None)
            if taken is not None:
                taken.field, taken.value = "tokens_per_item", value
                return
            if self.free(start, end):
                self.claim("tokens_per_item", value, start, end)
                return

    # ------------------------------------------------------------------ 10. length of each sequence
    def sequence_lengths(self) -> None:
        """"64 concurrent 8k sequences", "32 users x 4k seqs": a count of sequences right after a count of users or
        sequences is the length of each (tokens of context), not a second count."""
        if self.out.first("context_tokens") is not None:
            return
        counts = [f for f in self.out.found if f.field in ("concurrent_users", "batch_size")]
        for first, second in zip(counts, counts[1:], strict=False):
            if second.field != "batch_size" or not re.fullmatch(r"[\s×x*]*(?:of\s*)?", self.low[first.end:second.start]):
                continue
            m = re.match(self.num, self.low[second.start:second.end])
            if m is None:
                continue
            second.field, second.value = "context_tokens", int(number_value(m, self.lex, binary_k=True))
            return

    def run(self) -> QuantityScan:
        self.resolutions()
        self.gpu_hours()  # before money: "we have 5,000 H100 GPU-hours" is GPU time, not a budget of 5,000
        self.money()
        self.bare_budgets()
        self.bare_card_prices()
        self.bare_purchases()
        self.rates()
        self.item_times()
        self.latency()
        self.io_pairs()
        self.counted(_BEFORE_DURATIONS)
        self.durations()
        self.units()
        self.ratio_words()
        self.counted()
        self.item_lengths()
        self.out.found.sort(key=lambda f: f.start)
        self.sequence_lengths()
        return self.out


def _magnitude(value: Any) -> float | None:
    """The number a quantity's value stands for (money's amount, a rate's value, a resolution's smaller side)."""
    if isinstance(value, dict):
        value = next((value[k] for k in ("amount", "value", "ms") if k in value), None)
    elif isinstance(value, list):
        value = min(value, default=None)
    return float(value) if isinstance(value, int | float) else None


#: Ties between readings of the same length: the more specific field first.
_PRIORITY = {"tokens_per_item": 5, "input_tokens": 4, "output_tokens": 4, "context_tokens": 3, "training_tokens": 2,
             "tokens_plain": 1, "concurrent_users": 3, "daily_active_users": 4, "monthly_active_users": 4,
             "gpu_count": 2}
# seconds in the period of a token rate written per minute or per hour (lexicon ``rates.tokens_per_min/hour``)
_TOKEN_RATE_SECONDS = {"tokens_per_min": 60, "tokens_per_hour": 3600}
# a clause break for a rate's scope word: punctuation followed by a space, or any Chinese clause mark
_SCOPE_CLAUSE = re.compile(r"[,;:.?!]\s|[，；：。？！、]")
_NUMBER_BEFORE = re.compile(r"\d(?:[\d,.]*\d)?\s*[kmbw万千亿]?\s*$")
_RESOLUTION = re.compile(r"(?<![\w.])(\d{3,4})\s*[x×*]\s*(\d{3,4})(?![\w.])")
_NUMK = re.compile(r"(?P<num>\d{1,15}(?:\.\d{1,6})?)\s*(?P<k>k)?")


def _k_tokens(m: re.Match[str]) -> int:
    value = float(m.group("num"))
    if m.group("k"):
        value *= 1024 if value in {1, 2, 4, 8, 16, 32, 64, 128} else 1000
    return int(value)


def _any_unit(lex: Lexicon) -> re.Pattern[str]:
    """Any unit phrase of a quantity that is not money, at the start of a text ("gpus", "days", "gb")."""
    phrases = [*(p.pattern for p in lex.quantity_units.values() if p), lex.duration_units.pattern,
               lex.memory_units.pattern, lex.memory_scaled_units.pattern, lex.rates.pattern, lex.percent_units.pattern,
               lex.multiplier_units.pattern, lex.compute_units.pattern]
    return _unit_start(tuple(phrases))


@lru_cache(maxsize=4)
def _unit_start(phrases: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\s*-?\s*(?:" + "|".join(phrases) + ")")


@lru_cache(maxsize=64)
def _word_unit_pattern(words: str, units: str) -> re.Pattern[str]:
    return re.compile(rf"(?P<word>{words})\s*(?P<unit>{units})")


@lru_cache(maxsize=64)
def _named_word_unit_pattern(words: str, units: str) -> re.Pattern[str]:
    """A count word ("one", "two"), then a name of up to 40 characters (checked by the caller), then a unit."""
    return re.compile(rf"(?<![a-z])(?P<word>{words})\s+(?P<name>[^\s\d][^,;!?\n]{{0,40}}?)\s*(?P<unit>{units})(?![a-z])")


@lru_cache(maxsize=64)
def _named_unit_pattern(num: str, units: str, counters: str = "(?!)") -> re.Pattern[str]:
    """A number (and a Chinese counter), then up to 40 characters (a name, checked by the caller), then a unit."""
    # spaces around the name in Latin script; none needed in Chinese ("10万张SDXL图")
    return re.compile(rf"{num}(?:\s*(?:{counters})\s*|\s+|(?<=[\u4e00-\u9fff]))(?P<name>[^\s\d][^,;!?\n，。]{{0,40}}?)"
                      rf"\s*(?P<unit>{units})")


@lru_cache(maxsize=4)
def _item_time_patterns(num: str, units: str, per: str, connectors: str) -> tuple[re.Pattern[str], ...]:
    """A time then what it is per ("40s per image"), or what it is per then the time ("每张图要 25 秒")."""
    return (re.compile(rf"{num}\s*(?P<unit>{units})\s*(?P<per>{per})"),
            re.compile(rf"(?P<per>{per})\s*(?:(?:{connectors})\s*)?{num}\s*(?P<unit>{units})"))


@lru_cache(maxsize=4)
def _direction_patterns(slower: str, faster: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A slower/faster word right after a multiplier ("3x slower"), or right before it ("慢 3 倍")."""
    return (re.compile(rf"\s*(?:{slower}|{faster})"), re.compile(rf"(?:{slower}|{faster})\s*$"))


@lru_cache(maxsize=4)
def _number_pattern(num: str) -> re.Pattern[str]:
    return re.compile(num)


@lru_cache(maxsize=4)
def _after_key_number(num: str) -> re.Pattern[str]:
    """A number right after a key word (separators allowed)."""
    return re.compile(rf"[\s:=~]*(?:{num})")


@lru_cache(maxsize=4)
def _described_unit(unit: str, stop: str) -> re.Pattern[str]:
    """One or two plain words that are not ``stop`` words, then one of the units in ``unit`` (a pattern that
    matches with its own leading space): "2000 registered users" after the number, not "3000 for a month"."""
    word = rf"(?!(?:{stop})(?![a-z-]))[a-z][a-z-]*(?![a-z-])" if stop else r"[a-z][a-z-]*(?![a-z-])"
    return re.compile(rf"\s+(?:{word}\s+){{0,1}}{word}(?=\s+{unit}(?![a-z]))")


@lru_cache(maxsize=64)
def _described_unit_pattern(num: str, units: str, most: int) -> re.Pattern[str]:
    """A number, then 1 to ``most`` plain lower-case words (checked by the caller), then a unit."""
    return re.compile(rf"{num}\s+(?P<words>(?:[a-z][a-z-]*\s+){{1,{most}}})(?P<unit>{units})")


#: The one-day period phrases of each lexicon, as a pattern ("" when it has none).
_ONE_DAY: dict[int, str] = {}


@lru_cache(maxsize=4)
def _per_user_day_pattern(num: str, nouns: str, who: str, days: str) -> re.Pattern[str]:
    """A number, a request noun, then a per-user word and a one-day period in either order ("15 messages each per
    day", "10 queries per person per day", "20 prompts a day each"); group ``who`` or ``who2`` holds the per-user
    word."""
    return re.compile(rf"{num}\s*(?:{nouns})\s*(?:(?P<who>{who})\s*)?(?:{days})(?:\s*(?P<who2>{who})(?![a-z]))?")


@lru_cache(maxsize=8)
def _key_first_day(before: str, fillers: str, num: str, nouns: str) -> re.Pattern[str]:
    """A day word, optional fillers, a number and a counter ("每天要出 10 万张", "日均 5000 次调用"): compiled once."""
    return re.compile(rf"(?:{before})\s*(?:(?:{fillers})\s*)*{num}\s*(?:{nouns})")


@lru_cache(maxsize=4)
def _per_user_count_pattern(num: str, nouns: str, who: str) -> re.Pattern[str]:
    """A number, a request noun and a per-user word right after it ("15 messages each", "20 queries per user")."""
    return re.compile(rf"{num}\s*(?:{nouns})\s*(?:{who})(?![a-z])")


@lru_cache(maxsize=64)
def _unit_pattern(num: str, units: str) -> re.Pattern[str]:
    return re.compile(rf"{num}\s*(?:-\s*)?(?P<unit>{units})")


@lru_cache(maxsize=64)
def _key_number_pattern(keys: str, connectors: str, num: str, tail: str) -> re.Pattern[str]:
    """A quantity's key word, an optional connector, then a number and an optional repeated unit ``tail``."""
    return re.compile(rf"(?P<key>{keys})(?P<conn>[\s:=]*(?:{connectors}))?[\s:=~(]*{num}{tail}")


@lru_cache(maxsize=4)
def _money_patterns(num: str, bare_num: str, before: str, after: str) -> tuple[re.Pattern[str], ...]:
    # "$5", "us$ 3", "¥5000" (symbol first); "300 dollars", "5万元" (currency word after)
    first = re.compile(rf"(?P<cur>{before})\s*{bare_num}")
    second = re.compile(rf"{num}\s*(?P<cur>{after})")
    return first, second


@lru_cache(maxsize=4)
def _io_pattern(num: str) -> re.Pattern[str]:
    n = r"\d{1,15}(?:\.\d{1,6})?\s*k?"
    tok = r"(?:\s*tok(?:en)?s?)?"
    return re.compile(rf"(?<![\w.\-−])(?P<a>{n}){tok}\s*in(?:put)?\b\s*(?:[/,&+]|and)?\s*(?P<b>{n}){tok}\s*out(?:put)?\b")


def scan_quantities(low: str, lex: Lexicon, masked: SpanSet) -> QuantityScan:
    """Every quantity in ``low`` outside the ``masked`` spans (names, pasted blocks).

    Args:
        low: the prepared, lower-cased message.
        lex: the lexicon.
        masked: spans already claimed by GPU, model and instance names and pasted errors or configs.

    Returns:
        The :class:`QuantityScan` (quantities in order, and the spans they used).
    """
    return _Scanner(low, lex, masked).run()


def _counted_after(low: str, end: int, lex: Lexicon) -> bool:
    """Whether a unit of a quantity or a counter of the lexicon follows position ``end`` ("2000 人", "2024 users")."""
    rest = low[end:end + 16]
    return bool(_any_unit(lex).match(rest) or re.match(rf"\s*(?:{lex.counter_pattern})", rest))


def unclaimed_numbers(low: str, lex: Lexicon, claimed: SpanSet, limit: int = 8) -> list[str]:
    """Numbers in ``low`` that nothing claimed, as written with the word after them ("4096 foo").

    Numbers that need no reading are skipped: a year (1990-2039, unless a unit or a counter follows it), a version or an identifier after an
    ignorable word ("cuda 12.1", "python 3.11", "sm_90"), a number inside a word or a URL.
    """
    out: list[str] = []
    for m in re.finditer(number_regex(lex), low):
        start, end = m.start(), m.end()
        if start in claimed or (end - 1) in claimed:
            continue
        raw = m.group("num")
        if re.fullmatch(r"(?:199\d|20[0-3]\d)", raw) and not m.group("scale") and not _counted_after(low, end, lex):
            continue  # a year ("in 2024"); "2000 人", "2024 users" are counts
        before = low[max(0, start - 24):start]
        if re.search(r"(?:" + lex.ignorable_before.pattern + r")[\s_:=v]*$", before):
            continue
        if re.match(r"\s*(?:" + lex.ignorable_after.pattern + ")", low[end:end + 12]):
            continue
        if re.search(r"https?://\S*$", before) or low[end:end + 1] in ("/", "_") and re.match(r"/\d", low[end:end + 2]):
            continue
        tail = re.match(r"[ \t]*[\w%/.\-]{1,14}", low[end:end + 16])  # the word after it, on the same line
        text = (low[start:end] + (tail.group(0) if tail else "")).strip()
        if text not in out:
            out.append(text)
        if len(out) >= limit:
            break
    return out
