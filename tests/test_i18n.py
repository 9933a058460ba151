"""Locale negotiation, catalogs compiled by Babel, locale-aware formatting."""

from __future__ import annotations

import shutil

import pytest

from bot import i18n


@pytest.mark.parametrize(
    ("code", "expected"),
    [("en-US", "en"), ("en-GB", "en"), ("zh-CN", "zh"), ("zh-TW", "zh"), ("zh_Hant_HK", "zh"), ("zh", "zh"),
     ("ja-JP", "en"), ("fr-FR", "en"), ("", "en"), (None, "en"), ("not a locale!", "en")],
)
def test_every_chinese_variant_reads_chinese_and_all_else_english(code, expected):
    assert i18n.negotiate(code) == expected


def test_interface_words_come_from_the_catalog():
    with i18n.use_locale("zh-TW"):
        assert i18n._("Root cause") == "根本原因"
        assert i18n.ngettext("{n} vote up", "{n} votes up", 3).format(n=3) == "3 票有效"
    with i18n.use_locale("ja-JP"):
        assert i18n._("Root cause") == "Root cause"
        assert i18n.ngettext("{n} vote up", "{n} votes up", 1).format(n=1) == "1 vote up"


def test_use_locale_restores_the_previous_locale():
    with i18n.use_locale("zh"):
        with i18n.use_locale("en"):
            assert i18n.current_locale() == "en"
        assert i18n.current_locale() == "zh"


def test_numbers_and_dates_are_formatted_for_the_locale():
    import datetime as dt

    with i18n.use_locale("en"):
        assert i18n.fmt_percent(0.853) == "85%"
        assert i18n.fmt_number(12345) == "12,345"
        assert i18n.fmt_date(dt.date(2024, 6, 1)) == "Jun 1, 2024"
    with i18n.use_locale("zh"):
        assert i18n.fmt_date(dt.date(2024, 6, 1)) == "2024年6月1日"


def test_catalogs_are_compiled_from_po_by_babel(tmp_path):
    shutil.copytree(i18n.LOCALES_DIR, tmp_path / "locales", ignore=shutil.ignore_patterns("*.mo"))
    written = i18n.compile_catalogs(tmp_path / "locales")
    assert {p.parent.parent.name for p in written} == {"en", "zh"}
    assert i18n.compile_catalogs(tmp_path / "locales") == []  # fresh .mo files are left alone


def test_a_broken_po_stops_start_up_loudly(tmp_path):
    po = tmp_path / "zh" / "LC_MESSAGES" / "errkb.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "a"\nmsgstr "b"\ngarbage\n', encoding="utf-8")
    with pytest.raises(i18n.CatalogError, match=r"errkb\.po"):
        i18n.compile_catalogs(tmp_path)


def test_a_translation_that_drops_a_placeholder_is_refused(tmp_path):
    po = tmp_path / "zh" / "LC_MESSAGES" / "errkb.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid "works in {rate} of reports"\nmsgstr "有效"\n', encoding="utf-8")
    with pytest.raises(i18n.CatalogError, match="placeholders"):
        i18n.compile_catalogs(tmp_path)


def test_the_chinese_catalog_translates_every_message():
    from babel.messages.pofile import read_po

    with (i18n.LOCALES_DIR / "zh" / "LC_MESSAGES" / "errkb.po").open("rb") as f:
        catalog = read_po(f)
    empty = [m.id for m in catalog if m.id and not (m.string[0] if isinstance(m.string, tuple) else m.string)]
    assert empty == []
