"""Knowledge reloads: a good update is served, a broken one is rejected with file:line in the log."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.kb.loader import KnowledgeBase, get_knowledge, load_knowledge, set_knowledge
from bot.kb.reload import KnowledgeReloader, snapshot


def _price(kb: KnowledgeBase) -> float:
    return kb.providers["acme"].offers[0].price_per_hour_usd


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    # Make the change visible to a (mtime_ns, size) comparison even on coarse clocks.
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def served(tiny_kb_dir):
    """A reloader on the tiny knowledge directory that records what it installs."""
    installed: list[KnowledgeBase] = []
    results: list[bool] = []
    reloader = KnowledgeReloader(tiny_kb_dir, interval=0, install=installed.append, on_result=results.append)
    yield reloader, tiny_kb_dir, installed, results
    reloader.stop()


def test_reload_serves_a_changed_price(served):
    reloader, kdir, installed, results = served
    _edit(kdir / "prices" / "acme.yaml", "price_per_hour_usd: 40.0", "price_per_hour_usd: 44.5")
    assert reloader.reload("test") is True
    assert _price(installed[-1]) == 44.5
    assert results == [True]
    assert reloader.status().reloads == 1


def test_broken_update_is_rejected_and_logged_with_file_and_line(served, caplog):
    reloader, kdir, installed, results = served
    _edit(kdir / "prices" / "acme.yaml", "price_per_hour_usd: 40.0", "price_per_hour_usd: forty")
    with caplog.at_level(logging.ERROR, logger="gpu_advisor.kb.reload"):
        assert reloader.reload("test") is False
    assert installed == [] and results == [False]
    lines = [r.getMessage() for r in caplog.records]
    assert any(re.search(r"knowledge/prices/acme\.yaml:\d+: offers\.0\.price_per_hour_usd: ", m) for m in lines), lines
    assert any("rejected" in m for m in lines)
    status = reloader.status()
    assert status.rejected == 1 and status.last_error_count >= 1


def test_check_reloads_only_on_change_and_does_not_retry_a_broken_file(served):
    reloader, kdir, installed, _ = served
    assert reloader.check() is None
    _edit(kdir / "gpus.yaml", "memory_gb: 80\n  memory_bandwidth_gb_s: 3350", "memory_gb: 80\n  memory_bandwidth_gb_s: 3352")
    assert reloader.check() is True
    assert installed[-1].gpus["h100-sxm-80gb"].memory_bandwidth_gb_s == 3352
    assert reloader.check() is None
    (kdir / "prices" / "acme.yaml").write_text("provider: acme\noffers: [", encoding="utf-8")  # YAML error
    assert reloader.check() is False
    assert reloader.check() is None  # the same broken files are not reloaded every interval
    (kdir / "prices" / "acme.yaml").unlink()  # removing a file is a change too
    assert reloader.check() is True


def test_background_thread_notices_changes(tiny_kb_dir):
    installed: list[KnowledgeBase] = []
    done = threading.Event()
    reloader = KnowledgeReloader(tiny_kb_dir, interval=0.05, install=installed.append,
                                 on_result=lambda ok: done.set())
    reloader.start()
    try:
        _edit(tiny_kb_dir / "prices" / "acme.yaml", "price_per_hour_usd: 40.0", "price_per_hour_usd: 41.0")
        assert done.wait(5)
        assert _price(installed[-1]) == 41.0
    finally:
        reloader.stop()


def test_sighup_reloads_the_process_wide_knowledge_base(tiny_kb_dir):
    set_knowledge(load_knowledge(tiny_kb_dir))
    done = threading.Event()
    reloader = KnowledgeReloader(tiny_kb_dir, interval=0, on_result=lambda ok: done.set())
    previous = signal.getsignal(signal.SIGHUP)
    try:
        reloader.install_sighup()
        reloader.start()
        _edit(tiny_kb_dir / "prices" / "acme.yaml", "price_per_hour_usd: 40.0", "price_per_hour_usd: 39.0")
        os.kill(os.getpid(), signal.SIGHUP)
        assert done.wait(5)
        assert _price(get_knowledge()) == 39.0
    finally:
        reloader.stop()
        signal.signal(signal.SIGHUP, previous)
        set_knowledge(None)  # the next get_knowledge() loads the default directory again


def test_snapshot_sees_sizes_and_new_files(tmp_path):
    (tmp_path / "a.yaml").write_text("x")
    first = snapshot(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yaml").write_text("y")
    assert set(snapshot(tmp_path)) == {"a.yaml", os.path.join("sub", "b.yaml")}
    assert snapshot(tmp_path) != first
    assert snapshot(tmp_path / "missing") == {}


def test_reload_module_imports_no_slack_or_database():
    code = ("import sys, bot.kb.reload; bad = sorted({m.split('.')[0] for m in sys.modules} & "
            "{'slack_bolt', 'slack_sdk', 'sqlalchemy'}); print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


def test_thread_survives_stop_quickly(tiny_kb_dir):
    reloader = KnowledgeReloader(tiny_kb_dir, interval=300)
    thread = reloader.start()
    started = time.monotonic()
    reloader.stop()
    assert not thread.is_alive() and time.monotonic() - started < 2
