"""Slack's names for the reactions that vote: 👍 and 👎 under every alias and skin tone."""

from __future__ import annotations

from bot.kb.feedback import DOWN, UP

UP_REACTIONS = frozenset({"+1", "thumbsup", "thumbs_up"})
DOWN_REACTIONS = frozenset({"-1", "thumbsdown", "thumbs_down"})


def polarity(reaction: str) -> int:
    """+1 for a 👍 (any alias or skin tone), -1 for a 👎, 0 for any other reaction."""
    base = reaction.split("::", 1)[0]
    return 1 if base in UP_REACTIONS else -1 if base in DOWN_REACTIONS else 0


def vote_token(reaction: str, channel: str, ts: str) -> str | None:
    """The ledger token of a 👍/👎 on one message (None for other reactions): aliases folded into
    ``+1``/``-1``, the skin tone kept (two tones are two reactions), the message appended (the same
    👍 on two posts of one workaround are two reactions)."""
    sign = polarity(reaction)
    if sign == 0:
        return None
    _base, sep, tone = reaction.partition("::")
    return f"{UP if sign > 0 else DOWN}1{sep}{tone}@{channel}/{ts}"
