"""Order the regex hits of one paste so the error that was finally raised comes first.

Four signals, in this order:

1. **Severity.** An error beats any warning or informational line. A hit counts as a warning when
   its entry says so (``"severity": "warning"``), when it lies inside a warning entry's hit, or
   when its line is logged at warning/info level before the matched text (``W tensorflow/…] …``,
   ``WARNING: …``, ``…: UserWarning: …``) — such an error message still beats the KB's declared
   warnings unless one of them is on the lines right next to it (then it is part of that warning).
2. **Stack frames.** A hit inside a traceback frame loses to one on a raised-error line.
3. **The decisive incident.** Hits close together (a few lines apart, in one traceback or one
   build step) form one incident; the last incident of the paste is what stopped it, so it beats
   earlier ones (a retried failure, an unrelated traceback further up the log).
4. **Specificity, then cause.** Within an incident a regex hit beats a fallback answer, an entry
   whose versions fit what the paste shows there beats one they rule out, the longer hit (a more
   specific regex) wins,
   and an entry the KB declares as the cause of another (``leads_to`` / ``preceded_by``) beats
   that consequence wherever it appears, so a build's real error beats the wrapper line
   ("did not complete successfully") that reports it. A hit that only reports an earlier failure (the
   caller says which) never leads while another regex hit of its incident, as severe, names a cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from bot.kb.versions import Constraint, applies, revealed_versions

SEVERITY_RANK = {"error": 2.0, "warning": 1.0, "info": 0.0}
# An error message on a line logged at warning level: below errors, above the KB's declared
# warnings, unless a declared warning right next to it (within NEARBY_LINES) is what it belongs to.
LOGGED_AS_WARNING = 1.5
NEARBY_LINES = 2
# Hits more than this many lines apart belong to different incidents.
INCIDENT_GAP = 12

# A warning/info log level in front of the text on a line (after any timestamp).
_WARNING_LEVEL = re.compile(
    r"""(?:^|[\s\]|:])(?:
        [WI]\d{4}\ \d{2}:\d{2}:\d{2}          # glog: W1203 10:00:00.123 …
      | [WI]\ (?=\S+\.\w+:\d+\])             # TensorFlow: W tensorflow/…/x.cc:38]
      | (?:WARNING|WARN|INFO|NOTICE|DEBUG|TRACE)(?:\[\d+\])?(?=[:\]\s])   # WARNING: / WARN[0000] / [INFO]
      | level=(?:warn|warning|info|debug|trace)\b
      | [A-Z]\w*Warning:                     # Python warnings: UserWarning: …
    )""",
    re.VERBOSE | re.MULTILINE,  # searched from a line's start: ``^`` must match there, not only at the text's
)
_QUIET_LEVEL = re.compile(
    r"(?:^|[\s\]|:])(?:(?:INFO|DEBUG|TRACE)(?=[:\]\s])"
    r"|level=(?:info|debug|trace)\b)",
    re.MULTILINE,
)
# Where a new, separate Python or Java failure begins.
_NEW_TRACEBACK = re.compile(r"^(?:\S.*?)?(?:Traceback \(most recent call last\):|Exception in thread )", re.M)
_CHAINED = re.compile(r"(?:During handling of the above exception|The above exception was the direct cause)")


@dataclass(frozen=True)
class Hit:
    """One entry's best occurrence in the plain text of a paste."""

    entry_id: str
    start: int
    end: int
    in_frame: bool
    version_fits: bool  # set by rank() from the versions the paste shows around the hit
    severity: float  # SEVERITY_RANK of the entry, lowered by rank() where the line says warning
    confidence: float | None = None  # None for a regex hit; the fallback's confidence otherwise
    constraints: tuple[Constraint, ...] = ()  # the entry's version constraints


def rank(hits: list[Hit], text: str, causes: Mapping[str, frozenset[str]],
         reports: Callable[[Hit], bool] = lambda _hit: False) -> list[Hit]:
    """``hits`` best first, each with its effective severity. ``causes[b]`` holds the entries the
    KB names as causes of ``b``; ``reports(h)`` says whether a hit only reports an earlier failure."""
    hits = [_effective_severity(h, hits, text) for h in hits]
    incident, since = _incidents(hits, text)
    hits = [_versions_fit(h, text, since[incident[h.entry_id]]) for h in hits]
    if len(hits) < 2:
        return hits
    ordered = sorted(
        hits,
        key=lambda h: (h.severity, not h.in_frame, incident[h.entry_id], h.confidence is None, h.version_fits,
                       h.end - h.start, h.start),
        reverse=True,
    )
    if reports(ordered[0]):
        top = ordered[0]
        cause = next((h for h in ordered[1:] if h.severity == top.severity and h.confidence is None
                      and incident[h.entry_id] == incident[top.entry_id] and not reports(h)), None)
        if cause is not None:  # a line that only reports a failure never leads while its incident names a cause
            ordered = [cause, *(h for h in ordered if h is not cause)]
    return _causes_first(ordered, causes, text)


