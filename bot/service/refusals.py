"""The private answers to what a workspace may not do: a click or a form naming an entry or fix it does not
have (another workspace's, retired, or made up), and a setting the user may not change.

Ids a payload carries (a button's value, a modal's ``private_metadata``) are never trusted for ownership:
the store finds only the request's workspace's own rows, and whatever it does not find is answered here,
in one line, privately, in the reader's language.
"""

from __future__ import annotations

from bot.render import blocks, labels
from bot.service.conversation import Conversations
from bot.service.plans import Plan, Reply
from bot.service.ports import Outlet, Via


async def not_here(conversations: Conversations, outlet: Outlet, workspace: str, user: str, via: Via) -> None:
    """Tell ``user`` privately that what they clicked is not available in their workspace."""
    async with conversations.speaking(workspace, user, via):
        note = blocks.notice(labels.not_here())
    await outlet.send(Plan([Reply([note])]), via)
