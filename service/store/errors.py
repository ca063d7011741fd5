"""The exceptions of the event store (the codec raises its own UnknownEventType)."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every error the event store raises."""


class ConcurrencyError(StoreError):
    """The game's version is not the one the writer expected (optimistic concurrency)."""

    def __init__(self, game_id: str, expected: int, actual: int):
        super().__init__(f"game {game_id!r} is at version {actual}, not the expected {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class IdempotencyConflict(StoreError):
    """An idempotency key was reused for a different request (another fingerprint)."""

    def __init__(self, game_id: str, key: str, fingerprint: str, version: int):
        super().__init__(f"idempotency key {key!r} of game {game_id!r} was already used for another request")
        self.game_id = game_id
        self.key = key
        # what the key was first used for: its fingerprint and the version that append produced
        self.fingerprint = fingerprint
        self.version = version


class UnknownGame(StoreError):
    """No event was ever recorded for this game id."""

    def __init__(self, game_id: str):
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class InvalidCursor(StoreError, ValueError):
    """A list_games cursor that this store did not hand out."""


class ArchiveUnreadable(StoreError):
    """A game's archived record that this server cannot read: it reads as no log at all.

    ``code`` is stable: ``archive_format_unsupported`` for a record of a format version written by
    a newer server, ``archive_unreadable`` for a damaged one.
    """

    def __init__(self, game_id: str, code: str, message: str):
        super().__init__(f"game {game_id!r}: {message}")
        self.game_id = game_id
        self.code = code


class GameNotArchivable(StoreError):
    """A game that cannot be archived (yet): not over, or its log would not come back whole.

    ``code``: ``game_not_over`` or ``archive_mismatch``. Nothing is changed.
    """

    def __init__(self, game_id: str, code: str, message: str):
        super().__init__(f"game {game_id!r}: {message}")
        self.game_id = game_id
        self.code = code
