"""Logging for ``errkb serve``: one format, and nothing secret or private in any line.

At any level (``LOG_LEVEL``, default INFO), a line never holds a token, the signing secret, a
password or a message's text: tokens, URL passwords and the configured secrets are masked in every
record; the Slack libraries' own chatter below WARNING (which prints request and response bodies,
hence people's messages) is dropped; their warnings and errors (and asyncio's) keep their first words and the
identifiers in them (``type``, ``error``, ``action_id``…) but not the payload or response they quote
(Bolt's "Unhandled request (…)" carries dialog submissions and interactive actions, "Failed to run
listener function (error: …)" the error's text); and a traceback shows where it failed and the
exception's type, not its text, which may quote a payload or an API response (``SlackApiError``
prints the whole response) — except for the OS, network and database errors an operator needs. Every
record's message is one line of at most ``MESSAGE_MAX`` characters (:func:`bounded`): a field a signed
request sent (a 5,000-character id, a line break) never makes a long or a forged line.
"""

from __future__ import annotations

import json
import logging
import re
import time
import traceback
from collections.abc import Iterable
from typing import Any

# (shape, replacement): Slack bot/user/app tokens, the password of a URL, bearer credentials
_SECRET_SHAPES = (
    (re.compile(r"\b(?:xox[abeoprs](?:\.[A-Za-z0-9-]+)?|xapp)-[A-Za-z0-9-]{6,}"), "***"),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), r"\1***@"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*"), r"\1***"),
)
_CHATTY = ("slack_bolt", "slack_sdk", "aiosqlite", "asyncio", "sqlalchemy")
# Libraries whose lines quote payloads, responses or an exception's repr ("Task exception was never
# retrieved\nfuture: <Task … exception=KeyError('…')>").
_QUOTING = ("slack_bolt", "slack_sdk", "asyncio")
MASK = "***"
LINE_MAX = 300  # characters of such a library's line that are kept
MESSAGE_MAX = 400  # characters of any record's message that are kept (a field a request sent may be huge)
# Characters that would start a new line or corrupt a terminal: written escaped, so one record is one line.
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\u2028\u2029]")
# Where such a line starts quoting a payload or a response: "Unhandled request ({…",
# "Failed to run listener function (error: …", "Failed to decode Slack API response: …".
_DETAILS = re.compile(r"\s*[({\[]|:\s|\n")
# Identifiers worth keeping from what a line quotes: Slack's types, error codes and developer-chosen ids.
_IDENTIFIERS = re.compile(r"""['"](type|subtype|error|action_id|callback_id|command)['"]:\s*['"]([\w./:-]{1,64})['"]""")
# Exceptions whose text an operator needs and that never quote a payload: the OS, the network, the
# database driver (SQLAlchemy's "[SQL: …]" and "[parameters: …]" parts are cut).
_TOLD = ("builtins.TimeoutError", "sqlalchemy.", "asyncpg.", "sqlite3.", "aiohttp.client_exceptions.")
WITHHELD = "(text withheld: it may quote a payload)"


class Redact(logging.Filter):
    """Masks secrets in every record; drops the chatty libraries' records below WARNING and cuts what
    the quoting ones' lines quote (:func:`library_line`); shapes tracebacks (:func:`exception_shape`)."""

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
        top = record.name.split(".")[0]
        if record.levelno < logging.WARNING and top in _CHATTY:
            return False
        message = record.getMessage()
        if top in _QUOTING:
            message = library_line(message)
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = exception_shape(record.exc_info[1])
        record.msg, record.args = bounded(self.mask(message)), ()
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        return True


def bounded(message: str) -> str:
    """A message as one line of at most ``MESSAGE_MAX`` characters (and a note of what was cut): control
    characters and line breaks escaped, lone surrogates replaced. Whatever a request's fields hold and
    wherever our code quotes one, the line stays one short line."""
    if message.isprintable() and len(message) <= MESSAGE_MAX:
        return message  # the usual line, one pass in C
    message = _CONTROLS.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), message)
    message = message.encode("utf-8", "replace").decode("utf-8")
    if len(message) > MESSAGE_MAX:
        message = f"{message[:MESSAGE_MAX]}… ({len(message) - MESSAGE_MAX} more characters)"
    return message


def library_line(message: str) -> str:
    """A library's line without the payload, response or repr it quotes: its first words and the
    identifiers found in the rest, within ``LINE_MAX`` characters."""
    cut = _DETAILS.search(message)
    if cut is None:
        return message[:LINE_MAX]
    head, rest = message[:cut.start()], message[cut.start():]
    found = " ".join(dict.fromkeys(f"{key}={value}" for key, value in _IDENTIFIERS.findall(rest)))
    return f"{head} [{found or 'details withheld'}]"[:LINE_MAX]


def exception_shape(error: BaseException) -> str:
    """A traceback (with its causes, oldest first as Python prints them) as frames and exception
    types; an exception's text only where it is one an operator needs (``_TOLD``)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    blocks = []
    for older, newer in zip(reversed(chain), [*reversed(chain[:-1]), None], strict=True):
        kind = type(older)
        name = f"{kind.__module__}.{kind.__qualname__}"
        told = isinstance(older, OSError) or any(name.startswith(prefix) for prefix in _TOLD)
        text = re.split(r"\s*\[(?:SQL|parameters): ", str(older), maxsplit=1)[0] if told else WITHHELD
        frames = "".join(traceback.format_list(traceback.extract_tb(older.__traceback__)))
        blocks.append(f"Traceback (most recent call last):\n{frames}{kind.__qualname__}: {text}")
        if newer is not None:
            blocks.append("\nThe above exception was the direct cause of the following exception:\n"
                          if newer.__cause__ is older else
                          "\nDuring handling of the above exception, another exception occurred:\n")
    return "\n".join(blocks)


# Fields a record may carry in ``extra`` that a JSON line keeps (``bot.metrics.event`` sets them).
JSON_FIELDS = ("event_type", "outcome", "latency_ms", "entry_id")


class JsonLines(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``message`` (and ``exception``,
    and the structured fields of ``JSON_FIELDS`` when a record has them)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
                                "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        line |= {name: getattr(record, name) for name in JSON_FIELDS if hasattr(record, name)}
        if record.exc_text:
            line["exception"] = record.exc_text
        elif record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
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
