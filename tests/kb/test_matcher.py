"""Matching pastes to entries: regex hits ranked by specificity, fuzzy fallback, silence on chat."""

from __future__ import annotations

import copy
import signal

import pytest

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher, MatcherError
from bot.kb.regexes import REGEX_BASE_BYTES
from tests.conftest import NCCL_ID


def entry(nccl_raw: dict, entry_id: str, regex: str, signature: str, aliases: list[str] | None = None) -> Entry:
    raw = copy.deepcopy(nccl_raw)
    raw.update(id=entry_id, domain=entry_id.split("/")[0], regex=regex, signature=signature, aliases=aliases or [])
    return Entry(raw)


@pytest.fixture
def matcher(nccl_raw) -> Matcher:
    entries = [
        Entry(nccl_raw),
        entry(nccl_raw, "python/module-not-found", r"ModuleNotFoundError: No module named", "ModuleNotFoundError: No module named 'x'"),
        entry(nccl_raw, "pytorch/cuda-oom", r"CUDA out of memory\. Tried to allocate \d+(?:\.\d+)? [KMG]iB",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"),
        entry(nccl_raw, "network/connection-refused", r"Connection refused", "ConnectionRefusedError: [Errno 111] Connection refused"),
        entry(nccl_raw, "postgres/refused", r"connection to server at \"[^\"]+\" \([\d.]+\), port \d+ failed: Connection refused",
              'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused',
              ["could not connect to server: Connection refused"]),
    ]
    return Matcher({e.id: e for e in entries})


NCCL_PASTES = [
    # inside a code fence, with Slack escapes and a log prefix
    "anyone seen this? ```[rank0]:   File \"train.py\", line 9, in &lt;module&gt;\n"
    "[rank0]: RuntimeError: [torch.distributed] AllReduce timed out in rank 0 (timeout: 600)```",
    # Chinese chatter around it
    "训练跑到一半挂了，谁见过这个？\nRuntimeError: [torch.distributed] AllReduce timed out in rank 12 (timeout: 1800)\n多谢",
    # Windows paths, CRLF
    "Traceback (most recent call last):\r\n  File \"C:\\Users\\dev\\train.py\", line 3, in <module>\r\n"
    "RuntimeError: [torch.distributed] AllReduce timed out in rank 1 (timeout: 300)\r\n",
    # timestamps and ANSI colour from a terminal
    "2026-11-30 03:12:44,918 \x1b[31mERROR\x1b[0m [trainer] AllReduce timed out in rank 7 (timeout: 600)",
]


@pytest.mark.parametrize("paste", NCCL_PASTES)
def test_realistic_pastes_match_the_nccl_entry_and_quote_its_line(matcher, paste):
    (best, *_rest) = matcher.match(paste)
    assert best.entry_id == NCCL_ID and best.how == "regex"
    quoted = paste[best.span[0] : best.span[1]]
    assert quoted.startswith("AllReduce timed out in rank") and quoted.endswith(")")
    assert "AllReduce timed out" in best.line


@pytest.mark.parametrize(
    "chat",
    [
        "the error budget is fine this week",
        "can we raise the allreduce timeout? it keeps timing out on the 64-GPU job",
        "NCCL timeouts again on rank 3, looking into it",
        "our ModuleNotFoundError count went down after the refactor",
        "I got connection refused yesterday, fixed now",
        "显存不足的问题解决了吗？",
        "",
    ],
)
def test_chat_about_errors_matches_nothing(matcher, chat):
    assert [m for m in matcher.match(chat) if m.how == "fuzzy"] == []
    if "refused" not in chat and "ModuleNotFound" not in chat:
        assert matcher.match(chat) == []


def test_the_more_specific_longer_hit_ranks_first(matcher):
    paste = ('psycopg2.OperationalError: connection to server at "db.internal" (10.0.0.5), port 5432 failed: '
             "Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?")
    ranked = [m.entry_id for m in matcher.match(paste)]
    assert ranked == ["postgres/refused", "network/connection-refused"]


def test_the_raised_error_beats_a_mention_inside_a_stack_frame(matcher):
    paste = (
        "Traceback (most recent call last):\n"
        '  File "serve.py", line 4, in <module>\n'
        '    raise RuntimeError("CUDA out of memory. Tried to allocate 2 GiB was expected")\n'
        "ModuleNotFoundError: No module named 'vllm'\n"
    )
    assert matcher.match(paste)[0].entry_id == "python/module-not-found"


def test_fuzzy_fallback_needs_an_error_line(matcher):
    assert matcher.match("[torch.distributed] AllReduce timed out on rank 3 (600 s) is what the doc says") == []


def test_fuzzy_fallback_stays_silent_below_the_threshold(matcher):
    assert matcher.match("RuntimeError: something completely unrelated happened in the loader") == []


def test_a_long_paste_and_binary_junk_do_not_break_matching(matcher):
    junk = bytes(range(256)).decode("latin-1") * 20
    paste = ("x" * 39_000) + junk + "\nRuntimeError: [torch.distributed] AllReduce timed out in rank 2 (timeout: 60)"
    assert matcher.match(paste)[0].entry_id == NCCL_ID


def test_a_pathological_regex_is_harmless_in_re2(nccl_raw):
    # (a+)+$ takes exponential time in Python's re on "aaaa…b"; RE2 answers in linear time.
    # A watchdog, not a speed test: in a backtracking engine this call would never return.
    evil = Matcher({"x/evil": entry(nccl_raw, "x/evil", r"(a+)+$", "evil")})

    def hung(*_):
        raise TimeoutError("the regex backtracked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        assert evil.match("a" * 50_000 + "b") == []
        assert evil.match("a" * 50_000)[0].entry_id == "x/evil"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_regex_re2_cannot_compile_is_one_line_naming_the_entry(nccl_raw):
    with pytest.raises(MatcherError, match="x/backref") as caught:
        Matcher({"x/backref": entry(nccl_raw, "x/backref", r"(a)\1", "backref")})
    assert len(str(caught.value).splitlines()) == 1 and ": regex: RE2 cannot compile it" in str(caught.value)


def test_only_entries_whose_literal_occurs_run_their_regex(matcher):
    paste = "ModuleNotFoundError: No module named 'vllm'"
    ids = {matcher._ids[i] for i in matcher.candidates(paste)}
    assert ids == {"python/module-not-found"}
    assert matcher.candidates("nothing to see here") == []


def test_a_regex_without_a_literal_is_tried_on_every_paste(nccl_raw):
    bare = Matcher({"x/digits": entry(nccl_raw, "x/digits", r"\d{3}-\d{4}", "555-1234")})
    assert [m.entry_id for m in bare.match("call 555-1234")] == ["x/digits"]


def test_a_matcher_survives_pickling_for_the_kb_snapshot(matcher):
    import pickle

    copy_ = pickle.loads(pickle.dumps(matcher))
    assert copy_.match(NCCL_PASTES[1])[0].entry_id == NCCL_ID


def test_compiled_regexes_stay_within_their_memory_budget_and_say_so(nccl_raw, monkeypatch):
    import bot.kb.matcher as matcher_module

    monkeypatch.setattr(matcher_module, "COMPILED_BUDGET", 3 * REGEX_BASE_BYTES)
    entries = {f"x/e{i}": entry(nccl_raw, f"x/e{i}", rf"widget{i:03d} broke", f"widget{i:03d} broke") for i in range(20)}
    small = Matcher(entries)
    for round_ in range(2):
        for i in range(20):
            assert [m.entry_id for m in small.match(f"widget{i:03d} broke")] == [f"x/e{i}"], round_
    info = small.cache_info()
    assert info["bytes"] <= info["budget"] and info["regexes"] < 20
    assert info["compiled"] == 40 and info["evictions"] == 40 - info["regexes"]
    monkeypatch.undo()
    roomy = Matcher(entries)  # the default budget holds them all: each is compiled once
    for _ in range(2):
        for i in range(20):
            roomy.match(f"widget{i:03d} broke")
    assert roomy.cache_info()["compiled"] == 20 and roomy.cache_info()["evictions"] == 0


def test_a_regex_too_large_for_its_budget_is_skipped_not_fatal(nccl_raw):
    big = Matcher({"x/big": entry(nccl_raw, "x/big", r"segfault \pL{1000}\pL{1000}", "segfault"),
                   NCCL_ID: Entry(nccl_raw)})
    assert big.match("segfault here\n" + NCCL_PASTES[1])[0].entry_id == NCCL_ID
    assert big.unusable == {"x/big"}


def test_one_regex_costs_bounded_memory_on_a_large_paste(nccl_raw):
    import random
    import resource

    # a DFA that would grow exponentially: RE2 stays within the regex's budget, then falls back
    blowup = Matcher({"x/dfa": entry(nccl_raw, "x/dfa", r"(?:a|b)*a(?:a|b){20}c", "a c")})
    text = "".join(random.Random(1).choice("ab") for _ in range(190_000))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert blowup.match(text) == []
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB


def test_variants_of_one_message_are_not_run_on_each_others_pastes(nccl_raw):
    # Entries that share most of their text (a common tail in each alternative, a long common start) are
    # told apart by what is their own: each alternative's rarest literal, a long literal's rarest part.
    entries = [entry(nccl_raw, "apt/locate", r"E: Unable to locate package \S+|E: Package '[^']+' has no installation "
                                             r"candidate", "E: Unable to locate package foo"),
               entry(nccl_raw, "celery/retry", r"CPendingDeprecationWarning: The broker_connection_retry configuration",
                     "CPendingDeprecationWarning: The broker_connection_retry configuration setting")]
    for i in range(30):
        word = "".join(chr(97 + (i // 26**k) % 26) for k in range(3))
        entries.append(entry(nccl_raw, f"apt/locate-{word}", rf"E: Unable{word} to locate package \S+|"
                                                           rf"E: Package{word} '[^']+' has no installation candidate",
                             f"E: Unable{word} to locate package foo"))
        entries.append(entry(nccl_raw, f"celery/retry-{word}", rf"CPendingDeprecationWarning{word}: The "
                                                              r"broker_connection_retry configuration",
                             f"CPendingDeprecationWarning{word}: The broker_connection_retry configuration"))
    kb = Matcher({e.id: e for e in entries})
    for paste, wanted in [("E: Package 'python3.12-venv' has no installation candidate", "apt/locate"),
                          ("CPendingDeprecationWarning: The broker_connection_retry configuration setting will",
                           "celery/retry")]:
        assert [kb._ids[i] for i in kb.candidates(paste)] == [wanted]
        assert [m.entry_id for m in kb.match(paste)] == [wanted]


def test_the_whole_bundled_kb_compiles_within_the_budget_with_room_to_grow(kb):
    from bot.kb.matcher import Matcher

    every = Matcher(kb.entries)
    for index in range(len(every)):
        every._compiled((index, 0))
    info = every.cache_info()
    assert info["evictions"] == 0 and info["bytes"] < info["budget"] * 0.9  # past it, pastes pay for recompiles


def test_regexes_compiled_ahead_of_need_answer_the_same_and_stop_at_half_the_budget(kb):
    from bot.kb.matcher import Matcher

    ahead = Matcher(kb.entries)
    rounds = 0
    while not ahead.warm(count=100):
        rounds += 1
    info = ahead.cache_info()
    compiled = info["compiled"]
    assert rounds >= compiled // 100 - 1  # a few at a time, between events
    # the whole bundled KB, or as much of it as half the budget holds (the rest compiles when a paste needs it)
    assert compiled >= len(kb.entries) or info["bytes"] >= info["budget"] // 2
    from tests.conftest import PASTES

    paste = next(iter(sorted(PASTES.glob("pytorch/*/*.txt")))).read_text(encoding="utf-8")
    assert ahead.match(paste) == kb.matcher.match(paste) != []
    assert compiled < len(kb.entries) or ahead.cache_info()["compiled"] == compiled  # nothing left to compile

    small = Matcher(kb.entries)
    small._compiled.budget = 1 << 20
    while not small.warm():
        pass
    assert small.cache_info()["bytes"] < 1 << 20 and small.cache_info()["evictions"] == 0


@pytest.fixture
def wrapped(nccl_raw) -> Matcher:
    entries = [
        entry(nccl_raw, "apt/unable-to-locate", r"E: Unable to locate package \S+", "E: Unable to locate package foo"),
        entry(nccl_raw, "docker/run-step-failed", r"The command '[^'\n]*' returned a non-zero code: \d+",
              "The command '/bin/sh -c make' returned a non-zero code: 2"),
        entry(nccl_raw, "python/module-not-found", r"No module named '?[\w.]+'?", "ModuleNotFoundError: No module named 'x'"),
    ]
    return Matcher({e.id: e for e in entries})


def test_a_line_that_only_reports_a_failure_never_leads_while_a_cause_is_matched(wrapped):
    paste = ("Step 3/7 : RUN apt-get install -y libgizmo-dev\n"
             "E: Unable to locate package libgizmo-dev\n"
             "The command '/bin/sh -c apt-get install -y libgizmo-dev' returned a non-zero code: 100")
    assert [m.entry_id for m in wrapped.match(paste)][:1] == ["apt/unable-to-locate"]
    assert [m.entry_id for m in wrapped.match(paste.split("\n", 2)[2])] == ["docker/run-step-failed"]


def test_an_error_message_logged_at_info_or_debug_level_gets_no_answer(wrapped):
    quiet = "DEBUG 06-12 19:58:31 [__init__.py:45] TPU platform is not available because: No module named 'libtpu'"
    assert wrapped.match(quiet) == []
    assert wrapped.match("DEBUG 06-12 19:58:31 [__init__.py:35] Checking if TPU platform is available.\n" + quiet) == []
    assert wrapped.match("level=info msg=\"plugin skipped: No module named 'gizmo'\"") == []
    assert [m.entry_id for m in wrapped.match("ModuleNotFoundError: No module named 'libtpu'")] == [
        "python/module-not-found"]


def test_a_failed_assert_is_known_by_its_source_line_when_the_error_has_no_message(nccl_raw):
    assertion = entry(nccl_raw, "pip/assert-building", r"assert building_is_possible", "assert building_is_possible")
    retried = entry(nccl_raw, "network/refused", r"Connection refused", "ConnectionRefusedError: Connection refused")
    matcher = Matcher({e.id: e for e in (assertion, retried)})
    traceback = ('Traceback (most recent call last):\n  File "/pip/_internal/wheel.py", line 848, in build\n'
                 "    assert building_is_possible\n")
    earlier = "ConnectionRefusedError: [Errno 111] Connection refused\nretrying in 5s\n" + "." * 10 + "\n" * 14
    assert [m.entry_id for m in matcher.match(earlier + traceback + "AssertionError")][:1] == ["pip/assert-building"]
    with_message = earlier + traceback + "AssertionError: wheel cache is off"  # the message names the error
    assert [m.entry_id for m in matcher.match(with_message)][:1] != ["pip/assert-building"]


def test_a_warning_raised_as_an_exception_is_answered_over_its_own_stack_trace(nccl_raw):
    notice = entry({**nccl_raw, "severity": "warning"}, "php/undefined-index", r"Undefined index: \S+ in \S+\.php:\d+",
                   "Warning: Undefined index: email in /app/register.php:14")
    matcher = Matcher({notice.id: notice})
    raised = "ErrorException: Undefined index: CUIT in /var/www/app/Client.php:37\nStack trace:\n"
    frames = ("0 /var/www/app/Client.php(37): Illuminate\\Foundation\\Bootstrap\\HandleExceptions->handleError(8)\n"
              "#1 /var/www/app/Job.php(174): Client::setFromSystem(Array)\n#2 {main}")
    assert [m.entry_id for m in matcher.match(raised + frames)] == ["php/undefined-index"]
    after = raised + frames + "\nPDOException: SQLSTATE[HY000] [2002] Connection refused"  # a later error of its own
    assert matcher.match(after) == []
