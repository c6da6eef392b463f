"""Fuzz the core (parse -> advise -> render) with hostile and broken messages; count failures per class.

Usage: python bench/fuzz_core.py [--n 30000] [--seed 20261201] [--seconds 3600] [--timeout 10]
                                 [--only CLASS ...] [--examples] [--json OUT]
       python bench/fuzz_core.py --scaling   (time per answer at 1,000 / 2,000 / 4,000 characters)

Written from the outside, against the public entry points only: every input goes through
``bot.advice.conversation.respond_to`` and the three renderers (``bot.render.terminal.render_text``,
``bot.render.blockkit.render_message``, ``bot.render.jsonout.render_json``) in a worker process, so a
hang is cut at ``--timeout`` seconds (the worker is killed and restarted) and the run is bounded by
``--seconds`` overall. Inputs are generated from a seeded ``random.Random``, so a run is reproducible.

Input classes (about the share of ``--n`` in parentheses):

* ``unicode`` (20%): random code points from every plane: lone surrogates, C0/C1 controls, bidi
  overrides and RTL scripts, emoji with ZWJ and skin tones, combining marks, zero-width characters,
  full-width and Arabic-Indic digits, noncharacters, private use; alone or around question fragments.
* ``numbers`` (20%): question fragments with hostile numbers: hundreds of digits, ``1e400``, ``NaN``,
  ``inf``, ``-5``, ``0``, ``0.001``, many dots (``3.5.1``), bare dots, separators run together.
* ``bad_quantity`` (15%): one quantity that cannot be used (a zero or negative count, a model size under
  0.01B or over 5,000B, ``0 layers``), in an otherwise ordinary question; the fragment must be named in
  the answer (as not understood, or as a stated bound), never used or dropped silently.
* ``long`` (5%): 1,000-40,000 characters of digits, separators or repeated names.
* ``megabyte`` (0.3%): about 1 MB messages.
* ``config`` (15%): pasted ``config.json`` text: nesting up to 5,000 levels, 4,400-digit integers,
  ``1e400``, ``NaN``, ``Infinity``, zero/negative/huge fields, wrong types, escaped surrogates,
  truncation, a byte-order mark, code fences.
* ``oom`` (10%): pasted CUDA out-of-memory and capability errors with mangled figures.
* ``mixed`` (rest): real question fragments in English and Chinese shuffled with noise.

Checks per input (one count per input and check, per class):

* ``exception``: ``respond_to`` or a renderer raised, or the core caught and logged an exception (a crash
  hidden behind a generic answer); the type and where are listed;
* ``not_utf8``: an output (terminal text, Block Kit JSON, answer JSON) cannot be encoded as UTF-8;
* ``nan_json``: the answer JSON holds NaN/Infinity (``json.loads`` with ``parse_constant`` raising), the
  Block Kit message cannot be dumped with ``allow_nan=False``, or the Answer holds a non-finite float;
* ``bad_count``: a GPU count (query or option), instance count or layout degree that is zero or negative,
  or a counted quantity of the request (users, nodes, batch, images, ...) that is zero or negative;
* ``negative``: a negative amount of money, or a negative quantity anywhere in the Answer's numbers;
* ``slow``: ``respond_to`` plus the three renderers took more than ``--budget`` (1 s) for an input up to
  the message-length bound (``slow_long`` counts longer inputs separately);
* ``hang``: no result within ``--timeout`` seconds;
* ``apology``: the answer apologises (a message code whose English sentence says "sorry", "went
  wrong" or "could not be read") for a problem the input caused;
* ``silent``: (``bad_quantity`` only) the unusable value (as written, or its first 15 digits) is not
  named in the answer's headline, details, warnings or what is missing: it was used or dropped silently.

Exit status 0 always (the counts are the result); ``--json`` writes them for comparison.

``--scaling`` times the whole path (fastest of 3) on repetitions of one unit at 1,000, 2,000 and 4,000
characters (the message-length bound): linear work doubles with the length (ratio 4k/2k ~2); a quadratic
scan shows as a ratio towards 4.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import multiprocessing as mp
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHECKS = ("exception", "not_utf8", "nan_json", "bad_count", "negative", "slow", "slow_long", "hang", "apology",
          "silent")
#: The in-process time budget for one answer (parse, advise, three renderers), seconds (issue 17).
BUDGET_S = 1.0

# ------------------------------------------------------------------------------------------ fragments
# Written for this fuzzer (not taken from any evaluation set): the kinds of things people ask.
EN_FRAGMENTS = [
    "serve llama 3 70b", "to 200 users", "on 4x h100", "a100 80gb", "how much for 3 days", "in int4",
    "with 32k context", "qlora a 13b model", "on 2 rtx 4090", "what can I run for $2/hr", "h100 vs a100",
    "train a 7b model on 1T tokens", "with 64 h100s", "mixtral 8x7b fp8", "is the l40s good for inference",
    "deepseek v3 on 8x h200", "qwen2.5 72b awq", "our own 30B, 48 layers, GQA 8", "p5.48xlarge price",
    "spot on aws", "under $5k a month", "tokens/s per user", "ttft under 500ms", "batch 16", "lora rank 64",
    "a 100B MoE with 10B active", "CUDA out of memory", "can a 3090 run 13b int8?", "nvlink?",
]
ZH_FRAGMENTS = [
    "两张A100 40G能跑70b吗", "部署 llama 3 70b", "给 200 个用户", "用 8 张 H100", "一个月多少钱", "int4 量化",
    "上下文 32k", "微调一个 13B 模型", "双卡4090", "每小时预算 20 元", "训练 7B 模型", "显存不足",
    "推荐什么卡", "L40S 能替代 A100 吗", "三天", "五万元以内", "推理速度多少",
]
UNITS = ["users", "gpus", "GPUs", "h100s", "x h100", "b model", "B", "billion parameters", "GiB", "GB", "gb vram",
         "$/hr", "dollars", "days", "hours", "tokens", "k context", "layers", "nodes", "batch", "tok/s",
         "ms ttft", "%", "x faster", "W", "张卡", "个用户", "天", "元", "万元", "层", "台机器", "块钱"]
HOSTILE_NUMBERS = [
    "1e400", "-1e400", "1e-400", "1e308", "NaN", "nan", "inf", "-inf", "Infinity", "-5", "-0", "0", "0.0", "00",
    "0.001", "0.0000001", "3.5.1", "1.2.3.4.5", ".", ". ", "..", "1..2", "1,,000", "1,2,3,4,5", ",5", "5,",
    "9" * 20, "9" * 400, "1" + "0" * 4400, "-" + "9" * 50, "1e99999", "0x1F", "1_000", "½", "²", "٣", "１２３",
    "३", "Ⅻ", "1/0", "0/0", "-∞", "∞", "1e", "e5", "5e+", "−5", "‐5", "+5", "~-3", "999999999999999",
]
GPU_WORDS = ["h100", "a100", "4090", "l4", "t4", "h200", "mi300x", "l40s", "a10g", "3090", "b200", "v100"]


# ------------------------------------------------------------------------------------------ generators
def _random_codepoints(rng: random.Random, n: int) -> str:
    ranges = [
        (0x0000, 0x001F), (0x007F, 0x009F), (0xD800, 0xDFFF), (0x0590, 0x06FF), (0x202A, 0x202E),
        (0x2066, 0x2069), (0x200B, 0x200F), (0x1F300, 0x1FAFF), (0x1F3FB, 0x1F3FF), (0x0300, 0x036F),
        (0xFF01, 0xFF5E), (0x0660, 0x0669), (0x0966, 0x096F), (0xFFF0, 0xFFFF), (0xE000, 0xF8FF),
        (0x4E00, 0x9FFF), (0x0020, 0x007E), (0x0020, 0x007E), (0x10000, 0x10FFFF), (0xFDD0, 0xFDEF),
        (0x2150, 0x218F), (0x00B2, 0x00B9), (0x3000, 0x303F),
    ]
    out = []
    for _ in range(n):
        lo, hi = rng.choice(ranges)
        out.append(chr(rng.randint(lo, hi)))
        if rng.random() < 0.03:
            out.append("\u200d")  # zero-width joiner, as in emoji sequences
    return "".join(out)


def gen_unicode(rng: random.Random) -> tuple[str, str | None]:
    noise = _random_codepoints(rng, rng.choice([1, 3, 10, 50, 200, 1000, 2000]))
    roll = rng.random()
    if roll < 0.4:
        return noise, None
    frags = rng.sample(EN_FRAGMENTS + ZH_FRAGMENTS, rng.randint(1, 4))
    if roll < 0.7:
        return noise[: len(noise) // 2] + " ".join(frags) + noise[len(noise) // 2:], None
    # noise inside the fragments' words
    text = " ".join(frags)
    pos = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 6))))
    parts, last = [], 0
    for p in pos:
        parts += [text[last:p], _random_codepoints(rng, rng.randint(1, 3))]
        last = p
    parts.append(text[last:])
    return "".join(parts), None


def gen_numbers(rng: random.Random) -> tuple[str, str | None]:
    pieces = []
    for _ in range(rng.randint(1, 4)):
        num = rng.choice(HOSTILE_NUMBERS) if rng.random() < 0.8 else str(rng.randint(-10**6, 10**6))
        pieces.append(f"{num}{rng.choice(['', ' '])}{rng.choice(UNITS)}")
    frags = rng.sample(EN_FRAGMENTS + ZH_FRAGMENTS, rng.randint(0, 3))
    words = pieces + frags
    rng.shuffle(words)
    return rng.choice([" ", ", ", "，", " and ", "\n"]).join(words), None


#: (template, how to draw the bad value): the value in [[ ]] is what the answer must name.
BAD_QUANTITY_TEMPLATES = [
    ("serve llama 3 8b on an h100 to [[{n} users]]", "nonpositive"),
    ("[[{n} gpus]] h100 for llama 3 70b", "nonpositive"),
    ("llama 3 70b on [[{n}x h100]]", "nonpositive"),
    ("quote [[{n} a100s]] for 3 days", "nonpositive"),
    ("[[{n}B model]] on h100", "tiny_size"),
    ("serve a [[{n}b model]] on 8x h100", "huge_size"),
    ("[[{n}B model]] on h100", "huge_size"),
    ("our own [[{n}B]], 40 layers, GQA 8 on a100", "huge_size"),
    ("our own 3B, [[{n} layers]] on a 4090", "nonpositive"),
    ("a 13B model, 40 layers, [[GQA {n}]] on l40s", "nonpositive"),
    ("train a 7b model on 300B tokens with [[{n} h100s]]", "nonpositive"),
    ("llama 3 8b on a100 with [[{n} nodes]]", "nonpositive"),
    ("serve llama 3 8b to 10 users, [[batch {n}]], on a100", "nonpositive"),
    ("lora llama 3 8b, [[rank {n}]], on 1x a100", "nonpositive"),
    ("[[{n}张]]H100跑llama 70b", "nonpositive"),
    ("部署 llama 3 8b 给 [[{n}个用户]]", "nonpositive"),
    ("8x h100 for [[{n} days]]", "nonpositive"),
    ("what can I run for [[${n}/hr]]", "nonpositive"),
]


def _bad_value(rng: random.Random, kind: str) -> str:
    if kind == "nonpositive":
        return rng.choice(["0", "-1", "-5", "-100", "-0", "0.0", "00", "−3"])
    if kind == "tiny_size":
        return rng.choice(["0.001", "0.0001", "0.005", "0", "0.000000001"])
    return rng.choice(["9999", "5001", "12000", "100000", "99999999", "1" + "0" * 30])


def gen_bad_quantity(rng: random.Random) -> tuple[str, str | None]:
    template, kind = rng.choice(BAD_QUANTITY_TEMPLATES)
    value = _bad_value(rng, kind)
    return template.replace("[[", "").replace("]]", "").format(n=value), value


def gen_long(rng: random.Random) -> tuple[str, str | None]:
    n = rng.choice([1000, 4000, 4001, 10000, 40000])
    unit = rng.choice(["9", "1,", "1.", "1e", "0", "-", "8x h100 ", "a100 ", "9b ", "$", "一", "张", "((", "{",
                       "llama ", "7b/", "x", "1 ", "\u0301", "\ud800", "🎉", "$1/hr ", "0 gpus "])
    text = (unit * (n // len(unit) + 1))[:n]
    if rng.random() < 0.3:
        text = rng.choice(EN_FRAGMENTS) + " " + text
    return text, None


def gen_megabyte(rng: random.Random) -> tuple[str, str | None]:
    unit = rng.choice(["9", "serve llama 3 70b on 8x h100 ", "{\"a\": ", "x", "一", "$1 ", "1.", "0 gpus "])
    n = 1_000_000
    return (unit * (n // len(unit) + 1))[:n], None


_REAL_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
_CONFIG_VALUES = [
    "0", "-1", "-4096", "1" + "0" * 4400, "9" * 30, "1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1e308",
    "1e-300", "4096.5", '"4096"', '"abc"', "null", "true", "[]", "{}", "[4096]", '"\\ud800"', '"\\u0000"',
    str(10**300), "0.0", "1" + "0" * 19, "2147483648", "65536",
]


def gen_config(rng: random.Random) -> tuple[str, str | None]:
    roll = rng.random()
    lead = rng.choice(["", "can this run on an h100? ", "how many a100s for this model: ", "部署这个模型要几张卡 "])
    if roll < 0.25:  # deep nesting
        depth = rng.choice([10, 33, 100, 999, 1000, 3000, 5000])
        opener, closer = rng.choice([('{"a":', "}"), ("[", "]"), ('{"text_config":', "}")])
        inner = json.dumps(_REAL_CONFIG)
        body = opener * depth + inner + (closer * depth if rng.random() < 0.7 else "")
        if rng.random() < 0.5:
            body = '{"num_hidden_layers": 32, "hidden_size": 4096, "x": ' + body + "}"
        return lead + body, None
    config = dict(_REAL_CONFIG)
    text = json.dumps(config)
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(list(config) + ["num_local_experts", "num_experts_per_tok", "head_dim", "text_config"])
        value = rng.choice(_CONFIG_VALUES)
        text = re.sub(rf'"{key}": [^,}}]+', lambda _m, k=key, v=value: f'"{k}": {v}', text) if f'"{key}"' in text else (
            text[:-1] + f', "{key}": {value}}}')
    roll = rng.random()
    if roll < 0.1:
        text = text[: rng.randint(1, len(text) - 1)]  # truncated
    elif roll < 0.2:
        text = "\ufeff" + text
    elif roll < 0.3:
        text = "```\n" + text + "\n```"
    elif roll < 0.35:
        text = text + " and " + text
    elif roll < 0.4:
        text = text.replace('"llama"', '"ll\\ud800ama"')
    elif roll < 0.45:
        pad = ", ".join(f'"k{i}": {i}' for i in range(rng.choice([1000, 50000])))
        text = text[:-1] + ", " + pad + "}"
    return lead + text, None


def gen_oom(rng: random.Random) -> tuple[str, str | None]:
    v = lambda: rng.choice(HOSTILE_NUMBERS + ["2.00", "14.58", "79.15", "512"])  # noqa: E731
    unit = lambda: rng.choice(["GiB", "MiB", "KiB", "B", "TiB", "gib"])  # noqa: E731
    templates = [
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {v()} {unit()}. GPU 0 has a total capacity "
        f"of {v()} GiB of which {v()} {unit()} is free.",
        f"RuntimeError: CUDA out of memory. Tried to allocate {v()} {unit()} (GPU 0; {v()} GiB total capacity; "
        f"{v()} GiB already allocated; {v()} {unit()} free; {v()} GiB reserved in total by PyTorch)",
        f"ValueError: Bfloat16 is only supported on GPUs with compute capability of at least {v()}. Your GPU has "
        f"compute capability {v()}.",
        f"The quantization method fp8 is not supported for the current GPU. Minimum capability: {v()}. "
        f"Current capability: {v()}.",
        f"not enough memory to handle {v()} total tokens",
        f"Tried to allocate {v()}{unit()}",
        f"{v()} GiB total capacity",
    ]
    text = rng.choice(templates)
    if rng.random() < 0.3:
        text = rng.choice(EN_FRAGMENTS + ZH_FRAGMENTS) + "\n" + text
    return text, None


def gen_mixed(rng: random.Random) -> tuple[str, str | None]:
    frags = rng.sample(EN_FRAGMENTS + ZH_FRAGMENTS, rng.randint(1, 6))
    noise = [rng.choice(HOSTILE_NUMBERS), rng.choice(GPU_WORDS), _random_codepoints(rng, rng.randint(0, 4)),
             rng.choice(["?", "!!", "...", "<!channel>", "<@U123>", "`", "```", "*", "&amp;", "|", "\\", "\t"])]
    words = frags + rng.sample(noise, rng.randint(0, len(noise)))
    rng.shuffle(words)
    return " ".join(words), None


GENERATORS = {
    "unicode": (gen_unicode, 0.20),
    "numbers": (gen_numbers, 0.20),
    "bad_quantity": (gen_bad_quantity, 0.15),
    "long": (gen_long, 0.05),
    "megabyte": (gen_megabyte, 0.003),
    "config": (gen_config, 0.15),
    "oom": (gen_oom, 0.10),
    "mixed": (gen_mixed, 0.147),
}


def generate(n: int, seed: int, only: list[str] | None = None) -> list[tuple[str, str, str | None]]:
    """``n`` inputs as (class, text, fragment the answer must name or ``None``), in a seeded order."""
    rng = random.Random(seed)
    names = [c for c in GENERATORS if not only or c in only]
    weights = [GENERATORS[c][1] for c in names]
    out = []
    for _ in range(n):
        cls = rng.choices(names, weights)[0]
        text, fragment = GENERATORS[cls][0](rng)
        out.append((cls, text, fragment))
    return out


# ------------------------------------------------------------------------------------------ checks (worker side)
_COUNT_KEYS = {"gpu_count", "count", "instances", "gpus_rented", "tensor_parallel", "pipeline_parallel", "replicas",
               "concurrent_users", "node_count", "batch_size", "lora_rank", "image_steps", "images", "documents",
               "layers", "hidden_size", "kv_heads", "users"}
_MONEY_KEY = re.compile(r"(?:_usd$|^amount$|^amounts$|price|cost|budget)")
_NEG_MONEY_TEXT = re.compile(r"(?:-\s?[$¥€]\s?\d|[$¥€]\s?-\s?\d|-\s?\d[\d,.]*\s?(?:元|块|USD|usd)\b)")


def _walk(value, path: str = ""):
    """(path, key, value) for every number in a JSON-like structure (iterative)."""
    stack = [(path, "", value)]
    while stack:
        p, key, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((f"{p}.{k}", k, v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{p}[]", key, v) for v in item)
        elif isinstance(item, int | float) and not isinstance(item, bool):
            yield p, key, item


def _apology_codes() -> set[str]:
    import yaml

    catalog = yaml.safe_load((ROOT / "bot" / "render" / "messages" / "en.yaml").read_text(encoding="utf-8"))
    codes = set()
    stack = [catalog]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(v, str) and re.search(r"\bsorry\b|went wrong|could not be read", v, re.I):
                    codes.add(k)
                else:
                    stack.append(v)
    return codes


def _notes_of(answer) -> list:
    out = [answer.title, answer.headline, *answer.details, *answer.warnings, *answer.missing, *answer.assumptions,
           *answer.query.notes]
    for o in answer.options:
        out += o.notes
        if o.rejection is not None:
            out.append(o.rejection)
    return out


def _normalise(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def check_one(text: str, fragment: str | None, state: dict) -> dict:
    """Run one input through the core and every renderer; return the findings."""
    from bot.advice.conversation import respond_to
    from bot.render.blockkit import render_message
    from bot.render.jsonout import render_json
    from bot.render.terminal import render_text

    kb = state["kb"]
    found: dict = {"elapsed_s": 0.0, "issues": {}}
    issues = found["issues"]
    started = time.perf_counter()
    try:
        answer = respond_to(text, kb=kb).answer
    except Exception as exc:  # noqa: BLE001 - what the fuzzer counts
        found["elapsed_s"] = time.perf_counter() - started
        issues["exception"] = f"respond_to:{type(exc).__name__}"
        return found
    outputs: dict[str, str] = {}
    for name, func in (("terminal", render_text), ("blockkit", render_message), ("json", render_json)):
        try:
            out = func(answer)
        except Exception as exc:  # noqa: BLE001
            issues.setdefault("exception", f"{name}:{type(exc).__name__}")
            continue
        if name == "blockkit":
            try:
                out = json.dumps(out, ensure_ascii=False, allow_nan=False)
            except ValueError:
                issues.setdefault("nan_json", "blockkit:allow_nan")
                out = json.dumps(out, ensure_ascii=False)
        outputs[name] = out
    found["elapsed_s"] = time.perf_counter() - started
    for name, out in outputs.items():
        try:
            out.encode("utf-8")
        except UnicodeEncodeError:
            issues.setdefault("not_utf8", name)
    if "json" in outputs:
        def _refuse(constant):
            raise ValueError(constant)
        try:
            json.loads(outputs["json"], parse_constant=_refuse)
        except ValueError as exc:
            issues.setdefault("nan_json", f"json:{exc}"[:60])
    dump = answer.model_dump(mode="python")
    for path, key, value in _walk(dump):
        if isinstance(value, float) and not math.isfinite(value):
            issues.setdefault("nan_json", f"answer:{path}")
            continue
        if key in _COUNT_KEYS and value <= 0 and not path.endswith("max_users") and not (
                key == "users" and value == 0):
            issues.setdefault("bad_count", f"{path}={value}")
        elif value < 0 and (_MONEY_KEY.search(key) or ".params." not in path):
            issues.setdefault("negative", f"{path}={value}")
    from bot.render.compose import compose

    try:
        c = compose(answer)
        said = " ".join([c.headline, *c.details, *c.warnings, *c.missing])
    except Exception:  # noqa: BLE001 - counted above through the renderers
        said = ""
    body = said.replace(text, "") if len(text) < 200 else said
    for item in answer.query.not_understood:  # the user's own words, echoed as not understood
        body = body.replace(item, "")
    if _NEG_MONEY_TEXT.search(body) and not _NEG_MONEY_TEXT.search(text):
        issues.setdefault("negative", "text:" + _NEG_MONEY_TEXT.search(body).group(0))
    codes = {n.code for n in _notes_of(answer)}
    apologies = codes & state["apology_codes"]
    if apologies:
        issues["apology"] = ",".join(sorted(apologies))
    if fragment is not None:
        value = fragment.replace("−", "-")
        end = "" if len(value) > 15 else r"(?!\d|\.\d)"  # a long number may be shown cut
        token = re.compile(rf"(?<![\d.,]){re.escape(value[:15])}{end}")
        if not token.search(said.replace("−", "-")):
            issues["silent"] = fragment
    return found


class _Swallowed(logging.Handler):
    """Records exceptions the core caught and logged (a crash the user saw as an apology or nothing)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.types: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[0] is not None:
            self.types.append(f"logged:{record.name}:{record.exc_info[0].__name__}")


