"""Rate every decision of a game: the expected points of the move chosen and of the best legal move.

``analyse_log`` is the entry point: a decoded log in, a JSON-able result out (service/docs/ANALYSIS.md).
The same log, samples and seed give the same result, to the byte once written with ``to_json``.
"""

from __future__ import annotations

import json
import math
import random
from typing import Callable, Iterable

from service.rules import cards, game
from service.rules.melds import deadwood_mask

from .advice import advised_move
from .playouts import determinizations, knock_value, least_arrangements, play_value
from .positions import Position, positions
from .summary import CLASSES, classify, summaries

#: the result's format; a change of method or of the fields raises it
ANALYSIS_VERSION = 1
#: determinizations per decision when none is asked for
DEFAULT_SAMPLES = 24
#: the most decisions one result holds (a game of many drawn hands stops there, marked truncated)
MAX_DECISIONS = 3000
#: the playout policy of every seat after the candidate move (workers/policies/rollout.py)
PLAYOUT_POLICY = "basic"


def _r(x: float) -> float:
    """A figure as the result writes it: two decimals."""
    return round(x + 0.0, 2) + 0.0


def wire(move: tuple, melds: tuple | None = None) -> dict:
    """The wire form of a move tuple (a knock with the melds it lays out)."""
    kind = move[0]
    if kind in ("take", "pass", "stock", "pile"):
        return {"type": {"take": "take_upcard", "pass": "pass_upcard", "stock": "draw_stock",
                         "pile": "draw_discard"}[kind]}
    if kind == "discard":
        return {"type": "discard", "card": cards.code(move[1])}
    shown = None if melds is None else [[cards.code(c) for c in m] for m in melds]
    return {"type": "knock", "discard": None if kind == "big_gin" else cards.code(move[1]), "melds": shown}


class _Values:
    """Per-sample points of each candidate of one decision, against the same determinizations."""

    def __init__(self, p: Position, samples: int, seed: int):
        self.p = p
        self.s = p.situation
        self.dets = determinizations(self.s.k, samples, random.Random(f"{seed}:{p.version}"))
        #: knock candidate -> (best arrangement's melds, per-sample points)
        self.knock_melds: dict[tuple, tuple] = {}
        self.cache: dict[tuple, list[float]] = {}

    def of(self, move: tuple) -> list[float]:
        got = self.cache.get(move)
        if got is None:
            got = self.cache[move] = self._compute(move)
        return got

    def _compute(self, move: tuple) -> list[float]:
        s, dets = self.s, self.dets
        if move[0] == "big_gin":
            return [knock_value(s, 0, (), opp, big_gin=True) for opp, _ in dets]
        if move[0] == "knock":
            ten = s.k.hand & ~(1 << move[1])
            dw = deadwood_mask(ten)
            best = None
            for melds in least_arrangements(ten):
                vals = self.arrangement(dw, melds)
                if best is None or sum(vals) > sum(best[1]) + 1e-9:
                    best = (melds, vals)
            self.knock_melds[move] = best[0]
            return best[1]
        return [play_value(s, move, opp, stock) for opp, stock in dets]

    def arrangement(self, deadwood: int, melds: tuple) -> list[float]:
        return [knock_value(self.s, deadwood, melds, opp) for opp, _ in self.dets]


def _rate(values: dict, order: list, chosen) -> dict:
    """Means, best candidate, loss and its standard error, for candidates ``order`` of ``values``."""
    means = {m: sum(v) / len(v) for m, v in values.items()}
    best = order[0]
    for m in order[1:]:
        if means[m] > means[best] + 1e-9:
            best = m
    if means[chosen] >= means[best] - 1e-9:
        best = chosen
    diffs = [b - c for b, c in zip(values[best], values[chosen])]
    n = len(diffs)
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else 0.0
    loss = max(0.0, means[best] - means[chosen])
    return {"best": best, "ev_chosen": means[chosen], "ev_best": means[best], "ev_worst": min(means.values()),
            "loss": loss, "se": se}


