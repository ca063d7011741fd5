"""Several quick bot turns of a board game decided in the worker, then appended in one append.

A match of quick bots (basic plays a move in some 50 microseconds) spent most of its time waiting
for each move's append to be written to disk. The job that plays a board game whole therefore
decides the turns that follow one another without waiting, each on the state the one before
leaves, and appends them together, in one append that lands whole or not at all.
"""

# What is batched, and what is not:
# - only moves of built-in bots (the board game's every seat is one); advice, a game to end
#   because its hands keep being drawn, and a move the rules refuse go the one-turn way;
# - a batch ends at the end of a hand, and once its deciding took BATCH_S: a slow bot's move
#   (the expert thinks up to 200 ms) is appended alone, as soon as it is decided, so watchers see it;
# - a worker asked to stop appends what it decided and stops.
# Each move is the one the turn job would play: the same policy, view, events and seeded
# generator at the same version (tests/integration/bots_workers/test_board_batches.py).
# A worker killed before its append loses turns nobody has seen; the next job decides them again.

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from service.bot_metrics import observe_bot_turn
from service.errors import VersionMismatch
from service.rules import game, views
from service.rules.actors import next_bot_action
from service.store.errors import ConcurrencyError

from workers import jobs

log = logging.getLogger(__name__)

#: the most time a batch spends deciding before its turns are appended
BATCH_S = 0.05
#: the most turns in one append
BATCH_TURNS = 64


@dataclass(frozen=True)
class _Decided:
    """An event decided in the worker, not appended yet (what jobs.Loaded reads of a record)."""

    event: Any


def decide_turns(ctx, game_id: str, held: jobs.Loaded) -> list[tuple[int, Any, float]]:
    """The (seat, command, seconds deciding) of the bot turns that follow ``held`` and can go in one append."""
    limit = getattr(ctx.settings, "abandon_drawn_hands", 0)
    moves: list[tuple[int, Any, float]] = []
    at = held
    # each seat's events of the hand in play, kept as the batch goes (Loaded.seat_events reads them
    # all again at every turn)
    seen = {seat: held.seat_events(seat) for seat in range(len(held.state.players))}
    started = time.perf_counter()
    while len(moves) < BATCH_TURNS:
        state = at.state
        if state.status != "playing" or (limit and game.drawn_hands_in_a_row(state) >= limit):
            break
        action = next_bot_action(state, False)
        if action is None or action[0] != "move":
            break
        seat = action[1]
        t0 = time.perf_counter()
        try:
            command = jobs.choose(at, game_id, seat, jobs.policy_for(state.players[seat], ctx.settings),
                                  seen=list(seen[seat]))
            decided = game.decide(state, seat, command)
        except Exception:  # noqa: BLE001 (a policy bug or a refused move: the one-turn way handles it)
            break
        moves.append((seat, command, time.perf_counter() - t0))
        before = state
        for event in decided:
            if event.TYPE == "hand_dealt":
                seen = {s: [] for s in seen}  # a new hand: its events start with its deal
            for s, events in seen.items():
                shown = views.view_event(event, s, before)
                if shown is not None:
                    events.append(shown)
            before = game.evolve(before, event)
        at = at.extend([_Decided(e) for e in decided])
        hand_over = any(e.TYPE == "hand_scored" for e in decided)
        if hand_over or time.perf_counter() - started >= BATCH_S or ctx.stopping.is_set():
            break
    return moves


def append_turns(ctx, game_id: str, held: jobs.Loaded, moves: list[tuple[int, Any, float]]) -> str:
    """Append ``moves`` decided on ``held`` together: "moved", or "moved_on" if another writer came first.

    Each move counts as one bot turn on /metrics, its time its deciding and its share of the append.
    """
    t0 = time.perf_counter()
    try:
        ctx.games.play_several_for_seats(game_id, held.state, [(seat, command) for seat, command, _ in moves],
                                         whole=True)
        outcome = "moved"
    except (ConcurrencyError, VersionMismatch):
        outcome = "moved_on"
    share = (time.perf_counter() - t0) / len(moves)
    for _, _, seconds in moves:
        observe_bot_turn("move", outcome, seconds + share)
    ctx.stats["last_think_s"] = moves[-1][2]
    return outcome
