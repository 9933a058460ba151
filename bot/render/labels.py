"""Interface words shared by every renderer, each through the gettext catalog."""

from __future__ import annotations

import re

from bot.cards import DeadEndCard, EntryCard, MatchCard, WorkaroundCard
from bot.i18n import _, fmt_date, fmt_number, fmt_percent, ngettext
from bot.render.summary import plain_name, reader_name, values


def tier_label(tier: str) -> str:
    """Who stands behind a KB entry, as it is: its ``verification_tier`` (a team entry says who wrote it
    instead: :func:`authorship_text`)."""
    names = {
        "ai_generated": _("drafted with AI by errkb's authors"),
        "human_reviewed": _("checked by errkb's authors"),
        "community_verified": _("confirmed by users"),
        "expert_verified": _("checked by an expert"),
    }
    return names.get(tier, tier)


def resolvable_label(value: str) -> str:
    return {"true": _("fixable"), "partial": _("partly fixable"), "false": _("no known fix")}.get(value, value)


def untranslated_mark() -> str:
    return _("(untranslated)")


def source_label(tier: str) -> str:
    """Who estimated a rate before any vote here, in a word or two."""
    names = {
        "ai_generated": _("AI-drafted"),
        "human_reviewed": _("maintainer-reviewed"),
        "community_verified": _("community-verified"),
        "expert_verified": _("expert-verified"),
    }
    return names.get(tier, tier)


def fail_rate_text(rate: float) -> str:
    return _("fails ~{rate}").format(rate=fmt_percent(rate))


def rate_basis(w: WorkaroundCard) -> str:
    """Where a workaround's rate comes from: ``estimate`` (the KB's authors), ``votes``, both, or
    ``unrated`` (no estimate and no votes yet)."""
    if not w.votes:
        return "estimate" if w.prior is not None else "unrated"
    return "votes" if w.prior is None else "estimate_and_votes"


def success_text(w: WorkaroundCard, tier: str = "ai_generated", team_author: str | None = None) -> str:
    """The rate and where it comes from: the authors' estimate, votes here, or both; for a fix a teammate
    suggested, who did and the votes it has here; for a fix of a team entry (``team_author``: who wrote
    it), who wrote it and its votes, never an estimate nobody made. A fix with neither says so."""
    if w.author is not None:
        said = (_("suggested by {author}, no votes yet") if not w.votes else
                _("suggested by {author}; {people}")).format(author=author_mention(w.author), people=people_text(w))
        return said + (" · " + _("verified by a reviewer") if w.verified else "")
    if team_author is not None:
        return (_("written by {author}, no votes yet") if not w.votes else
                _("written by {author}; {people}")).format(author=author_mention(team_author), people=people_text(w))
    if w.prior is None:
        return people_text(w) if w.votes else _("not rated yet: no estimate and no votes here")
    if not w.votes:
        return _("estimated ~{rate} ({source}), no votes here yet").format(rate=fmt_percent(w.prior),
                                                                          source=source_label(tier))
    return _("{people}; {rate} with the {source} estimate of {prior}").format(
        people=people_text(w), rate=fmt_percent(w.success_rate), source=source_label(tier),
        prior=fmt_percent(w.prior))


def fit_text(w: WorkaroundCard) -> str | None:
    """What the reader's paste says of the fix's condition, when it says anything."""
    if w.fit == 2:
        return _("your paste fits its condition")
    if w.fit == 0:
        return _("listed last: your paste does not fit its condition")
    return None


def evidence_text(w: WorkaroundCard, tier: str = "ai_generated", team_author: str | None = None) -> str:
    """The fix's numbers and where they come from, then what the paste says of its condition."""
    said = success_text(w, tier, team_author)
    return said + (" · " + fitted if (fitted := fit_text(w)) else "")


def author_mention(user: str) -> str:
    """A Slack user mention of a stored author id (anything else is shown as typed, never as markup)."""
    return f"<@{user}>" if re.fullmatch(r"[UW][A-Z0-9_]{1,30}", user) else user.replace("<", "‹").replace(">", "›")


def people_text(w: WorkaroundCard) -> str:
    """Team votes only: "worked for 7 of 9 people here"."""
    return ngettext("worked for {up} of {n} person here", "worked for {up} of {n} people here", w.votes).format(
        up=fmt_number(w.votes_up), n=fmt_number(w.votes))


def dead_end_text(d: DeadEndCard) -> str:
    """"Tried: X → fails because Y (fails ~90%)"; just the reason when the KB names no action."""
    rate = fail_rate_text(d.fail_rate)
    condition = " " + condition_text(d.condition, d.condition_untranslated) if d.condition else ""
    if d.action and d.why:
        line = _("Tried: {action} → fails because {why} ({rate})").format(
            action=d.action.rstrip(" .。") + condition, why=_lower_first(d.why.rstrip(" .。")), rate=rate)
    else:
        line = _("{why} ({rate})").format(why=(d.why or d.text).rstrip(" .。") + condition, rate=rate)
    return line + (f" {untranslated_mark()}" if d.untranslated else "")


