"""*Suggest a fix* over real HTTP: the ⋮ option and the fix button open the form, a bad form is answered in
the modal, a good one joins the entry's fixes here, credited, and votes move it like any other fix."""

from __future__ import annotations

import json

from bot.kb.feedback import SUGGESTED_BASE, Tally
from bot.render import blocks
from bot.render.suggest import CALLBACK
from tests.slack.conftest import NCCL_ID, click, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually

FIX = "Set NCCL_P2P_DISABLE=1 on the nodes without NVLink."


def element(message, action_id: str) -> dict:
    return next(e for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]
                if e.get("action_id") == action_id)


async def open_form(h, answered, user: str = "U_EN") -> dict:
    """Choose *Suggest a fix* in the answer's ⋮ menu; returns the view Slack was asked to open."""
    menu = element(answered.answer, blocks.ACTION_OVERFLOW)
    option = next(o["value"] for o in menu["options"] if blocks.OPTION_SUGGEST_FIX in o["value"])
    before = len(h.slack.calls_to("views.open"))
    await click(h, blocks.ACTION_OVERFLOW, None, message_ts=answered.answer.ts, thread_ts=answered.thread_ts,
                option=option, user=user)
    opened = (await h.slack.wait_for("views.open", before + 1))[before]
    assert opened["trigger_id"].startswith("trigger.") and opened.result["ok"]
    return opened["view"]


async def submit(h, view: dict, user: str = "U_EN", **values: str | None):
    form = {block: {"text": text} for block, text in values.items()}
    return await h.send.form(p.view_submission(view["callback_id"], form, view["private_metadata"], user=user))


async def test_a_suggested_fix_joins_the_answer_credited_and_votes_move_it(harness):
    answered = await paste_and_wait(harness)
    view = await open_form(harness, answered)
    assert view["callback_id"] == CALLBACK and view["title"]["text"] == "Suggest a fix"

    empty = await submit(harness, view, fix="  ")
    assert empty.status == 200 and empty.json() == {"response_action": "errors",
                                                    "errors": {"fix": "Write what fixed it."}}
    assert await harness.store.suggested_fixes(p.TEAM) == {}

    done = await submit(harness, view, fix=FIX, code="export NCCL_P2P_DISABLE=1")
    assert done.status == 200 and done.body == ""  # the modal closes
    (thanks,) = await harness.slack.wait_for("chat.postEphemeral")
    assert thanks["user"] == "U_EN" and thanks["thread_ts"] == answered.thread_ts
    assert "credited to you" in thanks.text_of_blocks
    (fix,) = (await harness.store.suggested_fixes(p.TEAM))[NCCL_ID]
    assert fix.index > SUGGESTED_BASE and fix.author == "U_EN" and fix.text.startswith(FIX)

    total = len(harness.bot.kb.entries[NCCL_ID].workarounds) + 1
    before = len(harness.slack.calls_to("chat.postMessage"))
    await click(harness, blocks.ACTION_OTHER_FIXES, NCCL_ID, message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts)
    posted = (await harness.slack.wait_for("chat.postMessage", before + total - 1))[before:]
    mine = next(c for c in posted if json.loads(element(c, blocks.ACTION_VOTE_UP)["value"])["workaround"] == fix.index)
    assert mine is posted[-1]  # unvoted, it ranks below the KB's fixes
    assert "suggested by <@U_EN>, no votes yet" in mine.text_of_blocks and FIX in mine.text_of_blocks
    assert element(mine, blocks.ACTION_SUGGEST_FIX)["value"] == NCCL_ID  # every fix message offers it too

    for user in ("U_CN", "U_TW"):
        assert (await harness.send.event(p.reaction("+1", mine.ts, user=user))).status == 200
    await eventually(lambda: harness.store.feedback([NCCL_ID], p.TEAM),
                     lambda live: live[NCCL_ID].workarounds.get(fix.index) == Tally(2, 0))
    update = await eventually(lambda: _updates(harness, mine.ts), lambda found: found)
    assert "suggested by <@U_EN>; worked for 2 of 2 people here" in update[-1].text_of_blocks
    assert await harness.store.check() == []

    chinese = await harness.bot.service.knowledge.show(NCCL_ID, p.TEAM)
    assert chinese.workaround(fix.index).votes_up == 2
    assert (await harness.bot.service.knowledge.show(NCCL_ID)).workaround(fix.index) is None  # no workspace: KB only


async def _updates(h, ts: str) -> list:
    return [c for c in h.slack.calls_to("chat.update") if c["ts"] == ts]


async def test_the_fix_button_opens_the_form_in_the_clickers_language(harness):
    await click(harness, blocks.ACTION_SUGGEST_FIX, NCCL_ID, message_ts="1.1", ephemeral=True, user="U_CN")
    (opened,) = await harness.slack.wait_for("views.open")
    assert opened["view"]["title"]["text"] == "建议修复方法"
    assert "English" in opened.text_of_blocks  # the optional field for the other language


