"""The arena's use cases: bot accounts, each bot's stream, duplicate matches, ratings and challenges.

A **bot account** has a name and one secret token (shown once, kept as its SHA-256 like a seat
token). When the arena seats a bot in a game, the game's seat token hash *is* the bot's token
hash, so the bot's one token plays every seat it is given through the ordinary game routes, and
a token of another bot matches none of them.

Every append of every game passes through :meth:`ArenaService.on_append` (composition wraps the
bot scheduler with it): a bot account to act gets ``your_turn`` on its stream, a finished game
``game_over``; a finished game of a match moves the match on (:meth:`advance`), a finished rated
game updates the ratings. Each match is its own log (service.rules.duplicate decides and folds
it) in an EventStore of its own. :meth:`advance` is idempotent and any caller may run it: the
game-over hook, a reader of the match, a worker after a crash; the log's optimistic append
decides which of two racing callers records a board, so no board is recorded twice, and the
boards' games have ids fixed by (match, board, table), so none is started twice.
"""

from __future__ import annotations

import base64
import contextvars
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterator

from rq import Retry
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job

from service import bots
from service.errors import (
    BotNameTaken,
    BotNotFound,
    BotTokenRequired,
    ChallengeNotFound,
    ChallengeNotPending,
    ChallengeTokenRequired,
    DomainError,
    DuplicateParticipant,
    Forbidden,
    GameNotFound,
    IdempotencyKeyReused,
    InvalidBotName,
    InvalidMatch,
    MatchNotConsented,
    MatchNotFound,
    MatchNotOver,
    NotChallenged,
    NotChallenger,
    TooManyChallenges,
    TooManyMatches,
    UnknownParticipant,
)
from service.rules import duplicate as D
from service.rules import game
from service.rules.names import BOT_POLICY_NAMES
from service.rules.ratings import Rating, rate_period, score_of
from service.store.creations import Made
from service.store.errors import ConcurrencyError, IdempotencyConflict, UnknownGame
from service.store.tokens import hash_token, issue_token

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
#: the job that plays a whole board game of built-in policies (workers/arena_jobs.py)
PLAY_BOARD_GAME = "workers.arena_jobs.play_board_game"
#: the longest a whole board game may take in its job (an expert thinks for its budget each move)
BOARD_JOB_TIMEOUT_S = 600
#: the game a job is playing whole, while it does: that game's own appends schedule nothing (the
#: games its end starts in a match are scheduled as usual)
PLAYING_WHOLE: contextvars.ContextVar[str | None] = contextvars.ContextVar("playing_whole", default=None)
#: attempts of one advance against other callers appending to the same match
ADVANCE_ATTEMPTS = 50
#: how often (ms) one process reads every game of a match in play, rather than trusting the marks
#: of the games seen to end
LOOK_EVERY_MS = 5_000
#: an accept that claimed a challenge and did not finish within this long (its process died) is
#: taken over by the next accept
ACCEPT_STALE_MS = 60_000
#: the shortest time per move of a match of POST /matches that seats a bot account: the turn clock
#: plays a basic move for each move slower than this, so a shorter one would hand a bot that answers
#: over a network (a round trip, its own thinking) to the clock, and its rating with it
MIN_ACCOUNT_MOVE_TIME_S = 5
#: matches of POST /matches in play at once per caller (a bot's token, else the client address)
#: and server-wide (GINBOX_MATCHES_PER_CALLER, GINBOX_MATCHES_IN_PLAY; 0: no cap)
MATCHES_PER_CALLER = 4
MATCHES_IN_PLAY = 32
#: how long a challenge waits for its answer (then it reads as ``expired``)
CHALLENGE_TTL_MS = 24 * 3600 * 1000
#: pending challenges at once to one bot, and of one challenger (a bot, or a client address)
CHALLENGES_PER_BOT = 20
CHALLENGES_PER_CHALLENGER = 5


def reserved_bot_name(name: str) -> bool:
    """Whether a bot account may not take ``name``: it is, in any case, a built-in policy's or
    "me", or has the shape of a name the server gives a built-in bot (BUILT_IN_SEAT_NAME)."""
    folded = name.lower()
    return folded in RESERVED_BOT_NAMES or bool(BUILT_IN_SEAT_NAME.match(folded))


def plays_whole(state) -> bool:
    """Whether a job plays this game whole: a match's board game whose every seat is a built-in policy."""
    players = getattr(state, "players", None) or ()
    return (getattr(state, "status", None) == "playing" and bool(players)
            and all(isinstance(p, dict) and p.get("bot") and p.get("match") for p in players))


def board_job_id(game_id: str, version: int) -> str:
    """``board-<game_id>-<version>``: one whole-game job per (game, version)."""
    return f"board-{bots.bot_job_id(game_id, version)[4:]}"


def enqueue_board_game(queue, key_prefix: str, game_id: str, version: int, *, force: bool = False) -> bool:
    """Enqueue ``play_board_game(game_id, version)`` on ``queue`` once per version; True if enqueued.

    ``queue`` is the board queue (GINBOX_BOARD_QUEUE), never the turn queue: a whole game takes
    seconds to minutes, and a bot's turn in a person's game must not wait behind it. The game
    joins the waiting set of the turn jobs, so that the sweeper enqueues its board job again if
    it is lost with its worker. ``force`` first deletes a job of that id known to be lost (the
    sweeper's case).
    """
    queue.connection.zadd(bots.awaiting_key(key_prefix), {game_id: int(time.time() * 1000)})
    job_id = board_job_id(game_id, version)
    if force:
        try:
            Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer).delete(remove_from_queue=True)
        except NoSuchJobError:
            pass
    try:
        queue.enqueue(PLAY_BOARD_GAME, game_id, version, job_id=job_id,
                      unique=True, job_timeout=BOARD_JOB_TIMEOUT_S, result_ttl=bots.RESULT_TTL_S,
                      failure_ttl=bots.FAILURE_TTL_S,
                      retry=Retry(max=len(bots.RETRY_INTERVALS), interval=bots.RETRY_INTERVALS),
                      description=f"board game {game_id} from version {version}")
    except DuplicateJobError:
        return False
    return True


# -- the service ---------------------------------------------------------------------------------


