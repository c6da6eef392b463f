"""The parsed form of one user question: what was asked about which GPUs, model and workload.

Everything here is data: :func:`bot.parsing.parser.parse_question` fills it, the advisor reads it.
Units live in field names or docstrings: token counts are tokens, durations hours, money USD.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Diagnosis", "GpuMention", "Intent", "ModelMention", "Query", "UnknownTerm"]

#: What the user wants. ``unknown`` covers noise and questions outside the bot's scope.
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


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GpuMention(_Record):
    """A GPU named in the question, resolved to a knowledge-base id.

    Attributes:
        id: GPU id in ``knowledge/gpus.yaml`` (``"a100-sxm-80gb"``).
        count: how many the user has or asks about (``8x A100`` -> 8); ``None`` when not said.
        as_written: the text as the user typed it (``"a100 40g"``, ``"p5.48xlarge"``).
        variant_assumed: the text did not say which variant (``"A100"``: SXM or PCIe, 40 or
            80 GB), so the knowledge base's default variant was taken; a note says which.
    """

    id: str
    count: int | None = None
    as_written: str
    variant_assumed: bool = False


class ModelMention(_Record):
    """The model the question is about.

    Either a knowledge-base model (``id`` set) or a generic one described by its size
    (``generic=True``, ``id=None``: "a 7b model", "our own 13B", "100B MoE with 10B active").

    Attributes:
        id: model id in ``knowledge/models.yaml``, or ``None`` for a generic model.
        as_written: the text as the user typed it.
        variant_assumed: a family without a version ("llama 70b") was resolved to the newest
            matching model, or a fine-tune name to its base model; a note says which.
        generic: the model is known only by its size (and maybe shape).
        params_total_b: total parameters, billions (generic models; for MoE all experts).
        params_active_b: parameters active per token, billions (generic MoE only).
        layers: number of transformer layers, when the user gave it.
        hidden_size: model width, when the user gave it.
        kv_heads: key/value heads (GQA groups), when the user gave it.
        config: the sizing fields of a pasted Hugging Face ``config.json``; the architecture
            then comes from it exactly (see :mod:`bot.parsing.config_paste`).
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
    config: dict | None = None


class UnknownTerm(_Record):
    """A GPU or model name that is not in the knowledge base.

    Attributes:
        as_written: the name as typed (``"A40900"``, ``"gtx 1080 ti"``, ``"m2 ultra"``).
        suggestions: up to three knowledge-base display names that look close, best first;
            they are offered to the user, never silently substituted.
    """

    as_written: str
    suggestions: list[str] = Field(default_factory=list)


class Diagnosis(_Record):
    """What a pasted error message says.

    Attributes:
        kind: ``oom`` (out of GPU memory, including TGI's "Not enough memory to handle N
            total tokens"), ``feature_gate`` (a precision or kernel needs a newer GPU) or
            ``other`` (wrong output, hangs, NCCL errors: not a sizing problem).
        feature: for ``feature_gate``, the feature named (``"fp8"``, ``"bf16"``,
            ``"flash_attention"``).
        required_compute_capability: for ``feature_gate``, the minimum CUDA compute
            capability the message names (``9.0``).
        total_capacity_gib: PyTorch's "GiB total capacity" figure, GiB (2**30 bytes).
        tried_to_allocate_gib: PyTorch's "Tried to allocate" figure, converted to GiB.
    """

    kind: Literal["oom", "feature_gate", "other"]
    feature: str | None = None
    required_compute_capability: float | None = None
    total_capacity_gib: float | None = None
    tried_to_allocate_gib: float | None = None


class Query(_Record):
    """One parsed question.

    Attributes:
        text: the question after Slack markup was removed (:func:`clean_slack_text`).
        intent: what the user wants (see :data:`Intent`).
        gpus: GPUs named, in order of first mention, one entry per GPU id.
        model: the model the question is about, or ``None``.
        precision: weight precision, normalised: ``fp32``, ``bf16``, ``fp16``, ``fp8``,
            ``int8``, ``int4``, ``awq``, ``gptq``, ``nf4`` or a GGUF quant such as ``q4_k_m``.
        kv_precision: KV-cache precision when stated separately ("fp8 kv cache").
        method: fine-tuning method: ``full``, ``lora`` or ``qlora``.
        context_tokens: context length, tokens ("8k ctx" -> 8192).
        input_tokens: prompt length per request, tokens.
        output_tokens: generated tokens per request.
        batch_size: batch size (sequences).
        concurrent_users: users or requests in flight at once.
        target_tokens_per_s: a generation speed the user mentions, tokens/s.
        target_scope: whether that speed is ``per_user`` or ``total`` (aggregate).
        requests_per_s: request rate, requests/s.
        training_tokens: training set size, tokens ("on 2T tokens" -> 2e12).
        duration_hours: a rental or run length, hours ("3 days" -> 72).
        budget_usd: a total budget, USD.
        price_limit_per_hour_usd: a per-hour price ceiling or the one hourly price quoted, USD/hour.
        provider: provider id (``aws``, ``runpod``...).
        pricing: ``on_demand``, ``spot`` or ``commitment``.
        region: a cloud region code (``us-east-1``).
        engine: serving/training engine: ``vllm``, ``tgi``, ``tensorrt-llm``, ``llama.cpp``,
            ``ollama``, ``exllama`` or ``hf``.
        workload: what the GPUs are for, whatever the intent: ``inference``, ``training`` or
            ``finetune`` ("V100 vs A100 for finetuning" compares fine-tuning), or ``None``.
        diagnosis: what a pasted error says, when there is one.
        config_error: why a pasted ``config.json`` could not be used (invalid JSON, missing
            ``num_hidden_layers``...), so the answer can say so instead of guessing.
        language: ``en``, ``zh`` or ``other`` (Japanese, Korean, ...).
        unknown_terms: GPU/model names not in the knowledge base, with suggestions.
        notes: what was assumed, one sentence each, for the answer to show.
    """

    text: str
    intent: Intent = "unknown"
    gpus: list[GpuMention] = Field(default_factory=list)
    model: ModelMention | None = None
    precision: str | None = None
    kv_precision: str | None = None
    method: Literal["full", "lora", "qlora"] | None = None
    context_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    batch_size: int | None = None
    concurrent_users: int | None = None
    target_tokens_per_s: float | None = None
    target_scope: Literal["per_user", "total"] | None = None
    requests_per_s: float | None = None
    training_tokens: float | None = None
    duration_hours: float | None = None
    budget_usd: float | None = None
    price_limit_per_hour_usd: float | None = None
    provider: str | None = None
    pricing: Literal["on_demand", "spot", "commitment"] | None = None
    region: str | None = None
    engine: str | None = None
    workload: Literal["inference", "training", "finetune"] | None = None
    diagnosis: Diagnosis | None = None
    config_error: str | None = None
    language: Literal["en", "zh", "other"] = "en"
    unknown_terms: list[UnknownTerm] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
