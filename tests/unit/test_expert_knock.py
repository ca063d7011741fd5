"""The expert's knock decision: knocking now against playing on (workers/policies/expert.py).

The formulas are checked on numbers worked out by hand; then one position is played through
the policy with the opponent estimate pinned (one opponent hand, a fixed chance that it knocks
next turn, a fixed chance of gin on the next draw), so that the expected points of knocking and
of playing on can be worked out by hand too. The lay-offs and the scoring are the engine's.
"""

from __future__ import annotations

import random

import pytest

from service.rules import cards as C
from service.rules import game as G
from service.rules import views
from service.rules.commands import DRAW_STOCK, PASS_UPCARD, Discard, Knock
from workers.arena import Table
from workers.policies import expert as E
from workers.policies.expert import ExpertPolicy, knock_loss, play_on_value

STANDARD = {"gin_bonus": 25, "gin_adds_deadwood": True, "undercut_bonus": 25, "big_gin_bonus": None}


def test_play_on_value_one_turn_ahead():
    # the opponent knocks first with chance 0.2 and costs 8; else gin (45) with chance 0.1 or a
    # knock worth 12: 0.2 * -8 + 0.8 * (0.1 * 45 + 0.9 * 12) = -1.6 + 0.8 * 15.3 = 10.64
    assert play_on_value(0.2, -8, 0.1, 45, 12, last_turn=False) == pytest.approx(10.64)
    # on the last turn only the opponent's knock is left: 0.2 * -8 = -1.6
    assert play_on_value(0.2, -8, 0.1, 45, 12, last_turn=True) == pytest.approx(-1.6)


def test_knock_loss_weighs_gin_plain_knocks_and_undercuts():
    # holding 4 deadwood; the opponent knocks with 0 (gin), 3 or 6, chances 1/4, 1/4, 1/2:
    # gin -(25 + 4) / 4 = -7.25; 3 < 4 wins it 1: -0.25; 6 >= 4 is undercut: (25 + 6 - 4) / 2 = 13.5
    assert knock_loss(4, {0: 0.25, 3: 0.25, 6: 0.5}, 25, 25) == pytest.approx(6.0)
    # equal deadwood is an undercut too (RULES.md §2): 25 + 0
    assert knock_loss(5, {5: 1.0}, 25, 25) == pytest.approx(25.0)


# seat 0 (non-dealer): 5C 6C 7C, 9D TD JD, 2S 3S 4S melded and a lone 9H; it draws KH
MINE = ["5C", "6C", "7C", "9D", "TD", "JD", "2S", "3S", "4S", "9H"]
# the one opponent hand the estimate is pinned to: QC QH QS, AH 2H 3H, 4D 5D 6D melded, TC
# alone: 10 deadwood, and TC lays off on none of seat 0's melds (5C-7C would need 8C or 4C)
PINNED = ["QC", "QH", "QS", "AH", "2H", "3H", "4D", "5D", "6D", "TC"]


def position(monkeypatch, q: float, their: dict, g: float):
    # the real opponent's cards do not matter (the estimate is pinned); the stock starts with KH
    theirs = ["KC", "KD", "JC", "8D", "7D", "AC", "2C", "3C", "AD", "2D"]
    head = [c for pair in zip(MINE, theirs) for c in pair] + ["8S", "KH"]
    d = head + [c for c in C.DECK if c not in head]
    table = Table.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}],
                                   options={"target_score": 100, **STANDARD}, seed=b"knock-tests",
                                   decks=[d], first_dealer=1))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    opp = C.mask(PINNED)
    monkeypatch.setattr(E._Search, "samples", lambda self: [(opp, 1.0, 10)])
    monkeypatch.setattr(E._Search, "urgency", lambda self: (q, their))
    monkeypatch.setattr(E._Search, "e1", lambda self, h: (10.0, 0.5, g))
    policy = ExpertPolicy(budget_s=None, rollouts=False, later_decay=2.0)
    return policy.choose(views.view_state(table.state, 0), random.Random(0), table.seen[0])


def test_it_plays_on_for_gin_when_the_opponent_is_far_from_knocking(monkeypatch):
    """Knock (throw KH, keep 9 deadwood) against the pinned hand: 10 - 9 = 1 point (no lay-off).
    (Throwing 9H instead keeps 10 against 10: undercut, -25.) Playing on, with the opponent
    never knocking first (q = 0) and gin on the next draw with chance g = 0.2, worth 25 + 10 = 35:
    0.2 * 35 + 0.8 * (1 - 2) = 7 - 0.8 = 6.2 (a later knock counts 2 points less) > 1."""
    move = position(monkeypatch, q=0.0, their={5: 1.0}, g=0.2)
    assert move == Discard("KH")


def test_it_knocks_when_there_is_no_gin_to_play_for(monkeypatch):
    """Same knock worth 1; playing on with g = 0: 1.0 * (0 * 35 + 1 * (1 - 2)) = -1 < 1."""
    move = position(monkeypatch, q=0.0, their={5: 1.0}, g=0.0)
    assert isinstance(move, Knock) and move.discard == "KH"


