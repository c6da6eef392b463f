"""An out-of-memory error met loading a model in fp32: the answer leads with the 16-bit (and 8/4-bit) memory on the
same GPUs and says half precision fits when it does.

Figures: Llama 3 8B has 8.030261248e9 parameters (knowledge/models.yaml, HF safetensors total); fp32 weights are
4 bytes each and bf16/fp16 2, so going to 16-bit saves 8.03e9 x 2 bytes = 16.06 GB per copy, whatever the KV cache
and runtime overhead. An RTX 4090 has 24 GB (24 GiB) of which 24 x 2^30 x 0.99 = 25.51 GB are usable
(knowledge/efficiency.yaml usable_memory_fraction_hbm, used for consumer GDDR too).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question
from bot.render.compose import compose

TODAY = date(2026, 12, 1)
LLAMA3_8B = 8.030261248e9
RTX4090_USABLE_GB = 24 * 2**30 * 0.99 / 1e9


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


@pytest.mark.parametrize("text", [
    "getting CUDA OOM when I load llama 3 8b in fp32 on my rtx 4090",
    "llama 3 8b float32 on a 4090 -> out of memory, why?",
    "4090 runs out of memory with llama 3 8b at full precision",
])
def test_fp32_oom_on_a_4090_says_bf16_fits(kb, text):
    a = ask(kb, text)
    h = a.headline
    assert h.code == "oom_half_precision"
    assert h.params["half"] == "bf16" and h.params["torch_dtype"] == "torch.bfloat16"  # Ada runs bf16 (cc 8.9)
    assert h.params["usable_gb"] == pytest.approx(RTX4090_USABLE_GB, abs=0.01)
    assert h.params["fp32_gb"] > h.params["usable_gb"] > h.params["half_gb"]
    assert h.params["half_fits"] and h.params["int8_fits"] and h.params["int4_fits"]
    # the only difference between the two loads is the weights: 2 bytes per parameter
    assert h.params["fp32_gb"] - h.params["half_gb"] == pytest.approx(LLAMA3_8B * 2 / 1e9, abs=0.05)
    assert h.params["int8_gb"] < h.params["half_gb"] and h.params["int4_gb"] < h.params["int8_gb"]
    line = compose(a).headline
    assert "In bf16 it needs 18.3 GB and fits: load it in half precision (torch_dtype=torch.bfloat16)" in line


def test_full_precision_is_read_as_fp32_only_beside_an_oom(kb):
    a = ask(kb, "4090 runs out of memory with llama 3 8b at full precision")
    assert a.headline.params["read_as_fp32"]
    # without an error, "full precision" is the model as released (bf16), which fits: no OOM line
    b = ask(kb, "can a 4090 run llama 3 8b at full precision?")
    assert b.headline.code != "oom_half_precision"


def test_a_gpu_without_bf16_is_told_fp16_and_when_even_that_is_too_big(kb):
    # T4 (Turing, cc 7.5): no bf16, so fp16. Llama 2 13B in fp16 is 13.0e9 x 2 = 26 GB of weights alone, over the
    # T4's 16 GB; int4 fits
    a = ask(kb, "llama 2 13b fp32 on a T4 gives me out of memory")
    h = a.headline
    assert h.code == "oom_half_precision" and h.params["half"] == "fp16"
    assert not h.params["half_fits"] and h.params["int4_fits"]
    assert "still too much" in compose(a).headline


def test_several_gpus_spread_one_copy_in_every_format(kb):
    # Llama 3 70B (70.55e9 parameters) over 4x A100 80GB: fp32 weights 282.2 GB / 4 = 70.6 GB per GPU; bf16 half that
    a = ask(kb, "I loaded llama 3 70b in fp32 on 4x a100 80gb and got OOM")
    h = a.headline
    assert h.code == "oom_half_precision" and h.params["config"]["gpu_count"] == 4
    assert h.params["half_gb"] < h.params["fp32_gb"] / 1.8
    assert h.params["int8_gb"] < h.params["half_gb"]


def test_a_pasted_error_with_the_dtype_gets_the_same_first_line(kb):
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacity "
            "of 23.64 GiB\nAutoModelForCausalLM.from_pretrained('meta-llama/Meta-Llama-3-8B', "
            "torch_dtype=torch.float32) on a 4090")
    assert ask(kb, text).headline.code == "oom_half_precision"


def test_the_chinese_answer_says_it_in_chinese(kb):
    a = ask(kb, "用 fp32 加载 llama 3 8b，4090 爆显存了")
    assert a.headline.code == "oom_half_precision"
    assert "用 bf16 只需 18.3 GB，放得下" in compose(a).headline
