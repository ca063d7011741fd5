"""Sets, runs and least deadwood: pure card maths (lay-offs build on it in ``layoffs``).

It implements RULES.md §1 "Cards" (ace low only), "Melds" and "Knocking" (the knock limit and
the knocker's canonical arrangement).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from . import cards as _cards
from .errors import RulesError

__all__ = [
    "DISCARD_DW", "MAX_HAND_CARDS", "MAX_MELDS", "MIN_MELD_CARDS", "RUN_DW",
    "Arrangement", "MeldError",
    "arrangements_mask", "best_arrangement", "best_arrangement_mask", "check_melds", "deadwood",
    "deadwood_after_discard", "deadwood_after_discard_mask", "deadwood_mask",
    "is_meld", "is_run", "is_set", "knock_discards",
]

#: the fewest cards in a meld (a set of three, a run of three)
MIN_MELD_CARDS = 3
#: the most cards a hand holds: ten, and one more between a draw and a discard
MAX_HAND_CARDS = 11
#: the most melds one hand can lay out
MAX_MELDS = MAX_HAND_CARDS // MIN_MELD_CARDS

_SUIT = 0x1FFF  # one 13-bit suit field
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))
#: stands for "no card to discard": larger than any real deadwood (a whole deck counts 340)
_NO_CARD = 10_000


class MeldError(RulesError):
    """Melds a player laid out are not a valid arrangement of their hand.

    ``code`` is one of ``invalid_meld``, ``overlapping_melds``, ``meld_card_not_in_hand``;
    the command is illegal in itself, so ``conflict`` is False.
    """

    def __init__(self, code: str, message: str, card: int | None = None):
        super().__init__(code, message, conflict=False)
        #: the card at fault, where one is (the card of ``meld_card_not_in_hand``)
        self.card = card


@dataclass(frozen=True)
class Arrangement:
    """Melds (each a tuple of card indexes) and the deadwood they leave."""

    melds: tuple[tuple[int, ...], ...]
    deadwood_cards: tuple[int, ...]
    deadwood: int


# --------------------------------------------------------------------------- tables

# How the fast path works.
# A hand is a 52-bit mask laid out suit-major (cards.py), so it splits into four 13-bit suit fields.
# Only two kinds of meld exist.
# Runs live inside one suit field; sets take one rank from three or four fields.
# Two tables over all 8192 suit patterns are built at import.
# RUN_DW[p] is the least deadwood of pattern p using runs only.
# Within one suit the cards that can be melded are exactly those lying in a block of 3+ consecutive ranks.
# Melding all of them is optimal, since every value is positive.
# DISCARD_DW[p] is the least RUN_DW of p after removing one of its cards (_NO_CARD for the empty pattern).


def _run_covered(p: int) -> int:
    """The bits of ``p`` lying in a block of at least 3 consecutive ranks."""
    starts = p & (p >> 1) & (p >> 2)
    return (starts | (starts << 1) | (starts << 2)) & p


def _build_tables() -> tuple[list[int], list[int], list[int]]:
    value = [0] * (1 << 13)  # value[p]: sum of the card values in pattern p
    for p in range(1, 1 << 13):
        low = p & -p
        value[p] = value[p ^ low] + _RANK_VALUE[low.bit_length() - 1]
    run_dw = [value[p & ~_run_covered(p)] for p in range(1 << 13)]
    discard_dw = [_NO_CARD] * (1 << 13)
    for p in range(1, 1 << 13):
        best = _NO_CARD
        q = p
        while q:
            low = q & -q
            q ^= low
            v = run_dw[p ^ low]
            if v < best:
                best = v
        discard_dw[p] = best
    # DISCARD_DW - RUN_DW: what discarding from this suit changes; lets the common case
    # add one min() of four numbers to the plain deadwood sum.
    delta = [discard_dw[p] - run_dw[p] for p in range(1 << 13)]
    return run_dw, discard_dw, delta


RUN_DW, DISCARD_DW, _DISCARD_DELTA = _build_tables()


def _build_set_removals() -> list[list[tuple[int, ...]]]:
    """``[rank][held suits as 4 bits]`` -> the 52-bit masks of every set on that rank."""
    table = []
    for r in range(13):
        row = []
        for held in range(16):
            suits = [s for s in range(4) if held >> s & 1]
            choices: list[int] = []
            if len(suits) >= 3:
                if len(suits) == 4:
                    choices.append(sum(1 << (13 * s + r) for s in suits))
                for skip in (suits if len(suits) == 4 else [None]):
                    choices.append(sum(1 << (13 * s + r) for s in suits if s != skip))
            row.append(tuple(choices))
        table.append(row)
    return table


_SET_REMOVALS = _build_set_removals()


# --------------------------------------------------------------------------- deadwood


def _set_candidates(m: int, t: int) -> list[int]:
    """``m`` minus the cards of every possible choice of sets on the ranks in ``t``."""
    cands = [m]
    while t:
        low = t & -t
        t ^= low
        r = low.bit_length() - 1
        # the held suits of rank r as a 4-bit pattern (bit s = suit s)
        held = (m >> r & 1) | (m >> (r + 12) & 2) | (m >> (r + 24) & 4) | (m >> (r + 36) & 8)
        cands += [x & ~rm for x in cands for rm in _SET_REMOVALS[r][held]]
    return cands


def deadwood_mask(m: int) -> int:
    """Least deadwood of a hand mask."""
    # A set is only possible on a rank held in 3 or 4 suits.
    # When there is none (most hands), the deadwood is four table look-ups.
    a = m & _SUIT
    b = m >> 13 & _SUIT
    c = m >> 26 & _SUIT
    d = m >> 39
    t = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in 3 or 4 suits
    run_dw = RUN_DW
    if not t:
        return run_dw[a] + run_dw[b] + run_dw[c] + run_dw[d]
    return _least_with_sets(m, t)


def _least_with_sets(m: int, t: int) -> int:
    """Least deadwood of hand mask ``m`` whose ranks ``t`` are held three or four times."""
    # Every choice of sets is enumerated.
    # Per such rank: no set, the set of three, or with four held the set of four or each set of three.
    # The set cards are removed and the four look-ups are summed; the least sum wins.
    # Every arrangement is some choice of sets plus runs inside the remaining suit fields.
    # So this minimum is the least deadwood.
    run_dw = RUN_DW
    best = _NO_CARD
    for x in _set_candidates(m, t):
        v = run_dw[x & _SUIT] + run_dw[x >> 13 & _SUIT] + run_dw[x >> 26 & _SUIT] + run_dw[x >> 39]
        if v < best:
            best = v
    return best


def deadwood_after_discard_mask(m: int) -> int:
    """Least deadwood left after discarding the best card of a (non-empty) hand mask."""
    # Why the per-set-choice formula covers everything.
    # Take any discard x and any arrangement of m - x.
    # Its sets are on ranks held 3+ times in m - x, hence in m.
    # Each is the three or four held cards of its rank in m, or a three-subset of four.
    # So it is one of the enumerated set choices, none containing x.
    # Its runs lie within the suit fields left after removing those sets and x.
    # In x's suit their deadwood is at least RUN_DW[field - x] >= DISCARD_DW[field].
    # In the other suits it is at least RUN_DW[field].
    # So the formula is a lower bound.
    # Each of its values is reached by a real discard and arrangement, so it is the minimum.
    if not m:
        raise ValueError("an empty hand has no card to discard")
    a = m & _SUIT
    b = m >> 13 & _SUIT
    c = m >> 26 & _SUIT
    d = m >> 39
    t = (a & b & (c | d)) | (c & d & (a | b))
    run_dw = RUN_DW
    delta = _DISCARD_DELTA
    if not t:
        return run_dw[a] + run_dw[b] + run_dw[c] + run_dw[d] + min(delta[a], delta[b], delta[c], delta[d])
    return _least_after_discard_with_sets(m, t)


def _least_after_discard_with_sets(m: int, t: int) -> int:
    """``deadwood_after_discard_mask`` of ``m`` whose ranks ``t`` are held three or four times."""
    run_dw = RUN_DW
    delta = _DISCARD_DELTA
    best = _NO_CARD
    for x in _set_candidates(m, t):
        a = x & _SUIT
        b = x >> 13 & _SUIT
        c = x >> 26 & _SUIT
        d = x >> 39
        # a choice that melds every card leaves nothing to discard: _NO_CARD keeps it out
        v = run_dw[a] + run_dw[b] + run_dw[c] + run_dw[d] + min(delta[a], delta[b], delta[c], delta[d])
        if v < best:
            best = v
    return best


_bit_of_code = _cards.BIT_OF.__getitem__
#: cards.py's compiled codes-to-mask function, or None where it is not built (held here too, so
#: that the fast paths below read a global of their own)
_codes_mask = _cards._codes_mask


def _on_cards(on_mask: Callable[[int], int]):
    """Decorator: the declared function of some cards (indexes or codes) is ``on_mask`` of their mask.

    What is not a set of cards is refused, as ``cards.mask`` refuses it.
    """

    def decorate(declared: Callable) -> Callable[[Iterable[int | str]], int]:
        def on_cards(cards: Iterable[int | str]) -> int:
            # A list or tuple of distinct codes goes to its mask first through the compiled codes_mask,
            # where it is built (_speedups.c): two table look-ups a code, some 50 ns for ten.
            # Else, or when that answers None, it goes in one C-level sum, as cards.mask does, without the call.
            # That sum's map and duplicate check cost some 350 ns for ten codes, more than half a deadwood_mask call.
            # The mask then goes to on_mask.
            # These steps stand here, not in a function of the cards' mask that this one calls.
            # The call they save keeps the pure Python path within 1.5x of the mask path.
            # Anything else (indexes, another iterable, a repeated or unknown card) goes through cards.mask.
            if _codes_mask is None or (m := _codes_mask(cards)) is None:
                if type(cards) is not list and type(cards) is not tuple:
                    return on_mask(_cards.mask(cards))
                try:
                    m = sum(map(_bit_of_code, cards))
                except (KeyError, TypeError):
                    return on_mask(_cards.mask(cards))
                if m.bit_count() != len(cards):
                    return on_mask(_cards.mask(cards))
            return on_mask(m)

        return functools.update_wrapper(on_cards, declared)

    return decorate


@_on_cards(deadwood_mask)
def deadwood(cards: Iterable[int | str]) -> int:
    """Least deadwood of some cards (indexes or codes); the fast paths of ``_on_cards``."""


@_on_cards(deadwood_after_discard_mask)
def deadwood_after_discard(cards: Iterable[int | str]) -> int:
    """Least deadwood after the best discard from some cards (indexes or codes); the fast paths of ``_on_cards``."""


def knock_discards(cards: Iterable[int | str], knock_limit: int) -> list[tuple[int, int]]:
    """Every ``(discard, deadwood after it)`` leaving at most ``knock_limit``, in card order."""
    m = _cards.mask(cards)
    out = []
    for card in _cards.cards_of(m):
        left = deadwood_mask(m ^ (1 << card))
        if left <= knock_limit:
            out.append((card, left))
    return out


# --------------------------------------------------------------------------- arrangements


def _runs_of_suit(field: int, suit: int) -> list[tuple[int, ...]]:
    """One run per maximal block of 3+ consecutive ranks in a suit field."""
    covered = _run_covered(field)
    runs = []
    r = 0
    while covered >> r:
        if covered >> r & 1:
            start = r
            while covered >> r & 1:
                r += 1
            runs.append(tuple(13 * suit + k for k in range(start, r)))
        else:
            r += 1
    return runs


def _set_choices(m: int) -> list[tuple[int, list[tuple[int, ...]]]]:
    """Every choice of sets in ``m``: (cards left, the sets chosen)."""
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    t = (a & b & (c | d)) | (c & d & (a | b))
    choices: list[tuple[int, list[tuple[int, ...]]]] = [(m, [])]
    while t:
        low = t & -t
        t ^= low
        r = low.bit_length() - 1
        held = (m >> r & 1) | (m >> (r + 12) & 2) | (m >> (r + 24) & 4) | (m >> (r + 36) & 8)
        choices += [
            (rest & ~rm, sets + [tuple(_cards.cards_of(rm))])
            for rest, sets in choices
            for rm in _SET_REMOVALS[r][held]
        ]
    return choices


def _arrangements(m: int):
    """(melds, deadwood cards, deadwood) of every choice of sets plus the maximal runs of the rest:
    set choices in _set_choices order, each with its sets first, then its runs suit by suit."""
    for rest, sets in _set_choices(m):
        melds = list(sets)
        for s in range(4):
            melds += _runs_of_suit(rest >> (13 * s) & _SUIT, s)
        melded = 0
        for meld in melds:
            for card in meld:
                melded |= 1 << card
        dead = tuple(_cards.cards_of(m & ~melded))
        yield melds, dead, sum(_cards.VALUE[card] for card in dead)


def arrangements_mask(m: int) -> list[Arrangement]:
    """Every arrangement of a hand mask made of a choice of sets plus the maximal runs of the cards
    left (the candidates best_arrangement chooses from), melds unsorted: sets by rank, then runs by
    suit. A least-deadwood arrangement is always among them."""
    return [Arrangement(tuple(melds), dead, dead_value) for melds, dead, dead_value in _arrangements(m)]


def best_arrangement_mask(m: int) -> Arrangement:
    """The canonical least-deadwood arrangement of a hand mask (see best_arrangement)."""
    best_key = None
    best: Arrangement | None = None
    for melds, dead, dead_value in _arrangements(m):
        melds.sort()
        # The canonical order, in turn: (1) deadwood value; (2) number of deadwood cards.
        # (3) Number of melds, so a long run or a set of four is kept whole rather than split.
        # (4) The melds compared as a sorted tuple of sorted card-index tuples.
        # A card index is suit * 13 + rank, suits C D H S.
        # So (4) picks the arrangement whose first meld starts at the lowest card.
        key = (dead_value, len(dead), len(melds), melds)
        if best_key is None or key < best_key:
            best_key = key
            best = Arrangement(tuple(melds), dead, dead_value)
    assert best is not None
    return best


def best_arrangement(cards: Iterable[int | str]) -> Arrangement:
    """The least-deadwood arrangement, chosen by a canonical order that depends only on the cards.

    Ties on deadwood value go to the fewest deadwood cards, then the fewest melds, then the
    lowest melds compared as a sorted tuple of sorted card-index tuples.
    Melds are returned in that sorted order, each with its cards ascending.
    """
    return best_arrangement_mask(_cards.mask(cards))


# --------------------------------------------------------------------------- single melds


def meld_kind(m: int, n: int) -> str | None:
    """``"set"``, ``"run"`` or None for a mask ``m`` of ``n`` cards."""
    if n < MIN_MELD_CARDS:
        return None
    low = (m & -m).bit_length() - 1
    suit, rank = divmod(low, 13)
    if n <= 4:
        same_rank = sum(1 << (13 * s + rank) for s in range(4))
        if m & ~same_rank == 0:
            return "set"
    # a run: n consecutive ranks from the lowest card, all in its suit (no wrap past K)
    if rank + n <= 13 and m == ((1 << n) - 1) << low:
        return "run"
    return None


def _strict_mask(cards: Iterable[int | str]) -> tuple[int, int] | None:
    """(mask, count), or None when a card repeats."""
    items = list(cards)
    try:
        m = _cards.mask(items)
    except _cards.CardError:
        # distinguish a repeated card (not a meld) from something that is not a card
        for item in items:
            _cards.to_index(item)
        return None
    return m, len(items)


def is_set(cards: Iterable[int | str]) -> bool:
    """Three or four cards of one rank."""
    got = _strict_mask(cards)
    return got is not None and meld_kind(*got) == "set"


def is_run(cards: Iterable[int | str]) -> bool:
    """Three or more consecutive ranks of one suit, ace low only."""
    got = _strict_mask(cards)
    return got is not None and meld_kind(*got) == "run"


def is_meld(cards: Iterable[int | str]) -> bool:
    """A set or a run."""
    got = _strict_mask(cards)
    return got is not None and meld_kind(*got) is not None


def check_melds(
    hand_mask: int, melds: Sequence[Sequence[int | str]]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]:
    """Validate laid-out melds against a hand: (sorted melds, deadwood cards, deadwood).

    Each meld is checked in the order given: its cards must be card codes or indexes
    (else ``invalid_meld``), held (``meld_card_not_in_hand``), form a set or a run
    (``invalid_meld``) and share no card with an earlier meld (``overlapping_melds``).
    """
    if isinstance(melds, (str, bytes)) or not isinstance(melds, Sequence):
        raise MeldError("invalid_meld", "melds must be a list of lists of cards")
    used = 0
    out = []
    for meld in melds:
        if isinstance(meld, (str, bytes)) or not isinstance(meld, Sequence):
            raise MeldError("invalid_meld", f"a meld must be a list of cards, not {meld!r}")
        indexes = []
        for item in meld:
            try:
                indexes.append(_cards.to_index(item))
            except _cards.CardError as exc:
                raise MeldError("invalid_meld", str(exc)) from None
        shown = [_cards.code(i) for i in indexes]
        for i in indexes:
            if not hand_mask >> i & 1:
                raise MeldError("meld_card_not_in_hand", f"{_cards.code(i)} is not in the hand", card=i)
        m = 0
        for i in indexes:
            if m >> i & 1:
                raise MeldError("invalid_meld", f"{_cards.code(i)} appears twice in the meld {shown}")
            m |= 1 << i
        if meld_kind(m, len(indexes)) is None:
            raise MeldError("invalid_meld", f"{shown} is neither a set nor a run")
        if m & used:
            dup = ", ".join(_cards.codes_of(m & used))
            raise MeldError("overlapping_melds", f"{dup} is in more than one meld")
        used |= m
        out.append(tuple(sorted(indexes)))
    out.sort()
    dead = tuple(_cards.cards_of(hand_mask & ~used))
    return tuple(out), dead, sum(_cards.VALUE[i] for i in dead)
