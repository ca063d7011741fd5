"""The expert policy: memory of the hand, an opponent model, and a Monte Carlo search per move.

What it knows comes only from the seat's view and events (knowledge.py): its hand, the discard
pile, the cards the opponent is known to hold, what the opponent discarded and which cards it
saw on the pile and left there.

How it decides:

* Opponent model. Hands for the opponent are sampled (determinized) from the cards the seat has
  not seen, around the cards the opponent is known to hold. Each sample is weighted by how well
  it explains the opponent's play: a hand in which a card it discarded or left on the pile would
  have made a meld is less likely (weight ``evidence_weight`` per such card), and so is a hand
  from which another discard than its last one would have left less deadwood
  (``exp(-last_discard_weight * points)``).
* Hand value. A 10-card hand is valued by its expected deadwood after one more draw from the
  unseen cards, followed by the best discard (``E1``): this counts both the deadwood now and the
  outs that would meld. When the opponent may knock before that draw (``urgency``: the share of
  sampled opponent hands that could knock after their next draw), the deadwood held now counts
  with that weight. The chance of being able to knock after that draw earns a bonus
  (``knock_outs_weight`` points of deadwood for a certain knock).
* Danger. Discarding a card the opponent would meld feeds it: each discard costs
  ``danger_weight`` times the (weighted) share of sampled opponent hands that meld it.
* Search (determinized Monte Carlo). The rules above propose a move: the best discards by hand
  value and danger, the draw the basic rule would make, and a knock when its expectation beats
  playing on (below). For each determinization (a weighted opponent hand and a shuffled stock)
  every candidate is played out to the end of the hand on card masks (rollout.py: both sides
  with the basic habits), and the points are averaged. All candidates meet the same
  determinizations, and a candidate replaces the rules' proposal only when its mean gain exceeds
  ``rollout_z`` standard errors. The upcard decision, where passing is not a stock draw, is
  settled by the hand values two plies deep.
* Knock. For each allowed knock, and for each least-deadwood arrangement of the melds laid out,
  the score is averaged over sampled opponent hands with their own melds and lay-offs (undercuts
  included), so the melds laid out keep the opponent's likely cards from being laid off. The
  rules knock when that expectation beats playing on (the chance of the opponent knocking first
  and of reaching gin); the search then weighs the knock against the best discards played out.
  Big gin is always taken; gin unless a plain knock is expected to score ``gin_margin`` more.

The search stops at ``budget_s`` seconds per move (the first samples are always taken, so a
tiny budget still gives a sensible move). With ``budget_s`` None it does exactly the minimum
work, so that a move depends only on the view, the events and the random generator.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from service.rules import cards
from service.rules.commands import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS_UPCARD,
    TAKE_UPCARD,
    Command,
    Discard,
    Knock,
)
from service.rules.melds import (
    arrangements_mask,
    deadwood_after_discard_mask,
    deadwood_mask,
    defender_deadwood_mask,
)

from .knowledge import Knowledge, bit, read
from .rollout import finish_hand, hand_points
from .rollout import takes as improves

_VALUE = cards.VALUE


@dataclass
class ExpertParams:
    """Tuning of the expert policy."""

    budget_s: float | None = 0.1  # time budget per move; None: fixed effort (the minimums only)
    min_samples: int = 40         # opponent hands always sampled
    max_samples: int = 400        # opponent hands at most
    min_draws: int = 10           # stock draws always examined in the two-ply draw search
    evidence_weight: float = 0.3  # likelihood factor per discarded/left card the sample would meld
    last_discard_weight: float = 0.5  # per point another discard would have saved the opponent
    danger_weight: float = 4.0    # deadwood points charged for a discard every opponent would meld
    knock_margin: float = 0.0     # knock when its expectation beats playing on by this much
    play_on: bool = True          # weigh knocking against playing on (False: knock at any gain)
    urgency: bool = True          # value a hand by its deadwood now as the opponent nears a knock
    gin_margin: float = 10.0      # a plain knock must beat the gin at hand by this much to be preferred
    rollouts: bool = True         # settle draws, discards and knocks by playing the hand out
    candidates: int = 3           # discards (best by hand value) that the rollouts compare
    min_rollouts: int = 16        # determinizations always played out per decision
    max_rollouts: int = 400
    rollout_z: float = 2.0        # standard errors by which the search must beat the rules' choice
    knock_outs_weight: float = 10.0  # deadwood points a certain knock after the next draw is worth


# --------------------------------------------------------------------------- search


class _Search:
    """One move's search: the sampled opponent hands and cached hand values."""

    def __init__(self, k: Knowledge, rng: random.Random, params: ExpertParams):
        self.k = k
        self.rng = rng
        self.params = params
        self.deadline = None if params.budget_s is None else time.perf_counter() + params.budget_s
        self.pool = cards.cards_of(k.unseen)
        self._e1: dict[int, float] = {}
        self._knock_chance: dict[int, float] = {}  # 10-card hand -> chance to be able to knock after one draw
        self._after_discard: dict[int, int] = {}  # 11-card hand -> least deadwood after a discard
        self.samples: list[tuple[int, float, int]] = []  # (hand, weight, its deadwood)
        self.total_weight = 0.0
        self._danger: dict[int, float] = {}
        self._urgency: float | None = None

    def time_left(self) -> bool:
        return self.deadline is not None and time.perf_counter() < self.deadline

    # ---- opponent hands
    def sample_opponents(self, n: int) -> None:
        """Add ``n`` weighted opponent hands."""
        k = self.k
        unknown = max(0, k.opp_size - bin(k.opp_known).count("1"))
        pool = self.pool
        unknown = min(unknown, len(pool))
        evidence = cards.cards_of((k.opp_discarded | k.opp_declined) & ~k.opp_known)
        evidence_weight = self.params.evidence_weight
        last = k.opp_last_discard
        last_weight = self.params.last_discard_weight
        sample = self.rng.sample
        for _ in range(n):
            h = k.opp_known
            for x in sample(pool, unknown):
                h |= 1 << x
            w = 1.0
            base = deadwood_mask(h)
            if evidence:
                for e in evidence:
                    if not h >> e & 1 and deadwood_mask(h | 1 << e) < base + _VALUE[e]:
                        w *= evidence_weight
            if last >= 0 and last_weight:
                # a player throws what leaves it the least deadwood: a hand in which another
                # discard would have saved more points explains its last discard less well
                w *= math.exp(-last_weight * (base - deadwood_after_discard_mask(h | 1 << last)))
            self.samples.append((h, w, base))
            self.total_weight += w
        self._danger.clear()

    def ensure_samples(self) -> None:
        if not self.samples:
            self.sample_opponents(self.params.min_samples)

    def grow_samples(self) -> None:
        """More opponent hands while the budget lasts (for the knock estimate)."""
        self.ensure_samples()
        while len(self.samples) < self.params.max_samples and self.time_left():
            self.sample_opponents(20)

    def danger(self, card: int) -> float:
        """Weighted share of sampled opponent hands that would meld ``card`` if it were discarded."""
        got = self._danger.get(card)
        if got is None:
            self.ensure_samples()
            v = _VALUE[card]
            bit_ = 1 << card
            melding = 0.0
            for h, w, base in self.samples:
                if not h & bit_ and deadwood_mask(h | bit_) < base + v:
                    melding += w
            got = melding / self.total_weight if self.total_weight else 0.0
            self._danger[card] = got
        return got

    # ---- own hand values
    def e1(self, h: int) -> float:
        """Expected deadwood of a 10-card hand after one more stock draw and the best discard."""
        got = self._e1.get(h)
        if got is None:
            pool = self.pool
            if not pool:
                got = float(deadwood_mask(h))
            else:
                # the same 11 cards come up again and again (h - d + x + y for either order of
                # x and y): keep their values
                cache = self._after_discard
                limit = self.k.knock_limit
                total = knocks = 0
                for x in pool:
                    m = h | 1 << x
                    v = cache.get(m)
                    if v is None:
                        v = cache[m] = deadwood_after_discard_mask(m)
                    total += v
                    if v <= limit:
                        knocks += 1
                got = total / len(pool)
                self._knock_chance[h] = knocks / len(pool)
            self._e1[h] = got
        return got

    def urgency(self) -> float:
        """Chance that the opponent can knock on its next turn (after its draw), over the samples."""
        if self._urgency is None:
            self.ensure_samples()
            k = self.k
            limit = k.knock_limit
            pool = [x for x in self.pool]
            near_knock = 0.0
            if pool:
                for h, w, _ in self.samples:
                    # its draw comes from the cards neither of us holds
                    n = can = 0
                    for y in pool:
                        if not h >> y & 1:
                            n += 1
                            if deadwood_after_discard_mask(h | 1 << y) <= limit:
                                can += 1
                    if n:
                        near_knock += w * can / n
            self._urgency = near_knock / self.total_weight if self.total_weight else 0.0
        return self._urgency

    def hand_cost(self, h10: int) -> float:
        """Expected deadwood at the next point that counts: now if the opponent knocks first, else after a draw."""
        e1 = self.e1(h10)
        bonus = self.params.knock_outs_weight * self._knock_chance.get(h10, 0.0)
        if not self.params.urgency:
            return e1 - bonus
        u = self.urgency()
        return (u * deadwood_mask(h10) + (1 - u) * e1 if u else e1) - bonus

    def discard_cost(self, h11: int, card: int) -> float:
        return self.hand_cost(h11 & ~(1 << card)) + self.params.danger_weight * self.danger(card)

    def best_discard(self, h11: int, forbidden: int = -1) -> tuple[float, int]:
        """(cost, card) of the best discard from an 11-card hand."""
        best = None
        for c in cards.cards_of(h11):
            if c == forbidden:
                continue
            cost = self.discard_cost(h11, c)
            key = (cost, -_VALUE[c], -c)
            if best is None or key < best[0]:
                best = (key, c)
        return best[0][0], best[1]

    def stock_value(self) -> float:
        """Average best-discard cost after a stock draw, over as many draws as the budget allows."""
        pool = list(self.pool)
        if not pool:
            return float("inf")
        self.rng.shuffle(pool)
        total = 0.0
        n = 0
        for x in pool:
            if n >= self.params.min_draws and not self.time_left():
                break
            total += self.best_discard(self.k.hand | 1 << x)[0]
            n += 1
        return total / n

    # ---- knocking
    def knock_plans(self, grow: bool = True) -> list[tuple[float, Knock, int, tuple]]:
        """(expected points, command, deadwood, melds) of every allowed knock, best arrangement each."""
        k = self.k
        opts = k.options
        if grow:
            self.grow_samples()
        else:
            self.ensure_samples()
        out = []
        for m in k.moves:
            if not isinstance(m, Knock) or m.discard is None:
                continue
            rest = k.hand & ~bit(cards.INDEX_OF[m.discard])
            arrangements = arrangements_mask(rest)
            least = min(arrangement.deadwood for arrangement in arrangements)
            if least > k.knock_limit:
                continue
            outcome = "gin" if least == 0 else "knock"
            best = None
            seen = set()
            for arrangement in arrangements:
                melds = arrangement.melds
                key = tuple(sorted(melds))
                if arrangement.deadwood != least or key in seen:
                    continue
                seen.add(key)
                ev = 0.0
                for h, w, base in self.samples:
                    defender_deadwood = base if least == 0 else defender_deadwood_mask(h, melds)
                    ev += w * hand_points(outcome, least, defender_deadwood, opts)
                ev /= self.total_weight
                if best is None or ev > best[0]:
                    best = (ev, melds)
            laid_out = [[cards.code(card) for card in meld] for meld in best[1]]
            out.append((best[0], Knock(m.discard, laid_out), least, best[1]))
        return out

    def stock_for(self, opp: int) -> list[int]:
        """A random order (top last) of the stock that goes with an opponent hand ``opp``."""
        stock = cards.cards_of(self.k.unseen & ~opp)
        self.rng.shuffle(stock)
        return stock

    def outcome(self, option: tuple, opp: int, stock: list[int]) -> float:
        """Points to this seat of ``option`` against one determinization (opponent hand, stock)."""
        k = self.k
        kind = option[0]
        if kind == "knock":
            _, melds, least = option[1], option[2], option[3]
            if least == 0:
                return hand_points("gin", 0, deadwood_mask(opp), k.options)
            return hand_points("knock", least, defender_deadwood_mask(opp, melds), k.options)
        try:
            if kind == "discard":
                card = option[1]
                if len(stock) <= 2:
                    return 0.0  # this discard leaves two cards in the stock: a drawn hand
                return finish_hand([k.hand & ~(1 << card), opp], k.pile_order + [card], stock, 1, k.options)
            # ("draw", "pile" | "stock")
            return finish_hand([k.hand, opp], list(k.pile_order), stock, 0, k.options, first_draw=option[1])
        except IndexError:
            return 0.0  # the stock ran out inside the simulation: count it as drawn

    def rollout_choice(self, options: list[tuple]) -> int:
        """Index of the option the played-out determinizations show best; 0 unless clearly so.

        ``options[0]`` is the choice of the hand-value rules. Every option meets the same
        determinizations (common random numbers), and another option replaces the first only if
        its mean gain over it exceeds ``rollout_z`` standard errors: a handful of lucky rollouts
        must not overturn a sound rule.
        """
        n_opt = len(options)
        diffs: list[list[tuple[float, float]]] = [[] for _ in range(n_opt)]
        i = 0
        while True:
            if i >= len(self.samples):
                self.sample_opponents(16)
            opp, w, _ = self.samples[i]
            stock = self.stock_for(opp)
            base = self.outcome(options[0], opp, list(stock))
            for j in range(1, n_opt):
                diffs[j].append((w, self.outcome(options[j], opp, list(stock)) - base))
            i += 1
            if i >= self.params.max_rollouts or (i >= self.params.min_rollouts and not self.time_left()):
                break
        self.rollout_count = i
        best, best_gain = 0, 0.0
        for j in range(1, n_opt):
            ws = sum(w for w, _ in diffs[j])
            if ws <= 0:
                continue
            mean = sum(w * d for w, d in diffs[j]) / ws
            var = sum(w * (d - mean) ** 2 for w, d in diffs[j]) / ws
            n_eff = ws * ws / sum(w * w for w, _ in diffs[j])
            se = math.sqrt(var / n_eff) if n_eff > 0 else float("inf")
            if mean > self.params.rollout_z * se and mean > best_gain:
                best, best_gain = j, mean
        return best

    def play_on_value(self, k_dw: int) -> float:
        """Rough expected points of not knocking now with ``k_dw`` deadwood.

        The hand goes on: the opponent knocks first with some chance (rising as its known and
        sampled hands get close to the knock limit and as the stock runs down), costing about
        the deadwood kept; otherwise this seat knocks later, mostly at lower deadwood or gin.
        """
        k = self.k
        self.ensure_samples()
        limit = k.knock_limit
        # share of sampled opponent hands already within one good draw of knocking
        near = 0.0
        for h, w, _ in self.samples:
            if deadwood_after_discard_mask(h) <= limit + 10:
                near += w
        near /= self.total_weight or 1.0
        turns_left = max(0, k.stock_size - 2) / 2
        if turns_left <= 1:
            return 0.0
        # their knock loses ~our deadwood now (a little less after lay-offs); ours wins ~25
        lose = near * (k_dw + 15)
        win = (1 - near) * 22
        return win - lose


