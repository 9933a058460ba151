"""*Suggest a fix*: a teammate adds a workaround to an entry (KB or team-written) in their workspace.

The button (or the answer's ⋮ option) opens a modal in the clicker's language; on submit the fix is
stored with its author and language (secrets masked, like everything errkb shows), joins the entry's
workarounds in that workspace only, from a weak prior (``bot.kb.feedback``), and its author is thanked
in the answer's thread. A bad form is answered in the modal, field by field, in the author's language.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot import i18n
from bot.diagnose import ErrkbService
from bot.i18n import _
from bot.render import blocks
from bot.render.mask import mask
from bot.render.suggest import CODE_BLOCK, FIX_BLOCK, MAX_CODE, MAX_FIX, OTHER_BLOCK, Place, modal
from bot.service.incoming import Click
from bot.service.locales import Locales
from bot.service.plans import OpenView, Plan, Reply, Whisper
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
    def __init__(self, core: ErrkbService, store: Store, outlet: Outlet, locales: Locales,
                 changed: Callable[[str, str], None]) -> None:
        self.core, self.store, self.outlet, self.locales = core, store, outlet, locales
        self.changed = changed  # (workspace, entry): forget cached numbers of that entry

    async def open(self, click: Click, entry_id: str, via: Via) -> None:
        """The modal, for whoever clicked, in their language; a private note if it cannot open."""
        locale = await self.locales.locale_for(click.workspace, click.user, via)
        with i18n.use_locale(locale):
            entry = await self.core.show(entry_id, click.workspace)
            if entry is None:
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
        locale = await self.locales.locale_for(workspace, user, via)
        with i18n.use_locale(locale):
            problems = _problems(form)
            if problems or place is None:
                return problems or {FIX_BLOCK: _("This form is out of date. Close it and click again.")}, Plan()
            text = mask(fix_text(form.fix or "", form.code))
            other = mask(form.other.strip()) if form.other and form.other.strip() else None
            added = await self.store.suggest_fix(workspace, place.entry_id, user, locale, text, other)
            if added is None:
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
