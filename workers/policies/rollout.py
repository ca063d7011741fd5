"""Play the rest of a gin hand fast, on card masks, for the expert's Monte Carlo search.

``finish_hand`` plays one determinization to the end of the hand, both sides with the basic habits.
It returns the searching seat's points: negative when the opponent scores, 0 for a drawn hand.
The rules are RULES.md §1's, scored with the game's options.
"""

# A determinization fixes what the searching seat cannot see: the opponent's hand, the order of the stock.
# The points are positive when the searching seat scores.

from __future__ import annotations

from service.rules.cards import VALUE
from service.rules.melds import (
    best_arrangement_mask,
    deadwood_after_discard_mask,
    deadwood_mask,
)
from service.rules.layoffs import defender_deadwood_mask

try:  # the same playout in C (_rollout.c), built where a compiler was found at install
    from ._rollout import finish as _finish_in_c
except ImportError:  # pure Python: the same points, some 20 times slower
    _finish_in_c = None

#: finish_hand's first draw as the C playout takes it
_FIRST_DRAW = {None: -1, "stock": 0, "pile": 1}

# discard order of the basic habit: highest value first, then highest rank, then lowest index
_THROW_ORDER = sorted(range(52), key=lambda c: (-VALUE[c], -(c % 13), c))


def takes(hand: int, card: int) -> bool:
    """The basic habit: take ``card`` only if it joins a meld and the deadwood then drops."""
    now = deadwood_mask(hand)
    with_card = hand | 1 << card
    if deadwood_mask(with_card) >= now + VALUE[card]:
        return False
    # discarding ``card`` again leaves ``now``: a lower minimum is reached by another discard
    return deadwood_after_discard_mask(with_card) < now


def throw(hand: int, taken: int) -> tuple[int, int]:
    """(card, deadwood after) of the basic discard from 11 cards, never the card just taken."""
    best = deadwood_after_discard_mask(hand)
    for c in _THROW_ORDER:
        if hand >> c & 1 and c != taken:
            left = deadwood_mask(hand & ~(1 << c))
            if left == best:
                return c, left
    # only the taken card reaches the minimum: the best other discard
    out = None
    for c in _THROW_ORDER:
        if hand >> c & 1 and c != taken:
            left = deadwood_mask(hand & ~(1 << c))
            if out is None or left < out[1]:
                out = (c, left)
    return out


def hand_points(outcome: str, knocker_deadwood: int, defender_deadwood: int, options: dict) -> int:
    """Points to the knocker (negative: to the defender) of a hand ended by ``outcome`` ("knock",
    "gin" or "big_gin"), scored as RULES.md §2 and §3 say with the game's options; the defender's
    deadwood is after lay-offs for a knock, before them for gin."""
    if outcome != "knock":
        bonus = options["gin_bonus"] if outcome == "gin" else options["big_gin_bonus"]
        return bonus + (defender_deadwood if options["gin_adds_deadwood"] else 0)
    if knocker_deadwood < defender_deadwood:
        return defender_deadwood - knocker_deadwood
    return -(options["undercut_bonus"] + knocker_deadwood - defender_deadwood)


def knock_points(knocker10: int, knocker_deadwood: int, defender: int, options: dict, big_gin: bool = False) -> int:
    """Points to the knocker (negative: to the defender), the knocker laying out canonical melds."""
    if big_gin or knocker_deadwood == 0:
        return hand_points("big_gin" if big_gin else "gin", knocker_deadwood, deadwood_mask(defender), options)
    knocker_melds = best_arrangement_mask(knocker10).melds
    return hand_points("knock", knocker_deadwood, defender_deadwood_mask(defender, knocker_melds), options)


def finish_hand(hands: list[int], pile: list[int], stock: list[int], to_move: int, options: dict,
                first_draw: str | None = None, max_turns: int = 60) -> int:
    """Play on from the draw of ``to_move`` (0: the searching seat, 1: the opponent); seat 0's points.

    ``pile`` is the discard pile (top last), ``stock`` the stock (top last); neither list is changed.
    ``first_draw`` ("pile" or "stock") forces the first draw instead of the basic habit.
    A draw from an empty pile or stock raises IndexError.
    """
    if _finish_in_c is None:
        return finish_hand_in_python(list(hands), list(pile), list(stock), to_move, options, first_draw, max_turns)
    end = _finish_in_c(hands[0], hands[1], pile, stock, to_move, _FIRST_DRAW[first_draw],
                       options["knock_limit"], options["big_gin_bonus"] is not None, max_turns)
    if end is None:
        return 0
    seat, knocker, deadwood, other, big_gin = end
    pts = knock_points(knocker, deadwood, other, options, big_gin=big_gin)
    return pts if seat == 0 else -pts


def finish_hand_in_python(hands: list[int], pile: list[int], stock: list[int], to_move: int, options: dict,
                          first_draw: str | None = None, max_turns: int = 60) -> int:
    """finish_hand without the C playout (the lists are consumed): the reference it is tested against."""
    # The basic habits: take a pile card only when it joins a meld and lowers the deadwood,
    # throw the highest useless card, knock at the first chance.
    # The rules of RULES.md §1: drawn hand when a discard leaves two cards in the stock;
    # the card just taken from the pile may not be thrown; lay-offs onto the knocker's melds.
    # The scoring of the game's options: gin bonus, big gin where allowed, undercut bonus.
    limit = options["knock_limit"]
    big_gin = options["big_gin_bonus"] is not None
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
        if big_gin and deadwood_mask(h) == 0:
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
