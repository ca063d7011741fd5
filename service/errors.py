"""Why the use cases refuse a request, in the game's terms: no HTTP here.

Each refusal has a stable ``code`` (what a client branches on) and a human ``detail``.
``service.api.problems`` alone turns them into HTTP answers (status, problem type, headers);
the workers catch them by class (a ``VersionMismatch`` means someone else moved first).
"""

from __future__ import annotations


class DomainError(Exception):
    """A refusal of a use case: a stable ``code`` and a human ``detail``."""

    code = "refused"

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class GameNotFound(DomainError):
    """There is no game of that id."""

    code = "game_not_found"

    def __init__(self, game_id: str):
        super().__init__(f"there is no game {game_id!r}")
        self.game_id = game_id


class SeatNotFound(DomainError):
    """The game has no seat of that number."""

    code = "seat_not_found"


class VersionNotFound(DomainError):
    """The game has not reached that version."""

    code = "version_not_found"


class InvalidVersion(DomainError):
    """No game has that version (versions start at 1)."""

    code = "invalid_version"


class Unauthorized(DomainError):
    """The token presented holds no seat of this game."""

    code = "unauthorized"


class Forbidden(DomainError):
    """The caller's role may not do this (at all, or not yet)."""

    code = "forbidden"


class InviteRequired(DomainError):
    """The seat is by invitation: the claim must present the seat's invite secret, and did not."""

    code = "invite_required"


class Conflict(DomainError):
    """The game kept changing while the request was decided."""

    code = "conflict"


class GameNotOver(DomainError):
    """Only available once the game is over."""

    code = "game_not_over"


class AdviceLimitReached(DomainError):
    """The advisor already gave all the advice one decision allows."""

    code = "advice_limit_reached"


class VersionMismatch(DomainError):
    """The game is not at a version the caller said it expected; ``current``: its version, if known."""

    code = "version_mismatch"

    def __init__(self, detail: str, current: int | None = None):
        super().__init__(detail)
        self.current = current


class IdempotencyKeyReused(DomainError):
    """The idempotency key was already used for a different request."""

    code = "idempotency_key_reused"

    def __init__(self, detail: str = "this Idempotency-Key was already used for a different request"):
        super().__init__(detail)
