"""Every Slack payload the tests send, built in one place, shaped as Slack sends them.

Events come wrapped in their ``event_callback`` envelope; commands are form fields;
interactivity (block actions, shortcuts) is a form with one ``payload`` JSON field.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from typing import Any

TEAM = "T0FAKE"
APP = "A0ERRKB"
CHANNEL = "C0ERRORS"
BOT_USER = "UERRKB"
BOT_ID = "BERRKB"

_ts = itertools.count(1)


def new_ts() -> str:
    """A message ts, increasing across the test run (and older than the fake's own)."""
    return f"1690000000.{next(_ts):06d}"


def envelope(event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM,
        "api_app_id": APP,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
    }


def message(text: str, user: str = "U_EN", channel: str = CHANNEL, ts: str | None = None,
            thread_ts: str | None = None, event_id: str | None = None, **fields: Any) -> dict[str, Any]:
    ts = ts or new_ts()
    event = {"type": "message", "channel": channel, "user": user, "text": text, "ts": ts, "event_ts": ts,
             "channel_type": "channel", "team": TEAM, **fields}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return envelope(event, event_id)


def bot_message(text: str, bot_id: str = "B0OTHER", channel: str = CHANNEL, **fields: Any) -> dict[str, Any]:
    ts = new_ts()
    event = {"type": "message", "subtype": "bot_message", "channel": channel, "bot_id": bot_id, "text": text,
             "ts": ts, "event_ts": ts, "channel_type": "channel", **fields}
    return envelope(event)


def own_message(text: str, channel: str = CHANNEL) -> dict[str, Any]:
    """A message the bot itself posted, as Slack echoes it back."""
    return message(text, user=BOT_USER, channel=channel, bot_id=BOT_ID)


def file_share(text: str, files: list[dict[str, Any]], user: str = "U_EN", channel: str = CHANNEL) -> dict[str, Any]:
    return message(text, user=user, channel=channel, subtype="file_share", files=files, upload=True)


def edited(ts: str, text: str, previous: str, user: str = "U_EN", channel: str = CHANNEL,
           thread_ts: str | None = None) -> dict[str, Any]:
    now = new_ts()
    new = {"type": "message", "user": user, "text": text, "ts": ts, "edited": {"user": user, "ts": now}}
    old = {"type": "message", "user": user, "text": previous, "ts": ts}
    if thread_ts:
        new["thread_ts"] = old["thread_ts"] = thread_ts
    event = {"type": "message", "subtype": "message_changed", "channel": channel, "hidden": True, "ts": now,
             "event_ts": now, "message": new, "previous_message": old, "channel_type": "channel"}
    return envelope(event)


def app_mention(text: str, user: str = "U_EN", channel: str = CHANNEL, thread_ts: str | None = None) -> dict[str, Any]:
    ts = new_ts()
    event = {"type": "app_mention", "user": user, "text": f"<@{BOT_USER}> {text}".strip(), "ts": ts,
             "channel": channel, "event_ts": ts}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return envelope(event)


def reaction(name: str, item_ts: str, user: str = "U_EN", added: bool = True, channel: str = CHANNEL,
             item_user: str = BOT_USER, event_ts: str | None = None) -> dict[str, Any]:
    event = {"type": "reaction_added" if added else "reaction_removed", "user": user, "reaction": name,
             "item_user": item_user, "item": {"type": "message", "channel": channel, "ts": item_ts},
             "event_ts": event_ts or new_ts()}
    return envelope(event)


def app_home_opened(user: str = "U_EN") -> dict[str, Any]:
    return envelope({"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home",
                     "event_ts": new_ts()})


def url_verification(challenge: str) -> dict[str, Any]:
    return {"token": "legacy-verification-token", "challenge": challenge, "type": "url_verification"}


def slash_command(text: str, response_url: str, user: str = "U_EN", channel: str = CHANNEL) -> dict[str, str]:
    return {
        "token": "legacy-verification-token", "team_id": TEAM, "team_domain": "fake", "channel_id": channel,
        "channel_name": "errors", "user_id": user, "user_name": user.lower(), "command": "/errkb", "text": text,
        "api_app_id": APP, "response_url": response_url, "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
    }


def block_action(action_id: str, value: str | None, response_url: str, user: str = "U_EN", channel: str = CHANNEL,
                 message_ts: str | None = None, thread_ts: str | None = None, ephemeral: bool = False,
                 selected: str | None = None, option: str | None = None) -> dict[str, str]:
    """A click on a button (``value``), the App Home select (``selected``) or an overflow menu (``option``)."""
    action: dict[str, Any] = {"action_id": action_id, "block_id": "b1", "type": "button",
                              "action_ts": f"{time.time():.6f}"}
    if value is not None:
        action["value"] = value
    if option is not None:
        action.update(type="overflow", selected_option={"text": {"type": "plain_text", "text": "…"}, "value": option})
    if selected is not None:
        action.update(type="static_select", selected_option={"text": {"type": "plain_text", "text": selected},
                                                              "value": selected})
    payload: dict[str, Any] = {
        "type": "block_actions", "team": {"id": TEAM, "domain": "fake"}, "user": {"id": user, "team_id": TEAM},
        "api_app_id": APP, "token": "legacy-verification-token", "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
        "response_url": response_url, "actions": [action],
    }
    if selected is not None:  # App Home
        payload["container"] = {"type": "view", "view_id": "VHOME"}
        payload["view"] = {"id": "VHOME", "type": "home"}
    else:
        payload["container"] = {"type": "message", "message_ts": message_ts, "channel_id": channel,
                                "is_ephemeral": ephemeral}
        payload["channel"] = {"id": channel, "name": "errors"}
        if not ephemeral:
            payload["message"] = {"type": "message", "ts": message_ts, "user": BOT_USER, "bot_id": BOT_ID,
                                  **({"thread_ts": thread_ts} if thread_ts else {})}
    return {"payload": json.dumps(payload)}


def message_shortcut(text: str, response_url: str, user: str = "U_EN", channel: str = CHANNEL,
                     callback_id: str = "errkb_diagnose", **message_fields: Any) -> dict[str, str]:
    ts = new_ts()
    payload = {
        "type": "message_action", "callback_id": callback_id, "team": {"id": TEAM, "domain": "fake"},
        "user": {"id": user, "name": user.lower(), "team_id": TEAM}, "channel": {"id": channel, "name": "errors"},
        "message": {"type": "message", "user": "U_OTHER", "text": text, "ts": ts, **message_fields},
        "message_ts": ts, "response_url": response_url, "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
        "token": "legacy-verification-token", "action_ts": f"{time.time():.6f}",
    }
    return {"payload": json.dumps(payload)}


def view_submission(callback_id: str, values: dict[str, dict[str, str | None]], private_metadata: str = "",
                    user: str = "U_EN") -> dict[str, str]:
    """A modal submitted: ``values`` is {block_id: {action_id: text typed (None: left empty)}}."""
    state = {block: {action: {"type": "plain_text_input", "value": value} for action, value in actions.items()}
             for block, actions in values.items()}
    payload = {
        "type": "view_submission", "team": {"id": TEAM, "domain": "fake"}, "user": {"id": user, "team_id": TEAM},
        "api_app_id": APP, "token": "legacy-verification-token", "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}",
        "view": {"id": "V0MODAL", "type": "modal", "callback_id": callback_id, "private_metadata": private_metadata,
                 "state": {"values": state}, "team_id": TEAM},
    }
    return {"payload": json.dumps(payload)}
