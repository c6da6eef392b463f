"""``refresh_prices`` over the fixture catalog (tests/fixtures/gpuhunt, gpuhunt's own CSV format), offline.

Every expected figure is a row of the fixture files (see tests/fixtures/gpuhunt/README.md); mapped GPU ids come
from knowledge/prices/common/gpuhunt.yaml.
"""

from __future__ import annotations

import os
import shutil
import socket
import time
from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.pricing.offers import best_placement, offer_table, place, set_catalog
from bot.pricing.refresh import (
    CatalogFetch,
    FetchFailed,
    GpuhuntFetcher,
    UnknownProviderError,
    check_plausible,
    map_catalog,
    name_map,
    refresh_prices,
)
from bot.storage.catalog_read import read_catalog
from tests import test_pricing_store
from tests.conftest import REPO
from tests.test_pricing_store import offer

FIXTURE = REPO / "tests" / "fixtures" / "gpuhunt"
state_store = test_pricing_store.state_store  # the store fixture: SQLite and PostgreSQL
TODAY = date(2026, 12, 1)
NOW = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
OFFLINE = ("aws", "lambda", "runpod")


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    monkeypatch.delenv("GPUHUNT_CATALOG_DIR", raising=False)
    set_catalog(None)
    yield
    set_catalog(None)


def _refresh(kb, store, directory=FIXTURE, **kw):
    kw.setdefault("now", lambda: NOW)
    return refresh_prices(kb, store.catalog, catalog_dir=directory, **kw)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "catalog"
    shutil.copytree(FIXTURE, target)
    return target


def _stored(store, provider):
    return sorted((o.instance_type, o.region, o.pricing_model, o.price_per_hour_usd) for o in
                   store.catalog.provider_offers(provider))


def test_fixture_catalog_is_stored_with_its_dates_and_a_mapping_report(kb, state_store):
    report = _refresh(kb, state_store)
    by = {p.info.provider: p for p in report.providers}
    assert [p for p in OFFLINE if by[p].info.status == "refreshed"] == list(OFFLINE)
    aws = by["aws"].info
    # aws.csv: 12 rows, 1 malformed (price n/a), 1 CPU-only, 1 T4G (unmapped) -> 9 offers; dated by aws.version
    assert (aws.offers, aws.as_of, aws.malformed, aws.unmapped) == (9, date(2026, 11, 29), 1, (("T4G 16GB", 1),))
    assert len(by["aws"].malformed) == 1 and "g6.2xlarge" not in str(_stored(state_store, "aws"))
    assert (by["lambda"].info.offers, by["lambda"].info.as_of) == (4, date(2026, 11, 28))  # dated by ./version
    assert by["runpod"].info.offers == 6
    # online providers are not queried with a catalog directory: skipped with a note, not an error
    assert by["vast"].info.status == "skipped" and "catalog directory" in by["vast"].info.reason
    assert not report.failed
    stored = {(o.instance_type, o.region, o.pricing_model): o for o in state_store.catalog.provider_offers("aws")}
    p5_spot = stored[("p5.48xlarge", "us-east-1", "spot")]
    assert (p5_spot.price_per_hour_usd, p5_spot.gpu_count, p5_spot.gpu, p5_spot.as_of) == (
        28.106467, 8, "h100-sxm-80gb", date(2026, 11, 29))
    assert p5_spot.source.endswith("aws.csv (version 20261129)") and p5_spot.origin == "catalog"
    assert stored[("p4d.24xlarge", "us-east-1", "on_demand")].gpu == "a100-sxm-40gb"  # 40 GB selects the variant


def test_names_map_by_memory_and_instance_form_factor(kb, state_store):
    _refresh(kb, state_store)
    gpus = {(o.provider, o.instance_type, o.pricing_model): (o.gpu, o.gpu_variant_verified)
            for p in OFFLINE for o in state_store.catalog.provider_offers(p)}
    assert gpus[("lambda", "gpu_1x_h100_pcie", "on_demand")] == ("h100-pcie-80gb", True)  # instance says PCIe
    assert gpus[("lambda", "gpu_8x_h100_sxm5", "on_demand")] == ("h100-sxm-80gb", False)  # default variant
    assert gpus[("runpod", "NVIDIA A100 80GB PCIe", "spot")] == ("a100-pcie-80gb", True)
    assert gpus[("runpod", "AMD Instinct MI300X OAM", "on_demand")] == ("mi300x-192gb", True)
    assert gpus[("lambda", "gpu_1x_a10", "on_demand")] == ("a10-24gb", True)


