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
from bot.kb.fit import named
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
# a source location (``in /app/x.php:37``), with the word that introduces it
_SOURCE_PATH = re.compile(r"(?:\s+(?:in|at)(?=\s))?\s*\S*/\S+\.(?:cpp|hpp|cc|c|h|m|mm|py|go|rs|java|kt|kts|scala|swift"
                          r"|cs|js|mjs|cjs|jsx|ts|tsx|php|rb|dart|ex|exs|lua|pl|sh):\d+\S*")
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


def plain_name(signature: str, values: bool = True) -> str:
    """The error in plain words, without the signature's example values.

    ``torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB …`` → ``CUDA out of
    memory``; ``KeyError: 'user_id'`` → ``KeyError``; ``IndexError: Target 10 is out of bounds.``
    → ``Target … is out of bounds``. ``values`` False also elides identifiers, paths and refs
    (``com.mysql.cj.jdbc.Driver``), for a name shown over a paste that only resembles the signature.
    """
    name = _name(signature)
    if values:
        return name
    elided = _ELLIPSES.sub("…", _IDENTIFIER.sub("…", name))
    if _WORD.findall(elided):
        return elided
    kind = re.search(r"([\w$]+(?:Error|Exception|Warning))\b", signature)
    return kind.group(1) if kind else elided


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:[./][\w$-]+)+")
_ELLIPSES = re.compile(r"…(?:\s*(?:->|[,/.:])?\s*…)+")  # values elided side by side ("… -> …") read as one


def _name(signature: str) -> str:
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


def reader_name(signature: str, line: str, regex: str = "") -> str:
    """The error in plain words for the reader's ``line``: the signature's name when every word of it that
    could be a value (a file, a branch, a class, a resource) is in the reader's line; otherwise the name of
    the reader's own hit of ``regex`` (English), or the signature's name with those words elided (a Chinese
    gloss). So a headline never names the KB example's ``train.py`` over a paste about ``sample_video.py``."""
    name = plain_name(signature)
    said = line.casefold()
    chinese = any(_is_cjk(c) for c in name)  # a gloss: its words are ours, only its identifiers may be values
    foreign = [t for t in (_IDENTIFIER if chinese else _VALUE_WORD).findall(name) if t.casefold() not in said]
    if not foreign:
        return name
    if not chinese:
        hit = _hit(line, regex)
        own = plain_name(hit.group(0) if hit else strip_log_prefix(line.strip()))
        if len(_WORD.findall(own)) >= 2:
            return own
    for word in foreign:
        name = re.sub(rf"[\w.$/~:^-]*{re.escape(word)}[\w.$/^-]*", "…", name)  # the whole path or ref
    return _ELLIPSES.sub("…", name)


# A word of a name that may be an example value: an identifier, a path, a ref, a short lowercase word
# after a fixed phrase ("Insufficient cpu"); plain English words of the message are in any paste of it.
_VALUE_WORD = re.compile(r"[A-Za-z_$][\w$]*(?:[./:-][\w$]+)+|\b[a-z][a-z0-9_]{1,}\b|\b[A-Z][\w$]*[A-Z_][\w$]*\b")


def quote(line: str, regex: str = "") -> str:
    """The reader's decisive line as they pasted it, without log prefixes, clipped to a glance.

    A long line keeps what ``regex`` (the entry's) hits, with the reader's numbers: from the hit's start,
    and, where the regex names its values (``(?P<free>…)``), each named value with a few words around
    it, the rest shortened to "…" — so "812.00 MiB is free" stays in the quote of a long CUDA OOM line.
    """
    line = mask(strip_log_prefix(line.strip()) or line.strip())  # before cutting, so no secret is half-shown
    if len(line) <= QUOTE_CHARS:
        return line
    hit = _hit(line, regex)
    start = hit.start() if hit else 0
    spans = sorted(hit.span(i) for i in hit.re.groupindex.values() if hit.span(i)[0] >= 0) if hit else []
    if spans:
        return _holding(line, start, spans)
    if start < QUOTE_CHARS // 3:
        return clip(line, QUOTE_CHARS)
    begin = min(start - 12, len(line) - QUOTE_CHARS + 2)  # fill the window when the hit is near the end
    begin = line.rfind(" ", 0, max(0, begin)) + 1
    return "…" + clip(line[begin:], QUOTE_CHARS - 1)


def _holding(line: str, start: int, spans: list[tuple[int, int]]) -> str:
    """A window of the line that holds every named value (and the hit's start when it fits), cut at words."""
    first, last = min(start, spans[0][0]), max(end for _s, end in spans)
    if last - first > QUOTE_CHARS:
        return _with_values(line, start, spans)
    begin = 0 if last <= QUOTE_CHARS else line.find(" ", last - QUOTE_CHARS) + 1
    begin = min(begin, line.rfind(" ", 0, spans[0][0]) + 1)
    trailing = _TRAILING.match(line, last)  # "812.00 MiB" + " is free"
    end = trailing.end() if trailing else last
    end = end if end - begin <= QUOTE_CHARS + 16 else last
    return ("…" if begin else "") + line[begin:end].strip() + ("…" if end < len(line) else "")


_TRAILING = re.compile(r"\S*(?:\s+[^\s.,;]+){0,2}")


def _with_values(line: str, start: int, spans: list[tuple[int, int]]) -> str:
    """The hit's opening words, then each named value with the words just before and after it."""
    pieces = [(start, min(len(line), start + QUOTE_CHARS // 3))]
    for first, last in spans:
        left = line.rfind(" ", 0, max(0, first - 24)) + 1
        right = line.find(" ", min(len(line), last + 10))
        pieces.append((left, len(line) if right < 0 else right))
    merged: list[tuple[int, int]] = []
    for first, last in sorted(pieces):
        if merged and first <= merged[-1][1] + 4:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    text = " … ".join(line[a:b].strip() for a, b in merged)
    return ("…" if merged[0][0] > 0 else "") + text + ("…" if merged[-1][1] < len(line) else "")


def values(line: str, regex: str) -> dict[str, str]:
    """The values the entry's regex names (``(?P<name>…)``) in the reader's line, credential-masked."""
    return named(mask(line), regex)


def _hit(line: str, regex: str) -> re2._Match | None:
    if not regex:
        return None
    try:
        return compile_regex(regex).search(line)
    except re2.error:
        return None


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
