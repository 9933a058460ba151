"""Every string a reader sees goes through the catalogs, and the Chinese one translates all of them."""

from __future__ import annotations

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from bot import i18n
from tests.conftest import REPO


def test_every_message_in_the_code_has_a_chinese_translation():
    with (i18n.LOCALES_DIR / "zh" / "LC_MESSAGES" / "errkb.po").open("rb") as f:
        catalog = read_po(f)
    keywords = {"_": None, "ngettext": (1, 2)}
    found = {message if isinstance(message, str) else message[0]
             for _file, _line, message, _comments, _context in extract_from_dir(REPO / "bot", keywords=keywords)}
    missing = sorted(m for m in found if not catalog.get(m) or not catalog.get(m).string
                     or catalog.get(m).string in ("", ("",)))
    assert missing == [], "run pybabel extract/update and translate: " + ", ".join(missing)


def test_chinese_has_one_plural_form_and_english_two():
    for lang, forms in (("zh", 1), ("en", 2)):
        with (i18n.LOCALES_DIR / lang / "LC_MESSAGES" / "errkb.po").open("rb") as f:
            assert read_po(f).num_plurals == forms
