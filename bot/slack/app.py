"""Build the Bolt app and run it: HTTP on aiohttp, or Socket Mode when ``SLACK_APP_TOKEN`` is set.

HTTP mode serves ``POST /slack/events`` (events, slash commands and interactivity, each signed
by Slack and verified before anything parses it: ``bot.slack.front``), ``GET /livez`` (the process
runs) and ``GET /readyz`` (it can do its job: KB loaded, store writable, Socket Mode connected;
``/healthz`` is the same); Socket Mode keeps the health paths on ``$PORT`` for the platform's
checks. On SIGTERM the bot stops taking requests, lets in-flight replies and pending
message updates finish within ``ERRKB_SHUTDOWN_GRACE``, hands the answers it could not post to the
store for another process to take at once, then closes the store.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.web.async_client import AsyncWebClient

from bot import i18n, logs, memory, metrics
from bot.config import SHUTDOWN_GRACE, Settings
from bot.kb.knowledge import KnowledgeBase
from bot.service import Service, build
from bot.slack import front, listeners
from bot.slack.dashboard import DashboardPages
from bot.slack.dispatch import Dispatcher
from bot.slack.gateway import PACE_PER_SECOND, Gateway
from bot.slack.listeners import installs, use
from bot.slack.oauth import Installations, WorkspaceClient, authorize, oauth_settings
from bot.slack.observed import ObservedApp
from bot.slack.tasks import Inflight
from bot.store import Store
from bot.store.secrets import Cipher, seal_tokens

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
LIVE_PATH = "/livez"
READY_PATHS = ("/readyz", "/healthz")
METRICS_PATH = "/metrics"
PRUNE_EVERY = 3600.0  # seconds between background prunes of expired rows (ERRKB_RETAIN_*_DAYS)
SWITCH_INTERVAL = 0.0005  # seconds a thread holds the GIL while another waits for it (CPython: 0.005)


def make_client(settings: Settings, session: aiohttp.ClientSession | None = None) -> AsyncWebClient:
    """The Web API client; one shared ``session`` keeps connections to Slack alive between calls
    (without it slack_sdk opens a new connection, with its TLS handshake, for every call). Retries
    are the gateway's (``bot.slack.gateway``), so the client itself makes none."""
    return AsyncWebClient(token=None if settings.oauth else settings.bot_token,
                          base_url=settings.api_url or AsyncWebClient.BASE_URL, timeout=30, retry_handlers=[],
                          session=session)


@dataclass
class Wiring:
    """The Bolt app, the use cases its listeners call, and the one dispatcher in front of it."""

    app: AsyncApp
    service: Service
    gateway: Gateway
    background: Inflight
    dispatcher: Dispatcher
    installations: AsyncInstallationStore | None = None  # OAuth: the workspaces that installed errkb


def build_app(settings: Settings, kb: KnowledgeBase, store: Store, update_delay: float = 1.0,
              session: aiohttp.ClientSession | None = None, pace: float = PACE_PER_SECOND) -> Wiring:
    """The Bolt app with every listener, the use cases they call and the gateway they send through.

    Listeners run before Slack gets its answer (``process_before_response``): each does only its
    quick part there, so the ack carries what must be durable (a recorded decision, a vote)."""
    client = make_client(settings, session)
    oauth = oauth_settings(settings, store.engine) if settings.oauth else None
    app = ObservedApp(client=client, signing_secret=settings.signing_secret or "", name="errkb",
                      process_before_response=True, oauth_settings=oauth,
                      authorize=authorize(oauth, client) if oauth is not None else None)
    clients = None
    installed = None
    if oauth is not None:
        installations = oauth.installation_store
        installed = Installations(installations).known

        def clients(workspace: str) -> AsyncWebClient:
            return WorkspaceClient(installations, workspace, base_url=client.base_url, timeout=30, retry_handlers=[],
                                   session=session)

    gateway = Gateway(client, settings.api_url, pace=pace, clients=clients)
    service = build(kb, store, gateway, update_delay=update_delay, pastes=settings.pastes_dir,
                    reviewers=settings.reviewers, site_url=settings.site_url, alert_window=settings.alert_window)
    background = Inflight()
    app.use(use.provide(service, background))
    listeners.register(app)
    if oauth is not None:
        installs.register(app)
    metrics.PENDING.set_function(service.pending)
    return Wiring(app, service, gateway, background, Dispatcher(app, service, gateway.via_for, installed),
                  oauth.installation_store if oauth is not None else None)


