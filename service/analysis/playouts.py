"""The value of each candidate move against sampled hidden cards, played out with the basic habits.

A determinization fixes what the deciding seat cannot see: the opponent's hand (drawn from the
expert's opponent model) and the order of the stock (the other unseen cards, shuffled).
Every candidate meets the same determinizations, so their differences carry less noise.
Points are the deciding seat's in the hand: positive when it scores, negative when the opponent does.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

from service.rules import cards
from service.rules.layoffs import defender_deadwood_mask
from service.rules.melds import arrangements_mask, deadwood_mask
from workers.policies.estimator import OpponentModel
from workers.policies.expert_params import ExpertParams
from workers.policies.knowledge import Knowledge
from workers.policies.rollout import finish_hand, hand_points, takes

#: the expert's tuning: its opponent model and how it builds a sampled opponent hand
_PARAMS = ExpertParams(budget_s=None)


@dataclass(frozen=True)
class Situation:
    """A decision as its seat saw it: its knowledge and what the view adds (cards as ints)."""

    k: Knowledge
    passes: int          # upcard passes so far this hand
    turns_left: int      # draws before the turn limit draws the hand
    multiplier: int      # 2 when Oklahoma's spade upcard doubles the hand's points


def determinizations(k: Knowledge, n: int, rng: random.Random) -> list[tuple[int, list[int]]]:
    """``n`` pairs (opponent hand mask, stock top last) consistent with what ``k`` shows."""
    # A sampled hand is built for about half as many turns as the opponent played, as the expert
    # builds it; one that could have knocked after its last discard is mostly drawn again.
    model = OpponentModel(k, _PARAMS.estimator)
    opp_turns = len(k.opp_discards) or k.turn // 2
    age = min(_PARAMS.age_turns, math.ceil(_PARAMS.age_rate * opp_turns))
    keep = _PARAMS.no_knock_weight if k.opp_discards else 1.0
    out = []
    for _ in range(n):
        for _try in range(6):
            opp = model.sample(rng, age)
            if deadwood_mask(opp) > k.knock_limit or rng.random() < keep:
                break
        stock = cards.cards_of(k.unseen & ~opp)
        rng.shuffle(stock)
        out.append((opp, stock))
    return out


def melds_key(melds: Sequence[Sequence[int]]) -> tuple:
    """One arrangement's melds in a canonical order (card indexes ascending)."""
    return tuple(sorted(tuple(sorted(m)) for m in melds))


def least_arrangements(hand10: int) -> list[tuple]:
    """Every distinct least-deadwood arrangement of a 10-card hand, as melds keys, canonical one first."""
    found = arrangements_mask(hand10)
    least = min(a.deadwood for a in found)
    out: list[tuple] = []
    for a in sorted(found, key=lambda a: (len(a.deadwood_cards), len(a.melds), melds_key(a.melds))):
        key = melds_key(a.melds)
        if a.deadwood == least and key not in out:
            out.append(key)
    return out


def knock_value(s: Situation, deadwood: int, melds: tuple, opp: int, big_gin: bool = False) -> int:
    """The knocker's points of a knock laying out ``melds`` with ``deadwood`` against ``opp``."""
    options = s.k.options
    if big_gin:
        return s.multiplier * hand_points("big_gin", 0, deadwood_mask(opp), options)
    if deadwood == 0:
        return s.multiplier * hand_points("gin", 0, deadwood_mask(opp), options)
    return s.multiplier * hand_points("knock", deadwood, defender_deadwood_mask(opp, melds), options)


def play_value(s: Situation, move: tuple, opp: int, stock: list[int]) -> int:
    """The seat's points of a move that does not end the hand, then both seats' basic habits."""
    k = s.k
    kind = move[0]
    hands, pile, stock, to_move, first = [k.hand, opp], list(k.pile_order), list(stock), 0, None
    if kind in ("take", "pile"):
        first = "pile"
    elif kind == "stock":
        first = "stock"
    elif kind == "pass":
        if s.passes == 0 and pile and takes(opp, pile[-1]):
            to_move, first = 1, "pile"   # the dealer takes the upcard it was offered in turn
        else:
            # the dealer passed too and the non-dealer draws, or this seat is the dealer
            to_move, first = (0, "stock") if s.passes == 0 else (1, "stock")
    elif kind == "discard":
        if len(stock) <= 2 or s.turns_left <= 0:
            return 0  # the discard ends the hand as drawn
        hands[0] = k.hand & ~(1 << move[1])
        pile.append(move[1])
        to_move = 1
    else:
        raise ValueError(f"not a move that plays on: {move!r}")
    try:
        pts = finish_hand(hands, pile, stock, to_move, k.options, first_draw=first,
                          max_turns=max(1, s.turns_left))
    except IndexError:
        return 0
    return s.multiplier * pts
