"""Teaching errkb in Slack: the *Add to errkb* modal (also the reviewer's edit), its live regex verdict,
and App Home's "Team entries" section. Texts come in the current locale (the author's language).
"""

from __future__ import annotations

import json
from typing import Any

from bot.cards import TeamLineCard
from bot.i18n import _, ngettext
from bot.kb.propose import Issue
from bot.render.kit import clip, context, escape, mrkdwn, option, overflow, plain_text, section

CALLBACK_TEACH = "errkb_teach"  # the modal's callback_id (its view_submission)
CALLBACK_TRANSLATE = "errkb_translate_entry"  # a team entry's texts added in the other language
ACTION_REGEX = "errkb_teach_regex"  # the regex input dispatches this on Enter: the verdict is redrawn
ACTION_REVIEW = "errkb_team_review"  # App Home's overflow on a team entry: verify, edit, retire
REVIEW_ACTIONS = ("verify", "edit", "retire")  # reviewers only
TRANSLATE = "translate"  # anyone reading another language than the entry's
FIELDS = ("title", "root_cause", "workarounds", "dead_ends", "regex")
VALUE = "value"  # every input's action_id but the regex's
TEXT_LIMIT = 3000


def _input(block_id: str, label: str, initial: str, multiline: bool = False, optional: bool = False,
           hint: str = "", action_id: str = VALUE, dispatch: bool = False, limit: int = TEXT_LIMIT) -> dict[str, Any]:
    element: dict[str, Any] = {"type": "plain_text_input", "action_id": action_id, "multiline": multiline,
                               "max_length": limit}
    if initial:
        element["initial_value"] = initial[:limit]
    if dispatch:
        element["dispatch_action_config"] = {"trigger_actions_on": ["on_enter_pressed"]}
    block: dict[str, Any] = {"type": "input", "block_id": block_id, "optional": optional, "element": element,
                             "label": plain_text(clip(label, 2000))}
    if dispatch:
        block["dispatch_action"] = True
    if hint:
        block["hint"] = plain_text(clip(hint, 2000))
    return block


def issue_text(issue: Issue) -> str:
    """One reason a regex cannot be taught, in the reader's language."""
    if issue.kind == "compile":
        return _("RE2 cannot compile this regex: {reason}").format(reason=issue.detail)
    if issue.kind == "empty":
        return _("This regex matches an empty message, so it would answer every message.")
    if issue.kind == "example":
        return _("This regex does not match the error line above.")
    if issue.kind == "chat":
        return _("This regex matches ordinary chat: “{message}”").format(message=clip(issue.detail, 80))
    return _("This regex also matches pastes of another entry: {entry}").format(entry=issue.detail)


def verdict_text(issues: list[Issue]) -> str:
    if not issues:
        return "✅ " + _("The regex matches the error line, and no chat or other entry's pastes.")
    return "\n".join("⚠️ " + escape(issue_text(i)) for i in issues)


def teach_modal(example: str, form: dict[str, str], meta: dict[str, Any], verdict: str | None = None,
                editing: bool = False) -> dict[str, Any]:
    """The modal: the masked error line, then title, root cause, workarounds (one per line), dead ends and the
    regex errkb proposed, with the verdict of its last check."""
    blocks: list[dict[str, Any]] = [
        section("{}\n`{}`".format(_("The error line, as errkb keeps it (values masked):"),
                                   escape(clip(example, 300).replace("`", "'")))),
        _input("title", _("Title"), form.get("title", ""), limit=150,
               hint=_("The error in a few words, as people would search for it.")),
        _input("root_cause", _("Root cause"), form.get("root_cause", ""), multiline=True,
               hint=_("Why it happens, in a sentence or two.")),
        _input("workarounds", _("Workarounds"), form.get("workarounds", ""), multiline=True,
               hint=_("What fixes it: one workaround per line, the best first.")),
        _input("dead_ends", _("Dead ends"), form.get("dead_ends", ""), multiline=True, optional=True,
               hint=_("What people try that does not help: one per line.")),
        _input("regex", _("Regex (RE2)"), form.get("regex", ""), action_id=ACTION_REGEX, dispatch=True, limit=600,
               hint=_("Proposed from the error line; press Enter to check it again.")),
    ]
    if verdict:
        blocks.append({"type": "context", "block_id": "verdict", "elements": [mrkdwn(clip(verdict, TEXT_LIMIT))]})
    blocks.append(context(_("Written in your language; the other language shows as untranslated until someone "
                             "adds it. Only these texts and the masked line are stored.")))
    return {
        "type": "modal", "callback_id": CALLBACK_TEACH,
        "title": plain_text(clip(_("Edit team entry") if editing else _("Add to errkb"), 24)),
        "submit": plain_text(clip(_("Save"), 24)),
        "close": plain_text(clip(_("Cancel"), 24)),
        "private_metadata": json.dumps(meta, ensure_ascii=False, separators=(",", ":"))[:3000],
        "blocks": blocks,
    }


