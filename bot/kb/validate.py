"""Validation of the seed format: every problem names its file and field (``file: json.path: problem``).

``validate_entry`` checks one entry object, ``validate_translations`` a Chinese overlay, and
``dangling_links`` the links between entries; jsonschema-like checks are hand-written here because each
message must name the exact field a contributor has to fix.
"""

from __future__ import annotations

import datetime as dt
import re
import string
from collections.abc import Iterator
from typing import Any

from bot.kb import fit
from bot.kb.entry import (
    GRAPH_LINKS,
    ID_PATTERN,
    NEEDS_TRANSLATION_KEY,
    RESOLVABLE_VALUES,
    SEED_EVIDENCE_KEY,
    SEED_FIX_KEY,
    SEED_PRIOR_KEY,
    SEVERITIES,
    VERIFICATION_TIERS,
    WORKAROUND_KEY,
    Entry,
    Problem,
    compile_regex,
    regex_error,
)

_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               list: "a list", dict: "an object", type(None): "null"}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


class _Checker:
    """Collects every problem in one entry rather than stopping at the first."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, path, message))

    def typed(self, obj: dict, key: str, path: str, kinds: tuple[type, ...], required: bool = True) -> Any:
        """The value of ``obj[key]`` if it has one of ``kinds``; reports and returns None otherwise."""
        if key not in obj:
            if required:
                self.add(path, "missing required field")
            return None
        value = obj[key]
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            names = [_TYPE_NAMES.get(k, k.__name__) for k in kinds if not (k is int and float in kinds)]
            wanted = " or ".join(names)
            self.add(path, f"expected {wanted}, got {_type_name(value)}")
            return None
        return value

    def rate(self, obj: dict, key: str, path: str, required: bool = True) -> None:
        value = self.typed(obj, key, path, (int, float) if required else (int, float, type(None)), required)
        if isinstance(value, int | float) and not 0.0 <= value <= 1.0:
            self.add(path, f"must be between 0 and 1, got {value}")

    def text_list(self, obj: dict, key: str, path: str, required: bool = False) -> list | None:
        values = self.typed(obj, key, path, (list,), required)
        for i, item in enumerate(values or []):
            if not isinstance(item, str):
                self.add(f"{path}[{i}]", f"expected a string, got {_type_name(item)}")
        return values

    def date(self, obj: dict, key: str) -> None:
        value = self.typed(obj, key, key, (str, type(None)), required=False)
        if isinstance(value, str):
            try:
                dt.date.fromisoformat(value)
                if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                    raise ValueError
            except ValueError:
                self.add(key, f"expected a date as YYYY-MM-DD, got {value!r}")


def validate_entry(raw: Any, file: str, expected_id: str | None = None) -> list[Problem]:
    """Every problem with one entry object; ``expected_id`` comes from its path, when known."""
    check = _Checker(file)
    if not isinstance(raw, dict):
        check.add("", f"expected a JSON object, got {_type_name(raw)}")
        return check.problems

    entry_id = check.typed(raw, "id", "id", (str,))
    if entry_id is not None:
        if not ID_PATTERN.match(entry_id):
            check.add("id", f"must be domain/slug in lowercase [a-z0-9._-], got {entry_id!r}")
        elif expected_id and entry_id != expected_id:
            check.add("id", f"is {entry_id!r} but the file's place says {expected_id!r}")
    domain = check.typed(raw, "domain", "domain", (str,))
    if entry_id and domain and ID_PATTERN.match(entry_id) and entry_id.split("/")[0] != domain:
        check.add("domain", f"{domain!r} does not match the id's domain {entry_id.split('/')[0]!r}")

    for key in ("signature", "root_cause"):
        value = check.typed(raw, key, key, (str,))
        if value is not None and not value.strip():
            check.add(key, "must not be empty")
    for key in ("signature_zh", "root_cause_zh", "category", "root_cause_type", "locale"):
        check.typed(raw, key, key, (str,), required=False)
    for key in ("subcategory", "official_doc_section", "error_code"):
        check.typed(raw, key, key, (str, type(None)), required=False)

    pattern = check.typed(raw, "regex", "regex", (str,))
    if pattern is not None:
        if not pattern.strip():
            check.add("regex", "must not be empty")
        elif (reason := regex_error(pattern)) is not None:
            check.add("regex", reason)
        elif compile_regex(pattern).search("") is not None:
            check.add("regex", "matches the empty string, so it would answer every message "
                               "(an empty alternative such as a trailing `|`, or a pattern like `.*`)")
        else:
            _check_values_text(check, raw, set(compile_regex(pattern).groupindex))

    url = check.typed(raw, "official_doc_url", "official_doc_url", (str, type(None)), required=False)
    if url and not re.match(r"^https?://[^\s]+$", url):
        check.add("official_doc_url", f"expected an http(s) URL, got {url!r}")

    for key in ("aliases", "tags"):
        check.text_list(raw, key, key)

    _validate_versions(check, raw)
    _validate_actions(check, raw)

    os_notes = check.typed(raw, "os_specific", "os_specific", (dict,), required=False)
    for os_name, note in (os_notes or {}).items():
        if not isinstance(note, str):
            check.add(f"os_specific.{os_name}", f"expected a string, got {_type_name(note)}")

    graph = check.typed(raw, "transition_graph", "transition_graph", (dict,), required=False)
    for kind in graph or {}:
        if kind not in GRAPH_LINKS:
            check.add(f"transition_graph.{kind}", f"unknown link kind; expected one of {', '.join(GRAPH_LINKS)}")
        check.text_list(graph, kind, f"transition_graph.{kind}")

    severity = check.typed(raw, "severity", "severity", (str,), required=False)
    if severity is not None and severity not in SEVERITIES:
        check.add("severity", f"expected one of {', '.join(SEVERITIES)}, got {severity!r}")
    tier = check.typed(raw, "verification_tier", "verification_tier", (str,), required=False)
    if tier is not None and tier not in VERIFICATION_TIERS:
        check.add("verification_tier", f"expected one of {', '.join(VERIFICATION_TIERS)}, got {tier!r}")
    check.rate(raw, "confidence", "confidence", required=False)
    check.rate(raw, "fix_success_rate", "fix_success_rate", required=False)
    check.rate(raw, SEED_FIX_KEY, SEED_FIX_KEY, required=False)
    if "resolvable" in raw and raw["resolvable"] not in RESOLVABLE_VALUES:
        check.add("resolvable", f"expected true, false or \"partial\", got {raw['resolvable']!r}")
    for key in ("first_seen", "last_confirmed", "last_updated"):
        check.date(raw, key)
    for key in ("evidence_count", SEED_EVIDENCE_KEY):
        evidence = check.typed(raw, key, key, (int,), required=False)
        if evidence is not None and evidence < 0:
            check.add(key, f"must not be negative, got {evidence}")
    return check.problems


def _validate_versions(check: _Checker, raw: dict) -> None:
    versions = check.typed(raw, "versions", "versions", (list,), required=False)
    for i, version in enumerate(versions or []):
        path = f"versions[{i}]"
        if not isinstance(version, dict):
            check.add(path, f"expected an object, got {_type_name(version)}")
            continue
        check.typed(version, "version", f"{path}.version", (str,))
        for key in ("introduced", "deprecated", "removed", "behavior_change", "status"):
            check.typed(version, key, f"{path}.{key}", (str, type(None)), required=False)


def _validate_actions(check: _Checker, raw: dict) -> None:
    workarounds = check.typed(raw, "workarounds", "workarounds", (list,))
    keys: dict[str, int] = {}
    for i, item in enumerate(workarounds or []):
        path = f"workarounds[{i}]"
        if not isinstance(item, dict):
            check.add(path, f"expected an object, got {_type_name(item)}")
            continue
        action = check.typed(item, "action", f"{path}.action", (str,))
        pending = item.get(NEEDS_TRANSLATION_KEY)
        if pending not in (None, "en"):
            check.add(f"{path}.{NEEDS_TRANSLATION_KEY}",
                      f"must be \"en\" (the English is still to be written), got {pending!r}")
        if action is not None and not action.strip() and not str(item.get("how") or "").strip() and pending != "en":
            check.add(f"{path}.action", "must not be empty")
        check.rate(item, "success_rate", f"{path}.success_rate", required=False)  # absent: unrated
        if SEED_PRIOR_KEY in item:
            check.rate(item, SEED_PRIOR_KEY, f"{path}.{SEED_PRIOR_KEY}", required=False)
        for key in ("how", "condition", "condition_zh"):
            check.typed(item, key, f"{path}.{key}", (str,), required=False)
        _check_condition_zh(check, item, path)
        if "applies" in item:
            for field, problem in fit.problems(item["applies"]):
                check.add(f"{path}.applies" + (f".{field}" if field else ""), problem)
        check.text_list(item, "sources", f"{path}.sources")
        if "key" in item:
            key = item["key"]
            if not isinstance(key, str) or not WORKAROUND_KEY.match(key):
                check.add(f"{path}.key", f"must be 1-64 of [A-Za-z0-9._-] starting with a letter or digit, got {key!r}")
            elif key in keys:
                check.add(f"{path}.key", f"duplicate key {key!r}, also workarounds[{keys[key]}].key")
            else:
                keys[key] = i

    dead_ends = check.typed(raw, "dead_ends", "dead_ends", (list,), required=False)
    for i, item in enumerate(dead_ends or []):
        path = f"dead_ends[{i}]"
        if not isinstance(item, dict):
            check.add(path, f"expected an object, got {_type_name(item)}")
            continue
        check.typed(item, "action", f"{path}.action", (str,), required=False)
        why = check.typed(item, "why_fails", f"{path}.why_fails", (str,))
        if why is not None and not why.strip() and not str(item.get("action") or "").strip():
            check.add(f"{path}.why_fails", "must not be empty when action is empty")
        check.rate(item, "fail_rate", f"{path}.fail_rate")
        for key in ("condition", "condition_zh"):
            check.typed(item, key, f"{path}.{key}", (str,), required=False)
        _check_condition_zh(check, item, path)
        check.text_list(item, "sources", f"{path}.sources")

    for key, originals in (("workarounds_zh", workarounds), ("dead_ends_zh", dead_ends)):
        translations = check.text_list(raw, key, key)
        if translations is not None and originals is not None and len(translations) != len(originals):
            base = key.removesuffix("_zh")
            check.add(key, f"has {len(translations)} items but {base} has {len(originals)}; "
                           "they must align one to one")
    zh_works = raw.get("workarounds_zh") if isinstance(raw.get("workarounds_zh"), list) else None
    for i, item in enumerate(workarounds or []):
        if isinstance(item, dict) and item.get(NEEDS_TRANSLATION_KEY) == "en" and zh_works is not None and not (
                i < len(zh_works) and str(zh_works[i] or "").strip()):
            check.add(f"workarounds_zh[{i}]", f"must hold the text of workarounds[{i}], marked {NEEDS_TRANSLATION_KEY}")


def _check_condition_zh(check: _Checker, item: dict, path: str) -> None:
    if str(item.get("condition_zh") or "").strip() and not str(item.get("condition") or "").strip():
        check.add(f"{path}.condition_zh", "translates an empty condition; give the English condition too")


TRANSLATION_KEYS = ("signature_zh", "root_cause_zh", "workarounds_zh", "dead_ends_zh",
                    "conditions_zh", "dead_end_conditions_zh")
# what an overlay may add to an entry that must stay as its author wrote it (merged, never replacing)
ADDITIVE_KEYS = ("aliases", "tags", "transition_graph")
# an overlay's corrections of the entry's own Chinese text, for a file that must stay byte for byte
CORRECTIONS_KEY = "corrections"
CORRECTABLE = ("signature_zh", "root_cause_zh")
# overlay lists aligned one to one with a list of the entry
_ALIGNED = (("workarounds_zh", "workarounds"), ("dead_ends_zh", "dead_ends"),
            ("conditions_zh", "workarounds"), ("dead_end_conditions_zh", "dead_ends"))


def validate_translations(overlay: Any, file: str, entry: Entry | None) -> list[Problem]:
    """Problems with a translations file: unknown keys, wrong types, misalignment, overriding the entry."""
    check = _Checker(file)
    if not isinstance(overlay, dict):
        check.add("", f"expected a JSON object, got {_type_name(overlay)}")
        return check.problems
    if entry is None:
        check.add("", "translates no entry (no seed file with this domain/slug)")
        return check.problems
    for key in overlay:
        if key == CORRECTIONS_KEY:
            for field in check.typed(overlay, key, key, (dict,)) or {}:
                if field not in CORRECTABLE or field not in entry.raw:
                    check.add(f"{key}.{field}", f"corrects only the entry's own {' or '.join(CORRECTABLE)}")
                elif not isinstance(overlay[key][field], str) or not overlay[key][field].strip():
                    check.add(f"{key}.{field}", "expected the corrected text")
        elif key == "transition_graph":
            for kind in check.typed(overlay, key, key, (dict,)) or {}:
                if kind not in GRAPH_LINKS:
                    check.add(f"{key}.{kind}", f"unknown link kind; expected one of {', '.join(GRAPH_LINKS)}")
                check.text_list(overlay[key], kind, f"{key}.{kind}")
        elif key in ADDITIVE_KEYS:
            check.text_list(overlay, key, key)
        elif key not in TRANSLATION_KEYS:
            check.add(key, "not an overlay field; expected one of "
                           f"{', '.join((*TRANSLATION_KEYS, *ADDITIVE_KEYS, CORRECTIONS_KEY))}")
        elif key in entry.raw:
            check.add(key, f"the entry {entry.source} already has {key}; translate it in one place")
    for key in ("signature_zh", "root_cause_zh"):
        check.typed(overlay, key, key, (str,), required=False)
    for key, base in _ALIGNED:
        items = check.text_list(overlay, key, key)
        originals = entry.raw.get(base) or []
        if items is not None and len(items) != len(originals):
            check.add(key, f"has {len(items)} items but {base} has {len(originals)}; they must align one to one")
    return check.problems


def dangling_links(entries: dict[str, Entry]) -> Iterator[Problem]:
    """Problems for transition_graph ids that name no entry."""
    for entry in entries.values():
        for kind in GRAPH_LINKS:
            for i, target in enumerate(entry.links(kind)):
                if target not in entries:
                    yield Problem(entry.source, f"transition_graph.{kind}[{i}]", f"no entry has id {target!r}")


def _check_values_text(check: _Checker, raw: dict, groups: set[str]) -> None:
    """Each ``values_text`` sentence names only the regex's named groups, as ``{name}``."""
    for key in ("values_text", "values_text_zh"):
        for i, text in enumerate(check.text_list(raw, key, key) or []):
            if not isinstance(text, str):
                continue
            try:
                names = {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}
            except ValueError as problem:
                check.add(f"{key}[{i}]", f"is not a valid {{name}} template: {problem}")
                continue
            if unknown := sorted(names - groups):
                check.add(f"{key}[{i}]", f"names {', '.join(unknown)}, which the regex does not capture "
                                         f"(a named group: (?P<{unknown[0]}>…))")
