"""Short forms for the compact answer: plain-word names without example values, quotes, first sentences."""

from __future__ import annotations

import re

import pytest

from bot.render import summary
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


@pytest.mark.parametrize(("signature", "line", "regex", "name"), [
    # the KB's example file, branch, class or resource never heads an answer to another paste
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED",
     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: sample_video.py FAILED",
     r"ChildFailedError:[^\n]*FAILED", "sample_video.py FAILED"),
    ("0/3 nodes are available: 3 Insufficient cpu.", "Warning  FailedScheduling  0/5 nodes are available: "
     "5 Insufficient memory.", r"\d+ Insufficient (?:cpu|memory)", "… Insufficient memory"),
    ("java.lang.ClassNotFoundException: com.mysql.cj.jdbc.Driver",
     "Exception in thread \"main\" java.lang.ClassNotFoundException: org.apache.bcel.Repository",
     r"java\.lang\.ClassNotFoundException: [\w.$]+", "org.apache.bcel.Repository"),
    # the signature's own words, when the reader's line says them all
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB", r"CUDA out of memory",
     "CUDA out of memory"),
    # a Chinese gloss keeps its words and elides an example value the reader's line lacks
    ("ChildFailedError: train.py FAILED（torchrun 子进程 train.py 失败）", "ChildFailedError: eval.py FAILED",
     r"ChildFailedError:[^\n]*FAILED", "torchrun 子进程 … 失败"),
    # the reader's own message heads it, not the value and source location after its colon
    ("Warning: Undefined array key \"email\" in /var/www/app/register.php on line 14",
     "ErrorException: Undefined index: CUIT in /var/www/api/app/Domain/Billing/Client.php:37",
     r"Undefined index: [^\n]+ in [^\n]+\.php:\d+", "Undefined index: CUIT"),
])
def test_the_name_over_a_paste_never_shows_the_kbs_example_values(signature, line, regex, name):
    assert summary.reader_name(signature, line, regex) == name


def test_the_quote_keeps_every_value_the_regex_names_and_shortens_elsewhere():
    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of "
            "23.65 GiB of which 812.00 MiB is free. Including non-PyTorch memory, this process has 22.5 GiB in use.")
    regex = (r"CUDA out of memory\. Tried to allocate (?P<requested>[\d.]+ [KMGT]iB)[^\n]*?"
             r"of which (?P<free>[\d.]+ [KMGT]iB) is free")
    quoted = summary.quote(line, regex)
    assert "1.50 GiB" in quoted and "812.00 MiB is free" in quoted and len(quoted) <= summary.QUOTE_CHARS + 20
    far = "RuntimeError: " + "x" * 150 + " Tried to allocate 3.00 GiB; " + "y " * 80 + "of which 10.00 MiB is free"
    quoted = summary.quote(far, regex.replace("CUDA out of memory\\. ", ""))
    assert "3.00 GiB" in quoted and "10.00 MiB is free" in quoted and " … " in quoted
