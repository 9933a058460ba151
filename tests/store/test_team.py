"""Unknown errors' shapes in the store: counted per workspace, switched off per workspace, expired, deleted with it."""

from __future__ import annotations

from bot.config import Retention

DAY = 86400.0


async def test_sightings_count_per_workspace_and_keep_first_and_last_seen(store, clock):
    start = clock.now
    await store.seen_unknown("T1", "C1", "d1", "FooError: bad <n>", "FooError")
    clock.now = start + 60
    await store.seen_unknown("T1", "C2", "d1", "FooError: bad <n>", "FooError")
    await store.seen_unknown("T1", "C1", "d2", "error: other", None)
    await store.seen_unknown("T2", "C9", "d1", "FooError: bad <n>", "FooError")

    mine = await store.unknown_errors("T1")
    assert [(u.digest, u.count, u.channel, u.first_seen, u.last_seen) for u in mine] == [
        ("d1", 2, "C2", start, start + 60), ("d2", 1, "C1", start + 60, start + 60)]
    assert [u.count for u in await store.unknown_errors("T2")] == [1]
    assert len(await store.unknown_errors()) == 3


async def test_off_forgets_this_workspace_only_and_on_is_the_default(store):
    await store.seen_unknown("T1", "C1", "d1", "FooError: bad", "FooError")
    await store.seen_unknown("T2", "C1", "d1", "FooError: bad", "FooError")
    assert await store.remembers_unknown("T1")
    await store.set_remember_unknown("T1", False)
    assert not await store.remembers_unknown("T1") and await store.remembers_unknown("T2")
    assert await store.unknown_errors("T1") == [] and len(await store.unknown_errors("T2")) == 1
    await store.set_remember_unknown("T1", True)
    assert await store.remembers_unknown("T1")


async def test_they_expire_with_the_hit_counts_and_go_with_their_workspace(store, clock):
    now = clock.now
    clock.now = now - 400 * DAY
    await store.seen_unknown("T1", "C1", "old", "FooError: old", "FooError")
    clock.now = now
    await store.seen_unknown("T1", "C1", "new", "FooError: new", "FooError")
    await store.set_remember_unknown("T1", False)
    await store.set_remember_unknown("T1", True)
    await store.seen_unknown("T1", "C1", "new", "FooError: new", "FooError")
    await store.seen_unknown("T1", "C1", "old", "FooError: old", "FooError")
    clock.now = now - 400 * DAY
    await store.seen_unknown("T3", "C1", "old", "FooError: old", "FooError")
    clock.now = now

    removed = await store.prune(Retention(posted_days=90, hits_days=365))
    assert removed.rows == {"unknown_errors": 1}
    assert [u.digest for u in await store.unknown_errors("T1")] == ["new", "old"]  # same count and time: by digest
    assert (await store.delete_workspace("T1")).rows == {"unknown_errors": 2, "workspace_settings": 1}
    assert await store.unknown_errors("T1") == [] and await store.remembers_unknown("T1")
