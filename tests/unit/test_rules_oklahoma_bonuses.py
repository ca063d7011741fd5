"""End-of-game bonuses and Oklahoma (RULES.md §5), on hands worked out by hand.

Gin-rami games use first_dealer=0: seat 0 deals hand 1, seat 1 is its non-dealer, and the
deal alternates. Three-hand games use box 0, captain 1, advisor 2.
"""

from __future__ import annotations

import pytest

from service.rules import views
from service.rules.errors import RulesError
from service.rules.events import GameEnded, HandScored, encode
from service.rules.rulesets import end_bonuses, upcard_limit
from service.rules.cards import INDEX_OF

from support.rules import P_GIN, P_KNOCK, P_UNDERCUT, deck, new_table

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def with_upcard(pattern, upcard):
    non_dealer, dealer, _, stock = pattern
    return deck(non_dealer, dealer, upcard, stock)


def knock(t, nd, discard):
    """Both pass the upcard; the non-dealer draws the stock's top card and knocks."""
    t.pass_(nd)
    t.pass_(1 - nd if t.state.variant == "gin-rami" else t.state.dealer)
    t.stock(nd)
    return t.knock(nd, discard)


# -- end-of-game bonuses ------------------------------------------------------------------------


def test_a_shutout_is_doubled_after_every_bonus():
    """P_KNOCK: seat 1 scores 29 - 2 = 27 and reaches the target 20 in one hand.
    Seat 0 won no hand: a shutout. Seat 1: 27 + 1 x 25 (box) + 100 (game) + 50 (shutout) = 202,
    doubled = 404. Seat 0: 0."""
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "JC")], first_dealer=0,
                  options={"target_score": 20, "box_bonus": 25, "game_bonus": 100,
                           "shutout_bonus": 50, "shutout_doubles": True})
    knock(t, 1, "9H")
    ended = t.last(GameEnded)
    assert ended.scores == (0, 404) and t.state.scores == [0, 404]
    assert ended.bonuses == {
        "hand_points": [0, 27], "hands_won": [0, 1], "box_bonus": [0, 25], "game_bonus": [0, 100],
        "shutout": True, "shutout_bonus": [0, 50], "shutout_doubling": [0, 202], "totals": [0, 404],
    }
    assert views.view_state(t.state, None)["bonuses"] == ended.bonuses


def test_box_bonuses_go_to_both_and_no_shutout_when_the_loser_won_a_hand():
    """Target 40, the deal alternating. Hand 1 (seat 1 non-dealer): P_KNOCK, seat 1 +27.
    Hand 2 (seat 0 non-dealer): P_KNOCK, seat 0 +27. Hand 3 (seat 1): P_KNOCK, seat 1 +27 = 54.
    Seat 1: 54 + 2 x 25 + 100 = 204 (no shutout: no 50, no doubling). Seat 0: 27 + 1 x 25 = 52."""
    d = with_upcard(P_KNOCK, "JC")
    t = new_table("gin-rami", decks=[d, d, d], first_dealer=0,
                  options={"target_score": 40, "box_bonus": 25, "game_bonus": 100,
                           "shutout_bonus": 50, "shutout_doubles": True})
    knock(t, 1, "9H")
    knock(t, 0, "9H")
    knock(t, 1, "9H")
    ended = t.last(GameEnded)
    assert ended.winner == 1 and ended.scores == (52, 204)
    assert ended.bonuses["shutout"] is False and ended.bonuses["hands_won"] == [1, 2]
    assert ended.bonuses["box_bonus"] == [25, 50] and ended.bonuses["shutout_doubling"] == [0, 0]


def test_the_target_is_reached_on_hand_points_alone():
    """Target 30: hand 1 gives seat 1 27, under 30; the box bonus 25 does not end the game."""
    d = with_upcard(P_KNOCK, "JC")
    t = new_table("gin-rami", decks=[d, d], first_dealer=0, options={"target_score": 30, "box_bonus": 25})
    knock(t, 1, "9H")
    assert t.state.status == "playing" and t.state.scores == [0, 27]


def test_three_hand_bonuses_go_to_players_whatever_their_role():
    """P_KNOCK, the captain (seat 1) knocks and scores 27 >= 20. Nobody else won a hand:
    (27 + 25) x 2 = 104; the box and the advisor 0."""
    t = new_table("three-hand", decks=[with_upcard(P_KNOCK, "JC")], roles=ROLES,
                  options={"target_score": 20, "box_bonus": 25, "shutout_doubles": True})
    knock(t, 1, "9H")
    assert t.last(GameEnded).scores == (0, 104, 0)


def test_with_every_bonus_off_the_game_ends_as_before():
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "JC")], first_dealer=0, options={"target_score": 20})
    knock(t, 1, "9H")
    ended = t.last(GameEnded)
    assert ended.scores == (0, 27) and ended.bonuses is None
    assert "bonuses" not in encode(ended)["data"] and t.state.bonuses is None


def test_end_bonuses_in_three_hand_a_shutout_needs_both_others_without_a_win():
    # hand points 100, 30, 0; wins 3, 1, 0: no shutout; box 10 each win, game 50
    sheet = end_bonuses({"box_bonus": 10, "game_bonus": 50, "shutout_doubles": True}, (100, 30, 0), (3, 1, 0), 0)
    assert sheet["totals"] == [100 + 30 + 50, 30 + 10, 0] and sheet["shutout"] is False


