"""Deployment files, checked without a Docker engine.

* docker-compose.yml validates against the Compose Specification (check-jsonschema's bundled schema);
* the Dockerfile has the shape we promise (multi-stage, non-root, HEALTHCHECK, CMD);
* .env.example and README's Configuration table agree with bot/settings.py.

The image's command itself runs in tests/slack/test_image_command.py.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from bot.settings import Settings
from tests.conftest import REPO

DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))


def _check_jsonschema() -> list[str]:
    script = Path(sys.executable).with_name("check-jsonschema")
    return [str(script)] if script.exists() else [sys.executable, "-m", "check_jsonschema"]


def test_compose_file_validates_against_the_compose_specification():
    result = subprocess.run([*_check_jsonschema(), "--builtin-schema", "vendor.compose-spec", "docker-compose.yml"],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_services():
    bot, postgres = COMPOSE["services"]["bot"], COMPOSE["services"]["postgres"]
    assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert "--http" not in bot["command"] and "--socket" not in bot["command"]  # GPU_ADVISOR_MODE decides
    assert bot["environment"]["GPU_ADVISOR_MODE"] == "${GPU_ADVISOR_MODE:-http}"
    assert bot["environment"]["DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in bot["environment"]["DATABASE_URL"]
    assert bot["env_file"] == [{"path": ".env", "required": False}]
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    volume = postgres["volumes"][0].split(":")[0]
    assert volume in COMPOSE["volumes"]  # a named volume, not a bind mount


def test_dockerfile_shape():
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", DOCKERFILE, re.M)
    assert [image for image, _ in stages] == ["python:3.11-slim", "python:3.11-slim"]
    assert stages[0][1] == "build"
    final = DOCKERFILE.split("\nFROM ")[-1]
    assert "COPY --from=build /opt/venv /opt/venv" in final
    assert not re.search(r"apt-get|gcc|build-essential|pip install", final)  # no build tools in the final stage
    user = re.search(r"^USER\s+(\S+)", final, re.M).group(1)
    assert user.split(":")[0] not in ("root", "0")
    assert re.search(r'^CMD \["gpu-advisor", "serve", "--http"\]$', final, re.M)
    assert "HEALTHCHECK" in final and "/healthz" in final and "curl" not in final.split("HEALTHCHECK", 1)[1]


def test_dockerignore_keeps_the_context_small():
    lines = [x for x in (REPO / ".dockerignore").read_text().splitlines() if x and not x.startswith("#")]
    assert lines[0] == "*"
    assert {"!bot/", "!knowledge/", "!pyproject.toml"} <= set(lines)


def test_env_example_names_only_known_variables_and_holds_no_secrets():
    values = {}
    for line in (REPO / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    known = {name.upper() for name in Settings.model_fields} | {"POSTGRES_PASSWORD", "KNOWLEDGE_DIR"}
    assert set(values) <= known
    for key in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_CLIENT_SECRET",
                "SLACK_STATE_SECRET"):
        assert values[key] == ""
    assert values["POSTGRES_PASSWORD"] == "change-me"
    Settings.model_validate({k.lower(): v for k, v in values.items() if v and k.lower() in Settings.model_fields})


def _readme_table() -> dict[str, str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]*) \|", section, re.M)
    return {name: default.strip() for name, default in rows}


def test_readme_documents_every_setting_with_its_default():
    table = _readme_table()
    for name, field in Settings.model_fields.items():
        var = name.upper()
        assert var in table, f"{var} is missing from README.md's Configuration table"
        default = field.default
        if default is None:
            assert table[var] in ("unset", "—", "-"), f"{var}: README says {table[var]!r}, default is unset"
        else:
            shown = table[var].strip("`")
            expected = str(int(default) if isinstance(default, float) and default.is_integer() else default)
            assert shown == expected, f"{var}: README says {shown!r}, default is {expected!r}"


def test_readme_says_what_is_verified_where():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Run with Docker Compose", 1)[1].split("\n## ", 1)[0]
    assert "Not verified here" in section and "CI" in section
    assert shlex.split("docker compose up -d --build")[0] in section


def test_image_has_a_cjk_font_for_chinese_charts():
    # Charts of Chinese answers are drawn in Chinese only when matplotlib finds a CJK font (bot/render/charts.py);
    # the final stage gets Noto Sans CJK from the build stage (no package manager there) and builds its font list.
    from bot.render.charts import _CJK_FAMILIES

    build, final = DOCKERFILE.split("\nFROM ")[1:3]
    assert "fonts-noto-cjk" in build and "NotoSansCJK-Regular.ttc" in build
    assert "COPY --from=build /opt/fonts/noto-cjk /usr/share/fonts/" in final
    assert "Noto Sans CJK SC" in _CJK_FAMILIES  # a family NotoSansCJK-Regular.ttc holds
    assert re.search(r"MPLCONFIGDIR=/opt/matplotlib", final) and "cjk_font()" in final
