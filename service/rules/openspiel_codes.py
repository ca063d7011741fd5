"""OpenSpiel's ``gin_rummy`` actions in ginbox's card codes (docs: OPENSPIEL.md).

OpenSpiel numbers a card ``suit * 13 + rank``, its suits in the order spades, clubs, diamonds,
hearts, and its ranks ace to king.
Actions 0 to 51 are cards: the deal's chance outcomes, a card drawn from the stock (chance), a
discard, a lay-off.
52 takes the upcard, 53 draws from the stock, 54 passes, 55 knocks, 56 to 240 lay one meld.
A meld is one of 185 ids: 65 sets, then 120 runs of three to five cards.
This module holds the numbering, the lay-off rule OpenSpiel plays and its score of a hand.
"""

from __future__ import annotations

from itertools import combinations

from .cards import RANKS

#: OpenSpiel's order of the suits; ginbox writes a card's suit as an upper-case letter
OPENSPIEL_SUITS = "SCDH"

DRAW_UPCARD = 52
DRAW_STOCK = 53
PASS = 54
KNOCK = 55
MELD_BASE = 56
NUM_MELDS = 185
#: the stock OpenSpiel's wall leaves (a discard that leaves two cards in it)
WALL_STOCK = 2
#: OpenSpiel ends a hand drawn at the 50th draw of a discard (the first upcard not counted)
MAX_DISCARD_DRAWS = 50
#: OpenSpiel's own game parameters, and their defaults
PARAMETER_DEFAULTS = {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25, "oklahoma": False}
#: OpenSpiel refuses a knock card above ten
MAX_KNOCK_CARD = 10


def to_int(code: str) -> int:
    """OpenSpiel's number of the card ``code`` ("TD")."""
    return OPENSPIEL_SUITS.index(code[1]) * 13 + RANKS.index(code[0])


