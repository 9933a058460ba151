"""Bounded and owned data: old rows expire, one workspace's data can be removed, stats never mix
workspaces, and a deleted workspace's votes stay only as anonymous counts (``db check`` agrees)."""

from __future__ import annotations

import datetime as dt

from bot.config import Retention

NCCL = "pytorch/nccl-timeout-during-allreduce"
DAY = 86400.0


async def test_posted_messages_and_hits_expire_after_their_retention(seeded, clock):
    now = clock.now
    clock.now = now - 100 * DAY
    await seeded.remember_message("T1", "C1", "1.1", NCCL, 0, "en", thread_ts="1.0")
    clock.now = now - 10 * DAY
    await seeded.remember_message("T1", "C1", "2.1", NCCL, 0, "en", thread_ts="2.0")
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    await seeded.record_hit(NCCL, "en", today - dt.timedelta(days=400), workspace="T1")
    await seeded.record_hit(NCCL, "en", today - dt.timedelta(days=3), workspace="T1")
    clock.now = now

    removed = await seeded.prune(Retention(posted_days=90, hits_days=365))

    assert removed.rows == {"posted_messages": 1, "hits": 1}
    assert await seeded.message_target("T1", "C1", "1.1") is None  # a reaction there is no longer a vote
    assert await seeded.message_target("T1", "C1", "2.1") is not None
    assert [e.hits for e in (await seeded.stats(workspace="T1")).top_entries] == [1]
    assert (await seeded.prune(Retention(posted_days=0, hits_days=0))).total == 0  # 0 keeps for ever


async def test_stats_of_one_workspace_hold_only_its_hits_and_votes(seeded):
    await seeded.record_hit(NCCL, "en", workspace="T1")
    await seeded.record_hit(NCCL, "zh", workspace="T2")
    await seeded.record_hit(NCCL, "zh", workspace="T2")
    await seeded.record_vote("T2", "U1", NCCL, 0, "+1", True, 1.0)
    await seeded.record_vote("T2", "U2", NCCL, 0, "-1", True, 2.0)

    one, two, everyone = (await seeded.stats(workspace="T1"), await seeded.stats(workspace="T2"),
                          await seeded.stats())
    assert (one.hits_by_locale, one.votes_up, one.votes_down, one.voters, one.top_workarounds) == ({"en": 1}, 0, 0, 0, [])
    assert (two.hits_by_locale, two.votes_up, two.votes_down, two.voters) == ({"zh": 2}, 1, 1, 2)
    assert [(w.entry_id, w.workaround, w.up, w.down) for w in two.top_workarounds] == [(NCCL, 0, 1, 1)]
    assert (everyone.hits_by_locale, everyone.votes_up) == ({"en": 1, "zh": 2}, 1)


async def test_deleting_a_workspace_removes_its_rows_and_keeps_its_votes_as_counts(seeded):
    for team in ("T1", "T2"):
        await seeded.remember_message(team, "C1", "1.1", NCCL, 0, "en", thread_ts="1.0")
        await seeded.record_vote(team, "U1", NCCL, 0, "+1", True, 1.0)
        await seeded.record_hit(NCCL, "en", workspace=team)
        await seeded.set_channel_mode(team, "C1", "off")
        await seeded.set_locale_override(team, "U1", "zh")

    removed = await seeded.delete_workspace("T1")

    assert removed.rows == {"votes": 1, "posted_messages": 1, "hits": 1, "channels": 1, "user_prefs": 1}
    assert await seeded.message_target("T1", "C1", "1.1") is None
    assert await seeded.channel_mode("T1", "C1") == "auto"
    assert await seeded.message_target("T2", "C1", "1.1") is not None
    assert await seeded.channel_mode("T2", "C1") == "off"
    live = (await seeded.feedback([NCCL]))[NCCL]
    assert live.workarounds[0].up == 2  # the KB's rate still counts T1's vote…
    assert (await seeded.stats(workspace="T1")).votes_up == 0  # …but nothing says who cast it
    assert await seeded.check() == []
    assert (await seeded.delete_workspace("T1")).total == 0



async def test_finished_notes_go_after_an_hour_and_answers_with_their_posted_messages(seeded, clock):
    from bot.store.records import Decision

    def decision(key: str, kind: str, age: float) -> Decision:
        return Decision(key, kind, "T1", "C1", "1.0", "1.1", "U1", NCCL if kind == "answer" else None, (),
                        clock.now - age)

    kept = [decision("note-recent", "nothing", 600), decision("answer-old", "answer", 30 * DAY)]
    old_note, ancient = decision("note-old", "nothing", 7200), decision("answer-ancient", "answer", 100 * DAY)
    for d in [*kept, old_note, ancient]:
        assert await seeded.record_decision(d, "me", 0.0, done=True)
    pending = decision("note-pending", "root", 7200)  # not finished yet: never pruned
    assert await seeded.record_decision(pending, "me", clock.now + 60)

    assert (await seeded.prune(Retention(posted_days=0))).rows.get("decisions") == 1  # 0 keeps answers for ever
    assert (await seeded.prune(Retention(posted_days=90))).rows.get("decisions") == 1

    for d in [*kept, pending]:
        assert await seeded.record_decision(d, "other", 0.0) is None  # still taken: no second answer or note
    for d in (old_note, ancient):
        assert await seeded.record_decision(d, "other", 0.0) is not None  # free again
