"""Offers, placements and the merged offer table (knowledge/prices/*.yaml; figures copied there with sources)."""

from dataclasses import replace
from datetime import date

import pytest

from bot.kb.loader import load_knowledge
from bot.pricing.offers import (
    CatalogSnapshot,
    Offer,
    OfferRule,
    OfferTable,
    best_placement,
    current_catalog,
    exchange_rate,
    merge_offers,
    offer_table,
    place,
    provider_status,
    set_catalog,
)
from tests.conftest import REPO

TODAY = date(2026, 12, 1)


@pytest.fixture(autouse=True)
def _no_catalog():
    set_catalog(None)
    yield
    set_catalog(None)


@pytest.fixture
def fresh_kb():
    """A knowledge base of its own (offer_table caches per knowledge base and catalog generation)."""
    return load_knowledge(REPO / "knowledge")


def _offer(**kw) -> Offer:
    base = dict(provider="aws", provider_name="AWS", instance_type="p5.48xlarge", gpu="h100-sxm-80gb", gpu_count=8,
                price_per_hour_usd=55.04, pricing_model="on_demand", as_of=date(2026, 11, 9), source="test",
                region="us-east-1")
    base.update(kw)
    return Offer(**base)


def test_four_mi300x_in_one_tp_group_cost_the_8x_droplet(kb):
    # knowledge/prices/digitalocean.yaml: MI300X 1x $1.99/h, 8x $15.92/h; a TP4 group must sit in one
    # droplet, and only the 8x droplet holds four, so the group costs $15.92/h with 4 GPUs idle.
    table = offer_table(kb)
    p = best_placement(table, "mi300x-192gb", 4, today=TODAY, group=4, provider="digitalocean")
    assert p is not None
    assert p.offer.gpu_count == 8 and p.instances == 1
    assert p.price_per_hour_usd == 15.92
    assert p.idle_gpus == 4 and not p.group_split
    assert p.price_per_gpu_hour_usd == pytest.approx(15.92 / 4)  # idle GPUs paid by the used ones


def test_independent_replicas_may_use_separate_instances(kb):
    # Four 1-GPU replicas: four 1x droplets at 4 x $1.99 = $7.96/h, on separate instances.
    p = best_placement(offer_table(kb), "mi300x-192gb", 4, today=TODAY, group=1, provider="digitalocean")
    assert p.instances == 4 and round(p.price_per_hour_usd, 2) == 7.96 and p.separate_instances


def test_split_groups_only_when_allowed(kb):
    table = offer_table(kb)
    assert all(not x.group_split for x in place(table, "mi300x-192gb", 4, today=TODAY, group=4))
    split = [x for x in place(table, "mi300x-192gb", 4, today=TODAY, group=4, allow_split=True) if x.group_split]
    assert split and all(x.offer.gpu_count < 4 for x in split)


def test_shapes_say_which_sizes_a_provider_rents(kb):
    # knowledge/prices/digitalocean.yaml shapes: MI300X droplets come as 1 or 8 GPUs (complete).
    table = offer_table(kb)
    assert table.shapes("mi300x-192gb", provider="digitalocean") == [1, 8]
    shape = table.declared_shape("mi300x-192gb", "digitalocean")
    assert shape.complete and shape.source.startswith("https://docs.digitalocean.com/")
    # AWS H200: p5e.48xlarge has no price, p5en.48xlarge does; both are 8-GPU sizes.
    assert table.shapes("h200-sxm-141gb", provider="aws") == [8]


