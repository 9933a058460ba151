"""Build the Bolt app and run it: HTTP on aiohttp, or Socket Mode when ``SLACK_APP_TOKEN`` is set.

HTTP mode serves ``POST /slack/events`` (events, slash commands and interactivity, each signed
by Slack) and ``GET /healthz``; Socket Mode keeps ``/healthz`` on ``$PORT`` for the platform's
health checks. On SIGTERM the bot stops taking requests, lets in-flight replies and pending
message updates finish, then closes the store.
"""

from __future__ import annotations

import asyncio
import logging
import random
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

from bot import i18n
from bot.config import Settings
from bot.diagnose import ErrkbService
from bot.kb.knowledge import KnowledgeBase
from bot.slack import listeners
from bot.slack.files import FileReader
from bot.slack.locale import LocaleResolver
from bot.slack.replies import Replies
from bot.slack.tasks import Inflight
from bot.store import Store

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
SHUTDOWN_GRACE = 25.0  # seconds for in-flight replies after SIGTERM (platforms usually allow 30)
BACKOFF_SECONDS = 0.5  # first wait after a 5xx or a dropped connection; doubles each retry (plus jitter)


class ProportionalJitter(Jitter):
    """Spread retries over [d, 2d) rather than slack_sdk's default [d, d + 1 s)."""

    def recalculate(self, duration: float) -> float:
        return duration * (1.0 + random.random())


class ServerErrorRetryHandler(AsyncServerErrorRetryHandler):
    """slack_sdk's 5xx handler, also for 502 and 504 (a proxy in front of Slack answers those)."""

    async def _can_retry_async(self, *, state: RetryState, request: HttpRequest,
                               response: HttpResponse | None = None, error: Exception | None = None) -> bool:
        return response is not None and response.status_code in (500, 502, 503, 504)


def retry_handlers() -> list[AsyncRetryHandler]:
    """429 → wait Retry-After and try again; 5xx and dropped connections → bounded back-off."""
    backoff = BackoffRetryIntervalCalculator(backoff_factor=BACKOFF_SECONDS, jitter=ProportionalJitter())
    return [
        AsyncConnectionErrorRetryHandler(max_retry_count=3, interval_calculator=backoff),
        AsyncRateLimitErrorRetryHandler(max_retry_count=5),
        ServerErrorRetryHandler(max_retry_count=3, interval_calculator=backoff),
    ]


def make_client(settings: Settings, session: aiohttp.ClientSession | None = None) -> AsyncWebClient:
    """The Web API client; one shared ``session`` keeps connections to Slack alive between calls
    (without it slack_sdk opens a new connection, with its TLS handshake, for every call)."""
    return AsyncWebClient(token=settings.bot_token, base_url=settings.api_url or AsyncWebClient.BASE_URL,
                          timeout=30, retry_handlers=retry_handlers(), session=session)


def build_app(settings: Settings, service: ErrkbService, store: Store, inflight: Inflight | None = None,
              update_delay: float = 1.0, session: aiohttp.ClientSession | None = None) -> AsyncApp:
    """The Bolt app with every listener; ``inflight`` tracks its work for a graceful shutdown."""
    client = make_client(settings, session)
    app = AsyncApp(client=client, signing_secret=settings.signing_secret or "", name="errkb",
                   process_before_response=False)
    replies = Replies(service, store, client, FileReader(client, settings.api_url),
                      LocaleResolver(store, client), inflight if inflight is not None else Inflight(), update_delay)

    @app.middleware
    async def once_per_event(body: dict[str, Any], next_: Callable[[], Awaitable[BoltResponse]]) -> BoltResponse:
        """Slack retries an event it thinks was lost: only the first delivery, in any process, is handled.

        The claim is made before the ack on purpose: a bot too busy to claim in time is retried by
        Slack rather than losing work it acknowledged."""
        event_id = body.get("event_id")
        if body.get("type") == "event_callback" and event_id and not await store.claim_event(str(event_id)):
            log.info("event %s already handled; dropping the retry", event_id)
            return BoltResponse(status=200, body="")
        return await next_()

    listeners.register(app, replies)
    return app


