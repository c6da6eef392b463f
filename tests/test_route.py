"""The route table (bot/parsing/route.py), rule by rule, on hand-built requests.

Each test builds a :class:`Query` and the :class:`RouteInputs` the parser would pass (the lower-cased text and
the same text with every GPU mention replaced by ``§g``), so a rule is tested without the scanners. The rule
numbers are the module docstring's.
"""

from __future__ import annotations

import pytest

from bot.parsing.lexicon import get_lexicon
from bot.parsing.query import Diagnosis, ModelMention, Money, Query
from bot.parsing.route import RouteInputs, find_workload, route

LLAMA = ModelMention(id="llama-3-70b", as_written="llama 3 70b")


def _route(low: str, marked: str | None = None, *, gpus: int = 0, error_paste: bool = False,
           help_only: bool = False, strong_recommend: bool = False, explicit_spec: bool = True, **fields) -> str:
    query = Query(text=low, **fields)
    inputs = RouteInputs(low=low, marked=marked if marked is not None else low, gpu_names=gpus,
                         error_paste=error_paste, help_only=help_only, strong_recommend=strong_recommend,
                         explicit_spec=explicit_spec)
    return route(query, inputs, get_lexicon())


# 1. help
def test_empty_or_help_phrase_with_nothing_named_is_help():
    assert _route("") == "help"
    assert _route("hi", help_only=True) == "help"
    assert _route("help", asks=["help"]) == "help"


def test_help_phrase_with_a_model_is_not_help():
    assert _route("help llama 3 70b", asks=["help"], models=[LLAMA]) == "size_inference"


# 2. diagnose (a symptom that is no sizing problem)
def test_non_sizing_symptom_is_diagnose_even_with_a_model():
    assert _route("garbage output", models=[LLAMA], diagnosis=Diagnosis(kind="other")) == "diagnose"


# 3. claims
def test_quoted_claim_is_spec_lookup():
    # the router reads the claim ids matched (knowledge/claims.yaml), not the sentence
    assert _route("an article says the h200 beats the a100", "an article says the §g beats the §g", gpus=2,
                  claims=["C01"]) == "spec_lookup"
    assert _route("an article says the h200 beats the a100", "an article says the §g beats the §g",
                  gpus=2) == "compare"


# 4. break-even
@pytest.mark.parametrize("fields", [{"asks": ["break_even"]}, {"purchase_price": Money(amount=300_000)}])
def test_buy_vs_rent_is_quote(fields):
    assert _route("8x h100 buy or rent", "§g buy or rent", gpus=1, **fields) == "quote"


# 5. recommend
def test_strong_recommendation_is_recommend():
    assert _route("recommend a gpu for llama 3 70b", models=[LLAMA], strong_recommend=True) == "recommend"


def test_largest_model_is_recommend():
    assert _route("biggest model on a 4090", gpus=1, asks=["largest_model"]) == "recommend"


def test_budget_without_gpus_is_recommend():
    assert _route("budget $5k", budget=Money(amount=5000)) == "recommend"
    assert _route("under $3/hr", price_limit_per_hour=Money(amount=3)) == "recommend"


def test_cheapest_with_nothing_named_is_recommend():
    assert _route("cheapest gpu", asks=["cheapest"]) == "recommend"


# 6. quote
def test_cost_of_gpus_is_quote():
    assert _route("8x h100 price", "§g price", gpus=1, asks=["cost"]) == "quote"


def test_cheapest_of_named_gpus_is_quote():
    assert _route("cheapest of h100 or a100", "cheapest of §g or §g", gpus=2, asks=["cheapest"]) == "quote"


def test_quoted_prices_for_gpus_is_quote():
    assert _route("a100 $1.19 vs h100 $2.99", "§g $1.19 vs §g $2.99", gpus=2,
                  quoted_prices=[Money(amount=1.19), Money(amount=2.99)]) == "quote"


def test_cost_of_a_training_run_is_quote():
    assert _route("cost to fine-tune llama 3 70b", asks=["cost"], models=[LLAMA], workload="finetune") == "quote"