def _entry(p: Position, kind: str, rated: dict, chosen_wire: dict, best_wire: dict, candidates: int) -> dict:
    entry = {
        "version": p.version,
        "hand_no": p.hand_no,
        "seat": p.seat,
        "kind": kind,
        "chosen": chosen_wire,
        "best": best_wire,
        "ev_chosen": _r(rated["ev_chosen"]),
        "ev_best": _r(rated["ev_best"]),
        "ev_range": _r(rated["ev_best"] - rated["ev_worst"]),
        "loss": _r(rated["loss"]),
        "se": _r(rated["se"]),
        "class": classify(rated["loss"]),
        "candidates": candidates,
    }
    if p.role is not None:
        entry["role"] = p.role
    if p.timed_out:
        entry["timed_out"] = True
    return entry


def analyse_position(p: Position, samples: int, seed: int) -> list[dict]:
    """The entries of one decision: the move, and for a knock the arrangement laid out."""
    v = _Values(p, samples, seed)
    values = {m: v.of(m) for m in p.moves}
    if p.chosen not in values:
        raise ValueError(f"event {p.version}: the move played is not among the legal moves")
    rated = _rate(values, p.moves, p.chosen)

    def shown(m):
        return wire(m, v.knock_melds.get(m)) if m[0] in ("knock",) else wire(m)

    chosen_wire = wire(p.chosen, p.knock[0]) if p.knock else shown(p.chosen)
    entry = _entry(p, p.kind, rated, chosen_wire, shown(rated["best"]), len(p.moves))
    advice = [_advice(text, p, values, rated, shown) for text in p.advice]
    if advice:
        entry["advice"] = advice
    out = [entry]
    if p.knock is not None and p.chosen[0] == "knock":
        out += _arrangement(p, v, chosen_wire)
    return out


def _arrangement(p: Position, v: _Values, chosen_wire: dict) -> list[dict]:
    """The arrangement decision of a knock (not gin): the melds laid out against the other least-deadwood ones."""
    melds, deadwood, kind = p.knock
    if kind == "gin":
        return []  # nothing is laid off against gin: every arrangement scores the same
    ten = p.situation.k.hand & ~(1 << p.chosen[1])
    options = {("melds", m): v.arrangement(deadwood_mask(ten), m) for m in least_arrangements(ten)}
    chosen = ("melds", melds)
    if chosen not in options:
        options[chosen] = v.arrangement(0 if kind == "gin" else deadwood, melds)
    if len(options) < 2:
        return []
    rated = _rate(options, list(options), chosen)
    best_wire = wire(p.chosen, rated["best"][1])
    return [_entry(p, "arrangement", rated, chosen_wire, best_wire, len(options))]


def _advice(text: str, p: Position, values: dict, rated: dict, shown) -> dict:
    move = advised_move(text)
    out = {"text": text[:200]}
    if move is None or move not in values:
        out["move"] = None
        return out
    ev = sum(values[move]) / len(values[move])
    out.update(move=shown(move), ev=_r(ev), loss=_r(max(0.0, rated["ev_best"] - ev)), followed=move == p.chosen)
    return out


def analyse_log(log: list, samples: int = DEFAULT_SAMPLES, seed: int = 0, advice: Iterable[dict] = (),
                progress: Callable[[int, int], None] | None = None, max_decisions: int = MAX_DECISIONS) -> dict:
    """The analysis of a game's decoded log (see the module docstring and service/docs/ANALYSIS.md)."""
    if samples < 2:
        raise ValueError("an analysis needs at least 2 samples per decision")
    found = positions(log, advice)
    truncated = len(found) > max_decisions
    found = found[:max_decisions]
    decisions: list[dict] = []
    for i, p in enumerate(found):
        decisions += analyse_position(p, samples, seed)
        if progress is not None:
            progress(i + 1, len(found))
    state = game.replay(log)
    players = [(pl or {}).get("name") for pl in state.players]
    return {
        "analysis_version": ANALYSIS_VERSION,
        "method": {"policy": PLAYOUT_POLICY, "samples": samples, "seed": seed,
                   "opponent_model": "expert estimator", "thresholds": dict(CLASSES)},
        "game": {"variant": state.variant, "players": players, "status": state.status,
                 "scores": list(state.scores), "winner": state.winner, "hands": state.hand_no,
                 "events": len(log)},
        "truncated": truncated,
        "decisions": decisions,
        **summaries(decisions, state.nseats, players),
    }


def to_json(result: dict) -> str:
    """The result as the command writes it: the same result gives the same bytes."""
    return json.dumps(result, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
