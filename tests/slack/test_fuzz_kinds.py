"""Every payload kind errkb handles, signed, with fields of the wrong type (issue 24, point 4).

Each kind starts from a payload shaped as Slack sends it (``tests.support.payloads``): event callbacks
for every event type errkb listens to (``message`` with every subtype, ``app_mention``, reactions,
``app_home_opened``, ``app_uninstalled``, ``tokens_revoked``), ``url_verification``, ``/errkb``,
``block_actions`` for every action id in ``bot/render``, ``view_submission`` for every callback id
and the message shortcut. Hypothesis then replaces a few fields anywhere in it (nested ones too) by
lists, objects, numbers, huge strings, lone surrogates or nulls. Whatever path the request takes
(the dispatcher's fast path or Bolt), it gets a 2xx or a 4xx, never a 5xx (the store is up), and the
log holds no traceback and no line over ``LINE_LIMIT`` characters. Derandomized, a fixed number of
examples: the module runs in well under a minute."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import logs
from bot.render import blocks, modals, suggest
from bot.slack.listeners.shortcuts import SHORTCUT_DIAGNOSE
from tests.slack.conftest import NCCL_ID, NCCL_PASTE, Harness, paste_and_wait
from tests.support import payloads as p

LINE_LIMIT = 500
EXAMPLES = 400

MESSAGE_SUBTYPES = [None, "message_changed", "message_deleted", "message_replied", "bot_message", "me_message",
                    "file_share", "thread_broadcast", "channel_join", "channel_leave", "channel_topic",
                    "channel_purpose", "channel_name", "channel_archive", "pinned_item", "ekm_access_denied"]
ACTION_IDS = sorted({v for module in (blocks, modals, suggest) for k, v in vars(module).items()
                     if k.startswith("ACTION") and isinstance(v, str)})
CALLBACK_IDS = sorted({v for module in (modals, suggest) for k, v in vars(module).items()
                       if "CALLBACK" in k and isinstance(v, str)})
URL = "http://127.0.0.1:9/none"

# What a fuzzer puts where Slack puts a string, an id, an object or a list.
HUGE = "x" * 5000
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                    st.text(max_size=12),
                    st.sampled_from(["\ud800", "a\udfffb", "\udc00" * 50, HUGE, "T" + "9" * 300, "", "-1", "1e999",
                                     "<@UERRKB>", "errkb_vote_up", "%s %d %(x)s", "line\nbreak\r\x00"]))
wrong = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(["id", "type", "value", "text", "ts", "x"]), inner, max_size=3),
                     max_leaves=6)


def ts() -> str:
    return p.new_ts()


def _event(event: dict[str, Any]) -> dict[str, Any]:
    return p.envelope(event)


def _message(subtype: str | None) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        fields: dict[str, Any] = {} if subtype is None else {"subtype": subtype}
        if subtype == "message_changed":
            fields["message"] = {"type": "message", "user": "U_EN", "text": NCCL_PASTE, "ts": ts()}
            fields["previous_message"] = {"type": "message", "user": "U_EN", "text": "hi", "ts": ts()}
        if subtype == "file_share":
            fields["files"] = [{"id": "F1", "name": "log.txt", "mimetype": "text/plain", "filetype": "text",
                                "url_private_download": URL, "size": 10}]
        if subtype == "bot_message":
            fields["bot_id"] = "B0OTHER"
        return p.message(NCCL_PASTE if subtype is None else "hello", **fields)
    return build


def _reaction(added: bool) -> Callable[[], dict[str, Any]]:
    return lambda: p.reaction("+1", ts(), added=added)


def _form(payload: dict[str, str]) -> dict[str, Any]:
    return json.loads(payload["payload"])


def _action(action_id: str) -> Callable[[], dict[str, Any]]:
    return lambda: _form(p.block_action(action_id, NCCL_ID + "#0", URL, message_ts=ts(), option="wrong",
                                        selected="zh-CN" if action_id == blocks.ACTION_HOME_LOCALE else None))


def _view(callback_id: str) -> Callable[[], dict[str, Any]]:
    return lambda: _form(p.view_submission(callback_id, {"regex": {modals.ACTION_REGEX: "NCCL.*timeout"},
                                                         "title": {"title": "t"}, "fix": {"fix": "f"}},
                                           private_metadata=json.dumps({"entry": NCCL_ID, "channel": p.CHANNEL})))


# kind → (how it is sent: "json", "form" (interactivity) or "command", a fresh payload)
KINDS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    **{f"message/{s or 'plain'}": ("json", _message(s)) for s in MESSAGE_SUBTYPES},
    "app_mention": ("json", lambda: p.app_mention("<@UERRKB> " + NCCL_PASTE)),
    "reaction_added": ("json", _reaction(True)),
    "reaction_removed": ("json", _reaction(False)),
    "app_home_opened": ("json", lambda: p.app_home_opened()),
    "app_uninstalled": ("json", lambda: _event({"type": "app_uninstalled", "event_ts": ts()})),
    "tokens_revoked": ("json", lambda: _event({"type": "tokens_revoked", "event_ts": ts(),
                                               "tokens": {"oauth": ["U_EN"], "bot": [p.BOT_USER]}})),
    "url_verification": ("json", lambda: p.url_verification("challenge-123")),
    "command": ("command", lambda: p.slash_command("nccl timeout", URL)),
    **{f"block_actions/{a}": ("form", _action(a)) for a in ACTION_IDS},
    **{f"view_submission/{c}": ("form", _view(c)) for c in CALLBACK_IDS},
    "message_action": ("form", lambda: _form(p.message_shortcut(NCCL_PASTE, URL, callback_id=SHORTCUT_DIAGNOSE))),
}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside a payload (object keys and list indexes), the payload's own fields first."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        yield (*prefix, key)
        yield from paths(inner, (*prefix, key))


def replaced(payload: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    holder: Any = payload
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, Any]:
    kind = draw(st.sampled_from(sorted(KINDS)))
    how, build = KINDS[kind]
    payload = build()
    for _ in range(draw(st.integers(1, 3))):
        found = list(paths(payload))
        if not found:
            break
        path = draw(st.sampled_from(found))
        if draw(st.integers(0, 9)) == 0:  # now and then the field is gone
            holder: Any = payload
            for key in path[:-1]:
                holder = holder[key]
            if isinstance(holder, dict):
                holder.pop(path[-1], None)
                continue
        if how == "command":  # a form's fields are strings: wrong ones, huge ones, JSON where text goes
            value = draw(st.one_of(st.text(max_size=20), st.sampled_from([HUGE, "T" + "9" * 300, "", "\x00"]),
                                   wrong.map(json.dumps)))
        else:
            value = draw(wrong)
        replaced(payload, path, value)
    return kind, how, payload


class Lines(logging.Handler):
    """Every line the server would write (``errkb serve``'s format, through its ``Redact`` filter)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.addFilter(logs.Redact())

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.extend(self.format(record).split("\n"))


@pytest.fixture
def log_lines() -> Iterator[Lines]:
    root = logging.getLogger()
    handler, level = Lines(), root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def body_of(how: str, payload: Any) -> tuple[str, str]:
    """(the body, its content type); a lone surrogate JSON cannot encode raw is sent escaped, as Slack would."""
    if how == "json":
        return json.dumps(payload), "application/json"
    if how == "form":
        return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
    return urlencode({k: v.encode("utf-8", "surrogatepass") for k, v in payload.items()}), \
        "application/x-www-form-urlencoded"


def test_every_kind_is_covered() -> None:
    """The kinds above include every action id and callback id the renderers hand to Slack."""
    assert {"errkb_vote_up", "errkb_teach", "errkb_teach_regex", "errkb_team_review"} <= set(ACTION_IDS)
    assert {"errkb_teach", "errkb_translate_entry", "errkb_suggest_fix", "errkb_translate_fix"} <= set(CALLBACK_IDS)
    assert len(KINDS) >= 40


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(request=requests())
async def test_every_kind_with_wrong_fields_gets_no_5xx_and_bounded_lines(harness: Harness, log_lines: Lines,
                                                                          request: tuple[str, str, Any]) -> None:
    kind, how, payload = request
    body, content_type = body_of(how, payload)
    started = time.monotonic()
    sent = await harness.send.post_raw(body, content_type)
    took = time.monotonic() - started
    assert sent.status < 500, (kind, sent.status, body[:2000])
    assert took < 3.0, (kind, took)
    traced = [line for line in log_lines.lines if "Traceback" in line]
    assert not traced, (kind, body[:2000], log_lines.lines[-20:])
    long = [line[:200] + "…" for line in log_lines.lines if len(line) > LINE_LIMIT]
    assert not long, (kind, long[:3])


async def test_after_every_kind_a_paste_is_answered(harness: Harness, log_lines: Lines) -> None:
    """One wrong payload of every kind, then an ordinary paste is still answered."""
    for kind, (how, build) in sorted(KINDS.items()):
        payload = build()
        for path in list(paths(payload))[:1]:
            replaced(payload, path, "x" * 5000 if how == "command" else ["wrong", {"type": 1}])
        sent = await harness.send.post_raw(*body_of(how, payload))
        assert sent.status < 500, (kind, sent.status)
    answered = await paste_and_wait(harness)
    assert NCCL_ID in json.dumps(answered.answer.args)
    assert not [line for line in log_lines.lines if "Traceback" in line or len(line) > LINE_LIMIT]
