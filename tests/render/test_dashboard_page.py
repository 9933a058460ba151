"""The dashboard's page: five plots as inline SVG, no script, and nothing from Slack or the store becomes markup."""

from __future__ import annotations

import datetime as dt

from bot import i18n
from bot.cards import DashboardCard, EcosystemSeriesCard, FixVotesCard, TopEntryCard, UnknownLineCard
from bot.render.dashboard import dashboard_page

DAYS = tuple(dt.date(2026, 11, 1) + dt.timedelta(days=n) for n in range(3))


def card(**changes) -> DashboardCard:
    values = {"days": DAYS, "series": (EcosystemSeriesCard("pytorch", (1, 0, 4)),),
              "top": (TopEntryCard("pytorch/x", "RuntimeError: boom", 5),),
              "fixes": (FixVotesCard("pytorch/x", "RuntimeError: boom", "Restart it", 3, 1),),
              "unknown": (UnknownLineCard("KafkaError: <n> brokers down", "KafkaError", 2, 0.0),),
              "remembering": True, "awaiting": ()}
    return DashboardCard(**(values | changes))


def test_every_plot_is_inline_svg_with_its_numbers_and_no_script():
    with i18n.use_locale("en"):
        html = dashboard_page(card(), "Acme", "Ada", "/dashboard/signout")
    assert html.count("<svg") == 5 and "<script" not in html
    assert "75% · Restart it — RuntimeError: boom" in html  # the share of votes that say it worked, beside the fix
    assert '<p class="summary">5 errors answered in the last 3 days</p>' in html
    assert html.count(">Nothing yet<") == 1  # the plot with no data (entries awaiting review) says so


def test_nothing_from_slack_or_the_store_becomes_markup():
    hostile = "</script><img src=x onerror=alert(1)>"
    with i18n.use_locale("en"):
        html = dashboard_page(card(top=(TopEntryCard("x", hostile, 3),),
                                   unknown=(UnknownLineCard(f"E: {hostile}", None, 1, 0.0),),
                                   series=(EcosystemSeriesCard("<b>eco</b>", (1, 1, 1)),)),
                              "<i>Acme</i>", 'Ada" onmouseover="x', "/dashboard/signout")
    assert "<img" not in html and "<b>eco" not in html and "<i>Acme" not in html and '" onmouseover' not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;i&gt;Acme&lt;/i&gt;" in html


def test_a_workspace_that_keeps_no_unknown_errors_is_told_how_to_keep_them():
    with i18n.use_locale("zh"):
        html = dashboard_page(card(unknown=(), remembering=False), "Acme", "Ada", "/dashboard/signout")
    assert "/errkb unknown on" in html and "errkb 团队看板" in html
