"""Route a request to the intent that answers it: one ordered table of rules, first match wins.

The router reads only the parsed request (what is asked, the workload, the names and quantities found) and
a marked copy of the text in which every GPU mention is ``§g`` (to see "A vs B", "faster than B"). It is
the parser's last step, so ``gpu-advisor parse`` shows the intent the answer will use, and
:mod:`bot.advice` dispatches on ``Query.intent`` without deciding it again.

The rules (each a kind of question, not a particular message), in order:

1. ``help``: empty, or only a help phrase, with nothing named.
2. ``diagnose``: a pasted symptom that is not a sizing problem (garbage output, hangs, NCCL errors).
3. ``spec_lookup``: a claim of the H100 article quoted or paraphrased (``Query.claims``), unless a model is
   named with a sizing ask (fit, GPU count, speed...): that question is routed by the rules below and the
   claim's verdict follows its answer.
4. ``recommend``: money to spend buying cards, how many or which asked (``Query.purchase_budget``); ``quote``: buy vs
   rent (break-even), or a purchase price given. (Before it: the tokens a training run gets
   through in a given time on given GPUs, or for a given budget, go to ``size_training``, or ``finetune`` when
   fine-tuning is said.) Then GPU-hours with a
   model and no serving workload: ``size_training`` (``finetune`` when fine-tuning is said).
5. ``recommend``: a recommendation asked in so many words, the largest model asked for, a budget or price
   limit without GPUs (and no cost asked), or the cheapest option asked with no GPU or model named. (Before it: a
   recommendation asked among two or more GPUs named for a model, with no money to spend, "A、B、C 跑 X 选哪个", is
   their comparison, ``compare``.)
6. ``quote``: money asked about (price, cost, how much), the cheapest of named GPUs, or prices quoted for
   named GPUs; not what serving a model costs, which the sizing answer prices (rule 11), nor GPUs compared
   for a model, which the comparison prices (rule 7). A model the knowledge base lacks counts as a model here;
   the size of a run (GPUs, fit, memory) asked beside its cost with nothing to price is the run's question
   (rule 12), and GPUs compared on speed or specs with the price one point of it are a comparison (rule 9).
7. ``compare``: two GPUs joined ("A vs B", "A or B", "A/B", "also tried B"; "A/B" alone with a workload and
   no comparison asked lists the options of that workload, rule 12, and GPUs joined in an out-of-memory report
   with a workload are the setups tried, and "A or B" asked of someone else's setup beside a run asks which one
   was used) or a GPU after a relation; one GPU in one setup is compared with nothing
   ("faster than B", "worth it over B", "替代 B"): with a model always; without one when no spec word, support
   question or quoted ratio is asked ("8xH100+nvlink is worse than 4xA100": the NVLink named on the way is no
   spec question).
8. ``spec_lookup``: a hardware fact asked (specs, TFLOPS, bandwidth, NVLink) of named GPUs, support of a named
   feature ("supports FA2") or of a precision on GPUs with no model ("does the L20 support fp8"), a kernel
   feature asked of a GPU with nothing to size ("can a T4 do FA2 for llama 3 8b"), or a ratio quoted ("30x
   faster"), unless a model is named with a workload, or with a fit or sizing ask (the sizing answer then
   states the figures asked).
9. ``compare``: the remaining joined GPUs, or a comparison asked with two GPUs named.
10. ``spec_lookup``: a precision asked of named GPUs with no model ("can a V100 run bf16?").
11. ``diagnose``: a pasted error with no model named.
12. ``finetune`` / ``size_training`` / ``size_inference``: by the workload (fine-tuning words win; between
    training and serving words the first one mentioned wins).
13. ``quote``: GPUs named with rental terms (a duration, provider, spot/reserved or a verb such as "rent")
    and no model.
14. ``size_inference``: a model or GPU with running words (run, fit, OOM, 跑, 够) or a sizing ask.
15. ``recommend``: a weak recommendation ("best", "which gpu"), or the cheapest asked.
16. ``spec_lookup``: memory, bandwidth or speed of named GPUs with no model.
17. By entities: a model -> ``size_inference``; two GPUs -> ``compare``; one -> ``spec_lookup``; a diagnosis
    -> ``diagnose``; nothing -> ``unknown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from bot.parsing.lexicon import Lexicon
from bot.parsing.query import Query

__all__ = ["RouteInputs", "find_workload", "route", "trains_released_model"]

#: What is asked that only a sizing answer gives.
_SIZING_ASKS = frozenset({"fit", "gpu_count", "users_served", "speed", "memory", "time", "max_context"})


#: Training tokens from which a run on a released model is pretraining (continued or not), not fine-tuning:
#: fine-tuning sets are up to a few billion tokens (Tulu 3 SFT ~1B; LIMA 0.75M), pretraining corpora start around
#: 10^11 (Pythia 300B; Llama 2 2T; Qwen3 36T).
_PRETRAINING_TOKENS = 1e11
#: GPUs in one run from which training is at pretraining scale, not a fine-tune: the largest open fine-tunes use a few
#: hundred (Tulu 3 405B: 256 H100s), pretraining runs thousands (DeepSeek-V3: 2,048 H800s; Llama 3 405B: 16,384 H100s).
_PRETRAINING_GPUS = 1024
#: Weight formats any GPU runs (dequantized to 16-bit in the kernels): weight-only quantizations and llama.cpp's GGUF
#: types ("q4_k_m"); a question naming one with a GPU asks no hardware spec.
_WEIGHT_ONLY = re.compile(r"gptq|awq|nf4|exl2|i?q\d(?:_[a-z0-9]+)*")
#: What sizes a run: asked beside its cost with nothing to price, the run's answer is meant (it gives the cost too).
_RUN_SIZE_ASKS = frozenset({"gpu_count", "node_count", "fit", "memory"})
#: What GPUs are compared on besides price: said with a price, the comparison is meant.
_MERIT_ASKS = frozenset({"speed", "throughput", "spec", "memory"})


@dataclass(frozen=True)
class RouteInputs:
    """What the router looks at besides the request.

    Attributes:
        low: the lower-cased, prepared message.
        marked: ``low`` with every GPU mention (known or unknown) replaced by ``§g``.
        gpu_names: distinct GPUs named (known ids, capacity-only cards and unknown names).
        error_paste: the message contains a pasted error or traceback.
        help_only: the message is only a help phrase.
        strong_recommend: a recommendation is asked in so many words ("recommend", "what should I buy").
        explicit_spec: a spec is asked with a spec word that is not also a feature's name ("specs",
            "bandwidth", "tflops"; not "nvlink" alone, which may just describe a setup).
        gpu_setups: distinct setups among the GPU mentions, a GPU with each count said ("4x A100 vs 8x A100":
            two; "8 x 910B4 ... rather than the 910B4": one); a comparison needs two.
        setup_question: the message asks about someone else's setup ("what is your GPU type", "was it a ...":
            lexicon ``setup_question_words``).
        consumer_gpus: GPUs are named and every one is a consumer (GeForce-class) card of the knowledge base
            (``Gpu.segment``), a card named only by its memory included ("my 12GB card").
    """

    low: str
    marked: str
    gpu_names: int
    error_paste: bool
    help_only: bool
    strong_recommend: bool
    explicit_spec: bool = True
    gpu_setups: int = 2
    setup_question: bool = False
    consumer_gpus: bool = False


@lru_cache(maxsize=4)
def _compare_patterns(connectors: str, relations: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    pair = re.compile(rf"§g\s*\)?\s*\(?\s*(?:{connectors})\s*\(?\s*(?:an?\s+|the\s+|one\s+)?§g")
    rel = re.compile(
        rf"(?:{relations})\s*(?:(?:just|only)\s+)?(?:an?\s+|the\s+|my\s+|our\s+|a\s+single\s+|one\s+)?§g"
        r"|\bfrom\s+(?:an?\s+|the\s+|our\s+|my\s+)?§g\s*(?:\w+\s+){0,2}?to\s+(?:an?\s+|the\s+)?§g"
        r"|\bbetween\s+(?:an?\s+|the\s+)?§g\s*(?:,|and|&|or)\s*(?:an?\s+|the\s+)?§g"  # "between A and B (and C)"
        r"|(?:upgrad|switch|mov|migrat)\w*\s+(?:from\s+)?(?:an?\s+|the\s+|our\s+|my\s+)?§g\s+to\s+(?:an?\s+)?§g"
        r"|(?:at|to|reach\w*|match\w*|like|near|close\s+to|basically|just|only|about|around|roughly|(?:is|'s|as)|than)\s+(?:an?\s+|the\s+)?§g[\s-]+(?:speed|perf(?:ormance)?|level)\b|从\s*§g\s*(?:换|升级|迁移)?\s*(?:到|成)\s*§g")
    return pair, rel


def find_workload(low: str, lex: Lexicon) -> str | None:
    """The workload the message is about, whatever its intent: ``finetune``, ``training``, ``inference``
    or ``None``. Fine-tuning words win; between training and serving words the first one mentioned wins
    ("inference mostly, maybe training" is inference).

    A word that names its workload only through a tool, an artifact or its object (lexicon ``workloads.indirect``:
    "lora", "llama factory", "reproduce") yields to an explicit word of another workload: "推理 llama13B + 中文lora"
    and "llamafactory-cli chat ... 推理很慢" run a tuned model, "reproduce the vllm inference throughput" serves. A
    fine-tuning tool said with training words is still a fine-tune ("train a lora")."""
    # a workload word written as a repository's owner ("unsloth/Llama-3.2-3B-bnb-4bit") names a checkpoint, no workload
    found = [(m.start(), lex.workloads.value(m.group(0)), bool(lex.indirect_workload.fullmatch(m.group(0))))
             for m in lex.workloads.finditer(low) if not re.match(r"/[a-z0-9]", low[m.end():m.end() + 2])]
    direct = [k for _, k, indirect in found if not indirect]
    indirect = [k for _, k, is_indirect in found if is_indirect]
    if "finetune" in direct or ("finetune" in indirect and ("training" in direct or "inference" not in direct)):
        return "finetune"
    for kinds in (direct, indirect):  # the first explicit training or serving word, else the first indirect one
        for kind in kinds:
            if kind in ("training", "inference"):
                return kind
    return None


def trains_released_model(query: Query, low: str, lex: Lexicon) -> bool:
    """Whether "training" said of the question is fine-tuning a released model (rule 12).

    Training a model the knowledge base has (or one named that it lacks) on a modest token count, or none, is
    fine-tuning it ("trying to train Mistral 7B", "A100 PCIe or SXM4 for training llama 3 8b"); pretraining is said
    (lexicon ``workloads.pretraining``: "from scratch", "预训练") or has its scale (``_PRETRAINING_TOKENS``, or a run
    on ``_PRETRAINING_GPUS`` GPUs or more: "training R1 from V3 took 2048 H800s"); a size alone ("train a 1.3B
    model") may be either and stays training.

    Args:
        query: the parsed question (its workload, models and training tokens).
        low: the lower-cased message.
        lex: the lexicon.

    Returns:
        True when the workload is training and the run is a fine-tuning of a released model.
    """
    gpus_in_run = max([query.gpu_count or 0, *(g.count or 0 for g in query.gpus)])
    return query.workload == "training" and bool(query.models) and all(
        m.id or m.name_unknown for m in query.models) and not lex.pretraining.search(low) and \
        (query.training_tokens or 0) < _PRETRAINING_TOKENS and gpus_in_run < _PRETRAINING_GPUS


def route(query: Query, x: RouteInputs, lex: Lexicon) -> str:
    """The :data:`~bot.parsing.query.Intent` of a request (see the module docstring for the rules).

    Args:
        query: the request, with every field but ``intent`` filled.
        x: the marked text and flags (:class:`RouteInputs`).
        lex: the lexicon (comparison connectors and relations).

    Returns:
        The intent name.
    """
    asks = set(query.asks)
    has_model = bool(query.models) or query.config_error is not None
    gpus = x.gpu_names
    has_entities = bool(gpus or query.models or query.unknown_terms or query.config_error)
    diagnosis = query.diagnosis.kind if query.diagnosis else None
    money = query.budget or query.price_limit_per_hour
    if not x.low.strip() or (not has_entities and (x.help_only or ("help" in asks and len(x.low) < 40))):
        return "help"
    if diagnosis in ("other", "kv_capacity"):
        return "diagnose"  # a refusal to start is answered by its fix, whatever else the message names
    priced = "cost" in asks and bool(gpus) and bool(query.duration_hours or any(g.count for g in query.gpus))
    # a run's cost asked of a model ("按这个价，全参微调 70B 训 1 亿 token 要多少钱") is a sizing question too
    run_cost = has_model and query.workload in ("training", "finetune") and bool(asks & {"cost", "token_cost"})
    if query.claims and not (has_model and asks & _SIZING_ASKS) and not priced and not run_cost:
        # (a claim beside a cost of named GPUs, "宣传说 2.24 美元每卡时起，8 张一个月多少钱", is that quote, the
        # claim's verdict second, like a sizing question)
        # a claim quoted beside a model and a sizing ask ("H100 NVL 188GB 单卡能装下 70B fp16 吗") is that sizing
        # question: it is answered first, the claim's verdict second (bot.advice.advise)
        return "spec_lookup"
    if query.purchase_budget is not None:
        return "recommend"  # "we have $300k to buy GPUs, which and how many": the cards the money buys
    if "break_even" in asks or query.purchase_price is not None:
        return "quote"
    if query.gpu_hours and has_model and query.workload != "inference":
        # "5,000 H100 GPU-hours for a 7b", "10k A100 hours budget, how long on 64": GPU time for a run answers how many
        # tokens, how long and what it costs, whatever money word is said
        return "finetune" if query.workload == "finetune" else "size_training"
    if "tokens_in_time" in asks and (query.duration_hours or query.deadline_hours) and query.workload != "inference" \
            and (query.gpus or query.gpu_count) and has_model:
        # "how many tokens can we push through a 13b in 14 days on 64 A100s" (a fine-tune when the method says so)
        return "finetune" if query.workload == "finetune" else "size_training"
    if "tokens_in_time" in asks and query.budget is not None and query.workload in ("training", "finetune") \
            and has_model and not query.training_tokens:
        # "with a $50k budget on H100s, how many tokens can I train a 3B on", "预算2万，LoRA 能微调多少 token"
        return "finetune" if query.workload == "finetune" else "size_training"
    if (query.budget is not None or query.price_limit_per_hour is not None) and has_model and \
            asks & {"users_served", "gpu_count"} and gpus and \
            not any(g.count for g in query.gpus) and query.workload in (None, "inference"):
        # "每月预算十万，用 H20 跑 72B，能撑多少并发", "how many H100s can $60k a month rent for a 70b": the most
        # users the money buys on that GPU type, and how many GPUs that is
        return "recommend"
    if x.strong_recommend and gpus >= 2 and has_model and not money and query.budget is None and \
            "largest_model" not in asks:
        # "4090 48G、L20、A800 跑 Qwen2.5-32B 选哪个", "what should we buy, L40S or A100, for llama 3 8b": a choice among the
        # GPUs named for a model with no money to spend compares them (each on the GPUs that hold the model, its price
        # deciding), not the most users a budget would buy
        return "compare"
    if x.strong_recommend or ("largest_model" in asks) or (money and not gpus and "cost" not in asks) or (
            query.budget is not None and not gpus):
        return "recommend"
    if "cheapest" in asks and not gpus and not has_model:
        return "recommend"
    # a model the knowledge base lacks is still a model to run ("the lowest cost way to run this model (Grok-1) on
    # 8 x 32GB V100"): its cost is a serving or run question, never a bare quote of the GPUs
    named_model = has_model or any(u.kind == "model" for u in query.unknown_terms)
    if query.budget is not None and gpus and not has_model and query.workload is None:
        return "quote"  # "how many H100 hours can $1000 buy": what the money rents of the GPUs named
    pair, rel = _compare_patterns(lex.compare_connectors.pattern, lex.compare_relations.pattern)
    choice, _ = _compare_patterns(lex.choice_connectors.pattern, lex.compare_relations.pattern)
    # "A100/A800" lists options: with a workload and no comparison asked they are the options of the workload
    listed_only = not choice.search(x.marked) and not rel.search(x.marked) and bool(query.workload) and not (
        asks & {"comparison", "cheapest", "best"})
    # "fine-tuning OOMs on an A100 or four V100s": GPUs said with an out-of-memory report are the setups tried, not
    # a comparison asked
    tried = diagnosis == "oom" and bool(query.workload) and not asks & {"comparison", "cheapest", "best", "speed"}
    # "what is your GPU type, A100 80G or 40G?" beside a run: which one someone used is asked, not which is better
    asked_of_setup = x.setup_question and bool(query.workload) and not asks & {"comparison", "cheapest", "best",
                                                                                "speed"}
    # "can a 3090 or 4090 run flux?", "3090或4090 单卡可以跑 llama 13b 吗": alternatives offered to a fit question, with
    # nothing compared, are each checked (the sizing answer covers every GPU named), not ranked
    either, _ = _compare_patterns(lex.either_connectors.pattern, "(?!)")
    offered = has_model and bool(asks & {"fit", "support"}) and not asks & {
        "comparison", "cheapest", "best", "speed", "cost", "difference", "throughput", "users_served"} and bool(
        either.search(x.marked)) and all(either.fullmatch(m.group(0)) for m in pair.finditer(x.marked)) and \
        not rel.search(x.marked)
    listed_only = listed_only or tried or asked_of_setup or offered
    # one GPU in one setup compares it with something that is no GPU ("the HBM rather than the 910B4 itself")
    joined = bool(gpus and (pair.search(x.marked) or rel.search(x.marked))) and not listed_only and (
        gpus >= 2 or x.gpu_setups >= 2)
    # what serving a model costs needs the serving plan first: the sizing answer prices it ("monthly cost to
    # serve llama 70b to 20 users"); a run (training, fine-tuning) or GPUs alone are priced by the quote
    # "what does 1M output tokens cost for llama 3.1 8b": a cost per token is a serving cost
    # "run 2M documents through llama 3.1 8b: how long and what does it cost": items through a model are a batch
    # inference job, whose cost the serving answer gives
    # "what does llama 70b cost per hour": a model priced with no GPUs and no run named is priced as served
    # "8 张 A800 跑 qwen 72b 给 200 人用，一个月多少钱": users of a model are a load to serve, whose cost the serving
    # answer gives
    # "what does llama 405b in fp8 cost on H100s at RunPod vs Lambda": GPUs named without a count for a model are
    # as many as the model needs, which only the sizing answer knows (a count stated is priced as written)
    uncounted = bool(gpus) and not query.gpu_count and not any(g.count for g in query.gpus)
    serving_cost = named_model and (query.workload == "inference" or (
        ("token_cost" in asks or bool(query.documents) or bool(query.concurrent_users)
         # "what does 8 B200 cost per hour, and how fast would deepseek v3 run on them": a serving figure asked
         or bool(asks & {"speed", "users_served", "throughput"})
         or (not gpus and not query.training_tokens) or (uncounted and not query.training_tokens))
        and query.workload is None and not query.method))
    if joined and has_model and gpus >= 2 and not query.claims and "break_even" not in asks:
        # GPUs compared for a model, whatever figure is asked of them (speed, cost per token, cost of a run)
        return "compare"
    # "how many a100 did it cost in training", "how much resource did it take to fine-tune llama 7b": the size of a
    # run (GPUs, fit, memory) is asked with no money, time or provider to price; the run's answer gives its cost with
    # it ("how long and what does it cost" asks the quote of the run)
    sized_run = query.workload in ("training", "finetune") and bool(asks & _RUN_SIZE_ASKS) and not (
        query.duration_hours or query.deadline_hours or query.budget or query.given_price_per_hour or query.pricing
        or query.providers or query.quoted_prices)
    # "an RTX 3090 versus a Tesla V100 ... going into the question of price": GPUs compared on what they do, with the
    # price one point of it, are a comparison (its table prices each); GPUs compared on price alone are a quote
    compared_on_merit = joined and gpus >= 2 and bool(asks & _MERIT_ASKS) and not (
        query.duration_hours or query.budget or query.quoted_prices)
    if not serving_cost and not sized_run and not compared_on_merit and (
            "cost" in asks or ("cheapest" in asks and gpus and not named_model) or (query.quoted_prices and gpus)):
        return "quote"
    if joined and has_model and not query.claims:
        return "compare"
    # "support" is a hardware question when a feature is named ("does the T4 support FA2"), or a precision of
    # GPUs with no model ("does the L20 support fp8"); "this should work with 24gb" beside a model is not
    supports = "support" in asks and bool(query.features or (query.precisions and not has_model))
    # "a single 4090 vs 4x 4060 Ti, will the bandwidth be a bottleneck": setups of different GPU counts compared are a
    # comparison, whatever spec is named on the way (a spec lookup compares no setups)
    setups_compared = joined and "comparison" in asks and len({g.count or 1 for g in query.gpus}) > 1
    if joined and query.claimed_ratio is None and not query.spec_checks and not supports and (
            not ("spec" in asks and x.explicit_spec) or setups_compared):
        return "compare"  # "8xH100+nvlink is worse than 4xA100": two GPUs compared, a feature named on the way
    # a kernel feature asked of a GPU with no sizing asked and no workload ("can a T4 do FA2 for llama 3 8b");
    # a precision that is also a feature ("bf16") is the model's precision there, not a question
    kernel_features = [f for f in query.features if lex.precisions.value(f) is None]
    feature_question = bool(kernel_features and gpus) and not (asks & _SIZING_ASKS) and not query.workload
    # memory or bandwidth stated with a value describes the user's card ("一款国产卡，48GB 显存，带宽 1TB/s，能跑
    # Qwen2.5-32B 吗"): with a model and a fit asked, that is sizing, not a spec question
    stated_card = has_model and bool(asks & _SIZING_ASKS) and bool(
        query.bandwidth_stated_gb_s or query.memory_stated_gb or any(g.capacity_only for g in query.gpus))
    # a spec asked beside a model and a fit or sizing ask ("910B 显存多大，能跑 Qwen2.5 72B 吗") is the sizing question:
    # its answer states the figures asked first (bot.advice.advise)
    spec_and_fit = has_model and bool(asks & (_SIZING_ASKS - {"memory"})) and bool(gpus) and \
        query.claimed_ratio is None and not supports and not feature_question
    strong_spec = (("spec" in asks and not stated_card) or supports or feature_question or
                   query.claimed_ratio is not None or bool(query.spec_checks)) and not spec_and_fit
    # a card named only by its memory ("my 12GB card", "单卡24G") has no spec sheet: a question about it is sizing
    spec_gpus = bool(gpus) and not (query.gpus and all(g.capacity_only for g in query.gpus) and not any(
        u.kind == "gpu" for u in query.unknown_terms))
    # "两张 2080ti 能否满足运行的需求": a fit asked of a workload on named GPUs is sizing, a spec word on the way
    workload_fit = "fit" in asks and bool(query.workload) and not (
        query.features or query.claimed_ratio is not None or query.spec_checks)
    if strong_spec and diagnosis != "feature_gate" and (not has_model or not query.workload) and not workload_fit:
        if spec_gpus or (query.features and not query.gpus) or query.claimed_ratio is not None:
            return "spec_lookup"
    if joined or (gpus >= 2 and asks & {"comparison", "difference"} and not query.duration_hours):
        # "A100 40G and 80G difference for training": two GPUs and the difference between them asked, with no model
        # to run, compare them (the figures the workload follows), whatever the workload
        return "compare"
    # (a hardware format: a weight-only or GGUF quantization, "q4_k_m", "awq", runs on any GPU and asks no spec)
    hardware_formats = [p for p in query.precisions if not _WEIGHT_ONLY.fullmatch(p)]
    if hardware_formats and spec_gpus and not has_model and diagnosis is None and (
            "fit" in asks or "spec" in asks or "support" in asks):
        return "spec_lookup"
    if (diagnosis and not has_model and (x.error_paste or not gpus)) or (diagnosis == "feature_gate" and x.error_paste):
        # a pasted "bf16 is only supported on compute capability 8.0" is answered by its fix, model named or not
        return "diagnose"
    workload = query.workload
    if workload is None and query.training_tokens and has_model and not (
            query.concurrent_users or query.requests_per_s or query.target_tokens_per_s or query.documents):
        # "1000B dense model, 5T tokens, 2048 H100, how long": a token count to push through a model is a run
        return "size_training"
    if trains_released_model(query, x.low, lex):
        # "trying to train Mistral 7B", "training pythia-2.8b on a p3": training a released model (one in the
        # knowledge base, or one named that it lacks) on a modest (or no) token count is fine-tuning it; pretraining
        # is said ("from scratch", "预训练") or has its scale; a size alone ("train a 1.3B model") may be either
        return "finetune"
    if workload == "training" and not query.models and x.consumer_gpus and not lex.pretraining.search(x.low) and \
            not query.training_tokens:
        # "can I train on my 3090?", "24G显存的3090可以训练吗": training with no model named on consumer cards only is
        # a fine-tune of a released model (a repository's): pretraining runs on data-centre GPUs, and is said
        # ("from scratch") or sized (a token count) when meant
        return "finetune"
    if workload is not None:
        return {"finetune": "finetune", "training": "size_training", "inference": "size_inference"}[workload]
    rental = query.duration_hours or query.providers or query.pricing or lex.rent_verbs.search(x.low)
    if rental and gpus and not has_model:
        return "quote"
    sizing = asks & _SIZING_ASKS
    if not has_model and query.spec_fields and sizing <= {"memory"}:
        sizing = set()  # "910B 显存多大": a card's memory asked with nothing to size is a spec (rule 16)
    if (has_model or gpus) and (sizing or lex.weak_inference.search(x.low) or diagnosis == "oom"):
        return "size_inference"
    if "best" in asks or "cheapest" in asks:
        return "recommend"
    if gpus and not has_model and (query.spec_fields or "memory" in asks or "speed" in asks):
        return "spec_lookup"
    if has_model:
        return "size_inference"
    if gpus >= 2:
        return "compare"
    if gpus == 1:
        return "spec_lookup"
    if diagnosis:
        return "diagnose"
    return "unknown"
