"""Log lines never carry tokens, secrets or passwords, and the Slack libraries' chatter stays out."""

from __future__ import annotations

import logging

from bot.logs import Redact


def _record(name: str, level: int, msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_tokens_urls_and_configured_secrets_are_masked():
    redact = Redact(["s1gning-s3cret-value"])
    record = _record("bot.service", logging.INFO, "token %s url %s secret %s auth %s",
                     "xoxb-1234-5678-abcdefgh", "postgresql+asyncpg://app:hunter2@db/errkb",
                     "s1gning-s3cret-value", "Bearer abcdefghijklmnop")
    assert redact.filter(record)
    assert record.getMessage() == ("token *** url postgresql+asyncpg://app:***@db/errkb secret *** "
                                   "auth Bearer ***")


def test_an_exception_text_is_masked_too():
    redact = Redact()
    try:
        raise RuntimeError("could not connect with xapp-1-A0B1C2-123456-abcdef")
    except RuntimeError:
        import sys

        record = logging.LogRecord("bot", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    assert redact.filter(record)
    assert "xapp-1-A0B1C2" not in record.exc_text and "***" in record.exc_text


def test_slack_library_debug_lines_are_dropped_but_their_warnings_kept():
    redact = Redact()
    assert not redact.filter(_record("slack_sdk.web.async_base_client", logging.DEBUG, "Sending a request - body: x"))
    assert not redact.filter(_record("slack_bolt.App", logging.INFO, "request body: x"))
    assert redact.filter(_record("slack_bolt.App", logging.WARNING, "Unhandled request"))
    assert redact.filter(_record("bot.slack.front", logging.DEBUG, "refused"))
