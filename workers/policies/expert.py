"""The expert policy: an estimate of the opponent's hand, hand values one draw deep, a knock rule
that weighs playing on, and a short Monte Carlo search for the close calls.

It knows only the seat's view and events (knowledge.py).
This module chooses the move and words its reason.
The tuning is in expert_params.py, one move's evaluation in expert_search.py.
"""

from __future__ import annotations

import math
import random
import time

from service.rules import cards
from service.rules.commands import (
    DrawDiscard,
    DrawStock,
    PassUpcard,
    TakeUpcard,
    Command,
    Discard,
    Knock,
)
from service.rules.melds import deadwood_mask

from .expert_params import ExpertParams
from .expert_search import _Search, knock_loss, play_on_value
from .knowledge import Knowledge, bit, read

#: the names read from this module: the policy, its tuning, and the evaluation's parts that the
#: knock tests work by hand or replace
__all__ = ["ExpertParams", "ExpertPolicy", "_Search", "knock_loss", "play_on_value"]


def _fresh(command: Command, reason: str) -> Command:
    """A new instance of ``command`` that carries ``reason`` (words for the advisor)."""
    if isinstance(command, Discard):
        out = Discard(command.card)
    elif isinstance(command, Knock):
        out = Knock(command.discard, command.melds)
    else:
        out = type(command)()
    object.__setattr__(out, "reason", reason)
    return out


class ExpertPolicy:
    """Opponent estimate, hand values, a play-on knock rule and a short search (module docstring)."""

    name = "expert"

    def __init__(self, params: ExpertParams | None = None, **overrides):
        self.params = ExpertParams(**{**(params or ExpertParams()).__dict__, **overrides})
        self.last_kind = None

    def choose(self, view: dict, rng: random.Random, events: list[dict] | None = None) -> Command:
        # What it knows comes only from the seat's view and events: its hand, the discard pile,
        # the cards the opponent is known to hold, and, in order, what the opponent threw,
        # took from the pile and left on it.
        started = time.perf_counter()
        return self.decide(read(view, events), rng, started)

    def decide(self, k: Knowledge, rng: random.Random, started: float | None = None) -> Command:
        if not k.moves:
            raise ValueError("no legal move to choose from")
        search = _Search(k, rng, self.params, started)
        types = k.move_types()
        if "take_upcard" in types or "draw_stock" in types:
            return self._draw(k, search, types)
        return self._discard(k, search)

    # ---- draws
    def _draw(self, k: Knowledge, search: _Search, types: set) -> Command:
        upcard = "take_upcard" in types
        self.last_kind = "upcard" if upcard else "draw"
        take = TakeUpcard() if upcard else DrawDiscard()
        other = PassUpcard() if upcard else DrawStock()
        if take.TYPE not in types or k.top < 0:
            return _fresh(other, "the pile card cannot be taken")
        top = k.top
        if not upcard and k.stock_size == 3:
            # The last draw (RULES.md §1 drawn hand): after a stock draw this seat knocks or the
            # hand is drawn (0 points); a pile card it cannot knock with only gives the opponent
            # the last draw, against this hand. So it takes the pile card only to knock with it.
            h = k.hand | bit(top)
            with_top = min(deadwood_mask(h & ~bit(c)) for c in cards.cards_of(k.hand))
            # (a hand that can knock already does as well from the stock: it throws the card back)
            if with_top <= k.knock_limit and with_top < deadwood_mask(k.hand):
                return _fresh(take, f"the last draw: {cards.code(top)} lets this hand knock")
            return _fresh(other, "the last draw: only a stock card can still let this hand knock")
        # The pile card (or the upcard) is taken when the best hand after taking it beats
        # the expected best hand after a stock draw by take_margin.
        # Taking a card shows it to the opponent, and the stock draw may be better than its mean.
        take_cost, throw = search.best_discard(k.hand | bit(top), forbidden=top)
        stock_cost = search.stock_value()
        gain = stock_cost - take_cost
        if gain > self.params.take_margin:
            return _fresh(take, f"with {cards.code(top)} and {cards.code(throw)} thrown the hand is "
                                f"worth about {gain:.1f} points more than after a stock draw")
        return _fresh(other, f"{cards.code(top)} does not improve the hand enough to show it to the opponent")

    # ---- discards and knocks
    def _discard(self, k: Knowledge, search: _Search) -> Command:
        self.last_kind = "discard"
        p = self.params
        knocks = [m for m in k.moves if isinstance(m, Knock)]
        # Big gin is always taken; gin unless a plain knock is expected to score gin_margin more.
        for m in knocks:
            if m.discard is None:
                self.last_kind = "knock"
                return _fresh(m, "all eleven cards meld")
        plans = search.knock_plans() if knocks else []
        if plans:
            self.last_kind = "knock"
            ev, cmd, least, melds = max(plans, key=lambda pl: pl[0])
            gins = [pl for pl in plans if pl[2] == 0]
            if gins and (least == 0 or ev < gins[0][0] + p.gin_margin):
                return _fresh(gins[0][1], "gin, the ten cards left all meld")
        ranked = search.ranked_discards(k.hand, forbidden=k.taken)
        knock_now = None
        if plans:
            ev, cmd, least, melds = max(plans, key=lambda pl: pl[0])
            kept = k.hand & ~bit(cards.INDEX_OF[cmd.discard])
            wait = search.waiting_value(ev, least, kept) if p.play_on else -math.inf
            # the expert knocks when knocking now is worth at least playing on (waiting_value)
            if (ev > 0 or not p.knock_needs_gain) and ev >= wait + p.knock_margin:
                knock_now = ("knock", cmd, melds, least, ev, wait)
            knock_option = ("knock", cmd, melds, least, ev, wait)
        # Search: when the rules' best discards (or knock against discard) lie within search_gap
        # points of each other, every candidate is played out to the end of the hand
        # against the same weighted opponent hands and stock orders (rollout.py).
        # Another candidate replaces the rules' choice only when it wins by rollout_z standard errors.
        # Easy moves are not searched at all.
        options: list[tuple] = [("discard", c) for _, c in ranked[: p.candidates]]
        close = [o for (cost, _), o in zip(ranked, options) if cost - ranked[0][0] <= p.search_gap]
        if plans:
            if knock_now:
                options = [knock_now] + close
            else:
                options = close + [knock_option] if abs(ev - wait) <= 2 * p.search_gap else close
        else:
            options = close
        if p.rollouts and len(options) > 1:
            chosen = options[search.rollout_choice(options)]
        else:
            chosen = options[0]
        if chosen[0] == "knock":
            return _fresh(chosen[1], f"knocking with {chosen[3]} is worth about {chosen[4]:+.1f} points, "
                                     f"playing on {chosen[5]:+.1f}")
        self.last_kind = "discard"
        card = chosen[1]
        danger = search.danger(card)
        why = (f"{cards.code(card)} helps the hand least"
               + (f" and the opponent melds it with chance {danger:.0%}" if danger >= 0.05 else
                  " and the opponent is unlikely to want it"))
        return _fresh(Discard(cards.code(card)), why)
