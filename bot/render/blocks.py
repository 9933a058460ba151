"""Views → Slack Block Kit messages, within Slack's limits.

A diagnosis is posted as one message for the diagnosis itself and one per top workaround, so each
workaround can carry its own 👍/👎 reactions. Every text taken from a paste is escaped, so it can
never form a link or a ``<!channel>`` broadcast.
"""

from __future__ import annotations

import json
from typing import Any

from bot.i18n import _, current_locale, fmt_number, ngettext
from bot.render import labels
from bot.views import EntryView, HomeView, MatchView, SearchResultView, UsageView, WorkaroundView

SECTION_LIMIT = 3000
HEADER_LIMIT = 150
BUTTON_TEXT_LIMIT = 75
MAX_BLOCKS = 50
TOP_WORKAROUNDS = 3

ACTION_VOTE_UP = "errkb_vote_up"
ACTION_VOTE_DOWN = "errkb_vote_down"
ACTION_MORE = "errkb_more_workarounds"
ACTION_TRANSLATE = "errkb_translate"
ACTION_POST = "errkb_post_entry"
ACTION_HOME_LOCALE = "errkb_home_locale"

Message = dict[str, Any]


def escape(text: str) -> str:
    """Slack mrkdwn escaping: ``& < >`` only, as Slack documents."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _section(markdown: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": _clip(markdown, SECTION_LIMIT)}}


def _context(*markdown: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": _clip(m, SECTION_LIMIT)} for m in markdown]}


def _button(text: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    button = {"type": "button", "text": {"type": "plain_text", "text": _clip(text, BUTTON_TEXT_LIMIT), "emoji": True},
              "action_id": action_id, "value": value}
    if style:
        button["style"] = style
    return button


def _mark(untranslated: bool) -> str:
    return f" _{labels.untranslated_mark()}_" if untranslated else ""


def _code(line: str) -> str:
    return "```" + escape(_clip(line.replace("```", "ʼʼʼ"), 1000)) + "```"


def vote_value(entry_id: str, index: int) -> str:
    return json.dumps({"entry": entry_id, "workaround": index}, separators=(",", ":"))


def diagnosis_message(entry: EntryView, match: MatchView | None = None, translate_button: bool = True) -> Message:
    """The diagnosis itself: signature, matched line, root cause, dead ends, versions, docs, trust."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _clip(entry.signature, HEADER_LIMIT)}},
    ]
    if match is not None:
        title = f"*{labels.heading('matched_line')}* ({labels.how_matched(match)})"
        blocks.append(_section(f"{title}\n{_code(match.line)}"))
    root_cause = escape(entry.root_cause) + _mark(entry.root_cause_untranslated)
    blocks.append(_section(f"*{labels.heading('root_cause')}*\n{root_cause}"))
    if entry.dead_ends:
        lines = [f"• ~{escape(d.text)}~{_mark(d.untranslated)} — _{labels.fail_rate_text(d.fail_rate)}_"
                 for d in entry.dead_ends]
        blocks.append(_section(f"*{labels.heading('dead_ends')}*\n" + "\n".join(lines)))
    facts = []
    if entry.versions:
        facts.append(f"*{labels.heading('versions')}:* " + escape(", ".join(entry.versions)))
    if entry.official_doc_url:
        url = entry.official_doc_url
        facts.append(f"*{labels.heading('docs')}:* <{url}|{escape(_clip(url, 80))}>")
    for kind, ids in entry.related.items():
        facts.append(f"*{labels.related_label(kind)}:* " + ", ".join(f"`{i}`" for i in ids))
    if facts:
        blocks.append(_context(*facts[:10]))
    blocks.append(_context(f"*{labels.heading('trust')}:* {labels.trust_text(entry)} · `{entry.id}`"))
    if match is not None:
        blocks.append(_context(_("Right error? React 👍 here; wrong one, 👎.")))
    if translate_button:
        other = "English" if current_locale() == "zh" else "中文"
        blocks.append({"type": "actions", "elements": [_button(other, ACTION_TRANSLATE, entry.id)]})
    return {"text": _clip(f"{entry.signature} — {entry.root_cause}", SECTION_LIMIT), "blocks": blocks[:MAX_BLOCKS]}


