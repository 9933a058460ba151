from bot.kb.announce import causes, consequence, unexplained


def lines(text: str) -> list[str]:
    return [line for _offset, line in causes(text)]


def test_a_line_that_names_what_went_wrong_counts_as_an_error_without_an_error_prefix():
    text = ("Reason: Scheme \"Gizmo\" is not configured for running.\n"
            "services.web.environment.DEBUG contains true, which is an invalid type\n"
            "Could not find the zstd library: set ZSTD_LIB_DIR\n"
            "Failed to decode zlib stream")
    assert lines(text) == text.split("\n")


def test_lines_that_only_say_a_step_failed_or_mention_an_error_word_do_not():
    text = ("Failed to build gizmo\n-- Building with -Werror\nBuild failed, waiting for other jobs to finish...\n"
            "  raise CalledProcessError(retcode, cmd)\nWARNING: could not find the cache, rebuilding")
    assert lines(text) == []


def test_a_wrapper_over_a_named_cause_leaves_the_cause_unexplained():
    text = "Reason: Scheme \"Gizmo\" is not configured for running.\n** BUILD FAILED **"
    wrapper = text.index("** BUILD")
    assert unexplained(text, [(wrapper, len(text), False)]) == "Reason: Scheme \"Gizmo\" is not configured for running."
    assert unexplained(text, [(0, wrapper - 1, True), (wrapper, len(text), False)]) is None


def test_exit_words_before_a_hit_do_not_make_it_a_report():
    line = 'error running hook: exit status 1, stderr: nvidia-container-cli: requirement error: unsatisfied condition'
    assert consequence(line)
    assert not consequence(line, line.index("nvidia-container-cli"))
    assert consequence("Command PhaseScriptExecution failed with a nonzero exit code", 8)
