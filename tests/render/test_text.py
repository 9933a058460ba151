"""Terminal rendering: the compact answer by default, details on request, wrapped, colour only when wanted."""

from __future__ import annotations

import io

import pytest
from wcwidth import wcswidth

from bot import i18n
from bot.cards import Diagnosis
from bot.render import text
from bot.service.knowledge import Knowledge

PASTE = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 600)"
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of "
       "39.38 GiB of which 1.02 GiB is free.")


async def render(kb, paste: str, locale: str = "en", **kwargs) -> str:
    with i18n.use_locale(locale):
        return text.render_diagnosis(await Knowledge(kb).diagnose(paste, limit=1), **kwargs)


@pytest.mark.parametrize(("locale", "lines"), [
    ("en", ["CUDA out of memory", "Cause: The PyTorch caching allocator", "Try first: Reduce the per-step batch",
            "estimated ~85% (AI-drafted), no votes here yet", "3 other fixes, what not to try and docs: add --details"]),
    ("zh", ["CUDA 显存不足", "原因：PyTorch 的缓存分配器", "先试这个：减小每步的 batch size",
            "估计约 85%（AI 起草），这里还没人投票", "还有 3 个方案、哪些别试和文档：加 --details 查看"]),
])
async def test_the_default_is_the_compact_answer_with_the_readers_line(kb, locale, lines):
    out = await render(kb, OOM, locale, width=200)
    for wanted in lines:
        assert wanted in out
    # the quote keeps the values that decide the fix, and the entry says them in the reader's language
    assert "  │ …CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 39.38 GiB of which 1.02 GiB" \
        " is free" in out
    assert ("Your job asked for 1.50 GiB more on the GPU with only 1.02 GiB free." if locale == "en"
            else "你的任务还要在 GPU 上再申请 1.50 GiB，但只剩 1.02 GiB 空闲。") in out
    assert "2.00 GiB" not in out and "2. " not in out  # no second fix, no KB example values
    assert "\x1b[" not in out


async def test_details_list_every_fix_and_dead_end_in_rank_order(kb):
    out = await render(kb, PASTE, details=True)
    assert out.index("1. Check network connectivity") < out.index("2. Switch to Gloo") < out.index("3. Reduce the batch")
    assert "✗ Tried " in out or "✗ " in out
    assert "(fails ~95%)" in out and "Trust: drafted with AI by errkb's authors" in out


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("width", [40, 64, 100])
async def test_lines_wrap_to_the_terminal_width(kb, locale, width):
    for details in (False, True):
        out = await render(kb, OOM, locale, width=width, details=details)
        too_wide = [line for line in out.splitlines() if wcswidth(line) > width and " " in line.strip()]
        assert too_wide == []
        assert not any(line.lstrip().startswith(("，", "。", "）")) for line in out.splitlines())


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert text.use_color(Tty()) and not text.use_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not text.use_color(Tty())


async def test_colour_when_asked(kb):
    assert "\x1b[1m" in await render(kb, PASTE, color=True)


def test_no_match_says_so_in_the_readers_language():
    with i18n.use_locale("zh"):
        assert text.render_diagnosis(Diagnosis("zh", [])) == "输入中没有找到已知的错误。"


async def test_a_password_on_the_pasted_line_is_never_printed(kb):
    paste = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 9) postgres://trainer:pa55word-x@db/r"
    for details in (False, True):
        out = await render(kb, paste, details=details)
        assert "pa55word-x" not in out and "postgres://trainer:•••••@db/r" in out
