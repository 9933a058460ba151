"""Long soak: ``errkb serve`` (the real command, a child process) at a steady event rate for minutes.

Does the bot's state stay bounded? This process plays Slack: it hosts the fake Web API
(``tests.support.fake_slack``) the bot answers through, and posts signed events to the bot at
``--rate`` events a second for ``--minutes``: fixture pastes (each in its own thread, from users in
four Slack languages, across many channels so Slack's per-channel pace is not what is measured),
chat lines that must get no answer, 👍/👎 reactions and *Worked* / *Didn't work* clicks on the bot's
answers, and Slack's retries of earlier events (same ``event_id``). Every ``--every`` seconds it
prints one line: the bot's RSS, the SQLite file's size (with its WAL) and rows of handled-event
ids and decisions, requests that failed (non-2xx, an error line in the bot's log) or took over
Slack's 3 s, and reply latency (event sent → first answer in its thread) in that window.

Before the clock starts it sends every fixture paste once (``--no-prime`` skips it): compiling each
entry's RE2 regex is a one-time cost of ~120 KiB each, bounded by the KB and the matcher's cache,
which a random draw of pastes would otherwise spread over the whole run. The baseline is the same
run's first sample after warm-up (``--warmup``, default 60 s): the summary prints the RSS and the
database's growth rate in the last half against the first half, the RSS over time, and the RSS
slope (least squares) over the last third, called flat only below ``--flat`` MiB/min.
``--trace DIR`` runs the bot under ``bench.traced_serve`` and prints what grew (Python heap
against native memory, allocation sites, object counts).

    .venv/bin/python -m bench.soak_long [--minutes 15] [--rate 30] [--every 30] [--seed 1] [--trace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bench.harness import (
    REPO,
    Served,
    chat_lines,
    error_lines,
    fake_slack,
    fixture_pastes,
    make_parser,
    module_command,
    pct,
    rss_mib,
    serve_errkb,
    signed_json,
)
from bot.render.blocks import ACTION_VOTE_DOWN, ACTION_VOTE_UP
from tests.support import payloads as p
from tests.support.fake_slack import FakeSlack
from tests.support.waits import quiet

SECRET = "soak-long-signing-secret"
ACK_LIMIT = 3.0
CHANNELS = [f"C0SOAK{k:03d}" for k in range(60)]
LOCALES = ("en-US", "zh-CN", "zh-TW", "ja-JP")
USERS = {f"US{k:03d}": LOCALES[k % len(LOCALES)] for k in range(200)}
REACTIONS = ("+1", "-1", "+1::skin-tone-3", "thumbsdown", "eyes")


def db_figures(path: Path) -> tuple[float, int, int]:
    """(MiB on disk with the WAL, handled-event rows, decision rows)."""
    size = sum(f.stat().st_size for f in (path, Path(f"{path}-wal")) if f.exists())
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as conn:
        events = conn.execute("SELECT count(*) FROM slack_events").fetchone()[0]
        decisions = conn.execute("SELECT count(*) FROM decisions").fetchone()[0]
    return size / 2**20, events, decisions


@dataclass
class Sample:
    at: float
    sent: int
    rss: float
    db: float
    events: int
    decisions: int
    errors: int
    slow: int
    reply_p50: float
    reply_p95: float


@dataclass
class Load:
    """The event stream and what came of it."""

    url: str
    rng: Random
    pastes: list[str]
    chat: list[str]
    session: aiohttp.ClientSession
    sent: int = 0
    errors: int = 0
    slow: int = 0
    acks: list[float] = field(default_factory=list)
    waiting: dict[str, float] = field(default_factory=dict)  # thread ts → when its paste was sent
    replies: list[float] = field(default_factory=list)  # this window's reply latencies
    all_replies: list[float] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)  # recent payloads, for retries
    buttons: list[tuple[str, str, str, str]] = field(default_factory=list)  # channel, ts, action id, value

    def next_payload(self, answers: list[tuple[str, str]]) -> tuple[dict[str, Any], int | None]:
        roll = self.rng.random()
        user = self.rng.choice(list(USERS))
        channel = self.rng.choice(CHANNELS)
        if roll < 0.05 and self.history:
            return self.rng.choice(self.history), 1
        if roll < 0.40:
            payload = p.message(self.rng.choice(self.pastes), user=user, channel=channel)
            self.waiting[payload["event"]["ts"]] = time.monotonic()
        elif roll < 0.75:
            payload = p.message(self.rng.choice(self.chat), user=user, channel=channel)
        elif roll < 0.82 and self.buttons:
            where, ts, action_id, value = self.rng.choice(self.buttons)
            return {"form": p.block_action(action_id, value, "http://127.0.0.1:9/unused", user=user, channel=where,
                                           message_ts=ts)}, None
        elif answers:
            where, ts = self.rng.choice(answers)
            payload = p.reaction(self.rng.choice(REACTIONS), ts, user=user, channel=where,
                                 added=self.rng.random() < 0.8)
        else:
            payload = p.message(self.rng.choice(self.chat), user=user, channel=channel)
        self.history = [*self.history[-200:], payload]
        return payload, None

    async def send(self, payload: dict[str, Any], retry: int | None) -> None:
        form = payload.get("form")
        body = urlencode(form).encode() if form else json.dumps(payload).encode()
        headers = signed_json(body, SECRET) | ({"Content-Type": "application/x-www-form-urlencoded"} if form else {})
        if retry is not None:
            headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
        started = time.monotonic()
        try:
            async with self.session.post(f"{self.url}/slack/events", data=body, headers=headers) as r:
                await r.read()
                ok = 200 <= r.status < 300
        except (aiohttp.ClientError, TimeoutError):
            ok = False
        took = time.monotonic() - started
        self.acks.append(took)
        self.errors += not ok
        self.slow += took > ACK_LIMIT


def vote_buttons(blocks: Any, channel: str, ts: str) -> list[tuple[str, str, str, str]]:
    """The *Worked* / *Didn't work* buttons of a posted message."""
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    found = []
    for block in blocks or []:
        for element in block.get("elements") or []:
            if isinstance(element, dict) and element.get("action_id") in (ACTION_VOTE_UP, ACTION_VOTE_DOWN):
                found.append((channel, ts, element["action_id"], str(element.get("value") or "")))
    return found


