"""Views → Slack Block Kit messages, within Slack's limits.

An answer is one compact message (:func:`answer_message`): the error in plain words with the
reader's own line, the cause in a sentence or two, the best fix with where its number comes from,
and buttons for the rest. 👍/👎 on it vote for the fix it shows. *Other fixes* become one reactable
message each (:func:`fix_message`); *Why / what not to try* is shown to whoever asked
(:func:`details_message`). Every text taken from a paste is escaped, so it can never form a link
or a ``<!channel>`` broadcast. What a reader or a team wrote comes masked (``bot.service.knowledge``);
curated KB text is shown as written.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from bot.cards import (
    DeadEndCard,
    EntryCard,
    MatchCard,
    RelatedCard,
    SearchResultCard,
    WorkaroundCard,
)
from bot.i18n import _, current_locale, fmt_number, fmt_percent, ngettext, reading_locale
from bot.kb.mask import mask
from bot.kb.team_entry import is_team_id
from bot.render import labels, summary
from bot.render.kit import (
    BUTTON_TEXT_LIMIT,
    MAX_BLOCKS,
    SECTION_LIMIT,
    actions,
    button,
    clip,
    context,
    escape,
    link,
    option,
    overflow,
    section,
)
from bot.render.site_links import entry_url

ACTION_VOTE_UP = "errkb_vote_up"
ACTION_VOTE_DOWN = "errkb_vote_down"
ACTION_TRANSLATE = "errkb_translate"
ACTION_POST = "errkb_post_entry"
ACTION_HOME_LOCALE = "errkb_home_locale"
ACTION_OTHER_FIXES = "errkb_other_fixes"
ACTION_DETAILS = "errkb_details"
ACTION_OVERFLOW = "errkb_answer_menu"  # its options: OPTION_WRONG_ERROR, OPTION_SUGGEST_FIX
ACTION_SHOW = "errkb_show_entry"
ACTION_TEACH = "errkb_teach"  # *Add to errkb* on an unknown error: opens the modal (bot.render.modals)
ACTION_SUGGEST_FIX = "errkb_suggest_fix"  # on a fix message; the answer has it in its ⋮ menu
ACTION_TRANSLATE_FIX = "errkb_translate_fix"  # on a suggested fix shown untranslated
ACTION_REVIEW_FIX = "errkb_review_fix"  # a suggested fix's ⋮ menu: verify or retire it (reviewers only)
REVIEW_FIX = ("verify", "retire")
OPTION_WRONG_ERROR = "wrong_error"
OPTION_SUGGEST_FIX = "suggest_fix"
RELATED_SHOWN = 3  # related errors in *Why / what not to try*, by title
DETAILS_WORDS = 140  # what *Why / what not to try* aims to stay within
DETAILS_DEAD_ENDS = 3
DETAILS_VERSIONS = 4
DETAILS_MIN_LINE = 18  # a dead end shown gets at least this many words, however little is left

Message = dict[str, Any]


def mark(untranslated: bool) -> str:
    return f" _{labels.untranslated_mark()}_" if untranslated else ""


def _inline_code(text: str) -> str:
    return "`" + escape(text.replace("`", "ʼ")) + "`"


def vote_value(entry_id: str, index: int) -> str:
    return json.dumps({"entry": entry_id, "workaround": index}, separators=(",", ":"))


def vote_target(value: str) -> tuple[str, int] | None:
    """``(entry, workaround)`` from a vote button's value (``vote_value``); None when it is not one."""
    try:
        data = json.loads(value)
        return str(data["entry"]), int(data["workaround"])
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def menu_value(entry_id: str, option: str) -> str:
    """An overflow option's value: what was chosen, about which entry (within Slack's 150 chars)."""
    return json.dumps({"entry": entry_id, "option": option}, separators=(",", ":"))[:150]