def condition_text(condition: str, untranslated: bool = False) -> str:
    mark = f" {untranslated_mark()}" if untranslated else ""
    return _("(when: {condition})").format(condition=condition + mark)


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def headline(entry: EntryCard, match: MatchCard | None = None) -> str:
    """The error in plain words, never with the KB example's values over a reader's paste
    (:func:`reader_name`); a fallback ("fuzzy") match says it only looks like the KB's error."""
    if match is None:
        return plain_name(entry.signature)
    if match.how == "fuzzy":
        return _("Looks like {name} ({score} similar)").format(name=plain_name(entry.signature, values=False),
                                                               score=fmt_percent(match.score))
    if entry.team_author is not None:  # a team entry's title is the name its author gave, not an example
        return plain_name(entry.signature)
    return reader_name(entry.signature, match.line, entry.regex)


def values_line(entry: EntryCard, match: MatchCard | None) -> str | None:
    """What the reader's own values say, from the entry's ``values_text`` (the first of its sentences whose
    every ``{name}`` the regex captured in the reader's line), e.g. "Your job asked for 1.50 GiB with
    812.00 MiB free on the GPU."; None when the entry has none or the line lacks its values."""
    if match is None or not entry.values_text:
        return None
    found = values(match.line, entry.regex)
    for template in entry.values_text:
        try:
            return template.format_map(found)
        except (KeyError, IndexError, ValueError):
            continue
    return None


def labelled(label: str, text: str) -> str:
    """``Label: text`` with the locale's punctuation (``原因：…`` in Chinese)."""
    return _("{label}: {text}").format(label=label, text=text)


def more_fixes_label(n: int) -> str:
    return ngettext("Other fix ({n})", "Other fixes ({n})", n).format(n=fmt_number(n))


def votes_text(w: WorkaroundCard) -> str:
    up = ngettext("{n} vote up", "{n} votes up", w.votes_up).format(n=fmt_number(w.votes_up))
    down = ngettext("{n} vote down", "{n} votes down", w.votes_down).format(n=fmt_number(w.votes_down))
    return f"{up} · {down}"


def voters_text(entry: EntryCard) -> str:
    if not entry.voters:
        return _("no votes here yet")
    return ngettext("{n} person voted here", "{n} people voted here", entry.voters).format(n=fmt_number(entry.voters))


def authorship_text(entry: EntryCard) -> str | None:
    """Who wrote a team entry and whether a reviewer checked it (None: a KB entry, see :func:`tier_label`)."""
    if not entry.team_author:
        return None
    author = author_mention(entry.team_author)
    if entry.team_reviewer:
        return _("written by {author} in this workspace, reviewed by {reviewer}").format(
            author=author, reviewer=author_mention(entry.team_reviewer))
    if entry.verification_tier == "expert_verified":  # verified, by a reviewer no longer on record
        return _("written by {author} in this workspace, reviewed by a reviewer").format(author=author)
    return _("written by {author} in this workspace, not reviewed yet").format(author=author)


def trust_text(entry: EntryCard) -> str:
    """Who stands behind the entry, its confidence, votes here, whether it is fixable; mrkdwn (a team
    entry's author is a mention), everything else ours."""
    parts = [
        authorship_text(entry) or tier_label(entry.verification_tier),
        _("confidence {rate}").format(rate=fmt_percent(entry.confidence)),
        voters_text(entry),
        resolvable_label(entry.resolvable),
    ]
    if entry.last_confirmed:
        parts.append(_("last confirmed {date}").format(date=fmt_date(entry.last_confirmed)))
    return " · ".join(parts)


def related_label(kind: str) -> str:
    return {
        "leads_to": _("Often leads to"),
        "preceded_by": _("Often preceded by"),
        "frequently_confused_with": _("Often confused with"),
    }.get(kind, kind)


def heading(name: str) -> str:
    return {
        "root_cause": _("Root cause"),
        "dead_ends": _("What not to try"),
        "workarounds": _("Fixes, best first"),
        "cause": _("Cause"),
        "best_fix": _("Try first"),
        "other_fixes": _("Other fixes"),
        "related": _("Related errors"),
        "versions": _("Applies to"),
        "docs": _("Docs"),
        "trust": _("Trust"),
        "matched_line": _("Matched line"),
        "no_match": _("No known error found in the input."),
        "no_results": _("Nothing in the knowledge base matches that search."),
        "condition": _("When"),
    }[name]


def not_here() -> str:
    """The answer to a click or a form naming an entry or fix this workspace does not have: another workspace's,
    retired, or made up. The same words whichever it is, so it tells nothing about other workspaces."""
    return _("That entry or fix isn't available in this workspace (it may have been retired).")
