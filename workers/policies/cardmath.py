"""Card maths the expert needs beyond service.rules.melds: every least-deadwood arrangement,
lay-offs onto a given arrangement, and the points of a knock (RULES.md §1 Knocking, Laying off;
§2 and §3 scoring)."""

from __future__ import annotations

from service.rules import cards as C
from service.rules import melds as M

_VALUE = C.VALUE
_SUIT = 0x1FFF
dw = M.deadwood_mask


def _run_blocks(field: int, suit: int) -> list[int]:
    """Masks (52-bit) of each maximal block of 3+ consecutive ranks in a suit field."""
    out = []
    r = 0
    while field >> r:
        if field >> r & 7 == 7:
            start = r
            while field >> r & 1:
                r += 1
            out.append(((1 << (r - start)) - 1) << (13 * suit + start))
        else:
            r += 1
    return out


def arrangements(m: int) -> list[tuple[list[int], int]]:
    """Every (melds as masks, deadwood) made of a choice of sets plus maximal runs of the rest."""
    a, b, c, d = m & _SUIT, m >> 13 & _SUIT, m >> 26 & _SUIT, m >> 39
    t = (a & b & (c | d)) | (c & d & (a | b))
    choices: list[tuple[int, list[int]]] = [(m, [])]
    while t:
        low = t & -t
        t ^= low
        r = low.bit_length() - 1
        suits = [s for s in range(4) if m >> (13 * s + r) & 1]
        sets = []
        if len(suits) == 4:
            sets.append(sum(1 << (13 * s + r) for s in suits))
            for skip in suits:
                sets.append(sum(1 << (13 * s + r) for s in suits if s != skip))
        else:
            sets.append(sum(1 << (13 * s + r) for s in suits))
        choices += [(rest & ~st, ms + [st]) for rest, ms in choices for st in sets if rest & st == st]
    out = []
    for rest, ms in choices:
        melds = list(ms)
        left = rest
        for s in range(4):
            for blk in _run_blocks(rest >> (13 * s) & _SUIT, s):
                melds.append(blk)
                left &= ~blk
        out.append((melds, sum(_VALUE[x] for x in C.cards_of(left))))
    return out


def layoff_options(defender: int, meld: int) -> list[int]:
    """Masks of defender cards that can go onto one knocker meld together (chains included)."""
    cs = C.cards_of(meld)
    if len({x % 13 for x in cs}) == 1:  # a set
        if len(cs) == 4:
            return [0]
        r = cs[0] % 13
        fourth = sum(1 << (13 * s + r) for s in range(4)) & ~meld
        return [0, fourth] if defender & fourth else [0]
    lo, hi = cs[0], cs[-1]
    lows, highs = [0], [0]
    x = lo - 1
    while x >= 0 and x % 13 != 12 and defender >> x & 1:
        lows.append(lows[-1] | 1 << x)
        x -= 1
    x = hi + 1
    while x % 13 != 0 and defender >> x & 1:
        highs.append(highs[-1] | 1 << x)
        x += 1
    return [p | q for p in lows for q in highs]


def defender_deadwood(defender: int, melds: list[int]) -> int:
    """The defender's least deadwood after its own melds and lay-offs onto ``melds``."""
    combos = [0]
    for meld in melds:
        opts = layoff_options(defender, meld)
        if len(opts) > 1:
            combos = [u | o for u in combos for o in opts if not u & o]
    return min(dw(defender & ~u) for u in combos)


def hand_points(k: int, d: int, gin: bool, options: dict) -> int:
    """Points to the knocker (negative: to the defender) for knocker deadwood k, defender d."""
    if gin:
        return options.get("gin_bonus", 20) + (d if options.get("gin_adds_deadwood") else 0)
    if k < d:
        return d - k
    return -(options.get("undercut_bonus", 10) + k - d)


def melds_codes(melds: list[int]) -> list[list[str]]:
    return [C.codes_of(m) for m in melds]