def read_fixtures(rng: Random) -> tuple[list[str], list[str]]:
    pastes = fixture_pastes()
    rng.shuffle(pastes)
    return pastes, chat_lines()


async def start_bot(fake: FakeSlack, db: Path, log: Path, trace: dict[str, str] | None = None) -> Served:
    """``errkb serve`` as a child (under ``bench.traced_serve`` when ``trace`` gives its environment)."""
    served = serve_errkb(fake.api_url, f"sqlite+aiosqlite:///{db}", log, SECRET, cwd=REPO, extra_env=trace,
                         command=module_command("traced_serve") if trace is not None else None)
    await served.ready(timeout=600)  # a cold KB snapshot under tracemalloc takes minutes
    return served


async def prime(url: str, rng: Random, pastes: list[str], session: aiohttp.ClientSession, rate: float,
                fake: FakeSlack, pid: int) -> int:
    """Every fixture paste once, at ``rate``, before the clock starts: each entry's regex the workload
    can reach is then compiled (a one-time cost bounded by the KB and the matcher's cache), so the
    soak measures what grows with time, not that warm-up. Returns how many posts it caused."""
    before = rss_mib(pid)
    started = time.monotonic()
    load = Load(url, rng, pastes, [], session)
    gate = asyncio.Semaphore(64)

    async def one(text: str, k: int) -> None:
        async with gate:
            await load.send(p.message(text, user=list(USERS)[k % len(USERS)], channel=CHANNELS[k % len(CHANNELS)]),
                            None)

    tasks = []
    for k, text in enumerate(pastes):
        await asyncio.sleep(max(0.0, started + k / rate - time.monotonic()))
        tasks.append(asyncio.create_task(one(text, k)))
    await asyncio.gather(*tasks)
    await quiet(lambda: len(fake.calls_to("chat.postMessage")), 2, timeout=float("inf"))  # until answers stop
    posts = len(fake.calls_to("chat.postMessage"))
    print(f"primed: {len(pastes)} fixture pastes in {time.monotonic() - started:.0f} s ({load.errors} errors); "
          f"RSS {before:.0f} → {rss_mib(pid):.0f} MiB (the regex cache's warm-up)", flush=True)
    return posts


