"""The parser's vocabulary: per-language YAML files, validated at load and compiled once.

``bot/parsing/lexicon/<lang>.yaml`` hold every word the parser reacts to: cue words for what is asked,
workload words, units and counters, number words (Chinese numerals included), durations, currencies,
precisions, engines, fine-tuning methods, pricing models, follow-up openers and reset words. The files
share one schema (:class:`LexiconFile`) and are merged, since users mix languages in one message.

Phrase matching rules (:class:`Phrases`): phrases are lower case; a space inside a phrase matches any run
of spaces, hyphens and underscores, or none ("seq len" matches "seq_len", "seqlen", "seq-len"); where a
phrase changes between Chinese and Latin script, spaces may be there or not ("8比特" matches "8 比特"); a
that starts or ends with a Latin letter or digit only matches whole words; longer phrases win over
shorter ones at the same position; a phrase is not matched inside an identifier ("q8" in "q8_0"). Adding a
word is a data change with a test, never a code change.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError, field_validator

from bot.errors import KnowledgeError, KnowledgeIssue
from bot.parsing.query import Currency

__all__ = ["ASKS", "Lexicon", "LexiconFile", "Phrases", "get_lexicon", "load_lexicon", "phrase_key"]

LEXICON_DIR = Path(__file__).parent / "lexicon"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What a question can ask for (see :class:`bot.parsing.query.Query.asks`).
ASKS = ("fit", "gpu_count", "users_served", "speed", "time", "tokens_in_time", "cost", "cheapest", "best",
        "memory", "comparison", "spec", "support", "break_even", "largest_model", "help", "throughput", "request_rate",
        "node_count", "max_context", "token_cost", "difference", "availability")
_QUANTITY_FIELDS = ("concurrent_users", "daily_active_users", "monthly_active_users", "gpu_count", "node_count", "batch_size", "lora_rank", "steps", "images",
                    "documents", "epochs", "audio_hours", "tokens_per_item", "context_tokens", "input_tokens",
                    "output_tokens", "training_tokens", "tokens_plain", "transistors", "gpu_hours", "days_used")
_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "awq", "gptq", "nf4", "fp4", "exl2")
_WORKLOADS = ("finetune", "training", "inference")


class _Vocab(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NumberVocab(_Vocab):
    """Number words and scales. ``digits``/``multipliers`` spell Chinese numerals, read only before a
    ``counters`` word (so "三天" is 3 days while "统一" stays a word); ``counter_scales`` are scales only
    there too ("1w条" = 10,000 rows, while "700w" stays watts). ``name_counters`` count a GPU only
    right before its name ("4个80G A100": 个 counts anything, so it is no GPU-count unit elsewhere);
    ``count_describers`` may stand between a count and the name ("4 used 3090s", "two refurbished A100s").
    ``numeral_keys`` are words a quantity follows ("上下文三万二"): a numeral right after one and before no
    further Chinese word (other than one of ``numeral_key_ends``: 的, 左右) is read as a number without a
    counter."""

    words: dict[str, float] = Field(default_factory=dict)
    #: words that name one thing without counting it ("an L40S"): a count said apart ("4 of them") counts it
    articles: list[str] = Field(default_factory=list)
    scales: dict[str, float] = Field(default_factory=dict)
    counter_scales: dict[str, float] = Field(default_factory=dict)
    digits: dict[str, int] = Field(default_factory=dict)
    multipliers: dict[str, int] = Field(default_factory=dict)
    half: list[str] = Field(default_factory=list)
    counters: list[str] = Field(default_factory=list)
    name_counters: list[str] = Field(default_factory=list)
    #: words between a count and a GPU name that describe the cards, not count them ("4 used 3090s")
    count_describers: list[str] = Field(default_factory=list)
    numeral_keys: list[str] = Field(default_factory=list)
    numeral_key_ends: list[str] = Field(default_factory=list)


class QuantityVocab(_Vocab):
    """Unit phrases after a number (``units``), key phrases before it (``keys``), and for audio hours the
    phrases after a duration (``after_duration``)."""

    units: list[str] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=list)
    after_duration: list[str] = Field(default_factory=list)
    #: plain words that may describe the unit between the number and it ("50k support tickets", "1M product
    #: reviews"): up to ``describers`` words, none of them one of ``not_describers`` ("100 words per document"
    #: counts no documents)
    describers: int = Field(default=0, ge=0, le=3)
    not_describers: list[str] = Field(default_factory=list)


class RateVocab(_Vocab):
    tokens_per_s: list[str] = Field(default_factory=list)
    # token rates written per minute or per hour ("1M tokens per minute"): read as tokens/s
    tokens_per_min: list[str] = Field(default_factory=list)
    tokens_per_hour: list[str] = Field(default_factory=list)
    requests_per_s: list[str] = Field(default_factory=list)
    requests_per_min: list[str] = Field(default_factory=list)
    requests_per_day: list[str] = Field(default_factory=list)
    # images a live service must make (a target), per minute, second, hour or day: read as images/min
    images_per_min: list[str] = Field(default_factory=list)
    images_per_s: list[str] = Field(default_factory=list)
    images_per_hour: list[str] = Field(default_factory=list)
    images_per_day: list[str] = Field(default_factory=list)
    aggregate_words: list[str] = Field(default_factory=list)
    per_user_words: list[str] = Field(default_factory=list)
    # a request rate written key first: "QPS 5", "qps=20", "每秒 5 个请求" (``per_second_before`` + number +
    # ``request_nouns``)
    per_second_before: list[str] = Field(default_factory=list)
    # the same, per minute and per hour ("每分钟 30 万 token", "every hour 5,000 requests")
    per_minute_before: list[str] = Field(default_factory=list)
    per_hour_before: list[str] = Field(default_factory=list)
    request_nouns: list[str] = Field(default_factory=list)
    # images written around a period said first ("每分钟 30 张图", "every minute 20 images"): an images/min target
    image_nouns: list[str] = Field(default_factory=list)


class LatencyVocab(_Vocab):
    ttft_ms: list[str] = Field(default_factory=list)
    tpot_ms: list[str] = Field(default_factory=list)
    latency_ms: list[str] = Field(default_factory=list)
    percentiles: dict[str, float] = Field(default_factory=dict)
    units: dict[str, float] = Field(default_factory=dict)


class DurationVocab(_Vocab):
    units: dict[str, float] = Field(default_factory=dict)
    periods: dict[str, float] = Field(default_factory=dict)
    deadline_words: list[str] = Field(default_factory=list)
    rental_words: list[str] = Field(default_factory=list)
    # verbs that make named GPUs a rental ("rent 8x H100", "louer 8 H100"): priced, with or without a duration
    rent_verbs: list[str] = Field(default_factory=list)
    # words between a period and the hours used in it ("每天 用 8 小时", "每天租8小时"): the hours are still a share of it
    usage_fillers: list[str] = Field(default_factory=list)
    # a deadline said without a number ("by tomorrow", "明天之前"): hours from now, stated as an assumption
    deadline_phrases: dict[str, float] = Field(default_factory=dict)


class CurrencyVocab(_Vocab):
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class MoneyVocab(_Vocab):
    currencies: dict[Currency, CurrencyVocab] = Field(default_factory=dict)
    per_hour: list[str] = Field(default_factory=list)
    per_gpu_hour_marker: list[str] = Field(default_factory=list)
    per_gpu_after: list[str] = Field(default_factory=list)
    #: before an amount: it is the price of one card ("每张 20 万元", "per card $25k")
    per_gpu_before: list[str] = Field(default_factory=list)
    per_month: list[str] = Field(default_factory=list)
    limit_words: list[str] = Field(default_factory=list)
    given_words: list[str] = Field(default_factory=list)
    #: words between a period said first and its amount ("每小时只要 2.24 美元", "hourly from $2.24")
    lead_fillers: list[str] = Field(default_factory=list)
    #: words before an amount that make it someone else's figure being checked ("广告说 2.24 美元", "advertised at
    #: $2.24"): quoted, never the user's budget or price limit
    quoted_words: list[str] = Field(default_factory=list)
    #: words that make a quoted hourly price the one to compute with ("按这个价", "at that price")
    use_quoted_words: list[str] = Field(default_factory=list)
    budget_words: list[str] = Field(default_factory=list)
    purchase_words: list[str] = Field(default_factory=list)
    #: money said to be for buying cards, the count bought asked ("we have $300k to buy GPUs", "how many 4090s can I
    #: buy", "预算 200 万买卡"): a purchase budget, unless time is bought with it (``rented_time_words``)
    purchase_budget_words: list[str] = Field(default_factory=list)
    #: units of GPU time that make money spent a rental ("how many H100 hours can $1000 buy")
    rented_time_words: list[str] = Field(default_factory=list)
    #: an amount between one of ``spend_modals`` and one of ``spend_verbs`` is money spent, a budget, never a
    #: purchase price ("how many H100 hours can $1000 buy", "what will €500 get me")
    spend_modals: list[str] = Field(default_factory=list)
    spend_verbs: list[str] = Field(default_factory=list)
    answer_currency: dict[Literal["usd", "cny"], list[str]] = Field(default_factory=dict)


class MemoryVocab(_Vocab):
    """Memory sizes. ``card_words`` after (or before) a size make it a GPU ("a 16gb card", "显存48G");
    ``requirement_words`` before a size make it what something needs, not a card ("uses 20gb",
    "requires 112 GB of VRAM"); ``not_card_after`` after a size say whose size it is ("the 140 gb model");
    ``platform_words`` ("colab", "kaggle") act as card words and, with ``cloud_words``, say the card is rented."""

    units: list[str] = Field(default_factory=list)
    #: other units of memory, with GB per unit ("16000 MB", "24576 MiB", "1.5 TB"): converted, never read as GB
    scaled_units: dict[str, float] = Field(default_factory=dict)
    #: a number's scale letter read as a byte prefix before a memory unit, GB per unit ("0.5T 显存" = 500 GB, not
    #: 0.5 x 10^12 GB; "512M VRAM" = 0.512 GB)
    scale_prefixes: dict[str, float] = Field(default_factory=dict)
    card_words: list[str] = Field(default_factory=list)
    requirement_words: list[str] = Field(default_factory=list)
    not_card_after: list[str] = Field(default_factory=list)
    #: words that make a size the memory of several cards together, not one card ("my total video memory is 160GB",
    #: "96GB in total", "显存总量 160G"): said in the size's clause before it or right after it
    total_words: list[str] = Field(default_factory=list)
    #: hosted notebook platforms that give a GPU ("15 GB colab", "kaggle 16GB"): a size said with one is a card, a
    #: rented (data-center) one
    platform_words: list[str] = Field(default_factory=list)
    #: words that make a card named by its memory a rented one: a data-center card is meant, not a GeForce
    cloud_words: list[str] = Field(default_factory=list)
    #: words between a memory size and the GPU name after it ("40G的A100"): the size is that GPU's
    name_joiners: list[str] = Field(default_factory=list)
    #: words between a GPU name and its memory after it ("A100 with 40GB", "4090有24G"): the size is that GPU's
    after_name_joiners: list[str] = Field(default_factory=list)


class ObservationVocab(_Vocab):
    """Figures the user saw, not targets (``Query.observations``): ``before`` a figure in its clause, the user saw it
    ("I get only", "只有"); ``after`` it, the user asks whether it is normal ("is that normal", "正常吗"); ``targets``
    before it, nearer than an observation word, make it what the user wants ("my app needs 30 tok/s"); ``quoted``
    near it make it someone else's figure ("the page states"); ``slower``/``faster`` next to a multiplier give the
    ratio's direction (a slowdown is a complaint: seen, unless quoted); ``per_item`` (item -> phrases) after a time
    say what it is per ("40s per image")."""

    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    targets: list[str] = Field(default_factory=list)
    quoted: list[str] = Field(default_factory=list)
    slower: list[str] = Field(default_factory=list)
    faster: list[str] = Field(default_factory=list)
    per_item: dict[Literal["image", "token", "request", "step", "item"], list[str]] = Field(default_factory=dict)
    #: words that open a clause naming a setup ("on", "with", "在"): figures each said alone right after such a
    #: clause ("On CPU, 8 tokens/s; on 8 x P6000, 40 tokens/s") are results listed per setup, seen, not targets
    setup_before: list[str] = Field(default_factory=list)
    #: labels a tool prints before a generation speed it measured ("eval rate:", "Avg generation throughput:"): the
    #: figure is the user's own measurement, preferred over their paraphrase of it ("only 5-6 token/s")
    measured: list[str] = Field(default_factory=list)
    #: words before a prompt-processing (prefill) speed ("Avg prompt throughput:", "prompt eval rate", "pp"): seen, but
    #: no generation speed (``Observation.kind`` ``prefill_tokens_per_s``)
    prefill: list[str] = Field(default_factory=list)


class TrafficVocab(_Vocab):
    """A user base's traffic (read with daily active users, :class:`bot.parsing.query.Query`): ``peak_words`` before a
    multiplier make it the peak-to-average factor ("peak is 3x average", "高峰是平均的 5 倍"), not a ratio to check;
    ``per_user_words`` near a rate a day make it each user's ("each sends ~20 messages a day"); ``per_day_before``
    + a number + ``day_nouns`` is a rate a day written key first ("每人每天 10 轮对话")."""

    peak_words: list[str] = Field(default_factory=list)
    per_user_words: list[str] = Field(default_factory=list)
    per_day_before: list[str] = Field(default_factory=list)
    #: words before a number and a day noun that make it the whole service's requests a day ("每天 1 万次对话")
    service_day_before: list[str] = Field(default_factory=list)
    #: counters after "每天" + a number that make it pictures a day, a rate ("每天要出 10 万张")
    image_day_nouns: list[str] = Field(default_factory=list)
    #: words right after a length of one unit that ask how much is done in it ("一分钟能出几张"): the length is the
    #: period of a rate asked, not a job's length or deadline
    rate_ask_after: list[str] = Field(default_factory=list)
    day_nouns: list[str] = Field(default_factory=list)
    # words between "每人每天" and the number that say what is done ("每人每天聊 8 轮", "平均 10 次")
    day_fillers: list[str] = Field(default_factory=list)


class UnitList(_Vocab):
    units: list[str] = Field(default_factory=list)


class PercentVocab(UnitList):
    """Percent units; the words that make a percent next to them a training MFU ("at 40% MFU", "MFU 45%"); and the
    words that make it the share of the users in flight at once ("10% use it at the same time", "10% 同时在线")."""

    mfu_words: list[str] = Field(default_factory=list)
    concurrent_share_words: list[str] = Field(default_factory=list)


class UnitMap(_Vocab):
    units: dict[str, float] = Field(default_factory=dict)


class MultiplierVocab(UnitList):
    """Ratios: ``units`` after a number ("30x", "3 times", "6倍"), ``words`` that are a ratio alone ("twice": 2,
    "翻倍": 2)."""

    words: dict[str, float] = Field(default_factory=dict)


class SpecCheckVocab(_Vocab):
    """A stated spec figure or ratio asked to be checked (``Query.spec_checks``): ``truth_cues`` anywhere in the
    question ask whether it is true ("really", "right?", "真的吗", "号称"); ``truth_openers`` at its start do too
    ("does an L40S have 864 GB/s?"). ``more_than`` / ``less_than`` right ``_before`` or ``_after`` a ratio bound it
    ("more than twice", "一倍多", "2 倍以上")."""

    truth_cues: list[str] = Field(default_factory=list)
    truth_openers: list[str] = Field(default_factory=list)
    more_than_before: list[str] = Field(default_factory=list)
    more_than_after: list[str] = Field(default_factory=list)
    less_than_before: list[str] = Field(default_factory=list)
    less_than_after: list[str] = Field(default_factory=list)


class FitQuestionVocab(_Vocab):
    """A yes/no question about whether a setup can do the work is a fit ask (``Query.asks`` "fit") even when no
    phrase of ``asks.fit`` is in it, because the GPU stands inside the phrase: ``openers`` at the start of a clause
    and one of ``verbs`` later in that clause ("can the 3090 run ...", "will my A10 cope with ..."), or one of
    ``verbs`` followed in its clause by one of ``closers`` that ends the clause ("4090 可以跑 70B 吗", "3090 带得动
    32B 吗", "跑 llama 3 70b 行吗")."""

    openers: list[str] = Field(default_factory=list)
    #: right after an opener, these make the question a request to the advisor, not about a setup ("could you run
    #: the numbers", "can you help me pick")
    not_subjects: list[str] = Field(default_factory=list)
    verbs: list[str] = Field(default_factory=list)
    closers: list[str] = Field(default_factory=list)


class ElectricityVocab(_Vocab):
    per_kwh: list[str] = Field(default_factory=list)


class FollowupVocab(_Vocab):
    openers: list[str] = Field(default_factory=list)
    reset: list[str] = Field(default_factory=list)


class IgnorableVocab(_Vocab):
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class ModelObjectVocab(_Vocab):
    """Where a model's name stands in a question: after a workload verb (``verbs``), before a preposition or
    punctuation (``ends``); ``skip`` lists objects that are not a model's name ("it", "inference", "users")."""

    verbs: list[str] = Field(default_factory=list)
    ends: list[str] = Field(default_factory=list)
    skip: list[str] = Field(default_factory=list)


class PerMachineVocab(_Vocab):
    """Words that make a GPU count a per-machine count: ``before`` the number ("每台 8 卡", "each node has 8"),
    ``after`` it ("8 gpus per node", "8-gpu nodes", "8卡机器")."""

    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    # right before the per-machine count, these ask for the machines ("how many 8-gpu nodes")
    asked_before: list[str] = Field(default_factory=list)
    # right after a counted GPU, these make it a machine ("8xA100 nodes", "8卡H800机器")
    machine_words: list[str] = Field(default_factory=list)
    # right before a GPU name, a system of that many GPUs ("DGX H100" = one machine of 8 H100s)
    systems: dict[str, PositiveInt] = Field(default_factory=dict)
    # machine counters after which a GPU count is the total over the machines, not per machine ("2机16卡" is two
    # machines with 16 GPUs in all, eight each)
    total_after: list[str] = Field(default_factory=list)


class UnknownProviderVocab(_Vocab):
    """A cloud named that no price file knows ("on Lightning AI", "恒源云上"): a name right before one of
    ``suffixes`` (a cloud's word: "cloud", "AI", "云"), after one of ``before`` (a word that leads a provider, "on",
    "在", "和") or at the start of the clause, and not one of ``not_names`` ("the cloud", "私有云"); it is reported
    as an unknown provider, never dropped."""

    before: list[str] = Field(default_factory=list)
    suffixes: list[str] = Field(default_factory=list)
    not_names: list[str] = Field(default_factory=list)


class LexiconFile(_Vocab):
    """One language's vocabulary file (see ``bot/parsing/lexicon/en.yaml`` for what each section means)."""

    language: str
    # words only this language uses: one in a question written in Latin script says it is in this language
    # (a language with no answer catalog in bot/render/messages/ is answered in English, and the answer says so)
    language_markers: list[str] = Field(default_factory=list)
    # punctuation that ends a clause: a number before it has nothing after it ("150 users, 8k context")
    clause_ends: list[str] = Field(default_factory=list)
    numbers: NumberVocab = Field(default_factory=NumberVocab)
    quantities: dict[str, QuantityVocab] = Field(default_factory=dict)
    rates: RateVocab = Field(default_factory=RateVocab)
    latency: LatencyVocab = Field(default_factory=LatencyVocab)
    durations: DurationVocab = Field(default_factory=DurationVocab)
    money: MoneyVocab = Field(default_factory=MoneyVocab)
    memory: MemoryVocab = Field(default_factory=MemoryVocab)
    bandwidth: UnitMap = Field(default_factory=UnitMap)
    #: tensor compute rates after a number ("4000 TFLOPS", "4.5 PFLOPS"), TFLOPS per unit
    compute: UnitMap = Field(default_factory=UnitMap)
    multipliers: MultiplierVocab = Field(default_factory=MultiplierVocab)
    spec_checks: SpecCheckVocab = Field(default_factory=SpecCheckVocab)
    observations: ObservationVocab = Field(default_factory=ObservationVocab)
    percent: PercentVocab = Field(default_factory=PercentVocab)
    traffic: TrafficVocab = Field(default_factory=TrafficVocab)
    power: UnitMap = Field(default_factory=UnitMap)
    electricity: ElectricityVocab = Field(default_factory=ElectricityVocab)
    fit_questions: FitQuestionVocab = Field(default_factory=FitQuestionVocab)
    #: ask -> phrases; the key ``none`` lists words that contain a phrase but ask nothing ("全参数")
    asks: dict[str, list[str]] = Field(default_factory=dict)
    # words users put in a model's name in their own language, as the knowledge base's ids spell them
    # ("蒸馏版" -> "distill": "deepseek r1 蒸馏版 14b" is DeepSeek-R1-Distill-Qwen-14B)
    model_words: dict[str, list[str]] = Field(default_factory=dict)
    # between a size and its family when the size comes first ("the 120b model of gpt-oss"): read as "gpt-oss 120b"
    size_of_family: list[str] = Field(default_factory=list)
    workloads: dict[str, list[str]] = Field(default_factory=dict)
    # a user count said to be simultaneous ("60 online at peak", "同时在线"): it sizes the load, not a head count
    simultaneous_words: list[str] = Field(default_factory=list)
    # a bare counter shared by cards and pictures ("一万张要多久"): in a question with image words it counts images
    # unless a GPU name follows it; ``image_words`` are those words
    image_counters: list[str] = Field(default_factory=list)
    image_words: list[str] = Field(default_factory=list)
    # right before a GPU name: the user's own one card ("my 4070 ti super", "我的 4090")
    own_card_words: list[str] = Field(default_factory=list)
    # right after a GPU name: a variant word ("ti", "super"); when the product has no such variant ("rtx 5090 ti"),
    # the name is reported as unknown instead of read as the base card
    gpu_variant_words: list[str] = Field(default_factory=list)
    # the object of a workload verb names the model ("serve kimi k2 on h200s"): when no model is recognised, the
    # words between one of ``verbs`` and one of ``ends`` are reported as an unknown model, unless they are ``skip``
    model_object: ModelObjectVocab = Field(default_factory=ModelObjectVocab)
    # a GPU count said per machine ("每台8卡", "8-gpu nodes"): with machines asked, the count is per machine
    per_machine: PerMachineVocab = Field(default_factory=PerMachineVocab)
    compare_connectors: list[str] = Field(default_factory=list)
    #: words that join two variants of one product in a list, besides ``compare_connectors`` ("A100 40G and 80G",
    #: "H100 PCIe 和 SXM"): a bare memory size or form factor after one names the product's other variant
    variant_connectors: list[str] = Field(default_factory=list)
    # of ``compare_connectors``, those that list options ("RTX 3090 / 4090", "A100/A800"): GPUs joined only by
    # these are compared when a comparison is asked or no workload is named, else they are the options sized
    option_connectors: list[str] = Field(default_factory=list)
    #: of ``compare_connectors``, those that only offer alternatives ("a 3090 or 4090", "3090或4090"): with a fit
    #: asked and nothing compared, each option is checked (a sizing question), not ranked
    either_connectors: list[str] = Field(default_factory=list)
    compare_relations: list[str] = Field(default_factory=list)
    precisions: dict[str, list[str]] = Field(default_factory=dict)
    kv_cache_words: list[str] = Field(default_factory=list)
    engines: dict[str, list[str]] = Field(default_factory=dict)
    methods: dict[Literal["full", "lora", "qlora"], list[str]] = Field(default_factory=dict)
    sharding: dict[Literal["fsdp", "zero1", "zero2", "zero3", "offload"], list[str]] = Field(default_factory=dict)
    gradient_checkpointing: list[str] = Field(default_factory=list)
    layout_keys: dict[Literal["tensor_parallel", "pipeline_parallel"], list[str]] = Field(default_factory=dict)
    pricing: dict[Literal["spot", "commitment", "on_demand"], list[str]] = Field(default_factory=dict)
    commitment_terms: dict[Literal["1y", "3y"], list[str]] = Field(default_factory=dict)
    providers_cue_before: list[str] = Field(default_factory=list)
    providers_cue_after: list[str] = Field(default_factory=list)
    unknown_providers: UnknownProviderVocab = Field(default_factory=UnknownProviderVocab)
    features: dict[str, list[str]] = Field(default_factory=dict)
    full_context_words: list[str] = Field(default_factory=list)
    single_user_words: list[str] = Field(default_factory=list)
    #: the time of one item is asked ("latency", "one image", "单张"): a rate is stated for one item at a time (batch 1)
    single_item_words: list[str] = Field(default_factory=list)
    batch_job_words: list[str] = Field(default_factory=list)
    # a word after an image, speech or embedding model's name that names a variant of it ("sdxl turbo", "whisper
    # small", "flux pro"): when the knowledge base has no model by that longer name, the answer says which model
    # stands in for it and how they differ, never swapping it silently
    model_variant_words: list[str] = Field(default_factory=list)
    # words joining models listed together ("bge-m3 and nomic-embed-text", "e5-large vs gte-large")
    model_list_joins: list[str] = Field(default_factory=list)
    # the kind of non-LLM work named without a model ("an embedding API", "speech-to-text", "image generation"):
    # the policy's default model of that kind is sized, and said
    non_llm_tasks: dict[str, list[str]] = Field(default_factory=dict)
    # the time asked in days ("how many days", "要多少天"): durations are said in days too
    days_asked_words: list[str] = Field(default_factory=list)
    not_comparison_words: list[str] = Field(default_factory=list)
    #: the bound asked, not the realistic figure ("theoretical max tok/s", "理论上限"): the memory-bandwidth roofline
    bound_words: list[str] = Field(default_factory=list)
    setup_question_words: list[str] = Field(default_factory=list)
    same_machine_words: list[str] = Field(default_factory=list)
    #: the machine runs at home or in an office ("at home", "home lab", "my basement", "workstation"): a purchase is
    #: costed with home electricity and no colocation, whatever the card count
    home_words: list[str] = Field(default_factory=list)
    #: market id (``knowledge/markets.yaml``) -> the words that name it ("in China", "国内"): where the user wants
    #: to buy or rent, so the export rules for the GPUs named there are said
    markets: dict[str, list[str]] = Field(default_factory=dict)
    #: billing terms no price file has as a pricing model (a monthly plan: "包月", "按月", "billed monthly"), named
    #: so the answer says the term is not published and shows the terms that are
    billing_terms: dict[Literal["monthly"], list[str]] = Field(default_factory=dict)
    #: several models said to run together on the same GPUs ("side by side", "co-host", "同时部署"): their memory adds up
    cohost_words: list[str] = Field(default_factory=list)
    #: words saying part of a model sits in system RAM ("offload", "in system RAM", "放在内存"): a share, percent or
    #: GB in their clause is the part offloaded
    offload_words: list[str] = Field(default_factory=list)
    #: share of the model offloaded -> the words that say it ("half of": 0.5, "三分之一": 0.333), read in a clause
    #: with an offload word
    offload_shares: dict[float, list[str]] = Field(default_factory=dict)
    #: the system memory named ("DDR5"): which host_links row of knowledge/efficiency.yaml bounds an offload
    host_memory_types: dict[Literal["ddr4", "ddr5"], list[str]] = Field(default_factory=dict)
    full_precision_words: list[str] = Field(default_factory=list)
    spec_fields: dict[str, list[str]] = Field(default_factory=dict)
    followup: FollowupVocab = Field(default_factory=FollowupVocab)
    help_phrases: list[str] = Field(default_factory=list)
    #: of the ``asks.best`` phrases, those that ask a recommendation in so many words: ``pick`` asks which hardware to
    #: get ("recommend", "what should I buy", "推荐"); ``advice`` asks for advice ("suggestion", "建议", "方案"), a
    #: pick only when no GPU is named (with the user's GPUs it asks how to make that setup work)
    recommend_words: dict[Literal["pick", "advice"], list[str]] = Field(default_factory=dict)
    per_node_words: list[str] = Field(default_factory=list)
    # a price asked for one unit ("多少钱一张", "what's an H100 per hour"): a count of one said with it is the
    # unit of the price, not the count needed, when the question states a larger count apart ("we need 16")
    unit_price_words: list[str] = Field(default_factory=list)
    not_name_prefixes: list[str] = Field(default_factory=list)
    # after a closed model's name: it is a point of comparison, not the model to run ("a chatgpt-like bot",
    # "gpt-4 class quality")
    not_model_suffixes: list[str] = Field(default_factory=list)
    number_connectors: list[str] = Field(default_factory=list)
    approx_words: list[str] = Field(default_factory=list)
    ignorable_number_contexts: IgnorableVocab = Field(default_factory=IgnorableVocab)

    @field_validator("quantities")
    @classmethod
    def _known_quantities(cls, value: dict[str, QuantityVocab]) -> dict[str, QuantityVocab]:
        unknown = sorted(set(value) - set(_QUANTITY_FIELDS))
        if unknown:
            raise ValueError(f"unknown quantity field(s) {unknown}; known: {', '.join(_QUANTITY_FIELDS)}")
        return value

    @field_validator("asks")
    @classmethod
    def _known_asks(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = sorted(set(value) - set(ASKS) - {"none"})
        if unknown:
            raise ValueError(f"unknown ask(s) {unknown}; known: {', '.join(ASKS)}")
        return value

    @field_validator("workloads")
    @classmethod
    def _known_workloads(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = sorted(set(value) - {*_WORKLOADS, "weak_inference", "pretraining", "indirect"})
        if unknown:
            raise ValueError(f"unknown workload(s) {unknown}")
        # an indirect word says which workload it names by being in that workload's list
        listed = {phrase_key(p) for kind in _WORKLOADS for p in value.get(kind, [])}
        stray = [p for p in value.get("indirect", []) if phrase_key(p) not in listed]
        if stray:
            raise ValueError(f"indirect workload word(s) {stray} are in no workload list ({', '.join(_WORKLOADS)})")
        return value

    @field_validator("precisions")
    @classmethod
    def _known_precisions(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = sorted(set(value) - set(_PRECISIONS))
        if unknown:
            raise ValueError(f"unknown precision(s) {unknown}; known: {', '.join(_PRECISIONS)}")
        return value


# --------------------------------------------------------------------------- phrase matching

_SEP = re.compile(r"[\s_\-]+")
_ALNUM = re.compile(r"[a-z0-9]")


def phrase_key(text: str) -> str:
    """The lookup key of a phrase or of matched text: lower case without spaces, hyphens, underscores."""
    return _SEP.sub("", text.lower())


_SCRIPT_RUN = re.compile(r"[a-z0-9.%/$]+|[^a-z0-9.%/$]+")


def _word_regex(word: str) -> str:
    """A phrase word, with optional spaces where it changes script ("8比特", "kv缓存", "多少g的卡"): the text is
    spaced at every CJK/Latin boundary before matching (:func:`bot.parsing.text.prepare_text`)."""
    runs = _SCRIPT_RUN.findall(word)
    if len(runs) == 1 or word.isascii():
        return re.escape(word)
    return r"\s*".join(re.escape(r) for r in runs)


def _phrase_regex(phrase: str, left_bound: bool = True) -> tuple[str, str]:
    """The regex of ``phrase`` as its first character (a literal, escaped) and the rest."""
    words = [w for w in _SEP.split(phrase.strip().lower()) if w]
    body = r"[\s_\-]*".join(_word_regex(w) for w in words)
    first = re.escape(words[0][0])
    rest = body[len(first):]
    if left_bound and _ALNUM.match(phrase[:1].lower()):
        # the first letter, then "no letter or digit before it": the same test as a lookbehind put first, but
        # every alternative of the table then starts with a literal, so the regex engine tries a position only
        # when its character can start a phrase (and skips, in C, the alternatives that cannot start there)
        rest = f"(?<![a-z0-9]{first}){rest}"
    if _ALNUM.match(phrase[-1:].lower()):
        rest += r"(?![a-z0-9]|_[a-z0-9])"  # "q8" is not inside the identifier "q8_0"
    return first, rest


def _alternation(parts: list[tuple[str, str]]) -> str:
    """``(?:first rest|...)`` of phrase regexes in order, those with the same first character written as one
    alternative, ``first(?:rest|rest...)``, in their order. Only the phrases starting with the character at hand can
    match there, so the regex engine tries one group instead of every phrase, and finds the same match: within a
    group the phrases are tried in the table's order, as before. (A cased non-ASCII first character, which a
    case-insensitive pattern embedding the table could match with another group's, leaves the table ungrouped.)"""
    if any(not first.isascii() and first.lower() != first.upper() for first, _ in parts):
        return "(?:" + "|".join(first + rest for first, rest in parts) + ")"
    groups: dict[str, list[str]] = {}
    for first, rest in parts:
        groups.setdefault(first, []).append(rest)
    return "(?:" + "|".join(first + (rests[0] if len(rests) == 1 else "(?:" + "|".join(rests) + ")")
                            for first, rests in groups.items()) + ")"


class Phrases:
    """A compiled phrase table: one regex over all phrases and the value each phrase stands for.

    Args:
        mapping: phrase -> value. Phrases with the same key (see :func:`phrase_key`) keep the first value.
        left_bound: phrases starting with a letter or digit must start a word; ``False`` for units and
            scales, which follow a number directly ("8k", "24gb", "500ms").
    """

    def __init__(self, mapping: dict[str, Any], *, left_bound: bool = True):
        self.values: dict[str, Any] = {}
        for phrase, value in mapping.items():
            key = phrase_key(phrase)
            if key and key not in self.values:
                self.values[key] = value
        phrases = sorted({p for p in mapping if phrase_key(p)}, key=lambda p: (-len(phrase_key(p)), p))
        #: the phrases in the order they are tried (longest key first), and whether they must start a word
        self.phrases: tuple[str, ...] = tuple(phrases)
        self.left_bound = left_bound
        self.pattern = _alternation([_phrase_regex(p, left_bound) for p in phrases]) if phrases else "(?!)"

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The compiled :attr:`pattern`, compiled on first use (:func:`load_lexicon` compiles those of the lexicon
        it returns; the first of its two passes searches only a few tables, so the rest are never compiled)."""
        return re.compile(self.pattern)

    def __bool__(self) -> bool:
        return bool(self.values)

    def value(self, matched: str) -> Any:
        """The value of the phrase ``matched`` spells (``None`` when it is not one of them)."""
        return self.values.get(phrase_key(matched))

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """The first phrase in ``text`` from ``pos``."""
        return self.regex.search(text, pos)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every phrase in ``text``, left to right, non-overlapping."""
        return self.regex.finditer(text)

    def found(self, text: str) -> list[Any]:
        """The values of every phrase in ``text``, in order of appearance, each once."""
        out: list[Any] = []
        for m in self.regex.finditer(text):
            v = self.value(m.group(0))
            if v not in out:
                out.append(v)
        return out

    def found_overlapping(self, text: str) -> list[Any]:
        """Like :meth:`found`, but a phrase that starts inside an earlier one and runs past its end is found
        too ("需要几台机器": 需要几 and 几台机器), so a short phrase never hides a longer one it overlaps. At each
        position the longest phrase is taken; one lying wholly inside an earlier match is not."""
        out: list[Any] = []
        covered = 0
        pos = 0
        # each search finds the next position where a phrase starts (in C), rather than trying every position
        while (m := self.regex.search(text, pos)) is not None:
            pos = m.start() + 1
            if m.end() <= covered:
                continue
            covered = m.end()
            v = self.value(m.group(0))
            if v not in out:
                out.append(v)
        return out

    def fullmatch(self, text: str) -> bool:
        """Whether all of ``text`` is one phrase."""
        return phrase_key(text) in self.values


def _flat(lists: list[list[str]]) -> dict[str, bool]:
    return {p: True for lst in lists for p in lst}


def _inverse(groups: list[dict[str, list[str]]]) -> dict[str, str]:
    """{value: [phrases]} tables (one per language) -> {phrase: value}, earlier values winning."""
    out: dict[str, str] = {}
    for group in groups:
        for value, phrases in group.items():
            for p in phrases:
                out.setdefault(p, value)
    return out


@dataclass(frozen=True)
class Lexicon:
    """The merged, compiled vocabulary of every language file (build with :func:`get_lexicon`).

    Each attribute is a :class:`Phrases` (or a plain table) named after the lexicon section it comes from.
    """

    files: tuple[LexiconFile, ...]
    language_markers: Phrases
    clause_ends: frozenset[str]
    number_words: Phrases
    count_words: Phrases
    scales: dict[str, float]
    memory_scale_prefixes: dict[str, float]
    articles: Phrases
    scale_pattern: str
    zh_digits: dict[str, int]
    zh_multipliers: dict[str, int]
    zh_half: tuple[str, ...]
    counter_pattern: str
    numeral_key_pattern: str
    numeral_key_ends: str
    quantity_units: dict[str, Phrases]
    quantity_keys: dict[str, Phrases]
    #: field -> (most describing words between a number and its unit, words that never describe one)
    quantity_describers: dict[str, tuple[int, frozenset[str]]]
    audio_after_duration: Phrases
    rates: Phrases
    aggregate_words: Phrases
    per_second_before: Phrases
    per_minute_before: Phrases
    per_hour_before: Phrases
    request_nouns: Phrases
    image_nouns: Phrases
    per_user_words: Phrases
    latency_keys: Phrases
    percentiles: dict[str, float]
    latency_units: Phrases
    duration_units: Phrases
    #: the duration units worth one hour ("h", "hours", "小时"): after a GPU's name they make GPU-hours ("10k A100 hours")
    hour_units: Phrases
    duration_periods: Phrases
    deadline_phrases: Phrases
    deadline_words: Phrases
    rental_words: Phrases
    rent_verbs: Phrases
    usage_fillers: Phrases
    currency_before: Phrases
    currency_after: Phrases
    per_hour: Phrases
    per_gpu_hour_marker: Phrases
    per_month: Phrases
    limit_words: Phrases
    given_words: Phrases
    lead_fillers: Phrases
    quoted_words: Phrases
    use_quoted_words: Phrases
    per_gpu_after: Phrases
    per_gpu_before: Phrases
    budget_words: Phrases
    purchase_words: Phrases
    purchase_budget_words: Phrases
    rented_time_words: Phrases
    spend_modals: Phrases
    fit_openers: Phrases
    fit_not_subjects: Phrases
    fit_verbs: Phrases
    fit_closers: Phrases
    spend_verbs: Phrases
    answer_currency: Phrases
    memory_units: Phrases
    memory_scaled_units: Phrases
    card_words: Phrases
    memory_requirement_words: Phrases
    memory_total_words: Phrases
    not_card_after: Phrases
    platform_words: Phrases
    cloud_words: Phrases
    memory_name_joiners: Phrases
    memory_after_name_joiners: Phrases
    bandwidth_units: Phrases
    compute_units: Phrases
    multiplier_units: Phrases
    multiplier_words: Phrases
    #: the ``spec_checks`` section (see :class:`SpecCheckVocab`)
    truth_cues: Phrases
    truth_openers: Phrases
    more_than_before: Phrases
    more_than_after: Phrases
    less_than_before: Phrases
    less_than_after: Phrases
    #: the ``observations`` section: words that make a figure one the user saw (see :class:`ObservationVocab`)
    observed_before: Phrases
    observed_after: Phrases
    setup_before: Phrases
    #: the ``observations.measured`` and ``observations.prefill`` labels (see :class:`ObservationVocab`)
    measured_before: Phrases
    prefill_before: Phrases
    target_before: Phrases
    quoted_figure: Phrases
    slower_words: Phrases
    faster_words: Phrases
    per_item: Phrases
    percent_units: Phrases
    mfu_words: Phrases
    concurrent_share_words: Phrases
    #: the ``traffic`` section (see :class:`TrafficVocab`)
    peak_words: Phrases
    per_user_day_words: Phrases
    per_day_before: Phrases
    service_day_before: Phrases
    image_day_nouns: Phrases
    rate_ask_after: Phrases
    day_nouns: Phrases
    day_fillers: Phrases
    power_units: Phrases
    per_kwh: Phrases
    asks: Phrases
    model_words: Phrases
    size_of_family: Phrases
    workloads: Phrases
    #: words that make a training run a pretraining ("from scratch", "pretrain", "预训练"): without them, training
    #: a released model is fine-tuning it
    pretraining: Phrases
    weak_inference: Phrases
    #: words of the workload lists that name a workload only through a tool, an artifact or a verb that takes its
    #: workload from its object ("lora", "llama factory", "reproduce"): an explicit word of another workload wins
    #: (:func:`bot.parsing.route.find_workload`)
    indirect_workload: Phrases
    simultaneous_words: Phrases
    image_counters: Phrases
    image_words: Phrases
    own_card_words: Phrases
    gpu_variant_words: Phrases
    object_verbs: Phrases
    per_machine_before: Phrases
    per_machine_after: Phrases
    per_machine_asked: Phrases
    per_machine_machine: Phrases
    per_machine_systems: Phrases
    per_machine_total_after: Phrases
    object_ends: Phrases
    object_skip: Phrases
    compare_connectors: Phrases
    variant_connectors: Phrases
    choice_connectors: Phrases
    #: connectors that list options ("A100/H100"): a count said with one of the GPUs so listed is each one's
    option_connectors: Phrases
    either_connectors: Phrases
    compare_relations: Phrases
    precisions: Phrases
    kv_cache_words: Phrases
    engines: Phrases
    methods: Phrases
    sharding: Phrases
    gradient_checkpointing: Phrases
    layout_keys: Phrases
    pricing: Phrases
    commitment_terms: Phrases
    provider_cue_before: Phrases
    provider_cue_after: Phrases
    unknown_provider_before: Phrases
    unknown_provider_suffixes: Phrases
    unknown_provider_not_names: Phrases
    features: Phrases
    full_context_words: Phrases
    single_user_words: Phrases
    single_item_words: Phrases
    #: verbs of a job run over a set of items ("summarize", "总结"): a count of chats said with one is items, not users
    batch_job_words: Phrases
    model_variant_words: Phrases
    model_list_joins: Phrases
    non_llm_tasks: Phrases
    days_asked_words: Phrases
    #: words holding a comparison word that compare nothing ("比如" = for example, "比特" = bit): masked before the
    #: comparison connectors, relations and asks are read
    not_comparison_words: Phrases
    bound_words: Phrases
    #: words that ask about someone else's setup ("your", "did you use", "was it", "你们用的"): "A or B" said with
    #: them asks which one was used, not which is better
    setup_question_words: Phrases
    same_machine_words: Phrases
    home_words: Phrases
    markets: Phrases
    billing_terms: Phrases
    cohost_words: Phrases
    offload_words: Phrases
    offload_shares: Phrases
    host_memory_types: Phrases
    full_precision_words: Phrases
    spec_fields: Phrases
    followup_openers: Phrases
    reset_words: Phrases
    help_phrases: Phrases
    recommend_pick: Phrases
    recommend_advice: Phrases
    per_node_words: Phrases
    unit_price_words: Phrases
    not_name_prefixes: Phrases
    not_model_suffixes: Phrases
    name_counters: Phrases
    count_describers: Phrases
    number_connectors: Phrases
    approx_words: Phrases
    ignorable_before: Phrases
    ignorable_after: Phrases


def _compile(files: list[LexiconFile]) -> Lexicon:
    def lists(get) -> list[list[str]]:
        return [get(f) for f in files]

    def groups(get) -> list[dict[str, list[str]]]:
        return [get(f) for f in files]

    def merged_maps(get) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in files:
            for k, v in get(f).items():
                out.setdefault(k, v)
        return out

    scales = merged_maps(lambda f: f.numbers.scales)
    scale_phrases = Phrases(scales, left_bound=False)
    counters = [c for f in files for c in f.numbers.counters]
    counter_scales = merged_maps(lambda f: f.numbers.counter_scales)
    scale_source = scale_phrases.pattern
    if counter_scales and counters:
        # scales that are one only before a counter ("1w条" = 10,000 rows; "700w" stays watts)
        counter_alt = "|".join(re.escape(c) for c in sorted(counters, key=len, reverse=True))
        scale_source = "(?:" + scale_source + "|(?:" + "|".join(
            re.escape(k) for k in counter_scales) + rf")(?=\s?(?:{counter_alt})))"
        scales = {**scales, **counter_scales}
    ask_map: dict[str, list[str]] = {}
    for f in files:
        for ask, phrases in f.asks.items():
            for p in phrases:
                ask_map.setdefault(p, [])
                # "none": words that contain an ask's phrase but ask nothing ("全参数" holds "参数"); matched
                # whole, they keep the shorter phrase from matching inside them
                if ask != "none" and ask not in ask_map[p]:
                    ask_map[p].append(ask)
    asks = Phrases(ask_map)
    # phrases shared by several asks map to the list; merge by key
    for p, v in ask_map.items():
        key = phrase_key(p)
        if key in asks.values and asks.values[key] is not v:
            asks.values[key] = list(dict.fromkeys([*asks.values[key], *v]))
    quantity_units = {}
    quantity_keys = {}
    quantity_describers: dict[str, tuple[int, frozenset[str]]] = {}
    for field in _QUANTITY_FIELDS:
        quantity_units[field] = Phrases(_flat([f.quantities[field].units for f in files if field in f.quantities]),
                                        left_bound=False)
        quantity_keys[field] = Phrases(_flat([f.quantities[field].keys for f in files if field in f.quantities]))
        vocab = [f.quantities[field] for f in files if field in f.quantities]
        if any(v.describers for v in vocab):
            quantity_describers[field] = (max(v.describers for v in vocab),
                                          frozenset(w.lower() for v in vocab for w in v.not_describers))
    rates: dict[str, str] = {}
    for f in files:
        for kind in ("tokens_per_s", "tokens_per_min", "tokens_per_hour", "requests_per_s", "requests_per_min", "requests_per_day", "images_per_min",
                     "images_per_s", "images_per_hour", "images_per_day"):
            for p in getattr(f.rates, kind):
                rates.setdefault(p, kind)
    latency_keys: dict[str, str] = {}
    for f in files:
        for kind in ("ttft_ms", "tpot_ms", "latency_ms"):
            for p in getattr(f.latency, kind):
                latency_keys.setdefault(p, kind)
    currency_before = _inverse([{c: v.before for c, v in f.money.currencies.items()} for f in files])
    currency_after = _inverse([{c: v.after for c, v in f.money.currencies.items()} for f in files])
    counters = sorted({c for f in files for c in f.numbers.counters}, key=len, reverse=True)
    return Lexicon(
        files=tuple(files),
        language_markers=Phrases(_inverse([{f.language: f.language_markers} for f in files])),
        clause_ends=frozenset(c for f in files for c in f.clause_ends),
        number_words=Phrases(merged_maps(lambda f: f.numbers.words)),
        # number words that count a unit after them ("two users"); an article is no count ("a user asked"), nor
        # a one-character Chinese prefix of a compound word ("单机" is a per-machine figure, "双卡" a GPU count)
        count_words=Phrases({w: v for w, v in merged_maps(lambda f: f.numbers.words).items()
                             if phrase_key(w) not in ("a", "an") and not (len(w) == 1 and not w.isascii())}),
        scales={phrase_key(k): v for k, v in scales.items()},
        articles=Phrases(_flat(lists(lambda f: f.numbers.articles))),
        memory_scale_prefixes={phrase_key(k): v for k, v in merged_maps(lambda f: f.memory.scale_prefixes).items()},
        scale_pattern=scale_source,
        zh_digits=merged_maps(lambda f: f.numbers.digits),
        zh_multipliers=merged_maps(lambda f: f.numbers.multipliers),
        zh_half=tuple(h for f in files for h in f.numbers.half),
        counter_pattern="(?:" + "|".join(re.escape(c) for c in counters) + ")" if counters else "(?!)",
        numeral_key_pattern="(?:" + "|".join(re.escape(k) for k in sorted(
            {k for f in files for k in f.numbers.numeral_keys}, key=len, reverse=True)) + ")" if any(
            f.numbers.numeral_keys for f in files) else "(?!)",
        numeral_key_ends="|".join(re.escape(k) for k in sorted(
            {k for f in files for k in f.numbers.numeral_key_ends}, key=len, reverse=True)) or "(?!)",
        quantity_units=quantity_units,
        quantity_keys=quantity_keys,
        quantity_describers=quantity_describers,
        audio_after_duration=Phrases(_flat(
            [f.quantities["audio_hours"].after_duration for f in files if "audio_hours" in f.quantities])),
        rates=Phrases(rates, left_bound=False),
        aggregate_words=Phrases(_flat(lists(lambda f: f.rates.aggregate_words))),
        per_second_before=Phrases(_flat(lists(lambda f: f.rates.per_second_before)), left_bound=False),
        per_minute_before=Phrases(_flat(lists(lambda f: f.rates.per_minute_before)), left_bound=False),
        per_hour_before=Phrases(_flat(lists(lambda f: f.rates.per_hour_before)), left_bound=False),
        request_nouns=Phrases(_flat(lists(lambda f: f.rates.request_nouns)), left_bound=False),
        image_nouns=Phrases(_flat(lists(lambda f: f.rates.image_nouns)), left_bound=False),
        per_user_words=Phrases(_flat(lists(lambda f: f.rates.per_user_words))),
        latency_keys=Phrases(latency_keys),
        percentiles={phrase_key(k): v for k, v in merged_maps(lambda f: f.latency.percentiles).items()},
        latency_units=Phrases(merged_maps(lambda f: f.latency.units), left_bound=False),
        duration_units=Phrases(merged_maps(lambda f: f.durations.units), left_bound=False),
        hour_units=Phrases({k: v for k, v in merged_maps(lambda f: f.durations.units).items() if v == 1},
                           left_bound=False),
        duration_periods=Phrases(merged_maps(lambda f: f.durations.periods)),
        deadline_phrases=Phrases(merged_maps(lambda f: f.durations.deadline_phrases)),
        deadline_words=Phrases(_flat(lists(lambda f: f.durations.deadline_words))),
        rental_words=Phrases(_flat(lists(lambda f: f.durations.rental_words))),
        rent_verbs=Phrases(_flat(lists(lambda f: f.durations.rent_verbs))),
        usage_fillers=Phrases(_flat(lists(lambda f: f.durations.usage_fillers)), left_bound=False),
        currency_before=Phrases(currency_before),
        currency_after=Phrases(currency_after, left_bound=False),
        per_hour=Phrases(_flat(lists(lambda f: f.money.per_hour))),
        per_gpu_hour_marker=Phrases(_flat(lists(lambda f: f.money.per_gpu_hour_marker))),
        per_month=Phrases(_flat(lists(lambda f: f.money.per_month))),
        limit_words=Phrases(_flat(lists(lambda f: f.money.limit_words))),
        given_words=Phrases(_flat(lists(lambda f: f.money.given_words))),
        lead_fillers=Phrases(_flat(lists(lambda f: f.money.lead_fillers))),
        quoted_words=Phrases(_flat(lists(lambda f: f.money.quoted_words))),
        use_quoted_words=Phrases(_flat(lists(lambda f: f.money.use_quoted_words))),
        per_gpu_after=Phrases(_flat(lists(lambda f: f.money.per_gpu_after)), left_bound=False),
        per_gpu_before=Phrases(_flat(lists(lambda f: f.money.per_gpu_before))),
        budget_words=Phrases(_flat(lists(lambda f: f.money.budget_words))),
        purchase_words=Phrases(_flat(lists(lambda f: f.money.purchase_words))),
        purchase_budget_words=Phrases(_flat(lists(lambda f: f.money.purchase_budget_words))),
        rented_time_words=Phrases(_flat(lists(lambda f: f.money.rented_time_words))),
        spend_modals=Phrases(_flat(lists(lambda f: f.money.spend_modals))),
        fit_openers=Phrases(_flat(lists(lambda f: f.fit_questions.openers))),
        fit_not_subjects=Phrases(_flat(lists(lambda f: f.fit_questions.not_subjects))),
        fit_verbs=Phrases(_flat(lists(lambda f: f.fit_questions.verbs))),
        fit_closers=Phrases(_flat(lists(lambda f: f.fit_questions.closers))),
        spend_verbs=Phrases(_flat(lists(lambda f: f.money.spend_verbs))),
        answer_currency=Phrases(_inverse(groups(lambda f: f.money.answer_currency))),
        memory_units=Phrases(_flat(lists(lambda f: f.memory.units)), left_bound=False),
        memory_scaled_units=Phrases(merged_maps(lambda f: f.memory.scaled_units), left_bound=False),
        card_words=Phrases(_flat(lists(lambda f: f.memory.card_words))),
        memory_requirement_words=Phrases(_flat(lists(lambda f: f.memory.requirement_words))),
        memory_total_words=Phrases(_flat(lists(lambda f: f.memory.total_words))),
        not_card_after=Phrases(_flat(lists(lambda f: f.memory.not_card_after))),
        platform_words=Phrases(_flat(lists(lambda f: f.memory.platform_words))),
        cloud_words=Phrases(_flat(lists(lambda f: f.memory.cloud_words))),
        memory_name_joiners=Phrases(_flat(lists(lambda f: f.memory.name_joiners))),
        memory_after_name_joiners=Phrases(_flat(lists(lambda f: f.memory.after_name_joiners))),
        bandwidth_units=Phrases(merged_maps(lambda f: f.bandwidth.units), left_bound=False),
        compute_units=Phrases(merged_maps(lambda f: f.compute.units), left_bound=False),
        multiplier_units=Phrases(_flat(lists(lambda f: f.multipliers.units)), left_bound=False),
        multiplier_words=Phrases(merged_maps(lambda f: f.multipliers.words)),
        truth_cues=Phrases(_flat(lists(lambda f: f.spec_checks.truth_cues))),
        truth_openers=Phrases(_flat(lists(lambda f: f.spec_checks.truth_openers))),
        more_than_before=Phrases(_flat(lists(lambda f: f.spec_checks.more_than_before))),
        more_than_after=Phrases(_flat(lists(lambda f: f.spec_checks.more_than_after)), left_bound=False),
        less_than_before=Phrases(_flat(lists(lambda f: f.spec_checks.less_than_before))),
        less_than_after=Phrases(_flat(lists(lambda f: f.spec_checks.less_than_after)), left_bound=False),
        observed_before=Phrases(_flat(lists(lambda f: f.observations.before))),
        observed_after=Phrases(_flat(lists(lambda f: f.observations.after))),
        setup_before=Phrases(_flat(lists(lambda f: f.observations.setup_before))),
        measured_before=Phrases(_flat(lists(lambda f: f.observations.measured))),
        prefill_before=Phrases(_flat(lists(lambda f: f.observations.prefill))),
        target_before=Phrases(_flat(lists(lambda f: f.observations.targets))),
        quoted_figure=Phrases(_flat(lists(lambda f: f.observations.quoted))),
        slower_words=Phrases(_flat(lists(lambda f: f.observations.slower))),
        faster_words=Phrases(_flat(lists(lambda f: f.observations.faster))),
        per_item=Phrases(_inverse(groups(lambda f: f.observations.per_item))),
        percent_units=Phrases(_flat(lists(lambda f: f.percent.units)), left_bound=False),
        mfu_words=Phrases(_flat(lists(lambda f: f.percent.mfu_words))),
        concurrent_share_words=Phrases(_flat(lists(lambda f: f.percent.concurrent_share_words))),
        peak_words=Phrases(_flat(lists(lambda f: f.traffic.peak_words))),
        per_user_day_words=Phrases(_flat(lists(lambda f: f.traffic.per_user_words))),
        per_day_before=Phrases(_flat(lists(lambda f: f.traffic.per_day_before))),
        service_day_before=Phrases(_flat(lists(lambda f: f.traffic.service_day_before))),
        image_day_nouns=Phrases(_flat(lists(lambda f: f.traffic.image_day_nouns))),
        rate_ask_after=Phrases(_flat(lists(lambda f: f.traffic.rate_ask_after)), left_bound=False),
        day_nouns=Phrases(_flat(lists(lambda f: f.traffic.day_nouns)), left_bound=False),
        day_fillers=Phrases(_flat(lists(lambda f: f.traffic.day_fillers)), left_bound=False),
        power_units=Phrases(merged_maps(lambda f: f.power.units), left_bound=False),
        per_kwh=Phrases(_flat(lists(lambda f: f.electricity.per_kwh))),
        asks=asks,
        model_words=Phrases({w: target for f in files for target, words in f.model_words.items() for w in words},
                            left_bound=False),
        size_of_family=Phrases(_flat(lists(lambda f: f.size_of_family))),
        workloads=Phrases(_inverse(groups(lambda f: {k: v for k, v in f.workloads.items() if k in _WORKLOADS}))),
        weak_inference=Phrases(_flat(lists(lambda f: f.workloads.get("weak_inference", [])))),
        pretraining=Phrases(_flat(lists(lambda f: f.workloads.get("pretraining", [])))),
        indirect_workload=Phrases(_flat(lists(lambda f: f.workloads.get("indirect", [])))),
        simultaneous_words=Phrases(_flat(lists(lambda f: f.simultaneous_words))),
        image_counters=Phrases(_flat(lists(lambda f: f.image_counters)), left_bound=False),
        image_words=Phrases(_flat(lists(lambda f: f.image_words)), left_bound=False),
        own_card_words=Phrases(_flat(lists(lambda f: f.own_card_words))),
        gpu_variant_words=Phrases(_flat(lists(lambda f: f.gpu_variant_words))),
        object_verbs=Phrases(_flat(lists(lambda f: f.model_object.verbs))),
        per_machine_before=Phrases(_flat(lists(lambda f: f.per_machine.before))),
        per_machine_after=Phrases(_flat(lists(lambda f: f.per_machine.after)), left_bound=False),
        per_machine_asked=Phrases(_flat(lists(lambda f: f.per_machine.asked_before))),
        per_machine_machine=Phrases(_flat(lists(lambda f: f.per_machine.machine_words))),
        per_machine_total_after=Phrases(_flat(lists(lambda f: f.per_machine.total_after)), left_bound=False),
        per_machine_systems=Phrases(merged_maps(lambda f: f.per_machine.systems)),
        object_ends=Phrases(_flat(lists(lambda f: f.model_object.ends))),
        object_skip=Phrases(_flat(lists(lambda f: f.model_object.skip))),
        compare_connectors=Phrases(_flat(lists(lambda f: f.compare_connectors))),
        variant_connectors=Phrases(_flat(lists(lambda f: f.compare_connectors + f.variant_connectors))),
        choice_connectors=Phrases({c: True for f in files for c in f.compare_connectors if phrase_key(c) not in {
            phrase_key(o) for g in files for o in g.option_connectors}}),
        option_connectors=Phrases(_flat(lists(lambda f: f.option_connectors))),
        either_connectors=Phrases(_flat(lists(lambda f: f.either_connectors))),
        compare_relations=Phrases(_flat(lists(lambda f: f.compare_relations))),
        precisions=Phrases(_inverse(groups(lambda f: f.precisions))),
        kv_cache_words=Phrases(_flat(lists(lambda f: f.kv_cache_words))),
        engines=Phrases(_inverse(groups(lambda f: f.engines))),
        methods=Phrases(_inverse(groups(lambda f: f.methods))),
        sharding=Phrases(_inverse(groups(lambda f: f.sharding))),
        gradient_checkpointing=Phrases(_flat(lists(lambda f: f.gradient_checkpointing))),
        layout_keys=Phrases(_inverse(groups(lambda f: f.layout_keys))),
        pricing=Phrases(_inverse(groups(lambda f: f.pricing))),
        commitment_terms=Phrases(_inverse(groups(lambda f: f.commitment_terms))),
        provider_cue_before=Phrases(_flat(lists(lambda f: f.providers_cue_before))),
        provider_cue_after=Phrases(_flat(lists(lambda f: f.providers_cue_after))),
        unknown_provider_before=Phrases(_flat(lists(lambda f: f.unknown_providers.before))),
        unknown_provider_suffixes=Phrases(_flat(lists(lambda f: f.unknown_providers.suffixes))),
        unknown_provider_not_names=Phrases(_flat(lists(lambda f: f.unknown_providers.not_names))),
        features=Phrases(_inverse(groups(lambda f: f.features))),
        full_context_words=Phrases(_flat(lists(lambda f: f.full_context_words))),
        single_user_words=Phrases(_flat(lists(lambda f: f.single_user_words))),
        single_item_words=Phrases(_flat(lists(lambda f: f.single_item_words))),
        batch_job_words=Phrases(_flat(lists(lambda f: f.batch_job_words))),
        model_variant_words=Phrases(_flat(lists(lambda f: f.model_variant_words))),
        model_list_joins=Phrases(_flat(lists(lambda f: f.model_list_joins)), left_bound=False),
        non_llm_tasks=Phrases({p: kind for f in files for kind, ps in f.non_llm_tasks.items() for p in ps}),
        days_asked_words=Phrases(_flat(lists(lambda f: f.days_asked_words)), left_bound=False),
        not_comparison_words=Phrases(_flat(lists(lambda f: f.not_comparison_words))),
        bound_words=Phrases(_flat(lists(lambda f: f.bound_words))),
        setup_question_words=Phrases(_flat(lists(lambda f: f.setup_question_words))),
        same_machine_words=Phrases(_flat(lists(lambda f: f.same_machine_words))),
        home_words=Phrases(_flat(lists(lambda f: f.home_words))),
        markets=Phrases(_inverse(groups(lambda f: f.markets))),
        billing_terms=Phrases(_inverse(groups(lambda f: f.billing_terms))),
        cohost_words=Phrases(_flat(lists(lambda f: f.cohost_words))),
        offload_words=Phrases(_flat(lists(lambda f: f.offload_words))),
        offload_shares=Phrases(_inverse(groups(lambda f: f.offload_shares))),
        host_memory_types=Phrases(_inverse(groups(lambda f: f.host_memory_types))),
        full_precision_words=Phrases(_flat(lists(lambda f: f.full_precision_words))),
        spec_fields=Phrases(_inverse(groups(lambda f: f.spec_fields))),
        followup_openers=Phrases(_flat(lists(lambda f: f.followup.openers))),
        reset_words=Phrases(_flat(lists(lambda f: f.followup.reset))),
        help_phrases=Phrases(_flat(lists(lambda f: f.help_phrases))),
        recommend_pick=Phrases(_flat(lists(lambda f: f.recommend_words.get("pick", [])))),
        recommend_advice=Phrases(_flat(lists(lambda f: f.recommend_words.get("advice", [])))),
        per_node_words=Phrases(_flat(lists(lambda f: f.per_node_words))),
        unit_price_words=Phrases(_flat(lists(lambda f: f.unit_price_words))),
        not_name_prefixes=Phrases(_flat(lists(lambda f: f.not_name_prefixes))),
        not_model_suffixes=Phrases(_flat(lists(lambda f: f.not_model_suffixes))),
        name_counters=Phrases(_flat(lists(lambda f: f.numbers.name_counters)), left_bound=False),
        count_describers=Phrases(_flat(lists(lambda f: f.numbers.count_describers))),
        number_connectors=Phrases(_flat(lists(lambda f: f.number_connectors))),
        approx_words=Phrases(_flat(lists(lambda f: f.approx_words))),
        ignorable_before=Phrases(_flat(lists(lambda f: f.ignorable_number_contexts.before))),
        ignorable_after=Phrases(_flat(lists(lambda f: f.ignorable_number_contexts.after))),
    )


def load_lexicon(directory: str | Path | None = None) -> Lexicon:
    """Read, validate and compile every ``*.yaml`` in ``directory`` (default: the packaged lexicon).

    Raises:
        KnowledgeError: one ``file:line: field: message`` issue per problem (YAML syntax or schema).
    """
    from bot.kb.loader import yaml_line

    root = Path(directory) if directory is not None else LEXICON_DIR
    files: list[LexiconFile] = []
    issues: list[KnowledgeIssue] = []
    for path in sorted(root.glob("*.yaml"), key=lambda p: (p.stem != "en", p.stem)):
        try:
            raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            issues.append(KnowledgeIssue(str(path), (mark.line + 1) if mark else 0, "(yaml)", str(exc.problem)))
            continue
        try:
            files.append(LexiconFile.model_validate(raw))
        except ValidationError as exc:
            for err in exc.errors():
                loc = list(err["loc"])
                issues.append(KnowledgeIssue(str(path), yaml_line(path, loc), ".".join(str(p) for p in loc) or "(file)",
                                             err["msg"].removeprefix("Value error, ")))
    if issues:
        raise KnowledgeError(issues)
    if not files:
        raise KnowledgeError([KnowledgeIssue(str(root), 0, "(directory)", "no lexicon files found")])
    first = _compile(files)
    # questions have their Chinese numerals written in digits before any phrase is searched ("每百万token" is read
    # as "每 1000000 token", "一台机器" as "1 台机器"): each phrase holding such a numeral is also compiled in that form
    lex = _compile([_with_numeral_forms(f, first) for f in files])
    for value in vars(lex).values():  # compiled now, at load, not during the first question
        for phrases in value.values() if isinstance(value, dict) else [value]:
            if isinstance(phrases, Phrases):
                phrases.regex  # noqa: B018 (compiles and caches)
    return lex


def _with_numeral_forms(file: LexiconFile, lex: Lexicon) -> LexiconFile:
    """``file`` with every phrase that holds a Chinese numeral before a counter or unit also given in the digit
    form questions are read in (:func:`bot.parsing.numbers.chinese_numerals_to_digits`); lists gain the form,
    maps gain it as a key with the same value. Phrases the rewrite leaves alone add nothing."""
    from bot.parsing.numbers import chinese_numerals_to_digits

    measured = re.compile(rf"\d\s*(?:{lex.duration_units.pattern})")
    # the numeral characters are the lexicon's own (numbers.digits, multipliers, half)
    numeral = re.compile("|".join(re.escape(c) for c in (*lex.zh_digits, *lex.zh_multipliers, *lex.zh_half)) or "(?!)")

    def form(text: str) -> str | None:
        if not numeral.search(text):
            return None
        digits = " ".join(chinese_numerals_to_digits(text, lex).split())
        # a phrase whose digits then hold a length of time ("一周多少" -> "1 周多少") would take the duration the
        # question states away from the quantities: the quantity reader has it already, so no digit form is added
        return digits if digits != text and not measured.search(digits) else None

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            out = [walk(v) for v in value]
            return out + [f for v in value if isinstance(v, str) and (f := form(v)) and f not in value]
        if isinstance(value, dict):
            out = {k: walk(v) for k, v in value.items()}
            for k, v in value.items():
                f = form(k) if isinstance(k, str) else None
                if f and f not in out:
                    out[f] = walk(v)
            return out
        return value

    return LexiconFile.model_validate(walk(file.model_dump()))


_lock = threading.Lock()
_current: Lexicon | None = None


def get_lexicon() -> Lexicon:
    """The packaged lexicon, loaded and compiled on first use (then shared by every parse)."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = load_lexicon()
    return _current
