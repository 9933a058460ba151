"""``errkb seed``: idempotent, and votes follow workarounds through edits, reorders and removals."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from bot.kb.feedback import Tally
from bot.kb.seeds import SeedError, Seeds
from bot.store import Store, UnknownTarget, sync

NCCL = "pytorch/nccl-timeout-during-allreduce"
OTHER = "pytorch/other-error"


async def vote(store: Store, user: str, workaround: int | None, token: str = "+1", at: float = 1.0) -> None:
    await store.record_vote("T1", user, NCCL, workaround, token, True, at)


async def tallies(store: Store) -> dict[int, Tally]:
    return (await store.feedback([NCCL]))[NCCL].workarounds


async def test_first_seed_adds_and_second_changes_nothing(store, make_kb, nccl, other):
    first = await store.sync_entries(make_kb(nccl, other))
    assert sorted(first.added) == [NCCL, OTHER]
    assert first.updated == first.unchanged == first.retired == []
    second = await store.sync_entries(make_kb(nccl, other))
    assert sorted(second.unchanged) == [NCCL, OTHER]
    assert second.added == second.updated == second.retired == second.retired_workarounds == []


async def test_seeding_again_keeps_votes(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    await vote(seeded, "U2", 1, "-1")
    await seeded.sync_entries(make_kb(nccl, other))
    assert await tallies(seeded) == {0: Tally(1, 0), 1: Tally(0, 1), 2: Tally()}


async def test_key_order_and_whitespace_in_the_file_are_not_edits(seeded, make_kb, nccl, other):
    reordered = dict(reversed(list(nccl.items())))
    assert (await seeded.sync_entries(make_kb(reordered, other))).unchanged == [NCCL, OTHER]


async def test_editing_a_workaround_keeps_its_votes(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    await vote(seeded, "U2", 0)
    nccl["workarounds"][0]["action"] = nccl["workarounds"][0]["action"].replace("eth0", "ib0") + " Retry."
    report = await seeded.sync_entries(make_kb(nccl, other))
    assert report.updated == [NCCL] and report.unchanged == [OTHER] and report.retired_workarounds == []
    assert (await tallies(seeded))[0] == Tally(2, 0)


async def test_reordering_workarounds_moves_their_votes_with_them(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    await vote(seeded, "U2", 2, "-1")
    nccl["workarounds"].reverse()
    nccl["workarounds_zh"].reverse()
    await seeded.sync_entries(make_kb(nccl, other))
    assert await tallies(seeded) == {0: Tally(0, 1), 1: Tally(), 2: Tally(1, 0)}
    # New votes land on the workaround now at that index.
    await vote(seeded, "U3", 2)
    assert (await tallies(seeded))[2] == Tally(2, 0)


async def test_edit_and_reorder_at_once(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 1)
    reduce = nccl["workarounds"].pop(1)
    reduce["action"] = reduce["how"] = "Reduce the batch size or model size to lower the communication volume."
    nccl["workarounds"].insert(0, reduce)
    nccl["workarounds_zh"].insert(0, nccl["workarounds_zh"].pop(1))
    await seeded.sync_entries(make_kb(nccl, other))
    assert await tallies(seeded) == {0: Tally(1, 0), 1: Tally(), 2: Tally()}


async def test_an_explicit_key_keeps_votes_through_a_rewrite(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 2)
    nccl["workarounds"][2]["key"] = "use-gloo"  # adding the key to unchanged text keeps the identity
    await seeded.sync_entries(make_kb(nccl, other))
    nccl["workarounds"][2]["action"] = "Initialise the process group with backend='gloo'."
    nccl["workarounds"][2]["how"] = ""
    await seeded.sync_entries(make_kb(nccl, other))
    assert (await tallies(seeded))[2] == Tally(1, 0)


async def test_a_removed_workaround_is_retired_with_its_history(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    await vote(seeded, "U2", 1)
    removed = nccl["workarounds"].pop(0)
    removed_zh = nccl["workarounds_zh"].pop(0)
    report = await seeded.sync_entries(make_kb(nccl, other))
    assert report.retired_workarounds == [f"{NCCL} workarounds[0]"]
    assert await tallies(seeded) == {0: Tally(1, 0), 1: Tally()}
    feedback = (await seeded.feedback([NCCL]))[NCCL]
    assert feedback.distinct_voters == 2  # the retired workaround's voter still counts as evidence
    assert await seeded.check() == []
    # Restored, it gets its votes back.
    nccl["workarounds"].append(removed)
    nccl["workarounds_zh"].append(removed_zh)
    assert (await seeded.sync_entries(make_kb(nccl, other))).retired_workarounds == []
    assert await tallies(seeded) == {0: Tally(1, 0), 1: Tally(), 2: Tally(1, 0)}


async def test_an_entry_left_out_is_retired_and_comes_back_with_its_votes(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    report = await seeded.sync_entries(make_kb(other))
    assert report.retired == [NCCL] and report.unchanged == [OTHER]
    with pytest.raises(UnknownTarget):
        await vote(seeded, "U2", 0)
    report = await seeded.sync_entries(make_kb(nccl, other))
    assert report.updated == [NCCL]
    assert (await tallies(seeded))[0] == Tally(1, 0)


async def test_an_invalid_seed_is_refused_whole_and_nothing_changes(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    nccl["workarounds"].reverse()  # a valid change...
    nccl["workarounds_zh"].reverse()
    other["regex"] = "(a)\\1"  # ...next to an invalid entry
    with pytest.raises(SeedError) as refused:
        await seeded.sync_entries(make_kb(nccl, other))
    assert "pytorch/other-error.json: regex: RE2 cannot compile it" in str(refused.value)
    assert await tallies(seeded) == {0: Tally(1, 0), 1: Tally(), 2: Tally()}


async def test_duplicate_workaround_keys_are_refused_with_their_place(seeded, make_kb, nccl):
    nccl["workarounds"][0]["key"] = nccl["workarounds"][1]["key"] = "net"
    with pytest.raises(SeedError, match=r"workarounds\[1\]\.key: duplicate key 'net'"):
        await seeded.sync_entries(make_kb(nccl))


async def test_an_empty_kb_is_refused_rather_than_retiring_everything(seeded):
    with pytest.raises(SeedError, match="no entries"):
        await seeded.sync_entries({})
    await vote(seeded, "U1", 0)  # still live
    assert (await tallies(seeded))[0] == Tally(1, 0)


async def test_votes_follow_through_many_rounds_of_edits(seeded, make_kb, nccl, other):
    await vote(seeded, "U1", 0)
    await vote(seeded, "U2", 2, "-1")
    await vote(seeded, "U3", 2, "-1")
    for round_ in range(4):  # rotate left and edit the new first workaround, four times
        nccl["workarounds"].append(nccl["workarounds"].pop(0))
        nccl["workarounds_zh"].append(nccl["workarounds_zh"].pop(0))
        nccl["workarounds"][0]["action"] += f" (rev {round_})"
        report = await seeded.sync_entries(make_kb(nccl, other))
        assert report.retired_workarounds == []
    # Four left rotations of three: the original workaround 0 is now at index 2, 2 at 1.
    assert await tallies(seeded) == {0: Tally(), 1: Tally(0, 2), 2: Tally(1, 0)}
    assert await seeded.check() == []


async def test_keys_given_from_the_first_seed_carry_votes_through_a_rewrite(store, make_kb, nccl):
    for key, workaround in zip(("net", "smaller", "gloo"), nccl["workarounds"], strict=True):
        workaround["key"] = key
    await store.sync_entries(make_kb(nccl))
    await vote(store, "U1", 1)
    nccl["workarounds"] = [nccl["workarounds"][1], nccl["workarounds"][0]]  # reorder, drop "gloo"
    nccl["workarounds"][0]["action"] = nccl["workarounds"][0]["how"] = "Train on fewer GPUs."
    nccl["workarounds_zh"] = nccl["workarounds_zh"][:2]
    report = await store.sync_entries(make_kb(nccl))
    assert report.retired_workarounds == [f"{NCCL} workarounds[2]"]
    assert await tallies(store) == {0: Tally(1, 0), 1: Tally()}


class TestUnchangedSeeds:
    """A sync of the very seeds the store holds (``load_seeds``' result, with its files' hash) does nothing."""

    @staticmethod
    def seeds(make_kb, *raws, digest: str) -> Seeds:
        return Seeds(make_kb(*raws), digest=digest)

    async def test_a_second_start_with_the_same_seeds_compares_no_entry(self, store, db_url, clock, make_kb, nccl,
                                                                         other, monkeypatch):
        assert sorted((await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v1"))).added) == [NCCL, OTHER]
        clock.now += 60
        monkeypatch.setattr(sync, "canonical_json", lambda raw: pytest.fail("entries compared again"))
        again = await Store.open(db_url)  # as the next errkb serve does
        try:
            report = await again.sync_entries(self.seeds(make_kb, nccl, other, digest="v1"))
        finally:
            await again.close()
        assert report.unchanged == [NCCL, OTHER] and report.added == report.updated == report.retired == []

    async def test_a_changed_seed_is_synced(self, store, clock, make_kb, nccl, other):
        await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v1"))
        await vote(store, "U1", 0)
        nccl["workarounds"][0]["action"] += " Retry."
        clock.now += 60
        report = await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v2"))
        assert report.updated == [NCCL] and report.unchanged == [OTHER]
        async with store.engine.connect() as conn:
            stored = (await conn.execute(text("SELECT content FROM entries WHERE id = :id"), {"id": NCCL})).scalar_one()
        assert json.loads(stored)["workarounds"][0]["action"].endswith(" Retry.")
        assert (await tallies(store))[0] == Tally(1, 0)
        assert (await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v2"))).unchanged == [NCCL, OTHER]

    async def test_entries_written_by_something_else_are_compared_again(self, store, clock, make_kb, nccl, other):
        await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v1"))
        edited = {**nccl, "root_cause": "Something else entirely."}
        clock.now += 60
        assert (await store.sync_entries(make_kb(edited, other))).updated == [NCCL]  # no hash: e.g. an older errkb
        clock.now += 60
        report = await store.sync_entries(self.seeds(make_kb, nccl, other, digest="v1"))
        assert report.updated == [NCCL]  # put back, though these seeds were synced before
