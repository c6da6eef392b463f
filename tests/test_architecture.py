"""The arrows of the architecture: the core never imports Slack, the Web API client or the database."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE = ["bot.kb.loader", "bot.kb.index", "bot.kb.importers", "bot.parsing", "bot.estimation", "bot.pricing.offers",
        "bot.advice.advise", "bot.advice.conversation", "bot.render.terminal", "bot.render.jsonout"]


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_no_slack_or_database(module):
    code = (f"import sys, {module}; bad = sorted({{m.split('.')[0] for m in sys.modules}} & "
            "{'slack_bolt', 'slack_sdk', 'sqlalchemy'}); print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{module} pulls in {proc.stdout.strip()}"


def test_blockkit_renderer_uses_only_slack_sdk_models():
    # slack_sdk's package __init__ loads its clients too, so check what our module itself imports.
    import ast
    import inspect

    import bot.render.blockkit as blockkit

    tree = ast.parse(inspect.getsource(blockkit))
    slack_imports = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                     and node.module and node.module.startswith("slack")}
    assert slack_imports == {"slack_sdk.models.blocks"}
    code = ("import sys, bot.render.blockkit; bad = sorted(m for m in sys.modules if m.startswith(('slack_bolt', "
            "'sqlalchemy'))); print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout
