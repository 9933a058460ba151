"""The family-level answer every surface shares: a coded error no entry knows → its family's card.

Asked only after nothing answered (no KB entry, no team entry): the decisive error line of the paste
(``bot.kb.families``) carries a code whose official page is known. The card is in the reader's locale
(the current ``bot.i18n`` locale), the family's words in the reader's script, the reader's line
credential-masked as every quoted line is.
"""

from __future__ import annotations

from bot.i18n import current_locale, script
from bot.kb.families import Families, FamilyHit
from bot.kb.mask import mask
from bot.kb.normalize import normalize
from bot.kb.shape import masked
from bot.render.family import FamilyCard
from bot.service.knowledge import MAX_PASTE_CHARS


def family_hit(families: Families, paste: str) -> FamilyHit | None:
    """The known code on ``paste``'s decisive error line, or None (no I/O, no locale: a decision may keep it)."""
    if not len(families) or not paste.strip():
        return None
    return families.find(normalize(paste[-MAX_PASTE_CHARS:]).text)


def card_of(hit: FamilyHit) -> FamilyCard:
    """``hit`` as the reader sees it: in the current locale and script, the line credential-masked."""
    family, zh = hit.family, current_locale() == "zh"
    name = family.symbols.get(hit.code) or family.names.get(hit.code)
    return FamilyCard(family.id, script(family.label_zh if zh else family.label), hit.code, name,
                      script(family.about_zh if zh else family.about), hit.url, hit.page, mask(hit.line),
                      masked(hit.line))


def family_card(families: Families, paste: str) -> FamilyCard | None:
    """The family answer for ``paste``, or None when its decisive error line carries no known code."""
    hit = family_hit(families, paste)
    return None if hit is None else card_of(hit)
