"""Message catalogs: every code the core emits has a sentence in English and Chinese, and Chinese answers
are Chinese (no English sentence outside names, units and code)."""

from __future__ import annotations

import ast
import re

import pytest

from bot.advice.conversation import respond_to
from bot.render.compose import compose
from bot.render.i18n import get_catalog
from tests.conftest import REPO

_EMITTERS = {"note", "assume", "warn", "lack"}


def _emitted_codes() -> set[str]:
    """Message codes written as literals in the core's note(...), ctx.assume/warn/lack(...) calls."""
    codes: set[str] = set()
    for path in (REPO / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name not in _EMITTERS:
                continue
            arg = node.args[0]
            options = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]
            codes |= {o.value for o in options if isinstance(o, ast.Constant) and isinstance(o.value, str)}
    return codes


def test_every_emitted_code_has_both_sentences():
    en, zh = get_catalog("en").messages, get_catalog("zh").messages
    codes = _emitted_codes() | {f"oom_fix_{k}_{i}" for k in ("serving", "training") for i in (1, 2, 3)}
    assert codes, "the scan found no codes"
    assert sorted(c for c in codes if c not in en) == []
    assert sorted(c for c in codes if c not in zh) == []


def test_catalogs_have_the_same_codes_and_columns():
    en, zh = get_catalog("en"), get_catalog("zh")
    assert set(en.messages) == set(zh.messages)
    assert set(en.columns) == set(zh.columns)
    bilingual = {"bilingual", "claim_verdict", "claim_origin", "unlisted_gpu", "unlisted_headline"}
    for code, text in en.messages.items():  # the same parameters in both languages (bilingual data aside)
        if code not in bilingual:
            assert set(re.findall(r"\{(\w+)", text)) == set(re.findall(r"\{(\w+)", zh.messages[code])), code


def test_chinese_sentences_are_chinese():
    zh = get_catalog("zh").messages
    prose = {c: t for c, t in zh.items() if re.sub(r"\{[^}]*\}|\[\[|\]\]|[\s\W\d]", "", t)}
    untranslated = [c for c, t in prose.items() if not re.search(r"[\u4e00-\u9fff]", t)
                    and c not in ("layout", "config", "config_precision", "config_method", "title_help",
                                  "gpu_memory_item")]
    assert untranslated == []


# English words that may appear in a Chinese answer: names, units, formats, engines, flags and code.
_ALLOWED = re.compile(
    r"[A-Za-z0-9.\-_/]*\d[A-Za-z0-9.\-_/]*|tokens?|tok/s|GB|GiB|TB|TFLOPS|TOPS|GPU|CPU|NVLink|PCIe|Gen\d|FP\d+|"
    r"fp\d+|bf16|int\d|INT\d|awq|gptq|nf4|q\d_\w+|KV|cache|TTFT|prefill|decode|MFU|MBU|TP|PP|vLLM|vllm|SGLang|"
    r"TensorRT-LLM|llama\.cpp|LoRA|QLoRA|lora|qlora|full|ZeRO|FSDP|MoE|MLA|SXM\d?|PCIe|NVL|HBM\d?e?|RTX|Ada|"
    r"Lambda|AWS|GCP|Azure|RunPod|CoreWeave|Paperspace|DigitalOcean|Vast\.ai|Oracle|OCI|China|Gongji|Compute|"
    r"Ascend|Atlas|Huawei|MI\d+X?|Llama|Qwen|DeepSeek|Mistral|Mixtral|Gemma|Phi|Vision|MoE|Instruct|SDPA|"
    r"xformers|FlashAttention|--[\w-]+|PYTORCH_CUDA_ALLOC_CONF|expandable_segments|True|NCCL_P2P_DISABLE|"
    r"torch_dtype|torch\.float16|Trainer|loss|scaling|half|dtype|SXM|NVIDIA|AMD|Tesla|Quadro|H\d+|A\d+|L\d+S?|"
    r"T4|V100|B200|modified|the|pasted|config\.json|gpu|api|Chinchilla|Hoffmann|GiB|x|v\d|Transformer|Engine|"
    r"MT-NLG|Megatron|GPT-3|Turing|NLG|InfiniBand|HDR|NDR|Switch|Hopper|Ampere|Blackwell|W8A8|SmoothQuant|"
    r"on|demand|spot|commitment|hourly|SECURE|Standard|large|xlarge|metal|highgpu|ultragpu|megagpu|NC\w*|"
    r"Droplet|HGX|Lambda|PUE|kW|MindIE|CANN|HCCS|OpenAI|Whisper|SDXL|Flux|bge|it/s|MIG|ECC|TDP|P2P|DGX|GeForce|"
    r"ConnectX|Gb/s|GB/s|TB/s|Lambda|Labs|Base|Chat|Coder|Distill|R1|V3|Scout|Maverick|ms|s|h|n/a|Ti|SUPER|D|"
    r"cross|rate|ECB|ND|FP8")


