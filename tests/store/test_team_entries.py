"""Team-written entries in the store: ids per workspace, edits, status, votes, versions, seeding, deletion."""

from __future__ import annotations

from bot.kb.team_entry import team_raw
from bot.kb.validate import validate_entry
from bot.store.retention import Removed

BODY = {"title": "FooError: widget <n> is stuck", "root_cause": "The widget cache is full.",
        "workarounds": ["Clear the cache with `foo gc`.", "Restart the widget daemon."],
        "dead_ends": ["Raising the timeout."]}
REGEX = r"FooError: widget \d+ is stuck"


async def test_an_added_entry_gets_a_valid_id_per_workspace_and_is_listed(store, clock):
    a = await store.add_team_entry("T0ABC", "U1", "en", BODY, REGEX, "FooError: widget <n> is stuck")
    b = await store.add_team_entry("T0XYZ", "U2", "zh", {**BODY, "title": "FooError：部件卡住"}, REGEX, "x")
    assert a.entry_id.startswith("team-t0abc/") and b.entry_id.startswith("team-t0xyz/")
    assert (a.author, a.locale, a.status, a.reviewer, a.body["workarounds"][1]) == (
        "U1", "en", "live", None, "Restart the widget daemon.")
    assert validate_entry(team_raw(a.entry_id, a.locale, a.body, a.regex), "team") == []
    assert [e.entry_id for e in await store.team_entries("T0ABC")] == [a.entry_id]
    assert len(await store.team_entries(None)) == 2
    assert await store.team_entry("T0XYZ", b.entry_id) == b


async def test_the_version_moves_on_every_change_and_retired_ones_stop_being_listed(store, clock):
    assert (await store.team_version("T1")).count == 0
    made = await store.add_team_entry("T1", "U1", "en", BODY, REGEX, "ex")
    v1 = await store.team_version("T1")
    edited = await store.edit_team_entry("T1", made.entry_id, {**BODY, "title": "FooError: stuck widget"}, REGEX,
                                         editor="U9")
    assert edited.body["title"] == "FooError: stuck widget" and edited.reviewer == "U9"
    v2 = await store.team_version("T1")
    assert v2 != v1  # same clock, still a new version
    verified = await store.set_team_status("T1", made.entry_id, "verified", "U9")
    assert verified.status == "verified" and await store.team_version("T1") != v2
    await store.set_team_status("T1", made.entry_id, "retired", "U9")
    assert await store.team_entries("T1") == []
    assert [e.status for e in await store.team_entries("T1", ("retired",))] == ["retired"]
    assert await store.set_team_status("T1", "team-t1/999", "verified", "U9") is None


async def test_votes_work_on_its_workarounds_and_survive_an_edit_and_seeding(store, make_kb, nccl):
    await store.sync_entries(make_kb(nccl))
    made = await store.add_team_entry("T1", "U1", "en", BODY, REGEX, "ex")
    await store.record_button("T1", "U2", made.entry_id, 1, 1, 1.0)
    await store.edit_team_entry("T1", made.entry_id, {**BODY, "workarounds": ["Restart the widget daemon."]}, REGEX)
    report = await store.sync_entries(make_kb(nccl))  # the seeds do not hold team entries: not retired
    assert made.entry_id not in report.retired
    live = (await store.feedback([made.entry_id]))[made.entry_id]
    assert live.workarounds[0].up == 1  # the vote followed its workaround to its new place


async def test_deleting_a_workspace_removes_its_team_entries_and_fixes_only(store):
    mine = await store.add_team_entry("T1", "U1", "en", BODY, REGEX, "ex")
    theirs = await store.add_team_entry("T2", "U1", "en", BODY, REGEX, "ex")
    await store.record_button("T1", "U2", mine.entry_id, 0, 1, 1.0)
    removed: Removed = await store.delete_workspace("T1")
    assert removed.rows["team_entries"] == 1 and removed.rows["votes"] == 1
    assert await store.team_entry("T1", mine.entry_id) is None and await store.team_entry("T2", theirs.entry_id) is not None
    assert await store.check() == []
