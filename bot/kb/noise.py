"""Real logs are noisy: the same paste with warnings, progress bars, INFO lines and an earlier,
unrelated failure around it must still be answered with its own entry. And the inverse: an error
the KB does not know, with known warnings or a runner's exit-code line around it, gets no answer
(:func:`unknown_suite`).

:func:`noisy_variants` builds those pastes from the KB's own fixtures (the warning entries' pastes
are the warnings; other entries' pastes are the earlier failures), deterministically, so the test
suite and ``errkb lint`` (:func:`warning_problems`) try the same ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.kb.entry import Entry, Problem
from bot.kb.normalize import normalize
from bot.kb.versions import parse_constraints, revealed_versions

# Lines a training job, a build or a service prints around the error (match no entry).
PROGRESS = (
    "Epoch 3/10:  47%|████▋     | 470/1000 [02:11<02:28,  3.57it/s, loss=0.412]",
    "Downloading model.safetensors: 100%|██████████| 548M/548M [00:09<00:00, 58.2MB/s]",
    "#12 [builder 4/7] RUN pip install --no-cache-dir -r requirements.txt",
    " ---> Running in 3f2a9c1d7b44",
    "Step 5/12 : COPY . /app",
    "[=========================>    ] 88%  ETA 0:00:03",
)
INFO = (
    "2026-11-30 03:12:40,101 INFO [trainer] step 4200 loss=0.4123 lr=2.0e-05",
    "2026-11-30 03:12:41,877 INFO [data] loaded shard 17/64 (2.1 GiB)",
    "I1130 03:12:42.004211  1834 main.cc:88] Listening on 0.0.0.0:8080",
    "[INFO] Scanning for projects...",
    "level=info msg=\"starting container\" id=3f2a9c1d7b44",
    "npm notice Run `npm install -g npm@10.9.0` to update!",
    "Requirement already satisfied: tqdm in ./.venv/lib/site-packages",
    "INFO:     Application startup complete.",
)
RETRY = (
    "2026-11-30 03:10:02,550 INFO [worker] retrying in 5 s (attempt 2 of 5)",
    "2026-11-30 03:10:07,551 INFO [worker] reconnected; resuming from checkpoint step 4000",
)


@dataclass(frozen=True)
class Paste:
    """A fixture paste of an entry."""

    entry_id: str
    path: Path
    text: str
    severity: str  # as the matcher saw the paste alone: "warning" too for an error logged as a warning
    entry_severity: str
    shows: frozenset[str] = frozenset()  # packages whose version the paste shows
    names: frozenset[str] = frozenset()  # every entry whose regex or fallback the paste alone matches


NAMES = 10  # matches of a paste alone that are remembered (its other messages)


def load_pastes(entries: Mapping[str, Entry], matcher, fixtures_dir: Path) -> list[Paste]:
    """Every fixture paste of the given entries that its own entry answers when pasted alone."""
    out = []
    for entry in entries.values():
        for path in sorted((fixtures_dir / entry.id).glob("*.txt")):
            text = path.read_bytes().decode("utf-8", "replace")
            found = matcher.match(normalize(text), limit=NAMES)
            if found and found[0].entry_id == entry.id:
                out.append(Paste(entry.id, path, text, found[0].severity, entry.severity,
                                 frozenset(revealed_versions(text)), frozenset(m.entry_id for m in found)))
    return out


def _pick(key: str, items: Sequence, k: int) -> list:
    """``k`` items chosen by a stable hash of ``key`` (the same every run)."""
    if not items:
        return []
    start = int(hashlib.sha256(key.encode()).hexdigest()[:12], 16)
    return [items[(start + i * 7919) % len(items)] for i in range(min(k, len(items)))]


def _key(path: Path) -> str:
    """A fixture's ``<domain>/<slug>/N.txt``: what picks its noise, the same in every checkout."""
    return "/".join(path.parts[-3:])


