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


def test_optional_parts_are_not_nested():
    # [[ ... ]] parts are resolved one level deep (bot/render/i18n.py): a nested one would print its brackets
    import re

    from bot.render.i18n import renderer_for
    for lang in ("en", "zh"):
        catalog = renderer_for(lang)._catalog
        nested = [code for code, text in catalog.messages.items() if re.search(r"\[\[(?:(?!\]\]).)*\[\[", text)]
        assert nested == [], (lang, nested)
