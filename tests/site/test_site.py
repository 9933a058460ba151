"""``errkb site``: the KB as a static bilingual website (``bot/site/``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from html import unescape
from pathlib import Path

import pytest

from bot import preview
from bot.kb.entry import Entry
from bot.kb.knowledge import KnowledgeBase
from bot.site import build_site, entry_url
from tests.conftest import NCCL_ID, REPO

BASE = "https://example.github.io/errkb"
FOLDERS = ("en", "zh-hans", "zh-hant")
ANDROID_ID = "android/android-exported-must-be-specified"  # its signature names <activity#…>


@pytest.fixture(scope="module")
def site(kb: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path]:
    """The bundled KB's site, built once for the module."""
    out = tmp_path_factory.mktemp("site")
    build_site(out, kb, BASE)
    return (out,)


def page(site: tuple[Path], folder: str, entry_id: str) -> str:
    return (site[0] / folder / f"{entry_id}.html").read_text(encoding="utf-8")


def meta(html: str, prop: str) -> str | None:
    found = re.search(rf'<meta property="{re.escape(prop)}" content="([^"]*)">', html)
    return unescape(found.group(1)) if found else None


def test_every_entry_has_a_page_in_each_language(kb, site):
    for folder in FOLDERS:
        pages = {p.relative_to(site[0] / folder).with_suffix("").as_posix()
                 for p in (site[0] / folder).glob("*/*.html")}
        assert pages == set(kb.entries), folder
    assert (site[0] / "404.html").exists() and (site[0] / "index.html").exists()


def test_every_page_carries_its_open_graph_card(kb, site):
    for folder in FOLDERS:
        for entry_id in kb.entries:
            html = page(site, folder, entry_id)
            assert meta(html, "og:title"), (folder, entry_id)
            assert meta(html, "og:description"), (folder, entry_id)
            assert meta(html, "og:url") == f"{BASE}/{folder}/{entry_id}.html"
            assert meta(html, "og:type") == "article"


def test_the_description_is_the_causes_first_sentence(kb, site):
    description = meta(page(site, "en", NCCL_ID), "og:description")
    assert description == kb.entries[NCCL_ID].root_cause.split(". ")[0].rstrip(".") + "."


def test_the_traditional_page_is_traditional_and_its_commands_are_byte_for_byte(site):
    html = page(site, "zh-hant", NCCL_ID)
    assert '<html lang="zh-Hant"' in html
    assert "超時" in html and "超时" not in html
    assert "<code>NCCL_SOCKET_IFNAME=eth0</code>" in html
    assert "<code>torch.distributed.init_process_group(backend='gloo', ...)</code>" in html
    assert "RuntimeError: [torch.distributed] AllReduce timed out in rank 0 (timeout: 600)" in html  # as printed


def test_an_entry_page_shows_cause_dead_ends_fixes_with_their_basis_versions_docs_and_links(kb, site):
    html = page(site, "en", NCCL_ID)
    assert "Tried" in html or "(fails ~" in html
    assert "fails ~95%" in html
    assert "works ~85%" in html and "estimated by the KB&#x27;s authors" not in html
    assert "estimated by the KB's authors" in html
    assert "<code>pytorch&gt;=2.1.0</code>" in html
    assert 'href="https://pytorch.org/docs/stable/distributed.html#troubleshooting"' in html
    assert '<a href="../pytorch/nccl-watchdog-collective-timeout.html">' in html  # a related error
    for folder in FOLDERS:  # the language switch
        assert f'href="../../{folder}/{NCCL_ID}.html"' in html or folder == "en"


def test_html_in_a_signature_is_escaped(site):
    html = page(site, "en", ANDROID_ID)
    assert "&lt;activity#com.example.MainActivity&gt;" in html
    assert "<activity#" not in html


