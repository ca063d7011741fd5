"""The games' use cases, one call each (``create_game``, ``play``, ``claim_seat``, ``list_games`` ...).

A use case refuses in the game's terms (``service.errors``).
``GameService`` joins them in one object; ``core`` holds the parts and types they share.
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