def _versions_fit(hit: Hit, text: str, since: int) -> Hit:
    """Whether the entry's versions fit what the paste shows in this incident, up to the hit's line."""
    if not hit.constraints:
        return hit
    line_end = text.find("\n", hit.end)
    shown = revealed_versions(text[since : None if line_end < 0 else line_end])
    return replace(hit, version_fits=applies(hit.constraints, shown))


def _apart(a: Hit, b: Hit, text: str) -> bool:
    """Whether two hits share no line."""
    first, second = (a, b) if a.start <= b.start else (b, a)
    return first.end <= second.start and "\n" in text[first.end : second.start]


def _effective_severity(hit: Hit, hits: list[Hit], text: str) -> Hit:
    if hit.severity < SEVERITY_RANK["error"]:
        return hit
    for other in hits:
        if other.severity < hit.severity and other.start <= hit.start and hit.end <= other.end:
            return replace(hit, severity=other.severity)
    if on_warning_line(text, hit.start):
        near = [o.severity for o in hits if o.severity < SEVERITY_RANK["error"] and _nearby(o, hit, text)]
        return replace(hit, severity=max(near) if near else LOGGED_AS_WARNING)
    return hit


def _nearby(a: Hit, b: Hit, text: str) -> bool:
    first, second = (a, b) if a.start <= b.start else (b, a)
    return first.end > second.start or text.count("\n", first.end, second.start) <= NEARBY_LINES


def severity_name(rank_value: float) -> str:
    """"error", "warning" or "info" for an effective severity."""
    return "error" if rank_value >= SEVERITY_RANK["error"] else "info" if rank_value <= 0 else "warning"


def on_quiet_line(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is logged at info, debug or trace level before ``pos``: the program says
    it is not a failure (``DEBUG … TPU platform is not available because: No module named 'libtpu'``)."""
    line_start = text.rfind("\n", 0, pos) + 1
    return _QUIET_LEVEL.search(text, line_start, pos) is not None


def on_warning_line(text: str, pos: int) -> bool:
    """Whether the line holding ``pos`` is logged at warning/info level before ``pos``."""
    line_start = text.rfind("\n", 0, pos) + 1
    return _WARNING_LEVEL.search(text, line_start, pos) is not None


def _incidents(hits: list[Hit], text: str) -> tuple[dict[str, int], list[int]]:
    """Each hit's incident number (hits a few lines apart share one; a new traceback starts one),
    and where each incident's text begins (just after the previous incident's last hit)."""
    by_start = sorted(hits, key=lambda h: h.start)
    number: dict[str, int] = {}
    since = [0]
    previous: Hit | None = None
    for hit in by_start:
        if previous is not None and previous.end <= hit.start:
            between = text[previous.end : hit.start]
            if between.count("\n") > INCIDENT_GAP or (
                _NEW_TRACEBACK.search(between) and not _CHAINED.search(between)
            ):
                since.append(previous.end)
        number[hit.entry_id] = len(since) - 1
        if previous is None or hit.end > previous.end:
            previous = hit
    return number, since


def _causes_first(ordered: list[Hit], causes: Mapping[str, frozenset[str]], text: str) -> list[Hit]:
    """Move a present, equally severe cause of the leading hit in front of it (and its cause...).

    Only a cause on other lines counts: on the same line it is the same message, and the more
    specific hit already won."""
    seen: set[str] = set()
    while ordered:
        top = ordered[0]
        seen.add(top.entry_id)
        named = causes.get(top.entry_id, frozenset())
        cause = next(
            (h for h in ordered[1:] if h.entry_id in named and h.entry_id not in seen
             and h.severity == top.severity and h.in_frame == top.in_frame and _apart(h, top, text)),
            None,
        )
        if cause is None:
            return ordered
        ordered = [cause, *(h for h in ordered if h is not cause)]
    return ordered


def cause_map(links: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> dict[str, frozenset[str]]:
    """``{consequence: causes}`` from each entry's (leads_to, preceded_by) links."""
    found: dict[str, set[str]] = {}
    for entry_id, (leads_to, preceded_by) in links.items():
        for target in leads_to:
            found.setdefault(target, set()).add(entry_id)
        for source in preceded_by:
            found.setdefault(entry_id, set()).add(source)
    return {k: frozenset(v - {k}) for k, v in found.items()}
