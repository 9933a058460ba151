"""Every answer over a real paste names the error without the KB's example values, in both languages."""

from __future__ import annotations

import re

import pytest

from bot import i18n
from bot.render import labels, summary
from bot.service.knowledge import Knowledge
from tests.conftest import PASTES
from tests.support import corpus

# what could be someone's value: a file, a dotted class, a path, a ref (`sample_video.py`, `org/slf4j/Logger`)
VALUE = re.compile(r"[A-Za-z_$][\w$]*(?:[./][\w$-]+)+")


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_no_headline_names_a_value_its_paste_does_not_hold(kb, locale):
    knowledge, wrong, answered = Knowledge(kb), [], 0
    for row in corpus.found(kb, PASTES):
        if not row.matches:
            continue
        with i18n.use_locale(locale):
            match, answered = (await knowledge.explain(row.matches, record=False)).matches[0], answered + 1
            name = labels.headline(match.entry, match)
        said = row.paste.casefold()
        wrong += [f"{row.path.relative_to(PASTES)}: {name!r} ({v})" for v in VALUE.findall(name)
                  if v.casefold() not in said]
    assert answered > 2000
    assert wrong == []


async def test_the_quote_of_a_long_oom_line_keeps_the_free_memory_that_decides_the_fix(kb):
    paste = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of "
             "79.15 GiB of which 812.00 MiB is free. Including non-PyTorch memory, this process has 78.33 GiB memory "
             "in use. Of the allocated memory 75.1 GiB is allocated by PyTorch, and 2.7 GiB is reserved by PyTorch "
             "but unallocated.")
    with i18n.use_locale("zh"):
        match = (await Knowledge(kb).diagnose(paste, limit=1, record=False)).matches[0]
        assert "812.00 MiB is free" in summary.quote(match.line, match.entry.regex)
        assert labels.values_line(match.entry, match) == "你的任务还要在 GPU 上再申请 1.50 GiB，但只剩 812.00 MiB 空闲。"


async def test_no_first_fix_is_one_its_paste_rules_out(kb):
    """Where an entry has a fix the paste fits or says nothing about, that fix, not a ruled-out one, heads it."""
    knowledge, checked, wrong = Knowledge(kb), 0, []
    for row in corpus.found(kb, PASTES):
        if not row.matches:
            continue
        fixes = (await knowledge.explain(row.matches, record=False)).matches[0].entry.workarounds
        if any(w.fit == 0 for w in fixes):
            checked += 1
            if fixes[0].fit == 0 and any(w.fit > 0 for w in fixes):
                wrong.append(str(row.path.relative_to(PASTES)))
    assert checked >= 5 and wrong == []
