"""Chinese answers as a Chinese-speaking team reads them: machines for a load, GPUs and models that do not exist,
China-market price mentions used the same way by every kind of answer, follow-ups that keep pricing.

Every question here is written for this file. Figures are worked out by hand from the knowledge base's sourced
numbers, cited beside each assertion.
"""

from __future__ import annotations

import math
import re
from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.conversation import respond_to
from bot.parsing.parser import parse_question
from bot.render.compose import compose
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)

# gpus.yaml a800-sxm-80gb: 80 GB (GiB of DRAM) x 1.073741824 x efficiency.yaml usable_memory_fraction_hbm 0.99
A800_USABLE_GB = 80 * 1.073741824 * 0.99            # = 85.04 GB
# models.yaml llama-3.1-405b params_total_b 405.8533888 (exact, HF safetensors); fp16 = 2 bytes per parameter
LLAMA_405B_FP16_GB = 405.8533888 * 2                # = 811.7 GB
# policy.yaml limits.gpus_per_machine: servers of 8 GPUs
GPUS_PER_MACHINE = 8


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def said(answer) -> str:
    """Everything the terminal shows with --verbose (the reader's view)."""
    return render_text(answer, verbose=True)


# --------------------------------------------------------------------------- machines for a load (台, 每台 N 卡)

def test_machines_are_asked_without_a_size_per_machine(kb):
    # 811.7 GB of fp16 weights do not fit 8 A800s (8 x 85.0 = 680 GB); 128 heads allow TP 8, then pipeline stages
    # of 8, so 16 GPUs = 2 servers of 8
    assert LLAMA_405B_FP16_GB > GPUS_PER_MACHINE * A800_USABLE_GB
    a = ask(kb, "准备把 llama 3.1 405b 以 fp16 部署到 A800 上，只有一个人用，要准备几台机器？")
    assert "node_count" in a.query.asks
    o = a.options[a.recommendation]
    assert (o.gpu, o.gpu_count, o.precision) == ("a800-sxm-80gb", 16, "fp16")
    assert a.headline.code == "machines_needed"
    assert a.headline.params["machines"] == 2 == math.ceil(16 / GPUS_PER_MACHINE)
    assert a.headline.params["per_node"] == GPUS_PER_MACHINE
    text = said(a)
    assert text.splitlines()[1].startswith("需要 2 台（每台 8 卡）")
    assert "按每台 8 卡的服务器计算台数" in text  # the machine size is an assumption, said


@pytest.mark.parametrize("question", [
    "qwen2.5 72b 要支撑 250 个并发，用 L20 的话得买几台服务器",
    "用 H20 跑 deepseek v3，高峰 150 人同时在用，需要多少台机器",
    "国产化要求，用 910B 部署 qwen2.5 32b 给 300 人并发，要几台",
])
def test_machines_lead_every_load_question(kb, question):
    a = ask(kb, question)
    assert a.headline.code == "machines_needed", compose(a).headline
    o = a.options[a.recommendation]
    per = a.headline.params["per_node"]
    assert a.headline.params["machines"] == math.ceil(o.gpu_count / per)
    line = compose(a).headline
    assert "台" in line and f"每台 {per} 卡" in line and "张" in line


def test_a_stated_machine_size_is_kept(kb):
    # "每台 4 卡" is the machine: 16 A800s for 405B in fp16 (above) are 4 machines of 4
    a = ask(kb, "我们的服务器每台 4 卡 A800，fp16 跑 llama 3.1 405b 要几台")
    assert a.headline.code == "machines_needed"
    assert a.headline.params["per_node"] == 4
    o = a.options[a.recommendation]
    assert a.headline.params["machines"] == math.ceil(o.gpu_count / 4)
    assert not any(n.code == "machine_size_assumed" for n in a.assumptions)


def test_machines_for_fine_tuning_and_batch_jobs(kb):
    ft = ask(kb, "全参微调 qwen2.5 72b，用 A800，需要几台服务器")
    assert ft.headline.code == "machines_needed"
    o = ft.options[ft.recommendation]
    assert ft.headline.params["machines"] == math.ceil(o.gpu_count / GPUS_PER_MACHINE)
    job = ask(kb, "用 qwen2.5 7b 把 200 万条客服对话打标签，每条输入 600 token 输出 30 token，"
                  "12 小时内跑完，需要几台 L20 机器")
    assert (job.query.input_tokens, job.query.output_tokens) == (600, 30)  # "输入 600 token 输出 30 token"
    assert job.headline.code == "machines_needed"
    assert job.headline.params["machines"] == math.ceil(job.headline.params["config"]["gpu_count"] / GPUS_PER_MACHINE)


