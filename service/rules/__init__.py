"""The pure gin rules engine: cards, melds, variants, commands, events, game flow, views, fairness.

Standard library only (RULES.md §1-§4). ``game`` is the entry point of the game flow, whose
parts live in ``state``, ``setup``, ``deciders``, ``scoring``, ``evolvers`` and ``legal``;
``audit`` checks a finished game's log against its seed. The names most callers need are
re-exported here.
"""

from .commands import (
    Advise,
    ClaimSeat,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    TakeUpcard,
    command_from_dict,
    command_to_dict,
)
from .errors import RulesError
from .events import UnknownEventType, decode, encode
from .game import (
    GameSpec,
    GameState,
    apply,
    decide,
    evolve,
    legal_moves,
    replay,
    start,
    state_from_dict,
    state_to_dict,
)
from .views import view_event, view_state

__all__ = [
    "Advise",
    "ClaimSeat",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "GameSpec",
    "GameState",
    "Knock",
    "PassUpcard",
    "RulesError",
    "TakeUpcard",
    "UnknownEventType",
    "apply",
    "command_from_dict",
    "command_to_dict",
    "decide",
    "decode",
    "encode",
    "evolve",
    "legal_moves",
    "replay",
    "start",
    "state_from_dict",
    "state_to_dict",
    "view_event",
    "view_state",
]
