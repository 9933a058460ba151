"""What the bench scripts share: the KB's paste fixtures and chat, a fake Slack and signed requests
(``tests.support``), a served ``errkb`` in a child process, process figures (RSS, CPU), percentiles as
printed, and the arguments every workload takes.

Every script runs from the repository root as ``.venv/bin/python -m bench.<script>``; a child a script
starts of itself runs the same way (``module_command``), so nothing edits ``sys.path``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from tests.support.fake_slack import TOKEN, FakeSlack
from tests.support.signing import sign

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
PASTES = REPO / "pastes"  # the KB's paste fixtures: <domain>/<slug>/N.txt; chat that must match nothing in _chat/
ERRKB = Path(sys.executable).with_name("errkb")


# --- the KB's pastes and chat (read through bot.kb.quality, imported when asked for: a child server this
# module starts, such as bench_load's bare app, then carries none of the KB's code in its memory) ---------


def fixture_paths() -> list[Path]:
    """Every paste fixture, sorted (``pastes/_chat`` is not one)."""
    from bot.kb.quality import paste_files

    return paste_files(PASTES)


def fixture_pastes() -> list[str]:
    return [path.read_text("utf-8", errors="replace") for path in fixture_paths()]


def chat_lines() -> list[str]:
    from bot.kb.quality import CHAT_DIR, chat_messages

    return list(chat_messages(PASTES / CHAT_DIR))


# --- arguments --------------------------------------------------------------------------------------


def make_parser(doc: str, *, whole_doc: bool = True, seed: int | None = None) -> argparse.ArgumentParser:
    """A script's parser: its docstring as the description (or its first paragraph), and ``--seed`` for
    a workload drawn at random."""
    if whole_doc:
        made = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    else:
        made = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    if seed is not None:
        made.add_argument("--seed", type=int, default=seed, help=f"workload seed (default {seed})")
    return made


def module_command(module: str, *args: str) -> list[str]:
    """Run ``bench.<module>`` in a child (with ``cwd=REPO``)."""
    return [sys.executable, "-m", f"bench.{module}", *args]


# --- figures ------------------------------------------------------------------------------------


def pct(samples: Iterable[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1) of the samples that are numbers; NaN for none."""
    values = sorted(v for v in samples if not math.isnan(v))
    return values[max(0, math.ceil(q * len(values)) - 1)] if values else math.nan


def ms(seconds: float, digits: int = 1, width: int = 8) -> str:
    return f"{seconds * 1e3:{width}.{digits}f} ms"


def spread(name: str, samples: list[float], width: int = 34, digits: int = 1) -> str:
    """``name  p50 … p99 … max …`` of timings in seconds, as one printed line."""
    return (f"{name:<{width}} p50 {ms(pct(samples, .5), digits)}   p99 {ms(pct(samples, .99), digits)}   "
            f"max {ms(max(samples), digits)}")


def spread_ms(samples: list[float]) -> dict[str, float]:
    """p50, p99 and max of timings in seconds, in milliseconds (for a child's JSON report)."""
    return {"p50": pct(samples, .5) * 1e3, "p99": pct(samples, .99) * 1e3, "max": max(samples) * 1e3}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(pid: int | str) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value
    return fields


def rss_mib(pid: int | str = "self") -> float:
    """A process's resident memory now, in MiB (RE2 allocates outside Python's heap: tracemalloc misses it)."""
    return int(_status(pid)["VmRSS"].split()[0]) / 1024


def peak_rss_mib(pid: int | str = "self") -> float:
    """A process's peak resident memory, in MiB."""
    return int(_status(pid)["VmHWM"].split()[0]) / 1024


def peak_mib() -> float:
    """This process's peak resident memory (``ru_maxrss``), in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- Slack and a served errkb -----------------------------------------------------------------------


async def fake_slack(locales: Mapping[str, str] | None = None) -> FakeSlack:
    """The fake Slack Web API, started on 127.0.0.1, knowing these users' Slack languages."""
    fake = await FakeSlack().start()
    fake.locales.update(locales or {})
    return fake


def signed_json(body: bytes, secret: str) -> dict[str, str]:
    """The headers of a JSON event Slack posts: its signature under ``secret`` and the content type."""
    return {**sign(body, secret=secret), "Content-Type": "application/json"}


@dataclass
class Served:
    """A server a bench started as a child (``serve_errkb``, or another on the same footing), logging to ``log``."""

    name: str
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base_url}/slack/events"

    async def ready(self, timeout: float = 60.0) -> None:
        """Until it listens: an unsigned POST to its events URL is refused (401) rather than unanswered."""
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise SystemExit(f"bench: {self.name} exited; see {self.log}:\n{self.log.read_text()[-2000:]}")
                try:
                    async with session.post(self.url, data=b"{}") as r:
                        if r.status in (401, 400, 200):
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.2)
        self.proc.kill()
        raise SystemExit(f"bench: {self.name} did not start within {timeout:.0f} s; see {self.log}")

    def stop(self, kill: bool = False) -> None:
        """SIGTERM (or SIGKILL) and wait here, up to 30 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    async def terminate(self, timeout: float) -> None:
        """SIGTERM, and let the event loop run (the fake Slack it drains its replies to lives here) until
        it exits; killed if it overstays ``timeout``."""
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def serve_env(api_url: str, database_url: str, port: int, secret: str, **extra: str) -> dict[str, str]:
    """``errkb serve``'s environment: the fake Slack, a bot token, ``secret``, the store, the repository's seeds."""
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": secret, "SLACK_API_URL": api_url,
           "DATABASE_URL": database_url, "PORT": str(port), "ERRKB_SEEDS": str(SEEDS), **extra}
    env.pop("SLACK_APP_TOKEN", None)
    return env


def serve_errkb(api_url: str, database_url: str, log: Path, secret: str, *, cwd: Path,
                command: list[str] | None = None, extra_env: Mapping[str, str] | None = None) -> Served:
    """``errkb serve`` (or ``command serve``) as a child on a free port, answering through ``api_url``."""
    port = free_port()
    env = serve_env(api_url, database_url, port, secret, **(extra_env or {}))
    with log.open("w") as out:
        proc = subprocess.Popen([*(command or [str(ERRKB)]), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                cwd=cwd)
    return Served("errkb", proc, port, log)


def error_lines(log: Path) -> list[str]:
    """The lines of a server's log that say something went wrong."""
    return [line for line in log.read_text(errors="replace").splitlines() if " ERROR " in line or "Traceback" in line]
