"""A fit asked of GPU memory the user has in all, with no GPU named ("we have 640GB of VRAM, can we run X"): the
answer is what fits in that memory, never a setup of cards the user did not name; a memory size written with a scale
letter ("0.5T 显存") is read as TB, not trillions of GB; a bare memory figure no longer reads as the article's
"H100x8 with 640 GB" claim.

Figures (by hand):
* usable memory of a pool = the stated GB (read as said: the cards, and so any GiB margin, are unknown) x 0.99
  (knowledge/efficiency.yaml usable_memory_fraction_hbm): 640 GB -> 633.6 GB; 500 GB -> 495.0 GB; 320 GB -> 316.8 GB.
* vLLM reserves 0.9 of that by default (knowledge/engines.yaml memory_utilization): 640 GB -> 570.24 GB.
* DeepSeek-V3 671B: fp8 weights alone are 671 GB (1 byte per weight) > 633.6 x 0.97 (policy.yaml ceiling) = 614.6;
  int4 is ~0.5 byte per weight, ~336 GB + KV cache + overhead < 570.24: fits.
* Qwen2.5 72B (72.7B) in 16-bit: 145.4 GB of weights + KV cache + overhead < 0.9 x 316.8 = 285.1: fits.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.terminal import render_text

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize(("text", "pool_gb"), [
    ("我们有0.5T显存，能跑满血DeepSeek R1吗", 500.0),
    ("we have 1.5TB of VRAM in total, can we serve llama 3.1 405b in bf16", 1500.0),
    ("总共 320G 显存能跑 qwen2.5 72b 吗", 320.0),
    ("we have 640GB of total VRAM across our cards, can we run deepseek v3 in fp8", 640.0),
])
def test_the_memory_the_user_has_is_read(kb, text, pool_gb):
    q = parse_question(text, kb)
    assert q.memory_pool_gb == pool_gb
    assert not q.gpus


@pytest.mark.parametrize("text", [
    "llama 3 70b needs 140gb, will it fit",   # what the model needs, not what the user has
    "8x H100 with 640GB, can we run deepseek v3",   # GPUs named: their memory
])
def test_a_requirement_or_named_cards_is_no_pool(kb, text):
    assert parse_question(text, kb).memory_pool_gb is None


def test_deepseek_v3_fp8_does_not_fit_in_640_gb_but_int4_does(kb):
    a = ask(kb, "we have 640GB of total VRAM across our cards, can we run deepseek v3")
    assert a.headline.code == "memory_pool_fit"
    assert a.headline.params["usable_gb"] == pytest.approx(633.6, abs=0.01)
    verdicts = {row[0]["precision"]: row[3] for row in a.table.rows}
    assert verdicts["fp8"] is False and verdicts["int4"] is True
    assert not a.options  # no cards invented
    assert not a.query.claims  # "640GB" alone is the user's memory, not the article's H100x8 claim
    first = render_text(a).split("\n")[1]
    assert first.startswith("With 640 GB of GPU memory in all (633.6 GB usable): these fit: DeepSeek-V3")


def test_full_model_in_chinese_is_judged_as_released(kb):
    a = ask(kb, "我们有0.5T显存，能跑满血DeepSeek R1吗")
    assert [row[0]["precision"] for row in a.table.rows] == ["fp8"]
    assert a.table.rows[0][3] is False
    assert a.headline.params["usable_gb"] == pytest.approx(495.0, abs=0.01)
    assert "放不下" in render_text(a).split("\n")[1]


def test_qwen_72b_in_320_gb_fits_in_every_format(kb):
    a = ask(kb, "总共 320G 显存能跑 qwen2.5 72b 吗")
    assert all(row[3] is True for row in a.table.rows)
    assert a.table.rows[0][1] == pytest.approx(149.5, abs=1.0)  # 145.4 GB of 16-bit weights + KV + overhead


@pytest.mark.parametrize(("text", "gpu", "memory"), [
    ("an H100 NVL with 188GB - can one card hold llama 3 70b in fp16?", "h100-nvl-94gb", None),  # 2 x 94 GB
    ("A100 with 160GB for qwen2.5 72b?", "a100-sxm-80gb", None),  # 2 x 80 GB: two data-center cards
    ("2080 Ti 22G 跑 qwen2.5 14b 行吗", "rtx-2080-ti-11gb", 22.0),  # a modded GeForce card keeps its memory
])
def test_a_whole_multiple_of_a_data_center_cards_memory_is_several_cards(kb, text, gpu, memory):
    g = parse_question(text, kb).gpus[0]
    assert (g.id, g.memory_gb) == (gpu, memory)


def test_a_listed_product_is_not_the_start_of_another_name(kb):
    # knowledge lists the Hygon DCU K100 as known of but unsized; the K100 AI is another product
    q = parse_question("海光 K100 跑 qwen2.5 7b", kb)
    assert not q.gpus and [t.unlisted for t in q.unknown_terms] == ["Hygon DCU K100"]


def test_a_format_asked_that_does_not_fit_leads_with_no_and_what_would(kb):
    # Llama 3.1 405B in fp8: 405.9 GB of weights alone > 320 x 0.99 = 316.8 GB usable; int4 ~0.5 byte per weight fits
    a = ask(kb, "we have 320GB of VRAM in total across our boxes, can we run Llama 3.1 405B in fp8 with 8k context")
    assert a.headline.code == "memory_pool_fit_no"
    assert [x["precision"] for x in a.headline.params["too_big"]] == ["fp8"]
    assert [x["precision"] for x in a.headline.params["fits"]] == ["int4"]
    assert a.headline.params["usable_gb"] == pytest.approx(316.8)


def test_a_pool_over_a_count_of_cards_is_still_the_memory_said(kb):
    # 320 GB over 4 cards, no card named: never swapped for bigger cards; 405.9 GB of fp8 weights > 316.8 GB usable
    a = ask(kb, "we have a box with 320 GB of GPU memory total across 4 cards. can it serve llama 3.1 405b in fp8?")
    assert a.headline.code == "memory_pool_fit_no" and not a.options
