"""Where an entry's page is on errkb's website (``errkb site``, ``bot/site/``): one folder per reading
language, ``<site>/<folder>/<domain>/<slug>.html``. Shared by the site that writes the pages and the answers
that link to them."""

from __future__ import annotations

FOLDERS = {"en": "en", "zh": "zh-hans", "zh-TW": "zh-hant"}  # reading locale → the site's folder for it


def folder_for(locale: str) -> str:
    """The site folder for a reader's locale (``bot.i18n.READING``): zh-HK reads the Traditional pages."""
    if locale.startswith("zh"):
        return FOLDERS["zh-TW"] if locale in ("zh-TW", "zh-HK") else FOLDERS["zh"]
    return FOLDERS["en"]


def entry_url(site_url: str, locale: str, entry_id: str) -> str:
    """The address of ``entry_id``'s page for a reader of ``locale`` on the site at ``site_url``."""
    return f"{site_url.rstrip('/')}/{folder_for(locale)}/{entry_id}.html"
