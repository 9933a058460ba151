"""Liveness under load (issue 24, point 9): ``/livez`` must answer promptly whatever the store is doing.

Starts ``errkb serve`` (SQLite) against the fake Slack, teaches it ``--team-entries`` team entries
first (so every paste also consults its workspace's team matcher), then for ``--seconds`` drives
signed traffic of every kind from ``--workers`` concurrent senders — pastes, 👍/👎 reactions,
``/errkb`` commands, button clicks and new team-entry submissions — while a separate client polls
``/livez`` every 100 ms (and ``/readyz`` every second). Halfway through, another connection holds
SQLite's write lock (``BEGIN EXCLUSIVE``) for ``--lock-seconds``, as a backup or a second process would.
Prints the slowest ``/livez``, its p99, how many took over a second, the slowest ``/readyz`` and what it
said, and the requests sent by kind and status. Exit 1 when a ``/livez`` took over 1 s.

    .venv/bin/python -m bench.bench_liveness [--seconds 30] [--workers 24] [--team-entries 40] [--lock-seconds 5]
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import secrets
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bench.harness import REPO, error_lines, fake_slack, fixture_pastes, make_parser, pct, serve_errkb, signed_json
from tests.support import payloads as p
from tests.support.signing import sign

NCCL = "pytorch/nccl-timeout-during-allreduce"
SLOW = 1.0  # seconds: a /livez slower than this is a frozen server
KINDS = ("paste", "reaction", "command", "click", "teach")


def teach_form(n: int) -> dict[str, str]:
    """A *Add to errkb* modal submitted: a new team entry with its own regex."""
    fields = {"title": f"QuuxWidgetError{n}: spindle jammed", "root_cause": "The spindle jams.",
              "workarounds": "Oil the spindle.", "dead_ends": "", "regex": rf"QuuxWidgetError{n}: spindle \d+ jammed"}
    state = {block: {"value": {"type": "plain_text_input", "value": value}} for block, value in fields.items()}
    meta = json.dumps({"line": f"QuuxWidgetError{n}: spindle <n> jammed", "locale": "en"})
    payload = {"type": "view_submission", "team": {"id": p.TEAM, "domain": "fake"},
               "user": {"id": "U_EN", "team_id": p.TEAM}, "api_app_id": p.APP, "token": "legacy-verification-token",
               "trigger_id": f"trigger.teach{n}",
               "view": {"id": f"V{n}", "type": "modal", "callback_id": "errkb_teach", "private_metadata": meta,
                        "state": {"values": state}, "team_id": p.TEAM}}
    return {"payload": json.dumps(payload)}


class Sender:
    def __init__(self, url: str, secret: str, session: aiohttp.ClientSession, response_url: str) -> None:
        self.url, self.secret, self.session, self.response_url = url, secret, session, response_url
        self.status: Counter[tuple[str, int]] = Counter()
        self.took: dict[str, list[float]] = {kind: [] for kind in KINDS}
        self.taught = itertools.count(1000)

    async def post(self, kind: str, body: str, content_type: str) -> None:
        headers = {**sign(body, secret=self.secret), "Content-Type": content_type}
        started = time.monotonic()
        try:
            async with self.session.post(self.url, data=body.encode(), headers=headers) as r:
                await r.read()
                status = r.status
        except (TimeoutError, aiohttp.ClientError):
            status = 0
        self.took[kind].append(time.monotonic() - started)
        self.status[(kind, status)] += 1

    async def event(self, kind: str, payload: dict[str, Any]) -> None:
        body = json.dumps(payload)
        await self.post(kind, body, signed_json(body.encode(), self.secret)["Content-Type"])

    async def form(self, kind: str, fields: dict[str, str]) -> None:
        await self.post(kind, urlencode(fields), "application/x-www-form-urlencoded")

    async def one(self, kind: str, pastes: list[str], rng: random.Random) -> None:
        channel = f"C{rng.randrange(20):04d}"
        if kind == "paste":
            text = rng.choice(pastes) + (f"\nQuuxWidgetError{rng.randrange(40)}: spindle 7 jammed"
                                         if rng.random() < 0.3 else "")
            await self.event(kind, p.message(text, channel=channel, user=rng.choice(["U_EN", "U_CN"])))
        elif kind == "reaction":
            await self.event(kind, p.reaction(rng.choice(["+1", "-1"]), p.new_ts(), channel=channel,
                                              added=rng.random() < 0.7))
        elif kind == "command":
            await self.form(kind, p.slash_command(rng.choice(["nccl timeout", "help", "CUDA out of memory"]),
                                                  self.response_url, channel=channel))
        elif kind == "click":
            action = rng.choice(["errkb_vote_up", "errkb_vote_down", "errkb_other_fixes", "errkb_details"])
            value = f"{NCCL}#0" if "vote" in action else NCCL
            await self.form(kind, p.block_action(action, value, self.response_url, channel=channel,
                                                 message_ts=p.new_ts()))
        else:
            await self.form(kind, teach_form(next(self.taught)))


def hold_lock(path: Path, seconds: float) -> None:
    """Another connection takes SQLite's write lock and keeps it ``seconds``."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        time.sleep(seconds)
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def poll(base: str, path: str, until: float, every: float) -> tuple[list[float], list[str]]:
    """``path`` every ``every`` s on a client of its own: how long each took, and why it was not ok
    (``/readyz``'s reason, or "no answer")."""
    took: list[float] = []
    reasons: list[str] = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                async with session.get(f"{base}{path}") as r:
                    body = await r.json()
                    if not body.get("ok"):
                        reasons.append(str(body.get("reason")))
            except (TimeoutError, aiohttp.ClientError, ValueError):
                reasons.append("no answer")
            took.append(time.monotonic() - started)
            await asyncio.sleep(max(0.0, every - (time.monotonic() - started)))
    return took, reasons


