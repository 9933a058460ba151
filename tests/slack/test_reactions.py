"""👍 / 👎 reactions on the bot's answers (issue 4, point 4): every sequence, and the in-place update."""

from __future__ import annotations

import asyncio

import pytest

from bot.kb.feedback import Tally
from bot.service.knowledge import Knowledge
from tests.slack.conftest import NCCL_ID, other_fixes, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually


async def tally(h, workaround: int | None = 0) -> Tally:
    feedback = (await h.store.feedback([NCCL_ID]))[NCCL_ID]
    return feedback.diagnosis if workaround is None else feedback.workarounds.get(workaround, Tally())


async def settled_tally(h, expected: Tally, workaround: int | None = 0) -> Tally:
    return await eventually(lambda: tally(h, workaround), predicate=lambda t: t == expected)


async def react(h, *events: dict) -> None:
    for event in events:
        assert (await h.send.event(event)).status == 200


@pytest.fixture
async def answered(harness):
    return await paste_and_wait(harness)


class TestSequences:
    async def test_a_thumbs_up_counts_and_the_message_shows_it(self, harness, answered):
        first = answered.answer  # workaround index 0, 85%
        await react(harness, p.reaction("+1", first.ts, user="U_CN"))
        await settled_tally(harness, Tally(1, 0))
        update = (await harness.slack.wait_for("chat.update", ts=first.ts))[0]
        assert update["channel"] == p.CHANNEL
        text = update.text_of_blocks
        assert "worked for 1 of 1 person here; 88% with the AI-drafted estimate of 85%" in text
        assert "AllReduce timed out in rank 3" in text  # the reader's line is still quoted
        entry = await Knowledge(harness.bot.kb, harness.store).show(NCCL_ID)  # what `errkb show` reports
        assert (entry.workaround(0).votes_up, entry.evidence_count) == (1, 2)

    async def test_a_vote_counts_whether_or_not_slack_names_the_installation(self, harness, answered):
        ts = answered.answer.ts
        await react(harness, p.reaction("+1", ts, user="U_CN"))  # authorizations given: voted without Bolt
        bare = p.reaction("+1", ts, user="U_TW")
        del bare["authorizations"]  # an older payload shape: Bolt's dispatch, which asks auth.test
        await react(harness, bare, p.reaction("+1", ts, user=p.BOT_USER))  # the bot's own reaction never counts
        await settled_tally(harness, Tally(2, 0))
        await harness.slack.settle()
        assert (await tally(harness)) == Tally(2, 0)

    async def test_adding_then_removing_undoes_the_vote(self, harness, answered):
        ts = answered.answer.ts
        await react(harness, p.reaction("thumbsup", ts))
        await settled_tally(harness, Tally(1, 0))
        await react(harness, p.reaction("thumbsup", ts, added=False))
        await settled_tally(harness, Tally(0, 0))

        async def last_update() -> str:  # debounced: the one after the removal may take a while on a busy machine
            updates = harness.slack.calls_to("chat.update")
            return updates[-1].text_of_blocks if updates else ""
        await eventually(last_update, lambda text: "estimated ~85% (AI-drafted), no votes here yet" in text, timeout=10)
        await harness.slack.settle()
        assert "no votes here yet" in await last_update()  # and nothing sent after it shows the vote again

    async def test_thumbs_up_and_down_from_one_user_cancel(self, harness, answered):
        ts = answered.answer.ts
        await react(harness, p.reaction("-1", ts), p.reaction("+1", ts))
        await settled_tally(harness, Tally(0, 0))
        await react(harness, p.reaction("-1", ts, added=False))
        await settled_tally(harness, Tally(1, 0))

    @pytest.mark.parametrize(("name", "expected"), [("+1::skin-tone-3", Tally(1, 0)),
                                                     ("thumbsdown::skin-tone-6", Tally(0, 1))])
    async def test_any_skin_tone_counts(self, harness, answered, name, expected):
        await react(harness, p.reaction(name, answered.answer.ts))
        await settled_tally(harness, expected)

    async def test_a_removal_delivered_before_its_add_ends_removed(self, harness, answered):
        ts = answered.answer.ts
        added_at, removed_at = "1700000100.000001", "1700000100.000002"
        await react(harness, p.reaction("+1", ts, added=False, event_ts=removed_at))
        await react(harness, p.reaction("+1", ts, event_ts=added_at))
        await harness.slack.settle()
        assert await tally(harness) == Tally(0, 0)

    async def test_votes_from_many_users_add_up_per_workaround(self, harness, answered):
        w0, w2 = answered.answer.ts, (await other_fixes(harness, answered))[2].ts  # indices 0 and 2
        await react(harness, *(p.reaction("+1", w0, user=f"U{n}") for n in range(3)),
                    p.reaction("-1", w2, user="U0"))
        await settled_tally(harness, Tally(3, 0))
        await settled_tally(harness, Tally(0, 1), workaround=2)

    async def test_taking_back_a_thumbs_up_in_one_thread_keeps_the_one_in_another(self, harness, answered):
        again = await paste_and_wait(harness)  # the same error answered in a second thread
        a, b = answered.answer.ts, again.answer.ts
        assert answered.thread_ts != again.thread_ts
        await react(harness, p.reaction("+1", a, event_ts="1000.000001"), p.reaction("+1", b, event_ts="1001.000001"))
        await react(harness, p.reaction("+1", b, added=False, event_ts="1002.000001"))
        await harness.slack.settle()
        assert await tally(harness) == Tally(1, 0)  # thread A still shows that 👍

    async def test_on_the_answer_they_vote_for_the_fix_it_shows_never_for_the_diagnosis(self, harness, answered):
        await react(harness, p.reaction("+1", answered.answer.ts), p.reaction("-1", answered.answer.ts, "U2"))
        await settled_tally(harness, Tally(1, 1), workaround=0)
        assert await tally(harness, None) == Tally(0, 0)  # a wrong error is reported from the ⋮ menu


