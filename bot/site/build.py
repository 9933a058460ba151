"""Build the static site: every KB entry as a page in English, Simplified and Traditional Chinese, an
index per language grouped by domain, a search index and a 404 page.

Each entry's card comes from ``Knowledge.show`` in the page's locale, so the texts are those the Slack
answer shows: curated KB text as written (never masked or rewritten), commands byte for byte inside
``<code>``. Every text goes through :func:`html.escape`. The KB is loaded once; rendering the whole bundled
KB in three languages takes seconds.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass
from html import escape
from pathlib import Path

from bot import i18n
from bot.cards import EntryCard, WorkaroundCard
from bot.i18n import _, fmt_number, fmt_percent, ngettext
from bot.kb.knowledge import KnowledgeBase
from bot.render import labels, summary
from bot.render.site_links import FOLDERS, entry_url, folder_for
from bot.service.knowledge import Knowledge
from bot.site.templates import CSS, ENTRY, INDEX, PAGE, SEARCH_JS


@dataclass(frozen=True)
class Language:
    locale: str  # the reading locale (bot.i18n.READING)
    folder: str  # the site folder
    html: str  # the <html lang>
    og: str  # og:locale
    name: str  # the name a reader of it knows it by
    title_key: str  # the search index's title for it


LANGUAGES = (
    Language("en", FOLDERS["en"], "en", "en_US", "English", "en"),
    Language("zh", FOLDERS["zh"], "zh-Hans", "zh_CN", "简体中文", "zh"),
    Language("zh-TW", FOLDERS["zh-TW"], "zh-Hant", "zh_TW", "繁體中文", "hant"),
)
KEYWORDS = 6


@dataclass(frozen=True)
class Built:
    pages: int  # entry pages written
    entries: int
    out: Path


def build_site(out: Path, kb: KnowledgeBase, base_url: str = "") -> Built:
    """Write the site for ``kb`` into ``out`` (emptied of an earlier build's pages first)."""
    return asyncio.run(build(out, kb, base_url))


async def build(out: Path, kb: KnowledgeBase, base_url: str = "") -> Built:
    base = base_url.rstrip("/")
    for lang in LANGUAGES:
        shutil.rmtree(out / lang.folder, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    knowledge = Knowledge(kb)
    ids = sorted(kb.entries)
    titles: dict[str, dict[str, str]] = defaultdict(dict)
    pages = 0
    for lang in LANGUAGES:
        with i18n.use_locale(lang.locale):
            cards = [card for entry_id in ids if (card := await knowledge.show(entry_id)) is not None]
            for card in cards:
                titles[card.id][lang.title_key] = summary.plain_name(card.signature)
            folders = {card.domain for card in cards}
            for folder in folders:
                (out / lang.folder / folder).mkdir(parents=True, exist_ok=True)
            for card in cards:
                page = _entry_page(card, kb.entries[card.id].signature, lang, base, titles[card.id][lang.title_key])
                (out / lang.folder / f"{card.id}.html").write_text(page, encoding="utf-8")
                pages += 1
            (out / lang.folder / "index.html").write_text(_index_page(cards, lang, base, titles), encoding="utf-8")
    _write_search_index(out, kb, ids, titles)
    (out / "index.html").write_text(_root_page(base), encoding="utf-8")
    (out / "404.html").write_text(_not_found_page(base), encoding="utf-8")
    (out / ".nojekyll").write_text("", encoding="utf-8")
    return Built(pages, len(ids), out)


# --- text -----------------------------------------------------------------------------------------------

_CODE = re.compile(r"```(?:[\w+-]*\n)?(.*?)```|`([^`\n]+)`", re.S)


def rich(text: str) -> str:
    """KB text as HTML: escaped, with its ```fenced``` and `inline` code as <pre>/<code>, byte for byte."""
    out, last = [], 0
    for found in _CODE.finditer(text):
        out.append(_text(text[last:found.start()]))
        if found.group(1) is not None:
            out.append(f"<pre><code>{_text(found.group(1).strip(chr(10)))}</code></pre>")
        else:
            out.append(f"<code>{_text(found.group(2))}</code>")
        last = found.end()
    out.append(_text(text[last:]))
    return "".join(out)


def _text(text: str) -> str:
    """Text between tags: ``<``, ``>`` and ``&`` escaped, quotes left as written (commands read byte for byte)."""
    return escape(text, quote=False)


def _attr(text: str) -> str:
    return escape(re.sub(r"\s+", " ", text).strip())


# --- pages ----------------------------------------------------------------------------------------------


def _page(lang: Language, up: str, title: str, description: str, path: str, base: str, body: str,
          switch: str, og_type: str = "website", script_js: str = "") -> str:
    """A whole page: ``path`` is its place under the site root (``en/pytorch/x.html``); ``up`` the way from it
    to the root (``../../``); ``switch`` the path of this page in another language, with ``{folder}``."""
    up = escape(up)
    langs = " ".join(f'<span lang="{o.html}">{_text(o.name)}</span>' if o is lang else
                     f'<a lang="{o.html}" hreflang="{o.html}" href="{up}{escape(switch.format(folder=o.folder))}">'
                     f"{_text(o.name)}</a>" for o in LANGUAGES)
    alternates = "\n".join(f'<link rel="alternate" hreflang="{o.html}" '
                           f'href="{_attr(base + "/" + switch.format(folder=o.folder))}">' for o in LANGUAGES)
    all_errors = _("All errors")  # gettext calls stay outside f-strings, where pybabel extract finds them
    return PAGE.substitute(
        html_lang=lang.html, title_key=lang.title_key, title=_text(title),
        description=_attr(description), og_type=og_type, og_title=_attr(title), url=_attr(f"{base}/{path}"),
        og_locale=lang.og, alternates=alternates, css=CSS, home=f"{up}{lang.folder}/index.html",
        language_label=_attr(_("Language")), langs=langs, body=body,
        footer=f'<a href="{up}{lang.folder}/index.html">{_text(all_errors)}</a> · errkb',
        script=f"<script>{script_js}</script>" if script_js else "",
    )


def _entry_page(card: EntryCard, printed: str, lang: Language, base: str, title: str) -> str:
    """``printed``: the signature as the program prints it (the KB's, in every language)."""
    description = summary.first_sentences(card.root_cause, 1, 300)
    dead_ends = ""
    if card.dead_ends:
        items = "\n".join(f"<li>{rich(labels.dead_end_text(d))}</li>" for d in card.dead_ends)
        dead_ends = f"<h2>{_text(labels.heading('dead_ends'))}</h2>\n<ul class=\"dead\">\n{items}\n</ul>"
    fixes = ""
    if card.workarounds:
        items = "\n".join(_fix(w, card) for w in card.workarounds)
        fixes = f"<h2>{_text(labels.heading('workarounds'))}</h2>\n<ol class=\"fixes\">\n{items}\n</ol>"
    facts = []
    if card.versions:
        facts.append((labels.heading("versions"), ", ".join(f"<code>{_text(v)}</code>"
                                                            for v in card.versions)))
    if card.official_doc_url:
        url = card.official_doc_url
        facts.append((labels.heading("docs"), f'<a href="{escape(url)}" rel="noopener">{_text(url)}</a>'))
    trust = " · ".join([labels.tier_label(card.verification_tier),
                        _("confidence {rate}").format(rate=fmt_percent(card.confidence)),
                        labels.resolvable_label(card.resolvable)])
    facts.append((labels.heading("trust"), _text(trust)))
    facts_html = "\n".join(f"<p><b>{_text(label)}</b> {value}</p>" for label, value in facts)
    related = ""
    groups = [(kind, cards) for kind, cards in card.related.items() if cards]
    if groups:
        parts = [f"<h2>{_text(labels.heading('related'))}</h2>"]
        for kind, cards in groups:
            links = "\n".join(f'<li><a href="../{escape(r.id)}.html">{_text(summary.plain_name(r.signature))}</a></li>'
                              for r in cards)
            parts.append(f'<p class="label">{_text(labels.related_label(kind))}</p>\n<ul>\n{links}\n</ul>')
        related = "\n".join(parts)
    body = ENTRY.substitute(
        title=_text(title), as_printed_label=_text(_("The error as printed")),
        signature=_text(printed), cause_label=_text(labels.heading("root_cause")),
        cause=rich(card.root_cause), dead_ends=dead_ends, fixes=fixes,
        facts=f'<div class="facts">\n{facts_html}\n</div>', related=related,
    )
    entry = _("Entry")
    body += f'\n<p class="label">{labels.labelled(_text(entry), f"<code>{_text(card.id)}</code>")}</p>'
    return _page(lang, "../../", f"{title} · errkb", description, f"{lang.folder}/{card.id}.html", base, body,
                 f"{{folder}}/{card.id}.html", og_type="article")


def _fix(w: WorkaroundCard, card: EntryCard) -> str:
    condition = ""
    if w.condition:
        when = _("When")
        condition = f' <span class="cond">({_text(when)}: {rich(w.condition)})</span>'
    if labels.rate_basis(w) == "unrated":
        unrated = _("not rated yet")
        return f'<li>{rich(w.text)}{condition}<span class="basis">{_text(unrated)}</span></li>'
    if w.votes:
        basis = ngettext("from {up} of {n} vote", "from {up} of {n} votes", w.votes).format(
            up=fmt_number(w.votes_up), n=fmt_number(w.votes))
    else:
        basis = _("estimated by the KB's authors ({source})").format(
            source=labels.source_label(card.verification_tier))
    rate = _text(_("works ~{rate}").format(rate=fmt_percent(w.success_rate)))
    return f'<li>{rich(w.text)}{condition}<span class="basis"><b>{rate}</b> — {_text(basis)}</span></li>'


def _index_page(cards: list[EntryCard], lang: Language, base: str, titles: dict[str, dict[str, str]]) -> str:
    by_domain: dict[str, list[EntryCard]] = defaultdict(list)
    for card in cards:
        by_domain[card.domain].append(card)
    groups, links = [], []
    for domain in sorted(by_domain):
        entries = sorted(by_domain[domain], key=lambda c: titles[c.id][lang.title_key].casefold())
        items = "\n".join(f'<li><a href="{escape(c.id)}.html">{_text(titles[c.id][lang.title_key])}</a>'
                          f"</li>" for c in entries)
        count = _text(ngettext("{n} entry", "{n} entries", len(entries)).format(n=fmt_number(len(entries))))
        groups.append(f'<section id="{escape(domain)}">\n<h2>{_text(domain)} <span class="count">{count}</span></h2>'
                      f'\n<ul class="entries">\n{items}\n</ul>\n</section>')
        links.append(f'<a href="#{escape(domain)}">{_text(domain)}</a>')
    title = _("Errors errkb knows")
    lead = ngettext(
        "{n} error in {d} ecosystems: the cause, what not to try and the fixes that work, with how often.",
        "{n} errors in {d} ecosystems: for each, the cause, what not to try and the fixes that work, with how often.",
        len(cards)).format(n=fmt_number(len(cards)), d=fmt_number(len(by_domain)))
    body = INDEX.substitute(title=_text(title), lead=_text(lead), search_label=_text(_("Search")),
                            placeholder=_attr(_("Search errors in English or Chinese…")),
                            none=_attr(_("Nothing matches that search.")),
                            domain_links=" ".join(links), groups="\n".join(groups))
    return _page(lang, "../", f"{title} · errkb", lead, f"{lang.folder}/index.html", base, body,
                 "{folder}/index.html", script_js=SEARCH_JS)


def _write_search_index(out: Path, kb: KnowledgeBase, ids: list[str], titles: dict[str, dict[str, str]]) -> None:
    entries = []
    for entry_id in ids:
        entry = kb.entries[entry_id]
        raw = entry.raw
        keywords = [str(k) for k in (raw.get("tags") or [])][:KEYWORDS]
        if raw.get("error_code"):
            keywords.append(str(raw["error_code"]))
        entries.append({"id": entry_id, "domain": entry.domain, **titles[entry_id], "keywords": keywords})
    data = {"languages": {lang.folder: lang.title_key for lang in LANGUAGES}, "entries": entries}
    (out / "search-index.json").write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                                           encoding="utf-8")


def _root_page(base: str) -> str:
    """The site's front door: the three indexes; a Chinese browser is taken to its script's index."""
    links = "\n".join(f'<li><a lang="{o.html}" href="{o.folder}/index.html">{_text(o.name)}</a></li>'
                      for o in LANGUAGES)
    go = ("var l=(navigator.language||'').toLowerCase();"
          "location.replace(/^zh-(tw|hk|mo|hant)/.test(l)?'zh-hant/':/^zh/.test(l)?'zh-hans/':'en/');")
    with i18n.use_locale("en"):
        title = _("Errors errkb knows")
        body = f"<h1>errkb</h1>\n<ul>\n{links}\n</ul>"
        return _page(LANGUAGES[0], "", f"{title} · errkb", title, "", base, body, "{folder}/index.html",
                     script_js=go)


def _not_found_page(base: str) -> str:
    """404.html, served by static hosts for any missing path: so its links are absolute (from the base)."""
    parts = []
    for lang in LANGUAGES:
        with i18n.use_locale(lang.locale):
            heading, lead, everything = (_("Page not found"),
                                         _("No page here. The error may have been renamed: search for it."),
                                         _("All errors"))
            parts.append(f'<section lang="{lang.html}"><h2>{_text(heading)}</h2><p>{_text(lead)} '
                         f'<a href="{_attr(base)}/{lang.folder}/index.html">{_text(everything)}</a></p></section>')
    with i18n.use_locale("en"):  # links from the base: the page is served at any depth
        lead = _("No page here. The error may have been renamed: search for it.")
        return _page(LANGUAGES[0], f"{base}/", "Page not found · errkb", lead, "404.html", base,
                     "<h1>404</h1>\n" + "\n".join(parts), "{folder}/index.html")


__all__ = ["FOLDERS", "LANGUAGES", "Built", "build", "build_site", "entry_url", "folder_for", "rich"]
