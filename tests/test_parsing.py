"""parse_question on the forms users type: GPUs, counts, models, precision, numbers, intents."""

from __future__ import annotations

import pytest

from bot.notes import note
from bot.parsing import clean_slack_text, parse_question

# ---------------------------------------------------------------- GPUs and counts

GPU_CASES = [
    # (message, [(gpu id, count)])
    ("8x A100", [("a100-sxm-80gb", 8)]),
    ("8*A100", [("a100-sxm-80gb", 8)]),
    ("8xA100 for training", [("a100-sxm-80gb", 8)]),
    ("A100 80G *4", [("a100-sxm-80gb", 4)]),
    ("h100 x8", [("h100-sxm-80gb", 8)]),
    ("h100x8 3d", [("h100-sxm-80gb", 8)]),
    ("got two 3090s", [("rtx-3090-24gb", 2)]),
    ("2x 3090", [("rtx-3090-24gb", 2)]),
    ("1x a100 40g", [("a100-sxm-40gb", 1)]),
    ("4 * A10G 24gb", [("a10g-24gb", 4)]),
    ("16 * A10 ( 16 * 23G )", [("a10-24gb", 16)]),
    ("8-A100", [("a100-sxm-80gb", 8)]),
    ("a single a100", [("a100-sxm-80gb", 1)]),
    ("dual 4090 rig", [("rtx-4090-24gb", 2)]),
    ("两张A100", [("a100-sxm-80gb", 2)]),
    ("4张4090", [("rtx-4090-24gb", 4)]),
    ("双卡A4000", [("rtx-a4000-16gb", 2)]),
    ("单卡A100", [("a100-sxm-80gb", 1)]),
    ("4卡4090", [("rtx-4090-24gb", 4)]),
    ("A100 8卡 训练", [("a100-sxm-80gb", 8)]),
    ("Tesla T4 15G 4장으로", [("t4-16gb", 4)]),
    ("a100 (80GB) x2", [("a100-sxm-80gb", 2)]),
    ("40gb a100", [("a100-sxm-40gb", None)]),
    ("8*48G A6000", [("rtx-a6000-48gb", 8)]),
    ("a100 pcie 40gb", [("a100-pcie-40gb", None)]),
    ("H100 PCIe", [("h100-pcie-80gb", None)]),
    ("h100 sxm", [("h100-sxm-80gb", None)]),
    ("RTX3090 24GB", [("rtx-3090-24gb", None)]),
    ("4070tiS 16GBで", [("rtx-4070-ti-super-16gb", None)]),
    ("l40s", [("l40s-48gb", None)]),
    ("only have v100s", [("v100-sxm-16gb", None)]),
    ("V100S 32GB", [("v100s-pcie-32gb", None)]),
    ("8 A100's", [("a100-sxm-80gb", 8)]),
    ("16 a100s", [("a100-sxm-80gb", 16)]),
    ("only have 6 gpus, v100", [("v100-sxm-16gb", 6)]),
    # typos
    ("H1OO", [("h100-sxm-80gb", None)]),
    ("a 100 or h 100", [("a100-sxm-80gb", None), ("h100-sxm-80gb", None)]),
    ("Telsa P40", [("p40-24gb", None)]),
    ("GTX 3090", [("rtx-3090-24gb", None)]),
    ("A6000 ADA", [("rtx-6000-ada-48gb", None)]),
    ("mi300 vs h100", [("mi300x-192gb", None), ("h100-sxm-80gb", None)]),
    # cloud instances
    ("p5.48xlarge", [("h100-sxm-80gb", 8)]),
    ("g5.12xlarge", [("a10g-24gb", 4)]),
    ("a2-highgpu-8g", [("a100-sxm-40gb", 8)]),
    ("p4dn.24xlarge", [("a100-sxm-40gb", 8)]),
    # the same GPU at two counts is the two setups weighed: the one that ran out of memory and the one proposed
    ("4 * A10G OOM, would 8 * A10G fix it", [("a10g-24gb", 4), ("a10g-24gb", 8)]),
    # dedupe: the same GPU twice with one count is one mention
    ("4 * A10G OOM, would more A10G fix it", [("a10g-24gb", 4)]),
]