# -- Oklahoma -------------------------------------------------------------------------------------

#: every rank's knock limit: A gin only, 2-9 their value, T J Q K 10
LIMITS = {"A": 0, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
          "T": 10, "J": 10, "Q": 10, "K": 10}


@pytest.mark.parametrize("rank, limit", LIMITS.items())
@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_the_upcard_sets_the_hands_knock_limit(variant, rank, limit):
    # clubs and diamonds dealt, the upcard a heart of that rank
    d = deck("AC 2C 3C 4C 5C 6C 7C 8C 9C TC", "AD 2D 3D 4D 5D 6D 7D 8D 9D TD", rank + "H", "JS")
    extra = {"roles": ROLES} if variant == "three-hand" else {"first_dealer": 0}
    t = new_table(variant, decks=[d], options={"oklahoma": True}, **extra)
    assert upcard_limit(INDEX_OF[rank + "S"]) == limit
    assert t.state.knock_limit == limit
    view = views.view_state(t.state, None)
    assert view["knock_limit"] == limit and view["options"]["knock_limit"] is None


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_a_two_upcard_allows_a_knock_of_two(variant):
    """P_KNOCK with upcard 2H: K = 2 <= 2; the knocker scores 29 - 2 = 27 (not doubled: a heart)."""
    extra = {"roles": ROLES} if variant == "three-hand" else {"first_dealer": 0}
    t = new_table(variant, decks=[with_upcard(P_KNOCK, "2H")],
                  options={"oklahoma": True, "oklahoma_spades_double": True}, **extra)
    scored = next(e for e in knock(t, 1, "9H") if isinstance(e, HandScored))
    assert (scored.outcome, scored.points, scored.multiplier) == ("knock", 27, None)


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_an_ace_upcard_refuses_a_knock_and_allows_gin(variant):
    """Upcard AD: limit 0. P_KNOCK's K = 2 is refused; P_GIN (K = 0) is gin."""
    extra = {"roles": ROLES} if variant == "three-hand" else {"first_dealer": 0}
    t = new_table(variant, decks=[with_upcard(P_KNOCK, "AD")], options={"oklahoma": True}, **extra)
    with pytest.raises(RulesError) as err:
        knock(t, 1, "9H")
    assert err.value.code == "knock_deadwood_too_high"
    t = new_table(variant, decks=[with_upcard(P_GIN, "AD")], options={"oklahoma": True}, **extra)
    scored = next(e for e in knock(t, 1, "KH") if isinstance(e, HandScored))
    assert scored.outcome == "gin"


def test_a_three_upcard_refuses_a_knock_of_nine():
    """P_KNOCK, the knocker discards 2D instead of 9H: K = 9 > 3 (upcard 3D)."""
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "3D")], first_dealer=0, options={"oklahoma": True})
    with pytest.raises(RulesError) as err:
        knock(t, 1, "2D")
    assert err.value.code == "knock_deadwood_too_high"


def test_a_spade_upcard_doubles_a_knock():
    """P_KNOCK with upcard TS (limit 10): 27 x 2 = 54; the result says multiplier 2."""
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "TS")], first_dealer=0,
                  options={"oklahoma": True, "oklahoma_spades_double": True})
    scored = next(e for e in knock(t, 1, "9H") if isinstance(e, HandScored))
    assert (scored.points, scored.multiplier, scored.scores) == (54, 2, (0, 54))
    assert t.state.results[-1]["multiplier"] == 2


def test_a_spade_upcard_doubles_an_undercut_bonus_too():
    """P_UNDERCUT with upcard JS (limit 10): K = 9, D = 1, the defender scores (10 + 8) x 2 = 36."""
    t = new_table("gin-rami", decks=[with_upcard(P_UNDERCUT, "JS")], first_dealer=0,
                  options={"oklahoma": True, "oklahoma_spades_double": True})
    scored = next(e for e in knock(t, 1, "2D") if isinstance(e, HandScored))
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 36)


def test_without_spade_doubling_a_spade_upcard_changes_nothing():
    """P_KNOCK with upcard TS, oklahoma alone: 27."""
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "TS")], first_dealer=0, options={"oklahoma": True})
    scored = next(e for e in knock(t, 1, "9H") if isinstance(e, HandScored))
    assert (scored.points, scored.multiplier) == (27, None)


def test_spade_doubling_without_oklahoma_changes_nothing():
    t = new_table("gin-rami", decks=[with_upcard(P_KNOCK, "TS")], first_dealer=0,
                  options={"oklahoma_spades_double": True})
    scored = next(e for e in knock(t, 1, "9H") if isinstance(e, HandScored))
    assert scored.points == 27 and t.state.knock_limit == 10


@pytest.mark.parametrize("options", [{"oklahoma": True, "knock_limit": 10}, {"knock_limit": None}])
def test_knock_limit_goes_with_oklahoma_never(options):
    with pytest.raises(RulesError) as err:
        new_table("gin-rami", options=options)
    assert err.value.code == "invalid_option"
