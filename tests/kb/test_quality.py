"""`errkb lint`: the quality gaps a machine can see beyond validity."""

from __future__ import annotations

import json

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.quality import CHAT_DIR, lint, lost_code_spans


def _lint(raw: dict, tmp_path, chat: list[str] | None = None) -> list[str]:
    fixtures = tmp_path / "pastes"
    pastes = fixtures / raw["id"]
    pastes.mkdir(parents=True)
    for i in (1, 2):
        (pastes / f"{i}.txt").write_text("RuntimeError: [torch.distributed] AllReduce timed out in rank 3 (timeout: 1800)\n")
    (fixtures / CHAT_DIR).mkdir()
    (fixtures / CHAT_DIR / "chat.json").write_text(json.dumps(chat or ["lunch at noon?"]), encoding="utf-8")
    entries = {raw["id"]: Entry(raw, source="x.json", translations={"dead_ends_zh": ["一", "二", "三"]})}
    return [f"{p.path}: {p.message}" for p in lint(entries, Matcher(entries), fixtures)]


def test_the_users_entry_has_no_gap(nccl_raw, tmp_path):
    assert _lint(nccl_raw, tmp_path) == []


def test_a_chinese_workaround_that_drops_a_command_is_reported(nccl_raw, tmp_path):
    nccl_raw["workarounds_zh"][2] = "如果 NCCL 有问题，换成 Gloo 后端。"
    assert _lint(nccl_raw, tmp_path) == [
        "workarounds_zh[2]: drops code the English has: `torch.distributed.init_process_group(backend='gloo', ...)`"
    ]


def test_an_untranslated_condition_is_reported(nccl_raw, tmp_path):
    nccl_raw["workarounds"][1]["condition"] = "single-node jobs"
    assert _lint(nccl_raw, tmp_path) == [
        "workarounds[1].condition_zh: missing Chinese translation of the condition 'single-node jobs'"
    ]
    nccl_raw["workarounds"][1]["condition_zh"] = "单机训练"
    assert _lint(nccl_raw, tmp_path / "again") == []


def test_a_regex_that_matches_chat_is_reported(nccl_raw, tmp_path):
    chat = ["did the AllReduce timed out in rank 0 (timeout: 5) thing happen again?", "lunch?"]
    assert _lint(nccl_raw, tmp_path, chat) == [
        "regex: matches chat that must match nothing: 'did the AllReduce timed out in rank 0 (timeout: 5) thing ha…'"
    ]


def test_code_spans_must_appear_verbatim():
    assert lost_code_spans("Run `pip install -U x` then `x --check`", "先运行 `pip install -U x`，再 x --check") == []
    assert lost_code_spans("Set `NCCL_DEBUG=INFO`", "设置 NCCL 调试日志") == ["NCCL_DEBUG=INFO"]
    mysql = "Quote it: ``SELECT `order` FROM t``, or rename `order`"
    assert lost_code_spans(mysql, "加反引号：``SELECT `order` FROM t``，或给 `order` 改名") == []
    assert lost_code_spans(mysql, "加反引号，或给 `order` 改名") == ["SELECT `order` FROM t"]