async def soak(args: argparse.Namespace, tmp: Path) -> int:
    rng = Random(args.seed)
    pastes, chat = read_fixtures(rng)
    fake = await fake_slack(USERS)
    db, log = tmp / "errkb.db", tmp / "serve.log"
    trace = {"ERRKB_TRACE_DIR": str(args.trace)} if args.trace else None
    served = await start_bot(fake, db, log, trace)
    proc, url = served.proc, served.base_url
    print(f"errkb serve pid {proc.pid} on {url}; {args.rate} events/s for {args.minutes} min; log {log}", flush=True)
    samples: list[Sample] = []
    inflight: set[asyncio.Task[None]] = set()
    gate = asyncio.Semaphore(256)
    seen = 0
    answers: list[tuple[str, str]] = []
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            if args.prime:
                seen = await prime(url, rng, pastes, session, args.rate, fake, proc.pid)
            load = Load(url, rng, pastes, chat, session)
            print(f"{'t(s)':>6} {'sent':>7} {'RSS MiB':>8} {'DB MiB':>7} {'ev ids':>7} {'decis.':>7} {'errors':>6} "
                  f"{'>3s':>4} {'reply p50':>9} {'p95':>7}", flush=True)
            started = time.monotonic()
            end = started + args.minutes * 60
            next_sample = started + args.every
            i = 0
            while (now := time.monotonic()) < end:
                due = started + i / args.rate
                if due > now:
                    await asyncio.sleep(due - now)
                payload, retry = load.next_payload(answers)
                i += 1
                load.sent += 1

                async def one(payload: dict[str, Any] = payload, retry: int | None = retry) -> None:
                    async with gate:
                        await load.send(payload, retry)

                task = asyncio.create_task(one())
                inflight.add(task)
                task.add_done_callback(inflight.discard)
                if time.monotonic() >= next_sample:
                    next_sample += args.every
                    calls = fake.calls_to("chat.postMessage")
                    for call in calls[seen:]:
                        thread = str(call.get("thread_ts") or "")
                        sent_at = load.waiting.pop(thread, None)
                        if sent_at is not None:
                            load.replies.append(call.at - sent_at)
                        if call.result.get("ts"):
                            answers.append((str(call.get("channel")), call.ts))
                            load.buttons += vote_buttons(call.get("blocks"), str(call.get("channel")), call.ts)
                    seen = len(calls)
                    answers, load.buttons = answers[-2000:], load.buttons[-2000:]
                    size, events, decisions = db_figures(db)
                    sample = Sample(time.monotonic() - started, load.sent, rss_mib(proc.pid), size, events, decisions,
                                    load.errors + len(error_lines(log)), load.slow, pct(load.replies, 0.5),
                                    pct(load.replies, 0.95))
                    load.all_replies += load.replies
                    load.replies = []
                    samples.append(sample)
                    if args.trace:
                        proc.send_signal(signal.SIGUSR1)  # snapshot n is taken at sample n
                    print(f"{sample.at:6.0f} {sample.sent:7d} {sample.rss:8.1f} {sample.db:7.2f} {sample.events:7d} "
                          f"{sample.decisions:7d} {sample.errors:6d} {sample.slow:4d} "
                          f"{sample.reply_p50 * 1000:7.0f}ms {sample.reply_p95 * 1000:5.0f}ms", flush=True)
            await asyncio.gather(*inflight)
    finally:
        await served.terminate(40)
        await fake.stop()
    code = summary(args, samples, load)
    if args.trace:
        from bench.traced_serve import report

        snaps = sorted(int(f.stem) for f in args.trace.glob("*.json"))
        first = next((n for n, s in enumerate(samples, 1) if s.at >= args.warmup and n in snaps), 0)
        if snaps and snaps[-1] > first:
            print(report(args.trace, first, snaps[-1]))
    return code


