"""The chat service: what the Slack adapter asks, decided here and sent through its gateway as plans.

``bot.diagnose.ErrkbService`` is the knowledge side (diagnose, show, search, usage) that the CLI
uses too; ``ChatService`` adds the conversation: which messages to answer, recorded decisions,
votes and in-place updates, commands and buttons.
"""

from bot.service.chat import ChatService
from bot.service.incoming import Click, Command, Incoming
from bot.service.ports import Author, Fetched, Outlet, Via

__all__ = ["Author", "ChatService", "Click", "Command", "Fetched", "Incoming", "Outlet", "Via"]
