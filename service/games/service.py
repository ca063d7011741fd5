"""``GameService``: every use case of the games, one class per group of use cases, in one object.

Each group is a room of its own (creation.py, imports.py, seats.py, commands.py, reads.py, streams.py,
upkeep.py), over the parts and shared reads of ``GameCore`` (core.py).
"""

from __future__ import annotations

from service.games.commands import GameCommands
from service.games.creation import GameCreation
from service.games.imports import GameImport
from service.games.reads import GameReads
from service.games.seats import SeatClaims
from service.games.streams import GameStreams
from service.games.upkeep import GameUpkeep


# The groups are joined here, by inheritance, so that the API and the workers hold one object.
# A caller finds a use case under its name (games.play).
# A reader finds its code in the file named for its group.
class GameService(GameCreation, GameImport, SeatClaims, GameCommands, GameReads, GameStreams, GameUpkeep):
    """Every use case of the games over an EventStore, a GameRepository and a TokenStore."""
