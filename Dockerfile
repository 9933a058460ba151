# errkb in one small image: Python 3.11 slim, run as the non-root user 10001, healthy while /livez answers.
#   docker build -t errkb . && docker run -e SLACK_BOT_TOKEN -e SLACK_SIGNING_SECRET -p 3000:3000 errkb
# The SQLite default lives in /var/lib/errkb (mount a volume there), or set DATABASE_URL to PostgreSQL.
# Two stages: the builder installs errkb and its dependencies into a virtualenv and compiles the catalogs; the
# runtime stage gets that virtualenv and the KB data only (no pip, no build tools, no tests; see .dockerignore).

FROM python:3.11-slim AS builder

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN python -m venv /opt/venv
WORKDIR /app
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE babel.cfg ./
COPY bot ./bot
COPY locales ./locales
COPY seeds ./seeds
# What a regex taught from Slack must not match (and what `errkb lint` checks): the KB's own pastes and,
# in pastes/_chat, the chat that stays unanswered.
COPY pastes ./pastes
# Editable into the virtualenv, so the bundled seeds and catalogs stay beside the package in /app; compile the
# catalogs and the bytecode now, so the running (non-root) process never needs to write into /app. Then drop the
# installers: the runtime image needs none.
# The release workflow passes the tag's version (--build-arg VERSION=1.2.3); without it (no .git here) errkb's
# version is setuptools-scm's fallback, pyproject.toml's fallback_version.
ARG VERSION=""
RUN env ${VERSION:+SETUPTOOLS_SCM_PRETEND_VERSION_FOR_ERRKB=$VERSION} /opt/venv/bin/pip install -e . \
 && /opt/venv/bin/python -c "from bot import i18n; i18n.load_catalogs()" \
 && /opt/venv/bin/python -m compileall -q /app/bot \
 && /opt/venv/bin/python -m pip uninstall -y -q pip setuptools wheel \
 && rm -rf /app/*.egg-info /app/build


FROM python:3.11-slim AS runtime

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH

# The system pip and setuptools are not needed either: nothing is installed at run time.
RUN python -m pip uninstall -y -q pip setuptools wheel 2>/dev/null; \
    groupadd --system --gid 10001 errkb \
 && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /var/lib/errkb --shell /usr/sbin/nologin errkb

COPY --from=builder /opt/venv /opt/venv
COPY --from=builder /app /app

# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 10001:10001
WORKDIR /var/lib/errkb
ENV DATABASE_URL=sqlite+aiosqlite:////var/lib/errkb/errkb.db \
    ERRKB_SEEDS=/app/seeds \
    ERRKB_PASTES=/app/pastes \
    PORT=3000
VOLUME ["/var/lib/errkb"]
EXPOSE 3000
# /livez: the process answers (no curl in slim, so Python asks). /readyz is for the orchestrator's readiness probe.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/livez' % (os.environ.get('PORT') or '3000'), timeout=2)"]
CMD ["errkb", "serve"]
