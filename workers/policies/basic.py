"""The random and basic policies.

random: a uniform choice among the legal moves.
basic: takes the upcard or the discard only when it joins a meld and lowers its deadwood, discards its highest
useless card, and knocks as soon as it may (big gin first, then the knock leaving the least
deadwood).
"""

from __future__ import annotations

import random

from service.rules import cards
from service.rules.commands import DRAW_DISCARD, DRAW_STOCK, PASS_UPCARD, TAKE_UPCARD, Command, Discard, Knock
from service.rules.melds import deadwood_mask

from .knowledge import Knowledge, bit, read


class RandomPolicy:
    """Any legal move, each as likely as the others."""

    name = "random"

    def choose(self, view: dict, rng: random.Random, events: list[dict] | None = None) -> Command:
        k = read(view)
        if not k.moves:
            raise ValueError("no legal move to choose from")
        return k.moves[rng.randrange(len(k.moves))]


def improves(hand: int, card: int) -> bool:
    """``card`` would join a meld and, after the best discard of another card, lower the deadwood.

    Both are needed: swapping a king for a lone six lowers the deadwood without improving any
    meld, and the basic player does not take a card for that.
    """
    with_card = hand | bit(card)
    now = deadwood_mask(hand)
    if deadwood_mask(with_card) >= now + cards.VALUE[card]:
        return False  # the card would lie outside every meld
    best = min(deadwood_mask(with_card & ~bit(c)) for c in cards.cards_of(hand))
    return best < now


def discard_key(hand: int, card: int) -> tuple:
    """Sort key of a discard for the basic policy: least deadwood left, then highest card."""
    return (deadwood_mask(hand & ~bit(card)), -cards.VALUE[card], -(card % 13), card)


def basic_move(k: Knowledge) -> Command:
    """The basic policy's move for a Knowledge."""
    types = k.move_types()
    if "take_upcard" in types:
        return TAKE_UPCARD if improves(k.hand, k.top) else PASS_UPCARD
    if "draw_stock" in types:
        if "draw_discard" in types and k.top >= 0 and improves(k.hand, k.top):
            return DRAW_DISCARD
        return DRAW_STOCK
    knocks = [m for m in k.moves if isinstance(m, Knock)]
    if knocks:
        for m in knocks:
            if m.discard is None:
                return m
        return min(knocks, key=lambda m: discard_key(k.hand, cards.INDEX_OF[m.discard]))
    discards = [m for m in k.moves if isinstance(m, Discard)]
    if not discards:
        raise ValueError("no legal move to choose from")
    return min(discards, key=lambda m: discard_key(k.hand, cards.INDEX_OF[m.card]))


class BasicPolicy:
    """Greedy on deadwood; knocks at the first chance."""

    name = "basic"

    def choose(self, view: dict, rng: random.Random, events: list[dict] | None = None) -> Command:
        return basic_move(read(view))