# --------------------------------------------------------------------------- GPUs and models that do not exist

def _first_lines(answer, n: int = 3) -> str:
    return "\n".join(render_text(answer).splitlines()[:n])


def test_a_memory_no_variant_has_is_said_first_with_the_real_ones(kb):
    # gpus.yaml: the H200 comes as SXM 141GB and NVL 141GB only; no 48 GB H200 exists in the knowledge base
    a = ask(kb, "H200 48G 跑 qwen2.5 32b 要几张")
    assert a.headline.code == "unknown_variant"
    p = a.headline.params
    assert p["written"] == "H200 48G" and p["memory_gb"] == 48
    assert {v["gpu_name"] for v in p["variants"]} == {"H200 SXM 141GB", "H200 NVL 141GB"}
    # nearest other NVIDIA cards by memory: 48 GB cards (L40S, L20, RTX 6000 Ada...) differ by 0 GB
    assert all(kb.gpus[g].memory_gb == 48 for g in kb.gpus if kb.gpus[g].name in {n["gpu_name"] for n in p["nearest"]})
    head = _first_lines(a)
    assert "我没有“H200 48G”的数据" in head and "H200 SXM 141GB" in head
    # the sizing that follows is labelled with the memory written, never as the stock 141 GB card
    o = a.options[a.recommendation]
    assert o.gpu_name == "H200 SXM 48GB" and o.gpu_memory_gb == 48


def test_a_variant_word_the_product_lacks_is_not_dropped(kb):
    # gpus.yaml has the RTX 5080 (16 GB) and no RTX 5080 Ti: the "Ti" is reported, not silently read as a 5080
    a = ask(kb, "RTX 5080 Ti 能不能跑 qwen2.5 14b")
    assert a.headline.code == "unknown_variant"
    assert a.headline.params["written"] == "RTX 5080 Ti" and a.headline.params["suffix"] == "ti"
    assert [v["gpu_name"] for v in a.headline.params["variants"]] == ["RTX 5080"]
    assert "我没有“RTX 5080 Ti”的数据" in compose(a).headline


def test_a_variant_with_a_memory_is_reported_with_the_memory(kb):
    # no 96 GB RTX 5090 and no 5090 Ti: both said; the nearest NVIDIA cards with 96 GB (RTX PRO 6000 Blackwell,
    # GH200 96GB; gpus.yaml memory_gb 96) are offered
    a = ask(kb, "RTX 5090 Ti 96G 单卡能不能放下 llama 3 70b")
    p = a.headline.params
    assert a.headline.code == "unknown_variant" and p["memory_gb"] == 96 and p["suffix"] == "ti"
    assert {n["gpu_name"] for n in p["nearest"]} == {"RTX PRO 6000 Blackwell", "GH200"}
    assert a.query.gpus[0].memory_gb == 96


def test_real_variants_and_totals_are_not_unknown(kb):
    # a real memory variant, a real suffix, and a total over the cards (3 x 24 GB = 72 GB) are no unknown variant
    for question in ("A100 40G 跑 qwen2.5 14b 行吗", "RTX 4070 Ti SUPER 能跑 qwen2.5 7b 吗",
                     "3 张 RTX 3090（72GB）能跑 qwen2.5 72b int4 吗"):
        q = parse_question(question, kb)
        assert not [n for n in q.limits if n.code == "unknown_variant"], question
        assert all(g.memory_gb is None for g in q.gpus), question


def test_an_unknown_model_with_a_size_is_sized_and_said(kb):
    # Qwen has no version 6 in models.yaml: sized as a generic 110B model (weights 110e9 x 1 byte in fp8 = 110 GB),
    # said first among the warnings with the Qwen models nearest in size (by parameter ratio: the 72B ones, then
    # Qwen3-235B-A22B)
    a = ask(kb, "Qwen6-110B 用 A800 部署，fp8，要几张")
    o = a.options[a.recommendation]
    assert o.weights_gb == pytest.approx(110.0, rel=1e-6)
    said = a.warnings[0]
    assert said.code == "unknown_model_generic"
    assert compose(a).warnings[0].startswith("我没有“Qwen6-110B”的数据：这里按一个通用的 110B 模型估算。")
    assert said.params["suggestions"][0] == "Qwen2.5 72B"  # |ln(72/110)| = 0.42 < |ln(235/110)| = 0.76
    assert "! 我没有“Qwen6-110B”的数据" in render_text(a)  # shown without --verbose
    assert not any(w.code == "unknown_term" for w in a.warnings)  # never "left it out": it was sized


