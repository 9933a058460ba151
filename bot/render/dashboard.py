"""The team dashboard as one HTML page (its plots inline SVG from ``bot.render.charts``), and the short pages
around it (the dashboard is off, a refused sign-in, signed out). Every text is the reader's locale's; every
value from Slack or the store is escaped here."""

from __future__ import annotations

from html import escape

from bot.cards import OTHER_ECOSYSTEM, TEAM_ECOSYSTEM, DashboardCard
from bot.i18n import READING, _, fmt_number, fmt_percent, reading_locale
from bot.render import charts

CSS = """
:root{--fg:#1d1c1d;--muted:#616061;--bg:#f8f8f8;--card:#fff;--line:#e3e3e3;--accent:#1264a3}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,"Segoe UI",Roboto,"Noto Sans",
"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif}
header,main{max-width:64rem;margin:0 auto;padding:0 1.25rem}
header{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap;padding-top:1rem}
header h1{font-size:1.35rem;margin:0}
header .who{color:var(--muted);font-size:.9rem}
header form{display:inline;margin-left:.6rem}
header button{font:inherit;font-size:.85rem;padding:.2rem .7rem;border:1px solid var(--line);border-radius:5px;
background:var(--card);color:var(--fg);cursor:pointer}
nav.langs a,nav.langs span{margin-left:.6rem;font-size:.9rem}
nav.langs span{font-weight:600}
a{color:var(--accent)}
p.summary{margin:.8rem 0 0;color:var(--muted)}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:1rem 0;padding:.8rem 1rem}
section h2{font-size:1.05rem;margin:0 0 .2rem}
section p{margin:0 0 .4rem;color:var(--muted);font-size:.88rem}
section svg{display:block;width:100%;height:auto}
main.notice{max-width:36rem;padding-top:3rem}
"""

LANGUAGES = {"en": "English", "zh": "简体中文", "zh-TW": "繁體中文", "zh-HK": "繁體中文（香港）"}


def _page(title: str, body: str) -> str:
    lang = {"zh": "zh-Hans", "zh-TW": "zh-Hant-TW", "zh-HK": "zh-Hant-HK"}.get(reading_locale(), "en")
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="robots" content="noindex"><title>{escape(title)}</title><style>{CSS}</style></head>'
            f"<body>{body}</body></html>")


def _languages() -> str:
    here = reading_locale()
    return '<nav class="langs">' + "".join(
        f"<span>{escape(LANGUAGES[code])}</span>" if code == here else
        f'<a href="?locale={code}" hreflang="{code}">{escape(LANGUAGES[code])}</a>'
        for code in READING if code != "zh-HK") + "</nav>"


def _section(name: str, title: str, note: str, svg: str) -> str:
    return (f'<section id="{name}"><h2>{escape(title)}</h2>' + (f"<p>{escape(note)}</p>" if note else "")
            + f'<figure role="img" aria-label="{escape(title)}" style="margin:0">{svg}</figure></section>')


def _ecosystem(name: str) -> str:
    return {TEAM_ECOSYSTEM: _("team entries"), OTHER_ECOSYSTEM: _("other")}.get(name, name)


def dashboard_page(card: DashboardCard, team: str, member: str, signout: str) -> str:
    """The dashboard of ``team`` for ``member``, in the current locale; ``signout``: where the sign-out form posts."""
    nothing = _("Nothing yet")
    days = len(card.days)
    by_day = charts.stacked_by_day([f"{d.month}/{d.day}" for d in card.days],
                                   [(_ecosystem(s.ecosystem), s.counts) for s in card.series], nothing)
    top = charts.horizontal([t.signature for t in card.top], [t.hits for t in card.top], _("matches"), nothing)
    fixes = charts.worked_or_not(
        [f"{fmt_percent(f.rate)} · {f.text} — {f.signature}" for f in card.fixes],
        [f.worked for f in card.fixes], [f.failed for f in card.fixes], (_("worked"), _("didn't work")), nothing)
    if card.remembering:
        unknown = charts.horizontal([u.line for u in card.unknown], [u.count for u in card.unknown],
                                    _("times seen"), nothing, charts.COLOURS[3])
        unknown_note = _("Only the masked shape of each error is kept. Teach errkb one with Add to errkb in Slack.")
    else:
        unknown = charts.horizontal([], [], _("times seen"), _("Not kept here: /errkb unknown on keeps them"))
        unknown_note = ""
    awaiting = charts.horizontal([a.title for a in card.awaiting], [a.waiting_days for a in card.awaiting],
                                 _("days waiting"), nothing, charts.COLOURS[2])
    summary = _("{matches} errors answered in the last {days} days").format(matches=fmt_number(card.matches),
                                                                             days=fmt_number(days))
    title = _("errkb team dashboard")
    who = _("{member} in {team}").format(member=member, team=team)
    sign_out = _("Sign out")
    header = (f'<header><div><h1>{escape(title)}</h1><span class="who">{escape(who)}</span>'
              f'<form method="post" action="{escape(signout)}"><button type="submit">{escape(sign_out)}'
              f"</button></form></div>{_languages()}</header>")
    sections = "".join([
        _section("by-day", _("Errors hit per day, by ecosystem"), "", by_day),
        _section("top", _("The most frequent errors"), "", top),
        _section("fixes", _("Fixes your team voted on"), _("How often each worked for your team, from your votes."),
                 fixes),
        _section("unknown", _("Errors errkb could not answer yet"), unknown_note, unknown),
        _section("review", _("Team entries awaiting review"),
                 _("Answering already; a reviewer has not verified them yet."), awaiting),
    ])
    return _page(title, f'{header}<main><p class="summary">{escape(summary)}</p>{sections}</main>')


def notice_page(title: str, message: str, link: str | None = None, link_text: str | None = None) -> str:
    """A short page that says one thing (the dashboard is off, a sign-in was refused, signed out)."""
    action = f'<p><a href="{escape(link)}">{escape(link_text or link)}</a></p>' if link else ""
    return _page(title, f'<main class="notice"><h1>{escape(title)}</h1><p>{escape(message)}</p>{action}</main>')
