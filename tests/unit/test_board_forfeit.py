"""A board game given up is a forfeit (service/rules/duplicate.py, service/docs/BOTS.md: Forfeits).

A board game of a duplicate match that ends by a resignation, or is abandoned while a seat's move
was awaited, is scored for the board as a forfeit by that seat: every other seat of the table
scores the largest bonus of the game's options (gin, big gin, undercut) plus the forfeiting seat's
least deadwood at that moment (of all the cards it holds); the three-hand advisor, who holds no
cards, forfeits the larger of the box's and the captain's deadwood. The game's own scores stand.
Expected points are worked out by hand in the comments from that rule.
"""

from __future__ import annotations

import pytest

from service.rules import duplicate as D
from service.rules.commands import RESIGN, AbandonGame

from support.rules import deck, new_table

BOARD = dict(D.BOARD_OPTIONS)  # a board's game ends with its first hand that scores
ROLES = {"box": 0, "captain": 1, "advisor": 2}

# The first hand dealt (deck: non-dealer's ten, dealer's ten, the upcard, then the stock):
# - the non-dealer holds AC 2C 3C, 7D 7H 7S, 4S 5S 6S and 9H: deadwood 9;
# - the dealer holds QD QH QS and 2S 3S 4C 7C KH KS 9C: deadwood 2+3+4+7+10+10+9 = 45;
# - the upcard is JD, the stock's top card 2D.
HAND = deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H", "2S 3S 4C 7C QD QH QS KH KS 9C", "JD", "2D")


def gin_rami_board(options=None):
    """A gin-rami board game: seat 1 deals first (as at every table), so seat 0 holds the non-dealer's hand."""
    return new_table("gin-rami", decks=[HAND], options={**BOARD, **(options or {})}, first_dealer=1)


def three_hand_board():
    """A three-hand board game: box 0 deals, captain 1 holds the non-dealer's hand, 2 advises."""
    return new_table("three-hand", decks=[HAND], options=BOARD, roles=ROLES)


# --------------------------------------------------------------------------- gin-rami


def test_a_gin_rami_resignation_gives_the_opponent_the_big_gin_bonus_plus_the_resigners_deadwood():
    t = gin_rami_board()
    t.do(0, RESIGN)
    # gin-rami defaults: gin 20, big gin 30, undercut 10: the largest bonus is 30; seat 0's deadwood 9
    assert D.board_points(t.state) == [0, 30 + 9]
    assert D.table_scores(D.board_points(t.state), 2) == [-39, 39]
    assert t.state.scores == [0, 0]  # the game's own scores stand: the forfeit is the board's


def test_the_dealer_resigning_forfeits_its_own_deadwood():
    t = gin_rami_board()
    t.do(1, RESIGN)  # not its turn: it may resign all the same
    assert D.board_points(t.state) == [30 + 45, 0]


def test_a_seat_that_drew_forfeits_the_deadwood_of_its_eleven_cards():
    t = gin_rami_board()
    t.pass_(0)
    t.pass_(1)
    t.stock(0)  # seat 0 draws the 2D: AC 2C 3C, 7D 7H 7S, 4S 5S 6S melded, 2D and 9H left: 11
    t.do(0, RESIGN)
    assert D.board_points(t.state) == [0, 30 + 11]
    # playing on instead: it discards the 9H (deadwood 2) and the opponent goes gin at once. Even
    # under gin_adds_deadwood that costs 30 + 2 at most (big gin; gin 20 + 2): less than the 41 forfeited
    assert 30 + 2 < 41


def test_the_forfeits_bonus_is_the_largest_bonus_of_the_games_options():
    # gin 15, no big gin, undercut 40: an undercut could cost 40 and more, so the forfeit's bonus is 40
    t = gin_rami_board({"gin_bonus": 15, "big_gin_bonus": None, "undercut_bonus": 40})
    t.do(0, RESIGN)
    assert D.board_points(t.state) == [0, 40 + 9]


