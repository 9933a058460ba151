"""The feedback maths: what a reader's reactions add up to, and how votes move rates."""

from __future__ import annotations

import random

import pytest

from bot.kb import feedback as fb
from bot.kb.feedback import Mark, Tally


def run(*events: tuple[str, bool, float]) -> dict[str, Mark]:
    ledger: dict[str, Mark] = {}
    for token, present, at in events:
        ledger = fb.apply_event(ledger, token, present, at)
    return ledger


class TestReactions:
    def test_thumbs_up_alone_is_an_up_vote(self):
        assert fb.vote_of(run(("+1", True, 1))) == 1

    def test_thumbs_down_alone_is_a_down_vote(self):
        assert fb.vote_of(run(("-1", True, 1))) == -1

    def test_both_cancel(self):
        assert fb.vote_of(run(("+1", True, 1), ("-1", True, 2))) == 0

    def test_removing_one_of_both_leaves_the_other(self):
        assert fb.vote_of(run(("+1", True, 1), ("-1", True, 2), ("-1", False, 3))) == 1

    def test_removing_undoes(self):
        assert fb.vote_of(run(("+1", True, 1), ("+1", False, 2))) == 0

    def test_neither_is_no_vote(self):
        assert fb.vote_of({}) == 0

    def test_repeated_add_counts_once(self):
        ledger = run(("+1", True, 1), ("+1", True, 1), ("+1", True, 2))
        assert fb.vote_of(ledger) == 1
        assert Tally().moved(0, fb.vote_of(ledger)) == Tally(1, 0)

    def test_late_add_after_remove_is_ignored(self):
        # Slack delivered the removal (t=2) before the add (t=1) it undoes.
        assert fb.vote_of(run(("+1", False, 2), ("+1", True, 1))) == 0

    def test_duplicate_pair_at_one_instant_settles_on_removed(self):
        assert fb.vote_of(run(("+1", True, 5), ("+1", False, 5), ("+1", True, 5))) == 0

    @pytest.mark.parametrize(("token", "polarity"), [("+1", 1), ("+1::skin-tone-2@C1/1.1", 1), (fb.BUTTON_UP, 1),
                                                     ("-1", -1), ("-1::skin-tone-3@C1/1.1", -1), (fb.BUTTON_DOWN, -1),
                                                     ("tada", 0), ("", 0), ("skin-tone-2", 0)])
    def test_a_token_says_its_polarity_by_its_sign(self, token, polarity):
        assert fb.token_polarity(token) == polarity
        assert fb.vote_of(run((token, True, 1))) == polarity

    def test_two_skin_tones_of_thumbs_up_are_still_one_vote(self):
        ledger = run(("+1", True, 1), ("+1::skin-tone-3", True, 2))
        assert fb.vote_of(ledger) == 1
        assert fb.vote_of(fb.apply_event(ledger, "+1", False, 3)) == 1  # the toned one is still there
        assert fb.vote_of(run(("+1", True, 1), ("+1::skin-tone-3", True, 2), ("-1::skin-tone-5", True, 3))) == 0

    def test_the_same_thumbs_up_on_two_posts_of_a_workaround_are_two_reactions(self):
        on_a, on_b = "+1@C1/100.1", "+1::skin-tone-2@C2/200.2"
        # Taking the 👍 back from thread B leaves the one still on thread A.
        assert fb.vote_of(run((on_a, True, 1000), (on_b, True, 1001), (on_b, False, 1002))) == 1

    def test_any_order_of_a_history_ends_in_the_final_state(self):
        """Shuffled and duplicated deliveries of a history end where the in-order history ends."""
        rng = random.Random(20240601)
        tokens = ["+1", "-1", "+1::skin-tone-4", "tada"]
        for _ in range(300):
            history = [(rng.choice(tokens), rng.random() < 0.6, float(t)) for t in range(rng.randint(1, 12))]
            expected = fb.vote_of(run(*history))
            delivered = history + rng.sample(history, k=len(history) // 2)
            rng.shuffle(delivered)
            assert fb.vote_of(run(*delivered)) == expected, history


class TestButtons:
    def test_worked_is_up_and_didnt_work_is_down(self):
        assert fb.vote_of(fb.choose_button({}, 1, 1)) == 1
        assert fb.vote_of(fb.choose_button({}, -1, 1)) == -1

    def test_a_later_click_replaces_the_earlier_one(self):
        assert fb.vote_of(fb.choose_button(fb.choose_button({}, 1, 1), -1, 2)) == -1

    def test_clicking_twice_is_one_vote(self):
        assert fb.vote_of(fb.choose_button(fb.choose_button({}, 1, 1), 1, 2)) == 1

    def test_clicks_delivered_out_of_order_keep_the_latest(self):
        assert fb.vote_of(fb.choose_button(fb.choose_button({}, -1, 2), 1, 1)) == -1

    def test_a_button_and_an_opposite_reaction_cancel_like_two_reactions(self):
        assert fb.vote_of(fb.choose_button(run(("-1", True, 1)), 1, 2)) == 0


class TestConfirmedAt:
    def test_time_of_the_thumbs_up_while_the_vote_is_up(self):
        assert fb.confirmed_at(run(("+1", True, 3))) == 3
        assert fb.confirmed_at(run(("+1", True, 3), ("+1::skin-tone-2", True, 7))) == 7

    def test_none_when_the_vote_is_not_up(self):
        assert fb.confirmed_at(run(("+1", True, 3), ("+1", False, 4))) is None
        assert fb.confirmed_at(run(("+1", True, 3), ("-1", True, 4))) is None
        assert fb.confirmed_at(run(("-1", True, 3))) is None


class TestTally:
    @pytest.mark.parametrize(("before", "after", "moved"), [
        (0, 1, Tally(1, 0)), (0, -1, Tally(0, 1)), (1, 0, Tally(-1, 0)), (-1, 0, Tally(0, -1)),
        (1, -1, Tally(-1, 1)), (-1, 1, Tally(1, -1)), (1, 1, Tally(0, 0)), (0, 0, Tally(0, 0)),
    ])
    def test_moving_one_users_vote(self, before, after, moved):
        assert Tally(5, 5).moved(before, after) == Tally(5 + moved.up, 5 + moved.down)


class TestRates:
    def test_an_estimate_is_worth_a_few_pseudo_votes_2_to_5(self):
        assert fb.prior_weight(0.0) == 2.0
        assert fb.prior_weight(1.0) == 5.0
        assert fb.prior_weight(0.5) == 3.5
        assert fb.prior_weight(7.0) == 5.0 and fb.prior_weight(-1.0) == 2.0

    def test_no_votes_means_the_seed_rate(self):
        assert fb.success_rate(0.85, 0.82, Tally()) == pytest.approx(0.85)

    def test_posterior_mean_formula(self):
        # n0 = 2 + 3 * 0.5 = 3.5; (0.8 * 3.5 + 3) / (3.5 + 3 + 1) = 5.8 / 7.5
        assert fb.success_rate(0.8, 0.5, Tally(3, 1)) == pytest.approx(5.8 / 7.5)

    def test_a_confident_seed_moves_less_per_vote(self):
        unsure = fb.success_rate(0.8, 0.0, Tally(0, 1))
        sure = fb.success_rate(0.8, 1.0, Tally(0, 1))
        assert unsure == pytest.approx(1.6 / 3) and sure == pytest.approx(4 / 6)
        assert unsure < sure < 0.8

    def test_many_votes_outweigh_the_prior(self):
        assert fb.success_rate(0.9, 0.82, Tally(0, 200)) < 0.05
        assert fb.success_rate(0.1, 0.82, Tally(200, 0)) > 0.95

    def test_lower_bound_is_below_the_mean_and_tightens_with_votes(self):
        mean = fb.success_rate(0.7, 0.5, Tally())
        few = fb.rate_lower_bound(0.7, 0.5, Tally())
        many = fb.rate_lower_bound(0.7, 0.5, Tally(70, 30))
        assert few < mean
        assert few < many < fb.success_rate(0.7, 0.5, Tally(70, 30))

    def test_one_thumbs_up_cannot_lift_a_weak_workaround_above_a_proven_one(self):
        proven = (0.75, 0.82, Tally(15, 2))  # backed by 17 readers
        lucky = (0.85, 0.82, Tally(1, 0))  # a good-sounding seed and a single 👍
        # By the mean alone the single vote would win...
        assert fb.success_rate(*lucky) > fb.success_rate(*proven)
        # ...the lower bound, which ranks workarounds, keeps the proven one first.
        assert fb.rate_lower_bound(*proven) > fb.rate_lower_bound(*lucky)

    def test_an_unrated_fix_starts_weak_and_keeps_the_authors_order_below_estimated_ones(self):
        unrated = fb.rate_lower_bound(None, 0.82, Tally())
        assert unrated < fb.rate_lower_bound(0.6, 0.82, Tally())
        assert fb.success_rate(None, 0.82, Tally(3, 1)) == pytest.approx(3.5 / 5)  # its votes on 50% worth one vote
        assert fb.rate_lower_bound(None, 0.82, Tally(3, 0)) > fb.rate_lower_bound(0.7, 0.82, Tally())

    def test_fix_success_rate_pools_every_fixs_votes_on_the_authors_estimate(self):
        n0 = fb.prior_weight(0.82)
        assert fb.fix_success_rate(0.8, 0.82, [Tally(), Tally()]) == pytest.approx(0.8)
        assert fb.fix_success_rate(0.8, 0.82, [Tally(3, 1), Tally(0, 2)]) == pytest.approx((0.8 * n0 + 3) / (n0 + 6))
        # no estimate: the votes alone, and nothing at all before the first vote
        assert fb.fix_success_rate(None, 0.82, [Tally(3, 1)]) == pytest.approx(0.75)
        assert fb.fix_success_rate(None, 0.82, [Tally()]) is None

    def test_evidence_is_seed_count_plus_distinct_voters(self):
        assert fb.evidence_count(1, 0) == 1
        assert fb.evidence_count(1, 4) == 5


class TestSuggestedFixes:
    """A teammate's fix starts from 50% worth one vote: it earns its rank from votes, against authored priors."""

    authored = (0.7, 0.82, Tally())  # a typical KB fix nobody voted on yet

    def test_its_index_never_meets_a_kb_index(self):
        assert fb.suggested_index(1) == fb.SUGGESTED_BASE + 1 and fb.is_suggested(fb.suggested_index(1))
        assert not fb.is_suggested(fb.SUGGESTED_BASE - 1)

    def test_unvoted_it_ranks_below_an_authored_fix_and_shows_fifty_percent(self):
        assert fb.suggested_rate(Tally()) == 0.5
        assert fb.suggested_lower_bound(Tally()) < fb.rate_lower_bound(*self.authored)

    def test_votes_move_it_fast_both_ways(self):
        assert fb.suggested_rate(Tally(1, 0)) == pytest.approx(0.75)
        assert fb.suggested_rate(Tally(0, 1)) == pytest.approx(0.25)
        assert fb.suggested_lower_bound(Tally(0, 1)) < fb.suggested_lower_bound(Tally())
        # one 👍 is not enough to pass a researched fix; three out of three are
        assert fb.suggested_lower_bound(Tally(1, 0)) < fb.rate_lower_bound(*self.authored)
        assert fb.suggested_lower_bound(Tally(3, 0)) > fb.rate_lower_bound(*self.authored)
