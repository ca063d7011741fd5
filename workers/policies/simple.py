"""The reference player ``simple``: the AAAI/EAAI gin rummy challenge's SimpleGinRummyPlayer (RULES.md §5).

It takes the face-up card only when some meld of its hand plus that card holds it, discards at random
among the cards whose removal leaves the least deadwood (never the card just taken from the pile, never
repeating a (drawn, discarded) pair of the hand), and knocks as soon as it can, laying out a
least-deadwood arrangement chosen at random. Every random choice comes from the seat's generator.
"""

from __future__ import annotations

import random
from itertools import combinations

from service.rules import cards
from service.rules.commands import DRAW_DISCARD, DRAW_STOCK, PASS_UPCARD, TAKE_UPCARD, Command, Discard, Knock
from service.rules.melds import deadwood_mask

from .knowledge import Knowledge, bit, read


def melds_with(hand: int, card: int) -> bool:
    """Some set or run of the cards of ``hand`` plus ``card`` contains ``card``."""
    rank, suit = card % 13, card // 13
    same_rank = sum(1 for s in range(4) if s != suit and hand >> (13 * s + rank) & 1)
    if same_rank >= 2:
        return True

    def held(r: int) -> bool:
        return 0 <= r < 13 and bool(hand >> (13 * suit + r) & 1)

    return (held(rank - 2) and held(rank - 1)) or (held(rank - 1) and held(rank + 1)) \
        or (held(rank + 1) and held(rank + 2))


def all_melds(hand: int) -> list[tuple[int, ...]]:
    """Every meld within ``hand``: each set of three or four of a rank, each run of three or more."""
    melds: list[tuple[int, ...]] = []
    for rank in range(13):
        held = [13 * s + rank for s in range(4) if hand >> (13 * s + rank) & 1]
        for size in (3, 4):
            melds += combinations(held, size)
    for suit in range(4):
        for start in range(13):
            end = start
            while end < 13 and hand >> (13 * suit + end) & 1:
                end += 1
                if end - start >= 3:
                    melds.append(tuple(13 * suit + r for r in range(start, end)))
    return melds


def best_meld_sets(hand: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every arrangement of separate melds of ``hand`` leaving its least deadwood, in a canonical order.

    A long run split in two and a set of four given up for three count as arrangements of their own,
    as in the challenge's ``cardsToBestMeldSets``.
    """
    melds = [(m, sum(bit(c) for c in m)) for m in sorted(all_melds(hand))]
    least = deadwood_mask(hand)
    found: list[tuple[tuple[int, ...], ...]] = []

    def grow(start: int, used: int, chosen: list) -> None:
        if _value(hand & ~used) == least:
            found.append(tuple(sorted(chosen)))
            return
        for i in range(start, len(melds)):
            meld, mask = melds[i]
            if not used & mask:
                chosen.append(meld)
                grow(i + 1, used | mask, chosen)
                chosen.pop()

    grow(0, 0, [])
    return sorted(set(found))


def _value(mask: int) -> int:
    return sum(cards.VALUE[c] for c in cards.cards_of(mask))


def hand_pairs(seat: int, events: list[dict] | None) -> tuple[int, set[tuple[int, int]]]:
    """The card ``seat`` drew last in the hand in play (-1 if none is known) and its (drawn, discarded)
    pairs of the hand, from the seat's own events."""
    start = 0
    for i, e in enumerate(events or ()):
        if e.get("type") == "hand_dealt":
            start = i
    drawn, pairs = -1, set()
    for e in (events or ())[start:]:
        d = e.get("data") or {}
        if d.get("seat") != seat:
            continue
        t = e.get("type")
        if t in ("upcard_taken", "card_drawn"):
            drawn = cards.INDEX_OF[d["card"]] if d.get("card") else -1
        elif t == "card_discarded" and d.get("card"):
            pairs.add((drawn, cards.INDEX_OF[d["card"]]))
    return drawn, pairs


def discard_choices(k: Knowledge, drawn: int, pairs: set[tuple[int, int]]) -> tuple[list[int], int]:
    """The cards ``simple`` may discard (the least deadwood left among the allowed), and that deadwood.

    Allowed: the legal discards (never the card just taken from the pile) that would not repeat a
    (drawn, discarded) pair of the hand; if every legal discard would, all of them.
    """
    legal = sorted(cards.INDEX_OF[m.card] for m in k.moves if isinstance(m, Discard))
    allowed = [c for c in legal if (drawn, c) not in pairs] or legal
    left = {c: deadwood_mask(k.hand & ~bit(c)) for c in allowed}
    least = min(left.values())
    return [c for c in allowed if left[c] == least], least


def simple_move(k: Knowledge, rng: random.Random, events: list[dict] | None = None) -> Command:
    """The reference player's move for a Knowledge and the seat's events of the hand."""
    types = k.move_types()
    if "take_upcard" in types:
        return TAKE_UPCARD if melds_with(k.hand, k.top) else PASS_UPCARD
    if "draw_stock" in types or "draw_discard" in types:
        if "draw_discard" in types and k.top >= 0 and melds_with(k.hand, k.top):
            return DRAW_DISCARD
        return DRAW_STOCK
    if not any(isinstance(m, Discard) for m in k.moves):
        raise ValueError("no legal move to choose from")
    drawn, pairs = hand_pairs(k.seat, events)
    if k.taken >= 0:
        drawn = k.taken
    choices, least = discard_choices(k, drawn, pairs)
    card = choices[rng.randrange(len(choices))]
    code = cards.code(card)
    if least <= k.knock_limit and Knock(code, None) in k.moves:
        arrangements = best_meld_sets(k.hand & ~bit(card))
        melds = arrangements[rng.randrange(len(arrangements))]
        return Knock(code, [[cards.code(c) for c in meld] for meld in melds])
    return Discard(code)


class SimplePolicy:
    """The challenge's SimpleGinRummyPlayer: melds-only draws, random least-deadwood discards, first knock."""

    name = "simple"

    def choose(self, view: dict, rng: random.Random, events: list[dict] | None = None) -> Command:
        return simple_move(read(view), rng, events)
