"""What the listeners share: answering a paste in its thread, votes, in-place updates, App Home.

Listeners parse a payload and call one method here; this module calls the service and the store
and sends what ``bot.render.blocks`` built. Nothing here parses Slack payloads beyond ids.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

import aiohttp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import i18n
from bot.diagnose import ErrkbService
from bot.kb.feedback import reaction_token
from bot.render import blocks
from bot.render.blocks import Message
from bot.slack.files import FileReader
from bot.slack.locale import LocaleResolver, setting_of
from bot.slack.tasks import Debouncer, Inflight
from bot.store import PostedMessage, Store, UnknownTarget
from bot.views import EntryView, HomeView, MatchView, TopEntryView, TrustedWorkaroundView, UsageView

log = logging.getLogger(__name__)

# What a failed Web API call can raise once slack_sdk's retry handlers have given up.
SLACK_ERRORS = (SlackApiError, aiohttp.ClientError, TimeoutError)
# Events handled at once; more wait their turn (Slack has its ack already).
CONCURRENT_EVENTS = 8
Respond = Callable[..., Awaitable[Any]]
P = ParamSpec("P")
T = TypeVar("T")


class Answer(enum.Enum):
    POSTED = "posted"
    NO_MATCH = "no_match"
    ALREADY = "already"  # this thread already has a diagnosis of that error


def workspace_of(context: AsyncBoltContext) -> str:
    return context.team_id or context.enterprise_id or "-"


def is_own(message: dict[str, Any], context: AsyncBoltContext) -> bool:
    """Whether ``message`` was posted by this app's bot."""
    bot_id, user = message.get("bot_id"), message.get("user")
    return bool((bot_id and bot_id == context.bot_id) or (user and user == context.bot_user_id))


def from_bot(message: dict[str, Any]) -> bool:
    return bool(message.get("bot_id")) or message.get("subtype") == "bot_message"


def placement(thread: Sequence[PostedMessage], ts: str, entry_id: str, total: int) -> tuple[int, int]:
    """A posted workaround message's rank among its entry's in the thread, and its "more" count."""
    mine = sorted((m.ts or "" for m in thread if m.entry_id == entry_id and m.workaround is not None), key=float)
    if ts not in mine:
        return 1, 0
    rank = mine.index(ts) + 1
    return rank, max(0, total - len(mine)) if rank == len(mine) else 0


