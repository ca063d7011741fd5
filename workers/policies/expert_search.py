"""One move's evaluation for the expert policy: sampled opponent hands, hand values, knock plans
and the playout search of close calls.

``_Search`` holds what one move computes, cached for that move.
``play_on_value`` and ``knock_loss`` are the knock rule's arithmetic on plain numbers, which ``_Search.waiting_value`` feeds.
"""

# The comments at each part say how it weighs in the expert's choice.
# What _Search caches: the sampled opponent hands, their chance to knock, the value of each 10-card hand met.

from __future__ import annotations

import math
import random
import time

from service.rules import cards
from service.rules.commands import Knock
from service.rules.melds import (
    arrangements_mask,
    deadwood_after_discard_mask,
    deadwood_mask,
)
from service.rules.layoffs import defender_deadwood_mask

from .estimator import OpponentModel
from .expert_params import ExpertParams
from .knowledge import Knowledge, bit
from .rollout import finish_hand, hand_points

_VALUE = cards.VALUE


def play_on_value(q: float, loss: float, g: float, gin_value: float, later: float, last_turn: bool) -> float:
    """Expected points of not knocking now, one turn ahead.

    ``q``: chance the opponent knocks (or goes gin) on its next turn, costing ``loss``.
    ``loss`` is negative points, or the undercut's positive ones.
    Else this seat draws: gin with chance ``g`` worth ``gin_value``, or a knock then for ``later``.
    ``last_turn``: the opponent's discard leaves two cards in the stock.
    """
    # on the last turn, without the opponent's knock the hand is drawn (0 points)
    if last_turn:
        return q * loss
    return q * loss + (1.0 - q) * (g * gin_value + (1.0 - g) * later)


def knock_loss(my_deadwood: int, their_knocks: dict, gin_bonus: int, undercut_bonus: int) -> float:
    """Mean points to this seat when the opponent knocks against ``my_deadwood``.

    ``their_knocks`` maps the opponent's deadwood when it knocks to the chance of that deadwood
    (given that it knocks; 0 is gin).
    """
    # Gin costs the gin bonus and this seat's deadwood (lay-offs left out).
    # A knock with more deadwood than my_deadwood (or as much) is undercut:
    # the undercut bonus and the difference go to this seat.
    # Else this seat loses the difference.
    total = 0.0
    for theirs, chance in their_knocks.items():
        if theirs == 0:
            total -= chance * (gin_bonus + my_deadwood)
        elif my_deadwood <= theirs:
            total += chance * (undercut_bonus + theirs - my_deadwood)
        else:
            total -= chance * (my_deadwood - theirs)
    return total


