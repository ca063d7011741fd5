"""Play the rest of a gin hand fast, on card masks, for the expert's Monte Carlo search.

A determinization fixes what the searching seat cannot see (the opponent's hand, the order of
the stock); ``finish_hand`` then plays both sides to the end of the hand with the basic habits
(take a pile card only when it joins a meld and lowers the deadwood, throw the highest useless
card, knock at the first chance) and returns the points from the searching seat's side:
positive when it scores, negative when the opponent does, 0 for a drawn hand. The rules are
those of RULES.md §1 (drawn hand when a discard leaves two cards in the stock; the card just
taken from the pile may not be thrown; lay-offs onto the knocker's melds) and the scoring of the
game's options (gin bonus, big gin where allowed, undercut bonus).
"""

from __future__ import annotations

from service.rules import cards as C
from service.rules import melds as M

from .cardmath import defender_deadwood

_VALUE = C.VALUE
dw = M.deadwood_mask
dwad = M.deadwood_after_discard_mask
# discard order of the basic habit: highest value first, then highest rank, then lowest index
_THROW_ORDER = sorted(range(52), key=lambda c: (-_VALUE[c], -(c % 13), c))


def takes(hand: int, card: int) -> bool:
    """The basic habit: take ``card`` only if it joins a meld and the deadwood then drops."""
    now = dw(hand)
    with_card = hand | 1 << card
    if dw(with_card) >= now + _VALUE[card]:
        return False
    # discarding ``card`` again leaves ``now``: a lower minimum is reached by another discard
    return dwad(with_card) < now


def throw(hand: int, taken: int) -> tuple[int, int]:
    """(card, deadwood after) of the basic discard from 11 cards, never the card just taken."""
    best = dwad(hand)
    for c in _THROW_ORDER:
        if hand >> c & 1 and c != taken:
            left = dw(hand & ~(1 << c))
            if left == best:
                return c, left
    # only the taken card reaches the minimum: the best other discard
    out = None
    for c in _THROW_ORDER:
        if hand >> c & 1 and c != taken:
            left = dw(hand & ~(1 << c))
            if out is None or left < out[1]:
                out = (c, left)
    return out


def _meld_masks(hand10: int) -> list[int]:
    out = []
    for meld in M.best_arrangement_mask(hand10).melds:
        m = 0
        for c in meld:
            m |= 1 << c
        out.append(m)
    return out


def knock_points(knocker10: int, k: int, defender: int, options: dict, big_gin: bool = False) -> int:
    """Points to the knocker (negative: to the defender), the knocker laying out canonical melds."""
    if big_gin or k == 0:
        d = dw(defender)
        bonus = options.get("big_gin_bonus") if big_gin else options.get("gin_bonus", 20)
        return (bonus or 0) + (d if options.get("gin_adds_deadwood") else 0)
    d = defender_deadwood(defender, _meld_masks(knocker10))
    if k < d:
        return d - k
    return -(options.get("undercut_bonus", 10) + k - d)


def finish_hand(hands: list[int], pile: list[int], stock: list[int], to_move: int, options: dict,
                first_draw: str | None = None, max_turns: int = 60) -> int:
    """Play on from the draw of ``to_move`` (0: the searching seat, 1: the opponent); seat 0's points.

    ``pile`` is the discard pile (top last), ``stock`` the stock (top last); both are consumed.
    ``first_draw`` ("pile" or "stock") forces the first draw instead of the basic habit.
    """
    limit = options.get("knock_limit", 10)
    big_gin = options.get("big_gin_bonus") is not None
    p = to_move
    for turn in range(max_turns):
        h = hands[p]
        taken = -1
        if turn == 0 and first_draw is not None:
            take = first_draw == "pile"
        else:
            take = bool(pile) and takes(h, pile[-1])
        if take:
            taken = pile.pop()
            h |= 1 << taken
        else:
            h |= 1 << stock.pop()
        if big_gin and dw(h) == 0:
            pts = knock_points(0, 0, hands[1 - p], options, big_gin=True)
            return pts if p == 0 else -pts
        card, left = throw(h, taken)
        h &= ~(1 << card)
        if left <= limit:
            pts = knock_points(h, left, hands[1 - p], options)
            return pts if p == 0 else -pts
        hands[p] = h
        pile.append(card)
        if len(stock) <= 2:
            return 0
        p = 1 - p
    return 0
