"""Edit a seed file's JSON text in place, so a pull request's diff shows only what changed.

``errkb export`` appends suggested fixes to KB entries; re-dumping the object would also rewrite the
author's formatting (indentation, key order, a missing final newline). :func:`amended` instead
appends the new list items and keys to the original text and leaves every other byte as it was.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _top_level(text: str) -> tuple[dict[str, tuple[int, int]], int] | None:
    """Each top-level key's value span, and where the object's closing brace is (None: not an object)."""
    at = _skip(text, 0)
    if text[at:at + 1] != "{":
        return None
    spans: dict[str, tuple[int, int]] = {}
    at = _skip(text, at + 1)
    while text[at:at + 1] != "}":
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if text[at:at + 1] != ":":
            return None
        start = _skip(text, at + 1)
        _value, end = _DECODER.raw_decode(text, start)
        spans[key] = (start, end)
        at = _skip(text, end)
        if text[at:at + 1] == ",":
            at = _skip(text, at + 1)
    return spans, at


def _indent_of(text: str, at: int) -> str:
    """The whitespace that starts the line holding ``at``."""
    line = text.rfind("\n", 0, at) + 1
    return _SPACE.match(text, line).group()[: at - line]  # type: ignore[union-attr]


def _dump(value: Any, indent: str, step: int) -> str:
    """``value`` as JSON laid out like the file: ``step`` spaces per level, continuation lines at ``indent``."""
    return json.dumps(value, ensure_ascii=False, indent=step or None).replace("\n", "\n" + indent)


def _append_items(text: str, start: int, end: int, items: list[Any], step: int) -> str:
    """The list text ``text[start:end]`` with ``items`` appended in its own layout."""
    close = end - 1  # the "]"
    body_end = len(text[:close].rstrip())
    if text[body_end - 1] == "[":  # an empty list: lay it out afresh
        outer = _indent_of(text, start)
        inner = outer + " " * step
        sep = ",\n" + inner if step else ", "
        return ("[\n" + inner if step else "[") + sep.join(_dump(i, inner, step) for i in items) + (
            "\n" + outer + "]" if step else "]")
    first = _skip(text, start + 1)
    inner = _indent_of(text, first) if "\n" in text[start:first] else ""
    sep = ",\n" + inner if inner or "\n" in text[start:first] else ", "
    added = "".join(sep + _dump(i, inner, step) for i in items)
    return text[start:body_end] + added + text[body_end:end]


def amended(text: str, new: dict[str, Any]) -> str | None:
    """``text`` (a JSON object) edited to hold ``new``, which may only append items to its lists and add
    keys; None when ``new`` changes anything else (the caller then writes ``new`` afresh)."""
    try:
        old = json.loads(text)
        found = _top_level(text)
    except (ValueError, RecursionError):
        return None
    if found is None or not isinstance(old, dict) or set(old) - set(new):
        return None
    spans, close = found
    first_key = _skip(text, _skip(text, 0) + 1)
    step = len(_indent_of(text, first_key)) if "\n" in text[:first_key] else 0
    edits: list[tuple[int, int, str]] = []
    for key, value in new.items():
        if key not in old:
            continue
        if old[key] == value:
            continue
        if not (isinstance(value, list) and isinstance(old[key], list) and value[: len(old[key])] == old[key]):
            return None
        start, end = spans[key]
        edits.append((start, end, _append_items(text, start, end, value[len(old[key]):], step)))
    added = [key for key in new if key not in old]
    if added:
        indent = " " * step
        last = len(text[:close].rstrip())
        sep = ",\n" + indent if step else ", "
        lead = sep if spans else ("\n" + indent if step else "")
        tail = sep.join(f"{json.dumps(k, ensure_ascii=False)}: {_dump(new[k], indent, step)}" for k in added)
        edits.append((last, last, lead + tail))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    try:
        return text if json.loads(text) == new else None
    except ValueError:
        return None