class _Search:
    """One move's evaluation: the estimate, sampled opponent hands and cached hand values."""

    def __init__(self, k: Knowledge, rng: random.Random, params: ExpertParams, started: float | None = None):
        self.k = k
        self.rng = rng
        self.params = params
        # the budget counts from when the move was asked for (reading the view and events is part
        # of it), less a reserve for choosing and wording the move once the search stops
        self.started = time.perf_counter() if started is None else started
        self.deadline = (None if params.budget_s is None
                         else self.started + params.budget_s * (1.0 - params.budget_reserve))
        # With budget_s None the search does a fixed amount of work (min_rollouts),
        # so that a move depends only on the view, the events and the random generator.
        # The opponent estimate (estimator.py) is a probability for every unseen card to be in the opponent's hand.
        # It gives the chance that a card lies in the stock (the draws that a hand value averages over),
        # the chance that the opponent melds a card thrown to it (meld_chance),
        # and opponent hands for the knock and the search (sample).
        self.model = OpponentModel(k, params.estimator)
        pool = cards.cards_of(k.unseen)
        self.pool = pool
        # the draw distribution: an unseen card is in the stock unless the opponent holds it
        self.draw = [(x, self.model.stock_chance(x)) for x in pool]
        self.draw = [(x, w) for x, w in self.draw if w > 1e-9]
        self.draw_total = sum(w for _, w in self.draw)
        self._e1: dict[int, tuple[float, float, float]] = {}
        self._dad: dict[int, int] = {}
        self._danger: dict[int, float] = {}
        self._samples: list[tuple[int, float, int]] | None = None
        self._urgency: tuple[float, float] | None = None
        self.rollout_count = 0

    def time_left(self) -> bool:
        return self.deadline is not None and time.perf_counter() < self.deadline

    # ---- opponent
    def opp_turns(self) -> int:
        """Turns the opponent has played this hand (its discards; from the turn count without events)."""
        k = self.k
        if k.opp_discards:
            return len(k.opp_discards)
        return k.turn // 2

    def samples(self) -> list[tuple[int, float, int]]:
        """(hand, weight, deadwood) of sampled opponent hands."""
        if self._samples is None:
            self._samples = []
            self.more_samples(self.params.samples)
        return self._samples

    def more_samples(self, n: int) -> None:
        """``n`` more opponent hands from the estimate, built for as many turns as the opponent played.

        The opponent did not knock after its last discard: a sampled hand that could have is
        kept only with chance ``no_knock_weight`` (else drawn again, a few times at most).
        """
        # A sampled hand is built for about half as many turns as the opponent has played
        # (age_rate: drawn cards, least deadwood kept), so that it holds melds as a played hand does.
        model, limit, rng = self.model, self.k.knock_limit, self.rng
        keep = self.params.no_knock_weight if self.k.opp_discards else 1.0
        age = min(self.params.age_turns, math.ceil(self.params.age_rate * self.opp_turns()))
        for _ in range(n):
            for _try in range(6):
                h = model.sample(rng, age)
                dw = deadwood_mask(h)
                if dw > limit or rng.random() < keep:
                    break
            self._samples.append((h, 1.0, dw))

    def danger(self, card: int) -> float:
        """Chance that the opponent melds ``card`` if it is thrown (sampled hands or card probabilities)."""
        got = self._danger.get(card)
        if got is None:
            if self.params.sample_danger:
                v = _VALUE[card]
                b = 1 << card
                melding = total = 0.0
                for h, w, base in self.samples():
                    total += w
                    if not h & b and deadwood_mask(h | b) < base + v:
                        melding += w
                got = melding / total if total else 0.0
            else:
                got = self.model.meld_chance(card)
            self._danger[card] = got
        return got

    def dad(self, h11: int) -> int:
        v = self._dad.get(h11)
        if v is None:
            v = self._dad[h11] = deadwood_after_discard_mask(h11)
        return v

    def urgency(self) -> tuple[float, dict]:
        """(chance the opponent can knock after its next draw, the chances of its deadwood then)."""
        if self._urgency is None:
            limit = self.k.knock_limit
            total = can = 0.0
            hist: dict[int, float] = {}
            draw = self.draw
            for h, w, _ in self.samples():
                n = 0.0
                got: dict[int, float] = {}
                for y, wy in draw:
                    if h >> y & 1:
                        continue
                    n += wy
                    v = deadwood_after_discard_mask(h | 1 << y)
                    if v <= limit:
                        got[v] = got.get(v, 0.0) + wy
                if n:
                    total += w
                    for v, wy in got.items():
                        can += w * wy / n
                        hist[v] = hist.get(v, 0.0) + w * wy / n
            q = can / total if total else 0.0
            their = {v: x / can for v, x in hist.items()} if can else {limit: 1.0}
            self._urgency = (q, their)
        return self._urgency

    # ---- own hands
    def e1(self, h10: int) -> tuple[float, float, float]:
        """(expected deadwood after one stock draw and the best discard, chance to knock then, to go gin)."""
        got = self._e1.get(h10)
        if got is None:
            if not self.draw_total:
                dw = deadwood_mask(h10)
                got = (float(dw), 0.0, 0.0)
            else:
                limit = self.k.knock_limit
                total = knock = gin = 0.0
                dad = self.dad
                for x, w in self.draw:
                    v = dad(h10 | 1 << x)
                    total += w * v
                    if v <= limit:
                        knock += w
                        if v == 0:
                            gin += w
                t = self.draw_total
                got = (total / t, knock / t, gin / t)
            self._e1[h10] = got
        return got

    # A 10-card hand's value (lower is better) is its expected deadwood after one more draw from the stock
    # and the best discard (e1), minus a bonus for the chance that this draw lets it knock or go gin.
    # The deadwood held now counts with the chance that the opponent knocks on its next turn
    # (urgency, over the sampled opponent hands), and never less than urgency_min:
    # a hand caught by a knock pays what it holds.
    def hand_cost(self, h10: int) -> float:
        e1, knock, gin = self.e1(h10)
        p = self.params
        u = max(p.urgency_min, self.urgency()[0])
        return (1 - u) * e1 + u * deadwood_mask(h10) - p.knock_outs_weight * knock - p.gin_outs_weight * gin

    # a discard: the hand value of the ten cards kept, plus danger_weight times the chance that
    # the opponent melds the card thrown (the least wins)
    def discard_cost(self, h11: int, card: int) -> float:
        return self.hand_cost(h11 & ~(1 << card)) + self.params.danger_weight * self.danger(card)

    def ranked_discards(self, h11: int, forbidden: int = -1) -> list[tuple[float, int]]:
        out = [(self.discard_cost(h11, c), -_VALUE[c], -c, c) for c in cards.cards_of(h11) if c != forbidden]
        out.sort()
        return [(cost, c) for cost, _, _, c in out]

    def best_discard(self, h11: int, forbidden: int = -1) -> tuple[float, int]:
        return self.ranked_discards(h11, forbidden)[0]

    def stock_value(self) -> float:
        """Expected best discard cost after a stock draw: every unseen card by its stock chance
        (or ``stock_draws`` of them drawn by that chance, if set), each followed by the best of
        throwing it back or throwing one of the hand's three least useful cards."""
        if not self.draw:
            return math.inf
        h = self.k.hand
        keep = [c for _, c in self.ranked_discards_10(h)[:3]]
        n = self.params.stock_draws
        if n and n < len(self.draw):
            picks = [(x, 1.0) for x, _ in self.rng.choices(self.draw, weights=[w for _, w in self.draw], k=n)]
        else:
            picks = self.draw
        back = self.hand_cost(h)
        total = wsum = 0.0
        for x, w in picks:
            hx = h | 1 << x
            best = back + self.params.danger_weight * self.danger(x)
            for c in keep:
                v = self.discard_cost(hx, c)
                if v < best:
                    best = v
            total += w * best
            wsum += w
        return total / wsum

    def ranked_discards_10(self, h10: int) -> list[tuple[float, int]]:
        """The ten cards of a hand ranked by how little they are worth keeping (deadwood left first)."""
        out = [(deadwood_mask(h10 & ~(1 << c)) - _VALUE[c] * 0.01, c) for c in cards.cards_of(h10)]
        out.sort()
        return out

    # ---- knocking
    def knock_plans(self) -> list[tuple[float, Knock, int, tuple]]:
        """(expected points, command, deadwood, melds) of every allowed knock, best arrangement each."""
        # Each allowed knock is scored over the sampled opponent hands with their own lay-offs (undercuts included).
        # It lays out the arrangement that lets the least be laid off.
        k = self.k
        opts = k.options
        samples = self.samples()
        total = sum(w for _, w, _ in samples) or 1.0
        out = []
        for m in k.moves:
            if not isinstance(m, Knock) or m.discard is None:
                continue
            rest = k.hand & ~bit(cards.INDEX_OF[m.discard])
            arrangements = arrangements_mask(rest)
            least = min(a.deadwood for a in arrangements)
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
                for h, w, dw in samples:
                    defender = dw if least == 0 else defender_deadwood_mask(h, melds)
                    ev += w * hand_points(outcome, least, defender, opts)
                ev /= total
                if best is None or ev > best[0]:
                    best = (ev, melds)
            laid_out = [[cards.code(card) for card in meld] for meld in best[1]]
            out.append((best[0], Knock(m.discard, laid_out), least, best[1]))
        return out

    def waiting_value(self, knock_ev: float, least: int, kept: int) -> float:
        """:func:`play_on_value` of keeping the hand ``kept`` (deadwood ``least``) instead of knocking."""
        # Playing on is worth, one turn ahead: the opponent knocks first with chance q
        # (from the sampled hands; it costs the deadwood kept, or wins the undercut);
        # else this seat goes gin on its draw with chance g, or knocks then.
        # Near the end of the stock the hand is drawn instead.
        # A discard that leaves two cards in the stock draws it at once (0 points: any knock with a gain is taken).
        k = self.k
        opts = k.options
        q, their = self.urgency()
        loss = knock_loss(least, their, opts["gin_bonus"], opts["undercut_bonus"])
        _, _, g = self.e1(kept)
        samples = self.samples()
        total = sum(w for _, w, _ in samples) or 1.0
        opp_dw = sum(w * dw for _, w, dw in samples) / total
        gin_value = opts["gin_bonus"] + (opp_dw if opts["gin_adds_deadwood"] else 0)
        if k.stock_size <= 2:
            return 0.0  # this discard leaves two cards in the stock: the hand is drawn
        last_turn = k.stock_size <= 3
        return play_on_value(q, loss, g, gin_value, knock_ev - self.params.later_decay, last_turn)

    # ---- search
    def stock_for(self, opp: int) -> list[int]:
        stock = cards.cards_of(self.k.unseen & ~opp)
        self.rng.shuffle(stock)
        return stock

    def outcome(self, option: tuple, opp: int, stock: list[int]) -> float:
        """Points to this seat of ``option`` against one determinization (opponent hand, stock)."""
        k = self.k
        kind = option[0]
        if kind == "knock":
            melds, least = option[2], option[3]
            if least == 0:
                return hand_points("gin", 0, deadwood_mask(opp), k.options)
            return hand_points("knock", least, defender_deadwood_mask(opp, melds), k.options)
        try:
            if kind == "discard":
                card = option[1]
                if len(stock) <= 2:
                    return 0.0
                return finish_hand([k.hand & ~(1 << card), opp], k.pile_order + [card], stock, 1, k.options)
            return finish_hand([k.hand, opp], list(k.pile_order), stock, 0, k.options, first_draw=option[1])
        except IndexError:
            return 0.0

    def rollout_choice(self, options: list[tuple]) -> int:
        """Index of the option the played-out determinizations show best; 0 unless clearly so.

        Every option meets the same determinizations (common random numbers). The search stops
        early once every other option trails the first by ``stop_z`` standard errors or leads it
        by that much, and at the time budget; stopped by the budget before ``min_rollouts``, it
        keeps the rules' choice.
        """
        p = self.params
        n_opt = len(options)
        samples = self.samples()
        sums = [0.0] * n_opt
        sq = [0.0] * n_opt
        i = 0
        while True:
            if i >= len(samples):
                self.more_samples(16)
            opp, w, _ = samples[i]
            stock = self.stock_for(opp)
            base = self.outcome(options[0], opp, list(stock))
            for j in range(1, n_opt):
                d = self.outcome(options[j], opp, list(stock)) - base
                sums[j] += d
                sq[j] += d * d
            i += 1
            if i >= p.max_rollouts:
                break
            if self.deadline is not None and not self.time_left():
                break  # the budget holds even before the minimum (a loaded machine)
            if i >= p.min_rollouts:
                if self.deadline is None:
                    break
                if i % 8 == 0 and all(self._settled(sums[j], sq[j], i) for j in range(1, n_opt)):
                    break
        self.rollout_count = i
        if i < p.min_rollouts:
            return 0  # too few playouts to overrule the rules' choice
        best, best_gain = 0, 0.0
        for j in range(1, n_opt):
            mean = sums[j] / i
            var = max(0.0, sq[j] / i - mean * mean)
            se = math.sqrt(var / max(1, i - 1))
            if mean > p.rollout_z * se and mean > best_gain:
                best, best_gain = j, mean
        return best

    def _settled(self, s: float, sq: float, n: int) -> bool:
        mean = s / n
        var = max(0.0, sq / n - mean * mean)
        se = math.sqrt(var / max(1, n - 1))
        return abs(mean) > self.params.stop_z * se or se < 0.25
