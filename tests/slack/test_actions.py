"""Buttons on an answer: Worked / Didn't work vote like reactions; *Other fixes* posts each remaining
fix as its own reactable message; *Why / what not to try* and the other language go privately to
whoever clicked; *Wrong error?* is counted on the diagnosis; a search result can be posted."""

from __future__ import annotations

import json
import re

import pytest

from bot.kb.feedback import Tally
from bot.render import blocks
from tests.slack.conftest import NCCL_ID, click, command, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually


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
        ts = answered.answer.ts
        fields = {"message_ts": ts, "thread_ts": answered.thread_ts, "user": "U_CN"}
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), **fields)
        await eventually(lambda: tally(harness), predicate=lambda t: t == Tally(1, 0))
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), **fields)  # again: still one vote
        await click(harness, blocks.ACTION_VOTE_DOWN, vote(NCCL_ID, 0), **fields)
        await eventually(lambda: tally(harness), predicate=lambda t: t == Tally(0, 1))
        await harness.slack.settle()
        updates = harness.slack.calls_to("chat.update")
        assert updates and updates[-1]["ts"] == ts
        shown = updates[-1].text_of_blocks
        assert "worked for 0 of 1 person here" in shown and "AllReduce timed out in rank 3" in shown  # still quoted

    async def test_a_button_and_a_reaction_from_one_user_are_one_vote(self, harness):
        answered = await paste_and_wait(harness)
        ts = answered.answer.ts
        await click(harness, blocks.ACTION_VOTE_UP, vote(NCCL_ID, 0), message_ts=ts, thread_ts=answered.thread_ts)
        assert (await harness.send.event(p.reaction("+1", ts))).status == 200
        await harness.slack.settle()
        assert await tally(harness) == Tally(1, 0)

    async def test_a_vote_on_a_private_answer_is_counted_and_acknowledged_privately(self, harness):
        (shown,) = await command(harness, f"show {NCCL_ID}")
        assert "votes for this fix" not in shown.text_of_blocks  # no reactions on an ephemeral message
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


def button(call, action_id: str) -> dict:
    return next(e for b in call["blocks"] if b["type"] == "actions" for e in b["elements"]
                if e.get("action_id") == action_id)


class TestOtherFixesAndPost:
    async def test_post_to_channel_then_other_fixes_come_as_reactable_messages(self, harness, long_entry, kb):
        total = len(kb.entries[long_entry].workarounds)
        await click(harness, blocks.ACTION_POST, long_entry, message_ts="1.1", ephemeral=True, user="U_CN")
        (answer,) = await harness.slack.wait_for("chat.postMessage", 1)
        root = answer.ts
        assert "thread_ts" not in answer.args or answer["thread_ts"] is None  # a new message in the channel
        other = button(answer, blocks.ACTION_OTHER_FIXES)
        assert other["text"]["text"] == f"其他方案（{total - 1}）" and other["value"] == long_entry

        await click(harness, blocks.ACTION_OTHER_FIXES, long_entry, message_ts=root, thread_ts=root, user="U_EN")
        rest = (await harness.slack.wait_for("chat.postMessage", total))[1:]
        assert all(c["thread_ts"] == root for c in rest)
        assert [c.text_of_blocks.split(" ", 1)[0] for c in rest] == [f"*{n}.*" for n in range(2, total + 1)]
        assert all("在这条消息上点 👍 或 👎" in c.text_of_blocks for c in rest)  # each one reactable, in zh
        thread = await eventually(lambda: harness.store.thread_messages(p.TEAM, p.CHANNEL, root),
                                  predicate=lambda m: len(m) == total)
        assert sorted(m.workaround for m in thread) == list(range(total))
        assert {m.locale for m in thread} == {"zh"}  # in the language of whoever posted it

        await click(harness, blocks.ACTION_OTHER_FIXES, long_entry, message_ts=root, thread_ts=root, user="U_EN")
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == total  # nothing twice

    async def test_a_reaction_on_another_fix_votes_for_that_fix_and_keeps_its_number(self, harness, long_entry):
        await click(harness, blocks.ACTION_POST, long_entry, message_ts="1.1", ephemeral=True, user="U_EN")
        (answer,) = await harness.slack.wait_for("chat.postMessage", 1)
        await click(harness, blocks.ACTION_OTHER_FIXES, long_entry, message_ts=answer.ts, thread_ts=answer.ts)
        second = (await harness.slack.wait_for("chat.postMessage", 2))[1]
        index = json.loads(button(second, blocks.ACTION_VOTE_UP)["value"])["workaround"]
        assert (await harness.send.event(p.reaction("+1", second.ts, user="U_CN"))).status == 200
        await eventually(lambda: tally(harness, long_entry, index), predicate=lambda t: t == Tally(1, 0))
        update = (await harness.slack.wait_for("chat.update", ts=second.ts))[0]
        assert update.text_of_blocks.startswith("*2.*") and "worked for 1 of 1 person here" in update.text_of_blocks

    async def test_other_fixes_of_a_private_answer_come_privately(self, harness, long_entry, kb):
        key = await click(harness, blocks.ACTION_OTHER_FIXES, long_entry, message_ts="1.1", ephemeral=True)
        answers = await harness.slack.wait_for("response_url", min(4, len(kb.entries[long_entry].workarounds) - 1),
                                              key=key)
        assert answers[0].text_of_blocks.startswith("*2.*")
        assert all("votes for this fix" not in a.text_of_blocks for a in answers)
        assert harness.slack.calls_to("chat.postMessage") == []

    async def test_posting_where_the_bot_is_not_a_member_says_how_to_fix_it(self, harness):
        harness.slack.fail_next(method="chat.postMessage", error="not_in_channel")
        key = await click(harness, blocks.ACTION_POST, NCCL_ID, message_ts="1.1", ephemeral=True)
        answer = (await harness.slack.wait_for("response_url", key=key))[0]
        assert "/invite @errkb" in answer.text_of_blocks


