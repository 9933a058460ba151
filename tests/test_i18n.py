"""Locale negotiation, catalogs compiled by Babel, locale-aware formatting."""

from __future__ import annotations

import shutil

import pytest

from bot import i18n


@pytest.mark.parametrize(
    ("code", "expected", "reading"),
    [("en-US", "en", "en"), ("en-GB", "en", "en"), ("zh-CN", "zh", "zh"), ("zh-TW", "zh", "zh-TW"),
     ("zh_Hant_HK", "zh", "zh-HK"), ("zh-HK", "zh", "zh-HK"), ("zh_Hant", "zh", "zh-TW"), ("zh", "zh", "zh"),
     ("zh-SG", "zh", "zh"), ("ja-JP", "en", "en"), ("fr-FR", "en", "en"), ("", "en", "en"), (None, "en", "en"),
     ("not a locale!", "en", "en")],
)
def test_every_chinese_variant_reads_chinese_traditional_in_its_script_and_all_else_english(code, expected, reading):
    assert i18n.negotiate(code) == reading and i18n.language(reading) == expected


def test_interface_words_come_from_the_catalog():
    with i18n.use_locale("zh-CN"):
        assert i18n._("Root cause") == "根本原因"
        assert i18n.ngettext("{n} vote up", "{n} votes up", 3).format(n=3) == "3 票有效"
    with i18n.use_locale("zh-TW"):
        assert i18n.current_locale() == "zh" and i18n.reading_locale() == "zh-TW"
        assert i18n._("Why / what not to try") == "原因 / 哪些別試"


def test_traditional_chinese_keeps_code_spans_and_addresses_as_written():
    text = "运行 `pip install 网络` 后查看 https://example.com/网络 的说明：\n```\n设置 NCCL\n```\n网络超时"
    with i18n.use_locale("zh-TW"):
        converted = i18n.script(text)
    assert converted.startswith("執行 `pip install 网络` 後")
    assert "https://example.com/网络" in converted and "```\n设置 NCCL\n```" in converted
    assert converted.endswith("網路超時")
    with i18n.use_locale("zh-HK"):
        assert i18n.script("网络超时") == "網絡超時"
    with i18n.use_locale("zh"):
        assert i18n.script(text) == text
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


def test_a_failed_write_leaves_no_half_catalog_behind(tmp_path, monkeypatch):
    shutil.copytree(i18n.LOCALES_DIR, tmp_path / "locales", ignore=shutil.ignore_patterns("*.mo"))

    def full_disk(mo_file, catalog):
        mo_file.write(b"\xde\x12")
        raise OSError("No space left on device")

    monkeypatch.setattr(i18n, "write_mo", full_disk)
    with pytest.raises(i18n.CatalogError, match="No space left"):
        i18n.compile_catalogs(tmp_path / "locales")
    assert [p.name for p in (tmp_path / "locales").rglob("*.mo*")] == []


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