def test_resigning_a_losing_board_no_longer_wins_it():
    """A resigns table 0 holding the non-dealer's cards; at table 1 B holds those cards, plays on and
    loses the hand to A's gin, 20 (gin-rami's gin, no deadwood added)."""
    t = gin_rami_board()
    t.do(0, RESIGN)
    state = D.evolve(None, D.create("gin-rami", {}, [{"name": "A", "kind": "policy"}, {"name": "B", "kind": "policy"}],
                                    1, None, b"s" * 32, 4))
    state = D.evolve(state, D.decide_start(state))
    state = D.evolve(state, D.decide_played(state, 0, 0, "g0", D.board_points(t.state)))  # A in seat 0: [0, 39]
    state = D.evolve(state, D.decide_played(state, 0, 1, "g1", [0, 20]))  # B in seat 0, A in seat 1 wins 20
    # A: -39 at table 0, +20 at table 1; B: +39 and -20. (With nothing scored for the resignation A
    # would have won the board 20 to -20: resigning would have beaten playing on.)
    assert D.board_scores(state) == {0: [-39 + 20, 39 - 20]}
    assert D.pairings(state) == [("A", "B", 0.0)]


# --------------------------------------------------------------------------- abandoned games


def test_an_abandoned_board_game_is_forfeited_by_the_seat_whose_move_was_awaited():
    t = gin_rami_board()
    awaited = t.state.to_act  # seat 0, the non-dealer, on the upcard
    assert awaited == (0,)
    t.do(None, AbandonGame(3600))
    assert t.state.end["reason"] == "abandoned" and t.state.to_act == ()
    assert D.board_points(t.state, awaited) == [0, 30 + 9]
    assert D.forfeiting_seats(t.state, awaited) == (0,)


def test_a_game_ended_at_its_target_has_no_forfeit():
    t = gin_rami_board()
    t.pass_(0)
    t.pass_(1)
    t.stock(0)
    # seat 0 knocks with the 9H: K = 2 (the 2D); the dealer lays off 4C, 7C, 3S and 2S and keeps
    # 9C KH KS: D = 29, so seat 0 scores 29 - 2 = 27
    t.knock(0, "9H")
    assert t.state.end["reason"] == "target_score"
    assert D.forfeiting_seats(t.state, (1,)) == ()
    assert D.board_points(t.state) == D.seat_points(t.state.results, 2) == [27, 0]


# --------------------------------------------------------------------------- three-hand


@pytest.mark.parametrize("resigner, points, table", [
    # the box (deadwood 45) resigns: 25 + 45 = 70 to the captain and to the advisor
    (0, [0, 70, 70], [-70, 35, 35]),
    # the captain (deadwood 9) resigns: 25 + 9 = 34 to the box and to the advisor
    (1, [34, 0, 34], [17, -34, 17]),
    # the advisor holds no cards: the larger of the two hands' deadwood, 25 + 45 = 70
    (2, [70, 70, 0], [35, 35, -70]),
])
def test_a_three_hand_forfeit_is_scored_against_the_forfeiting_seat_alone(resigner, points, table):
    t = three_hand_board()
    t.do(resigner, RESIGN)
    # three-hand defaults: gin 25, no big gin, undercut 10: the bonus is 25
    assert D.board_points(t.state) == points
    assert D.table_scores(points, 3) == table and sum(table) == 0


def test_a_three_hand_forfeit_costs_more_than_losing_the_hand_to_a_gin():
    # the box losing to the captain's gin from here: 25 + 45 = 70 to the captain, the box's table
    # score 0 - (70 + 0) / 2 = -35; resigning costs it 70, twice as much
    lost = D.table_scores([0, 70, 0], 3)
    t = three_hand_board()
    t.do(0, RESIGN)
    assert D.table_scores(D.board_points(t.state), 3)[0] == -70 < lost[0] == -35
    # the advisor loses half of whatever the hand scores: at worst 70 / 2 = 35 here; resigning costs 70
    t = three_hand_board()
    t.do(2, RESIGN)
    assert D.table_scores(D.board_points(t.state), 3)[2] == -70 < lost[2] == -35
