"""Logging for ``errkb serve``: one format, and nothing secret or private in any line.

At any level (``LOG_LEVEL``, default INFO), a line never holds a token, the signing secret, a
password or a message's text: tokens, URL passwords and the configured secrets are masked in every
record, and the Slack libraries' own chatter below WARNING (which prints request and response
bodies, hence people's messages) is dropped.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable
from typing import Any

# (shape, replacement): Slack bot/user/app tokens, the password of a URL, bearer credentials
_SECRET_SHAPES = (
    (re.compile(r"\b(?:xox[abeoprs](?:\.[A-Za-z0-9-]+)?|xapp)-[A-Za-z0-9-]{6,}"), "***"),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), r"\1***@"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*"), r"\1***"),
)
_CHATTY = ("slack_bolt", "slack_sdk", "aiosqlite", "asyncio", "sqlalchemy")
MASK = "***"


class Redact(logging.Filter):
    """Masks secrets in every record; drops the Slack libraries' records below WARNING."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        for shape, replacement in _SECRET_SHAPES:
            text = shape.sub(replacement, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and record.name.split(".")[0] in _CHATTY:
            return False
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = self.mask(message), ()
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        return True


# Fields a record may carry in ``extra`` that a JSON line keeps (``bot.metrics.event`` sets them).
JSON_FIELDS = ("event_type", "outcome", "latency_ms", "entry_id")


class JsonLines(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``message`` (and ``exception``,
    and the structured fields of ``JSON_FIELDS`` when a record has them)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
                                "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        line |= {name: getattr(record, name) for name in JSON_FIELDS if hasattr(record, name)}
        if record.exc_text or record.exc_info:
            line["exception"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str, secrets: Iterable[str | None] = (), fmt: str = "text") -> None:
    """Root logging to standard error at ``level``, every line through :class:`Redact`; ``fmt``
    ``json`` writes JSON lines (:class:`JsonLines`) instead of text."""
    handler = logging.StreamHandler()
    if fmt == "json":
        formatter: logging.Formatter = JsonLines()
        formatter.converter = time.gmtime
    else:
        formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler.setFormatter(formatter)
    handler.addFilter(Redact(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
