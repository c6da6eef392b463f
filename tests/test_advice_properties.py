"""Properties over generated questions: every answer keeps every constraint its request fixed, renders in
all three forms, and never raises; ask and estimate agree on the same configuration."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from bot.advice.conversation import respond_to
from bot.estimation import efficiency_for, estimate_inference, serving_workload
from bot.kb.loader import get_knowledge
from bot.render.blockkit import render_message
from bot.render.jsonout import render_json
from bot.render.terminal import render_text

KB = get_knowledge()
EFF = efficiency_for(KB)
GPUS = sorted(g.name for g in KB.gpus.values())
MODELS = sorted(m.name for m in KB.models.values())
TEMPLATES = [
    "serve {m} on {n}x {g} to {u} users", "{m} in {p} on {n}x {g}", "can {n}x {g} run {m} in {p}?",
    "{g} vs {g2} for {m}", "train {m} on {t}B tokens with {n} {g}", "qlora {m} on {n}x {g}",
    "lora {m} on {n}x {g} with 4k ctx", "{n}x {g} for {d} days", "how many users can {n}x {g} serve with {m}",
    "{n}张{g}跑{m}，{u}个用户", "{g} specs", "is {g} 30x faster than {g2}?", "{m} {p} {c}k context on {g}",
]


@st.composite
def questions(draw):
    template = draw(st.sampled_from(TEMPLATES))
    return template.format(
        m=draw(st.sampled_from(MODELS)), g=draw(st.sampled_from(GPUS)), g2=draw(st.sampled_from(GPUS)),
        n=draw(st.sampled_from([1, 2, 4, 8])), u=draw(st.sampled_from([1, 10, 50, 400])),
        p=draw(st.sampled_from(["fp16", "bf16", "fp8", "int8", "int4", "awq"])),
        t=draw(st.sampled_from([10, 300, 2000])), d=draw(st.sampled_from([1, 3, 30])),
        c=draw(st.sampled_from([4, 32, 128])))


@seed(20261201)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(questions())
def test_fixed_constraints_are_kept_and_answers_render(question):
    answer = respond_to(question, kb=KB).answer
    q = answer.query
    fixed_gpus = {g.id: g.count for g in q.gpus}
    for o in answer.options:
        if o.changes or o.gpu is None:
            continue
        gpu = o.gpu.split("@")[0]
        if fixed_gpus and answer.intent not in ("recommend",):
            assert gpu in fixed_gpus, (question, gpu)
            if fixed_gpus[gpu] is not None and o.gpu_count is not None and answer.intent != "quote":
                assert o.gpu_count == fixed_gpus[gpu], (question, o.gpu_count)
        if q.precisions and o.precision and o.method is None and answer.intent in ("size_inference", "compare"):
            # an engine's weight-only fallback runs the checkpoint asked (FP8 on Ampere as fp8-w8a16, efficiency.yaml)
            runs = EFF.weight_formats.get(o.precision)
            assert o.precision in q.precisions or o.precision.startswith(("q", "iq")) or (
                runs is not None and runs.runs_checkpoints_of in q.precisions), (question, o.precision)
        assert o.gpu_count is None or o.gpu_count > 0
        assert o.price is None or o.price.price_per_hour_usd > 0
    assert render_text(answer)
    assert render_message(answer)["blocks"]
    json.loads(render_json(answer))


@seed(7)
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["llama-3.1-8b", "qwen2.5-7b", "mistral-7b-v0.3", "qwen2.5-14b"]),
       st.sampled_from(["l4-24gb", "a100-sxm-80gb", "h100-sxm-80gb", "rtx-4090-24gb"]))
def test_ask_and_estimate_agree(model_id, gpu_id):
    model, gpu = KB.models[model_id], KB.gpus[gpu_id]
    answer = respond_to(f"{model.name} in bf16 on one {gpu.name}, how fast?", kb=KB).answer
    o = answer.options[0]
    e = estimate_inference(KB, model, gpu, count=1, precision=o.precision, batch_size=1, tensor_parallel=1,
                           **serving_workload(KB).estimate_kwargs())
    assert o.memory_per_gpu_gb == e.memory.per_gpu_gb
    assert o.fits == e.fits
    # speed is shown only for configurations that fit (a speed of what cannot run means nothing)
    assert o.decode_tps == (e.decode_tokens_per_s_per_sequence if e.fits else None)
