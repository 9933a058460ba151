"""What ``bench.soak_slack``'s fake Slack saw the bot post, read from the blocks, and the vote storm on it:
reactions and *Worked* / *Didn't work* clicks in Slack-time order, and the votes they leave."""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from random import Random
from typing import Any
from urllib.parse import urlencode

from bench.soak_slack_load import Send
from bot.kb.feedback import Tally
from bot.render.blocks import ACTION_TRANSLATE, ACTION_VOTE_DOWN, ACTION_VOTE_UP
from tests.support import payloads as p
from tests.support.fake_slack import Call, FakeSlack

VOTERS = [f"UV{k:02d}" for k in range(60)]
REACTIONS = ("+1", "+1::skin-tone-2", "+1::skin-tone-5", "thumbsup", "-1", "-1::skin-tone-3", "thumbsdown",
             "tada", "eyes")
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Posted:
    """One message the bot posted: what it is about and in which language, read from its blocks."""

    call: Call
    kind: str  # answer | workaround (another fix) | other
    entry: str | None
    workaround: int | None
    zh: bool | None

    @property
    def thread(self) -> tuple[str, str | None]:
        return self.call["channel"], self.call.get("thread_ts")

    @property
    def target(self) -> tuple[str, int | None]:
        assert self.entry is not None
        return self.entry, self.workaround


def read_post(call: Call) -> Posted:
    """The answer (it offers the other language) or another fix's message, and the fix it votes for."""
    elements = [e for b in call.get("blocks") or [] if b.get("type") == "actions" for e in b.get("elements") or []]
    vote = next((e for e in elements if e.get("action_id") == ACTION_VOTE_UP), None)
    if vote is None:
        return Posted(call, "other", None, None, None)
    value = json.loads(vote["value"])
    kind = "answer" if any(e.get("action_id") == ACTION_TRANSLATE for e in elements) else "workaround"
    label = (vote.get("text") or {}).get("text", "")
    return Posted(call, kind, value["entry"], int(value["workaround"]), bool(CJK.search(label)))


def posts(fake: FakeSlack) -> list[Posted]:
    """Every message Slack accepted (a 429/500 answer posted nothing)."""
    return [read_post(c) for c in fake.calls_to("chat.postMessage") if c.result.get("ok")]


def shown_votes(blocks: list[dict[str, Any]]) -> tuple[int, int] | None:
    """The (up, down) a fix's message shows: "worked for N of M people here" (or "no votes here yet")."""
    for block in blocks:
        if block.get("type") == "context":
            text = block["elements"][0]["text"]
            if "no votes here yet" in text or "这里还没人投票" in text:
                return 0, 0
            found = re.search(r"worked for (\d[\d,]*) of (\d[\d,]*)|这里 (\d[\d,]*) 人投票，(\d[\d,]*) 人说有效", text)
            if found:
                up, total = ((found[1], found[2]) if found[1] else (found[4], found[3]))
                return int(up.replace(",", "")), int(total.replace(",", "")) - int(up.replace(",", ""))
    return None


# --- the vote storm -----------------------------------------------------------------------


def polarity(reaction: str) -> int:
    """Slack's thumbs, any skin tone; written out here rather than imported, to check the bot."""
    base = reaction.split("::")[0]
    return 1 if base in ("+1", "thumbsup") else -1 if base in ("-1", "thumbsdown") else 0


@dataclass
class Storm:
    """Reaction and click events in true (Slack) time order, and the state they leave."""

    sends: list[Send] = field(default_factory=list)
    held: dict[tuple[str, str], dict[str, set[str]]] = field(default_factory=lambda: defaultdict(dict))
    clicks: dict[tuple[tuple[str, int | None], str], tuple[float, int]] = field(default_factory=dict)
    voted_messages: dict[tuple[str, int | None], set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))
    reactions: int = 0
    buttons: int = 0
    translations: int = 0
    resent: int = 0
    cross_thread: int = 0

    def expected(self, messages: dict[tuple[str, str], Posted]) -> dict[tuple[str, int | None], Tally]:
        """Per target: voters holding 👍 (or Worked) minus 👎 (or Didn't work) anywhere on it."""
        state: dict[tuple[tuple[str, int | None], str], set[int]] = defaultdict(set)
        for key, users in self.held.items():
            for user, names in users.items():
                state[(messages[key].target, user)].update(polarity(n) for n in names if polarity(n))
        for (target, user), (_at, direction) in self.clicks.items():
            state[(target, user)].add(direction)
        out: dict[tuple[str, int | None], Tally] = defaultdict(Tally)
        for (target, _user), signs in state.items():
            vote = (1 in signs) - (-1 in signs)
            out[target] = Tally(out[target].up + (vote > 0), out[target].down + (vote < 0))
        return out


