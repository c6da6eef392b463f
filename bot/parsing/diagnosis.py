"""Read pasted error messages: CUDA out-of-memory, compute-capability gates, TGI memory errors."""

from __future__ import annotations

import re

from bot.kb.loader import KnowledgeBase
from bot.parsing.query import Diagnosis

__all__ = ["find_diagnosis", "gpus_for_capacity", "is_error_paste"]

_OOM = re.compile(
    r"out of memory|outofmemoryerror|\boom(?:s|ed|ing|-?killed)?\b|显存不足|爆显存|显存溢出"
    r"|\b(?:runs?|running|ran) out of (?:vram|memory|gpu memory)"
)
_TRIED = re.compile(r"tried to allocate\s*(\d{1,9}(?:\.\d{1,6})?)\s*(kib|mib|gib|tib|b)\b")
_TOTAL = re.compile(r"(?<![\d.])(\d{1,6}(?:\.\d{1,6})?)\s*gib total capacity|total capacity of\s*(\d{1,6}(?:\.\d{1,6})?)\s*gib")
_TGI = re.compile(r"not enough memory to handle\s*(\d+)\s*(?:total )?tokens")
_FEATURE = re.compile(
    r"\b(fp8|float8|bf16|bfloat16|flash[\s_-]?attention(?:[\s_-]?2)?|flash[\s_-]?attn(?:[\s_-]?2)?|fa2|fp4|int8"
    r"|marlin|awq|gptq|tf32)\b"
)
# A compute capability: at most three digits ("9.0", "89", "sm_100"); a longer number is no capability.
_CC_NUMBER = r"(\d{1,3}(?:\.\d{1,2})?)(?![\d])"
_CC = re.compile(
    r"compute capability\s*(?:of\s*)?(?:at least|>=|≥|greater than or equal to|>|of at least|above)\s*(?:sm_?)?"
    rf"{_CC_NUMBER}|compute capability\s*(?:of\s*)?{_CC_NUMBER}\s*(?:or higher|or above|and above|or newer|\+)"
)
# vLLM: "The quantization method fp8 is not supported for the current GPU. Minimum capability: 89.
# Current capability: 80." (capabilities written without the dot)
_MIN_CAP = re.compile(rf"minimum (?:compute )?capability:?\s*{_CC_NUMBER}")
_ARCH_GATE = re.compile(
    r"(?:only supports?|requires?|needs?)\s*(?:an?\s*)?(ampere|ada|hopper|blackwell)\s*(?:gpus?|architecture)?"
    r"\s*(?:or newer|and newer|or later|or above)?"
)
_ARCH_CC = {"ampere": 8.0, "ada": 8.9, "hopper": 9.0, "blackwell": 10.0}
_NOT_SUPPORTED = re.compile(r"(?:is |are )?not supported (?:on|for) (?:this|your|the current) (?:gpu|device)|unsupported (?:gpu|device|architecture)")
_QUALITY = re.compile(
    r"\bgarbage\b|\bgibberish\b|\bnonsense\b|never stops?|\bendless(?:ly)? (?:output|generat)|repeats? (?:itself|forever)"
    r"|乱码|胡言乱语|\bnccl (?:error|timeout)\b|illegal memory access|\bsegfault|core dumped|\bhangs?\b|\bhung\b"
)
_PASTE_MARKERS = re.compile(
    r"traceback \(most recent call last\)|\w+error:|torch\.cuda\.|cuda error|runtimeerror|valueerror"
)
# vLLM's KV-capacity refusal, old and new wording: "The model's max seq len (32768) is larger than the maximum number
# of tokens that can be stored in KV cache (20000)"; "To serve at least one request with the models's max seq len
# (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.50 GiB). Based on
# the available memory, the estimated maximum model length is 77824."
_KV_OLD = re.compile(r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in kv cache"
                     r" \((\d+)\)")
_KV_NEW = re.compile(r"max seq len \((\d+)\),?\s*\(?([\d.]+) gib kv cache is needed, which is larger than the available"
                     r" kv cache memory \(([\d.]+) gib\)")
_KV_EST = re.compile(r"estimated maximum model length is (\d+)")
_UNITS_GIB = {"b": 1 / 2**30, "kib": 1 / 2**20, "mib": 1 / 1024, "gib": 1.0, "tib": 1024.0}


def _feature_name(raw: str) -> str:
    raw = raw.replace(" ", "_").replace("-", "_")
    if raw.startswith(("flash", "fa2")):
        return "flash_attention"
    return {"bfloat16": "bf16", "float8": "fp8"}.get(raw, raw)


