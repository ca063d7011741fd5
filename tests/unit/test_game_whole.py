"""Whole games from explicit decks, both variants, to the target score (RULES.md §1 Game, §2, §3).

Also the gin-rami dealer: the cut (lower card deals), alternation, and the same dealer after a
drawn hand (§3 [decision]).
"""

from __future__ import annotations

from service.rules import audit, cards, fairness
from service.rules import game as G
from service.rules.events import CardsCut, DealerChosen, GameEnded, HandDealt, encode

from support.rules import P_EQUAL, P_GIN, P_KNOCK, P_UNDERCUT, deck_of, new_table

# the dealer takes the upcard 7C (making 7C 7D 7H 7S) and knocks discarding 4C: gin.
# the non-dealer holds 8C-TC, 9D 9S 9H, JD-KD and 5C: D = 5
P_DEALER_GIN = ("8C 9C TC JD QD KD 9D 9S 9H 5C", "AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "7C", "KH")


def rank(code: str) -> int:
    return "A23456789TJQK".index(code[0])


def nd_knocks(t, discard):
    """Both pass; the non-dealer draws the stock's top card and knocks discarding ``discard``."""
    nd, d = t.state.non_dealer, t.state.dealer
    t.pass_(nd)
    t.pass_(d)
    t.stock(nd)
    return t.knock(nd, discard)


def dealer_gins(t):
    nd, d = t.state.non_dealer, t.state.dealer
    t.pass_(nd)
    t.take(d)
    return t.knock(d, "4C")


def exhaust(t):
    """Both pass; 29 turns of drawing the stock's top card and discarding it: a drawn hand."""
    nd, d = t.state.non_dealer, t.state.dealer
    t.pass_(nd)
    t.pass_(d)
    for i in range(29):
        seat = (nd, d)[i % 2]
        t.stock(seat)
        new = t.discard(seat, cards.code(t.state.drawn))
    assert new[1].TYPE == "hand_drawn"
    return new


def test_whole_gin_rami_game_to_the_target_score_rules_1_game_and_3():
    """Six hands of gin rami with target_score 50, first dealer seat 0."""
    decks = [deck_of(p) for p in (P_KNOCK, P_UNDERCUT, P_KNOCK, P_DEALER_GIN, P_GIN, P_EQUAL)]
    t = new_table("gin-rami", decks=decks, first_dealer=0, options={"target_score": 50})

    # hand 1, dealer 0: seat 1 knocks K = 2 vs D = 29 -> +27; scores [0, 27]
    assert (t.state.hand_no, t.state.dealer) == (1, 0)
    assert nd_knocks(t, "9H")[1].points == 27
    assert t.state.scores == [0, 27]

    # hand 2: the deal alternates, dealer 1; seat 0 knocks K = 9 vs D = 1: undercut,
    # the dealer (seat 1) scores 10 + 8 = 18 -> [0, 45]
    assert (t.state.hand_no, t.state.dealer) == (2, 1)
    scored = nd_knocks(t, "2D")[1]
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 1, 18)
    assert t.state.scores == [0, 45]

    # hand 3, dealer 0: drawn; the same dealer deals hand 4
    assert (t.state.hand_no, t.state.dealer) == (3, 0)
    exhaust(t)
    assert t.state.scores == [0, 45]

    # hand 4, dealer 0 again: the dealer takes 7C and goes gin: flat 20 -> [20, 45]
    assert (t.state.hand_no, t.state.dealer) == (4, 0)
    scored = dealer_gins(t)[1]
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 0, 20)

    # hand 5, dealer 1: seat 0 (non-dealer) gins: +20 -> [40, 45]
    assert (t.state.hand_no, t.state.dealer) == (5, 1)
    assert nd_knocks(t, "KH")[1].points == 20
    assert t.state.scores == [40, 45]

    # hand 6, dealer 0: seat 1 knocks K = 5 = D: undercut, seat 0 +10 -> [50, 45]: 50 >= 50
    assert (t.state.hand_no, t.state.dealer) == (6, 0)
    new = nd_knocks(t, "2D")
    assert (new[1].winner, new[1].points) == (0, 10)
    assert new[-1] == GameEnded(0, (50, 45), b"rules-test-seed".hex())
    assert t.state.status == "over" and t.state.winner == 0 and t.state.scores == [50, 45]
    assert [e.hand_no for e in t.events if isinstance(e, HandDealt)] == [1, 2, 3, 4, 5, 6]

    # the log alone replays, and audits clean against the seed
    assert G.replay(t.events) == t.state
    assert G.replay([encode(e) for e in t.events]) == t.state
    assert audit.verify(t.events, b"rules-test-seed")["ok"]


