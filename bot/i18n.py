"""Locale negotiation, gettext catalogs and locale-aware formatting, all through Babel.

The reader's locale is decided once per request (``use_locale``) and lives in a ContextVar, so
renderers just call ``_()`` and the ``format_*`` helpers. Catalogs are ``locales/<lang>/LC_MESSAGES/
errkb.po``; their ``.mo`` files are compiled by Babel at start when missing or older than the
``.po`` — a ``.po`` that cannot be compiled stops the program rather than leaving it silently English.
"""

from __future__ import annotations

import datetime as dt
import gettext
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from pathlib import Path

import opencc
from babel.core import Locale, UnknownLocaleError
from babel.dates import format_date as _babel_format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent

from bot.bundled import bundled
from bot.errors import CatalogError

DOMAIN = "errkb"
SUPPORTED = ("en", "zh")  # the languages the KB and the catalogs are written in
# What a reader can read: Simplified Chinese, or Traditional with Taiwan's or Hong Kong's phrasing, made
# from the Simplified text at render time by OpenCC's phrase-level conversion (commands untouched).
READING = ("en", "zh", "zh-TW", "zh-HK")
_OPENCC = {"zh-TW": "s2twp", "zh-HK": "s2hk"}
DEFAULT_LOCALE = "en"
LOCALES_DIR = bundled("locales")  # a wheel carries the compiled catalogs only

_PLACEHOLDER = re.compile(r"\{(\w*)\}")
_current: ContextVar[str] = ContextVar("errkb_locale", default=DEFAULT_LOCALE)
_catalogs: dict[str, gettext.NullTranslations] = {}


def negotiate(code: str | None) -> str:
    """Our reading locale for a Slack/POSIX/BCP-47 code: ``zh-TW`` or ``zh-HK`` for Traditional Chinese
    (Taiwan's phrasing unless the code names Hong Kong or Macau), ``zh`` for any other Chinese, else ``en``."""
    if not code:
        return DEFAULT_LOCALE
    try:
        parsed = Locale.parse(code.strip().replace("-", "_"))
        language, script, territory = parsed.language, parsed.script, parsed.territory
    except (ValueError, UnknownLocaleError, TypeError):
        parts = code.strip().lower().replace("_", "-").split("-")
        language, script, territory = parts[0], None, (parts[1].upper() if len(parts) > 1 else None)
    if language != "zh":
        return language if language in SUPPORTED else DEFAULT_LOCALE
    if territory in ("HK", "MO"):
        return "zh-HK"
    if territory == "TW" or script == "Hant":
        return "zh-TW"
    return "zh"


def language(code: str) -> str:
    """The language a reading locale reads the KB in: ``zh`` for every Chinese, else ``en``."""
    return "zh" if code.startswith("zh") else DEFAULT_LOCALE


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
            # written aside, then renamed: a process starting at the same time never reads half a file
            partial = mo_path.with_name(f"{mo_path.name}.{os.getpid()}.tmp")
            try:
                with partial.open("wb") as mo_file:
                    write_mo(mo_file, catalog)
                os.replace(partial, mo_path)
            finally:
                partial.unlink(missing_ok=True)  # gone after the rename; a failed write leaves nothing behind
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
    return _catalogs.get(current_locale(), _catalogs[DEFAULT_LOCALE])


def current_locale() -> str:
    """The language of the current reader (``en`` or ``zh``): which fields and catalog to read."""
    return language(_current.get())


def reading_locale() -> str:
    """The current reader's locale as they read it: ``en``, ``zh``, ``zh-TW`` or ``zh-HK``."""
    return _current.get()


def script(text: str) -> str:
    """``text`` (Simplified Chinese, or anything else) in the current reader's script: Traditional with
    their region's phrasing for a ``zh-TW`` / ``zh-HK`` reader, unchanged otherwise. Code spans, fenced
    blocks and addresses are left exactly as written."""
    config = _OPENCC.get(_current.get())
    return _converted(config, text) if config and text else text


def fold(query: str) -> str:
    """A search query in Simplified Chinese with mainland terms (OpenCC's ``tw2sp``: 記憶體 → 内存), so
    Traditional and Simplified queries find the same entries; a few Taiwan terms OpenCC keeps are mapped too."""
    if not query:
        return query
    folded = _converted("tw2sp", query)
    for taiwan, mainland in _TERMS.items():
        folded = folded.replace(taiwan, mainland)
    return folded


_TERMS = {"逾时": "超时", "连线": "连接", "档案": "文件", "资料库": "数据库", "记忆体": "内存"}


_KEPT = re.compile(r"```.*?```|`[^`\n]*`|https?://\S+", re.S)


@lru_cache(maxsize=8192)
def _converted(config: str, text: str) -> str:
    converter = _converter(config)
    out, last = [], 0
    for kept in _KEPT.finditer(text):
        out.append(converter.convert(text[last : kept.start()]))
        out.append(kept.group(0))
        last = kept.end()
    out.append(converter.convert(text[last:]))
    return "".join(out)


@cache
def _converter(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


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
    return script(_translations().gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    return script(_translations().ngettext(singular, plural, n))


_BABEL = {"zh": "zh_Hans_CN", "zh-TW": "zh_Hant_TW", "zh-HK": "zh_Hant_HK"}


def _babel_locale() -> str:
    return _BABEL.get(_current.get(), "en_US")


def fmt_percent(value: float) -> str:
    """A rate as a percentage in the current locale (0.853 → ``85%``)."""
    return format_percent(value, format="#,##0%", locale=_babel_locale())


def fmt_number(value: float, digits: int = 0) -> str:
    pattern = "#,##0" + ("." + "#" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=_babel_locale())


def fmt_date(value: dt.date) -> str:
    return _babel_format_date(value, format="medium", locale=_babel_locale())
