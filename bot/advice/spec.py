"""``spec_lookup``: hardware facts - specs, feature support (bf16, FP8, FlashAttention-2, MIG), NVLink and
P2P, and the H100 article's claims checked per GPU.

A spec figure or ratio the user states and asks about ("is the 4090 really 165 TFLOPS in fp16?") gets its verdict
first (:mod:`bot.advice.spec_checks`), then the figures of each variant it was checked against.
A claim quoted or paraphrased gets its verdict first (``knowledge/claims.yaml``, every ratio computed from
``gpus.yaml``), then the per-GPU truth. A feature question gets yes or no per GPU with the requirement that
decides it. An accelerator the knowledge base knows of but has no figures for is said to be so.
"""

from __future__ import annotations

from bot.advice.answer import Answer, Table
from bot.advice.context import Context
from bot.advice.options import next_actions, variant_notes
from bot.advice.planner import place, price_of, resolve_gpu
from bot.advice.spec_checks import SpecVerdict, check_specs
from bot.advice.specs import (
    feature_support,
    interconnect_fact,
    ratio_facts,
    software_caveats,
    spec_fact,
    spec_table,
)
from bot.kb.claims import claim_text, ratio_values
from bot.notes import note

__all__ = ["answer"]


def answer(ctx: Context) -> Answer:
    """Answer a spec, feature or claim question (see the module docstring)."""
    q = ctx.query
    if q.claims:
        return _claims(ctx)
    if q.spec_checks and (verdicts := check_specs(ctx.kb, q.spec_checks, q.gpus)):
        return _spec_checks(ctx, verdicts)
    gpus = [resolve_gpu(ctx, m) for m in q.gpus if m.id in ctx.kb.gpus]
    unlisted = [t for t in q.unknown_terms if t.unlisted]
    if not gpus:
        if unlisted:
            return _unlisted_only(ctx)
        return ctx.answer(title=note("title_one_more_thing"), headline=note("ask_gpu_spec"),
                          examples=["H100 vs A100 specs", "does the T4 support bf16?", "can 4090s do p2p?"])
    variant_notes(ctx)
    details = []
    headline = None
    support_asked = "support" in q.asks or not q.spec_fields
    features = [f for f in q.features if f not in ("nvlink", "p2p")]
    precisions = [p for p in q.precisions if p in ("bf16", "fp16", "fp8", "fp4", "int8", "tf32") and p not in features]
    asked = list(dict.fromkeys(features + precisions)) if support_asked else []
    if asked:
        facts = [feature_support(ctx, g, f) for g in gpus for f in asked]
        headline = note("features_summary", facts=facts)
    figures = [f for f in q.spec_fields if f not in ("nvlink_gb_s",)]
    if figures:
        facts = [_spec_one(g) for g in gpus]
        if headline is None:
            headline = note("facts_summary", facts=facts)
        else:
            details += facts
    if q.workload == "training" and (reference := ctx.kb.gpus.get("h100-sxm-80gb")) is not None:
        for g in gpus:
            ours, theirs = g.dense_tflops.bf16 or g.dense_tflops.fp16, reference.dense_tflops.bf16
            if ours and theirs and g.id != reference.id:
                details.append(note("training_suitability", gpu_name=g.name, tflops=ours, ref_name=reference.name,
                                    ref_tflops=theirs, share_pct=ours / theirs * 100))
    if "nvlink" in q.features or "p2p" in q.features or "nvlink_gb_s" in q.spec_fields:
        facts = [interconnect_fact(ctx, g) for g in gpus]
        if headline is None:
            headline = note("facts_summary", facts=facts)
        else:
            details += facts
    if len(gpus) >= 2:
        details += ratio_facts(gpus[0], gpus[1])
    if headline is None:
        if len(gpus) >= 2:
            headline = note("spec_compare_headline", facts=ratio_facts(gpus[0], gpus[1]))
        else:
            headline = _spec_one(gpus[0])
    for g in gpus:
        if getattr(g, "sparsity_stated", True) is False:
            ctx.warn("sparsity_not_stated", gpu_name=g.name)
    for n in software_caveats([g for g in gpus if g.id in ctx.kb.gpus]):
        ctx.warn(n.code, **n.params)
    ctx.assume("dense_not_sparse")
    return ctx.answer(title=note("title_specs", gpu_names=[g.name for g in gpus]), headline=headline,
                      details=details, table=spec_table(ctx, gpus),
                      examples=[] if q.models else [f"{gpus[0].name.split()[0]} " + ("跑 Llama 3 70B" if ctx.zh else
                                                                                        "for Llama 3 70B")],
                      actions=next_actions(ctx, None, precision_switch=False))


