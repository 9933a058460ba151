"""The family answer as a reader sees it: labelled "No fix known yet" in both languages, the official page for
the exact code, the reader's line masked and escaped, *Add to errkb*, and nothing that looks like a fix."""

from __future__ import annotations

import json

import pytest

from bot import i18n
from bot.render import blocks
from bot.render.family import family_json, family_message, family_text
from bot.service.families import family_card

RUSTC = ("error[E0275]: overflow evaluating the requirement `Wrapper<Wrapper<T>>: Sized`\n"
         "error: aborting due to 1 previous error\n")
SECRET = ("C:\\src\\App.csproj : error NU1301: Unable to load the service index for source "
          "https://ci:ghp_abcdefghijklmnopqrstuvwxyz0123456789@nuget.acme.io/<!channel>/index.json")


def _card(kb, paste: str, locale: str = "en"):
    with i18n.use_locale(locale):
        card = family_card(kb.families, paste)
        assert card is not None
        return card, family_message(card), family_text(card), family_json(card)


def _texts(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False)


@pytest.mark.parametrize(("locale", "headline", "page"), [
    ("en", "*No fix known yet · rustc error E0275*", "*Official page for E0275*: "),
    ("zh", "*尚无已知修复 · rustc 错误 E0275*", "*E0275 的官方文档页*："),
    ("zh-TW", "*尚無已知修復 · rustc 錯誤 E0275*", "*E0275 的官方文件頁*："),
])
def test_the_card_is_labelled_as_no_fix_in_the_readers_language(kb, locale, headline, page):
    _c, message, _t, _j = _card(kb, RUSTC, locale)
    body = message["blocks"][0]["text"]["text"]
    assert body.startswith(headline)
    assert page + "<https://doc.rust-lang.org/error_codes/E0275.html|" in body
    # the reader's line, escaped, its backticks made quotes so the code span holds
    assert "> `error[E0275]: overflow evaluating the requirement 'Wrapper&lt;Wrapper&lt;T&gt;&gt;: Sized'`" in body


def test_the_card_offers_teaching_and_no_fix_numbers_or_votes(kb):
    _c, message, _t, _j = _card(kb, RUSTC)
    actions = [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert actions == [blocks.ACTION_TEACH]
    body = _texts(message)
    for fix_words in ("Worked", "Didn't work", "Try first", "estimated ~", "%"):
        assert fix_words not in body
    assert "not a diagnosis" in body
    teach = json.loads(message["blocks"][2]["elements"][0]["value"])
    assert teach["line"].startswith("error[E0275]: overflow evaluating the requirement <name>")


def test_the_readers_line_is_masked_and_cannot_ping_or_link(kb):
    card, message, text, data = _card(kb, SECRET)
    assert card.code == "NU1301" and card.url.endswith("/nuget/reference/errors-and-warnings/nu1301")
    for rendered in (_texts(message), text, json.dumps(data)):
        assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in rendered
    assert "<!channel>" not in _texts(message) and "/@channel/" in _texts(message)  # Slack's token, as plain text


def test_a_code_without_a_page_of_its_own_says_the_link_is_the_list(kb):
    card, _message, text, _j = _card(kb, "C:\\src\\App.csproj : error NETSDK1209: The current Visual Studio version "
                                        "does not support targeting .NET 9.0.")
    assert card.page == "index"
    assert "Official list of these codes (NETSDK1209 has no page of its own)" in text
    assert "https://learn.microsoft.com/en-us/dotnet/core/tools/sdk-errors/" in text


def test_json_has_how_family_and_no_fix(kb):
    _c, _m, _t, data = _card(kb, "ERROR: duplicate key value violates unique constraint \"u_email\" (SQLSTATE 23505)",
                             "zh")
    assert data["how"] == "family" and data["id"] is None and data["known_fix"] is False
    assert (data["family"], data["code"], data["code_name"]) == ("sqlstate", "23505", "unique_violation")
    assert data["official_doc_url"] == "https://www.postgresql.org/docs/current/errcodes-appendix.html"
    assert data["workarounds"] == [] and data["headline"] == "尚无已知修复 · SQLSTATE 23505"
