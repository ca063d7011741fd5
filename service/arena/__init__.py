"""The arena's use cases: bot accounts, each bot's stream, duplicate matches, ratings and challenges.

``ArenaService`` joins them in one object; ``core`` holds the parts, bounds and reads they share.
"""

from service.arena.core import (
    ACCEPT_STALE_MS,
    MATCH_WINDOW,
    MIN_ACCOUNT_MOVE_TIME_S,
    STREAM_ID,
    reserved_bot_name,
)
from service.arena.service import ArenaService
from service.rules.challenges import CHALLENGE_TTL_MS, made_id

__all__ = ["ACCEPT_STALE_MS", "CHALLENGE_TTL_MS", "MATCH_WINDOW", "MIN_ACCOUNT_MOVE_TIME_S", "STREAM_ID",
           "ArenaService", "made_id", "reserved_bot_name"]