def http_app(bolt: AsyncApp | None, healthy: Callable[[], Awaitable[bool]]) -> web.Application:
    """``POST /slack/events`` (when ``bolt`` is given) and ``GET /healthz``."""

    async def events(request: web.Request) -> web.Response:
        assert bolt is not None
        return await to_aiohttp_response(await bolt.async_dispatch(await to_bolt_request(request)))

    async def health(_request: web.Request) -> web.Response:
        ok = await healthy()
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    web_app = web.Application()
    web_app.router.add_get(HEALTH_PATH, health)
    if bolt is not None:
        web_app.router.add_post(EVENTS_PATH, events)
    return web_app


@dataclass
class Running:
    """A started bot: what ``stop`` has to wind down, and where it listens."""

    app: AsyncApp
    store: Store
    kb: KnowledgeBase
    inflight: Inflight
    runner: web.AppRunner
    site: web.TCPSite
    socket_mode: AsyncSocketModeHandler | None
    port: int
    session: aiohttp.ClientSession

    async def stop(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop taking requests, let in-flight replies finish, then close everything."""
        if self.socket_mode is not None:
            await self.socket_mode.disconnect_async()
        await self.site.stop()
        await self.inflight.drain(grace)
        if self.socket_mode is not None:
            await self.socket_mode.close_async()
        await self.runner.cleanup()
        await self.session.close()
        await self.store.close()


async def start(settings: Settings, host: str = "0.0.0.0", port: int | None = None, kb: KnowledgeBase | None = None,
                update_delay: float = 1.0, seed: bool = True) -> Running:
    """Load the KB and the catalogs, open and seed the store, and start serving Slack.

    ``seed=False`` skips syncing the seeds into the store, for a store known to hold them already."""
    socket_mode = bool(settings.app_token)
    if not settings.bot_token:
        raise SystemExit("errkb serve: set SLACK_BOT_TOKEN (the bot token, xoxb-…)")
    if not socket_mode and not settings.signing_secret:
        raise SystemExit("errkb serve: set SLACK_SIGNING_SECRET (HTTP mode), or SLACK_APP_TOKEN for Socket Mode")
    i18n.load_catalogs()
    kb = kb or KnowledgeBase.load(settings.seeds_dir)
    store = await Store.open(settings.database_url)
    session = aiohttp.ClientSession()
    try:
        if seed:
            report = await store.sync_entries(kb.entries)
            log.info("%d entries: %d added, %d updated", len(kb.entries), len(report.added), len(report.updated))
        inflight = Inflight()
        app = build_app(settings, ErrkbService(kb, store), store, inflight, update_delay, session)

        async def healthy() -> bool:
            return bool(kb.entries) and await store.ready()

        runner = web.AppRunner(http_app(None if socket_mode else app, healthy), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, settings.port if port is None else port)
        await site.start()
    except BaseException:
        await session.close()
        await store.close()
        raise
    bound = runner.addresses[0][1] if runner.addresses else settings.port
    handler = None
    if socket_mode:
        handler = AsyncSocketModeHandler(app, settings.app_token)
        await handler.connect_async()
        log.info("errkb: Socket Mode connected; /healthz on port %s", bound)
    else:
        log.info("errkb: HTTP mode on port %s (%s, %s)", bound, EVENTS_PATH, HEALTH_PATH)
    return Running(app, store, kb, inflight, runner, site, handler, bound, session)


async def run(settings: Settings) -> None:
    running = await start(settings)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("errkb: stopping; %d replies in flight", len(running.inflight))
    await running.stop()


def serve(settings: Settings) -> None:
    """``errkb serve``."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(run(settings))