def _lines(key: str, pool: Sequence[str], k: int) -> str:
    return "\n".join(_pick(key, pool, k)) + "\n"


def noisy_variants(paste: Paste, warnings: Sequence[Paste], failures: Sequence[Paste],
                   linked: frozenset[str] = frozenset(), packages: frozenset[str] = frozenset()
                   ) -> list[tuple[str, str]]:
    """(what was added, text) pastes built around ``paste``; ``failures`` are other entries' error
    pastes, ``linked`` the ids the KB relates to ``paste``'s entry (never used as the earlier failure),
    ``packages`` those its versions depend on (noise showing another version of them would contradict
    the paste, so it is not used)."""
    key = _key(paste.path)
    if packages:
        warnings = [w for w in warnings if not packages & w.shows]
        failures = [f for f in failures if not packages & f.shows]
    body = paste.text.rstrip("\n") + "\n"
    noise = _lines(key + "p", PROGRESS, 2) + _lines(key + "i", INFO, 3)
    out = [("progress bars and INFO lines around it", noise + body + _lines(key + "j", INFO, 2))]
    if paste.severity == "info" or paste.entry_severity != "error":
        return out  # around a warning, other warnings (or errors) would be a different question
    fronts = [w for w in warnings if w.entry_id != paste.entry_id]
    for warning in _pick(key + "w", fronts, 2):
        after = warning.text.rstrip("\n") + "\n" if paste.severity == "error" else ""
        out.append((f"the warning {warning.entry_id} in front" + (" and after" if after else ""),
                    warning.text.rstrip("\n") + "\n" + noise + body + _lines(key + "k", INFO, 1) + after))
    if paste.severity != "error":
        return out  # an error logged as a warning rightly loses to a real error elsewhere
    # unrelated: neither it nor any message it also holds is this entry or one the KB relates to it (a crash loop's
    # cause, ``executable file not found``, inside another build's failure rightly wins as the cause)
    related = linked | {paste.entry_id}
    earlier = [f for f in failures if not ({f.entry_id} | f.names) & related]
    for failure in _pick(key + "f", earlier, 1):
        gap = "\n".join([*RETRY, *_pick(key + "g", INFO, 6), *_pick(key + "q", PROGRESS, 4), *INFO[:4]])
        out.append((f"an earlier, retried failure of {failure.entry_id}",
                    failure.text.rstrip("\n") + "\n" + gap + "\n" + body))
    return out


def _linked(entry: Entry) -> frozenset[str]:
    return frozenset(i for kind in ("leads_to", "preceded_by", "frequently_confused_with") for i in entry.links(kind))


def run_suite(entries: Mapping[str, Entry], matcher, fixtures_dir: Path,
              only: Mapping[str, Entry] | None = None) -> list[tuple[Paste, str, list[str]]]:
    """(paste, what was added, ranked ids) for every noisy variant whose own entry is not first.

    ``only`` limits the pastes tried to those entries' (warnings and failures still come from all)."""
    pastes = load_pastes(entries, matcher, fixtures_dir)
    warnings = [p for p in pastes if p.entry_severity != "error"]
    failures = [p for p in pastes if p.severity == "error"]
    targets = pastes if only is None else [p for p in pastes if p.entry_id in only]
    related: dict[str, set[str]] = {}
    for entry in entries.values():
        for other in _linked(entry):
            related.setdefault(entry.id, set()).add(other)
            related.setdefault(other, set()).add(entry.id)
    wrong = []
    for paste in targets:
        linked = frozenset(related.get(paste.entry_id, ()))
        packages = frozenset(c.package for c in parse_constraints(entries[paste.entry_id].versions))
        for added, text in noisy_variants(paste, warnings, failures, linked, packages):
            ranked = [m.entry_id for m in matcher.match(normalize(text), limit=3)]
            if not ranked or ranked[0] != paste.entry_id:
                wrong.append((paste, added, ranked))
    return wrong