def test_whole_three_hand_game_with_rotation_to_the_target_score_rules_2():
    """Six hands of box gin with target_score 60, starting box 0, captain 1, advisor 2."""
    decks = [deck_of(p) for p in (P_KNOCK, P_UNDERCUT, P_KNOCK, P_GIN, P_EQUAL, P_KNOCK)]
    t = new_table("three-hand", decks=decks, roles={"box": 0, "captain": 1, "advisor": 2},
                  options={"target_score": 60})

    def roles():
        r = t.state.roles
        return r["box"], r["captain"], r["advisor"]

    # hand 1: captain 1 knocks, wins 29 - 2 = 27 -> [0, 27, 0]; the box lost:
    # box <- captain 1, captain <- advisor 2, advisor <- box 0
    assert nd_knocks(t, "9H")[1].winner == 1
    assert t.state.scores == [0, 27, 0] and roles() == (1, 2, 0)

    # hand 2: captain 2 knocks K = 9 vs D = 1: box 1 scores 10 + 8 = 18 -> [0, 45, 0];
    # the box won: it stays, captain and advisor swap
    assert nd_knocks(t, "2D")[1].winner == 1
    assert t.state.scores == [0, 45, 0] and roles() == (1, 0, 2)

    # hand 3: drawn; roles unchanged, the box (seat 1) deals again
    exhaust(t)
    assert roles() == (1, 0, 2) and t.state.dealer == 1 and t.state.hand_no == 4

    # hand 4: captain 0 goes gin: 25 + 5 = 30 -> [30, 45, 0]; the box lost
    scored = nd_knocks(t, "KH")[1]
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 0, 30)
    assert t.state.scores == [30, 45, 0] and roles() == (0, 2, 1)

    # hand 5: captain 2 knocks K = 5 = D: undercut, box 0 scores 10 -> [40, 45, 0]; box won
    assert nd_knocks(t, "2D")[1].points == 10
    assert t.state.scores == [40, 45, 0] and roles() == (0, 1, 2)

    # hand 6: captain 1 knocks and wins 27: 45 + 27 = 72 >= 60, seat 1 wins the game
    new = nd_knocks(t, "9H")
    assert isinstance(new[-1], GameEnded) and new[-1].winner == 1
    assert t.state.scores == [40, 72, 0] and t.state.winner == 1
    # the advisor seat 2 never scored although it played as captain in hands 2 and 5
    assert G.replay(t.events) == t.state
    assert audit.verify(t.events, b"rules-test-seed")["ok"]


# --------------------------------------------------------------------------- gin-rami dealer


def seed_for_dealer_cut(predicate, limit=20000) -> bytes:
    for i in range(limit):
        seed = b"dealer-%d" % i
        if predicate([rank(c) for c in fairness.cut_cards(seed, 0, 2)]):
            return seed
    raise AssertionError("no such seed")


def test_gin_rami_lower_cut_card_deals_first_rules_3_decision():
    """§3 [decision] "The first dealer is decided by a cut (lower card deals)"."""
    seed = seed_for_dealer_cut(lambda r: r[0] != r[1])
    t = new_table("gin-rami", seed=seed)
    cut = [e for e in t.events if isinstance(e, CardsCut)]
    assert len(cut) == 1 and cut[0].purpose == "first_dealer"
    ranks = [rank(c) for c in cut[0].cards]
    lower = cut[0].seats[ranks.index(min(ranks))]
    assert t.events[-2] == DealerChosen(lower, "cut")
    assert t.state.dealer == lower and t.state.to_act == (1 - lower,)


def test_gin_rami_tied_cut_is_cut_again_rules_3_and_2_decision():
    seed = seed_for_dealer_cut(lambda r: r[0] == r[1])
    t = new_table("gin-rami", seed=seed)
    cuts = [e for e in t.events if isinstance(e, CardsCut)]
    assert len(cuts) >= 2
    last = [rank(c) for c in cuts[-1].cards]
    assert last[0] != last[1]
    assert t.state.dealer == cuts[-1].seats[last.index(min(last))]


def test_gin_rami_deal_alternates_after_a_scored_hand_rules_3():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=1)
    assert t.state.dealer == 1
    nd_knocks(t, "9H")
    assert (t.state.hand_no, t.state.dealer, t.state.to_act) == (2, 0, (1,))


def test_gin_rami_same_dealer_after_a_drawn_hand_rules_3_decision():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=1)
    exhaust(t)
    assert (t.state.hand_no, t.state.dealer) == (2, 1)


def test_hands_after_the_explicit_decks_come_from_the_seed_rules_1_deal():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, seed=b"later")
    nd_knocks(t, "9H")
    dealt = t.last(HandDealt)
    assert dealt.hand_no == 2 and dealt.source == "seed"
    assert list(dealt.deck) == fairness.deck_for_hand(b"later", 2)
