"""The outside bots work out melds and deadwood themselves (workers/outside_bot.py, standard library
only) instead of asking ``POST /analysis/melds``: what they work out is what the server's card maths
answers, card for card, on hands of every shape (sets of three and four crossing runs included)."""

from __future__ import annotations

import random

import pytest

from service.rules import cards, melds
from workers import outside_bot


def hands(seed: int, count: int):
    """Random hands of 10 and 11 cards: half from the whole deck, half from a few ranks (many sets)."""
    rng = random.Random(seed)
    for n in range(count):
        size = 10 + n % 2
        if n % 4 < 2:
            yield rng.sample(cards.DECK, size)
        else:
            ranks = rng.sample(cards.RANKS, rng.randint(3, 5))
            pool = [code for code in cards.DECK if code[0] in ranks or rng.random() < 0.08]
            yield rng.sample(pool, min(size, len(pool)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bots_arrangement_is_the_servers_card_for_card(seed):
    for hand in hands(seed, 1500):
        best = melds.best_arrangement(hand)
        mine = outside_bot.arrangement(hand)
        assert mine == ([[cards.code(c) for c in m] for m in best.melds],
                        [cards.code(c) for c in best.deadwood_cards], best.deadwood), hand
        if len(hand) == 11:
            assert outside_bot.deadwood_after_discard(hand) == melds.deadwood_after_discard(hand), hand


def test_ties_are_broken_as_the_server_breaks_them():
    # TC JC QC with QD QH: the run of clubs or the set of queens leaves 20 either way, in two cards
    # each; melds compare as sorted card indexes, and the run (9, 10, 11) comes before the set
    # (11, 24, 37), so the run is kept and QD QH are deadwood, listed in index order
    hand = ["TC", "JC", "QC", "QD", "QH", "2S", "4S", "6S", "8S", "KD"]
    expected = ["QD", "KD", "QH", "2S", "4S", "6S", "8S"]
    assert outside_bot.arrangement(hand) == ([["TC", "JC", "QC"]], expected, 20 + 2 + 4 + 6 + 8 + 10)
    assert [cards.code(c) for c in melds.best_arrangement(hand).deadwood_cards] == expected
