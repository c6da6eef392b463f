"""Forms found by user testing: tokens in/out without a separator, singular 'token', 'seq len N', 'per month'."""

from __future__ import annotations

import pytest

from bot.parsing.parser import parse_question


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("serve llama 3 70b to 50 users, 1k in 200 out", "input_tokens", 1024),
        ("serve llama 3 70b to 50 users, 1k in 200 out", "output_tokens", 200),
        ("训练一个7B模型用1T token需要多少张H100", "training_tokens", 1e12),
        ("full fine-tuning Llama 3 8B with batch size 4 seq len 4096 OOM", "context_tokens", 4096),
        ("full fine-tuning Llama 3 8B with batch size 4 seq len 4096 OOM", "batch_size", 4),
        ("a2-highgpu-8g per month", "duration_hours", 730),  # 365 x 24 / 12
        ("8张H100 三天多少钱", "duration_hours", 72),
        ("租两周 4张4090", "duration_hours", 336),
    ],
)
def test_forms(kb, text, field, value):
    assert getattr(parse_question(text, kb), field) == value