def _spec_one(g) -> object:
    return spec_fact(g)


def _prices_today(ctx: Context, gpu_id: str) -> list:
    """What renting one ``gpu_id`` costs today per GPU-hour, per pricing model (the cheapest offer of each)."""
    gpu = ctx.kb.gpus.get(gpu_id)
    out = []
    for pricing in ("on_demand", "spot", "commitment"):
        # per GPU-hour: a single GPU or a whole node, whichever is cheaper per GPU
        found = [pl for n in (1, 8) if gpu and (pl := place(ctx, gpu, n, n, pricing=pricing)) is not None]
        best = min(found, key=lambda pl: pl.price_per_gpu_hour_usd, default=None)
        p = price_of(ctx, best)
        if p is not None:
            out.append(note("price_today", gpu_name=gpu.name, pricing_model=p.pricing_model,
                            per_gpu_usd=p.price_per_gpu_hour_usd, provider=p.provider_name,
                            as_of=p.as_of.isoformat() if p.as_of else None, term=p.commitment_term))
    return out


def _claims(ctx: Context) -> Answer:
    """Each claim quoted: its verdict, origin and conditions, and the ratios computed from gpus.yaml."""
    kb = ctx.kb
    details, rows = [], []
    claims = [kb.claims[c] for c in ctx.query.claims if c in kb.claims]
    first = claims[0]
    headline = note("claim_verdict", verdict=first.verdict, en=claim_text(kb, first, first.verdict_text.en),
                    zh=claim_text(kb, first, first.verdict_text.zh))
    for i, claim in enumerate(claims):
        if i:
            details.append(note("claim_verdict", verdict=claim.verdict, en=claim_text(kb, claim, claim.verdict_text.en),
                                zh=claim_text(kb, claim, claim.verdict_text.zh)))
        for truth in claim.per_gpu_truth:
            details.append(note("bilingual", en=claim_text(kb, claim, truth.en), zh=claim_text(kb, claim, truth.zh)))
        wording = claim.article_wording
        if wording is not None and claim.id in ctx.query.claims_wording_quoted:
            details.append(note("bilingual", en=claim_text(kb, claim, wording.en), zh=claim_text(kb, claim, wording.zh)))
        if claim.topic == "price":  # "can I rent at that price now?": today's prices before where the claim came from
            details += _prices_today(ctx, claim.gpus[0])
        details.append(note("claim_origin", en=claim.origin.en, zh=claim.origin.zh))
        for _rid, value in ratio_values(kb, claim).items():
            rows.append([{"en": value.ratio.label.en, "zh": value.ratio.label.zh}, value.numerator.value,
                         value.denominator.value, value.value])
            ctx.cite(value.numerator.what, value.denominator.what)
        ctx.cite(*claim.sources[:3])
    if kb.article is not None:
        ctx.cite(kb.article.url)
    return ctx.answer(title=note("title_claims", claim_ids=[c.id for c in claims]), headline=headline,
                      details=details, table=Table(columns=["ratio_label", "numerator", "denominator", "ratio"],
                                                   rows=rows) if rows else None,
                      actions=next_actions(ctx, None, precision_switch=False))


def _unit(spec: str) -> str:
    return {"memory_gb": "GB", "tflops": "TFLOPS", "tdp_watts": "W"}.get(spec, "GB/s")