def find_diagnosis(low: str) -> Diagnosis | None:
    """What a pasted error says, or ``None`` when the message quotes no error.

    Precedence: vLLM's KV-capacity refusal (the longest sequence does not fit the KV cache), a compute-capability
    gate, then out-of-memory (PyTorch's or TGI's), then
    symptoms that are not sizing problems (garbage output, hangs, NCCL errors).
    """
    kv = _KV_OLD.search(low) or _KV_NEW.search(low)
    if kv:
        if kv.re is _KV_OLD:
            return Diagnosis(kind="kv_capacity", max_seq_len_tokens=int(kv.group(1)), kv_capacity_tokens=int(kv.group(2)))
        est = _KV_EST.search(low)
        return Diagnosis(kind="kv_capacity", max_seq_len_tokens=int(kv.group(1)),
                         kv_capacity_tokens=int(est.group(1)) if est else None,
                         kv_needed_gib=float(kv.group(2)), kv_available_gib=float(kv.group(3)))
    cc = _CC.search(low) or _MIN_CAP.search(low)
    arch = _ARCH_GATE.search(low)
    feature = _FEATURE.search(low)
    if cc or arch or (feature and _NOT_SUPPORTED.search(low)):
        cc_text = (cc.group(1) or (cc.group(2) if cc.re.groups > 1 else None)) if cc else None
        required = float(cc_text) if cc_text else (_ARCH_CC[arch.group(1)] if arch else None)
        if required is not None and required >= 10 and cc_text and "." not in cc_text:
            required = required / 10  # "sm_90" / "compute capability 90"
        return Diagnosis(kind="feature_gate", feature=_feature_name(feature.group(1)) if feature else None,
                         required_compute_capability=required)
    tried = _TRIED.search(low)
    total = _TOTAL.search(low)
    if _OOM.search(low) or tried or total or _TGI.search(low):
        return Diagnosis(
            kind="oom",
            total_capacity_gib=float(total.group(1) or total.group(2)) if total else None,
            tried_to_allocate_gib=round(float(tried.group(1)) * _UNITS_GIB[tried.group(2)], 6) if tried else None,
        )
    if _QUALITY.search(low):
        return Diagnosis(kind="other")
    return None


def is_error_paste(low: str) -> bool:
    """Whether the message contains a pasted error (a traceback, ``XxxError:``, PyTorch's OOM figures)."""
    return bool(_PASTE_MARKERS.search(low) or _TRIED.search(low) or _TOTAL.search(low))


def gpus_for_capacity(kb: KnowledgeBase, total_gib: float) -> list[str]:
    """GPU ids whose memory matches a PyTorch "GiB total capacity" figure, best first.

    Vendors sell binary sizes as "GB" (a 16 GB card has 16 GiB), and PyTorch reports what
    is left after the driver and, on datacenter GDDR cards with ECC on by default (T4, A10G,
    L4), the ECC reserve: about 91.5% of ``memory_gb`` there (T4: 14.58 GiB) and about 98.7%
    elsewhere (V100 16GB: 15.78 GiB, A100 80GB: 79.15 GiB, RTX 4090: 23.65 GiB). The GPUs of
    the memory size whose prediction is nearest are returned, nearest prediction first, then
    the most rented; none when nothing is within 4%.
    """
    def predicted(gpu) -> float:
        ecc_on = (gpu.memory_type or "").startswith("GDDR") and gpu.segment == "datacenter"
        return gpu.memory_gb * (0.915 if ecc_on else 0.987)

    gpus = list(kb.gpus.values())
    if not gpus:
        return []
    best = min(gpus, key=lambda g: abs(predicted(g) - total_gib))
    if abs(predicted(best) - total_gib) > max(1.0, 0.04 * total_gib):
        return []
    same_size = [g for g in gpus if g.memory_gb == best.memory_gb]
    # on a tie the consumer card first: a PyTorch traceback pasted into a chat comes from a desk far more often
    # than from a workstation card of the same memory (a 23.65 GiB 4090/3090 before a Quadro RTX 6000)
    same_size.sort(key=lambda g: (round(abs(predicted(g) - total_gib), 1), g.segment != "consumer",
                                  -len(kb.offers_for(g.id))))
    return [g.id for g in same_size]


#: The memory details of an allocator message ("(GPU 0; 23.65 GiB total capacity; 21.80 GiB already allocated)"):
#: the framework's words, not the user's ("capacity" there asks nothing).
_ERROR_DETAIL = re.compile(r"\([^()]*\b(?:gib|mib)\b[^()]*\)"
                           r"|gpu\s*\d+\s*has a total capacity of[^。，,;\n]*?(?:is free|free|$)")  # PyTorch 2.x


def error_detail_spans(low: str) -> list[tuple[int, int]]:
    """Spans of ``low`` (lower-cased message) that quote an error's memory details, which no ask is read from."""
    return [m.span() for m in _ERROR_DETAIL.finditer(low)]
