"""Scoring of a knocked hand in both variants (RULES.md §1 Knocking / Laying off, §2 Scoring, §3, §4).

Every hand comes from an explicit deck (rules_support); expected scores are worked out by
hand in the comments. Three-hand games use roles box=0, captain=1, advisor=2, so seat 1 (the
captain) is the non-dealer and seat 0 (the box) deals. Gin-rami games use first_dealer=0.
"""

from __future__ import annotations

import pytest

from service.rules.errors import RulesError
from service.rules.events import HandScored, Knocked

from support.rules import (
    P_BIG_GIN,
    P_EQUAL,
    P_GIN,
    P_KNOCK,
    P_UNDERCUT,
    deck_of,
    new_table,
)

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def three_hand(pattern, **options):
    return new_table("three-hand", decks=[deck_of(pattern)], roles=ROLES, options=options or None)


def gin_rami(pattern, **options):
    return new_table("gin-rami", decks=[deck_of(pattern)], first_dealer=0, options=options or None)


def knock_after_stock_draw(t, nd, discard, melds=None):
    """Both pass the upcard, the non-dealer draws the stock's top card and knocks."""
    d = t.state.dealer
    t.pass_(nd)
    t.pass_(d)
    t.stock(nd)
    return t.knock(nd, discard, melds)


# --------------------------------------------------------------------------- knocker wins


@pytest.mark.parametrize("variant", ["three-hand", "gin-rami"])
def test_knocker_with_less_deadwood_scores_the_difference_rules_2_and_3(variant):
    """§2 / §3 "Not gin, K < D: the knocker scores D − K", after the defender's lay-offs (§1)."""
    t = three_hand(P_KNOCK) if variant == "three-hand" else gin_rami(P_KNOCK)
    nd = 1
    new = knock_after_stock_draw(t, nd, "9H")
    knocked, scored = new[0], new[1]
    assert isinstance(knocked, Knocked) and isinstance(scored, HandScored)
    assert knocked.kind == "knock" and knocked.deadwood == 2 and knocked.deadwood_cards == ("2D",)
    assert [list(m) for m in knocked.melds] == [["AC", "2C", "3C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]]
    # defender: own set QD QH QS; lays off 4C (on AC-3C), 7C (4th seven), 3S then 2S (on 4S-6S)
    assert [list(m) for m in scored.defender_melds] == [["QD", "QH", "QS"]]
    assert set(scored.layoffs) == {("4C", 0), ("7C", 1), ("2S", 2), ("3S", 2)}
    # D = KH 10 + KS 10 + 9C 9 = 29; K = 2; knocker scores 29 - 2 = 27
    assert scored.defender_deadwood == 29
    assert sorted(scored.defender_deadwood_cards) == ["9C", "KH", "KS"]
    assert (scored.outcome, scored.winner, scored.points) == ("knock", nd, 27)
    assert t.state.scores[nd] == 27 and sum(t.state.scores) == 27


# --------------------------------------------------------------------------- undercut


@pytest.mark.parametrize("variant", ["three-hand", "gin-rami"])
def test_undercut_scores_bonus_plus_difference_to_the_defender_rules_2_and_3(variant):
    """§2 "K ≥ D: undercut, the opponent scores 10 + (K − D)"; §3 "K > D: 10 + (K − D)"."""
    t = three_hand(P_UNDERCUT) if variant == "three-hand" else gin_rami(P_UNDERCUT)
    # the knocker discards the 2D just drawn from the stock (only the discard pile's card is banned)
    scored = knock_after_stock_draw(t, 1, "2D")[1]
    # K = 9H = 9; defender 8C-TC, JD-KD, 5s: D = AH = 1; undercut: 10 + (9 - 1) = 18
    assert (scored.knocker_deadwood, scored.defender_deadwood) == (9, 1)
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 18)
    assert t.state.scores == ([18, 0, 0] if variant == "three-hand" else [18, 0])


@pytest.mark.parametrize("variant", ["three-hand", "gin-rami"])
def test_equal_deadwood_is_an_undercut_scoring_the_bonus_rules_2_and_3_decision(variant):
    """§2 "equal counts included"; §3 [decision] "K = D is an undercut, the defender scores 10"."""
    t = three_hand(P_EQUAL) if variant == "three-hand" else gin_rami(P_EQUAL)
    scored = knock_after_stock_draw(t, 1, "2D")[1]
    # K = 5H = 5; D = 5C = 5; undercut: 10 + (5 - 5) = 10
    assert (scored.knocker_deadwood, scored.defender_deadwood) == (5, 5)
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 10)