@pytest.mark.parametrize("message,expected", GPU_CASES)
def test_gpus_and_counts(kb, message, expected):
    query = parse_question(message, kb)
    assert [(g.id, g.count) for g in query.gpus] == expected, query.model_dump(exclude_defaults=True)


def test_variant_assumed_is_flagged_with_a_note(kb):
    query = parse_question("is an h100 enough?", kb)
    assert query.gpus[0].variant_assumed
    assert note("assumed_variant", gpu_name="H100 SXM5 80GB", written="h100") in query.notes
    precise = parse_question("is an h100 sxm enough?", kb)
    assert not precise.gpus[0].variant_assumed
    assert not any(n.code == "assumed_variant" for n in precise.notes)


def test_instance_gives_provider(kb):
    query = parse_question("price of p5.48xlarge per hour", kb)
    assert query.provider == "aws"
    assert query.gpus[0].as_written == "p5.48xlarge"


def test_misspelt_instance_is_read_with_a_note(kb):
    query = parse_question("p4dn.24xlarge for a week", kb)
    assert any(n.code == "read_instance" and n.params["instance"] == "p4d.24xlarge" for n in query.notes)


# ------------------------------------------------ both sides of the fuzzy threshold

@pytest.mark.parametrize("message,gpu_id", [
    ("Telsa P40", "p40-24gb"),           # transposed letters in the vendor word
    ("Telsa V100", "v100-sxm-16gb"),
    ("geforce 4090", "rtx-4090-24gb"),
    ("mi300", "mi300x-192gb"),            # one letter missing
])
def test_close_typo_resolves(kb, message, gpu_id):
    assert [g.id for g in parse_question(message, kb).gpus] == [gpu_id]


@pytest.mark.parametrize("message,unknown", [
    ("RTX 4900", "RTX 4900"),             # one edit from 4090, but a different number
    ("GTX 1080 Ti", "GTX 1080 Ti"),       # not in the knowledge base
    ("A40900", "A40900"),                 # "meant 4090": digits disagree, so never guessed
    ("h300", "h300"),
    ("Apple M2 Ultra", "Apple M2 Ultra"),
])
def test_far_names_are_unknown_with_suggestions(kb, message, unknown):
    query = parse_question(f"will it run on {message}?", kb)
    assert query.gpus == []
    assert [u.as_written for u in query.unknown_terms] == [unknown]
    assert len(query.unknown_terms[0].suggestions) <= 3


def test_unknown_gpu_suggestions_are_close(kb):
    query = parse_question("RTX 4900", kb)
    assert "RTX 4090" in query.unknown_terms[0].suggestions


@pytest.mark.parametrize("message", [
    "a 100 users on one box",        # the article, not an A100
    "max_model_len=4090 please",     # a number, not an RTX 4090
    "costs $3090 a month",
    "Qwen3-235B-A22B in fp8",        # A22B marks active parameters
    "llama-2-70b on cpu",
    "an unrelated sentence with tesla the car",
])
def test_no_gpu_invented(kb, message):
    assert parse_question(message, kb).gpus == []


# ---------------------------------------------------------------- models

MODEL_CASES = [
    # (message, model id or None for generic, variant_assumed, generic size)
    ("l2 70b on a100", "llama-2-70b", False, None),
    ("llama 2 70b", "llama-2-70b", False, None),
    ("llama2-70b-chat", "llama-2-70b", False, None),
    ("llama-2-70b-gptq", "llama-2-70b", False, None),
    ("70b llama2", "llama-2-70b", False, None),
    ("Llama-2-70B please", "llama-2-70b", False, None),
    ("llama 3 8b", "llama-3-8b", False, None),
    ("llama 3.1 405b fp8", "llama-3.1-405b", False, None),
    ("Llama-3.1-70B-Instruct-AWQ", "llama-3.1-70b", False, None),
    ("mixtral 8x7", "mixtral-8x7b", False, None),
    ("mixtral 8x22b", "mixtral-8x22b", False, None),
    ("7bx8 moe", "mixtral-8x7b", True, None),
    ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b", False, None),
    ("qwen2-72b-instruct-int4-gptq", "qwen2-72b", False, None),
    ("qwen2.5-72b-instruct", "qwen2.5-72b", False, None),
    ("llama3:70b", "llama-3-70b", False, None),
    ("qwen2.5:72b-instruct-q4_K_M", "qwen2.5-72b", False, None),
    ("deepseek-r1:671b", "deepseek-r1", False, None),
    ("mixtral:8x7b", "mixtral-8x7b", False, None),
    ("dolphin-mixtral", "mixtral-8x7b", False, None),
    ("mpt-7b", "mpt-7b", False, None),
    ("gemma-2-9b-it", "gemma-2-9b", False, None),
    ("Whisper Large-v3", "whisper-large-v3", False, None),
    ("deepseek r1", "deepseek-r1", False, None),
    # a family without a version: the newest matching model, flagged
    ("llama 70b", "llama-3.3-70b", True, None),
    ("qwen 72b", "qwen2.5-72b", True, None),
    ("mistral 7b", "mistral-7b-v0.3", True, None),
    # generic models
    ("a 7b model", None, False, 7.0),
    ("our own 13B", None, False, 13.0),
    ("70b", None, False, 70.0),
    ("vicuna-13b", None, False, 13.0),
    ("pretrain a ~1b llama", None, False, 1.0),
]


