"""The expert policy: an estimate of the opponent's hand, hand values one draw deep, a knock rule
that weighs playing on, and a short Monte Carlo search for the close calls.

What it knows comes only from the seat's view and events (knowledge.py): its hand, the discard
pile, the cards the opponent is known to hold, and, in order, what the opponent threw, took from
the pile and left on it.

How it decides:

* Opponent estimate (estimator.py). A probability for every unseen card to be in the
  opponent's hand. It gives the chance that a card lies in the stock (the draws that a hand
  value averages over), the chance that the opponent melds a card thrown to it (``meld_chance``),
  and opponent hands for the knock and the search (``sample``). A sampled hand is built for
  about half as many turns as the opponent has played (``age_rate``: drawn cards, least
  deadwood kept), so that it holds melds as a played hand does; one that could have knocked
  after the opponent's last discard, and did not, is mostly drawn again (``no_knock_weight``).
* Hand value (lower is better). A 10-card hand is valued by its expected deadwood after one more
  draw from the stock and the best discard (``e1``), minus a bonus for the chance that this draw
  lets it knock or go gin. The deadwood held now counts with the chance that the opponent
  knocks on its next turn (``urgency``, over the sampled opponent hands), and never less than
  ``urgency_min``: a hand caught by a knock pays what it holds.
* Discard: least hand value of the ten cards kept plus ``danger_weight`` times the chance that
  the opponent melds the card thrown.
* Draw: the pile card (or the upcard) is taken when the best hand after taking it beats the
  expected best hand after a stock draw by ``take_margin`` (taking a card shows it to the
  opponent, and the stock draw may be better than its mean). The last draw (three cards in the
  stock: after a stock draw this seat knocks or the hand is drawn) takes a pile card only when
  it lets this seat knock; any other pile card would only give the opponent the last draw.
* Knock: each allowed knock is scored over the sampled opponent hands with their own lay-offs
  (undercuts included), laying out the arrangement that lets the least be laid off. Playing on
  instead is worth, one turn ahead (:func:`play_on_value`): the opponent knocks first with chance
  ``q`` (from the sampled hands; costs the deadwood kept, or wins the undercut), else this seat
  goes gin on its draw with chance ``g`` or knocks then; near the end of the stock the hand is
  drawn instead, and a discard that leaves two cards in the stock draws it at once (0 points:
  any knock with a gain is taken). The expert knocks when knocking now is worth at least that. Big gin is always
  taken; gin unless a plain knock is expected to score ``gin_margin`` more.
* Search. When the rules' best discards (or knock against discard) lie within ``search_gap``
  points of each other, every candidate is played out to the end of the hand against the same
  weighted opponent hands and stock orders (rollout.py), and another candidate replaces the
  rules' choice only when it wins by ``rollout_z`` standard errors. The search stops as soon as
  the leader is clear (``stop_z``), or at ``budget_s`` (counted from when the move is asked for, less
  the share ``budget_reserve`` kept for the work after the search); easy moves are not searched at all.

With ``budget_s`` None the search does a fixed amount of work (``min_rollouts``), so that a move
depends only on the view, the events and the random generator.

This module chooses the move and words its reason; the tuning is in expert_params.py and one
move's evaluation (the estimate, hand values, knock plans, the search) in expert_search.py.
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
            if (ev > 0 or not p.knock_needs_gain) and ev >= wait + p.knock_margin:
                knock_now = ("knock", cmd, melds, least, ev, wait)
            knock_option = ("knock", cmd, melds, least, ev, wait)
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