def build_storm(messages: dict[tuple[str, str], Posted], budget: int, rng: Random, fake: FakeSlack,
                cross_thread: bool) -> Storm:
    storm = Storm()
    keys = sorted(messages)
    if not keys:
        return storm
    hot = rng.sample(keys, min(len(keys), 25))  # a few answers draw most of the votes
    owner: dict[tuple[tuple[str, int | None], str], tuple[str, str]] = {}  # one message per voter per target
    clock = time.time() - 120.0
    events: list[tuple[float, Send]] = []

    def tick() -> float:
        nonlocal clock
        clock += rng.uniform(0.0005, 0.005)
        return round(clock, 6)

    def reaction(key: tuple[str, str], user: str, name: str, added: bool) -> None:
        at = tick()
        payload = p.reaction(name, key[1], user=user, added=added, channel=key[0], event_ts=f"{at:.6f}")
        send = Send(json.dumps(payload).encode(), "application/json", "vote")
        events.append((at, send))
        storm.reactions += 1
        if rng.random() < 0.1:  # Slack resends it, same event_id
            storm.resent += 1
            events.append((at + rng.uniform(0.0, 0.5), Send(send.body, send.content_type, "vote", retry=1)))

    def click(key: tuple[str, str], user: str, action_id: str, value: str) -> float:
        at = tick()
        form = p.block_action(action_id, value, fake.response_url("soak"), user=user, channel=key[0],
                              message_ts=key[1], thread_ts=messages[key].thread[1])
        payload = json.loads(form["payload"])
        payload["actions"][0]["action_ts"] = f"{at:.6f}"
        body = urlencode({"payload": json.dumps(payload)}).encode()
        events.append((at, Send(body, "application/x-www-form-urlencoded", "click")))
        return at

    while storm.reactions + storm.buttons + storm.translations < budget:
        key = rng.choice(hot) if rng.random() < 0.5 else rng.choice(keys)
        posted, user = messages[key], rng.choice(VOTERS)
        if not cross_thread and owner.setdefault((posted.target, user), key) != key:
            continue
        roll = rng.random()
        if posted.kind == "answer" and roll < 0.03:
            click(key, user, ACTION_TRANSLATE, str(posted.entry))
            storm.translations += 1
            continue
        storm.voted_messages[posted.target].add(key)
        if roll < 0.15:  # Worked / Didn't work, on the answer or on another fix
            direction = 1 if rng.random() < 0.6 else -1
            value = json.dumps({"entry": posted.entry, "workaround": posted.workaround}, separators=(",", ":"))
            at = click(key, user, ACTION_VOTE_UP if direction > 0 else ACTION_VOTE_DOWN, value)
            storm.clicks[(posted.target, user)] = (at, direction)
            storm.buttons += 1
            continue
        held = storm.held[key].setdefault(user, set())
        if held and rng.random() < 0.45:  # take one back
            name = rng.choice(sorted(held))
            held.discard(name)
            reaction(key, user, name, added=False)
        else:
            name = rng.choice(REACTIONS[:3] if rng.random() < 0.5 else REACTIONS)
            if name in held:
                continue  # Slack sends nothing for a reaction already there
            held.add(name)
            reaction(key, user, name, added=True)

    if cross_thread:  # one reader's 👍 on the same workaround in two threads; takes back the second
        by_target: dict[tuple[str, int | None], list[tuple[str, str]]] = defaultdict(list)
        for key in keys:
            if messages[key].kind in ("answer", "workaround"):
                by_target[messages[key].target].append(key)
        pairs = [sorted(found)[:2] for found in by_target.values() if len(found) > 1]
        for n, (first, second) in enumerate(pairs[:10]):
            user = f"UXT{n:02d}"
            target = messages[first].target
            storm.held[first].setdefault(user, set()).add("+1")
            storm.voted_messages[target].update((first, second))
            reaction(first, user, "+1", added=True)
            reaction(second, user, "+1", added=True)
            reaction(second, user, "+1", added=False)
            storm.cross_thread += 1

    # Delivered roughly in Slack-time order, with local shuffles (plus what concurrency reorders).
    events.sort(key=lambda e: e[0] + rng.uniform(0.0, 0.05))
    storm.sends = [send for _at, send in events]
    return storm
