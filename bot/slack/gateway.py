"""The one place that talks to Slack's Web API: it carries out the service's plans and reports back.

It uses the client it is handed (Bolt's ``context.client``: the right token for the request's
workspace), paces posts to one channel to Slack's rate (``PACE_PER_SECOND`` with short bursts),
waits out a 429's ``Retry-After`` without holding a work slot, retries 5xx answers and dropped
connections with a growing back-off, and tells a permanent failure (``not_in_channel``…) from one
worth retrying. Nothing here decides what to say.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import metrics
from bot.render.kit import METADATA, from_errkb
from bot.service import slots
from bot.service.plans import (
    Action,
    Failure,
    Message,
    OpenView,
    Plan,
    Publish,
    Reply,
    Report,
    Sent,
    Thread,
    Update,
    UpdateView,
    Whisper,
)
from bot.service.ports import Author, Fetched, Via
from bot.slack.alerts import alert_text
from bot.slack.errors import api_error
from bot.slack.files import read_snippet, text_file_ids

log = logging.getLogger(__name__)

BACKOFF_SECONDS = 0.5  # first wait after a 5xx or a dropped connection; doubles each retry (plus jitter)
SERVER_RETRIES = 3
RATE_LIMIT_RETRIES = 6
PACE_PER_SECOND = 1.0  # Slack's per-channel posting rate…
PACE_BURST = 6  # …with short bursts allowed
TIDY_AT = 1000  # paced channels and 429 blocks kept before idle ones are forgotten
# Slack errors (HTTP 200, ok false) that are worth another try; any other is permanent.
# Calls not repeated once they may have reached Slack (a timeout, a connection dropped after sending).
NOT_REPEATED = frozenset({"chat_postMessage", "chat_postEphemeral"})
TRANSIENT_ERRORS = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable",
                              "request_timeout", "team_added_to_org"})


class CallFailed(Exception):
    def __init__(self, method: str, reason: str, permanent: bool) -> None:
        super().__init__(f"{method}: {reason}")
        self.reason = reason
        self.permanent = permanent


class _Pace:
    """A token bucket: ``rate`` calls per second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.last = 0.0

    def reserve(self, now: float) -> float:
        """Take a turn; returns how long to wait for it."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate) if self.last else self.tokens
        self.last = now
        self.tokens -= 1
        return max(0.0, -self.tokens / self.rate)

    def idle(self, now: float) -> bool:
        """Refilled to its burst by ``now``: the same as a new bucket, so it need not be kept."""
        return self.tokens + (now - self.last) * self.rate >= self.burst


class Gateway:
    def __init__(self, client: AsyncWebClient, api_url: str | None = None, pace: float = PACE_PER_SECOND,
                 burst: int = PACE_BURST, clients: Callable[[str], AsyncWebClient] | None = None) -> None:
        self.client = client  # the app's own client, for work outside any request…
        self.clients = clients  # …or (OAuth) one per workspace, with that workspace's token
        self.api_url = api_url
        self.pace, self.burst = pace, burst
        self._paces: dict[str, _Pace] = {}
        self._blocked: dict[str, float] = {}  # method or method:channel → loop time a 429 lifts
        self._tidy_at = TIDY_AT

    def via_for(self, workspace: str) -> Via:
        return Via(self.clients(workspace) if self.clients is not None else self.client)

    # --- plans ------------------------------------------------------------------------------

    async def send(self, plan: Plan, via: Via, on_sent: Callable[[Sent], None] | None = None) -> Report:
        report = Report()
        for action in plan.actions:
            try:
                await self._send(action, via, report, on_sent)
            except CallFailed as exc:
                report.failures.append(Failure(action, exc.reason, exc.permanent))
        return report

    async def _send(self, action: Action, via: Via, report: Report, on_sent: Callable[[Sent], None] | None) -> None:
        client = via.client or self.client
        if isinstance(action, Thread):
            await self._thread(action, via, report, on_sent)
        elif isinstance(action, Whisper):
            await self._whisper(action, via)
        elif isinstance(action, Reply):
            await self._reply(action.messages, via)
        elif isinstance(action, Update):
            await self._call(client, "chat_update", action.channel, channel=action.channel, ts=action.ts,
                             text=action.message["text"], blocks=action.message["blocks"], metadata=METADATA)
        elif isinstance(action, Publish):
            await self._call(client, "views_publish", None, user_id=action.user, view=action.view)
        elif isinstance(action, OpenView):
            await self._call(client, "views_open", None, trigger_id=action.trigger_id, view=action.view)
        elif isinstance(action, UpdateView):
            await self._call(client, "views_update", None, view_id=action.view_id, view=action.view,
                             **({"hash": action.hash} if action.hash else {}))

    async def _thread(self, action: Thread, via: Via, report: Report, on_sent: Callable[[Sent], None] | None) -> None:
        client = via.client or self.client
        thread_ts = action.thread_ts
        for post in action.posts:
            try:
                response = await self._call(client, "chat_postMessage", action.channel, channel=action.channel,
                                            thread_ts=thread_ts, text=post.message["text"],
                                            blocks=post.message["blocks"], unfurl_links=False, unfurl_media=False,
                                            metadata=METADATA)
            except CallFailed as exc:
                log.error("could not post in %s: %s", action.channel, exc.reason)
                if action.if_failed and not report.sent:
                    await self._reply(action.if_failed, via)
                raise
            ts = str(response["ts"])
            thread_ts = thread_ts or ts
            sent = Sent(action, post, ts, thread_ts)
            report.sent.append(sent)
            if on_sent is not None:
                on_sent(sent)

    async def _whisper(self, action: Whisper, via: Via) -> None:
        """Ephemeral in the channel; once that fails, the rest through the requester's ``respond``."""
        client = via.client or self.client
        for i, message in enumerate(action.messages):
            try:
                await self._call(client, "chat_postEphemeral", action.channel, channel=action.channel,
                                 user=action.user, thread_ts=action.thread_ts, text=message["text"],
                                 blocks=message["blocks"])
            except CallFailed as exc:
                if via.respond is None:
                    log.error("could not answer %s privately: %s", action.user, exc.reason)
                    raise
                await self._reply(action.messages[i:], via)
                return

    async def _reply(self, messages: Sequence[Message], via: Via) -> None:
        if via.respond is None:
            raise CallFailed("response_url", "no response_url to answer through", True)
        for message in messages:
            try:
                await via.respond(text=message["text"], blocks=message["blocks"], response_type="ephemeral",
                                  replace_original=False)
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise CallFailed("response_url", repr(exc), False) from exc
            except (ValueError, TypeError) as exc:  # a signed payload's response_url that is no URL (or none)
                raise CallFailed("response_url", "malformed response_url", True) from exc

    # --- reading ----------------------------------------------------------------------------

    async def read_files(self, file_ids: list[str], via: Via) -> str:
        client = via.client or self.client
        parts = [await read_snippet(client, file_id, self.api_url) for file_id in file_ids]
        return "\n".join(p for p in parts if p)

    async def thread_root(self, channel: str, thread_ts: str, via: Via) -> Fetched | None:
        client = via.client or self.client
        try:
            response = await self._call(client, "conversations_replies", None, channel=channel, ts=thread_ts, limit=1,
                                        include_all_metadata=True)
        except CallFailed as exc:
            log.warning("conversations.replies %s %s failed: %s", channel, thread_ts, exc.reason)
            return None
        messages = response.get("messages") or []
        if not messages:
            return None
        root = messages[0]
        bot_id, user = root.get("bot_id"), root.get("user")
        bot = bool(bot_id) or root.get("subtype") == "bot_message"
        text = "\n".join(p for p in (alert_text(root) if bot else str(root.get("text") or ""),
                                     await self.read_files(list(text_file_ids(root)), via)) if p)
        own = bool((bot_id and bot_id in via.me) or (user and user in via.me)) or from_errkb(root)
        return Fetched(text, Author(user, own=own, bot=bot))

    async def user_locale(self, user: str, via: Via) -> str | None:
        client = via.client or self.client
        try:
            response = await self._call(client, "users_info", None, user=user, include_locale=True)
        except CallFailed as exc:
            log.warning("users.info for %s failed (%s); using the cached locale", user, exc.reason)
            return None
        return (response.get("user") or {}).get("locale")

    async def is_admin(self, user: str, via: Via) -> bool:
        client = via.client or self.client
        try:
            found = (await self._call(client, "users_info", None, user=user)).get("user") or {}
        except CallFailed as exc:
            log.warning("users.info for %s failed (%s); not treated as an admin", user, exc.reason)
            return False
        return bool(found.get("is_admin") or found.get("is_owner") or found.get("is_primary_owner"))

    async def group_members(self, group: str, via: Via) -> set[str]:
        client = via.client or self.client
        try:
            response = await self._call(client, "usergroups_users_list", None, usergroup=group)
        except CallFailed as exc:
            log.warning("usergroups.users.list for %s failed (%s)", group, exc.reason)
            return set()
        return {str(u) for u in response.get("users") or ()}

    async def channel_creator(self, channel: str, via: Via) -> str | None:
        client = via.client or self.client
        try:
            response = await self._call(client, "conversations_info", None, channel=channel)
        except CallFailed as exc:
            log.warning("conversations.info for %s failed (%s); its creator is not known", channel, exc.reason)
            return None
        creator = (response.get("channel") or {}).get("creator")
        return str(creator) if isinstance(creator, str) and creator else None

    # --- one call ---------------------------------------------------------------------------

    def _tidy(self, now: float) -> None:
        """Forget idle channels' buckets and lifted 429 blocks once there are many: a long-running
        process posting in thousands of channels keeps only the ones still being paced."""
        if len(self._paces) + len(self._blocked) < self._tidy_at:
            return
        self._paces = {c: p for c, p in self._paces.items() if not p.idle(now)}
        self._blocked = {k: t for k, t in self._blocked.items() if t > now}
        self._tidy_at = max(TIDY_AT, 2 * (len(self._paces) + len(self._blocked)))

    async def _call(self, client: AsyncWebClient, method: str, pace_channel: str | None, **kwargs: Any) -> Any:
        """One Web API call with pacing and retries; raises :class:`CallFailed` when it cannot succeed."""
        loop = asyncio.get_running_loop()
        name = method.replace("_", ".", 1)
        channel = pace_channel
        block_key = f"{method}:{channel}" if channel else method
        server_tries = limited_tries = 0
        while True:
            await slots.wait(self._blocked.get(block_key, 0.0) - loop.time())
            if method == "chat_postMessage" and channel:
                pace = self._paces.get(channel)
                if pace is None:
                    self._tidy(loop.time())
                    pace = self._paces[channel] = _Pace(self.pace, self.burst)
                await slots.wait(pace.reserve(loop.time()))
            try:
                response = await getattr(client, method)(**kwargs)
                metrics.API_CALLS.labels(name, "ok").inc()
                return response
            except SlackApiError as exc:
                status = exc.response.status_code
                data = exc.response.data
                error = api_error(data, status)
                metrics.API_CALLS.labels(name, metrics.api_result(status, error)).inc()
                if status == 429 or error == "ratelimited":
                    limited_tries += 1
                    if limited_tries > RATE_LIMIT_RETRIES:
                        raise CallFailed(name, "ratelimited", False) from exc
                    metrics.RETRIES.labels(name, "429").inc()
                    retry_after = _retry_after(exc.response.headers)
                    self._blocked[block_key] = max(self._blocked.get(block_key, 0.0), loop.time() + retry_after)
                    log.info("%s rate-limited; waiting %.1f s", name, retry_after)
                    continue
                if status >= 500 or error in TRANSIENT_ERRORS:
                    server_tries += 1
                    if server_tries > SERVER_RETRIES:
                        raise CallFailed(name, error, False) from exc
                    metrics.RETRIES.labels(name, "5xx" if status >= 500 else "error").inc()
                    await slots.wait(_backoff(server_tries))
                    continue
                raise CallFailed(name, error, True) from exc
            except (aiohttp.ClientError, TimeoutError) as exc:
                metrics.API_CALLS.labels(name, "error").inc()
                if method in NOT_REPEATED and not isinstance(exc, aiohttp.ClientConnectorError):
                    # Slack may have posted it before the answer was lost: posting again could show it twice.
                    raise CallFailed(name, f"no answer ({exc!r}); not sent again", True) from exc
                server_tries += 1
                if server_tries > SERVER_RETRIES:
                    raise CallFailed(name, repr(exc), False) from exc
                metrics.RETRIES.labels(name, "connection").inc()
                await slots.wait(_backoff(server_tries))


def _backoff(attempt: int) -> float:
    """``BACKOFF_SECONDS`` doubled per attempt, spread over [d, 2d) so retries do not arrive together."""
    delay = BACKOFF_SECONDS * 2.0 ** (attempt - 1)
    return delay * (1.0 + random.random())


def _retry_after(headers: Any) -> float:
    for key in ("Retry-After", "retry-after"):
        value = headers.get(key) if headers else None
        if value is not None:
            try:
                return max(0.0, float(value if not isinstance(value, list) else value[0]))
            except ValueError:
                break
    return 1.0