def test_cost_of_serving_a_model_is_sized_first():
    assert _route("monthly cost to host gemma 2 27b for 20 users", asks=["cost"], models=[LLAMA],
                  workload="inference", concurrent_users=20) == "size_inference"


# 7. compare (joined GPUs)
@pytest.mark.parametrize(("low", "marked"), [
    ("h100 vs a100 for llama 3 70b", "§g vs §g for llama 3 70b"),
    ("h100 or a100 for llama 3 70b", "§g or §g for llama 3 70b"),
    ("is llama 3 70b faster on h100 than on a100", "is llama 3 70b faster on §g than on §g"),
    ("h100 还是 a100 跑 llama 3 70b", "§g 还是 §g 跑 llama 3 70b"),
])
def test_joined_gpus_with_a_model_compare(low, marked):
    assert _route(low, marked, gpus=2, models=[LLAMA], workload="inference") == "compare"


def test_slashed_gpus_compare_without_a_workload_or_when_a_comparison_is_asked():
    # "A/B" with nothing but a model: the two cards are what is asked about
    assert _route("h100/a100 for llama 3 70b", "§g/§g for llama 3 70b", gpus=2, models=[LLAMA]) == "compare"
    assert _route("which is faster for llama 3 70b, h100/a100", "which is faster for llama 3 70b, §g/§g", gpus=2,
                  models=[LLAMA], workload="inference", asks=["comparison"]) == "compare"


@pytest.mark.parametrize(("low", "marked", "workload", "intent"), [
    ("fine-tune llama 3 70b with lora on h100/a100", "fine-tune llama 3 70b with lora on §g/§g", "finetune",
     "finetune"),
    ("serve llama 3 70b on h100 | a100 for 10 users", "serve llama 3 70b on §g | §g for 10 users", "inference",
     "size_inference"),
])
def test_slashed_gpus_with_a_workload_are_its_options(low, marked, workload, intent):
    # "A/B" lists the cards the workload may use: each is sized as an option, no comparison was asked
    assert _route(low, marked, gpus=2, models=[LLAMA], workload=workload) == intent


def test_joined_gpus_with_a_feature_named_on_the_way_compare():
    assert _route("8xh100+nvlink is worse than 4xa100", "§g+nvlink is worse than §g", gpus=2, asks=["spec"],
                  features=["nvlink"], explicit_spec=False) == "compare"


def test_joined_gpus_with_a_spec_asked_are_spec_lookup():
    assert _route("memory bandwidth h100 vs a100", "memory bandwidth §g vs §g", gpus=2, asks=["spec"],
                  explicit_spec=True) == "spec_lookup"


def test_joined_gpus_with_a_quoted_ratio_are_spec_lookup():
    assert _route("l40s 2x faster than a10g", "§g 2x faster than §g", gpus=2, claimed_ratio=2) == "spec_lookup"


# 8. spec_lookup
def test_support_of_a_named_feature_is_spec_lookup():
    assert _route("does the l4 support flash attention 2", "does the §g support flash attention 2", gpus=1,
                  asks=["support"], features=["flash_attention_2"]) == "spec_lookup"


def test_support_of_a_precision_on_gpus_without_model_is_spec_lookup():
    assert _route("does the l20 support fp8", "does the §g support fp8", gpus=1, asks=["support"],
                  precisions=["fp8"], features=["fp8"]) == "spec_lookup"


def test_support_word_beside_a_model_without_feature_is_no_spec_question():
    # "this should work with 24gb": the support ask alone, with a model and a precision, is sizing
    assert _route("llama 30b 4bit should work with 24gb vram", gpus=1, asks=["support"], models=[LLAMA],
                  precisions=["int4"]) == "size_inference"


def test_kernel_feature_asked_of_a_gpu_with_a_model_and_nothing_to_size_is_spec_lookup():
    assert _route("can an l4 do fa2 for llama 3 70b", "can an §g do fa2 for llama 3 70b",
                  gpus=1, models=[LLAMA], features=["flash_attention_2"]) == "spec_lookup"


