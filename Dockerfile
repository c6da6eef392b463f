# syntax=docker/dockerfile:1
# GPU Advisor: the Slack bot in HTTP mode (Socket Mode with GPU_ADVISOR_MODE=socket and
# `command: gpu-advisor serve`, as docker-compose.yml does).
#
# Two stages: the first builds a virtual environment from the wheel (pip, the hatchling build
# backend and the source stay there); the second copies only that environment onto a fresh
# python:3.11-slim and runs it as an unprivileged user. Every dependency ships as a wheel,
# so no compiler is installed in either stage.

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

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=sqlite:////data/gpu-advisor.db
RUN groupadd --system --gid 10001 advisor \
 && useradd --system --uid 10001 --gid advisor --home-dir /data --no-create-home --shell /usr/sbin/nologin advisor \
 && mkdir -p /data && chown advisor:advisor /data
COPY --from=build /opt/venv /opt/venv
WORKDIR /data
USER 10001:10001
EXPOSE 3000
# curl is not in the slim image: the check uses Python's urllib. /healthz answers 503 (an error
# for urlopen) when the database is unreachable or no knowledge base is loaded.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '3000'), timeout=4)"]
CMD ["gpu-advisor", "serve", "--http"]
