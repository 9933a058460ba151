"""errkb's own errors, under one base class.

Each says what is wrong in words whoever reads it can act on; the ``errkb`` command turns them into
its exit codes and one line on stderr in one place (:func:`bot.cli.main`). This module imports nothing
of ours, so every layer, the pure ``bot.kb`` included, may raise them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.kb.entry import Problem


class ErrkbError(Exception):
    """Something errkb cannot do, said so that it can be put right."""


class UsageError(ErrkbError):
    """Bad arguments or unreadable input (a file, standard input, an option this machine cannot honour)."""


class ConfigError(ErrkbError):
    """A setting errkb cannot work with: names the variable, what is wrong and what would work."""

    def __init__(self, variable: str, problem: str) -> None:
        self.variable = variable
        self.problem = problem
        super().__init__(f"{variable}: {problem}")


class SeedError(ErrkbError):
    """Seeds that failed validation; ``problems`` lists every reason (``file: field: problem``)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class CatalogError(ErrkbError):
    """A translation catalog is missing or cannot be compiled."""