def test_undercut_bonus_option_changes_the_undercut_score_rules_4():
    """§4 undercut_bonus: with 15, the P_UNDERCUT hand scores 15 + (9 - 1) = 23."""
    t = gin_rami(P_UNDERCUT, undercut_bonus=15)
    scored = knock_after_stock_draw(t, 1, "2D")[1]
    assert (scored.winner, scored.points) == (0, 23)


# --------------------------------------------------------------------------- gin


def test_three_hand_gin_scores_25_plus_the_opponents_deadwood_without_layoffs_rules_2():
    """§2 "Gin: 25 plus the opponent's deadwood (no lay-offs against gin)"."""
    t = three_hand(P_GIN)
    knocked, scored = knock_after_stock_draw(t, 1, "KH")[:2]
    assert knocked.kind == "gin" and knocked.deadwood == 0 and knocked.deadwood_cards == ()
    # defender: 8C-TC, 9D 9S 9H, JD-KD, deadwood 5C = 5 (5C would extend AC-4C but gin takes no
    # lay-offs); captain scores 25 + 5 = 30
    assert scored.layoffs == () and scored.defender_deadwood == 5
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 1, 30)
    assert t.state.scores == [0, 30, 0]


def test_three_hand_gin_bonus_option_20_rules_2_and_4():
    """§2 "rule option 20": gin_bonus=20 scores 20 + 5 = 25."""
    t = three_hand(P_GIN, gin_bonus=20)
    assert knock_after_stock_draw(t, 1, "KH")[1].points == 25


def test_gin_against_a_defender_without_deadwood_scores_the_bonus_alone_rules_2():
    """§2 "The opponent scores nothing, even if they have no deadwood either"."""
    # defender TD JD QD KD | 8C 9C TC | 9D 9S 9H: all ten melded, D = 0 -> 25 + 0 = 25
    pattern = ("AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H TD", "QS", "KH")
    t = three_hand(pattern)
    scored = knock_after_stock_draw(t, 1, "KH")[1]
    assert scored.defender_deadwood == 0
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 1, 25)
    assert t.state.scores == [0, 25, 0]


def test_gin_rami_gin_scores_a_flat_20_rules_3_decision():
    """§3 [decision] "Gin: 20 points", no deadwood added by default."""
    t = gin_rami(P_GIN)
    scored = knock_after_stock_draw(t, 1, "KH")[1]
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 1, 20)


def test_gin_rami_gin_adds_deadwood_option_adds_the_opponents_deadwood_rules_3_and_4():
    """§3 / §4 gin_adds_deadwood: 20 + D = 20 + 5 = 25."""
    t = gin_rami(P_GIN, gin_adds_deadwood=True)
    assert knock_after_stock_draw(t, 1, "KH")[1].points == 25


def test_three_hand_gin_adds_deadwood_false_scores_the_bonus_only_rules_4():
    """§4 gin_adds_deadwood=false in three-hand: 25 flat."""
    t = three_hand(P_GIN, gin_adds_deadwood=False)
    assert knock_after_stock_draw(t, 1, "KH")[1].points == 25


