"""Block Kit → an HTML page in Slack's visual style, to see an answer the way a reader will.

Only what errkb posts is supported: ``section`` (with a button accessory), ``context``, ``actions``
(buttons, overflow, static select), ``header`` and ``divider`` blocks, and Slack's mrkdwn (bold,
italic, strike, inline and block code, quotes, ``<url|label>`` links). Texts arrive escaped the
way Slack wants them (``&amp; &lt; &gt;``), so they are already safe inside HTML.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

_LINK = re.compile(r"<((?:https?|mailto):[^|>\s]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<(?:[!@#][^>]*)>")
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?=\S)([^~\n]+?)(?<=\S)~(?![\w~])")


def _quote_attr(text: str) -> str:
    return html.escape(html.unescape(text), quote=True)


def _inline(text: str) -> str:
    """mrkdwn without code: links, mentions, bold, italic, strike."""
    text = text.replace('"', "&quot;")
    text = _LINK.sub(lambda m: f'<a href="{_quote_attr(m.group(1))}">{m.group(2) or m.group(1)}</a>', text)
    text = _SPECIAL.sub(lambda m: f'<span class="mention">{m.group(0)[1:-1]}</span>', text)
    text = _BOLD.sub(r"<b>\1</b>", text)
    text = _ITALIC.sub(r"<i>\1</i>", text)
    return _STRIKE.sub(r"<s>\1</s>", text)


def _line(text: str) -> str:
    """One line of mrkdwn: inline code spans kept verbatim, the rest formatted."""
    parts = re.split(r"(`[^`\n]+`)", text)
    return "".join(f"<code>{p[1:-1]}</code>" if p.startswith("`") and p.endswith("`") and len(p) > 1
                   else _inline(p) for p in parts)


def mrkdwn(text: str) -> str:
    """Slack mrkdwn (already ``&<>``-escaped) → HTML."""
    out = []
    for i, chunk in enumerate(re.split(r"```", text)):
        if i % 2:
            out.append(f"<pre>{chunk.strip(chr(10))}</pre>")
            continue
        lines, quoted = [], []
        for line in chunk.split("\n"):
            if line.startswith(("> ", "&gt; ")) or line in (">", "&gt;"):
                quoted.append(_line(line.split(" ", 1)[1] if " " in line else ""))
                continue
            if quoted:
                lines.append("<blockquote>" + "<br>".join(quoted) + "</blockquote>")
                quoted = []
            lines.append(_line(line))
        if quoted:
            lines.append("<blockquote>" + "<br>".join(quoted) + "</blockquote>")
        out.append("<br>".join(lines).replace("</blockquote><br>", "</blockquote>"))
    return "".join(out)


def _text(obj: dict[str, Any] | None) -> str:
    if not obj:
        return ""
    if obj.get("type") == "mrkdwn":
        return mrkdwn(obj.get("text", ""))
    return html.escape(obj.get("text", ""))


def _element(element: dict[str, Any]) -> str:
    kind = element.get("type")
    if kind == "button":
        style = element.get("style")
        css = "button" + (f" {style}" if style in ("primary", "danger") else "")
        title = _quote_attr(element.get("action_id", ""))
        return f'<span class="{css}" title="{title}">{_text(element["text"])}</span>'
    if kind == "overflow":
        return '<span class="button overflow" title="more actions">⋮</span>'
    if kind == "static_select":
        chosen = element.get("initial_option") or (element.get("options") or [{}])[0]
        return f'<span class="button select">{_text(chosen.get("text"))} ▾</span>'
    if kind in ("mrkdwn", "plain_text"):
        return f"<span>{_text(element)}</span>"
    return ""


def block(b: dict[str, Any]) -> str:
    kind = b.get("type")
    if kind == "header":
        return f'<div class="header">{_text(b.get("text"))}</div>'
    if kind == "section":
        accessory = f'<div class="accessory">{_element(b["accessory"])}</div>' if b.get("accessory") else ""
        return f'<div class="section"><div class="text">{_text(b.get("text"))}</div>{accessory}</div>'
    if kind == "context":
        return '<div class="context">' + '<span class="dot"> · </span>'.join(
            _element(e) for e in b.get("elements", [])) + "</div>"
    if kind == "actions":
        return '<div class="actions">' + "".join(_element(e) for e in b.get("elements", [])) + "</div>"
    if kind == "divider":
        return "<hr>"
    return ""


@dataclass(frozen=True)
class Post:
    """One message on the page: who posted it, and its Block Kit blocks (or plain mrkdwn text)."""

    author: str
    blocks: list[dict[str, Any]]
    bot: bool = False
    private: bool = False  # ephemeral: "Only visible to you"
    time: str = "10:42"


def _post(post: Post, private_label: str) -> str:
    initials = html.escape(post.author[:1].upper())
    badge = '<span class="badge">APP</span>' if post.bot else ""
    note = f'<div class="private">👁 {html.escape(private_label)}</div>' if post.private else ""
    body = "".join(block(b) for b in post.blocks)
    css = "message" + (" ephemeral" if post.private else "")
    avatar = "avatar bot" if post.bot else "avatar"
    return (f'<div class="{css}"><div class="{avatar}">{initials}</div><div class="content">{note}'
            f'<div class="meta"><span class="name">{html.escape(post.author)}</span>{badge}'
            f'<span class="time">{html.escape(post.time)}</span></div>{body}</div></div>')


def page(title: str, channel: list[Post], thread: list[Post], labels: dict[str, str], lang: str = "en") -> str:
    """A whole page: the channel's message on the left, its thread (errkb's answer) on the right."""
    channel_html = "".join(_post(p, labels["private"]) for p in channel)
    thread_html = "".join(_post(p, labels["private"]) for p in thread)
    replies = html.escape(labels["replies"])
    return f"""<!doctype html>
