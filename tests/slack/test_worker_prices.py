"""Answer workers price with the refreshed catalog the serving process prices with (read from the state store),
so Slack answers and App Home's price ages come from the same table."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.kb.loader import get_knowledge
from bot.pricing.offers import set_catalog
from bot.slack.answering import AnswerRequest
from bot.slack.workers import AnswerPool
from bot.storage.store import Store
from tests.test_pricing_store import offer, refreshed, run

QUESTION = "8x H100 on aws for 3 days"


def test_workers_follow_the_serving_processes_catalog(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.db'}"
    store = Store(url)
    # one catalog row: AWS p5.48xlarge (8x H100 SXM5 80GB) at $50.00/h, dated 2026-11-29
    store.catalog.write_run(run(refreshed("aws", [offer(price=50.0)], at=datetime(2026, 11, 29, tzinfo=UTC))))
    pool = AnswerPool(workers=1, queue=2, timeout_s=60, knowledge=get_knowledge(), catalog_url=url)
    try:
        set_catalog(None)  # the serving process prices with curated prices only: so do the workers
        curated = pool.answer(AnswerRequest(text=QUESTION, chart=False), get_knowledge())
        set_catalog(store.catalog.snapshot())  # what the scheduled refresh hands to pricing in the server
        live = pool.answer(AnswerRequest(text=QUESTION, chart=False), get_knowledge())
    finally:
        set_catalog(None)
        pool.close()
    # 72 h x $50.00/h = $3,600 (the catalog row); aws.yaml's curated p5.48xlarge is $55.04/h: 72 x 55.04 = $3,963
    assert "$3,963" in curated.message["text"] and "$3,600" not in curated.message["text"]
    assert "$3,600" in live.message["text"]
