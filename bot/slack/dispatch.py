"""The one dispatcher for ``POST /slack/events``: a signed payload → a response.

``bot.slack.front`` has verified the signature and parsed a JSON body once. Two kinds of payload are
then handled here without Bolt, because they come in storms and need nothing of Bolt's per-request
context (a new Web API client per request was most of their cost):

* a plain new message that is chat (``Answers.chat``: no error line, no known error), or that can carry
  no paste (a join, a deletion…), is acked at once; a paste goes on to Bolt, which authorizes its
  workspace (and rotates its token) before ``Answers.message`` matches it;
* a 👍/👎 reaction whose payload names its installation: ``Voting.reaction``.

Everything else (commands, buttons, views, edits, files, mentions, bots' messages) goes to Bolt.
Both paths share the parsing (``bot.slack.listeners.parse``), the error mapping and its one bounded log
line (``bot.slack.errors.failure``: 400 for a malformed payload, 500 for a failure of ours) and the
request counting (``bot.metrics.event``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp

from bot import metrics
from bot.service import Service, Via
from bot.slack import front
from bot.slack.errors import MALFORMED, failure
from bot.slack.listeners import parse, reactions
from bot.slack.listeners.messages import PASTE_SUBTYPES
from bot.slack.observed import request_type

Work = Callable[[], Awaitable[None]]
Installed = Callable[[str], Awaitable[bool]]  # whether a workspace installed errkb


async def _acked() -> None:
    """Nothing to do: the payload is acked as it is."""


def fast(payload: dict[str, Any], service: Service, via_for: Callable[[str], Via],
         installed: Installed | None = None) -> Work | None:
    """The work a payload needs when it can be done without Bolt; None when Bolt is to dispatch it.

    With ``installed`` (OAuth), the work first checks that the payload's workspace installed errkb, as
    Bolt's authorize would: a workspace that did not is acked and ignored."""
    event = parse.field(payload, "event")
    kind = parse.text(parse.field(event, "type"))
    if payload.get("type") != "event_callback" or kind not in ("message", *reactions.PRESENT):
        return None
    subtype = event.get("subtype")
    if kind == "message":
        if subtype == "message_changed" or event.get("files") or event.get("bot_id") or (subtype is not None \
                and (not isinstance(subtype, str) or subtype in PASTE_SUBTYPES)):
            return None  # an edit, a snippet, a bot's message, a broadcast: Bolt knows which bot is errkb
        if subtype is not None:
            return _acked  # a join, a topic change, a deletion: never a paste
        # chat needs nothing (a mention in it is answered through app_mention); a paste goes on to Bolt,
        # which authorizes the workspace (and rotates its token) before Answers.message
        return _acked if service.answers.chat(parse.text(event.get("text"))) else None
    found = parse.installation(payload)
    if found is None:
        return None
    workspace, bot_user = found
    via = replace(via_for(workspace), me=frozenset({bot_user}))
    present = reactions.PRESENT[kind]
    return _checked(installed, workspace, lambda: reactions.vote(service.voting, event, workspace, bot_user, via,
                                                                  present))


def _checked(installed: Installed | None, workspace: str, work: Work) -> Work:
    if installed is None:
        return work

    async def checked() -> None:
        if await installed(workspace):
            await work()

    return checked


class Dispatcher:
    """``POST /slack/events`` after the front's checks: the fast path, else Bolt."""

    def __init__(self, bolt: AsyncApp, service: Service, via_for: Callable[[str], Via],
                 installed: Installed | None = None) -> None:
        self.bolt = bolt
        self.service = service
        self.via_for = via_for
        self.installed = installed

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        payload = request.get(front.PAYLOAD)
        if payload is not None:
            work: Work | None = None
            problem: Exception | None = None
            try:
                work = fast(payload, self.service, self.via_for, self.installed)
            except Exception as error:  # a field no Slack payload holds
                problem = error
            if work is not None or problem is not None:
                kind = request_type(payload)
                with metrics.event(kind) as handled:
                    try:
                        if problem is not None:
                            raise problem
                        assert work is not None
                        await work()
                    except Exception as error:  # as Bolt's error handler does: one line, never the text
                        handled.outcome = "dropped"
                        return await to_aiohttp_response(failure(error, kind))
                return web.Response()
        try:
            bolt_request = await to_bolt_request(request)  # reads the team, the user… from the payload
        except MALFORMED as error:
            return await to_aiohttp_response(failure(error, "unparsable"))
        return await to_aiohttp_response(await self.bolt.async_dispatch(bolt_request))