# Errors no entry knows, as tools print them (invented: no real tool prints these).
UNKNOWN_ERRORS = (
    "Traceback (most recent call last):\n  File \"/srv/app/flux.py\", line 88, in charge\n"
    "    capacitor.charge(gigawatts=1.21)\nZorbFluxError: capacitor 7 overheated at 0x1f3a",
    "error[E9931]: the frobnicator `Widget` refused its sprocket\n --> src/widget.rs:14:9",
    "FATAL: quibble store at /var/lib/quibble/db is sealed by another wombat (pid 4121)",
    "Error: Cannot splice the gizmo manifest: flange count 3 exceeds the hub's 2",
    "ERROR [frobd] handshake with gizmo-7.internal:4455 rejected: sprocket epoch mismatch (want 12, got 9)",
    # named without an error prefix: a wrapper after them reports them, it does not explain them
    'Reason: Gizmo "Flanges" is not configured for sprocketing.',
    "services.gizmo.environment.FLUX contains true, which is an invalid type, it should be a sprocket",
    "Could not find the wombat library: set WOMBAT_DIR or install it with the gizmo manager",
)
# Lines that only report that an earlier step failed, as runners and package managers print them.
REPORTS = (
    "##[error]Process completed with exit code 1.",
    "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1",
    "error Command failed with exit code 1.",
    "ERROR: Job failed: exit code 1",
    "** BUILD FAILED **",
    "Command PhaseScriptExecution failed with a nonzero exit code",
    "ERROR: Failed building wheel for gizmo",
    "collect2: error: ld returned 1 exit status",
    "error: failed to run custom build command for `gizmo-sys v0.1.0`",
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile "
    "(default-compile) on project app: Compilation failure",
    'ERROR: failed to solve: process "/bin/sh -c make" did not complete successfully: exit code: 2',
    "The Compose file './compose.yaml' is invalid because:",
)


def unknown_suite(entries: Mapping[str, Entry], matcher, fixtures_dir: Path) -> list[tuple[str, list[str]]]:
    """(paste, ranked ids) for every unknown error, with a known warning in front of it, after it, or a
    runner's report line after it, that gets an answer; [] when errkb stays silent on all of them."""
    warnings = [p for p in load_pastes(entries, matcher, fixtures_dir) if p.entry_severity != "error"]
    answered = []
    for error in UNKNOWN_ERRORS:
        around = [warning.text.rstrip("\n") + "\n" + error for warning in _pick(error, warnings, 12)]
        around += [error + "\n" + warning.text for warning in _pick(error + "after", warnings, 12)]
        around += [error + "\n" + report for report in REPORTS]
        for text in around:
            ranked = [m.entry_id for m in matcher.match(normalize(text), limit=3)]
            if ranked:
                answered.append((text, ranked))
    return answered


def warning_problems(entries: Mapping[str, Entry], matcher, fixtures_dir: Path,
                     all_entries: Mapping[str, Entry] | None = None, sample: int = 24) -> list[Problem]:
    """Lint: a warning or info entry of ``entries`` whose paste, put around error pastes, is
    answered instead of the error (it should only answer a paste that holds no error)."""
    universe = all_entries or entries
    kinds = [e for e in entries.values() if e.severity != "error"]
    if not kinds:
        return []
    errors = [p for p in load_pastes(universe, matcher, fixtures_dir) if p.severity == "error"]
    problems = []
    for entry in kinds:
        for warning in load_pastes({entry.id: entry}, matcher, fixtures_dir):
            for error in _pick(_key(warning.path), errors, sample):
                text = warning.text.rstrip("\n") + "\n" + error.text
                ranked = [m.entry_id for m in matcher.match(normalize(text), limit=1)]
                if ranked and ranked[0] == entry.id:
                    problems.append(Problem(entry.source or entry.id, "severity",
                                            f"this {entry.severity} outranks the error {error.entry_id} "
                                            f"when {warning.path.name} is pasted in front of {error.path}"))
                    break
    return problems
