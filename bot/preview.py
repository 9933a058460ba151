"""``errkb preview``: what the bot would post for a paste, as an HTML page in Slack's style, and a
PNG of it taken by a real headless Chromium (when one is installed).

The page shows the paste as the reader's message in the channel and errkb's answer in its thread;
``details`` adds what the buttons open (the other fixes, *Why / what not to try*).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bot.cards import Diagnosis
from bot.errors import UsageError
from bot.i18n import _, current_locale
from bot.kb.mask import mask
from bot.render import blocks, page

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
PASTE_LINES = 14  # the reader's message shows the end of a long paste, as Slack folds it


class ScreenshotError(UsageError):
    """No browser, or the browser failed to draw the page (``--png`` cannot be honoured here)."""


def _paste_blocks(paste: str) -> list[dict]:
    lines = paste.rstrip("\n").splitlines()
    shown = lines[-PASTE_LINES:]
    text = ("…\n" if len(lines) > PASTE_LINES else "") + "\n".join(shown)
    return [{"type": "section", "text": {"type": "mrkdwn",
                                          "text": "```" + blocks.escape(mask(text)).replace("```", "ʼʼʼ") + "```"}}]


def diagnosis_page(paste: str, diagnosis: Diagnosis, details: bool = False) -> str:
    """The page for a paste: the reader's message, then errkb's answer in its thread."""
    thread: list[page.Post] = []
    best = diagnosis.best
    if best is None:
        thread.append(page.Post("errkb", [blocks.notice(_("No known error found in the input."))["blocks"][0]],
                                bot=True, private=True))
    else:
        thread.append(page.Post("errkb", blocks.answer_message(best.entry, best)["blocks"], bot=True))
        if details:
            thread += [page.Post("errkb", m["blocks"], bot=True, time="10:43")
                       for m, _index in blocks.other_fix_messages(best.entry)]
            thread.append(page.Post("errkb", blocks.details_message(best.entry)["blocks"], bot=True,
                                    private=True, time="10:43"))
    labels = {"channel": "ml-training", "thread": _("Thread"), "replies": _("1 reply") if not details else "",
              "private": _("Only visible to you")}
    channel = [page.Post(_("you"), _paste_blocks(paste))]
    return page.page("errkb", channel, thread, labels, lang=current_locale())


def find_browser() -> str | None:
    """A headless-capable Chromium on this machine (``ERRKB_CHROMIUM`` first), or None."""
    wanted = os.environ.get("ERRKB_CHROMIUM")
    if wanted:
        return shutil.which(wanted) or (wanted if Path(wanted).exists() else None)
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


def _chromium(browser: str, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="errkb-chromium-") as profile:
        command = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--hide-scrollbars", "--no-first-run", "--mute-audio", f"--user-data-dir={profile}",
                   "--force-device-scale-factor=1", *args]
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ScreenshotError(f"{browser} did not run: {exc}") from exc


def screenshot(page_file: Path, png: Path, width: int = 1100, browser: str | None = None) -> tuple[int, int]:
    """Draw ``page_file`` in headless Chromium and save the whole page as ``png``; returns (width, height)."""
    browser = browser or find_browser()
    if browser is None:
        raise ScreenshotError("no Chromium found (install it, e.g. `apt-get install -y chromium`, "
                              "or set ERRKB_CHROMIUM)")
    url = page_file.resolve().as_uri()
    dom = _chromium(browser, f"--window-size={width},800", "--virtual-time-budget=2000", "--dump-dom", url)
    found = re.search(r'data-height="(\d+)"', dom.stdout)
    if dom.returncode != 0 or not found:
        raise ScreenshotError(f"{browser} could not lay out the page: {dom.stderr.strip()[-300:]}")
    height = max(200, int(found.group(1)))
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    shot = _chromium(browser, f"--window-size={width},{height}", "--virtual-time-budget=2000",
                     f"--screenshot={png.resolve()}", url)
    if shot.returncode != 0 or not png.exists():
        raise ScreenshotError(f"{browser} could not take the screenshot: {shot.stderr.strip()[-300:]}")
    return width, height