def test_an_unknown_version_without_a_size_asks_with_the_family(kb):
    a = ask(kb, "Llama 7 在 L20 上部署要几张")
    assert a.headline.code == "family_without_size"
    assert a.headline.params["unknown_version"] is True
    text = compose(a).headline
    assert text.startswith("我没有“Llama 7”的数据") and "Llama 3.3 70B" in text


# --------------------------------------------------------------------------- one figure per card and cloud, everywhere

# prices/common/price_mentions.yaml: AutoDL's table (github-file:63146838246, 2026-05-01), CNY per card-hour
AUTODL_A800_CNY = 4.98
AUTODL_L20_CNY = 3.68
AUTODL_4090_CNY = 1.98
# prices/common/exchange_rates.yaml cny-usd-2026-05-08 (ECB cross rate)
CNY_PER_USD = 6.8012
MONTH_H = 730  # 一个月 = 730 h (durations lexicon)


def _mention(answer):
    """The mention_cost note of an answer (headline or detail)."""
    return next(n for n in [answer.headline, *answer.details] if n.code == "mention_cost")


@pytest.mark.parametrize("question", [
    "AutoDL 上租 A800 多少钱一小时",                                  # quote
    "在 AutoDL 上用一张 A800 部署 qwen2.5 14b，给 10 个人用",            # serving
    "在 AutoDL 上用 A800 lora 微调 qwen2.5 7b，5000 万 token，要花多少",  # fine-tune cost
    "AutoDL 上 A800 和 L20 跑 qwen2.5 32b 哪个更省钱",                 # compare
])
def test_the_same_card_on_the_same_cloud_has_one_price_in_every_kind_of_answer(kb, question):
    a = ask(kb, question)
    if a.headline.code == "compare_cost_mentions":
        item = next(i for i in a.headline.params["items"] if "A800" in i["config"]["gpu_name"])
        assert item["where"] == "AutoDL" and item["per_gpu_usd"] == pytest.approx(AUTODL_A800_CNY / CNY_PER_USD)
        return
    m = _mention(a)
    assert m.params["where"]["en"] == "AutoDL" and m.params["named"] is True
    assert m.params["per_gpu"] == {"amount": pytest.approx(AUTODL_A800_CNY), "currency": "cny"}
    assert m.params["approx_per_gpu_usd"] == pytest.approx(AUTODL_A800_CNY / CNY_PER_USD)  # $0.732
    line = compose(a).headline if a.headline is m else compose(a).details[a.details.index(m)]
    # labelled as a secondary figure, never as a live offer
    assert "AutoDL 没有公开列表价" in line and "二手数字，不是实时报价" in line and "2026-05-01" in line


def test_rmb_asked_gives_the_published_cny_and_the_rate_date(kb):
    # 2 x L20 on AutoDL for a month: ¥3.68 x 2 x 730 h = ¥5,372.80, said in CNY only, with the rate's date
    a = ask(kb, "AutoDL 上租两张 L20 一个月多少钱，按人民币算")
    m = a.headline
    assert m.code == "mention_cost" and m.params["hours"] == MONTH_H
    assert m.params["total"]["amount"] == pytest.approx(AUTODL_L20_CNY * 2 * MONTH_H)
    assert m.params["approx_total_usd"] is None  # asked in RMB: no dollar figure beside it
    text = render_text(a)
    assert "¥5,373" in text and "$" not in text.splitlines()[1]
    assert "2026-05-08 的汇率" in text


def test_a_card_with_list_prices_uses_the_cloud_figure_only_when_that_cloud_is_asked(kb):
    # RTX 4090 has list prices (RunPod, Vast.ai): AutoDL's ¥1.98 is used only when AutoDL is named
    named = ask(kb, "AutoDL 上 4090 跑 qwen2.5 7b 一个月多少钱")
    m = _mention(named)
    assert m.params["per_gpu"]["amount"] == pytest.approx(AUTODL_4090_CNY)
    assert m.params["total"]["amount"] == pytest.approx(AUTODL_4090_CNY * MONTH_H)  # ¥1,445.40 for one card
    plain = ask(kb, "4090 跑 qwen2.5 7b 一个月多少钱")
    assert not any(n.code == "mention_cost" for n in [plain.headline, *plain.details])
    assert plain.options[plain.recommendation].price is not None


def test_the_quote_says_no_list_price_was_found_only_when_none_exists(kb):
    # the 4090 has list prices elsewhere: "no tracked cloud publishes one" would be false
    a = ask(kb, "AutoDL 上 4090 一小时多少钱")
    assert "price_not_published_next" not in [d.code for d in a.details]
    b = ask(kb, "AutoDL 上 L20 一小时多少钱")
    assert "price_not_published_next" in [d.code for d in b.details]


