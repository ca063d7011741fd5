"""An estimate of the opponent's hand: a probability for every card, from what the seat has seen.

A card seen elsewhere has probability 0; one the opponent took from the pile and still holds, 1.
The other unseen cards share the opponent's unknown cards by weight (:class:`EstimatorParams`).
The probabilities add up to the number of unknown cards, none above 1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from service.rules import cards
from service.rules.melds import deadwood_mask

from .knowledge import Knowledge

_VALUE = cards.VALUE

@dataclass(frozen=True)
class EstimatorParams:
    """Likelihood factors of the evidence (fitted by tests/bench/bench_bots.py runs)."""

    discard_set: float = 0.35    # same rank as a card it threw
    discard_run1: float = 0.45   # next to it in the suit
    discard_run2: float = 0.75   # two ranks away in the suit
    decline_set: float = 0.55    # same rank as a pile card it left
    decline_run1: float = 0.6
    decline_run2: float = 0.85
    take_set: float = 2.5        # same rank as a pile card it took
    take_run1: float = 2.5
    take_run2: float = 1.5


def _neighbours() -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """For every card: (the other three of its rank, its suit neighbours one rank away, two away)."""
    out = []
    for c in range(52):
        r, s = c % 13, c // 13
        same_rank = tuple(t * 13 + r for t in range(4) if t != s)
        run1 = tuple(s * 13 + x for x in (r - 1, r + 1) if 0 <= x < 13)
        run2 = tuple(s * 13 + x for x in (r - 2, r + 2) if 0 <= x < 13)
        out.append((same_rank, run1, run2))
    return out


NEIGHBOURS = _neighbours()


def _run_pairs() -> list[tuple[tuple[int, int], ...]]:
    """For every card: the pairs of suit cards that make a three-card run with it."""
    out = []
    for c in range(52):
        r, s = c % 13, c // 13
        pairs = []
        for a, b in ((r - 2, r - 1), (r - 1, r + 1), (r + 1, r + 2)):
            if 0 <= a < 13 and 0 <= b < 13:
                pairs.append((s * 13 + a, s * 13 + b))
        out.append(tuple(pairs))
    return out


RUN_PAIRS = _run_pairs()


class OpponentModel:
    """Card probabilities of the opponent's hand (see the module docstring)."""

    def __init__(self, k: Knowledge, params: EstimatorParams | None = None):
        params = params or EstimatorParams()
        # seen elsewhere: its own hand, the discard pile, the cards the opponent threw
        self.known = k.opp_known
        self.unseen = k.unseen
        self.unknown = max(0, min(k.opp_size - bin(k.opp_known).count("1"), bin(self.unseen).count("1")))
        # Each unseen card's weight starts at 1.
        # For every piece of evidence, it is multiplied by a factor (EstimatorParams)
        # when the card would have made a meld with the evidence card.
        w = [0.0] * 52
        for c in cards.cards_of(self.unseen):
            w[c] = 1.0

        def apply(evidence, f_set, f_run1, f_run2):
            for e, _turn in evidence:
                same_rank, run1, run2 = NEIGHBOURS[e]
                for c in same_rank:
                    w[c] *= f_set
                for c in run1:
                    w[c] *= f_run1
                for c in run2:
                    w[c] *= f_run2

        p = params
        # what the opponent took and still holds makes its neighbours likely; a card it took and
        # threw again says the opposite (the throw counts as well)
        # The opponent threw e: a card of its rank, or next to it in its suit, is less likely held;
        # two ranks away, a little less.
        # A player keeps the cards that go with the ones it holds.
        apply(k.opp_discards, p.discard_set, p.discard_run1, p.discard_run2)
        # The opponent saw e on top of the pile and left it there (passed the upcard or drew from the stock):
        # the same, a little weaker.
        # It may have held one card that went with it.
        apply(k.opp_declines, p.decline_set, p.decline_run1, p.decline_run2)
        # the opponent took e from the pile: the cards that meld with it are more likely held
        apply([t for t in k.opp_takes if k.opp_known >> t[0] & 1], p.take_set, p.take_run1, p.take_run2)
        if not k.opp_takes:
            # without the events, the known cards still came from the pile
            apply([(c, 0) for c in cards.cards_of(k.opp_known)], p.take_set, p.take_run1, p.take_run2)
        self.weights = w
        # the probabilities are the weights scaled so that they add up to the number of unknown cards
        self.p = self._scale(w)

    def _scale(self, w: list[float]) -> list[float]:
        """Probabilities proportional to ``w`` over the unseen cards, adding up to ``unknown``, none above 1."""
        p = [0.0] * 52
        for c in cards.cards_of(self.known):
            p[c] = 1.0
        free = [c for c in cards.cards_of(self.unseen) if w[c] > 0]
        need = float(self.unknown)
        while free and need > 0:
            total = sum(w[c] for c in free)
            capped = [c for c in free if need * w[c] / total >= 1.0]
            if not capped:
                for c in free:
                    p[c] = need * w[c] / total
                break
            for c in capped:
                p[c] = 1.0
            need -= len(capped)
            free = [c for c in free if c not in set(capped)]
        return p

    # ---- what the probabilities say
    # They serve three ends: drawing the opponent's hand for a search (sample, weighted without
    # replacement), the chance that the opponent melds a card the seat would throw (meld_chance),
    # and the chance that a card still lies in the stock (stock_chance, 1 - p).
    def stock_chance(self, c: int) -> float:
        """Chance that an unseen card is in the stock (not in the opponent's hand)."""
        return 1.0 - self.p[c] if self.unseen >> c & 1 else 0.0

    def meld_chance(self, c: int) -> float:
        """Chance that the opponent holds two cards that make a meld with ``c`` (so it would take it)."""
        p = self.p
        a, b, d = NEIGHBOURS[c][0]
        pa, pb, pd = p[a], p[b], p[d]
        p_set = pa * pb + pa * pd + pb * pd - 2 * pa * pb * pd
        miss = 1.0
        for x, y in RUN_PAIRS[c]:
            miss *= 1.0 - p[x] * p[y]
        return 1.0 - (1.0 - p_set) * miss

    def sample(self, rng: random.Random, age: int = 0) -> int:
        """One opponent hand: the known cards and ``unknown`` unseen ones, drawn by weight without replacement.

        ``age`` turns of hand building follow (:meth:`age_hand`).
        """
        # Weighted sampling without replacement by exponential keys (Efraimidis and Spirakis):
        # each card gets u ** (1 / w), and the largest keys win.
        w = self.weights
        rand = rng.random
        keyed = [(rand() ** (1.0 / w[c]), c) for c in cards.cards_of(self.unseen) if w[c] > 0]
        keyed.sort(reverse=True)
        h = self.known
        for _, c in keyed[: self.unknown]:
            h |= 1 << c
        # a player that has drawn and thrown for a while holds melds and low cards, not ten cards at random
        if age and len(keyed) > self.unknown:
            h = self.age_hand(h, [c for _, c in keyed], age, rng)
        return h

    def age_hand(self, h: int, by_weight: list[int], turns: int, rng: random.Random) -> int:
        """``turns`` draws of a card the hand lacks (weighted), each followed by the throw that
        leaves the least deadwood (never a card the opponent is known to hold).

        The cards drawn and thrown stay among the unseen ones, so the hand is still one the
        seat cannot rule out; it only looks like a hand somebody built.
        """
        known = self.known
        w = self.weights
        pool = by_weight
        total = sum(w[c] for c in pool)
        rand = rng.random
        for _ in range(turns):
            # a card the hand lacks, by weight (a few tries; then give up this turn)
            x = -1
            for _try in range(4):
                r = rand() * total
                for c in pool:
                    r -= w[c]
                    if r <= 0:
                        break
                if not h >> c & 1:
                    x = c
                    break
            if x < 0:
                continue
            h11 = h | 1 << x
            best = None
            for c in cards.cards_of(h11 & ~known):
                left = deadwood_mask(h11 & ~(1 << c))
                key = (left, -_VALUE[c])
                if best is None or key < best[0]:
                    best = (key, c)
            h = h11 & ~(1 << best[1])
        return h
