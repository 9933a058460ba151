"""Teaching errkb from Slack, over real HTTP: *Add to errkb* on an unknown error, the modal's live regex
check, its submission, the next paste answered by the new team entry, and reviewers."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from bot.kb.propose import propose
from bot.render import blocks, modals
from tests.slack.conftest import click, paste_and_wait
from tests.slack.test_unknown import SHAPE, stored_text, unknown_paste
from tests.support import payloads as p
from tests.support.waits import eventually


def in_view(view_id: str, view: dict[str, Any], user: str, kind: str, **extra: Any) -> dict[str, str]:
    """A signed-form interactivity payload from inside a modal: a block action or its submission."""
    values = {}
    for block in view["blocks"]:
        if block.get("type") == "input":
            element = block["element"]
            values[block["block_id"]] = {element["action_id"]: {"type": "plain_text_input",
                                                                 "value": element.get("initial_value")}}
    state_view = {"id": view_id, "type": "modal", "callback_id": view.get("callback_id"), "hash": "h1",
                  "private_metadata": view.get("private_metadata", ""), "state": {"values": values}}
    payload = {"type": kind, "team": {"id": p.TEAM, "domain": "fake"}, "user": {"id": user, "team_id": p.TEAM},
               "api_app_id": p.APP, "token": "legacy-verification-token",
               "trigger_id": f"trigger.{uuid.uuid4().hex[:8]}", "view": state_view, **extra}
    return {"payload": json.dumps(payload)}


def typed(view: dict[str, Any], **fields: str) -> dict[str, Any]:
    """``view`` as if the author had typed ``fields`` into it."""
    view = json.loads(json.dumps(view))
    for block in view["blocks"]:
        if block.get("type") == "input" and block["block_id"] in fields:
            block["element"]["initial_value"] = fields[block["block_id"]]
    return view


async def open_modal(harness, user: str = "U_EN") -> tuple[str, dict[str, Any]]:
    """Mention errkb on the unknown error, click *Add to errkb* on its private answer: the opened modal."""
    assert (await harness.send.event(p.app_mention(unknown_paste(9), user=user))).status == 200
    [whisper] = await harness.slack.wait_for("chat.postEphemeral")
    assert "I found no known error" not in whisper.text_of_blocks
    assert "frobnicator &lt;name&gt; rejected shard" in whisper.text_of_blocks
    value = next(e["value"] for b in whisper["blocks"] if b["type"] == "actions" for e in b["elements"]
                 if e["action_id"] == blocks.ACTION_TEACH)
    await click(harness, blocks.ACTION_TEACH, value, user=user, ephemeral=True)
    [opened] = await harness.slack.wait_for("views.open")
    return opened.result["view"]["id"], harness.slack.views[opened.result["view"]["id"]]


FORM = {"title": "AcmeWidgetError: frobnicator rejected a shard", "root_cause": "The shard was written by an older "
        "frobnicator whose format this one refuses.", "workarounds": "Re-export the shard with `acme reshard`.\n"
        "Pin acme-frob to 2.3.", "dead_ends": "Deleting the cache."}


async def test_add_to_errkb_teaches_the_next_paste_and_stores_no_paste(harness, tmp_path):
    view_id, view = await open_modal(harness)
    text = json.dumps(view)
    assert "Add to errkb" in text and json.dumps(propose(SHAPE))[1:-1] in text  # the proposed regex, prefilled
    assert "sekrit" not in text and "alpha-9" not in text  # the modal shows the masked line only

    bad = typed(view, regex="frobnicator (rejected")  # Enter in the regex field: the verdict, redrawn
    action = {"action_id": modals.ACTION_REGEX, "block_id": "regex", "type": "plain_text_input",
              "value": "frobnicator (rejected", "action_ts": f"{time.time():.6f}"}
    sent = await harness.send.form(in_view(view_id, bad, "U_EN", "block_actions", actions=[action],
                                           container={"type": "view", "view_id": view_id}))
    assert sent.status == 200
    [update] = await harness.slack.wait_for("views.update")
    assert update["view_id"] == view_id and "RE2 cannot compile this regex" in update.text_of_blocks

    refused = await harness.send.form(in_view(view_id, typed(view, **FORM, regex="(?i)error"), "U_EN",
                                              "view_submission"))
    answer = refused.json()
    assert answer["response_action"] == "errors" and "ordinary chat" in answer["errors"]["regex"]
    missing = (await harness.send.form(in_view(view_id, typed(view, title=" "), "U_EN", "view_submission"))).json()
    assert set(missing["errors"]) >= {"title", "root_cause", "workarounds"}

    saved = await harness.send.form(in_view(view_id, typed(view, **FORM), "U_EN", "view_submission"))
    assert saved.status == 200 and saved.body == ""  # the modal closes
    [row] = await harness.store.team_entries(p.TEAM)
    assert (row.author, row.example) == ("U_EN", SHAPE)
    assert await harness.store.unknown_errors(p.TEAM) == []  # known now: it leaves "Errors errkb doesn't know yet"

    answered = await paste_and_wait(harness, unknown_paste(4))
    shown = answered.answer.text_of_blocks
    assert "frobnicator rejected a shard" in shown and "acme reshard" in shown and "<@U_EN>" in shown

    dump = stored_text(str(tmp_path / "errkb.db"))
    for part in ("died again", "alpha-4", "alpha-9", "/srv/acme", "acme.io", "acmebox", "sekrit", "acme/run"):
        assert part not in dump

    await click(harness, blocks.ACTION_VOTE_UP, blocks.vote_value(row.entry_id, 0), message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts)
    feedback = await eventually(lambda: harness.store.feedback([row.entry_id]),
                                lambda f: f[row.entry_id].workarounds.get(0) and f[row.entry_id].workarounds[0].up)
    assert feedback[row.entry_id].workarounds[0].up == 1  # votes work on a team entry's workarounds


async def test_reviewers_verify_edit_and_retire_others_are_refused(harness):
    row = await harness.store.add_team_entry(p.TEAM, "U_CN", "zh", {
        "title": "AcmeWidgetError：分片被拒绝", "root_cause": "分片格式太旧。", "workarounds": ["重新导出分片。"]},
        r"AcmeWidgetError: frobnicator \S+ rejected shard", SHAPE)
    assert (await harness.send.event(p.app_home_opened("U_EN"))).status == 200
    home = (await harness.slack.wait_for("views.publish"))[0].text_of_blocks
    assert "Team entries" in home and "<@U_CN>" in home

    def menu(do: str) -> str:
        return json.dumps({"entry": row.entry_id, "do": do}, separators=(",", ":"))

    await click(harness, modals.ACTION_REVIEW, None, option=menu("verify"), user="U_EN")
    [refusal] = await harness.slack.wait_for("views.open")
    assert "Only reviewers can" in refusal.text_of_blocks
    assert (await harness.store.team_entry(p.TEAM, row.entry_id)).status == "live"

    harness.slack.groups["S0REVIEW"] = {"U_EN"}  # ERRKB_REVIEWERS=S0REVIEW
    harness.bot.service.teaching.reviewers = ("S0REVIEW",)
    await click(harness, modals.ACTION_REVIEW, None, option=menu("verify"), user="U_EN")
    await eventually(lambda: harness.store.team_entry(p.TEAM, row.entry_id), lambda r: r.status == "verified")
    assert harness.slack.calls_to("usergroups.users.list")

    harness.slack.admins.add("U_ADMIN")  # an admin per users.info; the edit modal speaks the author's language
    await click(harness, modals.ACTION_REVIEW, None, option=menu("edit"), user="U_ADMIN")
    opened = (await harness.slack.wait_for("views.open", 2))[1]
    edit_view = harness.slack.views[opened.result["view"]["id"]]
    assert "编辑团队条目" in json.dumps(edit_view, ensure_ascii=False)
    assert "分片格式太旧" in json.dumps(edit_view, ensure_ascii=False)

    answered = await paste_and_wait(harness, unknown_paste(5), user="U_EN")  # an English reader: untranslated
    assert "分片被拒绝" in answered.answer.text_of_blocks and "untranslated" in answered.answer.text_of_blocks
    await click(harness, blocks.ACTION_VOTE_UP, blocks.vote_value(row.entry_id, 0), message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts)

    await click(harness, modals.ACTION_REVIEW, None, option=menu("translate"), user="U_EN")  # anyone may translate
    opened = (await harness.slack.wait_for("views.open", 3))[2]
    view_id = opened.result["view"]["id"]
    translate = harness.slack.views[view_id]
    assert translate["callback_id"] == modals.CALLBACK_TRANSLATE and "分片格式太旧" in json.dumps(
        translate, ensure_ascii=False)
    english = {"title": "AcmeWidgetError: shard refused", "root_cause": "The shard's format is too old."}
    short = (await harness.send.form(in_view(view_id, typed(translate, **english, workarounds=" "), "U_EN",
                                             "view_submission"))).json()
    assert "Give 1 line," in short["errors"]["workarounds"]
    done = await harness.send.form(in_view(view_id, typed(translate, **english, workarounds="Re-export the shard."),
                                           "U_EN", "view_submission"))
    assert done.status == 200 and done.body == ""
    again = await paste_and_wait(harness, unknown_paste(7), user="U_EN")
    assert "shard refused" in again.answer.text_of_blocks and "untranslated" not in again.answer.text_of_blocks
    assert (await harness.store.feedback([row.entry_id]))[row.entry_id].workarounds[0].up == 1  # the vote stayed
    await click(harness, modals.ACTION_REVIEW, None, option=menu("retire"), user="U_ADMIN")
    await eventually(lambda: harness.store.team_entry(p.TEAM, row.entry_id), lambda r: r.status == "retired")
    before = len(harness.slack.calls_to("chat.postMessage"))
    assert (await harness.send.event(p.message(unknown_paste(6)))).status == 200
    await eventually(lambda: harness.store.unknown_errors(p.TEAM), lambda rows: rows and rows[0].count >= 1)
    assert len(harness.slack.calls_to("chat.postMessage")) == before  # retired: it stops answering


async def test_the_author_is_told_in_a_direct_message_what_they_saved(harness):
    view_id, view = await open_modal(harness)
    saved = await harness.send.form(in_view(view_id, typed(view, **FORM), "U_EN", "view_submission"))
    assert saved.status == 200 and saved.body == ""  # the modal closes at once; the confirmation follows
    [row] = await harness.store.team_entries(p.TEAM)
    [told] = await harness.slack.wait_for("chat.postMessage")
    assert told["channel"] == "U_EN"  # the author's DM with errkb, nobody else's
    text = told.text_of_blocks
    assert "AcmeWidgetError: frobnicator rejected a shard" in text and row.entry_id in text
    assert "answers in this workspace now" in text and "not reviewed yet" in text