@pytest.mark.parametrize("message,model_id,assumed,size", MODEL_CASES)
def test_models(kb, message, model_id, assumed, size):
    model = parse_question(message, kb).model
    assert model is not None
    assert model.id == model_id
    assert model.variant_assumed is assumed
    if model_id is None:
        assert model.generic and model.params_total_b == size


def test_family_without_version_has_a_note(kb):
    query = parse_question("llama 70b on 2x h100", kb)
    assert note("assumed_model", model_name="Llama 3.3 70B", written="llama 70b") in query.notes


def test_unknown_model_name_is_generic_with_unknown_term(kb):
    query = parse_question("neox-20b finetune cost", kb)
    assert query.model.generic and query.model.params_total_b == 20
    assert [u.as_written for u in query.unknown_terms] == ["neox-20b"]


def test_moe_and_shape_of_a_generic_model(kb):
    moe = parse_question("100B MoE with 10B active on 8x h100", kb).model
    assert (moe.params_total_b, moe.params_active_b) == (100, 10)
    shaped = parse_question("13B, 40 layers, GQA 8, hidden 5120", kb).model
    assert (shaped.params_total_b, shaped.layers, shaped.kv_heads, shaped.hidden_size) == (13, 40, 8, 5120)


def test_ollama_tag_implies_4bit_with_note(kb):
    query = parse_question("llama3:70b on a 4090?", kb)
    assert query.precision == "q4_k_m"
    assert query.engine == "ollama"
    assert note("ollama_default_quant", written="llama3:70b") in query.notes
    explicit = parse_question("qwen2.5:72b-instruct-q8_0", kb)
    assert explicit.precision == "q8_0"


@pytest.mark.parametrize("message", ["80 billion transistors", "on 300B tokens", "24gb card"])
def test_sizes_that_are_not_models(kb, message):
    assert parse_question(message, kb).model is None


# ---------------------------------------------------------------- precision and method

@pytest.mark.parametrize("message,precision", [
    ("fp16", "fp16"), ("bf16", "bf16"), ("bfloat16", "bf16"), ("fp32", "fp32"), ("fp8", "fp8"),
    ("int8", "int8"), ("int4", "int4"), ("4 bit", "int4"), ("4-bit", "int4"), ("4bit", "int4"),
    ("8bit", "int8"), ("16bit", "fp16"), ("nf4", "nf4"), ("Q4_K_M", "q4_k_m"), ("Q8_0", "q8_0"),
    ("awq", "awq"), ("GPTQ", "gptq"), ("load_in_8bit=True", "int8"), ("load_in_4bit", "int4"),
    ("qwen2-72b int4-gptq", "gptq"), ("bf16 -> fp16", "bf16"), ("llama-2-70b-gptq", "gptq"),
])
def test_precision(kb, message, precision):
    assert parse_question(message, kb).precision == precision


@pytest.mark.parametrize("message,weights,kv", [
    ("fp8 kv cache", None, "fp8"),
    ("kv cache int8, bf16 weights", "bf16", "int8"),
    ("--kv-cache-dtype fp8", None, "fp8"),
])
def test_kv_cache_precision(kb, message, weights, kv):
    query = parse_question(message, kb)
    assert (query.precision, query.kv_precision) == (weights, kv)


