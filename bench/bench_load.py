"""Load benchmark: signed Slack events at fixed rates into a real ``errkb serve``, against a bare Bolt app.

Everything runs on 127.0.0.1. This process hosts the fake Slack Web API (``tests.support.fake_slack``)
and plays Slack: it posts signed ``event_callback`` requests on a fixed schedule (open loop: a slow
server does not slow the sender), 90% chat lines (``pastes/_chat``) and 10% pastes
(``pastes``), each in its own thread, spread over one channel per event per second.
The same schedule goes to

- **errkb**: ``errkb serve`` in a child process (SQLite file, or a fresh PostgreSQL schema), and
- **bare**: a Bolt app with one hard-coded regex that posts one reply in the thread — the least a
  Slack bot does; it is the baseline, measured in the same run.

For each it prints ack latency (the HTTP answer to Slack's POST) and first-reply latency (POST →
the first ``chat.postMessage`` in that thread reaching the fake) as p50/p99, replies lost (a paste the
server's own matcher matches, never answered within ``--grace`` seconds) and duplicated (an answer
posted twice in one thread), the server's peak RSS, and the ratios errkb / bare.

``--votes RATE`` then sends 👍/👎 add/remove events at RATE per second for ``--seconds`` onto errkb's
answers, kills the server with SIGKILL right after, and checks ``errkb db check`` is clean.

    .venv/bin/python -m bench.bench_load [--rates 100,400] [--seconds 10] [--postgres URL] [--votes 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bench.harness import (
    ERRKB,
    REPO,
    SEEDS,
    Served,
    chat_lines,
    cpu_seconds,
    fixture_pastes,
    free_port,
    make_parser,
    module_command,
    pct,
    peak_rss_mib,
    serve_errkb,
    signed_json,
)
from tests.support import payloads as p
from tests.support.fake_slack import TOKEN, FakeSlack
from tests.support.waits import quiet

SECRET = "bench-signing-secret"
# The bare app's one regex: an exception or error line, as most pastes end.
BARE_REGEX = r"(?m)^\S*(Error|Exception)\b[^\n]*"
PG_ENV = "ERRKB_TEST_POSTGRES_URL"


# --- the bare Bolt app (run as a child: --role bare PORT API_URL) ---------------------------------------


def run_bare(port: int, api_url: str) -> None:
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    pattern = re.compile(BARE_REGEX)
    client = AsyncWebClient(token=TOKEN, base_url=api_url)
    app = AsyncApp(client=client, signing_secret=SECRET)

    @app.event("message")
    async def on_message(event: dict, client: AsyncWebClient) -> None:
        found = pattern.search(event.get("text") or "")
        if found:
            await client.chat_postMessage(channel=event["channel"], thread_ts=event.get("thread_ts") or event["ts"],
                                          text=f"Looks like: {found.group(0)[:200]}")

    app.start(port=port, path="/slack/events")


# --- servers ----------------------------------------------------------------------------------------


def start_errkb(api_url: str, database_url: str, tmp: Path, tag: str) -> Served:
    return serve_errkb(api_url, database_url, tmp / f"errkb-{tag}.log", SECRET, cwd=tmp)


async def metrics_line(server: Served) -> str:
    """errkb's own counters after a run (GET /metrics): events by outcome, matches by how, Web API results."""
    from prometheus_client.parser import text_string_to_metric_families

    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{server.port}/metrics") as r:
        body = await r.text()
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    keys = {"errkb_events_total": "outcome", "errkb_matches_total": "how", "errkb_slack_api_calls_total": "result",
            "errkb_slack_api_retries_total": "reason", "errkb_decisions_total": "result"}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            if sample.name in keys:
                sums[sample.name.removeprefix("errkb_").removesuffix("_total")][sample.labels[keys[sample.name]]] += \
                    sample.value
            elif sample.name == "errkb_pending_decisions":
                sums["pending"]["now"] = sample.value
    return "; ".join(f"{name} " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(values.items()))
                     for name, values in sums.items())


