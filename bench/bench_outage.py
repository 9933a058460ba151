"""A Slack outage: chat.postMessage answers 5xx for a while, then recovers; every acked paste is answered once.

Starts ``errkb serve`` against the fake Slack, makes chat.postMessage answer 500 for ``--outage``
seconds (the issue wants 5 minutes survivable: ``--outage 300``), sends N pastes during it (each
acked: a recorded decision), then lets Slack recover and counts per paste how many answers Slack
accepted: lost (0) and doubled (2+).

    .venv/bin/python -m bench.bench_outage [--outage 60] [--pastes 10]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.bench_shutdown import Bot, answers_per_paste, free_port, tally, wait_answered
from tests.support.fake_slack import FakeSlack


async def run(args: argparse.Namespace) -> int:
    fake = await FakeSlack().start()
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "errkb.db", Path(tmp) / "errkb.log"
        try:
            bot = await Bot.start(fake, db, log, 8.0, free_port())
            fake.fail_next(500, count=10**9, method="chat.postMessage")  # Slack is down…
            began = time.monotonic()
            async with aiohttp.ClientSession() as session:
                sent = [await bot.paste(session, f"C{n % 3:04d}") for n in range(args.pastes)]
                await asyncio.sleep(max(0.0, args.outage - (time.monotonic() - began)))
                during = sum(1 for n in answers_per_paste(fake, sent).values() if n)
                refused = len(fake.calls_to("chat.postMessage"))
                fake.faults.clear()  # …and back
                waited = await wait_answered(fake, sent, 120)
                async with session.get(f"{bot.url}/metrics") as r:
                    exposed = [line for line in (await r.text()).splitlines()
                                if line.startswith(("errkb_answers_waiting", "errkb_decision_retries_total"))]
            await bot.term()
            lost, doubled = tally(answers_per_paste(fake, sent))
            print(f"bench_outage: {args.pastes} pastes, chat.postMessage 500 for {args.outage:.0f} s "
                  f"({refused} calls refused, {during} answered during it)")
            print(f"  all answered {waited - 3.0:.1f} s after Slack recovered; lost {lost}   doubled {doubled}")
            print("  " + "   ".join(exposed))
            return 1 if lost or doubled else 0
        finally:
            await fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outage", type=float, default=60.0, help="seconds chat.postMessage answers 500")
    parser.add_argument("--pastes", type=int, default=10)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
