"""What every use case of the arena stands on: its stores, its bounds, and the reads they share.

``ArenaService`` (service/arena/service.py) is this core plus one class per group of use cases.
The games are reached only through what ``service.games`` offers (their use cases, their state,
their tokens); the games reach the arena only through ``service.games.ArenaLink``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from service.errors import BotNotFound, BotTokenRequired, InvalidMatch, MatchNotConsented, MatchNotFound
from service.rules import duplicate as D
from service.rules.names import BOT_POLICY_NAMES
from service.store.tokens import hash_token


log = logging.getLogger(__name__)

BOT_NAME = re.compile(r"^[A-Za-z0-9_-]{2,32}\Z")
#: names a bot account may not take, in any case: what could pass for the server's own players
RESERVED_BOT_NAMES = (*BOT_POLICY_NAMES, "me")
#: the shapes of the names the server gives built-in bots (folded to lower case, '_' or '-'):
#: ``<policy>-bot-<seat>`` at a game's seat (service.games), ``<policy>-<n>`` for a policy's next
#: place in a match (_participants), and ``<policy>-bot`` itself
BUILT_IN_SEAT_NAME = re.compile(
    rf"^(?:{'|'.join(map(re.escape, BOT_POLICY_NAMES))})(?:[-_]bot(?:[-_][0-9]+)?|[-_][0-9]+)\Z")
#: an id of a bot's stream, or 0 (schemas.arena.BOT_STREAM_ID_PATTERN)
STREAM_ID = re.compile(r"^(0|[0-9]{1,15}-[0-9]{1,10})\Z")
#: entries of a bot's stream read at once (its past is sent in batches of this many)
STREAM_READ = 256
#: games of one match in play at once (each table of a board is a game)
MATCH_WINDOW = 64
#: games in play at once of a match of built-in policies alone (each is one job: see plays_whole)
POLICY_MATCH_WINDOW = 16
#: the last events of a clocked game read after an append for a turn_timed_out marker (a clock's
#: append is the marker and one move's events: a knock that ends a hand and deals the next is the longest)
CLOCK_TAIL = 16
#: attempts of one advance against other callers appending to the same match
ADVANCE_ATTEMPTS = 50
#: how often (ms) one process reads every game of a match in play, rather than trusting the marks
#: of the games seen to end
LOOK_EVERY_MS = 5_000
#: how many matches' states a process keeps between reads of their logs
MATCH_STATES_KEPT = 256
#: an accept that claimed a challenge and did not finish within this long (its process died) is
#: taken over by the next accept
ACCEPT_STALE_MS = 60_000
#: the shortest time per move of a match of POST /matches that seats a bot account: the turn clock
#: plays a basic move for each move slower than this, so a shorter one would hand a bot that answers
#: over a network (a round trip, its own thinking) to the clock, and its rating with it
MIN_ACCOUNT_MOVE_TIME_S = 5
#: matches of POST /matches in play at once per caller (a bot's token, and the client address, which counts
#: every account that sends from it) and server-wide (GINBOX_MATCHES_PER_CALLER, GINBOX_MATCHES_IN_PLAY; 0: no cap)
MATCHES_PER_CALLER = 4
MATCHES_IN_PLAY = 32
#: what a bot may say when it declines a challenge (``reason``; none given: generic), and the
#: longest ``text`` it may add (schemas.arena.MAX_DECLINE_TEXT)
DECLINE_REASONS = ("generic", "later", "too_fast", "too_slow", "rated", "casual", "variant", "kind", "not_bots",
                   "only_bots")
#: pending challenges at once to one bot, and of one challenger (a bot, or a client address)
CHALLENGES_PER_BOT = 20
CHALLENGES_PER_CHALLENGER = 5


@dataclass(frozen=True)
class TournamentLimits:
    """The bounds of tournaments (GINBOX_TOURNAMENT_ENTRIES, _ROUNDS, _BOARDS, GINBOX_TOURNAMENTS_IN_PLAY)."""

    entries: int = 16
    rounds: int = 10
    boards: int = 20
    in_play: int = 4


def reserved_bot_name(name: str) -> bool:
    """Whether a bot account may not take ``name``: it is, in any case, a built-in policy's or
    "me", or has the shape of a name the server gives a built-in bot (BUILT_IN_SEAT_NAME)."""
    folded = name.lower()
    return folded in RESERVED_BOT_NAMES or bool(BUILT_IN_SEAT_NAME.match(folded))


def rating_wire(r: dict) -> dict:
    """A stored rating as the wire shows it."""
    return {"rating": round(float(r["rating"]), 2), "deviation": round(float(r["deviation"]), 2),
            "volatility": round(float(r["volatility"]), 6), "games": int(r.get("games", 0))}


class ArenaCore:
    """The arena's parts and the reads its use cases share."""

    def __init__(self, store, match_store, games, *, window: int = MATCH_WINDOW,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 keepalive_s: float = 5.0, stream_max_s: float = 300.0,
                 matches_per_caller: int = MATCHES_PER_CALLER, matches_in_play: int = MATCHES_IN_PLAY,
                 challenges_per_bot: int = CHALLENGES_PER_BOT,
                 challenges_per_challenger: int = CHALLENGES_PER_CHALLENGER,
                 tournament_log=None, tournament_keys=None, tournament_limits=None):
        self.store = store
        # the tournaments' own log and keys (service.arena.tournaments): in-memory twins unless given
        if tournament_log is None:
            from service.rules.tournament import TournamentCodec
            from service.store.memory import InMemoryEventStore

            tournament_log = InMemoryEventStore(codec=TournamentCodec)
        if tournament_keys is None:
            from service.store.tournaments import InMemoryTournaments

            tournament_keys = InMemoryTournaments()
        if tournament_limits is None:
            tournament_limits = TournamentLimits()
        self.tournament_log = tournament_log
        self.tournament_keys = tournament_keys
        self.tournament_limits = tournament_limits
        self.matches_per_caller = matches_per_caller
        self.matches_in_play = matches_in_play
        self.challenges_per_bot = challenges_per_bot
        self.challenges_per_challenger = challenges_per_challenger
        self.matches = match_store
        self.games = games
        self.window = window
        self.clock_ms = clock_ms
        self.keepalive_s = keepalive_s
        self.stream_max_s = stream_max_s
        #: when this process last read every game in play of each match (LOOK_EVERY_MS)
        self._looked: dict[str, int] = {}
        # the matches this process read lately, as their logs told them (_load reads only what follows)
        self._match_states: OrderedDict[str, D.MatchState] = OrderedDict()
        self._match_states_lock = threading.Lock()

    def bot_of(self, token: str | None) -> str:
        """The name of the bot account whose token this is; BotTokenRequired otherwise."""
        if not token:
            raise BotTokenRequired("present a bot account's token: Authorization: Bearer <token>")
        name = self.store.bot_of_token(hash_token(token))
        if name is None:
            raise BotTokenRequired("this token is no bot account's")
        return name

    def bot_name(self, name: str) -> str | None:
        """The bot account called ``name`` in any case (names are taken in any case), in its own
        spelling; None if there is none."""
        return self.store.bot_name(name) if isinstance(name, str) else None

    def _account(self, name: str) -> dict:
        registered = self.bot_name(name)
        bot = None if registered is None else self.store.bot(registered)
        if bot is None:
            raise BotNotFound(f"there is no bot {name!r}")
        return bot

    def _check_consent(self, accounts: list[str], caller: str | None, what: str,
                       otherwise: str = "else challenge it") -> None:
        """MatchNotConsented unless every bot account named (as registered) is the ``caller`` (the
        bot whose token sends the request) or accepts matches, which covers games of POST /games
        and the third participant of a challenge too."""
        for name in accounts:
            bot = self.store.bot(name) or {}
            if name != caller and not bot.get("accepts_matches"):
                # a bot of a challenge's `with` cannot send the challenge (naming oneself there is a
                # duplicate participant): accepts_matches is its only consent
                sends = "" if "challenge" in what else "sends the request (its token) or "
                raise MatchNotConsented(
                    f"the bot {name!r} does not accept matches: {what} seats a bot account only if that bot "
                    f"{sends}has set accepts_matches (PATCH /bots/me); {otherwise}")

    @staticmethod
    def _rule_options(variant: str, options: dict | None, move_time: int | None, *, board: bool) -> dict:
        """The rule options of a match's (``board``) or a challenge's game, the time per move as the
        turn clock; InvalidMatch if they do not fit the variant."""
        options = dict(options or {})
        if move_time is not None:
            options["turn_timeout_s"] = move_time
        try:
            from service.rules import variants

            variants.normalise_options(variant, {**options, **D.BOARD_OPTIONS} if board else options)
        except Exception as err:  # noqa: BLE001 (a RulesError: the options do not fit the variant)
            raise InvalidMatch(f"the options do not fit {variant}: {err}") from None
        return options

    def _match_ended(self, match_id: str) -> None:
        """Told when a match is over (after its log says so); the tournaments' room moves its tournament on."""

    def _load(self, match_id: str) -> D.MatchState:
        """The match as its log tells it now: the state this process holds, brought up to date with
        the log's records after it (a match's log only grows), or the whole log the first time."""
        if not isinstance(match_id, str) or not re.fullmatch(r"[A-Za-z0-9_-]{16}", match_id):
            raise MatchNotFound(f"there is no match {match_id!r}")
        with self._match_states_lock:
            state = self._match_states.get(match_id)
        records = self.matches.load(match_id, after=state.version if state is not None else 0)
        if state is None and not records:
            raise MatchNotFound(f"there is no match {match_id!r}")
        for r in records:
            state = D.evolve(state, r.event)
        if records:
            with self._match_states_lock:
                kept = self._match_states.get(match_id)
                # of two loads at once, the one that read further is kept
                if kept is None or kept.version < state.version:
                    self._match_states[match_id] = state
                self._match_states.move_to_end(match_id)
                while len(self._match_states) > MATCH_STATES_KEPT:
                    self._match_states.popitem(last=False)
        return state