def _message(fallback: str, blocks: list[dict[str, Any]]) -> Message:
    """A message; its fallback ``text`` (notifications, screen readers) is mrkdwn like the blocks, so
    callers escape what goes in it: a team's or a reader's ``<!channel>`` never pings anyone."""
    return {"text": clip(fallback, SECTION_LIMIT), "blocks": blocks[:MAX_BLOCKS]}


def answer_value(entry_id: str, match: MatchCard | None = None) -> str:
    """What the language button carries: the entry and the reader's quoted line (already masked),
    so the answer in the other language quotes it too, whichever process gets the click."""
    data: dict[str, Any] = {"entry": entry_id}
    if match is not None:
        data["line"] = summary.quote(match.line, match.entry.regex)
        if match.how != "regex":
            data["score"] = round(match.score, 3)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _other_language_button(entry_id: str, match: MatchCard | None) -> dict[str, Any]:
    other = "English" if current_locale() == "zh" else "中文"
    return button(other, ACTION_TRANSLATE, answer_value(entry_id, match))


def _fix_text(workaround: WorkaroundCard) -> str:
    text = escape(workaround.text) + mark(workaround.untranslated)
    if workaround.condition:
        text += " _" + escape(labels.condition_text(workaround.condition, workaround.condition_untranslated)) + "_"
    return text


def _vote_buttons(entry: EntryCard, workaround: WorkaroundCard) -> list[dict[str, Any]]:
    value = vote_value(entry.id, workaround.index)
    return [button("👍 " + _("Worked"), ACTION_VOTE_UP, value, "primary"),
            button("👎 " + _("Didn't work"), ACTION_VOTE_DOWN, value)]


def seen_text(count: int, window: float) -> str:
    """How often other bots alerted about the error in this channel within the window (seconds)."""
    n = fmt_number(count)
    if round(window) == 86400:
        return ngettext("Seen {n} time in this channel today", "Seen {n} times in this channel today",
                        count).format(n=n)
    return ngettext("Seen {n} time in this channel in the last {hours} h",
                    "Seen {n} times in this channel in the last {hours} h", count).format(
        n=n, hours=fmt_number(window / 3600))


def answer_message(entry: EntryCard, match: MatchCard | None = None, private: bool = False,
                   other_language: bool = True, shown: WorkaroundCard | None = None, seen: int = 0,
                   window: float = 86400.0) -> Message:
    """The one compact answer: headline with the reader's line, cause, best fix, buttons.

    ``private`` (an ephemeral answer) carries no reaction prompt, since Slack allows no reactions
    there; its buttons vote. ``other_language`` False leaves out the language button (an answer
    already shown in the other language offers it once, not again). ``shown`` is the fix the
    message votes for (default: the best ranked now; an update keeps the one first posted). ``seen`` over 1
    is how often other bots alerted about this error in the channel within ``window`` seconds.
    """
    name = labels.headline(entry, match)
    lines = [f"*{escape(name)}*"]
    if match is not None:
        lines.append("> " + _inline_code(summary.quote(match.line, match.entry.regex)))
        if said := labels.values_line(entry, match):
            lines.append("_" + escape(said) + "_")
    cause = escape(summary.first_sentences(entry.root_cause)) + mark(entry.root_cause_untranslated)
    lines.append(labels.labelled(f"*{labels.heading('cause')}*", cause))
    blocks: list[dict[str, Any]] = [section("\n".join(lines))]
    if seen > 1:
        blocks.append(context(escape(seen_text(seen, window))))
    best = shown or (entry.workarounds[0] if entry.workarounds else None)
    if best is not None:
        blocks.append(section(labels.labelled(f"*{labels.heading('best_fix')}*", _fix_text(best))))
        blocks.append(context(labels.evidence_text(best, entry.verification_tier, entry.team_author)))
    blocks += _team_context(entry)
    buttons = _vote_buttons(entry, best) if best is not None else []
    if len(entry.workarounds) > 1:
        buttons.append(button(labels.more_fixes_label(len(entry.workarounds) - 1), ACTION_OTHER_FIXES, entry.id))
    buttons.append(button(_("Why / what not to try"), ACTION_DETAILS, entry.id))
    if other_language:
        buttons.append(_other_language_button(entry.id, match))
    buttons.append(overflow(ACTION_OVERFLOW, [
        option(clip(text, BUTTON_TEXT_LIMIT), menu_value(entry.id, choice))
        for text, choice in ((_("Wrong error? Tell us"), OPTION_WRONG_ERROR), (_("Suggest a fix"), OPTION_SUGGEST_FIX))
    ]))
    blocks.append(actions(*buttons))
    if best is not None and not private:
        blocks.append(context(_("👍 or 👎 on this message votes for this fix.")))
    fallback = f"{name} — {best.text}" if best is not None else name
    return _message(escape(fallback), blocks)