class Replies:
    def __init__(self, service: ErrkbService, store: Store, client: AsyncWebClient, files: FileReader,
                 locales: LocaleResolver, inflight: Inflight, update_delay: float = 1.0) -> None:
        self.service = service
        self.store = store
        self.client = client
        self.files = files
        self.locales = locales
        self.inflight = inflight
        self.updates = Debouncer(inflight, update_delay)
        self._work_slots = asyncio.Semaphore(CONCURRENT_EVENTS)

    def listener(self, handle: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        """An Events API listener: tracked for shutdown, and one of at most ``CONCURRENT_EVENTS``
        running at once, so a burst queues instead of thrashing the store."""

        @functools.wraps(handle)
        async def run(*args: P.args, **kwargs: P.kwargs) -> T:
            async with self._work_slots:
                return await handle(*args, **kwargs)

        return self.inflight.tracked(run)

    # --- answering pastes -------------------------------------------------------------------

    async def answer_paste(self, workspace: str, channel: str, thread_ts: str, user: str | None, text: str) -> Answer:
        """Diagnose ``text`` and answer in the thread, in ``user``'s locale — unless nothing matched or
        this thread already has that diagnosis (so an edit that keeps the error, or a repeat, is quiet)."""
        matches = self.service.find(text, limit=1) if text.strip() else []
        if not matches:
            return Answer.NO_MATCH
        entry_id = matches[0].entry_id
        if await self.answered_in_thread(workspace, channel, thread_ts, entry_id):
            return Answer.ALREADY
        # A paste and its quick edit (two events, maybe two processes) race past the check above:
        # the first to claim this (thread, entry) pair answers.
        key = hashlib.sha256(f"{workspace}\0{channel}\0{thread_ts}\0{entry_id}".encode()).hexdigest()[:40]
        if not await self.store.claim_event(f"answer:{key}"):
            return Answer.ALREADY
        async with self.locales.reader(workspace, user) as locale:
            diagnosis = await self.service.explain(matches)
            await self.post_answer(workspace, channel, thread_ts, diagnosis.best.entry, locale, diagnosis.best)
        return Answer.POSTED

    async def answered_in_thread(self, workspace: str, channel: str, thread_ts: str, entry_id: str) -> bool:
        thread = await self.store.thread_messages(workspace, channel, thread_ts)
        return any(m.entry_id == entry_id and m.workaround is None for m in thread)

    async def post_answer(self, workspace: str, channel: str, thread_ts: str | None, entry: EntryView, locale: str,
                          match: MatchView | None = None) -> bool:
        """The diagnosis and top workarounds in a thread (``thread_ts`` None: the diagnosis starts one)."""
        messages = blocks.answer_messages(entry, match)
        targets = [None, *(w.index for w in entry.workarounds[: blocks.TOP_WORKAROUNDS])]
        pairs = zip(messages, targets, strict=True)
        return await self.post_in_thread(workspace, channel, thread_ts, entry.id, pairs, locale)

    async def post_in_thread(self, workspace: str, channel: str, thread_ts: str | None, entry_id: str,
                             messages: Iterable[tuple[Message, int | None]], locale: str) -> bool:
        """Post each message in order and remember what it is about; stops at the first failure."""
        for message, workaround in messages:
            try:
                response = await self.client.chat_postMessage(
                    channel=channel, thread_ts=thread_ts, text=message["text"], blocks=message["blocks"],
                    unfurl_links=False, unfurl_media=False)
            except SLACK_ERRORS as exc:
                log.error("could not post in %s: %s", channel, _reason(exc))
                return False
            ts = str(response["ts"])
            thread_ts = thread_ts or ts
            try:
                await self.store.remember_message(workspace, channel, ts, entry_id, workaround, locale, thread_ts)
            except UnknownTarget as exc:
                log.error("posted %s but cannot remember it: %s", ts, exc)
        return True

    async def thread_root(self, channel: str, thread_ts: str) -> dict[str, Any] | None:
        try:
            response = await self.client.conversations_replies(channel=channel, ts=thread_ts, limit=1)
        except SLACK_ERRORS as exc:
            log.warning("conversations.replies %s %s failed: %s", channel, thread_ts, _reason(exc))
            return None
        messages = response.get("messages") or []
        return messages[0] if messages else None

    async def say(self, channel: str, thread_ts: str | None, message: Message) -> str | None:
        try:
            response = await self.client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=message["text"],
                                                          blocks=message["blocks"], unfurl_links=False)
        except SLACK_ERRORS as exc:
            log.error("could not post in %s: %s", channel, _reason(exc))
            return None
        return str(response["ts"])

    async def whisper(self, channel: str, user: str, thread_ts: str | None, messages: Sequence[Message],
                      respond: Respond | None = None) -> None:
        """Ephemeral messages to ``user``: in the thread when the bot is in the channel, else via ``respond``."""
        in_channel = True
        for message in messages:
            if in_channel:
                try:
                    await self.client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts,
                                                         text=message["text"], blocks=message["blocks"])
                    continue
                except SLACK_ERRORS as exc:
                    if respond is None:
                        log.error("could not answer %s privately: %s", user, _reason(exc))
                        return
                    in_channel = False
            await respond(text=message["text"], blocks=message["blocks"], response_type="ephemeral",
                          replace_original=False)

    # --- votes and in-place updates --------------------------------------------------------

    async def vote_reaction(self, workspace: str, user: str, channel: str, ts: str, reaction: str,
                            present: bool, at: float) -> None:
        """A 👍/👎 added or removed on one of our messages: a vote on that workaround or diagnosis."""
        posted = await self.store.message_target(workspace, channel, ts)
        if posted is None:
            return
        try:
            result = await self.store.record_vote(workspace, user, posted.entry_id, posted.workaround,
                                                  reaction_token(reaction, channel, ts), present, at)
        except UnknownTarget:
            return
        if result.changed and posted.workaround is not None:
            self.schedule_refresh(workspace, channel, ts)

    async def vote_button(self, workspace: str, user: str, entry_id: str, workaround: int, vote: int, at: float,
                          channel: str | None, ts: str | None) -> bool:
        """Worked / Didn't work on message ``ts`` (None: an ephemeral one). False for an unknown target."""
        posted = await self.store.message_target(workspace, channel, ts) if channel and ts else None
        if posted is not None and posted.workaround is not None:
            entry_id, workaround = posted.entry_id, posted.workaround
        try:
            result = await self.store.record_button(workspace, user, entry_id, workaround, vote, at)
        except UnknownTarget:
            return False
        if posted is not None and channel and ts and result.changed:
            self.schedule_refresh(workspace, channel, ts)
        return True

    def schedule_refresh(self, workspace: str, channel: str, ts: str) -> None:
        """Update that workaround message with its live numbers, once per burst of votes."""
        self.updates.schedule((workspace, channel, ts), lambda: self.refresh(workspace, channel, ts))

    async def refresh(self, workspace: str, channel: str, ts: str) -> None:
        posted = await self.store.message_target(workspace, channel, ts)
        if posted is None or posted.workaround is None:
            return
        thread = await self.store.thread_messages(workspace, channel, posted.thread_ts) if posted.thread_ts else []
        with i18n.use_locale(posted.locale):
            entry = await self.service.show(posted.entry_id)
            workaround = entry.workaround(posted.workaround) if entry else None
            if entry is None or workaround is None:
                return
            rank, more = placement(thread, ts, entry.id, len(entry.workarounds))
            message = blocks.workaround_message(entry, workaround, rank, more)
        try:
            await self.client.chat_update(channel=channel, ts=ts, text=message["text"], blocks=message["blocks"])
        except SLACK_ERRORS as exc:
            log.error("could not update %s %s: %s", channel, ts, _reason(exc))

    # --- buttons on an answer --------------------------------------------------------------

    async def post_more(self, workspace: str, channel: str, message_ts: str, entry_id: str) -> bool:
        """The workarounds not yet posted in the thread of ``message_ts``; False if it is not our message."""
        posted = await self.store.message_target(workspace, channel, message_ts)
        if posted is None or posted.thread_ts is None:
            return False
        thread = await self.store.thread_messages(workspace, channel, posted.thread_ts)
        shown = {m.workaround for m in thread if m.entry_id == entry_id and m.workaround is not None}
        with i18n.use_locale(posted.locale):
            entry = await self.service.show(entry_id)
            if entry is None:
                return True
            rest = [w for w in entry.workarounds if w.index not in shown]
            messages = [(blocks.workaround_message(entry, w, len(shown) + i), w.index) for i, w in enumerate(rest, 1)]
        await self.post_in_thread(workspace, channel, posted.thread_ts, entry_id, messages, posted.locale)
        await self.refresh(workspace, channel, message_ts)  # its "more" button is gone now
        return True

    async def message_locale(self, workspace: str, channel: str | None, ts: str | None, user: str) -> str:
        """The language one of our messages is in (the reader's, for a message we do not know)."""
        posted = await self.store.message_target(workspace, channel, ts) if channel and ts else None
        return posted.locale if posted else await self.locales.locale_for(workspace, user)

    # --- usage and App Home ----------------------------------------------------------------

    async def usage(self, limit: int = 5) -> UsageView:
        """The most matched entries and most trusted workarounds, in the current locale."""
        stats = await self.store.stats(limit=max(4 * limit, 20))
        ids = dict.fromkeys([e.entry_id for e in stats.top_entries[:limit]]
                            + [w.entry_id for w in stats.top_workarounds])
        views = {i: v for i in ids if (v := await self.service.show(i)) is not None}
        top = [TopEntryView(e.entry_id, views[e.entry_id].signature, e.hits)
               for e in stats.top_entries[:limit] if e.entry_id in views]
        trusted = []
        for w in stats.top_workarounds:
            entry = views.get(w.entry_id)
            view = entry.workaround(w.workaround) if entry else None
            if entry and view and view.votes_up > 0:
                trusted.append(TrustedWorkaroundView(entry.id, entry.signature, view))
        trusted.sort(key=lambda t: (t.workaround.success_rate, t.workaround.votes_up), reverse=True)
        return UsageView(len(self.service.kb.entries), top, trusted[:limit], stats.hits_by_locale,
                         stats.votes_up, stats.votes_down, stats.diagnosis_up, stats.diagnosis_down, stats.voters)

    async def publish_home(self, workspace: str, user: str) -> None:
        async with self.locales.reader(workspace, user) as locale:
            prefs = await self.store.user_prefs(workspace, user)
            view = blocks.home_view(HomeView(setting_of(prefs), locale, await self.usage()))
        try:
            await self.client.views_publish(user_id=user, view=view)
        except SLACK_ERRORS as exc:
            log.error("could not publish the App Home of %s: %s", user, _reason(exc))


def _reason(exc: BaseException) -> str:
    """Why a Web API call failed (the body may be Slack's JSON, or a proxy's plain-text page)."""
    if isinstance(exc, SlackApiError):
        data = exc.response.data
        error = data.get("error") if isinstance(data, dict) else None
        return str(error or exc.response.status_code)
    return repr(exc)
