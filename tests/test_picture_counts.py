"""张 counts cards and pictures alike: in a question about pictures it counts the pictures unless a GPU name follows
it, and the job's time leads with one picture's time beside it.

Hand check: the job's hours are images / (images per minute) / 60; one image alone is its steps x seconds per step
(both from the same estimate, knowledge/efficiency.yaml non_llm.diffusion).
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.advice.advise import advise
from bot.parsing.parser import parse_question

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(("text", "images", "count"), [
    ("SDXL 在 4090 上出一张 1024x1024 的图要几秒？一万张要多久", 10_000, 1),
    ("用两张 4090 跑 SDXL 出图，一万张要多久", 10_000, 2),
    ("flux 出图 5000 张，用 4 张 L40S 要多久", 5_000, 4),
])
def test_a_shared_counter_counts_pictures_in_a_picture_question(kb, text, images, count):
    q = parse_question(text, kb)
    assert q.images == images
    assert [g.count for g in q.gpus] == [count]


def test_cards_are_still_counted_outside_picture_questions(kb):
    q = parse_question("用 8 张 4090 部署 qwen2.5 72b", kb)
    assert q.gpus[0].count == 8 and q.images is None


def test_the_job_leads_with_one_pictures_time_beside_it(kb):
    a = advise(parse_question("SDXL 在 4090 上出一张 1024x1024 的图要几秒？一万张要多久", kb), kb, today=TODAY)
    assert a.headline.code == "images_job"
    p = a.headline.params
    assert p["images"] == 10_000
    assert p["hours"] == pytest.approx(10_000 / p["images_per_minute"] / 60, rel=1e-6)
    assert 2 < p["per_image_s"] < 15  # SDXL 30 steps at 1024x1024 on a 4090: seconds, not minutes
