"""The expert's estimate of the opponent's hand (workers/policies/estimator.py).

Positions are dealt from explicit decks (RULES.md §1 "Deal", explicit-deck [decision]: cards
1-20 alternate non-dealer first, card 21 is the upcard, card 22 the top of the stock) and read
through the seat's own view and events, as a bot reads them.
"""

from __future__ import annotations

import random

from service.rules import cards as C
from service.rules import game as G
from service.rules import views
from service.rules.commands import DRAW_DISCARD, DRAW_STOCK, PASS_UPCARD, Discard
from workers.arena import Table
from workers.policies import read
from workers.policies.estimator import OpponentModel

EXPERT_HAND = ["7H", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"]
OPPONENT = ["AH", "AD", "2H", "3H", "4H", "5H", "6H", "TH", "JH", "QH"]


def deck(non_dealer: list[str], dealer: list[str], upcard: str, stock_top: list[str] = ()) -> list[str]:
    head = [c for pair in zip(non_dealer, dealer) for c in pair] + [upcard, *stock_top]
    assert len(set(head)) == len(head)
    return head + [c for c in C.DECK if c not in head]


def table_for(d: list[str], dealer: int = 1) -> Table:
    return Table.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}],
                                  options={"target_score": 100}, seed=b"estimator-tests",
                                  decks=[d], first_dealer=dealer))


def model_of(table: Table, seat: int = 0, events: bool = True) -> tuple[OpponentModel, object]:
    k = read(views.view_state(table.state, seat), table.seen[seat] if events else None)
    return OpponentModel(k), k


def test_cards_seen_anywhere_have_probability_zero_and_the_rest_share_the_unknown_cards():
    """Seat 0 holds EXPERT_HAND (drew 2D, threw KC); 9D was the upcard; the opponent threw QH:
    every card seat 0 saw outside the opponent's hand gets probability 0."""
    table = table_for(deck(EXPERT_HAND, OPPONENT, "9D", ["2D", "AS"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)          # 2D
    table.play(0, Discard("KC"))
    table.play(1, DRAW_STOCK)          # AS, unseen by seat 0
    table.play(1, Discard("QH"))
    model, k = model_of(table)
    seen = k.hand | k.pile
    for c in C.cards_of(seen):
        assert model.p[c] == 0.0, C.code(c)
    assert model.p[C.index("QH")] == 0.0 and model.p[C.index("KC")] == 0.0 and model.p[C.index("9D")] == 0.0
    # 52 - 10 in seat 0's hand - 3 on the pile (9D, KC, QH) = 39 unseen cards; the opponent's
    # 10 unknown cards are spread over them, none above 1
    unseen = C.cards_of(k.unseen)
    assert len(unseen) == 52 - 10 - 3
    assert abs(sum(model.p[c] for c in unseen) - 10) < 1e-9
    assert all(0 < model.p[c] <= 1 for c in unseen)


def test_a_card_the_opponent_took_from_the_pile_has_probability_one_and_its_neighbours_rise():
    """The opponent (seat 1) takes the 7D seat 0 threw: 7D is certain; 7C (its rank) and 6D, 8D
    (next to it in diamonds) are likelier than a card that melds with nothing it showed (KS)."""
    hand = ["7D", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"]
    table = table_for(deck(hand, OPPONENT, "9D", ["2D"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    table.play(0, Discard("7D"))
    table.play(1, DRAW_DISCARD)
    table.play(1, Discard("QH"))
    model, k = model_of(table)
    assert k.opp_known == 1 << C.index("7D")
    assert model.p[C.index("7D")] == 1.0
    plain = model.p[C.index("KS")]
    for c in ("7C", "6D", "8D"):
        assert model.p[C.index(c)] > plain, c


def test_a_passed_upcard_lowers_the_chance_of_the_cards_that_would_have_melded_with_it():
    """The opponent (dealer, seat 1) passed the 9D upcard after seat 0 did: it holds no pair that
    9D completes, so 9C 9H 9S (its rank) and 8D TD (next to it) are less likely than before, and
    less likely than a card unrelated to 9D (KS); without the events nothing is known of it."""
    table = table_for(deck(EXPERT_HAND, OPPONENT, "9D", ["2D"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    before, _ = model_of(table, events=False)
    after, k = model_of(table)
    assert k.opp_declines == [(C.index("9D"), 0)]
    for c in ("9C", "9H", "8D", "TD"):
        i = C.index(c)
        assert after.p[i] < before.p[i], c
        assert after.p[i] < after.p[C.index("KS")], c
    # 9S is in seat 0's hand: seen, probability 0 either way
    assert after.p[C.index("9S")] == before.p[C.index("9S")] == 0.0
    # the evidence moves probability, it does not create any: still 10 unknown cards in all
    assert abs(sum(after.p) - 10) < 1e-9


def test_a_card_the_opponent_threw_lowers_its_neighbours_more_than_the_cards_two_ranks_away():
    table = table_for(deck(EXPERT_HAND, OPPONENT, "9D", ["2D", "AS"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    table.play(0, Discard("KC"))
    table.play(1, DRAW_STOCK)
    table.play(1, Discard("6H"))       # the opponent throws 6H
    model, _ = model_of(table)
    p = model.p
    # 3D melds with nothing the opponent showed (KC and 9D, which it left on the pile, and 6H)
    assert p[C.index("5H")] < p[C.index("4H")] < p[C.index("3D")]
    assert p[C.index("6C")] < p[C.index("3D")]


def test_sampled_hands_hold_the_known_cards_and_only_unseen_ones_and_follow_the_weights():
    hand = ["7D", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"]
    table = table_for(deck(hand, OPPONENT, "9D", ["2D"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    table.play(0, Discard("7D"))
    table.play(1, DRAW_DISCARD)
    table.play(1, Discard("QH"))
    model, k = model_of(table)
    rng = random.Random(4)
    counts = [0] * 52
    n = 3000
    for i in range(n):
        h = model.sample(rng, age=3 if i % 2 else 0)
        assert bin(h).count("1") == 10
        assert h & k.opp_known == k.opp_known
        assert h & ~(k.unseen | k.opp_known) == 0
        if i % 2 == 0:
            for c in C.cards_of(h):
                counts[c] += 1
    # without hand building the frequencies follow the probabilities (loosely: the weighted
    # draw without replacement is not exactly proportional)
    half = n // 2
    assert counts[C.index("7D")] == half
    assert counts[C.index("6D")] / half > counts[C.index("KS")] / half


def test_meld_chance_counts_sets_and_runs_from_the_probabilities():
    """With the opponent known to hold 8D and 9D (taken from the pile), TD and 7D complete a run for sure."""
    hand = ["8D", "9D", "2C", "5S", "9S", "KC", "QD", "JS", "3S", "4C"]
    table = table_for(deck(hand, OPPONENT, "AS", ["2D", "3D"]))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)          # 2D
    table.play(0, Discard("8D"))
    table.play(1, DRAW_DISCARD)        # takes 8D
    table.play(1, Discard("QH"))
    table.play(0, DRAW_STOCK)          # 3D
    table.play(0, Discard("9D"))
    table.play(1, DRAW_DISCARD)        # takes 9D
    table.play(1, Discard("JH"))
    model, _ = model_of(table)
    assert model.meld_chance(C.index("TD")) == 1.0
    assert model.meld_chance(C.index("7D")) == 1.0
    assert model.meld_chance(C.index("TD")) > model.meld_chance(C.index("KS"))