def workaround_message(entry: EntryView, workaround: WorkaroundView, rank: int, more: int = 0) -> Message:
    """One workaround with its live rate, the reaction hint and Worked / Didn't work buttons."""
    text = f"*{fmt_number(rank)}.* {escape(workaround.text)}{_mark(workaround.untranslated)}"
    if workaround.condition:
        text += f"\n_{labels.heading('condition')}: {escape(workaround.condition)}_"
    value = vote_value(entry.id, workaround.index)
    buttons = [
        _button("👍 " + _("Worked"), ACTION_VOTE_UP, value, "primary"),
        _button("👎 " + _("Didn't work"), ACTION_VOTE_DOWN, value),
    ]
    if more:
        label = ngettext("Show {n} more workaround", "Show {n} more workarounds", more).format(n=fmt_number(more))
        buttons.append(_button(label, ACTION_MORE, entry.id))
    blocks = [
        _section(text),
        _context(f"{labels.success_text(workaround)} · {labels.votes_text(workaround)}",
                 _("React 👍 if this worked for you, 👎 if it didn't.")),
        {"type": "actions", "elements": buttons},
    ]
    return {"text": _clip(f"{rank}. {workaround.text}", SECTION_LIMIT), "blocks": blocks}


def diagnosis_messages(match: MatchView, top: int = TOP_WORKAROUNDS) -> list[Message]:
    """Everything posted in the thread for one match: the diagnosis, then its top workarounds."""
    return answer_messages(match.entry, match, top)


def answer_messages(entry: EntryView, match: MatchView | None = None, top: int = TOP_WORKAROUNDS) -> list[Message]:
    """The diagnosis, then the top workarounds, the last with a "more" button when some are left."""
    shown = entry.workarounds[:top]
    more = len(entry.workarounds) - len(shown)
    messages = [diagnosis_message(entry, match)]
    for rank, w in enumerate(shown, 1):
        messages.append(workaround_message(entry, w, rank, more if rank == len(shown) else 0))
    return messages


def entry_messages(entry: EntryView, start: int = 0, top: int | None = None) -> list[Message]:
    """An entry shown on request (``show``, the 中文/English button): no matched line."""
    messages = [diagnosis_message(entry)]
    chosen = entry.workarounds[start : None if top is None else start + top]
    for rank, w in enumerate(chosen, start + 1):
        messages.append(workaround_message(entry, w, rank))
    return messages


def search_message(query: str, results: list[SearchResultView]) -> Message:
    """Search results, each with a button to post it to the channel."""
    if not results:
        return {"text": labels.heading("no_results"), "blocks": [_section(labels.heading("no_results"))]}
    title = _("Results for “{query}”").format(query=escape(_clip(query, 200)))
    blocks: list[dict[str, Any]] = [_section(f"*{title}*")]
    for r in results:
        blocks.append({
            "type": "section",
            "text": {"type": "mrkdwn", "text": _clip(f"*{escape(r.signature)}*\n`{r.id}`", SECTION_LIMIT)},
            "accessory": _button(_("Post to channel"), ACTION_POST, r.id),
        })
    return {"text": title, "blocks": blocks[:MAX_BLOCKS]}


def count_text(n: int) -> str:
    return ngettext("{n} entry", "{n} entries", n).format(n=fmt_number(n))


# --- short answers, help, usage and App Home -------------------------------------------------------


def notice(markdown: str) -> Message:
    """A one-section message; ``markdown`` is ours, with anything user-given already escaped."""
    return {"text": _clip(markdown, SECTION_LIMIT), "blocks": [_section(markdown)]}


def help_lines() -> list[tuple[str, str]]:
    return [
        ("/errkb search <words>", _("find entries, in English or Chinese")),
        ("/errkb show <id>", _("one entry with its live success rates")),
        ("/errkb <pasted error>", _("diagnose a paste privately")),
        ("/errkb locale en|zh|auto", _("your language (auto follows your Slack language)")),
        ("/errkb channel auto|mention|off", _("in this channel, answer every paste, only when @mentioned, or never")),
        ("/errkb channel bots on|off", _("in this channel, also answer other bots' messages")),
        ("/errkb stats", _("the most frequent errors and most trusted workarounds")),
        ("/errkb help", _("this help")),
    ]