def test_nothing_a_seed_says_can_become_markup(nccl_raw, tmp_path):
    nccl_raw["signature"] = 'RuntimeError: <script>alert("x")</script> timed out & "quoted"'
    nccl_raw["root_cause"] = 'A <b>bold</b> "cause". With `<tag attr="1">` as code.'
    nccl_raw["transition_graph"] = {}
    build_site(tmp_path, KnowledgeBase.from_entries({NCCL_ID: Entry(nccl_raw)}), BASE)
    html = (tmp_path / "en" / f"{NCCL_ID}.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(\"x\")&lt;/script&gt; timed out &amp; \"quoted\"" in html
    assert '<code>&lt;tag attr="1"&gt;</code>' in html
    assert meta(html, "og:description") == 'A <b>bold</b> "cause".'  # escaped in the attribute, whole when read


def test_each_index_groups_by_domain_and_links_every_page(kb, site):
    by_domain: dict[str, set[str]] = {}
    for entry_id, entry in kb.entries.items():  # a stored entry unpacks on each read: read each once
        by_domain.setdefault(entry.domain, set()).add(entry_id)
    for folder in FOLDERS:
        html = (site[0] / folder / "index.html").read_text(encoding="utf-8")
        sections = re.findall(r'<section id="([^"]+)">(.*?)</section>', html, re.S)
        assert [name for name, _ in sections] == sorted(by_domain)
        for domain, body in sections:
            linked = set(re.findall(r'<a href="([^"]+)\.html">', body))
            assert linked == by_domain[domain], (folder, domain)
        assert '<input type="search" id="q"' in html and "search-index.json" in html


def test_the_search_index_lists_every_entry_with_english_and_chinese_titles(kb, site):
    data = json.loads((site[0] / "search-index.json").read_text(encoding="utf-8"))
    entries = {e["id"]: e for e in data["entries"]}
    assert set(entries) == set(kb.entries)
    assert all(e["en"] and e["zh"] and e["hant"] and e["domain"] for e in entries.values())
    assert "超时" in entries[NCCL_ID]["zh"] and "超時" in entries[NCCL_ID]["hant"]


def test_an_answer_links_to_its_entrys_page_in_the_readers_script():
    assert entry_url(BASE + "/", "zh-HK", NCCL_ID) == f"{BASE}/zh-hant/{NCCL_ID}.html"
    assert entry_url(BASE, "zh", NCCL_ID) == f"{BASE}/zh-hans/{NCCL_ID}.html"
    assert entry_url(BASE, "en", NCCL_ID) == f"{BASE}/en/{NCCL_ID}.html"


def test_errkb_site_builds_into_the_folder_it_is_given(tmp_path, monkeypatch, capsys, nccl_raw):
    from bot import cli
    from tests.conftest import write_entry

    seeds = tmp_path / "seeds"
    write_entry(seeds, nccl_raw)
    monkeypatch.setenv("ERRKB_SEEDS", str(seeds))
    monkeypatch.setenv("ERRKB_CACHE", "off")
    assert cli.main(["site", "--out", str(tmp_path / "out"), "--base-url", BASE]) == 0
    assert "3 pages for 1 entries" in capsys.readouterr().out
    assert (tmp_path / "out" / "zh-hant" / f"{NCCL_ID}.html").exists()


def _shoot(browser: str, url: str, png: Path, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="errkb-chromium-") as profile:
        subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--hide-scrollbars", "--no-first-run", f"--user-data-dir={profile}",
                        "--force-device-scale-factor=1", f"--window-size=1100,{height}",
                        f"--screenshot={png.resolve()}", url], capture_output=True, timeout=90, check=False)


def test_a_headless_browser_draws_an_entry_page_and_the_index(site, tmp_path):
    """Draws docs/site-entry.png and docs/site-index.png when ERRKB_SITE_SCREENSHOTS=docs (else into a temp dir)."""
    browser = preview.find_browser()
    if browser is None:
        pytest.skip("no Chromium on this machine (apt-get install -y chromium; or set ERRKB_CHROMIUM)")
    into = REPO / "docs" if os.environ.get("ERRKB_SITE_SCREENSHOTS") == "docs" else tmp_path
    shots = {"site-entry.png": (site[0] / "en" / f"{NCCL_ID}.html", 1150),
             "site-index.png": (site[0] / "en" / "index.html", 900)}
    for name, (html, height) in shots.items():
        png = tmp_path / name
        _shoot(browser, html.as_uri(), png, height)
        assert png.exists() and png.stat().st_size > 20_000, name  # drawn, not a blank page
        if into != tmp_path:
            shutil.copyfile(png, into / name)


async def test_with_errkb_site_url_the_details_view_links_to_the_page_in_the_readers_script(kb):
    from bot import i18n
    from bot.render import blocks
    from bot.service.knowledge import Knowledge

    with i18n.use_locale("zh-TW"):
        card = await Knowledge(kb).show(NCCL_ID)
        assert card is not None
        linked = json.dumps(blocks.details_message(card, BASE), ensure_ascii=False)
        plain = json.dumps(blocks.details_message(card), ensure_ascii=False)
    assert f"<{BASE}/zh-hant/{NCCL_ID}.html|" in linked and "網頁版" in linked
    assert "zh-hant/" not in plain and "網頁版" not in plain


def test_errkb_site_url_must_be_a_web_address(monkeypatch):
    from bot.config import Settings
    from bot.errors import ConfigError

    monkeypatch.setenv("ERRKB_SITE_URL", BASE + "/")
    assert Settings.from_env().site_url == BASE
    monkeypatch.setenv("ERRKB_SITE_URL", "example.github.io/errkb")
    with pytest.raises(ConfigError, match="ERRKB_SITE_URL"):
        Settings.from_env()
    monkeypatch.delenv("ERRKB_SITE_URL")
    assert Settings.from_env().site_url is None
