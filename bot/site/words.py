"""The site's own words, in English and Simplified Chinese; Traditional is made from the Simplified by
``bot.i18n.script`` (OpenCC, Taiwan's phrasing). The words the Slack answer also uses (Cause, What not to
try, Applies to …) come from the gettext catalog through ``bot.render.labels``."""

from __future__ import annotations

from bot.i18n import current_locale, script

WORDS: dict[str, tuple[str, str]] = {
    "as_printed": ("The error as printed", "报错原文"),
    "index_title": ("Errors errkb knows", "errkb 认识的错误"),
    "index_lead": ("{n} errors in {d} ecosystems: for each, the cause, what not to try and the fixes that work, "
                   "with how often.",
                   "{d} 个生态中的 {n} 个错误：每个都有原因、不该尝试的做法，以及有效的修复和它们的成功率。"),
    "search": ("Search errors in English or Chinese…", "用中文或英文搜索错误…"),
    "search_label": ("Search", "搜索"),
    "no_results": ("Nothing matches that search.", "没有符合的结果。"),
    "all_errors": ("All errors", "全部错误"),
    "works": ("works ~{rate}", "成功率约 {rate}"),
    "unrated": ("not rated yet", "尚未评分"),
    "estimate": ("estimated by the KB's authors ({source})", "由知识库作者估计（{source}）"),
    "votes": ("from {up} of {n} votes", "来自 {n} 票中的 {up} 票"),
    "when": ("When", "适用条件"),
    "entry": ("Entry", "条目"),
    "confidence": ("confidence {rate}", "置信度 {rate}"),
    "not_found": ("Page not found", "页面不存在"),
    "not_found_lead": ("No page here. The error may have been renamed: search for it.",
                       "这里没有页面，这个错误可能已改名：请搜索它。"),
    "language": ("Language", "语言"),
    "entries": ("{n} entries", "{n} 个条目"),
}


def word(name: str, **values: object) -> str:
    """The site's word ``name`` in the current reader's language and script, with ``values`` filled in."""
    english, chinese = WORDS[name]
    return script(chinese if current_locale() == "zh" else english).format(**values)
