"""SIGTERM with answers in flight: none lost, none posted twice.

Starts ``errkb serve`` (a child process) against the fake Slack, sends N pastes (acked: each is a
recorded decision), SIGTERMs it while answers are still being posted, restarts it over the same
database, and counts per paste how many answers Slack got: lost (0) and doubled (2+).

    .venv/bin/python -m bench.bench_shutdown [--pastes 40] [--after 0.5] [--grace 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

from tests.support import payloads as p
from tests.support.fake_slack import TOKEN, FakeSlack
from tests.support.signing import SECRET, sign

REPO = Path(__file__).resolve().parents[1]
PASTE = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_text(encoding="utf-8")


class Bot:
    """One ``errkb serve`` child over ``db``, talking to ``fake``."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int) -> None:
        self.proc, self.port = proc, port

    @classmethod
    async def start(cls, fake: FakeSlack, db: Path, log: Path, grace: float, port: int) -> Bot:
        env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": fake.api_url,
               "DATABASE_URL": f"sqlite+aiosqlite:///{db}", "PORT": str(port), "LOG_LEVEL": "INFO",
               "ERRKB_SHUTDOWN_GRACE": str(grace)}
        with log.open("a") as err:
            proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "serve", env=env,
                                                        cwd=str(REPO), stdout=err, stderr=err)
        bot = cls(proc, port)
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                try:
                    async with session.get(f"{bot.url}/readyz") as r:
                        if r.status == 200:
                            return bot
                except aiohttp.ClientError:
                    pass
                if proc.returncode is not None:
                    raise SystemExit(f"errkb serve exited; see {log}")
                await asyncio.sleep(0.2)
        raise SystemExit(f"errkb serve did not get ready; see {log}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def paste(self, session: aiohttp.ClientSession, channel: str) -> str:
        event = p.message(PASTE, channel=channel)
        body = json.dumps(event)
        async with session.post(f"{self.url}/slack/events", data=body.encode(),
                                headers={"Content-Type": "application/json", **sign(body)}) as r:
            assert r.status == 200, r.status
        return str(event["event"]["ts"])

    async def term(self, limit: float = 60.0) -> float:
        """SIGTERM; seconds until it exited (killed after ``limit``, as a platform would)."""
        began = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), limit)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        return time.monotonic() - began


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers_per_paste(fake: FakeSlack, sent: list[str]) -> Counter[str]:
    """How many answers Slack accepted in each paste's thread."""
    posted = Counter(str(c["thread_ts"]) for c in fake.calls_to("chat.postMessage") if c.result.get("ok"))
    return Counter({ts: posted.get(ts, 0) for ts in sent})


def tally(counts: Counter[str]) -> tuple[int, int]:
    return sum(1 for n in counts.values() if n == 0), sum(1 for n in counts.values() if n > 1)


async def wait_answered(fake: FakeSlack, sent: list[str], timeout: float) -> float:
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if all(answers_per_paste(fake, sent).values()):
            break
        await asyncio.sleep(0.2)
    await asyncio.sleep(3.0)  # anything posted twice would show now
    return time.monotonic() - began


async def run(args: argparse.Namespace) -> int:
    fake = await FakeSlack().start()
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "errkb.db", Path(tmp) / "errkb.log"
        try:
            bot = await Bot.start(fake, db, log, args.grace, free_port())
            async with aiohttp.ClientSession() as session:
                channels = [f"C{n:04d}" for n in range(args.channels)]
                sent = list(await asyncio.gather(*(bot.paste(session, channels[i % len(channels)])
                                                   for i in range(args.pastes))))
                await asyncio.sleep(args.after)
                before = sum(1 for n in answers_per_paste(fake, sent).values() if n)
                stopped = await bot.term(args.kill_after)
                during = sum(1 for n in answers_per_paste(fake, sent).values() if n)
                bot = await Bot.start(fake, db, log, args.grace, free_port())
                waited = await wait_answered(fake, sent, 60)
                await bot.term()
            lost, doubled = tally(answers_per_paste(fake, sent))
            print(f"bench_shutdown: {args.pastes} pastes in {args.channels} channel(s), "
                  f"SIGTERM after {args.after:.1f} s, grace {args.grace:.0f} s")
            print(f"  answered before SIGTERM {before}, by exit {during} (exit {stopped:.1f} s after SIGTERM), "
                  f"all answered {waited - 3.0:.1f} s after restart")
            print(f"  lost {lost}   doubled {doubled}")
            if args.log:
                print(log.read_text()[-4000:])
            return 1 if lost or doubled else 0
        finally:
            await fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pastes", type=int, default=40)
    parser.add_argument("--channels", type=int, default=1, help="pastes spread over this many channels")
    parser.add_argument("--after", type=float, default=0.5, help="seconds between the last ack and SIGTERM")
    parser.add_argument("--grace", type=float, default=8.0, help="ERRKB_SHUTDOWN_GRACE for the bot")
    parser.add_argument("--kill-after", type=float, default=10.0, help="SIGKILL after this (Docker: 10 s)")
    parser.add_argument("--log", action="store_true", help="print the end of the bot's log")
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
