"""Card codes, values and the 52-card deck (RULES.md §1 "Cards").

Inside the engine a card is an int 0..51: ``suit * 13 + rank_index``.
Suits run CDHS, ranks A23456789TJQK (ace low, rank_index 0).
A hand is a 52-bit mask holding bit ``card`` for each card held.
On the wire a card is its code, rank then suit: ``"AS"``, ``"TD"``, ``"QH"``.
"""

from __future__ import annotations

from typing import Iterable

try:  # the optional C speed-up (pyproject.toml declares it; built where a C compiler is found)
    from ._speedups import codes_mask as _codes_mask
except ImportError:  # pure Python: the same results, some 350 ns more per ten codes
    _codes_mask = None

RANKS = "A23456789TJQK"
SUITS = "CDHS"

#: a card code as a regular expression (openapi.yaml's Card.pattern); it matches the codes of DECK
CARD_PATTERN = r"^[A2-9TJQK][CDHS]$"

#: every code, in card-index order (all clubs, then diamonds, hearts, spades)
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
#: the card index of every code (DECK[index] is the code of a card index)
INDEX_OF: dict[str, int] = {code: i for i, code in enumerate(DECK)}

#: value of each card index: ace 1, 2..10 face value, J Q K 10
VALUE: tuple[int, ...] = tuple(min(i % 13 + 1, 10) for i in range(52))

#: the mask bit of every code (codes only: a bool must not pass for the index 0 or 1)
BIT_OF: dict[str, int] = {code: 1 << i for i, code in enumerate(DECK)}
#: the mask bit of every card index
_BIT_OF_INDEX: dict[int, int] = {i: 1 << i for i in range(52)}
_bit_of_code = BIT_OF.__getitem__
_bit_of_index = _BIT_OF_INDEX.__getitem__

FULL_MASK = (1 << 52) - 1


class CardError(ValueError):
    """A string that is not a card code."""


def index(code: str) -> int:
    """The card index of a code such as ``"TD"``; raises CardError."""
    try:
        return INDEX_OF[code]
    except (KeyError, TypeError):
        raise CardError(f"{code!r} is not a card code (rank A23456789TJQK then suit CDHS, e.g. 'TD')") from None


def code(card: int) -> str:
    """The code of a card index."""
    return DECK[card]


def rank(card: int) -> int:
    """Rank index 0 (ace) .. 12 (king)."""
    return card % 13


def suit(card: int) -> int:
    """Suit index 0 (clubs) .. 3 (spades)."""
    return card // 13


def value(card: int) -> int:
    """Deadwood value of a card index."""
    return VALUE[card]


def to_index(card: int | str) -> int:
    """Accept a card index or a code."""
    if isinstance(card, int) and not isinstance(card, bool):
        if 0 <= card < 52:
            return card
        raise CardError(f"{card!r} is not a card index (0..51)")
    return index(card)


def mask(cards: Iterable[int | str]) -> int:
    """The mask of some cards (indexes or codes); raises CardError on a duplicate."""
    # A list or tuple of distinct codes goes first to the compiled codes_mask when it is built (_speedups.c).
    # That answers None for anything else.
    if _codes_mask is not None:
        m = _codes_mask(cards)
        if m is not None:
            return m
    # Without it, or after a None, a list or tuple of codes (or of indexes) is summed in one pass at C speed.
    # Distinct powers of two add without a carry.
    # So the sum has as many bits as there are cards exactly when no card repeats.
    if type(cards) is list or type(cards) is tuple:
        try:
            m = sum(map(_bit_of_code, cards))
        except (KeyError, TypeError):
            try:
                m = sum(map(_bit_of_index, cards))
            except (KeyError, TypeError):
                m = -1
            else:
                if bool in map(type, cards):
                    m = -1  # True and False hash as 1 and 0 but are not card indexes
        if m >= 0 and m.bit_count() == len(cards):
            return m
    # Anything else (a mix, a bad card, a duplicate) takes the checking loop, which names the fault.
    return _checked_mask(cards)


def _checked_mask(cards: Iterable[int | str]) -> int:
    m = 0
    for c in cards:
        i = to_index(c)
        bit = 1 << i
        if m & bit:
            raise CardError(f"{DECK[i]} appears twice")
        m |= bit
    return m


def cards_of(m: int) -> list[int]:
    """Card indexes of a mask, in index order."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def codes_of(m: int) -> list[str]:
    """Card codes of a mask, in index order."""
    return [DECK[i] for i in cards_of(m)]


def sort_codes(codes: Iterable[str]) -> list[str]:
    """Codes in the engine's canonical order (suit, then rank)."""
    return sorted(codes, key=index)
