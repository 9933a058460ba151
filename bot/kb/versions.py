"""Which versions a paste reveals, and whether an entry's ``versions`` constraints allow them.

An entry says where it applies (``pytorch>=2.1.0``, ``numpy<2.0``); a paste often says what it ran
(``torch-2.0.1`` in a path, ``NCCL version 2.18.1``, ``python3.11/site-packages``). When both are
known and disagree, the entry is ranked below those that may apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

Version = tuple[int, ...]

# Names people write for the same package.
_ALIASES = {"pytorch": "torch", "nodejs": "node", "node.js": "node", "py": "python", "cpython": "python",
            "tf": "tensorflow", "np": "numpy", "pd": "pandas", "hf": "transformers", "jdk": "java"}
_CONSTRAINT = re.compile(r"^\s*([A-Za-z][\w.+-]*?)\s*(>=|<=|==|!=|~=|>|<)\s*v?(\d+(?:\.\d+)*)")
_EXTRA = re.compile(r"^\s*(>=|<=|==|!=|~=|>|<)\s*v?(\d+(?:\.\d+)*)")
_PACKAGES = r"torch|pytorch|numpy|pandas|tensorflow|jax|jaxlib|transformers|nccl|cuda|cudnn|node|python|pip|java|go"
_REVEALS = [
    # "torch==2.0.1", "numpy 1.26.4", "NCCL version 2.18.1" — a separator is required: pip3.11 is the
    # pip of Python 3.11, not pip 3.11.
    re.compile(rf"(?i)\b({_PACKAGES})[ =:_/-]{{1,2}}(?:version\s*:?\s*)?v?(\d+\.\d+(?:\.\d+)?)"),
    re.compile(r"(?i)\b(python|cuda)(\d{1,2}\.\d{1,2})\b"),
    re.compile(r"(?i)\b(python)(\d\.\d{1,2})/(?:site|dist)-packages"),
]


_MENTION = re.compile(
    r"(?i)\b(?:deprecated|removed|added|introduced|since|requires?|required|needs?|than|before|after|from|"
    r"upgrade|downgrade|install|use|supports?|compatible|expected|minimum|at least)\b[\w\s]{0,12}$"
)


@dataclass(frozen=True)
class Constraint:
    package: str
    op: str
    version: Version

    def allows(self, version: Version) -> bool:
        width = max(len(version), len(self.version))
        have = version + (0,) * (width - len(version))
        want = self.version + (0,) * (width - len(self.version))
        same_prefix = have[: len(self.version)] == self.version
        if self.op == "==":
            return same_prefix
        if self.op == "!=":
            return not same_prefix
        if self.op == "~=":  # compatible release: >= X.Y.Z and == X.Y.*
            keep = max(len(self.version) - 1, 1)
            return have >= want and have[:keep] == self.version[:keep]
        return {">=": have >= want, "<=": have <= want, ">": have > want, "<": have < want}[self.op]


def _canonical(name: str) -> str:
    name = name.lower()
    return _ALIASES.get(name, name)


def _version(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def parse_constraints(specs: Iterable[str]) -> list[Constraint]:
    """Constraints from ``versions[].version`` strings such as ``pytorch>=2.1.0`` or ``numpy>=1.25,<2``."""
    found = []
    for spec in specs:
        head, *rest = spec.split(",")
        m = _CONSTRAINT.match(head)
        if not m:
            continue
        package = _canonical(m[1])
        found.append(Constraint(package, m[2], _version(m[3])))
        for part in rest:
            extra = _EXTRA.match(part)
            if extra:
                found.append(Constraint(package, extra[1], _version(extra[2])))
    return found


def revealed_versions(text: str) -> dict[str, Version]:
    """Package → version for every version the paste says it ran (the last mention wins).

    A version an error message only talks about ("deprecated in NumPy 1.20", "requires torch>=2.1")
    says nothing about what is installed, so it is skipped.
    """
    found: dict[str, Version] = {}
    for pattern in _REVEALS:
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 24) : m.start()]
            if _MENTION.search(before) or text[m.start(2) - 2 : m.start(2)] in (">=", "<=", "~=", "!="):
                continue
            found[_canonical(m[1])] = _version(m[2])
    return found


def applies(constraints: Iterable[Constraint], revealed: dict[str, Version]) -> bool:
    """False only when the paste reveals a version that one of the constraints rules out."""
    return all(c.allows(revealed[c.package]) for c in constraints if c.package in revealed)
