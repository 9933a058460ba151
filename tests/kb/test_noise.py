"""The noise suite: every fixture, with warnings, progress bars, INFO lines and an earlier failure
around it, is still answered with its own entry; and lint names a warning that outranks an error."""

from __future__ import annotations

import copy

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.noise import Paste, load_pastes, noisy_variants, run_suite, unknown_suite, warning_problems
from tests.conftest import PASTES


def test_every_fixture_in_noise_still_ranks_its_own_entry_first(kb):
    wrong = [f"{p.path.relative_to(PASTES)} with {added}: got {ranked}" for p, added, ranked
             in run_suite(kb.entries, kb.matcher, PASTES)]
    assert wrong == []


def test_the_variants_put_real_warnings_and_an_earlier_failure_around_the_paste(tmp_path):
    paste = Paste("a/b", tmp_path / "1.txt", "KeyError: 'x'\n", "error", "error")
    warning = Paste("w/w", tmp_path / "w.txt", "FutureWarning: something\n", "warning", "warning")
    failure = Paste("c/d", tmp_path / "f.txt", "Traceback (most recent call last):\nValueError: y\n", "error", "error")
    variants = dict(noisy_variants(paste, [warning], [failure]))
    assert len(variants) == 3
    warned = variants["the warning w/w in front and after"]
    assert warned.startswith("FutureWarning") and warned.rstrip().endswith("FutureWarning: something")
    earlier = variants["an earlier, retried failure of c/d"]
    assert earlier.index("ValueError: y") < earlier.index("retrying") < earlier.index("KeyError: 'x'")
    assert noisy_variants(paste, [warning], [failure], linked=frozenset({"c/d"}))[-1][0].startswith("the warning")
    # around a warning only neutral noise goes: another warning or an error would be another question
    assert len(noisy_variants(warning, [warning], [failure])) == 1


def test_the_variants_are_the_same_every_run(tmp_path):
    paste = Paste("a/b", tmp_path / "1.txt", "KeyError: 'x'\n", "error", "error")
    others = [Paste(f"w/{i}", tmp_path / f"{i}.txt", f"UserWarning: {i}\n", "warning", "warning") for i in range(9)]
    assert noisy_variants(paste, others, others) == noisy_variants(paste, others, others)
    assert noisy_variants(paste, others, others) != noisy_variants(
        Paste("a/b", tmp_path / "2.txt", "KeyError: 'x'\n", "error", "error"), others, others)


def test_lint_is_clean_for_the_kb_warnings(kb):
    warnings = {i: e for i, e in kb.entries.items() if e.severity != "error"}
    assert len(warnings) >= 9
    assert [str(p) for p in warning_problems(warnings, kb.matcher, PASTES, kb.entries, sample=8)] == []


def test_lint_names_a_warning_whose_regex_swallows_the_error_after_it(kb, tmp_path):
    raw = copy.deepcopy(kb.entries["pandas/setting-with-copy-warning"].raw)
    raw["regex"] = r"SettingWithCopyWarning[\s\S]*"  # runs on over whatever follows
    greedy = Entry(raw, source="seeds/pandas/setting-with-copy-warning.json")
    entries = {**kb.entries, greedy.id: greedy}
    problems = warning_problems({greedy.id: greedy}, Matcher(entries), PASTES, entries, sample=4)
    assert problems and problems[0].path == "severity"
    assert "outranks the error" in problems[0].message


def test_an_unknown_error_with_known_warnings_or_a_runners_report_around_it_gets_no_answer(kb):
    answered = [f"{ranked} for:\n{text}" for text, ranked in unknown_suite(kb.entries, kb.matcher, PASTES)]
    assert answered == []


def test_a_warning_alone_is_still_answered_and_a_known_error_still_beats_the_warning(kb):
    warning = next(p for p in load_pastes(kb.entries, kb.matcher, PASTES) if p.entry_severity == "warning")
    assert [m.entry_id for m in kb.matcher.match(warning.text, limit=1)] == [warning.entry_id]
    known = (PASTES / "pytorch" / "cuda-out-of-memory" / "1.txt").read_text(encoding="utf-8")
    ranked = [m.entry_id for m in kb.matcher.match(warning.text + "\n" + known, limit=1)]
    assert ranked == ["pytorch/cuda-out-of-memory"]
