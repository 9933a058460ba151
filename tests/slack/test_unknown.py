"""Errors errkb could not answer: only their masked shape is kept, counted, shown in App Home and `errkb unmatched`."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from bot.cli import main
from tests.slack.conftest import command
from tests.support import payloads as p
from tests.support.waits import eventually


def unknown_paste(n: int) -> str:
    """The same unknown error from three runs: other users, hosts, paths, values, ids and a secret."""
    return (f"run {n} died again, any idea?\n```\nTraceback (most recent call last):\n"
            f"  File \"/home/user{n}/acme/run.py\", line {10 + n}, in <module>\n"
            f"AcmeWidgetError: frobnicator 'alpha-{n}' rejected shard {40 + n} from /srv/acme{n}/shard.bin "
            f"on acmebox-{n}.acme.internal:80{n}0 for dev{n}@acme.io (token=sekrit{n}abcdef0123)\n```")


SHAPE = ("AcmeWidgetError: frobnicator <name> rejected shard <n> from <path> on <host> for <email> "
         "(token=<secret>)")


def stored_text(db: str) -> str:
    """Every value in every table of the store, as one string."""
    con = sqlite3.connect(db)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(repr(row) for t in tables for row in con.execute(f'SELECT * FROM "{t}"'))
    finally:
        con.close()


async def test_an_unknown_error_pasted_three_times_is_kept_once_masked_with_count_3(harness, tmp_path, capsys,
                                                                                     monkeypatch):
    for n in (1, 2, 3):
        assert (await harness.send.event(p.message(unknown_paste(n)))).status == 200
    rows = await eventually(lambda: harness.store.unknown_errors(p.TEAM),
                            lambda found: found and found[0].count == 3)
    assert [(r.shape, r.error_type, r.count, r.channel) for r in rows] == [(SHAPE, "AcmeWidgetError", 3, p.CHANNEL)]
    assert not harness.slack.calls_to("chat.postMessage")  # an unknown error in a channel is still not answered

    assert (await harness.send.event(p.app_home_opened("U_EN"))).status == 200
    home = (await harness.slack.wait_for("views.publish"))[0].text_of_blocks
    assert "Errors errkb doesn't know yet" in home and "3 times" in home
    assert "frobnicator &lt;name&gt; rejected shard" in home

    db = str(tmp_path / "errkb.db")
    dump = stored_text(db)
    for part in ("died again", "alpha-1", "/srv/acme", "acme.io", "acmebox", "sekrit", "user2", "acme/run"):
        assert part not in dump

    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{db}")
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["unmatched", "--format", "json"]) == 0  # the CLI runs its own loop
    listed = json.loads(capsys.readouterr().out)
    assert [(u["workspace"], u["line"], u["count"]) for u in listed] == [(p.TEAM, SHAPE, 3)]


async def test_an_edit_counts_once_and_chat_not_at_all(harness):
    sent = p.message(unknown_paste(1))
    ts = sent["event"]["ts"]
    assert (await harness.send.event(sent)).status == 200
    assert (await harness.send.event(p.message("has anyone seen AcmeWidgetError before? it is flaky"))).status == 200
    assert (await harness.send.event(p.edited(ts, unknown_paste(1) + "\nedit: also on Fridays",
                                              unknown_paste(1)))).status == 200
    assert (await harness.send.event(p.message(unknown_paste(2)))).status == 200
    rows = await eventually(lambda: harness.store.unknown_errors(p.TEAM), lambda found: found and found[0].count >= 2)
    await asyncio.sleep(0.3)
    assert [(r.shape, r.count) for r in await harness.store.unknown_errors(p.TEAM)] == [(SHAPE, 2)] == \
        [(r.shape, r.count) for r in rows]


async def test_unknown_off_forgets_and_stops_keeping_them_and_on_resumes(harness):
    assert (await harness.send.event(p.message(unknown_paste(1)))).status == 200
    await eventually(lambda: harness.store.unknown_errors(p.TEAM))
    for sub in ("unknown off", "unknown on"):  # a member: told who can; nothing forgotten or switched
        [refused] = await command(harness, sub)
        assert "Only a workspace admin or a reviewer" in refused.text_of_blocks
    assert [r.shape for r in await harness.store.unknown_errors(p.TEAM)] == [SHAPE]
    assert await harness.store.remembers_unknown(p.TEAM)
    harness.slack.admins.update({"U_EN", "U_CN"})  # workspace admins (users.info)
    [answer] = await command(harness, "unknown off")
    assert "no longer keep" in json.dumps(answer.args)
    assert await harness.store.unknown_errors(p.TEAM) == []
    assert (await harness.send.event(p.message(unknown_paste(2)))).status == 200
    assert (await harness.send.event(p.app_home_opened("U_EN"))).status == 200
    home = (await harness.slack.wait_for("views.publish"))[0].text_of_blocks
    assert "`/errkb unknown on`" in home and "frobnicator" not in home
    assert await harness.store.unknown_errors(p.TEAM) == []

    [answer] = await command(harness, "unknown on", user="U_CN")
    assert "我" in json.dumps(answer.args, ensure_ascii=False)
    [_paste_answer] = await command(harness, unknown_paste(3))  # `/errkb <paste>` counts too
    rows = await eventually(lambda: harness.store.unknown_errors(p.TEAM))
    assert [(r.shape, r.count) for r in rows] == [(SHAPE, 1)]
    [usage] = await command(harness, "unknown maybe")
    assert "/errkb unknown on|off" in json.dumps(usage.args)


async def test_a_pasted_unknown_error_gets_what_errkb_could_tell_privately(harness):
    paste = ("Traceback (most recent call last):\n  File \"/home/ann/proj/sync.py\", line 8, in push\n    client.send()\n"
             "  File \"/usr/lib/python3.11/site-packages/acme/client.py\", line 99, in send\n"
             "AcmeWidgetError: frobnicator 'alpha-1' rejected shard 41 from /srv/x/shard.bin")
    [answer] = await command(harness, paste, user="U_CN")
    text = json.dumps(answer.args, ensure_ascii=False)
    assert "这个错误我还不认识" in text and "AcmeWidgetError: frobnicator &lt;name&gt;" in text
    assert "`AcmeWidgetError`" in text and "sync.py:8 in push" in text and "client.py" not in text
    assert answer["response_type"] == "ephemeral"
