"""Every number and quantity in a question is used or reported as not understood (issue 12), by kind:

1. a GPU name is never read across the number of a length, a token count or a head count ("a 10-day run" is no A10,
   "a 40-minute job" no A40, "for l4 days" no L4); the length is read, or said not understood;
2. a user base and each user's requests a day, in any order ("15 messages each per day", "每个员工每天 10 个问题，公司
   600 人"): a head count with a per-person daily rate is a daily-user load (Little's law), not users at once;
3. a prompt and output length written per item ("每条 4k 输入 256 输出", "avg 1k input 200 output") are the input and
   output tokens, not the tokens of each item;
4. the length of each sample of a fine-tuning or training set is the sequence length the memory is sized at, and the
   tokens are samples x length;
5. a cloud the knowledge base lacks ("恒源云", "Lightning AI") is said: no data for it, never dropped;
6. a monthly plan set against pay-as-you-go ("per month vs pay as you go", "月付和按量") asks both billing modes.

Questions are written for this file. Figures are worked by hand in the comments; policy defaults come from
knowledge/policy.yaml (serving.requests_per_daily_user 10, serving.peak_to_average 2.4, per-user floor 10 tokens/s,
efficiency.yaml default_output_tokens 256); prices from knowledge/prices/lambda.yaml (1x NVIDIA H100 SXM on demand
$4.29/h, as_of 2026-09-20, no commitment or spot rows).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


# ------------------------------------------------------------------------ 1. GPU names across a unit

@pytest.mark.parametrize(("text", "gpus", "field", "value"), [
    # "a 10-day": the article and the number of a length, not the A10; 10 days = 240 h
    ("How many L40S to pretrain a 1B model on 20B tokens as a 12-day run?", ["l40s-48gb"], "duration_hours", 12 * 24),
    # "a 40-minute": no A40; 40 min = 40/60 h
    ("we have a 40-minute batch window for qwen 7b on an h100", ["h100-sxm-80gb"], "duration_hours", 40 / 60),
    # "a 4-hour": no A4000-like misreading, 4 h
    ("a 4-hour fine-tune of llama 8b on an a100", ["a100-sxm-80gb"], "duration_hours", 4),
    # "a 100-token answer": the output length, no A100
    ("a 100-token answer from llama 8b on one L4", ["l4-24gb"], "output_tokens", 100),
    # Chinese text with the same English length: "a 20-hour" is 20 h, no GPU but the H20 named
    ("一个 a 20-hour 的任务，用 H20 跑 qwen 7b", ["h20-96gb"], "duration_hours", 20),
])
def test_a_number_followed_by_a_unit_is_no_gpu(kb, text, gpus, field, value):
    q = parse_question(text, kb)
    assert [g.id for g in q.gpus] == gpus
    assert getattr(q, field) == pytest.approx(value)
    assert q.not_understood == []


@pytest.mark.parametrize(("text", "gpus"), [
    ("a 100 or a 40 for qwen 32b?", ["a100-sxm-80gb", "a40-48gb"]),  # a connector after the number: the GPUs
    ("5000 A100 hours to train a 1b", ["a100-sxm-80gb"]),  # GPU-hours: a count before the name
    ("租一张 l4 跑 3 天", ["l4-24gb"]),  # the unit after another number
])
def test_gpu_names_next_to_lengths_stay_gpus(kb, text, gpus):
    assert [g.id for g in parse_question(text, kb).gpus] == gpus


@pytest.mark.parametrize(("text", "written", "gpus"), [
    ("finish training a 1b in l4 days on 8 H100", "l4 days", ["h100-sxm-80gb"]),
    ("不超过 l4 天训完 1B 模型，8 张 H100 够吗", "l4 天", ["h100-sxm-80gb"]),
])
def test_a_length_with_a_letter_in_its_number_is_said_not_understood(kb, text, written, gpus):
    # "l4 days" after "in" / "不超过": an "l" typed for a "1"; neither the L4 nor a guessed 14 days
    q = parse_question(text, kb)
    assert [g.id for g in q.gpus] == gpus
    assert written in q.not_understood
    assert q.deadline_hours is None and q.duration_hours is None


def test_the_length_of_the_run_sizes_the_training(kb):
    # "as a 10-day run": 240 h; with no count fixed, the fewest H100s that finish 100B tokens of a 7B in 240 h
    a = ask(kb, "How many H100s for a 10-day training run of a 7B model on 100B tokens?")
    assert {o.gpu for o in a.options} == {"h100-sxm-80gb"}
    assert a.headline.code == "training_count" and a.headline.params["deadline_hours"] == 240
    assert a.headline.params["wall_hours"] <= 240 and a.headline.params["tokens_tokens"] == 100e9


# ------------------------------------------------------------------------ 2. user bases and requests a day

@pytest.mark.parametrize(("text", "daily", "per_day"), [
    ("serve mistral 7b for 3,000 daily users, about 12 questions each per day", 3000, 12),
    ("1,200 employees, 8 queries per person per day, llama 8b", 1200, 8),
    ("30 prompts a day each from 400 users on qwen 7b", 400, 30),
    ("公司 1500 人，每人每天问 6 次，部署 qwen 14b", 1500, 6),
    ("3000 人日活，每人每天 4 次，qwen 7b 要几张卡", 3000, 4),
    ("每个员工每天 10 个问题，公司 600 人，llama 8b 要多少卡", 600, 10),
])
def test_a_user_base_and_its_requests_a_day_in_any_order(kb, text, daily, per_day):
    q = parse_question(text, kb)
    assert q.daily_active_users == daily and q.requests_per_user_per_day == per_day
    assert q.concurrent_users is None and q.not_understood == []
    assert q.duration_hours is None  # "per day" is each user's rate, not a rental period


def test_a_concurrent_count_with_a_rate_stays_concurrent(kb):
    q = parse_question("200 concurrent users, each 20 messages a day, llama 8b", kb)
    assert q.concurrent_users == 200 and q.daily_active_users is None and q.requests_per_user_per_day == 20


@pytest.mark.parametrize("text", ["公司 1500 人，每人每天问 6 次，部署 qwen 14b",
                                  "a company of 1,500 people, each asks 6 questions a day, qwen 14b"])
def test_a_head_count_is_sized_by_littles_law(kb, text):
    a = ask(kb, text)
    n = next(w for w in a.warnings if w.code == "users_from_daily_users")
    # 1,500 x 6 / 86,400 s = 0.10417 requests/s; x 2.4 (policy peak) = 0.25/s; x 25.6 s (256 tokens at 10 tok/s)
    # = 6.4 in flight -> sized for 7
    assert n.params["daily_users"] == 1500 and n.params["requests_per_day"] == 6
    assert n.params["requests_assumed"] is False
    assert n.params["average_rps"] == pytest.approx(1500 * 6 / 86400)
    assert n.params["peak_rps"] == pytest.approx(1500 * 6 / 86400 * 2.4)
    assert n.params["in_flight"] == pytest.approx(1500 * 6 / 86400 * 2.4 * 25.6)
    assert n.params["users"] == 7 and a.headline.params["users"] == 7


# ------------------------------------------------------------------------ 3. prompt and output lengths per item

@pytest.mark.parametrize(("text", "input_tokens", "output_tokens", "documents"), [
    # a power of two in k is binary for a prompt length: 4k = 4,096
    ("8 万条数据，每条 4k 输入 256 输出，qwen 7b 在一张 L40S 上跑完要多久", 4096, 256, 80_000),
    ("caption 20k product pages with llama 8b, avg 1k input 200 output", 1024, 200, 20_000),
    ("5 万条样本，每条输入2k、输出512，qwen 7b 要多久", 2048, 512, 50_000),
    ("label 30k tickets with llama 8b: 2k in / 512 out each", 2048, 512, 30_000),
    ("summarize 1M emails with llama 8b, 2k-token prompts and 512-token answers", 2048, 512, 1_000_000),
])
def test_prompt_and_output_lengths_are_input_and_output(kb, text, input_tokens, output_tokens, documents):
    q = parse_question(text, kb)
    assert (q.input_tokens, q.output_tokens, q.documents) == (input_tokens, output_tokens, documents)
    assert q.tokens_per_item is None and q.not_understood == []


# ------------------------------------------------------------------------ 4. the length of each sample

@pytest.mark.parametrize(("text", "samples", "length"), [
    ("LoRA fine-tune llama 8b on 10k samples of 16k tokens each, will one RTX 4090 do?", 10_000, 16_000),
    ("lora 微调 qwen 7b，1 万条数据每条 1k token，4090 够吗", 10_000, 1_000),
    ("全参微调 qwen 7b，每条样本 4096 token，2000 条，要几张 a100", 2_000, 4_096),
])
def test_each_samples_length_is_the_sequence_length(kb, text, samples, length):
    q = parse_question(text, kb)
    assert q.documents == samples and q.tokens_per_item == length
    assert q.sequence_tokens == length


def test_a_sample_length_is_no_sequence_length_when_serving(kb):
    q = parse_question("summarize 5k docs of 2k tokens each with llama 8b", kb)
    assert q.tokens_per_item == 2000 and q.sequence_tokens is None


def test_the_sample_length_decides_the_memory_verdict(kb):
    # 10,000 samples x 16,000 tokens = 160M tokens, each sample one 16,000-token sequence: LoRA of Llama 3.1 8B no
    # longer fits one RTX 4090 (activations grow with the sequence); the same tokens at the default sequence length fit
    long = ask(kb, "LoRA fine-tune llama 8b on 10k samples of 16k tokens each, will one RTX 4090 do?")
    first = long.options[0]
    assert first.gpu == "rtx-4090-24gb" and first.gpu_count == 1 and first.method == "lora"
    assert first.fits is False and first.tokens == pytest.approx(10_000 * 16_000)
    assert any(n.code == "sequence_from_samples" and n.params["seq_tokens"] == 16_000 for n in long.assumptions)
    default = ask(kb, "LoRA fine-tune llama 8b on 160M tokens, will one RTX 4090 do?")
    assert default.options[0].fits is True
    assert first.memory_per_gpu_gb > default.options[0].memory_per_gpu_gb


def test_pretraining_tokens_are_samples_times_length(kb):
    # 2M documents x 2,048 tokens = 4.096B tokens (not the compute-optimal 20 x 1B = 20B)
    a = ask(kb, "pretrain a 1b model on 2M documents of 2048 tokens each, how long on 8 h100")
    assert a.options[0].tokens == pytest.approx(2_000_000 * 2048)
    assert not any(n.code == "chinchilla_tokens" for n in a.assumptions)


# ------------------------------------------------------------------------ 5. clouds the knowledge base lacks

@pytest.mark.parametrize(("text", "names"), [
    ("恒源云上租 4090 多少钱一小时", ["恒源云"]),
    ("what does an H100 cost per hour on Lightning AI?", ["Lightning AI"]),
    ("对比一下矩池云和恒源云的 A100 价格", ["矩池云", "恒源云"]),
    ("serve llama 8b on Acme GPU Cloud with 50 users", ["Acme GPU Cloud"]),
    ("用天翼云的 a100 跑 qwen 7b", ["天翼云"]),
])
def test_an_unknown_cloud_is_reported(kb, text, names):
    q = parse_question(text, kb)
    assert [t.as_written for t in q.unknown_terms if t.kind == "provider"] == names
    assert q.providers == []


@pytest.mark.parametrize("text", ["在私有云上部署 qwen 72b", "run llama 70b on our private cloud", "部署到云端要几张卡 qwen 7b",
                                  "H100 at Lambda Labs", "在阿里云上租 A100", "4090 on Google Cloud"])
def test_cloud_words_that_name_no_unknown_cloud(kb, text):
    assert not [t for t in parse_question(text, kb).unknown_terms if t.kind == "provider"]


@pytest.mark.parametrize(("text", "name"), [("恒源云上租 4090 多少钱一小时", "恒源云"),
                                            ("what does an H100 cost per hour on Lightning AI?", "Lightning AI")])
def test_a_price_asked_at_an_unknown_cloud_says_so_first(kb, text, name):
    a = ask(kb, text)
    # the first line says there is no price from that cloud, then the cheapest tracked price for 1 hour
    assert a.headline.code == "quote_elsewhere" and a.headline.params["providers"] == [name]
    assert a.headline.params["hours"] == 1 and a.headline.params["total_usd"] == a.headline.params["price_usd"]
    assert a.details[0].code == "unknown_provider" and a.details[0].params["written"] == name


def test_an_unknown_cloud_beside_a_sizing_is_a_warning(kb):
    a = ask(kb, "serve llama 8b on Acme GPU Cloud with 50 users")
    assert any(w.code == "unknown_provider" and w.params["written"] == "Acme GPU Cloud" for w in a.warnings)


# ------------------------------------------------------------------------ 6. monthly plan vs pay-as-you-go

@pytest.mark.parametrize("text", ["Lambda H100 per month vs pay as you go", "Lambda H100 monthly rate and pay-as-you-go rate",
                                  "Lambda H100 月付和按量计费哪个便宜", "Lambda H100 按量还是包月"])
def test_monthly_and_pay_as_you_go_are_both_asked(kb, text):
    q = parse_question(text, kb)
    assert q.billing_terms == ["monthly"] and q.pricing == ["on_demand"] and q.duration_hours == 730
    a = ask(kb, text)
    # the month on demand: 4.29 x 730 = 3,131.70; no monthly plan is published at Lambda, on-demand is
    assert a.headline.params["total_usd"] == pytest.approx(4.29 * 730)
    n = next(n for n in a.details if n.code == "term_unpublished")
    assert n.params["term"] == "monthly"
    assert [(i["pricing_model"], i["price_usd"]) for i in n.params["items"]] == [("on_demand", pytest.approx(4.29))]


def test_an_on_demand_month_is_no_monthly_plan(kb):
    q = parse_question("h100 on-demand monthly cost", kb)
    assert q.billing_terms == [] and q.duration_hours == 730
