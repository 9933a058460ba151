"""Teaching errkb, the whole loop end to end over real HTTP against the fake Slack: an unknown error pasted three times
is kept once, masked, counted 3 (App Home, `errkb unmatched`) and its paste is nowhere in the database; *Add to
errkb* refuses a bad regex in the modal and a valid form answers the next paste; *Suggest a fix* adds a fix
that votes move; `errkb export --team` passes `errkb validate` over the bundled seeds; the README says it all."""

from __future__ import annotations

import asyncio
import json
import shutil

from bot.cli import main
from bot.kb.feedback import Tally
from bot.render import blocks
from tests.conftest import REPO, SEEDS
from tests.slack.conftest import click, paste_and_wait
from tests.slack.test_suggest import element, open_form, submit
from tests.slack.test_teach import FORM, in_view, open_modal, typed
from tests.slack.test_unknown import SHAPE, stored_text, unknown_paste
from tests.support import payloads as p
from tests.support.waits import eventually

FIX = "Delete the stale shard map with `acme shards forget`, then reshard."


async def cli(capsys, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))  # the CLI runs its own event loop
    return code, capsys.readouterr().out


async def test_an_unknown_error_is_counted_taught_answered_given_a_fix_and_exported(harness, tmp_path, capsys,
                                                                                     monkeypatch):
    db = tmp_path / "errkb.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{db}")

    # 1. an unknown error, three times: kept once, masked, count 3, in App Home and `errkb unmatched`
    for n in (1, 2, 3):
        assert (await harness.send.event(p.message(unknown_paste(n)))).status == 200
    await eventually(lambda: harness.store.unknown_errors(p.TEAM), lambda rows: rows and rows[0].count == 3)
    assert (await harness.send.event(p.app_home_opened("U_EN"))).status == 200
    home = (await harness.slack.wait_for("views.publish"))[0].text_of_blocks
    assert "Errors errkb doesn't know yet" in home and "3 times" in home and "frobnicator &lt;name&gt;" in home
    code, out = await cli(capsys, "unmatched", "--format", "json")
    assert code == 0 and [(u["line"], u["count"]) for u in json.loads(out)] == [(SHAPE, 3)]

    # 2. *Add to errkb*: a bad regex is refused in the modal, in words; a valid form answers the next paste
    view_id, view = await open_modal(harness)
    refused = await harness.send.form(in_view(view_id, typed(view, **FORM, regex="frobnicator (rejected"), "U_EN",
                                              "view_submission"))
    assert refused.json()["response_action"] == "errors"
    assert "RE2 cannot compile this regex" in refused.json()["errors"]["regex"]
    assert await harness.store.team_entries(p.TEAM) == []
    saved = await harness.send.form(in_view(view_id, typed(view, **FORM), "U_EN", "view_submission"))
    assert saved.status == 200 and saved.body == ""
    [entry] = await harness.store.team_entries(p.TEAM)
    answered = await paste_and_wait(harness, unknown_paste(4))
    assert "frobnicator rejected a shard" in answered.answer.text_of_blocks

    # 3. *Suggest a fix* on that answer: it joins the entry's fixes, credited; votes move it to the top
    form = await open_form(harness, answered, user="U_CN")
    assert form["title"]["text"] == "建议修复方法"  # the author's language
    assert (await submit(harness, form, user="U_CN", fix=FIX)).body == ""
    (fix,) = (await harness.store.suggested_fixes(p.TEAM))[entry.entry_id]
    before = len(harness.slack.calls_to("chat.postMessage"))
    await click(harness, blocks.ACTION_OTHER_FIXES, entry.entry_id, message_ts=answered.answer.ts,
                thread_ts=answered.thread_ts)
    posted = (await harness.slack.wait_for("chat.postMessage", before + len(entry.body["workarounds"])))[before:]
    mine = next(c for c in posted if json.loads(element(c, blocks.ACTION_VOTE_UP)["value"])["workaround"] == fix.index)
    assert "suggested by <@U_CN>, no votes yet" in mine.text_of_blocks
    assert "untranslated" in mine.text_of_blocks  # written in Chinese, read in English
    for user in ("U_EN", "U_TW"):
        assert (await harness.send.event(p.reaction("+1", mine.ts, user=user))).status == 200
    await click(harness, blocks.ACTION_VOTE_UP, element(mine, blocks.ACTION_VOTE_UP)["value"], message_ts=mine.ts,
                thread_ts=answered.thread_ts, user="U_JA")
    await eventually(lambda: harness.store.feedback([entry.entry_id], p.TEAM),
                     lambda live: live[entry.entry_id].workarounds.get(fix.index) == Tally(3, 0))
    ranked = await harness.bot.service.knowledge.show(entry.entry_id, p.TEAM)
    assert ranked.workarounds[0].index == fix.index  # three 👍 lift it above the entry's own fixes
    code, out = await cli(capsys, "db", "check")
    assert code == 0

    # the paste is nowhere in the database (its masked line and what the team wrote are)
    dump = stored_text(str(db))
    for part in ("died again", "alpha-1", "alpha-4", "/srv/acme", "acme.io", "acmebox", "sekrit", "acme/run"):
        assert part not in dump

    # 4. `errkb export --team` → `errkb validate` over the bundled seeds passes
    out_dir = tmp_path / "export"
    code, _out = await cli(capsys, "export", "--team", p.TEAM, "--out", str(out_dir))
    assert code == 0
    exported = json.loads((out_dir / "seeds" / f"{entry.entry_id}.json").read_text(encoding="utf-8"))
    assert exported["workarounds_zh"][-1] == FIX and exported["workarounds"][-1]["key"].startswith("team-fix-")
    assert (out_dir / "pastes" / entry.entry_id / "1.txt").read_text(encoding="utf-8") \
        == SHAPE + "\n"
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    shutil.copytree(out_dir / "seeds", seeds, dirs_exist_ok=True)
    code, out = await cli(capsys, "validate", str(seeds))
    assert code == 0, out


def test_the_docs_document_the_loop_and_what_is_stored():
    guide = (REPO / "docs" / "slack.md").read_text(encoding="utf-8")
    loop = guide[guide.index("1. **Unknown error**"):]
    steps = ["`errkb unmatched`", "Add to errkb", "Suggest a fix", "Review", "errkb export --team",
             "pull request", "What teaching stores"]
    assert [s for s in steps if s not in loop] == []
    assert sorted(steps, key=loop.index) == steps  # in the order a team goes through them
    privacy = (REPO / "docs" / "privacy.md").read_text(encoding="utf-8")
    assert "`team_entries`" in privacy and "`team_fixes`" in privacy
