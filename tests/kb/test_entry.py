"""Entry validation: every problem reported by file and JSON path."""

from __future__ import annotations

import pytest

from bot.kb.entry import Entry
from bot.kb.validate import validate_entry


def problems(raw: dict) -> list[str]:
    return [f"{p.path}: {p.message}" for p in validate_entry(raw, "x.json", expected_id="pytorch/nccl-timeout-during-allreduce")]


def test_the_users_entry_is_valid(nccl_raw):
    assert validate_entry(nccl_raw, "x.json") == []


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda r: r.pop("signature"), "signature: missing required field"),
        (lambda r: r.update(confidence="high"), "confidence: expected a number or null, got a string"),
        (lambda r: r["workarounds"][1].update(success_rate=1.5), "workarounds[1].success_rate: must be between 0 and 1"),
        (lambda r: r["dead_ends"][2].update(fail_rate=-0.1), "dead_ends[2].fail_rate: must be between 0 and 1"),
        (lambda r: r.update(id="PyTorch/NCCL Timeout"), "id: must be domain/slug in lowercase"),
        (lambda r: r.update(id="pytorch/other"), "id: is 'pytorch/other' but the file's place says"),
        (lambda r: r["workarounds_zh"].pop(), "workarounds_zh: has 2 items but workarounds has 3"),
        (lambda r: r.update(dead_ends_zh=["一"]), "dead_ends_zh: has 1 items but dead_ends has 3"),
        (lambda r: r.update(first_seen="2024-13-01"), "first_seen: expected a date as YYYY-MM-DD"),
        (lambda r: r.update(last_updated="June 1"), "last_updated: expected a date as YYYY-MM-DD"),
        (lambda r: r.update(regex=r"(a)\1"), "regex: RE2 cannot compile it: invalid escape sequence"),
        (lambda r: r.update(regex="(?<=x)y"), "regex: RE2 cannot compile it"),
        (lambda r: r.update(regex=r"\pL{1000}\pL{1000}"), "regex: RE2 cannot compile it within its 2 MiB budget"),
        (lambda r: r.update(tags="nccl"), "tags: expected a list, got a string"),
        (lambda r: r.update(verification_tier="gut_feeling"), "verification_tier: expected one of"),
        (lambda r: r.update(resolvable="maybe"), "resolvable: expected true, false or"),
        (lambda r: r.update(severity="fatal"), "severity: expected one of error, warning, info, got 'fatal'"),
        (lambda r: r.update(domain="cuda"), "domain: 'cuda' does not match the id's domain 'pytorch'"),
        (lambda r: r["versions"][0].pop("version"), "versions[0].version: missing required field"),
        (lambda r: r.update(evidence_count=-2), "evidence_count: must not be negative"),
        (lambda r: r.update(official_doc_url="docs page"), "official_doc_url: expected an http(s) URL"),
        (lambda r: r.update(regex="(?s).*"), "regex: matches the empty string, so it would answer every message"),
        (lambda r: r.update(regex="AllReduce timed out|"), "regex: matches the empty string"),
        (lambda r: r["workarounds"][0].update(condition_zh=3), "workarounds[0].condition_zh: expected a string"),
        (lambda r: r["dead_ends"][1].update(condition="", condition_zh="多机"), "dead_ends[1].condition_zh: translates an empty condition"),
    ],
)
def test_each_problem_is_reported_by_path(nccl_raw, mutate, expected):
    mutate(nccl_raw)
    found = problems(nccl_raw)
    assert any(line.startswith(expected) for line in found), found


def test_every_problem_is_reported_not_just_the_first(nccl_raw):
    nccl_raw["confidence"] = 2
    nccl_raw["workarounds"][0]["success_rate"] = "high"
    nccl_raw["first_seen"] = "yesterday"
    paths = {line.split(":")[0] for line in problems(nccl_raw)}
    assert {"confidence", "workarounds[0].success_rate", "first_seen"} <= paths


def test_a_non_object_is_reported():
    assert [p.message for p in validate_entry([1, 2], "x.json")] == ["expected a JSON object, got a list"]


def test_empty_dead_end_action_renders_its_reason(nccl_raw):
    entry = Entry(nccl_raw)
    assert entry.dead_ends[0].action == ""
    assert entry.dead_ends[0].why_fails.startswith("If the underlying issue")


def test_exported_prior_is_kept_apart_from_the_live_rate(nccl_raw):
    nccl_raw["workarounds"][0]["success_rate"] = 0.6
    nccl_raw["workarounds"][0]["seed_success_rate"] = 0.85
    assert Entry(nccl_raw).workarounds[0].prior == 0.85
    assert Entry(nccl_raw).workarounds[1].prior == 0.75


def test_workaround_keys_are_checked(nccl_raw):
    for workaround, key in zip(nccl_raw["workarounds"], ["net", "net", "~auto"], strict=True):
        workaround["key"] = key
    assert [line for line in problems(nccl_raw) if ".key" in line] == [
        "workarounds[1].key: duplicate key 'net', also workarounds[0].key",
        "workarounds[2].key: must be 1-64 of [A-Za-z0-9._-] starting with a letter or digit, got '~auto'",
    ]


def test_a_condition_reads_in_chinese_from_the_item_or_the_overlay(nccl_raw):
    nccl_raw["workarounds"][0].update(condition="multi-node jobs", condition_zh="多机训练")
    nccl_raw["dead_ends"][0]["condition"] = "slow storage"
    entry = Entry(nccl_raw, translations={"dead_end_conditions_zh": ["存储慢", "", ""]})
    assert (entry.workarounds[0].condition, entry.workarounds[0].condition_zh) == ("multi-node jobs", "多机训练")
    assert entry.workarounds[1].condition_zh is None
    assert (entry.dead_ends[0].condition, entry.dead_ends[0].condition_zh) == ("slow storage", "存储慢")
    assert entry.dead_ends[1].condition_zh is None


def test_a_packed_entry_reads_as_the_entry_it_was_made_from(nccl_raw):
    import json

    from bot.kb.entry import pack

    plain = Entry(nccl_raw, source="s.json", translations={"dead_end_conditions_zh": ["存储慢"]})
    packed = Entry.packed(plain.id, pack(nccl_raw), "s.json", {"dead_end_conditions_zh": ["存储慢"]})
    assert packed == plain and packed.raw == nccl_raw and list(packed.raw) == list(nccl_raw)
    assert (packed.id, packed.signature, packed.workarounds, packed.dead_ends) == \
        (plain.id, plain.signature, plain.workarounds, plain.dead_ends)
    assert len(packed.packed_raw) < len(json.dumps(nccl_raw)) / 2


def test_a_fix_written_only_in_chinese_is_valid_and_reported_until_its_english_comes(nccl_raw):
    nccl_raw["workarounds"].append({"action": "", "success_rate": 0.5, "needs_translation": "en"})
    nccl_raw["workarounds_zh"].append("先清空缓存再重试。")
    assert problems(nccl_raw) == []
    nccl_raw["workarounds_zh"][-1] = ""
    nccl_raw["workarounds"][0]["needs_translation"] = "zh"
    assert problems(nccl_raw) == [
        'workarounds[0].needs_translation: must be "en" (the English is still to be written), got \'zh\'',
        "workarounds_zh[3]: must hold the text of workarounds[3], marked needs_translation"]
    del nccl_raw["workarounds"][-1]["needs_translation"]
    assert "workarounds[3].action: must not be empty" in problems(nccl_raw)
