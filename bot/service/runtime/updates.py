"""In-place updates of the bot's messages after votes: debounced, one at a time per message, re-sent
until the message shows the numbers the store holds.

An update that Slack refused or that ran out of retries is sent again after a back-off; while one
update of a message is in flight no other starts, so an older one can never land over a newer one.
After an update lands the numbers are read again: if another process changed them meanwhile, the
message is updated once more.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

from bot.service.plans import Update

log = logging.getLogger(__name__)

RESEND_AFTER = 2.0  # first wait before re-sending an update that failed; doubles, up to RESEND_MAX
RESEND_MAX = 30.0
GIVE_UP_AFTER = 300.0  # seconds of failures after which a message is left as it is
CONCURRENT = 4  # updates read and sent at once; under a vote storm the rest wait, and their votes coalesce
PER_SECOND = 20.0  # on average at most this many updates a second (Slack limits chat.update too)…
BURST = 20  # …after a quiet spell this many at once

# render(key) → the update to send (None: nothing to show any more) and what it shows.
Render = Callable[[Any], Awaitable[tuple[Update | None, Hashable]]]
# send(key, update) → (ok, permanent failure)
Send = Callable[[Any, Update], Awaitable[tuple[bool, bool]]]
# shown(key) → what the message should show now (compared with what render returned)
Shown = Callable[[Any], Awaitable[Hashable]]


@dataclass
class _State:
    version: int = 0
    now: asyncio.Event | None = None


class Refresher:
    def __init__(self, render: Render, send: Send, shown: Shown, delay: float = 1.0) -> None:
        self.render = render
        self.send = send
        self.shown = shown
        self._turns = asyncio.Semaphore(CONCURRENT)
        self._tokens = float(BURST)
        self._filled_at: float | None = None
        self.delay = delay
        self._states: dict[Hashable, _State] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def _take_token(self) -> None:
        """Wait for one update's share of ``PER_SECOND`` (a token bucket holding ``BURST``)."""
        now = asyncio.get_running_loop().time()
        if self._filled_at is not None:
            self._tokens = min(BURST, self._tokens + (now - self._filled_at) * PER_SECOND)
        self._filled_at = now
        self._tokens -= 1
        if self._tokens < 0:
            await asyncio.sleep(-self._tokens / PER_SECOND)

    def schedule(self, key: Hashable) -> None:
        """Bring message ``key`` up to date soon (a burst of calls is one update)."""
        state = self._states.get(key)
        if state is not None:
            state.version += 1
            return
        state = self._states[key] = _State(now=asyncio.Event())
        task = asyncio.ensure_future(self._run(key, state))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _pause(self, state: _State, seconds: float) -> None:
        assert state.now is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(state.now.wait(), seconds)

    async def _run(self, key: Hashable, state: _State) -> None:
        loop = asyncio.get_running_loop()
        try:
            await self._pause(state, self.delay)
            failing_since: float | None = None
            wait = RESEND_AFTER
            while True:
                async with self._turns:
                    await self._take_token()
                    version = state.version
                    update, shown = await self.render(key)
                    if update is None:
                        return
                    ok, permanent = await self.send(key, update)
                    # the version is read after the last await: a schedule() while shown() reads is not lost
                    settled = ok and await self.shown(key) == shown and state.version == version
                if settled:
                    return  # no vote since, here or in another process
                if not ok:
                    if permanent:
                        return
                    failing_since = failing_since or loop.time()
                    if loop.time() - failing_since > GIVE_UP_AFTER:
                        log.error("gave up updating %s after %.0f s of failures", key, GIVE_UP_AFTER)
                        return
                    await self._pause(state, wait)
                    wait = min(wait * 2, RESEND_MAX)
                    continue
                failing_since, wait = None, RESEND_AFTER
                await self._pause(state, self.delay)
        except Exception:
            log.exception("updating %s failed", key)
        finally:
            self._states.pop(key, None)

    def flush(self) -> None:
        """Send every waiting update now (on shutdown)."""
        for state in self._states.values():
            if state.now is not None:
                state.now.set()

    async def drain(self, timeout: float) -> None:
        self.flush()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)
