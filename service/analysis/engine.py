"""Rate every decision of a game: the expected points of the move chosen and of the best legal move.

``analyse_log`` is the entry point: a decoded log in, a JSON-able result out (service/docs/ANALYSIS.md).
The same log, samples and seed give the same result, to the byte once written with ``to_json``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
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
#: the fresh determinizations that measure a loss, per determinization that chose the best move
CONFIRM = 4


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

    def __init__(self, p: Position, samples: int, seed: str):
        self.p = p
        self.s = p.situation
        self.dets = determinizations(self.s.k, samples, random.Random(seed))
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


def _rate(first: dict, order: list, chosen, second: "_Values") -> dict:
    """The best candidate by the first determinizations, then its gain over ``chosen`` measured on
    ``second``'s fresh ones (so that the luck that picked the best does not inflate the loss)."""
    means = {m: sum(v) / len(v) for m, v in first.items()}
    best = order[0]
    for m in order[1:]:
        if means[m] > means[best] + 1e-9:
            best = m
    worst = min(means.values())
    if best == chosen or means[chosen] >= means[best] - 1e-9:
        return {"best": chosen, "ev_chosen": means[chosen], "ev_best": means[chosen], "ev_worst": worst,
                "loss": 0.0, "se": 0.0}
    b, c = second.of(best), second.of(chosen)
    diffs = [x - y for x, y in zip(b, c)]
    n = len(diffs)
    gain = sum(diffs) / n
    se = math.sqrt(sum((d - gain) ** 2 for d in diffs) / (n - 1) / n)
    ev_best, ev_chosen = sum(b) / n, sum(c) / n
    if gain <= 0:
        # the fresh determinizations do not confirm the first ones' best: the move played stands
        return {"best": chosen, "ev_chosen": ev_chosen, "ev_best": ev_chosen, "ev_worst": worst,
                "loss": 0.0, "se": se}
    return {"best": best, "ev_chosen": ev_chosen, "ev_best": ev_best, "ev_worst": worst, "loss": gain, "se": se}


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
        "ev_range": _r(max(rated["ev_best"], rated["ev_chosen"]) - rated["ev_worst"]),
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
    v = _Values(p, samples, f"{seed}:{p.version}")
    second = _Values(p, CONFIRM * samples, f"{seed}:{p.version}:confirm")
    values = {m: v.of(m) for m in p.moves}
    if p.chosen not in values:
        raise ValueError(f"event {p.version}: the move played is not among the legal moves")
    rated = _rate(values, p.moves, p.chosen, second)

    def shown(m):
        melds = second.knock_melds.get(m) or v.knock_melds.get(m)
        return wire(m, melds) if m[0] == "knock" else wire(m)

    chosen_wire = wire(p.chosen, p.knock[0]) if p.knock else shown(p.chosen)
    entry = _entry(p, p.kind, rated, chosen_wire, shown(rated["best"]), len(p.moves))
    advice = [_advice(text, p, second, rated, shown) for text in p.advice]
    if advice:
        entry["advice"] = advice
    out = [entry]
    if p.knock is not None and p.chosen[0] == "knock":
        out += _arrangement(p, v, second, chosen_wire)
    return out


def _arrangement(p: Position, v: _Values, second: _Values, chosen_wire: dict) -> list[dict]:
    """The arrangement decision of a knock (not gin): the melds laid out against the other least-deadwood ones."""
    melds, deadwood, kind = p.knock
    if kind == "gin":
        return []  # nothing is laid off against gin: every arrangement scores the same
    ten = p.situation.k.hand & ~(1 << p.chosen[1])
    least = deadwood_mask(ten)
    laid = {("melds", m): (least, m) for m in least_arrangements(ten)}
    chosen = ("melds", melds)
    laid.setdefault(chosen, (deadwood, melds))
    if len(laid) < 2:
        return []
    first = {key: v.arrangement(*laid[key]) for key in laid}
    confirm = _Fixed({key: second.arrangement(*laid[key]) for key in laid})
    rated = _rate(first, list(laid), chosen, confirm)
    best_wire = wire(p.chosen, rated["best"][1])
    return [_entry(p, "arrangement", rated, chosen_wire, best_wire, len(laid))]


class _Fixed:
    """Per-sample points already worked out, read as _Values reads them."""

    def __init__(self, values: dict):
        self.values = values

    def of(self, key) -> list[float]:
        return self.values[key]


def _advice(text: str, p: Position, second: _Values, rated: dict, shown) -> dict:
    move = advised_move(text)
    out = {"text": text[:200]}
    if move is None or move not in p.moves:
        out["move"] = None
        return out
    adv, best, chosen = second.of(move), second.of(rated["best"]), second.of(p.chosen)
    n = len(adv)
    out.update(move=shown(move), ev=_r(sum(adv) / n), followed=move == p.chosen,
               # the points the advice would have given away, and its gain over the move played
               loss=_r(max(0.0, (sum(best) - sum(adv)) / n)), gain=_r((sum(adv) - sum(chosen)) / n))
    return out


def _analyse_one(job: tuple[Position, int, int]) -> list[dict]:
    return analyse_position(*job)


def _lower_priority(nice: int) -> None:
    if nice > 0:
        os.nice(nice)


def _rated(found: list[Position], samples: int, seed: int, processes: int, nice: int):
    """Each position's entries, in order: here, or in ``processes`` processes at ``nice`` (each
    decision's samples come from the seed and its version alone, so the entries are the same)."""
    jobs = [(p, samples, seed) for p in found]
    if processes <= 1 or len(jobs) < 2:
        yield from map(_analyse_one, jobs)
        return
    # spawned, not forked: a fork copies the locks other threads of this process may hold (a web
    # server's, a worker's), and a child that inherits one held waits for ever
    with multiprocessing.get_context("spawn").Pool(processes, initializer=_lower_priority, initargs=(nice,)) as pool:
        yield from pool.imap(_analyse_one, jobs, chunksize=2)


def analyse_log(log: list, samples: int = DEFAULT_SAMPLES, seed: int = 0, advice: Iterable[dict] = (),
                progress: Callable[[int, int], None] | None = None, max_decisions: int = MAX_DECISIONS,
                processes: int = 1, nice: int = 0) -> dict:
    """The analysis of a game's decoded log (see the module docstring and service/docs/ANALYSIS.md),
    its decisions rated in ``processes`` processes (the same result whatever their number)."""
    if samples < 2:
        raise ValueError("an analysis needs at least 2 samples per decision")
    found = positions(log, advice)
    truncated = len(found) > max_decisions
    found = found[:max_decisions]
    decisions: list[dict] = []
    for i, entries in enumerate(_rated(found, samples, seed, processes, nice)):
        decisions += entries
        if progress is not None:
            progress(i + 1, len(found))
    state = game.replay(log)
    players = [(pl or {}).get("name") for pl in state.players]
    return {
        "analysis_version": ANALYSIS_VERSION,
        "method": {"policy": PLAYOUT_POLICY, "samples": samples, "confirm_samples": CONFIRM * samples, "seed": seed,
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
