"""The wheel carries the bundled KB: pyproject.toml says everything else.

A source tree keeps the seeds, the paste fixtures and the catalogs beside the package (``seeds/``, ``pastes/``,
``locales/``), where contributors edit them. A wheel has no such place, so building one copies them into the package
as ``bot/_kb/`` (see ``bot/bundled.py``) with the catalogs compiled, so an installed errkb never writes into
site-packages. An editable install (``pip install -e .``) reads them where they are.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
KB_DATA = ("seeds", "pastes")


class build_py_with_kb(build_py):  # setuptools names its commands in lower case
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "bot" / "_kb"
        for name in KB_DATA:
            shutil.copytree(ROOT / name, target / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        self._compile_catalogs(ROOT / "locales", target / "locales")

    @staticmethod
    def _compile_catalogs(source: Path, target: Path) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po_path in sorted(source.glob("*/LC_MESSAGES/*.po")):
            mo_path = target / po_path.relative_to(source).with_suffix(".mo")
            mo_path.parent.mkdir(parents=True, exist_ok=True)
            with po_path.open("rb") as po_file:
                catalog = read_po(po_file, locale=po_path.parent.parent.name, abort_invalid=True)
            with mo_path.open("wb") as mo_file:
                write_mo(mo_file, catalog)


setup(cmdclass={"build_py": build_py_with_kb})
