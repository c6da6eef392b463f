"""China-market price questions: per-day and per-month totals in CNY as published, AWS China's regions, clouds
that publish no list price, and a spec asked beside a fit question on a China-market accelerator.

Figures (hand-computed from the knowledge base; every CNY price is published, the USD one derived):
* knowledge/prices/gongji.yaml: RTX 5090, 3.25 CNY per card-hour on demand (undated README, 成本参考).
* knowledge/prices/aws-china.yaml (repo:tsaol/aws-gpu data/gpu_instances_raw_cn.json, as_of 2026-01-21):
  g5.xlarge on demand 9.51389 CNY/h in cn-north-1 (Beijing), 6.70086 CNY/h in cn-northwest-1 (Ningxia);
  p4d.24xlarge (8x A100 SXM4 40GB) on demand 172.873412 CNY/h in cn-northwest-1; g4dn.xlarge (T4) on demand
  5.223 CNY/h in cn-north-1; g5.xlarge 3-year all-upfront effective 3.398364 CNY/h in cn-north-1.
* knowledge/prices/aws.yaml: US g5.xlarge on demand $1.006/h (us-east-1), which a China question must not get.
* exchange_rates.yaml: 6.8012 CNY per USD (ECB cross rate of 2026-05-08).
* A day is 24 h, a month 730 h (knowledge/policy.yaml, the durations the parser reads for 按天 / 包月).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)
CNY_PER_USD = 6.8012


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def lead(answer) -> str:
    """The answer's first lines as a user reads them in the terminal (title, headline, details)."""
    return render_text(answer).split("\n\n")[0]


# --------------------------------------------------------------------------- per day / per month, in CNY

@pytest.mark.parametrize(("text", "hours", "total_cny"), [
    # 3.25 CNY/h x 24 h = 78.00 CNY
    ("共绩算力 5090 按天多少钱", 24, "¥78.00"),
    # 3.25 CNY/h x 730 h = 2,372.50 CNY, shown rounded to ¥2,373 (amounts over ¥1,000 lose the fen)
    ("在共绩算力租一张 5090，包月要多少钱", 730, "¥2,373"),
    # 172.873412 CNY/h x 24 h = 4,148.96 CNY
    ("aws china p4d 一天多少钱", 24, "¥4,149"),
])
def test_a_chinese_question_about_a_cny_cloud_gets_the_period_total_in_cny(kb, text, hours, total_cny):
    q = parse_question(text, kb)
    assert q.answer_currency == "cny"  # the currency the cloud named publishes in, for a question in Chinese
    a = ask(kb, text)
    assert a.options[0].duration_hours == hours
    assert total_cny in lead(a)
    assert "$" not in lead(a).split("\n")[1]  # the headline line says yuan only


def test_the_cny_total_is_the_published_price_times_the_hours(kb):
    # 3.25 CNY/h / 6.8012 = 0.47786 USD/h (the derived figure in gongji.yaml); x 24 h = 11.4686 USD = 78.00 CNY
    a = ask(kb, "共绩算力 5090 按天多少钱")
    o = a.options[0]
    assert o.price.provider == "gongji"
    assert o.total_cost_usd == pytest.approx(0.47786 * 24, rel=1e-4)
    assert o.total_cost_usd * a.cny_per_usd == pytest.approx(3.25 * 24, rel=1e-4)


def test_an_english_question_keeps_dollars(kb):
    # the same day in English: 0.47786 x 24 = $11.47
    q = parse_question("how much per day for a 5090 on gongji", kb)
    assert q.answer_currency is None
    assert "$11.47" in lead(ask(kb, "how much per day for a 5090 on gongji"))


def test_a_question_about_an_overseas_cloud_in_chinese_stays_in_dollars_unless_asked(kb):
    # RunPod publishes in USD: a Chinese question about it is not switched to CNY without being asked
    assert parse_question("runpod 上 4090 按天多少钱", kb).answer_currency is None


# --------------------------------------------------------------------------- AWS China, by region

@pytest.mark.parametrize(("text", "region"), [
    ("AWS 北京区域 g5.xlarge 多少钱", "cn-north-1"),
    ("AWS 宁夏区域 A10G 一小时多少钱", "cn-northwest-1"),
    ("how much is a g4dn.xlarge on AWS in cn-north-1", "cn-north-1"),
    ("p4d.24xlarge in cn-northwest-1 how much", "cn-northwest-1"),
    ("AWS 中国区 T4 一个月多少钱", None),
    ("aws beijing region g5.xlarge price", "cn-north-1"),
])
def test_aws_named_with_a_china_word_or_region_is_aws_china(kb, text, region):
    q = parse_question(text, kb)
    assert q.providers == ["aws-china"]
    assert q.region == region


def test_aws_without_a_china_word_stays_aws(kb):
    assert parse_question("g5.xlarge on aws per hour", kb).providers == ["aws"]
    assert parse_question("AWS 上 g5.xlarge 多少钱", kb).providers == ["aws"]


