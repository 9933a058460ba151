"""LOG_FORMAT=json: every line one JSON object; an event's line carries its fields, masked like text."""

from __future__ import annotations

import json
import logging

import pytest

from bot import logs, metrics
from bot.config import ConfigError, Settings


@pytest.fixture
def restore_logging():
    """Root logging as the test found it; errkb's loggers at NOTSET meanwhile (earlier tests set levels)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    named = {name: logging.getLogger(name) for name in ("errkb", "errkb.events", "errkb.test")}
    levels = {name: (logger.level, logger.disabled) for name, logger in named.items()}
    for logger in named.values():
        logger.disabled = False
        logger.setLevel(logging.NOTSET)  # setLevel also clears logging's isEnabledFor cache
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, logger in named.items():
        logger.setLevel(levels[name][0])
        logger.disabled = levels[name][1]


def test_json_lines_carry_the_event_fields_and_no_secret(restore_logging):
    import io

    logs.configure("INFO", ("s3cret-signing",), "json")
    out = io.StringIO()
    logging.getLogger().handlers[0].stream = out
    with metrics.event("message") as handled:
        metrics.outcome("answered", "pytorch/nccl-timeout-during-allreduce")
    logging.getLogger("errkb.test").warning("token xoxb-1234-5678-abcdef and s3cret-signing")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    event, warning = lines[-2], lines[-1]
    assert handled.outcome == "answered"
    assert event["logger"] == "errkb.events" and event["level"] == "INFO" and event["ts"].endswith("Z")
    assert (event["event_type"], event["outcome"], event["entry_id"]) == (
        "message", "answered", "pytorch/nccl-timeout-during-allreduce")
    assert isinstance(event["latency_ms"], float)
    assert "xoxb-1234" not in warning["message"] and "s3cret" not in warning["message"]


def test_an_unknown_log_format_names_the_variable(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "yaml")
    with pytest.raises(ConfigError, match=r"^LOG_FORMAT: 'yaml' is not a log format"):
        Settings.from_env()
