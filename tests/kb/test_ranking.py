"""Ranking: the error finally raised wins over warnings, earlier incidents, frames and its own wrapper."""

from __future__ import annotations

import copy

import pytest

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.ranking import Hit, cause_map, rank


def make(nccl_raw: dict, entry_id: str, regex: str, severity: str | None = None,
         leads_to: tuple[str, ...] = ()) -> Entry:
    raw = copy.deepcopy(nccl_raw)
    raw.update(id=entry_id, domain=entry_id.split("/")[0], regex=regex, signature=regex, aliases=[],
               transition_graph={"leads_to": list(leads_to), "preceded_by": [], "frequently_confused_with": []})
    if severity:
        raw["severity"] = severity
    return Entry(raw)


@pytest.fixture
def matcher(nccl_raw) -> Matcher:
    entries = [
        make(nccl_raw, "hf/weights", r"Some weights of \w+ were not initialized from the model checkpoint at \S+ "
             r"and are newly initialized: \[[^\]]*\]", "warning"),
        make(nccl_raw, "tf/cpu", r"This TensorFlow binary is optimized to use available CPU instructions", "info"),
        make(nccl_raw, "tf/dso", r"Could not load dynamic library '[^']+'; dlerror: [^\n]*", "warning"),
        make(nccl_raw, "cuda/libcudart", r"libcudart\.so[.\d]*: cannot open shared object file"),
        make(nccl_raw, "pytorch/oom", r"CUDA out of memory\. Tried to allocate", leads_to=("pytorch/childfailed",)),
        make(nccl_raw, "pytorch/childfailed", r"ChildFailedError"),
        make(nccl_raw, "net/refused", r"Connection refused"),
        make(nccl_raw, "redis/refused", r"Error 111 connecting to [\w.-]+:\d+\. Connection refused"),
        make(nccl_raw, "python/keyerror", r"KeyError: '\w+'"),
        make(nccl_raw, "docker/step", r"did not complete successfully: exit code: \d+"),
        make(nccl_raw, "pip/nodist", r"ERROR: No matching distribution found for \S+"),
    ]
    return Matcher({e.id: e for e in entries})


def first(matcher: Matcher, paste: str) -> str:
    return matcher.match(paste)[0].entry_id


OOM = ("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.1 GiB\n")
WEIGHTS = ("Some weights of BertForSequenceClassification were not initialized from the model checkpoint at "
           "bert-base-uncased and are newly initialized: ['classifier.bias', 'classifier.weight', 'pooler.dense.bias', "
           "'pooler.dense.weight', 'bert.embeddings.position_ids', 'bert.encoder.layer.11.output.dense.bias']\n"
           "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.\n")


def test_a_long_warning_in_front_loses_to_the_crash(matcher):
    assert first(matcher, WEIGHTS + OOM) == "pytorch/oom"
    assert first(matcher, OOM + WEIGHTS) == "pytorch/oom"


def test_a_warning_answers_when_the_paste_holds_no_error(matcher):
    assert first(matcher, WEIGHTS) == "hf/weights"
    paste = "I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions\n"
    assert first(matcher, paste + WEIGHTS) == "hf/weights"  # a warning beats an info line


def test_an_error_pattern_inside_a_warning_line_is_only_a_warning(matcher):
    warn = ("2026-02-03 10:21:07.441862: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
            "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file\n")
    assert first(matcher, warn) == "tf/dso"
    # logged at W level even where no warning entry covers it
    glog = "W0102 10:00:01.123456 4242 loader.cc:12] dlopen failed: libcudart.so.12: cannot open shared object file\n"
    assert first(matcher, glog + WEIGHTS) == "hf/weights"
    assert first(matcher, glog + OOM) == "pytorch/oom"


def test_the_last_incident_of_a_long_log_wins(matcher):
    earlier = ("Traceback (most recent call last):\n  File \"cache.py\", line 3, in get\n"
               "redis.exceptions.ConnectionError: Error 111 connecting to cache:6379. Connection refused.\n")
    retry = "".join(f"2026-11-30 03:1{i}:00 INFO retrying in 5 s (attempt {i})\n" for i in range(20))
    final = "Traceback (most recent call last):\n  File \"app.py\", line 9, in <module>\nKeyError: 'user_id'\n"
    assert first(matcher, earlier + retry + final) == "python/keyerror"
    # with a fresh traceback in between, even a short gap is a new incident
    assert first(matcher, earlier + final) == "python/keyerror"
    assert first(matcher, final + retry + earlier) == "redis/refused"


def test_within_one_incident_the_more_specific_hit_wins(matcher):
    paste = ("  File \"redis/connection.py\", line 707, in connect\n"
             "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.\n")
    assert [m.entry_id for m in matcher.match(paste)] == ["redis/refused", "net/refused"]
    build = ("#8 2.113 ERROR: No matching distribution found for torch==9.9\n#8 ERROR: process \"/bin/sh -c pip install\" "
             "did not complete successfully: exit code: 1\n")
    assert first(matcher, build) == "pip/nodist"


def test_a_declared_cause_beats_its_consequence_further_down(matcher):
    wrapper = "\n".join(["[rank0]: exitcode  : 1 (pid: 4242)"] * 20) + "\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    assert first(matcher, OOM + wrapper) == "pytorch/oom"
    assert first(matcher, wrapper) == "pytorch/childfailed"


def test_a_hit_in_a_stack_frame_loses_to_the_raised_line(matcher):
    paste = ("Traceback (most recent call last):\n  File \"serve.py\", line 4, in <module>\n"
             "    raise RuntimeError('CUDA out of memory. Tried to allocate is what we expect')\n"
             "KeyError: 'model'\n")
    assert first(matcher, paste) == "python/keyerror"


def test_rank_keeps_a_single_hit_and_maps_causes_both_ways():
    only = Hit("a/b", 0, 5, False, True, 2)
    assert rank([only], "hello", {}) == [only]
    causes = cause_map({"a/x": (("a/y",), ()), "a/z": ((), ("a/y",))})
    assert causes == {"a/y": frozenset({"a/x"}), "a/z": frozenset({"a/y"})}