def start_bare(api_url: str, tmp: Path) -> Served:
    port = free_port()
    log = tmp / "bare.log"
    with log.open("w") as out:
        proc = subprocess.Popen(module_command("bench_load", "--role", "bare", str(port), api_url),
                                stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    return Served("bare", proc, port, log)


# --- the load ---------------------------------------------------------------------------------------


@dataclass
class Event:
    body: bytes
    channel: str
    ts: str
    paste: str | None  # the paste's text (None: chat)
    sent_at: float = math.nan
    ack: float = math.nan
    status: int = 0


def workload(rate: int, seconds: float, rng: random.Random, run: str, paste_every: int = 10) -> list[Event]:
    """``rate × seconds`` events, one in ``paste_every`` a paste; users take turns (then every reader's
    language is known after the warm-up, as in a workspace that has used errkb for a while)."""
    pastes, chat = fixture_pastes(), chat_lines()
    channels = [f"C{run}{i:04d}" for i in range(max(1, rate))]
    users = [f"U{k:03d}" for k in range(50)]
    events = []
    for i in range(int(rate * seconds)):
        is_paste = i % paste_every == paste_every // 2
        text = rng.choice(pastes) if is_paste else rng.choice(chat)
        ts = f"1700{rng.randrange(100000, 999999)}.{i:06d}"
        channel = rng.choice(channels)
        payload = p.message(text, user=users[i % len(users)], channel=channel, ts=ts,
                            event_id=f"Ev{run}{uuid.uuid4().hex[:12]}")
        events.append(Event(json.dumps(payload).encode(), channel, ts, text if is_paste else None))
    return events


async def fire(url: str, events: list[Event], rate: int) -> None:
    """Post each event at its slot on a fixed schedule, without waiting for earlier answers."""
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(event: Event) -> None:
            event.sent_at = time.monotonic()
            try:
                async with session.post(url, data=event.body, headers=signed_json(event.body, SECRET)) as r:
                    await r.read()
                    event.status = r.status
            except aiohttp.ClientError:
                event.status = -1
            event.ack = time.monotonic() - event.sent_at

        start = time.monotonic()
        tasks = []
        for i, event in enumerate(events):
            delay = start + i / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.ensure_future(one(event)))
        await asyncio.gather(*tasks)


@dataclass
class Result:
    name: str
    rate: int
    acks: list[float]
    firsts: list[float]
    lost: int
    duplicated: int
    expected: int
    errors: int
    rss: float
    cpu_ms: float = math.nan  # the server's CPU time per event

    def row(self, base: Result | None) -> str:
        def ms(x: float) -> str:
            return f"{x * 1e3:7.1f}" if not math.isnan(x) else "    n/a"

        ack50, ack99, first50, first99 = (pct(self.acks, 0.5), pct(self.acks, 0.99), pct(self.firsts, 0.5),
                                          pct(self.firsts, 0.99))
        ratio = ""
        if base is not None and base is not self:
            ratio = (f"  ×{first50 / pct(base.firsts, 0.5):.1f} / ×{first99 / pct(base.firsts, 0.99):.1f} reply, "
                     f"×{ack99 / pct(base.acks, 0.99):.1f} ack p99")
        return (f"{self.name:<18} {self.rate:>4}/s  ack {ms(ack50)} {ms(ack99)} ms   first reply {ms(first50)} "
                f"{ms(first99)} ms   lost {self.lost}/{self.expected}  dup {self.duplicated}  errors {self.errors}  "
                f"RSS {self.rss:.0f} MiB  CPU {self.cpu_ms:.2f} ms/event{ratio}")