# --------------------------------------------------------------------------- follow-ups in chat keep pricing

def _chat(kb, *messages):

    previous, turns = None, []
    for text in messages:
        turn = respond_to(text, previous, kb=kb)
        turns.append(turn)
        previous = turn.query
    return turns


def test_a_new_gpu_after_a_cost_question_keeps_the_price(kb):
    # turn 1: 4 x H100 for a week (168 h) is priced from list prices; turn 2 changes the GPU: L20 has no list price,
    # so the week is priced at AutoDL's ¥3.68 per card-hour: 4 x 168 x 3.68 = ¥2,472.96, labelled as such
    first, second = _chat(kb, "租 4 张 H100 一周大概多少钱", "那换成 L20 呢")
    assert first.answer.options[first.answer.recommendation].price is not None
    assert second.query.duration_hours == 168 and [g.id for g in second.query.gpus] == ["l20-48gb"]
    m = second.answer.headline
    assert m.code == "mention_cost" and m.params["config"]["gpu_count"] == 4
    assert m.params["total"]["amount"] == pytest.approx(4 * 168 * AUTODL_L20_CNY)


def test_a_new_gpu_without_any_price_says_so(kb):
    # Ascend 910B: no price row and no figure for it anywhere: the answer says there is no price, never drops it
    turns = _chat(kb, "用 A800 跑 qwen2.5 14b 给 20 个人用，一个月多少钱", "换成 910B 呢")
    a = turns[-1].answer
    assert a.query.duration_hours == MONTH_H and "cost" in a.query.asks
    assert a.headline.code == "cost_for_duration_unpriced"
    assert "没有" in compose(a).headline and "公开价格" in compose(a).headline


def test_a_reset_in_a_chinese_conversation_is_chinese(kb):
    from bot.advice.conversation import help_turn

    turns = _chat(kb, "H100 一小时多少钱")
    c = compose(help_turn(kb, reset=True, language=turns[-1].query.language).answer)
    assert c.language == "zh" and c.headline.startswith("已重新开始")
    assert c.examples and all(re.search(r"[\u4e00-\u9fff]", e) for e in c.examples)  # Chinese examples only


def test_users_of_a_model_with_a_cost_asked_are_a_load_to_serve(kb):
    # "给 200 人用" with a model and a cost: the serving plan is priced (users kept), not the bare hardware
    a = ask(kb, "拿 8 张 A800 跑 qwen2.5 72b 给 150 人用，一个月要多少钱")
    assert a.query.intent == "size_inference" and a.query.concurrent_users == 150
    o = a.options[a.recommendation]
    assert o.gpu == "a800-sxm-80gb" and o.gpu_count == 8
    # 8 x ¥4.98 x 730 h = ¥29,083.20 at AutoDL's figure, the only one there is for the A800
    assert _mention(a).params["total"]["amount"] == pytest.approx(8 * AUTODL_A800_CNY * MONTH_H)


def test_buy_versus_renting_on_a_cloud_that_lists_no_price_uses_its_figure(kb):
    # 4 x RTX 4090 bought for ¥60,000 vs renting them on AutoDL: the rent is AutoDL's ¥1.98 per card-hour (secondary,
    # labelled), 4 x 1.98 x 730 h = ¥5,781.60 a month at the policy's 100% use
    a = ask(kb, "打算买 4 张 4090 花 6 万块，还是去 AutoDL 租，算两年")
    rent = a.options[a.recommendation]
    assert rent.price.provider_name == "AutoDL"
    assert rent.total_cost_usd * CNY_PER_USD == pytest.approx(4 * AUTODL_4090_CNY * MONTH_H, rel=1e-6)
    assert _mention(a).params["total"]["amount"] == pytest.approx(4 * AUTODL_4090_CNY * MONTH_H)


def test_slack_apologies_and_button_notes_follow_the_question_language():
    from bot.slack.answering import layer_message as _say
    from bot.slack.app import EXPIRED_TEXT, _apology
    from bot.slack.workers import AnswerFailure

    zh = _apology(AnswerFailure("ref1", "timeout"), "H100 租一周多少钱")
    assert zh.startswith("抱歉") and "ref1" in zh
    assert _apology(AnswerFailure("ref2", "error"), "price of 8x H100").startswith("Sorry")
    assert _say("slack_expired", "int4 呢").startswith("这条回答太久了")
    assert "too old" in EXPIRED_TEXT and "太久" in EXPIRED_TEXT  # language unknown: both
