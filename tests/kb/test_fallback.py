"""The retrieval fallback: masked words, quoted names, exception types, ambiguity, calibration."""

from __future__ import annotations

import copy

import pytest

from bot.kb.entry import Entry
from bot.kb.fallback import CALIBRATION, MIN_CONFIDENCE, Fallback, confidence, error_lines, words
from bot.kb.normalize import normalize
from bot.kb.quality import paste_files
from tests.conftest import PASTES


def test_numbers_paths_hex_and_urls_are_masked_and_chinese_is_read_in_bigrams():
    assert words("OSError: [Errno 28] at 0x7f3a9c in /usr/lib/x.so see https://a.io/b") == \
        ["oserror", "errno", "at", "in", "see"]
    assert words("显存不足") == ["显存", "存不", "不足"]


def test_only_lines_that_announce_an_error_are_queries():
    text = "we hit a KeyError yesterday\n2026-01-01 10:00:00 ERROR [app] KeyError: 'user'\nbye"
    assert [line for _, line in error_lines(text)] == ["KeyError: 'user'"]


def test_confidence_follows_the_calibration_bands():
    values = [confidence(x / 100) for x in range(0, 101)]
    assert values == sorted(values) and confidence(0.1) == 0.0
    assert confidence(1.0) == CALIBRATION[-1][1] >= MIN_CONFIDENCE


@pytest.fixture(scope="module")
def fallback(kb_module) -> Fallback:
    return kb_module.matcher.fallback


@pytest.fixture(scope="module")
def kb_module():
    from bot.kb.knowledge import KnowledgeBase
    from tests.conftest import SEEDS

    return KnowledgeBase.load(SEEDS)


def best(fallback: Fallback, line: str) -> tuple[str, float] | None:
    guesses = fallback.guess(line)
    return (guesses[0].entry_id, guesses[0].confidence) if guesses else None


@pytest.mark.parametrize(
    ("line", "not_this"),
    [
        ("ImportError: DLL load failed while importing _multiarray_umath: The specified module could not be found.",
         "pip/ssl-module-not-available"),
        ("TypeError: 'int' object is not subscriptable", "python/nonetype-object-is-not-subscriptable"),
        ('docker: error: exec: "docker-credential-desktop": executable file not found in $PATH',
         "docker/executable-file-not-found-in-path"),
    ],
)
def test_same_shaped_messages_are_not_answered_with_the_wrong_entry(fallback, line, not_this):
    for guess in fallback.guess(line):
        assert guess.entry_id != not_this or guess.confidence < MIN_CONFIDENCE, guess


def test_a_wording_the_regex_misses_is_answered_with_its_confidence(kb_module):
    paste = "$ git status\nfatal: detected dubious ownership in repository at /srv/app\n"
    (found, *_rest) = kb_module.matcher.match(paste)
    assert found.entry_id == "git/dubious-ownership-safe-directory" and found.how == "fuzzy"
    assert MIN_CONFIDENCE <= found.score < 1
    assert paste[found.span[0]:found.span[1]] == "fatal: detected dubious ownership in repository at /srv/app"


def test_a_line_that_only_reports_a_failure_gets_no_fuzzy_answer(kb_module):
    report = "      error: command '/usr/bin/clang' failed with exit code 1"  # setuptools, not npm
    assert [g.confidence >= MIN_CONFIDENCE for g in kb_module.matcher.fallback.guess(report, sure=True)][:1] == [True]
    assert kb_module.matcher.match(report) == []  # it resembles a wrapper entry, and names nothing itself


def test_a_quoted_name_counts_only_where_the_regex_spells_it_out(fallback):
    # 'NoneType' is fixed in its entry's regex; 'requests' is only the signature's example
    ranked = [g.entry_id for g in fallback.guess("AttributeError: 'NoneType' object has no attribute 'shape'")]
    assert ranked[0] == "python/nonetype-object-has-no-attribute"
    assert best(fallback, "ModuleNotFoundError: No module named 'torch_geometric'")[0] == \
        "python/modulenotfounderror-no-module-named"


def _entry(nccl_raw: dict, entry_id: str, signature: str) -> Entry:
    raw = copy.deepcopy(nccl_raw)
    raw.update(id=entry_id, domain="x", signature=signature, regex=r"\Aneverseenzz", aliases=[])
    return Entry(raw)


