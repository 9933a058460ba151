"""``errkb export --team``: a workspace's team entries and suggested fixes as files that pass ``errkb validate``
over the bundled seeds, and that ``errkb seed`` takes back without doubling an entry or a fix."""

from __future__ import annotations

import asyncio
import difflib
import json
import shutil

from bot.cli import main
from bot.kb.feedback import SUGGESTED_BASE, Tally
from bot.kb.knowledge import KnowledgeBase
from bot.kb.normalize import normalize
from bot.kb.quality import lint
from bot.store import Store
from tests.conftest import NCCL_ID, REPO, SEEDS

TEAM = "T0ACME"
BODY = {"title": "AcmeWidgetError: frobnicator rejected shard", "root_cause": "The shard map is stale after a resize.",
        "workarounds": ["Rebuild the shard map with `acme shards rebuild`."], "dead_ends": ["Restarting the widget."]}
REGEX = r"AcmeWidgetError: frobnicator \S+ rejected shard \d+"
EXAMPLE = "AcmeWidgetError: frobnicator <name> rejected shard 7 from <path>"
FIX = "Set NCCL_P2P_DISABLE=1 on the nodes without NVLink."
ZH_FIX = "把 `NCCL_TIMEOUT` 调到 1800 秒，先让慢节点跑完。"  # written in Chinese only


async def _teach(url: str) -> tuple[str, int, int]:
    async with await Store.open(url) as store:
        team = await store.add_team_entry(TEAM, "U1", "en", BODY, REGEX, EXAMPLE)
        kb_fix = await store.suggest_fix(TEAM, NCCL_ID, "U2", "en", FIX)
        team_fix = await store.suggest_fix(TEAM, team.entry_id, "U3", "zh", "先清空缓存再重试。", "Clear the cache, then retry.")
        await store.record_button(TEAM, "U4", NCCL_ID, kb_fix.index, 1, 10.0)
        await store.suggest_fix(TEAM, NCCL_ID, "U5", "zh", ZH_FIX)
        await store.suggest_fix("T0OTHER", NCCL_ID, "U9", "en", "Another team's fix stays theirs.")
        return team.entry_id, kb_fix.index, team_fix.index


def run(capsys, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def test_export_validates_over_the_bundled_seeds_and_seeds_back_without_doubles(tmp_path, seeded_db, capsys,
                                                                                 monkeypatch):
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    url = f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    team_id, kb_index, team_index = asyncio.run(_teach(url))

    code, out = run(capsys, "export", "--team", TEAM, "--out", str(tmp_path / "out"), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert (report["team_entries"], report["amended_entries"], report["suggested_fixes"]) == ([team_id], [NCCL_ID], 3)

    exported = (tmp_path / "out" / "seeds" / f"{NCCL_ID}.json").read_text(encoding="utf-8")
    bundled = (SEEDS / f"{NCCL_ID}.json").read_text(encoding="utf-8")
    nccl, original = json.loads(exported), json.loads(bundled)
    edits = difflib.SequenceMatcher(None, bundled, exported, autojunk=False).get_opcodes()
    assert {tag for tag, *_ in edits} == {"equal", "insert"}  # the seed's own bytes all stay, layout and all…
    grown = ("workarounds", "workarounds_zh")
    assert {k: v for k, v in nccl.items() if k not in grown} == {k: v for k, v in original.items() if k not in grown}
    assert nccl["workarounds_zh"][:-2] == original["workarounds_zh"]  # …and what is added is the fixes
    assert nccl["workarounds"][:-2] == original["workarounds"]
    added, chinese = nccl["workarounds"][-2:]
    assert (chinese["action"], chinese["needs_translation"], nccl["workarounds_zh"][-2:]) == ("", "en", ["", ZH_FIX])
    assert (added["action"], added["key"], added["seed_success_rate"]) == (FIX, f"team-fix-{kb_index - SUGGESTED_BASE}",
                                                                           None)
    assert added["success_rate"] == 0.75  # its one 👍 on the weak prior
    assert "Another team's fix" not in json.dumps(nccl)
    mine = json.loads((tmp_path / "out" / "seeds" / f"{team_id}.json").read_text(encoding="utf-8"))
    assert mine["workarounds"][-1]["action"] == "Clear the cache, then retry."
    assert mine["workarounds_zh"] == ["", "先清空缓存再重试。"]  # written in Chinese; the entry's own is not yet
    fixture = (tmp_path / "out" / "pastes" / team_id / "1.txt").read_text(encoding="utf-8")
    assert fixture == EXAMPLE + "\n"

    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    shutil.copytree(tmp_path / "out" / "seeds", seeds, dirs_exist_ok=True)
    assert run(capsys, "validate", str(seeds))[0] == 0

    code, out = run(capsys, "seed", str(seeds))
    assert code == 0 and "0 retired" in out
    code, out = run(capsys, "seed", str(seeds))
    assert " 0 added, 0 updated" in out  # seeding it again changes nothing

    async def after() -> None:
        async with await Store.open(url) as store:
            assert NCCL_ID not in (await store.suggested_fixes(TEAM))  # it is the KB's fourth fix now…
            assert team_id not in (await store.suggested_fixes(TEAM))
            live = (await store.feedback([NCCL_ID], TEAM))[NCCL_ID]
            assert live.workarounds[len(original["workarounds"])] == Tally(1, 0)  # …with its vote
            assert kb_index not in live.workarounds and team_index not in live.workarounds
            assert [f.text for f in (await store.suggested_fixes("T0OTHER"))[NCCL_ID]] == [
                "Another team's fix stays theirs."]
            assert len(await store.team_entries(TEAM)) == 1
            assert await store.check() == []
    asyncio.run(after())
    taught = KnowledgeBase.load(seeds)
    claimed = taught.entries[NCCL_ID].workarounds[len(original["workarounds"])]
    assert claimed.prior is None  # still nobody's estimate: shown by its votes, not as an authored 50%
    # the fixture is answered by its own entry, as `errkb lint` checks
    assert [m.entry_id for m in taught.matcher.match(normalize(fixture), limit=1)] == [team_id]
    gaps = lint({NCCL_ID: taught.entries[NCCL_ID]}, taught.matcher, REPO / "pastes", taught.entries)
    assert [(p.path, p.message) for p in gaps] == [  # the Chinese-only fix is reported as such, nothing else
        (f"workarounds[{len(original['workarounds']) + 1}].action",
         "missing English translation (written in Chinese only, in workarounds_zh)"),
        (f"workarounds_zh[{len(original['workarounds'])}]", "missing Chinese translation")]