def fix_message(entry: EntryCard, workaround: WorkaroundCard, rank: int, private: bool = False) -> Message:
    """One of the other fixes, numbered after the first, with its evidence and vote buttons."""
    blocks = [
        section(f"*{fmt_number(rank)}.* {_fix_text(workaround)}"),
        context(labels.evidence_text(workaround, entry.verification_tier, entry.team_author)),
        actions(
            *_vote_buttons(entry, workaround), button(_("Suggest a fix"), ACTION_SUGGEST_FIX, entry.id),
            *([button(_("Translate this fix"), ACTION_TRANSLATE_FIX, vote_value(entry.id, workaround.index))]
              if workaround.author is not None and workaround.untranslated else []),
            *([_review_menu(entry.id, workaround)] if workaround.author is not None else [])),
    ]
    if not private:
        blocks.append(context(_("👍 or 👎 on this message votes for this fix.")))
    return _message(escape(f"{rank}. {workaround.text}"), blocks)


def review_value(entry_id: str, index: int, do: str) -> str:
    return json.dumps({"entry": entry_id, "workaround": index, "do": do}, separators=(",", ":"))


def review_choice(value: str) -> tuple[str, int, str] | None:
    """``(entry, workaround, verify|retire)`` from a review option's value; None when it is not one."""
    target = vote_target(value)
    try:
        do = json.loads(value)["do"]
    except (ValueError, TypeError, KeyError):
        return None
    return (*target, do) if target is not None and do in REVIEW_FIX else None


def _review_menu(entry_id: str, workaround: WorkaroundCard) -> dict[str, Any]:
    """A suggested fix's ⋮ menu for reviewers (anyone else who picks an option is told why not)."""
    labels_ = {"verify": _("Mark verified (reviewers)"), "retire": _("Retire this fix (reviewers)")}
    return overflow(ACTION_REVIEW_FIX, [
        option(labels_[do][:BUTTON_TEXT_LIMIT], review_value(entry_id, workaround.index, do))
        for do in REVIEW_FIX if not (do == "verify" and workaround.verified)])


def other_fix_messages(entry: EntryCard, private: bool = False) -> list[tuple[Message, int]]:
    """Every fix after the first, ranked, each with the workaround index it votes for."""
    return [(fix_message(entry, w, rank, private), w.index) for rank, w in enumerate(entry.workarounds[1:], 2)]