def test_a_line_two_entries_fit_equally_is_not_answered(nccl_raw):
    filler = [_entry(nccl_raw, f"x/f{i}", f"Filler{i}Error: nothing like widget number {i}") for i in range(40)]
    twins = [_entry(nccl_raw, "x/a", "WidgetError: the frobnicator jammed"),
             _entry(nccl_raw, "x/b", "WidgetError: the frobnicator jammed")]
    fb = Fallback({e.id: e for e in [*filler, *twins]})
    guesses = fb.guess("WidgetError: the frobnicator jammed")
    assert {g.entry_id for g in guesses[:2]} == {"x/a", "x/b"}
    assert all(g.confidence < MIN_CONFIDENCE for g in guesses)
    alone = Fallback({e.id: e for e in [*filler, twins[0]]})
    assert alone.guess("WidgetError: the frobnicator jammed")[0].confidence >= MIN_CONFIDENCE


def test_a_different_exception_type_at_least_halves_the_score(nccl_raw):
    filler = [_entry(nccl_raw, f"x/f{i}", f"Filler{i}Error: nothing like widget number {i}") for i in range(40)]
    fb = Fallback({e.id: e for e in [*filler, _entry(nccl_raw, "x/a", "WidgetError: the frobnicator jammed")]})
    same = fb.guess("WidgetError: the frobnicator jammed")[0].raw
    other = fb.guess("GadgetError: the frobnicator jammed")[0].raw
    assert same == 1.0 and other <= same / 2


def test_chat_that_names_errors_gets_no_fallback_answer(kb_module):
    for chat in ["is the KeyError from yesterday fixed?", "except ConnectionError: retry()", "0 failed, 12 passed",
                 "RuntimeError: something completely unrelated happened in the loader"]:
        assert [m for m in kb_module.matcher.match(normalize(chat)) if m.how == "fuzzy"] == []


def _confident(guesses) -> list[tuple[str, float]]:
    return [(g.entry_id, g.confidence) for g in guesses if g.confidence >= MIN_CONFIDENCE]


def test_looking_only_for_confident_answers_finds_exactly_the_ones_an_exhaustive_search_finds(kb_module, fallback):
    exhaustive = copy.copy(fallback)
    exhaustive._rare = 1 << 30  # every wording that shares a word with the line is scored
    lines = [text for e in kb_module.entries.values() for text in (e.signature, *e.aliases)]
    lines += [normalize(p.read_text(encoding="utf-8", errors="replace")).text
              for p in paste_files(PASTES)]
    answered = 0
    for line in lines[::2]:
        expected = _confident(exhaustive.guess(line))
        assert _confident(fallback.guess(line, sure=True)) == expected, line
        answered += bool(expected)
    assert answered > 500


def test_a_common_word_does_not_make_the_confident_search_read_every_wording_that_has_it(nccl_raw):
    # 400 of 1,401 wordings share "npm err": a confident answer can come only from one whose heaviest words
    # the line has
    def word(i: int) -> str:
        return "".join(chr(97 + int(c)) for c in str(i))

    npm = [_entry(nccl_raw, f"x/n{i}", f"npm ERR! code widget{word(i)}") for i in range(400)]
    other = [_entry(nccl_raw, f"x/o{i}", f"GadgetError: sprocket{word(i)} failed") for i in range(1000)]
    target = _entry(nccl_raw, "x/t", "npm ERR! frobnicator jammed while resolving")
    fb = Fallback({e.id: e for e in [*npm, *other, target]})
    heads = {fb._ids[fb._owner[d]] for t in range(len(fb._token)) for d in fb._head[fb._hstart[t]:fb._hstart[t + 1]]}
    assert len(heads) == 1401  # each wording is reachable ...
    npm = fb._token["npm"]
    assert fb._pstart[npm + 1] - fb._pstart[npm] >= 401
    assert fb._hstart[npm + 1] - fb._hstart[npm] == 0  # ... but not through the word 401 of them share
    found = fb.guess("npm ERR! frobnicator jammed while resolving", sure=True)
    assert [g.entry_id for g in found if g.confidence >= MIN_CONFIDENCE] == ["x/t"]


def test_a_line_cut_off_after_a_word_or_two_gets_no_guess(kb):
    fallback = kb.matcher.fallback
    assert fallback.guess("error: Compilation", sure=True) == []
    assert fallback.guess("error: Compilation failure: see the compiler error output", sure=True) != []
