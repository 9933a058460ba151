"""Workspaces: what happens when one uninstalls errkb or revokes its token."""

from __future__ import annotations

import logging

from bot.service.runtime.channels import Channels
from bot.service.runtime.numbers import Numbers
from bot.service.voting import Voting
from bot.store import Store

log = logging.getLogger(__name__)


class Workspaces:
    def __init__(self, store: Store, channels: Channels, numbers: Numbers, voting: Voting) -> None:
        self.store = store
        self.channels = channels
        self.numbers = numbers
        self.voting = voting

    async def forget(self, workspace: str) -> None:
        """The workspace uninstalled errkb or revoked its token: delete its data (votes stay as counts)."""
        removed = await self.store.delete_workspace(workspace)
        self.channels.forget_workspace(workspace)
        self.numbers.forget_workspace(workspace)
        self.voting.forget_workspace(workspace)
        log.info("workspace %s removed: %d rows deleted", workspace, removed.total)