def test_precision_feature_beside_a_model_is_the_models_precision():
    # "qwen 7b/14b in bf16": bf16 is a feature and a precision; with no GPU it is no spec question
    assert _route("memory of llama 3 70b in bf16", models=[LLAMA], features=["bf16"], precisions=["bf16"],
                  asks=["memory"]) == "size_inference"


def test_spec_asked_with_a_model_and_a_workload_is_sizing():
    assert _route("tflops of h100 for serving llama 3 70b", gpus=1, asks=["spec"], models=[LLAMA],
                  workload="inference") == "size_inference"


# 9. compare
def test_comparison_asked_with_two_gpus_not_joined():
    assert _route("h100 and a100, which is better", "§g and §g, which is better", gpus=2,
                  asks=["comparison"]) == "compare"


# 10. spec_lookup: a precision of named GPUs
def test_precision_fit_on_a_gpu_without_model_is_spec_lookup():
    assert _route("can a v100 run bf16", "can a §g run bf16", gpus=1, asks=["fit"],
                  precisions=["bf16"]) == "spec_lookup"


# 11. diagnose
def test_pasted_error_without_model_is_diagnose():
    assert _route("cuda out of memory", gpus=1, error_paste=True, diagnosis=Diagnosis(kind="oom")) == "diagnose"


def test_pasted_error_beside_a_model_is_sizing():
    assert _route("llama 3 70b cuda out of memory", models=[LLAMA], error_paste=True,
                  diagnosis=Diagnosis(kind="oom")) == "size_inference"


# 12. workload
@pytest.mark.parametrize(("workload", "intent"), [("finetune", "finetune"), ("training", "size_training"),
                                                  ("inference", "size_inference")])
def test_workload_decides(workload, intent):
    # "pretrain": training a released model without a pretraining word is fine-tuning it (next test)
    assert _route("pretrain llama 3 70b", models=[LLAMA], workload=workload) == intent


def test_training_a_released_model_is_fine_tuning_it():
    assert _route("train llama 3 70b", models=[LLAMA], workload="training") == "finetune"
    assert _route("预训练 llama 3 70b", models=[LLAMA], workload="training") == "size_training"


def test_find_workload_finetune_wins_then_first_mentioned():
    lex = get_lexicon()
    assert find_workload("serve it after we fine-tune it", lex) == "finetune"
    assert find_workload("inference mostly, maybe training later", lex) == "inference"
    assert find_workload("training first, then serving", lex) == "training"
    assert find_workload("just looking", lex) is None


# 13. quote: rental terms
@pytest.mark.parametrize("fields", [{"duration_hours": 72}, {"providers": ["runpod"]}, {"pricing": ["spot"]}])
def test_gpus_with_rental_terms_are_quote(fields):
    assert _route("8x h100", "§g", gpus=1, **fields) == "quote"


# 14. size_inference
def test_running_words_with_a_gpu_are_sizing():
    assert _route("will it run on a t4", "will it run on a §g", gpus=1) == "size_inference"


def test_sizing_ask_with_a_model_is_sizing():
    assert _route("how many gpus for llama 3 70b", models=[LLAMA], asks=["gpu_count"]) == "size_inference"


# 15. recommend (weak)
def test_weak_best_without_entities_is_recommend():
    assert _route("best gpu", asks=["best"]) == "recommend"


# 16. spec_lookup (weak)
def test_memory_of_a_named_gpu_is_spec_lookup():
    assert _route("h100 memory", "§g memory", gpus=1, spec_fields=["memory_gb"]) == "spec_lookup"


# 17. by entities
def test_by_entities():
    assert _route("llama 3 70b", models=[LLAMA]) == "size_inference"
    assert _route("h100 a100", "§g §g", gpus=2) == "compare"
    assert _route("h100", "§g", gpus=1) == "spec_lookup"
    assert _route("weird", diagnosis=Diagnosis(kind="feature_gate")) == "diagnose"
    assert _route("hmm something else") == "unknown"
