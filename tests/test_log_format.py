"""LOG_FORMAT=json: every line one JSON object; an event's line carries its fields, masked like text."""

from __future__ import annotations

import json
import logging

import pytest

from bot import logs, metrics
from bot.config import ConfigError, Settings


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


def test_json_lines_carry_the_event_fields_and_no_secret(restore_logging, monkeypatch):
    import io

    logs.configure("INFO", ("s3cret-signing",), "json")
    out = io.StringIO()
    logging.getLogger().handlers[0].stream = out
    for name in ("errkb.events", "errkb.test"):
        monkeypatch.setattr(logging.getLogger(name), "level", logging.NOTSET)
        monkeypatch.setattr(logging.getLogger(name), "disabled", False)
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
