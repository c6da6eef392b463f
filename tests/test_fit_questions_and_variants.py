"""Two kinds of question (lexicon ``fit_questions``, ``variant_connectors``; ``ParserTables.form_variant``):

1. A yes/no question whether a card can do the work, with the card inside the phrase ("can the 3090 run X",
   "4090 可以跑 70B 吗"), asks "fit": the answer leads with yes/no on ONE card when no count is said, with the memory
   that decides it and, when it does not fit, the smallest change that does.
2. Two variants of one GPU product, the second written as a bare form factor or memory ("H100 PCIe vs SXM",
   "A100 40G and 80G difference"), are both compared, never one side.

Figures (hand-computed from the knowledge base):
- usable memory of a 24 GB consumer card: 24 x 2^30 x 0.99 / 1e9 = 25.512 GB (knowledge/efficiency.yaml,
  usable_memory_fraction_hbm, also used for consumer GDDR); of the T4 (datacenter GDDR with ECC):
  16 x 2^30 x 0.93 / 1e9 = 15.977 GB (usable_memory_fraction_gddr_ecc).
- Qwen2.5 32B: 32.763876352e9 parameters (knowledge/models.yaml); bf16 weights alone 65.5 GB > 25.5 GB.
- Llama 3 70B: 70.553706496e9 parameters; int4 (0.5195 bytes/weight, embeddings and lm_head 2 x 128,256 x 8,192
  parameters kept in 16 bits: efficiency.yaml int4) = (70.5537 - 2.1013) x 0.5195 + 2.1013 x 2 = 39.76 GB > 25.5 GB.
- SDXL base: 6.834 GB of fp16 weights (models.yaml, Podell et al. 2023); need = 6.834 x 1.2 (activation headroom,
  bot/advice/non_llm.py) + 0.75 (cuda_context_gb) = 8.951 GB <= 15.977 GB on a T4.
- knowledge/gpus.yaml: H100 PCIe 2,000 GB/s, 756 dense bf16 TFLOPS (NVIDIA product brief PB-11133-001_v02);
  H100 SXM5 3,350 GB/s, 989 TFLOPS (stas00/ml-engineering table); A100 SXM4 40GB 1,555 GB/s, 80GB 2,039 GB/s
  (NVIDIA A100 datasheet r4 via glennklockwood.com).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.lexicon import get_lexicon
from bot.parsing.parser import fit_question_clause, parse_question

TODAY = date(2026, 12, 1)
USABLE_24GB = 24 * 2**30 * 0.99 / 1e9
USABLE_T4 = 16 * 2**30 * 0.93 / 1e9


@pytest.mark.parametrize("text", [
    "can the 3090 run qwen2.5 32b",
    "could the 4090 run llama 3 70b",
    "would the a10 run llama 3 8b at 8k context",
    "will the L4 cope with mistral 7b",
    "can my 3090 run mixtral 8x7b",
    "4090 可以跑 70B 吗",
    "3090 带得动 qwen2.5 32b 吗",
    "4090 跑 llama 3 70b int4 行吗",
    "一张 A10 能否运行 llama 3 8b",
    "16G 显存够跑 7B 吗",
])
def test_an_ability_question_asks_fit(kb, text):
    q = parse_question(text, kb)
    assert q.asks[0] == "fit"
    assert q.intent == "size_inference"


@pytest.mark.parametrize("text", [
    "how many users can the 3090 run llama 3 8b for",  # a count asked, not a yes/no
    "does the 4090 support fp8",                         # a feature of the card
    "4090 跑 llama 3 8b 速度怎么样",                       # how fast, no yes/no closer
])
def test_other_questions_with_the_same_words_ask_no_fit(kb, text):
    assert "fit" not in parse_question(text, kb).asks


def test_the_fit_question_is_found_in_its_clause():
    lex = get_lexicon()
    assert fit_question_clause("we have a 3090. can it run qwen2.5 32b?", lex) == 1
    assert fit_question_clause("qwen2.5 32b on a 3090, how fast", lex) is None


@pytest.mark.parametrize("text", ["can the 3090 run qwen2.5 32b", "3090 跑得动 qwen2.5 32b 吗"])
def test_one_card_when_no_count_is_said_released_format_miss_then_the_quantized_yes(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "fit_only_quantized"
    assert h.params["config"]["gpu_count"] == 1 and h.params["config"]["gpu_name"] == "RTX 3090"
    assert h.params["native"] == "bf16"
    assert h.params["need_gb"] > 32.763876352 * 2  # bf16 weights alone exceed the card
    assert h.params["usable_gb"] == pytest.approx(USABLE_24GB, abs=0.01)
    assert h.params["precision"] == "int4" and h.params["mem_gb"] <= USABLE_24GB
    assert a.details[0].code == "fit_yes"
    assert any(d.code == "memory_breakdown" for d in a.details)  # weights + KV + overhead said


@pytest.mark.parametrize("text", ["will a single 4090 handle llama 3 70b in int4", "一张 4090 能不能跑 llama 3 70b int4"])
def test_no_on_one_card_with_the_memory_then_a_second_card(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "serve_fixed_fails"
    assert h.params["config"]["gpu_count"] == 1
    assert h.params["reason"].code == "reject_memory"
    assert h.params["reason"].params["usable_gb"] == pytest.approx(USABLE_24GB, abs=0.01)
    assert h.params["reason"].params["need_gb"] > 39.7  # int4 weights alone, 39.76 GB
    breakdown = next(d for d in a.details if d.code == "memory_breakdown")
    assert breakdown.params["weights_gb"] == pytest.approx(39.76, abs=0.05)
    # the smallest change first: the same card, one more of it, same format
    second = a.options[1]
    assert (second.gpu, second.gpu_count, second.precision, second.meets) == ("rtx-4090-24gb", 2, "int4", True)


@pytest.mark.parametrize("text", ["does sdxl fit on a T4", "T4 能跑 sdxl 吗"])
def test_an_image_model_fit_leads_with_yes_and_the_memory(kb, text):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    h = a.headline
    assert h.code == "non_llm_fit_yes"
    assert h.params["config"] == {"gpu_count": 1, "gpu_name": "T4"}
    assert h.params["weights_gb"] == pytest.approx(6.834)
    assert h.params["need_gb"] == pytest.approx(6.834 * 1.2 + 0.75)
    assert h.params["usable_gb"] == pytest.approx(USABLE_T4, abs=0.01)
    assert a.details[0].code.startswith("images_rate")  # the rate follows


@pytest.mark.parametrize("text, ids", [
    ("H100 PCIe vs SXM", ["h100-pcie-80gb", "h100-sxm-80gb"]),
    ("H100 PCIe 和 SXM 差多少", ["h100-pcie-80gb", "h100-sxm-80gb"]),
    ("H100 NVL or SXM5", ["h100-nvl-94gb", "h100-sxm-80gb"]),
    ("A100 80GB PCIe vs SXM", ["a100-pcie-80gb", "a100-sxm-80gb"]),
    ("A100 40G and 80G difference for training", ["a100-sxm-40gb", "a100-sxm-80gb"]),
    ("A100 40G 和 80G 区别", ["a100-sxm-40gb", "a100-sxm-80gb"]),
    ("4090 vs 4090D", ["rtx-4090-24gb", "rtx-4090-d-24gb"]),
    ("L40 vs L40S memory bandwidth", ["l40-48gb", "l40s-48gb"]),
])
def test_both_variants_of_one_product_are_read(kb, text, ids):
    assert [g.id for g in parse_question(text, kb).gpus] == ids


def test_form_factor_variants_are_compared_with_both_figures(kb):
    a = advise(parse_question("H100 PCIe vs SXM 差多少", kb), kb, today=TODAY)
    assert a.query.intent == "compare"
    facts = {f.code: f.params for f in a.headline.params["facts"]}
    assert (facts["ratio_bandwidth"]["a_gb_s"], facts["ratio_bandwidth"]["b_gb_s"]) == (2000, 3350)
    assert facts["ratio_bandwidth"]["ratio_x"] == pytest.approx(2000 / 3350)
    assert (facts["ratio_compute"]["a_tflops"], facts["ratio_compute"]["b_tflops"]) == (756, 989)
    assert [r[0] for r in a.table.rows][:2] == ["H100 PCIe 80GB", "H100 SXM5 80GB"]
    # the example question names the two variants apart, not "H100 vs H100"
    assert a.examples and a.examples[0].startswith("H100 PCIe 80GB vs H100 SXM5 80GB")


def test_memory_variants_for_training_are_compared_with_their_memory(kb):
    a = advise(parse_question("A100 40G and 80G difference for training", kb), kb, today=TODAY)
    assert a.query.intent == "compare"
    facts = {f.code: f.params for f in a.headline.params["facts"]}
    assert (facts["ratio_memory"]["a_gb"], facts["ratio_memory"]["b_gb"]) == (40, 80)
    assert (facts["ratio_bandwidth"]["a_gb_s"], facts["ratio_bandwidth"]["b_gb_s"]) == (1555, 2039)
    assert facts["ratio_compute"]["ratio_x"] == pytest.approx(1.0)  # 312 vs 312 TFLOPS


def test_a_name_the_knowledge_base_lacks_is_left_to_the_unknown_gpu_rule(kb):
    # no form-factor variant is looked up for a GPU without an id ("海光 K100": an unlisted accelerator)
    q = parse_question("海光 K100 跑 qwen2.5 7b", kb)
    assert [t.as_written for t in q.unknown_terms if t.kind == "gpu"] == ["K100"]


def test_a_form_factor_the_product_lacks_is_said_not_dropped(kb):
    # knowledge/gpus.yaml has the H800 only as the SXM5 80GB card: "H800 PCIe" is an unknown variant, said first
    q = parse_question("H800 PCIe 能跑 qwen2.5 72b 吗", kb)
    assert [g.id for g in q.gpus] == ["h800-sxm-80gb"]
    unknown = next(n for n in q.limits if n.code == "unknown_variant")  # a bound the question hit: said first
    assert unknown.params["written"] == "H800 PCIe" and unknown.params["suffix"] == "pcie"


@pytest.mark.parametrize("text, asks", [
    ("could you run the numbers for 8x H100 for a week", []),    # asked of the advisor, not of a card
    ("4090 跑 llama 3 70b 要几张卡吗", ["gpu_count"]),              # a count asked: not a yes/no
])
def test_the_ability_frame_leaves_requests_and_counts_alone(kb, text, asks):
    assert parse_question(text, kb).asks == asks
