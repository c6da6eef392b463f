"""A follow-up that only names other GPUs after a fine-tuning or training run ("what if we use H100s", "用H100呢")
asks for the same run on them, not for serving the model; a duration follow-up after a sizing whose own setup failed
prices the alternative recommended, labelled with its configuration.

Hand check: LoRA of Llama 3 8B on 50M tokens is a fine-tuning answer both turns (method "lora" kept, tokens 5e7).
"""

from __future__ import annotations

import pytest

from bot.advice.conversation import respond_to
from bot.kb.loader import get_knowledge


@pytest.mark.parametrize(("first", "second"), [
    ("how long to LoRA fine-tune llama 3 8b on 50M tokens on one A100?", "what if we use H100s"),
    ("LoRA微调Llama 3 8B，5000万token，单张A100要多久？", "用H100呢？"),
])
def test_a_gpu_follow_up_keeps_the_run(first, second):
    kb = get_knowledge()
    one = respond_to(first, kb=kb)
    two = respond_to(second, one.query, kb=kb)
    assert two.answer.intent == "finetune"
    assert two.query.method == "lora" and two.query.training_tokens == 5e7
    assert two.answer.options[0].gpu.startswith("h100")