def test_it_knocks_when_the_opponent_is_likely_to_knock_first(monkeypatch):
    """The opponent knocks next turn with chance 0.5, with 3 deadwood (seat 0 then loses 9 - 3 = 6):
    0.5 * -6 + 0.5 * (0.2 * 35 + 0.8 * (1 - 2)) = -3 + 0.5 * 6.2 = 0.1 < 1: knock now."""
    move = position(monkeypatch, q=0.5, their={3: 1.0}, g=0.2)
    assert isinstance(move, Knock) and move.discard == "KH"
    assert sorted(map(sorted, move.melds)) == sorted(map(sorted, [["5C", "6C", "7C"], ["9D", "TD", "JD"], ["2S", "3S", "4S"]]))


def test_it_plays_on_when_the_opponents_knock_would_be_undercut(monkeypatch):
    """If the opponent knocks (chance 0.5) it does so with 10 deadwood against 9: undercut, 25 + 1 = 26.
    0.5 * 26 + 0.5 * (0 * 35 + 1 * (1 - 2)) = 13 - 0.5 = 12.5 > 1: play on."""
    move = position(monkeypatch, q=0.5, their={10: 1.0}, g=0.0)
    assert move == Discard("KH")


# ---- the end of the stock (RULES.md §1 drawn hand: a discard that leaves two cards in the stock
# draws the hand unless it is a knock)

def drained(mine: list[str], theirs: list[str], stock_head: list[str], draws: int, options: dict | None = None):
    """A gin-rami hand in which both seats passed the upcard (8S) and then drew ``draws`` stock
    cards in turn, each thrown straight back. The stock starts with ``stock_head`` (the rest
    follows in deck order); seat 0 moves first."""
    used = set(mine) | set(theirs) | {"8S"} | set(stock_head)
    rest = [c for c in C.DECK if c not in used]
    stock = stock_head + rest
    d = [c for pair in zip(mine, theirs) for c in pair] + ["8S"] + stock
    table = Table.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}],
                                   options={"target_score": 100, **(options or STANDARD)}, seed=b"end-tests",
                                   decks=[d], first_dealer=1))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    for turn in range(draws):
        seat = turn % 2
        table.play(seat, DRAW_STOCK)
        table.play(seat, Discard(stock[turn]))
    return table


# seat 0: 5C 6C 7C and 9D TD JD melded; 2S 3S 9H KC loose (24 deadwood, no knock)
FAR = ["5C", "6C", "7C", "9D", "TD", "JD", "2S", "3S", "9H", "KC"]
THEIRS = ["KD", "JC", "8D", "7D", "AC", "2C", "3C", "AD", "2D", "QH"]


def draw_choice(stock_left: int, top: str) -> object:
    """Seat 0's draw when ``top`` is on the pile (seat 1 just threw it) and ``stock_left`` cards are in the stock."""
    draws = 31 - stock_left  # an even count: seat 1 drew last and threw ``top``
    filler = [c for c in C.DECK if c not in set(FAR) | set(THEIRS) | {"8S", top}][: draws - 1]
    table = drained(FAR, THEIRS, filler + [top], draws)
    view = views.view_state(table.state, 0)
    assert view["stock_size"] == stock_left and view["discard_top"] == top and sorted(view["hand"]) == sorted(FAR)
    return ExpertPolicy(budget_s=None).choose(view, random.Random(0), table.seen[0])


def test_the_last_draw_takes_a_pile_card_only_to_knock_with_it():
    """With three cards in the stock this is seat 0's last draw: after it, seat 0 knocks or the
    hand is drawn. 8C extends 5C-7C (deadwood 14 after throwing KC: no knock), so it takes the
    stock card, its only chance to knock; earlier in the hand it takes 8C. 4S melds 2S 3S 4S:
    9H alone is left after throwing KC, 9 <= 10, a knock, so it takes 4S."""
    assert draw_choice(11, "8C").TYPE == "draw_discard"
    assert draw_choice(3, "8C").TYPE == "draw_stock"
    assert draw_choice(3, "4S").TYPE == "draw_discard"


def test_a_discard_that_ends_the_hand_knocks_at_any_gain(monkeypatch):
    """The position of test_it_plays_on_when_the_opponents_knock_would_be_undercut, with seat 0's
    draw (KH) leaving two cards in the stock: a discard now draws the hand (0 points), so the
    knock worth 1 is taken although the opponent's expected knock would be undercut."""
    draws = 28  # seat 1 drew last; seat 0 now draws KH and leaves 2
    theirs = ["KC", "KD", "JC", "8D", "7D", "AC", "2C", "3C", "AD", "2D"]
    filler = [c for c in C.DECK if c not in set(MINE) | set(theirs) | {"8S", "KH"}]
    table = drained(MINE, theirs, filler[:draws] + ["KH"], draws)
    table.play(0, DRAW_STOCK)
    view = views.view_state(table.state, 0)
    assert view["stock_size"] == 2 and "KH" in view["hand"]
    opp = C.mask(PINNED)
    monkeypatch.setattr(E._Search, "samples", lambda self: [(opp, 1.0, 10)])
    monkeypatch.setattr(E._Search, "urgency", lambda self: (0.5, {10: 1.0}))
    monkeypatch.setattr(E._Search, "e1", lambda self, h: (10.0, 0.5, 0.0))
    move = ExpertPolicy(budget_s=None, rollouts=False, later_decay=2.0).choose(view, random.Random(0), table.seen[0])
    assert isinstance(move, Knock) and move.discard == "KH"
