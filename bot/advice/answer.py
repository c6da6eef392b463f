"""The Answer: what the advisor says, independent of how it is shown (Slack, terminal, JSON)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.parsing.query import Query

__all__ = ["Action", "Answer", "Option", "Table"]


class Option(BaseModel):
    """One configuration the advisor considered (a GPU type x count x precision, maybe priced).

    Units: GB (10^9 bytes), seconds, tokens/s, USD, USD/hour, hours. ``None`` means "does not
    apply to this question" (no price known, no training asked).

    ``decode_tokens_per_s_per_sequence`` is the speed while a sequence decodes (1 / TPOT);
    ``tokens_per_s_per_user`` is what each concurrent user gets over time once the time spent on
    every request's prefill is counted: ``throughput_tokens_per_s / concurrent sequences``, so
    users x ``tokens_per_s_per_user`` = ``throughput_tokens_per_s``.
    """

    model_config = ConfigDict(extra="forbid")

    label: str
    gpu: str | None = None
    gpu_name: str | None = None
    gpu_count: int | None = None
    precision: str | None = None
    fits: bool | None = None
    memory_per_gpu_gb: float | None = None
    gpu_memory_gb: float | None = None
    ttft_s: float | None = None
    decode_tokens_per_s_per_sequence: float | None = None
    tokens_per_s_per_user: float | None = None
    throughput_tokens_per_s: float | None = None
    batch_size: int | None = None
    max_batch_size: int | None = None
    provider: str | None = None
    instance_type: str | None = None
    pricing_model: str | None = None
    price_per_hour_usd: float | None = None
    price_as_of: date | None = None
    price_stale: bool | None = None
    cost_per_million_tokens_usd: float | None = None
    gpu_hours: float | None = None
    wall_clock_hours: float | None = None
    total_cost_usd: float | None = None
    notes: list[str] = Field(default_factory=list)


class Table(BaseModel):
    """A small table: header cells and rows of already formatted cells."""

    columns: list[str]
    rows: list[list[str]]


class Action(BaseModel):
    """A likely next step, shown as a button in Slack.

    Attributes:
        action_id: ``show_assumptions``, ``switch_precision`` or ``quote_this``.
        label: button text (at most 75 characters).
        value: what the follow-up message is (``"what about int4?"``), or ``""``.
    """

    action_id: Literal["show_assumptions", "switch_precision", "quote_this"]
    label: str
    value: str = ""


class Answer(BaseModel):
    """The advisor's reply to one question.

    Attributes:
        query: the parsed question it answers.
        title: a short header ("H100 vs A100 for Llama 2 70B").
        verdict: one sentence: the recommendation and its reason.
        details: a few more sentences (plain text, no markup).
        table: the compact figures behind the verdict.
        options: the configurations considered, best first where it applies.
        recommendation: index into ``options`` of the recommended one, or ``None``.
        assumptions: what was assumed (defaults, efficiency factors, variants).
        warnings: feature gates, stale prices, unknown names.
        sources: where the figures come from (knowledge entries' sources).
        price_dates: a one-line summary of the price ``as_of`` dates used.
        actions: likely next steps (buttons).
        examples: example questions (for help and missing information).
    """

    query: Query
    intent: str
    title: str
    verdict: str
    details: list[str] = Field(default_factory=list)
    table: Table | None = None
    options: list[Option] = Field(default_factory=list)
    recommendation: int | None = None
    assumptions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    price_dates: str | None = None
    actions: list[Action] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """Plain-text summary: title, verdict and details (the Slack ``text`` fallback)."""
        return "\n".join([self.title, self.verdict, *self.details])
