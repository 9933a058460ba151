"""The count of other bots' alerts on errkb's answer, in the reader's language (issue 22, point 4)."""

from __future__ import annotations

from bot import i18n
from bot.render.blocks import seen_text


def test_the_count_reads_naturally_in_english_and_chinese():
    with i18n.use_locale("en"):
        assert seen_text(1, 86400) == "Seen 1 time in this channel today"
        assert seen_text(5, 86400) == "Seen 5 times in this channel today"
        assert seen_text(1200, 6 * 3600) == "Seen 1,200 times in this channel in the last 6 h"
    with i18n.use_locale("zh"):
        assert seen_text(5, 86400) == "今天在本频道出现了 5 次"
        assert seen_text(5, 6 * 3600) == "过去 6 小时内在本频道出现了 5 次"
    with i18n.use_locale("zh-TW"):
        assert seen_text(5, 86400) == "今天在本頻道出現了 5 次"  # converted by OpenCC, not written by hand
