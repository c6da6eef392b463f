"""Popular models added to knowledge/models.yaml on 2026-12-01 (ChatGLM3, GLM-4, GLM-4.5, Kimi K2, InternLM2.5,
Baichuan2): the names users type resolve to them, and the answers size them from their parameter counts.

Weights are worked out by hand as parameters x bytes per parameter (fp8 = 1 byte, fp16/bf16 = 2), with the
parameter counts of knowledge/models.yaml (each summed from the config shapes; see tests/test_importers.py).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)

KIMI_K2_PARAMS = 1_026_408_209_408    # models.yaml kimi-k2: config formula, 61 layers, 384 experts, MLA
CHATGLM3_6B_PARAMS = 6_243_584_000    # models.yaml chatglm3-6b: 28 layers of 203,960,832 + embeddings
GLM_45_AIR_PARAMS = 106_852_251_264   # models.yaml glm-4.5-air: 46 layers (1 dense, 45 MoE) + embeddings


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def test_kimi_k2_on_h200s_needs_eight(kb):
    # Kimi K2 ships FP8 (1 byte/parameter): 1,026,408,209,408 x 1 = 1,026.4 GB of weights.
    # gpus.yaml H200 SXM: 141 GiB = 149.9 GB usable; 4 GPUs give 1,026.4 / 4 = 256.6 GB each (too much),
    # 64 attention heads allow tensor parallelism of 1, 2, 4, 8: 8 GPUs give 128.3 GB each, which fits.
    a = ask(kb, "serve kimi k2 on h200s, how many?")
    assert [m.id for m in a.query.models] == ["kimi-k2"]
    o = a.options[a.recommendation]
    assert (o.model, o.gpu, o.precision) == ("kimi-k2", "h200-sxm-141gb", "fp8")
    assert o.weights_gb == pytest.approx(KIMI_K2_PARAMS * 1 / 1e9, rel=1e-9)
    assert KIMI_K2_PARAMS / 4 / 1e9 > 149.9 > KIMI_K2_PARAMS / 8 / 1e9
    assert o.gpu_count == 8 and o.fits


def test_chatglm3_6b_fits_one_4090(kb):
    # ChatGLM3-6B: 6,243,584,000 parameters; at fp16 (its torch_dtype) 12.49 GB, at fp8 6.24 GB: both under the
    # RTX 4090's 24 GiB (25.5 GB usable), so the answer is yes on one card.
    a = ask(kb, "chatglm3-6b 在 4090 上能跑吗")
    assert [m.id for m in a.query.models] == ["chatglm3-6b"]
    o = a.options[a.recommendation]
    assert (o.model, o.gpu, o.gpu_count) == ("chatglm3-6b", "rtx-4090-24gb", 1) and o.fits
    bytes_per_param = {"fp8": 1, "fp16": 2, "bf16": 2}[o.precision]
    assert o.weights_gb == pytest.approx(CHATGLM3_6B_PARAMS * bytes_per_param / 1e9, rel=1e-9)
    assert CHATGLM3_6B_PARAMS * 2 / 1e9 == pytest.approx(12.487168)


def test_glm_45_air_fp8_on_two_h100s(kb):
    # GLM-4.5-Air at fp8: 106,852,251,264 x 1 byte = 106.85 GB, 53.4 GB per H100 over two (85.0 GB usable each);
    # the README (zh) lists FP8 on 2x H100 as a minimum configuration too.
    a = ask(kb, "glm-4.5-air fp8 on 2x h100")
    assert [m.id for m in a.query.models] == ["glm-4.5-air"]
    o = a.options[a.recommendation]
    assert (o.model, o.gpu_count, o.precision) == ("glm-4.5-air", 2, "fp8") and o.gpu.startswith("h100")
    assert o.weights_gb == pytest.approx(GLM_45_AIR_PARAMS * 1 / 1e9, rel=1e-9)
    assert o.fits


@pytest.mark.parametrize(("text", "model_id"), [
    ("serve chatglm3 on a 4090", "chatglm3-6b"),
    ("serve THUDM/chatglm3-6b on a 4090", "chatglm3-6b"),
    ("serve glm4 on a 4090", "glm-4-9b"),
    ("serve glm-4-9b-chat on an l40s", "glm-4-9b"),
    ("serve glm4.5 on h200", "glm-4.5"),
    ("serve GLM-4.5 on h200", "glm-4.5"),
    ("serve glm-4.5-air on h100", "glm-4.5-air"),
    ("serve glm 4.5 air on h100", "glm-4.5-air"),
    ("serve kimi k2 on h200", "kimi-k2"),
    ("serve kimi-k2 on h200", "kimi-k2"),
    ("serve moonshotai/Kimi-K2-Instruct on h200", "kimi-k2"),
    ("serve internlm2.5 7b on a 4090", "internlm2.5-7b"),
    ("serve internlm/internlm2_5-20b-chat on an a100", "internlm2.5-20b"),
    ("serve baichuan2 13b on a 4090", "baichuan2-13b"),
    ("serve baichuan-inc/Baichuan2-7B-Chat on a t4", "baichuan2-7b"),
    # family names in Chinese (models.yaml families)
    ("百川2 13b 在 4090 上能跑吗", "baichuan2-13b"),
    ("书生2.5 7b 在 4090 上能跑吗", "internlm2.5-7b"),
    ("月之暗面 kimi k2 要几张 h200", "kimi-k2"),
    ("智谱 glm-4.5-air 要几张 h100", "glm-4.5-air"),
])
def test_names_users_type(kb, text, model_id):
    assert [m.id for m in parse_question(text, kb).models] == [model_id]


def test_fp8_repo_names_keep_their_precision(kb):
    # zai-org/GLM-4.5-Air-FP8 is the same model in FP8: the name resolves to glm-4.5-air with fp8 asked
    q = parse_question("zai-org/GLM-4.5-Air-FP8 on 2x h100", kb)
    assert [(m.id, m.precision) for m in q.models] == [("glm-4.5-air", "fp8")]
