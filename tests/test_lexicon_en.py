"""The English vocabulary (bot/parsing/lexicon/en.yaml), section by section, through parse_question.

Each section of the file is exercised by questions written for this test: the phrase, the number and the
field of the request it must set. A word added to en.yaml gets a case here. A broken lexicon file is reported
as ``file:line: field: message``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from bot.errors import KnowledgeError
from bot.parsing import parse_question
from bot.parsing.lexicon import LEXICON_DIR, get_lexicon, load_lexicon, phrase_key
from bot.parsing.query import Money

EN = yaml.safe_load((LEXICON_DIR / "en.yaml").read_text(encoding="utf-8"))


def _field(query, path: str):
    value = query
    for part in path.split("."):
        value = getattr(value, part) if not isinstance(value, list) else value[int(part)]
    return value


# ---------------------------------------------------------------------------------------------- numbers

@pytest.mark.parametrize(("text", "field", "expected"), [
    # numbers.words: a count before a GPU or a unit
    ("three h100s for a week", "gpus.0.count", 3),
    ("a dozen a10g cards", "gpus.0.count", 12),
    ("a couple of l4s for mistral 7b", "gpus.0.count", 2),
    ("quad 3090 rig for llama 3 70b", "gpus.0.count", 4),
    ("serve five people with qwen2.5 7b", "concurrent_users", 5),
    # numbers.scales: 8k (binary for a context), 1.5 million, 2T, 300B tokens
    ("llama 3 8b with 8k context", "context_tokens", 8192),
    ("100k context qwen2.5 7b", "context_tokens", 100_000),
    ("pretrain a 1b model on 2T tokens", "training_tokens", 2e12),
    ("fine-tune on 1.5 million tokens", "training_tokens", 1.5e6),
    ("train a 7b on 300B tokens", "training_tokens", 3e11),
])
def test_numbers(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- quantities

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("phi-4 for 40 concurrent users", "concurrent_users", 40),
    # quantities.daily_active_users: read before durations, so "daily"/"per day" is part of the unit
    ("a chat app with 5k DAU on Llama 3 8B", "daily_active_users", 5000),
    ("serve mistral 7b for 20,000 daily active users", "daily_active_users", 20_000),
    ("50000 users per day on llama 3 8b", "daily_active_users", 50_000),
    # rates.requests_per_day with traffic.per_user_words: each user's requests a day; traffic.peak_words: the peak
    ("3k DAU, each sends 15 messages a day, llama 3 8b", "requests_per_user_per_day", 15),
    ("3k DAU averaging 6 chats per day on mistral 7b", "requests_per_user_per_day", 6),
    ("3k DAU, 40 prompts/day per user, qwen2.5 7b", "requests_per_user_per_day", 40),
    ("3k DAU, 15 messages a day each, llama 3 8b", "duration_hours", None),
    ("3k DAU on llama 3 8b, peak is 2.5x average", "peak_factor", 2.5),
    ("3k DAU on llama 3 8b, the busiest hour is 4x the mean", "peak_factor", 4),
    ("3k DAU on llama 3 8b, peak is 2.5x average", "claimed_ratio", None),
    # latency.units in minutes: a time per image the user saw ("2 minutes per image" = 120 s)
    ("sdxl takes 2 minutes per image on a T4, normal?", "observations.0.value", 120),
    ("50000 users per day on llama 3 8b", "duration_hours", None),
    ("50000 users per day on llama 3 8b", "concurrent_users", None),
    ("qwen2.5 14b with 12 parallel requests", "concurrent_users", 12),
    ("llama 3 8b for 300 employees", "concurrent_users", 300),
    ("concurrency: 32 on llama 3 8b", "concurrent_users", 32),
    ("--max-num-seqs 64 for qwen2.5 7b", "concurrent_users", 64),
    ("llama 3 8b on 6 gpus", "gpus", []),                       # a count without a GPU type ...
    ("llama 3 8b on 6 gpus", "gpu_count", 6),                   # ... is Query.gpu_count
    ("two graphics cards for llama 3 8b", "gpu_count", 2),
    ("pretrain on 4 nodes of h100", "node_count", 4),
    ("micro batch size = 4, lora llama 3 8b", "batch_size", 4),
    ("lora rank 64 on mistral 7b", "lora_rank", 64),
    ("sdxl 30 steps on a 4090", "image_steps", 30),
    ("sdxl: 2000 images on an l4", "images", 2000),
    ("embed 5 million documents with bge", "documents", 5e6),
    ("fine-tune llama 3 8b for 3 epochs", "epochs", 3),
    ("transcribe 2500 hours of recordings with whisper", "audio_hours", 2500),
    ("embed 2M docs at 500 tokens each", "tokens_per_item", 500),
    ("llama 3 8b at seq len 4096", "context_tokens", 4096),
    ("--max-model-len 16384 for qwen2.5 7b", "context_tokens", 16384),
    ("prompt length 3000 for llama 3 8b", "input_tokens", 3000),
    ("max_new_tokens 512 for llama 3 8b", "output_tokens", 512),
    ("2k in / 256 out on mistral 7b", "output_tokens", 256),
    ("full finetune qwen2.5 7b on 50M tokens", "training_tokens", 5e7),
    ("llama 3 8b at 4096 tokens", "context_tokens", 4096),      # tokens_plain: below a million, the context
    ("pretrain a 1b model with 800 gpu hrs", "gpu_hours", 800),   # gpu_hours.units
    ("2,400 card-hours of l40s for mistral 7b training", "gpu_hours", 2400),
    ("a 7b model on 300 h100 hours", "gpu_hours", 300),         # a GPU's name, then an hour unit
])
def test_quantities(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- rates, latency

@pytest.mark.parametrize(("text", "expected"), [
    # (tokens/s, scope): the scope only when the text says it (rates.aggregate_words / per_user_words)
    ("qwen2.5 7b at 1200 tokens/s on l40s", (1200, None)),
    ("qwen2.5 7b, 2500 tok/s overall", (2500, "total")),
    ("mistral 7b, 800 tokens per second across users", (800, "total")),
    ("30 tok/s per user for phi-4", (30, "per_user")),
    ("qwen2.5 32b 20 t/s for each user", (20, "per_user")),
])
def test_token_rates_and_scope(kb, text, expected):
    query = parse_question(text, kb)
    assert (query.target_tokens_per_s, query.target_scope) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("llama 3 8b at 12 req/s", 12),
    ("mistral 7b for 90 requests per minute", 1.5),       # 90 / 60
    ("qwen2.5 7b, 864000 requests per day", 10),           # 864,000 / 86,400
    ("200 qps on llama 3 8b", 200),
])
def test_request_rates_per_second(kb, text, expected):
    assert parse_question(text, kb).requests_per_s == pytest.approx(expected)


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("llama 3 8b with ttft below 400 ms", "ttft_ms_max", 400),
    ("time to first token under 1.5s for qwen2.5 14b", "ttft_ms_max", 1500),
    ("mistral 7b with inter-token latency 40ms", "tpot_ms_max", 40),
    ("end to end latency 5 seconds for llama 3 70b", "latency_ms_max", 5000),
    ("p99 latency under 900ms, llama 3 8b", "latency_percentile", 99),
    ("median latency 300ms on mistral 7b", "latency_percentile", 50),
])
def test_latency(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- durations, money

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("8x a100 for 10 days", "duration_hours", 240),
    ("rent 2 h100 for 6 weeks", "duration_hours", 1008),
    ("4 l40s for a quarter", "duration_hours", 2190),
    ("h100 monthly", "duration_hours", 730),
    ("fine-tune llama 3 8b within 12 hours", "deadline_hours", 12),
    ("pretrain 1b, must finish in under 3 days", "deadline_hours", 72),
])
def test_durations(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("best gpu under $4/hr for qwen2.5 14b", "price_limit_per_hour", Money(amount=4)),
    ("a100 below 2 dollars per hour", "price_limit_per_hour", Money(amount=2)),
    ("h100 at most $2.5/gpu/hr", "price_limit_per_gpu", True),
    ("budget of $20k to train a 1b model", "budget", Money(amount=20_000)),
    ("we have 500 bucks for a lora run", "budget", Money(amount=500)),
    ("budget 3000 for a month of inference", "budget", Money(amount=3000)),     # no currency: USD
    ("spend up to €900 on llama 3 8b serving", "budget", Money(amount=900, currency="eur")),
    ("buy an 8x h100 server for $280k or rent?", "purchase_price", Money(amount=280_000)),
    ("power at $0.15/kwh for 8x 4090", "electricity_per_kwh", Money(amount=0.15)),
    ("8x h100 for $4000/month max", "price_limit_per_hour", Money(amount=4000 / 730)),
    ("quote 8x a100 in rmb", "answer_currency", "cny"),
])
def test_money(kb, text, field, expected):
    value = _field(parse_question(text, kb), field)
    if isinstance(expected, Money):
        assert value is not None and value.currency == expected.currency
        assert value.amount == pytest.approx(expected.amount)
    else:
        assert value == expected


# ---------------------------------------------------------------------------------------------- memory, units

@pytest.mark.parametrize(("text", "expected"), [
    # memory.units / card_words: a size that names a card -> (capacity_only, memory GB, count)
    ("can my 12gb card run phi-3-mini?", (True, 12, 1)),   # one card, as written
    ("three 24 gb gpus for qwen2.5 32b", (True, 24, 3)),
    ("a 48g accelerator for llama 3 70b int4", (True, 48, 1)),
    ("16 gb of vram, enough for mistral 7b?", (True, 16, 1)),
    ("our card has 20GB, gemma 2 9b?", (True, 20, 1)),   # a card word before the size
])
def test_capacity_cards(kb, text, expected):
    gpu = parse_question(text, kb).gpus[0]
    memory = gpu.memory_gb if gpu.memory_gb is not None else kb.gpus[gpu.id].memory_gb
    assert (gpu.capacity_only, memory, gpu.count) == expected


@pytest.mark.parametrize(("text", "gpu_id", "memory_gb"), [
    # memory.platform_words: a notebook platform is said where a card word is, and the card is a rented one
    ("qlora on a kaggle notebook with 16gb, gemma 2 9b", "t4-16gb", None),
    ("colab pro 40GB for llama 3 8b full finetune?", "a100-sxm-40gb", None),
    # a size just under a card's (tools report 15 GiB for a 16 GB card) is that card, keeping the stated size
    ("phi-3 mini runs out of memory on a 15gb sagemaker studio lab", "t4-16gb", 15),
    # memory.cloud_words: a rented card, not a GeForce of that size
    ("a 24gb cloud instance for mistral 7b", "l4-24gb", None),
])
def test_platform_and_cloud_words(kb, text, gpu_id, memory_gb):
    gpu = parse_question(text, kb).gpus[0]
    assert (gpu.capacity_only, gpu.id, gpu.memory_gb) == (True, gpu_id, memory_gb)


@pytest.mark.parametrize("text", [
    # memory.requirement_words and not_card_after: a size that is no card
    "llama 3 8b uses 18gb in bf16",
    "qwen2.5 32b requires about 70 GB of VRAM?",
    "the 140 gb model on ollama",
    "a 40gb checkpoint of mixtral",
    "only 64gb of system memory for llama 3 8b",
])
def test_sizes_that_name_no_card(kb, text):
    assert parse_question(text, kb).gpus == []


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("is the 3.35 TB/s of the h100 real?", "bandwidth_stated_gb_s", [3350]),
    ("is the h200 4x faster than the h100?", "claimed_ratio", 4),
    ("9 times faster h200 vs h100?", "claimed_ratio", 9),
    ("gpu at 60% utilization, llama 3 8b", "percents", [60]),
    ("8x h100 draw 5.6 kw", "power_watts", 5600),
])
def test_units(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- asks, workloads

@pytest.mark.parametrize(("text", "ask"), [
    ("will qwen2.5 32b fit on a 4090?", "fit"),
    ("can one card hold llama 3 70b in fp16?", "fit"),
    ("how many gpus for llama 3 70b at 50 users", "gpu_count"),
    ("how many simultaneous users would one l40s take with mistral 7b", "users_served"),
    ("how fast is llama 3 8b on an l4", "speed"),
    ("how long to pretrain a 1b model on 8 h100", "time"),
    ("tokens could i get through in a day on 8 a100", "tokens_in_time"),
    ("what does 8x h100 cost", "cost"),
    ("cheapest gpu for whisper", "cheapest"),
    ("recommend a gpu for sdxl", "best"),
    ("the vram needed for gemma 2 27b", "memory"),
    ("how much gpu mem for a 7b model", "memory"),
    ("h100 versus a100 for training", "comparison"),
    ("datasheet figures of the l40s", "spec"),
    ("is fp8 unsupported on the a100?", "support"),
    ("break even on buying 4 h100s", "break_even"),
    ("largest model on two 3090s", "largest_model"),
    ("what can you do", "help"),
    ("how much days to pretrain a 1b model on 8 h100", "time"),
    ("what kind of gpu do i need for whisper", "gpu_count"),
])
def test_asks(kb, text, ask):
    assert ask in parse_question(text, kb).asks


@pytest.mark.parametrize("text", [
    "how many tokens per second would gemma 2 9b get on a single L4",
    "how many tok/s can I expect from phi-3 mini on a T4 at batch 16",
])
def test_tokens_per_second_is_a_speed_not_a_token_count(kb, text):
    asks = parse_question(text, kb).asks
    assert "speed" in asks and "tokens_in_time" not in asks


@pytest.mark.parametrize(("text", "workload"), [
    ("dreambooth sdxl on a 4090", "finetune"),
    ("peft adapters for llama 3 8b", "finetune"),
    ("pretrain a 3b model from scratch", "training"),
    ("host llama 3 8b behind an api", "inference"),
    ("llama 3 8b chatbot at 20 users", "inference"),
    ("rloo on qwen2.5 7b with 8 a100", "finetune"),
    ("kto for llama 3 8b", "finetune"),
    # workloads.indirect: an adapter served is inference
    ("serve llama 3 8b with 8 lora adapters", "inference"),
])
def test_workloads(kb, text, workload):
    assert parse_question(text, kb).workload == workload


@pytest.mark.parametrize(("text", "intent"), [
    # compare_connectors and compare_relations join two GPUs
    ("l40s or a100 for llama 3 8b serving", "compare"),
    ("h100 | h200 for mixtral 8x7b", "compare"),
    ("is the l4 as fast as the a10g for mistral 7b?", "compare"),
    ("would the mi300x outperform the h100 on llama 3 70b", "compare"),
    ("is the 4090 on par with the a6000 for qwen2.5 14b", "compare"),
])
def test_comparisons(kb, text, intent):
    assert parse_question(text, kb).intent == intent


# ---------------------------------------------------------------------------------------------- precisions, engines, methods

@pytest.mark.parametrize(("text", "expected"), [
    ("llama 3 8b in float32", ["fp32"]),
    ("mistral 7b in 32 bits", ["fp32"]),
    ("qwen2.5 7b bfloat16", ["bf16"]),
    ("gemma 2 9b half precision", ["fp16"]),
    ("llama 3 70b e4m3", ["fp8"]),
    ("qwen2.5 32b load_in_8bit", ["int8"]),
    ("phi-4 at 4 bits", ["int4"]),
    ("llama 3 70b awq on 2 l40s", ["awq"]),
    ("mixtral 8x7b gptq", ["gptq"]),
    ("llama 3 70b with bnb 4bit", ["nf4"]),
    ("gpt-oss-120b in mxfp4", ["fp4"]),
    ("llama 3 70b exl2 on 2x 3090", ["exl2"]),
    ("qwen2.5 32b q4_k_m", ["q4_k_m"]),
])
def test_precisions(kb, text, expected):
    assert parse_question(text, kb).precisions == expected


def test_kv_cache_precision_is_the_caches(kb):
    query = parse_question("llama 3 70b awq with fp8 kv cache on 2 l40s", kb)
    assert (query.precisions, query.kv_precision) == (["awq"], "fp8")


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("llama 3 8b on vllm", "engine", "vllm"),
    ("qwen2.5 7b with text generation inference", "engine", "tgi"),
    ("mistral 7b in trt-llm", "engine", "tensorrt-llm"),
    ("phi-3-mini in lm studio on a laptop", "engine", "llama.cpp"),
    ("qwen2.5 7b with lmdeploy", "engine", "lmdeploy"),
    ("q-lora mistral 7b", "method", "qlora"),
    ("dora on llama 3 8b", "method", "lora"),
    ("full parameter fine tuning qwen2.5 7b", "method", "full"),
    ("llama 3 8b with fully sharded data parallel", "sharding", "fsdp"),
    ("deepspeed zero stage 2 for mistral 7b", "sharding", "zero2"),
    ("zero offload for llama 3 70b", "cpu_offload", True),
    ("activation checkpointing on llama 3 8b", "gradient_checkpointing", True),
    ("llama 3 70b with --tensor-parallel-size 4", "tensor_parallel", 4),
    ("pp 2 for llama 3.1 405b", "pipeline_parallel", 2),
])
def test_engines_methods_layouts(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- pricing, providers, features

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("preemptible h100 price", "pricing", ["spot"]),
    ("savings plan for 8x a100", "pricing", ["commitment"]),
    ("pay as you go a10g", "pricing", ["on_demand"]),
    ("3-year reserved h100", "commitment_term", "3y"),
    ("one-year commitment on l40s", "commitment_term", "1y"),
    ("h100 on lambda cloud", "providers", ["lambda"]),
    ("a100 from runpod vs vast ai", "providers", ["runpod", "vast"]),
    ("does the l4 support flash-attn 2", "features", ["flash_attention_2"]),
    ("nvlink bridge on two 3090s?", "features", ["nvlink"]),
    ("multi instance gpu on the a100", "features", ["mig"]),
    ("2:4 structured sparsity on h100", "features", ["sparsity"]),
    ("memory bandwidth of the h200", "spec_fields", ["memory_bandwidth_gb_s"]),
    ("tdp of the l40s", "spec_fields", ["tdp_watts"]),
])
def test_pricing_providers_features(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("serve llama 3 8b, no prefix caching, 40 users", "full_context_prompts", True),
    ("llama 3 70b for just me on 2 3090s", "concurrent_users", 1),
    ("deepseek v3 unquantized on 8 h200", "full_precision", True),
    ("deepseek r1 full version on h20s", "full_precision", True),
])
def test_flags(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


def test_per_node_words_multiply_the_count(kb):
    # 3 nodes x 8 GPUs each = 24 (per_node_words "each node")
    query = parse_question("3 nodes with 8 h100 each node for llama 3.1 405b", kb)
    assert (query.gpus[0].count, query.node_count) == (24, 3)


def test_not_name_prefixes(kb):
    assert parse_question("pre-Hopper cards cannot do fp8", kb).gpus == []


# ---------------------------------------------------------------------------------------------- conversation words

@pytest.mark.parametrize("text", ["what about 8k context?", "and on h200?", "same with int4", "assuming 50 users"])
def test_followup_openers(text):
    assert get_lexicon().followup_openers.regex.match(text.lower())


@pytest.mark.parametrize("text", ["reset", "start over", "new question", "forget it"])
def test_reset_words(text):
    assert get_lexicon().reset_words.fullmatch(text)


@pytest.mark.parametrize("text", ["help", "hey", "what can u do", "how do i use this"])
def test_help_phrases(kb, text):
    assert parse_question(text, kb).intent == "help"


@pytest.mark.parametrize(("text", "field", "expected"), [
    # number_connectors and approx_words between a key and its number; ignorable numbers are not reported
    ("llama 3 8b, ctx of 8k", "context_tokens", 8192),
    ("concurrency around 40 for mistral 7b", "concurrent_users", 40),
    ("batch size ≈ 16, lora llama 3 8b", "batch_size", 16),
    ("cuda 12.4, python 3.11, llama 3 8b on a 4090", "not_understood", []),
    ("llama 3 8b on rocm 6.1 with an mi300x", "not_understood", []),
])
def test_connectors_and_ignorable_numbers(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- the file itself

MAPPING_SECTIONS = ["precisions", "engines", "methods", "sharding", "pricing", "commitment_terms", "features",
                    "spec_fields", "layout_keys"]


@pytest.mark.parametrize("section", MAPPING_SECTIONS)
def test_every_phrase_of_a_mapping_reads_as_its_value(section):
    """No phrase of en.yaml is shadowed by the same phrase under another value (in any language file)."""
    table = getattr(get_lexicon(), section)
    for value, phrases in EN[section].items():
        for phrase in phrases:
            assert table.value(phrase) == value, (section, phrase)


def test_every_ask_phrase_reads_as_its_ask():
    asks = get_lexicon().asks
    for ask, phrases in EN["asks"].items():
        for phrase in phrases:
            if ask == "none":  # words that ask nothing: matched whole, they read as no ask at all
                assert asks.value(phrase) == [], phrase
                continue
            assert ask in (asks.value(phrase) or []), (ask, phrase)


def test_phrase_keys_ignore_spaces_hyphens_and_underscores():
    assert phrase_key("Seq-Len") == phrase_key("seq_len") == phrase_key("seq len") == "seqlen"


def _copy_lexicon(tmp_path: Path) -> Path:
    target = tmp_path / "lexicon"
    target.mkdir()
    for path in LEXICON_DIR.glob("*.yaml"):
        (target / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def test_unknown_ask_is_reported_with_file_line_and_field(tmp_path):
    directory = _copy_lexicon(tmp_path)
    (directory / "en.yaml").write_text(textwrap.dedent("""\
        language: en
        asks:
          fit: [fit]
          teleport: [beam me up]
        """), encoding="utf-8")
    with pytest.raises(KnowledgeError) as err:
        load_lexicon(directory)
    text = str(err.value)
    assert f"{directory / 'en.yaml'}:2: asks: unknown ask(s) ['teleport']" in text


def test_wrong_type_is_reported_at_its_line(tmp_path):
    directory = _copy_lexicon(tmp_path)
    (directory / "en.yaml").write_text(textwrap.dedent("""\
        language: en
        numbers:
          scales: {k: 1000}
          words: {two: many}
        """), encoding="utf-8")
    with pytest.raises(KnowledgeError) as err:
        load_lexicon(directory)
    assert f"{directory / 'en.yaml'}:4: numbers.words.two: Input should be a valid number" in str(err.value)


def test_yaml_syntax_error_is_reported_at_its_line(tmp_path):
    directory = _copy_lexicon(tmp_path)
    (directory / "en.yaml").write_text("language: en\nasks:\n  fit: [fit\n  cost: [price]\n", encoding="utf-8")
    with pytest.raises(KnowledgeError) as err:
        load_lexicon(directory)
    assert f"{directory / 'en.yaml'}:" in str(err.value) and "(yaml)" in str(err.value)


def test_an_added_word_is_a_data_change(tmp_path):
    directory = _copy_lexicon(tmp_path)
    text = (directory / "en.yaml").read_text(encoding="utf-8")
    (directory / "en.yaml").write_text(text.replace("  fsdp: [fsdp, fully sharded]",
                                                    "  fsdp: [fsdp, fully sharded, shardy]"), encoding="utf-8")
    assert load_lexicon(directory).sharding.value("shardy") == "fsdp"
    assert get_lexicon().sharding.value("shardy") is None


@pytest.mark.parametrize(("text", "expected_users", "expected_count"), [
    # simultaneous_words / own_card_words
    ("3,000 employees, about 120 concurrent at peak, llama 3 8b", 120, None),
    ("will my rtx 3090 run mistral 7b", None, 1),
])
def test_simultaneous_and_own_card_words(kb, text, expected_users, expected_count):
    q = parse_question(text, kb)
    assert q.concurrent_users == expected_users
    if expected_count is not None:
        assert q.gpus[0].count == expected_count


@pytest.mark.parametrize("text", [
    "is 1x A6000 enough to fine tune llama 3 8b with full parameters?",
    "fine-tune all the weights of mistral 7b on 2x a100",
])
def test_full_fine_tuning_phrasings(text, kb):
    from bot.parsing.parser import parse_question
    assert parse_question(text, kb).method == "full"


@pytest.mark.parametrize(("text", "kind", "value", "target"), [
    # observations.before: the user saw it
    ("we measured 18 tok/s on an a10g with llama 3 8b", "tokens_per_s", 18, None),
    ("vllm tops out at 2400 tokens/s on the l40s for qwen2.5 7b", "tokens_per_s", 2400, None),
    # observations.after: asked whether it is normal
    ("phi-3 mini at 70 tokens/s on a 3060, is that normal?", "tokens_per_s", 70, None),
    # observations.quoted: someone else's figure, kept as an observation marked quoted
    ("the blog says 90 tok/s for llama 3 8b on a 4090", "tokens_per_s", 90, None),
    # observations.targets, nearer than an observation word: a target
    ("our bot gets slow, we want 40 tok/s per user on mistral 7b", None, None, 40),
    # observations.slower / faster after a multiplier
    ("in my tests the a10g was 1.5x slower than the l4 on llama 3 8b", "ratio", 1.5, None),
    # observations.per_item
    ("flux schnell takes 3 s per image on an l4", "seconds_per_item", 3, None),
])
def test_observations(kb, text, kind, value, target):
    q = parse_question(text, kb)
    assert [(o.kind, o.value) for o in q.observations] == ([(kind, value)] if kind else [])
    assert q.target_tokens_per_s == target
    if "blog says" in text:
        assert q.observations[0].quoted
