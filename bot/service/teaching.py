"""*Add to errkb*: a teammate teaches errkb an error it could not answer, and reviewers keep the result.

The modal (``bot.render.modals``) opens on the masked line (never the paste) with a regex errkb
proposes (``bot.kb.propose``); Enter in the regex field redraws the verdict; a valid submission stores
the team entry, which answers in its workspace within seconds on every replica (``bot.service.team``).
Reviewers (workspace admins and owners, or members of the user groups in ``ERRKB_REVIEWERS``) verify,
edit or retire team entries from App Home; anyone else is told, privately, that they cannot.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot import i18n
from bot.i18n import _
from bot.kb.propose import Issue, propose
from bot.kb.shape import masked
from bot.render import blocks, labels, modals
from bot.render.kit import escape
from bot.service.conversation import Conversations
from bot.service.plans import OpenView, Plan, Post, Thread, UpdateView
from bot.service.ports import Outlet, Via
from bot.service.team import TeamKnowledge
from bot.store import Store
from bot.store.records import TeamEntry

log = logging.getLogger(__name__)

OPEN_WAIT = 1.5  # seconds the modal waits for the proposed regex's verdict before opening without it


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def form_of(row: TeamEntry) -> dict[str, str]:
    """A stored team entry as the modal's fields (its author's language)."""
    body = row.body
    return {"title": body.get("title", ""), "root_cause": body.get("root_cause", ""),
            "workarounds": "\n".join(body.get("workarounds") or ()),
            "dead_ends": "\n".join(body.get("dead_ends") or ()), "regex": row.regex}


def form_of_other(row: TeamEntry, locale: str) -> dict[str, str]:
    """A team entry's texts in ``locale`` as the translation modal's fields (empty where not written)."""
    other = (row.body.get("other") or {}).get(locale) or {}
    return {"title": other.get("title", ""), "root_cause": other.get("root_cause", ""),
            "workarounds": "\n".join(other.get("workarounds") or ()),
            "dead_ends": "\n".join(other.get("dead_ends") or ())}


class Teaching:
    def __init__(self, store: Store, team: TeamKnowledge, conversations: Conversations, outlet: Outlet,
                 reviewers: tuple[str, ...] = (),
                 home: Callable[[str, str, Via], Awaitable[None]] | None = None) -> None:
        self.store = store
        self.team = team
        self.conversations = conversations
        self.outlet = outlet
        self.reviewers = reviewers
        self.home = home  # redraws a user's App Home after a review

    async def open(self, workspace: str, user: str, trigger_id: str, line: str, via: Via) -> None:
        """*Add to errkb*: the modal on the masked line, with a proposed regex already checked."""
        example = masked(line)
        if not example:
            return
        form = {"regex": propose(example)}
        conversation = await self.conversations.open(workspace, user, via)
        checking = asyncio.ensure_future(self.team.issues(workspace, form["regex"], example))
        try:  # the trigger id lasts three seconds: without a verdict by then, Enter in the regex field gives it
            issues: list[Issue] | None = await asyncio.wait_for(asyncio.shield(checking), OPEN_WAIT)
        except TimeoutError:
            issues = None
        with conversation.speaking() as locale:
            view = modals.teach_modal(example, form, {"line": example, "locale": locale},
                                      None if issues is None else modals.verdict_text(issues))
        await self.outlet.send(Plan([OpenView(trigger_id, view)]), via)

    async def check(self, workspace: str, view_id: str, form: dict[str, str], meta: dict[str, Any],
                    via: Via) -> None:
        """Enter in the regex field: the same modal, its verdict redrawn for the regex as typed."""
        example, locale, editing = self._meta(meta)
        issues = await self.team.issues(workspace, form.get("regex", ""), example, editing)
        with i18n.use_locale(locale):
            view = modals.teach_modal(example, form, meta, modals.verdict_text(issues), editing=bool(editing))
        await self.outlet.send(Plan([UpdateView(view_id, view)]), via)

    async def submit(self, workspace: str, user: str, form: dict[str, str], meta: dict[str, Any],
                     via: Via) -> dict[str, str]:
        """Store the entry (or the reviewer's edit); the per-field errors of an invalid form ({}: stored)."""
        return (await self.save(workspace, user, form, meta, via))[0]

    async def save(self, workspace: str, user: str, form: dict[str, str], meta: dict[str, Any],
                   via: Via) -> tuple[dict[str, str], Plan]:
        """:meth:`submit`, and what to tell the author once the modal is closed (:meth:`confirm`): for a new
        entry, a direct message with its title and id, saying it answers in this workspace now."""
        example, locale, editing = self._meta(meta)
        confirmation = Plan()
        regex = form.get("regex", "").strip()
        issues = await self.team.issues(workspace, regex, example, editing)
        with i18n.use_locale(locale):
            errors = modals.field_errors(form, issues)
            if editing and not errors and not await self.is_reviewer(workspace, user, via):
                errors = {"title": _("Only reviewers can edit team entries.")}
        if errors:
            return errors, confirmation
        body = {"title": form.get("title", ""), "root_cause": form.get("root_cause", ""),
                "workarounds": _lines(form.get("workarounds", "")), "dead_ends": _lines(form.get("dead_ends", ""))}
        if editing:  # the entry named in the form: only ever this workspace's (another's is not found)
            old = await self.store.team_entry(workspace, editing)
            if old is not None and old.body.get("other"):
                body["other"] = old.body["other"]
            if old is None or await self.store.edit_team_entry(workspace, editing, body, regex, editor=user) is None:
                with i18n.use_locale(locale):
                    return {"title": _("This team entry no longer exists.")}, confirmation
            log.info("team entry %s edited by %s", editing, user)
        else:
            row = await self.store.add_team_entry(workspace, user, locale, body, regex, example)
            log.info("team entry %s added by %s", row.entry_id, user)
            with i18n.use_locale(locale):
                title = escape(form.get("title", "").strip())
                saved = blocks.notice(_("Saved: *{title}* (`{id}`). It answers in this workspace now: the next paste "
                                        "of this error here gets your answer, marked as written by you and not "
                                        "reviewed yet.").format(title=title, id=row.entry_id))
            confirmation = Plan([Thread(workspace, user, None, [Post(saved)])])  # the author's DM with errkb
        self.team.forget(workspace)
        return {}, confirmation

    async def confirm(self, plan: Plan, via: Via) -> None:
        """Tell the author their entry was saved (after the ack that closed the modal)."""
        await self.outlet.send(plan, via)

    async def translate(self, workspace: str, user: str, form: dict[str, str], meta: dict[str, Any]) -> dict[str, str]:
        """Store a team entry's texts in the translator's language; per-field errors ({}: stored)."""
        locale = str(meta.get("locale") or "")
        row = await self.store.team_entry(workspace, str(meta.get("entry") or ""))  # never another workspace's
        with i18n.use_locale(locale if locale in i18n.SUPPORTED else "en"):
            if row is None or locale not in i18n.SUPPORTED or locale == row.locale:
                return {"title": _("This team entry no longer exists.")}
            errors = modals.translation_errors(row.body, form)
        if errors:
            return errors
        other = dict(row.body.get("other") or {})
        other[locale] = {"title": form.get("title", ""), "root_cause": form.get("root_cause", ""),
                         "workarounds": _lines(form.get("workarounds", "")),
                         "dead_ends": _lines(form.get("dead_ends", ""))}
        await self.store.edit_team_entry(workspace, row.entry_id, {**row.body, "other": other}, row.regex)
        log.info("team entry %s translated to %s by %s", row.entry_id, locale, user)
        self.team.forget(workspace)
        return {}

    @staticmethod
    def _meta(meta: dict[str, Any]) -> tuple[str, str, str | None]:
        locale = str(meta.get("locale") or "en")
        return (masked(str(meta.get("line") or "")), locale if locale in i18n.SUPPORTED else "en",
                str(meta["entry"]) if meta.get("entry") else None)

    async def is_reviewer(self, workspace: str, user: str, via: Via) -> bool:
        if await self.outlet.is_admin(user, via):
            return True
        for group in self.reviewers:
            if user in await self.outlet.group_members(group, via):
                return True
        return False

    async def review(self, workspace: str, user: str, trigger_id: str, value: str, via: Via) -> None:
        """App Home's menu on a team entry: verify, edit (the modal, prefilled) or retire it."""
        try:
            data = json.loads(value)
            entry_id, do = str(data["entry"]), str(data["do"])
        except (ValueError, TypeError, KeyError):
            return
        if do not in (*modals.REVIEW_ACTIONS, modals.TRANSLATE):
            return
        row = await self.store.team_entry(workspace, entry_id)  # never another workspace's, whatever the id says
        conversation = await self.conversations.open(workspace, user, via)
        locale = conversation.locale
        if row is None:
            with conversation.speaking():
                view = modals.notice_modal(_("Team entries"), labels.not_here())
            await self.outlet.send(Plan([OpenView(trigger_id, view)]), via)
            return
        if do == modals.TRANSLATE:  # anyone may add their language to an entry written in the other one
            if locale != row.locale:
                with conversation.speaking():
                    view = modals.translate_modal(row.body, form_of_other(row, locale),
                                                  {"entry": row.entry_id, "locale": locale})
                await self.outlet.send(Plan([OpenView(trigger_id, view)]), via)
            return
        if not await self.is_reviewer(workspace, user, via):
            with conversation.speaking():
                view = modals.notice_modal(_("Team entries"), _(
                    "Only reviewers can verify, edit or retire team entries: workspace admins and owners, or the "
                    "members of the user groups errkb was given. Ask one of them."))
            await self.outlet.send(Plan([OpenView(trigger_id, view)]), via)
            return
        if do == "edit":
            with i18n.use_locale(row.locale):
                meta = {"line": row.example, "locale": row.locale, "entry": row.entry_id}
                view = modals.teach_modal(row.example, form_of(row), meta, editing=True)
            await self.outlet.send(Plan([OpenView(trigger_id, view)]), via)
            return
        await self.store.set_team_status(workspace, entry_id, "verified" if do == "verify" else "retired", user)
        log.info("team entry %s %s by %s", entry_id, "verified" if do == "verify" else "retired", user)
        self.team.forget(workspace)
        if self.home is not None:
            await self.home(workspace, user, via)
