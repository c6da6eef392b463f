"""Placements: real instance shapes drive prices (knowledge/prices/*.yaml as of 2026-05-28)."""

from datetime import date

from bot.pricing.offers import best_placement, offer_table, place

TODAY = date(2026, 12, 1)


def test_four_mi300x_in_one_tp_group_cost_the_8x_droplet(kb):
    # knowledge/prices/digitalocean.yaml: MI300X 1x $1.99/h, 8x $15.92/h; a TP4 group must sit in one
    # droplet, and only the 8x droplet holds four, so the group costs $15.92/h with 4 GPUs idle.
    table = offer_table(kb)
    p = best_placement(table, "mi300x-192gb", 4, today=TODAY, group=4, provider="digitalocean")
    assert p is not None
    assert p.offer.gpu_count == 8 and p.instances == 1
    assert p.price_per_hour_usd == 15.92
    assert p.idle_gpus == 4 and not p.group_split


def test_independent_replicas_may_use_separate_instances(kb):
    # Four 1-GPU replicas: four 1x droplets at 4 x $1.99 = $7.96/h, on separate instances.
    p = best_placement(offer_table(kb), "mi300x-192gb", 4, today=TODAY, group=1, provider="digitalocean")
    assert p.instances == 4 and round(p.price_per_hour_usd, 2) == 7.96 and p.separate_instances


def test_split_groups_only_when_allowed(kb):
    table = offer_table(kb)
    assert all(not x.group_split for x in place(table, "mi300x-192gb", 4, today=TODAY, group=4))
    split = [x for x in place(table, "mi300x-192gb", 4, today=TODAY, group=4, allow_split=True) if x.group_split]
    assert split and all(x.offer.gpu_count < 4 for x in split)
