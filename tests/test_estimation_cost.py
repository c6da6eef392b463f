"""Cost helpers."""

from __future__ import annotations

import pytest

from bot.estimation import EstimationError, cost_per_million_tokens
from bot.kb.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def test_cost_per_million_tokens():
    # $2/h at 1,000 tokens/s: 3.6M tokens per hour -> $0.5556 per 1M
    assert cost_per_million_tokens(2.0, 1000) == pytest.approx(2.0 / 3.6)
    with pytest.raises(EstimationError):
        cost_per_million_tokens(2.0, 0)


def test_training_is_priced_by_the_placement_answers_use(kb):
    # one owner of offer choice: estimate training costs a run at best_placement's price per GPU-hour
    from datetime import date

    from bot.estimation import gpu_hour_price
    from bot.pricing.offers import best_placement, offer_table

    gpu = kb.gpus["h100-sxm-80gb"]
    price, source, _ = gpu_hour_price(kb, gpu, 8, None, today=date(2026, 12, 1))
    p = best_placement(offer_table(kb), gpu.id, 8, today=date(2026, 12, 1), group=8)
    assert price == pytest.approx(p.price_per_hour_usd / 8) and p.offer.instance_type in source
    assert gpu_hour_price(kb, gpu, 8, 2.5) == (2.5, "price given by the caller", [])


def test_estimation_package_is_pure():
    # bot.estimation depends only on bot.kb and bot.errors: no Slack or database imports.
    import subprocess
    import sys

    code = ("import sys, bot.estimation; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('slack_bolt', 'slack_sdk', 'sqlalchemy')]; print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_training_without_published_peak_has_no_time(kb):
    from bot.estimation import estimate_training

    # the Atlas 300I Duo publishes INT8 TOPS only, no 16-bit tensor figure (knowledge/gpus.yaml missing_figures)
    r = estimate_training(kb, "llama-2-7b", "atlas-300i-duo-96gb", count=8, tokens=1e9)
    assert r.gpu_hours is None and r.cost_usd is None
    assert any("TFLOPS" in w for w in r.warnings)
