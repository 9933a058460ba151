"""One base class for errkb's own errors, and one place (``errkb``'s main) that turns them into exit codes."""

from __future__ import annotations

import pytest

from bot import cli, errors, i18n, preview
from bot.config import ConfigError
from bot.kb.entry import Problem
from bot.kb.matcher import MatcherError
from bot.kb.seeds import SeedError
from bot.store import UnknownTarget


@pytest.mark.parametrize("kind", [errors.UsageError, errors.ConfigError, errors.SeedError, errors.CatalogError,
                                  MatcherError, preview.ScreenshotError, UnknownTarget, i18n.CatalogError])
def test_every_error_of_ours_is_an_errkb_error(kind):
    assert issubclass(kind, errors.ErrkbError)


def test_the_old_homes_name_the_same_classes():
    assert (ConfigError, SeedError, i18n.CatalogError) == (errors.ConfigError, errors.SeedError, errors.CatalogError)
    assert issubclass(MatcherError, SeedError) and issubclass(UnknownTarget, LookupError)


def test_a_seed_error_lists_every_problem():
    error = SeedError([Problem("a.json", "regex", "bad"), Problem("b.json", "", "no entries")])
    assert str(error) == "a.json: regex: bad\nb.json: no entries" and len(error.problems) == 2


@pytest.mark.parametrize(("raised", "said"), [
    (errors.UsageError("nothing to search for"), "errkb: nothing to search for\n"),
    (errors.ConfigError("PORT", "'x' is not a TCP port"), "errkb: PORT: 'x' is not a TCP port\n"),
    (errors.CatalogError("no compiled catalog for 'zh'"), "errkb: no compiled catalog for 'zh'\n"),
])
def test_each_error_is_one_line_and_exit_2(capsys, monkeypatch, raised, said):
    def fail(*_args):
        raise raised

    monkeypatch.setattr(cli, "cmd_search", fail)
    assert cli.main(["search", "x"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", said)


def test_invalid_seeds_are_listed_then_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "x.json").write_text('{"id": "python/x"}', encoding="utf-8")
    monkeypatch.delenv("ERRKB_SEEDS", raising=False)
    assert cli.main(["seed", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"{tmp_path}/python/x.json: ")
    assert err[-1].startswith("errkb: ") and "problem(s) in the seeds" in err[-1] and "ERRKB_SEEDS" not in err[-1]
