"""A pricing model asked (spot) at a provider that publishes none for the GPU: said first, then that pricing model's
offers elsewhere (cheapest per hour first), then the provider's own on-demand price as context.

Rows used (knowledge/prices/): lambda.yaml ``1x NVIDIA H100 SXM`` on-demand $4.29/h (2026-09-20), no spot rows;
gcp.yaml ``a3-highgpu-1g`` spot $6.571/h (1 GPU, 2026-09-26); coreweave.yaml ``NVIDIA HGX H100 (spot)`` $19.71/h
(8 GPUs, 2026-09-20); aws.yaml ``p5.48xlarge`` spot $28.106467/h (8 GPUs, 2025-11-30).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.advice.conversation import respond_to
from bot.parsing.parser import parse_question
from bot.render.i18n import renderer_for

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("text, lang", [("spot price for an H100 on Lambda?", "en"),
                                        ("Lambda 上 H100 竞价实例多少钱？", "zh")])
def test_spot_at_a_provider_without_spot_leads_with_the_gap_then_spot_elsewhere(kb, text, lang):
    a = advise(parse_question(text, kb), kb, today=TODAY)
    assert a.headline.code == "no_pricing_at_provider"
    assert a.headline.params["provider"] == ["Lambda"] and a.headline.params["pricing_model"] == "spot"
    # cheapest per hour first for the 1 GPU asked: GCP $6.571 < CoreWeave $19.71 (8-GPU node) < AWS $28.106467
    items = a.headline.params["items"]
    assert [(i["provider"], i["price_usd"]) for i in items] == [("GCP", 6.571), ("CoreWeave", 19.71), ("AWS", 28.106467)]
    # the provider's own price follows as context: Lambda on-demand $4.29/h
    assert a.details[0].code == "quote_one"
    assert a.details[0].params["provider"] == "Lambda" and a.details[0].params["price_usd"] == 4.29
    # the gap is said once (in the headline), not again as a warning
    assert not [n for n in a.missing if n.code in ("no_price_at_provider", "no_pricing_model_prices")]
    line = renderer_for(lang).say(a.headline)
    assert "Lambda" in line and "$6.57" in line


def test_a_spot_follow_up_at_a_provider_without_spot_leads_the_same_way(kb):
    previous = respond_to("price of 1x H100 on Lambda", None, kb=kb).query
    turn = respond_to("what about spot?", previous, kb=kb)
    a = turn.answer
    assert a.headline.code == "no_pricing_at_provider"
    assert a.headline.params["items"][0]["provider"] == "GCP" and a.headline.params["items"][0]["price_usd"] == 6.571


def test_spot_at_a_provider_that_has_it_is_priced_as_before(kb):
    # CoreWeave lists H100 spot: no gap to say; its spot row leads
    a = advise(parse_question("spot price for 8x H100 on CoreWeave", kb), kb, today=TODAY)
    assert a.headline.code != "no_pricing_at_provider"
    assert [o.price.pricing_model for o in a.options if not o.changes and o.price][0] == "spot"
