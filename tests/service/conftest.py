"""The service's use cases in process: a real SQLite store, and an outlet that records plans instead of calling Slack."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.kb.knowledge import KnowledgeBase
from bot.service import Author, Fetched, Incoming, Service, Via, build
from bot.service.plans import Plan, Report, Sent, Thread
from bot.store import Store

REPO = Path(__file__).resolve().parents[2]
NCCL_PASTE = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_text(encoding="utf-8")


class RecordingOutlet:
    """Carries out plans by recording them; posts get increasing ts values."""

    def __init__(self) -> None:
        self.plans: list[Plan] = []
        self.locales: dict[str, str] = {}
        self.roots: dict[tuple[str, str], Fetched] = {}
        self.refuse: set[str] = set()  # channels where every post fails for good
        self.admins: set[str] = set()  # workspace admins and owners
        self.groups: dict[str, set[str]] = {}  # user group → members
        self.creators: dict[str, str] = {}  # channel → the user who created it
        self._ts = 0

    async def send(self, plan: Plan, via: Via, on_sent: Callable[[Sent], None] | None = None) -> Report:
        from bot.service.plans import Failure

        self.plans.append(plan)
        report = Report()
        for action in plan.actions:
            if isinstance(action, Thread):
                if action.channel in self.refuse:
                    report.failures.append(Failure(action, "not_in_channel", True))
                    continue
                thread = action.thread_ts
                for post in action.posts:
                    self._ts += 1
                    ts = f"1800000000.{self._ts:06d}"
                    thread = thread or ts
                    sent = Sent(action, post, ts, thread)
                    report.sent.append(sent)
                    if on_sent:
                        on_sent(sent)
        return report

    async def read_files(self, file_ids: list[str], via: Via) -> str:
        return ""

    async def thread_root(self, channel: str, thread_ts: str, via: Via) -> Fetched | None:
        return self.roots.get((channel, thread_ts))

    async def user_locale(self, user: str, via: Via) -> str | None:
        return self.locales.get(user, "en-US")

    async def is_admin(self, user: str, via: Via) -> bool:
        return user in self.admins

    async def group_members(self, group: str, via: Via) -> set[str]:
        return set(self.groups.get(group, ()))

    async def channel_creator(self, channel: str, via: Via) -> str | None:
        return self.creators.get(channel)

    def via_for(self, workspace: str) -> Via:
        return Via(None)

    def threads(self) -> list[Thread]:
        return [a for plan in self.plans for a in plan.actions if isinstance(a, Thread)]


@dataclass
class InProcess:
    """The use cases built by the composition root over a real store and a recording outlet."""

    service: Service
    store: Store
    outlet: RecordingOutlet


async def in_process(kb: KnowledgeBase, path: Path) -> InProcess:
    store = await Store.open(f"sqlite+aiosqlite:///{path}")
    outlet = RecordingOutlet()
    found = InProcess(build(kb, store, outlet, update_delay=0.05), store, outlet)
    found.service.start()
    return found


@pytest.fixture
async def errkb(tmp_path: Path, kb: KnowledgeBase, seeded_copy: Path) -> AsyncIterator[InProcess]:
    found = await in_process(kb, seeded_copy)
    yield found
    await found.service.stop(5)
    await found.store.close()


@pytest.fixture
def seeded_copy(seeded_db: Path, tmp_path: Path) -> Path:
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    return tmp_path / "errkb.db"


def paste(text: str = NCCL_PASTE, channel: str = "C1", ts: str = "1700000000.000100", thread: str | None = None,
          user: str = "U1", bot: bool = False) -> Incoming:
    return Incoming("T1", channel, ts, thread or ts, Author(user, own=False, bot=bot), text)
