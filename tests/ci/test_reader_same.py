"""The fast reading of a CI log (one RE2 scan per chunk, only the lines it picks decoded) finds the same
failures as a straightforward one (every line decoded and checked, the whole log in memory): the same entries,
steps, line numbers and quoted lines, for every paste fixture and real paste embedded in a GitHub Actions log
and a GitLab trace, read in chunks of every size from a few bytes to the default."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from functools import lru_cache

import pytest

from bot.ci import reader
from bot.ci.failures import Failure, failures, match_windows
from bot.ci.reader import AFTER, BEFORE, MAX_KEEP, MAX_LINE_BYTES, MAX_WINDOW, Window
from bot.kb.knowledge import KnowledgeBase
from bot.service.knowledge import Knowledge
from tests.conftest import PASTES, REPO
from tests.support import ci_logs

REAL = REPO / "bench" / "realpastes"
CHUNKS = (997, reader.CHUNK)  # a prime: lines split anywhere between two reads


def straightforward(log: bytes) -> list[Window]:
    """The windows of ``log`` read the plain way: every line decoded and checked, in order."""
    raws = log.split(b"\n")
    if log.endswith(b"\n"):
        raws.pop()
    tracker = reader._Steps()
    step_after: list[str | None] = [None]  # the step in force after each line (index = line number)
    changed: set[int] = set()
    candidates: list[tuple[int, str]] = []
    for number, raw in enumerate(raws, 1):
        before = tracker.current
        if len(raw) <= MAX_LINE_BYTES:
            text = reader.plain(raw)
            if not tracker.marker(number, text) and reader.announces(line := reader.visible(text)):
                candidates.append((number, line.strip()))
        step_after.append(tracker.current)
        if tracker.current != before:
            changed.add(number)
    spans: list[list[int]] = []  # [start, end, *candidates]
    seen: set[str] = set()
    for number, key in candidates:
        if spans and number - BEFORE <= spans[-1][1] + 1 and number + AFTER - spans[-1][0] < MAX_WINDOW:
            spans[-1][1] = number + AFTER
            spans[-1].append(number)
        elif key not in seen:
            seen.add(key)
            spans.append([max(1, number - BEFORE), number + AFTER, number])
    found = []
    for start, end, *numbers in spans:
        last = min(end, len(raws))
        steps = [(start, step_after[start])] + [(n, step_after[n]) for n in range(start + 1, last + 1) if n in changed]
        found.append(Window(start, [reader.clean(raw[:MAX_KEEP]) for raw in raws[start - 1 : last]], steps, numbers))
    return found


class Cached:
    """The KB's ``find``, remembered by text: both readings ask it about the same windows."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.find = lru_cache(maxsize=None)(knowledge.find)


def described(found: list[Failure]) -> list[tuple[str, str | None, int, str]]:
    return [(f.match.entry_id, f.step, f.line, f.match.line) for f in found]


def pastes() -> Iterator[tuple[str, str]]:
    for path in sorted(PASTES.glob("*/*/*.txt")):
        yield path.relative_to(PASTES).as_posix(), path.read_text(encoding="utf-8", errors="replace")
    for name in ("tune.jsonl", "holdout.jsonl"):
        for number, row in enumerate((REAL / name).read_text(encoding="utf-8").splitlines(), 1):
            yield f"{name}:{number}", json.loads(row)["paste"]


def logs(paste: str) -> Iterator[bytes]:
    """``paste`` in a GitHub Actions log (its own step, amid INFO lines) and in a GitLab trace (ANSI)."""
    lines = paste.split("\n")
    yield ("\n".join(ci_logs.github_lines(12, [(0.5, "make test", lines)])) + "\n").encode("utf-8", "surrogatepass")
    yield "\n".join(ci_logs.gitlab_lines(lines, info_lines=8)).encode("utf-8", "surrogatepass")  # no last newline


@pytest.fixture(scope="module")
def knowledge(kb: KnowledgeBase) -> Cached:
    return Cached(Knowledge(kb))


def test_every_paste_in_a_ci_log_gives_the_same_failures_read_fast_or_plainly(knowledge: Cached) -> None:
    differ, recognised, texts = [], 0, 0
    for name, paste in pastes():
        for log in logs(paste):
            texts += 1
            expected = described(match_windows(straightforward(log), knowledge))
            recognised += bool(expected)
            for size in CHUNKS:
                got = described(failures(io.BytesIO(log), knowledge, size))
                if got != expected:
                    differ.append((name, size, got, expected))
    # the fixtures are there, and most are recognised (a wrapper over an error no entry knows is not)
    assert texts > 7000 and recognised > texts * 0.55
    assert differ == [], f"{len(differ)} differ, first: {differ[:3]}"


def test_the_readings_agree_on_edge_cases_of_lines_and_windows() -> None:
    """A log without a last newline, one line longer than a chunk, CRLF ends, errors closer than a window,
    the same error far apart, a window as long as allowed, an error word split by a colour: windows equal
    line for line."""
    oom = ci_logs.CUDA_OOM
    lines = list(ci_logs.github_lines(3000, [(0.1, "a", oom), (0.1003, "", ci_logs.NO_MODULE), (0.5, "b", oom),
                                             (0.9, "", ci_logs.NO_MODULE)]))
    lines[500] = "x" * 300_000 + " RuntimeError: inside a long line"
    lines[1200:1200] = [f"RuntimeError: crowded {n}" for n in range(MAX_WINDOW)]
    lines[2000] = "ERR quota gone for the day"  # upper-case words the prefilter must not miss
    lines[2400] = "\x1b[31mRun\x1b[1mtimeError: coloured inside a word\x1b[0m"
    log = "\r\n".join(lines).encode()
    expected = straightforward(log)
    assert {2001, 2401} <= {n for w in expected for n in w.candidates}
    for size in (1, 7, 4096, 299_999, reader.CHUNK):
        assert list(reader.windows(io.BytesIO(log), size)) == expected, size