class TestIgnored:
    async def test_the_bots_own_reactions(self, harness, answered):
        await react(harness, p.reaction("+1", answered.answer.ts, user=p.BOT_USER))
        await harness.slack.settle()
        assert await tally(harness) == Tally(0, 0)

    async def test_reactions_on_other_messages(self, harness, answered):
        await react(harness, p.reaction("+1", answered.thread_ts, item_user="U_EN"),  # the paste itself
                    p.reaction("+1", "1690000000.999999"))  # a message the bot never posted
        await harness.slack.settle()
        assert await tally(harness) == Tally(0, 0) and harness.slack.calls_to("chat.update") == []

    async def test_other_emoji(self, harness, answered):
        await react(harness, p.reaction("tada", answered.answer.ts), p.reaction("eyes", answered.answer.ts))
        await harness.slack.settle()
        assert await tally(harness) == Tally(0, 0) and await tally(harness, None) == Tally(0, 0)

    async def test_a_retried_reaction_event_counts_once(self, harness, answered):
        event = p.reaction("+1", answered.answer.ts)
        await react(harness, event)
        assert (await harness.send.event(event, retry=1)).status == 200
        await settled_tally(harness, Tally(1, 0))


class TestUpdates:
    async def test_a_burst_of_votes_is_one_update(self, harness, answered):
        ts = answered.answer.ts
        harness.bot.service.voting.updates.delay = 30.0  # the debounce window outlasts the burst however busy the machine…
        await asyncio.gather(*(harness.send.event(p.reaction("+1", ts, user=f"U{n}")) for n in range(6)))
        await settled_tally(harness, Tally(6, 0))
        harness.bot.service.voting.updates.flush()  # …and closes once every vote is stored
        (update,) = await harness.slack.wait_for("chat.update", ts=ts)
        await harness.slack.settle()
        assert harness.slack.calls_to("chat.update") == [update]  # six votes, one update
        assert "worked for 6 of 6 people here" in update.text_of_blocks

    async def test_a_429_on_the_update_loses_no_vote_and_the_update_lands(self, harness, answered):
        ts = (await other_fixes(harness, answered))[1].ts
        harness.slack.fail_next(429, method="chat.update", retry_after=1)
        await react(harness, p.reaction("+1", ts, user="U_CN"), p.reaction("+1", ts, user="U_JA"))
        await settled_tally(harness, Tally(2, 0), workaround=1)
        updates = await harness.slack.wait_for("chat.update", 2, ts=ts)
        assert "*3.*" in updates[-1].text_of_blocks and "worked for 2 of 2 people here" in updates[-1].text_of_blocks

    async def test_a_chinese_answer_is_updated_in_chinese(self, harness):
        answered = await paste_and_wait(harness, user="U_CN", thread_ts=p.new_ts())
        await react(harness, p.reaction("+1", answered.answer.ts, user="U_EN"))
        update = (await harness.slack.wait_for("chat.update"))[0]
        assert "有效" in update.text_of_blocks
