"""manifest.yml declares everything the bot uses, so pasting it creates a working app."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot.slack.app import EVENTS_PATH
from bot.slack.listeners.shortcuts import SHORTCUT_DIAGNOSE

MANIFEST = (Path(__file__).resolve().parents[2] / "manifest.yml").read_text(encoding="utf-8")


def items_under(key: str) -> set[str]:
    """The ``- item`` lines of the YAML list under ``key:`` (comments stripped)."""
    block = re.search(rf"^(\s*){key}:\n((?:\1\s+- .*\n)+)", MANIFEST, re.M)
    assert block, key
    return {line.split("#")[0].strip()[2:].strip() for line in block.group(2).splitlines()}


def test_every_scope_the_bot_needs():
    assert items_under("bot") == {
        "app_mentions:read", "channels:history", "groups:history", "im:history", "mpim:history", "chat:write",
        "commands", "files:read", "reactions:read", "users:read", "usergroups:read", "channels:read", "groups:read",
        "metadata.message:read"}


def listened_events() -> set[str]:
    """Every event type a listener registers (``app.event("…")`` in bot/slack/listeners/)."""
    found = set()
    for path in (Path(__file__).resolve().parents[2] / "bot" / "slack" / "listeners").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "event"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                found.add(node.args[0].value)
    return found


def test_every_event_the_listeners_handle_is_subscribed_and_nothing_else():
    subscribed = items_under("bot_events")
    expected = set()
    for event in listened_events():
        expected |= ({f"message.{kind}" for kind in ("channels", "groups", "im", "mpim")} if event == "message"
                     else {event})
    assert "app_uninstalled" in expected and "tokens_revoked" in expected  # the uninstall clean-up is wired
    assert subscribed == expected


def test_the_command_the_shortcut_interactivity_and_app_home():
    assert "command: /errkb" in MANIFEST
    assert f"callback_id: {SHORTCUT_DIAGNOSE}" in MANIFEST and "type: message" in MANIFEST
    assert re.search(r"interactivity:\n\s+is_enabled: true", MANIFEST)
    assert "home_tab_enabled: true" in MANIFEST and "socket_mode_enabled: false" in MANIFEST
    urls = re.findall(r"(?:url|request_url): (\S+)", MANIFEST)
    assert len(urls) == 3 and all(u.endswith(EVENTS_PATH) for u in urls)


def test_the_manifest_carries_the_oauth_redirect_url_and_the_scopes_oauth_asks_for():
    from bot.slack.oauth import REDIRECT_PATH, SCOPES

    assert re.search(rf"redirect_urls:\n\s+- https://YOUR-HOST{REDIRECT_PATH}\n", MANIFEST)
    bot_scopes = re.search(r"\n    bot:\n((?:      - .*\n)+)", MANIFEST)
    assert bot_scopes is not None
    assert sorted(re.findall(r"- ([a-z:_.]+)", bot_scopes.group(1))) == sorted(SCOPES)
