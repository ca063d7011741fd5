"""Game flow, the engine's entry point: start, decide, evolve, replay and legal_moves.

It implements RULES.md §1-§4 by composing the modules that hold each part.
``decide(state, actor, command)`` checks a command and returns the events it causes, or raises
RulesError; it never changes the state.
``evolve(state, event)`` applies one event without any check.
"""

from __future__ import annotations

from .commands import Command
# deciders: whether a command is legal and the events it causes.
# That is §1 turns, knocking, drawn hands; §2 seats and advice; §3 big gin.
# The scoring module holds §2 and §3 scoring, the end of the game and rotation.
from .deciders import check_advice, decide, drawn_hands_in_a_row
# evolvers: what each event changes.
# evolve checks nothing, so a replay cannot fail halfway.
from .evolvers import evolve, replay
# legal: every legal move.
from .legal import knock_options, legal_moves
# setup: the spec, cuts and deals (§1 The deal, §2 Roles, §3 first dealer).
from .setup import GameSpec, spec_of, start
# state: the fields and snapshots.
from .state import (
    DISCARD,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    UPCARD,
    WAITING,
    GameState,
    state_from_dict,
    state_to_dict,
)

__all__ = [
    "DISCARD",
    "DRAW",
    "GAME_OVER",
    "HAND_OVER",
    "UPCARD",
    "WAITING",
    "GameSpec",
    "GameState",
    "apply",
    "check_advice",
    "decide",
    "drawn_hands_in_a_row",
    "evolve",
    "knock_options",
    "legal_moves",
    "replay",
    "spec_of",
    "start",
    "state_from_dict",
    "state_to_dict",
]


def apply(state: GameState | None, actor: int | None, command: Command) -> tuple:
    """(new state, events): decide then evolve."""
    events = decide(state, actor, command)
    for e in events:
        state = evolve(state, e)
    return state, events