@pytest.mark.parametrize("message,method", [
    ("full fine-tune", "full"), ("full finetune llama", "full"), ("全参微调", "full"), ("LoRA", "lora"),
    ("anyone lora'd the 13B", "lora"), ("QLoRA", "qlora"), ("qlora 70b", "qlora"), ("just inference", None),
])
def test_method(kb, message, method):
    assert parse_question(message, kb).method == method


# ---------------------------------------------------------------- numbers

@pytest.mark.parametrize("message,field,value", [
    ("ctx 8k", "context_tokens", 8192),
    ("8k context", "context_tokens", 8192),
    ("8k ctx", "context_tokens", 8192),
    ("with the full 8k ctx", "context_tokens", 8192),
    ("--max-model-len 32768", "context_tokens", 32768),
    ("max_model_len=4096", "context_tokens", 4096),
    ("32k tokens context", "context_tokens", 32768),
    ("500 tok in / 500 out", "input_tokens", 500),
    ("500 tok in / 500 out", "output_tokens", 500),
    ("isl 128 osl 2048", "output_tokens", 2048),
    ("2k prompt", "input_tokens", 2048),
    ("3 days", "duration_hours", 72),
    ("72h", "duration_hours", 72),
    ("h100 x8 3d", "duration_hours", 72),
    ("a week", "duration_hours", 168),
    ("2 weeks", "duration_hours", 336),
    ("for 10 hours", "duration_hours", 10),
    ("1 month", "duration_hours", 730),
    ("$5k", "budget_usd", 5000),
    ("5000 usd", "budget_usd", 5000),
    ("budget 10k", "budget_usd", 10000),
    ("$2/hr", "price_limit_per_hour_usd", 2),
    ("under $1.5 per hour, budget $3k", "price_limit_per_hour_usd", 1.5),
    ("20 tok/s", "target_tokens_per_s", 20),
    ("100 users", "concurrent_users", 100),
    ("200 concurrent users", "concurrent_users", 200),
    ("并发100", "concurrent_users", 100),
    ("single user", "concurrent_users", 1),
    ("50 req/s", "requests_per_s", 50),
    ("batch 32", "batch_size", 32),
    ("MICRO_BATCH_SIZE=2", "batch_size", 2),
    ("on 300B tokens", "training_tokens", 300e9),
    ("2T tokens", "training_tokens", 2e12),
    ("~3T tokens", "training_tokens", 3e12),
])
def test_numbers(kb, message, field, value):
    assert getattr(parse_question(message, kb), field) == value


def test_token_speed_scope(kb):
    assert parse_question("20 tok/s per user", kb).target_scope == "per_user"
    assert parse_question("2000 tok/s total throughput", kb).target_scope == "total"


def test_month_cny_and_samples(kb):
    assert parse_question("1 month", kb).duration_hours == 730  # 365 x 24 / 12
    cny = parse_question("预算¥5000", kb)
    assert cny.budget_usd is None and cny.budget.model_dump() == {"amount": 5000.0, "currency": "cny"}
    assert parse_question("1M samples", kb).documents == 1e6


def test_quoted_prices_are_not_a_limit(kb):
    query = parse_question("4090 is $0.34/h vs $1.19 for an a100", kb)
    assert query.price_limit_per_hour_usd is None
    assert [m.amount for m in query.quoted_prices] == [0.34, 1.19]


@pytest.mark.parametrize("message,provider", [
    ("on aws", "aws"), ("gcp", "gcp"), ("google cloud", "gcp"), ("azure", "azure"),
    ("lambda labs", "lambda"), ("on lambda", "lambda"), ("paperspace", "paperspace"), ("runpod", "runpod"),
    ("coreweave", "coreweave"), ("vast.ai", "vast"), ("on vast", "vast"), ("oracle cloud", "oci"),
    ("digitalocean", "digitalocean"), ("a vast improvement", None), ("do you know", None),
    ("python lambda function", None),
])
def test_provider(kb, message, provider):
    assert parse_question(message, kb).provider == provider