def test_one_year_commitment_for_8x_h100_states_term_and_upfront(kb):
    # cloud_prices_2026-12.yaml: AWS p5.48xlarge 1y Convertible RI, no upfront, $43.344/h (2025-11-30);
    # GCP a3-highgpu-8g 1y CUD $61.38367/h (2026-08-20). The AWS row is older than 90 days on 2026-12-01, the
    # GCP row (103 days) too, so both are stale and the cheaper wins.
    table = offer_table(kb)
    p = best_placement(table, "h100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="commitment", term_months=12)
    assert p.offer.provider == "aws" and p.offer.instance_type == "p5.48xlarge"
    assert p.price_per_hour_usd == 43.344 and p.offer.term_months == 12 and p.offer.upfront == "none"
    assert p.upfront_usd is None and p.stale
    one_year = place(table, "h100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="commitment", term_months=12)
    assert {(x.offer.provider, x.price_per_hour_usd) for x in one_year} >= {("aws", 43.344), ("gcp", 61.38367)}
    assert all(x.offer.term_months == 12 for x in one_year)


def test_all_upfront_commitment_has_an_upfront_payment(kb):
    # AWS p5.48xlarge 3y Standard RI all upfront: effective $20.695053/h; the payment is that rate over
    # 36 months x 730 h = 26,280 h: 20.695053 x 26,280 = $543,866.00.
    p = best_placement(offer_table(kb), "h100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="commitment",
                       term_months=36, provider="aws")
    assert p.offer.upfront == "all" and p.price_per_hour_usd == 20.695053
    assert p.offer.term_hours == 26280
    assert p.upfront_usd == pytest.approx(543_866.0, abs=0.01)


def test_spot_offers_are_interruptible_with_the_sources_reclaim_rate(kb):
    # AWS p4de.24xlarge spot $13.3483/h, interruption frequency 5-10% (AWS Spot Instance Advisor, 2025-11-30).
    rows = place(offer_table(kb), "a100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="spot", provider="aws")
    assert rows[0].offer.interruptible and rows[0].offer.interruption_frequency == "5-10%"
    assert rows[0].price_per_hour_usd == 13.3483


def test_cny_prices_keep_the_published_figure_and_the_dated_rate(kb):
    # AWS China g5.xlarge cn-north-1 on-demand: 9.51389 CNY/h published; USD derived with 6.8012 CNY/USD
    # (ECB cross rate of 2026-05-08): 9.51389 / 6.8012 = 1.39885 USD/h.
    rows = place(offer_table(kb), "a10g-24gb", 1, today=TODAY, provider="aws-china", region="cn-north-1")
    p = next(x for x in rows if x.offer.instance_type == "g5.xlarge")
    assert p.offer.currency == "CNY" and p.price_per_hour_cny == 9.51389
    assert p.price_per_hour_usd == pytest.approx(9.51389 / 6.8012, rel=1e-5)
    assert p.offer.cny_per_usd == 6.8012 and p.offer.fx_date == date(2026, 5, 8)
    rate = exchange_rate(kb)
    assert rate.per_usd == 6.8012 and rate.date == date(2026, 5, 8)


def test_catalog_prices_go_stale_after_30_days_curated_after_90():
    catalog = _offer(origin="catalog", as_of=date(2026, 10, 31))  # 31 days before TODAY
    curated = _offer(as_of=date(2026, 10, 31))
    assert catalog.is_stale(TODAY) and not curated.is_stale(TODAY)
    assert catalog.age_days(TODAY) == 31
    assert not _offer(origin="catalog", as_of=date(2026, 11, 1)).is_stale(TODAY)  # exactly 30 days
    assert _offer(as_of=None).is_stale(TODAY)


def test_merge_newer_dated_row_wins():
    curated = [_offer(as_of=date(2026, 11, 9)),
               _offer(instance_type="p4d.24xlarge", price_per_hour_usd=21.957642, as_of=date(2026, 11, 9)),
               _offer(pricing_model="commitment", term_months=12, commitment_term="1y", price_per_hour_usd=43.344,
                      as_of=date(2025, 11, 30))]
    catalog = [_offer(origin="catalog", price_per_hour_usd=54.0, as_of=date(2026, 11, 29)),
               _offer(origin="catalog", instance_type="p4d.24xlarge", price_per_hour_usd=30.0,
                      as_of=date(2026, 10, 1))]
    merged = merge_offers(curated, catalog)
    got = {(o.instance_type, o.pricing_model, o.origin, o.price_per_hour_usd) for o in merged}
    assert got == {("p5.48xlarge", "on_demand", "catalog", 54.0),        # catalog newer: curated row dropped
                   ("p4d.24xlarge", "on_demand", "curated", 21.957642),  # curated newer: catalog row dropped
                   ("p5.48xlarge", "commitment", "curated", 43.344)}     # no catalog counterpart


def test_merge_regions_and_undated_rows():
    # A curated row in us-central1 covers the catalog's zone us-central1-a; an undated curated row always loses.
    curated = [_offer(provider="gcp", instance_type="a3-highgpu-8g", region="us-central1", as_of=date(2026, 8, 20)),
               _offer(instance_type="g5.xlarge", gpu="a10g-24gb", gpu_count=1, price_per_hour_usd=1.006, as_of=None),
               _offer(instance_type="p5.4xlarge", gpu_count=1, price_per_hour_usd=6.88, region="us-west-2")]
    catalog = [_offer(origin="catalog", provider="gcp", instance_type="a3-highgpu-8g", region="us-central1-a",
                      price_per_hour_usd=80.0, as_of=date(2026, 11, 28)),
               _offer(origin="catalog", instance_type="g5.xlarge", gpu="a10g-24gb", gpu_count=1,
                      price_per_hour_usd=1.006, as_of=date(2026, 11, 28)),
               _offer(origin="catalog", instance_type="p5.4xlarge", gpu_count=1, price_per_hour_usd=6.5,
                      region="us-east-1", as_of=date(2026, 11, 28))]
    merged = merge_offers(curated, catalog)
    assert [o.origin for o in merged if o.provider == "gcp"] == ["catalog"]
    assert [o.origin for o in merged if o.instance_type == "g5.xlarge"] == ["catalog"]
    # another region is another offer: both stay
    assert sorted(o.region for o in merged if o.instance_type == "p5.4xlarge") == ["us-east-1", "us-west-2"]


def test_offer_table_merges_the_handed_in_catalog_and_rebuilds_per_generation(fresh_kb):
    curated_only = offer_table(fresh_kb)
    assert offer_table(fresh_kb) is curated_only  # built once
    newer = _offer(origin="catalog", price_per_hour_usd=50.0, as_of=date(2026, 11, 29), source="gpuhunt test")
    set_catalog(CatalogSnapshot(generation=7, offers=(newer,)))
    merged = offer_table(fresh_kb)
    assert merged is not curated_only and merged.generation == 7
    rows = place(merged, "h100-sxm-80gb", 8, today=TODAY, group=8, provider="aws", region="us-east-1")
    assert rows[0].offer.origin == "catalog" and rows[0].price_per_hour_usd == 50.0
    # aws.yaml's 2026-11-09 p5.48xlarge us-east-1 row (55.04) is older: it is no longer offered
    assert all(x.price_per_hour_usd != 55.04 or x.offer.region != "us-east-1" for x in rows)
    assert offer_table(fresh_kb) is merged


def test_catalog_loader_runs_once_on_first_use():
    calls = []

    def load():
        calls.append(1)
        return CatalogSnapshot(generation=1, offers=())

    set_catalog(load)
    assert calls == []  # nothing read until a price is needed
    assert current_catalog().generation == 1 and current_catalog().generation == 1
    assert calls == [1]


def test_best_placement_prefers_the_cheapest_and_skips_conditions():
    fresh = _offer(price_per_hour_usd=60.0, as_of=date(2026, 11, 20))
    stale = _offer(instance_type="old", price_per_hour_usd=30.0, as_of=date(2025, 1, 1))
    footnoted = _offer(instance_type="footnote", price_per_hour_usd=10.0, condition="asterisked on the page")
    market = _offer(provider="vast", instance_type="host-1", price_per_hour_usd=20.0, marketplace=True)
    table = OfferTable([fresh, stale, footnoted, market])
    # default rule (policy offers): the cheapest without a condition, a marketplace ask included ($20 < $30 < $60)
    assert best_placement(table, "h100-sxm-80gb", 8, today=TODAY, group=8).offer.instance_type == "host-1"
    # the stale $30 row beats the fresh $60 one: age is warned about, not a penalty
    no_market = OfferTable([fresh, stale, footnoted])
    p = best_placement(no_market, "h100-sxm-80gb", 8, today=TODAY, group=8)
    assert (p.offer.instance_type, p.stale) == ("old", True)
    listed_first = OfferTable([fresh, stale, footnoted, market], rule=OfferRule(marketplace_after_list=True))
    assert best_placement(listed_first, "h100-sxm-80gb", 8, today=TODAY, group=8).offer.instance_type == "old"
    only_stale = OfferTable([stale, footnoted])
    assert best_placement(only_stale, "h100-sxm-80gb", 8, today=TODAY, group=8).offer.instance_type == "old"


def test_index_answers_the_same_as_a_full_scan():
    # 600 offers of one GPU over three sizes and two providers: best_placement's early exit per size must
    # give the placement a full scan would (the lowest OfferRule.rank), under both undated policies.
    offers = []
    for i in range(600):
        offers.append(_offer(provider=("aws", "gcp")[i % 2], instance_type=f"i{i}", gpu_count=(1, 4, 8)[i % 3],
                             price_per_hour_usd=1.0 + (i * 37 % 101) / 10, region=f"r{i % 7}",
                             as_of=date(2026, 11, 1) if i % 5 else date(2025, 1, 1), marketplace=i % 11 == 0))
    offers += [_offer(provider="vast", instance_type=f"u{i}", gpu_count=(1, 8)[i % 2], price_per_hour_usd=0.5 + i / 10,
                      as_of=None) for i in range(20)]
    for rule in (OfferRule(), OfferRule(undated_after_dated=True, marketplace_after_list=True)):
        table = OfferTable(offers, rule=rule)
        for needed, group in ((1, 1), (4, 4), (6, 2), (8, 8), (16, 8)):
            full = [p for p in place(table, "h100-sxm-80gb", needed, today=TODAY, group=group)]
            want = min(full, key=lambda p, rule=rule: p.rank(rule))
            got = best_placement(table, "h100-sxm-80gb", needed, today=TODAY, group=group)
            assert got.rank(rule)[:6] == want.rank(rule)[:6]
            assert [p.price_per_hour_usd for p in full] == sorted(p.price_per_hour_usd for p in full)
            assert place(table, "h100-sxm-80gb", needed, today=TODAY, group=group, limit=5) == full[:5]


def test_provider_status_counts_dates_and_staleness(fresh_kb):
    rows = {s.provider: s for s in provider_status(fresh_kb, today=TODAY)}
    do = rows["digitalocean"]
    # digitalocean.yaml: 5 offers, all as of 2026-05-28 (187 days before 2026-12-01: stale after 90)
    assert (do.offers, do.curated_offers, do.catalog_offers) == (5, 5, 0)
    assert do.newest_as_of == do.oldest_as_of == date(2026, 5, 28) and do.age_days == 187 and do.stale == 5
    # aws-china.yaml: 7 (instance, region) pairs x (on-demand, 1y no upfront, 3y no upfront, 3y all upfront)
    assert rows["aws-china"].pricing_models == {"on_demand": 7, "commitment": 21}
    assert rows["aws-china"].offers == 28 and rows["aws-china"].oldest_as_of == date(2026, 1, 21)


def test_every_curated_commitment_states_its_term_and_spot_rows_are_spot(kb):
    for o in offer_table(kb).offers:
        if o.pricing_model == "commitment":
            assert o.term_months in (12, 36), o
        else:
            assert o.term_months is None and o.upfront is None
        if o.interruption_frequency:
            assert o.interruptible


def test_offer_keeps_existing_field_names():
    # The planner's contract: existing fields stay (new ones are added with defaults).
    o = _offer()
    for name in ("provider", "provider_name", "instance_type", "gpu", "gpu_count", "price_per_hour_usd",
                 "pricing_model", "as_of", "source", "commitment_term", "region", "origin", "marketplace",
                 "condition"):
        assert hasattr(o, name)
    assert replace(o, price_per_hour_usd=8.0).price_per_gpu_hour_usd == 1.0