def field_errors(form: dict[str, str], issues: list[Issue]) -> dict[str, str]:
    """What ``response_action: errors`` shows under each field of an invalid form ({}: it is valid)."""
    errors: dict[str, str] = {}
    if not form.get("title", "").strip():
        errors["title"] = _("Give the error a title.")
    if not form.get("root_cause", "").strip():
        errors["root_cause"] = _("Say why it happens.")
    if not any(line.strip() for line in form.get("workarounds", "").splitlines()):
        errors["workarounds"] = _("Add at least one workaround.")
    if issues:
        errors["regex"] = clip(" ".join(issue_text(i) for i in issues), 150)
    return errors


def translate_modal(original: dict[str, Any], form: dict[str, str], meta: dict[str, Any]) -> dict[str, Any]:
    """The author's texts (shown as written) and the same fields to fill in the reader's language."""
    works = [f"{i}. {escape(w)}" for i, w in enumerate(original.get("workarounds") or (), 1)]
    shown = "*{}*\n{}\n{}".format(escape(clip(original.get("title", ""), 150)),
                                   escape(clip(original.get("root_cause", ""), 1000)), "\n".join(works))
    blocks: list[dict[str, Any]] = [
        section(clip(shown, TEXT_LIMIT)),
        _input("title", _("Title"), form.get("title", ""), limit=150),
        _input("root_cause", _("Root cause"), form.get("root_cause", ""), multiline=True),
        _input("workarounds", _("Workarounds"), form.get("workarounds", ""), multiline=True,
               hint=_("One line per workaround, in the same order as above.")),
    ]
    if original.get("dead_ends"):
        blocks.append(_input("dead_ends", _("Dead ends"), form.get("dead_ends", ""), multiline=True, optional=True,
                             hint=_("One line per dead end, in the same order.")))
    return {
        "type": "modal", "callback_id": CALLBACK_TRANSLATE,
        "title": plain_text(clip(_("Translate"), 24)),
        "submit": plain_text(clip(_("Save"), 24)),
        "close": plain_text(clip(_("Cancel"), 24)),
        "private_metadata": json.dumps(meta, ensure_ascii=False, separators=(",", ":"))[:3000],
        "blocks": blocks,
    }


def translation_errors(original: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    """Per-field errors of a translation ({}: it can be saved): every text, line for line."""
    errors: dict[str, str] = {}
    if not form.get("title", "").strip():
        errors["title"] = _("Give the error a title.")
    if not form.get("root_cause", "").strip():
        errors["root_cause"] = _("Say why it happens.")
    for key in ("workarounds", "dead_ends"):
        want, got = len(original.get(key) or ()), len([x for x in form.get(key, "").splitlines() if x.strip()])
        if got != want and (key == "workarounds" or got):
            errors[key] = ngettext("Give {want} line, one for each above (you gave {got}).",
                                   "Give {want} lines, one for each above (you gave {got}).", want).format(
                                       want=want, got=got)
    return errors


def notice_modal(title: str, text: str) -> dict[str, Any]:
    """A small modal that only tells something (a refusal from App Home, where no ephemeral message can go)."""
    return {"type": "modal", "title": plain_text(clip(title, 24)), "close": plain_text(clip(_("Close"), 24)),
            "blocks": [section(text)]}


def team_home_blocks(team: tuple[TeamLineCard, ...]) -> list[dict[str, Any]]:
    """App Home's "Team entries": each with its author, and a reviewer's menu (verify, edit, retire)."""
    blocks: list[dict[str, Any]] = [section("*{}*".format(_("Team entries")))]
    if not team:
        blocks.append(context(_("None yet. *Add to errkb* on an error I don't know teaches me its fix.")))
        return blocks
    labels = {"verify": _("Mark verified"), "edit": _("Edit"), "retire": _("Retire"),
              TRANSLATE: _("Add my language")}
    for line in team[:40]:
        status = _("verified") if line.status == "verified" else _("not yet reviewed")
        if line.untranslated:
            status += " · " + _("not yet in your language")
        by = _("Team-written by {author}").format(author=f"<@{line.author}>")
        text = f"{escape(clip(line.title, 200))}\n{by} · {status}"
        chosen = [do for do in REVIEW_ACTIONS if not (do == "verify" and line.status == "verified")]
        options = [option(labels[do], json.dumps({"entry": line.entry_id, "do": do}, separators=(",", ":"))[:150])
                   for do in ([TRANSLATE] if line.untranslated else []) + chosen]
        blocks.append({**section(text), "accessory": overflow(ACTION_REVIEW, options)})
    blocks.append(context(_("Reviewers (workspace admins, or the user groups errkb is told) can verify, edit "
                             "or retire an entry.")))
    return blocks
