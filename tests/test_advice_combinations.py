"""Every GPU and model in the knowledge base can appear in any kind of question without an error.

Seeded combinations of question templates x GPUs x models x counts (a regression net for the many
paths of the advisor: GPUs without published TFLOPS, non-LLMs, MoE, MLA, tiny and huge models).
"""

from __future__ import annotations

import random

import pytest

from bot.advice.conversation import respond_to
from bot.render.blockkit import render_message
from bot.render.terminal import render_text

TEMPLATES = [
    "{g} vs {g2} for {m}", "serve {m} on {n}x {g} to {u} users", "train {m} on {t}B tokens with {n} {g}",
    "qlora {m} on {n}x {g}", "full finetune {m} on {n}x {g}", "{n}x {g} for {d} days on runpod",
    "how much vram for {m} with {c}k context in int4", "{m} on {g} fp8 kv cache, {u} users, 2k in 500 out",
    "{g} specs", "lora {m} with 8k ctx on {g}", "{m} Q4_K_M on {g}", "cheapest {g} spot",
    "pretrain {m} fp8 on {n} {g}", "serve {m} at {u} requests/s", "{g} 和 {g2} 哪个适合训练 {m}",
    "{n}张{g} 三天多少钱", "is {g} 30x faster than {g2}?",
    "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity) finetuning {m}",
]


def _questions(kb, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    gpus = [g.name for g in kb.gpus.values()]
    models = [m.name for m in kb.models.values()]
    return [rng.choice(TEMPLATES).format(
        g=rng.choice(gpus), g2=rng.choice(gpus), m=rng.choice(models), n=rng.choice([1, 2, 4, 8, 16]),
        u=rng.choice([1, 10, 100, 1000]), t=rng.choice([10, 300, 2000]), d=rng.choice([1, 3, 30]),
        c=rng.choice([4, 32, 128])) for _ in range(count)]


@pytest.mark.parametrize("seed", [1, 2])
def test_combinations_answer_without_error(kb, seed):
    for question in _questions(kb, 120, seed):
        answer = respond_to(question, kb=kb).answer
        assert answer.verdict, question
        assert render_message(answer)["blocks"], question
        assert render_text(answer), question