@pytest.mark.parametrize("question", [
    "用 vllm 部署 qwen2.5-32b 给 100 个用户并发，8k 上下文，要几张 L20",
    "租8卡H100一周多少钱，用人民币报价",
    "H100 训练快 9 倍、推理快 30 倍是真的吗",
    "单张 4090 能跑 qwen2.5 14b fp16 吗",
    "qlora 微调 qwen2.5 72b 需要几张 A800",
    "8卡H100 预训练 7b 模型 1T token 要多久",
    "H20 的 FP16 算力和显存带宽是多少，适合训练吗",
    "A100 80G 按月租多少钱",
    "T4 上训练报错 Bf16 is only supported on A100+ GPUs 怎么办",
])
def test_a_chinese_answer_has_no_english_sentence(kb, question):
    c = compose(respond_to(question, kb=kb).answer)
    assert c.language == "zh"
    for line in [c.title, c.headline, *c.details, *c.warnings, *c.missing, *c.assumptions, *c.columns]:
        leftover = _ALLOWED.sub(" ", line)
        words = re.findall(r"[A-Za-z]{3,}", leftover)
        assert len(words) < 3, (line, words)


# A wider net: answers to questions of every kind, read in full (every detail, warning, assumption, example, button
# and the price-date line), may hold names, units and code, but no English phrase. Names are the knowledge base's
# (GPUs and aliases, models, providers, instance types); code is a token with a digit, "_", ".", "/", "=" or a leading
# "--". What is left may be single technical terms (prefill, all-reduce); two English words in a row, or an English
# function word, is an English sentence.
_TERMS = frozenset("""
    tokens token tok GB GiB MB TB TFLOPS TOPS GPU GPUs CPU NVLink PCIe KV cache TTFT TPOT prefill decode MFU MBU TP PP EP
    DP vLLM vllm SGLang sglang LoRA QLoRA lora qlora ZeRO FSDP DDP MoE MLA SXM NVL HBM RTX Ada GDDR FP INT AWQ GPTQ
    awq gptq NVIDIA AMD Huawei Ascend Atlas Tesla Quadro GeForce Hopper Ampere Blackwell Lovelace Turing Volta Transformer
    Engine Tensor Core SM SMs LLM AI HPC MIG ECC TDP PUE kW W P2P DGX HGX InfiniBand NDR HDR RoCE Ethernet GbE MindIE
    CANN HCCS CUDA PyTorch SDPA xformers FlashAttention OOM SmoothQuant Chinchilla Hoffmann Megatron MT-NLG GPT NLG
    Slack README faster-whisper diffusers tei ollama TensorRT-LLM tensorrt-llm llama hidden all-reduce prompt beam tile
    batch micro replicated dense sparse NA ECB spot distill qwen deepseek Lambda Labs Vast RunPod ms s h x vs
    """.split())
_FUNCTION_WORDS = frozenset("the of and or is are not for to with an in on at by no per from as this that it be was were "
                            "has have can will you your we our my".split())


def _name_pattern(kb) -> re.Pattern:
    names = {g.name for g in kb.gpus.values()} | {a for g in kb.gpus.values() for a in g.aliases or []}
    names |= {m.name for m in kb.models.values()} | {o.instance_type for o in kb.offers}
    names |= {p.provider_name for p in kb.providers.values()} | {u.name for u in kb.unpriced_providers.values()}
    return re.compile("|".join(re.escape(n) for n in sorted((n for n in names if len(n) > 1), key=len, reverse=True)))


def english_phrases(line: str, names: re.Pattern) -> list[str]:
    """The English phrases of ``line`` outside names, units, technical terms and code (empty when there is none)."""
    rest = names.sub(" ", line)
    rest = re.sub(r"--[\w-]+(?:[ =][\w.]+)?", " ", rest)  # a flag and its value ("--dtype half")
    rest = re.sub(r"(?:--|/)?[A-Za-z0-9]*[\d_.=/][\w.=/+\-]*", " ", rest)  # code, ids, sizes, commands
    words = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"[A-Za-z][A-Za-z'\-]*", rest)]
    found, run = [], []
    for word, start, end in words:
        if word in _TERMS or (word.isupper() and len(word) <= 5):
            run = []
            continue
        if word.lower() in _FUNCTION_WORDS:
            found.append(word)
        if run and re.fullmatch(r"[\s,;:()'\"]*", rest[run[-1][2]:start]):
            run.append((word, start, end))
            found.append(" ".join(w for w, _, _ in run))
        else:
            run = [(word, start, end)]
    return found


