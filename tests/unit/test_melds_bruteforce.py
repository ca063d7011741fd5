"""melds.py against an independent exhaustive search (RULES.md §1 "Melds", "Laying off").

The search below shares nothing with melds.py but the card numbering of cards.py: it
enumerates every list of separate melds by recursion over the lowest card not yet
placed (that card is either deadwood or the lowest card of a meld), and it checks a
lay-off by asking whether the knocker's meld plus the laid-off cards is still a meld.
Hands are drawn with a fixed seed, many of them from a narrow band of ranks so that
sets, runs, sets crossing runs and lay-offs are common.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations

import pytest

from service.rules import cards, layoffs, melds

N_HANDS = 10_000
SEED = 20_240_611


# --------------------------------------------------------------------------- the independent search


def _valid_meld(cs) -> bool:
    """A set (3-4 cards of one rank) or a run (3+ consecutive ranks of one suit, ace low)."""
    cs = sorted(cs)
    if len(cs) < 3 or len(set(cs)) != len(cs):
        return False
    if len(cs) <= 4 and len({c % 13 for c in cs}) == 1:
        return True
    if len({c // 13 for c in cs}) != 1:
        return False
    ranks = [c % 13 for c in cs]
    return all(ranks[i + 1] == ranks[i] + 1 for i in range(len(ranks) - 1))


def _melds_from_lowest(low: int, held: frozenset) -> list[tuple[int, ...]]:
    """Every meld of ``held`` whose lowest card is ``low`` (all other held cards are higher)."""
    out = []
    same_rank = [c for c in held if c != low and c % 13 == low % 13]
    for k in (2, 3):
        for others in combinations(sorted(same_rank), k):
            out.append((low, *others))
    run = [low]
    while run[-1] % 13 != 12 and run[-1] + 1 in held:
        run.append(run[-1] + 1)
        if len(run) >= 3:
            out.append(tuple(run))
    return out


@lru_cache(maxsize=400_000)
def brute_deadwood(held: frozenset) -> int:
    """Least deadwood by trying every arrangement."""
    if not held:
        return 0
    low = min(held)
    best = cards.VALUE[low] + brute_deadwood(held - {low})
    for meld in _melds_from_lowest(low, held):
        best = min(best, brute_deadwood(held - set(meld)))
    return best


def brute_after_discard(held: frozenset) -> int:
    return min(brute_deadwood(held - {c}) for c in held)


def all_arrangements(held: frozenset):
    """Every (melds, deadwood cards) of a hand."""
    if not held:
        yield [], []
        return
    low = min(held)
    for melds_, dead in all_arrangements(held - {low}):
        yield melds_, [low] + dead
    for meld in _melds_from_lowest(low, held):
        for melds_, dead in all_arrangements(held - set(meld)):
            yield [meld] + melds_, dead


def brute_canonical(held: frozenset):
    """The least arrangement under best_arrangement's documented order."""
    best = None
    for melds_, dead in all_arrangements(held):
        ms = tuple(sorted(tuple(sorted(m)) for m in melds_))
        key = (sum(cards.VALUE[c] for c in dead), len(dead), len(ms), ms)
        if best is None or key < best[0]:
            best = (key, ms, tuple(sorted(dead)))
    return best


