"""The games' use cases: each is one call (``create_game``, ``play``, ``claim_seat``, ``list_games`` ...)
that refuses in the game's terms (``service.errors``).

Every command follows one path: take the state (the newest one this process holds, else the
log's), let the engine decide, append the events with the version the decision was based on
(optimistic concurrency: the append is what checks that state against the log), then tell the
bot scheduler and the arena (``GameCore.after_append``). Everything a caller sees of a game passes
through ``service.rules.views``.
"""

from service.games.core import (
    GAME_ENDS,
    LIST_SCAN_MAX,
    Answer,
    ArenaLink,
    CommandRequest,
    GameLimits,
    Idempotency,
    Incoming,
    NoArena,
    new_game_id,
)
from service.games.service import GameService

__all__ = ["GAME_ENDS", "LIST_SCAN_MAX", "Answer", "ArenaLink", "CommandRequest", "GameLimits", "GameService",
           "Idempotency", "Incoming", "NoArena", "new_game_id"]
