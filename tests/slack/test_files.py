"""Which files the bot reads, and where it may send its token (pure functions, no Slack)."""

from __future__ import annotations

import pytest

from bot.slack.files import decode, is_text_file, trusted


@pytest.mark.parametrize(("url", "api_url", "ok"), [
    ("https://files.slack.com/files-pri/T1-F1/log.txt", None, True),
    ("https://files.slack-gov.com/files-pri/T1-F1/log.txt", None, True),
    ("http://files.slack.com/files-pri/T1-F1/log.txt", None, False),  # never over plain HTTP
    ("https://files.slack.com.evil.example/x", None, False),
    ("https://evil.example/files.slack.com", None, False),
    ("http://127.0.0.1:8080/files/F1/log.txt", "http://127.0.0.1:8080/api/", True),  # SLACK_API_URL's host
    ("http://127.0.0.1:9999/files/F1/log.txt", "http://127.0.0.1:8080/api/", False),
])
def test_the_token_only_goes_to_slack_or_the_configured_api_host(url, api_url, ok):
    assert trusted(url, api_url) is ok


def test_snippets_and_text_files_are_read_binaries_are_not():
    assert is_text_file({"mode": "snippet", "filetype": "python"})
    assert is_text_file({"mode": "hosted", "mimetype": "text/plain"})
    assert not is_text_file({"mode": "hosted", "mimetype": "image/png", "filetype": "png"})
    assert not is_text_file({"mode": "external", "mimetype": "text/plain"})
    assert decode(b"RuntimeError: boom\n\xff") == "RuntimeError: boom\n\ufffd"
    assert decode(b"\x7fELF\x02\x01\x01\x00\x00") is None
