"""``help`` and ``unknown``: what the bot does, with example questions in the user's language."""

from __future__ import annotations

from bot.advice.answer import Action, Answer
from bot.advice.context import Context
from bot.notes import note

__all__ = ["EXAMPLES", "EXAMPLES_ZH", "answer"]

EXAMPLES = [
    "H100 vs A100 for Llama 2 70B",
    "serve Llama 3 70B to 200 users at 8k context",
    "8x H100 for 3 days, how much?",
    "can i qlora llama 70b on 2x 3090",
    "how long to pretrain a 3b model on 300B tokens with 32 H100s",
]
EXAMPLES_ZH = ["两张A100 40G能跑70b吗", "H100 和 A100 哪个适合推理 Llama 2 70B", "8张H100 三天多少钱",
               "用 vllm 部署 qwen2.5 32b 给 80 个用户，需要几张 L20", "两张 3090 能 qlora 微调 llama 70b 吗",
               "32 张 H100 预训练 3b 模型 3000 亿 token 要多久"]


def answer(ctx: Context, *, reset: bool = False, usage: str | None = None) -> Answer:
    """What the bot does, and examples (empty input, "help", noise, "reset")."""
    q = ctx.query
    examples = list(EXAMPLES_ZH) if ctx.zh else list(EXAMPLES)  # examples in the reader's language only
    if usage:
        examples = [usage, *examples[:4]]
    not_understood = q.intent == "unknown" and q.text.strip()
    headline = note("help_headline_reset" if reset else "help_headline_unknown" if not_understood else "help_headline")
    family = next((n for n in q.notes if n.code == "family_without_size"), None)
    if not_understood and family is not None:
        headline = family  # a model family was named ("deepseek v5"): what is known of it, not "nothing found"
    return ctx.answer(title=note("title_help"), headline=headline,
                      details=[note("help_what"), note("help_slack")], examples=examples,
                      actions=[Action(action_id="open_form", label=note("button_size_it"))],
                      intent="help" if q.intent != "unknown" else "unknown")