_WIDE_QUESTIONS = [
    # serving, sizing, load
    "我们团队想上线 qwen2.5 14b 的客服机器人，高峰 80 人同时聊，用 L20 要几张",
    "deepseek r1 蒸馏版 32b 放到两张 4090 上，上下文 16k，能撑几个并发",
    "llama 3.1 8b 用 vllm 在一张 A10 上，最多多少人同时用",
    "H20 跑 glm-4 9b，每秒要处理 20 个请求，输入 800 输出 200 token，几张卡",
    "单卡 A800 跑 qwen2.5 72b int4，首 token 延迟多少",
    "我们有 4 张 3090，能跑 qwen2.5 32b 吗，fp16 不行的话 int8 呢",
    "mixtral 8x7b 在两张 L40S 上能跑吗，速度怎么样",
    "qwen3 30b a3b 在 4090 上每秒能出多少 token",
    "部署 qwen3 235b，fp8，用 H20，要几台服务器",
    "llama 3.3 70b 给 500 个员工用，平均 10% 同时在线，选什么卡",
    "qwen2.5 7b 的 kv cache 每个 token 多大",
    "128k 上下文的 llama 3.1 70b，一个用户的 kv cache 多大",
    "ollama 跑 qwen2.5 14b 需要多少显存",
    "用 tensorrt-llm 部署 llama 3 8b 在 L4 上，吞吐多少",
    "deepseek r1 在 16 张 H20 上，每个用户 20 token/s，能支持多少人",
    "70b 模型 int8 需要多少显存",
    # fine-tuning and training
    "lora 微调 qwen2.5 7b，数据 5 万条，每条 1500 token，3 个 epoch，4090 要几天",
    "qlora 微调 llama 3 70b，单卡 A100 80G 放得下吗",
    "全参微调 qwen2.5 14b 用 deepspeed zero3，8 张 A800 要多久，1 亿 token",
    "微调 glm-4 9b 需要多少显存",
    "我要在一周内微调完 qwen2.5 32b，20 亿 token，用 H800 要几张",
    "从头预训练一个 3b 模型，3000 亿 token，32 张 H100 要多少天，花多少钱",
    "64 张 A800 两周能训练 7b 模型多少 token",
    "训练 13b 模型 1 万亿 token 的算力需求是多少",
    # prices, budgets, buy vs rent
    "租 8 张 H100 一个月多少钱，按人民币",
    "A100 和 H100 每小时价格差多少",
    "4 张 L40S 租三天多少钱",
    "p5.48xlarge 一个月多少钱",
    "runpod 上 A100 80G spot 价格多少",
    "AWS 宁夏区 p4d 一小时多少钱",
    "H100 包三年每小时多少钱",
    "有没有每小时 5 块钱以内能跑 14b 模型的卡",
    "预算每月 2 万人民币，部署 qwen2.5 72b 给 30 人用，够不够",
    "每小时 10 美元预算，最好的 70b 部署方案是什么",
    "买 8 张 H100 服务器 250 万，租的话多久回本",
    "买 4 张 4090 大概 6 万，和在 AutoDL 租比哪个划算，用两年",
    "一台 8 卡 A800 要 110 万，三年内自建还是租云",
    "什么 GPU 最便宜",
    # comparisons and specs
    "H100 和 A100 跑 llama 3 70b 哪个每百万 token 更便宜",
    "4090 和 L40S 跑 qwen2.5 7b 对比",
    "H800 比 H100 训练慢多少",
    "910B 和 H20 推理 qwen2.5 72b 谁快",
    "5090 和 4090 哪个性价比高",
    "A800 和 A100 有什么区别",
    "L20 的显存带宽是多少",
    "H20 支持 NVLink 吗，带宽多少",
    "昇腾 910B 支持 fp8 吗",
    "4090 能不能多卡 p2p",
    "T4 能用 flash attention 2 吗",
    # the article's claims
    "H100 比 A100 快 6 倍吗",
    "H100 PCIe 版功耗减半性能还有六成吗",
    "8 张 H100 加起来 640G 显存是真的吗",
    "H100 的 FP8 比 A100 快 4 倍吗",
    "一张 H100 每小时 2.24 美元靠谱吗",
    "H100 芯片间通信是 A100 的 6 倍？",
    # errors
    "CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.64 GiB 跑 qwen 14b 报这个错",
    "vllm 报错 KV cache 不够：max seq len 131072 比 KV cache 能放下的 45000 token 大，用的是 llama 3.1 8b 单卡 4090",
    # images, speech, embeddings, batch jobs
    "用 flux dev 生成 5 万张图，4090 要多久",
    "whisper large v3 转写 2 万小时录音，三天内完成要几张卡",
    "bge-m3 给 1 亿条文本做向量，A10 要多久",
    "用 qwen2.5 32b 给 20 万份合同抽取字段，每份 4000 token 输入 300 token 输出，H20 多久能跑完，多少钱",
    "用 llama 3.1 8b 翻译 500 万句，每句 60 token 进 60 token 出，一天内完成要几张 4090",
    # China-market cards and clouds, mentions
    "AutoDL 上租 H800 跑 deepseek r1 一个月多少钱",
    "AutoDL 上 3090 训练一天多少钱",
    "在 AutoDL 用 L20 微调 qwen2.5 14b，lora，1 亿 token，多少钱，人民币",
    "AutoDL 的 A800 和 H800 跑 qwen2.5 72b 哪个更省钱",
    "8 卡 A800 服务器租一个月要多少",
    "阿里云 H20 一个月多少钱",
    "腾讯云上 A100 多少钱一小时",
    "共绩算力 5090 一小时多少钱",
    "4 张 910B 跑 qwen2.5 72b 给 50 人用",
    "昇腾 910C 有多少显存和算力",
    "海光 DCU K100 能跑 70b 吗",
    "我们的 4090 是 48G 魔改版，8 张能跑 deepseek r1 满血版吗",
    # unknown models and variants
    "Qwen6-150B 用 A800 要几张",
    "GLM-6 在 H20 上能跑吗",
    "deepseek v5 需要多少显存",
    "H200 100G 跑 llama 3 70b fp16 要几张",
    "A6000 Ti 能跑 32b 吗",
    # help
    "你好",
    "帮助",
]