@pytest.mark.parametrize("message,pricing", [
    ("spot", "spot"), ("preemptible", "spot"), ("interruptible", "spot"), ("reserved", "commitment"),
    ("1-year commitment", "commitment"), ("3-year reserved", "commitment"), ("on-demand", "on_demand"),
])
def test_pricing(kb, message, pricing):
    assert parse_question(message, kb).pricing == [pricing]


@pytest.mark.parametrize("message,hours,pricing", [
    ("8x H100 for one year", 8760, []),            # a term alone is a length of time, not a commitment
    ("8张H100 用一年多少钱", 8760, []),               # 一年 is read as 1年: still a duration
    ("32 h100s reserved 1yr, monthly cost?", 730, ["commitment"]),  # the contract's term; the month is asked
])
def test_a_term_is_a_duration_unless_committed(kb, message, hours, pricing):
    q = parse_question(message, kb)
    assert (q.duration_hours, q.pricing, q.commitment_term) == (hours, pricing, "1y")


@pytest.mark.parametrize("message,hours,term", [
    # the term phrase first, the length of use after it: the term is the contract, the other length the use
    ("a three-year commitment on 4x A100, needed for 2 months", 2 * 730, "3y"),
    ("4x A100 needed for 2 months on a three-year commitment", 2 * 730, "3y"),
    ("reserved 1 yr, 16 H100 for 9 months total", 9 * 730, "1y"),
    ("3年期预留 4张A100 只用2个月", 2 * 730, "3y"),
    ("reserved 1 year 8x H100, total?", 8760, "1y"),  # no other length: the term is the use
])
def test_a_committed_term_is_not_the_length_of_use_in_either_order(kb, message, hours, term):
    q = parse_question(message, kb)
    assert (q.duration_hours, q.pricing, q.commitment_term) == (hours, ["commitment"], term)


@pytest.mark.parametrize("message,engine", [
    ("vllm", "vllm"), ("with TGI", "tgi"), ("text-generation-inference", "tgi"), ("TensorRT-LLM", "tensorrt-llm"),
    ("llama.cpp", "llama.cpp"), ("ollama", "ollama"), ("exllama", "exllama"), ("plain hf", "hf"),
])
def test_engine(kb, message, engine):
    assert parse_question(message, kb).engine == engine


def test_region(kb):
    assert parse_question("p5.48xlarge in us-east-1", kb).region == "us-east-1"


# ---------------------------------------------------------------- errors

def test_cuda_oom_identifies_gpu_from_capacity(kb):
    query = parse_question(
        "```torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 160.00 MiB "
        "(GPU 0; 14.58 GiB total capacity; 13.90 GiB already allocated)```", kb)
    assert query.intent == "diagnose"
    assert query.diagnosis.kind == "oom"
    assert query.diagnosis.total_capacity_gib == 14.58
    assert query.diagnosis.tried_to_allocate_gib == pytest.approx(0.15625)
    assert query.gpus[0].id == "t4-16gb" and query.gpus[0].variant_assumed
    capacity = next(n for n in query.notes if n.code == "error_capacity_gpu")
    # 14.58 GiB is the T4's 16 GB less the ECC reserve (8.5%); the other 16 GB cards follow, consumer cards first
    assert capacity.params["gpu_names"][0] == "T4" and "RTX 4060 Ti 16GB" in capacity.params["gpu_names"]


