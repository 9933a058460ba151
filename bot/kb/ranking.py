"""Order the regex hits of one paste so the error that was finally raised comes first.

Four signals, in this order:

1. **Severity.** An error beats any warning or informational line. A hit counts as a warning when
   its entry says so (``"severity": "warning"``), when it lies inside a warning entry's hit, or
   when its line is logged at warning/info level before the matched text (``W tensorflow/…] …``,
   ``WARNING: …``, ``…: UserWarning: …``).
2. **Stack frames.** A hit inside a traceback frame loses to one on a raised-error line.
3. **The decisive incident.** Hits close together (a few lines apart, in one traceback or one
   build step) form one incident; the last incident of the paste is what stopped it, so it beats
   earlier ones (a retried failure, an unrelated traceback further up the log).
4. **Specificity, then cause.** Within an incident the longer hit (a more specific regex) wins,
   and an entry the KB declares as the cause of another (``leads_to`` / ``preceded_by``) beats
   that consequence wherever it appears, so a build's real error beats the wrapper line
   ("did not complete successfully") that reports it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}
# Hits more than this many lines apart belong to different incidents.
INCIDENT_GAP = 12

# A warning/info log level in front of the text on a line (after any timestamp).
_WARNING_LEVEL = re.compile(
    r"""(?:^|[\s\]|:])(?:
        [WI]\d{4}\ \d{2}:\d{2}:\d{2}          # glog: W1203 10:00:00.123 …
      | [WI]\ (?=\S+\.\w+:\d+\])             # TensorFlow: W tensorflow/…/x.cc:38]
      | (?:WARNING|WARN|INFO|NOTICE)(?:\[\d+\])?(?=[:\]\s])   # WARNING: / WARN[0000] / [INFO]
      | level=(?:warn|warning|info)\b
      | [A-Z]\w*Warning:                     # Python warnings: UserWarning: …
    )""",
    re.VERBOSE,
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
    version_fits: bool
    severity: int  # SEVERITY_RANK of the entry


def rank(hits: list[Hit], text: str, causes: Mapping[str, frozenset[str]]) -> list[Hit]:
    """``hits`` best first. ``causes[b]`` holds the entries the KB names as causes of ``b``."""
    if len(hits) < 2:
        return list(hits)
    hits = [_effective_severity(h, hits, text) for h in hits]
    incident = _incidents(hits, text)
    ordered = sorted(
        hits,
        key=lambda h: (h.severity, not h.in_frame, h.version_fits, incident[h.entry_id], h.end - h.start, h.start),
        reverse=True,
    )
    return _causes_first(ordered, causes, text)


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
    line_start = text.rfind("\n", 0, hit.start) + 1
    if _WARNING_LEVEL.search(text, line_start, hit.start):
        return replace(hit, severity=SEVERITY_RANK["warning"])
    return hit


def _incidents(hits: list[Hit], text: str) -> dict[str, int]:
    """Each hit's incident number: hits a few lines apart share one; a new traceback starts one."""
    by_start = sorted(hits, key=lambda h: h.start)
    number: dict[str, int] = {}
    current = 0
    previous: Hit | None = None
    for hit in by_start:
        if previous is not None and previous.end <= hit.start:
            between = text[previous.end : hit.start]
            if between.count("\n") > INCIDENT_GAP or (
                _NEW_TRACEBACK.search(between) and not _CHAINED.search(between)
            ):
                current += 1
        number[hit.entry_id] = current
        if previous is None or hit.end > previous.end:
            previous = hit
    return number


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
