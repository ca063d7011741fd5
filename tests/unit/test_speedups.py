"""The optional C speed-up (service/rules/_speedups.c) against the pure-Python paths.

``codes_mask`` must give exactly the pure-Python mask of a list or tuple of distinct codes and
None for anything else, so that cards.mask, melds.deadwood and melds.deadwood_after_discard give
the same results and the same CardError messages with and without it. The path is chosen by
setting the module globals ``cards._codes_mask`` and ``melds._codes_mask`` (None: pure Python).
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.rules import cards as C
from service.rules import melds as M

try:
    from service.rules._speedups import codes_mask
except ImportError:
    codes_mask = None

needs_extension = pytest.mark.skipif(codes_mask is None, reason="the C speed-up is not built in this install")


def test_the_extension_is_built_where_a_c_compiler_is_present():
    """``pip install -e '.[test]'`` (CI's install) builds the extension whenever a C compiler is on
    PATH and Python's headers are installed; pyproject.toml marks it optional, so a broken build would
    otherwise pass unnoticed. Without either (``cc`` or ``gcc``; ``Python.h``, which a system
    Python may leave to a separate -dev package) the test checks the other half: the rules engine
    chose its pure-Python path, which the rest of this file holds to the same results."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    found = importlib.util.find_spec("service.rules._speedups") is not None
    if compiler and headers.is_file():
        assert found, (f"a C compiler ({compiler}) and {headers} are present "
                       "but service.rules._speedups was not built")
        assert C._codes_mask is codes_mask is not None
        assert M._codes_mask is codes_mask
    else:
        assert C._codes_mask is None and M._codes_mask is None


@pytest.fixture(params=["C speed-up", "pure Python"])
def path(request, monkeypatch):
    """Run a test on each path the codes can take (the C one only where it is built)."""
    if request.param == "pure Python":
        monkeypatch.setattr(C, "_codes_mask", None)
        monkeypatch.setattr(M, "_codes_mask", None)
    elif codes_mask is None:
        pytest.skip("the C speed-up is not built in this install")
    return request.param


@needs_extension
def test_codes_mask_agrees_with_the_checked_mask_on_random_hands():
    rng = random.Random(20261201)
    for n in range(53):
        for _ in range(40):
            hand = [C.DECK[i] for i in rng.sample(range(52), n)]
            expected = C._checked_mask(hand)
            # independently: the sum of the powers of two of the card indexes
            assert expected == sum(1 << (13 * "CDHS".index(c[1]) + "A23456789TJQK".index(c[0])) for c in hand)
            assert codes_mask(hand) == expected
            assert codes_mask(tuple(hand)) == expected
    assert codes_mask(list(C.DECK)) == C.FULL_MASK
    assert codes_mask([]) == codes_mask(()) == 0
    assert [codes_mask([code]) for code in C.DECK] == [1 << i for i in range(52)]


class _Str(str):
    """A str subclass: equal to and hashed as its text, yet not an exact str."""

    def __repr__(self) -> str:
        return f"_Str({str.__repr__(self)})"


def _stable_id(given) -> str:
    """A test id that is the same in every collection (an iterator's repr holds its address,
    and the test runner's workers must all collect the same ids)."""
    return type(given).__name__ if isinstance(given, Iterator) else repr(given)


@needs_extension
@pytest.mark.parametrize("given", [
    True, 7, "AH", None, 1.5,
    [True], [False, "AC"], [0], [0, 1, 2], ["AC", 1],
    ["ah"], ["Ah"], ["aH"], ["10H"], ["7"], [""], ["7HX"], ["XX"], ["1C"], ["0S"], ["7h"], ["HA"],
    ["7\u0048\u0301"], ["7\u00c8"], ["\u0398H"], ["7H\x00"], ["7\x00"],  # non-ASCII and embedded NUL
    ["AS", "AS"], ["7H", "2C", "7H"], ("TD", "TD"),
    {"AC"}, {"AC": 1}, iter(["AC"]), (c for c in ["AC"]), frozenset(["AC"]),
    [_Str("AC")], _Str("AC"), [b"AC"], [["AC"]], [("A", "C")],
], ids=_stable_id)
def test_codes_mask_answers_none_for_anything_but_distinct_codes(given):
    assert codes_mask(given) is None


@needs_extension
def test_codes_mask_refuses_subclasses_of_list_and_tuple():
    class L(list):
        pass

    class T(tuple):
        pass

    assert codes_mask(L(["AC"])) is None
    assert codes_mask(T(["AC"])) is None
    assert C.mask(L(["AC"])) == C.mask(T(["AC"])) == 1


def test_both_paths_give_the_same_masks_and_deadwood(path):
    rng = random.Random(52)
    for n in range(53):
        idx = rng.sample(range(52), n)
        hand = [C.code(i) for i in idx]
        assert C.mask(hand) == C.mask(tuple(hand)) == C.mask(idx) == C.mask(iter(hand)) == C._checked_mask(idx)
    # deadwood on hands of a game's sizes (a many-card hand with many sets has exponentially many set choices)
    for n in (0, 1, 2, 3, 9, 10, 11):
        for _ in range(200):
            idx = rng.sample(range(52), n)
            hand = [C.code(i) for i in idx]
            m = C._checked_mask(idx)
            for given in (hand, tuple(hand), idx):
                assert C.mask(given) == m
                assert M.deadwood(given) == M.deadwood_mask(m)
            assert C.mask(iter(hand)) == m and M.deadwood(iter(hand)) == M.deadwood_mask(m)
            if n:
                assert M.deadwood_after_discard(hand) == M.deadwood_after_discard(tuple(hand)) \
                    == M.deadwood_after_discard(idx) == M.deadwood_after_discard_mask(m)


def test_a_hand_with_sets_by_hand(path):
    # 7C 7D 7H 7S, 8S 9S TS: the set of three 7C 7D 7H plus the run 7S..TS melds all seven;
    # AC 2D 3H are left, 1 + 2 + 3 = 6. With KC too, discarding it leaves the same 6.
    hand = ["7C", "7D", "7H", "7S", "8S", "9S", "TS", "AC", "2D", "3H"]
    assert M.deadwood(hand) == M.deadwood(tuple(hand)) == 6
    assert M.deadwood_after_discard(hand + ["KC"]) == 6


def _error(fn, given) -> str:
    with pytest.raises(C.CardError) as caught:
        fn(given)
    return str(caught.value)


BAD = [["AS", "AS"], ["7H", "2C", "7H"], [0, 0], [0, "AC"], ["AS", "XX"], ["ah"], ["10H"], ["7"], [""],
       ["7HX"], [52], [-1], [True], [False, 1], [None], [1.5], [_Str("AS"), "AS"]]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_the_same_card_errors_on_both_paths(bad, monkeypatch):
    """Every refusal names the same fault whether the codes went through C first or not."""
    fns = (C.mask, M.deadwood, M.deadwood_after_discard)
    messages = {}
    for label in ("C speed-up", "pure Python"):
        if label == "pure Python":
            monkeypatch.setattr(C, "_codes_mask", None)
            monkeypatch.setattr(M, "_codes_mask", None)
        messages[label] = [_error(fn, given) for fn in fns for given in (bad, tuple(bad))]
    assert messages["C speed-up"] == messages["pure Python"]
    # and the message is the checking loop's own (worked out here from its first fault)
    assert messages["pure Python"][0] == _error(C._checked_mask, bad)


def test_named_messages(path):
    assert _error(M.deadwood, ["7H", "2C", "7H"]) == "7H appears twice"
    assert _error(C.mask, ("AS", "10H")) == (
        "'10H' is not a card code (rank A23456789TJQK then suit CDHS, e.g. 'TD')")
    assert _error(M.deadwood_after_discard, [True]) == (
        "True is not a card code (rank A23456789TJQK then suit CDHS, e.g. 'TD')")


def test_an_empty_hand_has_no_discard_on_both_paths(path):
    for given in ([], ()):
        assert C.mask(given) == 0 and M.deadwood(given) == 0
        with pytest.raises(ValueError, match="empty hand"):
            M.deadwood_after_discard(given)