async def test_a_reader_of_the_other_language_adds_the_translation_later(harness):
    from bot import i18n

    fix = await harness.store.suggest_fix(p.TEAM, NCCL_ID, "U_EN", "en", FIX)
    answered = await paste_and_wait(harness, user="U_CN")
    before = len(harness.slack.calls_to("chat.postMessage"))
    total = len(harness.bot.kb.entries[NCCL_ID].workarounds) + 1
    await click(harness, blocks.ACTION_OTHER_FIXES, NCCL_ID, message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts, user="U_CN")
    posted = (await harness.slack.wait_for("chat.postMessage", before + total - 1))[before:]
    mine = next(c for c in posted if json.loads(element(c, blocks.ACTION_VOTE_UP)["value"])["workaround"] == fix.index)
    assert FIX in mine.text_of_blocks and "由 <@U_EN> 建议" in mine.text_of_blocks
    translate = element(mine, blocks.ACTION_TRANSLATE_FIX)

    await click(harness, blocks.ACTION_TRANSLATE_FIX, translate["value"], message_ts=mine.ts,
                thread_ts=answered.thread_ts, user="U_EN")  # already the author's language: nothing to translate
    (note,) = await harness.slack.wait_for("response_url")
    assert "already in your language" in note.text_of_blocks
    await click(harness, blocks.ACTION_TRANSLATE_FIX, translate["value"], message_ts=mine.ts,
                thread_ts=answered.thread_ts, user="U_CN")
    (opened,) = await harness.slack.wait_for("views.open")
    view = opened["view"]
    assert view["title"]["text"] == "翻译这个方法" and FIX in opened.text_of_blocks
    assert (await submit(harness, view, user="U_CN", fix=" ")).json()["response_action"] == "errors"
    assert (await submit(harness, view, user="U_CN", fix="在没有 NVLink 的节点上设置 NCCL_P2P_DISABLE=1。")).body == ""
    with i18n.use_locale("zh"):
        shown = (await harness.bot.service.knowledge.show(NCCL_ID, p.TEAM)).workaround(fix.index)
    assert (shown.text, shown.untranslated) == ("在没有 NVLink 的节点上设置 NCCL_P2P_DISABLE=1。", False)
    with i18n.use_locale("en"):
        assert (await harness.bot.service.knowledge.show(NCCL_ID, p.TEAM)).workaround(fix.index).text == FIX


async def test_a_reviewer_verifies_or_retires_a_suggested_fix_and_anyone_else_is_refused(harness):
    from sqlalchemy import select

    from bot.store.models import Target
    from bot.store.team_fixes import key_of

    fix = await harness.store.suggest_fix(p.TEAM, NCCL_ID, "U_EN", "en", FIX)
    await harness.store.record_button(p.TEAM, "U4", NCCL_ID, fix.index, 1, 10.0)
    answered = await paste_and_wait(harness)
    before = len(harness.slack.calls_to("chat.postMessage"))
    total = len(harness.bot.kb.entries[NCCL_ID].workarounds) + 1
    await click(harness, blocks.ACTION_OTHER_FIXES, NCCL_ID, message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts)
    posted = (await harness.slack.wait_for("chat.postMessage", before + total - 1))[before:]
    mine = next(c for c in posted if json.loads(element(c, blocks.ACTION_VOTE_UP)["value"])["workaround"] == fix.index)
    options = {json.loads(o["value"])["do"]: o["value"] for o in element(mine, blocks.ACTION_REVIEW_FIX)["options"]}
    assert set(options) == {"verify", "retire"}
    assert all(blocks.ACTION_REVIEW_FIX not in json.dumps(c["blocks"]) for c in posted if c is not mine)  # KB fixes

    async def choose(do: str, user: str) -> str:
        return await click(harness, blocks.ACTION_REVIEW_FIX, None, option=options[do], message_ts=mine.ts,
                           thread_ts=answered.thread_ts, user=user)

    refused = await choose("retire", "U_CN")  # no admin, in no reviewers' group: told so, privately, in Chinese
    (note,) = await harness.slack.wait_for("response_url", key=refused)
    assert "只有审核者才能验证或停用" in note.text_of_blocks and note["response_type"] == "ephemeral"
    assert [f.index for f in (await harness.store.suggested_fixes(p.TEAM))[NCCL_ID]] == [fix.index]

    harness.slack.admins.add("U_ADMIN")
    await choose("verify", "U_ADMIN")
    (verified,) = await harness.slack.wait_for("chat.update", ts=mine.ts)
    assert "suggested by <@U_EN>; worked for 1 of 1 person here · verified by a reviewer" in verified.text_of_blocks
    assert [o for o in element(verified, blocks.ACTION_REVIEW_FIX)["options"] if '"verify"' in o["value"]] == []
    assert (await harness.store.suggested_fixes(p.TEAM))[NCCL_ID][0].verified

    await choose("retire", "U_ADMIN")
    updates = await harness.slack.wait_for("chat.update", 2, ts=mine.ts)
    assert "retired this suggested fix" in updates[-1].text_of_blocks and FIX not in updates[-1].text_of_blocks
    assert NCCL_ID not in await harness.store.suggested_fixes(p.TEAM)
    assert (await harness.bot.service.knowledge.show(NCCL_ID, p.TEAM)).workaround(fix.index) is None  # no longer ranked
    assert (await harness.send.event(p.reaction("+1", mine.ts, user="U_TW"))).status == 200  # takes no votes…

    async def counts(conn):
        return (await conn.execute(select(Target.up, Target.down).where(Target.key == key_of(
            fix.index - SUGGESTED_BASE)))).one()
    assert tuple(await harness.store._db.read(counts)) == (1, 0)  # …and keeps the ones it had, as counts
    assert await harness.store.check() == []
