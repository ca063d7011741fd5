"""Why the use cases refuse a request, in the game's terms: no HTTP here.

Each refusal has a stable ``code`` (what a client branches on) and a human ``detail``.
Each is of one kind: not found, not authenticated, forbidden, conflict, version moved on, unprocessable.
Only ``service.api.problems`` turns the kind into an HTTP answer (status, problem type, headers).
"""

# The workers catch these errors by class: a VersionMismatch means someone else moved first.

from __future__ import annotations

# Four failures of the store reach the API as they are: a game that moved on while a command was
# decided (ConcurrencyError), an idempotency key of a move used for another request
# (IdempotencyConflict), a listing's cursor the store never handed out (InvalidCursor), and an
# archived record this server cannot read (ArchiveUnreadable). They are
# named from here, the module of what the use cases raise, rather than translated into twins of
# their own: the use cases and the workers already catch them by these classes, so a twin would
# make two classes of one failure and a try/except in every use case that appends or lists, for
# no difference on the wire. So the API's one error map imports no store.
from service.store.errors import ArchiveUnreadable as ArchiveUnreadable
from service.store.errors import ConcurrencyError as ConcurrencyError
from service.store.errors import IdempotencyConflict as IdempotencyConflict
from service.store.errors import InvalidCursor as InvalidCursor


