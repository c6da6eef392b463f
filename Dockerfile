# syntax=docker/dockerfile:1
# GPU Advisor: the Slack bot in HTTP mode (Socket Mode with GPU_ADVISOR_MODE=socket and
# `command: gpu-advisor serve`, as docker-compose.yml does).
#
# Two stages: the first builds a virtual environment from the wheel (pip, the hatchling build
# backend and the source stay there) and fetches a CJK font; the second copies only that environment
# and the font onto a fresh python:3.11-slim and runs it as an unprivileged user. Every dependency
# ships as a wheel, so no compiler is installed in either stage, and no package manager runs in the
# second.
#
# The font: charts of answers to Chinese questions are drawn in Chinese when matplotlib finds a font
# with CJK glyphs (bot/render/charts.py cjk_font; without one they are drawn in English). Debian's
# fonts-noto-cjk package (SIL Open Font License 1.1) holds Noto Sans CJK and Noto Serif CJK; only the
# sans regular and bold faces (about 40 MB) and the package's copyright file are copied.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md slack-manifest.yaml ./
COPY bot ./bot
COPY knowledge ./knowledge
RUN python -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-compile . \
 && /opt/venv/bin/python -m pip uninstall --yes pip \
 && /opt/venv/bin/python -m compileall -q /opt/venv/lib \
 && cd / && /opt/venv/bin/gpu-advisor kb validate
RUN apt-get update \
 && apt-get install --yes --no-install-recommends fonts-noto-cjk \
 && mkdir -p /opt/fonts/noto-cjk \
 && cp /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc \
       /usr/share/doc/fonts-noto-cjk/copyright /opt/fonts/noto-cjk/ \
 && rm -rf /var/lib/apt/lists/*

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    MPLCONFIGDIR=/opt/matplotlib \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=sqlite:////data/gpu-advisor.db
RUN groupadd --system --gid 10001 advisor \
 && useradd --system --uid 10001 --gid advisor --home-dir /data --no-create-home --shell /usr/sbin/nologin advisor \
 && mkdir -p /data && chown advisor:advisor /data
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/fonts/noto-cjk /usr/share/fonts/opentype/noto-cjk
# matplotlib's font list, built once here: answer workers are fresh processes and would otherwise each
# scan the fonts again. The directory stays the bot user's (matplotlib falls back to a temporary one,
# with a warning, when its directory is not writable). The build fails if no CJK font is found.
RUN python -c "from bot.render.charts import cjk_font; import sys; f = cjk_font(); print('CJK font:', f); sys.exit(0 if f else 1)" \
 && chown -R advisor:advisor /opt/matplotlib
WORKDIR /data
USER 10001:10001
EXPOSE 3000
# curl is not in the slim image: the check uses Python's urllib. /healthz answers 503 (an error
# for urlopen) when the database is unreachable or no knowledge base is loaded.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '3000'), timeout=4)"]
CMD ["gpu-advisor", "serve", "--http"]