def help_message(lead: str | None = None) -> Message:
    """Every sub-command; ``lead`` (already escaped) goes first, e.g. why help is shown."""
    intro = _("Paste an error in a channel I'm in and I answer in its thread, in your language.")
    lines = [f"• `{escape(cmd)}` — {text}" for cmd, text in help_lines()]
    votes = _("On my answers, react 👍 if a workaround worked and 👎 if it didn't (or use its buttons); "
              "on the diagnosis, 👍 means I picked the right error.")
    blocks: list[dict[str, Any]] = []
    if lead:
        blocks.append(_section(lead))
    blocks += [_section(f"*errkb* — {intro}"), _section("\n".join(lines)), _context(votes)]
    return {"text": lead or intro, "blocks": blocks}


def vote_receipt(workaround: WorkaroundView) -> Message:
    """Shown privately after a vote on a message that cannot be updated in place (an ephemeral one)."""
    text = _("Thanks, your vote is counted. This workaround now {rate} ({votes}).").format(
        rate=labels.success_text(workaround), votes=labels.votes_text(workaround))
    return notice(text)


def _usage_blocks(usage: UsageView) -> list[dict[str, Any]]:
    frequent, trusted = _("Most frequent errors"), _("Most trusted workarounds")
    blocks: list[dict[str, Any]] = [_section(f"*{frequent}*")]
    if usage.top_entries:
        lines = [f"• *{escape(e.signature)}* `{e.id}` — "
                 + ngettext("{n} match", "{n} matches", e.hits).format(n=fmt_number(e.hits))
                 for e in usage.top_entries]
        blocks.append(_section("\n".join(lines)))
    else:
        blocks.append(_context(_("No errors matched yet. Paste one in a channel I'm in.")))
    blocks.append(_section(f"*{trusted}*"))
    if usage.trusted:
        lines = [f"• {escape(_clip(t.workaround.text, 300))}{_mark(t.workaround.untranslated)}\n"
                 f"    _{escape(t.signature)}_ · {labels.success_text(t.workaround)}"
                 f" · {labels.votes_text(t.workaround)}"
                 for t in usage.trusted]
        blocks.append(_section("\n".join(lines)))
    else:
        blocks.append(_context(_("No votes yet. React 👍 or 👎 on a workaround I posted.")))
    return blocks


def usage_message(usage: UsageView) -> Message:
    """``/errkb stats``."""
    title = _("errkb in this workspace")
    blocks = [_section(f"*{title}*"), *_usage_blocks(usage)]
    locales = ", ".join(f"{code}: {fmt_number(n)}" for code, n in sorted(usage.hits_by_locale.items()))
    totals = [
        count_text(usage.entries),
        _("workaround votes: {up} up, {down} down").format(up=fmt_number(usage.votes_up),
                                                          down=fmt_number(usage.votes_down)),
        _("diagnosis right: {up}, wrong: {down}").format(up=fmt_number(usage.diagnosis_up),
                                                        down=fmt_number(usage.diagnosis_down)),
        ngettext("{n} voter", "{n} voters", usage.voters).format(n=fmt_number(usage.voters)),
    ]
    if locales:
        totals.append(_("matches by language: {counts}").format(counts=locales))
    blocks.append(_context(" · ".join(totals)))
    return {"text": title, "blocks": blocks[:MAX_BLOCKS]}


def locale_name(setting: str) -> str:
    return {"auto": _("Automatic (your Slack language)"), "en": "English", "zh": "中文"}.get(setting, setting)


def home_view(home: HomeView) -> dict[str, Any]:
    """The App Home tab: the user's language (changeable here), frequent errors, trusted workarounds."""
    options = [{"text": {"type": "plain_text", "text": locale_name(s)}, "value": s} for s in ("auto", "en", "zh")]
    chosen = next(o for o in options if o["value"] == home.setting)
    title = _("Your language")
    explained = _("Answers to your pastes and commands come in {language}.").format(language=locale_name(home.locale))
    language = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": f"*{title}*\n{explained}"},
        "accessory": {"type": "static_select", "action_id": ACTION_HOME_LOCALE, "options": options,
                      "initial_option": chosen},
    }
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "errkb"}},
        _section(_("Paste an error in a channel I'm in and I answer in its thread, in your language.")),
        language,
        {"type": "divider"},
        *_usage_blocks(home.usage),
        {"type": "divider"},
        _context(_("Type `/errkb help` for every command.")),
    ]
    return {"type": "home", "blocks": blocks[:100]}
