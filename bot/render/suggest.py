"""The *Suggest a fix* modal: what fixed it (and an optional command), in the author's language; and
*Translate this fix*, for a suggested fix still shown untranslated.

Their ``private_metadata`` carries the entry (and fix) and where the answer was (channel, thread), so
whichever process gets the submission can store it and thank its author there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.i18n import _, current_locale
from bot.kb.mask import mask
from bot.render.kit import escape, mrkdwn, plain_text
from bot.render.summary import plain_name

CALLBACK = "errkb_suggest_fix"
TRANSLATE_CALLBACK = "errkb_translate_fix"
FIX_BLOCK, CODE_BLOCK, OTHER_BLOCK = "fix", "code", "other"
INPUT = "text"
MAX_FIX = 1000  # characters of the fix itself…
MAX_CODE = 1500  # …and of its command or code


@dataclass(frozen=True)
class Place:
    """What a suggestion is for and where it was asked: carried through the modal."""

    entry_id: str
    channel: str = ""
    thread_ts: str | None = None
    index: int | None = None  # the suggested fix being translated

    def dump(self) -> str:
        return json.dumps({"entry": self.entry_id, "channel": self.channel, "thread": self.thread_ts,
                           "fix": self.index}, separators=(",", ":"))

    @classmethod
    def load(cls, metadata: str) -> Place | None:
        try:
            data = json.loads(metadata)
            index = data.get("fix")
            return cls(str(data["entry"]), str(data.get("channel") or ""), data.get("thread") or None,
                       None if index is None else int(index))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def _text(text: str) -> dict[str, Any]:
    return plain_text(text, emoji=True)


def _input(block_id: str, label: str, placeholder: str, limit: int, optional: bool) -> dict[str, Any]:
    return {"type": "input", "block_id": block_id, "optional": optional, "label": _text(label),
            "element": {"type": "plain_text_input", "action_id": INPUT, "multiline": True, "max_length": limit,
                        "placeholder": _text(placeholder[:150])}}


def modal(place: Place, signature: str) -> dict[str, Any]:
    """The modal for a fix to ``signature``'s entry, worded in the current locale (the author's)."""
    other = "English" if current_locale() == "zh" else "中文"
    intro = _("A fix for *{error}*. It joins this error's fixes in this workspace, credited to you; "
              "its votes rank it.").format(error=plain_name(signature)[:200].replace("*", ""))
    return {
        "type": "modal", "callback_id": CALLBACK, "private_metadata": place.dump(),
        "title": _text(_("Suggest a fix")[:24]), "submit": _text(_("Add fix")[:24]), "close": _text(_("Cancel")[:24]),
        "blocks": [
            {"type": "section", "text": mrkdwn(intro)},
            _input(FIX_BLOCK, _("What fixed it"), _("e.g. Pin the driver to 535 on the A100 nodes."), MAX_FIX, False),
            _input(CODE_BLOCK, _("Command or code (optional)"), "export NCCL_P2P_DISABLE=1", MAX_CODE, True),
            _input(OTHER_BLOCK, _("The same fix in {language} (optional)").format(language=other),
                   _("Readers of the other language see yours, marked untranslated, until then."), MAX_FIX, True),
        ],
    }


def translate_modal(place: Place, original: str) -> dict[str, Any]:
    """The modal for ``original`` (a suggested fix in the other language) in the current locale's words."""
    language = "中文" if current_locale() == "zh" else "English"
    quoted = "\n".join("> " + line for line in escape(mask(original[:2500])).splitlines())  # a member's text
    return {
        "type": "modal", "callback_id": TRANSLATE_CALLBACK, "private_metadata": place.dump(),
        "title": _text(_("Translate this fix")[:24]), "submit": _text(_("Save")[:24]),
        "close": _text(_("Cancel")[:24]),
        "blocks": [
            {"type": "section", "text": mrkdwn(quoted or ">")},
            _input(FIX_BLOCK, _("The same fix in {language}").format(language=language),
                   _("Readers of your language will see this instead of the original."), MAX_FIX, False),
        ],
    }
