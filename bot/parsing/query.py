"""The complete request: everything a question names, fixes, targets and asks for.

Everything here is data: :func:`bot.parsing.parser.parse_question` fills it, :func:`bot.advice.route.route`
decides the intent from it, and the planner answers it. A field is ``None`` (or empty) when the question
does not say it; defaults are applied by the planner, never stored here, so every set field is a
constraint the user fixed (:meth:`Query.fixed`). Units live in field names: tokens, hours, milliseconds,
GB (10^9 bytes), money as :class:`Money` in the currency the user wrote.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.notes import Note

__all__ = ["Ask", "Currency", "Diagnosis", "GpuMention", "Intent", "ModelMention", "Money", "Observation", "Query",
           "SpecCheck", "SpecField", "UnknownTerm"]

#: What the user wants answered (routing input; see :func:`bot.advice.route.route`).
Intent = Literal[
    "compare",
    "size_inference",
    "size_training",
    "finetune",
    "quote",
    "recommend",
    "spec_lookup",
    "diagnose",
    "help",
    "unknown",
]

#: The quantity asked for. ``fit``: yes/no and the memory that decides it; ``gpu_count``: how many GPUs;
#: ``users_served``: concurrent users a configuration serves; ``throughput``: the most tokens/s it delivers in
#: all (at its user capacity); ``request_rate``: requests per second it serves; ``speed``: tokens/s, TTFT; ``time``: wall
#: clock of a run; ``tokens_in_time``: tokens a run gets through in a given time; ``cost``: money for the
#: stated duration or run; ``cheapest``: the lowest-cost option; ``best``: the best option (under a
#: budget when one is given); ``memory``: memory needed; ``comparison``: several items compared;
#: ``spec``: a hardware fact; ``support``: whether a GPU supports a format or kernel; ``break_even``: buy vs rent; ``largest_model``: biggest model that fits;
#: ``help``: what the bot does; ``node_count``: how many machines (with ``gpus_per_node``); ``max_context``: the
#: longest context (tokens per sequence) a configuration holds, capped by the model's supported length;
#: ``token_cost``: money per million output tokens of a served model at full load; ``difference``: how much two
#: options differ (money saved, "monthly cost difference", "差多少钱").
Ask = Literal["fit", "gpu_count", "users_served", "speed", "time", "tokens_in_time", "cost", "cheapest", "best",
              "memory", "comparison", "spec", "support", "break_even", "largest_model", "help", "throughput", "request_rate",
              "node_count", "max_context", "token_cost", "difference", "availability"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GpuMention(_Record):
    """A GPU named in the question, resolved to a knowledge-base id.

    Attributes:
        id: GPU id in ``knowledge/gpus.yaml`` (``"a100-sxm-80gb"``). For a GPU named only by its memory
            ("my 16gb card") the most common GPU of that memory, with ``capacity_only`` set.
        as_written: the text as the user typed it (``"a100 40g"``, ``"p5.48xlarge"``, ``"24gb card"``).
        count: how many the user has or asks about (``8x A100`` -> 8); ``None`` when not said.
        memory_gb: the memory the text gives for this GPU, GB (``"3080 20G"`` -> 20), when it does; when
            no variant of that memory exists the planner uses the stated memory and says so.
        capacity_only: the GPU was named only by its memory.
        variant_assumed: the text did not say which variant (``"A100"``: SXM or PCIe, 40 or 80 GB),
            so the knowledge base's default was taken; a note says which.
        instance_type: the cloud instance named (``"p5.48xlarge"``), when the GPU came from one.
        provider: that instance's provider id.
        count_over_limit: a count stated above the largest count read (``bot.parsing.gpus.MAX_GPU_COUNT``,
            "一百万张 H100"): set aside, ``count`` stays ``None``, and the answer says so first.
        price_each_amount, price_each_currency: a purchase price of one card said right after this GPU ("L40S at $8k
            each", "H20 按 11 万一张"), in the currency written; ``None`` when none.
    """

    id: str | None = None
    as_written: str
    count: int | None = None
    memory_gb: float | None = None
    capacity_only: bool = False
    variant_assumed: bool = False
    instance_type: str | None = None
    provider: str | None = None
    count_over_limit: int | None = None
    price_each_amount: float | None = None
    price_each_currency: str | None = None


class ModelMention(_Record):
    """A model the question is about.

    Either a knowledge-base model (``id`` set) or a generic one described by its size
    (``generic=True``, ``id=None``: "a 7b model", "our own 13B", "100B MoE with 10B active").

    Attributes:
        id: model id in ``knowledge/models.yaml``, or ``None`` for a generic model.
        as_written: the text as the user typed it.
        variant_assumed: a family without a version ("llama 70b") was resolved to the newest matching
            model, or a fine-tune name to its base model; a note says which.
        generic: the model is known only by its size (and maybe shape).
        params_total_b: total parameters, billions (generic models; for MoE all experts).
        params_active_b: parameters active per token, billions (generic MoE only).
        layers, hidden_size, kv_heads: shape the user gave (generic models).
        precision: a precision the name itself carries (``-AWQ``, an Ollama tag's quant).
        config: the sizing fields of a pasted Hugging Face ``config.json``.
        alternative_to: the closed model (weights not published) this open-weight model is offered in place
            of, as the user wrote it ("GPT-4"); ``None`` for a model the user named.
        name_unknown: the text names this generic model by a name the knowledge base lacks ("pythia-2.8b"): a
            released model, sized by the parameter count its name carries, and reported as not in the knowledge
            base (``UnknownTerm.sized``); ``False`` for a size alone ("a 1.3B model").
    """

    id: str | None = None
    as_written: str
    variant_assumed: bool = False
    generic: bool = False
    params_total_b: float | None = None
    params_active_b: float | None = None
    layers: int | None = None
    hidden_size: int | None = None
    kv_heads: int | None = None
    precision: str | None = None
    config: dict | None = None
    alternative_to: str | None = None
    name_unknown: bool = False


#: Currencies the parser reads (lexicon ``money.currencies``). Only those with a dated rate in
#: ``knowledge/prices/common/exchange_rates.yaml`` are converted; an amount in another is said to be unused.
Currency = Literal["usd", "cny", "eur", "gbp", "jpy", "chf", "cad", "aud", "inr", "krw", "btc", "eth"]


class Money(_Record):
    """An amount of money as the user wrote it.

    Attributes:
        amount: the amount in ``currency``.
        currency: a :data:`Currency` code (``usd``, ``cny``, ``eur``, ``gbp``, ...); converted to USD with the
            knowledge base's dated rate when it has one (:func:`bot.pricing.currency.to_usd`).
    """

    amount: float
    currency: Currency = "usd"


class Observation(_Record):
    """A figure the user saw on their own setup (or quotes from someone else), never a target: "I get only 10
    tokens/s", "it seems 3 times slower than the A10", "it takes 40s per image", "比 3090 慢一倍".

    Attributes:
        kind: ``tokens_per_s`` (a generation speed, tokens/s), ``prefill_tokens_per_s`` (a prompt-processing speed,
            tokens/s: "Avg prompt throughput: 102.2 tokens/s"), ``seconds_per_item`` (seconds per ``item``) or
            ``ratio`` (how many times slower or faster, a factor, with ``direction``).
        value: the figure in the unit of ``kind``: tokens/s, seconds, or the factor ("N times slower" by N = 1, "慢一
            倍", is 2: twice as slow).
        item: for ``seconds_per_item``: ``image``, ``token``, ``request``, ``step`` or ``item``.
        direction: for ``ratio``: ``slower`` or ``faster`` when the text says which.
        quoted: someone else's figure ("the page states 6,552 tokens/s"), not the user's own measurement.
        measured: a figure a tool printed after its label ("eval rate: 6.149 tokens/s"), not the user's paraphrase.
        as_written: the figure as typed.
    """

    kind: Literal["tokens_per_s", "prefill_tokens_per_s", "seconds_per_item", "ratio"]
    value: float
    item: Literal["image", "token", "request", "step", "item"] | None = None
    direction: Literal["slower", "faster"] | None = None
    quoted: bool = False
    measured: bool = False
    as_written: str = ""


#: A GPU figure a stated spec can be checked against, as :class:`~bot.kb.schema.Gpu` names it: ``memory_gb`` (GB),
#: ``memory_bandwidth_gb_s`` (GB/s), ``tflops`` (tensor TFLOPS, TOPS for int8/int4: ``Gpu.dense_tflops`` and
#: ``Gpu.sparse_tflops``), ``tdp_watts`` (W), ``nvlink_gb_s`` (NVLink GB/s per GPU, both directions).
SpecField = Literal["memory_gb", "memory_bandwidth_gb_s", "tflops", "tdp_watts", "nvlink_gb_s"]


class SpecCheck(_Record):
    """A spec figure or a spec ratio the question states and asks whether it is true: "is the 4090 really 165
    TFLOPS in fp16?", "does an L40S have 864 GB/s?", "MI300X has 2.4x the memory of H100, right?", "比 A100 快一倍
    多，对吗". Either ``value`` (a figure of ``gpu``) or ``ratio`` (``gpu``'s figure over ``other_gpu``'s) is set.

    Attributes:
        spec: which figure (:data:`SpecField`).
        gpu: the knowledge-base id of the GPU the figure or ratio is about (for a ratio, the numerator).
        value: the figure stated, converted to ``unit`` (3.35 TB/s -> 3350 GB/s, 4.5 PFLOPS -> 4500 TFLOPS).
        unit: ``GB``, ``GB/s``, ``TFLOPS`` or ``W``, the unit of ``value``.
        precision: for ``tflops``, the precision named with it (``fp8``, ``fp16``, ...); ``None``: any.
        ratio: the ratio stated, ``gpu``'s figure divided by ``other_gpu``'s (2.4 for "2.4x the memory of"; a ratio
            said as slower or less is inverted: "2x slower than B" is 0.5). "快一倍" (faster by 100%) is 2.
        other_gpu: the GPU the ratio compares with.
        bound: ``about`` (the figure or ratio itself), ``more_than`` ("more than twice", "一倍多") or ``less_than``.
        as_written: the figure or ratio as typed.
    """

    spec: SpecField
    gpu: str
    value: float | None = None
    unit: Literal["GB", "GB/s", "TFLOPS", "W"] | None = None
    precision: str | None = None
    ratio: float | None = None
    other_gpu: str | None = None
    bound: Literal["about", "more_than", "less_than"] = "about"
    as_written: str = ""


class UnknownTerm(_Record):
    """A GPU, model or provider name that is not in the knowledge base.

    Attributes:
        as_written: the name as typed (``"A40900"``, ``"gtx 1080 ti"``, ``"m2 ultra"``, ``"恒源云"``).
        kind: ``gpu``, ``model`` or ``provider`` (a cloud no price file knows: "Lightning AI", "矩池云"; the answer
            says it has no data for it and prices at the providers it tracks).
        suggestions: up to three knowledge-base display names that look close, best first; they are
            offered to the user, never silently substituted.
        unlisted: the name of an accelerator the knowledge base knows of but has no figures for
            (gpus.yaml ``unlisted``), whose reason the answer gives.
        sized: a model name sized as a generic model of the parameter count it carries ("pythia-2.8b" ->
            2.8B; ``ModelMention.name_unknown``): the answer says so instead of leaving the model out.
        memory_gb: for a card named only by a memory no knowledge-base GPU has ("a 2 GB card", "12 MB VRAM",
            "a 1.5 TB gpu"): that memory, GB (converted from MB, MiB or TB), answered by what fits in it.
    """

    as_written: str
    kind: Literal["gpu", "model", "provider"] = "gpu"
    suggestions: list[str] = Field(default_factory=list)
    unlisted: str | None = None
    sized: bool = False
    memory_gb: float | None = None


class Diagnosis(_Record):
    """What a pasted error message says.

    Attributes:
        kind: ``oom`` (out of GPU memory, including TGI's "Not enough memory to handle N total tokens"),
            ``feature_gate`` (a precision or kernel needs a newer GPU), ``kv_capacity`` (vLLM refuses to start:
            one sequence of the model's max length does not fit the KV cache left after the weights) or ``other``
            (wrong output, hangs, NCCL errors: not a sizing problem).
        feature: for ``feature_gate``, the feature named (``"fp8"``, ``"bf16"``, ``"flash_attention"``).
        required_compute_capability: for ``feature_gate``, the minimum CUDA compute capability named.
        total_capacity_gib: PyTorch's "GiB total capacity" figure, GiB (2**30 bytes).
        tried_to_allocate_gib: PyTorch's "Tried to allocate" figure, converted to GiB.
        max_seq_len_tokens, kv_capacity_tokens: for ``kv_capacity``, the engine's max model length and the tokens
            its KV cache holds (the "estimated maximum model length" in newer wording), tokens.
        kv_needed_gib, kv_available_gib: for ``kv_capacity`` in newer vLLM wording, GiB (2**30 bytes).
    """

    kind: Literal["oom", "feature_gate", "kv_capacity", "other"]
    feature: str | None = None
    required_compute_capability: float | None = None
    total_capacity_gib: float | None = None
    tried_to_allocate_gib: float | None = None
    max_seq_len_tokens: int | None = None
    kv_capacity_tokens: int | None = None
    kv_needed_gib: float | None = None
    kv_available_gib: float | None = None


PricingModel = Literal["on_demand", "spot", "commitment"]


class Query(_Record):
    """One parsed question: the complete request.

    Attributes:
        text: the question after Slack markup was removed.
        language: ``en``, ``zh`` or ``other`` (Japanese, Korean, ...): the language of the answer.
        intent: the routed intent (:func:`bot.advice.route.route`).
        asks: what is asked for, in order of appearance (see :data:`Ask`).
        gpus: GPUs named, in order of first mention, one entry per GPU id (a capacity-only GPU included).
        models: models named, in order (several for "8b, 70b and 405b").
        family_model_ids: a model family named without a size ("the biggest Qwen I can run"): the knowledge-base
            LLM ids of that family (of the version written, when it has one); empty otherwise.
        precisions: weight precisions named, normalised (``fp32``, ``bf16``, ``fp16``, ``fp8``, ``int8``,
            ``int4``, ``awq``, ``gptq``, ``nf4``, ``fp4`` or a GGUF quant such as ``q4_k_m``).
        kv_precision: KV-cache precision when stated ("fp8 kv cache"): the first when several are.
        kv_precisions: every KV-cache precision named when several are ("fp16 vs fp8 kv"), in order; else empty.
        precisions_carried: the precisions were kept from an earlier turn of a conversation, not said in this one
            (a new GPU that lacks one of them is planned in the formats it has, with a note).
        full_precision: the model as released, unquantised ("满血版", "full precision"): FP8 for
            DeepSeek-V3/R1, bf16 for most others.
        method: fine-tuning method: ``full``, ``lora`` or ``qlora``.
        workload: ``inference``, ``training`` or ``finetune``, whatever the intent.
        engine: serving/training engine named (``vllm``, ``sglang``, ``tensorrt-llm``, ``llama.cpp``, ...).
        context_tokens: context length per sequence, tokens ("8k ctx" -> 8192).
        input_tokens / output_tokens: prompt / generated tokens per request.
        full_context_prompts: every request sends a fresh prompt of the whole context (the worst case).
        batch_size: batch size (sequences).
        concurrent_users: users or requests in flight at once.
        daily_active_users: users a day ("5k DAU", "日活 5000"): not a concurrency; the planner derives the requests
            in flight at the busiest hour from it by Little's law (requests a day per user, the peak-to-average
            factor and the time each request takes: :meth:`bot.advice.context.Context.traffic_from_daily_users`)
            and says so, unless concurrent users are also given.
        requests_per_user_per_day: requests (chat turns, messages) each user sends a day ("each sends ~20 messages a
            day", "每人每天 10 轮对话"); ``None``: the policy's default (``serving.requests_per_daily_user``).
        peak_factor: the busiest traffic over the day's average ("peak is 3x average", "高峰是平均的 5 倍"), a factor;
            ``None``: the policy's default (``serving.peak_to_average``).
        monthly_active_users: users a month ("3k MAU", "月活 5 万"): not a concurrency; with a share said at once
            ("10% at the same time") the parser sets ``concurrent_users`` from it, else the answer asks for that share.
        users_over_limit: a user count above the bound of users sized in flight (``QUANTITY_LIMITS``,
            "10 million users"): not sized, but the answer says what serving that many at once would take.
        target_tokens_per_s: a generation speed the user wants, tokens/s (one the user saw is an observation).
        target_scope: ``per_user``, ``total`` (aggregate) or ``None`` when the text does not say.
        days_asked: the time is asked in days ("how many days", "要多少天", lexicon ``days_asked_words``): answers
            give durations in days too.
        offline: the text names an offline or batch job (lexicon ``batch_job_words``): an aggregate target is then
            sized at each replica's best batch, with no per-user floor.
        per_user_tokens_per_s: a per-user floor stated beside an aggregate target ("300 tok/s in all, 20 per
            user"), tokens/s; ``target_tokens_per_s`` then holds the aggregate.
        requests_per_s: request rate, requests/s (per minute and per day rates converted).
        ttft_ms_max / tpot_ms_max / latency_ms_max: latency limits, milliseconds.
        latency_percentile: the percentile of a latency limit (99 for "p99").
        training_tokens: training or fine-tuning set size, tokens ("on 2T tokens" -> 2e12).
        tokens_priced: output tokens whose serving cost is asked ("what does 1M output tokens cost" -> 1e6), when
            the cost per token is asked (``token_cost``).
        epochs: passes over the data.
        documents: items to process (documents, samples, rows, files).
        tokens_per_item: tokens per document/request/sample.
        images: images to generate; image_steps: diffusion steps; resolution: [width, height] pixels.
        non_llm_task: a kind of image, speech or embedding work named without a model ("an embedding API",
            "speech-to-text", "文生图"; lexicon ``non_llm_tasks``): the policy's default model of that kind is sized.
        images_per_minute: images a live service must make, images/min ("20 images per minute", "1,000 images an
            hour" -> 16.7): a throughput target, sized as GPUs = ceil(target / one GPU's rate); a rate the user saw is
            an observation, not this.
        audio_hours: hours of audio to transcribe.
        duration_hours: a rental or run length the user has, hours ("for 3 days" -> 72); when several
            periods are named ("per hour? per month?") the longest.
        duration_is_period: ``duration_hours`` is a period a price is asked per ("monthly", "包月"), not a length of
            use: a commitment's rate per period is then its bill for that period, not its whole term.
        periods_hours: every period named when there are several ("按小时...包月" -> [1, 730]), hours, ascending;
            empty otherwise.
        deadline_hours: a run must finish within this, hours ("within 2 weeks").
        gpu_hours: GPU time the user has or asks about, GPU-hours (one GPU for one hour; "5,000 H100 GPU-hours",
            "10k A100 hours", "5000卡时"): neither a GPU count nor a wall clock. A training answer gives the tokens
            it trains on (or checks a stated run against it), the wall clock on the GPUs counted and its cost; a quote
            prices it as the GPUs counted (else one) for ``gpu_hours / count`` hours.
        budget: a total budget.
        price_limit_per_hour: a price ceiling per hour (per GPU-hour when ``price_limit_per_gpu``).
        price_limit_per_gpu: the ceiling is per GPU-hour ("$2/GPU/hr").
        purchase_price: what buying the hardware costs (buy vs rent).
        purchase_price_per_gpu: the purchase price is per card ("$1,800 each", "1.5万一张"), not for them all.
        purchase_budget: money to spend buying cards when how many (and which) to buy is asked ("we have $300k to buy
            GPUs, which and how many", "预算 200 万买卡，买几张"): neither a rental budget nor the price of a stated
            configuration; a price per card given beside it ("at $25k each") is ``purchase_price`` per GPU.
        given_price_per_hour: an hourly price the user pays or wants the answer computed with ("at $2/hr",
            "按每卡每小时 15 块算"); ``given_price_per_gpu``: it is per GPU-hour. Used instead of offers.
        quoted_prices: prices the question quotes as context ("$0.34/h vs $1.19"), not limits.
        electricity_per_kwh: electricity price.
        power_watts: a power figure the user gave, watts.
        utilization_pct: a utilisation the user gave, percent.
        mfu_pct: a model FLOPs utilisation the user gave for training ("at 40% MFU"), percent of the dense peak.
        answer_currency: the currency to answer in ("用人民币报价" -> ``cny``).
        both_currencies: both RMB and USD asked ("人民币和美元都报一下"): money is said in both.
        providers: providers named, in order.
        pricing: pricing models named (``on_demand``, ``spot``, ``commitment``).
        commitment_term: a commitment term named (``1y``, ``3y``).
        region: a cloud region code (``us-east-1``).
        tensor_parallel / pipeline_parallel: a parallel layout the user fixed.
        gpu_count: a GPU count named without a GPU type ("on 8 gpus"); a count next to a GPU name is
            that mention's ``count``.
        node_count: machines/nodes named ("2 nodes").
        gpus_per_node: GPUs per machine when the question asks how many machines ("每台8卡，要几台",
            "how many 8-gpu nodes"): the count is then searched in whole machines of this many GPUs.
        monthly_price: a monthly plan's price the user gives beside pay-as-you-go ("包月 3500 元", "$900/month plan"),
            per GPU, to compare with the hours used at the hourly price.
        days_used: the days the hardware is used in the period ("22 个工作日", "22 working days a month"): with hours a
            day (``utilization_pct`` of a day), the hours billed on demand are days x hours a day.
        bound_asked: the theoretical bound is asked ("theoretical max", "理论上限"), not only the realistic figure.
        single_item: the time of one item is asked ("latency", "one image", "单张"): a rate is stated one item at a
            time (batch 1), not at the batched throughput.
        one_machine: the GPUs must share one machine ("in one server", "单机", "with NVLink between them"):
            a quote then prices them as one instance, never as several smaller ones.
        rented_gpu: in buy vs rent, the GPU id named as the rental alternative when another GPU type is the one
            bought ("buy 2x 4090 or rent an A100": ``a100-sxm-80gb``); its mention's count is the count rented.
        co_hosted: several models named are to run together on the same GPUs ("side by side", "同时部署"): their
            memory is summed against the GPUs', never checked one model at a time.
        at_home: the machine bought runs at home or in an office ("home lab", "in my basement", "workstation",
            "家里"): buy vs rent costs it with home electricity and no colocation, however many cards.
        market: the market the user wants GPUs in (``china_mainland`` for "in China", "国内"; lexicon ``markets``):
            the export rules for the GPUs named there (``knowledge/markets.yaml``) are said.
        billing_terms: billing terms named that no price file has as a pricing model (``monthly``: "包月", "按月",
            "monthly plan"): the answer says they are not published and shows the terms that are.
        sharding: ``fsdp``, ``zero1``, ``zero2``, ``zero3``.
        cpu_offload: CPU offload named.
        offload_share: the share of the model the user put in system RAM ("half of it": 0.5, "30% offloaded": 0.3),
            or ``None``.
        offload_gb: the GB of weights the user put in system RAM ("offload 20 GB", "--cpu-offload-gb 20"), or ``None``.
        host_memory: the system memory named ("DDR5"): ``ddr4``, ``ddr5`` or ``None``.
        gradient_checkpointing: gradient checkpointing named.
        lora_rank: LoRA rank.
        features: hardware or kernel features asked about (``flash_attention_2``, ``bf16``, ``fp8``,
            ``nvlink``, ``p2p``...).
        spec_fields: spec figures asked about (``memory_bandwidth_gb_s``, ``tflops``, ...).
        claimed_ratio: a ratio the question quotes to be checked ("is it 30x faster", "六倍"); a ratio the user saw
            is an observation.
        observations: figures the user saw on their setup, never targets (:class:`Observation`: "I get only 10
            tokens/s", "3 times slower than the A10", "40s per image"), in order; the answer sets its estimate
            beside them. ``observed_tokens_per_s`` and ``observed_ratio`` give the first of each kind.
        percents: percentages the question quotes (other than utilisation).
        claims: ids of the article claims (``knowledge/claims.yaml``) the question quotes or paraphrases.
        claims_wording_quoted: of ``claims``, those whose ``article_wording`` the question quotes (it names the article
            or the article's own figure, ``Claim.article_wording.cues``): the answer then says what that wording gets
            wrong.
        spec_checks: spec figures and ratios the question states and asks whether they are true
            (:class:`SpecCheck`), in order; empty when it asks of none.
        memory_stated_gb: memory amounts the question states that are not a GPU ("used ~18gb").
        requests_per_day: a whole service's requests a day ("1.2M requests per day"), when ``requests_per_s`` came
            from one (its daily average: the answer sizes the peak).
        memory_pool_gb: with no GPU named, the GPU memory the user says they have in all ("we have 1.5TB of VRAM",
            "我们有0.5T显存"), GB; ``None`` otherwise (a size led by a requirement word, "needs 140gb", is not one).
        bandwidth_stated_gb_s: bandwidths the question quotes ("3.2TB/s" -> 3200), as written (bits or bytes
            are not guessed).
        diagnosis: what a pasted error says, when there is one.
        config_error: why a pasted ``config.json`` could not be used.
        unknown_terms: GPU/model names not in the knowledge base, with suggestions.
        not_understood: numbers and quantities that were read but not understood, as written (a zero or
            negative count, amount or duration included: "0 gpus", "-5 users").
        notes: what was assumed while reading (typed sentences).
        limits: the bounds the message hit while being read, stated in the answer (the message cut at
            ``MAX_MESSAGE_CHARS``, a number longer than ``MAX_DIGITS`` digits, a quantity above its bound in
            :data:`bot.parsing.quantities.QUANTITY_LIMITS` or a GPU count above ``MAX_GPU_COUNT``).
        previous_recommendation: conversation state, not a constraint: the configuration the previous
            answer recommended, so that a follow-up asking its price ("租一个月多少钱？") prices it.
    """

    text: str
    language: Literal["en", "zh", "other"] = "en"
    intent: Intent = "unknown"
    asks: list[Ask] = Field(default_factory=list)
    gpus: list[GpuMention] = Field(default_factory=list)
    models: list[ModelMention] = Field(default_factory=list)
    family_model_ids: list[str] = Field(default_factory=list)
    precisions: list[str] = Field(default_factory=list)
    kv_precision: str | None = None
    kv_precisions: list[str] = Field(default_factory=list)
    full_precision: bool = False
    precisions_carried: bool = False
    method: Literal["full", "lora", "qlora"] | None = None
    workload: Literal["inference", "training", "finetune"] | None = None
    engine: str | None = None
    context_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    full_context_prompts: bool = False
    batch_size: int | None = None
    concurrent_users: int | None = None
    daily_active_users: int | None = None
    monthly_active_users: int | None = None
    requests_per_user_per_day: float | None = None
    peak_factor: float | None = None
    users_over_limit: int | None = None
    target_tokens_per_s: float | None = None
    target_scope: Literal["per_user", "total"] | None = None
    per_user_tokens_per_s: float | None = None
    offline: bool = False
    days_asked: bool = False
    requests_per_s: float | None = None
    ttft_ms_max: float | None = None
    tpot_ms_max: float | None = None
    latency_ms_max: float | None = None
    latency_percentile: float | None = None
    training_tokens: float | None = None
    tokens_priced: float | None = None
    epochs: float | None = None
    documents: float | None = None
    tokens_per_item: float | None = None
    images: float | None = None
    image_steps: int | None = None
    resolution: list[int] | None = None
    images_per_minute: float | None = None
    non_llm_task: Literal["images", "transcription", "embeddings"] | None = None
    audio_hours: float | None = None
    duration_hours: float | None = None
    periods_hours: list[float] = Field(default_factory=list)
    duration_is_period: bool = False
    deadline_hours: float | None = None
    gpu_hours: float | None = None
    budget: Money | None = None
    price_limit_per_hour: Money | None = None
    price_limit_per_gpu: bool = False
    purchase_price: Money | None = None
    purchase_price_per_gpu: bool = False
    purchase_budget: Money | None = None
    given_price_per_hour: Money | None = None
    given_price_per_gpu: bool = False
    quoted_prices: list[Money] = Field(default_factory=list)
    electricity_per_kwh: Money | None = None
    power_watts: float | None = None
    utilization_pct: float | None = None
    mfu_pct: float | None = None
    answer_currency: Literal["usd", "cny"] | None = None
    both_currencies: bool = False
    providers: list[str] = Field(default_factory=list)
    pricing: list[PricingModel] = Field(default_factory=list)
    commitment_term: str | None = None
    region: str | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    gpu_count: int | None = None
    node_count: int | None = None
    gpus_per_node: int | None = None
    one_machine: bool = False
    single_item: bool = False
    bound_asked: bool = False
    days_used: float | None = None
    monthly_price: Money | None = None
    at_home: bool = False
    market: str | None = None
    billing_terms: list[str] = Field(default_factory=list)
    rented_gpu: str | None = None
    co_hosted: bool = False
    sharding: str | None = None
    cpu_offload: bool = False
    offload_share: float | None = Field(default=None, gt=0, lt=1)
    offload_gb: float | None = Field(default=None, gt=0)
    host_memory: Literal["ddr4", "ddr5"] | None = None
    gradient_checkpointing: bool | None = None
    lora_rank: int | None = None
    features: list[str] = Field(default_factory=list)
    spec_fields: list[str] = Field(default_factory=list)
    claimed_ratio: float | None = None
    observations: list[Observation] = Field(default_factory=list)
    percents: list[float] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)
    claims_wording_quoted: list[str] = Field(default_factory=list)
    spec_checks: list[SpecCheck] = Field(default_factory=list)
    memory_stated_gb: list[float] = Field(default_factory=list)
    memory_pool_gb: float | None = None
    requests_per_day: float | None = None
    bandwidth_stated_gb_s: list[float] = Field(default_factory=list)
    diagnosis: Diagnosis | None = None
    config_error: str | None = None
    unknown_terms: list[UnknownTerm] = Field(default_factory=list)
    not_understood: list[str] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)
    limits: list[Note] = Field(default_factory=list)
    previous_recommendation: GpuMention | None = None

    # ------------------------------------------------------------------ conveniences (not stored)

    @property
    def model(self) -> ModelMention | None:
        """The first model named, or ``None``."""
        return self.models[0] if self.models else None

    @property
    def precision(self) -> str | None:
        """The first precision named, or ``None``."""
        return self.precisions[0] if self.precisions else None

    @property
    def sequence_tokens(self) -> int | None:
        """Tokens per training sequence of a training or fine-tuning run: the context stated, else the length of each
        sample ("10k samples of 1k tokens each", "每条样本 2048 token": ``tokens_per_item``), a sample being one
        sequence; ``None`` when neither is said or the run is not training (the estimators' default applies)."""
        if self.context_tokens:
            return self.context_tokens
        if self.workload in ("training", "finetune") and self.tokens_per_item:
            return int(self.tokens_per_item)
        return None

    @property
    def observed_tokens_per_s(self) -> float | None:
        """The generation speed the user saw, tokens/s, or ``None``: the first one a tool printed (``measured``), else
        the first the user states; a figure quoted from someone else is not one the user saw."""
        own = [o for o in self.observations if o.kind == "tokens_per_s" and not o.quoted]
        return next((o.value for o in own if o.measured), own[0].value if own else None)

    @property
    def observed_ratio(self) -> float | None:
        """The first speed ratio the user saw (a factor, slower or faster), or ``None``."""
        return next((o.value for o in self.observations if o.kind == "ratio"), None)

    @property
    def budget_usd(self) -> float | None:
        """The budget when given in USD, else ``None`` (converted amounts are the planner's job)."""
        return self.budget.amount if self.budget and self.budget.currency == "usd" else None

    @property
    def price_limit_per_hour_usd(self) -> float | None:
        """The hourly price limit when given in USD, else ``None``."""
        lim = self.price_limit_per_hour
        return lim.amount if lim and lim.currency == "usd" else None

    @property
    def provider(self) -> str | None:
        """The first provider named, or ``None``."""
        return self.providers[0] if self.providers else None

    def fixed(self) -> set[str]:
        """Names of the fields the user set (every set field is a constraint the answer must keep)."""
        defaults = Query(text="")
        skip = {"text", "language", "intent", "asks", "notes", "not_understood", "unknown_terms", "limits",
                "previous_recommendation"}
        return {name for name in type(self).model_fields
                if name not in skip and getattr(self, name) != getattr(defaults, name)}
