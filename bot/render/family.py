"""A family-level answer → Slack Block Kit, terminal text and JSON.

When no entry knows a coded error, errkb says what the code's family is and where its official page
is, labelled "No fix known yet" in every format: no fix, no success numbers, no vote buttons, and
*Add to errkb* (the teach path) in Slack. The reader's line comes credential-masked; the family's
words come from the KB (``seeds/_families.json``), in the reader's script.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.i18n import _
from bot.render import labels
from bot.render.blocks import ACTION_TEACH, Message
from bot.render.kit import SECTION_LIMIT, actions, button, clip, context, escape, link, section


@dataclass(frozen=True)
class FamilyCard:
    """What errkb can say of an error no entry knows whose line carries a documented code."""

    family: str  # the family's id (``rustc``)
    label: str  # the family's name for one of its errors, in the reader's locale (``rustc error``)
    code: str  # the code as the family writes it (``E0308``)
    name: str | None  # the code's symbol or condition name where the family gives one (``unique_violation``)
    about: str  # what the family is, in the reader's locale
    url: str  # the official page
    page: str  # ``code`` (a page about the code), ``list`` (a page listing it) or ``index`` (no page of its own)
    line: str  # the reader's decisive line, credential-masked
    shape: str  # the same line with every value masked: what *Add to errkb* carries


def headline(card: FamilyCard) -> str:
    return _("No fix known yet · {what} {code}").format(what=card.label, code=card.code)


def _code(card: FamilyCard) -> str:
    return f"{card.code} ({card.name})" if card.name else card.code


def page_label(card: FamilyCard) -> str:
    """What the address is: the code's own page, a list holding it, or the family's list."""
    if card.page == "code":
        return _("Official page for {code}").format(code=_code(card))
    if card.page == "list":
        return _("Official list that includes {code}").format(code=_code(card))
    return _("Official list of these codes ({code} has no page of its own)").format(code=card.code)


def no_fix() -> str:
    return _("Nobody has added a fix for this error to errkb or to your team's entries yet. The page above is the "
             "official documentation of its code, not a diagnosis.")


def family_message(card: FamilyCard) -> Message:
    """The labelled family answer, privately or in a thread: the line, the family, the page, *Add to errkb*."""
    title = headline(card)
    lines = [f"*{escape(title)}*", "> `" + escape(clip(card.line, 300).replace("`", "'")) + "`",
             labels.labelled(f"*{escape(_('What it is'))}*", escape(card.about)),
             labels.labelled(f"*{escape(page_label(card))}*", link(card.url, 120))]
    value = json.dumps({"line": clip(card.shape, 300)}, ensure_ascii=False, separators=(",", ":"))
    return {"text": clip(escape(title), SECTION_LIMIT), "blocks": [
        section("\n".join(lines)),
        context(escape(no_fix())),
        actions(button(_("Add to errkb"), ACTION_TEACH, value, "primary")),
        context(_("Know the fix? Teach it to errkb: the next paste of this error here gets your answer.")),
    ]}


def family_text(card: FamilyCard) -> str:
    """``errkb diagnose``'s text for a family answer."""
    return "\n".join([
        headline(card),
        "  │ " + card.line,
        labels.labelled(_("What it is"), card.about),
        labels.labelled(page_label(card), card.url),
        no_fix(),
    ])


def family_json(card: FamilyCard) -> dict[str, Any]:
    """A match of ``errkb diagnose --format json`` and MCP ``diagnose`` with ``"how": "family"``: no entry, no fix."""
    return {
        "id": None,
        "how": "family",
        "family": card.family,
        "code": card.code,
        "code_name": card.name,
        "headline": headline(card),
        "line": card.line,
        "about": card.about,
        "official_doc_url": card.url,
        "page": card.page,
        "page_label": page_label(card),
        "known_fix": False,
        "note": no_fix(),
        "workarounds": [],
        "dead_ends": [],
    }


def family_markdown(card: FamilyCard) -> str:
    """The family answer in a CI summary (Markdown)."""
    line = card.line.replace("`", "'")
    return "\n".join([f"### {headline(card)}", "", f"> `{line}`", "",
                      f"**{_('What it is')}:** {card.about}  ", f"**{page_label(card)}:** {card.url}  ",
                      f"_{no_fix()}_", ""])


def family_github(card: FamilyCard) -> str:
    """A GitHub Actions ``::notice`` (not an ``::error``: it is no diagnosis) with the code's page."""
    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    title = data(headline(card)).replace(":", "%3A").replace(",", "%2C")
    return f"::notice title={title}::{data(labels.labelled(page_label(card), card.url) + ' ' + no_fix())}\n"
