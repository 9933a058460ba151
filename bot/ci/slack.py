"""The failures of a CI run posted to a Slack channel: one message, the same answer card as in a thread for
each failure, headed by the run. Vote buttons only when ``errkb serve`` answers at ``ERRKB_SERVE_URL`` (its
clicks go there); plain cards otherwise. Through slack_sdk's WebClient, not ``bot.slack`` (no app runs here).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.errors import ErrkbError
from bot.i18n import _
from bot.render import blocks as slack_blocks
from bot.render import ci as ci_render
from bot.render.kit import MAX_BLOCKS, METADATA, SECTION_LIMIT, clip, context, divider, escape, link, section

SHOWN = 6  # failures on one card (each is about seven blocks; Slack allows fifty)
READY_TIMEOUT = 5.0


def serve_ready(url: str | None, timeout: float = READY_TIMEOUT) -> bool:
    """Whether ``errkb serve`` at ``url`` says it is ready (``GET /readyz`` answers 200)."""
    if not url or not url.startswith(("http://", "https://")):
        return False
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/readyz", timeout=timeout) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _where(f: ci_render.CiFailure) -> str:
    return _("Step {step}, line {line}").format(step=f.step, line=f.line) if f.step else \
        _("Line {line}").format(line=f.line)


def run_message(found: list[ci_render.CiFailure], run_url: str | None, buttons: bool) -> dict[str, Any]:
    """The message: the headline and the run's link, then each failure's answer card (without its buttons
    unless ``buttons``)."""
    headline = ci_render.headline(found)
    top = f"*{escape(headline)}*" + (f"\n{link(run_url, 120)}" if run_url else "")
    out: list[dict[str, Any]] = [section(top)]
    for f in found[:SHOWN]:
        card = slack_blocks.answer_message(f.match.entry, f.match, private=True, other_language=False)["blocks"]
        if not buttons:
            card = [b for b in card if b.get("type") != "actions"]
        out += [divider(), context(escape(_where(f))), *card]
    return {"text": clip(escape(headline), SECTION_LIMIT), "blocks": out[:MAX_BLOCKS]}


def post(channel: str, message: dict[str, Any], token: str, api_url: str | None = None) -> str:
    """Post ``message`` to ``channel``; the new message's ts."""
    client = WebClient(token=token, base_url=api_url or WebClient.BASE_URL, timeout=30)
    try:
        response = client.chat_postMessage(channel=channel, text=message["text"], blocks=message["blocks"],
                                           unfurl_links=False, unfurl_media=False, metadata=METADATA)
    except SlackApiError as exc:
        raise ErrkbError(f"Slack: chat.postMessage to {channel}: {exc.response.get('error')}") from exc
    except OSError as exc:
        raise ErrkbError(f"Slack: cannot reach {api_url or WebClient.BASE_URL}: {exc}") from exc
    return str(response.get("ts") or "")
