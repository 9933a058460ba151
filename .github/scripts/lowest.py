"""Print a pip constraints file that pins each of errkb's dependencies to the lowest version pyproject.toml allows.

    python .github/scripts/lowest.py > lowest.txt && pip install -c lowest.txt -e '.[dev]'

Every ``name>=X`` in ``[project] dependencies`` becomes ``name==X`` (extras dropped: a constraint names a
distribution). The dev extra's test tools (pytest, ruff, mypy …) are left to float: the job checks that errkb runs on
the oldest libraries it declares, not on old test tools. ``--extra NAME`` pins an extra's lower bounds as well.
Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*?)\s*(?:;.*)?$")
LOWER = re.compile(r">=\s*([^,\s]+)")


def lowest(requirements: list[str]) -> list[str]:
    """``name==X`` for every requirement with a ``>=X`` bound, in the order given."""
    pins = []
    for requirement in requirements:
        match = REQUIREMENT.match(requirement)
        if not match:
            raise SystemExit(f"lowest.py: cannot read the requirement {requirement!r}")
        name, specifiers = match.groups()
        bound = LOWER.search(specifiers)
        if bound:
            pins.append(f"{name}=={bound.group(1)}")
    return pins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pyproject", nargs="?", default=str(Path(__file__).resolve().parents[2] / "pyproject.toml"))
    parser.add_argument("--extra", action="append", default=[], help="also pin this optional extra's lower bounds")
    args = parser.parse_args(argv)
    project = tomllib.loads(Path(args.pyproject).read_text(encoding="utf-8"))["project"]
    requirements = list(project.get("dependencies", []))
    for extra in args.extra:
        requirements += project.get("optional-dependencies", {})[extra]
    sys.stdout.write("".join(f"{pin}\n" for pin in lowest(requirements)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