def test_knocker_who_could_go_gin_but_lays_deadwood_scores_an_ordinary_knock_rules_1():
    """§1 "a knocker who could have gone gin but lays out deadwood is scored as an ordinary knock"."""
    t = gin_rami(P_GIN)
    # lays AC 2C 3C as a run, leaving 4C (4) as deadwood: K = 4, not gin; the defender lays 5C
    # off? No: 5C would extend a run ending in 4C, and 4C is not in a meld. D = 5 (5C).
    melds = [["AC", "2C", "3C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]]
    knocked, scored = knock_after_stock_draw(t, 1, "KH", melds)[:2]
    assert knocked.kind == "knock" and knocked.deadwood == 4
    # K = 4 < D = 5: knocker scores 5 - 4 = 1
    assert (scored.outcome, scored.winner, scored.points) == ("knock", 1, 1)


# --------------------------------------------------------------------------- big gin


def test_gin_rami_big_gin_scores_a_flat_30_without_a_discard_rules_3():
    """§3 "Big gin: 0 deadwood with all 11 cards melded, before discarding: 30 points"."""
    t = gin_rami(P_BIG_GIN)
    knocked, scored = knock_after_stock_draw(t, 1, None)[:2]
    assert knocked.kind == "big_gin" and knocked.discard is None
    assert sum(len(m) for m in knocked.melds) == 11
    # no discard: the pile still holds the refused upcard only
    assert t.state.hand_no == 2  # the next hand is dealt at once
    assert (scored.outcome, scored.winner, scored.points) == ("big_gin", 1, 30)


def test_gin_rami_big_gin_with_gin_adds_deadwood_adds_the_opponents_deadwood_rules_3():
    """§3 [decision] gin_adds_deadwood applies "for big gin too": 30 + 5 = 35."""
    t = gin_rami(P_BIG_GIN, gin_adds_deadwood=True)
    assert knock_after_stock_draw(t, 1, None)[1].points == 35


def test_big_gin_bonus_option_sets_the_big_gin_score_rules_4():
    """§4 big_gin_bonus=40: 40 flat."""
    t = gin_rami(P_BIG_GIN, big_gin_bonus=40)
    assert knock_after_stock_draw(t, 1, None)[1].points == 40


def test_big_gin_hand_may_also_discard_and_score_gin_rules_3():
    """Discarding from a big-gin hand is a gin: 20 in gin-rami."""
    t = gin_rami(P_BIG_GIN)
    scored = knock_after_stock_draw(t, 1, "7C")[1]
    assert (scored.outcome, scored.points) == ("gin", 20)


def test_big_gin_is_not_allowed_in_three_hand_rules_4():
    """§4 big_gin_bonus "none (three-hand)": Knock without a discard is refused."""
    t = three_hand(P_BIG_GIN)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, None)
    assert err.value.code == "big_gin_not_allowed" and not err.value.conflict


def test_big_gin_needs_all_eleven_cards_melded_rules_3():
    """§3: an eleven-card hand with deadwood is not big gin."""
    t = gin_rami(P_KNOCK)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, None)
    assert err.value.code == "not_big_gin"


def test_big_gin_with_client_melds_that_leave_a_card_out_is_refused_rules_3():
    t = gin_rami(P_BIG_GIN)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, None, [["AC", "2C", "3C", "4C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]])
    assert err.value.code == "not_big_gin"


# --------------------------------------------------------------------------- the knocker's melds


# 7C 7D 7H 7S 8S 9S TS AC 2C 2D: deadwood AC 2C 2D = 1 + 2 + 2 = 5 either way the sevens go
KNOCKER_SEVENS = "7C 7D 7H 7S 8S 9S TS AC 2C 2D"
# ten unmatched cards (ranks all different; no three of a suit in sequence):
# 6 + 10 + 10 + 10 + 9 + 4 + 3 + 8 + 5 + 10 = 75
DEFENDER_WITH_6S = "6S KC QH JC 9H 4D 3H 8D 5C TD"


def test_knocker_melds_decide_what_the_defender_can_lay_off_rules_1():
    """§1: "7♣7♦7♥ + 7♠8♠9♠T♠ takes a 6♠; 7♣7♦7♥7♠ + 8♠9♠T♠ does not"."""
    pattern = (KNOCKER_SEVENS, DEFENDER_WITH_6S, "KS", "KD")
    t = gin_rami(pattern)
    scored = knock_after_stock_draw(t, 1, "KD", [["7C", "7D", "7H"], ["7S", "8S", "9S", "TS"]])[1]
    # 6S lays off on 7S-TS: D = 75 - 6 = 69; K = 5; knocker scores 69 - 5 = 64
    assert scored.layoffs == (("6S", 1),)
    assert (scored.defender_deadwood, scored.points) == (69, 64)

    t = gin_rami(pattern)
    scored = knock_after_stock_draw(t, 1, "KD", [["7C", "7D", "7H", "7S"], ["8S", "9S", "TS"]])[1]
    # 7S is in the set: nothing extends 8S-TS from the defender's hand; D = 75; 75 - 5 = 70
    assert scored.layoffs == ()
    assert (scored.defender_deadwood, scored.points) == (75, 70)


def test_engine_arrangement_does_not_depend_on_the_defenders_hand_rules_1_decision():
    """§1 [decision]: melds None -> a least-deadwood arrangement chosen without the opponent's hand."""
    laid = []
    for defender in (DEFENDER_WITH_6S, "6H KC QH JC 9H 4D 3S 8D 5C TD"):
        t = gin_rami((KNOCKER_SEVENS, defender, "KS", "KD"))
        knocked = knock_after_stock_draw(t, 1, "KD")[0]
        assert knocked.deadwood == 5 and knocked.deadwood_cards == ("AC", "2C", "2D")
        laid.append(knocked.melds)
    assert laid[0] == laid[1]


def test_client_melds_with_too_much_deadwood_cannot_knock_rules_1():
    """§1 "if after discarding one card their deadwood is 10 or less"."""
    t = gin_rami(P_KNOCK)
    with pytest.raises(RulesError) as err:
        # only the clubs run laid: 7D 7H 7S 4S 5S 6S 2D = 7+7+7+4+5+6+2 = 38 > 10
        knock_after_stock_draw(t, 1, "9H", [["AC", "2C", "3C"]])
    assert err.value.code == "knock_deadwood_too_high" and not err.value.conflict


def test_knock_limit_option_bounds_the_knockers_deadwood_rules_4():
    """§4 knock_limit=1: K = 2 may no longer knock; the same hand is legal with the default 10."""
    t = gin_rami(P_KNOCK, knock_limit=1)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "9H")
    assert err.value.code == "knock_deadwood_too_high"


def test_hand_with_more_than_ten_deadwood_cannot_knock_rules_1():
    """§1: P_UNDERCUT's knocker discarding 7D: deadwood 9H 2D 7H 7S... above 10."""
    t = gin_rami(P_UNDERCUT)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "7D")  # 7H 7S 9H 2D = 7 + 7 + 9 + 2 = 25
    assert err.value.code == "knock_deadwood_too_high"


