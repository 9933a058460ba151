"""The servers ``bench.soak_slack`` runs as children (``--role bot|baseline``) and how it talks to them.

A child prints ``PORT n`` once listening; on SIGTERM it stops (the bot drains its replies), then prints
``RSS_MIB x CPU_S y``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from bench.harness import REPO, module_command, peak_mib
from bench.soak_slack_load import SECRET
from tests.support.fake_slack import TOKEN
from tests.support.signing import signed_by_slack


async def serve_until_sigterm(port: int, stop: Callable[[], Any]) -> None:
    """Child protocol: ``PORT n`` once listening; on SIGTERM stop, then ``RSS_MIB x CPU_S y``."""
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    print(f"PORT {port}", flush=True)
    await stopping.wait()
    await stop()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"RSS_MIB {peak_mib():.1f} CPU_S {usage.ru_utime + usage.ru_stime:.1f}", flush=True)


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
        return web.Response(status=200 if signed_by_slack(body, request.headers, SECRET) else 401)

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
                *module_command("soak_slack", "--role", role, *extra),
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