def to_code(card: int) -> str:
    """The ginbox code of OpenSpiel's card ``card`` (0 to 51)."""
    return RANKS[card % 13] + OPENSPIEL_SUITS[card // 13]


def value(card: int) -> int:
    """A card's points: ace 1, number cards their number, faces 10."""
    return min(card % 13 + 1, 10)


def _is_set(cards: list[int]) -> bool:
    return len(cards) in (3, 4) and len({c % 13 for c in cards}) == 1 and len(set(cards)) == len(cards)


def _is_run(cards: list[int]) -> bool:
    s = sorted(cards)
    return (3 <= len(s) <= 5 and len({c // 13 for c in s}) == 1
            and all(b == a + 1 for a, b in zip(s, s[1:])))


def meld_id(cards: list[int]) -> int:
    """OpenSpiel's id (0 to 184) of a set, or of a run of three to five cards; ValueError otherwise."""
    if _is_set(cards):
        rank = cards[0] % 13
        if len(cards) == 4:
            return rank * 5 + 4
        missing = ({0, 1, 2, 3} - {c // 13 for c in cards}).pop()
        return rank * 5 + missing
    if _is_run(cards):
        low = min(cards)
        suit, rank = low // 13, low % 13
        offset = {3: (65, 11), 4: (65 + 44, 10), 5: (65 + 44 + 40, 9)}[len(cards)]
        return offset[0] + suit * offset[1] + rank
    raise ValueError(f"{' '.join(to_code(c) for c in cards)} is no meld OpenSpiel lays")


def _build_melds() -> dict[int, tuple[int, ...]]:
    melds: dict[int, tuple[int, ...]] = {}
    for rank in range(13):
        suits = [s * 13 + rank for s in range(4)]
        for combo in list(combinations(suits, 3)) + [tuple(suits)]:
            melds[meld_id(list(combo))] = combo
    for size in (3, 4, 5):
        for suit in range(4):
            for low in range(13 - size + 1):
                run = tuple(suit * 13 + low + i for i in range(size))
                melds[meld_id(list(run))] = run
    return melds


#: meld id -> its cards (OpenSpiel's numbers, low first)
MELDS: dict[int, tuple[int, ...]] = _build_melds()
assert sorted(MELDS) == list(range(NUM_MELDS))


def split_meld(codes) -> list[list[int]]:
    """A ginbox meld as OpenSpiel lays it: a run longer than five cards in pieces of three to five."""
    cards = sorted(to_int(c) for c in codes)
    sizes = {6: (3, 3), 7: (4, 3), 8: (4, 4), 9: (5, 4), 10: (5, 5)}.get(len(cards), (len(cards),))
    out, at = [], 0
    for size in sizes:
        out.append(cards[at:at + size])
        at += size
    return out


def join_runs(melds: list[list[int]]) -> list[list[int]]:
    """Melds laid in OpenSpiel as ginbox writes them: runs of one suit that continue each other joined."""
    sets = [sorted(m) for m in melds if _is_set(m)]
    runs = sorted(sorted(m) for m in melds if not _is_set(m))
    joined: list[list[int]] = []
    for run in runs:
        if joined and joined[-1][-1] + 1 == run[0] and joined[-1][-1] // 13 == run[0] // 13:
            joined[-1] = joined[-1] + run
        else:
            joined.append(run)
    return sets + joined


def layoffs_allowed(melds: list[list[int]], previous: list[int]) -> set[int]:
    """The cards OpenSpiel lets a defender lay off on the knocker's ``melds`` after ``previous``.

    A set of three takes its fourth card.
    A run takes the card at either end; a card laid off next to it is counted as part of it, once
    (OpenSpiel's AllLayoffs), so at most two cards go on at one end.
    """
    out: set[int] = set()
    for meld in melds:
        if _is_set(meld):
            if len(meld) == 3:
                out |= {s * 13 + meld[0] % 13 for s in range(4)} - set(meld)
            continue
        ends = _run_ends(meld)
        extended = list(meld) + [c for c in previous if c in ends]
        out |= _run_ends(extended)
    return out


def _run_ends(run: list[int]) -> set[int]:
    low, high = min(run), max(run)
    return ({low - 1} if low % 13 > 0 else set()) | ({high + 1} if high % 13 < 12 else set())


def order_layoffs(melds: list[list[int]], cards: list[int]) -> list[int] | None:
    """``cards`` in an order OpenSpiel accepts as lay-offs one by one on ``melds``; None if none does.

    A card allowed stays allowed once more are laid off, so taking any allowed card next never
    shuts out an order that works.
    """
    left, done = sorted(cards), []
    while left:
        allowed = layoffs_allowed(melds, done)
        card = next((c for c in left if c in allowed), None)
        if card is None:
            return None
        left.remove(card)
        done.append(card)
    return done


def partition_melds(cards: list[int]) -> list[list[int]] | None:
    """``cards`` split wholly into melds OpenSpiel lays (sets, runs of three to five); None if they cannot be."""
    if not cards:
        return []
    first = min(cards)
    rest = set(cards) - {first}
    for meld in MELDS.values():
        if first in meld and set(meld) - {first} <= rest:
            tail = partition_melds(sorted(rest - set(meld)))
            if tail is not None:
                return [list(meld)] + tail
    return None


def defender_actions(knocker_melds: list[list[int]], laid_off: list[int], own_melds: list[list[int]],
                     hand: list[int], deadwood: list[int], gin: bool) -> list[int]:
    """The defender's actions after a knock: lay-offs, a pass, melds, a pass (against gin, melds and a pass).

    The server's lay-offs and melds come first.
    When OpenSpiel's lay-off rule refuses them, another split of the same cards into lay-offs and
    melds leaves the same deadwood: the one ``hand`` less ``deadwood`` cards.
    """
    melds = [m for own in own_melds for m in split_meld_ints(own)]
    order = [] if gin else order_layoffs(knocker_melds, laid_off)
    if order is None:
        order, melds = _other_split(knocker_melds, sorted(set(hand) - set(deadwood)))
    out = [] if gin else order + [PASS]
    return out + [MELD_BASE + meld_id(m) for m in melds] + [PASS]


def split_meld_ints(cards: list[int]) -> list[list[int]]:
    return split_meld([to_code(c) for c in cards])


def _other_split(knocker_melds: list[list[int]], cards: list[int]) -> tuple[list[int], list[list[int]]]:
    for size in range(len(cards), -1, -1):
        for laid in combinations(cards, size):
            order = order_layoffs(knocker_melds, list(laid))
            if order is None:
                continue
            melds = partition_melds(sorted(set(cards) - set(laid)))
            if melds is not None:
                return order, melds
    raise ValueError("no lay-offs and melds leave the defender's deadwood")  # the rules make one: never


def returns(knocker: int, knocker_deadwood: int, defender_deadwood: int, params: dict) -> list[int]:
    """OpenSpiel's returns of a knocked hand, for its players 0 and 1 (``knocker`` is one of them).

    The knocker gets the defender's deadwood less their own, plus the gin bonus at no deadwood;
    a knocker who would get less than nothing loses the undercut bonus on top.
    A tie scores nothing.
    """
    points = defender_deadwood - knocker_deadwood
    if knocker_deadwood == 0:
        points += params["gin_bonus"]
    if points < 0:
        points -= params["undercut_bonus"]
    out = [0, 0]
    out[knocker], out[1 - knocker] = points, -points
    return out
