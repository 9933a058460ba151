"""Terminal rendering: readable, colour only when asked."""

from __future__ import annotations

from bot import i18n
from bot.diagnose import ErrkbService
from bot.render import text
from bot.views import Diagnosis

PASTE = "RuntimeError: [torch.distributed] AllReduce timed out in rank 4 (timeout: 600)"


async def test_text_lists_cause_dead_ends_and_ranked_workarounds(kb):
    with i18n.use_locale("en"):
        out = text.render_diagnosis(await ErrkbService(kb).diagnose(PASTE))
    assert "Root cause" in out and "fails 95% of the time" in out
    assert out.index("1. Check network connectivity") < out.index("2. Switch to Gloo") < out.index("3. Reduce the batch")
    assert "\x1b[" not in out


async def test_colour_only_when_asked(kb):
    with i18n.use_locale("en"):
        out = text.render_diagnosis(await ErrkbService(kb).diagnose(PASTE), color=True)
    assert "\x1b[1m" in out


def test_no_match_says_so_in_the_readers_language():
    with i18n.use_locale("zh"):
        assert text.render_diagnosis(Diagnosis("zh", [])) == "输入中没有找到已知的错误。"
