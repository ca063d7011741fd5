"""The fast paths from card codes (cards.mask, melds.deadwood, melds.deadwood_after_discard) give
exactly what the checked paths give, and still refuse what is not a set of cards.

(How fast they are is printed by tests/bench/bench_rules.py; no timing is asserted here.)
"""

from __future__ import annotations

import random

import pytest

from service.rules import cards as C
from service.rules import melds as M


def _slow_mask(items) -> int:
    m = 0
    for c in items:
        i = C.to_index(c)
        assert not m >> i & 1
        m |= 1 << i
    return m


@pytest.mark.parametrize("n", [0, 1, 3, 10, 11])
def test_codes_lists_tuples_and_indexes_give_the_same_mask_and_deadwood(n):
    rng = random.Random(n)
    for _ in range(400):
        idx = rng.sample(range(52), n)
        codes = [C.code(i) for i in idx]
        m = _slow_mask(idx)
        assert C.mask(codes) == C.mask(tuple(codes)) == C.mask(idx) == C.mask(iter(codes)) == m
        assert M.deadwood(codes) == M.deadwood(tuple(codes)) == M.deadwood(idx) == M.deadwood_mask(m)
        if n:
            assert (M.deadwood_after_discard(codes) == M.deadwood_after_discard(tuple(codes))
                    == M.deadwood_after_discard(idx) == M.deadwood_after_discard_mask(m))


def test_hands_with_sets_take_the_full_path_and_agree():
    """Sets (three or four of a rank): the case where every choice of sets is tried."""
    hand = ["7C", "7D", "7H", "7S", "8S", "9S", "TS", "AC", "2D", "3H"]
    assert M.deadwood(hand) == M.deadwood_mask(C.mask(hand)) == 6
    assert M.deadwood_after_discard(hand + ["KC"]) == 6


@pytest.mark.parametrize("bad", [["AS", "AS"], [0, 0], [0, "AC"], ["AS", "XX"], [52], [-1], [True], [False, 1],
                                 ["as"], [None]])
def test_duplicates_and_non_cards_are_refused_on_every_path(bad):
    for given in (bad, tuple(bad)):
        with pytest.raises(C.CardError):
            C.mask(given)
        with pytest.raises(C.CardError):
            M.deadwood(given)
        with pytest.raises(C.CardError):
            M.deadwood_after_discard(given)
