"""The service: every decision the adapters need, as use cases built in one composition root (``root``).

Adapters (Slack's listeners, the CLI) pass plain inputs (``Incoming``, ``Click``, ``Command``) to one
use case; what a use case sends goes out as a ``Plan`` through the ``Outlet`` port (the Slack gateway).

The composition root (and with it the store and SQLAlchemy) is imported only when ``Service`` or
``build`` is first asked for, so a command that only reads the KB (``errkb ci``) starts without them.
"""

from typing import TYPE_CHECKING, Any

from bot.service.incoming import Click, Command, Incoming
from bot.service.ports import Author, Fetched, Outlet, Via

if TYPE_CHECKING:
    from bot.service.root import Service, build

__all__ = ["Author", "Click", "Command", "Fetched", "Incoming", "Outlet", "Service", "Via", "build"]


def __getattr__(name: str) -> Any:
    if name in ("Service", "build"):
        from bot.service import root

        return getattr(root, name)
    raise AttributeError(f"module 'bot.service' has no attribute {name!r}")
