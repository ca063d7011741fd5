"""What every use case of the games stands on: their parts, the types they answer with, their shared reads.

The shared reads are a game's state, a reader's seat and a view.
``GameService`` (service/games/service.py) is this core plus one class per group of use cases.
Each group is in a file of its own.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Collection, Protocol

from service.errors import Forbidden, GameNotFound, MatchGameSealed, Unauthorized
from service.idempotency import request_fingerprint
from service.rules import events as ev, views
from service.rules.actors import human_clock
from service.store.advice import AdviceLog, InMemoryAdviceLog
from service.store.base import GameIndex, canonical_json, scoped_idempotency_key
from service.store.errors import UnknownGame
from service.store.tokens import TokenStore

log = logging.getLogger(__name__)

class AppendHook(Protocol):
    """What is told of every append (the bot scheduler, service.bots.BotScheduler)."""

    def __call__(self, game_id: str, state, *, whole: bool = False) -> None:
        """``whole``: the append is a move of the job that plays the game whole."""
CLAIM_ATTEMPTS = 5
#: the most entries of the index one listing reads: past those, a page that has not found ``limit``
#: games the caller may see (the rest were games of matches in play) is cut short there
LIST_SCAN_MAX = 5000
#: the events that end a game (the last of its log)
GAME_ENDS = (ev.GameEnded, ev.GameResigned, ev.GameAbandoned, ev.GameExpired)


def new_game_id() -> str:
    """16 URL-safe characters (96 random bits)."""
    return secrets.token_urlsafe(12)


@dataclass(frozen=True)
class Answer:
    """A view and the version it shows (the ETag)."""

    view: dict
    version: int


@dataclass(frozen=True)
class Idempotency:
    """An idempotency key as the client sent it, and the request it stands for.

    Both are recorded per seat (the key under the seat's scope, the seat in the fingerprint):
    two seats that choose the same key make two requests, and a key replayed by another seat
    can never return the first caller's view.
    """

    key: str
    method: str
    path: str
    body: Any

    def for_seat(self, seat: int) -> tuple[str, str]:
        """(the key as recorded, the fingerprint of the request) for ``seat``."""
        return (scoped_idempotency_key(f"seat:{seat}", self.key),
                # the seat is on a line of its own, so that a key replayed by another seat can never
                # return the first caller's (private) view
                request_fingerprint(self.method, self.path, str(seat), canonical_json(self.body)))


@dataclass(frozen=True)
class CommandRequest:
    """A parsed command and its conditions: the versions the client accepts, its idempotency key."""

    command: Any
    expected_versions: Collection[int] | None = None
    idempotency: Idempotency | None = None


class Incoming(Protocol):
    """A command as it arrives, read in the order its refusals are answered.

    The game must exist (else GameNotFound, whoever asks), then the caller must hold a seat
    (``token``), and only then is the request itself read (``request``): a caller who may not
    send a command at all is told so before being told what is wrong with it.
    """

    def token(self) -> str:
        """The seat token presented (the caller's own refusal if there is none)."""

    def request(self) -> CommandRequest:
        """The parsed command and its conditions (the caller's own refusal if it is malformed)."""


# The arena is reached only through ArenaLink.
# The composition root hands the games the arena once both exist (GameCore.join_arena).
class ArenaLink(Protocol):
    """What the games ask of the arena (``service.arena.ArenaService`` is one)."""

    def seat_accounts(self, game_id: str, seats: dict[int, str], token: str | None) -> None:
        """Seat bot accounts at a new game (each seat's token is its bot's); refuse one that does not consent."""

    def bot_name(self, name: str) -> str | None:
        """A bot account's name as registered, asked in any case (None: no such account)."""

    def sealed(self, game_id: str) -> bool:
        """Whether a game reads only for its seats (a board of a match in play)."""

    def sealed_among(self, game_ids: list[str], in_play: dict[str, bool]) -> set[str]:
        """The sealed games among many (``in_play``: a memo the caller keeps across batches)."""

    def on_append(self, game_id: str, state) -> None:
        """Hear of an append (bots to tell, a match to move on, ratings to update)."""


class NoArena:
    """The arena of a server without one: no bot accounts, no sealed games, nothing to tell."""

    def seat_accounts(self, game_id: str, seats: dict[int, str], token: str | None) -> None:
        raise Forbidden("this server seats no bot accounts")

    def bot_name(self, name: str) -> str | None:
        return None

    def sealed(self, game_id: str) -> bool:
        return False

    def sealed_among(self, game_ids: list[str], in_play: dict[str, bool]) -> set[str]:
        return set()

    def on_append(self, game_id: str, state) -> None:
        return None


@dataclass(frozen=True)
class GameLimits:
    """The games' tunable bounds and timings (Settings gives them; the defaults suit tests)."""

    #: how long a live stream stays quiet before a keep-alive comment, and how long it lasts
    keepalive_s: float = 5.0
    stream_max_s: float = 300.0
    #: how often a live stream that may show advice looks for new advice
    advice_poll_s: float = 1.0
    #: games of built-in bots alone in play per caller and server-wide (0: no cap)
    bot_games_per_caller: int = 0
    bot_games_in_play: int = 0


class GameCore:
    """The parts every use case of the games uses, and the reads they share."""

    def __init__(self, store, repository, tokens: TokenStore, *, index: GameIndex | None = None,
                 scheduler: AppendHook | None = None, advice: AdviceLog | None = None,
                 arena: ArenaLink | None = None, seals: bool = True, bot_games=None,
                 limits: GameLimits = GameLimits(), id_factory: Callable[[], str] = new_game_id,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 archive_later: Callable[[str], object] | None = None):
        self.store = store
        # the games newest first: a projection the store keeps as it appends
        self.index = index if index is not None else store.index
        self.repository = repository
        self.tokens = tokens
        # the advisor's messages live in a log of their own (service/store/advice.py says why)
        self.advice = advice if advice is not None else InMemoryAdviceLog(store)
        #: told of every append after the arena's bots and matches: the bot scheduler
        self.scheduler: AppendHook = scheduler or (lambda game_id, state, whole=False: None)
        self.arena: ArenaLink = arena if arena is not None else NoArena()
        #: whether reads honour the arena's seal: an API process's do; a worker reads for no outside
        #: caller (its sweeper lists every game in play, a match's too), so it seals nothing
        self.seals = seals
        #: the counts of games of built-in bots alone in play, per caller and server-wide
        #: (service.store.bot_games; None: none counted)
        self.bot_games = bot_games
        # the bounds are kept one by one, not as ``limits``: a test (or an operator's shell) tunes one
        self.keepalive_s = limits.keepalive_s
        self.stream_max_s = limits.stream_max_s
        self.advice_poll_s = limits.advice_poll_s
        self.bot_games_per_caller = limits.bot_games_per_caller
        self.bot_games_in_play = limits.bot_games_in_play
        #: the most index entries one listing reads (LIST_SCAN_MAX)
        self.list_scan_max = LIST_SCAN_MAX
        self.id_factory = id_factory
        self.clock_ms = clock_ms
        #: told the id of each game the append ends: queues the job that archives it
        #: (service.games.archive.queue_archive; None: nothing archives it but ``ginbox archive``)
        self.archive_later = archive_later

    def join_arena(self, arena: ArenaLink) -> None:
        """Take the arena (built after the games, since it plays through them)."""
        self.arena = arena

    def sealed(self, game_id: str) -> bool:
        """Whether ``game_id`` reads only for its seats (a board of a match in play)."""
        return self.seals and self.arena.sealed(game_id)

    def sealed_among(self, game_ids: list[str], memo: dict[str, bool]) -> set[str]:
        """The sealed games among ``game_ids``."""
        return self.arena.sealed_among(game_ids, memo) if self.seals else set()

    def state(self, game_id: str, upto: int | None = None):
        """The game's state (as of ``upto``); GameNotFound if there is no such game."""
        try:
            return self.repository.load_state(game_id, upto=upto)
        except UnknownGame:
            raise GameNotFound(game_id) from None

    def seat_for(self, game_id: str, token: str | None) -> int | None:
        """The seat of a reader's token (None for no token: a spectator).

        MatchGameSealed for anyone but a seat of a sealed game; Unauthorized for a token of no seat.
        """
        seat = self.tokens.seat_of(game_id, token) if token is not None else None
        if seat is None and self.sealed(game_id):
            raise MatchGameSealed("this game is a board of a match in play: only its seats may read it "
                                  "until the match is over")
        if token is not None and seat is None:
            raise Unauthorized("this token is not a seat token of this game")
        return seat

    def _seat_of(self, game_id: str, token: str) -> int:
        """The seat a player's token belongs to; Unauthorized for a token of no seat."""
        seat = self.tokens.seat_of(game_id, token)
        if seat is None:
            raise Unauthorized("this token is not a seat token of this game")
        return seat

    def render(self, game_id: str, state, seat: int | None) -> dict:
        """The view of ``state`` for ``seat`` (None: a spectator).

        It holds the game id, the advice the seat may see and the turn's deadline.
        A finished game of a match in play (``sealed``) shows ``status`` "over" without its seed,
        stock and decks.
        """
        # A sealed game keeps its seed, stock and decks out of the view, as a game in play does.
        # They deal the match's other tables too.
        # So not even its seats see them before the match ends.
        sealed = self._sealed_over(game_id, state)
        view = {"game_id": game_id,
                **views.view_state(state, seat, self._advice_upto(game_id, state, seat, sealed), sealed=sealed)}
        view["turn_deadline_ms"] = self._turn_deadline_ms(game_id, state)
        return view

    def _turn_deadline_ms(self, game_id: str, state) -> int | None:
        """When the turn clock plays for the human seat to act in ``state`` (epoch ms), or None.

        The deadline is the time of the state's last event plus the timeout.
        None when no clock runs: no timeout, a game not in play, or only bots to act.
        """
        # This is the turn clock of service.bots, with the rule option turn_timeout_s.
        # A match's move_time_s sets that option.
        # The clock starts when the state's last event is appended.
        timeout_s = human_clock(state) if state is not None else None
        if timeout_s is None:
            # the log is read only for a clocked game, so that other views cost no extra round trip
            return None
        # the event's time is read from the log, so that the state stays a fold of the events alone
        last = self.store.load(game_id, after=state.version - 1, upto=state.version)
        return last[-1].ts + round(timeout_s * 1000) if last else None

    def _sealed_over(self, game_id: str, state) -> bool:
        """Whether ``state`` is over while its game is sealed (asked only of a finished game, so that
        the views of a game in play cost no extra round trip)."""
        return state is not None and state.status == "over" and self.sealed(game_id)

    def _advice_upto(self, game_id: str, state, seat: int | None, sealed: bool = False) -> list[dict]:
        """The advice log's entries up to ``state``'s version, if ``seat`` may see advice there (else none).

        Read only for three-hand games and for those who may see advice, so that other views
        cost no extra round trip and say nothing of whether advice exists.
        """
        if state is None or state.variant != "three-hand" or not views.sees_advice(state, seat, sealed):
            return []
        return [r.as_dict() for r in self.advice.read(game_id) if r.version <= state.version]

    def after_append(self, game_id: str, state, *, whole: bool = False) -> None:
        """Tell the bot scheduler, then the arena; a failure of either never fails the command that succeeded.

        ``whole``: the append is a move of the job that plays this board game whole (service.bots).
        """
        try:
            self.scheduler(game_id, state, whole=whole)
        except Exception:  # noqa: BLE001 (a bot problem must not fail a move that was recorded)
            log.exception("bot scheduler failed for game %s", game_id)
        try:
            self.arena.on_append(game_id, state)
        except Exception:  # noqa: BLE001 (the arena catches up: its readers and workers advance matches)
            log.exception("the arena failed to hear of an append to game %s", game_id)
        if state is not None and state.status == "over" and self.archive_later is not None:
            try:
                self.archive_later(game_id)
            except Exception:  # noqa: BLE001 (ginbox archive archives what was not queued)
                log.exception("the archive of game %s was not queued", game_id)
