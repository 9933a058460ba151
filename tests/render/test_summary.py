"""Short forms for the compact answer: plain-word names without example values, quotes, first sentences."""

from __future__ import annotations

import re

import pytest

from bot.render.summary import first_sentences, plain_name, quote


@pytest.mark.parametrize(("signature", "name"), [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
     "23.65 GiB of which 1.12 GiB is free.", "CUDA out of memory"),
    ("torch.OutOfMemoryError：CUDA 显存不足，尝试分配 2.00 GiB 失败（GPU 0 总容量 23.65 GiB，仅剩 1.12 GiB 空闲）",
     "CUDA 显存不足"),
    ("KeyError: 'user_id'", "KeyError"),
    ("IndexError: Target 10 is out of bounds.", "Target … is out of bounds"),
    ("Error response from daemon: driver failed programming external connectivity on endpoint web (…): "
     "Bind for 0.0.0.0:8080 failed: port is already allocated", "port is already allocated"),
    ("fatal: Need to specify how to reconcile divergent branches.", "Need to specify how to reconcile divergent branches"),
    ("OSError: [Errno 24] Too many open files", "[Errno 24] Too many open files"),
    ("java.lang.OutOfMemoryError: Metaspace", "OutOfMemoryError: Metaspace"),
])
def test_plain_name_drops_prefixes_and_example_values(signature, name):
    assert plain_name(signature) == name


def test_every_entry_has_a_short_name_in_both_languages(kb):
    for entry in kb.entries.values():
        for signature in (entry.signature, entry.signature_zh):
            if not signature:
                continue
            name = plain_name(signature)
            assert 2 <= len(name) <= 72, (entry.id, name)
            # a standalone example value (2.00 GiB, 0.0.0.0:8080) never shows; a library's name (libcudart.so.11.0) may
            example_values = {n for n in re.findall(r"(?<![\w.])\d+\.\d+[\d.:]*", signature) if n not in entry.regex}
            assert not any(re.search(rf"(?<![\w.]){re.escape(n)}", name) for n in example_values), (entry.id, name)


def test_a_long_line_is_quoted_around_where_the_error_is():
    line = ("2026-05-01T10:00:00Z ERROR docker: Error response from daemon: driver failed programming external "
            "connectivity on endpoint pg (3f2a9c): Bind for 0.0.0.0:5433 failed: port is already allocated.")
    quoted = quote(line, r"Bind for \S+ failed: port is already allocated")
    assert quoted.startswith("…") and "0.0.0.0:5433" in quoted and len(quoted) <= 120
    assert not quoted.startswith("…2026") and "ERROR" not in quoted  # log prefixes go


def test_first_sentences_stop_at_two_and_never_mid_sentence_when_they_fit():
    text = "One thing broke. Because of two. And three more. Four."
    assert first_sentences(text) == "One thing broke. Because of two."
    assert first_sentences("第一句。第二句很短。第三句。") == "第一句。第二句很短。"
    assert first_sentences("x" * 500).endswith("…") and len(first_sentences("x" * 500)) <= 200
