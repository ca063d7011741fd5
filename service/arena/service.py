"""``ArenaService``: every use case of the arena, one class per group of use cases, in one object.

Each group is a room of its own (accounts.py, bot_stream.py, bot_lists.py, matches.py, boards.py,
challenges.py, tournaments.py) over the parts of ``ArenaCore`` (core.py), joined here by inheritance as ``service.games.GameService`` is.
"""

from __future__ import annotations

from service.arena.accounts import BotAccounts
from service.arena.boards import ArenaBoards
from service.arena.bot_stream import BotStream
from service.arena.challenges import ArenaChallenges
from service.arena.matches import ArenaMatches
from service.arena.tournaments import ArenaTournaments


class ArenaService(BotAccounts, BotStream, ArenaMatches, ArenaBoards, ArenaChallenges, ArenaTournaments):
    """Bot accounts, streams, matches, ratings, challenges and tournaments over the arena store and the games."""
