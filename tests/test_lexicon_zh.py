"""The Chinese vocabulary (bot/parsing/lexicon/zh.yaml), section by section, through parse_question.

Questions written for this test; Chinese mixed with English names and full-width characters (NFKC folds
"４０９０" and "（" before matching). A word added to zh.yaml gets a case here.
"""

from __future__ import annotations

import textwrap

import pytest
import yaml

from bot.errors import KnowledgeError
from bot.parsing import parse_question
from bot.parsing.lexicon import LEXICON_DIR, get_lexicon, load_lexicon
from bot.parsing.numbers import chinese_numerals_to_digits
from bot.parsing.query import Money

ZH = yaml.safe_load((LEXICON_DIR / "zh.yaml").read_text(encoding="utf-8"))


def _field(query, path: str):
    value = query
    for part in path.split("."):
        value = getattr(value, part) if not isinstance(value, list) else value[int(part)]
    return value


# ---------------------------------------------------------------------------------------------- numbers

@pytest.mark.parametrize(("text", "expected"), [
    # numbers.digits / multipliers / half, read before a counter only
    ("三天", "3 天"),
    ("两张卡", "2 张卡"),
    ("一百二十个用户", "120 个用户"),
    ("两千人", "2000 人"),
    ("五万元", "50000 元"),
    ("半天", "0.5 天"),
    ("第三天", "第三天"),          # an ordinal stays
    ("统一部署", "统一部署"),      # 一 inside a word, no counter after it
    # a last digit after 百/千/万 counts the next unit down (spoken shorthand): 两千五 = 2,500; 一百零二 stays 102
    ("两千五个用户", "2500 个用户"),
    ("一百零二天", "102 天"),
    ("十二天", "12 天"),
    # numbers.numeral_keys: a numeral after a key word and before no further Chinese word, counter or not
    ("上下文三万二", "上下文 32000"),
    ("并发两百左右", "并发 200 左右"),
    ("并发一下", "并发一下"),      # a lone 一 after a key stays a word
])
def test_chinese_numerals(text, expected):
    assert chinese_numerals_to_digits(text, get_lexicon()).strip() == expected


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("预算两万元", "budget", Money(amount=20_000, currency="cny")),
    ("10万人民币预算", "budget", Money(amount=100_000, currency="cny")),   # scale after digits
    ("一千个用户同时用 qwen2.5 7b", "concurrent_users", 1000),
    ("三十倍的提升是真的吗 H100 vs A100", "claimed_ratio", 30),
    ("双卡A6000 跑 qwen2.5 32b", "gpus.0.count", 2),
    # numerals with no counter after a quantity key: 三万二 = 3 x 10^4 + 2 x 10^3 tokens
    ("上下文三万二 用 Llama 3 8B 部署 100 个并发用户要几张 H100", "context_tokens", 32_000),
    ("上下文 三万二千，Qwen2.5 7B 服务 一万二千个用户，要几张 A100", "context_tokens", 32_000),
    ("上下文 三万二千，Qwen2.5 7B 服务 一万二千个用户，要几张 A100", "concurrent_users", 12_000),
    ("qwen2.5 14b 并发两百左右，上下文一万六，要几张 4090", "context_tokens", 16_000),
    ("qwen2.5 14b 并发两百左右，上下文一万六，要几张 4090", "concurrent_users", 200),
])
def test_numbers_in_questions(kb, text, field, expected):
    value = _field(parse_question(text, kb), field)
    if isinstance(expected, Money):
        assert value is not None and value.currency == expected.currency
        assert value.amount == pytest.approx(expected.amount)
    else:
        assert value == expected