def test_refreshed_prices_merge_with_curated_ones(kb, state_store):
    _refresh(kb, state_store)
    set_catalog(read_catalog(state_store.url))
    table = offer_table(kb)
    # Cheapest fresh spot A100 SXM4 80GB for one GPU: RunPod's $1.19/h (fixture, 2026-11-28) beats CoreWeave's
    # 8-GPU spot node ($9.65/h, curated 2026-09-20) and AWS p4de spot ($13.3483/h, fixture).
    spot = best_placement(table, "a100-sxm-80gb", 1, today=TODAY, pricing_model="spot")
    assert (spot.offer.provider, spot.price_per_hour_usd, spot.offer.origin) == ("runpod", 1.19, "catalog")
    assert spot.offer.interruptible and not spot.stale
    # AWS p5.48xlarge us-east-1 on-demand: the catalog (2026-11-29) supersedes aws.yaml's 2026-11-09 row
    rows = place(table, "h100-sxm-80gb", 8, today=TODAY, group=8, provider="aws", region="us-east-1")
    assert rows[0].offer.origin == "catalog" and rows[0].offer.as_of == date(2026, 11, 29)
    assert all(r.offer.origin == "catalog" for r in rows if r.offer.instance_type == "p5.48xlarge")
    # commitments exist only in knowledge/prices: still there, with their terms
    one_year = best_placement(table, "h100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="commitment",
                              term_months=12, provider="aws")
    assert one_year.offer.origin == "curated" and one_year.price_per_hour_usd == 43.344
    assert best_placement(table, "h100-sxm-80gb", 8, today=TODAY, group=8, pricing_model="commitment",
                          provider="coreweave") is None  # the page gives no per-term figure (not_found)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_network_error_keeps_the_last_good_table(kb, state_store, monkeypatch):
    _refresh(kb, state_store)
    before = _stored(state_store, "aws")
    monkeypatch.setenv("GPUHUNT_CATALOG_URL", f"http://127.0.0.1:{_closed_port()}")  # connection refused, no internet
    report = refresh_prices(kb, state_store.catalog, providers=["aws"], now=lambda: NOW, timeout=30)
    (aws,) = report.providers
    assert aws.info.status == "kept_last" and "could not be downloaded" in aws.info.reason
    assert _stored(state_store, "aws") == before
    latest = {r.provider: r for r in read_catalog(state_store.url).refreshes}
    assert latest["aws"].status == "kept_last"


@pytest.mark.parametrize(("content", "reason"), [
    ("instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,"
     "cpu_arch,provider_data\n", "the catalog is empty"),
    ("\x00\x01garbage\xff not a catalog\n1,2,3\n", "unknown schema"),
    ("instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
     "a,b,x,y,z,w,H100,80,maybe\nc,d,x,y,z,w,H100,80,maybe\n", "unknown schema: 2 of 2 catalog rows"),
])
def test_implausible_catalogs_keep_the_last_good_table(kb, state_store, tmp_path, content, reason):
    _refresh(kb, state_store)
    before = _stored(state_store, "aws")
    directory = _copy(tmp_path)
    (directory / "aws.csv").write_text(content, encoding="utf-8", errors="surrogateescape")
    report = _refresh(kb, state_store, directory, providers=["aws"])
    (aws,) = report.providers
    assert aws.info.status == "kept_last" and aws.info.reason.startswith(reason), aws.info.reason
    assert _stored(state_store, "aws") == before