@pytest.fixture(scope="module")
def names(kb):
    return _name_pattern(kb)


@pytest.mark.parametrize("question", _WIDE_QUESTIONS)
def test_no_english_phrase_in_any_part_of_a_chinese_answer(kb, names, question):
    c = compose(respond_to(question, kb=kb).answer)
    assert c.language == "zh"
    parts = [c.title, c.headline, *c.details, *c.warnings, *c.missing, *c.assumptions, c.price_dates, c.verbose_hint,
             *c.examples, *(label for _, label, _ in c.buttons), *c.columns]
    leaks = [(line, found) for line in parts if (found := english_phrases(line, names))]
    assert leaks == []


@pytest.mark.parametrize("turns", [
    ("租 4 张 H100 一周多少钱", "换成 L20 呢"),
    ("用 A800 跑 qwen2.5 32b 给 40 人用，一个月多少钱", "换成 H20 呢", "int4 呢"),
    ("lora 微调 qwen2.5 7b 用 4090，1 亿 token 多少钱", "换成 910B 呢"),
    ("H100 跑 llama 3 8b 的速度", "reset"),
])
def test_follow_ups_and_resets_stay_chinese(kb, names, turns):
    from bot.advice.conversation import help_turn

    previous = None
    for text in turns:
        if text == "reset":
            turn = help_turn(kb, reset=True, language=previous.language)
        else:
            turn = respond_to(text, previous, kb=kb)
        c = compose(turn.answer)
        assert c.language == "zh", text
        parts = [c.title, c.headline, *c.details, *c.warnings, *c.missing, *c.assumptions, c.price_dates, *c.examples]
        assert [(line, f) for line in parts if (f := english_phrases(line, names))] == [], text
        previous = turn.query


def test_the_phrase_check_finds_english(kb, names):
    # the check itself: an English caveat or a generic model's English label is caught; names and code are not
    assert english_phrases("注意：a user's copy of AutoDL's GPU table; billing mode not stated。", names)
    assert english_phrases("KV cache（4,096 token x 1 路）：a 70B model 约 1.3 GB", names)
    assert english_phrases("2 张 H100 SXM5 80GB（fp8）：调低 --max-model-len，RunPod 1x_H100-SXM_SECURE", names) == []


def test_optional_parts_are_not_nested():
    # [[ ... ]] parts are resolved one level deep (bot/render/i18n.py): a nested one would print its brackets
    import re

    from bot.render.i18n import renderer_for
    for lang in ("en", "zh"):
        catalog = renderer_for(lang)._catalog
        nested = [code for code, text in catalog.messages.items() if re.search(r"\[\[(?:(?!\]\]).)*\[\[", text)]
        assert nested == [], (lang, nested)


def test_a_duration_under_an_hour_is_in_minutes_or_seconds_never_zero_hours():
    from bot.render.i18n import renderer_for

    en, zh = renderer_for("en"), renderer_for("zh")
    # 1 h of audio at 41.1x real time = 60 / 41.1 = 1.46 min; 0.01 h = 36 s; 3 h stays in hours
    assert en.duration(1 / 41.1) == "1.5 min" and zh.duration(1 / 41.1) == "1.5 分钟"
    assert en.duration(0.01) == "36 s" and zh.duration(0.01) == "36 秒"
    assert en.duration(3.0) == "3 h"
