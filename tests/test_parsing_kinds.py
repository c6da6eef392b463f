"""Each kind of miss of issue 12, with questions written for this test and the request each must give.

A case names the intent and the fields that must be set: ``gpus`` as (id, count) pairs, or (id, count,
memory GB, capacity-only) when the memory matters; ``models`` as ids, or ``"generic:N"`` for a model known
only by its size (N billion parameters); any other key is a :class:`~bot.parsing.query.Query` field. Fields
not named are not checked. Knowledge-base ids and sizes come from ``knowledge/gpus.yaml`` and
``knowledge/models.yaml``; durations are hours (a month is 730 h, 365 x 24 / 12), context lengths in "k" are
x1024 when a power of two ("8k" = 8192), latencies milliseconds.
"""

from __future__ import annotations

import pytest

from bot.parsing import parse_question
from bot.parsing.query import Money, Query

#: (kind, question, expected request)
CASES: list[tuple[str, str, dict]] = [
    # ------------------------------------------------------------------ several models, sizes or precisions
    ("several", "compare memory for gemma 2 9b and 27b at bf16",
     {"intent": "size_inference", "models": ["gemma-2-9b", "gemma-2-27b"], "precisions": ["bf16"]}),
    ("several", "vram needed: phi-3-mini, phi-3-medium and phi-4, each in int8 and int4",
     {"intent": "size_inference", "models": ["phi-3-mini", "phi-3-medium", "phi-4"], "precisions": ["int8", "int4"]}),
    ("several", "qwen3 8b, 14b, 32b - which one fits a 4090 at fp16 or fp8?",
     {"intent": "size_inference", "models": ["qwen3-8b", "qwen3-14b", "qwen3-32b"], "precisions": ["fp16", "fp8"],
      "gpus": [("rtx-4090-24gb", 1)]}),
    ("several", "llama 3.1 8b or 70b or 405b on h100s, how many of each?",
     {"intent": "size_inference", "models": ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"],
      "gpus": [("h100-sxm-80gb", None)]}),
    ("several", "mistral 7b vs mixtral 8x7b vs 8x22b memory in awq",
     {"intent": "size_inference", "models": ["mistral-7b-v0.3", "mixtral-8x7b", "mixtral-8x22b"],
      "precisions": ["awq"]}),
    ("several", "我们要比较 qwen2.5 7b、14b 和 72b 在 bf16 和 int4 下的显存",
     {"intent": "size_inference", "models": ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b"],
      "precisions": ["bf16", "int4"]}),
    # ------------------------------------------------------------------ a family, its sizes written apart
    ("family_apart", "we like mistral. is the 7b enough or should we go with the 8x22b for rag?",
     {"intent": "size_inference", "models": ["mistral-7b-v0.3", "mixtral-8x22b"]}),
    ("family_apart", "gemma 2 is our pick; would the 27b run on one l4, or only the 9b?",
     {"intent": "size_inference", "models": ["gemma-2-27b", "gemma-2-9b"], "gpus": [("l4-24gb", 1)],
      "not_understood": []}),
    ("family_apart", "qwen2.5 for coding: the 32b seems too big, what about the 14b?",
     {"intent": "size_inference", "models": ["qwen2.5-32b", "qwen2.5-14b"]}),
    ("family_apart", "llama 3.1 — the 405b is out of reach, the 70b maybe on 4 a100s?",
     {"intent": "size_inference", "models": ["llama-3.1-405b", "llama-3.1-70b"], "gpus": [("a100-sxm-80gb", 4)],
      "not_understood": []}),
    ("family_apart", "fine-tuned llama-2-13b last year; would llama-70B (same generation) fit 4 a100 80g?",
     {"intent": "finetune", "models": ["llama-2-13b", "llama-2-70b"], "gpus": [("a100-sxm-80gb", 4)]}),
    # ------------------------------------------------------------------ a GPU named only by its memory
    ("capacity", "can my 12gb card run llama 3 8b?",  # one card: "my ... card"
     {"intent": "size_inference", "gpus": [("rtx-3060-12gb", 1, 12, True)], "models": ["llama-3-8b"]}),
    ("capacity", "will two 24gb cards hold qwen2.5 32b at int8?",
     {"intent": "size_inference", "gpus": [("rtx-4090-24gb", 2, 24, True)], "precisions": ["int8"]}),
    ("capacity", "an 80g card enough for qwen2.5 72b fp8?",
     {"intent": "size_inference", "gpus": [("h100-sxm-80gb", 1, 80, True)], "precisions": ["fp8"]}),
    ("capacity", "i have four 16gb gpus, enough for mixtral 8x7b int4?",
     {"intent": "size_inference", "gpus": [("rtx-4060-ti-16gb", 4, 16, True)], "models": ["mixtral-8x7b"]}),
    ("capacity", "我的24G显卡能跑qwen2.5 14b吗",
     {"intent": "size_inference", "gpus": [("rtx-4090-24gb", 1, 24, True)], "models": ["qwen2.5-14b"]}),
    ("capacity", "server with 3 gpus, 32 gb each, for qwen2.5 32b fp16",
     {"intent": "size_inference", "gpus": [("rtx-5090-32gb", 3, 32, True)]}),
    ("capacity", "llama 3 8b needs 16gb, qwen2.5 32b uses 20gb in awq: any 24gb card for both?",
     {"gpus": [("rtx-4090-24gb", 1, 24, True)], "models": ["llama-3-8b", "qwen2.5-32b"]}),
    # ------------------------------------------------------------------ memory given with the GPU
    ("memory", "a100 40gb for llama 3 70b int4?",
     {"intent": "size_inference", "gpus": [("a100-sxm-40gb", None)]}),
    ("memory", "v100 32g or 16g for mistral 7b fp16?",
     {"intent": "compare", "gpus": [("v100-sxm-32gb", None), ("v100-sxm-16gb", None)]}),
    ("memory", "modded 2080ti 22gb running qwen2.5 14b awq",
     {"intent": "size_inference", "gpus": [("rtx-2080-ti-11gb", None, 22, False)]}),
    ("memory", "rtx a6000 48g x2 for llama 3.3 70b int8",
     {"intent": "size_inference", "gpus": [("rtx-a6000-48gb", 2)]}),
    ("memory", "4个80G A100 能微调 qwen2.5 72b 吗",
     {"intent": "finetune", "gpus": [("a100-sxm-80gb", 4)]}),
    ("memory", "a box with 8x a800 40g for llama 3 70b",
     {"intent": "size_inference", "gpus": [("a800-pcie-40gb", 8)]}),
    ("memory", "2*8*H100 80G for deepseek v3", {"gpus": [("h100-sxm-80gb", 16)], "node_count": 2}),
    # ------------------------------------------------------------------ the second GPU of a pair
    ("pair", "L40S 48GB vs RTX 6000 Ada 48GB for serving llama 3 8b",
     {"intent": "compare", "gpus": [("l40s-48gb", None), ("rtx-6000-ada-48gb", None)]}),
    ("pair", "A6000/L40S for qwen2.5 32b awq",
     {"intent": "compare", "gpus": [("rtx-a6000-48gb", None), ("l40s-48gb", None)]}),
    ("pair", "tried an L4 (and also an A10) for whisper, which is faster?",
     {"intent": "compare", "gpus": [("l4-24gb", 1), ("a10-24gb", 1)], "models": ["whisper-large-v3"]}),
    ("pair", "H20 还是 H800 部署 qwen2.5 72b",
     {"intent": "compare", "gpus": [("h20-96gb", None), ("h800-sxm-80gb", None)]}),
    ("pair", "t4 or a10g or l4 for bge embeddings?",
     {"intent": "compare", "gpus": [("t4-16gb", None), ("a10g-24gb", None), ("l4-24gb", None)]}),
    ("pair", "推理时，4090 24G 比 V100 32G 快吗",
     {"intent": "compare", "gpus": [("rtx-4090-24gb", None), ("v100-sxm-32gb", None)]}),
    # ------------------------------------------------------------------ family typos
    ("typo", "lama3.1 8b on a t4?", {"intent": "size_inference", "models": ["llama-3.1-8b"]}),
    ("typo", "mistrl 7b instruct speed on l4", {"intent": "size_inference", "models": ["mistral-7b-v0.3"]}),
    ("typo", "qwne2.5 14b awq memory", {"intent": "size_inference", "models": ["qwen2.5-14b"], "precisions": ["awq"]}),
    ("typo", "gemm 2 27b fits a100 40g?", {"intent": "size_inference", "models": ["gemma-2-27b"]}),
    ("typo", "deepsek v3 on 8x h200", {"intent": "size_inference", "models": ["deepseek-v3"],
                                       "gpus": [("h200-sxm-141gb", 8)]}),
    ("typo", "llama 2 70b gptq on 2 3090s", {"models": ["llama-2-70b"], "precisions": ["gptq"]}),  # gptq is no family
    ("typo", "llava 13b on a 4090", {"models": ["generic:13"]}),  # a changed letter is another name, not llama
    # ------------------------------------------------------------------ MoE sizes written "22b*8"
    ("moe", "mixtral 22b*8 in fp8 on h100s", {"intent": "size_inference", "models": ["mixtral-8x22b"]}),
    ("moe", "8*7b moe on two 3090s", {"models": ["mixtral-8x7b"], "gpus": [("rtx-3090-24gb", 2)]}),
    ("moe", "mixtral 7b*8 q4 on 24gb", {"models": ["mixtral-8x7b"], "precisions": ["int4"]}),
    ("moe", "22bx8 awq how many a100", {"models": ["mixtral-8x22b"], "precisions": ["awq"]}),
    ("moe", "mixtral 7b×8 在 2 张 4090 上", {"models": ["mixtral-8x7b"], "gpus": [("rtx-4090-24gb", 2)]}),
    # ------------------------------------------------------------------ a name without its active-size suffix
    ("no_active", "qwen3 235b how many h100 in fp8", {"models": ["qwen3-235b-a22b"], "precisions": ["fp8"]}),
    ("no_active", "qwen3 30b at q4 on a 16gb card", {"models": ["qwen3-30b-a3b"], "precisions": ["int4"]}),
    ("no_active", "llama 4 109b on 4x h100", {"models": ["llama-4-scout"], "gpus": [("h100-sxm-80gb", 4)]}),
    ("no_active", "qwen3 30b vs 32b speed on 4090", {"models": ["qwen3-30b-a3b", "qwen3-32b"]}),
    ("no_active", "deepseek r1 671b 满血 部署", {"models": ["deepseek-r1"], "full_precision": True}),
    # ------------------------------------------------------------------ family glued to size
    ("glued", "llama70b on 2x a100 80g", {"models": ["llama-3.3-70b"], "gpus": [("a100-sxm-80gb", 2)]}),
    ("glued", "deepseek671b fp8 on 8 h200", {"models": ["deepseek-v3"], "gpus": [("h200-sxm-141gb", 8)]}),
    ("glued", "qwen72b awq on 2x 4090", {"models": ["qwen2.5-72b"], "gpus": [("rtx-4090-24gb", 2)]}),
    ("glued", "mistral7b on t4", {"models": ["mistral-7b-v0.3"], "gpus": [("t4-16gb", None)]}),
    # family + size without a version: the newest Baichuan of 13B (Baichuan2-13B), with variant_assumed
    ("glued", "baichuan13b 在 4090 上能跑吗", {"models": ["baichuan2-13b"], "gpus": [("rtx-4090-24gb", None)]}),
    # ------------------------------------------------------------------ instance families
    ("instance_family", "g5 for llama 3 8b serving",
     {"intent": "size_inference", "gpus": [("a10g-24gb", None)], "providers": ["aws"]}),
    ("instance_family", "p5e vs p5 for llama 3.1 405b",
     {"intent": "compare", "gpus": [("h200-sxm-141gb", 8), ("h100-sxm-80gb", 8)]}),
    ("instance_family", "a3-highgpu price per hour", {"intent": "quote", "gpus": [("h100-sxm-80gb", None)],
                                                      "providers": ["gcp"]}),
    ("instance_family", "p4de for fine tuning llama 3 70b", {"intent": "finetune", "gpus": [("a100-sxm-80gb", 8)]}),
    ("instance_family", "g6e cost per hour", {"intent": "quote", "gpus": [("l40s-48gb", None)]}),
    # ------------------------------------------------------------------ comparisons without "vs"
    ("compare_cue", "is llama 3 8b faster on an l4 than on a t4?",
     {"intent": "compare", "gpus": [("l4-24gb", 1), ("t4-16gb", 1)]}),
    ("compare_cue", "is the h200 worth it over the h100 for qwen2.5 72b serving?", {"intent": "compare"}),
    ("compare_cue", "4090 还是 3090 跑 qwen2.5 14b 更快", {"intent": "compare"}),
    ("compare_cue", "would an mi300x beat an h200 for deepseek v3 inference?", {"intent": "compare"}),
    ("compare_cue", "how does the a10g stack up against the l4 for mistral 7b?",
     {"intent": "compare", "gpus": [("a10g-24gb", None), ("l4-24gb", None)], "models": ["mistral-7b-v0.3"]}),
    ("compare_cue", "8x h100 with nvlink is slower than 4x a100 pcie on our llama.cpp box", {"intent": "compare"}),
    # ------------------------------------------------------------------ feature-support questions
    ("support", "does the rtx 3090 support fp8?", {"intent": "spec_lookup", "precisions": ["fp8"]}),
    ("support", "can an l4 do flash attention 2 for gemma 2 9b?",
     {"intent": "spec_lookup", "features": ["flash_attention_2"]}),
    ("support", "is bf16 supported on v100?", {"intent": "spec_lookup", "features": ["bf16"]}),
    ("support", "does the a100 have fp8 tensor cores?", {"intent": "spec_lookup"}),
    ("support", "does mi250x support flash attention?", {"intent": "spec_lookup"}),
    ("support", "V100 不支持 bf16 吗", {"intent": "spec_lookup"}),
    # ------------------------------------------------------------------ price words in sizing questions
    ("price_in_sizing", "cheapest way to serve llama 3.1 70b to 200 users?",
     {"intent": "size_inference", "concurrent_users": 200}),
    ("price_in_sizing", "what would it cost per month to run qwen2.5 32b on l40s for 30 users",
     {"intent": "size_inference", "concurrent_users": 30, "duration_hours": 730}),
    ("price_in_sizing", "how much would serving gemma 2 9b at 100 req/s cost on h100s?",
     {"intent": "size_inference", "requests_per_s": 100}),
    ("price_in_sizing", "price per hour to host deepseek r1 for 50 concurrent users",
     {"intent": "size_inference", "concurrent_users": 50}),
    ("price_in_sizing", "host gemma 2 27b for 20 users, what's the monthly cost?",
     {"intent": "size_inference", "concurrent_users": 20, "duration_hours": 730}),
    ("price_in_sizing", "部署 qwen2.5 72b 给 100 个用户用，每月多少钱",
     {"intent": "size_inference", "concurrent_users": 100}),
    # ------------------------------------------------------------------ fine-tuning words
    ("finetune_word", "dreambooth sdxl on a 4090, how long?",
     {"intent": "finetune", "models": ["stable-diffusion-xl-1.0-base"]}),
    ("finetune_word", "微调 qwen2.5 7b 需要几张 4090", {"intent": "finetune"}),
    ("finetune_word", "textual inversion on a 12gb card?", {"intent": "finetune"}),
    ("finetune_word", "sft qwen2.5 14b on 2x a100 80g", {"intent": "finetune", "gpus": [("a100-sxm-80gb", 2)]}),
    ("finetune_word", "dpo llama 3 8b with 4x 4090", {"intent": "finetune", "gpus": [("rtx-4090-24gb", 4)]}),
    ("finetune_word", "qlora gemma 2 9b on a colab t4", {"intent": "finetune", "method": "qlora"}),
    # ------------------------------------------------------------------ "seq N"
    ("seq", "lora llama 3 8b, seq 4096, batch 8 on one a100", {"context_tokens": 4096, "batch_size": 8}),
    ("seq", "full finetune qwen2.5 7b at seq 8192 with fsdp", {"context_tokens": 8192, "sharding": "fsdp"}),
    ("seq", "seq 2048 bs 16 qlora phi-3-mini on t4", {"context_tokens": 2048, "batch_size": 16}),
    ("seq", "pretrain 1b with seq 1024 on 8 h100", {"intent": "size_training", "context_tokens": 1024}),
    ("seq", "serve llama 3 8b seq 32768 on l40s", {"context_tokens": 32768}),
    # ------------------------------------------------------------------ "Nk seq"
    ("k_seq", "llama 3.1 8b with 8k seq on a 4090", {"context_tokens": 8192}),
    ("k_seq", "qwen2.5 14b lora 4k seq 2x 3090", {"context_tokens": 4096}),
    ("k_seq", "32k seq qwen3 32b on 2 h100", {"context_tokens": 32768}),
    ("k_seq", "16k seq mistral nemo on l40s", {"context_tokens": 16384, "models": ["mistral-nemo-12b"]}),
    ("k_seq", "2k seq full finetune phi-3-mini", {"context_tokens": 2048, "method": "full"}),
    # ------------------------------------------------------------------ aggregate vs per-user tok/s
    ("rate_scope", "host qwen2.5 32b at 3000 tok/s on l40s", {"target_tokens_per_s": 3000, "target_scope": None}),
    ("rate_scope", "need 40 tok/s per user for qwen2.5 32b, 10 users",
     {"target_tokens_per_s": 40, "target_scope": "per_user", "concurrent_users": 10}),
    ("rate_scope", "5000 tokens/s total for mistral 7b on l4s", {"target_tokens_per_s": 5000, "target_scope": "total"}),
    ("rate_scope", "llama 3 8b, 1500 tok/s across all users, how many a10g",
     {"target_tokens_per_s": 1500, "target_scope": "total"}),
    ("rate_scope", "each user should get 25 t/s; qwen2.5 32b for 64 users",
     {"target_tokens_per_s": 25, "target_scope": "per_user", "concurrent_users": 64}),
    # ------------------------------------------------------------------ TTFT limits
    ("ttft", "ttft under 300ms for llama 3 8b on l4", {"ttft_ms_max": 300}),
    ("ttft", "llama 3.1 70b with time to first token < 1s at 16 users", {"ttft_ms_max": 1000, "concurrent_users": 16}),
    ("ttft", "first token latency below 800 ms for qwen2.5 14b", {"ttft_ms_max": 800}),
    ("ttft", "TTFT<=200ms, 50 users, mistral 7b", {"ttft_ms_max": 200, "concurrent_users": 50}),
    ("ttft", "keep ttft under 2 seconds for deepseek v3 with 100 users", {"ttft_ms_max": 2000}),
    # ------------------------------------------------------------------ p99
    ("percentile", "p99 latency under 3s for llama 3 8b at 40 users",
     {"latency_ms_max": 3000, "latency_percentile": 99, "gpus": [], "unknown_terms": []}),
    ("percentile", "p95 ttft below 500ms qwen2.5 7b", {"ttft_ms_max": 500, "latency_percentile": 95}),
    ("percentile", "p90 latency 1.5s with 200 concurrent users, llama 3 70b",
     {"latency_ms_max": 1500, "latency_percentile": 90, "concurrent_users": 200}),
    ("percentile", "p50 tpot 30ms for mistral 7b", {"tpot_ms_max": 30, "latency_percentile": 50}),
    ("percentile", "need p99 under 800ms, llama 3.1 8b, 20 qps",
     {"latency_ms_max": 800, "latency_percentile": 99, "requests_per_s": 20}),
    # ------------------------------------------------------------------ Chinese users
    ("zh_users", "30个用户同时用 qwen2.5 32b，需要几张L40S", {"concurrent_users": 30, "asks_include": "gpu_count"}),
    ("zh_users", "200 个用户并发 跑 llama 3 8b 要什么配置", {"concurrent_users": 200}),
    ("zh_users", "三百个人在线使用 deepseek r1 需要多少卡", {"concurrent_users": 300}),
    ("zh_users", "并发 64 路 qwen2.5 14b 4090够吗", {"concurrent_users": 64}),
    ("zh_users", "支持 80 位用户的 mistral 7b 需要几卡", {"concurrent_users": 80}),
    # ------------------------------------------------------------------ Chinese durations
    ("zh_duration", "租 4张A100 两周多少钱", {"intent": "quote", "duration_hours": 336, "gpus": [("a100-sxm-80gb", 4)]}),
    ("zh_duration", "8张H20 包月价格", {"intent": "quote", "duration_hours": 730}),
    ("zh_duration", "按月租 8 卡 H800 多少钱", {"intent": "quote", "duration_hours": 730}),
    ("zh_duration", "H100 一个月多少钱", {"intent": "quote", "duration_hours": 730}),
    ("zh_duration", "训练 7b 模型 3 个月 需要多少卡", {"intent": "size_training", "duration_hours": 2190}),
    # ------------------------------------------------------------------ Chinese currency
    ("zh_money", "每小时 20 元以内的卡能跑 qwen2.5 72b 吗",
     {"price_limit_per_hour": Money(amount=20, currency="cny"), "answer_currency": "cny"}),
    ("zh_money", "A800 每卡每小时 8 块钱贵吗",
     {"intent": "quote", "price_limit_per_hour": Money(amount=8, currency="cny"), "price_limit_per_gpu": True,
      "gpus": [("a800-sxm-80gb", None)]}),
    ("zh_money", "10万人民币预算部署 deepseek 满血版", {"budget": Money(amount=100_000, currency="cny")}),
    ("zh_money", "用人民币报价：8卡 H100 一周", {"answer_currency": "cny", "duration_hours": 168}),
    ("zh_money", "预算 5000 美元 训练 1b 模型", {"budget": Money(amount=5000, currency="usd")}),
    # ------------------------------------------------------------------ Chinese ratios
    ("zh_ratio", "H100 比 A100 快三倍吗", {"intent": "spec_lookup", "claimed_ratio": 3}),
    ("zh_ratio", "4090 推理速度是 3090 的 1.5 倍？", {"claimed_ratio": 1.5}),
    ("zh_ratio", "H20 比 H100 慢十倍？", {"claimed_ratio": 10}),
    ("zh_ratio", "B200 比 H100 快 2.5 倍是真的吗", {"claimed_ratio": 2.5}),
    ("zh_ratio", "H200 训练比 H100 快六倍？", {"claimed_ratio": 6}),
    # ------------------------------------------------------------------ 满血
    ("full", "deepseek r1 满血版要几台 H20", {"full_precision": True, "models": ["deepseek-r1"]}),
    ("full", "满血的 qwen3 235b 部署 需要多少 H100", {"full_precision": True, "models": ["qwen3-235b-a22b"]}),
    ("full", "qwen2.5 72b 满血版和 awq 版显存差多少", {"full_precision": True, "precisions": ["awq"]}),
    ("full", "满血 deepseek v3 用 A800 能跑吗", {"full_precision": True, "models": ["deepseek-v3"]}),
    ("full", "8 卡 H200 跑满血 deepseek r1 的速度", {"full_precision": True, "gpus": [("h200-sxm-141gb", 8)]}),
    # ------------------------------------------------------------------ a name between a count and its unit
    ("named_unit", "render 2500 flux.1 dev images overnight on an L40S",
     {"images": 2500, "models": ["flux.1-dev"], "not_understood": []}),
    ("named_unit", "we must embed 3 million e5-large-v2 passages, which gpu?",
     {"documents": 3_000_000, "models": ["e5-large-v2"], "not_understood": []}),
    # a model named between the number and an image rate: a rate the service must reach, not a count of images
    ("named_unit", "40 sdxl pictures per minute possible on one 4090?",
     {"images_per_minute": 40, "images": None, "models": ["stable-diffusion-xl-1.0-base"]}),
    ("named_unit", "serving 300 mistral 7b users at 4k context",
     {"concurrent_users": 300, "models": ["mistral-7b-v0.3"], "not_understood": []}),
    ("named_unit", "fine-tune on 20k qwen2.5 7b chat examples with lora",
     {"documents": 20_000, "models": ["qwen2.5-7b"]}),
    # ------------------------------------------------------------------ throughput asked
    ("throughput", "what aggregate throughput does 2x L40S give on llama 3 8b?",
     {"asks_include": "throughput", "intent": "size_inference"}),
    ("throughput", "peak throughput of qwen2.5 32b on one h100",
     {"asks_include": "throughput"}),
    ("throughput", "total tokens per second for mistral 7b on an a10g",
     {"asks_include": "throughput"}),
    ("throughput", "8 张 H20 跑 deepseek v3 的总吞吐能到多少",
     {"asks_include": "throughput", "gpus": [("h20-96gb", 8)]}),
    ("throughput", "单卡 4090 跑 qwen2.5 7b 最大吞吐是多少",
     {"asks_include": "throughput", "gpus": [("rtx-4090-24gb", 1)]}),
    # ------------------------------------------------------------------ numbers: whose unit, which scale
    ("number_owner", "size it for 300 concurrent users at 16k ctx, mixtral 8x7b",
     {"concurrent_users": 300, "context_tokens": 16384}),
    ("number_owner", "p95 ttft should be under 800ms for qwen2.5 7b on l4", {"ttft_ms_max": 800.0}),
    ("number_owner", "ok now make it 32 of them", {"gpu_count": 32}),
    ("number_owner", "pretrain a 13b on 8T tokens within 45 days, how many h100s",
     {"training_tokens": 8e12, "deadline_hours": 45 * 24}),
    ("number_owner", "微调数据 5w条，每条平均2k token，qwen2.5 7b lora",
     {"documents": 50_000, "tokens_per_item": 2000}),
    ("number_owner", "上下文改成16k，并发还是30", {"context_tokens": 16384, "concurrent_users": 30}),
    ("number_owner", "部门300人用，部署 qwen2.5 14b", {"concurrent_users": 300}),
    ("number_owner", "这张卡功耗 450W，跑 qwen2.5 7b", {"power_watts": 450.0}),
    ("number_owner", "租4张A100一周要多少钱", {"duration_hours": 168.0, "gpus": [("a100-sxm-80gb", 4)]}),
    ("number_owner", "预算8万，租几张4090合适", {"budget": Money(amount=80_000, currency="cny")}),
    ("number_owner", "部署 qwen2.5 32b，bf16，4卡L20，40并发，每人能有多少token/s",
     {"concurrent_users": 40, "precisions": ["bf16"], "gpus": [("l20-48gb", 4)], "asks_include": "speed"}),
    ("number_owner", "两台8卡A800跑deepseek v3能撑多少并发", {"gpus": [("a800-sxm-80gb", 16)], "asks_include": "users_served"}),
    ("number_owner", "客服 QPS=8，qwen2.5 7b 要几张 4090", {"requests_per_s": 8.0}),
    ("number_owner", "one l40s, int8，16k上下文，能开几个并发", {"context_tokens": 16384, "asks_include": "users_served"}),
    ("number_owner", "3090 24G 跑 deepseek r1 蒸馏版 32b 行不行", {"models": ["deepseek-r1-distill-qwen-32b"]}),
    ("number_owner", "lora on 100k examples of 1k tok, llama 3 8b", {"documents": 100_000, "tokens_per_item": 1000}),
]