class ExpertPolicy:
    """Memory, opponent model and time-bounded determinized Monte Carlo (see module docstring)."""

    name = "expert"

    def __init__(self, params: ExpertParams | None = None, **overrides):
        self.params = ExpertParams(**{**(params or ExpertParams()).__dict__, **overrides})

    def choose(self, view: dict, rng: random.Random, events: list[dict] | None = None) -> Command:
        return self.decide(read(view, events), rng)

    def decide(self, k: Knowledge, rng: random.Random) -> Command:
        if not k.moves:
            raise ValueError("no legal move to choose from")
        search = _Search(k, rng, self.params)
        types = k.move_types()
        if "take_upcard" in types or "draw_stock" in types:
            return self._draw(k, search, types)
        return self._discard(k, search)

    def _draw(self, k: Knowledge, search: _Search, types: set) -> Command:
        upcard = "take_upcard" in types
        take_move = TAKE_UPCARD if upcard else DRAW_DISCARD
        other = PASS_UPCARD if upcard else DRAW_STOCK
        if take_move.TYPE not in types or k.top < 0:
            return other
        if self.params.rollouts and not upcard:
            options = [("draw", "pile"), ("draw", "stock")]
            if not improves(k.hand, k.top):
                options.reverse()  # the rules' choice goes first: draw from the stock
            best = options[search.rollout_choice(options)]
            return take_move if best[1] == "pile" else other
        # the upcard (passing it is not a stock draw: the dealer may take it) and the search-free
        # mode: compare hand values two plies deep
        take_cost = search.best_discard(k.hand | bit(k.top), forbidden=k.top)[0]
        return take_move if take_cost < search.stock_value() else other

    def _discard(self, k: Knowledge, search: _Search) -> Command:
        knocks = [m for m in k.moves if isinstance(m, Knock)]
        for m in knocks:
            if m.discard is None:
                return m  # big gin
        plans = search.knock_plans(grow=not self.params.rollouts) if knocks else []
        if plans:
            ev, cmd, least, _ = max(plans, key=lambda p: p[0])
            gins = [p for p in plans if p[2] == 0]
            if gins and (least == 0 or ev < gins[0][0] + self.params.gin_margin):
                # the sampled opponent hands tend to hold more deadwood than a real one that has
                # played on: a plain knock must beat gin (no lay-offs, no undercut) clearly
                return gins[0][1]
        discards = [cards.INDEX_OF[m.card] for m in k.moves if isinstance(m, Discard)]
        ranked = sorted(discards, key=lambda c: (search.discard_cost(k.hand, c), -_VALUE[c], -c))
        knock_now = None
        if plans:
            ev, cmd, least, melds = max(plans, key=lambda p: p[0])
            play_on = search.play_on_value(least) if self.params.play_on else 0.0
            knock_option = ("knock", cmd, melds, least)
            if ev > 0 and ev >= play_on + self.params.knock_margin:
                knock_now = knock_option
        if not self.params.rollouts:
            return knock_now[1] if knock_now else Discard(cards.code(ranked[0]))
        options: list[tuple] = [("discard", c) for c in ranked[: self.params.candidates]]
        if plans:
            # the rules' choice first: knock if they say so, else the best discard
            if knock_now:
                options.insert(0, knock_now)
            else:
                options.append(knock_option)
        if len(options) == 1:
            return Discard(cards.code(ranked[0]))
        chosen = options[search.rollout_choice(options)]
        return chosen[1] if chosen[0] == "knock" else Discard(cards.code(chosen[1]))