def _claimed(check) -> object:
    return note(f"spec_claimed_{check.bound}", ratio_x=check.ratio)


def _verdict_sentence(v: SpecVerdict) -> object:
    """The sentence of one checked figure or ratio (its verdict first)."""
    c = v.check
    unit = _unit(c.spec)
    if v.figures:
        first = v.figures[0]
        matching = [f.gpu.name for f in v.figures if f.outcome != "none"]
        others = [{"gpu_name": f.gpu.name, "figure": f.dense, "unit": unit} for f in v.figures if f.outcome == "none"
                  and f.dense is not None]
        return note("spec_check_figure", verdict=v.verdict, sentence=note(
            f"spec_figure_{v.verdict}", written=c.as_written, spec=c.spec, unit=unit,
            precision=(first.precision or "").upper() or None, gpu_names=matching or [first.gpu.name],
            actual=first.dense, dense=first.dense, sparse=first.sparse, others=others))
    held = [r for r in v.ratios if r.holds]
    failed = [r for r in v.ratios if not r.holds]

    def case(r) -> dict:
        return {"gpu_name": r.gpu.name, "other_name": r.other.name, "ratio_x": r.value, "num": r.numerator,
                "den": r.denominator, "unit": unit}

    first = (held or failed)[0]
    return note("spec_check_ratio", verdict=v.verdict, sentence=note(
        f"spec_ratio_{v.verdict}", spec=c.spec, claimed=_claimed(c), **case(first),
        holds=[case(r) for r in held], fails=[case(r) for r in failed]))


def _spec_checks(ctx: Context, verdicts: list[SpecVerdict]) -> Answer:
    """Stated spec figures and ratios: the verdict that is not simply true first, then every figure checked."""
    details = [_verdict_sentence(v) for v in verdicts[1:]]
    details.append(note("spec_check_tolerance", tolerance_pct=ctx.kb.policy.spec_check.match_tolerance.value * 100))
    gpus: list = []
    for v in verdicts:
        unit = _unit(v.check.spec)
        for f in v.figures:
            details.append(note("spec_variant_figure", gpu_name=f.gpu.name, spec=v.check.spec, unit=unit,
                                precision=(f.precision or "").upper() or None, figure=f.dense, sparse=f.sparse))
            gpus.append(f.gpu)
        for r in v.ratios:
            details.append(note("spec_variant_ratio", gpu_name=r.gpu.name, other_name=r.other.name, spec=v.check.spec,
                                unit=unit, num=r.numerator, den=r.denominator, ratio_x=r.value))
            gpus += [r.gpu, r.other]
    for g in {g.id: g for g in gpus}.values():
        ctx.cite(*g.sources[:1])
    if any(v.check.spec == "tflops" for v in verdicts):
        ctx.assume("dense_not_sparse")
    shown = list({g.id: g for g in gpus}.values())[:5]
    return ctx.answer(title=note("title_spec_check", gpu_names=[g.name for g in shown]),
                      headline=_verdict_sentence(verdicts[0]), details=details, table=spec_table(ctx, shown),
                      actions=next_actions(ctx, None, precision_switch=False))


def _unlisted_only(ctx: Context) -> Answer:
    kb = ctx.kb
    terms = [t for t in ctx.query.unknown_terms if t.unlisted]
    entries = {u.name: u for u in kb.unlisted}
    t = terms[0]
    entry = entries.get(t.unlisted)
    nearest = [kb.gpus[g].name for g in (entry.nearest if entry else []) if g in kb.gpus]
    headline = note("unlisted_headline", written=t.as_written, name=t.unlisted,
                    reason_en=entry.reason.en if entry else "", reason_zh=entry.reason.zh if entry else "",
                    nearest=nearest)
    return ctx.answer(title=note("title_specs", gpu_names=[t.unlisted]), headline=headline,
                      table=spec_table(ctx, [kb.gpus[g] for g in (entry.nearest if entry else []) if g in kb.gpus])
                      if entry and entry.nearest else None)
