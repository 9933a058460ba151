"""Where the bundled KB data is. In a source tree (a clone, an editable install, the image) the seeds, the paste
fixtures and the catalogs sit beside the package (``seeds/``, ``pastes/``, ``locales/``); a wheel carries them
inside it, in ``bot/_kb/`` (``setup.py`` copies them there, catalogs compiled)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
IN_WHEEL = "_kb"  # the folder of the package a wheel carries the KB data in


def bundled(name: str) -> Path:
    """The bundled ``name`` folder (``seeds``, ``pastes`` or ``locales``): the wheel's copy when there is one."""
    inside = PACKAGE / IN_WHEEL / name
    return inside if inside.is_dir() else PACKAGE.parent / name
