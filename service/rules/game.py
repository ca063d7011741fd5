"""Game flow, the engine's entry point: start, decide, evolve, replay and legal_moves.

Implements RULES.md §1-§4 by composing the modules that hold each part: ``setup`` (the spec,
cuts and deals: §1 The deal, §2 Roles, §3 first dealer), ``deciders`` (whether a command is
legal and the events it causes: §1 turns, knocking, drawn hands; §2 seats and advice; §3 big
gin), ``scoring`` (§2 and §3 scoring, the end of the game, rotation), ``evolvers`` (what each
event changes), ``legal`` (every legal move) and ``state`` (the fields and snapshots).

``decide(state, actor, command)`` checks a command and returns the events it causes, or raises
RulesError; it never changes the state. ``evolve(state, event)`` applies one event without any
check, so a replay cannot fail halfway.
"""

from __future__ import annotations

from .commands import Command
from .deciders import check_advice, decide, drawn_hands_in_a_row
from .evolvers import evolve, replay
from .legal import knock_options, legal_moves
from .setup import GameSpec, start
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
