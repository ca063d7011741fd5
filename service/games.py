"""The service layer: each use case of the API and the workers, over games kept only as event logs.

Each use case is one call (``play``, ``give_advice``, ``claim_seat``, ``list_games`` ...) and
refuses in the game's terms (``service.errors``). Every command follows one path: take the state (the newest one this process holds, else the
log's), let the engine decide, append the events with the version the decision was based on
(optimistic concurrency: the append is what checks that state against the log), then tell the
bot scheduler. Everything a caller sees of a game passes through ``service.rules.views``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterator, Protocol

from service.errors import (
    AdviceLimitReached,
    Conflict,
    DomainError,
    Forbidden,
    GameNotFound,
    GameNotOver,
    IdempotencyKeyReused,
    InvalidVersion,
    InviteRequired,
    MatchGameSealed,
    SeatNotFound,
    TooManyBotGames,
    Unauthorized,
    VersionMismatch,
    VersionNotFound,
)
from service.bots import human_clock
from service.rules import audit, commands, events as ev, fairness, game, views
from service.rules.errors import RulesError
from service.store import advice as advice_log
from service.store.advice import AdviceLog, InMemoryAdviceLog
from service.store.base import MAX_LIST_LIMIT, GameIndex, canonical_json, scoped_idempotency_key
from service.store.creations import Made
from service.store.errors import ConcurrencyError, IdempotencyConflict, UnknownGame
from service.store.tokens import TokenStore, hash_token, issue_token

log = logging.getLogger(__name__)

BotScheduler = Callable[[str, Any], None]
CLAIM_ATTEMPTS = 5
#: the fields of a game a listing shows
LISTED_FIELDS = ("game_id", "variant", "status", "created", "updated", "version")
#: the most entries of the index one listing reads: past those, a page that has not found ``limit``
#: games the caller may see (the rest were games of matches in play) is cut short there
LIST_SCAN_MAX = 5000
#: the entries of the index one read asks for while a page fills
LIST_BATCH = 500
#: the events that end a game (the last of its log)
GAME_ENDS = (ev.GameEnded, ev.GameResigned, ev.GameAbandoned)


def new_game_id() -> str:
    """16 URL-safe characters (96 random bits)."""
    return secrets.token_urlsafe(12)


def request_fingerprint(method: str, path: str, seat: int | None, body: Any) -> str:
    """What an Idempotency-Key stands for: sha256 of method, path, the caller's seat and the canonical body.

    The seat is part of it so that a key replayed by another seat can never return the first
    caller's (private) view.
    """
    text = f"{method.upper()} {path}\n{seat}\n{canonical_json(body)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
                request_fingerprint(self.method, self.path, seat, self.body))


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


# -- the service ---------------------------------------------------------------------------------

class GameService:
    """Every use case of the API over an EventStore, a GameRepository and a TokenStore."""

    def __init__(self, store, repository, tokens: TokenStore, *, index: GameIndex | None = None,
                 bot_scheduler: BotScheduler | None = None,
                 advice: AdviceLog | None = None, keepalive_s: float = 5.0, stream_max_s: float = 300.0,
                 advice_poll_s: float = 1.0, id_factory: Callable[[], str] = new_game_id,
                 account_seats: Callable[[str, dict[int, str], str | None], None] | None = None,
                 account_name: Callable[[str], str | None] | None = None,
                 sealed: Callable[[str], bool] | None = None,
                 sealed_among: Callable[[list[str], dict], set[str]] | None = None,
                 list_scan_max: int = LIST_SCAN_MAX,
                 bot_games=None, bot_games_per_caller: int = 0, bot_games_in_play: int = 0,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000)):
        self.store = store
        # the games newest first: a projection the store keeps as it appends
        self.index = index if index is not None else store.index
        self.repository = repository
        self.tokens = tokens
        # the advisor's messages live in a log of their own (service/store/advice.py says why)
        self.advice = advice if advice is not None else InMemoryAdviceLog(store)
        # how often a live stream that may show advice looks for new advice
        self.advice_poll_s = advice_poll_s
        self.bot_scheduler = bot_scheduler or (lambda game_id, state: None)
        self.keepalive_s = keepalive_s
        self.stream_max_s = stream_max_s
        self.id_factory = id_factory
        #: seats bot accounts at a new game's seats (the arena: each seat's token is its bot's), given
        #: the token the request presents; it refuses an unknown account, or one that does not
        #: consent, before anything is written
        self.account_seats = account_seats
        #: a bot account's name as registered, asked in any case (None: no such account, which
        #: account_seats refuses); by default names are taken as written
        self.account_name = account_name or (lambda name: None)
        #: whether a game reads only for its seats (the arena: a game of a match still in play);
        #: by default no game is sealed
        self.sealed = sealed or (lambda game_id: False)
        #: the sealed games among many (the listing's check of a batch, with a memo the listing keeps
        #: for its batches): by default ``sealed`` of each
        self.sealed_among = sealed_among or (lambda game_ids, memo: {g for g in game_ids if self.sealed(g)})
        #: the most index entries one listing reads (LIST_SCAN_MAX)
        self.list_scan_max = list_scan_max
        #: the counts of games of built-in bots alone in play, per caller and server-wide
        #: (service.store.bot_games; None: none counted), and how many one caller and the server
        #: may have (0: no cap)
        self.bot_games = bot_games
        self.bot_games_per_caller = bot_games_per_caller
        self.bot_games_in_play = bot_games_in_play
        self.clock_ms = clock_ms

    # -- helpers -------------------------------------------------------------------------------

    def version_of(self, game_id: str) -> int:
        """The game's current version; GameNotFound if there is no such game."""
        version = self.store.version(game_id)
        if version <= 0:
            raise GameNotFound(game_id)
        return version

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

    def list_games(self, status: str | None, variant: str | None, cursor, limit: int) -> tuple[list[dict], Any]:
        """Games newest first, filtered by status and variant: (a page of summaries, the next cursor).

        The games of a match in play (``sealed``) are left out *before* the page is cut: the index
        is read from the cursor in batches until the page holds ``limit`` games the caller may
        see, or the index ends, or ``list_scan_max`` entries were read. In that last case the page
        is cut short, and its next cursor points past the last entry read; otherwise it points
        just past the page's last game. Either way a walk of the cursors lists every game it may
        see once, none twice, and one request reads a bounded part of the index.

        Why a bounded scan, and not an index that keeps sealed games out: the index is a projection
        of the games' logs, written by their appends; whether a game is sealed is its match's state,
        kept by the arena, and it ends with the match's log, with no append to the games. An index
        without them would need the match's end to move every game of it (2,000 for 1,000
        boards) into the index's sets, on one server and on a cluster, with a repair of its own
        for a process that dies in between. The scan costs a few pipelined reads per batch, and
        the index reads no summary of a game it leaves out (``hidden``): 1,000 entries of a
        match in play take some 10 ms.

        Each summary carries the players, scores and whose move it is as the game's latest
        append recorded them (``views.summary_of``). A game whose appends predate those summaries
        (or their ``private_seats`` or ``randomly_dealt``) is read from its log, here.
        """
        listed: list[dict] = []
        position, scanned, memo = cursor, 0, {}
        while True:
            batch = max(1, min(max(limit - len(listed), LIST_BATCH), self.list_scan_max - scanned, MAX_LIST_LIMIT))
            # the boards of a match in play are left out (listed once the match is over), before
            # the index reads their summaries
            games, after = self.index.list_games(status, variant, position, batch,
                                                 hidden=lambda game_ids: self.sealed_among(game_ids, memo))
            scanned += batch
            for i, entry in enumerate(games):
                summary = entry.get("summary")
                # recorded before it said which seats are private, or whether the game was randomly dealt
                if summary is None or "private_seats" not in summary or "randomly_dealt" not in summary:
                    try:
                        summary = views.summary_of(self.repository.load_state(entry["game_id"], upto=entry["version"]))
                    except UnknownGame:
                        continue  # the index names a game whose log is gone: nothing to list
                listed.append({**{k: entry[k] for k in LISTED_FIELDS}, **summary})
                if len(listed) == limit:
                    # the page is full: the next starts just past this game, or past the sealed
                    # games the batch held after it (those were left out of this walk already)
                    return listed, self.index.cursor_after(entry) if i + 1 < len(games) else after
            if after is None:
                return listed, None
            position = after
            if scanned >= self.list_scan_max:
                return listed, position  # the bound: a short page, and the walk goes on from here

    def render(self, game_id: str, state, seat: int | None) -> dict:
        """The view of ``state`` for ``seat`` (None: a spectator), with the game id, the advice it may
        see and the turn's deadline.

        A finished game of a match in play (``sealed``) renders with ``status`` "over" but its seed,
        stock and decks left out, as a game in play keeps them: they deal the match's other tables
        too, so not even its seats see them before the match ends.
        """
        sealed = self._sealed_over(game_id, state)
        view = {"game_id": game_id,
                **views.view_state(state, seat, self._advice_upto(game_id, state, seat, sealed), sealed=sealed)}
        view["turn_deadline_ms"] = self._turn_deadline_ms(game_id, state)
        return view

    def _turn_deadline_ms(self, game_id: str, state) -> int | None:
        """When the turn clock plays for the human seat to act in ``state`` (epoch ms), or None.

        The clock starts when the state's last event is appended (the turn clock of service.bots,
        with the rule option turn_timeout_s, which a match's move_time_s sets): the deadline is that
        event's time plus the timeout, read from the log, so the state stays a fold of the events
        alone. None when no clock runs: no timeout, a game not in play, or only bots to act. Read
        only for a clocked game, so that other views cost no extra round trip.
        """
        timeout_s = human_clock(state) if state is not None else None
        if timeout_s is None:
            return None
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

    def _appended(self, game_id: str, state) -> None:
        """Tell the bot scheduler; its failure never undoes or fails the command that succeeded."""
        try:
            self.bot_scheduler(game_id, state)
        except Exception:  # noqa: BLE001 (a bot problem must not fail a move that was recorded)
            log.exception("bot scheduler failed for game %s", game_id)

    # -- creation and seats --------------------------------------------------------------------

    def create_game(self, body: dict, token: str | None = None, caller: str | None = None,
                    made: Made | None = None) -> dict:
        """Start a game from a validated POST /games body; human seats get their tokens once.

        ``token``: the one the request presents, read only if a seat names a bot account (the
        arena seats a bot account only with its consent: its own token, or its opt-in).
        ``caller``: whom a game of built-in bots alone counts against (``bot:<name>`` for a bot
        account's token, else ``addr:<address>``; None: not counted). Such a game costs the bot
        workers a job per turn until it ends, however far its target, so a caller has at most
        ``bot_games_per_caller`` of them in play, and the server ``bot_games_in_play`` (bot accounts
        register freely, each a caller of its own): one more is TooManyBotGames, nothing written.
        A bot account's seat is not a built-in bot: the account plays its own moves, at its own
        pace and on its own machine, so a game that seats one is paced like a person's.
        ``made``: the request's Idempotency-Key made it (service.store.creations.Made): the game's
        id, its seats' tokens and invite secrets are derived from the key, and the log records the
        creation under the key's ``log_key``. A retry of a creation whose first answer was lost (Redis
        unavailable: its write may have landed) finds the game there and answers as the first would have,
        the same tokens included, instead of making a second game.
        """
        players: list[dict | None] = []
        for i, seat in enumerate(body["seats"]):
            if seat is None:
                players.append(None)
            elif "account" in seat:
                account = self.account_name(seat["account"]) or seat["account"]
                players.append({"name": account, "account": account})
            elif "bot" in seat:
                player = {"name": seat.get("name") or f"{seat['bot']}-bot-{i}", "bot": seat["bot"]}
                if "budget_ms" in seat:
                    player["budget_ms"] = seat["budget_ms"]
                players.append(player)
            else:
                players.append({"name": seat["name"]})
        # a private game's open seats each get an invite secret, shown once; the log keeps its hash
        invites = ({i: made.token(f"invite:{i}") if made is not None else issue_token()
                    for i, p in enumerate(players) if p is None} if body.get("private") else {})
        spec = game.GameSpec(
            variant=body["variant"],
            players=players,
            options=body.get("options"),
            seed=secrets.token_bytes(32),
            decks=body.get("decks"),
            roles=body.get("roles"),
            first_dealer=body.get("first_dealer"),
            invites={i: hash_token(secret) for i, secret in invites.items()} or None,
            # every seat's client seed goes into the deals (service/docs/FAIRNESS.md); the seats
            # send theirs after this answer has published the commitment
            fairness=fairness.CURRENT_DERIVATION,
        )
        new_events = game.start(spec)  # checked before it counts
        game_id = made.game_id() if made is not None else self.id_factory()
        if made is not None:
            landed = self._landed(game_id, made)
            if landed is not None:
                # the first request with this key made the game, and its answer was lost: this is it
                self._appended(game_id, self.state(game_id))
                return self._created(game_id, players, self._tokens_for(players, made), invites,
                                     self.repository.load_state(game_id, upto=landed))
        counted = None
        if (caller is not None and self.bot_games is not None
                and (self.bot_games_per_caller > 0 or self.bot_games_in_play > 0) and self._bots_alone(players)):
            refused = self.bot_games.claim(caller, game_id, self.bot_games_per_caller, self.clock_ms(),
                                           server_cap=self.bot_games_in_play)
            if refused == "caller":
                who = "this bot" if caller.startswith("bot:") else "this client address"
                raise TooManyBotGames(
                    f"{who} has {self.bot_games_per_caller} games of built-in bots alone in play, as many as "
                    "it may: one must be over before another starts (a game with a person's or a bot "
                    "account's seat is not counted)")
            if refused == "server":
                raise TooManyBotGames(
                    f"the server has {self.bot_games_in_play} games of built-in bots alone in play, as many "
                    "as it runs at once: one must be over before another starts (a game with a person's "
                    "or a bot account's seat is not counted)")
            counted = caller
        try:
            return self._create(game_id, players, invites, new_events, token, made)
        except BaseException:
            if counted is not None:
                self._unclaim(counted, game_id)
            raise

    @staticmethod
    def _bots_alone(players: list[dict | None]) -> bool:
        """Whether every seat is a built-in bot (no open seat, no person, no bot account)."""
        return bool(players) and all(p is not None and "bot" in p for p in players)

    def _unclaim(self, caller: str, game_id: str) -> None:
        """Give back the slot of a game that was counted and then not made (one whose first append
        may have landed is left counted: the count drops it when the game is over, or, if it was
        never made, once the claim is stale)."""
        try:
            if self.store.version(game_id) <= 0:
                self.bot_games.release(caller, game_id)
        except Exception:  # noqa: BLE001 (the creation's own error is the answer; a stale claim expires)
            log.warning("the bot games' claim of %s could not be given back", game_id)

    def _create(self, game_id: str, players: list[dict | None], invites: dict[int, str], new_events: list,
                token: str | None, made: Made | None = None) -> dict:
        """Write the new game (its bot accounts' seats, its persons' token hashes, its first events)
        and answer with its seats and view."""
        tokens = self._tokens_for(players, made)
        accounts = {i: p["account"] for i, p in enumerate(players) if p is not None and "account" in p}
        if accounts:
            if self.account_seats is None:
                raise Forbidden("this server seats no bot accounts")
            self.account_seats(game_id, accounts, token)
        # tokens first: a crash between the two writes leaves unused hashes, never a game
        # whose human seats nobody can prove to hold
        self.tokens.save(game_id, tokens)
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        try:
            saved = self.repository.save(game_id, None, new_events, key, fingerprint=fingerprint)
        except IdempotencyConflict as err:
            raise IdempotencyKeyReused() from err
        state = saved.state
        if saved.replayed:
            made.found = True  # a copy of this request made the game first: its answer is this one
        else:
            self._appended(game_id, state)
        return self._created(game_id, players, tokens, invites, state)

    @staticmethod
    def _tokens_for(players: list[dict | None], made: Made | None) -> dict[int, str]:
        """The tokens of a new game's persons' seats: fresh, or derived from the request's key."""
        return {i: made.token(f"seat:{i}") if made is not None else issue_token() for i, p in enumerate(players)
                if p is not None and "bot" not in p and "account" not in p}

    def _created(self, game_id: str, players: list[dict | None], tokens: dict[int, str], invites: dict[int, str],
                 state) -> dict:
        """The answer of a game's creation: its seats (a person's with its token, an open seat of a
        private game with its invite secret) and the spectator's view of ``state``, the new game."""
        seats = []
        for i, p in enumerate(players):
            if p is None:
                seats.append({"seat": i, "name": None, "kind": "open",
                              **({"invite": invites[i]} if i in invites else {})})
            elif "account" in p:
                seats.append({"seat": i, "name": p["name"], "kind": "account", "account": p["account"]})
            elif "bot" in p:
                seats.append({"seat": i, "name": p["name"], "kind": "bot", "bot": p["bot"]})
            else:
                seats.append({"seat": i, "name": p["name"], "kind": "human", "token": tokens[i]})
        return {
            "game_id": game_id,
            "commitment": state.commitment,
            "randomly_dealt": state.randomly_dealt,
            "seats": seats,
            "view": self.render(game_id, state, None),
        }

    def claim_seat(self, game_id: str, seat: int, read_body: Callable[[], dict],
                   made: Made | None = None) -> tuple[str, Answer]:
        """Sit a person at an open seat: (their token, their view).

        ``read_body`` reads the claim (``name``, ``invite`` for a seat by invitation, and the
        seat's ``client_seed`` if it sends one with the claim) from the request once the game is
        known to exist.

        ``made``: the claim's Idempotency-Key made it (service.store.creations.Made): its token is
        derived from the key, and the log records the claim under the key's ``log_key``. A retry
        of a claim whose first answer was lost (Redis unavailable: its write may have landed) finds it
        there and gets the same token and the view of then, not ``seat_taken``.
        """
        state = self.state(game_id)
        body = read_body()
        name = body["name"]
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        if made is not None:
            landed = self._landed(game_id, made)
            if landed is not None:
                return self._seated(game_id, seat, made, landed)
        for attempt in range(CLAIM_ATTEMPTS):
            if attempt:
                state = self.state(game_id)
            if not 0 <= seat < len(state.players):
                raise SeatNotFound(f"this game has seats 0 to {len(state.players) - 1}")
            self._check_invite(state, seat, body.get("invite"))
            new_events = game.decide(state, None, commands.ClaimSeat(seat, {"name": name}, body.get("client_seed")))
            try:
                saved = self.repository.save(game_id, state, new_events, key, fingerprint=fingerprint)
            except ConcurrencyError:
                continue  # someone else's command landed first: decide again on the new state
            except IdempotencyConflict as err:
                raise IdempotencyKeyReused() from err
            version, new_state = saved.version, saved.state
            if saved.replayed:
                made.found = True  # a copy of this claim landed first: its answer is this one
                return self._seated(game_id, seat, made, version)
            token = made.token("seat") if made is not None else issue_token()
            self.tokens.claim(game_id, seat, token)
            self._appended(game_id, new_state)
            return token, Answer(self.render(game_id, new_state, seat), version)
        raise Conflict("the game kept changing while the seat was claimed; retry")

    def _landed(self, game_id: str, made: Made) -> int | None:
        """The version at which the game's log recorded the write ``made`` stands for (None: it did
        not); IdempotencyKeyReused if the log recorded another request under its key."""
        prior = self.store.idempotent_result(game_id, made.log_key)
        if prior is None:
            return None
        fingerprint, version = prior
        if fingerprint != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return version

    def _seated(self, game_id: str, seat: int, made: Made, version: int) -> tuple[str, Answer]:
        """The answer of a seat's claim the log recorded at ``version``: its token (written again,
        in case the first request failed before it wrote it) and the seat's view of then."""
        token = made.token("seat")
        self.tokens.claim(game_id, seat, token)
        self._appended(game_id, self.state(game_id))
        state = self.repository.load_state(game_id, upto=version)
        return token, Answer(self.render(game_id, state, seat), version)

    @staticmethod
    def _check_invite(state, seat: int, presented: str | None) -> None:
        """InviteRequired unless the seat is public or ``presented`` is its invite secret.

        The log keeps only the secret's SHA-256 (GameCreated.invites); it is compared in constant
        time, as seat tokens are.
        """
        stored = (state.invites or {}).get(str(seat))
        if stored is None:
            return
        if not isinstance(presented, str) or not hmac.compare_digest(hash_token(presented), stored):
            raise InviteRequired(f"seat {seat} is by invitation: present its invite secret as 'invite'")

    # -- reading -------------------------------------------------------------------------------

    def view(self, game_id: str, seat: int | None, state=None) -> Answer:
        """The current view of a seat (or a spectator); ``state``: the current state, if just loaded."""
        state = state if state is not None else self.state(game_id)
        return Answer(self.render(game_id, state, seat), state.version)

    def state_at(self, game_id: str, seat: int | None, version: int) -> Answer:
        """The view of a seat as the game stood after event ``version``."""
        current = self.state(game_id).version
        if version < 1:
            raise InvalidVersion("versions start at 1 (the game's creation)")
        if version > current:
            raise VersionNotFound(f"the game is at version {current}")
        state = self.repository.load_state(game_id, upto=version)
        return Answer(self.render(game_id, state, seat), version)

    def _entry(self, rec, shown: dict) -> dict:
        return {"version": rec.version, "ts": rec.ts, "type": shown["type"], "v": shown["v"], "data": shown["data"]}

    def events(self, game_id: str, seat: int | None, after: int, limit: int) -> dict:
        """Events after ``after`` (at most ``limit``), each redacted for the caller (in full once the
        game is over, unless it is sealed: a board of a match in play)."""
        current = self.state(game_id)
        upto = min(after + limit, current.version)
        records = self.store.load(game_id, after=after, upto=upto) if after < upto else []
        out = []
        sealed = self._sealed_over(game_id, current)
        if current.status == "over" and not sealed:
            out = [self._entry(r, ev.encode(r.event)) for r in records]
        else:
            state = self.repository.load_state(game_id, upto=after) if records and after > 0 else None
            for r in records:
                shown = views.view_event(r.event, seat, state, sealed=sealed)
                if shown is not None:
                    out.append(self._entry(r, shown))
                state = game.evolve(state, r.event)
        return {"events": out, "next_after": upto if upto < current.version else None}

    def _finished(self, game_id: str):
        state = self.state(game_id)
        if self.sealed(game_id):
            # the seed deals every table of the board: not even a seat has it before the match ends
            raise MatchGameSealed("this game is a board of a match in play: its audit and export wait "
                                  "for the match's end")
        if state.status != "over":
            raise GameNotOver("this is only available once the game is over")
        return state

    def audit(self, game_id: str) -> dict:
        """Check the finished game's log against its revealed seed."""
        self._finished(game_id)
        log_events = [r.event for r in self.store.load(game_id)]
        created = log_events[0]
        report = audit.verify(log_events, created.seed)
        checks = report["checks"]

        def passed(pred) -> bool:
            chosen = [c for c in checks if pred(c["name"])]
            return bool(chosen) and all(c["ok"] for c in chosen)

        advice_check = self._audit_advice(game_id, log_events)
        checks.append(advice_check)
        return {
            "game_id": game_id,
            "seed": created.seed,
            "commitment": created.commitment,
            "commitment_ok": passed(lambda n: n == "commitment"),
            "deals_ok": all(c["ok"] for c in checks if c["name"].startswith(("deal_", "cut_"))),
            "replay_ok": passed(lambda n: n == "replay"),
            "ok": bool(report["ok"]) and advice_check["ok"],
            "checks": checks,
            "not_checked": audit.NOT_CHECKED,
        }

    def _audit_advice(self, game_id: str, log_events: list) -> dict:
        """Every piece of the advice log was one the engine allowed at the version it names, within the bounds."""
        records = self.advice.read(game_id)
        by_version: dict[int, list] = {}
        for r in records:
            by_version.setdefault(r.version, []).append(r)
        problems = []
        state = None
        for version, event in enumerate(log_events, start=1):
            state = game.evolve(state, event)
            for r in by_version.pop(version, ()):
                if r.seq >= commands.MAX_ADVICE_PER_VERSION:
                    problems.append(f"{version}-{r.seq}: over {commands.MAX_ADVICE_PER_VERSION} at one version")
                try:
                    allowed = game.check_advice(state, r.entry.get("advisor"), commands.Advise(r.entry.get("text")))
                except RulesError as err:
                    problems.append(f"{version}-{r.seq}: not allowed at that version ({err.code})")
                    continue
                if allowed != {k: r.entry.get(k) for k in allowed}:
                    problems.append(f"{version}-{r.seq}: its hand, advisor or captain differ from the game's")
        problems += [f"{v}-{r.seq}: names a version the log does not hold" for v, rs in by_version.items() for r in rs]
        detail = (f"{len(records)} piece(s) of advice, each allowed at the version it was given at"
                  if not problems else "; ".join(problems[:10]))
        return {"name": "advice", "ok": not problems, "detail": detail}

    def export(self, game_id: str) -> list[str]:
        """The finished game's stored events, one canonical JSON line each, then its advice log.

        An advice line is an ``advice_given`` event marked with the version it was given at
        (``at_version``) and its rank there (``seq``): it is no event of the game's log and has
        no version of its own.
        """
        self._finished(game_id)
        lines = [canonical_json(r.raw) + "\n" for r in self.store.load(game_id)]
        for r in self.advice.read(game_id):
            lines.append(canonical_json(self._advice_event(r)) + "\n")
        return lines

    def advice_list(self, game_id: str, seat: int | None) -> dict:
        """Every piece of advice the caller may see: the captain and the advisor while the game runs, everyone after.

        A gin-rami game has no advisor, so there is none to see: its list is empty, for everyone,
        whether the game runs or is over (it says nothing a view does not).
        """
        state = self.state(game_id)
        if state.variant != "three-hand":
            return {"advice": []}
        # a finished board of a match in play keeps its advice as a game in play does
        sealed = self._sealed_over(game_id, state)
        if not views.sees_advice(state, seat, sealed):
            raise Forbidden("only the captain and the advisor see advice before the game is over")
        # games recorded before the advice log kept their advice in the state
        entries = [dict(a) for a in state.advice] + [r.as_dict() for r in self.advice.read(game_id)]
        if state.status != "over" or sealed:
            entries = [a for a in entries if seat in (a["advisor"], a["captain"])]
        return {"advice": entries}

    @staticmethod
    def _sealed_event(game_id: str, state) -> dict:
        """The data of the ``sealed`` message that ends the stream of a board over while its match
        is in play (every seat of a match's game names the match)."""
        match_id = next((p["match"] for p in state.players if isinstance(p, dict) and p.get("match")), None)
        return {"type": "sealed", "at_version": state.version, "data": {"game_id": game_id, "match_id": match_id}}

    @staticmethod
    def _advice_event(r) -> dict:
        entry = r.entry
        return {"type": ev.AdviceGiven.TYPE, "v": ev.AdviceGiven.V, "at_version": r.version, "seq": r.seq, "ts": r.ts,
                "data": {"seat": entry["advisor"], "captain": entry["captain"], "hand_no": entry["hand_no"],
                         "text": entry["text"]}}

    # -- commands ------------------------------------------------------------------------------

    def _idempotent_answer(self, game_id: str, seat: int | None, key: str, fingerprint: str) -> Answer | None:
        prior = self.store.idempotent_result(game_id, key)
        if prior is None:
            return None
        first_fingerprint, version = prior
        if first_fingerprint != fingerprint:
            raise IdempotencyKeyReused()
        state = self.repository.load_state(game_id, upto=version)
        return Answer(self.render(game_id, state, seat), version)

    def play(self, game_id: str, incoming: Incoming) -> Answer:
        """Play a command for the seat of the token presented; the mover's new view.

        The command is decided on the newest state this process holds of the game, unread: the
        append, which expects that state's version, is what checks it against the log. Else on
        the log's.
        """
        recent = self.repository.recent_state(game_id)
        state, state_read = (recent, False) if recent is not None else (self.state(game_id), True)
        try:
            seat = self._seat_of(game_id, incoming.token())
        except Exception:  # whatever refused the caller (no token, a token of no seat)
            if not state_read:
                self.state(game_id)  # a game the log does not hold is not found, whoever asks
            raise
        req = incoming.request()
        key, fingerprint = req.idempotency.for_seat(seat) if req.idempotency is not None else (None, None)
        return self._play(game_id, seat, req.command, req.expected_versions, key, fingerprint, state, state_read)

    def play_for_seat(self, game_id: str, seat: int, command, *, expected_versions: Collection[int] | None = None,
                      idempotency_key: str | None = None, fingerprint: str | None = None) -> Answer:
        """Play a command for ``seat`` (a bot, a turn clock: no token), decided on the log's state."""
        return self._play(game_id, seat, command, expected_versions, idempotency_key, fingerprint,
                          self.state(game_id), True)

    def _play(self, game_id, seat, command, expected_versions, idempotency_key, fingerprint, state,
              state_read) -> Answer:
        """Decide ``command`` for ``seat`` on ``state`` and append its events.

        ``expected_versions``: the versions the client accepts (VersionMismatch if the game is
        elsewhere); without them a lost race is a ConcurrencyError. A command decided on a state
        that was not read from the log (``state_read``) answers nothing the log has not
        confirmed: if it is refused in any way while the log is elsewhere, it is decided again
        on the log's state.
        """
        if idempotency_key is not None:
            answer = self._idempotent_answer(game_id, seat, idempotency_key, fingerprint)
            if answer is not None:
                return answer
        while True:
            try:
                return self._decide_and_append(game_id, state, seat, command, expected_versions, idempotency_key,
                                               fingerprint)
            except (DomainError, RulesError, ConcurrencyError):
                if not state_read:
                    current = self.state(game_id)
                    if current.version != state.version:
                        # the state this process held was behind the log: only a refusal on the log's counts
                        state, state_read = current, True
                        continue
                # a copy of this very request (same key and body) may have been recorded between our
                # look-up and our decision, so that the state we decided on already had its move:
                # the copy's answer is ours
                if idempotency_key is not None:
                    answer = self._idempotent_answer(game_id, seat, idempotency_key, fingerprint)
                    if answer is not None:
                        return answer
                raise

    def give_advice(self, game_id: str, incoming: Incoming) -> Answer:
        """Record the advice (an Advise command) of the seat of the token presented; the advisor's view."""
        state = self.state(game_id)
        seat = self._seat_of(game_id, incoming.token())
        req = incoming.request()
        key, fingerprint = req.idempotency.for_seat(seat) if req.idempotency is not None else (None, None)
        return self._give_advice(game_id, seat, req.command, req.expected_versions, key, fingerprint, state)

    def give_advice_for_seat(self, game_id: str, seat: int, text: str, *,
                             expected_versions: Collection[int] | None = None) -> Answer:
        """Record advice for ``seat`` (a bot advisor: no token)."""
        return self._give_advice(game_id, seat, commands.Advise(text), expected_versions, None, None,
                                 self.state(game_id))

    def _give_advice(self, game_id, seat, advice: commands.Advise, expected_versions, idempotency_key, fingerprint,
                     state) -> Answer:
        """Record the advisor's advice at the game's current version; the advisor's view (its version unchanged).

        The engine decides whether the advice is allowed on the log's state; the advice log then
        records it only if the game is still at that version and fewer than
        ``MAX_ADVICE_PER_VERSION`` pieces were given there. The game's log is not touched.
        """
        for attempt in range(CLAIM_ATTEMPTS):
            if attempt:
                state = self.state(game_id)
            if expected_versions is not None and state.version not in expected_versions:
                raise VersionMismatch(f"the game is at version {state.version}, not the one in If-Match",
                                      current=state.version)
            self._check_role(state, seat, advice)
            entry = game.check_advice(state, seat, advice)
            try:
                self.advice.give(game_id, state.version, entry, commands.MAX_ADVICE_PER_VERSION,
                                 idempotency_key, fingerprint or "")
            except ConcurrencyError:
                continue  # a move landed meanwhile: check the advice again on the new state
            except advice_log.AdviceLimitReached:
                raise AdviceLimitReached(
                    f"at most {commands.MAX_ADVICE_PER_VERSION} pieces of advice between two moves") from None
            except IdempotencyConflict as err:
                raise IdempotencyKeyReused() from err
            return Answer(self.render(game_id, state, seat), state.version)
        raise Conflict("the game kept changing while the advice was recorded; retry")

    def abandon_if_idle(self, game_id: str, idle_after_s: float, now_ms: int) -> bool:
        """End the game with no winner if nobody has moved in it for ``idle_after_s``; True if it did.

        Idle is measured from the time of the game's latest event. The append expects the version
        that was measured, so a move that lands meanwhile wins and the game goes on.
        """
        state = self.state(game_id)
        if state.status not in ("waiting", "playing"):
            return False
        last = self.store.load(game_id, after=state.version - 1, upto=state.version)
        if not last:
            return False
        idle_ms = now_ms - last[-1].ts
        if idle_ms < idle_after_s * 1000:
            return False
        new_events = game.decide(state, None, commands.AbandonGame(idle_ms // 1000))
        try:
            new_state = self.repository.save(game_id, state, new_events).state
        except ConcurrencyError:
            return False  # someone moved meanwhile: the game is not idle
        self._appended(game_id, new_state)
        return True

    def close_client_seeds_if_due(self, game_id: str, now_ms: int) -> bool:
        """Deal without the client seeds still awaited once the game's ``client_seed_wait_s`` has
        run out; True if it did.

        The wait is measured from the time of the event that took the last seat (or created the
        game with every seat taken). The append expects the version that was measured, so a seed
        that lands meanwhile wins.
        """
        state = self.state(game_id)
        wait_s = state.options.get("client_seed_wait_s")
        if wait_s is None or not state.awaited_seeds or any(p is None for p in state.players):
            return False
        seated_at = None
        for r in self.store.load(game_id, upto=state.version):
            if isinstance(r.event, (ev.GameCreated, ev.SeatClaimed)):
                seated_at = r.ts
        if seated_at is None or now_ms - seated_at < wait_s * 1000:
            return False
        new_events = game.decide(state, None, commands.CloseClientSeeds((now_ms - seated_at) // 1000))
        try:
            new_state = self.repository.save(game_id, state, new_events).state
        except ConcurrencyError:
            return False
        self._appended(game_id, new_state)
        return True

    def advice_given_at(self, game_id: str, version: int) -> bool:
        """Whether any advice was given at ``version`` of the game."""
        return any(r.version == version for r in self.advice.read(game_id, after=(version - 1, 1 << 30)))

    def _decide_and_append(self, game_id, state, seat, command, expected_versions, idempotency_key,
                           fingerprint) -> Answer:
        if expected_versions is not None and state.version not in expected_versions:
            raise VersionMismatch(f"the game is at version {state.version}, not the one in If-Match",
                                  current=state.version)
        self._check_role(state, seat, command)
        if isinstance(command, commands.Advise):
            raise TypeError("advice is recorded by give_advice, in the advice log, never as an event")
        new_events = game.decide(state, seat, command)
        try:
            saved = self.repository.save(game_id, state, new_events, idempotency_key, fingerprint=fingerprint)
        except ConcurrencyError as err:
            if expected_versions is not None:
                raise VersionMismatch(
                    f"the game moved on to version {err.actual} before this command was recorded") from err
            raise
        except IdempotencyConflict as err:
            raise IdempotencyKeyReused() from err
        version, new_state = saved.version, saved.state
        if saved.replayed:
            # the same key and body raced with us and won: answer what the first request got
            return Answer(self.render(game_id, new_state, seat), version)
        self._appended(game_id, new_state)
        return Answer(self.render(game_id, new_state, seat), version)

    @staticmethod
    def _check_role(state, seat: int, command) -> None:
        """Forbidden for the three-hand advisor's moves: the advisor sits out the hand.

        Advice is the engine's to refuse, with its own code: ``not_advisor`` from a seat that
        is not the advisor of the hand in play (the roles move between hands), and in gin-rami,
        which has no advisor.
        """
        roles = getattr(state, "roles", None)
        if isinstance(command, commands.Advise) or state.status != "playing" or not roles:
            return  # the engine answers (not_advisor, game_not_started, game_over ...)
        advisor = roles.get("advisor")
        if seat == advisor and not isinstance(command, (commands.Resign, commands.SendClientSeed)):
            # the advisor plays no moves, but is a player of the game and may resign it (and a
            # client seed sent once the game is in play is the engine's to refuse: too late)
            raise Forbidden("the advisor sits out this hand and plays no moves")

    # -- the live stream -----------------------------------------------------------------------

    def stream(self, game_id: str, seat: int | None, after: int, once: bool = False,
               clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent events for the caller from version ``after`` on (validated before the first byte)."""
        current = self.state(game_id)
        after = max(0, min(after, current.version))
        state = self.repository.load_state(game_id, upto=after) if after > 0 else None
        # a board of a match in play is sealed: its events never reveal its secrets, not even the
        # seed that the event ending the game carries (asked again when the game's end is sent,
        # see _sse)
        sealed = self.sealed(game_id)
        full = current.status == "over" and not sealed
        return self._sse(game_id, seat, after, state, full, once, clock, sealed)

    def _sse(self, game_id, seat, after, state, full, once, clock, sealed=False) -> Iterator[str]:
        deadline = clock() + self.stream_max_s
        yield ": connected\n\n"
        last_write = clock()
        records = self.store.load(game_id, after=after)
        # advice given at the version the stream starts from, or later (a client resuming from
        # Last-Event-ID N may see again what was given at N: (version, seq) tells them apart)
        advice_after = (after - 1, 1 << 30) if after > 0 else None
        while True:
            if sealed and records and isinstance(records[-1].event, GAME_ENDS):
                # the seal, asked when the stream began, is asked again as the game's end is sent:
                # a match ends only once all its games are over, so this game's may be the end
                # of the match's last game, read after the match recorded it. Lifted, the batch
                # is sent as a fresh stream of the finished game would send it: in full
                sealed = self.sealed(game_id)
                full = not sealed
            for r in records:
                shown = ev.encode(r.event) if full else views.view_event(r.event, seat, state, sealed=sealed)
                state = game.evolve(state, r.event)
                after = r.version
                if shown is not None:
                    data = json.dumps(self._entry(r, shown), separators=(",", ":"))
                    yield f"id: {r.version}\nevent: {shown['type']}\ndata: {data}\n\n"
                    last_write = clock()
            watch_advice = (not full and state is not None and state.variant == "three-hand"
                            and state.status == "playing" and views.sees_advice(state, seat))
            if watch_advice:
                for a in self.advice.read(game_id, after=advice_after):
                    advice_after = (a.version, a.seq)
                    if seat in (a.entry["advisor"], a.entry["captain"]):
                        # no id: line, so that Last-Event-ID stays the game's version
                        data = json.dumps(self._advice_event(a), separators=(",", ":"))
                        yield f"event: advice_given\ndata: {data}\n\n"
                        last_write = clock()
            finished = state is not None and state.status == "over"
            if finished and sealed:
                # what the stream sent of the game's end held its secrets back (its match is in
                # play): the last message says so, without an id (Last-Event-ID stays the
                # game's version), so that the client reads the game again once the match is over
                data = json.dumps(self._sealed_event(game_id, state), separators=(",", ":"))
                yield f"event: sealed\ndata: {data}\n\n"
            if once or finished or clock() >= deadline:
                return
            wait = self.advice_poll_s if watch_advice else self.keepalive_s
            records = self.store.wait_for_events(game_id, after, min(wait, max(0.0, deadline - clock())))
            if not records and clock() - last_write >= self.keepalive_s:
                yield ": keep-alive\n\n"
                last_write = clock()
