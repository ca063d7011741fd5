"""Independent brute-force card maths for the API tests (RULES.md §1 "Melds", "Laying off").

Written apart from the engine on purpose: the tests use it to check that their hand-made
decks deal the hands they claim, and the random-play clients use it to pick discards.
Cards are codes ("TD"); ace is low and never high.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

RANKS = "A23456789TJQK"


def rank(card: str) -> int:
    """0 (ace) .. 12 (king)."""
    return RANKS.index(card[0])


def value(card: str) -> int:
    """Ace 1, 2-10 face value, J Q K 10."""
    return min(rank(card) + 1, 10)


def is_set(cards) -> bool:
    cards = list(cards)
    return 3 <= len(cards) <= 4 and len({c[0] for c in cards}) == 1 and len(set(cards)) == len(cards)


def is_run(cards) -> bool:
    cards = list(cards)
    if len(cards) < 3 or len({c[1] for c in cards}) != 1:
        return False
    ranks = sorted(rank(c) for c in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def is_meld(cards) -> bool:
    return is_set(cards) or is_run(cards)


def all_melds(cards) -> list[frozenset]:
    """Every set or run (any size) made of some of these cards."""
    cards = sorted(set(cards))
    melds = []
    for size in range(3, len(cards) + 1):
        for combo in combinations(cards, size):
            if is_meld(combo):
                melds.append(frozenset(combo))
    return melds


def min_deadwood(cards) -> int:
    """Least deadwood over every arrangement of disjoint melds (exhaustive search)."""
    cards = frozenset(cards)
    melds = tuple(all_melds(cards))
    return _least_deadwood(cards, melds)


@lru_cache(maxsize=100_000)
def _least_deadwood(cards: frozenset, melds: tuple) -> int:
    best = sum(value(c) for c in cards)
    for i, meld in enumerate(melds):
        if meld <= cards:
            rest = cards - meld
            best = min(best, _least_deadwood(rest, tuple(later for later in melds[i + 1:] if later <= rest)))
    return best


def min_deadwood_after_discard(cards) -> tuple[int, list[str]]:
    """(least deadwood after discarding one card, the discards that reach it) for 11 cards."""
    cards = list(cards)
    after = {discard: min_deadwood([c for c in cards if c != discard]) for discard in cards}
    low = min(after.values())
    return low, sorted(discard for discard, deadwood in after.items() if deadwood == low)


def _extends(meld: frozenset, extra: frozenset) -> bool:
    """True if meld + extra is still one meld of the same kind (a set stays a set, a run a run)."""
    if not extra:
        return True
    whole = meld | extra
    if is_set(meld):
        return is_set(whole)
    return is_run(whole)


def defender_deadwood(defender, knocker_melds) -> int:
    """Defender's least deadwood: own melds first, then lay-offs onto the knocker's melds.

    Brute force over which cards are laid off and onto which meld; a run may grow at both
    ends and through a chain of laid-off cards (RULES.md §1 "Laying off").
    """
    defender = list(defender)
    melds = [frozenset(m) for m in knocker_melds]
    best = min_deadwood(defender)
    for size in range(1, len(defender) + 1):
        for laid in combinations(defender, size):
            if _can_lay_off(laid, melds):
                rest = [c for c in defender if c not in laid]
                best = min(best, min_deadwood(rest))
    return best


def _can_lay_off(laid, melds) -> bool:
    """Can every card of ``laid`` go onto the knocker's melds at once?"""
    def assign(i: int, extras: list[frozenset]) -> bool:
        if i == len(laid):
            return all(_extends(meld, extra) for meld, extra in zip(melds, extras))
        card = laid[i]
        for j, meld in enumerate(melds):
            grown = extras[j] | {card}
            # prune: a set takes only its rank; a run only its suit
            if is_set(meld) and card[0] != next(iter(meld))[0]:
                continue
            if is_run(meld) and card[1] != next(iter(meld))[1]:
                continue
            if assign(i + 1, extras[:j] + [frozenset(grown)] + extras[j + 1:]):
                return True
        return False

    return assign(0, [frozenset() for _ in melds])