def test_prices_falling_over_90_percent_keep_the_last_good_table(kb, state_store, tmp_path):
    _refresh(kb, state_store)
    directory = _copy(tmp_path)
    lines = (directory / "lambdalabs.csv").read_text().splitlines()
    cents = [lines[0]] + [",".join(f[:2] + [str(float(f[2]) / 100)] + f[3:]) for f in (x.split(",") for x in lines[1:])]
    (directory / "lambdalabs.csv").write_text("\n".join(cents) + "\n")
    (lam,) = _refresh(kb, state_store, directory, providers=["lambda"]).providers
    # Dollars read as cents: 31.92 -> 0.3192 etc.; the A10's 0.75 -> 0.0075 USD/GPU-h is below the 0.01 floor and
    # dropped as implausible, so 3 rows match the last good table and all 3 fell by 99%.
    assert lam.info.status == "kept_last" and lam.rejected == ("gpu_1x_a10 us-east-1: 0.0075 USD per GPU-hour is "
                                                               "outside 0.01-200.0",)
    assert lam.info.reason.startswith("prices of 3 of 3 offers fell by more than 90%")
    assert ("gpu_8x_h100_sxm5", "us-east-1", "on_demand", 31.92) in _stored(state_store, "lambda")


def test_a_truncated_catalog_keeps_the_last_good_table(kb, state_store, tmp_path):
    _refresh(kb, state_store)
    directory = _copy(tmp_path)
    lines = (directory / "aws.csv").read_text().splitlines()
    cpu_only = [line for line in lines if line.startswith("m5.large")]
    (directory / "aws.csv").write_text("\n".join(lines[:1] + cpu_only) + "\n")  # a catalog cut short: no GPU rows
    (aws,) = _refresh(kb, state_store, directory, providers=["aws"]).providers
    assert aws.info.status == "kept_last" and aws.info.reason == "offers fell from 9 to 0 (more than 90% fewer)"
    # 9 -> 1 is 89% fewer: a shrinking catalog, not a broken one
    (directory / "aws.csv").write_text("\n".join(lines[:2]) + "\n")
    (aws,) = _refresh(kb, state_store, directory, providers=["aws"]).providers
    assert aws.info.status == "refreshed" and aws.info.offers == 1


def test_a_fetch_that_hangs_times_out_and_keeps_the_last_good_table(kb, state_store):
    _refresh(kb, state_store)
    before = _stored(state_store, "aws")

    def hang(provider):
        time.sleep(5)

    started = time.monotonic()
    (aws,) = refresh_prices(kb, state_store.catalog, providers=["aws"], fetcher=hang, timeout=0.2,
                            now=lambda: NOW).providers
    assert time.monotonic() - started < 3
    assert aws.info.status == "kept_last" and aws.info.reason == "timed out after 0.2 s"
    assert _stored(state_store, "aws") == before


def test_without_a_version_file_the_catalog_is_dated_by_the_file(kb, state_store, tmp_path):
    directory = _copy(tmp_path)
    (directory / "version").unlink()
    stamp = datetime(2026, 11, 20, 12, 0, tzinfo=UTC).timestamp()
    os.utime(directory / "runpod.csv", (stamp, stamp))
    (runpod,) = _refresh(kb, state_store, directory, providers=["runpod"]).providers
    assert runpod.info.as_of == date(2026, 11, 20)
    assert "file date" in runpod.offers[0].source


def test_a_version_that_is_not_a_date_is_an_unknown_schema(kb, state_store, tmp_path):
    directory = _copy(tmp_path)
    (directory / "aws.version").write_text("latest\n")
    (aws,) = _refresh(kb, state_store, directory, providers=["aws"]).providers
    assert aws.info.status == "kept_last" and aws.info.reason.startswith("unknown schema: aws.version says")


def test_unknown_provider_is_a_clear_error(kb, state_store):
    with pytest.raises(UnknownProviderError, match="unknown provider 'hetzner'"):
        _refresh(kb, state_store, providers=["hetzner"])
    # gpuhunt's name and ours both work
    report = _refresh(kb, state_store, providers=["lambdalabs", "lambda"])
    assert [p.info.provider for p in report.providers] == ["lambda"]


def test_online_provider_without_network_is_skipped_with_a_note(monkeypatch):
    import requests
    from gpuhunt.providers.vastai import VastAIProvider

    def offline(self, *args, **kwargs):
        raise requests.ConnectionError("Failed to resolve 'console.vast.ai'")

    monkeypatch.setattr(VastAIProvider, "get", offline)
    with pytest.raises(FetchFailed) as exc:
        GpuhuntFetcher()("vastai")
    assert exc.value.skipped and exc.value.reason.startswith("not reachable (no network?)")