async def run(seconds: float, workers: int, team_entries: int, seed: int, lock_seconds: float,
              command: list[str] | None = None, keep_log: str | None = None) -> int:
    pastes = fixture_pastes()
    secret = secrets.token_hex(16)
    fake = await fake_slack({"U_EN": "en-US", "U_CN": "zh-CN"})
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "errkb.log"
        db = Path(tmp) / "errkb.db"
        served = serve_errkb(fake.api_url, f"sqlite+aiosqlite:///{db}", log, secret, cwd=REPO,
                             command=command)
        try:
            await served.ready()
            limits = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=limits, timeout=aiohttp.ClientTimeout(total=60)) as session:
                sender = Sender(served.url, secret, session, fake.response_url("bench"))
                for n in range(team_entries):
                    await sender.form("teach", teach_form(n))
                print(f"bench_liveness: {team_entries} team entries taught "
                      f"({sender.status[('teach', 200)]} acked 200); {workers} senders for {seconds:.0f} s; "
                      f"another connection holds the write lock for {lock_seconds:.0f} s halfway")
                until = time.monotonic() + seconds

                async def worker(w: int) -> None:
                    mine = random.Random(seed * 1000 + w)
                    while time.monotonic() < until:
                        await sender.one(mine.choice(KINDS), pastes, mine)

                async def lock() -> None:
                    if lock_seconds > 0:
                        await asyncio.sleep(max(0.0, (seconds - lock_seconds) / 2))
                        await asyncio.to_thread(hold_lock, db, lock_seconds)

                (livez, _), (readyz, reasons), *_ = await asyncio.gather(
                    poll(served.base_url, "/livez", until, 0.1), poll(served.base_url, "/readyz", until, 1.0), lock(),
                    *(worker(w) for w in range(workers)))
            await served.terminate(30)
        finally:
            served.stop(kill=True)
            await fake.stop()
        slow = sum(1 for t in livez if t > SLOW)
        print(f"  /livez: {len(livez)} polls   slowest {max(livez) * 1e3:.1f} ms   "
              f"p99 {pct(livez, .99) * 1e3:.1f} ms   over {SLOW:.0f} s: {slow}")
        print(f"  /readyz: {len(readyz)} polls   slowest {max(readyz) * 1e3:.1f} ms   not ready {len(reasons)} times"
              + (f": {Counter(reasons).most_common(3)}" if reasons else ""))
        for kind in KINDS:
            statuses = {status: n for (k, status), n in sorted(sender.status.items()) if k == kind}
            took = sender.took[kind]
            print(f"  {kind:<9} {len(took):6d} sent   statuses {statuses}   p99 {pct(took, .99) * 1e3:8.1f} ms   "
                  f"max {max(took or [0]) * 1e3:8.1f} ms")
        if keep_log:
            Path(keep_log).write_text(log.read_text(errors="replace"))
        problems = error_lines(log)
        print(f"  server log: {len(problems)} error lines" + (f", first: {problems[0][:200]}" if problems else ""))
        return 1 if slow else 0


def main() -> None:
    parser = make_parser(__doc__, seed=24)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=24)
    parser.add_argument("--team-entries", type=int, default=40)
    parser.add_argument("--lock-seconds", type=float, default=5.0, help="0: no lock held")
    parser.add_argument("--serve-with", metavar="SCRIPT", help="run `python SCRIPT serve` instead of errkb "
                        "(e.g. a wrapper that reports event-loop stalls)")
    parser.add_argument("--keep-log", metavar="PATH", help="copy the server's log here")
    args = parser.parse_args()
    command = [sys.executable, args.serve_with] if args.serve_with else None
    sys.exit(asyncio.run(run(args.seconds, args.workers, args.team_entries, args.seed, args.lock_seconds,
                                 command, args.keep_log)))


if __name__ == "__main__":
    main()
