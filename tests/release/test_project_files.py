"""The project's files say true things: the licence matches pyproject, CONTRIBUTING's commands exist, the pull-request
checklist names the KB checks, the issue forms and workflows parse and test what they claim (issue 23)."""

from __future__ import annotations

import contextlib
import io
import re
import tomllib
from pathlib import Path

import pytest
import yaml

from bot.cli import main

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _errkb_commands() -> set[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--help"]) == 0
    commands = set(re.findall(r"^    ([a-z][a-z-]*)(?:\s|$)", out.getvalue(), re.M))  # the COMMAND list, indented
    assert {"diagnose", "demo"} <= commands, out.getvalue()
    return commands


@pytest.mark.parametrize("name", ["LICENSE", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md", "CODE_OF_CONDUCT.md",
                                  ".github/pull_request_template.md"])
def test_the_project_files_exist(name: str) -> None:
    assert (REPO / name).read_text(encoding="utf-8").strip()


def test_the_licence_is_mit_as_pyproject_says() -> None:
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert "Copyright (c) 2026 the errkb authors" in licence
    assert PYPROJECT["project"]["license"] == "MIT"


def test_every_errkb_command_contributing_names_is_a_real_subcommand() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"```.*?```", text, re.S) + re.findall(r"`([^`\n]+)`", text))
    named = set(re.findall(r"(?<![\w/.-])errkb ([a-z][a-z-]+)", code))
    assert {"new", "validate", "lint"} <= named
    assert named <= _errkb_commands(), named - _errkb_commands()
    assert "bash .ci/run" in text and "docs/kb.md" in text and "pastes/<domain>/<slug>/N.txt" in text


def test_the_pull_request_checklist_names_validate_and_lint() -> None:
    checklist = [line for line in (REPO / ".github/pull_request_template.md").read_text(encoding="utf-8").splitlines()
                 if line.startswith("- [ ]")]
    text = "\n".join(checklist)
    for check in ("errkb validate", "errkb lint", "two fixtures", "bilingual", "commands intact", "own words",
                  "honest priors"):
        assert check in text, check


def test_the_changelog_keeps_an_unreleased_section_and_0_1_0() -> None:
    headings = re.findall(r"^## \[([^\]]+)\]", (REPO / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[:2] == ["Unreleased", "0.1.0"]


def test_the_issue_forms_parse_and_the_wrong_answer_form_asks_for_paste_answer_and_right_error() -> None:
    forms = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8"))
             for p in (REPO / ".github/ISSUE_TEMPLATE").glob("*.yml") if p.stem != "config"}
    assert set(forms) == {"new-error", "wrong-answer", "bug"}
    for form in forms.values():
        assert form["name"] and form["description"] and form["body"]
        ids = [item["id"] for item in form["body"] if "id" in item]
        assert len(ids) == len(set(ids))
    required = {item["id"] for item in forms["wrong-answer"]["body"]
                if item.get("validations", {}).get("required")}
    assert {"paste", "answered", "right"} <= required


def _workflow(name: str) -> dict:
    return yaml.safe_load((REPO / ".github/workflows" / name).read_text(encoding="utf-8"))


def test_ci_runs_the_suite_on_python_3_11_to_3_13_with_postgresql() -> None:
    ci = _workflow("ci.yml")
    test = ci["jobs"]["test"]
    assert test["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert any(step.get("run") == "bash .ci/run" for step in test["steps"])
    postgres = test["services"]["postgres"]
    assert postgres["env"] == {"POSTGRES_USER": "postgres", "POSTGRES_HOST_AUTH_METHOD": "trust", "POSTGRES_DB": "test"}
    assert "5432:5432" in postgres["ports"]
    lowest = ci["jobs"]["lowest"]
    runs = "\n".join(step.get("run", "") for step in lowest["steps"])
    assert ".github/scripts/lowest.py" in runs and "-c lowest.txt -e '.[dev]'" in runs and "pytest" in runs


def test_a_tag_releases_to_pypi_by_trusted_publishing_and_a_multi_arch_image() -> None:
    release = _workflow("release.yml")
    assert release[True]["push"]["tags"] == ["v*"]  # YAML 1.1 reads the key `on` as True
    jobs = release["jobs"]
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}
    assert any(str(step.get("uses", "")).startswith("pypa/gh-action-pypi-publish") for step in jobs["pypi"]["steps"])
    runs = "\n".join(step.get("run", "") for step in jobs["dist"]["steps"])
    assert "python -m build" in runs and "twine check" in runs
    push = next(step for step in jobs["image"]["steps"] if str(step.get("uses", "")).startswith("docker/build-push"))
    assert push["with"]["platforms"] == "linux/amd64,linux/arm64"
    assert "VERSION=" in push["with"]["build-args"]
    assert {"docker/setup-qemu-action", "docker/setup-buildx-action"} <= {
        str(step.get("uses", "")).split("@")[0] for step in jobs["image"]["steps"]}


def test_lowest_pins_every_dependency_to_its_lower_bound() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("lowest", REPO / ".github/scripts/lowest.py")
    assert spec and spec.loader
    lowest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lowest)
    assert lowest.lowest(["sqlalchemy[asyncio]>=2.0.30,<2.1", "ruff>=0.6", "plain", "x<2"]) == [
        "sqlalchemy==2.0.30", "ruff==0.6"]
    pins = lowest.lowest(PYPROJECT["project"]["dependencies"])
    assert len(pins) == len(PYPROJECT["project"]["dependencies"])  # every dependency declares a lower bound
