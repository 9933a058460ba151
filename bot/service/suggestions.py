"""*Suggest a fix*: a teammate adds a workaround to an entry (KB or team-written) in their workspace;
*Translate this fix*: a reader of the other language adds its translation later; a reviewer (the same rule
as for team entries, ``Teaching.is_reviewer``) marks one verified or retires it from its message's ⋮ menu.

The button (or the answer's ⋮ option) opens a modal in the clicker's language; on submit the fix is
stored with its author and language (secrets masked, like everything errkb shows), joins the entry's
workarounds in that workspace only, from a weak prior (``bot.kb.feedback``), and its author is thanked
in the answer's thread. A bad form is answered in the modal, field by field, in the author's language.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot import i18n
from bot.i18n import _
from bot.kb.feedback import Suggested
from bot.kb.mask import mask
from bot.render import blocks, labels
from bot.render.suggest import CODE_BLOCK, FIX_BLOCK, MAX_CODE, MAX_FIX, OTHER_BLOCK, Place, modal, translate_modal
from bot.service import refusals
from bot.service.conversation import Conversations
from bot.service.incoming import Click
from bot.service.knowledge import Knowledge
from bot.service.plans import OpenView, Plan, Reply, Update, Whisper
from bot.service.ports import Outlet, Via
from bot.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Form:
    """What the author typed (None: left empty)."""

    fix: str | None
    code: str | None = None
    other: str | None = None


def fix_text(fix: str, code: str | None) -> str:
    """The stored workaround text: the fix, then its command or code as a code block."""
    code = (code or "").strip().replace("```", "ʼʼʼ")
    return fix.strip() + (f"\n```\n{code}\n```" if code else "")


class Suggestions:
    def __init__(self, knowledge: Knowledge, store: Store, outlet: Outlet, conversations: Conversations,
                 changed: Callable[[str, str], None],
                 is_reviewer: Callable[[str, str, Via], Awaitable[bool]] | None = None,
                 refresh: Callable[[str, str, str, Via], None] | None = None) -> None:
        self.knowledge, self.store, self.outlet, self.conversations = knowledge, store, outlet, conversations
        self.changed = changed  # (workspace, entry): forget cached numbers of that entry
        self.is_reviewer = is_reviewer  # (workspace, user, via); None: nobody reviews
        self.refresh = refresh  # (workspace, channel, ts, via): redraw one of the bot's messages, in its language

    async def open(self, click: Click, entry_id: str, via: Via) -> None:
        """The modal, for whoever clicked, in their language; a private note if it cannot open."""
        conversation = await self.conversations.open(click.workspace, click.user, via)
        with conversation.speaking():
            entry = await self.knowledge.show(entry_id, click.workspace)
            if entry is None:  # retired, another workspace's, or made up
                await self.outlet.send(Plan([Reply([blocks.notice(labels.not_here())])]), via)
                return
            view = modal(Place(entry_id, click.channel, click.thread_ts), entry.signature)
            report = await self.outlet.send(Plan([OpenView(click.trigger_id, view)]), via)
            if not report.ok:
                log.warning("could not open the suggestion modal: %s", report.failures[0].reason)
                note = blocks.notice(_("I couldn't open the form in time. Please click again."))
                await self.outlet.send(Plan([Reply([note])]), via)

    async def submit(self, workspace: str, user: str, metadata: str, form: Form,
                     via: Via) -> tuple[dict[str, str], Plan]:
        """Store the fix. Returns the problems to show in the modal by field ({} when it was added) and
        what to tell its author once the modal is closed (``thank``)."""
        place = Place.load(metadata)
        conversation = await self.conversations.open(workspace, user, via)
        with conversation.speaking() as locale:
            problems = _problems(form)
            if problems or place is None:
                return problems or {FIX_BLOCK: _("This form is out of date. Close it and click again.")}, Plan()
            text = mask(fix_text(form.fix or "", form.code))
            other = mask(form.other.strip()) if form.other and form.other.strip() else None
            added = await self.store.suggest_fix(workspace, place.entry_id, user, locale, text, other)
            if added is None:  # the store takes a fix only for an entry this workspace sees, still live
                if await self.knowledge.entry(place.entry_id, workspace) is None:
                    return {FIX_BLOCK: labels.not_here()}, Plan()
                return {FIX_BLOCK: _("This error's entry is no longer live, so it takes no new fixes.")}, Plan()
            self.changed(workspace, place.entry_id)
            log.info("fix %d suggested for %s in %s", added.index, place.entry_id, workspace)
            if not place.channel:
                return {}, Plan()
            thanks = blocks.notice(_("Thanks! Your fix is now one of this error's fixes here, credited to you. "
                                     "It starts with no votes; 👍 and 👎 on it rank it."))
            return {}, Plan([Whisper(place.channel, user, place.thread_ts, [thanks])])

    async def thank(self, plan: Plan, via: Via) -> None:
        await self.outlet.send(plan, via)

    async def review(self, click: Click, via: Via) -> None:
        """A reviewer's choice on a suggested fix's message: verify it (the message is redrawn saying so) or
        retire it (the message then says it was retired; the fix stops showing and ranking, its votes stay as
        counts). Anyone else is told privately who can."""
        choice = blocks.review_choice(click.value)
        if choice is None:
            return
        if await self._suggested(click.workspace, *choice[:2]) is None:  # retired, another workspace's, made up
            await refusals.not_here(self.conversations, self.outlet, click.workspace, click.user, via)
            return
        entry_id, index, do = choice
        if self.is_reviewer is None or not await self.is_reviewer(click.workspace, click.user, via):
            async with self.conversations.speaking(click.workspace, click.user, via):
                note = _("Only reviewers can verify or retire a suggested fix: workspace admins and owners, or the "
                         "members of the user groups errkb was given. Ask one of them.")
            await self.outlet.send(Plan([Reply([blocks.notice(note)])]), via)
            return
        posted = await self.store.message_target(click.workspace, click.channel, click.ts) if click.ts else None
        status = "verified" if do == "verify" else "retired"
        if not await self.store.review_fix(click.workspace, index, status):
            return
        self.changed(click.workspace, entry_id)
        log.info("fix %d of %s %s by %s", index, entry_id, status, click.user)
        if posted is None or posted.ts is None:
            return
        if do == "verify":
            if self.refresh is not None:
                self.refresh(click.workspace, click.channel, posted.ts, via)
            return
        with i18n.use_locale(posted.locale):  # the message's own language, whoever retired it
            note = _("A reviewer retired this suggested fix; it no longer shows or ranks here.")
        await self.outlet.send(Plan([Update(click.channel, posted.ts, blocks.notice(note))]), via)

    # --- the other language, added later -----------------------------------------------------

    async def _suggested(self, workspace: str, entry_id: str, index: int) -> Suggested | None:
        return next((s for s in (await self.store.suggested_fixes(workspace)).get(entry_id, ()) if s.index == index),
                    None)

    async def open_translation(self, click: Click, via: Via) -> None:
        """*Translate this fix*: a form, in the clicker's language, showing the fix as its author wrote it."""
        target = blocks.vote_target(click.value)
        if target is None:
            return
        fix = await self._suggested(click.workspace, *target)
        if fix is None:  # retired, another workspace's, or made up
            await refusals.not_here(self.conversations, self.outlet, click.workspace, click.user, via)
            return
        conversation = await self.conversations.open(click.workspace, click.user, via)
        with conversation.speaking() as locale:
            if fix.locale == locale or fix.text_other:
                note = _("This fix is already in your language.")
                await self.outlet.send(Plan([Reply([blocks.notice(note)])]), via)
                return
            view = translate_modal(Place(target[0], click.channel, click.thread_ts, fix.index), fix.text)
            await self.outlet.send(Plan([OpenView(click.trigger_id, view)]), via)

    async def submit_translation(self, workspace: str, user: str, metadata: str, text: str | None,
                                 via: Via) -> tuple[dict[str, str], Plan]:
        """Store the translation (the first one given stays); problems by field, and the thanks."""
        place = Place.load(metadata)
        conversation = await self.conversations.open(workspace, user, via)
        with conversation.speaking() as locale:
            text = (text or "").strip()
            if not text:
                return {FIX_BLOCK: _("Write the fix in your language.")}, Plan()
            if len(text) > MAX_FIX:
                return {FIX_BLOCK: _("Keep it under {n} characters.").format(n=MAX_FIX)}, Plan()
            fix = await self._suggested(workspace, place.entry_id, place.index) if place and place.index else None
            if place is not None and place.index and fix is None:  # retired, another workspace's, or made up
                return {FIX_BLOCK: labels.not_here()}, Plan()
            if place is None or fix is None or fix.locale == locale:
                return {FIX_BLOCK: _("This form is out of date. Close it and click again.")}, Plan()
            if not await self.store.translate_fix(workspace, fix.index, mask(text)):
                return {FIX_BLOCK: _("Someone translated this fix already.")}, Plan()
            self.changed(workspace, place.entry_id)
            if not place.channel:
                return {}, Plan()
            thanks = blocks.notice(_("Thanks! Readers of your language now see your translation of this fix."))
            return {}, Plan([Whisper(place.channel, user, place.thread_ts, [thanks])])


def _problems(form: Form) -> dict[str, str]:
    """Each field's problem, in the current locale (Slack also enforces the limits; a client may not)."""
    found = {}
    fix = (form.fix or "").strip()
    if not fix:
        found[FIX_BLOCK] = _("Write what fixed it.")
    elif len(fix) > MAX_FIX:
        found[FIX_BLOCK] = _("Keep it under {n} characters; put commands in the field below.").format(n=MAX_FIX)
    if form.code and len(form.code.strip()) > MAX_CODE:
        found[CODE_BLOCK] = _("Keep it under {n} characters.").format(n=MAX_CODE)
    if form.other and len(form.other.strip()) > MAX_FIX:
        found[OTHER_BLOCK] = _("Keep it under {n} characters.").format(n=MAX_FIX)
    return found
