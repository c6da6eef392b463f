"""The Answer: what the advisor says, as typed data, independent of language and surface.

Nothing here is prose. Sentences are :class:`~bot.notes.Note` records (a message code and its parameters)
that :mod:`bot.render` turns into English or Chinese; tables hold raw values that the renderer formats per
column. So the Slack message, the terminal text and the JSON are made from the same facts, in the user's
language, and can never disagree.

Units live in field names: GB (10^9 bytes), seconds, milliseconds, tokens/s, USD, USD/hour, hours.
``None`` means "does not apply" (no price known, no training asked).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.notes import Note
from bot.parsing.query import Query

__all__ = ["Action", "Answer", "Option", "Price", "Table"]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Price(_Data):
    """How an option is rented: a real instance type (or several) at one provider.

    Attributes:
        provider, provider_name: provider id and display name.
        instance_type: the instance rented.
        instances: how many instances.
        gpus_rented: GPUs paid for (``instances`` x GPUs per instance).
        idle_gpus: GPUs paid for and not used (an 8-GPU droplet holding a 4-GPU group).
        pricing_model: ``on_demand``, ``spot`` (interruptible) or ``commitment``.
        commitment_term: the commitment's term (``1y``, ``3y``), for commitments.
        term_hours: the commitment's term in hours (8,760 for 1 year), billed whole whatever the use; ``None``
            for on-demand and spot.
        region: the offer's region, when known.
        origin: ``curated`` (knowledge/prices) or ``catalog`` (a refreshed live catalog).
        price_per_hour_usd: all instances, USD/hour.
        price_per_gpu_hour_usd: per GPU rented, USD/hour.
        as_of: the price's date (``None`` = undated catalog snapshot).
        stale: undated, or older than the freshness limit.
        separate_instances: the GPUs sit in more than one instance.
        group_split: a tensor-parallel group spans instances (no fast interconnect inside it).
        source: where the price comes from.
        marketplace: one host's asking price (Vast.ai), not a list price.
        gpu_variant, gpu_variant_name: the GPU actually priced when the provider asked does not rent the variant
            of the option (another memory size or form factor of its family), else ``None``.
    """

    provider: str
    provider_name: str
    instance_type: str
    instances: int = 1
    gpus_rented: int
    idle_gpus: int = 0
    pricing_model: str = "on_demand"
    commitment_term: str | None = None
    term_hours: int | None = None
    region: str | None = None
    origin: str = "curated"
    price_per_hour_usd: float
    price_per_gpu_hour_usd: float
    as_of: date | None = None
    stale: bool = False
    separate_instances: bool = False
    group_split: bool = False
    source: str = ""
    marketplace: bool = False
    gpu_variant: str | None = None
    gpu_variant_name: str | None = None


class Option(_Data):
    """One configuration the planner evaluated (a model on GPU type x count x precision x layout).

    Attributes:
        model, model_name: the model (id and display name), for answers that cover several models.
        gpu, gpu_name: GPU id and display name. gpu_count: GPUs used.
        gpu_memory_gb: memory of one GPU when the user stated one that differs from the datasheet.
        precision, kv_precision: weight and KV-cache formats used. method: fine-tuning method.
        engine: serving engine assumed.
        tensor_parallel, pipeline_parallel, replicas: the layout (``tp x pp`` GPUs per replica).
        fits: the configuration holds in memory. meets: it meets every target of the question.
        weights_gb, kv_cache_gb, overhead_gb, memory_total_gb: memory of one replica, GB.
        memory_per_gpu_gb, usable_gb: what one GPU needs and has (usable capacity), GB.
        users: concurrent users (sequences) this option is evaluated at; max_users: the most it serves
            at the per-user speed target.
        ttft_s: time to first token, s. tpot_ms: time per output token, ms.
        decode_tps: a sequence's decode speed (1 / TPOT) at the load evaluated (``users``), tokens/s; tps_per_user:
            what each user gets over time with prefill counted; throughput_tps: all users together (users x
            tps_per_user). single_user_tps: one sequence's decode speed alone on a replica (batch 1), tokens/s: the
            only figure a sentence may call "for one user".
        cost_per_million_tokens_usd: USD per 1M output tokens at this load.
        full_load_tps: output tokens/s in all at ``max_users`` (the full load a cost per token is stated at).
        tokens: training/fine-tuning tokens; gpu_hours; wall_clock_hours; mfu; sharding.
        price: how it is rented (``None``: no price known).
        duration_hours, total_cost_usd: the rental or run length priced and its cost.
        changes: for an alternative, which of the user's fixed constraints it changes (``gpu``,
            ``count``, ``precision``, ``kv_precision``, ``method``, ``context``, ``provider``).
        rejection: why it does not meet the question (when ``meets`` is False).
        notes: per-option facts worth showing.
    """

    model: str | None = None
    model_name: str | dict[str, str] | None = None
    gpu: str | None = None
    gpu_name: str | None = None
    gpu_count: int | None = None
    gpu_memory_gb: float | None = None
    precision: str | None = None
    kv_precision: str | None = None
    method: str | None = None
    engine: str | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    replicas: int | None = None
    fits: bool | None = None
    meets: bool | None = None
    weights_gb: float | None = None
    kv_cache_gb: float | None = None
    overhead_gb: float | None = None
    memory_total_gb: float | None = None
    memory_per_gpu_gb: float | None = None
    usable_gb: float | None = None
    users: int | None = None
    max_users: int | None = None
    ttft_s: float | None = None
    tpot_ms: float | None = None
    decode_tps: float | None = None
    single_user_tps: float | None = None
    tps_per_user: float | None = None
    throughput_tps: float | None = None
    cost_per_million_tokens_usd: float | None = None
    full_load_tps: float | None = None
    tokens: float | None = None
    gpu_hours: float | None = None
    wall_clock_hours: float | None = None
    mfu: float | None = None
    sharding: str | None = None
    price: Price | None = None
    duration_hours: float | None = None
    total_cost_usd: float | None = None
    changes: list[str] = Field(default_factory=list)
    rejection: Note | None = None
    notes: list[Note] = Field(default_factory=list)

    @property
    def price_per_hour_usd(self) -> float | None:
        """The option's price per hour, USD, or ``None``."""
        return self.price.price_per_hour_usd if self.price else None