def measure(name: str, rate: int, events: list[Event], fake: FakeSlack, answered, rss: float) -> Result:
    posts: dict[tuple[str, str], list] = defaultdict(list)
    for call in fake.calls_to("chat.postMessage"):
        if call.result.get("ok") and call.get("thread_ts"):
            posts[(call["channel"], call["thread_ts"])].append(call)
    firsts, lost, dup, expected = [], 0, 0, 0
    for e in events:
        thread = posts.get((e.channel, e.ts), [])
        if e.paste is not None and answered(e.paste):
            expected += 1
            if not thread:
                lost += 1
                continue
            firsts.append(thread[0].at - e.sent_at)
            first_text = thread[0]["text"]
            dup += sum(1 for c in thread[1:] if c["text"] == first_text)
    errors = sum(1 for e in events if e.status != 200)
    if os.environ.get("BENCH_SLOWEST"):
        slow = sorted(((posts[(e.channel, e.ts)][0].at - e.sent_at, e) for e in events
                       if e.paste is not None and posts.get((e.channel, e.ts))), key=lambda x: -x[0])[:5]
        for seconds, e in slow:
            print(f"  slow {seconds * 1e3:.0f} ms at {e.sent_at - events[0].sent_at:.2f} s {e.channel} "
                  f"{json.loads(e.body)['event']['user']} {e.paste.splitlines()[-1][:80]!r}")
        acks = sorted(events, key=lambda e: -e.ack)[:8]
        print("  slowest acks: " + ", ".join(f"{e.ack * 1e3:.0f} ms at {e.sent_at - events[0].sent_at:.2f} s"
                                             f"{' (paste)' if e.paste else ''}" for e in acks))
    return Result(name, rate, [e.ack for e in events], firsts, lost, dup, expected, errors, rss)


async def settle(fake: FakeSlack, grace: float) -> None:
    """Until a second passes without a call to the fake (and there was one), at most ``grace`` seconds."""
    await quiet(lambda: len(fake.calls), 1.0, grace, nonzero=True)


async def one_run(name: str, server: Served, fake: FakeSlack, rate: int, seconds: float, grace: float,
                  answered, rng: random.Random, run: str) -> Result:
    await server.ready()
    fake.calls.clear()
    warm = workload(25, 2, rng, run + "w", paste_every=1)  # Bolt's auth.test; each reader's language
    await fire(server.url, warm, 25)
    await settle(fake, 5)
    fake.calls.clear()
    events = workload(rate, seconds, rng, run)
    cpu = cpu_seconds(server.proc.pid)
    await fire(server.url, events, rate)
    await settle(fake, grace)
    cpu = cpu_seconds(server.proc.pid) - cpu
    peak = peak_rss_mib(server.proc.pid)
    result = measure(name, rate, events, fake, answered, peak)
    result.cpu_ms = cpu / len(events) * 1e3
    return result


# --- votes ------------------------------------------------------------------------------------------


async def vote_storm(server: Served, fake: FakeSlack, rate: int, seconds: float, rng: random.Random,
                     database_url: str, tmp: Path) -> list[str]:
    answers = [c for c in fake.calls_to("chat.postMessage") if c.result.get("ok") and c.get("thread_ts")]
    if not answers:
        return ["votes: no answers to vote on"]
    targets = [(c["channel"], c.ts) for c in answers]
    events = []
    users = [f"UV{k:03d}" for k in range(200)]
    for i in range(int(rate * seconds)):
        channel, ts = rng.choice(targets)
        name = rng.choice(("+1", "-1", "+1::skin-tone-3", "thumbsdown"))
        payload = p.reaction(name, ts, user=rng.choice(users), added=rng.random() < 0.7, channel=channel,
                             event_ts=f"{1700000000 + i}.{i % 1000000:06d}")
        events.append(Event(json.dumps(payload).encode(), channel, ts, None))
    began, cpu = time.monotonic(), cpu_seconds(server.proc.pid)
    await fire(server.url, events, rate)
    took, cpu = time.monotonic() - began, cpu_seconds(server.proc.pid) - cpu
    server.stop(kill=True)  # kill -9 right after the storm: whatever was committed must add up
    acks = [e.ack for e in events]
    ok = sum(1 for e in events if e.status == 200)
    check = subprocess.run([str(ERRKB), "db", "check"], env={**os.environ, "DATABASE_URL": database_url},
                           capture_output=True, text=True, cwd=tmp)
    verdict = "clean" if check.returncode == 0 else f"NOT clean:\n{check.stdout[-2000:]}"
    return [f"votes: {len(events)} events at {rate}/s sent in {took:.1f} s, {ok} acked 200 "
            f"({ok / took:.0f}/s); ack p50 {pct(acks, 0.5) * 1e3:.1f} ms, p99 {pct(acks, 0.99) * 1e3:.1f} ms; "
            f"CPU {cpu / len(events) * 1e3:.2f} ms/event; "
            f"after kill -9, `errkb db check`: {verdict}"]