def _item(name, memory, *, count=1, price=2.0, instance="x", spot=False, vendor="nvidia"):
    return SimpleNamespace(instance_name=instance, location="r1", price=price, gpu_count=count, gpu_name=name,
                           gpu_memory=memory, gpu_vendor=vendor, spot=spot)


def test_memory_selects_the_variant_and_unknown_names_are_reported(kb):
    names = name_map(kb)
    items = [_item("A100", 79.6), _item("A100", 40), _item("A100", 60), _item("A100", None), _item("L40S", None),
             _item("V100", 32), _item("MI325X", 288, vendor="amd"), _item("A100", 80, price=0.001),
             _item("v5litepod", 16, vendor="google"), _item(None, None, count=0)]
    mapped = map_catalog(CatalogFetch("runpod", items, TODAY, "test"), names)
    assert [o.gpu for o in mapped.offers] == ["a100-sxm-80gb", "a100-sxm-40gb", "l40s-48gb", "v100-sxm-32gb"]
    assert mapped.unmapped == [("A100 60GB", 1), ("A100 (memory not stated)", 1), ("MI325X 288GB", 1)]
    assert mapped.rejected == ["x r1: 0.001 USD per GPU-hour is outside 0.01-200.0"]
    assert mapped.non_gpu == 2  # a TPU and a CPU-only row
    assert "256 GB" in names.not_mapped[("mi325x", 288)]  # the reason it is left unmapped is recorded


def test_an_item_without_the_catalog_fields_is_an_unknown_schema(kb):
    with pytest.raises(FetchFailed, match="unknown schema"):
        map_catalog(CatalogFetch("aws", [SimpleNamespace(price=1.0)], TODAY, "test"), name_map(kb))


def test_plausibility_rules():
    last = [offer(f"i{i}", 10.0) for i in range(10)]
    assert check_plausible(last, last, rows=10, malformed=0) is None
    assert check_plausible([], [], rows=0, malformed=0) == "the catalog is empty"
    assert check_plausible([], [], rows=3, malformed=0) is None  # rows, none of a known GPU: stored as 0 offers
    one_drop = [offer("i0", 0.5)] + last[1:]
    assert check_plausible(one_drop, last, rows=10, malformed=0).startswith("prices of 1 of 10 offers fell")
    halved = [offer(f"i{i}", 5.0) for i in range(10)]
    assert check_plausible(halved, last, rows=10, malformed=0) is None  # a 50% cut is a price cut, not a unit change


def test_every_mapped_name_is_one_gpuhunt_knows():
    import gpuhunt
    from gpuhunt._internal.catalog import OFFLINE_PROVIDERS, ONLINE_PROVIDERS

    from bot.kb.loader import load_knowledge

    names = load_knowledge(REPO / "knowledge").catalogs["gpuhunt"]
    known = {(g.name, float(g.memory)) for g in (*gpuhunt.KNOWN_NVIDIA_GPUS, *gpuhunt.KNOWN_AMD_GPUS,
                                                  *gpuhunt.KNOWN_INTEL_ACCELERATORS)}
    assert {(g.name, g.memory_gb) for g in names.gpus} <= known
    assert {(g.name, g.memory_gb) for g in names.not_mapped} <= known
    assert {p.catalog for p in names.providers} == set(OFFLINE_PROVIDERS) | set(ONLINE_PROVIDERS)
    assert {p.catalog for p in names.providers if p.online} == set(ONLINE_PROVIDERS)


@pytest.mark.network
@pytest.mark.skipif(not os.environ.get("GPU_ADVISOR_NETWORK_TESTS"),
                    reason="reaches gpuhunt's published catalog; run with GPU_ADVISOR_NETWORK_TESTS=1, never in CI")
def test_published_lambda_catalog_refreshes(kb, tmp_path):  # pragma: no cover - network
    from bot.storage.store import Store

    store = Store(f"sqlite:///{tmp_path / 'state.db'}")
    (lam,) = refresh_prices(kb, store.catalog, providers=["lambda"]).providers
    assert lam.info.status == "refreshed" and lam.info.offers > 0
