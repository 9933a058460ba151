"""Alerts from other bots: one answer per error per channel within a window, counted, never repeated.

Sentry, Alertmanager, Grafana and the like post the same error again and again. The first alert of an
error in a channel is answered in its thread like a paste; one within the window after it
(``ERRKB_ALERT_WINDOW``, a day by default) posts nothing: it is counted, and the first answer is redrawn
in place with the count ("Seen 5 times in this channel today"). Each alert is counted once: Slack's
retries of its event, its edits (PagerDuty acknowledging it) and its delivery to another process find
it claimed (a decision recorded as done, keyed by the alert's ts), and the count itself is one upsert,
so of two alerts counted at once only one is the first.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from bot.service import keys
from bot.service.incoming import Incoming
from bot.service.ports import Via
from bot.store import Store
from bot.store.records import Decision

log = logging.getLogger(__name__)

Claim = Callable[[Decision], Awaitable[bool]]  # record a decision already carried out; False: taken
Refresh = Callable[[str, str, str, Via], None]  # redraw one of errkb's messages in place (workspace, channel, ts)


class Alerts:
    def __init__(self, store: Store, claim: Claim, refresh: Refresh, window: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.claim = claim
        self.refresh = refresh
        self.window = window
        self.clock = clock

    async def first(self, m: Incoming, entry_id: str, via: Via) -> bool:
        """Count alert ``m`` of error ``entry_id``: True when it is the first in its channel within the
        window (answer it), else its answer (once posted) is redrawn with the new count."""
        seen_once = Decision(keys.alert(m.workspace, m.channel, m.ts), "alert_seen", m.workspace, m.channel,
                             m.thread_ts, m.ts, None, entry_id, (), self.clock())
        if not await self.claim(seen_once):
            return False  # Slack's retry of this alert, an edit of it, or this alert at another process
        seen = await self.store.alert_seen(m.workspace, m.channel, entry_id, self.window)
        if seen.count == 1:
            return True
        if seen.answer_ts is not None:
            self.refresh(m.workspace, m.channel, seen.answer_ts, via)
        return False

    async def answered(self, workspace: str, channel: str, entry_id: str, ts: str, via: Via) -> None:
        """errkb's answer ``ts`` to the first alert of ``entry_id`` is in Slack: alerts counted while it was
        being posted are shown on it at once."""
        try:
            count = await self.store.alert_answered(workspace, channel, entry_id, ts)
        except Exception as exc:  # the answer is posted; only its count is late (the next alert redraws it)
            log.warning("could not note the answer to an alert in %s: %s", channel, type(exc).__name__)
            return
        if count is not None and count > 1:
            self.refresh(workspace, channel, ts, via)