def test_feature_gates(kb):
    fp8 = parse_question("FP8 quantized models is only supported on GPUs with compute capability >= 9.0", kb)
    assert (fp8.diagnosis.kind, fp8.diagnosis.feature, fp8.diagnosis.required_compute_capability) == (
        "feature_gate", "fp8", 9.0)
    bf16 = parse_question("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                          "Your Tesla T4 GPU has compute capability 7.5.", kb)
    assert bf16.intent == "diagnose"
    assert (bf16.diagnosis.feature, bf16.diagnosis.required_compute_capability) == ("bf16", 8.0)
    assert bf16.gpus[0].id == "t4-16gb"


def test_tgi_memory_error(kb):
    query = parse_question("Not enough memory to handle 16000 total tokens with 4096 prefill tokens", kb)
    assert query.diagnosis.kind == "oom"
    assert query.intent == "diagnose"


# ---------------------------------------------------------------- intents

INTENT_CASES = [
    ("h100 vs a100 for inference", "compare"),
    ("is a10g worth it over t4", "compare"),
    ("L40S 和 A100 哪个好", "compare"),
    ("L40S 还是 A100", "compare"),
    ("will my 3090 keep up with an a6000?", "compare"),
    ("can a 4090 run 13b?", "size_inference"),
    ("serve llama 70b to 200 concurrent users", "size_inference"),
    ("qwen2-72b 部署需要多少显存", "size_inference"),
    ("4090能跑 qwen 14b 吗", "size_inference"),
    ("pretrain a 7b from scratch on 1T tokens", "size_training"),
    # training a released model with no token count and no pretraining word is fine-tuning it (route.py)
    ("how long to train llama 7b on 8x a100", "finetune"),
    ("how long to pretrain llama 7b from scratch on 8x a100", "size_training"),
    ("预训练 7b 需要多少卡", "size_training"),
    ("finetune llama 3 8b on a 4090", "finetune"),
    ("qlora 70b on 2x 3090", "finetune"),
    ("sft mistral 7b", "finetune"),
    ("微调 qwen2.5-7b 需要什么卡", "finetune"),
    ("how much for 8x h100 for 3 days", "quote"),
    ("h100 x8 3d how much", "quote"),
    ("8卡H100每小时多少钱", "quote"),
    ("price of an a100 on runpod", "quote"),
    ("8x h100 spot on runpod for a week", "quote"),
    ("what gpu should I buy for local llms", "recommend"),
    ("budget $5k, recommend a setup", "recommend"),
    ("推荐一个方案", "recommend"),
    ("does the 3090 support bf16?", "spec_lookup"),
    ("is the H100 really 30x faster than A100?", "spec_lookup"),
    ("h100 has 80 billion transistors?", "spec_lookup"),
    ("4090 nvlink?", "spec_lookup"),
    ("outputs are garbage on 4x 4090 with qwen2-72b", "diagnose"),
    ("", "help"),
    ("help", "help"),
    ("what can you do?", "help"),
    ("?", "help"),
    ("🤔💸🖥️❓", "unknown"),
    ("asdf qwer zxcv", "unknown"),
]


@pytest.mark.parametrize("message,intent", INTENT_CASES)
def test_intents(kb, message, intent):
    assert parse_question(message, kb).intent == intent


def test_error_quoted_beside_a_model_is_a_sizing_question(kb):
    query = parse_question("trying llama 3.1 405b fp8 on 8x a100 -> 'FP8 quantized models is only supported on "
                           "GPUs with compute capability >= 9.0'. any way around it?", kb)
    assert query.intent == "size_inference"
    assert query.diagnosis.kind == "feature_gate"


@pytest.mark.parametrize("message,language", [
    ("h100 vs a100", "en"), ("L40S 能替代 A100 吗", "zh"), ("4070tiS 16GBでWhisper", "other"),
    ("T4 15G 4장으로 모델 돌리는데", "other"),
])
def test_language(kb, message, language):
    assert parse_question(message, kb).language == language


# ---------------------------------------------------------------- Slack markup

@pytest.mark.parametrize("raw,clean", [
    ("<@U123ABC> 8x h100?", "8x h100?"),
    ("<!here> help", "help"),
    ("see <https://x.com/a|the docs>", "see the docs"),
    ("see <https://x.com/a>", "see https://x.com/a"),
    ("a &amp; b &lt;c&gt;", "a & b <c>"),
    ("```\nRuntimeError: CUDA out of memory\n```", "RuntimeError: CUDA out of memory"),
    ("&gt; quoted line\nmy question", "quoted line\nmy question"),
    ("", ""),
])
def test_clean_slack_text(raw, clean):
    assert clean_slack_text(raw) == clean


def test_parse_uses_cleaned_text(kb):
    query = parse_question("<@U0BOT> how much for <https://aws.amazon.com|p5.48xlarge> for 72h?", kb)
    assert query.text == "how much for p5.48xlarge for 72h?"
    assert query.gpus[0].count == 8 and query.duration_hours == 72


def test_default_knowledge_base_is_used(kb):
    assert parse_question("8x h100").gpus[0].id == "h100-sxm-80gb"
