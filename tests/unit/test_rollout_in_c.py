"""The optional C playout (workers/policies/_rollout.c) against rollout.py's pure-Python one.

``finish_hand`` must give exactly the same points with and without it, on every kind of position:
hands rich in sets (where the deadwood tries every choice of sets), each first draw, each knock
limit, big gin on and off, short turn limits, and a draw from an empty pile or stock.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import sysconfig
from pathlib import Path

import pytest

from service.rules import cards
from service.rules.variants import GIN_RAMI, VARIANTS
from workers.policies import rollout

BUILT = rollout._finish_in_c is not None


def test_the_c_playout_is_built_where_a_c_compiler_is_present():
    """As for service/rules/_speedups.c: an optional build that failed would otherwise pass unnoticed."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    found = importlib.util.find_spec("workers.policies._rollout") is not None
    assert found == BUILT
    if compiler and headers.is_file():
        assert BUILT, "a C compiler and Python.h are here, yet workers.policies._rollout was not built"


def _options(rng: random.Random) -> dict:
    options = dict(VARIANTS[GIN_RAMI].defaults)
    options["knock_limit"] = rng.choice([0, 1, 5, 10, 10, 10])
    options["big_gin_bonus"] = rng.choice([None, 31])
    options["gin_adds_deadwood"] = rng.choice([True, False])
    return options


def _position(rng: random.Random) -> tuple[list[int], list[int], list[int]]:
    """Two hands of 10, a pile and the rest as the stock; often with ranks held three or four times."""
    deck = list(range(52))
    rng.shuffle(deck)
    if rng.random() < 0.5:
        # put two or three whole ranks at the front: sets in the hands and on their way to them
        ranks = rng.sample(range(13), rng.choice([2, 3]))
        front = [s * 13 + r for r in ranks for s in range(4)]
        deck = front + [c for c in deck if c not in front]
        head = deck[:20]
        rng.shuffle(head)
        deck[:20] = head
    hands = [cards.mask(deck[:10]), cards.mask(deck[10:20])]
    n_pile = rng.randrange(0, 6)
    pile = deck[20:20 + n_pile]
    stock = deck[20 + n_pile:]
    if rng.random() < 0.1:
        stock = stock[:rng.randrange(0, 6)]  # near the wall, or empty
    return hands, pile, stock


def _rank_held_thrice(hand: int) -> bool:
    held = cards.cards_of(hand)
    return any(sum(1 for c in held if c % 13 == r) >= 3 for r in range(13))


def test_the_c_playout_gives_the_pure_python_points_on_every_kind_of_position():
    assert BUILT, "the C playout is not built in this install"
    rng = random.Random(20261204)
    compared = errors = sets = 0
    for _ in range(4000):
        hands, pile, stock = _position(rng)
        options = _options(rng)
        to_move = rng.randrange(2)
        first = rng.choice([None, None, "stock", "pile"])
        turns = rng.choice([1, 2, 5, 60, 60])
        sets += any(_rank_held_thrice(h) for h in hands)
        try:
            expected = rollout.finish_hand_in_python(list(hands), list(pile), list(stock), to_move, options, first, turns)
        except IndexError:
            expected = IndexError
        before = (list(hands), list(pile), list(stock))
        try:
            got = rollout.finish_hand(hands, pile, stock, to_move, options, first, turns)
        except IndexError:
            got = IndexError
        assert got == expected, (hands, pile, stock, to_move, first, turns, options)
        assert (hands, pile, stock) == before, "finish_hand changed a list it was given"
        compared += 1
        errors += expected is IndexError
    assert compared == 4000 and errors > 20 and sets > 1000


def test_the_c_playout_refuses_what_is_not_a_position():
    assert BUILT, "the C playout is not built in this install"
    options = dict(VARIANTS[GIN_RAMI].defaults)
    with pytest.raises(ValueError):
        rollout.finish_hand([1 << 52, 0], [], [1, 2, 3], 0, options)
    with pytest.raises(ValueError):
        rollout.finish_hand([0, 0], [52], [1, 2, 3], 0, options)
    with pytest.raises(TypeError):
        rollout.finish_hand([0, 0], (1,), [1, 2, 3], 0, options)
    with pytest.raises(TypeError):
        rollout.finish_hand([0, 0], ["7H"], [1, 2, 3], 0, options)
