"""``gpu-advisor prices refresh|status|show`` over the fixture catalog (tests/fixtures/gpuhunt), offline."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from bot.cli import main
from bot.pricing.offers import current_catalog, set_catalog
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "gpuhunt"


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A fresh SQLite state store as DATABASE_URL, with the knowledge base and clock pinned."""
    from datetime import date

    import bot.cli as cli

    url = f"sqlite:///{tmp_path / 'state.db'}"
    for name in ("DATABASE_URL", "GPUHUNT_CATALOG_DIR", "GPUHUNT_CATALOG_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setattr(cli, "_today", lambda: date(2026, 12, 1))
    set_catalog(None)
    yield url
    set_catalog(None)


def test_refresh_from_a_catalog_directory(db, capsys):
    assert main(["prices", "refresh", "--catalog-dir", str(FIXTURE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "aws: refreshed 9 offers as of 2026-11-29 (1 malformed row(s) skipped; unmapped GPU names: T4G 16GB x1)"
    assert out[1] == "lambda: refreshed 4 offers as of 2026-11-28"
    assert out[2] == "runpod: refreshed 6 offers as of 2026-11-28"
    assert out[3].startswith("skipped crusoe, daytona, digitalocean,") and out[3].endswith(
        "online provider not queried: a catalog directory was given (offline)")
    assert out[4] == "run 1: 3 refreshed, 0 kept, 9 skipped"
    assert current_catalog() is None  # main() leaves no catalog behind in the calling process


def test_status_per_provider(db, capsys):
    main(["prices", "refresh", "--catalog-dir", str(FIXTURE), "--provider", "aws", "--provider", "lambdalabs"])
    capsys.readouterr()
    assert main(["prices", "status", "--json"]) == 0
    rows = {r["provider"]: r for r in json.loads(capsys.readouterr().out)}
    aws = rows["aws"]
    # 9 catalog offers, 8 after one duplicate (p5.48xlarge on-demand at 55.04 in us-east-1 and us-east-2)
    assert aws["catalog_offers"] == 8 and aws["newest_as_of"] == "2026-11-29"
    assert aws["last_refresh"]["status"] == "refreshed" and aws["last_refresh"]["malformed"] == 1
    assert aws["unmapped"] == [{"name": "T4G 16GB", "rows": 1}]
    assert rows["lambda"]["catalog_offers"] == 4 and rows["lambda"]["last_refresh"]["as_of"] == "2026-11-28"
    assert rows["runpod"]["catalog_offers"] == 0 and rows["runpod"]["last_refresh"] is None  # not asked for
    assert rows["aws-china"]["curated_offers"] == 28  # curated providers are listed too
    assert main(["prices", "status"]) == 0
    text = capsys.readouterr().out
    assert "unmapped GPU names (catalog rows without a knowledge-base GPU, not priced): aws: T4G 16GB (1 rows)" in text


def test_status_without_any_refresh_lists_curated_prices(db, capsys, tmp_path):
    assert main(["prices", "status"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("provider")
    assert "digitalocean" in out and "refreshed" not in out
    assert not (tmp_path / "state.db").exists()  # reading created nothing


def test_show_cheapest_spot_a100_80gb(db, capsys):
    main(["prices", "refresh", "--catalog-dir", str(FIXTURE)])
    capsys.readouterr()
    assert main(["prices", "show", "a100", "80gb", "--pricing", "spot", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    best = data["best"]
    # runpod.csv: NVIDIA A100-SXM4-80GB spot $1.19/h (catalog 2026-11-28)
    assert (best["provider"], best["price_per_hour_usd"], best["as_of"], best["age_days"], best["origin"]) == (
        "runpod", 1.19, "2026-11-28", 3, "catalog")
    assert best["pricing_model"] == "spot" and best["stale"] is False


def test_show_one_year_reserved_8x_h100_says_term_and_upfront(db, capsys):
    assert main(["prices", "show", "h100", "--count", "8", "--group", "8", "--pricing", "commitment",
                 "--term-months", "12", "--provider", "aws"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    # aws.yaml: p5.48xlarge 1y Convertible RI, no upfront, $43.344/h = $5.418/GPU-h (2025-11-30)
    assert line.startswith("8x H100 SXM5 80GB, commitment: $43.34/h ($5.42/GPU-h) AWS 1x p5.48xlarge [8 GPU]")
    assert "12-month term, no upfront" in line and "as of 2025-11-30, stale" in line


def test_show_four_mi300x_in_one_group_at_digitalocean(db, capsys):
    assert main(["prices", "show", "mi300x", "--count", "4", "--group", "4", "--provider", "digitalocean"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("4x MI300X, on-demand: $15.92/h ($1.99/GPU-h) DigitalOcean 1x AMD MI300X (8x)")
    assert line.endswith("4 idle")


def test_show_cny_prices_as_published(db, capsys):
    assert main(["prices", "show", "t4", "--provider", "aws-china", "--region", "cn-north-1"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    # aws-china.yaml g4dn.xlarge cn-north-1: 5.223 CNY/h; 5.223 / 6.8012 = 0.76795 USD/h
    assert "$0.77/h" in line and "published ¥5.22/h, USD at 6.8012 CNY/USD of 2026-05-08" in line


def test_refresh_exits_1_when_a_provider_kept_its_last_table(db, capsys, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("GPUHUNT_CATALOG_URL", f"http://127.0.0.1:{port}")  # refused: no internet involved
    assert main(["prices", "refresh", "--provider", "aws", "--timeout", "30"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("aws: kept the last good table: the published catalog could not be downloaded")
    assert "Traceback" not in captured.err


def test_unknown_provider_and_bad_directory_exit_2(db, capsys, tmp_path):
    assert main(["prices", "refresh", "--provider", "hetzner", "--catalog-dir", str(FIXTURE)]) == 2
    assert "unknown provider 'hetzner'" in capsys.readouterr().err
    assert main(["prices", "refresh", "--catalog-dir", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["ask", "8x h100 for 3 days"], ["kb", "stats"],
                                  ["prices", "show", "h100", "--count", "8"]])
def test_answering_imports_no_slack_database_or_settings_library(argv, tmp_path):
    # A refreshed SQLite store is read with sqlite3; serve's libraries stay unloaded (cold start, issue 16 item 5).
    url = f"sqlite:///{tmp_path / 'state.db'}"
    refresh = subprocess.run([sys.executable, "-m", "bot.cli", "prices", "refresh", "--catalog-dir", str(FIXTURE)],
                             env={**_env(), "DATABASE_URL": url}, capture_output=True, text=True, timeout=120)
    assert refresh.returncode == 0, refresh.stderr
    code = ("import sys; from bot.cli import main; rc = main(sys.argv[1:]); "
            "bad = sorted({m.split('.')[0] for m in sys.modules} & {'slack_bolt', 'slack_sdk', 'sqlalchemy', "
            "'pydantic_settings', 'gpuhunt'}); print('IMPORTED', bad, file=sys.stderr); sys.exit(rc or len(bad))")
    proc = subprocess.run([sys.executable, "-c", code, *argv], env={**_env(), "DATABASE_URL": url},
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "IMPORTED []" in proc.stderr


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUNT_", "DATABASE_URL"))}
