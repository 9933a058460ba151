"""The fakes' one way to serve: an aiohttp app on a free port of 127.0.0.1 (tests never reach the internet)."""

from __future__ import annotations

from aiohttp import web


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    """Start ``app``; returns its runner (to clean up) and its base URL."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}"
