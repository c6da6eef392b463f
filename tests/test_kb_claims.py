"""knowledge/claims.yaml: every claim validates, its ratios come from gpus.yaml at run time, its texts fill in
both languages, and its cues recognise paraphrases (written for this test, not copied from any trial) without
catching ordinary questions. A broken claims file is reported as ``file:line: field: message``.

Hand-computed figures cite their source: NVIDIA H100 whitepaper / datasheet (H100 SXM 989 dense BF16, 1,979 FP8,
3,350 GB/s, 900 GB/s NVLink, 80B transistors, 700 W; H100 PCIe 756 BF16, 2,000 GB/s, 350 W, 600 GB/s bridge) and
A100 datasheet (312 dense BF16, 2,039 GB/s, 600 GB/s NVLink, 54.2B transistors), as copied into gpus.yaml.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from bot.errors import KnowledgeError
from bot.kb.claims import claim_text, compile_term, match_claims, normalize_question, ratio_values
from bot.kb.loader import load_knowledge
from bot.kb.schema import PLACEHOLDER
from tests.conftest import TINY_GPUS, write_tiny_kb

CJK = re.compile(r"[\u4e00-\u9fff]")

# Paraphrases written for this test (not the trial's wording): each must match its claim and no other.
PARAPHRASES = {
    "C01": {
        "en": ["Is it true an H100 serves LLMs 30 times quicker than the A100?",
               "My boss says the H100 is 9x faster at training than A100, should I believe him?"],
        "zh": ["听说 H100 做推理能比 A100 快三十倍，这靠谱吗", "H100 训练速度是 A100 的 9 倍？"],
    },
    "C02": {
        "en": ["does H100 really pack six times the transistors of an A100?"],
        "zh": ["H100 的晶体管真的是 A100 的六倍吗", "800 亿个晶体管，是上一代的 6 倍？"],
    },
    "C03": {
        "en": ["the pcie H100 gives 65% of sxm5 speed, is that right?"],
        "zh": ["PCIe 版 H100 只用一半的功耗就有 SXM5 65% 的性能？"],
    },
    "C04": {
        "en": ["an H100 NVL with 188GB - is that one GPU?"],
        "zh": ["H100 NVL 188G 显存能装下 deepseek 吗"],
    },
    "C05": {
        "en": ["is NVLink on the H100 900GB/s in each direction?"],
        "zh": ["H800 的卡间带宽也是 900GB/s 吗", "NVLink 900 GB/s 是单向还是双向"],
    },
    "C06": {
        "en": ["an 8-GPU H100 box has 3.2 TBps of NVLink, right?"],
        "zh": ["八卡 H100 机器内部互联是 3.2T 吗"],
    },
    "C07": {
        "en": ["is H100 chip to chip six times the A100?"],
        "zh": ["H100 卡和卡之间的通信比 A100 快了六倍？"],
    },
    "C08": {
        "en": ["with fp8 is the H100 tensor core four times the A100 at fp16?"],
        "zh": ["用 FP8 的话 H100 比 A100 的 16 位快四倍吗"],
    },
    "C09": {
        "en": ["can an H100 cluster really train GPT3 four times faster?"],
        "zh": ["H100 训练 GPT-3 175B 比上一代快 4 倍？"],
    },
    "C10": {
        "en": ["H100 NVL servers give five times the Llama 2 70B performance of A100 servers?"],
        "zh": ["H100 NVL 跑 llama2 70b 比 A100 快五倍吗"],
    },
    "C11": {
        "en": ["where can I rent an H100 at $2.24 an hour?"],
        "zh": ["Paperspace 上 2.24 美元一小时的 H100 还能租到吗"],
    },
    "C12": {
        "en": ["does the NVLink bridge give about five times PCIe Gen5 bandwidth?"],
        "zh": ["两张 PCIe 卡用桥接，带宽是 PCIe 5.0 的五倍吗"],
    },
    "C13": {
        "en": ["is the H100 PCIe board really just 350 watts?"],
        "zh": ["H100 PCIe 的功耗是 350 瓦吗"],
    },
    "C14": {
        "en": ["H100x8 with 640 GB - is that per card?"],
        "zh": ["8 卡 H100 一共 640G 显存，能放下 671B 吗"],
    },
}

# Ordinary questions that quote no claim: none may match (counts, prices, sizes and model names that look like
# a claim's numbers).
ORDINARY = [
    "H100 vs A100 for Llama 2 70B",
    "8张H100 三天多少钱",
    "4x H100 fp8 llama 3 70b",
    "5x H100 NVL for llama 2 70b",
    "30x H100 for a week on lambda",
    "train a GPT-3 sized 175B model on 64 H100 for 300B tokens",
    "pretrain a 7b model on 3.2 trillion tokens with 64 H100",
    "serve llama 70b to 30 users on h100",
    "H100 NVL 94GB specs",
    "what can I run for $2/hr",
    "can 4090s do nvlink?",
    "H100 NVLink bandwidth?",
    "h100 pcie vs sxm for finetuning",
    "A100 80G 按月租多少钱",
    "4 张 H100 PCIe 跑 qwen2.5 72b",
    "H20 和 L20 推理 qwen2.5 72b 哪个划算",
    "16x h100 for 900 users",
    "昇腾 910B 跑 qwen2.5 72b 要几张",
    "两张魔改 4090 48G 跑 70b int4",
    "fp8 on 4 H100 for llama 3 70b, 2k in 500 out",
]


@pytest.fixture(scope="module")
def claims(kb):
    return kb.claims


def test_every_article_claim_is_present_in_order(claims):
    # h100-article-claims.yaml lists C01..C14.
    assert list(claims) == [f"C{i:02d}" for i in range(1, 15)]


@pytest.mark.parametrize("cid", [f"C{i:02d}" for i in range(1, 15)])
def test_claim_is_complete_in_both_languages(kb, cid):
    claim = kb.claims[cid]
    for text in (claim.claim, claim.origin, claim.conditions, claim.verdict_text):
        assert text.en.strip() and CJK.search(text.zh), cid
    assert claim.sources and claim.as_of and claim.gpus and claim.per_gpu_truth
    assert set(claim.gpus) <= set(kb.gpus)


@pytest.mark.parametrize("cid", [f"C{i:02d}" for i in range(1, 15)])
def test_ratios_are_read_from_the_knowledge_base(kb, cid):
    # Recompute each ratio directly from the entries it names: the claim file holds no number of its own.
    claim = kb.claims[cid]
    for rid, rv in ratio_values(kb, claim).items():
        for side, figure in ((rv.ratio.numerator, rv.numerator), (rv.ratio.denominator, rv.denominator)):
            if side.gpu:
                raw = kb.gpus[side.gpu].model_dump()
                for part in side.field.split("."):
                    raw = raw[part]
                assert figure.value == pytest.approx(raw * side.times), rid
            elif side.constant:
                assert figure.value == pytest.approx(kb.claim_constants[side.constant].value * side.times), rid
            else:
                offer = next(o for o in kb.offers if o.instance_type == side.instance_type and o.provider == side.provider)
                assert figure.value == pytest.approx(offer.price_per_gpu_hour_usd * side.times), rid
        assert rv.numerator.unit == rv.denominator.unit, rid


@pytest.mark.parametrize(
    ("cid", "rid", "expected"),
    [
        ("C01", "c01_bf16", 989 / 312),  # 3.17: dense BF16, H100 SXM vs A100 (datasheets)
        ("C01", "c01_bw", 3350 / 2039),  # 1.64: HBM3 3.35 TB/s vs A100 80GB 2,039 GB/s
        ("C02", "c02_transistors", 80 / 54.2),  # 1.48: GH100 80B vs GA100 54.2B transistors
        ("C03", "c03_tdp", 350 / 700),  # 0.50: H100 PCIe product brief 350 W vs SXM5 700 W
        ("C04", "c04_pair", 2.0),  # 188 GB = 2 x 94 GB (AnandTech 18780)
        ("C06", "c06_node", 8 * 900 / (8 * 400 / 8)),  # 18: 7,200 GB/s NVLink vs 8 x 400 Gb/s = 400 GB/s
        ("C07", "c07_nvlink", 900 / 600),  # 1.5: NVLink 4 vs NVLink 3
        ("C10", "c10_fp8", 3341 / 2 / 312),  # 5.35: H100 NVL FP8 sparse 3,341 / 2 vs A100 312
        ("C11", "c11_price", 3.09 / 2.24),  # 1.38: Paperspace on-demand vs 3-year commitment (2026-09-20)
        ("C12", "c12_bridge", 600 / 128),  # 4.69: bridge 600 GB/s vs PCIe Gen5 x16 128 GB/s both ways
        ("C14", "c14_total", 8.0),  # 640 GB = 8 x 80 GB
    ],
)
def test_ratio_values_by_hand(kb, cid, rid, expected):
    assert ratio_values(kb, kb.claims[cid])[rid].value == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("cid", [f"C{i:02d}" for i in range(1, 15)])
def test_texts_fill_every_placeholder(kb, cid):
    claim = kb.claims[cid]
    texts = [claim.verdict_text.en, claim.verdict_text.zh] + [t for g in claim.per_gpu_truth for t in (g.en, g.zh)]
    for text in texts:
        filled = claim_text(kb, claim, text)
        assert "{" not in filled and "}" not in filled, filled


def test_filled_texts_carry_the_computed_figures(kb):
    c02 = kb.claims["C02"]
    assert "1.48x" in claim_text(kb, c02, c02.verdict_text.en)
    zh = claim_text(kb, c02, c02.verdict_text.zh)
    assert "800 亿" in zh and "542 亿" in zh and "1.48 倍" in zh  # 80 and 54.2 billion written in 亿
    c03 = kb.claims["C03"]
    assert "50%" in claim_text(kb, c03, c03.verdict_text.en)  # 350 / 700 W
    assert "60%" in claim_text(kb, c03, c03.verdict_text.zh)  # 2,000 / 3,350 GB/s = 0.597
    c05 = kb.claims["C05"]
    assert "450 GB/s each way" in claim_text(kb, c05, c05.verdict_text.en)  # 900 / 2


def test_a_corrected_gpu_figure_changes_the_verdict(tmp_path):
    # The ratio is computed at run time: change the H100's BF16 figure and the verdict follows.
    kdir = write_tiny_kb(tmp_path)
    (kdir / "claims.yaml").write_text(TINY_CLAIMS, encoding="utf-8")
    kb = load_knowledge(kdir)
    claim = kb.claims["C01"]
    assert "3.17x" in claim_text(kb, claim, claim.verdict_text.en)  # 989 / 312
    kdir2 = write_tiny_kb(tmp_path / "b", gpus=TINY_GPUS.replace("bf16: 989,", "bf16: 936,"))
    (kdir2 / "claims.yaml").write_text(TINY_CLAIMS, encoding="utf-8")
    kb2 = load_knowledge(kdir2)
    assert "3x" in claim_text(kb2, kb2.claims["C01"], kb2.claims["C01"].verdict_text.en)  # 936 / 312 = 3.00


@pytest.mark.parametrize(("cid", "lang", "question"),
                         [(cid, lang, q) for cid, by_lang in PARAPHRASES.items() for lang, qs in by_lang.items()
                          for q in qs])
def test_paraphrase_matches_its_claim_only(kb, cid, lang, question):
    assert [c.id for c in match_claims(kb, question)] == [cid]


def test_every_claim_has_a_paraphrase_in_each_language(kb):
    assert set(PARAPHRASES) == set(kb.claims)
    assert all(by_lang.get("en") and by_lang.get("zh") for by_lang in PARAPHRASES.values())


@pytest.mark.parametrize("question", ORDINARY)
def test_ordinary_questions_match_no_claim(kb, question):
    assert match_claims(kb, question) == []


def test_full_width_and_spacing_are_normalised(kb):
    assert normalize_question("ＨＰ １００ ×8") == "hp 100 x8"
    assert [c.id for c in match_claims(kb, "Ｈ１００ 推理快 ３０ 倍？")] == ["C01"]
    assert [c.id for c in match_claims(kb, "h100 chip-to-chip 6x vs a100")] == ["C07"]


@pytest.mark.parametrize(
    ("term", "text", "hit"),
    [
        ("30x faster", "is it 30x faster", True),
        ("30x faster", "is it 130x faster", False),  # numbers are whole
        ("h100", "8xh100 node", True),
        ("h100", "gh100 superchip", False),
        ("h100", "h100 at the very start", True),  # nothing before it: the word-start test holds
        ("六倍", "六倍的差距", True),
        ("h100", "h1000", False),
        ("h100", "h100s", True),
        ("六倍", "快了六倍", True),
        ("六倍", "快了十六倍", False),
        ("30倍", "快 30 倍", True),
        ("nvl", "h100 nvl card", True),
        ("nvl", "nvlink bridge", False),
        ("chip to chip", "chip-to-chip", True),
        ("5x", "pcie gen5 x16", False),
        ("3.2 tb", "3.2 tb/s", True),
        ("2.24", "$12.24", False),
    ],
)
def test_term_rules(term, text, hit):
    assert bool(compile_term(term).search(normalize_question(text))) is hit


def test_exclusions_keep_the_fp8_claim_off_gpt3_questions(kb):
    # C08 (per-SM FP8 4x) lists GPT-3/175B as exclusions so that C09's questions reach C09 alone.
    assert [c.id for c in match_claims(kb, "H100 FP8 trains GPT-3 4 times faster?")] == ["C09"]


# --------------------------------------------------------------------------- broken files: file:line errors

TINY_CLAIMS = textwrap.dedent("""\
    article:
      title_zh: 标题
      publisher: test
      published: 2024-08-05
      url: https://example.org/article
    constants:
      pcie_gen5_x16_gb_s:
        value: 128
        unit: GB/s
        label: {en: PCIe Gen5 x16, zh: PCIe Gen5 x16}
        source: https://example.org/pcie
        as_of: 2026-12-01
    claims:
    - id: C01
      claim: {en: H100 is 30x faster, zh: H100 快 30 倍}
      origin: {en: NVIDIA, zh: 英伟达}
      conditions: {en: clusters, zh: 集群}
      gpus: [h100-sxm-80gb, a100-sxm-80gb]
      per_gpu_truth:
      - {gpus: [h100-sxm-80gb], en: 'BF16 {c01_bf16}x', zh: 'BF16 {c01_bf16} 倍'}
      verdict: misleading
      verdict_text: {en: 'Misleading: {c01_bf16}x per GPU.', zh: '有误导性：单卡 {c01_bf16} 倍。'}
      ratios:
      - id: c01_bf16
        label: {en: BF16, zh: BF16}
        numerator: {gpu: h100-sxm-80gb, field: dense_tflops.bf16}
        denominator: {gpu: a100-sxm-80gb, field: dense_tflops.bf16}
      cues: {en: [[h100, 30x faster]], zh: [[h100, 30倍]]}
      sources: [https://example.org/whitepaper]
      as_of: 2026-12-01
    """)
# Line numbers in TINY_CLAIMS: 14 "- id: C01", 18 "gpus:", 21 verdict, 24 "- id: c01_bf16", 26 numerator,
# 27 denominator, 28 cues; 30 lines in all.


def _claim_errors(tmp_path, claims: str) -> list[str]:
    kdir = write_tiny_kb(tmp_path)
    (kdir / "claims.yaml").write_text(claims, encoding="utf-8")
    with pytest.raises(KnowledgeError) as exc:
        load_knowledge(kdir)
    return [str(i) for i in exc.value.issues]


def test_tiny_claims_file_is_valid(tmp_path):
    kdir = write_tiny_kb(tmp_path)
    (kdir / "claims.yaml").write_text(TINY_CLAIMS, encoding="utf-8")
    kb = load_knowledge(kdir)
    assert list(kb.claims) == ["C01"] and kb.article.publisher == "test"


def test_unknown_gpu_id_in_claim(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("gpus: [h100-sxm-80gb, a100-sxm-80gb]",
                                                         "gpus: [h100-sxm-80gb, a100-sxm-80gb, h200-sxm-141gb]"))
    assert errors == ["knowledge/claims.yaml:18: gpus: unknown GPU id 'h200-sxm-141gb' (claim C01)"]


def test_unknown_ratio_field(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("field: dense_tflops.bf16}\n    denominator",
                                                         "field: dense_tflops.bf17}\n    denominator"))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/claims.yaml:26: ratios.0.numerator: field 'dense_tflops.bf17' is not")


def test_null_figure_is_an_error(tmp_path):
    # The tiny A100 has no FP8 figure (A100 has no FP8): a ratio reading it is rejected at load.
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("denominator: {gpu: a100-sxm-80gb, field: dense_tflops.bf16}",
                                                         "denominator: {gpu: a100-sxm-80gb, field: dense_tflops.fp8}"))
    assert errors == ["knowledge/claims.yaml:27: ratios.c01_bf16.denominator: a100-sxm-80gb dense_tflops.fp8 is null "
                      "in gpus.yaml (claim C01)"]


def test_units_must_agree(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("denominator: {gpu: a100-sxm-80gb, field: dense_tflops.bf16}",
                                                         "denominator: {constant: pcie_gen5_x16_gb_s}"))
    assert errors == ["knowledge/claims.yaml:24: ratios.c01_bf16: numerator is in TFLOPS but denominator in GB/s "
                      "(claim C01)"]


def test_unknown_constant(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("denominator: {gpu: a100-sxm-80gb, field: dense_tflops.bf16}",
                                                         "denominator: {constant: pcie_gen6}"))
    assert errors == ["knowledge/claims.yaml:27: ratios.c01_bf16.denominator: unknown constant 'pcie_gen6' (not "
                      "under the file's constants) (claim C01)"]


def test_ratio_gpu_outside_the_claim(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("gpus: [h100-sxm-80gb, a100-sxm-80gb]", "gpus: [h100-sxm-80gb]"))
    assert len(errors) == 1
    assert errors[0].startswith("knowledge/claims.yaml:14: (entry): ratio c01_bf16 reads GPU 'a100-sxm-80gb'")


def test_placeholder_naming_no_ratio(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("'Misleading: {c01_bf16}x per GPU.'",
                                                         "'Misleading: {c01_fp8}x per GPU.'"))
    assert errors == ["knowledge/claims.yaml:14: (entry): placeholder {c01_fp8} names no ratio of this claim "
                      "(entry C01)"]


def test_unknown_verdict_and_missing_language(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("verdict: misleading", "verdict: mostly")
                           .replace("zh: [[h100, 30倍]]}", "zh: []}"))
    assert [e.split(": ")[0] + ": " + e.split(": ")[1] for e in errors] == [
        "knowledge/claims.yaml:21: verdict", "knowledge/claims.yaml:28: cues.zh"]


def test_duplicate_claim_id(tmp_path):
    entry = TINY_CLAIMS.split("claims:\n", 1)[1]
    errors = _claim_errors(tmp_path, TINY_CLAIMS + entry)
    assert errors == ["knowledge/claims.yaml:31: id: duplicate claim id 'C01'"]


def test_yaml_error_names_the_line(tmp_path):
    errors = _claim_errors(tmp_path, TINY_CLAIMS.replace("publisher: test", "publisher: [test"))
    assert len(errors) == 1 and errors[0].startswith("knowledge/claims.yaml:") and "(yaml)" in errors[0]


def test_placeholder_grammar():
    assert PLACEHOLDER.fullmatch("{c02_transistors.num*10}")
    assert PLACEHOLDER.fullmatch("{c03_bw%}")
    assert not PLACEHOLDER.fullmatch("{C03}")