class DomainError(Exception):
    """A refusal of a use case: a stable ``code`` and a human ``detail``.

    A subclass states its code in its header: ``class SeatNotFound(NotFound, code="seat_not_found")``.
    """

    code = "refused"

    def __init_subclass__(cls, code: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


# -- the kinds of refusal ------------------------------------------------------------------------


class NotFound(DomainError):
    """What the request names does not exist."""


class Unauthorized(DomainError, code="unauthorized"):
    """The token presented holds no seat of this game."""


class Forbidden(DomainError, code="forbidden"):
    """The caller's role may not do this (at all, or not yet)."""


class Conflict(DomainError, code="conflict"):
    """The game kept changing while the request was decided (or is not where the request needs it)."""


class VersionMismatch(DomainError, code="version_mismatch"):
    """The game is not at a version the caller said it expected; ``current``: its version, if known."""

    def __init__(self, detail: str, current: int | None = None):
        super().__init__(detail)
        self.current = current


class TooMany(DomainError):
    """The caller, or the server, has as many of these under way as it may; ``retry_after``: the seconds to wait."""

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.retry_after = retry_after


class Unprocessable(DomainError):
    """The request is well formed but names something no game can have, or repeats a key for another request."""


# -- the refusals ----------------------------------------------------------------------------------


class GameNotFound(NotFound, code="game_not_found"):
    """There is no game of that id."""

    def __init__(self, game_id: str):
        super().__init__(f"there is no game {game_id!r}")
        self.game_id = game_id


class SeatNotFound(NotFound, code="seat_not_found"):
    """The game has no seat of that number."""


class VersionNotFound(NotFound, code="version_not_found"):
    """The game has not reached that version."""


class InviteRequired(Forbidden, code="invite_required"):
    """The seat is by invitation: the claim must present the seat's invite secret, and did not."""


class GameNotOver(Conflict, code="game_not_over"):
    """Only available once the game is over."""


class AdviceLimitReached(Conflict, code="advice_limit_reached"):
    """The advisor already gave all the advice one decision allows."""


class InvalidVersion(Unprocessable, code="invalid_version"):
    """No game has that version (versions start at 1)."""


class IdempotencyKeyReused(Unprocessable, code="idempotency_key_reused"):
    """The idempotency key was already used for a different request."""

    def __init__(self, detail: str = "this Idempotency-Key was already used for a different request"):
        super().__init__(detail)


class IdempotencyKeyInUse(Conflict, code="idempotency_key_in_use"):
    """A request with this idempotency key is being answered; ``retry_after``: the seconds to wait."""

    def __init__(self, retry_after: int):
        super().__init__("a request with this Idempotency-Key is being answered; retry after Retry-After")
        self.retry_after = retry_after


class AnalysisNotFound(NotFound, code="analysis_not_found"):
    """The game has no decision analysis: none was asked for, or it expired."""


class TooManyAnalyses(TooMany, code="too_many_analyses"):
    """The caller, or the server, has as many decision analyses queued or running as it may."""


# -- the arena's refusals (service.arena) ------------------------------------------------------


class BotNotFound(NotFound, code="bot_not_found"):
    """No bot account has that name."""


class MatchNotFound(NotFound, code="match_not_found"):
    """No match has that id."""


class ChallengeNotFound(NotFound, code="challenge_not_found"):
    """No challenge has that id."""


class BotTokenRequired(Unauthorized, code="bot_token_required"):
    """The request needs a bot account's token, and none (or an unknown one) was presented."""


class ChallengeTokenRequired(Unauthorized, code="challenge_token_required"):
    """Withdrawing a person's challenge needs the token its answer gave, and none was presented."""


class MatchGameSealed(Forbidden, code="match_game_sealed"):
    """A game of a match in play reads only for its seats (the other tables play the same deal)."""


class NotChallenged(Forbidden, code="not_challenged"):
    """Only the bot a challenge is addressed to may accept or decline it."""


class NotChallenger(Forbidden, code="not_challenger"):
    """Only the challenger may withdraw its challenge."""


class MatchNotConsented(Forbidden, code="match_not_consented"):
    """A match or a game names a bot account that neither sends it (its token) nor accepts
    matches; a challenge names in ``with`` one that does not accept matches (when it is sent, or
    when it is accepted: the challenge then stays pending)."""


class TooManyMatches(Conflict, code="too_many_matches"):
    """The caller, or the server, has as many matches of POST /matches in play as it may."""


class TooManyChallenges(Conflict, code="too_many_challenges"):
    """The challenged bot, or the challenger, has as many pending challenges as it may."""


class TooManyBotGames(Conflict, code="too_many_bot_games"):
    """The caller has as many games of built-in bots alone (POST /games) in play as it may."""


class BotNameTaken(Conflict, code="bot_name_taken"):
    """A bot account of that name exists already."""


class ChallengeNotPending(Conflict, code="challenge_not_pending"):
    """The challenge was accepted, declined or withdrawn already."""


class MatchNotOver(Conflict, code="match_not_over"):
    """Only available once the match is over."""


class InvalidBotName(Unprocessable, code="invalid_bot_name"):
    """A bot's name: 2 to 32 letters, digits, '_' or '-', and not a built-in policy's."""


class UnknownParticipant(Unprocessable, code="unknown_participant"):
    """A participant is neither a built-in policy nor a bot account."""


class DuplicateParticipant(Unprocessable, code="duplicate_participant"):
    """A bot account may hold one place in a match or game."""


class InvalidDeclineReason(Unprocessable, code="invalid_decline_reason"):
    """A challenge is declined with one of the reasons the server lists, or none."""


class InvalidMatch(Unprocessable, code="invalid_match"):
    """The match's variant, participants, boards or time per move do not fit together."""


class TournamentNotFound(NotFound, code="tournament_not_found"):
    """There is no tournament of that id."""


class TournamentNotConsented(Forbidden, code="tournament_not_consented"):
    """A tournament names a bot account that neither sends it (its token) nor accepts tournaments."""


class TooManyTournaments(Conflict, code="too_many_tournaments"):
    """The server has as many tournaments in play as it takes (GINBOX_TOURNAMENTS_IN_PLAY)."""


class UnknownPairingSystem(Unprocessable, code="unknown_pairing_system"):
    """A tournament's pairing system is round_robin or swiss."""


class TournamentTooSmall(Unprocessable, code="tournament_too_small"):
    """A tournament has two entries at least."""


class TournamentTooLarge(Unprocessable, code="tournament_too_large"):
    """A tournament has at most GINBOX_TOURNAMENT_ENTRIES entries and GINBOX_TOURNAMENT_ROUNDS rounds."""


class InvalidTournament(Unprocessable, code="invalid_tournament"):
    """The tournament's variant, rounds or boards do not fit together or this server's bounds."""
