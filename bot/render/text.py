"""Views → readable terminal text: the compact answer by default, the details on request.

Lines are wrapped to the terminal's width (Chinese characters count two columns), colour is used
only on a terminal and never when ``NO_COLOR`` is set. The reader's line and what a team wrote come
credential-masked; curated KB text is printed as written.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import IO, TYPE_CHECKING

from wcwidth import wcswidth

from bot.cards import Diagnosis, EntryCard, MatchCard, SearchResultCard, WorkaroundCard
from bot.i18n import _, fmt_number, ngettext
from bot.render import labels, summary

if TYPE_CHECKING:
    from bot.store.records import Stats

_BOLD, _DIM, _RED, _GREEN, _CYAN, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[0m"
DEFAULT_WIDTH = 100
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
# A run of spaces, one CJK character (with the punctuation that must not start a line), or a word.
_TOKEN = re.compile(rf"\s+|[{_CJK}][，。；：、！？）」』》]*|[^\s{_CJK}]+[，。；：、！？）」』》]*")


def use_color(stream: IO[str]) -> bool:
    """Colour on a terminal, unless ``NO_COLOR`` asks for none (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def terminal_width() -> int:
    return max(40, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def wrap(text: str, width: int, indent: str = "", hang: str | None = None) -> list[str]:
    """``text`` wrapped to ``width`` display columns; breaks at spaces, or between CJK characters. Spaces
    inside a line are kept as written (two spaces in a command stay two)."""
    hang = indent if hang is None else hang
    lines, line, used, fresh = [], indent, _width(indent), True
    for token in _TOKEN.findall(text):
        if token.isspace():
            if "\n" in token:
                lines.append(line.rstrip())
                line, used, fresh = hang, _width(hang), True
            elif not fresh:
                line, used = line + token, used + len(token.expandtabs(4))
            continue
        size = _width(token)
        if used + size > width and not fresh:
            lines.append(line.rstrip())
            line, used = hang, _width(hang)
        line, used, fresh = line + token, used + size, False
    lines.append(line.rstrip())
    return lines


def _width(text: str) -> int:
    size = wcswidth(text)
    return size if size >= 0 else len(text)


class _Out:
    """Collects styled, wrapped lines."""

    def __init__(self, color: bool, width: int) -> None:
        self.color, self.width = color, width
        self.lines: list[str] = []

    def style(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text

    def add(self, text: str = "", code: str = "", indent: str = "", hang: str | None = None) -> None:
        for line in wrap(text, self.width, indent, hang) if text else [""]:
            self.lines.append(self.style(line, code) if code and line.strip() else line)

    def labelled(self, label: str, text: str, code: str = _CYAN) -> None:
        """``Label: text``, the label styled, the text wrapped under it with a hanging indent."""
        head = labels.labelled(label, "")
        wrapped = wrap(labels.labelled(label, text), self.width, "", "  ")
        first = wrapped[0]
        self.lines.append(self.style(head.rstrip(), code) + first[len(head.rstrip()):] if first.startswith(head)
                          else first)
        self.lines.extend(wrapped[1:])

    def text(self) -> str:
        return "\n".join(self.lines)


def _mark(untranslated: bool) -> str:
    return f" {labels.untranslated_mark()}" if untranslated else ""


def _fix(out: _Out, entry: EntryCard, w: WorkaroundCard, number: str) -> None:
    text = w.text + _mark(w.untranslated)
    if w.condition:
        text += " " + labels.condition_text(w.condition, w.condition_untranslated)
    out.add(f"{number} {text}", indent="  ", hang=" " * (len(number) + 3))
    out.add(labels.evidence_text(w, entry.verification_tier, entry.team_author), _GREEN, indent=" " * (len(number) + 3))


def _head(out: _Out, entry: EntryCard, match: MatchCard | None, show_id: bool) -> None:
    title = labels.headline(entry, match)
    out.add(title, _BOLD, hang="  ")
    if show_id:
        if _width(out.lines[-1]) + len(entry.id) + 3 <= out.width + (len(_BOLD) + len(_RESET)) * out.color:
            out.lines[-1] += " " + out.style(f"({entry.id})", _DIM)
        else:
            out.add(f"({entry.id})", _DIM, indent="  ")
    if match is not None:
        out.add(summary.quote(match.line, match.entry.regex), _DIM, indent="  │ ")
        if said := labels.values_line(entry, match):
            out.add(said, indent="  ")


def render_answer(entry: EntryCard, match: MatchCard | None = None, color: bool = False,
                  width: int = DEFAULT_WIDTH, details: bool = False) -> str:
    """One answer: compact (headline, the reader's line, cause, best fix) or with every detail."""
    out = _Out(color, width)
    _head(out, entry, match, show_id=details)
    if not details:
        cause = summary.first_sentences(entry.root_cause) + _mark(entry.root_cause_untranslated)
        out.labelled(labels.heading("cause"), cause)
        if entry.workarounds:
            best = entry.workarounds[0]
            out.labelled(labels.heading("best_fix"), best.text + _mark(best.untranslated) + (
                " " + labels.condition_text(best.condition, best.condition_untranslated) if best.condition else ""))
            out.add(labels.evidence_text(best, entry.verification_tier, entry.team_author), _GREEN, indent="  ")
        rest = len(entry.workarounds) - 1
        hint = (ngettext("{n} other fix, what not to try and docs: add --details",
                         "{n} other fixes, what not to try and docs: add --details", rest).format(n=fmt_number(rest))
                if rest > 0 else _("What not to try and docs: add --details"))
        out.add(hint, _DIM)
        return out.text()
    out.add()
    out.add(labels.heading("cause"), _CYAN)
    out.add(entry.root_cause + _mark(entry.root_cause_untranslated), indent="  ")
    if entry.workarounds:
        out.add()
        out.add(labels.heading("workarounds"), _CYAN)
        for n, w in enumerate(entry.workarounds, 1):
            _fix(out, entry, w, f"{fmt_number(n)}.")
    if entry.dead_ends:
        out.add()
        out.add(labels.heading("dead_ends"), _CYAN)
        for d in entry.dead_ends:
            out.add("✗ " + labels.dead_end_text(d), indent="  ", hang="    ")
    out.add()
    if entry.versions:
        out.labelled(labels.heading("versions"), ", ".join(entry.versions))
    if entry.official_doc_url:
        out.labelled(labels.heading("docs"), entry.official_doc_url)
    for kind, related in entry.related.items():
        names = "; ".join(f"{summary.plain_name(r.signature)} ({r.id})" for r in related)
        out.labelled(labels.related_label(kind), names)
    out.labelled(labels.heading("trust"), labels.trust_text(entry))
    return out.text()


def render_entry(entry: EntryCard, color: bool = False, width: int = DEFAULT_WIDTH) -> str:
    """``errkb show``: an entry with every detail and its live numbers."""
    return render_answer(entry, None, color, width, details=True)


def render_diagnosis(diagnosis: Diagnosis, color: bool = False, width: int = DEFAULT_WIDTH,
                     details: bool = False) -> str:
    if not diagnosis.matches:
        return labels.heading("no_match")
    rule = "\n" + "─" * min(width, 60) + "\n"
    return rule.join(render_answer(m.entry, m, color, width, details) for m in diagnosis.matches)


def render_search(results: list[SearchResultCard], color: bool = False) -> str:
    if not results:
        return labels.heading("no_results")
    out = _Out(color, DEFAULT_WIDTH)
    return "\n".join(f"{out.style(r.id, _BOLD)}  {r.signature}" for r in results)


def render_stats(domains: dict[str, int], usage: Stats) -> str:
    """Entries per domain, then usage from the store."""
    lines = [_("{entries} entries in {domains} domains").format(
        entries=fmt_number(sum(domains.values())), domains=fmt_number(len(domains)))]
    by_size = sorted(domains.items(), key=lambda kv: (-kv[1], kv[0]))
    lines += [f"  {name:<14} {fmt_number(count)}" for name, count in by_size]
    lines += ["", _("Most matched errors")]
    lines += [f"  {fmt_number(row.hits):>6}  {row.entry_id}" for row in usage.top_entries] or ["  —"]
    lines += ["", _("Most voted workarounds")]
    lines += [f"  👍 {fmt_number(row.up):>4} 👎 {fmt_number(row.down):>4}  {row.entry_id} #{row.workaround + 1}"
              for row in usage.top_workarounds] or ["  —"]
    lines += ["", _("Matches by reader language")]
    lines += [f"  {locale:<6} {fmt_number(n)}" for locale, n in sorted(usage.hits_by_locale.items())] or ["  —"]
    lines += ["", _("Votes: {up} up, {down} down from {voters} people; diagnosis feedback: {dup} right, {ddown} wrong")
              .format(up=fmt_number(usage.votes_up), down=fmt_number(usage.votes_down), voters=fmt_number(usage.voters),
                      dup=fmt_number(usage.diagnosis_up), ddown=fmt_number(usage.diagnosis_down))]
    return "\n".join(lines)
