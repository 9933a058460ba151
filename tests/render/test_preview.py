"""The preview: the Block Kit errkb would post, drawn as a Slack-style page, screenshot in a real browser."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from bot import i18n, preview
from bot.render import page
from bot.service.knowledge import Knowledge

OOM = """Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss = model(batch).loss
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 39.38 GiB \
of which 1.02 GiB is free. <!channel> see postgres://ml:hunter2secret@db/runs"""


async def page_for(kb, locale: str, details: bool = False) -> str:
    with i18n.use_locale(locale):
        diagnosis = await Knowledge(kb).diagnose(OOM, limit=1, record=False)
        return preview.diagnosis_page(OOM, diagnosis, details=details)


def test_mrkdwn_becomes_html_without_letting_markup_through():
    html = page.mrkdwn("*CUDA out of memory*\n> `x &lt;script&gt;`\n_when: a_ ~gone~ <https://e.x/a|docs> ```a\nb```")
    assert "<b>CUDA out of memory</b>" in html and "<blockquote><code>x &lt;script&gt;</code></blockquote>" in html
    assert "<i>when: a</i>" in html and "<s>gone</s>" in html and '<a href="https://e.x/a">docs</a>' in html
    assert "<pre>a\nb</pre>" in html and "<script>" not in html


@pytest.mark.parametrize(("locale", "words"), [("en", ["CUDA out of memory", "Try first", "Other fixes (3)"]),
                                               ("zh", ["CUDA 显存不足", "先试这个", "其他方案（3）"])])
async def test_the_page_shows_the_paste_and_the_answer_in_its_thread(kb, locale, words):
    html = await page_for(kb, locale)
    for word in words:
        assert word in html
    assert html.index("Traceback") < html.index(words[0])  # the reader's message, then the thread
    assert "<!channel>" not in html and "hunter2secret" not in html


async def test_details_add_the_other_fixes_and_the_private_why(kb):
    html = await page_for(kb, "en", details=True)
    assert "<b>3.</b>" in html and "Only visible to you" in html and "What not to try" in html


def png_size_and_colours(png: Path) -> tuple[int, int, int]:
    """(width, height, distinct byte values in the image data): enough to tell a drawn page from a blank one."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            chunks.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    return width, height, len(set(zlib.decompress(b"".join(chunks))))


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_a_real_headless_browser_draws_the_answer_compactly(kb, tmp_path, locale):
    browser = preview.find_browser()
    if browser is None:
        pytest.skip("no Chromium on this machine (apt-get install -y chromium; or set ERRKB_CHROMIUM)")
    html = tmp_path / f"answer-{locale}.html"
    html.write_text(await page_for(kb, locale), encoding="utf-8")
    width, height = preview.screenshot(html, tmp_path / f"answer-{locale}.png", width=1000, browser=browser)
    png_width, png_height, colours = png_size_and_colours(tmp_path / f"answer-{locale}.png")
    assert (png_width, png_height) == (width, height) == (1000, height)
    assert 250 <= height <= 700  # one compact message: the whole answer fits on a laptop screen
    assert colours > 40  # text, buttons and colours were drawn, not a blank page
