"""``bench.soak_slack``'s workload: pastes of every kind from users in four Slack languages, their
signed deliveries (some resent, as Slack retries), sent with bounded concurrency, and the faults the fake
Slack injects meanwhile."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import aiohttp

from bench.harness import PASTES, chat_lines, fixture_paths
from tests.support import payloads as p
from tests.support.fake_slack import FakeSlack, Fault
from tests.support.signing import sign

SECRET = "soak-signing-secret"
CHANNELS = ("C0ERRORS", "C0INFRA", "C0ML")
LOCALES = {"EN": "en-US", "CN": "zh-CN", "TW": "zh-TW", "JA": "ja-JP"}
USERS = {f"U{tag}{k}": code for tag, code in LOCALES.items() for k in range(8)}
LONG = 40_000  # Slack's limit on a message's text


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
        headers = {"Content-Type": self.content_type, **sign(self.body, secret=SECRET)}
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
    fixtures, chat = fixture_paths(), chat_lines()
    n_chat = round(count * 0.3)
    n_long = max(2, count // 75) if count >= 20 else 0
    n_junk = max(2, count // 75) if count >= 20 else 0
    n_fixture = max(0, count - n_chat - n_long - n_junk)

    def draw(pool: list[Any], n: int) -> list[Any]:
        return rng.sample(pool, n) if n <= len(pool) else pool + rng.choices(pool, k=n - len(pool))

    made: list[tuple[str, str, str]] = []
    for path in draw(fixtures, n_fixture):
        made.append(("fixture", str(path.relative_to(PASTES)), path.read_text("utf-8", errors="replace")))
    for line in draw(chat, n_chat):
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
