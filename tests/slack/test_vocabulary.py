"""Which Slack reactions vote, and the ledger tokens they become (pure functions, no Slack)."""

from __future__ import annotations

import pytest

from bot.kb import feedback
from bot.slack.vocabulary import polarity, vote_token


@pytest.mark.parametrize("name", ["+1", "thumbsup", "+1::skin-tone-2", "+1::skin-tone-6", "thumbs_up"])
def test_every_thumbs_up_spelling_and_skin_tone_is_up(name):
    assert polarity(name) == 1
    assert feedback.token_polarity(vote_token(name, "C1", "1.1")) == 1


@pytest.mark.parametrize("name", ["-1", "thumbsdown", "-1::skin-tone-3", "thumbs_down"])
def test_every_thumbs_down_spelling_and_skin_tone_is_down(name):
    assert polarity(name) == -1
    assert feedback.token_polarity(vote_token(name, "C1", "1.1")) == -1


@pytest.mark.parametrize("name", ["tada", "heart", "white_check_mark", "+1x", "", "skin-tone-2"])
def test_other_reactions_are_not_votes(name):
    assert polarity(name) == 0 and vote_token(name, "C1", "1.1") is None


def test_aliases_fold_together_but_tones_and_messages_stay_apart():
    assert vote_token("thumbsup", "C1", "1.1") == vote_token("+1", "C1", "1.1") == "+1@C1/1.1"
    assert vote_token("+1::skin-tone-3", "C1", "1.1") == "+1::skin-tone-3@C1/1.1"
    assert vote_token("+1", "C1", "1.1") != vote_token("+1", "C2", "1.1")