class Table(_Data):
    """Rows of raw values under column codes; the renderer localises headers and formats each cell by
    its column's kind (``bot/render/messages/<lang>.yaml``, ``columns``)."""

    columns: list[str]
    rows: list[list[Any]]


class Action(_Data):
    """A likely next step, shown as a button in Slack.

    Attributes:
        action_id: ``show_assumptions``, ``show_all``, ``switch_precision``, ``quote_this`` or ``open_form``.
        label: a message code for the button text.
        value: the follow-up message the button sends (``"what about int4?"``), or ``""``.
    """

    action_id: Literal["show_assumptions", "show_all", "switch_precision", "quote_this", "open_form"]
    label: Note
    value: str = ""


class Answer(_Data):
    """The advisor's reply to one question.

    Attributes:
        query: the request it answers.
        intent: the routed intent.
        title: a short header.
        headline: the verdict: the asked quantity in the user's units, first.
        details: a few supporting sentences.
        options: the configurations evaluated, best first where it applies.
        recommendation: index into ``options`` of the recommended one, or ``None``.
        table: the figures behind the headline (at most a handful of rows by default).
        assumptions: what was assumed (defaults, efficiency factors, variants).
        warnings: what the user must know (tight memory, stale prices, no NVLink, unknown names).
        missing: what was asked and is not known (no spot price, no price for this card).
        sources: where the figures come from.
        actions: likely next steps (buttons).
        examples: example questions (for help and missing information).
        price_as_of: oldest and newest dates of the prices used.
        cny_per_usd / cny_rate_date: the dated rate money is shown with when the user asked for RMB.
    """

    query: Query
    intent: str
    title: Note
    headline: Note
    details: list[Note] = Field(default_factory=list)
    options: list[Option] = Field(default_factory=list)
    recommendation: int | None = None
    table: Table | None = None
    assumptions: list[Note] = Field(default_factory=list)
    warnings: list[Note] = Field(default_factory=list)
    missing: list[Note] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    price_as_of: list[date] = Field(default_factory=list)
    cny_per_usd: float | None = None
    cny_rate_date: str | None = None
