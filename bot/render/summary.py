"""Short forms of KB text for the compact answer: the error's name in plain words, the reader's
decisive line, the first sentences of a root cause. Pure text functions, English and Chinese.

A signature is the KB author's example of the error, with *their* numbers, ports and paths; the
name derived here drops those example values, so a headline never shows another person's values
(the reader's own line is quoted beside it).
"""

from __future__ import annotations

import re

import re2

from bot.kb.entry import compile_regex
from bot.kb.mask import mask
from bot.kb.normalize import strip_log_prefix

NAME_CHARS = 72
QUOTE_CHARS = 120

# "torch.OutOfMemoryError: ", "ValueError：", "fatal: ", "ERROR:  ", "npm ERR! ", "W tensorflow/…] "
_PREFIXES = (
    re.compile(r"^[A-Z] [\w/.-]+:\d+\]\s*"),
    re.compile(r"^(?:[\w$]+[.])*[\w$]*(?:Error|Exception|Warning|Exit|Interrupt|Failed|Failure)\s*[:：]\s*"),
    re.compile(r"^(?:fatal error|fatal|error|warning|warn|err|panic|caused by|E|F|W)"
               r"(?:\[\w+\])?\s*[:：!]\s*", re.IGNORECASE),
    re.compile(r"^(?:致命错误|运行时错误|错误|警告|严重错误)\s*[:：]\s*"),
    re.compile(r"^npm ERR!\s*(?:code \w+\s*)?", re.IGNORECASE),
    re.compile(r"^Error response from daemon:\s*"),
    re.compile(r"^(?:docker|helm|kubectl|git|pip|npm|nvidia-container-cli|/usr/bin/ld|ld)\s*[:：]\s*"),
)
_BRACKET_VALUE = re.compile(r"\s*[(（][^()（）]*(?:\d|['\"`‘“…])[^()（）]*[)）]")
_QUOTED = re.compile(r"`[^`'\n]*'|(?<![A-Za-z])'[^'\n]*'|\"[^\"\n]*\"|‘[^’\n]*’|“[^”\n]*”")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/]\d+)*(?:\s?(?:[KMGT]i?B|bytes|ms|s)|[A-Za-z]{0,2})(?![\w.])")
# "torch.OutOfMemoryError: CUDA out of memory. …（CUDA 显存不足）": Chinese signatures keep the line
# as the tool prints it and name the error in a trailing full-width parenthesis.
_GLOSS = re.compile(r"^[^\u4e00-\u9fff]+（([^（）]*[\u4e00-\u9fff][^（）]*)）\s*$")
_SOURCE_PATH = re.compile(r"\S*/\S+\.(?:cpp|hpp|cc|h|py|go|rs|java|js|ts):\d+\S*")
_CODE_NAME = re.compile(r"\b(?:Errno|E\d{3,}|Xid|HY\d+|code)\b|\[Errno|error\[")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[])|(?<=[。！？])")
_CLAUSE_END = re.compile(r"(?<=[a-z)\]'\"`])\.\s|[。；]|\s[—–]\s|\s/\s|\.\.\.|(?<!\()…(?!\))|[:：]\s*$"
                         r"|(?<=[\u4e00-\u9fff])，")


def _strip_prefixes(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        for pattern in _PREFIXES:
            rest = pattern.sub("", text, count=1)
            if rest.strip():
                text = rest
    return text.strip()


def plain_name(signature: str) -> str:
    """The error in plain words, without the signature's example values.

    ``torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB …`` → ``CUDA out of
    memory``; ``KeyError: 'user_id'`` → ``KeyError``; ``IndexError: Target 10 is out of bounds.``
    → ``Target … is out of bounds``.
    """
    first = strip_log_prefix(signature.strip().splitlines()[0] if signature.strip() else "")
    if gloss := _GLOSS.search(first):  # a Chinese signature: the line as printed, then its gloss
        first = gloss.group(1).strip()
    kind = re.match(r"^(?:[\w$]+[.])*([\w$]+(?:Error|Exception|Warning))\b", first)
    body = _strip_prefixes(first)
    body = re.sub(r":\s*,\s*", ": ", _SOURCE_PATH.sub("", body))
    body = _BRACKET_VALUE.sub(lambda m: "" if not body[m.end():].strip(" .") else " (…)", body)
    for cut in _CLAUSE_END.finditer(body):
        if cut.start() >= 8:
            body = body[: cut.start()]
            break
    limit = NAME_CHARS * 2 // 3 if any(_is_cjk(c) for c in body) else NAME_CHARS
    chain = re.split(r":\s+|：", body)
    if len(body) > limit and len(chain) > 1 and len(_WORD.findall(chain[-1])) >= 3:
        name = _finish(_without_values(chain[-1], kind), limit)  # "context: …: what went wrong" → what went wrong
        if len(_WORD.findall(name)) >= 3:
            return name
    name = _finish(_without_values(body, kind), limit)
    return name if _WORD.findall(name) else clip(first, NAME_CHARS)


_WORD = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")


def _without_values(body: str, kind: re.Match[str] | None) -> str:
    if not _CODE_NAME.search(body):
        body = _NUMBER.sub("…", body)
    body = _QUOTED.sub("…", body)
    body = re.sub(r"…(?:\s*[…,/.]\s*…)+", "…", body)
    body = re.sub(r"\s+", " ", body).strip(" .,:;：，。-—")
    if kind and len(_WORD.findall(body)) < 3 and not body.startswith(kind.group(1)):
        body = f"{kind.group(1)}: {body}" if _WORD.findall(body) else kind.group(1)
    return body


def _finish(name: str, limit: int) -> str:
    return re.sub(r"\s*[(（][^)）]*…$", "…", clip(name, limit)).rstrip(" (（")


def quote(line: str, regex: str = "") -> str:
    """The reader's decisive line as they pasted it, without log prefixes, clipped to a glance.

    A long line is cut around where ``regex`` (the entry's) hits it, so the part that names the
    error, with the reader's numbers, is what shows.
    """
    line = mask(strip_log_prefix(line.strip()) or line.strip())  # before cutting, so no secret is half-shown
    if len(line) <= QUOTE_CHARS:
        return line
    start = _hit_start(line, regex)
    if start < QUOTE_CHARS // 3:
        return clip(line, QUOTE_CHARS)
    begin = min(start - 12, len(line) - QUOTE_CHARS + 2)  # fill the window when the hit is near the end
    begin = line.rfind(" ", 0, max(0, begin)) + 1
    return "…" + clip(line[begin:], QUOTE_CHARS - 1)


def _hit_start(line: str, regex: str) -> int:
    if not regex:
        return 0
    try:
        hit = compile_regex(regex).search(line)
    except re2.error:
        return 0
    return hit.start() if hit else 0


def first_sentences(text: str, count: int = 2, max_chars: int = 200) -> str:
    """The first ``count`` sentences of ``text`` that fit ``max_chars`` (at least one, clipped)."""
    text = re.sub(r"\s+", " ", text).strip()
    if any(_is_cjk(c) for c in text[:40]):
        max_chars //= 2  # a Chinese character says about as much as an English word's two letters
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    if not parts:
        return ""
    out = parts[0]
    for part in parts[1:count]:
        joiner = "" if _is_cjk(out[-1]) else " "
        if len(out) + len(joiner) + len(part) > max_chars:
            break
        out += joiner + part
    return clip(out, max_chars)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6 and not _is_cjk(cut[-1]):
        cut = cut[:space]
    return cut.rstrip(" ,;:.，；：。") + "…"


def _is_cjk(char: str) -> bool:
    return "\u3000" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef"
