"""The arena's use cases: bot accounts, each bot's stream, duplicate matches, ratings and challenges.

A **bot account** has a name and one secret token (shown once, kept as its SHA-256 like a seat
token). When the arena seats a bot in a game, the game's seat token hash *is* the bot's token
hash, so the bot's one token plays every seat it is given through the ordinary game routes, and
a token of another bot matches none of them.

Every append of every game is told to :meth:`ArenaService.on_append` (the games hold the arena as
their ``ArenaLink``): a bot account to act gets ``your_turn`` on its stream, a finished game
``game_over``; a finished game of a match moves the match on (``advance``), a finished rated
game updates the ratings. Each match is its own log (service.rules.duplicate decides and folds
it) in an EventStore of its own. ``advance`` is idempotent and any caller may run it: the
game-over hook, a reader of the match, a worker after a crash; the log's optimistic append
decides which of two racing callers records a board, so no board is recorded twice, and the
boards' games have ids fixed by (match, board, table), so none is started twice.
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