def brute_layoff_deadwood(defender: frozenset, knocker_melds) -> int:
    """Least deadwood over every lay-off assignment (extended melds must stay melds)."""
    defender_cards = sorted(defender)
    targets = []
    for c in defender_cards:
        # a card can only join a meld sharing its rank with every card, or its suit
        targets.append(
            [j for j, m in enumerate(knocker_melds) if all(x % 13 == c % 13 for x in m) or all(x // 13 == c // 13 for x in m)]
        )
    best = brute_deadwood(defender)
    extra = [[] for _ in knocker_melds]

    def walk(i: int, kept: list[int]) -> None:
        nonlocal best
        if i == len(defender_cards):
            if all(not extra[j] or _valid_meld(list(knocker_melds[j]) + extra[j]) for j in range(len(knocker_melds))):
                best = min(best, brute_deadwood(frozenset(kept)))
            return
        c = defender_cards[i]
        walk(i + 1, kept + [c])
        for j in targets[i]:
            extra[j].append(c)
            walk(i + 1, kept)
            extra[j].pop()

    walk(0, [])
    return best


# --------------------------------------------------------------------------- hands


def _draw(rng: random.Random, n: int, exclude=frozenset()) -> list[int]:
    """n cards: uniform, or from a band of 4-7 ranks, or from two suits (long runs)."""
    mode = rng.randrange(4)
    if mode == 0:
        pool = [c for c in range(52) if c not in exclude]
    elif mode == 3:
        suits = rng.sample(range(4), 2)
        pool = [c for c in range(52) if c // 13 in suits and c not in exclude]
    else:
        width = rng.randint(4, 7)
        first = rng.randint(0, 13 - width)
        pool = [c for c in range(52) if first <= c % 13 < first + width and c not in exclude]
    if len(pool) < n:
        pool += rng.sample([c for c in range(52) if c not in exclude and c not in pool], n - len(pool))
    return rng.sample(pool, n)


# --------------------------------------------------------------------------- tests


@pytest.mark.slow
def test_deadwood_matches_exhaustive_search_on_ten_card_hands():
    """RULES.md §1 "Melds": deadwood is the least over every arrangement."""
    rng = random.Random(SEED)
    for _ in range(N_HANDS):
        hand = _draw(rng, 10)
        expected = brute_deadwood(frozenset(hand))
        assert melds.deadwood(hand) == expected, cards.codes_of(cards.mask(hand))
        assert melds.deadwood_mask(cards.mask(hand)) == expected
        # card codes, as a list or a tuple, take the one-pass fast path: set hands included
        codes = [cards.code(c) for c in hand]
        assert melds.deadwood(codes) == melds.deadwood(tuple(codes)) == expected, codes


@pytest.mark.slow
def test_deadwood_after_discard_matches_exhaustive_search_on_eleven_card_hands():
    """RULES.md §1 "Knocking": the deadwood after the best discard from eleven cards."""
    rng = random.Random(SEED + 1)
    for _ in range(N_HANDS):
        hand = _draw(rng, 11)
        expected = brute_after_discard(frozenset(hand))
        assert melds.deadwood_after_discard(hand) == expected, cards.codes_of(cards.mask(hand))
        codes = [cards.code(c) for c in hand]
        assert melds.deadwood_after_discard(codes) == melds.deadwood_after_discard(tuple(codes)) == expected, codes


def test_knock_discards_list_every_discard_within_the_limit():
    """RULES.md §1 "Knocking": each discard is listed with its deadwood when within the limit."""
    rng = random.Random(SEED + 2)
    for _ in range(2_000):
        hand = _draw(rng, 11)
        limit = rng.choice([0, 5, 10, 25])
        expected = []
        for c in sorted(hand):
            dw = brute_deadwood(frozenset(hand) - {c})
            if dw <= limit:
                expected.append((c, dw))
        assert melds.knock_discards(hand, limit) == expected


@pytest.mark.slow
def test_best_arrangement_is_the_least_under_the_documented_order():
    """RULES.md §1 "Melds": the canonical arrangement is the least by (deadwood, cards, melds, order)."""
    rng = random.Random(SEED + 3)
    for _ in range(N_HANDS):
        hand = _draw(rng, rng.choice([10, 11]))
        key, ms, dead = brute_canonical(frozenset(hand))
        got = melds.best_arrangement(hand)
        assert (got.melds, got.deadwood_cards, got.deadwood) == (ms, dead, key[0]), cards.codes_of(cards.mask(hand))


@pytest.mark.slow
def test_resolve_layoffs_matches_exhaustive_search():
    """RULES.md §1 "Laying off": own melds plus lay-offs, chained, leave the least deadwood."""
    rng = random.Random(SEED + 4)
    laid_some = 0
    for _ in range(N_HANDS):
        knocker = _draw(rng, 10)
        knocker_melds = [list(m) for m in melds.best_arrangement(knocker).melds]
        defender = _draw(rng, 10, exclude=frozenset(knocker))
        result = layoffs.resolve_layoffs(cards.mask(defender), knocker_melds)
        expected = brute_layoff_deadwood(frozenset(defender), knocker_melds)
        where = (cards.codes_of(cards.mask(defender)), knocker_melds)
        assert result.deadwood == expected, where

        # the result is itself a legal lay-down of exactly the defender's cards
        laid = [c for c, _ in result.layoffs]
        own = [c for m in result.melds for c in m]
        assert sorted(laid + own + list(result.deadwood_cards)) == sorted(defender), where
        assert all(_valid_meld(m) for m in result.melds), where
        for j, meld in enumerate(knocker_melds):
            added = [c for c, k in result.layoffs if k == j]
            assert not added or _valid_meld(meld + added), where
        assert sum(cards.VALUE[c] for c in result.deadwood_cards) == result.deadwood
        laid_some += bool(laid)
    # the generator must actually exercise lay-offs, or the comparison proves little
    assert laid_some > N_HANDS // 10