@pytest.mark.parametrize(
    "melds, code",
    [
        ([["AC", "2C", "2D"]], "invalid_melds"),  # held, but neither a set nor a run
        ([["AC", "2C", "3C"], ["AC", "2C", "3C"]], "overlapping_melds"),
        ([["7D", "7H", "7S", "7C"]], "meld_card_not_in_hand"),
        ([["AC", "2C", "3C"], ["9H", "TH", "JH"]], "meld_card_not_in_hand"),  # 9H is the discard
        ([["AC", "2C", "XX"]], "invalid_card"),
        # not lists of codes: the command refuses its own shape, as every malformed command field
        ("AC 2C 3C", "invalid_command"),
    ],
)
def test_invalid_client_melds_are_refused_rules_1(melds, code):
    """§1 "Melds sent by a client may be any valid arrangement of separate melds"."""
    t = gin_rami(P_KNOCK)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "9H", melds)
    assert err.value.code == code and not err.value.conflict


def test_overlapping_client_melds_are_refused_rules_1():
    """§1 "A card belongs to at most one meld"."""
    t = gin_rami(P_KNOCK)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "9H", [["7D", "7H", "7S"], ["4S", "5S", "6S", "7S"]])
    assert err.value.code == "overlapping_melds"


def test_knock_on_the_first_turn_after_taking_the_upcard_rules_1():
    """§1 "A player may knock on any turn, the first included"."""
    # non-dealer holds AC 2C 3C 4C 7D 7H 7S 4S 5S 6S; upcard KH taken, then knock discarding 4C?
    # No: the taken card may not be discarded, so knock discarding 4C (run AC-3C remains): K = 0?
    # AC 2C 3C | 7D 7H 7S | 4S 5S 6S | KH: discarding 4C leaves KH = 10 <= 10: a knock with K = 10.
    pattern = ("AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H 5C", "KH", "QS")
    t = gin_rami(pattern)
    t.take(1)
    knocked, scored = t.knock(1, "4C")[:2]
    # K = 10; defender lays 5C? Only on a clubs run ending at 4C, which was discarded: AC-3C
    # needs 4C. D = 5; undercut: 10 + (10 - 5) = 15 to the dealer (seat 0)
    assert knocked.deadwood == 10 and knocked.deadwood_cards == ("KH",)
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 15)