def details_message(entry: EntryCard, site_url: str | None = None) -> Message:
    """*Why / what not to try*, in one glance: the cause, each dead end on one line ("Tried X → fails
    because Y (fails ~N%)"), the versions on one line, the docs link, who stands behind it, and at most
    :data:`RELATED_SHOWN` related errors by title. Long texts are cut to their first sentences, so the
    whole view stays within about :data:`DETAILS_WORDS` words (a Chinese character counting half a word)."""
    name = summary.plain_name(entry.signature)
    cause = summary.first_sentences(entry.root_cause, 2, 240)
    head = f"*{escape(name)}*\n" + labels.labelled(f"*{labels.heading('cause')}*", escape(cause)
                                                     + mark(entry.root_cause_untranslated))
    facts = []
    if entry.versions:
        shown = entry.versions[:DETAILS_VERSIONS]
        more = "…" if len(entry.versions) > len(shown) else ""
        facts.append(labels.labelled(f"*{labels.heading('versions')}*", escape(", ".join(shown)) + more))
    if entry.official_doc_url:
        facts.append(labels.labelled(f"*{labels.heading('docs')}*", link(entry.official_doc_url)))
    facts.append(labels.labelled(f"*{labels.heading('trust')}*", labels.trust_text(entry)))
    seen: dict[str, RelatedCard] = {}
    kinds = [entry.related.get(k, []) for k in dict.fromkeys(("leads_to", "preceded_by", "frequently_confused_with",
                                                                *entry.related))]
    for rank in range(max(map(len, kinds), default=0)):  # the first of each kind, then the second…
        for related in kinds:
            if rank < len(related):
                seen.setdefault(related[rank].id, related[rank])
    titles = [(summary.plain_name(r.signature), r.id) for r in list(seen.values())[:RELATED_SHOWN]]
    shown_text = [*facts, *([labels.heading("related")] if titles else []), *(t for t, _id in titles)]
    tail: list[dict[str, Any]] = [*([context(" · ".join(facts[:-1]))] if len(facts) > 1 else []), context(facts[-1])]
    if titles:
        tail += [context(f"*{labels.heading('related')}*"),
                 actions(*(button(title, ACTION_SHOW, entry_id) for title, entry_id in titles))]
    if site_url and not is_team_id(entry.id):  # the entry's page on errkb's website, in the reader's language
        tail.append(context(labels.labelled(f"*{_('On the web')}*",
                                            link(entry_url(site_url, reading_locale(), entry.id), 200))))
    budget = DETAILS_WORDS - _words(head) - sum(_words(t) for t in shown_text)
    lines: list[str] = []
    for d in entry.dead_ends[:DETAILS_DEAD_ENDS]:
        line = _dead_end_line(d, max(budget, DETAILS_MIN_LINE))
        if lines and _words(line) > budget:
            break
        lines.append(line)
        budget -= _words(line)
    blocks: list[dict[str, Any]] = [section(head)]
    if lines:
        blocks.append(section(f"*{labels.heading('dead_ends')}*\n" + "\n".join(lines)))
    return _message(escape(f"{name} — {cause}"), blocks + tail)


def _words(text: str) -> int:
    """Words a reader sees, about (a Chinese character counts half a word, as two make a word on average)."""
    return len(re.findall(r"[A-Za-z0-9_.%'’/=<>-]+", text)) + len(re.findall(r"[\u4e00-\u9fff]", text)) // 2


def _dead_end_line(dead_end: DeadEndCard, budget: int) -> str:
    """One dead end on one line, its why cut to its first sentence, and shorter still to fit ``budget`` words."""
    why = summary.first_sentences(dead_end.why, 1, 140) if dead_end.why else ""
    short = dataclasses.replace(dead_end, why=why, action=summary.clip(dead_end.action, 90),
                                text=summary.first_sentences(dead_end.text, 1, 160))
    line = f"• {escape(labels.dead_end_text(short))}"
    if _words(line) > budget and short.why:
        line = f"• {escape(labels.dead_end_text(dataclasses.replace(short, why=summary.clip(why, 70))))}"
    return line


def search_message(query: str, results: list[SearchResultCard]) -> Message:
    """Search results, each with a button to post it to the channel."""
    if not results:
        return {"text": labels.heading("no_results"), "blocks": [section(labels.heading("no_results"))]}
    title = _("Results for “{query}”").format(query=escape(clip(mask(query), 200)))  # the reader's words
    blocks: list[dict[str, Any]] = [section(f"*{title}*")]
    for r in results:
        blocks.append({**section(f"*{escape(r.signature)}*\n`{r.id}`"),
                       "accessory": button(_("Post to channel"), ACTION_POST, r.id)})
    return _message(title, blocks)