# ---------------------------------------------------------------------------------------------- quantities

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("40个用户同时访问 llama 3 8b", "concurrent_users", 40),
    # quantities.daily_active_users: users a day, never a duration nor a concurrency
    ("日活 5000 的聊天应用用 Llama 3 8B", "daily_active_users", 5000),
    ("五千日活的客服机器人 qwen2.5 7b", "daily_active_users", 5000),
    ("日活跃用户 3 万，qwen2.5 7b", "daily_active_users", 30_000),
    # traffic.per_day_before + day_nouns: each user's requests a day; traffic.peak_words before a multiplier: the peak
    ("日活 3000，每人每天 12 轮对话，qwen2.5 7b", "requests_per_user_per_day", 12),
    ("日活 3000，人均每天 8 次请求，qwen2.5 7b", "requests_per_user_per_day", 8),
    ("日活 3000，每个用户每天三十条消息，qwen2.5 7b", "requests_per_user_per_day", 30),
    ("日活 3000，峰值是平均的 3 倍，qwen2.5 7b", "peak_factor", 3),
    ("日活 3000，晚高峰 4 倍，llama 3 8b", "peak_factor", 4),
    ("日活 3000，晚高峰 4 倍，llama 3 8b", "claimed_ratio", None),
    # latency.units 分钟：看到的每张图耗时（"一张图要 2 分钟" = 120 秒）
    ("sdxl 在 T4 上一张图要 2 分钟，正常吗", "observations.0.value", 120),
    ("日活 5000 的聊天应用用 Llama 3 8B", "duration_hours", None),
    ("并发数 128 的 qwen2.5 14b", "concurrent_users", 128),
    ("同时在线 60 人 用 mistral 7b", "concurrent_users", 60),
    ("16路并发 qwen2.5 7b", "concurrent_users", 16),
    ("4张卡跑 qwen2.5 32b", "gpu_count", 4),
    ("两台机器 训练 7b", "node_count", 2),
    ("批大小 8 微调 qwen2.5 7b", "batch_size", 8),
    ("文生图 50步 sdxl", "image_steps", 50),
    ("生成 300张图 用 flux", "images", 300),
    ("向量化 20万篇文档", "documents", 200_000),
    ("微调 qwen2.5 7b 3轮", "epochs", 3),
    ("转写 500小时的音频 whisper", "audio_hours", 500),
    ("上下文长度 32k 的 qwen2.5 7b", "context_tokens", 32768),
    ("输入长度 2000 输出长度 500 qwen2.5 14b", "input_tokens", 2000),
    ("输入长度 2000 输出长度 500 qwen2.5 14b", "output_tokens", 500),
    ("用 1T token 预训练一个 7b", "training_tokens", 1e12),
    ("3000卡时 能训练多大的模型", "gpu_hours", 3000),               # gpu_hours.units
    ("预训练 1b 模型 有 800 个卡时", "gpu_hours", 800),
    ("给 7b 模型 2万 gpu小时", "gpu_hours", 20_000),
])
def test_quantities(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("qwen2.5 7b 需要 1500 token/秒 总吞吐", "target_tokens_per_s", 1500),
    ("qwen2.5 7b 需要 1500 token/秒 总吞吐", "target_scope", "total"),
    ("每用户 20 tokens每秒 llama 3 8b", "target_scope", "per_user"),
    ("每秒请求 30 个 mistral 7b", "requests_per_s", 30),            # the rate written key first
    ("客服 QPS 大概 5，qwen2.5 7b", "requests_per_s", 5),
    ("每秒 8 个请求 qwen2.5 7b", "requests_per_s", 8),
    ("30 请求/秒 mistral 7b", "requests_per_s", 30),
    ("首token延迟 500毫秒以内 qwen2.5 14b", "ttft_ms_max", 500),
    ("响应时间不超过 3秒 的 llama 3 8b", "latency_ms_max", 3000),
])
def test_rates_and_latency(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- durations, money

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("租 8张A100 两个星期", "duration_hours", 336),
    ("H100 包月多少钱", "duration_hours", 730),
    ("4090 按天租", "duration_hours", 24),
    ("3个小时能训完吗 qwen2.5 0.5b", "duration_hours", 3),
    ("一周以内训完 1b 模型", "deadline_hours", 168),
    ("A800 半年多少钱", "duration_hours", 4380),
])
def test_durations(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("每小时 15 元以内 能跑 qwen2.5 32b 吗", "price_limit_per_hour", Money(amount=15, currency="cny")),
    ("A800 每卡每小时 6 块钱 贵吗", "price_limit_per_gpu", True),
    ("预算 3万元 部署 llama 3 8b", "budget", Money(amount=30_000, currency="cny")),
    ("自建 8卡 H100 服务器 200万元 还是租", "purchase_price", Money(amount=2_000_000, currency="cny")),
    ("电费 每度 0.8元", "electricity_per_kwh", None),        # "每度" before the amount is not read (after only)
    ("电费 0.8元/度 8卡 4090", "electricity_per_kwh", Money(amount=0.8, currency="cny")),
    ("H100 一小时 2 美元", "price_limit_per_hour", Money(amount=2, currency="usd")),
    ("用人民币报价 8张 H100", "answer_currency", "cny"),
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
    ("我的16G显卡能跑 qwen2.5 7b 吗", (True, 16, 1)),
    ("两张24G的卡 跑 qwen2.5 32b awq", (True, 24, 2)),
    ("显存48G 够不够 llama 3 70b int4", (True, 48, 1)),
    ("单张 80G 显存 能放下 qwen2.5 72b int4 吗", (True, 80, 1)),
])
def test_capacity_cards(kb, text, expected):
    gpu = parse_question(text, kb).gpus[0]
    memory = gpu.memory_gb if gpu.memory_gb is not None else kb.gpus[gpu.id].memory_gb
    assert (gpu.capacity_only, memory, gpu.count) == expected


