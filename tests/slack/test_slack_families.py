"""Coded errors no entry knows, end to end over real HTTP with the fake Slack: the family answer (labelled "No
fix known yet", the official page for the exact code, *Add to errkb*) privately, silence in the channel, and a
known error still answered by its entry."""

from __future__ import annotations

import pytest

from bot.kb.normalize import normalize
from bot.render import blocks
from tests.slack.conftest import NCCL_PASTE, command
from tests.slack.test_messages import assert_silent
from tests.support import payloads as p

# Real-shaped pastes carrying a documented code, each from another family: the KB grows an entry for some
# error sooner or later, so the test takes the first one no entry answers.
CODED = [
    ("error[E0275]: overflow evaluating the requirement `Wrapper<Wrapper<Wrapper<T>>>: Sized`\n"
     "error: aborting due to 1 previous error\n", "E0275", "https://doc.rust-lang.org/error_codes/E0275.html"),
    ("C:\\src\\Acme.Frob\\Acme.Frob.csproj : error NU1012: Platform version is not present for one or more target "
     "frameworks, even though they have specified a platform: net8.0-frobos", "NU1012",
     "https://learn.microsoft.com/en-us/nuget/reference/errors-and-warnings/nu1012"),
    ("ERROR 1524 (HY000): Plugin 'frob_auth_socket' is not loaded", "1524",
     "https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html#error_er_plugin_is_not_loaded"),
    ("ERROR:  frobnicated tuple cannot be widened (SQLSTATE 2202H)", "2202H",
     "https://www.postgresql.org/docs/current/errcodes-appendix.html"),
]


@pytest.fixture(scope="module")
def coded(kb) -> tuple[str, str, str]:
    for paste, code, url in CODED:
        if not kb.matcher.match(normalize(paste), limit=1):
            return paste, code, url
    raise AssertionError("every coded paste here has an entry now: add one no entry knows")


async def test_errkb_paste_gets_the_labelled_family_answer_privately(harness, coded):
    paste, code, url = coded
    [answer] = await command(harness, paste)
    text = answer.text_of_blocks
    assert answer["response_type"] == "ephemeral"
    assert "No fix known yet · " in text and f" {code}*" in text and f"<{url}|" in text
    assert "not a diagnosis" in text and "Add to errkb" in text
    assert "Worked" not in text and "Try first" not in text  # no fix, no numbers, no votes


async def test_a_chinese_reader_gets_it_in_chinese(harness, coded):
    paste, _code, _url = coded
    [answer] = await command(harness, paste, user="U_CN")
    assert "尚无已知修复 · " in answer.text_of_blocks and "并不是诊断" in answer.text_of_blocks


async def test_a_known_error_still_gets_its_entry(harness):
    [answer] = await command(harness, NCCL_PASTE)
    assert "AllReduce timed out" in answer.text_of_blocks and "No fix known yet" not in answer.text_of_blocks


async def test_in_a_channel_errkb_stays_silent_on_it(harness, coded):
    await assert_silent(harness, p.message(coded[0]))


async def test_a_mention_is_told_privately_with_the_page(harness, coded):
    paste, _code, url = coded
    assert (await harness.send.event(p.app_mention(paste))).status == 200
    [whisper] = await harness.slack.wait_for("chat.postEphemeral")
    assert "No fix known yet · " in whisper.text_of_blocks and f"<{url}|" in whisper.text_of_blocks
    assert any(e["action_id"] == blocks.ACTION_TEACH for b in whisper["blocks"] if b["type"] == "actions"
               for e in b["elements"])