def summary(args: argparse.Namespace, samples: list[Sample], load: Load) -> int:
    warm = [s for s in samples if s.at >= args.warmup] or samples
    if len(warm) < 2:
        print("too short to compare halves; run longer (--minutes)")
        return 0
    half = len(warm) // 2
    first, last = warm[:half + 1], warm[half:]

    def growth(part: list[Sample]) -> float:  # MiB per minute
        return (part[-1].db - part[0].db) / max(1e-9, (part[-1].at - part[0].at) / 60)

    def rss_slope(part: list[Sample]) -> float:  # least-squares MiB per minute, so one noisy sample does not decide
        if len(part) < 2:
            return 0.0
        return statistics.linear_regression([s.at / 60 for s in part], [s.rss for s in part]).slope

    unanswered = len(load.waiting)
    print(f"\n{load.sent} events in {samples[-1].at:.0f} s ({load.sent / samples[-1].at:.1f}/s); "
          f"ack median {statistics.median(load.acks) * 1000:.1f} ms, p99 {pct(load.acks, 0.99) * 1000:.0f} ms; "
          f"errors {samples[-1].errors}, acks over 3 s {samples[-1].slow}")
    print(f"reply latency (paste → first answer): median {pct(load.all_replies, 0.5) * 1000:.0f} ms, "
          f"p95 {pct(load.all_replies, 0.95) * 1000:.0f} ms over {len(load.all_replies)} answers "
          f"({unanswered} pastes still waiting at the end, most sent in the last seconds or matching nothing)")
    print(f"RSS: {warm[0].rss:.0f} MiB at {warm[0].at:.0f} s (baseline) → {samples[-1].rss:.0f} MiB at the end "
          f"(ratio {samples[-1].rss / warm[0].rss:.2f}); slope {rss_slope(first):+.2f} MiB/min first half, "
          f"{rss_slope(last):+.2f} MiB/min last half")
    third = warm[-max(2, len(warm) // 3):]
    slope = rss_slope(third)
    verdict = "flat" if slope < args.flat else "still growing"
    step = max(1, len(samples) // 20)
    print("RSS over time (MiB): " + " ".join(f"{s.at / 60:.1f}m:{s.rss:.0f}" for s in samples[::step]))
    print(f"RSS slope over the last third ({third[0].at / 60:.1f}–{third[-1].at / 60:.1f} min): {slope:+.2f} MiB/min "
          f"→ {verdict} (flat means under {args.flat:.2f} MiB/min)")
    print(f"database: {warm[0].db:.1f} → {samples[-1].db:.1f} MiB; growth {growth(first):.2f} MiB/min first half, "
          f"{growth(last):.2f} MiB/min last half (ratio {growth(last) / growth(first) if growth(first) else 0:.2f}); "
          f"handled-event ids {samples[-1].events}, decisions {samples[-1].decisions}")
    return 1 if samples[-1].errors or samples[-1].slow else 0


def main() -> None:
    parser = make_parser(__doc__, seed=1)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to soak (default 10)")
    parser.add_argument("--rate", type=float, default=30.0, help="events a second (default 30)")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples (default 30)")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds before the baseline sample (default 60)")
    parser.add_argument("--no-prime", dest="prime", action="store_false",
                        help="skip sending every fixture paste once before the clock starts")
    parser.add_argument("--flat", type=float, default=0.5,
                        help="RSS slope (MiB/min, last third) under which memory counts as flat (default 0.5)")
    parser.add_argument("--trace", type=Path, help="run the bot under bench.traced_serve, snapshots in this folder, "
                        "and print what grew from the baseline sample to the last")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errkb-soak-long-") as tmp:
        sys.exit(asyncio.run(soak(args, Path(tmp))))


if __name__ == "__main__":
    main()