@pytest.mark.parametrize(("text", "gpu_id", "memory_gb"), [
    # memory.platform_words: 在线笔记本平台的显存就是一张租来的卡
    ("魔搭 24G 能跑 qwen2.5 14b 吗", "l4-24gb", None),
    ("ai studio 32G 显存微调 chatglm3 6b", "v100-sxm-32gb", None),
    # memory.cloud_words: 租的云上的卡，不是游戏卡
    ("云上 16G 的卡 跑 qwen2.5 7b", "t4-16gb", None),
])
def test_platform_and_cloud_words(kb, text, gpu_id, memory_gb):
    gpu = parse_question(text, kb).gpus[0]
    assert (gpu.capacity_only, gpu.id, gpu.memory_gb) == (True, gpu_id, memory_gb)


@pytest.mark.parametrize("text", ["qwen2.5 7b 占用 18G", "模型需要 140G 显存", "70G的模型文件", "内存 256G 的服务器"])
def test_sizes_that_name_no_card(kb, text):
    assert parse_question(text, kb).gpus == []


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("H200 比 H100 快 1.8 倍？", "claimed_ratio", 1.8),
    ("显卡利用率 70%", "percents", [70]),
    ("8卡 4090 整机功耗 3.5 千瓦", "power_watts", 3500),
    ("显存带宽 3.35 tb/秒 是真的吗 H100", "bandwidth_stated_gb_s", [3350]),
])
def test_units(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


# ---------------------------------------------------------------------------------------------- asks, workloads, intents

@pytest.mark.parametrize(("text", "ask"), [
    ("qwen2.5 32b 在 4090 上能跑吗", "fit"),
    ("部署 llama 3 70b 需要几张 A100", "gpu_count"),
    ("一张 L40S 跑 qwen2.5 7b 能支持多少并发", "users_served"),
    ("qwen2.5 14b 在 4090 上速度多快", "speed"),
    ("预训练 1b 模型要多久", "time"),
    ("8卡 A100 一天能训练多少token", "tokens_in_time"),
    ("8卡 H100 租一周多少钱", "cost"),
    ("跑 whisper 最便宜的卡", "cheapest"),
    ("推荐一个跑 sdxl 的显卡", "best"),
    ("qwen2.5 72b 需要多少显存", "memory"),
    ("72b 模型至少需要多少G的卡", "memory"),
    ("H20 和 H100 的区别", "comparison"),
    ("L40S 的规格参数", "spec"),
    ("V100 不支持 bf16 吗", "support"),
    ("买还是租 8卡 H100", "break_even"),
    ("两张 3090 能跑什么模型", "largest_model"),
    ("你能做什么", "help"),
    ("训练 qwen2.5 7b 大概需要多少资源", "gpu_count"),
    ("跑 qwen2.5 7b 需要多少的GPU资源", "gpu_count"),
    ("什么显卡能跑 qwen2.5 7b", "gpu_count"),
])
def test_asks(kb, text, ask):
    assert ask in parse_question(text, kb).asks


@pytest.mark.parametrize(("text", "workload"), [
    ("指令微调 qwen2.5 7b", "finetune"),
    ("从零训练一个 1b 模型", "training"),
    ("私有化部署 qwen2.5 72b", "inference"),
    ("文生图 sdxl 在 4090 上", "inference"),
    # a fine-tuning tool or adapter named with 推理: the tuned model is run (workloads.indirect)
    ("llama13b + 中文lora 在 3090 上推理", "inference"),
])
def test_workloads(kb, text, workload):
    assert parse_question(text, kb).workload == workload


@pytest.mark.parametrize("text", [
    "A100 还是 H100 跑 qwen2.5 72b",
    "L20 能替代 A100 跑 llama 3 8b 吗",
    "4090 比得上 A6000 吗 跑 qwen2.5 14b",
    "H20 对标 H100 跑 deepseek v3",
])
def test_comparisons(kb, text):
    assert parse_question(text, kb).intent == "compare"


# ---------------------------------------------------------------------------------------------- precisions, methods, pricing

@pytest.mark.parametrize(("text", "field", "expected"), [
    ("qwen2.5 7b 半精度", "precisions", ["fp16"]),
    ("llama 3 70b 8比特量化", "precisions", ["int8"]),
    ("qwen2.5 72b 4位 量化", "precisions", ["int4"]),
    ("kv缓存 fp8 的 qwen2.5 32b", "kv_precision", "fp8"),
    ("用 mindie 部署 qwen2.5 72b", "engine", "mindie"),
    ("全参数微调 qwen2.5 7b", "method", "full"),
    ("qwen2.5 14b zero-3 卸载到cpu", "cpu_offload", True),
    ("qwen2.5 7b 开梯度检查点", "gradient_checkpointing", True),
    ("张量并行 4 跑 qwen2.5 72b", "tensor_parallel", 4),
    ("H100 竞价实例 价格", "pricing", ["spot"]),
    ("A100 包年包月", "pricing", ["commitment"]),
    ("A100 三年期 价格", "commitment_term", "3y"),
    ("3090 有没有 nvlink桥", "features", ["nvlink"]),
    ("H100 的显存带宽", "spec_fields", ["memory_bandwidth_gb_s"]),
    ("单用户 跑 llama 3 8b", "concurrent_users", 1),
    ("不用前缀缓存 30个用户 qwen2.5 7b", "full_context_prompts", True),
    ("满血版 deepseek r1 要几张 H20", "full_precision", True),
])
def test_precisions_methods_pricing_flags(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


def test_per_node_words(kb):
    query = parse_question("3个节点，每个节点 8 张 A800，训练 7b", kb)
    assert (query.gpus[0].count, query.node_count) == (24, 3)


# ---------------------------------------------------------------------------------------------- mixed scripts, full width

@pytest.mark.parametrize(("text", "gpu", "count", "model"), [
    ("４张４０９０跑qwen2.5 14b", "rtx-4090-24gb", 4, "qwen2.5-14b"),
    ("用８卡Ａ１００（８０Ｇ）训练llama 3 8b", "a100-sxm-80gb", 8, "llama-3-8b"),
    ("两张H100跑Llama-3-70B够吗？", "h100-sxm-80gb", 2, "llama-3-70b"),
    ("L40S上部署Qwen2.5-32B-Instruct-AWQ", "l40s-48gb", None, "qwen2.5-32b"),
])
def test_mixed_chinese_english_and_full_width(kb, text, gpu, count, model):
    query = parse_question(text, kb)
    assert (query.gpus[0].id, query.gpus[0].count, query.models[0].id) == (gpu, count, model)
    assert query.language == "zh"


# ---------------------------------------------------------------------------------------------- conversation words

@pytest.mark.parametrize("text", ["那换成 int4 呢", "如果 50 个用户", "改成 L40S", "换 H100"])
def test_followup_openers(text):
    assert get_lexicon().followup_openers.regex.match(text)


@pytest.mark.parametrize("text", ["重置", "重新开始", "新问题"])
def test_reset_words(text):
    assert get_lexicon().reset_words.fullmatch(text)


@pytest.mark.parametrize("text", ["帮助", "你好", "你是谁"])
def test_help_phrases(kb, text):
    assert parse_question(text, kb).intent == "help"


def test_ignorable_numbers_are_not_reported(kb):
    assert parse_question("vllm 版本 0.6.3 第3张卡 跑 qwen2.5 7b", kb).not_understood == []


# ---------------------------------------------------------------------------------------------- the file itself

@pytest.mark.parametrize("section", ["precisions", "methods", "pricing", "commitment_terms", "spec_fields"])
def test_every_phrase_of_a_mapping_reads_as_its_value(section):
    table = getattr(get_lexicon(), section)
    en_phrases = set()
    en = yaml.safe_load((LEXICON_DIR / "en.yaml").read_text(encoding="utf-8"))
    for phrases in en.get(section, {}).values():
        en_phrases.update(phrases)
    for value, phrases in ZH[section].items():
        for phrase in phrases:
            if phrase not in en_phrases:  # a phrase shared with en.yaml keeps en's value (files are merged)
                assert table.value(phrase) == value, (section, phrase)


def test_broken_chinese_file_is_reported_with_file_line_and_field(tmp_path):
    directory = tmp_path / "lexicon"
    directory.mkdir()
    (directory / "en.yaml").write_text((LEXICON_DIR / "en.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (directory / "zh.yaml").write_text(textwrap.dedent("""\
        language: zh
        precisions:
          fp16: [半精度]
          fp12: [十二位]
        """), encoding="utf-8")
    with pytest.raises(KnowledgeError) as err:
        load_lexicon(directory)
    assert f"{directory / 'zh.yaml'}:2: precisions: unknown precision(s) ['fp12']" in str(err.value)


@pytest.mark.parametrize(("text", "field", "expected"), [
    # simultaneous_words: of several user counts, the simultaneous one sizes the load
    ("公司 800 人用，峰值并发 50 个用户，qwen2.5 14b", "concurrent_users", 50),
    # own_card_words: "我的 <卡>" is one card
    ("手上的 3090 能跑 qwen2.5 7b 吗", "gpus.0.count", 1),
])
def test_simultaneous_and_own_card_words(kb, text, field, expected):
    assert _field(parse_question(text, kb), field) == expected


def test_memory_name_joiners(kb):
    # memory.name_joiners: "32G的V100" is the 32 GB V100 (knowledge/gpus.yaml v100-sxm-32gb), not a second card
    q = parse_question("两张32G的V100 跑 qwen2.5 14b", kb)
    assert [(g.id, g.count, g.capacity_only) for g in q.gpus] == [("v100-sxm-32gb", 2, False)]


@pytest.mark.parametrize(("text", "kind", "value", "target"), [
    # observations.before / after: 用户看到的数字
    ("测试下来 qwen2.5 7b 在 a10 上 30 tokens/秒", "tokens_per_s", 30, None),
    ("llama 3 8b 在 t4 上 12 token/秒，正常吗", "tokens_per_s", 12, None),
    # observations.quoted: 别人说的
    ("号称 4090 跑 qwen2.5 7b 有 100 token/秒", "tokens_per_s", 100, None),
    # observations.targets: 想要的
    ("我们希望 qwen2.5 14b 每用户 20 token/秒", None, None, 20),
    # observations.slower / per_item
    ("我的 v100 比 a100 慢 3 倍，qwen2.5 7b 推理", "ratio", 3, None),
    ("sdxl 每张图 12 秒，在 4090 上", "seconds_per_item", 12, None),
])
def test_observations(kb, text, kind, value, target):
    q = parse_question(text, kb)
    assert [(o.kind, o.value) for o in q.observations] == ([(kind, value)] if kind else [])
    assert q.target_tokens_per_s == target