def _check(query: Query, expected: dict, kb) -> None:
    for key, want in expected.items():
        if key == "gpus":
            got = []
            for g, w in zip(query.gpus, want, strict=False):
                if len(w) == 4:
                    memory = g.memory_gb if g.memory_gb is not None else kb.gpus[g.id].memory_gb
                    got.append((g.id, g.count, memory, g.capacity_only))
                else:
                    got.append((g.id, g.count))
            assert len(query.gpus) == len(want) and got == [tuple(w) for w in want], query.gpus
        elif key == "models":
            got = [m.id or f"generic:{m.params_total_b:g}" for m in query.models]
            assert got == want
        elif key == "asks_include":
            assert want in query.asks
        elif isinstance(want, Money):
            value = getattr(query, key)
            assert value is not None and value.currency == want.currency, value
            assert value.amount == pytest.approx(want.amount)
        else:
            assert getattr(query, key) == want, (key, getattr(query, key))


@pytest.mark.parametrize(("kind", "text", "expected"), CASES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CASES)])
def test_kind(kb, kind, text, expected):
    _check(parse_question(text, kb), expected, kb)


def test_at_least_five_questions_per_kind():
    kinds: dict[str, int] = {}
    for kind, _, _ in CASES:
        kinds[kind] = kinds.get(kind, 0) + 1
    assert len(kinds) >= 26 and min(kinds.values()) >= 5, kinds


def test_an_unknown_accelerator_is_not_a_model_size(kb):
    """"910B" names an Ascend card; it is never read as a model of 910 billion parameters."""
    query = parse_question("qwen2.5 72b 在 4 张 910B 上能跑吗", kb)
    assert [m.id for m in query.models] == ["qwen2.5-72b"]
    assert query.gpus[0].id.startswith("ascend-910b") and query.gpus[0].count == 4


def test_a_brand_word_before_another_product_code_is_that_product_unknown(kb):
    """"Ascend" alone stands for the 910B; "Ascend 310P" is another card, reported unknown, never the 910B."""
    query = parse_question("Ascend 310P 能跑 qwen2.5 7b 吗", kb)
    assert query.gpus == []
    assert [u.as_written for u in query.unknown_terms] == ["Ascend 310P"]


def test_a_name_the_knowledge_base_lacks_is_reported_not_replaced(kb):
    query = parse_question("can vicuna-33b run on 2 3090s?", kb)
    assert [(m.id, m.params_total_b) for m in query.models] == [(None, 33)]
    assert [u.as_written for u in query.unknown_terms] == ["vicuna-33b"]
