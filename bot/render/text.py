"""Views → readable terminal text (colour only when the output is a terminal)."""

from __future__ import annotations

from bot.i18n import _, fmt_number
from bot.render import labels
from bot.views import Diagnosis, EntryView, MatchView, SearchResultView

_BOLD, _DIM, _RED, _GREEN, _CYAN, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[0m"


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text


def _mark(untranslated: bool) -> str:
    return f" {labels.untranslated_mark()}" if untranslated else ""


def render_entry(entry: EntryView, color: bool = False, match: MatchView | None = None) -> str:
    s = _Style(color)
    out = [s(entry.signature, _BOLD) + _mark(entry.signature_untranslated), s(entry.id, _DIM)]
    if match is not None:
        out += ["", s(labels.heading("matched_line"), _CYAN) + f" ({labels.how_matched(match)})", f"  {match.line}"]
    out += ["", s(labels.heading("root_cause"), _CYAN), f"  {entry.root_cause}{_mark(entry.root_cause_untranslated)}"]
    if entry.dead_ends:
        out += ["", s(labels.heading("dead_ends"), _CYAN)]
        for d in entry.dead_ends:
            out.append(f"  ✗ {d.text}{_mark(d.untranslated)} " + s(f"({labels.fail_rate_text(d.fail_rate)})", _RED))
    if entry.workarounds:
        out += ["", s(labels.heading("workarounds"), _CYAN)]
        for n, w in enumerate(entry.workarounds, 1):
            out.append(f"  {fmt_number(n)}. {w.text}{_mark(w.untranslated)}")
            if w.condition:
                out.append(f"     {labels.heading('condition')}: {w.condition}")
            out.append("     " + s(f"{labels.success_text(w)} · {labels.votes_text(w)}", _GREEN))
    if entry.versions:
        out += ["", s(labels.heading("versions"), _CYAN) + ": " + ", ".join(entry.versions)]
    if entry.official_doc_url:
        out.append(s(labels.heading("docs"), _CYAN) + ": " + entry.official_doc_url)
    for kind, ids in entry.related.items():
        out.append(s(labels.related_label(kind), _CYAN) + ": " + ", ".join(ids))
    out.append(s(labels.heading("trust"), _CYAN) + ": " + labels.trust_text(entry))
    return "\n".join(out)


def render_diagnosis(diagnosis: Diagnosis, color: bool = False) -> str:
    if not diagnosis.matches:
        return labels.heading("no_match")
    rule = "\n" + "─" * 60 + "\n"
    return rule.join(render_entry(m.entry, color, m) for m in diagnosis.matches)


def render_search(results: list[SearchResultView], color: bool = False) -> str:
    if not results:
        return labels.heading("no_results")
    s = _Style(color)
    return "\n".join(f"{s(r.id, _BOLD)}  {r.signature}" for r in results)


def render_stats(domains: dict[str, int], usage) -> str:
    """Entries per domain, then usage from the store (a ``bot.store.views.Stats``)."""
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
