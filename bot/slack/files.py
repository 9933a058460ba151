"""The text of a message: its own text plus the text snippets Slack made of long pastes.

Snippet content is fetched with the bot token (``files.info``, then ``url_private``). The token
is only ever sent to Slack's own hosts or the host of ``SLACK_API_URL``; binary files and files that
are not text are skipped. A file as long as a paste is read whole; a longer one (a CI log, a training
log of any size) is read as ``errkb ci`` reads a log, streamed as it downloads (:mod:`bot.ci.reader`):
its text is the windows around its error lines, never the whole file in memory.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.ci.reader import LogReader, Window
from bot.service.knowledge import MAX_PASTE_CHARS
from bot.slack.errors import api_error

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 1 << 30  # Slack's own limit on an upload: a text file of any size is read
WHOLE_BYTES = 200_000  # a file up to this size is read whole, as a paste; a longer one as a CI log
MAX_FILES = 3
SLACK_HOST_SUFFIXES = (".slack.com", ".slack-gov.com", ".slack-edge.com")
TEXT_FILETYPES = frozenset({
    "text", "log", "python", "javascript", "typescript", "shell", "bash", "json", "yaml", "xml", "java", "go",
    "rust", "c", "cpp", "csharp", "ruby", "php", "kotlin", "scala", "sql", "diff", "markdown", "dockerfile",
})


def is_text_file(file: dict[str, Any]) -> bool:
    if file.get("mode") in ("tombstone", "external") or file.get("is_external"):
        return False
    mimetype = str(file.get("mimetype") or "")
    return file.get("mode") == "snippet" or mimetype.startswith("text/") or file.get("filetype") in TEXT_FILETYPES


def trusted(url: str, api_url: str | None) -> bool:
    """Whether the bot token may be sent to ``url``."""
    parts = urlsplit(url)
    if api_url and parts.netloc and parts.netloc == urlsplit(api_url).netloc:
        return True
    host = parts.hostname or ""
    return parts.scheme == "https" and (host == "slack.com" or host.endswith(SLACK_HOST_SUFFIXES))


def decode(data: bytes) -> str | None:
    """Text from bytes, or None for binary junk."""
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def text_file_ids(message: dict[str, Any]) -> tuple[str, ...]:
    """The ids of the text snippets a message carries (at most ``MAX_FILES``, none too large)."""
    files = [f for f in message.get("files") or [] if isinstance(f, dict)]
    return tuple(str(f["id"]) for f in files if f.get("id") and is_text_file(f)
                 and int(f.get("size") or 0) <= MAX_FILE_BYTES)[:MAX_FILES]


async def read_snippet(client: AsyncWebClient, file_id: str, api_url: str | None) -> str | None:
    """A text file's content (``files.info``, then its private URL with the bot token); None when it
    is not text, too large, unreadable or hosted where the token must not go."""
    try:
        info = (await client.files_info(file=file_id)).get("file") or {}
    except SlackApiError as exc:
        log.warning("files.info %s failed: %s", file_id, api_error(exc.response.data, exc.response.status_code))
        return None
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("files.info %s failed: %s", file_id, exc)
        return None
    if not is_text_file(info) or int(info.get("size") or 0) > MAX_FILE_BYTES:
        return None
    url = info.get("url_private_download") or info.get("url_private")
    if not url or not trusted(url, api_url):
        return None
    return await _download(url, client.token or "")


async def _download(url: str, token: str) -> str | None:
    headers = {"Authorization": f"Bearer {token}"}
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=15, sock_read=15)  # a big log takes its time
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url, headers=headers) as resp:
            if resp.status != 200:
                log.warning("snippet download returned HTTP %s", resp.status)
                return None
            return await read_text(resp.content.iter_any())
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("snippet download failed: %s", exc)
        return None


async def read_text(chunks: AsyncIterator[bytes]) -> str | None:
    """A file's text as it arrives: whole when it is no longer than ``WHOLE_BYTES``; else the windows around
    its error lines in order, as much as a paste is matched on (the download stops there). None for binary
    junk."""
    head = bytearray()
    reader: LogReader | None = None
    kept: list[str] = []
    budget = MAX_PASTE_CHARS

    def keep(windows: list[Window]) -> bool:
        """Keep ``windows``' text; False once the budget is spent."""
        nonlocal budget
        for window in windows:
            if budget <= 0:
                return False
            text = window.text
            kept.append(text[:budget])
            budget -= len(text) + 1
        return budget > 0

    async for chunk in chunks:
        if reader is None:
            head += chunk
            if len(head) <= WHOLE_BYTES:
                continue
            if decode(bytes(head[:8192])) is None:
                return None
            reader, chunk = LogReader(), bytes(head)
        if not keep(reader.feed(chunk)):
            return "\n".join(kept)
    if reader is None:
        return decode(bytes(head))
    keep(reader.close())
    return "\n".join(kept)
