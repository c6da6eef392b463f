"""The pricing core imports no Slack, database or CLI library, and gpuhunt only when a refresh runs."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["bot.pricing.offers", "bot.pricing.refresh", "bot.pricing.schedule",
                                    "bot.storage.catalog_read", "bot.storage.urls"])
def test_pricing_modules_import_no_slack_database_cli_or_gpuhunt(module):
    code = (f"import sys, {module}; bad = sorted({{m.split('.')[0] for m in sys.modules}} & "
            "{'slack_bolt', 'slack_sdk', 'sqlalchemy', 'click', 'gpuhunt', 'pydantic_settings'}); "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{module} pulls in {proc.stdout.strip()}"