# --- main -------------------------------------------------------------------------------------------


async def main_async(args: argparse.Namespace) -> int:
    from bot.kb.knowledge import KnowledgeBase
    from bot.kb.normalize import normalize

    kb = KnowledgeBase.load(SEEDS)
    bare = re.compile(BARE_REGEX)
    cache: dict[str, bool] = {}

    def errkb_answers(text: str) -> bool:
        if text not in cache:
            cache[text] = bool(kb.matcher.match(normalize(text), limit=1))
        return cache[text]

    backends = [("sqlite", None)]
    pg = args.postgres or os.environ.get(PG_ENV)
    if pg:
        backends.append(("postgresql", pg))
    else:
        print(f"(PostgreSQL skipped: give --postgres URL or set {PG_ENV})")
    rng = random.Random(args.seed)
    fake = await FakeSlack().start()
    results: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="errkb-load-") as tmp_name:
            tmp = Path(tmp_name)
            for rate in args.rates:
                bare_server = start_bare(fake.api_url, tmp)
                try:
                    base = await one_run("bare Bolt", bare_server, fake, rate, args.seconds, args.grace,
                                         lambda t: bool(bare.search(t)), rng, f"B{rate}")
                finally:
                    bare_server.stop()
                results.append(base.row(None))
                print(results[-1], flush=True)
                for backend, url in backends:
                    schema = f"errkb_bench_{uuid.uuid4().hex[:8]}"
                    database_url = (f"sqlite+aiosqlite:///{tmp / f'{backend}-{rate}.db'}" if url is None
                                    else f"{url}{'&' if '?' in url else '?'}schema={schema}")
                    server = start_errkb(fake.api_url, database_url, tmp, f"{backend}-{rate}")
                    try:
                        result = await one_run(f"errkb {backend}", server, fake, rate, args.seconds, args.grace,
                                               errkb_answers, rng, f"E{rate}{backend[0]}")
                        results.append(result.row(base))
                        print(results[-1], flush=True)
                        print(f"  {backend} /metrics: {await metrics_line(server)}", flush=True)
                        if args.votes and rate == args.rates[-1]:
                            for line in await vote_storm(server, fake, args.votes, args.seconds, rng, database_url,
                                                         tmp):
                                print(f"  {backend} {line}", flush=True)
                    finally:
                        server.stop()
                        if url is not None:
                            await drop_schema(url, schema)
    finally:
        await fake.stop()
    return 0


async def drop_schema(url: str, schema: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    await engine.dispose()


def main() -> None:
    parser = make_parser(__doc__, whole_doc=False, seed=1)
    parser.add_argument("--role", choices=("bare",), help=argparse.SUPPRESS)
    parser.add_argument("role_args", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--rates", type=lambda s: [int(x) for x in s.split(",")], default=[100, 400])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load per rate")
    parser.add_argument("--grace", type=float, default=15.0, help="seconds to wait for the last replies")
    parser.add_argument("--postgres", help=f"a PostgreSQL URL (default ${PG_ENV})")
    parser.add_argument("--votes", type=int, default=0, help="then a vote storm at this rate (events/s)")
    args = parser.parse_args()
    if args.role == "bare":
        run_bare(int(args.role_args[0]), args.role_args[1])
        return
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
