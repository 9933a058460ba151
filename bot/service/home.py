"""App Home: the reader's language setting, the workspace's usage, the errors errkb could not answer
here, and the team's own entries."""

from __future__ import annotations

from bot import i18n
from bot.cards import HomeCard, TeamLineCard, UnknownLineCard
from bot.render.home import home_view
from bot.service.conversation import Conversations
from bot.service.knowledge import Knowledge
from bot.service.locales import Locales
from bot.service.plans import Plan, Publish
from bot.service.ports import Outlet, Via
from bot.service.unknowns import Unknowns
from bot.store import Store


class Home:
    def __init__(self, knowledge: Knowledge, store: Store, outlet: Outlet, conversations: Conversations,
                 locales: Locales, unknowns: Unknowns) -> None:
        self.knowledge = knowledge
        self.store = store
        self.outlet = outlet
        self.conversations = conversations
        self.locales = locales
        self.unknowns = unknowns

    async def show(self, workspace: str, user: str, via: Via) -> None:
        """Publish ``user``'s App Home, in their language."""
        async with self.conversations.speaking(workspace, user, via) as conversation:
            locale = i18n.language(conversation.locale)
            remembering = await self.unknowns.remembers(workspace)
            unknown = tuple(UnknownLineCard(u.shape, u.error_type, u.count, u.last_seen)
                            for u in (await self.unknowns.top(workspace) if remembering else []))
            team = tuple(TeamLineCard(r.entry_id, r.body.get("title", ""), r.author, r.status,
                                      r.locale != locale and not (r.body.get("other") or {}).get(locale))
                         for r in await self.store.team_entries(workspace))
            view = home_view(HomeCard(await self.locales.setting(workspace, user), conversation.locale,
                                             await self.knowledge.usage(workspace=workspace), unknown, remembering,
                                             team))
        await self.outlet.send(Plan([Publish(user, view)]), via)

    async def set_locale(self, workspace: str, user: str, setting: str, via: Via) -> None:
        """The language select on App Home: store the setting, then redraw the page in it."""
        if setting == "auto" or setting in i18n.READING:
            await self.locales.set_override(workspace, user, setting)
        await self.show(workspace, user, via)
