"""Failures found in a CI log → GitHub Actions annotations and step summary, a GitLab collapsible section,
Markdown, or JSON (texts already in the reader's locale).

Each failure is the same compact answer as ``errkb diagnose`` gives: the error in plain words, the
reader's line (masked), the cause, the best fix and its honest numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from bot.cards import MatchCard
from bot.i18n import _, fmt_number, ngettext
from bot.render import labels, summary


@dataclass(frozen=True)
class CiFailure:
    """One distinct failure of a log: its step (None outside any), its 1-based line and the match's card."""

    step: str | None
    line: int
    match: MatchCard


def _where(f: CiFailure) -> str:
    line = str(f.line)
    return _("Step {step}, line {line}").format(step=f.step, line=line) if f.step else \
        _("Line {line}").format(line=line)


def _cause(m: MatchCard) -> str:
    return summary.first_sentences(m.entry.root_cause)


def _fix(m: MatchCard) -> tuple[str, str] | None:
    """The best fix and the sentence of its numbers."""
    if not m.entry.workarounds:
        return None
    best = m.entry.workarounds[0]
    text = best.text + (" " + labels.condition_text(best.condition, best.condition_untranslated)
                        if best.condition else "")
    return text, labels.evidence_text(best, m.entry.verification_tier)


def title(f: CiFailure) -> str:
    return labels.headline(f.match.entry, f.match)


def one_line(f: CiFailure) -> str:
    """The compact answer on one line: where, cause, best fix (its numbers)."""
    parts = [_where(f), labels.labelled(labels.heading("cause"), _cause(f.match))]
    if fix := _fix(f.match):
        parts.append(labels.labelled(labels.heading("best_fix"), f"{fix[0]} ({fix[1]})"))
    return " ".join(" · ".join(parts).split())


def headline(failures: list[CiFailure]) -> str:
    if not failures:
        return _("errkb recognised no known failure in this log.")
    n = len(failures)
    return ngettext("errkb recognised {n} failure in this log", "errkb recognised {n} failures in this log",
                    n).format(n=fmt_number(n))


def markdown(failures: list[CiFailure]) -> str:
    """The summary in Markdown (GitHub's job summary, or standard output)."""
    out = [f"## {headline(failures)}", ""]
    for f in failures:
        m = f.match
        out += [f"### {title(f)}", "", f"*{_where(f)}* · `{m.entry.id}`", ""]
        quoted = summary.quote(m.line, m.entry.regex).replace("`", "'")
        out += [f"> `{quoted}`", ""]
        out.append(f"**{labels.heading('cause')}:** {_cause(m)}  ")
        if fix := _fix(m):
            out.append(f"**{labels.heading('best_fix')}:** {fix[0]}  ")
            out.append(f"_{fix[1]}_  ")
        if m.entry.official_doc_url:
            out.append(f"**{labels.heading('docs')}:** {m.entry.official_doc_url}  ")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(failures: list[CiFailure]) -> str:
    """One ``::error`` workflow command per failure."""
    return "".join(f"::error title={_escape_property(title(f))},line={f.line}::{_escape_data(one_line(f))}\n"
                   for f in failures)


def gitlab(failures: list[CiFailure], now: float | None = None) -> str:
    """The summary as a GitLab collapsible section (collapsed), opened by its headline."""
    stamp = int(time.time() if now is None else now)
    body = [f"{title(f)}: {one_line(f)}" for f in failures]
    return (f"\x1b[0Ksection_start:{stamp}:errkb[collapsed=true]\r\x1b[0K{headline(failures)}\n"
            + "".join(line + "\n" for line in body)
            + f"\x1b[0Ksection_end:{stamp}:errkb\r\x1b[0K\n")


def json_report(failures: list[CiFailure], locale: str) -> dict[str, Any]:
    items = []
    for f in failures:
        entry = f.match.entry
        best = entry.workarounds[0] if entry.workarounds else None
        items.append({
            "step": f.step, "line": f.line, "id": entry.id, "signature": entry.signature,
            "root_cause": entry.root_cause, "best_fix": best.text if best else None,
            "success_rate": (round(best.success_rate, 4)
                             if best and labels.rate_basis(best) != "unrated" else None),
            "docs": entry.official_doc_url,
        })
    return {"locale": locale, "failures": items}