def _worker(conn) -> None:
    from bot.kb.loader import get_knowledge

    swallowed = _Swallowed()
    root = logging.getLogger()
    root.handlers[:] = [swallowed]
    root.setLevel(logging.ERROR)
    state = {"kb": get_knowledge(), "apology_codes": _apology_codes()}
    while True:
        item = conn.recv()
        if item is None:
            return
        text, fragment = item
        swallowed.types.clear()
        found = check_one(text, fragment, state)
        if swallowed.types:
            found["issues"].setdefault("exception", swallowed.types[0])
        conn.send(found)


class _Runner:
    """A worker process fed one input at a time; killed and restarted after a timeout."""

    def __init__(self) -> None:
        self.ctx = mp.get_context("fork" if sys.platform != "win32" else "spawn")
        self._start()

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()

    def run(self, text: str, fragment: str | None, timeout: float) -> dict | None:
        self.conn.send((text, fragment))
        if self.conn.poll(timeout):
            return self.conn.recv()
        self.proc.kill()
        self.proc.join()
        self._start()
        return None

    def close(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


SCALING_UNITS = ["9", "1,", "1.", "一", "张", "9b ", "7b/", "8x h100 ", "$1/hr ", "0 gpus ", "((", "{", "x", "🎉",
                 "llama "]


def scaling() -> None:
    """Print the time of respond_to + the three renderers on 1k/2k/4k characters of each unit, and the ratio."""
    from bot.advice.conversation import respond_to
    from bot.kb.loader import get_knowledge
    from bot.render.blockkit import render_message
    from bot.render.jsonout import render_json
    from bot.render.terminal import render_text

    kb = get_knowledge()
    respond_to("warm up: llama 3 8b on h100", kb=kb)
    print("| unit | 1,000 chars | 2,000 | 4,000 | 4k / 2k |")
    print("|---|---:|---:|---:|---:|")
    worst = 0.0
    for unit in SCALING_UNITS:
        row = []
        for n in (1000, 2000, 4000):
            text = (unit * (n // len(unit) + 1))[:n]
            best = math.inf
            for _ in range(3):
                started = time.perf_counter()
                answer = respond_to(text, kb=kb).answer
                render_text(answer), render_message(answer), render_json(answer)
                best = min(best, time.perf_counter() - started)
            row.append(best)
        worst = max(worst, row[2] / row[1])
        print(f"| `{unit.strip() or repr(unit)}` | {row[0] * 1e3:.0f} ms | {row[1] * 1e3:.0f} ms | "
              f"{row[2] * 1e3:.0f} ms | {row[2] / row[1]:.2f} |")
    print(f"worst 4k/2k ratio: {worst:.2f}")


def main(argv: list[str]) -> int:
    if "--scaling" in argv:
        scaling()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=30000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--seconds", type=float, default=3600.0, help="stop generating after this many seconds")
    parser.add_argument("--timeout", type=float, default=10.0, help="per-input limit before it counts as a hang")
    parser.add_argument("--budget", type=float, default=BUDGET_S)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--examples", action="store_true", help="print the smallest input of each finding")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv[1:])

    from bot.parsing.parser import MAX_MESSAGE_CHARS

    inputs = generate(args.n, args.seed, args.only)
    runner = _Runner()
    counts: dict[str, Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    kinds: dict[str, Counter] = defaultdict(Counter)
    smallest: dict[tuple[str, str], str] = {}
    times: dict[str, list[float]] = defaultdict(list)
    started = time.monotonic()
    done = 0
    try:
        for cls, text, fragment in inputs:
            if time.monotonic() - started > args.seconds:
                break
            result = runner.run(text, fragment, args.timeout)
            done += 1
            totals[cls] += 1
            if result is None:
                issues = {"hang": f"> {args.timeout:g} s"}
                elapsed = args.timeout
            else:
                issues = dict(result["issues"])
                elapsed = result["elapsed_s"]
                if elapsed > args.budget:
                    issues["slow" if len(text) <= MAX_MESSAGE_CHARS else "slow_long"] = f"{elapsed:.2f} s"
            times[cls].append(elapsed)
            for check, detail in issues.items():
                counts[cls][check] += 1
                kinds[check][detail.split("=")[0] if check in ("bad_count", "negative") else detail] += 1
                key = (cls, check)
                if key not in smallest or len(text) < len(smallest[key]):
                    smallest[key] = text
    finally:
        runner.close()
    wall = time.monotonic() - started

    print(f"fuzz_core: {done} inputs (seed {args.seed}) in {wall:.0f} s; budget {args.budget:g} s per answer, "
          f"hang at {args.timeout:g} s")
    header = "| class | inputs | " + " | ".join(CHECKS) + " | p50 ms | p99 ms | max ms |"
    print(header)
    print("|" + "---|" * (len(CHECKS) + 5))
    for cls in GENERATORS:
        if not totals[cls]:
            continue
        t = sorted(times[cls])
        p99 = t[min(len(t) - 1, int(0.99 * len(t)))]
        print(f"| {cls} | {totals[cls]} | " + " | ".join(str(counts[cls][c]) for c in CHECKS)
              + f" | {statistics.median(t) * 1e3:.0f} | {p99 * 1e3:.0f} | {t[-1] * 1e3:.0f} |")
    print(f"| **all** | {done} | " + " | ".join(str(sum(counts[c][k] for c in counts)) for k in CHECKS) + " | | | |")
    print()
    for check in CHECKS:
        if kinds[check]:
            top = ", ".join(f"{k} ({n})" for k, n in kinds[check].most_common(8))
            print(f"- {check}: {top}")
    if args.examples:
        print()
        for (cls, check), text in sorted(smallest.items()):
            print(f"{cls}/{check}: {text[:160]!r}{' ...' if len(text) > 160 else ''} ({len(text)} chars)")
    if args.json:
        args.json.write_text(json.dumps({
            "seed": args.seed, "inputs": done, "wall_s": round(wall, 1),
            "counts": {c: dict(counts[c]) for c in counts}, "totals": dict(totals),
            "kinds": {k: dict(v) for k, v in kinds.items()},
            "p50_ms": {c: round(statistics.median(times[c]) * 1e3, 1) for c in times},
            "max_ms": {c: round(max(times[c]) * 1e3, 1) for c in times},
        }, indent=1, ensure_ascii=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
