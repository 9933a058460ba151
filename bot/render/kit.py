"""Block Kit's primitives, within Slack's limits: text objects, sections, context, buttons, menus, dividers,
and mrkdwn escaping.

Messages (:mod:`bot.render.blocks`) and modals (:mod:`bot.render.modals`, :mod:`bot.render.suggest`)
are made of these, so neither builds on the other. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from typing import Any

SECTION_LIMIT = 3000  # characters of a section's text, and of each context element's
BUTTON_TEXT_LIMIT = 75  # characters of a button's (or a menu option's) text
MAX_BLOCKS = 50  # blocks in a message

Block = dict[str, Any]

# Slack message metadata on every message errkb posts: another errkb (another app, another install) reading
# the channel knows it for errkb's and never answers it (``bot.slack.listeners.parse``).
ERRKB_EVENT = "errkb_answer"
METADATA: dict[str, Any] = {"event_type": ERRKB_EVENT, "event_payload": {"app": "errkb"}}


def from_errkb(message: Any) -> bool:
    """Whether a Slack message carries errkb's metadata (any errkb posted it)."""
    metadata = message.get("metadata") if isinstance(message, dict) else None
    return isinstance(metadata, dict) and metadata.get("event_type") == ERRKB_EVENT


def escape(text: str) -> str:
    """Slack mrkdwn escaping: ``& < >`` only, as Slack documents."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(url: str, limit: int = 80) -> str:
    """A link that shows where it goes (its label is the address itself); an address that is not a plain
    http(s) URL, or that could break out of Slack's ``<url|label>``, is shown as text, not linked."""
    if _SAFE_URL.fullmatch(url):
        return f"<{url.replace('&', '&amp;')}|{escape(clip(url, limit))}>"
    return escape(clip(url, limit))


_SAFE_URL = re.compile(r"https?://[^\s<>|`]+")


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain_text(text: str, emoji: bool = False) -> Block:
    obj: Block = {"type": "plain_text", "text": text}
    if emoji:
        obj["emoji"] = True
    return obj


def mrkdwn(text: str) -> Block:
    return {"type": "mrkdwn", "text": text}


def section(markdown: str) -> Block:
    return {"type": "section", "text": mrkdwn(clip(markdown, SECTION_LIMIT))}


def context(*markdown: str) -> Block:
    return {"type": "context", "elements": [mrkdwn(clip(m, SECTION_LIMIT)) for m in markdown]}


def button(text: str, action_id: str, value: str, style: str | None = None) -> Block:
    element: Block = {"type": "button", "text": plain_text(clip(text, BUTTON_TEXT_LIMIT), emoji=True),
                      "action_id": action_id, "value": value}
    if style:
        element["style"] = style
    return element


def option(text: str, value: str) -> Block:
    """One choice of a menu (overflow, static select)."""
    return {"text": plain_text(text), "value": value}


def overflow(action_id: str, options: list[Block]) -> Block:
    """A ⋮ menu."""
    return {"type": "overflow", "action_id": action_id, "options": options}


def actions(*elements: Block) -> Block:
    return {"type": "actions", "elements": list(elements)}


def header(text: str) -> Block:
    return {"type": "header", "text": plain_text(text)}


def divider() -> Block:
    return {"type": "divider"}
