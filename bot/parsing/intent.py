"""Decide what a question asks for, from keywords and the entities found.

Rules, first match wins (each is a kind of question, not a particular message):

1. ``help``: empty, "help", "?", "what can you do" (with no GPU or model named).
2. ``recommend``: asks for a recommendation or gives a budget ("recommend", "what should I
   buy", "cheapest", "推荐", "方案").
3. ``quote``: names money or cost ("price", "cost", "how much" not followed by
   slower/faster/memory, "$", "/hr", "多少钱"). A cost question about two GPUs is still a
   quote when it quotes prices ("$0.34/h vs $1.19"); "which is cheaper" alone is a comparison.
4. ``spec_lookup`` (strong): NVLink/P2P, specs, TFLOPS, transistors, a marketing claim
   ("30x faster"), "does X support bf16".
5. ``compare``: two GPUs joined by "vs"/"or"/"还是", a GPU after "than"/"over"/"keep up
   with"/"替代", "from A100 to H100", "3090 speed", or "which"/"对比"/"哪个" with two GPUs.
   Two GPUs merely listed ("on my 4090 and v100") are not a comparison.
6. ``spec_lookup``: a precision asked about on a GPU with no model ("can V100 run a bf16
   model?"): a hardware-support question.
7. ``diagnose``: wrong output, hangs, NCCL errors (nothing to size); or a pasted error
   with no model named. An error quoted beside a model is a sizing question.
8. ``finetune``: fine-tune, LoRA, QLoRA, SFT, 微调.
9. ``size_training`` / ``size_inference``: training words (pretrain, train, epoch, 训练)
   vs serving words (inference, serve, deploy, tok/s, users, vLLM, 推理, 部署, 并发); when
   both appear, the first one mentioned is the main workload ("inference mostly, maybe
   training"). Weaker words (run, fit, OOM, 跑, 够) mean inference.
   GPUs named with a rental term (a duration, provider or spot/reserved) and no model or
   workload are a ``quote``.
10. ``recommend`` (weak): "best", "which gpu".
11. ``spec_lookup`` (weak): bandwidth, VRAM, memory of a named GPU.
12. By entities: a model -> ``size_inference``; two GPUs -> ``compare``; one GPU ->
    ``spec_lookup``; nothing -> ``unknown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["IntentInputs", "classify_intent", "find_workload"]

_HELP = re.compile(
    r"^\s*(?:/?help(?: me)?|h|\?+|hi|hello|hey|yo|commands?|usage|menu|start|what can (?:you|u) do|what do you do"
    r"|how (?:do|can|should) i use (?:you|this|it|the bot)|who are you|帮助|你能做什么|你好|使い方|도움말)[\s!.?？!]*$"
)
_HELP_ANYWHERE = re.compile(r"what can (?:you|u) do|how (?:do|can) i use (?:you|this bot|the bot)|你能做什么")
_RECOMMEND = re.compile(
    r"\brecommend\w*|\bsuggest(?:ion)?s?\b|\badvise\b|what (?:gpus?|cards?|hardware|setup|config\w*|instances?) "
    r"(?:should|do|would) (?:i|we|you)|which (?:gpus?|cards?|instances?) (?:should|do|would) (?:i|we)"
    r"|what should (?:i|we) (?:buy|get|rent|use|pick|choose)|should (?:i|we) buy\b|\bbudget\b|\bcheapest\b"
    r"|\bbest (?:gpus?|cards?|setup|option|choice|hardware|instances?|value)\b"
    r"|推荐|方案|建议|选哪"
    r"|おすすめ|추천"
)
_QUOTE = re.compile(
    r"\bcosts?\b(?![\s-]*(?:effective|efficien))|\bcosting\b|\bprices?\b|\bpricing\b|\bpriced\b|\bquote\b|how much(?!\s+(?:\w+\s+)?(?:slower|faster"
    r"|better|worse|more|less|longer|memory|vram|ram|time|bigger|smaller|gpu memory|speed|difference|of a)\b)"
    r"|\$\s*\d|(?<!\S)\$\$+(?!\S)|\b\d+(?:\.\d+)?\s*(?:usd|dollars|bucks)\b|/\s*(?:gpu[\s-]?)?h(?:r|our)?\b"
    r"|\bper (?:gpu[\s-]?)?hour\b|\bhourly\b|\bspend\b|\bbill(?:ed|ing)?\b|\bexpensive\b|\bballpark\b"
    r"|[¥￥]\s*\d|\d\s*(?:元|块钱)|多少钱|价格|费用|报价|每小时|成本|租金|租|価格|料金|費用|가격|비용"
)
_SPEC_STRONG = re.compile(
    r"\bnv-?link\b|\bp2p\b|peer[\s-]to[\s-]peer|\bspecs?\b|\bspecifications?\b|\bdatasheet\b|\btflops\b|\btops\b"
    r"|transistors|tensor cores?|\b\d+(?:\.\d+)?\s*x\s+(?:faster|slower|speedup|better|more performance)"
    r"|\bsupports?\s+(?:fp8|bf16|bfloat16|fp16|int8|int4|fp4|tf32|flash|nvlink|mig|ecc)|\b(?:tdp|ecc|mig)\b"
    r"|规格|参数表|互联|带宽多少"
)
_COMPARE_PAIR = re.compile(
    r"§g\s*\)?\s*(?:\(?\s*)(?:vs\.?|versus|or|还是|或者?|/|对比|比)\s*(?:\(?\s*)(?:an?\s+|the\s+)?§g"
)
_COMPARE_REL = re.compile(
    r"(?:\bthan|\bover|\bvs\.?|\bversus|compared (?:to|with)|relative to|\bagainst|keep up (?:with|w/)|\breplace"
    r"|替代|代替|取代|相比|比)\s*(?:an?\s+|the\s+|my\s+|our\s+|a\s+single\s+)?§g"
    r"|\bfrom\s+(?:an?\s+|the\s+|our\s+|my\s+)?§g\s*(?:\w+\s+){0,2}?to\s+(?:an?\s+|the\s+)?§g"
    r"|(?:upgrad|switch|mov|migrat)\w*\s+(?:from\s+)?(?:an?\s+|the\s+|our\s+|my\s+)?§g\s+to\s+(?:an?\s+)?§g"
    r"|§g\s+(?:speed|perf(?:ormance)?|level)\b"
)
_COMPARE_WORD = re.compile(
    r"\bwhich\b|\bdifference between\b|\bcompare\w*|\bcomparison\b|哪个|哪款|哪一个|哪张|哪块|对比|比较|区别|差多少|差距|还是"
    r"|どっち|比較|어느|비교"
)
_CAPABILITY_QUESTION = re.compile(
    r"\bsupport\w*|\b(?:run|work)s?\s+on\b|能.{0,20}吗|可以.{0,20}吗|支持|兼容|\bcan\b.{0,40}\b(?:run|use|do|handle)\b"
)
_FINETUNE = re.compile(
    r"fine[\s-]?tun\w*|finetun\w*|\bft\b|\bq?lora\b|\blora'?d\b|\bsft\b|\bpeft\b|instruction[\s-]tun\w*|\brlhf\b|\bppo\b"
    r"|\bdpo\b|\badapter\b|微调|精调|全参|ファインチューニング|파인튜닝"
)
_TRAINING = re.compile(
    r"pre-?train\w*|\btrain\w*|from scratch|\bepochs?\b|\bgpu[\s-]?hours to train|训练|预训练|学習|학습"
)
_INFERENCE = re.compile(
    r"\binferenc\w*|\binfer\b|\bserv(?:e|es|ing|er)\b|\bdeploy\w*|tok(?:en)?s?\s*/\s*s\b|\bt/s\b|tokens? per second"
    r"|\blatency\b|\bthroughput\b|\bttft\b|concurren\w*|\busers?\b|\bvllm\b|\btgi\b|text-generation-inference"
    r"|tensorrt|llama\.cpp|\bollama\b|exllama|req(?:uest)?s?\s*/\s*s\b|\b[rq]ps\b|推理|部署|并发|推論|추론|서빙"
    r"|書き起こし|transcri\w*"
)
_WEAK_INFERENCE = re.compile(
    r"\brun(?:s|ning)?\b|\bfits?\b|\bload\w*\b|\benough\b|\bwork\w*\b|\boom\w*\b|out of memory|\bvram\b|跑|够|装得下|放得下"
    r"|動か|돌리|돌려|実行|실행"
)
_WEAK_RECOMMEND = re.compile(r"\bbest\b|\bwhich gpus?\b|\bwhat gpus?\b|最好|最佳|性价比")
_WEAK_SPEC = re.compile(r"bandwidth|\bvram\b|\bmemory\b|\bhow fast\b|\bspeed\b|带宽|显存多大|多大显存")


@dataclass
class IntentInputs:
    """What the classifier looks at.

    Attributes:
        low: the lower-cased message.
        marked: ``low`` with every GPU mention (known or unknown) replaced by ``§g``.
        gpu_names: distinct GPUs named (known ids and unknown names).
        has_model: a model (known or generic) was found.
        precision: the precision found, if any.
        diagnosis_kind: the kind of the pasted error, if any.
        error_paste: the message contains a pasted error/traceback.
        has_entities: anything at all was found (GPU, model, unknown term).
        rental_terms: a duration, provider or pricing model was named (renting GPUs).
    """

    low: str
    marked: str
    gpu_names: int
    has_model: bool
    precision: str | None
    diagnosis_kind: str | None
    error_paste: bool
    has_entities: bool
    rental_terms: bool = False


def _first(pattern: re.Pattern[str], text: str) -> int | None:
    m = pattern.search(text)
    return m.start() if m else None


def classify_intent(x: IntentInputs) -> str:
    """The :data:`~bot.parsing.query.Intent` of a message (see the module docstring for the rules)."""
    low = x.low
    if not low.strip() or (not x.has_entities and (_HELP.match(low) or _HELP_ANYWHERE.search(low))):
        return "help"
    if _RECOMMEND.search(low):
        return "recommend"
    if _QUOTE.search(low):
        return "quote"
    if _SPEC_STRONG.search(low) and x.diagnosis_kind != "feature_gate":
        return "spec_lookup"
    if x.gpu_names and (_COMPARE_PAIR.search(x.marked) or _COMPARE_REL.search(x.marked)
                        or (x.gpu_names >= 2 and _COMPARE_WORD.search(low))):
        return "compare"
    if x.precision and x.gpu_names and not x.has_model and x.diagnosis_kind is None and _CAPABILITY_QUESTION.search(low):
        return "spec_lookup"
    if x.diagnosis_kind == "other" or (x.diagnosis_kind and not x.has_model and (x.error_paste or not x.gpu_names)):
        return "diagnose"
    workload = find_workload(low)
    if workload is not None:
        return {"finetune": "finetune", "training": "size_training", "inference": "size_inference"}[workload]
    if x.rental_terms and x.gpu_names and not x.has_model:
        return "quote"  # "8x h100 spot on runpod for a week": renting named GPUs is a price question
    if (x.has_model or x.gpu_names) and (_WEAK_INFERENCE.search(low) or x.diagnosis_kind == "oom"):
        return "size_inference"
    if _WEAK_RECOMMEND.search(low):
        return "recommend"
    if x.gpu_names and not x.has_model and _WEAK_SPEC.search(low):
        return "spec_lookup"
    if x.has_model:
        return "size_inference"
    if x.gpu_names >= 2:
        return "compare"
    if x.gpu_names == 1:
        return "spec_lookup"
    if x.diagnosis_kind:
        return "diagnose"
    return "unknown"


def find_workload(low: str) -> str | None:
    """The workload the message is about, whatever its intent: ``finetune``, ``training``,
    ``inference`` or ``None``. "how much slower than a100 for finetuning" is a comparison of
    fine-tuning speed; "cost to pretrain" is a quote for training. Fine-tuning words win; between
    training and serving words the first one mentioned wins (as in :func:`classify_intent`).
    """
    if _FINETUNE.search(low):
        return "finetune"
    training, inference = _first(_TRAINING, low), _first(_INFERENCE, low)
    if training is not None and (inference is None or training < inference):
        return "training"
    if inference is not None:
        return "inference"
    return None
