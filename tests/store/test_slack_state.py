"""What the Slack adapter keeps: its messages, user locales, channel modes, handled event ids."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.store import PostedMessage, Store, UnknownTarget, UserPrefs

NCCL = "pytorch/nccl-timeout-during-allreduce"


class TestMessages:
    async def test_a_remembered_message_maps_back_to_its_target(self, seeded):
        await seeded.remember_message("T1", "C1", "1700000000.000100", NCCL, 1, "zh", thread_ts="1700000000.000001")
        await seeded.remember_message("T1", "C1", "1700000000.000200", NCCL, None, "en")
        assert await seeded.message_target("T1", "C1", "1700000000.000100") == PostedMessage(
            NCCL, 1, "zh", "1700000000.000001")
        assert await seeded.message_target("T1", "C1", "1700000000.000200") == PostedMessage(NCCL, None, "en", None)

    async def test_someone_elses_message_is_not_ours(self, seeded):
        await seeded.remember_message("T1", "C1", "1.1", NCCL, 0, "en")
        assert await seeded.message_target("T1", "C1", "1.2") is None
        assert await seeded.message_target("T1", "C2", "1.1") is None
        assert await seeded.message_target("T2", "C1", "1.1") is None

    async def test_a_reply_follows_its_workaround_when_the_seeds_reorder(self, seeded, make_kb, nccl, other):
        await seeded.remember_message("T1", "C1", "1.1", NCCL, 0, "en")
        nccl["workarounds"].reverse()
        nccl["workarounds_zh"].reverse()
        await seeded.sync_entries(make_kb(nccl, other))
        assert (await seeded.message_target("T1", "C1", "1.1")).workaround == 2

    async def test_a_reply_about_a_retired_workaround_takes_no_more_votes(self, seeded, make_kb, nccl, other):
        await seeded.remember_message("T1", "C1", "1.1", NCCL, 0, "en")
        del nccl["workarounds"][0], nccl["workarounds_zh"][0]
        await seeded.sync_entries(make_kb(nccl, other))
        assert await seeded.message_target("T1", "C1", "1.1") is None

    async def test_remembering_a_message_about_an_unknown_entry_is_refused(self, seeded):
        with pytest.raises(UnknownTarget):
            await seeded.remember_message("T1", "C1", "1.1", "pytorch/nope", 0, "en")

    async def test_an_updated_message_is_remembered_once_with_the_new_target(self, seeded):
        await seeded.remember_message("T1", "C1", "1.1", NCCL, 0, "en")
        await seeded.remember_message("T1", "C1", "1.1", NCCL, 2, "zh")
        assert await seeded.message_target("T1", "C1", "1.1") == PostedMessage(NCCL, 2, "zh", None)


class TestUserPrefs:
    async def test_unknown_user_has_no_preferences(self, store):
        assert await store.user_prefs("T1", "U1") == UserPrefs(None, None, None)

    async def test_override_and_slack_locale_are_kept_apart(self, store, clock):
        clock.now = 1_717_200_000.0
        await store.set_locale_override("T1", "U1", "zh")
        await store.cache_slack_locale("T1", "U1", "en-US")
        assert await store.user_prefs("T1", "U1") == UserPrefs(
            "zh", "en-US", dt.datetime(2024, 6, 1, tzinfo=dt.UTC))
        await store.set_locale_override("T1", "U1", None)  # /errkb locale auto
        prefs = await store.user_prefs("T1", "U1")
        assert prefs.override is None and prefs.slack_locale == "en-US"
        assert await store.user_prefs("T2", "U1") == UserPrefs()

    async def test_refreshing_the_slack_locale_restamps_it(self, store, clock):
        await store.cache_slack_locale("T1", "U1", "en-US")
        clock.now += 3600
        await store.cache_slack_locale("T1", "U1", "zh-CN")
        prefs = await store.user_prefs("T1", "U1")
        assert prefs.slack_locale == "zh-CN" and prefs.fetched_at.timestamp() == clock.now


class TestEvents:
    async def test_an_event_is_claimed_once(self, store):
        assert await store.claim_event("Ev1") is True
        assert await store.claim_event("Ev1") is False
        assert await store.claim_event("Ev2") is True

    async def test_an_expired_claim_is_purged(self, store, clock):
        assert await store.claim_event("Ev1", ttl_seconds=60)
        clock.now += 59
        assert await store.claim_event("Ev1") is False
        clock.now += 2
        assert await store.claim_event("Ev1") is True

    async def test_exactly_one_of_two_processes_claims_a_retried_event(self, store, db_url):
        second = await Store.open(db_url)
        second.clock = store.clock
        try:
            for n in range(5):
                claims = await asyncio.gather(*(s.claim_event(f"Ev{n}") for s in (store, second) * 6))
                assert claims.count(True) == 1, claims
        finally:
            await second.close()


class TestChannelModes:
    async def test_default_is_auto_and_a_set_mode_sticks(self, store):
        assert await store.channel_mode("T1", "C1") == "auto"
        await store.set_channel_mode("T1", "C1", "mention")
        await store.set_channel_mode("T1", "C1", "off")
        assert await store.channel_mode("T1", "C1") == "off"
        assert await store.channel_mode("T1", "C2") == "auto"

    async def test_an_unknown_mode_is_refused(self, store):
        with pytest.raises(ValueError, match="auto, mention, off"):
            await store.set_channel_mode("T1", "C1", "loud")
        assert await store.channel_mode("T1", "C1") == "auto"
