"""An alert another bot posted → the text errkb matches, wherever the integration put the error.

Integrations put it in different places: Alertmanager and Grafana in legacy ``attachments`` (title,
text, fields), Sentry in Block Kit sections (often inside an attachment, for its colour bar),
PagerDuty in a section's ``fields``, the GitHub app and Datadog in either. This reads them all, in
the order Slack shows them, as mrkdwn (what a message's ``text`` is, and what ``bot.kb.normalize``
decodes): plain-text and rich-text parts are escaped as Slack escapes mrkdwn. A part already read
(a fallback repeating the title) is read once. Whatever the payload holds, nothing here raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAX_CHARS = 200_000  # as much as a paste is matched on (``bot.service.knowledge.MAX_PASTE_CHARS``)
MAX_ITEMS = 100  # attachments, blocks, fields or elements read per list (Slack allows 50 blocks, 100 attachments)
MAX_DEPTH = 6  # nesting of rich-text lists and quotes read


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _items(value: Any) -> list[Any]:
    return value[:MAX_ITEMS] if isinstance(value, list) else []


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _text_object(value: Any) -> str:
    """A Block Kit text object (mrkdwn as it is, plain_text escaped); "" for anything else."""
    if not isinstance(value, dict):
        return ""
    text = _string(value.get("text"))
    return text if value.get("type") == "mrkdwn" else _escape(text)


def _rich(element: Any, depth: int = 0) -> str:
    """A rich-text element as mrkdwn-escaped text: sections, preformatted, quotes and lists, nested."""
    if not isinstance(element, dict) or depth > MAX_DEPTH:
        return ""
    kind = element.get("type")
    if kind in ("text", "link"):
        return _escape(_string(element.get("text")) or _string(element.get("url")))
    if kind in ("rich_text", "rich_text_list"):  # each element on its own line, as Slack shows them
        return "\n".join(_rich(item, depth + 1) for item in _items(element.get("elements")))
    if kind in ("rich_text_section", "rich_text_preformatted", "rich_text_quote"):
        return "".join(_rich(item, depth + 1) for item in _items(element.get("elements")))
    return ""  # a user, a channel, an emoji, a date: no error text


def _block(block: Any) -> Iterator[str]:
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind in ("section", "header"):
        yield _text_object(block.get("text"))
        yield from (_text_object(f) for f in _items(block.get("fields")))
    elif kind == "context":
        yield " ".join(t for t in (_text_object(e) for e in _items(block.get("elements"))) if t)
    elif kind == "rich_text":
        yield _rich(block)


def _attachment(attachment: Any) -> Iterator[str]:
    if not isinstance(attachment, dict):
        return
    yield _string(attachment.get("pretext"))
    yield _string(attachment.get("title"))
    yield _string(attachment.get("text"))
    for f in _items(attachment.get("fields")):
        if isinstance(f, dict):
            title, value = _string(f.get("title")), _string(f.get("value"))
            yield f"{title}: {value}" if title and value else title or value
    for block in _items(attachment.get("blocks")):
        yield from _block(block)
    yield _string(attachment.get("fallback"))


def _parts(message: dict[str, Any]) -> Iterator[str]:
    yield _string(message.get("text"))
    for block in _items(message.get("blocks")):
        yield from _block(block)
    for attachment in _items(message.get("attachments")):
        yield from _attachment(attachment)


def alert_text(message: Any) -> str:
    """The text of a bot's message to match: its ``text``, blocks and attachments, each part once."""
    if not isinstance(message, dict):
        return ""
    seen: set[str] = set()
    kept: list[str] = []
    size = 0
    for part in _parts(message):
        part = part.strip()
        if not part or part in seen:
            continue
        seen.add(part)
        kept.append(part)
        size += len(part) + 1
        if size >= MAX_CHARS:
            break
    return "\n".join(kept)[:MAX_CHARS]