def http_app(wiring: Wiring | None, signing_secret: str, unready: Callable[[], Awaitable[str | None]]
             ) -> web.Application:
    """``POST /slack/events`` (when ``wiring`` is given: its one dispatcher, behind the verify-first
    front), the OAuth pages when configured, health (``unready`` says why errkb cannot do its job now,
    or None when it can) and ``GET /metrics`` (Prometheus)."""
    bolt = wiring.app if wiring is not None else None

    async def live(_request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def ready(_request: web.Request) -> web.Response:
        reason = await unready()
        return web.json_response({"ok": reason is None, **({"reason": reason} if reason else {})},
                                 status=200 if reason is None else 503)

    async def install(request: web.Request) -> web.Response:
        assert bolt is not None and bolt.oauth_flow is not None
        flow = bolt.oauth_flow
        bolt_request = await to_bolt_request(request)
        handle = flow.handle_installation if request.path == flow.install_path else flow.handle_callback
        return await to_aiohttp_response(await handle(bolt_request))

    async def exposition(_request: web.Request) -> web.Response:
        body, content_type = metrics.exposition()
        return web.Response(body=body, headers={"Content-Type": content_type})

    web_app = web.Application(client_max_size=front.MAX_BODY_BYTES)
    web_app.router.add_get(LIVE_PATH, live)
    for path in READY_PATHS:
        web_app.router.add_get(path, ready)
    web_app.router.add_get(METRICS_PATH, exposition)
    if wiring is not None:
        web_app.router.add_post(EVENTS_PATH, front.verified(signing_secret, wiring.dispatcher))
        if bolt is not None and bolt.oauth_flow is not None:
            web_app.router.add_get(bolt.oauth_flow.install_path, install)
            web_app.router.add_get(bolt.oauth_flow.redirect_uri_path, install)
    return web_app


@dataclass
class Running:
    """A started bot: what ``stop`` has to wind down, and where it listens."""

    app: AsyncApp
    service: Service
    store: Store
    kb: KnowledgeBase
    background: Inflight
    runner: web.AppRunner
    site: web.TCPSite
    socket_mode: AsyncSocketModeHandler | None
    port: int
    session: aiohttp.ClientSession
    tasks: tuple[asyncio.Task[None], ...] = ()  # pruning, compiling regexes ahead of need

    async def stop(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Stop taking requests, let in-flight replies finish, then close everything."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        for task in self.tasks:
            task.cancel()
        if self.socket_mode is not None:
            await self.socket_mode.disconnect_async()
        await self.site.stop()
        await self.background.drain(grace)
        await self.service.stop(max(1.0, deadline - loop.time()))
        if self.socket_mode is not None:
            await self.socket_mode.close_async()
        await self.runner.cleanup()
        await self.session.close()
        await self.store.close()


async def start(settings: Settings, host: str = "0.0.0.0", port: int | None = None, kb: KnowledgeBase | None = None,
                update_delay: float = 1.0, seed: bool = True, pace: float = PACE_PER_SECOND) -> Running:
    """Load the KB and the catalogs, open and seed the store, and start serving Slack.

    ``seed=False`` skips syncing the seeds into the store, for a store known to hold them already."""
    socket_mode = bool(settings.app_token)
    settings.check_serve()
    i18n.load_catalogs()
    kb = kb or KnowledgeBase.load(settings.seeds_dir)
    kb.matcher.fallback  # noqa: B018 - built (or loaded from the snapshot) now, not while the first events wait
    store = await Store.open(settings.database_url)
    session = aiohttp.ClientSession()
    try:
        if settings.oauth:  # tokens an older errkb stored in plain text are encrypted; a wrong key stops here
            sealed = await seal_tokens(store.engine, Cipher.from_setting(settings.encryption_key))
            if sealed.encrypted:
                log.info("encrypted %d Slack tokens stored in plain text", sealed.encrypted)
        if seed:  # next to nothing when the store holds these very seeds already (bot/store/sync.py)
            report = await store.sync_entries(kb.entries)
            log.info("%d entries: %d added, %d updated", len(kb.entries), len(report.added), len(report.updated))
        wiring = build_app(settings, kb, store, update_delay, session, pace)
        wiring.service.start()
        settle_heap()

        handler: AsyncSocketModeHandler | None = None

        async def unready() -> str | None:
            if not kb.entries:
                return "the knowledge base is empty"
            if socket_mode and (handler is None or not await handler.client.is_connected()):
                return "Socket Mode is not connected"
            return await store.readiness()

        web_app = http_app(None if socket_mode else wiring, settings.signing_secret or "", unready)
        if not socket_mode:  # the team dashboard, or the page saying what turns it on (bot/slack/dashboard.py)
            DashboardPages(settings, wiring.service.dashboard, wiring.installations, session).mount(web_app)
        runner = web.AppRunner(web_app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, settings.port if port is None else port)
        await site.start()
    except BaseException:
        await session.close()
        await store.close()
        raise
    bound = runner.addresses[0][1] if runner.addresses else settings.port
    if socket_mode:
        handler = AsyncSocketModeHandler(wiring.app, settings.app_token)
        await handler.connect_async()
        log.info("errkb: Socket Mode connected; %s and %s on port %s", LIVE_PATH, READY_PATHS[0], bound)
    else:
        log.info("errkb: HTTP mode on port %s (%s, %s, %s)", bound, EVENTS_PATH, LIVE_PATH, READY_PATHS[0])
    kb.prepare_index()  # once serving: built in the background if the seeds changed, else the first search loads it
    tasks = (asyncio.create_task(prune_forever(store, settings)), asyncio.create_task(compile_ahead(kb)))
    return Running(wiring.app, wiring.service, store, kb, wiring.background, runner, site, handler, bound, session,
                   tasks)


def settle_heap() -> None:
    """Collect start-up garbage, then exempt what is left (the KB, its matcher and indexes: millions of
    objects that live as long as the process) from the garbage collector: otherwise every full
    collection walks them all and stalls every request for a few hundred milliseconds."""
    gc.collect()
    gc.freeze()


async def compile_ahead(kb: KnowledgeBase) -> None:
    """Compile the KB's regexes a few at a time between events (the bundled KB's take about 0.15 s in
    all), so a paste seldom waits for its entry's regex to compile (up to a few milliseconds each)."""
    while not kb.matcher.warm():
        await asyncio.sleep(0)


async def prune_forever(store: Store, settings: Settings, every: float = PRUNE_EVERY) -> None:
    """Delete expired rows now and then every ``every`` seconds (a failure waits for the next round)."""
    while True:
        try:
            removed = await store.prune(settings.retention)
            if removed.total:
                log.info("pruned %d expired rows: %s", removed.total, removed.rows)
        except Exception:
            log.exception("pruning expired rows failed; trying again in %.0f s", every)
        await asyncio.sleep(every)


async def run(settings: Settings) -> None:
    running = await start(settings)
    trimmer = asyncio.create_task(memory.trim_forever())  # RSS stays level (bot/memory.py)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    trimmer.cancel()
    log.info("errkb: stopping; %d answers in flight", running.service.pending())
    await running.stop(settings.shutdown_grace)


def serve(settings: Settings) -> None:
    """``errkb serve``."""
    keys = (key.strip() for key in (settings.encryption_key or "").split(","))  # ERRKB_ENCRYPTION_KEY's
    logs.configure(settings.log_level, (settings.bot_token, settings.signing_secret, settings.app_token,
                                        settings.client_secret, *keys), settings.log_format)
    memory.configure()  # freed large buffers go back to the system (bot/memory.py)
    # The store's driver and the resolver run in threads: at CPython's default 5 ms switch interval
    # every store round trip under load waits up to 5 ms for the event loop's thread to let go of the GIL.
    sys.setswitchinterval(SWITCH_INTERVAL)
    asyncio.run(run(settings))
