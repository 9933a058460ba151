"""What a listener takes from Bolt's context: the service's use cases and the tracker of work that
outlives the ack. ``provide`` is the middleware that puts them there for every request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import Service
from bot.slack.tasks import Inflight

SERVICE = "errkb_service"
BACKGROUND = "errkb_background"

Middleware = Callable[..., Awaitable[Any]]


def provide(service: Service, background: Inflight) -> Middleware:
    async def middleware(context: AsyncBoltContext, next: Callable[[], Awaitable[Any]]) -> Any:
        context[SERVICE] = service
        context[BACKGROUND] = background
        return await next()

    return middleware


def service(context: AsyncBoltContext) -> Service:
    found: Service = context[SERVICE]
    return found


def background(context: AsyncBoltContext) -> Inflight:
    found: Inflight = context[BACKGROUND]
    return found
