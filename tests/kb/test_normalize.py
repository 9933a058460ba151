"""Normalising pastes: Slack markup and terminal noise out, offsets back to the original."""

from __future__ import annotations

from bot.kb.normalize import normalize, strip_log_prefix


def test_slack_escapes_fences_links_and_mentions_are_decoded():
    paste = "<@U024BE7LH> see ```a &lt;b&gt; &amp; c``` <https://x.io/run/7|run 7> <!here> <#C1|ml-infra>"
    assert normalize(paste).text == "@U024BE7LH see \na <b> & c\n run 7 @here #ml-infra"


def test_ansi_crlf_zero_width_and_nbsp_are_cleaned():
    paste = "\x1b[1;31mRuntimeError\x1b[0m:\u00a0CUDA\u200b out\r\nnext\rline\ufeff"
    assert normalize(paste).text == "RuntimeError: CUDA out\nnext\nline"


def test_a_span_maps_back_to_the_original_text():
    paste = "```\r\n\x1b[31m[rank1]: RuntimeError: x &lt;module&gt; y\x1b[0m\r\n```"
    plain = normalize(paste)
    start = plain.text.index("RuntimeError")
    end = plain.text.index(" y") + 2
    a, b = plain.original_span(start, end)
    assert paste[a:b] == "RuntimeError: x &lt;module&gt; y"


def test_a_span_inside_a_link_label_maps_into_the_label():
    paste = "see <https://ci.example/jobs/1|job one> now"
    plain = normalize(paste)
    start = plain.text.index("one")
    assert paste[slice(*plain.original_span(start, start + 3))] == "one"


def test_binary_junk_loses_control_characters_but_keeps_text():
    paste = "ok\x00\x01\x02 Error: boom\x7f"
    assert normalize(paste).text == "ok Error: boom"


def test_line_at_returns_the_whole_line():
    plain = normalize("a\nbb RuntimeError: x\nc")
    assert plain.line_at(plain.text.index("Runtime")) == "bb RuntimeError: x"


def test_log_prefixes_are_stripped():
    assert strip_log_prefix("2026-03-04 12:00:01,123 ERROR [worker-3] KeyError: 'x'") == "KeyError: 'x'"
    assert strip_log_prefix("[2026-03-04T12:00:01Z] FATAL: out of slots") == "out of slots"
    assert strip_log_prefix("Mar  4 12:00:01 kubelet[812]: E0304 fail") == "E0304 fail"


def test_a_visual_studio_error_list_row_reads_as_the_compiler_prints_it():
    pasted = ("Severity\tCode\tDescription\tProject\tFile\tLine\tSuppression State\n"
              "Error\tCS0246\tThe type or namespace name 'Foo' could not be found\tApp\tC:\\src\\Program.cs\t12\tActive\n"
              "警告\tCS8618\t退出构造函数时，不可为 null 的属性必须包含非 null 值。\tApp")
    n = normalize(pasted)
    lines = n.text.split("\n")
    assert lines[1].startswith("error CS0246: The type or namespace name 'Foo' could not be found\tApp")
    assert lines[2].startswith("warning CS8618: 退出构造函数时")
    start = n.text.index("The type")
    assert pasted[slice(*n.original_span(start, start + 8))] == "The type"  # the map back still holds


def test_a_ci_runners_timestamps_leave_each_line_starting_with_what_the_tool_printed():
    pasted = ("2026-11-30T08:00:08.0540466Z Segmentation fault\r\n"
              "2020-09-28T17:12:00.6705158Z ##[error]Process completed with exit code 139.\n"
              "2026-03-04T12:00:01.123Z app log keeps its own timestamp")
    n = normalize(pasted)
    assert n.text.split("\n") == ["Segmentation fault", "##[error]Process completed with exit code 139.",
                                  "2026-03-04T12:00:01.123Z app log keeps its own timestamp"]
    assert pasted[slice(*n.original_span(0, 18))] == "Segmentation fault"


def test_a_message_printed_at_the_start_of_its_line_is_matched_inside_a_pasted_ci_log(nccl_raw):
    import copy

    from bot.kb.entry import Entry
    from bot.kb.matcher import Matcher

    raw = copy.deepcopy(nccl_raw)
    raw.update(id="cpp/segfault", domain="cpp", regex=r"(?m:^)Segmentation fault(?m:$)", signature="Segmentation fault")
    matcher = Matcher({"cpp/segfault": Entry(raw)})
    log = ("2026-11-30T08:00:05.0540463Z ##[group]Run ./scripts/build.sh\n"
           "2026-11-30T08:00:08.0540466Z Segmentation fault\n"
           "2026-11-30T08:00:09.0540467Z ##[endgroup]\n"
           "2026-11-30T08:00:14.0540472Z ##[error]Process completed with exit code 1.")
    assert [m.entry_id for m in matcher.match(log)] == ["cpp/segfault"]
