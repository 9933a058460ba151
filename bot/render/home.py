"""App Home and ``/errkb stats``: the reader's language, the workspace's usage, the errors errkb could not
answer here and the team's own entries, as Block Kit."""

from __future__ import annotations

from typing import Any

from bot.cards import HomeCard, UsageCard
from bot.i18n import READING, _, fmt_number, ngettext
from bot.render import labels
from bot.render.blocks import ACTION_HOME_LOCALE, Message, count_text, mark
from bot.render.kit import (
    MAX_BLOCKS,
    clip,
    context,
    divider,
    escape,
    header,
    mrkdwn,
    option,
    section,
)
from bot.render.modals import team_home_blocks


def _usage_blocks(usage: UsageCard) -> list[dict[str, Any]]:
    frequent, trusted = _("Most frequent errors"), _("Most trusted workarounds")
    blocks: list[dict[str, Any]] = [section(f"*{frequent}*")]
    if usage.top_entries:
        lines = [f"• *{escape(e.signature)}* `{e.id}` — "
                 + ngettext("{n} match", "{n} matches", e.hits).format(n=fmt_number(e.hits))
                 for e in usage.top_entries]
        blocks.append(section("\n".join(lines)))
    else:
        blocks.append(context(_("No errors matched yet. Paste one in a channel I'm in.")))
    blocks.append(section(f"*{trusted}*"))
    if usage.trusted:
        lines = [f"• {escape(clip(t.workaround.text, 300))}{mark(t.workaround.untranslated)}\n"
                 f"    _{escape(t.signature)}_ · {labels.people_text(t.workaround)}"
                 f" · {labels.votes_text(t.workaround)}"
                 for t in usage.trusted]
        blocks.append(section("\n".join(lines)))
    else:
        blocks.append(context(_("No votes yet. React 👍 or 👎 on a workaround I posted.")))
    return blocks


def _unknown_blocks(home: HomeCard) -> list[dict[str, Any]]:
    """"Errors errkb doesn't know yet": the masked lines only, most frequent first."""
    blocks: list[dict[str, Any]] = [section("*{}*".format(_("Errors errkb doesn't know yet")))]
    if not home.remembering:
        blocks.append(context(_("This workspace doesn't keep them. `/errkb unknown on` keeps the masked error "
                                 "line of what I could not answer (never the message).")))
    elif home.unknown:
        lines = ["• `{line}` — {times}".format(line=escape(clip(u.line, 200).replace("`", "'")),
                                               times=ngettext("{n} time", "{n} times", u.count)
                                               .format(n=fmt_number(u.count)))
                 for u in home.unknown]
        blocks.append(section("\n".join(lines)))
        blocks.append(context(_("Only the error line is kept, with names, numbers, paths and secrets masked. "
                                 "`/errkb unknown off` stops it.")))
    else:
        blocks.append(context(_("None so far: every error pasted here was one I know.")))
    return blocks


def usage_message(usage: UsageCard) -> Message:
    """``/errkb stats``."""
    title = _("errkb in this workspace")
    blocks = [section(f"*{title}*"), *_usage_blocks(usage)]
    counts = usage.totals
    locales = ", ".join(f"{code}: {fmt_number(n)}" for code, n in sorted(counts.hits_by_locale.items()))
    totals = [
        count_text(usage.entries),
        _("workaround votes: {up} up, {down} down").format(up=fmt_number(counts.votes_up),
                                                          down=fmt_number(counts.votes_down)),
        _("diagnosis right: {up}, wrong: {down}").format(up=fmt_number(counts.diagnosis_up),
                                                        down=fmt_number(counts.diagnosis_down)),
        ngettext("{n} voter", "{n} voters", counts.voters).format(n=fmt_number(counts.voters)),
    ]
    if locales:
        totals.append(_("matches by language: {counts}").format(counts=locales))
    blocks.append(context(" · ".join(totals)))
    return {"text": title, "blocks": blocks[:MAX_BLOCKS]}


def locale_name(setting: str) -> str:
    names = {"auto": _("Automatic (your Slack language)"), "en": "English", "zh": "简体中文",
             "zh-TW": "繁體中文（台灣）", "zh-HK": "繁體中文（香港）"}
    return names.get(setting, setting)


def home_view(home: HomeCard) -> dict[str, Any]:
    """The App Home tab: the user's language (changeable here), frequent errors, trusted workarounds,
    the team's own entries."""
    options = [option(locale_name(s), s) for s in ("auto", *READING)]
    chosen = next(o for o in options if o["value"] == home.setting)
    title = _("Your language")
    explained = _("Answers to your pastes and commands come in {language}.").format(language=locale_name(home.locale))
    language = {
        "type": "section",
        "text": mrkdwn(f"*{title}*\n{explained}"),
        "accessory": {"type": "static_select", "action_id": ACTION_HOME_LOCALE, "options": options,
                      "initial_option": chosen},
    }
    blocks: list[dict[str, Any]] = [
        header("errkb"),
        section(_("Paste an error in a channel I'm in and I answer in its thread, in your language.")),
        language,
        divider(),
        *_usage_blocks(home.usage),
        divider(),
        *_unknown_blocks(home),
        divider(),
        *team_home_blocks(home.team),
        divider(),
        context(_("Type `/errkb help` for every command.")),
    ]
    return {"type": "home", "blocks": blocks[:100]}
