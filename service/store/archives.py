"""What the event stores share to archive a finished game's log and to read it back.

The archived record's format is the engine's (:mod:`service.rules.archive`).
A store writes it once the game is over, checks that it gives back the log, then drops the log
and the game's snapshots; from then on its reads decode the record (kept decoded in memory).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from service.store.errors import ArchiveUnreadable, GameNotArchivable

#: archived games whose decoded logs a store keeps in memory (a few hundred events each, some
#: 30 KB of text): the decoding replays the rules once per game and process
DECODED_GAMES = 256


def archive_format():
    """The engine's archive format, imported on first use (a store of other events never needs it)."""
    from service.rules import archive

    return archive


def check_codec(codec: Any) -> None:
    """Only the engine's own events can be archived: the record derives them with its rules."""
    from service.rules import codec as engine_codec

    if codec is not engine_codec:
        raise ValueError("only a store of the engine's events (service.rules.codec) archives its games")


def encode_log(game_id: str, entries: list[tuple[int, Any]], advice: list[tuple[int, int, int, Any]] = ()) -> bytes:
    """The archived record of a game's whole log ((ts, stored text) per event) and of its advice log
    ((version, seq, ts, entry JSON) per piece), checked to give both back.

    GameNotArchivable (``game_not_over``, ``archive_mismatch``) if it cannot be archived.
    """
    fmt = archive_format()
    try:
        record, _ = fmt.encode(entries, advice)
    except fmt.NotOver:
        raise GameNotArchivable(game_id, "game_not_over", "the game is not over: its log still grows") from None
    except fmt.ArchiveMismatch as err:
        raise GameNotArchivable(game_id, "archive_mismatch", str(err)) from None
    return record


class DecodedArchives:
    """The logs of archived games, decoded, by game id; the least recently used game goes first.

    A record never changes once written, so a decoded log is kept as long as the same record is read.
    """

    def __init__(self, max_games: int = DECODED_GAMES):
        self.max_games = max_games
        self._games: OrderedDict[str, tuple[bytes, list]] = OrderedDict()
        self._lock = threading.Lock()

    def entries(self, game_id: str, record: bytes):
        """What ``record`` stands for (``service.rules.archive.Decoded``): the log, [(ts, stored text)] in
        version order, and the advice log; ArchiveUnreadable if it cannot be read."""
        record = bytes(record)
        with self._lock:
            held = self._games.get(game_id)
            if held is not None and held[0] == record:
                self._games.move_to_end(game_id)
                return held[1]
        fmt = archive_format()
        try:
            entries = fmt.decode(record)
        except fmt.ArchiveFormatError as err:
            raise ArchiveUnreadable(game_id, err.code, err.message) from None
        with self._lock:
            self._games[game_id] = (record, entries)
            self._games.move_to_end(game_id)
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)
        return entries
