"""The service: every decision the adapters need, as use cases built in one composition root (``root``).

Adapters (Slack's listeners, the CLI) pass plain inputs (``Incoming``, ``Click``, ``Command``) to one
use case; what a use case sends goes out as a ``Plan`` through the ``Outlet`` port (the Slack gateway).
"""

from bot.service.incoming import Click, Command, Incoming
from bot.service.ports import Author, Fetched, Outlet, Via
from bot.service.root import Service, build

__all__ = ["Author", "Click", "Command", "Fetched", "Incoming", "Outlet", "Service", "Via", "build"]
