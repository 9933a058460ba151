# errkb in one small image: Python 3.11 slim, installed as a non-root user, healthy when /readyz says so.
#   docker build -t errkb . && docker run -e SLACK_BOT_TOKEN -e SLACK_SIGNING_SECRET -p 3000:3000 errkb
# The SQLite default lives in /var/lib/errkb (mount a volume there), or set DATABASE_URL to PostgreSQL.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --system --uid 10001 --create-home --home-dir /var/lib/errkb errkb

WORKDIR /app
COPY pyproject.toml README.md babel.cfg ./
COPY bot ./bot
COPY locales ./locales
COPY seeds ./seeds
# What a regex taught from Slack must not match (and what `errkb lint` checks): the KB's own pastes and,
# in pastes/_chat, the chat that stays unanswered.
COPY pastes ./pastes
# Editable, so the bundled seeds and catalogs stay beside the package; compile the catalogs now,
# as root, so the running (non-root) process never needs to write into /app.
RUN pip install -e . && python -c "from bot import i18n; i18n.load_catalogs()"

USER errkb
WORKDIR /var/lib/errkb
ENV DATABASE_URL=sqlite+aiosqlite:////var/lib/errkb/errkb.db \
    ERRKB_SEEDS=/app/seeds \
    ERRKB_PASTES=/app/pastes \
    PORT=3000
VOLUME ["/var/lib/errkb"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/readyz' % os.environ.get('PORT', '3000'), timeout=2)"
CMD ["errkb", "serve"]
