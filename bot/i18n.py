"""Locale negotiation, gettext catalogs and locale-aware formatting, all through Babel.

The reader's locale is decided once per request (``use_locale``) and lives in a ContextVar, so
renderers just call ``_()`` and the ``format_*`` helpers. Catalogs are ``locales/<lang>/LC_MESSAGES/
errkb.po``; their ``.mo`` files are compiled by Babel at start when missing or older than the
``.po`` — a ``.po`` that cannot be compiled stops the program rather than leaving it silently English.
"""

from __future__ import annotations

import datetime as dt
import gettext
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from babel.core import Locale, UnknownLocaleError
from babel.dates import format_date as _babel_format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent

from bot.errors import CatalogError

DOMAIN = "errkb"
SUPPORTED = ("en", "zh")
DEFAULT_LOCALE = "en"
LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"

_PLACEHOLDER = re.compile(r"\{(\w*)\}")
_current: ContextVar[str] = ContextVar("errkb_locale", default=DEFAULT_LOCALE)
_catalogs: dict[str, gettext.NullTranslations] = {}


def negotiate(code: str | None) -> str:
    """Our locale for a Slack/POSIX/BCP-47 code: every Chinese variant reads Chinese, all else English."""
    if not code:
        return DEFAULT_LOCALE
    try:
        language = Locale.parse(code.strip().replace("-", "_")).language
    except (ValueError, UnknownLocaleError, TypeError):
        language = code.strip().lower().replace("_", "-").split("-", 1)[0]
    return language if language in SUPPORTED else DEFAULT_LOCALE


def compile_catalogs(locales_dir: Path = LOCALES_DIR) -> list[Path]:
    """Compile each ``.po`` whose ``.mo`` is missing or stale; returns the ``.mo`` files written."""
    written = []
    for po_path in sorted(locales_dir.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        mo_path = po_path.with_suffix(".mo")
        if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
            continue
        try:
            with po_path.open("rb") as po_file:
                catalog = read_po(po_file, locale=po_path.parent.parent.name, abort_invalid=True)
            _check_placeholders(catalog)
            with mo_path.open("wb") as mo_file:
                write_mo(mo_file, catalog)
        except Exception as exc:  # any parse or write failure must stop start-up loudly
            raise CatalogError(f"{po_path}: cannot compile the catalog: {exc}") from exc
        written.append(mo_path)
    return written


def _check_placeholders(catalog) -> None:
    """A translation must use the same ``{name}`` placeholders as its message, or formatting fails."""
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(_PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            if string and set(_PLACEHOLDER.findall(string)) != wanted:
                raise ValueError(f"msgstr {string!r} must use the placeholders {sorted(wanted)} of {ids[0]!r}")


def load_catalogs(locales_dir: Path = LOCALES_DIR) -> None:
    """Compile (when needed) and load every supported locale's catalog."""
    compile_catalogs(locales_dir)
    for lang in SUPPORTED:
        if lang == DEFAULT_LOCALE:
            _catalogs[lang] = gettext.NullTranslations()
            continue
        try:
            _catalogs[lang] = gettext.translation(DOMAIN, localedir=str(locales_dir), languages=[lang])
        except OSError as exc:
            raise CatalogError(f"no compiled catalog for {lang!r} under {locales_dir}") from exc


def _translations() -> gettext.NullTranslations:
    if not _catalogs:
        load_catalogs()
    return _catalogs.get(_current.get(), _catalogs[DEFAULT_LOCALE])


def current_locale() -> str:
    return _current.get()


@contextmanager
def use_locale(locale: str) -> Iterator[str]:
    """Run a block in ``locale`` (negotiated), restoring the previous one after."""
    token = _current.set(negotiate(locale))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def set_locale(locale: str) -> str:
    """Set the locale for the rest of this context (a request, a CLI run)."""
    _current.set(negotiate(locale))
    return _current.get()


def _(message: str) -> str:
    """Translate ``message`` into the current locale."""
    return _translations().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translations().ngettext(singular, plural, n)


def _babel_locale() -> str:
    return "zh_Hans_CN" if _current.get() == "zh" else "en_US"


def fmt_percent(value: float) -> str:
    """A rate as a percentage in the current locale (0.853 → ``85%``)."""
    return format_percent(value, format="#,##0%", locale=_babel_locale())


def fmt_number(value: float, digits: int = 0) -> str:
    pattern = "#,##0" + ("." + "#" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=_babel_locale())


def fmt_date(value: dt.date) -> str:
    return _babel_format_date(value, format="medium", locale=_babel_locale())
