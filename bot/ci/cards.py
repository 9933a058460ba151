"""A CI log's failures as answer cards, in the current locale (what every ``errkb ci`` output shows)."""

from __future__ import annotations

from bot.ci.failures import Failure
from bot.render import ci as ci_render
from bot.service.knowledge import Knowledge


async def explained(service: Knowledge, found: list[Failure]) -> list[ci_render.CiFailure]:
    """The cards of ``found`` in the current locale, with live numbers when a store is attached."""
    diagnosis = await service.explain([f.match for f in found], record=False)
    return [ci_render.CiFailure(f.step, f.line, card) for f, card in zip(found, diagnosis.matches, strict=True)]
