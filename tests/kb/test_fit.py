"""A fix's checkable condition against one paste: fits, ruled out, or nothing said."""

from __future__ import annotations

import pytest

from bot.kb.fit import Fit, Paste, fit, named, problems


def test_a_fix_with_nothing_checkable_is_unknown():
    assert fit(None, Paste.read("anything")) is Fit.UNKNOWN


def test_what_the_paste_shows_confirms_and_what_it_contradicts_rules_out():
    applies = {"paste": "(?i)401 Unauthorized", "not_paste": "manifest unknown"}
    assert fit(applies, Paste.read("Failed to pull image: 401 Unauthorized")) is Fit.FITS
    assert fit(applies, Paste.read("failed to resolve reference: manifest unknown")) is Fit.RULED_OUT
    assert fit(applies, Paste.read("Back-off pulling image \"app:1\"")) is Fit.UNKNOWN  # silent paste, no word


def test_a_named_value_decides_for_its_own_registry_host():
    regex = r'Get "https://(?P<host>[\w.-]+)(?::\d+)?/v2/'
    hub = {"values": {"host": r"(?:^|\.)docker\.io$"}}
    assert fit(hub, Paste.read("x", named('Get "https://registry-1.docker.io/v2/": EOF', regex))) is Fit.FITS
    assert fit(hub, Paste.read("x", named('Get "https://ghcr.io/v2/": EOF', regex))) is Fit.RULED_OUT
    assert fit(hub, Paste.read("x", {})) is Fit.UNKNOWN


@pytest.mark.parametrize(("paste", "verdict"), [
    ("PS C:\\Users\\ana\\app> npm start\nError: spawn git ENOENT", Fit.FITS),
    ("/home/ana/app/node_modules/.bin/vite: spawn git ENOENT", Fit.RULED_OUT),
    ("Error: spawn git ENOENT", Fit.UNKNOWN),
])
def test_the_paste_os_decides_an_os_specific_fix(paste, verdict):
    assert fit({"os": ["windows"]}, Paste.read(paste)) is verdict


def test_versions_the_paste_shows_decide_a_versioned_fix_and_any_contradiction_wins():
    applies = {"paste": "reserved by PyTorch but unallocated", "versions": ["torch>=2.1"]}
    shown = "2.7 GiB is reserved by PyTorch but unallocated."
    assert fit(applies, Paste.read(shown + "\n/usr/lib/python3.10/site-packages/torch-2.3.1")) is Fit.FITS
    assert fit(applies, Paste.read(shown + "\ntorch==2.0.1")) is Fit.RULED_OUT


def test_an_unreadable_condition_is_named_with_its_field():
    assert problems({"paste": "(?!x)", "os": ["beos"], "colour": "red"}) == [
        ("paste", problems({"paste": "(?!x)"})[0][1]),
        ("os", "expected a list of linux, macos, windows"),
        ("colour", "unknown check; expected paste, not_paste, values, os or versions"),
    ]
    assert problems({"paste": "manifest unknown", "versions": ["torch>=2.1"]}) == []
