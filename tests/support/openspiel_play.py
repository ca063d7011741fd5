"""Whole gin-rami games played in the engine alone, for the OpenSpiel conversion's tests and benchmark."""

from __future__ import annotations

import random

from service.rules import commands, game
from service.rules.views import view_state
from workers.policies.basic import BasicPolicy, RandomPolicy

#: OpenSpiel's own recorded game (open_spiel/integration_tests/playthroughs/gin_rummy.txt), one hand.
#: Its Returns() are [-33, 33]: player 1 knocks with 2s 3h 4h (9) and melds 6s7s8s and the four jacks;
#: player 0 lays 4d5d6d7d and keeps 3s Ts 8c 2d Td 9h (42), with nothing to lay off. 42 - 9 = 33.
PLAYTHROUGH = [29, 49, 9, 2, 51, 24, 35, 20, 47, 31, 5, 10, 6, 42, 50, 11, 1, 21, 46, 7, 17, 54, 54, 53, 27, 51,
               53, 18, 50, 53, 32, 24, 53, 36, 11, 53, 23, 49, 52, 21, 53, 12, 12, 53, 41, 46, 53, 30, 23, 52, 55,
               18, 126, 110, 54, 54, 188, 54]

#: a hand of two policies that never knock could last for ever: the games end at this many moves
MAX_MOVES = 5000


def play_game(seed: int, rules: str | None = "openspiel", options: dict | None = None,
              wild: float = 0.15, resign_at: int | None = None) -> list:
    """The log of a whole game from ``seed``: the basic bot's moves, ``wild`` of them any legal move.

    ``resign_at``: the move at which seat 0 resigns instead (a game that ends mid-hand).
    """
    rng = random.Random(seed)
    spec = game.GameSpec("gin-rami", [{"name": "ann"}, {"name": "bob"}], options, seed=seed.to_bytes(8, "big"),
                         rules=rules, fairness=2)
    log = game.start(spec)
    state = game.replay(log)
    basic, wildcard = BasicPolicy(), RandomPolicy()
    for n in range(MAX_MOVES):
        if state.status == "over":
            return log
        if n == resign_at:
            state, new = game.apply(state, 0, commands.RESIGN)
            log += new
            continue
        seat = state.to_act[0]
        policy = wildcard if rng.random() < wild else basic
        command = policy.choose(view_state(state, seat), rng)
        state, new = game.apply(state, seat, command)
        log += new
    state, new = game.apply(state, None, commands.AbandonGame(0))
    return log + new


def decisions(log: list) -> list[tuple]:
    """Every decision of a log, and every hand's result: what a conversion must keep."""
    from service.rules import events as E

    out: list[tuple] = []
    for e in log:
        t = type(e)
        if t in (E.UpcardTaken, E.UpcardPassed, E.CardDrawn, E.CardDiscarded, E.GameResigned):
            out.append((t.TYPE, *[getattr(e, f) for f in ("seat", "source", "card") if hasattr(e, f)]))
        elif t is E.Knocked:
            out.append((t.TYPE, e.seat, e.discard, sorted(sorted(m) for m in e.melds), e.kind))
        elif t is E.HandScored:
            out.append((t.TYPE, e.hand_no, e.outcome, e.winner, e.points, tuple(e.scores)))
        elif t is E.HandDrawn:
            out.append((t.TYPE, e.hand_no, e.reason))
        elif t is E.GameEnded:
            out.append((t.TYPE, e.winner, tuple(e.scores)))
    return out
