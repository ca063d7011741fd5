"""Creating a game: its seats, its first events, the tokens shown once, the cap on games of bots alone."""

from __future__ import annotations

import logging
import secrets

from service.errors import IdempotencyKeyReused, TooManyBotGames
from service.games.core import GameCore
from service.rules import fairness, game
from service.rules.errors import RulesError
from service.store.creations import Made
from service.store.errors import IdempotencyConflict
from service.store.tokens import hash_token, issue_token

log = logging.getLogger(__name__)

#: the highest target_score of a game of built-in bots alone (POST /games): no seat's token can
#: resign it, so its target is what ends it (the default target is 100)
BOTS_ALONE_MAX_TARGET = 500


class GameCreation(GameCore):
    """The use case ``create_game`` (POST /games)."""

    def create_game(self, body: dict, token: str | None = None, caller: str | tuple[str, ...] | None = None,
                    made: Made | None = None) -> dict:
        """Start a game from a validated POST /games body; human seats get their tokens once.

        ``token``: the request's, read only if a seat names a bot account.
        ``caller``: whom a game of built-in bots alone counts against, one or several (None: not counted).
        Over a cap: TooManyBotGames, nothing written.
        ``made``: the request's Idempotency-Key made it; a retry then answers as the first did.
        """
        players: list[dict | None] = []
        for i, seat in enumerate(body["seats"]):
            if seat is None:
                players.append(None)
            elif "account" in seat:
                account = self.arena.bot_name(seat["account"]) or seat["account"]
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
            rules=body.get("rules"),
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
        # no seat's token can resign a game of built-in bots alone: its target bounds its length
        target = (body.get("options") or {}).get("target_score")
        if self._bots_alone(players) and target is not None and target > BOTS_ALONE_MAX_TARGET:
            raise RulesError("invalid_option", f"a game of built-in bots alone plays to {BOTS_ALONE_MAX_TARGET} "
                                               "points at most (target_score)")
        # With a key (made), the game's id, its seats' tokens and invite secrets are derived from the key.
        # The log records the creation under the key's log_key.
        game_id = made.game_id() if made is not None else self.id_factory()
        if made is not None:
            # A first answer may be lost while its write landed (Redis unavailable).
            # The retry then finds the game there, instead of making a second game.
            landed = self._landed(game_id, made)
            if landed is not None:
                # the first request with this key made the game, and its answer was lost: this is it,
                # the same tokens included
                self.after_append(game_id, self.state(game_id))
                return self._created(game_id, players, self._tokens_for(players, made), invites,
                                     self.repository.load_state(game_id, upto=landed))
        # A game of built-in bots alone costs the bot workers a job per turn until it ends.
        # So a caller has at most bot_games_per_caller of them in play, and the server bot_games_in_play.
        # The caller is addr:<address>, and bot:<name> too for a bot account's token.
        # Bot accounts register freely: the address counts the games of all its accounts.
        # A bot account's seat is not a built-in bot: the account plays its own moves.
        # It plays at its own pace and on its own machine, so a game that seats one is paced like a person's.
        counted = None
        if (caller is not None and self.bot_games is not None
                and (self.bot_games_per_caller > 0 or self.bot_games_in_play > 0) and self._bots_alone(players)):
            refused = self.bot_games.claim(caller, game_id, self.bot_games_per_caller, self.clock_ms(),
                                           server_cap=self.bot_games_in_play)
            if refused in ("caller", "address"):
                first = caller if isinstance(caller, str) else caller[0]
                who = "this bot" if refused == "caller" and first.startswith("bot:") else "this client address"
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

    def _unclaim(self, caller: str | tuple[str, ...], game_id: str) -> None:
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
            # the arena seats a bot account only with its consent: its own token, or its opt-in
            self.arena.seat_accounts(game_id, accounts, token)
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
            self.after_append(game_id, state)
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
