"""Soak the Slack bot: the real bot process against a fake Slack, driven the way Slack drives it.

Everything runs on 127.0.0.1 and is bounded in count (``--pastes``, ``--votes``) and time
(``--seconds``, a hard cap). The bot (``bot.slack.app.start``) runs in a child process on a temp
SQLite store; this process plays Slack: it signs and posts events to ``/slack/events`` with bounded
concurrency and hosts the FakeSlack Web API the bot answers through (``tests.support.fake_slack``).

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

    .venv/bin/python -m bench.soak_slack [--pastes 300] [--concurrency 8] [--votes 1500] [--seconds 120] [--seed 1]

``--cross-thread`` adds voters who react to the same workaround in two threads (see the README).
The workload is ``bench.soak_slack_load``, the posts and the vote storm ``bench.soak_slack_votes``, the
child servers ``bench.soak_slack_roles``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

import aiohttp

from bench.harness import SEEDS, error_lines, fake_slack, make_parser, pct, peak_mib, spread
from bench.soak_slack_load import USERS, Ack, FaultInjector, Paste, Send, build_pastes, deliver, paste_sends
from bench.soak_slack_roles import Child, role_baseline, role_bot
from bench.soak_slack_votes import Posted, Storm, build_storm, posts, shown_votes
from bot.kb.feedback import Tally
from tests.support.fake_slack import FakeSlack
from tests.support.waits import until

SLACK_ACK_LIMIT = 3.0  # Slack retries an event it has no answer to within 3 s


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
        shutil.copytree(SEEDS, seeds, ignore=shutil.ignore_patterns(".*"))
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

            fake = await fake_slack(USERS)
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

            await until(complete, timeout=self.remaining(45 - (time.monotonic() - acked)), interval=0.1)
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
        first_reply: dict[tuple[str, str], float] = {}
        for m in posts(fake):
            if m.thread in expected and m.thread not in first_reply:
                first_reply[m.thread] = m.call.at  # type: ignore[index]
        ttfr = [first_reply[t] - pt.sent_at for t, pt in expected.items() if t in first_reply and pt.sent_at]
        ours = [a.seconds for a in acks]
        theirs = [a.seconds for a in base_acks]
        print()
        print(spread("ack, errkb (pastes + resends)", ours))
        print(spread("ack, baseline (verify + 200)", theirs))
        print(f"ack-latency ratio errkb/baseline:  p50 {pct(ours, .5) / pct(theirs, .5):.1f}x   "
              f"p99 {pct(ours, .99) / pct(theirs, .99):.1f}x")
        if ttfr:
            print(spread("first reply in thread (POST→post)", ttfr))
        print(spread("ack, errkb (vote storm)", [a.seconds for a in vote_acks] or [0.0]))
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
        print(f"peak RSS: bot {bot.rss_mib:.0f} MiB (incl. KB and matcher), driver + fake {peak_mib():.0f} MiB   "
              f"bot CPU {bot.cpu_s:.1f} s in {stopped - bot_started:.1f} s serving   stop after SIGTERM "
              f"{stopped - voted:.1f} s   wall {time.monotonic() - started:.1f} s")
        errors = error_lines(bot.log)
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
    parser = make_parser(__doc__, seed=1)
    parser.add_argument("--pastes", type=int, default=300, help="paste events (default 300)")
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument("--votes", type=int, default=1500, help="reaction and click events in the storm (default 1500)")
    parser.add_argument("--seconds", type=float, default=120.0, help="hard time cap (default 120)")
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
