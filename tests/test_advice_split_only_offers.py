"""A price in knowledge/prices is found on every answer path, whatever the shape of the instances that carry it.

RTX 4090 and RTX 5090 are rented only as 1-GPU instances. Two or four of them that the user names ("on 2x 4090") were
priced by a quote but "no price" in serving, fine-tuning, training and batch-job answers, which asked for one instance
holding the whole group. The shared picker (``bot.advice.planner.place``) now prices the GPUs and count the user named
as separate instances when no instance holds the group, ranked after any that does (``OfferRule.rank``: a split
group last), and the answer says so (``group_split_instances``).

Prices used (knowledge/prices, with source and as_of there):
- vast.yaml 1x-RTX_4090-32-65536: $0.40/h, marketplace, undated (SkyPilot catalog vms.csv); cheaper than runpod.yaml
  1x_RTX4090_SECURE $0.69/h.
- gongji.yaml "RTX 5090 (per card)": 3.25 CNY/h published, $0.47786/h at cny-usd-2026-05-08 (6.8012 CNY per USD);
  a mainland-China cloud, so priced for questions in Chinese.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


def ask(kb, text: str):
    return advise(parse_question(text, kb), kb, today=TODAY)


def named_option(answer, gpu_id: str, count: int):
    return next(o for o in answer.options if o.gpu == gpu_id and o.gpu_count == count and not o.changes)


@pytest.mark.parametrize("text,count", [
    ("serve qwen2.5 14b on 2x 4090", 2),                                              # serving
    ("lora llama 3 8b on 2x 4090", 2),                                                # fine-tuning
    ("what does a lora of llama 3 8b on 2x 4090 cost", 2),                            # the cost of a run
    ("train a 1b model on 10B tokens on 4x 4090", 4),                                 # training
    ("2x 4090 vs 1x A100 80GB for qwen2.5 14b", 2),                                   # comparison
    ("summarize 10k documents (2000 tokens in, 200 out) with qwen2.5 14b on 2x 4090", 2),  # batch job (items)
])
def test_named_4090s_are_priced_as_separate_one_gpu_instances_on_every_path(kb, text, count):
    a = ask(kb, text)
    o = named_option(a, "rtx-4090-24gb", count)
    assert o.price is not None, a.intent
    assert o.price.provider == "vast" and o.price.instances == count
    assert o.price.price_per_hour_usd == pytest.approx(0.40 * count)  # vast.yaml $0.40/h per 1-GPU instance
    assert o.price.group_split  # the GPUs are not in one machine, and the answer says it
    if count > 1 and (o.tensor_parallel or 1) > 1:
        lead = a.options[a.recommendation] if a.recommendation is not None else a.options[0]
        if lead is o:
            # the shape is not listed: said right under the headline, the price of the 1x instance times N with it
            said = a.details[0]
            assert said.code == "group_shape_not_listed" and said.params["instances"] == count
            assert said.params["each_usd"] == pytest.approx(0.40) and said.params["shapes"] == [1]
            assert not any(w.code == "group_split_instances" for w in a.warnings)
        else:
            assert any(w.code == "group_split_instances" for w in a.warnings)


@pytest.mark.parametrize("text,count", [
    ("用两张5090部署qwen2.5 14b", 2),
    ("用两张5090 lora微调qwen2.5 7b", 2),
    ("用4张5090训练1b模型 100亿token", 4),
    ("两张5090和一张A100 80G跑qwen2.5 14b哪个好", 2),
])
def test_named_5090s_get_the_cny_list_price_on_every_path(kb, text, count):
    o = named_option(ask(kb, text), "rtx-5090-32gb", count)
    assert o.price is not None and o.price.provider == "gongji"
    # gongji.yaml 3.25 CNY/h per card / 6.8012 CNY per USD = $0.47786/h per card
    assert o.price.price_per_hour_usd == pytest.approx(0.47786 * count)


def test_a_group_one_instance_holds_is_never_priced_split(kb):
    # vast.yaml 2x-RTX_6000Ada-32-65536 $1.31/h holds both GPUs: it is chosen over two 1x instances
    o = named_option(ask(kb, "serve qwen2.5 32b on 2x RTX 6000 Ada"), "rtx-6000-ada-48gb", 2)
    assert o.price is not None and not o.price.group_split and o.price.instances == 1
    assert o.price.price_per_hour_usd == pytest.approx(1.31)


def test_a_count_the_planner_chose_stays_in_one_instance(kb):
    # no count named: the planner's own multi-GPU options are priced only where one instance holds them
    a = ask(kb, "serve llama 3 70b int4 on 4090s")
    assert all(not o.price.group_split for o in a.options if o.price is not None)


# --------------------------------------------------------------------------- one offer rule for every picker

def test_the_way_to_rent_just_the_count_is_the_offer_every_other_answer_prices(kb):
    # CoreWeave rents L40S only as 8-GPU nodes; the way to rent just 2 is the one the serving and comparison answers
    # price 2x L40S with (OfferRule, policy.yaml offers: a marketplace ask ranked by its price): vast.yaml
    # 2x-L40S-32-65536 $1.33/h, not DigitalOcean's 2 x 1-GPU droplets at 2 x $1.57 = $3.14/h (digitalocean.yaml)
    a = ask(kb, "2x L40S on coreweave")
    line = next(n for n in [a.headline, *a.details] if n.code == "quote_whole_nodes_only")
    assert (line.params["alt_provider"], line.params["alt_price_usd"]) == ("Vast.ai", pytest.approx(1.33))
    served = named_option(ask(kb, "serve qwen2.5 32b on 2x L40S"), "l40s-48gb", 2)
    assert (served.price.provider, served.price.price_per_hour_usd) == ("vast", pytest.approx(1.33))


def test_offer_rule_best_is_the_smallest_rank(kb):
    from bot.pricing.offers import Offer, OfferRule, Placement

    def placement(provider, price, *, marketplace=False, idle=0):
        offer = Offer(provider=provider, provider_name=provider, instance_type="x", gpu="l40s-48gb",
                      gpu_count=2 + idle, price_per_hour_usd=price, pricing_model="on_demand", as_of=TODAY,
                      source="test", marketplace=marketplace)
        return Placement(offer, 1, 2, 1, False, price, False)

    listed, ask_, idle = placement("a", 3.0), placement("b", 1.5, marketplace=True), placement("c", 1.0, idle=6)
    assert OfferRule().best([listed, ask_, idle]) is ask_  # idle GPUs last; then the price, a marketplace ask included
    assert OfferRule(marketplace_after_list=True).best([listed, ask_, idle]) is listed
    assert OfferRule().best([]) is None


# --------------------------------------------------------------------------- a secondary figure in comparisons too

def mention_lines(answer):
    return [n for n in [answer.headline, *answer.details] if n.code == "mention_cost"]


@pytest.mark.parametrize("text,gpu_name,count,per_gpu_cny", [
    # price_mentions.yaml AutoDL rows (read 2026-05-01): H20 6.98 CNY per GPU-hour, L20 3.68 CNY per GPU-hour
    ("H20 vs H100 for llama 3 70b", "H20", 2, 6.98),
    ("l20 vs l40s for qwen2.5 7b", "L20", 1, 3.68),
    ("L20 和 L40S 跑 qwen2.5 7b 哪个快", "L20", 1, 3.68),
])
def test_a_compared_gpu_without_a_list_price_gets_the_figure_quotes_use(kb, text, gpu_name, count, per_gpu_cny):
    a = ask(kb, text)
    lines = mention_lines(a)
    assert [n.params["config"]["gpu_name"] for n in lines] == [gpu_name]
    assert lines[0].params["per_gpu"] == {"amount": pytest.approx(per_gpu_cny), "currency": "cny"}
    assert lines[0].params["hour"]["amount"] == pytest.approx(per_gpu_cny * count)
    # the quote of the same card uses the same figure
    quoted = mention_lines(ask(kb, f"how much is one {gpu_name} per hour"))
    assert quoted and quoted[0].params["per_gpu"]["amount"] == pytest.approx(per_gpu_cny)


def test_a_compared_fine_tune_without_a_list_price_is_costed_over_its_wall_clock(kb):
    a = ask(kb, "H20 vs A100 for lora on llama 3 8b")
    h20 = next(o for o in a.options if o.gpu == "h20-96gb" and o.fits)
    (line,) = mention_lines(a)
    # AutoDL H20 6.98 CNY per GPU-hour x 1 GPU x the run's wall clock
    assert line.params["total"]["amount"] == pytest.approx(6.98 * h20.wall_clock_hours)


@pytest.mark.parametrize("text,code", [
    ("what would a qlora of llama 3 70b on 2x 4090 cost", "finetune_fixed_fails"),
    ("full fine-tune of llama 3 8b on 4x 4090, what does it cost", "finetune_fixed_fails"),
    ("两张4090全参微调llama 3 8b要花多少钱", "finetune_fixed_fails"),
])
def test_a_run_that_does_not_fit_says_so_not_that_it_has_no_price(kb, text, code):
    a = ask(kb, text)
    assert a.headline.code == code
    o = a.options[0]
    assert not o.fits and o.memory_per_gpu_gb > o.usable_gb
    assert a.headline.params["mem_gb"] == pytest.approx(o.memory_per_gpu_gb)
    assert o.price is not None and o.price.provider == "vast"  # the GPUs are priced: vast.yaml $0.40/h each
    assert not any(m.code == "no_price_for_run" for m in a.missing)