<html lang="{html.escape(lang)}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_CSS}</style></head>
<body><div class="app">
<section class="pane channel"><div class="bar"># {html.escape(labels["channel"])}</div>{channel_html}
<div class="replies">{replies}</div></section>
<section class="pane thread"><div class="bar">{html.escape(labels["thread"])}
<span class="sub"># {html.escape(labels["channel"])}</span></div>{thread_html}</section>
</div>
<script>
document.body.dataset.height = Math.ceil(document.querySelector('.app').getBoundingClientRect().height);
</script>
</body></html>
"""


_CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1d1c1d; -webkit-font-smoothing: antialiased;
  font: 15px/1.46668 "Lato", "Slack-Lato", "Helvetica Neue", Helvetica, Arial,
        "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
.app { display: flex; align-items: stretch; width: 100%; }
.pane { flex: 1 1 0; min-width: 0; padding-bottom: 12px; }
.channel { border-right: 1px solid #e2e2e2; background: #fff; }
.bar { font-weight: 900; font-size: 18px; padding: 12px 20px; border-bottom: 1px solid #e2e2e2; }
.bar .sub { font-weight: 400; font-size: 13px; color: #616061; margin-left: 8px; }
.message { display: flex; padding: 8px 20px; position: relative; }
.message.ephemeral { background: #f8f8f8; }
.private { font-size: 12px; color: #616061; margin-bottom: 2px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 4px; background: #4a154b; color: #fff;
  font-weight: 900; display: flex; align-items: center; justify-content: center; margin-right: 8px; }
.avatar.bot { background: #e01e5a; }
.content { flex: 1 1 auto; min-width: 0; }
.meta { line-height: 1.2; margin-bottom: 2px; }
.name { font-weight: 900; }
.badge { font-size: 10px; font-weight: 700; color: #616061; background: #e8e8e8; border-radius: 2px;
  padding: 1px 3px; margin-left: 4px; vertical-align: 1px; }
.time { font-size: 12px; color: #616061; margin-left: 6px; }
.section { display: flex; gap: 8px; margin: 4px 0; }
.section .text { flex: 1 1 auto; min-width: 0; overflow-wrap: anywhere; }
.header { font-size: 18px; font-weight: 900; margin: 4px 0 8px; }
.context { font-size: 12px; color: #616061; margin: 4px 0; overflow-wrap: anywhere; }
.context .dot { color: #bbb; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 4px; }
.button { display: inline-flex; align-items: center; height: 28px; padding: 0 12px; border-radius: 4px;
  border: 1px solid rgba(29,28,29,.3); font-size: 13px; font-weight: 700; background: #fff; white-space: nowrap; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.button.danger { color: #e01e5a; }
.button.overflow { padding: 0 8px; font-size: 16px; }
code { font: 12px/1.5 Monaco, Menlo, Consolas, "Courier New", monospace; color: #e01e5a;
  background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13); border-radius: 3px; padding: 1px 3px; }
pre { font: 12px/1.5 Monaco, Menlo, Consolas, "Courier New", monospace; background: rgba(29,28,29,.04);
  border: 1px solid rgba(29,28,29,.13); border-radius: 4px; padding: 8px; margin: 4px 0; white-space: pre-wrap;
  overflow-wrap: anywhere; }
blockquote { margin: 4px 0; padding-left: 12px; border-left: 4px solid #dddddd; }
a { color: #1264a3; text-decoration: none; }
.mention { background: rgba(29,155,209,.1); color: #1264a3; border-radius: 3px; padding: 0 2px; }
.replies { margin: 0 20px 0 64px; font-size: 13px; font-weight: 700; color: #1264a3; }
hr { border: 0; border-top: 1px solid #e2e2e2; margin: 8px 0; }
"""