class ArenaService:
    """Bot accounts, streams, matches, ratings and challenges over the arena store and the games."""

    def __init__(self, store, match_store, games, *, window: int = MATCH_WINDOW,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 keepalive_s: float = 5.0, stream_max_s: float = 300.0,
                 matches_per_caller: int = MATCHES_PER_CALLER, matches_in_play: int = MATCHES_IN_PLAY,
                 challenges_per_bot: int = CHALLENGES_PER_BOT,
                 challenges_per_challenger: int = CHALLENGES_PER_CHALLENGER):
        self.store = store
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

    # -- bot accounts ------------------------------------------------------------------------------

    def register_bot(self, body: dict, made: Made | None = None) -> dict:
        """A new bot account; its token is in this answer only.

        ``made``: the request's Idempotency-Key made it (service.store.creations.Made): the token
        is derived from the key and the request. A retry of a registration whose first answer was
        lost (a 503: its write may have landed) finds the account under its name with that
        token's hash and answers with it, the same token, instead of 409 ``bot_name_taken``.
        """
        name = body["name"]
        if not BOT_NAME.match(name) or reserved_bot_name(name):
            raise InvalidBotName(
                f"a bot's name is 2 to 32 of A-Z a-z 0-9 _ -, and, in any case, not one of "
                f"{', '.join(BOT_POLICY_NAMES)} (the built-in policies) or 'me', nor shaped like the name "
                f"of a built-in bot's seat or match place (<policy>-bot, <policy>-bot-<n>, <policy>-<n>, "
                f"with - or _, e.g. basic-bot-0)")
        token = made.token("bot") if made is not None else issue_token()
        profile = {"name": name, "description": body.get("description", ""), "owner": body.get("owner", ""),
                   "accepts_matches": bool(body.get("accepts_matches", False)), "created": self.clock_ms()}
        if not self.store.register_bot(name, profile, hash_token(token)):
            kept = self.store.bot(name) if made is not None else None
            if kept is not None and hmac.compare_digest(kept["token_hash"], hash_token(token)):
                # the first request with this key registered it, and its answer was lost: this is it
                made.found = True
                return {**{k: kept[k] for k in profile}, "token": token}
            raise BotNameTaken(f"the name {name!r} is taken: a bot account has it already, in this or another case")
        return {**profile, "token": token}

    def update_bot(self, token: str | None, body: dict) -> dict:
        """PATCH /bots/me: the bot whose token is presented changes its settings (``accepts_matches``);
        its public profile."""
        name = self.bot_of(token)
        if self.store.update_bot(name, {k: body[k] for k in ("accepts_matches",) if k in body}) is None:
            raise BotNotFound(f"there is no bot {name!r}")
        return self.profile(name)

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

    def profile(self, name: str) -> dict:
        """The bot's public profile: its ratings per variant, its games and matches."""
        bot = self._account(name)
        name = bot["name"]
        games, recent_games = self.store.seated(name, "games")
        matches, recent_matches = self.store.seated(name, "matches")
        ratings = {}
        for variant in D.TABLES:
            r = self.store.rating(variant, name)
            if r is not None:
                ratings[variant] = _rating_wire(r)
        return {"name": bot["name"], "description": bot["description"], "owner": bot["owner"],
                "accepts_matches": bool(bot.get("accepts_matches", False)), "created": bot["created"], "ratings": ratings, "games": games, "recent_games": recent_games,
                "matches": matches, "recent_matches": recent_matches}

    def seat_accounts(self, game_id: str, seats: dict[int, str], token: str | None = None) -> None:
        """Seat bot accounts at a new game (POST /games): each seat's token hash is its bot's.

        Refuses an unknown account or one named twice (in any case), and, as a match does, one
        that does not consent (it neither sends the request, ``token``, nor accepts matches),
        before anything is written.
        """
        names = [name.lower() for name in seats.values()]
        if len(set(names)) != len(names):
            raise DuplicateParticipant("a bot account holds one seat of a game")
        hashes, registered = {}, {}
        for seat, name in seats.items():
            spelled = self.bot_name(name)
            bot = None if spelled is None else self.store.bot(spelled)
            if bot is None:
                raise UnknownParticipant(f"there is no bot account {name!r}")
            hashes[str(seat)], registered[seat] = bot["token_hash"], spelled
        seats = registered
        self._check_consent(list(seats.values()), self.bot_of(token) if token else None, "a game")
        self.games.tokens.redis.hset(self.games.tokens.key(game_id), mapping=hashes)
        for seat, name in seats.items():
            self.store.seat_bot(name, "games", game_id, self.clock_ms())
            self.store.notify(name, "game_started", {"game_id": game_id, "seat": seat})

    # -- a bot's stream --------------------------------------------------------------------------

    def stream(self, name: str, after: str | None, once: bool = False,
               clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent events of the bot's stream after entry ``after`` (None or "0": from its first;
        else an id of the stream, STREAM_ID, as the route checks)."""
        return self._sse(name, after or "0", once, clock)

    def _sse(self, name: str, after: str, once: bool, clock) -> Iterator[str]:
        deadline = clock() + self.stream_max_s
        yield ": connected\n\n"
        wait = None
        while True:
            entries = self.store.read_stream(name, after, wait_s=wait, count=STREAM_READ)
            for entry_id, kind, data in entries:
                after = entry_id
                yield f"id: {entry_id}\nevent: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
            if once and len(entries) == STREAM_READ and clock() < deadline:
                continue  # the past is read in batches: once=1 ends only when it is all sent
            if once or clock() >= deadline:
                return
            if not entries:
                if wait is not None:
                    yield ": keep-alive\n\n"
                wait = max(0.001, min(self.keepalive_s, deadline - clock()))

    # -- what every append tells the arena -----------------------------------------------------------

    def on_append(self, game_id: str, state) -> None:
        """After an append: tell the bots seated in the game; move its match (or ratings) on at its end."""
        players = state.players or ()
        accounts = [(seat, p["account"]) for seat, p in enumerate(players) if isinstance(p, dict) and p.get("account")]
        if state.status == "playing":
            for seat, name in accounts:
                if seat in state.to_act:
                    self.store.notify(name, "your_turn", {"game_id": game_id, "version": state.version, "seat": seat})
        if state.status != "over":
            return
        for seat, name in accounts:
            self.store.notify(name, "game_over", {"game_id": game_id, "version": state.version, "seat": seat,
                                                  "scores": list(state.scores)})
        info = self.store.game_of(game_id)
        if info is None:
            return
        if info.get("match_id"):
            index = D.game_index(info["board"], info["table"], D.TABLES[state.variant])
            self.store.mark_finished(info["match_id"], index, self._board_points(game_id, state))
            self.advance(info["match_id"])
        elif info.get("rated"):
            self._rate_game(game_id, state)

    # -- matches -----------------------------------------------------------------------------------

    def _participants(self, names: list[str]) -> list[dict]:
        out, seen_bots, counts = [], set(), {}
        for name in names:
            if name in BOT_POLICY_NAMES:
                counts[name] = counts.get(name, 0) + 1
                label = name if counts[name] == 1 else f"{name}-{counts[name]}"
                out.append({"name": label, "kind": "policy", "policy": name, "rating_name": name})
                continue
            asked, name = name, self.bot_name(name)
            if name is None:
                raise UnknownParticipant(f"{asked!r} is neither a built-in policy ({', '.join(BOT_POLICY_NAMES)}) "
                                         "nor a bot account")
            if name in seen_bots:
                raise DuplicateParticipant(f"the bot {name!r} is named twice: a bot holds one place")
            seen_bots.add(name)
            out.append({"name": name, "kind": "bot", "rating_name": name})
        return out

    def create_match(self, body: dict, token: str | None = None, address: str = "unknown",
                     made: Made | None = None) -> dict:
        """Start a duplicate match from a validated POST /matches body.

        Consent: each bot account named either sends the request (its token, ``token``) or
        accepts matches (``accepts_matches`` of its profile); a bot account's time per move is at
        least MIN_ACCOUNT_MOVE_TIME_S. Bounds: the caller (the bot sending it, else ``address``)
        and the server have at most matches_per_caller and matches_in_play of them in play.

        ``made``: the request's Idempotency-Key made it (service.store.creations.Made): the
        match's id is derived from the key, and its log records the creation under the key's
        ``log_key``. A retry of a creation whose first answer was lost (a 503: its write may have
        landed) finds the match there and answers with it (counted in play again, its bots told
        again), instead of starting a second match.
        """
        variant = body["variant"]
        caller = self.bot_of(token) if token else None
        want = D.PARTICIPANTS[variant]
        if len(body["participants"]) != want:
            raise InvalidMatch(f"{variant} is played by {want} participants")
        participants = self._participants(body["participants"])
        accounts = [p["name"] for p in participants if p["kind"] == "bot"]
        self._check_consent(accounts, caller, "a match")
        move_time = body.get("move_time_s")
        if accounts and move_time is not None and move_time < MIN_ACCOUNT_MOVE_TIME_S:
            raise InvalidMatch(f"a match seating a bot account gives it at least {MIN_ACCOUNT_MOVE_TIME_S} s "
                               "a move (`move_time_s`): the turn clock plays a basic move for a slower one")
        self._rule_options(variant, body.get("options"), move_time, board=True)  # checked before it counts
        match_id = made.game_id() if made is not None else secrets.token_urlsafe(12)
        who = f"bot:{caller}" if caller else f"addr:{address}"
        if made is not None and self._match_landed(match_id, made):
            # the first request with this key started the match, and its answer was lost: this is
            # it, counted in play again (that request's failure may have uncounted it), no cap asked
            self.store.claim_match(match_id, who, 0, 0, self.clock_ms())
            return self._match_started(match_id, variant, participants, body["boards"])
        claimed = self.store.claim_match(match_id, who, self.matches_in_play, self.matches_per_caller,
                                         self.clock_ms())
        if claimed == -1:
            raise TooManyMatches(f"{'this bot' if caller else 'this client address'} has "
                                 f"{self.matches_per_caller} matches in play, as many as it may: "
                                 "one must end before another starts")
        if claimed == -2:
            raise TooManyMatches(f"the server has {self.matches_in_play} matches in play, as many as it takes: "
                                 "one must end before another starts")
        try:
            return self._make_match(variant, participants, body["boards"], body.get("options"), move_time,
                                    rated=body.get("rated", True), match_id=match_id, made=made)
        except BaseException:
            self.store.release_match(match_id, who)
            raise

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

    def _make_match(self, variant: str, participants: list[dict], boards: int, options: dict | None,
                    move_time: int | None, *, rated: bool, seat_tokens: dict[int, str] | None = None,
                    match_id: str | None = None, challenge_id: str | None = None, made: Made | None = None,
                    retell: bool = False) -> dict:
        """Start a match of checked participants (``seat_tokens``: a person's token hash by participant index).

        ``match_id``: the match's id if it is fixed (a challenge's, ``challenge_id``, which the
        bots' match_started names, or one derived from an Idempotency-Key, ``made``, whose
        ``log_key`` the log records with the match's first event), else a new random one. A fixed
        id may be made twice (two accepts of one challenge): the first seed saved is the match's,
        the second maker appends nothing and answers with the match the first one made (telling
        its bots again if ``retell``: the retry of an accept that failed, maybe before it told them).
        """
        options = self._rule_options(variant, options, move_time, board=True)
        seed = secrets.token_bytes(32)
        match_id = match_id or secrets.token_urlsafe(12)
        # a match of policies alone plays each game in one job: a few games in play keep the workers busy
        window = self.window if any(p["kind"] != "policy" for p in participants) else min(self.window,
                                                                                            POLICY_MATCH_WINDOW)

        def created_from(seed: bytes) -> dict:
            return D.create(variant, options, participants, boards, move_time, seed, window, rated=rated)

        created = created_from(seed)  # checked before anything is written
        # the secrets first: a match whose log exists always has its seed (and its persons' token hashes)
        kept = self.store.save_match_seed(match_id, seed, self.clock_ms(), seat_tokens)
        if kept != seed:
            created = created_from(kept)  # its commitments and boards are the kept seed's
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        try:
            self.matches.append(match_id, [created], 0, key, fingerprint=fingerprint)
        except ConcurrencyError:
            # made already by another maker of this id, which told its bots (unless it failed
            # meanwhile, and this is its retry: retell): move it on and show it
            if retell:
                return self._match_started(match_id, variant, participants, boards, challenge_id)
            return self.match_view(match_id)
        except IdempotencyConflict as err:
            raise IdempotencyKeyReused() from err
        return self._match_started(match_id, variant, participants, boards, challenge_id)

    def _match_landed(self, match_id: str, made: Made) -> bool:
        """Whether the match's log recorded the creation ``made`` stands for (it was started by an
        earlier request with its key); IdempotencyKeyReused if it recorded another request's."""
        prior = self.matches.idempotent_result(match_id, made.log_key)
        if prior is None:
            return False
        if prior[0] != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return True

    def _match_started(self, match_id: str, variant: str, participants: list[dict], boards: int,
                       challenge_id: str | None = None) -> dict:
        """A new match's bots told (``match_started``), its first games started, and its view.

        Told again if a retry finds the match its first request started (that request may have
        failed before it told them): a bot may hear of one match twice, with the same id."""
        for p in participants:
            if p["kind"] == "bot":
                self.store.seat_bot(p["name"], "matches", match_id, self.clock_ms())
                self.store.notify(p["name"], "match_started", {"match_id": match_id, "variant": variant,
                                                               "boards": boards,
                                                               **({"challenge_id": challenge_id} if challenge_id else {})})
        state = self.advance(match_id)
        return self.match_view(match_id, state)

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

    def _load(self, match_id: str) -> D.MatchState:
        if not isinstance(match_id, str) or not re.fullmatch(r"[A-Za-z0-9_-]{16}", match_id):
            raise MatchNotFound(f"there is no match {match_id!r}")
        records = self.matches.load(match_id)
        if not records:
            raise MatchNotFound(f"there is no match {match_id!r}")
        return D.replay(r.event for r in records)

    def advance(self, match_id: str) -> D.MatchState:
        """Record the finished games of the match, start the next ones, finish it when all are in."""
        for _ in range(ADVANCE_ATTEMPTS):
            state = self._load(match_id)
            if state.status == "over":
                return state
            seed = self.store.match_seed(match_id)
            s, new = state, []
            finished = self.store.finished(match_id)
            if self.clock_ms() - self._looked.get(match_id, 0) >= LOOK_EVERY_MS:
                # now and then, every game in play is read: one whose end was never marked (its
                # process died in between) or that was never made is caught here
                self._looked[match_id] = self.clock_ms()
                finished.update(self._look_at_games(match_id, s, seed))
            for index in s.in_flight():
                if index in finished:
                    board, table = divmod(index, s.tables)
                    event = D.decide_played(s, board, table, D.game_id_for(match_id, board, table), finished[index])
                    if event is not None:
                        s = D.evolve(s, event)
                        new.append(event)
            started_before = s.started
            for decide in (D.decide_start, lambda st, seed=seed: D.decide_finish(st, seed)):
                event = decide(s)
                if event is not None:
                    s = D.evolve(s, event)
                    new.append(event)
            if not new:
                return s
            try:
                self.matches.append(match_id, new, state.version)
            except ConcurrencyError:
                continue  # another caller recorded something first: look again
            for index in range(started_before, s.started):
                board, table = divmod(index, s.tables)
                self._start_game(match_id, s, board, table, seed)
            if s.status == "over":
                self._match_over(match_id, s)
            else:
                continue  # a game may have ended meanwhile: one more look costs little
        return self._load(match_id)

    def _look_at_games(self, match_id: str, s: D.MatchState, seed: bytes) -> dict[int, list[int]]:
        """Read every game of the match in play: (re)make those never made; the points of those over."""
        over = {}
        for index in s.in_flight():
            board, table = divmod(index, s.tables)
            try:
                gstate = self.games.state(D.game_id_for(match_id, board, table))
            except GameNotFound:
                self._start_game(match_id, s, board, table, seed)  # started in the log, lost before it was made
                continue
            if gstate.status == "over":
                over[index] = self._board_points(D.game_id_for(match_id, board, table), gstate)
                self.store.mark_finished(match_id, index, over[index])
        return over

    def _awaited_at_end(self, game_id: str, state) -> tuple:
        """The seats whose move a finished game awaited when it was abandoned (its state just before
        its end); none for a game that ended otherwise."""
        if (state.end or {}).get("reason") != "abandoned":
            return ()
        return self.games.state(game_id, upto=state.version - 1).to_act

    def _board_points(self, game_id: str, state) -> list[int]:
        """A finished board game's points, a forfeit included (duplicate.board_points)."""
        return D.board_points(state, self._awaited_at_end(game_id, state))

    def _start_game(self, match_id: str, s: D.MatchState, board: int, table: int, seed: bytes) -> None:
        """Create the game of (board, table) once: its id is fixed, a second start finds the first game."""
        game_id = D.game_id_for(match_id, board, table)
        players, tokens = [], None
        for participant in D.seating(s.variant, table):
            p = s.participants[participant]
            if p["kind"] == "policy":
                players.append({"name": p["name"], "bot": p["policy"], "match": match_id})
            elif p["kind"] == "person":
                # a person's one token plays its seat at every table (its hash is kept outside the log)
                tokens = self.store.match_seat_tokens(match_id) if tokens is None else tokens
                players.append({"name": p["name"], "match": match_id, "token_hash": tokens[participant]})
            else:
                players.append({"name": p["name"], "account": p["name"], "match": match_id})
        spec = game.GameSpec(
            variant=s.variant, players=players, options={**s.options, **D.BOARD_OPTIONS},
            seed=D.board_seed(seed, board),
            first_dealer=D.FIRST_DEALER if s.variant == D.GIN_RAMI else None,
            roles=dict(D.ROLES) if s.variant == D.THREE_HAND else None,
        )
        self._create_game(game_id, spec, {"match_id": match_id, "board": board, "table": table})

    def _create_game(self, game_id: str, spec, info: dict, *, retell: bool = False) -> bool:
        """Create a game whose account seats play with their bots' tokens; False if it exists already.

        ``retell``: a game found made and not played since is told of again (its bots' game_started,
        the scheduler's look, which tells the one to act): the retry of an accept whose write
        landed though it failed (a 503), before it told anyone. "Not played" is read from the
        game's state, never from the number of events the retry's own start would write: that
        spec has a seed of its own, and its cut for the deal may tie where the stored one did not
        (or the other way round), so the two starts differ in length about one time in twenty."""
        hashes = {}
        for seat, p in enumerate(spec.players):
            if p and p.get("account"):
                hashes[seat] = self._account(p["account"])["token_hash"]
            elif p and p.get("token_hash"):
                hashes[seat] = p.pop("token_hash")  # a person's seat: the hash never enters the log
        events = game.start(spec)
        self.store.mark_game(game_id, info)
        if hashes:
            self.games.tokens.redis.hset(self.games.tokens.key(game_id), mapping={str(k): v for k, v in hashes.items()})
        try:
            state = self.games.repository.save(game_id, None, events).state
        except ConcurrencyError:
            if retell:
                state = self.games.state(game_id)
                if _not_played(state):
                    self._tell_game(game_id, spec, info, state)
            return False
        self._tell_game(game_id, spec, info, state)
        return True

    def _tell_game(self, game_id: str, spec, info: dict, state) -> None:
        """A new game's bot accounts told (game_started), and the scheduler's look at it."""
        for seat, p in enumerate(spec.players):
            if p and p.get("account"):
                self.store.seat_bot(p["account"], "games", game_id, self.clock_ms())
                self.store.notify(p["account"], "game_started", {"game_id": game_id, "seat": seat,
                                                                 "variant": spec.variant, **info})
        self.games.bot_scheduler(game_id, state)

    def sealed(self, game_id: str) -> bool:
        """Whether the game reads only for its seats: a game of a match still in play.

        The match's other tables play the same deal, so a reader other than the game's seats
        (a spectator, or a bot reading another table's game) would learn it. Once the match is
        over its games read like any finished game. GameService asks this of every reader that
        holds no seat of the game (composition injects it).
        """
        info = self.store.game_of(game_id)
        match_id = info.get("match_id") if info else None
        if not match_id or self.store.match_over(match_id):
            return False
        return self._match_in_play(match_id)

    def _match_in_play(self, match_id: str) -> bool:
        """Whether the match's log says it is in play (False for no such match), from its last
        event alone: only ``match_finished`` ends a match, and nothing follows it. A match over
        but not recorded so (a process stopped in between, or an older match) is recorded now."""
        version = self.matches.version(match_id)
        if version <= 0:
            return False
        last = self.matches.load(match_id, after=version - 1)
        if last and last[-1].event["type"] == D.MATCH_FINISHED:
            self.store.mark_match_over(match_id)
            return False
        return True

    def sealed_among(self, game_ids: list[str], in_play: dict[str, bool] | None = None) -> set[str]:
        """The games of ``game_ids`` that are sealed (what :meth:`sealed` says of each), in a few reads:
        one for the games' marks, one for their matches' ends, and the last event of each match that
        is not recorded as over. The listing asks this of each batch of the index it reads;
        ``in_play`` (match id -> whether its log says it is in play), which it keeps for one
        listing, spares a second read of a match's log."""
        in_play = {} if in_play is None else in_play
        by_match: dict[str, list[str]] = {}
        for game_id, info in self.store.games_of(list(game_ids)).items():
            if info.get("match_id"):
                by_match.setdefault(info["match_id"], []).append(game_id)
        over = self.store.matches_over(list(by_match))
        sealed: set[str] = set()
        for match_id, ids in by_match.items():
            if match_id in over:
                continue
            if match_id not in in_play:
                in_play[match_id] = self._match_in_play(match_id)
            if in_play[match_id]:
                sealed.update(ids)
        return sealed

    def _match_over(self, match_id: str, s: D.MatchState) -> None:
        self.store.mark_match_over(match_id)
        for p in s.participants:
            if p["kind"] == "bot":
                self.store.notify(p["name"], "match_over", {"match_id": match_id})
        if not s.rated:
            return
        pairs = []
        names = {p["name"]: p["rating_name"] for p in s.participants}
        for a, b, score in D.pairings(s):
            if names[a] and names[b] and names[a] != names[b]:  # a person has no rating
                pairs.append((names[a], names[b], score))
        self._apply_ratings(s.variant, f"match:{match_id}", pairs)

    def _apply_ratings(self, variant: str, period: str, pairs: list) -> None:
        if not pairs:
            return

        def update(current: dict) -> dict:
            new = rate_period({k: Rating.from_dict(v) for k, v in current.items()}, pairs)
            return {k: r.as_dict() for k, r in new.items()}

        self.store.apply_period(variant, period, update)

    def _rate_game(self, game_id: str, state) -> None:
        """A finished rated game as one rating period: each two rated seats by their points, except
        that a seat that forfeited the game (resigned, or was awaited when it was abandoned) lost it
        to every seat that did not, whatever the points."""
        points = D.seat_points(state.results, len(state.players))
        forfeited = set(D.forfeiting_seats(state, self._awaited_at_end(game_id, state)))
        rated = [(seat, p.get("account") or p.get("bot")) for seat, p in enumerate(state.players)
                 if isinstance(p, dict) and (p.get("account") or p.get("bot"))]
        pairs = []
        for i, (a, name_a) in enumerate(rated):
            for b, name_b in rated[i + 1:]:
                if name_a != name_b:
                    if (a in forfeited) != (b in forfeited):
                        score = 0.0 if a in forfeited else 1.0
                    else:
                        score = score_of(points[a] - points[b])
                    pairs.append((name_a, name_b, score))
        self._apply_ratings(state.variant, f"game:{game_id}", pairs)

    def match_view(self, match_id: str, state: D.MatchState | None = None) -> dict:
        """Progress, standings and boards of the match (moved on first, so a stalled match catches up)."""
        state = state if state is not None else self.advance(match_id)
        done = len(D.board_scores(state))
        return {
            "match_id": match_id,
            "variant": state.variant,
            "status": state.status,
            "options": state.options,
            "move_time_s": state.move_time_s,
            # whether the match moves the ratings: false when made with rated false, or with a person
            "rated": state.rated,
            "participants": [{"name": p["name"], "kind": p["kind"]} for p in state.participants],
            "boards": state.boards,
            "boards_done": done,
            "games": state.games,
            "games_done": len(state.played),
            "commitment": state.commitment,
            "seed": state.seed,
            "version": state.version,
            "standings": D.standings(state),
            "board_results": D.board_details(state, match_id),
        }

    def match_turns(self, match_id: str, token: str) -> dict:
        """The games of the match in play where the person whose token this is is to act.

        The match is moved on first, as its view does. The token's hash is compared with the hash
        of each person of the match (every one, in constant time); a token that holds no person's
        place (a bot's, another match's, any other) is refused alike, and learns nothing of the seats.
        """
        state = self.advance(match_id)
        presented, participant = hash_token(token), None
        for index, stored in self.store.match_seat_tokens(match_id).items():
            if hmac.compare_digest(presented, stored):
                participant = index
        if participant is None:
            raise Forbidden("this token holds no person's place in this match")
        turns = []
        for index in state.in_flight() if state.status != "over" else ():
            board, table = divmod(index, state.tables)
            game_id = D.game_id_for(match_id, board, table)
            seat = D.seating(state.variant, table).index(participant)
            try:
                g = self.games.state(game_id)
            except GameNotFound:
                continue  # started in the log, not made yet: the next look at the match makes it
            if g.status == "playing" and seat in g.to_act:
                turns.append({"game_id": game_id, "board": board, "table": table, "seat": seat,
                              "phase": g.phase, "version": g.version})
        return {"match_id": match_id, "participant": state.participants[participant]["name"],
                "status": state.status, "turns": turns}

    def match_list(self, limit: int = 50) -> list[dict]:
        out = []
        for match_id in self.store.matches(limit):
            try:
                s = self._load(match_id)
            except MatchNotFound:
                continue
            out.append({"match_id": match_id, "variant": s.variant, "status": s.status, "boards": s.boards,
                        "participants": [p["name"] for p in s.participants]})
        return out

    def match_stream(self, match_id: str, clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent ``progress`` events of the match until it is over (validated before the first byte)."""
        self._load(match_id)

        def events():
            deadline = clock() + self.stream_max_s
            yield ": connected\n\n"
            last = -1
            while True:
                view = self.match_view(match_id)
                if view["version"] != last:
                    last = view["version"]
                    summary = {k: view[k] for k in ("match_id", "status", "boards", "boards_done", "games_done",
                                                    "standings")}
                    yield f"id: {last}\nevent: progress\ndata: {json.dumps(summary, separators=(',', ':'))}\n\n"
                if view["status"] == "over" or clock() >= deadline:
                    return
                self.matches.wait_for_events(match_id, last, self.keepalive_s)

        return events()

    def audit(self, match_id: str) -> dict:
        """The finished match's audit: its seed, every board's commitment, every table's own game audit."""
        state = self.advance(match_id)
        if state.status != "over":
            raise MatchNotOver("the audit reveals every board's seed: only once the match is over")
        commitments, failed = {}, {}
        for index in range(state.games):
            board, table = divmod(index, state.tables)
            game_id = D.game_id_for(match_id, board, table)
            try:
                report = self.games.audit(game_id)
            except (DomainError, UnknownGame):
                failed.setdefault(board, []).append(f"table {table}'s game cannot be audited")
                continue
            commitments[index] = report["commitment"]
            if not report["ok"]:
                failed.setdefault(board, []).append(f"table {table}'s game fails its own audit")
        checks = D.verify(state, commitments)
        for check in checks:
            if check["name"].startswith("board_"):
                problems = failed.get(int(check["name"][6:]))
                if problems:
                    check["ok"] = False
                    check["detail"] = "; ".join(problems)
        return {"match_id": match_id, "seed": state.seed, "commitment": state.commitment,
                "ok": all(c["ok"] for c in checks), "checks": checks}

    # -- ratings -----------------------------------------------------------------------------------

    def leaderboard(self, variant: str) -> dict:
        rows = [{"name": name, **_rating_wire(r),
                 "kind": "policy" if name in BOT_POLICY_NAMES else "bot"}
                for name, r in self.store.ratings(variant).items()]
        rows.sort(key=lambda r: (-r["rating"], r["name"]))
        return {"variant": variant, "ratings": rows}

    # -- challenges --------------------------------------------------------------------------------

    def challenge(self, body: dict, token: str | None, address: str = "unknown", made: Made | None = None) -> dict:
        """A challenge to a bot account: by a bot (its token) or a person (a name), to a game or a match.

        A three-hand challenge names its third participant (``with``: a built-in policy or another
        bot account). Everything is checked before the challenge is stored: a refusal stores nothing.
        It waits CHALLENGE_TTL_MS for its answer, then reads as ``expired``; a bot has at most
        challenges_per_bot pending to it, a challenger (a bot, or a person's client ``address``)
        challenges_per_challenger pending of its own.

        ``made``: the request's Idempotency-Key made it (service.store.creations.Made): the
        challenge's id is derived from the key, a person's token from the key and the request,
        and the challenge keeps the request's fingerprint. A retry of a challenge whose first
        answer was lost (a 503: its write may have landed) finds it under that id and answers as
        the first would have (the same id and token; its bot told again), instead of making a
        second challenge; the caps do not count it twice.
        """
        challenged, variant = self._account(body["to"])["name"], body["variant"]
        if token:
            challenger, person = self.bot_of(token), None
            if challenger == challenged:
                raise InvalidMatch("a bot cannot challenge itself")
            if "name" in body:
                raise InvalidMatch("a bot challenging is known by its token: `name` is for a person, "
                                   "who challenges without one")
        else:
            person = body.get("name")
            if not person:
                raise InvalidMatch("a person challenging names themself (`name`); a bot presents its token")
            if person.casefold() == challenged.casefold():
                raise DuplicateParticipant(f"the bot is named {person!r}: a person challenging it takes another name")
            challenger = person
        others = list(body.get("with_") or [])
        more = D.PARTICIPANTS[variant] - 2
        if len(others) != more:
            raise InvalidMatch(f"{variant} is played by {D.PARTICIPANTS[variant]}: a challenge to it names "
                               + ("no one else (`with`)" if more == 0 else f"{more} more with `with`"))
        # names are compared in any case, as a bot account's name is taken: to the players, a
        # person called 'Alpha' and the bot alpha would be one name
        names = [challenger, challenged]
        for name in others:
            if name.casefold() in {n.casefold() for n in names}:
                raise DuplicateParticipant(f"{name!r} is named twice: each participant holds one place")
            spelled = name if name in BOT_POLICY_NAMES else self.bot_name(name)
            if spelled is None:
                raise UnknownParticipant(f"{name!r} is neither a built-in policy ({', '.join(BOT_POLICY_NAMES)}) "
                                         "nor a bot account")
            names.append(spelled)
        others = names[2:]
        # only the challenged bot answers a challenge: a bot account named in `with` is seated
        # (and rated) on the terms of a match, its token sending the challenge or accepts_matches
        self._check_consent([n for n in others if n not in BOT_POLICY_NAMES], None if person else challenger,
                            "a challenge", "else challenge it on its own")
        kind = "match" if body.get("boards") else "game"
        move_time = body.get("move_time_s")
        # a challenge always seats a bot account (the one challenged): the floor of a match seating one
        if move_time is not None and move_time < MIN_ACCOUNT_MOVE_TIME_S:
            raise InvalidMatch(f"a challenge to a bot account gives it at least {MIN_ACCOUNT_MOVE_TIME_S} s "
                               "a move (`move_time_s`): the turn clock plays a basic move for a slower one")
        self._rule_options(variant, body.get("options"), move_time, board=kind == "match")
        challenge_id, now = made.game_id() if made is not None else secrets.token_urlsafe(12), self.clock_ms()
        challenge = {"challenge_id": challenge_id, "from": challenger, "from_kind": "person" if person else "bot",
                     "to": challenged, "with": others, "kind": kind, "variant": variant,
                     "options": body.get("options") or {}, "boards": body.get("boards"),
                     "move_time_s": body.get("move_time_s"), "status": "pending",
                     "game_id": None, "match_id": None, "created": now, "expires": now + CHALLENGE_TTL_MS}
        answer = dict(challenge)
        if person:
            seat_token = made.token("challenge") if made is not None else issue_token()
            challenge["person_token_hash"] = hash_token(seat_token)
            answer["token"] = seat_token
        challenge["by"] = f"addr:{address}" if person else f"bot:{challenger}"
        if made is not None:
            challenge["fingerprint"] = made.fingerprint
            kept = self._challenge_made(challenge_id, made)
            if kept is not None:
                return self._challenge_found(kept, answer)
        saved = self.store.add_challenge(challenge, per_bot=self.challenges_per_bot,
                                         per_challenger=self.challenges_per_challenger, now_ms=now)
        if saved == 0 and made is not None:
            kept = self._challenge_made(challenge_id, made)
            if kept is not None:
                return self._challenge_found(kept, answer)
        if saved == -1:
            raise TooManyChallenges(f"the bot {challenged!r} has {self.challenges_per_bot} challenges pending, "
                                    "as many as it may: one must be answered, withdrawn or expire first")
        if saved == -2:
            raise TooManyChallenges(f"{'this bot' if not person else 'this client address'} has "
                                    f"{self.challenges_per_challenger} challenges pending, as many as it may: "
                                    "one must be answered, withdrawn or expire first")
        if saved != 1:
            raise ChallengeNotPending("a challenge of this id exists already")  # 72 random bits: never in practice
        self.store.notify(challenged, "challenge", _public(challenge))
        return answer

    def _challenge_made(self, challenge_id: str, made: Made) -> dict | None:
        """The challenge of ``challenge_id`` if an earlier request with ``made``'s key stored it
        (None if none is stored); IdempotencyKeyReused if another request did."""
        kept = self.store.challenge(challenge_id)
        if kept is None:
            return None
        if kept.get("fingerprint") != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return kept

    def _challenge_found(self, kept: dict, answer: dict) -> dict:
        """The answer of a challenge an earlier request stored, whose answer was lost: the one it
        gave (its own times); its bot, which that request may have failed to tell, told again
        while the challenge waits for an answer (it may hear of it twice, with the same id)."""
        if kept["status"] == "pending":
            self.store.notify(kept["to"], "challenge", _public(kept))
        return {**answer, "created": kept["created"], "expires": kept["expires"]}

    def _pending(self, c: dict) -> bool:
        """Whether a challenge may still be answered or withdrawn: pending, and not expired."""
        return c["status"] == "pending" and self.clock_ms() < _expires(c)

    def challenge_view(self, challenge_id: str) -> dict:
        c = self.store.challenge(challenge_id) if isinstance(challenge_id, str) else None
        if c is None:
            raise ChallengeNotFound(f"there is no challenge {challenge_id!r}")
        return _public(c, self.clock_ms())

    def answer_challenge(self, challenge_id: str, token: str | None, accept: bool, made: Made | None = None) -> dict:
        """The challenged bot accepts (the game or match starts) or declines.

        ``made``: the answer's Idempotency-Key made it (service.store.creations.Made): the
        challenge records the key's ``log_key`` with the answer (and with an accept's claim). A
        retry of an answer whose first reply was lost (a 503: its write may have landed) finds
        its own answer recorded and answers with it, or takes its own claim over at once,
        instead of 409 ``challenge_not_pending``.
        """
        current = self.challenge_view(challenge_id)
        bot = self.bot_of(token)
        if bot != current["to"]:
            raise NotChallenged("only the bot this challenge is addressed to may answer it")
        answered = self._answered_by(challenge_id, made)
        if answered is not None:
            return answered
        if current["status"] != "pending":
            raise ChallengeNotPending(f"the challenge was {current['status']} already")
        if not accept:
            decided = self.store.decide_challenge(challenge_id, "declined", _answered_with(made), may=self._pending)
            if decided is None:
                raise ChallengeNotPending("the challenge was answered already")
            self._tell_challenger(decided)
            return _public(decided)
        # The challenge is claimed before its game or match is made, so that a withdrawal (or a
        # second accept) arriving meanwhile is refused instead of leaving a game nobody recorded.
        # A failure to make it puts the challenge back to pending (if its claim is still the
        # current one); a claim whose process died is taken over by the next accept after
        # ACCEPT_STALE_MS (the wire shows it pending meanwhile).
        # The game (or match) has an id derived from the challenge's (made_id), so that an accept
        # that was only slow and the one that took its claim over make the same one: the second to
        # make it finds it made and uses it, and either may record it.
        claimed = self.claim_accept(challenge_id, made)
        if claimed is None:
            raise ChallengeNotPending("the challenge was answered already, or is being accepted")
        return self.finish_accept(claimed, made)

    def _answered_by(self, challenge_id: str, made: Made | None) -> dict | None:
        """The challenge, if the request ``made`` stands for answered (or withdrew) it already: a
        retry of that request whose reply was lost (None otherwise). Whom that request was to
        tell (the challenger, or the challenged bot of a withdrawal) is told again: the request
        may have failed before it told them (they may hear of it twice)."""
        if made is None:
            return None
        kept = self.store.challenge(challenge_id)
        if kept is None or kept.get("answered_with") != made.log_key:
            return None
        made.found = True
        if kept["status"] == "withdrawn":
            self.store.notify(kept["to"], "challenge_withdrawn", _public(kept))
        else:
            self._tell_challenger(kept)
        return _public(kept)

    def claim_accept(self, challenge_id: str, made: Made | None = None) -> dict | None:
        """The first half of an accept: claim the challenge (pending, or claimed longer ago than
        ACCEPT_STALE_MS, or claimed by an earlier sending of this same accept, ``made``: one whose
        reply was lost); the claimed challenge, with its ``accepting_since``, or None."""
        now = self.clock_ms()
        mine = made.log_key if made is not None else None
        extra = {"accepting_since": now, "accepting_with": mine}
        if mine is not None:
            prior = self.store.challenge(challenge_id) or {}
            if prior.get("status") == "accepting" and prior.get("accepting_with") == mine:
                extra["failed_with"] = mine  # its own claim, left by a sending that failed: a retry
        return self.store.decide_challenge(
            challenge_id, "accepting", extra,
            may=lambda c: self._pending(c)
            or (c["status"] == "accepting" and (now - c.get("accepting_since", 0) >= ACCEPT_STALE_MS
                                                or (mine is not None and c.get("accepting_with") == mine))))

    def finish_accept(self, claimed: dict, key: Made | None = None) -> dict:
        """The rest of an accept that claimed the challenge: make its game or match and record it.

        Its claim may have been taken over meanwhile (it was slow): the game or match it makes
        is the same one as the taker's (made_id), so it records it under whichever claim is
        current, or answers with it if the other accept recorded it first. A taker that failed
        put the challenge back to pending: the slow accept records it from there. One that was
        withdrawn or declined meanwhile is refused before anything is made. ``key``: the
        accept's Idempotency-Key made it, recorded with the answer (answer_challenge); an accept
        with a key that failed leaves it with the challenge (``failed_with``), so that its retry,
        finding the game or match made, tells its bots, whom the failed sending may not have told.
        """
        challenge_id, since = claimed["challenge_id"], claimed["accepting_since"]
        retell = key is not None and claimed.get("failed_with") == key.log_key

        def ours(c: dict) -> bool:
            return c["status"] == "accepting" and c.get("accepting_since") == since

        def recordable(c: dict) -> bool:
            return c["status"] in ("accepting", "pending")

        current = self.store.challenge(challenge_id)
        if current is None or not (recordable(current) or current["status"] == "accepted"):
            raise ChallengeNotPending(f"the challenge was {current['status'] if current else 'removed'} meanwhile")
        try:
            # a bot account of `with` consented when the challenge was made; it may have withdrawn
            # its consent since (accepts_matches false): then nothing is made and the challenge is
            # pending again, to be accepted once it consents anew, withdrawn, or left to expire
            if current["status"] != "accepted":  # (else made already, by the accept that took our claim over)
                self._check_consent([n for n in claimed.get("with", []) if n not in BOT_POLICY_NAMES],
                                    claimed["from"] if claimed["from_kind"] == "bot" else None,
                                    "an accepted challenge", "the challenge stays pending")
            if claimed["kind"] == "match":
                made = {"match_id": self._challenge_match(claimed, retell)}
            else:
                made = {"game_id": self._challenge_game(claimed, retell)}
        except BaseException:
            # only our own claim goes back to pending: a taker's may still be making it
            self.store.decide_challenge(challenge_id, "pending",
                                        {"accepting_since": None, "accepting_with": None,
                                         "failed_with": claimed.get("accepting_with")}, may=ours)
            raise
        decided = self.store.decide_challenge(challenge_id, "accepted",
                                              {**made, "accepting_since": None, "accepting_with": None,
                                               "failed_with": None, **_answered_with(key)}, may=recordable)
        if decided is None:
            current = self.store.challenge(challenge_id)
            if current is not None and current["status"] == "accepted" and all(
                    current.get(k) == v for k, v in made.items()):
                return _public(current)  # the other accept recorded this same game or match (and told)
            raise ChallengeNotPending("the challenge was answered already")
        self._tell_challenger(decided)
        return _public(decided)

    def withdraw_challenge(self, challenge_id: str, token: str | None, made: Made | None = None) -> dict:
        """The challenger withdraws its pending challenge; the challenged bot is told (``challenge_withdrawn``).

        A bot withdraws with its own token, a person with the token its challenge's answer gave
        (compared with the hash kept with the challenge, in constant time). The move from pending
        is the same WATCH-guarded one as an answer's, so of a withdrawal and an answer at once only
        one succeeds and the other is refused as not pending. ``made``: as answer_challenge's, a
        retry of the withdrawal whose reply was lost finds it and answers with it.
        """
        full = self.store.challenge(challenge_id) if isinstance(challenge_id, str) else None
        if full is None:
            raise ChallengeNotFound(f"there is no challenge {challenge_id!r}")
        if full["from_kind"] == "bot":
            if self.bot_of(token) != full["from"]:
                raise NotChallenger("only the challenger may withdraw this challenge")
        else:
            if not token:
                raise ChallengeTokenRequired("withdrawing a person's challenge needs the token its answer gave: "
                                             "'Authorization: Bearer <challenge's token>'")
            if not hmac.compare_digest(hash_token(token), full["person_token_hash"]):
                raise NotChallenger("only the challenger may withdraw this challenge")
        answered = self._answered_by(challenge_id, made)
        if answered is not None:
            return answered
        if full["status"] == "accepting":
            raise ChallengeNotPending("the challenge is being accepted")
        status = _public(full, self.clock_ms())["status"]
        if status != "pending":
            raise ChallengeNotPending(f"the challenge was {status} already")
        decided = self.store.decide_challenge(challenge_id, "withdrawn", _answered_with(made), may=self._pending)
        if decided is None:
            raise ChallengeNotPending("the challenge was answered or withdrawn already")
        self.store.notify(decided["to"], "challenge_withdrawn", _public(decided))
        return _public(decided)

    def _challenge_match(self, c: dict, retell: bool = False) -> str:
        """The match of an accepted challenge: a person's seats play with the token its challenge gave.

        A person is a participant of kind ``person`` (never a bot account or a policy, whatever its
        name), and a match with a person is unrated, as a person's game is.
        """
        names = [c["to"], *c.get("with", [])]
        if c["from_kind"] == "bot":
            names.insert(0, c["from"])
        participants = self._participants(names)
        tokens = None
        if c["from_kind"] == "person":
            participants.insert(0, {"name": c["from"], "kind": "person", "rating_name": None})
            tokens = {0: c["person_token_hash"]}
        made = self._make_match(c["variant"], participants, c["boards"], c["options"], c.get("move_time_s"),
                                rated=c["from_kind"] == "bot", seat_tokens=tokens,
                                match_id=made_id("match", c["challenge_id"]), challenge_id=c["challenge_id"],
                                retell=retell)
        return made["match_id"]

    def _challenge_game(self, c: dict, retell: bool = False) -> str:
        players = []
        for name, kind in ((c["from"], c["from_kind"]), (c["to"], "bot"),
                           *((n, "policy" if n in BOT_POLICY_NAMES else "bot") for n in c.get("with", []))):
            if kind == "bot":
                players.append({"name": name, "account": name})
            elif kind == "policy":
                players.append({"name": name, "bot": name})
            else:
                players.append({"name": name, "token_hash": c["person_token_hash"]})
        spec = game.GameSpec(variant=c["variant"], players=players,
                             options=self._rule_options(c["variant"], c["options"], c.get("move_time_s"),
                                                        board=False) or None,
                             seed=secrets.token_bytes(32))
        game_id = made_id("game", c["challenge_id"])
        try:
            # False if another accept of the challenge made it first: that game is the challenge's
            self._create_game(game_id, spec, {"rated": c["from_kind"] == "bot", "challenge_id": c["challenge_id"]},
                              retell=retell)
        except Exception as err:
            from service.rules.errors import RulesError

            if isinstance(err, RulesError):
                raise InvalidMatch(f"the challenge's game cannot be made: {err}") from None
            raise
        return game_id

    def _tell_challenger(self, c: dict) -> None:
        if c["from_kind"] == "bot":
            self.store.notify(c["from"], f"challenge_{c['status']}", _public(c))


def made_id(kind: str, challenge_id: str) -> str:
    """The id of a challenge's game (``kind`` "game") or match ("match"): 16 URL-safe characters
    fixed by the challenge, as a new game's or match's random ones are, so that every accept of
    the challenge (a slow one and the one that took its claim over) makes the same one."""
    digest = hashlib.sha256(f"ginbox challenge {kind}:{challenge_id}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


def _not_played(state) -> bool:
    """Whether no move has been played in the game yet: in play, its first hand dealt, no upcard
    taken or passed and no card drawn (a client seed sent is no move)."""
    return state.status == "playing" and state.hand_no == 1 and state.turns == 0 and state.passes == 0


def _answered_with(made: Made | None) -> dict:
    """What a challenge's answer (or withdrawal) records of the Idempotency-Key it was sent with:
    the key's ``log_key``, by which a retry of it finds it (none without a key)."""
    return {"answered_with": made.log_key} if made is not None else {}


def _expires(c: dict) -> int:
    """When a challenge expires (ms); one stored before challenges expired does CHALLENGE_TTL_MS after its creation."""
    return c.get("expires") or c["created"] + CHALLENGE_TTL_MS


#: what a stored challenge keeps to itself: a person's token hash, an accept's claim, whom it
#: counts against, and what it records of the Idempotency-Keys of its creation and its answer
_PRIVATE_CHALLENGE_KEYS = ("person_token_hash", "accepting_since", "by", "fingerprint", "accepting_with",
                           "answered_with", "failed_with")


def _public(c: dict, now_ms: int | None = None) -> dict:
    # "with" is absent from the challenges stored before three-hand challenges; an accept in
    # progress ("accepting", a moment inside one request) reads as pending; a pending one past
    # its expiry (``now_ms``) as expired
    out = {"with": [], **{k: v for k, v in c.items() if k not in _PRIVATE_CHALLENGE_KEYS}}
    out["expires"] = _expires(c)
    if out["status"] == "accepting":
        out["status"] = "pending"
    if out["status"] == "pending" and now_ms is not None and now_ms >= out["expires"]:
        out["status"] = "expired"
    return out


def _rating_wire(r: dict) -> dict:
    return {"rating": round(float(r["rating"]), 2), "deviation": round(float(r["deviation"]), 2),
            "volatility": round(float(r["volatility"]), 6), "games": int(r.get("games", 0))}