def test_a_hand_is_not_ended_by_a_plain_discard_even_when_a_knock_was_possible_rules_1():
    """§1 "Nobody is ever obliged to knock"."""
    t = gin_rami(P_GIN)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    new = t.discard(1, "KH")
    assert [type(e).TYPE for e in new] == ["card_discarded"]
    assert t.state.phase == "draw" and t.state.to_act == (0,)


# --------------------------------------------------------------------------- ace low, optimal defence


def test_ace_is_never_high_so_q_k_a_is_not_a_run_rules_1_cards():
    """§1 "Ace is always low ... Q-K-A and K-A-2 are not" runs."""
    pattern = ("QH KH AH 2H 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H 5C", "JS", "2D")
    for melds in ([["QH", "KH", "AH"]], [["KH", "AH", "2H"]]):
        t = gin_rami(pattern)
        with pytest.raises(RulesError) as err:
            knock_after_stock_draw(t, 1, "2D", melds)
        assert err.value.code == "invalid_melds"
    # the engine's own arrangement leaves QH KH AH 2H = 10 + 10 + 1 + 2 = 23 > 10: no knock
    t = gin_rami(pattern)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "2D")
    assert err.value.code == "knock_deadwood_too_high"


def test_defender_takes_the_own_melds_and_layoffs_that_leave_least_deadwood_rules_1_decision():
    """§1 [decision]: the engine applies the defender's best combination of melds and lay-offs."""
    # knocker AC 2C 3C | 7C 7D 7H | 5S 6S 7S, 9H; draws 2D; discards 9H: K = 2.
    # defender 8S 9S 8H 8D KC QD JH 4H 3D TC:
    #   own set 8S 8H 8D, 9S unmatched: 9S + KC 10 + QD 10 + JH 10 + 4H 4 + 3D 3 + TC 10 = 56
    #   or lay off 8S then 9S on 5S-7S: 8H + 8D + 47 = 63
    #   the engine must take the set: D = 56, and the knocker scores 56 - 2 = 54
    pattern = ("AC 2C 3C 7C 7D 7H 5S 6S 7S 9H", "8S 9S 8H 8D KC QD JH 4H 3D TC", "KS", "2D")
    t = gin_rami(pattern)
    scored = knock_after_stock_draw(t, 1, "9H")[1]
    assert scored.layoffs == ()
    assert [list(m) for m in scored.defender_melds] == [["8D", "8H", "8S"]]
    assert (scored.defender_deadwood, scored.points) == (56, 54)


def test_game_ends_when_a_player_reaches_the_default_target_of_100_rules_1_game():
    """§1 Game: "until a player's cumulative score reaches 100 or more"."""
    # every hand the non-dealer goes big gin (30); the deal alternates, so seat 1 (non-dealer
    # of hands 1, 3, 5, 7) has 30, 60, 90, 120 and seat 0 (hands 2, 4, 6) 30, 60, 90
    t = new_table("gin-rami", decks=[deck_of(P_BIG_GIN)] * 7, first_dealer=0)
    for hand in range(1, 8):
        assert t.state.status == "playing" and t.state.hand_no == hand
        knock_after_stock_draw(t, t.state.non_dealer, None)
        if hand == 6:
            assert t.state.scores == [90, 90] and t.state.status == "playing"
    assert t.state.status == "over" and t.state.scores == [90, 120] and t.state.winner == 1


def test_a_meld_holding_the_knocks_own_discard_is_refused_as_the_discard_rules_1():
    """§1: the knocker discards, then lays the rest of the hand: the discard is in no meld. P_KNOCK's
    knocker holds 7D 7H 7S and discards 7S, then lays 7D 7H 7S as a set: 7S was held, it is the discard."""
    t = gin_rami(P_KNOCK)
    laid = [["AC", "2C", "3C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]]
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "7S", laid)
    assert err.value.code == "meld_card_not_in_hand" and not err.value.conflict
    assert "7S is the knock's discard" in err.value.message
    assert "not in the hand" not in err.value.message
    # a card never held is still said to be not in the hand
    t = gin_rami(P_KNOCK)
    with pytest.raises(RulesError) as err:
        knock_after_stock_draw(t, 1, "9H", [["7D", "7H", "7S", "7C"]])
    assert err.value.code == "meld_card_not_in_hand" and err.value.message == "7C is not in the hand"
