"""Buttons (issue 4, points 3 and 4): Worked / Didn't work vote like reactions, "more" workarounds,
中文 / English privately to the clicker, posting a search result to the channel."""

from __future__ import annotations

import pytest

from bot.kb.feedback import Tally
from bot.render import blocks
from tests import slack_payloads as p
from tests.slack.conftest import NCCL_ID, click, command, eventually, paste_and_wait


async def tally(h, entry_id: str = NCCL_ID, workaround: int = 0) -> Tally:
    return (await h.store.feedback([entry_id]))[entry_id].workarounds.get(workaround, Tally())


def vote(entry_id: str, index: int) -> str:
    return blocks.vote_value(entry_id, index)


@pytest.fixture
def long_entry(kb) -> str:
    """An entry with more than three workarounds (so its answer has a "more" button)."""
    return next(e.id for e in sorted(kb.entries.values(), key=lambda e: e.id) if len(e.workarounds) > 3)


class TestVoteButtons:
    async def test_worked_then_didnt_work_moves_one_vote_and_updates_the_message(self, harness):
        answered = await paste_and_wait(harness)
        ts = answered.workarounds[0].ts
        fields = {"message_ts": ts, "thread_ts": answered.thread_ts, "user": "U_CN"}
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), **fields)
        await eventually(lambda: tally(harness), predicate=lambda t: t == Tally(1, 0))
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), **fields)  # again: still one vote
        await click(harness, blocks.ACTION_VOTE_DOWN, vote(NCCL_ID, 0), **fields)
        await eventually(lambda: tally(harness), predicate=lambda t: t == Tally(0, 1))
        await harness.slack.settle()
        updates = harness.slack.calls_to("chat.update")
        assert updates and updates[-1]["ts"] == ts and "0 votes up · 1 vote down" in updates[-1].text_of_blocks

    async def test_a_button_and_a_reaction_from_one_user_are_one_vote(self, harness):
        answered = await paste_and_wait(harness)
        ts = answered.workarounds[0].ts
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), message_ts=ts, thread_ts=answered.thread_ts)
        assert (await harness.send.event(p.reaction("+1", ts))).status == 200
        await harness.slack.settle()
        assert await tally(harness) == Tally(1, 0)

    async def test_a_vote_on_a_private_answer_is_counted_and_acknowledged_privately(self, harness):
        await command(harness, f"show {NCCL_ID}", count=4)
        key = await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 2), message_ts="1.1", ephemeral=True,
                          user="U_CN")
        receipt = (await harness.slack.wait_for("response_url", key=key))[0]
        assert receipt["response_type"] == "ephemeral" and "1 人说有效" in receipt.text_of_blocks
        assert await tally(harness, workaround=2) == Tally(1, 0)
        assert harness.slack.calls_to("chat.update") == []

    async def test_a_vote_for_something_unknown_changes_nothing(self, harness):
        await click(harness, blocks.ACTION_VOTE_UP, vote("nope/nothing", 0), message_ts="1.1")
        await click(harness, blocks.ACTION_VOTE_UP, "not json", message_ts="1.1")
        await harness.slack.settle()
        assert (await harness.store.stats()).votes_up == 0


class TestMoreAndPost:
    async def test_post_to_channel_then_more_posts_the_rest_in_the_thread(self, harness, long_entry, kb):
        total = len(kb.entries[long_entry].workarounds)
        await click(harness, blocks.ACTION_POST, long_entry, message_ts="1.1", ephemeral=True, user="U_CN")
        posts = await harness.slack.wait_for("chat.postMessage", 4)
        root = posts[0].ts
        assert "thread_ts" not in posts[0].args or posts[0]["thread_ts"] is None  # a new message in the channel
        assert all(c["thread_ts"] == root for c in posts[1:])
        assert f"还有 {total - 3} 个" in posts[3].text_of_blocks or str(total - 3) in posts[3].text_of_blocks
        more_button = [e for e in posts[3]["blocks"][-1]["elements"] if e["action_id"] == blocks.ACTION_MORE]
        assert more_button and more_button[0]["value"] == long_entry

        await click(harness, blocks.ACTION_MORE, long_entry, message_ts=posts[3].ts, thread_ts=root, user="U_EN")
        rest = (await harness.slack.wait_for("chat.postMessage", 4 + total - 3))[4:]
        assert all(c["thread_ts"] == root for c in rest)
        assert rest[0].text_of_blocks.startswith("*4.*")
        update = (await harness.slack.wait_for("chat.update", ts=posts[3].ts))[0]
        assert all(e["action_id"] != blocks.ACTION_MORE for e in update["blocks"][-1]["elements"])
        assert "*3.*" in update.text_of_blocks  # keeps its rank
        thread = await eventually(lambda: harness.store.thread_messages(p.TEAM, p.CHANNEL, root),
                                  predicate=lambda m: len(m) == 1 + total)
        assert sorted(m.workaround for m in thread if m.workaround is not None) == list(range(total))
        assert {m.locale for m in thread} == {"zh"}  # in the language of whoever posted it

    async def test_posting_where_the_bot_is_not_a_member_says_how_to_fix_it(self, harness):
        harness.slack.fail_next(method="chat.postMessage", error="not_in_channel")
        key = await click(harness, blocks.ACTION_POST, NCCL_ID, message_ts="1.1", ephemeral=True)
        answer = (await harness.slack.wait_for("response_url", key=key))[0]
        assert "/invite @errkb" in answer.text_of_blocks


class TestTranslate:
    async def test_the_other_language_goes_privately_to_whoever_clicked(self, harness):
        answered = await paste_and_wait(harness, user="U_EN")
        await click(harness, blocks.ACTION_TRANSLATE, NCCL_ID, message_ts=answered.diagnosis.ts,
                    thread_ts=answered.thread_ts, user="U_JA")
        private = await harness.slack.wait_for("chat.postEphemeral", 4)
        assert all(c["user"] == "U_JA" and c["thread_ts"] == answered.thread_ts for c in private)
        assert "根本原因" in private[0].text_of_blocks and "有效" in private[1].text_of_blocks
        assert len(harness.slack.calls_to("chat.postMessage")) == 4  # nothing public

    async def test_a_chinese_answer_translates_to_english(self, harness):
        answered = await paste_and_wait(harness, user="U_TW")
        await click(harness, blocks.ACTION_TRANSLATE, NCCL_ID, message_ts=answered.diagnosis.ts,
                    thread_ts=answered.thread_ts, user="U_TW")
        private = await harness.slack.wait_for("chat.postEphemeral", 4)
        assert "Root cause" in private[0].text_of_blocks

    async def test_on_a_private_answer_it_answers_through_the_response_url(self, harness):
        harness.slack.fail_next(method="chat.postEphemeral", error="channel_not_found", count=10)
        key = await click(harness, blocks.ACTION_TRANSLATE, NCCL_ID, message_ts="1.1", ephemeral=True)
        answers = await harness.slack.wait_for("response_url", 4, key=key)
        assert "根本原因" in answers[0].text_of_blocks