class TestWhyAndWrongError:
    @pytest.mark.parametrize(("user", "heading", "tried"), [("U_EN", "*What not to try*", "(fails ~95%)"),
                                                             ("U_CN", "*哪些别试*", "（约 95% 会失败）")])
    async def test_why_shows_the_dead_ends_privately_in_the_clickers_language(self, harness, user, heading, tried):
        answered = await paste_and_wait(harness, user="U_EN")
        await click(harness, blocks.ACTION_DETAILS, NCCL_ID, message_ts=answered.answer.ts,
                    thread_ts=answered.thread_ts, user=user)
        (private,) = await harness.slack.wait_for("chat.postEphemeral", 1)
        assert private["user"] == user and private["thread_ts"] == answered.thread_ts
        text = private.text_of_blocks
        assert heading in text and tried in text and "pytorch.org/docs" in text and not re.search(r"~[^\d\s]", text)
        assert len(harness.slack.calls_to("chat.postMessage")) == 1  # nothing public

    async def test_wrong_error_counts_on_the_diagnosis_never_on_the_fix(self, harness):
        answered = await paste_and_wait(harness)
        menu = button(answered.answer, blocks.ACTION_OVERFLOW)
        key = await click(harness, blocks.ACTION_OVERFLOW, None, message_ts=answered.answer.ts,
                          thread_ts=answered.thread_ts, option=menu["options"][0]["value"])
        (note,) = await harness.slack.wait_for("response_url", key=key)
        assert "not the error you have" in note.text_of_blocks
        feedback = (await harness.store.feedback([NCCL_ID]))[NCCL_ID]
        assert feedback.diagnosis == Tally(0, 1) and feedback.workarounds.get(0, Tally()) == Tally()

    async def test_a_related_error_is_shown_privately_by_its_title(self, harness):
        view = await harness.bot.service.knowledge.show("pytorch/cuda-out-of-memory")
        related = view.related["frequently_confused_with"][0]
        await click(harness, blocks.ACTION_SHOW, related.id, message_ts="1.1", ephemeral=True, user="U_CN")
        (private,) = await harness.slack.wait_for("chat.postEphemeral", 1)
        assert private["user"] == "U_CN" and "*先试这个*：" in private.text_of_blocks
        assert "就是给这个方案投票" not in private.text_of_blocks
        assert related.id in json.dumps(private["blocks"])  # its buttons vote for that entry's fix


class TestTranslate:
    async def test_the_same_compact_answer_in_the_other_language_once_privately(self, harness):
        answered = await paste_and_wait(harness, user="U_EN")
        language = button(answered.answer, blocks.ACTION_TRANSLATE)
        await click(harness, blocks.ACTION_TRANSLATE, language["value"], message_ts=answered.answer.ts,
                    thread_ts=answered.thread_ts, user="U_JA")
        (private,) = await harness.slack.wait_for("chat.postEphemeral", 1)
        assert private["user"] == "U_JA" and private["thread_ts"] == answered.thread_ts
        text = private.text_of_blocks
        assert "*原因*：" in text and "*先试这个*：" in text and "有效" in text
        assert "AllReduce timed out in rank 3 (timeout: 600)" in text  # the reader's own line, quoted again
        assert "就是给这个方案投票" not in text  # no reactions on an ephemeral message: its buttons vote
        assert all(e.get("action_id") != blocks.ACTION_TRANSLATE for b in private["blocks"]
                   if b["type"] == "actions" for e in b["elements"])  # once, not back and forth
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == 1 and len(
            harness.slack.calls_to("chat.postEphemeral")) == 1

    async def test_a_chinese_answer_translates_to_english(self, harness):
        answered = await paste_and_wait(harness, user="U_TW")
        await click(harness, blocks.ACTION_TRANSLATE, button(answered.answer, blocks.ACTION_TRANSLATE)["value"],
                    message_ts=answered.answer.ts, thread_ts=answered.thread_ts, user="U_TW")
        (private,) = await harness.slack.wait_for("chat.postEphemeral", 1)
        assert "*Cause*: " in private.text_of_blocks

    async def test_on_a_private_answer_it_answers_through_the_response_url(self, harness):
        harness.slack.fail_next(method="chat.postEphemeral", error="channel_not_found", count=10)
        key = await click(harness, blocks.ACTION_TRANSLATE, NCCL_ID, message_ts="1.1", ephemeral=True)
        (answer,) = await harness.slack.wait_for("response_url", 1, key=key)
        assert "*原因*：" in answer.text_of_blocks
