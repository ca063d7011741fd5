"""Laying off (RULES.md §1 "Laying off"): the defender's own melds, then lay-offs onto the
knocker's melds -- the fourth card of a set of three, and cards extending a run at either end,
each laid-off card extending the run for the next. Pure card maths over ``melds``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import cards as _cards
from .melds import MeldError, meld_kind, best_arrangement_mask, deadwood_mask

__all__ = ["Layoff", "defender_deadwood_mask", "in_laying_order", "layoff_options", "resolve_layoffs"]


@dataclass(frozen=True)
class Layoff:
    """The defender's own melds, lay-offs ``(card, knocker meld index)`` and deadwood left."""

    melds: tuple[tuple[int, ...], ...]
    layoffs: tuple[tuple[int, int], ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int


def layoff_options(defender: int, meld: Sequence[int]) -> list[int]:
    """Masks of defender cards that can be laid off together onto one knocker meld (card indexes,
    ascending), chained run extensions included; 0 (nothing laid off) comes first."""
    m = 0
    for card in meld:
        m |= 1 << card
    kind = meld_kind(m, len(meld))
    if kind is None:
        raise MeldError("invalid_meld", f"{_cards.codes_of(m)} is neither a set nor a run")
    if kind == "set":
        if len(meld) == 4:
            return [0]  # five of a rank do not exist
        rank = meld[0] % 13
        fourth = sum(1 << (13 * s + rank) for s in range(4)) & ~m
        return [0, fourth] if defender & fourth else [0]
    # a run: k cards below it and j above, each chain unbroken from the run's end
    low, high = meld[0], meld[-1]
    lows = [0]
    card = low - 1
    while card % 13 != 12 and card >= 0 and defender >> card & 1:
        lows.append(lows[-1] | 1 << card)
        card -= 1
    highs = [0]
    card = high + 1
    while card % 13 != 0 and defender >> card & 1:
        highs.append(highs[-1] | 1 << card)
        card += 1
    return [lo | hi for lo in lows for hi in highs]


def resolve_layoffs(defender_mask: int, knocker_melds: Sequence[Sequence[int | str]]) -> Layoff:
    """The defender's own melds and lay-offs that leave the least deadwood (RULES.md §1 "Laying off").

    Own melds are the canonical best_arrangement of the cards kept.
    Meld indexes refer to ``knocker_melds`` as given.
    The lay-offs are listed in an order they can be laid one at a time (see _laying_order).
    """
    melds = [tuple(sorted(_cards.to_index(c) for c in meld)) for meld in knocker_melds]
    for meld in melds:
        for card in meld:
            if defender_mask >> card & 1:
                raise ValueError(f"{_cards.code(card)} is in both the defender's hand and a knocker meld")
    # Lay-offs go onto the knocker's melds: the fourth card of a set of three, and cards extending a run
    # at either end, each laid-off card extending the run for the next.
    options = [layoff_options(defender_mask, meld) for meld in melds]

    # every assignment of disjoint lay-off options, one per knocker meld
    found: dict[int, tuple[int, ...]] = {}  # laid-off mask -> meld index per card, card order

    def walk(j: int, used: int, per_meld: list[int]) -> None:
        if j == len(melds):
            owners = tuple(
                k for card in _cards.cards_of(used) for k, part in enumerate(per_meld) if part >> card & 1
            )
            # each card (lowest first) goes to the lowest meld index
            if used not in found or owners < found[used]:
                found[used] = owners
            return
        for opt in options[j]:
            if not opt & used:
                per_meld.append(opt)
                walk(j + 1, used | opt, per_meld)
                per_meld.pop()

    walk(0, 0, [])

    # Among the choices leaving the least deadwood, the one taken lays off the fewest cards (own melds come first).
    # Then it is the lowest sorted tuple of laid-off cards.
    best_key = None
    best_laid = 0
    for laid in found:
        cards_laid = tuple(_cards.cards_of(laid))
        key = (deadwood_mask(defender_mask & ~laid), len(cards_laid), cards_laid)
        if best_key is None or key < best_key:
            best_key, best_laid = key, laid
    kept = best_arrangement_mask(defender_mask & ~best_laid)
    layoffs = tuple(sorted(zip(_cards.cards_of(best_laid), found[best_laid]),
                           key=lambda laid: _laying_order(laid, melds)))
    return Layoff(kept.melds, layoffs, kept.deadwood_cards, kept.deadwood)


def _laying_order(laid: tuple[int, int], melds: Sequence[Sequence[int]]) -> tuple[int, int, int]:
    """Where a lay-off ``(card, meld index)`` comes in the order laid: meld by meld, and on a run
    the cards below it from the nearest down, then those above it from the nearest up, so that
    each card, laid in turn, extends the run as it then stands (3S before 2S onto 4S 5S 6S)."""
    card, k = laid
    meld = melds[k]
    if card < meld[0]:
        return k, 0, meld[0] - card
    return k, 1, card - meld[-1]


def in_laying_order(layoffs: Sequence[Sequence], knocker_melds: Sequence[Sequence[str]]) -> list[list]:
    """``layoffs`` (pairs ``[card code, knocker meld index]``) in the order laid (_laying_order): a
    log from a server that listed them card by card gives its results the order of a log today."""
    melds = [sorted(_cards.to_index(c) for c in meld) for meld in knocker_melds]
    return sorted(([card, k] for card, k in layoffs),
                  key=lambda laid: _laying_order((_cards.to_index(laid[0]), laid[1]), melds))


def defender_deadwood_mask(defender_mask: int, knocker_melds: Sequence[Sequence[int]]) -> int:
    """The defender's least deadwood after own melds and lay-offs onto the knocker's melds (card
    indexes, ascending): resolve_layoffs(...).deadwood without choosing which lay-offs to show."""
    laid_choices = [0]
    for meld in knocker_melds:
        options = layoff_options(defender_mask, meld)
        if len(options) > 1:
            laid_choices = [laid | opt for laid in laid_choices for opt in options if not laid & opt]
    return min(deadwood_mask(defender_mask & ~laid) for laid in laid_choices)