def count_text(n: int) -> str:
    return ngettext("{n} entry", "{n} entries", n).format(n=fmt_number(n))


# --- short answers, help, usage and App Home -------------------------------------------------------


def notice(markdown: str) -> Message:
    """A one-section message; ``markdown`` is ours, with anything user-given already escaped (and masked
    here: a notice may echo what a member typed)."""
    markdown = mask(markdown)
    return _message(markdown, [section(markdown)])


def help_lines() -> list[tuple[str, str]]:
    return [
        ("/errkb search <words>", _("find entries, in English or Chinese")),
        ("/errkb show <id>", _("one entry with its live success rates")),
        ("/errkb <pasted error>", _("diagnose a paste privately")),
        ("/errkb locale en|zh|zh-TW|zh-HK|auto", _("your language (auto follows your Slack language)")),
        ("/errkb channel auto|mention|off", _("in this channel, answer every paste, only when @mentioned, or never "
                                              "(its creator, workspace admins and reviewers)")),
        ("/errkb channel bots on|off", _("in this channel, also answer other bots' messages (its creator, workspace "
                                         "admins and reviewers)")),
        ("/errkb stats", _("the most frequent errors and most trusted workarounds")),
        ("/errkb unknown on|off", _("keep (or not) the masked error line of what I could not answer here "
                                     "(workspace admins and reviewers)")),
        ("/errkb help", _("this help")),
    ]


def help_message(lead: str | None = None) -> Message:
    """Every sub-command; ``lead`` (already escaped) goes first, e.g. why help is shown."""
    intro = _("Paste an error in a channel I'm in and I answer in its thread, in your language.")
    lines = [f"• `{escape(cmd)}` — {text}" for cmd, text in help_lines()]
    votes = _("On an answer, 👍 or 👎 votes for the fix it shows: it worked for you, or it didn't (its *Worked* "
              "and *Didn't work* buttons do the same). If I named the wrong error, pick *Wrong error? Tell us* "
              "in its ⋮ menu.")
    blocks: list[dict[str, Any]] = []
    lead = mask(lead) if lead else lead  # it may echo what a member typed
    if lead:
        blocks.append(section(lead))
    blocks += [section(f"*errkb* — {intro}"), section("\n".join(lines)), context(votes)]
    return _message(lead or intro, blocks)


def vote_receipt(workaround: WorkaroundCard) -> Message:
    """Shown privately after a vote on a message that cannot be updated in place (an ephemeral one)."""
    text = _("Thanks, your vote is counted: {people}, {rate} in all.").format(
        people=labels.people_text(workaround), rate=fmt_percent(workaround.success_rate))
    return notice(text)


def unknown_message(line: str, error_type: str | None, frame: str | None) -> Message:
    """A private answer for an error errkb does not know: what it could still tell (the line is masked),
    and *Add to errkb*, which carries the masked line to the modal."""
    parts = [_("I don't know this error yet. What I can tell:"),
             "• {} `{}`".format(_("Error line:"), escape(clip(line, 300).replace("`", "'")))]
    if error_type:
        parts.append("• {} `{}`".format(_("Error type:"), escape(error_type)))
    if frame:
        parts.append("• {} `{}`".format(_("Deepest frame in your code:"), escape(clip(frame, 200))))
    value = json.dumps({"line": clip(line, 300)}, ensure_ascii=False, separators=(",", ":"))
    return _message(parts[0], [
        section("\n".join(parts)),
        actions(button(_("Add to errkb"), ACTION_TEACH, value, "primary")),
        context(_("Know the fix? Teach it to errkb: the next paste of this error here gets your answer.")),
    ])


def _team_context(entry: EntryCard) -> list[dict[str, Any]]:
    """Who wrote a team entry, and who reviewed it or that nobody has yet."""
    text = labels.authorship_text(entry)
    return [context(text[:1].upper() + text[1:])] if text else []