def test_aws_beijing_is_priced_from_the_beijing_offer_not_us_aws(kb):
    # g5.xlarge cn-north-1 on demand: 9.51389 CNY/h (not Ningxia's 6.70086, not US $1.006 = 6.84 CNY)
    a = ask(kb, "AWS 北京区域 g5.xlarge 多少钱")
    o = a.options[0]
    assert (o.price.provider, o.price.region) == ("aws-china", "cn-north-1")
    assert o.price.price_per_hour_usd * CNY_PER_USD == pytest.approx(9.51389, rel=1e-4)
    assert "¥9.51" in lead(a)
    assert all(opt.price.provider == "aws-china" for opt in a.options if opt.price)
    assert any(n.code == "priced_in_region" and n.params["region"] == "cn-north-1" for n in a.assumptions)


def test_aws_ningxia_per_month(kb):
    # g5.xlarge cn-northwest-1: 6.70086 CNY/h x 730 h = 4,891.63 CNY
    a = ask(kb, "AWS 宁夏区域 g5.xlarge 包月多少钱")
    o = a.options[0]
    assert o.price.region == "cn-northwest-1"
    assert o.total_cost_usd * CNY_PER_USD == pytest.approx(6.70086 * 730, rel=1e-4)
    assert "¥4,892" in lead(a)


def test_aws_china_three_year_reservation_in_beijing(kb):
    # 8 x g5.xlarge, 3-year all-upfront effective 3.398364 CNY/h each in cn-north-1: 8 x 3.398364 = 27.19 CNY/h
    # (cheaper per GPU than g5.48xlarge's 55.022374 / 8 = 6.88 CNY); the headline gives that hourly rate
    a = ask(kb, "在 AWS 北京租 8 张 A10G 三年预留多少钱")
    o = a.options[0]
    assert (o.price.provider, o.price.region, o.price.pricing_model) == ("aws-china", "cn-north-1", "commitment")
    assert o.price.price_per_hour_usd * CNY_PER_USD == pytest.approx(8 * 3.398364, rel=1e-4)
    assert "¥27.19" in lead(a)


def test_a_bare_a100_at_aws_china_is_the_40gb_it_rents(kb):
    # AWS China prices the A100 only as p4d.24xlarge (8x A100 SXM4 40GB): 172.873412 CNY/h
    q = parse_question("亚马逊云科技中国 8 张 A100 多少钱", kb)
    assert [g.id for g in q.gpus] == ["a100-sxm-40gb"]
    assert any(n.code == "assumed_variant_provider" for n in q.notes)
    a = ask(kb, "亚马逊云科技中国 8 张 A100 多少钱")
    assert a.options[0].price.provider == "aws-china"
    assert "¥172.87" in lead(a)
    # with no provider, the usual default stays
    assert [g.id for g in parse_question("8 张 A100 多少钱", kb).gpus] == ["a100-sxm-80gb"]


# --------------------------------------------------------------------------- clouds without a list price

@pytest.mark.parametrize(("text", "name"), [
    ("火山引擎 H20 按天多少钱", "火山引擎"),
    ("百度智能云 A800 包月价格", "百度智能云"),
    ("阿里云 A100 多少钱一小时", "阿里云"),
    ("腾讯云租 8 张 A100 一个月多少钱", "腾讯云"),
])
def test_a_cloud_with_no_list_price_is_said_first_in_chinese(kb, text, name):
    a = ask(kb, text)
    first = lead(a).split("\n")[1]
    assert name in first and ("没有" in first)
    text_all = render_text(a, verbose=True)
    assert "try another count" not in text_all and "换一个数量" not in text_all


def test_a_cloud_with_no_list_price_in_english(kb):
    a = ask(kb, "volcengine H20 per day")
    first = lead(a).split("\n")[1]
    assert "Volcano Engine" in first and "no sourced price" in first


# --------------------------------------------------------------------------- spec and fit together

def test_a_spec_asked_beside_a_fit_question_gets_both(kb):
    # Ascend 910B3: 64 GB, 1,600 GB/s (gpus.yaml, HAMi ascend-device-plugin config); no FP8 in common stacks,
    # CUDA code does not run (gpus.yaml software, vllm-ascend / SGLang Ascend docs)
    for text in ("昇腾 910B 显存多大，能跑 Qwen2.5 72B 吗", "910B 的带宽是多少，8 张能跑 llama 3 70b 吗",
                 "how much memory does the Ascend 910B have and can it run Qwen2.5 72B?"):
        q = parse_question(text, kb)
        assert q.intent == "size_inference", text
        a = ask(kb, text)
        assert a.headline.code in ("fits", "fit_yes", "sizing_fits") or a.options[0].fits, text
        spec = next(n for n in a.details if n.code == "spec_one")
        assert (spec.params["memory_gb"], spec.params["bandwidth_gb_s"]) == (64, 1600)
        codes = [n.code for n in a.warnings]
        assert "software_stack" in codes and "no_fp8_in_stacks" in codes, text


def test_a_spec_question_alone_is_still_a_spec_lookup(kb):
    assert parse_question("昇腾 910B 显存多大", kb).intent == "spec_lookup"
    a = ask(kb, "昇腾 910B 显存多大")
    assert "no_fp8_in_stacks" in [n.code for n in a.warnings]  # said on the spec answer too
