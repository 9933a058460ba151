"""Soak the Slack bot: the real bot process against a fake Slack, driven the way Slack drives it.

Everything runs on 127.0.0.1 and is bounded in count (``--pastes``, ``--votes``) and time
(``--seconds``, a hard cap). The bot (``bot.slack.app.start``) runs in a child process on a temp
SQLite store; this process plays Slack: it signs and posts events to ``/slack/events`` with bounded
concurrency and hosts the FakeSlack Web API the bot answers through (``tests/slack/fake_slack.py``).

1. **Pastes**: fixture pastes, chat lines, 40,000-char logs and binary junk, from users whose Slack
   language is en-US, zh-CN, zh-TW or ja-JP; some events are resent with the same ``event_id`` (Slack's
   retries, racing the original or late); meanwhile the fake answers some ``chat.postMessage`` calls
   with 429 (Retry-After 1) or 500.
2. **Vote storm**: many users add and remove 👍/👎 (skin tones, synonyms, other emoji) and click
   *Worked* / *Didn't work* on the posted answers, concurrently and partly out of order, some events
   resent; the fake answers some ``chat.update`` calls with 429 or 500. Then SIGTERM, as a platform
   would, and the bot drains.
3. **Checks** (exit 1 if any fails): every paste the offline matcher matches got exactly one answer
   (one compact message about that entry) in its thread, whatever the retries and
   faults; nothing else got one; answers are in the poster's language; the store's vote counters
   equal the final reactions and clicks as computed here from the events sent; ``store.check()`` is
   empty; each voted workaround message ends showing its final votes; every ack within Slack's 3 s.

Baseline, same run, same requests and concurrency: a minimal aiohttp server that checks the
signature and answers 200. The script prints ack latency, time to first reply, throughput, the bot's
peak RSS and the ack-latency ratio errkb/baseline.

    .venv/bin/python bench/soak_slack.py [--pastes 300] [--concurrency 8] [--votes 1500] [--seconds 120] [--seed 1]

``--cross-thread`` adds voters who react to the same workaround in two threads (see the README).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import math
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402

from bot.kb.feedback import Tally  # noqa: E402
from bot.render.blocks import ACTION_TRANSLATE, ACTION_VOTE_DOWN, ACTION_VOTE_UP  # noqa: E402
from tests import slack_payloads as p  # noqa: E402
from tests.slack.fake_slack import TOKEN, Call, FakeSlack, Fault  # noqa: E402

PASTES = REPO / "pastes"
CHAT = REPO / "pastes" / "_chat"
SECRET = "soak-signing-secret"
CHANNELS = ("C0ERRORS", "C0INFRA", "C0ML")
LOCALES = {"EN": "en-US", "CN": "zh-CN", "TW": "zh-TW", "JA": "ja-JP"}
USERS = {f"U{tag}{k}": code for tag, code in LOCALES.items() for k in range(8)}
VOTERS = [f"UV{k:02d}" for k in range(60)]
REACTIONS = ("+1", "+1::skin-tone-2", "+1::skin-tone-5", "thumbsup", "-1", "-1::skin-tone-3", "thumbsdown",
             "tada", "eyes")
SLACK_ACK_LIMIT = 3.0  # Slack retries an event it has no answer to within 3 s
LONG = 40_000  # Slack's limit on a message's text
CJK = re.compile(r"[\u4e00-\u9fff]")


# --- helpers shared by the roles --------------------------------------------------------------


def sign(body: bytes, secret: str = SECRET) -> dict[str, str]:
    """Slack's v0 request signature: HMAC-SHA256 of ``v0:{timestamp}:{body}``."""
    ts = str(int(time.time()))
    digest = hmac.new(secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def pct(samples: Iterable[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1); NaN for no samples."""
    values = sorted(samples)
    if not values:
        return math.nan
    return values[max(0, math.ceil(q * len(values)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.1f} ms"


async def serve_until_sigterm(port: int, stop: Callable[[], Any]) -> None:
    """Child protocol: ``PORT n`` once listening; on SIGTERM stop, then ``RSS_MIB x CPU_S y``."""
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    print(f"PORT {port}", flush=True)
    await stopping.wait()
    await stop()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"RSS_MIB {peak_rss_mib():.1f} CPU_S {usage.ru_utime + usage.ru_stime:.1f}", flush=True)


async def role_bot(args: argparse.Namespace) -> None:
    """The real bot: ``bot.slack.app.start`` in HTTP mode on 127.0.0.1, Slack Web API = the fake."""
    import logging

    from bot.config import Settings
    from bot.slack.app import start

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings(bot_token=TOKEN, signing_secret=SECRET, app_token=None, api_url=args.api_url,
                        database_url=args.db, port=0, seeds_dir=Path(args.seeds))
    # Slack's own per-channel pace is not what is soaked here (its 429s are: the fake injects them),
    # so the bot's pacing is opened up for three busy channels.
    running = await start(settings, host="127.0.0.1", port=0, update_delay=1.0, seed=True, pace=1000.0)
    await serve_until_sigterm(running.port, running.stop)


async def role_baseline(_args: argparse.Namespace) -> None:
    """The least a Slack app must do: check the signature and its age, answer 200."""

    async def events(request: web.Request) -> web.Response:
        body = await request.read()
        ts = request.headers.get("X-Slack-Request-Timestamp", "")
        if not ts.isdigit() or abs(time.time() - int(ts)) > 300:
            return web.Response(status=401)
        digest = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(f"v0={digest}", request.headers.get("X-Slack-Signature", "")):
            return web.Response(status=401)
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post("/slack/events", events)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    await serve_until_sigterm(runner.addresses[0][1], runner.cleanup)


class Child:
    """A server this script started (``--role bot|baseline``): its port, its peak RSS, its log."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.rss_mib = self.cpu_s = math.nan

    @classmethod
    async def spawn(cls, role: str, log: Path, *extra: str, timeout: float = 60.0) -> Child:
        with log.open("w") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--role", role, *extra,
                stdout=asyncio.subprocess.PIPE, stderr=err, cwd=str(REPO))
        try:
            assert proc.stdout is not None
            line = (await asyncio.wait_for(proc.stdout.readline(), timeout)).decode()
        except BaseException:
            proc.kill()
            await proc.wait()
            raise
        if not line.startswith("PORT "):
            proc.kill()
            await proc.wait()
            raise SystemExit(f"soak: the {role} server did not start; see {log}:\n{log.read_text()[-3000:]}")
        return cls(proc, int(line.split()[1]), log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    async def stop(self, timeout: float) -> None:
        """SIGTERM and wait (the bot drains its replies); killed if it overstays ``timeout``."""
        if self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = await asyncio.wait_for(self.proc.communicate(), max(timeout, 1.0))
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            return
        for line in out.decode().splitlines():
            if line.startswith("RSS_MIB "):
                self.rss_mib, self.cpu_s = float(line.split()[1]), float(line.split()[3])

    def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()


# --- the workload -------------------------------------------------------------------------


@dataclass
class Paste:
    kind: str  # fixture | chat | long | junk
    source: str  # what it was made from, for the report
    text: str
    user: str
    channel: str
    ts: str
    event_id: str
    expected: str | None = None  # the entry the offline matcher picks
    sent_at: float | None = None  # when its first delivery was posted (monotonic)

    @property
    def zh(self) -> bool:
        return USERS[self.user].startswith("zh")

    @property
    def thread(self) -> tuple[str, str]:
        return self.channel, self.ts


@dataclass
class Send:
    body: bytes
    content_type: str
    kind: str
    retry: int = 0
    on_sent: Callable[[float], None] | None = None

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": self.content_type, **sign(self.body)}
        if self.retry:
            headers |= {"X-Slack-Retry-Num": str(self.retry), "X-Slack-Retry-Reason": "http_timeout"}
        return headers


@dataclass
class Ack:
    kind: str
    seconds: float
    status: int


def noise_lines(rng: Random, length: int) -> str:
    lines, size, step = [], 0, 0
    while size < length:
        step += 1
        line = (f"2024-05-01T12:{step // 60 % 60:02d}:{step % 60:02d}.{rng.randrange(1000):03d}Z INFO "
                f"trainer[{rng.randrange(8)}] step={step} loss={rng.random():.4f} lr=3.0e-04 "
                f"tokens/s={rng.randrange(9000, 12000)} mem={rng.randrange(20, 80)}GiB\n")
        lines.append(line)
        size += len(line)
    return "".join(lines)


def long_paste(rng: Random, error: str | None, where: str) -> str:
    """Exactly ``LONG`` characters of training log, with ``error`` at its start, middle or end."""
    if error is None:
        return noise_lines(rng, LONG)[:LONG]
    error = error[: LONG // 2]
    noise = noise_lines(rng, LONG)[: LONG - len(error) - 2]
    if where == "start":
        return error + "\n\n" + noise
    if where == "middle":
        half = noise.rfind("\n", 0, len(noise) // 2) + 1
        return noise[:half] + error + "\n\n" + noise[half:]
    return noise + "\n\n" + error


def junk(rng: Random, n: int) -> str:
    data = rng.randbytes(rng.randrange(2_000, 12_000))
    if n % 2:  # bytes as UTF-8 with replacement characters, as a mis-decoded upload reads
        return data.decode("utf-8", errors="replace")
    return data.decode("latin-1")  # every byte a character: NULs, ESCs, C1 controls


def build_pastes(count: int, rng: Random) -> list[Paste]:
    fixtures = sorted(PASTES.glob("*/*/*.txt"))
    chat_lines = [line for path in sorted(CHAT.glob("*.json")) for line in json.loads(path.read_text("utf-8"))]
    n_chat = round(count * 0.3)
    n_long = max(2, count // 75) if count >= 20 else 0
    n_junk = max(2, count // 75) if count >= 20 else 0
    n_fixture = max(0, count - n_chat - n_long - n_junk)

    def draw(pool: list[Any], n: int) -> list[Any]:
        return rng.sample(pool, n) if n <= len(pool) else pool + rng.choices(pool, k=n - len(pool))

    made: list[tuple[str, str, str]] = []
    for path in draw(fixtures, n_fixture):
        made.append(("fixture", str(path.relative_to(PASTES)), path.read_text("utf-8", errors="replace")))
    for line in draw(chat_lines, n_chat):
        made.append(("chat", "chat", line))
    for i in range(n_long):
        where = ("end", "none", "start", "middle")[i % 4]
        source = rng.choice(fixtures)
        error = None if where == "none" else source.read_text("utf-8", errors="replace")
        label = f"{where}:{source.relative_to(PASTES)}" if error else "noise"
        made.append(("long", label, long_paste(rng, error, where)))
    for i in range(n_junk):
        made.append(("junk", "random bytes", junk(rng, i)))
    rng.shuffle(made)
    users = sorted(USERS)
    return [Paste(kind, source, text, rng.choice(users), rng.choice(CHANNELS), f"1695000000.{i + 1:06d}",
                  f"EvSOAK{i:06d}") for i, (kind, source, text) in enumerate(made)]


def paste_sends(pastes: list[Paste], rng: Random, retry_share: float = 0.15) -> list[Send]:
    """One delivery per paste; some resent with the same event_id, racing the original or late."""
    now, late = [], []
    for paste in pastes:
        body = json.dumps(p.message(paste.text, user=paste.user, channel=paste.channel, ts=paste.ts,
                                    event_id=paste.event_id)).encode()

        def first(at: float, paste: Paste = paste) -> None:
            paste.sent_at = at

        now.append(Send(body, "application/json", "paste", on_sent=first))
        if rng.random() < retry_share:
            (now if rng.random() < 0.5 else late).append(Send(body, "application/json", "paste", retry=1))
    return now + late


async def deliver(url: str, sends: list[Send], concurrency: int, session: aiohttp.ClientSession) -> list[Ack]:
    """Post every send, ``concurrency`` at a time, in order; the HTTP response time of each."""
    queue: asyncio.Queue[Send] = asyncio.Queue()
    for send in sends:
        queue.put_nowait(send)
    acks: list[Ack] = []

    async def worker() -> None:
        while not queue.empty():
            send = queue.get_nowait()
            headers = send.headers()
            start = time.monotonic()
            if send.on_sent is not None:
                send.on_sent(start)
            async with session.post(url, data=send.body, headers=headers) as response:
                await response.read()
            acks.append(Ack(send.kind, time.monotonic() - start, response.status))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return acks


class FaultInjector:
    """Every ``every`` seconds, once the previous fault was served, make the fake fail one call to one
    of ``methods`` with 429 (Retry-After 1) or 500. One fault at a time, so no call's retries run out."""

    def __init__(self, fake: FakeSlack, rng: Random, methods: tuple[str, ...], limit: int, every: float = 0.3):
        self.fake, self.rng, self.methods, self.limit, self.every = fake, rng, methods, limit, every
        self.injected: list[tuple[str, int, Fault]] = []
        self._task: asyncio.Task[None] | None = None

    def __enter__(self) -> FaultInjector:
        self._task = asyncio.ensure_future(self._run())
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while len(self.injected) < self.limit:
            await asyncio.sleep(self.every)
            if self.injected and self.injected[-1][2].count > 0:
                continue
            method, status = self.rng.choice(self.methods), self.rng.choice((429, 500))
            self.fake.fail_next(status, method=method, retry_after=1)
            self.injected.append((method, status, self.fake.faults[-1]))

    def served(self) -> Counter[str]:
        return Counter(f"{method} {status}" for method, status, fault in self.injected if fault.count == 0)


# --- what the fake saw ----------------------------------------------------------------------


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


# --- the run --------------------------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = Random(args.seed)
        self.deadline = time.monotonic() + args.seconds
        self.children: list[Child] = []
        self.checks: list[Check] = []
        self.phase = "setup"
        self.db_url = ""
        self.baseline_seconds = math.nan

    def remaining(self, cap: float | None = None) -> float:
        left = max(0.0, self.deadline - time.monotonic() - 5.0)  # keep 5 s to stop and report
        return left if cap is None else min(cap, left)

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        self.checks.append(Check(name, ok, detail))

    async def run(self, tmp: Path) -> None:
        from bot.kb.knowledge import KnowledgeBase
        from bot.kb.normalize import normalize

        args, started = self.args, time.monotonic()
        seeds = tmp / "seeds"  # one snapshot for the offline matcher and the bot alike
        shutil.copytree(REPO / "seeds", seeds, ignore=shutil.ignore_patterns(".*"))
        kb = KnowledgeBase.load(seeds)
        pastes = build_pastes(args.pastes, self.rng)
        for paste in pastes:
            found = kb.matcher.match(normalize(paste.text), limit=1)
            paste.expected = found[0].entry_id if found else None
        kinds = Counter(pt.kind for pt in pastes)
        sends = paste_sends(pastes, self.rng)
        print(f"entries: {len(kb.entries)}   pastes: {len(pastes)} ({', '.join(f'{n} {k}' for k, n in kinds.items())})"
              f", {sum(pt.expected is not None for pt in pastes)} matched offline   deliveries: {len(sends)} "
              f"({len(sends) - len(pastes)} resent)   concurrency: {args.concurrency}")

        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.concurrency * 2)) as session:
            # Baseline first: the same signed requests, same concurrency, to a server that only verifies.
            self.phase = "baseline"
            base = await Child.spawn("baseline", tmp / "baseline.log")
            self.children.append(base)
            t = time.monotonic()
            base_acks = await deliver(base.url, [Send(s.body, s.content_type, s.kind, s.retry) for s in sends],
                                      args.concurrency, session)
            self.baseline_seconds = time.monotonic() - t
            await base.stop(5)

            fake = await FakeSlack().start()
            fake.locales.update(USERS)
            try:
                self.phase = "bot start"
                self.db_url = f"sqlite+aiosqlite:///{tmp / 'errkb.db'}"
                bot = await Child.spawn("bot", tmp / "bot.log", "--api-url", fake.api_url, "--seeds", str(seeds),
                                        "--db", self.db_url)
                self.children.append(bot)
                await self.soak(kb, pastes, sends, base_acks, bot, fake, session, started)
            finally:
                await fake.stop()

    async def soak(self, kb: Any, pastes: list[Paste], sends: list[Send], base_acks: list[Ack], bot: Child,
                   fake: FakeSlack, session: aiohttp.ClientSession, started: float) -> None:
        args, bot_started = self.args, time.monotonic()
        expected = {pt.thread: pt for pt in pastes if pt.expected is not None}

        # 1. Pastes, with retries, while Slack rate-limits and fails some posts.
        self.phase = "pastes"
        t0 = time.monotonic()
        with FaultInjector(fake, self.rng, ("chat.postMessage",), limit=max(4, len(pastes) // 6)) as paste_faults:
            acks = await asyncio.wait_for(deliver(bot.url, sends, args.concurrency, session), self.remaining())
            acked = time.monotonic()

            def complete() -> bool:
                count: Counter[tuple[str, str | None]] = Counter(m.thread for m in posts(fake))
                return all(count[t] >= 1 for t in expected)

            while not complete() and self.remaining() > 0 and time.monotonic() - acked < 45:
                await asyncio.sleep(0.1)
        answered = time.monotonic()
        await fake.settle(quiet=0.5, timeout=self.remaining(5))

        # 2. The vote storm on what was posted.
        self.phase = "votes"
        by_ts = {(m.call["channel"], m.call.ts): m for m in posts(fake) if m.kind in ("answer", "workaround")}
        storm = build_storm(by_ts, args.votes, self.rng, fake, args.cross_thread)
        t1 = time.monotonic()
        with FaultInjector(fake, self.rng, ("chat.update",), limit=max(4, args.votes // 50)) as vote_faults:
            vote_acks = await asyncio.wait_for(deliver(bot.url, storm.sends, args.concurrency, session),
                                               self.remaining())
            voted = time.monotonic()
            await asyncio.sleep(min(1.5, self.remaining()))  # the debounced updates fire
        self.phase = "shutdown"
        await bot.stop(self.remaining(30))  # SIGTERM: the bot lets updates and replies finish
        stopped = time.monotonic()

        # 3. Figures.
        def line(name: str, samples: list[float]) -> str:
            return f"{name:<34} p50 {ms(pct(samples, .5))}   p99 {ms(pct(samples, .99))}   max {ms(max(samples))}"

        first_reply: dict[tuple[str, str], float] = {}
        for m in posts(fake):
            if m.thread in expected and m.thread not in first_reply:
                first_reply[m.thread] = m.call.at  # type: ignore[index]
        ttfr = [first_reply[t] - pt.sent_at for t, pt in expected.items() if t in first_reply and pt.sent_at]
        ours = [a.seconds for a in acks]
        theirs = [a.seconds for a in base_acks]
        print()
        print(line("ack, errkb (pastes + resends)", ours))
        print(line("ack, baseline (verify + 200)", theirs))
        print(f"ack-latency ratio errkb/baseline:  p50 {pct(ours, .5) / pct(theirs, .5):.1f}x   "
              f"p99 {pct(ours, .99) / pct(theirs, .99):.1f}x")
        if ttfr:
            print(line("first reply in thread (POST→post)", ttfr))
        print(line("ack, errkb (vote storm)", [a.seconds for a in vote_acks] or [0.0]))
        print(f"throughput: pastes acked {len(acks) / (acked - t0):.0f}/s, baseline "
              f"{len(base_acks) / self.baseline_seconds:.0f}/s;  pastes answered "
              f"{len(expected) / (answered - t0):.1f}/s ({answered - t0:.1f} s for {len(expected)} answers);  "
              f"votes acked {len(vote_acks) / max(voted - t1, 1e-9):.0f}/s")
        print(f"vote storm: {storm.reactions} reactions ({storm.resent} resent), {storm.buttons} button votes, "
              f"{storm.translations} 中文/English clicks on {len(by_ts)} answer messages"
              + (f", {storm.cross_thread} cross-thread voters" if args.cross_thread else ""))
        print(f"faults served: {dict(paste_faults.served() + vote_faults.served())}   "
              f"chat.update calls: {len(fake.calls_to('chat.update'))}   "
              f"ephemeral messages: {len(fake.calls_to('chat.postEphemeral'))}")
        print(f"peak RSS: bot {bot.rss_mib:.0f} MiB (incl. KB and matcher), driver + fake {peak_rss_mib():.0f} MiB   "
              f"bot CPU {bot.cpu_s:.1f} s in {stopped - bot_started:.1f} s serving   stop after SIGTERM "
              f"{stopped - voted:.1f} s   wall {time.monotonic() - started:.1f} s")
        errors = [ln for ln in bot.log.read_text(errors="replace").splitlines() if " ERROR " in ln
                  or "Traceback" in ln]
        print(f"bot log: {len(errors)} error line(s)" + "".join(f"\n    {ln[:200]}" for ln in errors[:5]))

        # 4. Checks.
        await self.verify(pastes, expected, acks + vote_acks, fake, by_ts, storm)

    async def verify(self, pastes: list[Paste], expected: dict[tuple[str, str], Paste],
                     acks: list[Ack], fake: FakeSlack, by_ts: dict[tuple[str, str], Posted], storm: Storm) -> None:
        from bot.store import Store

        bad_status = Counter(a.status for a in acks if a.status != 200)
        self.check("every request acknowledged with 200", not bad_status, f"{dict(bad_status)}")
        slow = [a for a in acks if a.seconds >= SLACK_ACK_LIMIT]
        self.check(f"every ack within Slack's {SLACK_ACK_LIMIT:.0f} s", not slow, f"{len(slow)} slower")

        threads: dict[tuple[str, str | None], list[Posted]] = defaultdict(list)
        for m in posts(fake):
            threads[m.thread].append(m)
        wrong = []
        for thread, paste in expected.items():
            got = threads.get(thread, [])
            answers = [m for m in got if m.kind == "answer"]
            if len(answers) != 1 or answers[0].entry != paste.expected or len(got) != 1:
                wrong.append(f"{paste.source} ({paste.event_id}): {len(got)} posts, answers "
                             f"{[m.entry for m in answers]}, expected one answer about {paste.expected}")
        self.check(f"each of {len(expected)} matching pastes answered exactly once, in one message", not wrong,
                   "; ".join(wrong[:5]))
        unmatched = {pt.thread: pt for pt in pastes if pt.expected is None}
        spoke = [f"{unmatched[t].kind} {unmatched[t].event_id}" for t in threads if t in unmatched]
        chat = [pt for pt in pastes if pt.kind == "chat"]
        self.check(f"no answer to the {len(unmatched)} pastes that match nothing ({len(chat)} chat)",
                   not spoke and all(pt.expected is None for pt in chat),
                   f"answered: {spoke[:5]}; chat matched offline: "
                   f"{[pt.text[:60] for pt in chat if pt.expected is not None][:3]}")
        stray = [m for t, ms_ in threads.items() if t not in expected and t not in unmatched for m in ms_]
        self.check("no message outside a paste's thread", not stray, f"{len(stray)} stray")
        mislocalised = [f"{pt.user}/{pt.event_id}" for t, pt in expected.items()
                        for m in threads.get(t, []) if m.zh is not pt.zh]
        by_locale = Counter(USERS[pt.user] for pt in expected.values())
        self.check(f"answers in the poster's language ({dict(sorted(by_locale.items()))})", not mislocalised,
                   f"{len(mislocalised)} messages: {mislocalised[:5]}")

        # The store, read once the bot has exited.
        want = storm.expected(by_ts)
        store = await Store.open(self.db_url)
        try:
            entries = sorted({m.entry for m in by_ts.values() if m.entry})
            feedback = await store.feedback(entries)
            diffs = []
            for entry_id in entries:
                live = feedback[entry_id]
                targets = {(entry_id, None): live.diagnosis} | {(entry_id, i): t for i, t in live.workarounds.items()}
                for target in sorted(set(targets) | {t for t in want if t[0] == entry_id}, key=str):
                    have, should = targets.get(target, Tally()), want.get(target, Tally())
                    if have != should:
                        diffs.append(f"{target}: store {have.up}/{have.down}, reactions say {should.up}/{should.down}")
            voted = sum(1 for t in want.values() if t.up or t.down)
            self.check(f"store vote counters = final reactions and clicks ({voted} targets with votes)", not diffs,
                       f"{len(diffs)} differ: " + "; ".join(diffs[:5]))
            problems = await store.check()
            self.check("store.check() is empty", not problems, "; ".join(problems[:5]))
        finally:
            await store.close()

        # What each voted workaround message ends up showing (targets voted through one message only:
        # a vote refreshes the message it was cast on, not the same workaround's message in other threads).
        last_shown: dict[tuple[str, str], list[dict[str, Any]]] = {k: m.call["blocks"] for k, m in by_ts.items()}
        for call in fake.calls_to("chat.update"):
            if call.result.get("ok"):
                last_shown[(call["channel"], call["ts"])] = call["blocks"]
        stale = []
        for target, keys in storm.voted_messages.items():
            if target[1] is None or len(keys) != 1:
                continue
            key = next(iter(keys))
            should = want.get(target, Tally())
            if shown_votes(last_shown[key]) != (should.up, should.down):
                stale.append(f"{target}: shows {shown_votes(last_shown[key])}, final {should.up}/{should.down}")
        self.check("each voted workaround message ends showing its final votes", not stale,
                   f"{len(stale)}: " + "; ".join(stale[:5]))


async def main_async(args: argparse.Namespace) -> int:
    soak = Soak(args)
    tmp = Path(tempfile.mkdtemp(prefix="errkb-soak-"))
    try:
        try:
            await asyncio.wait_for(soak.run(tmp), args.seconds)
        except TimeoutError:
            soak.check(f"finished within --seconds {args.seconds:g}", False, f"time cap hit during {soak.phase}")
        print()
        for c in soak.checks:
            print(f"{'PASS' if c.ok else 'FAIL'}  {c.name}" + ("" if c.ok or not c.detail else f"\n      {c.detail}"))
        failed = [c for c in soak.checks if not c.ok]
        print(f"\n{len(soak.checks) - len(failed)}/{len(soak.checks)} checks passed")
        return 1 if failed or not soak.checks else 0
    finally:
        for child in soak.children:
            child.kill()
            await child.proc.wait()
        if args.keep:
            print(f"kept {tmp} (bot.log, baseline.log, errkb.db)")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pastes", type=int, default=300, help="paste events (default 300)")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument("--votes", type=int, default=1500, help="reaction and click events in the storm (default 1500)")
    parser.add_argument("--seconds", type=float, default=120.0, help="hard time cap (default 120)")
    parser.add_argument("--seed", type=int, default=1, help="workload seed (default 1)")
    parser.add_argument("--cross-thread", action="store_true",
                        help="also have readers react to the same workaround in two threads (currently fails: the "
                             "store keeps one state per reaction name per workaround, not per message)")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (logs, store)")
    parser.add_argument("--role", choices=("driver", "bot", "baseline"), default="driver", help=argparse.SUPPRESS)
    parser.add_argument("--api-url", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--seeds", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "bot":
        asyncio.run(role_bot(args))
    elif args.role == "baseline":
        asyncio.run(role_baseline(args))
    else:
        sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
