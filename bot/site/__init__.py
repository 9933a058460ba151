"""The KB as a static website (``errkb site``): an adapter beside ``bot/cli.py`` that reads entry cards
through ``bot.service.knowledge`` and writes HTML (``bot.site.build``)."""

from bot.site.build import Built, build, build_site, entry_url, folder_for

__all__ = ["Built", "build", "build_site", "entry_url", "folder_for"]
