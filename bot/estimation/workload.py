"""The serving workload an estimate assumes when the question gives only "N users at C context".

Published serving benchmarks and practitioners size chat traffic per turn, not per context window:
vLLM/SGLang ``benchmark_serving`` replay ShareGPT conversations (~233 prompt and ~220 output tokens
per human turn), and production traces of conversation services (Azure, Splitwise, ISCA 2024) have a
median of 1,020 prompt and 129 output tokens per whole request (history included: chat APIs are
stateless). The rest of a conversation is already in the KV cache (vLLM V1 and SGLang reuse cached
prefixes by default), so a turn prefills only the user's new message, while memory stays sized for
the whole context of every user. "Each request sends a fresh full-length prompt" stays available as
``worst_case=True``. An aggregate target (tokens/s or requests/s in all) sizes each request on its
own (``per_request=True``): the whole request median of the traces unless the question states the
lengths.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from bot.estimation.common import require_positive
from bot.estimation.efficiency import efficiency_for
from bot.estimation.results import EstimationError
from bot.kb.loader import KnowledgeBase

__all__ = ["ServingWorkload", "WorkloadAssumption", "serving_workload"]


class WorkloadAssumption(BaseModel):
    """Which traffic model a :class:`ServingWorkload` uses, in words, with its source.

    Attributes:
        kind: ``chat_prefix_cached`` (default: a turn of a conversation whose earlier turns are a
            cached prefix), ``stated_prompt`` (the caller gave the prompt length: all of it is
            new), ``worst_case_full_prompt`` (every request brings a fresh prompt filling the
            context), ``default_request`` (an aggregate target with no lengths stated: each
            request is the median whole chat request of the traces, all of it new).
        text: one sentence for the answer.
        source: where the figures come from.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["chat_prefix_cached", "stated_prompt", "worst_case_full_prompt", "default_request"]
    text: str
    source: str


class ServingWorkload(BaseModel):
    """Token counts per request for sizing a serving deployment (see :func:`serving_workload`).

    Attributes:
        context_tokens: tokens per user the KV cache is sized for.
        input_tokens: prompt length of a request, cached prefix included (the position decoding
            starts from).
        output_tokens: tokens generated per request.
        prefix_cached_tokens: the part of the prompt already in the KV cache.
        new_prompt_tokens_per_request: prompt tokens each request prefills
            (``input_tokens - prefix_cached_tokens``).
        worst_case: every request brings a fresh full-length prompt.
        assumption: the traffic model, in words, with its source.
    """

    model_config = ConfigDict(frozen=True)

    context_tokens: int
    input_tokens: int
    output_tokens: int
    prefix_cached_tokens: int
    new_prompt_tokens_per_request: int
    worst_case: bool
    assumption: WorkloadAssumption

    def estimate_kwargs(self) -> dict[str, int]:
        """Keyword arguments for :func:`bot.estimation.estimate_inference` (context, input,
        output and prefix-cached tokens)."""
        return {"context_tokens": self.context_tokens, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "prefix_cached_tokens": self.prefix_cached_tokens}


def serving_workload(kb: KnowledgeBase, context_tokens: int | None = None, input_tokens: int | None = None,
                     output_tokens: int | None = None, worst_case: bool = False,
                     per_request: bool = False) -> ServingWorkload:
    """The per-request workload for "N users at C context" questions and aggregate targets.

    Default (chat): every user's sequence holds ``context_tokens`` (the KV cache is sized for it);
    a request is one turn that brings ``chat_turn_new_tokens`` new prompt tokens (233, the ShareGPT
    human turn, efficiency.yaml) on top of the cached earlier turns, and generates
    ``output_tokens``. With ``input_tokens`` the caller stated the prompt: all of it is new.
    ``worst_case`` makes every request a fresh prompt filling the context. ``per_request`` (an
    aggregate target: tokens/s or requests/s in all, no users) sizes each request on its own: the
    stated prompt, else a prompt filling the stated context, else ``chat_request_prompt_tokens``
    (1,020, the median whole chat request of the Azure traces), all of it new.

    Args:
        kb: the knowledge base (defaults and sources come from efficiency.yaml).
        context_tokens: tokens per user the KV cache holds; ``None`` = input + output when the
            input is given (or, with ``per_request``, the default request), else
            ``default_context_tokens`` (4,096).
        input_tokens: the prompt length per request, if the question states it.
        output_tokens: tokens generated per request; ``None`` = ``default_output_tokens`` (256).
        worst_case: every request sends a fresh prompt of the full context.
        per_request: size each request on its own (aggregate targets), not a user's conversation.

    Returns:
        :class:`ServingWorkload` with :meth:`~ServingWorkload.estimate_kwargs` for
        :func:`~bot.estimation.estimate_inference`.

    Raises:
        EstimationError: non-positive counts, or input + output longer than the context.
    """
    for name, value in (("context_tokens", context_tokens), ("input_tokens", input_tokens),
                        ("output_tokens", output_tokens)):
        require_positive(name, value)
    eff = efficiency_for(kb)
    osl = output_tokens or int(eff.c("default_output_tokens"))
    request = eff.constants["chat_request_prompt_tokens"]
    default_request = per_request and input_tokens is None and context_tokens is None
    if default_request:
        input_tokens = int(request.value)
    if context_tokens is None:
        context = input_tokens + osl if input_tokens is not None else int(eff.c("default_context_tokens"))
        if input_tokens is None and context <= osl:
            # a long stated output and no context: the default chat request before it, not a refusal
            context = osl + int(request.value)
    else:
        context = context_tokens
    if input_tokens is not None and input_tokens + osl > context:
        raise EstimationError(f"input {input_tokens} + output {osl} tokens exceed the context of {context}")
    if context <= osl:
        raise EstimationError(f"a context of {context} tokens leaves no room for a prompt before {osl} output tokens")
    turn = eff.constants["chat_turn_new_tokens"]
    if default_request:
        isl = new = input_tokens
        assumption = WorkloadAssumption(
            kind="default_request",
            text=f"lengths not given: each request sends {isl:,} prompt tokens (the median whole chat request of "
                 f"production traces, all of it new) and generates {osl:,}",
            source=request.source)
    elif input_tokens is not None:
        isl, new = input_tokens, input_tokens
        assumption = WorkloadAssumption(
            kind="stated_prompt",
            text=f"each request sends the stated {isl:,}-token prompt (all of it new) and generates {osl:,} tokens",
            source="the question")
    elif worst_case or per_request:
        isl = new = context - osl
        assumption = WorkloadAssumption(
            kind="worst_case_full_prompt",
            text=f"every request sends a fresh {isl:,}-token prompt filling the {context:,}-token context "
                 f"and generates {osl:,} tokens",
            source="the question (worst case asked for)" if worst_case else "the question (the context stated)")
    else:
        isl = context - osl
        new = min(int(turn.value), isl)
        assumption = WorkloadAssumption(
            kind="chat_prefix_cached",
            text=f"chat traffic: each user's conversation fills up to {context:,} tokens of KV cache; a request is one "
                 f"turn adding {new:,} new prompt tokens to the cached earlier turns and generating {osl:,} tokens "
                 "(say \"each request sends the full prompt\" for the worst case)",
            source=turn.source)
    return ServingWorkload(context_tokens=context, input_tokens=isl, output_tokens=osl,
                           prefix_cached_tokens=isl - new, new_prompt_tokens_per_request=new,
                           worst_case=worst_case and input_tokens is None, assumption=assumption)
