"""Bot accounts: registering, settings, the public profile, the seats of a game, the leaderboard."""

from __future__ import annotations

import hmac

from service.arena.core import BOT_NAME, ArenaCore, rating_wire, reserved_bot_name
from service.errors import (
    BotNameTaken,
    BotNotFound,
    BotTokenRequired,
    DuplicateParticipant,
    InvalidBotName,
    UnknownParticipant,
)
from service.rules import duplicate as D
from service.rules.names import BOT_POLICY_NAMES
from service.store.creations import Made
from service.store.tokens import hash_token, issue_token


class BotAccounts(ArenaCore):
    """The use cases of /bots (its stream and lists apart: bot_stream.py, bot_lists.py), and the ratings."""

    def register_bot(self, body: dict, made: Made | None = None) -> dict:
        """A new bot account; its token is in this answer only.

        ``made``: the request's Idempotency-Key made it (service.store.creations.Made).
        A retry whose first answer was lost answers with the same token, not 409 ``bot_name_taken``.
        """
        name = body["name"]
        if not BOT_NAME.match(name) or reserved_bot_name(name):
            raise InvalidBotName(
                f"a bot's name is 2 to 32 of A-Z a-z 0-9 _ -, and, in any case, not one of "
                f"{', '.join(BOT_POLICY_NAMES)} (the built-in policies) or 'me', nor shaped like the name "
                f"of a built-in bot's seat or match place (<policy>-bot, <policy>-bot-<n>, <policy>-<n>, "
                f"with - or _, e.g. basic-bot-0)")
        # with a key (made), the token is derived from the key and the request
        token = made.token("bot") if made is not None else issue_token()
        profile = {"name": name, "description": body.get("description", ""), "owner": body.get("owner", ""),
                   "accepts_matches": bool(body.get("accepts_matches", False)),
                   "accepts_tournaments": bool(body.get("accepts_tournaments", False)), "created": self.clock_ms()}
        if not self.store.register_bot(name, profile, hash_token(token)):
            # A first answer may be lost while its write landed (a 503).
            # The retry then finds the account under its name with that token's hash.
            kept = self.store.bot(name) if made is not None else None
            if kept is not None and hmac.compare_digest(kept["token_hash"], hash_token(token)):
                # the first request with this key registered it, and its answer was lost: this is it
                made.found = True
                return {**{k: kept.get(k, profile[k]) for k in profile}, "token": token}
            raise BotNameTaken(f"the name {name!r} is taken: a bot account has it already, in this or another case")
        return {**profile, "token": token}

    def update_bot(self, token: str | None, body: dict) -> dict:
        """PATCH /bots/me: the bot whose token is presented changes its settings (``accepts_matches``);
        its public profile."""
        name = self.bot_of(token)
        if self.store.update_bot(name, {k: body[k] for k in ("accepts_matches", "accepts_tournaments")
                                        if k in body}) is None:
            raise BotNotFound(f"there is no bot {name!r}")
        return self.profile(name)

    def replace_token(self, token: str | None, made: Made | None = None) -> dict:
        """POST /bots/me/token: a new token for the bot whose token is presented; that one stops working.

        ``made``: the request's Idempotency-Key made it: the new token is derived from the key, and a
        retry whose first answer was lost (its old token replaced already) answers with the same one.
        """
        new = made.token("bot") if made is not None else issue_token()
        try:
            name = self.bot_of(token)
        except BotTokenRequired:
            kept = self.store.bot_of_token(hash_token(new)) if made is not None and token else None
            if kept is None:
                raise
            made.found = True  # this key replaced the presented token already: its answer was lost
            return {"name": kept, "token": new}
        self._swap_token(name, hash_token(token), hash_token(new), usable=True)
        return {"name": name, "token": new}

    def revoke_token(self, token: str | None) -> None:
        """DELETE /bots/me/token: the bot whose token is presented has no token any more."""
        name = self.bot_of(token)
        # the account keeps a hash, of a token nobody was given: its seats and new games take it
        self._swap_token(name, hash_token(token), hash_token(issue_token()), usable=False)

    def _swap_token(self, name: str, old: str, new: str, *, usable: bool) -> None:
        """The account's token hash ``old`` becomes ``new``, at its seats of the games in play too."""
        if not self.store.replace_bot_token(name, old, new, usable):
            raise BotTokenRequired("this token is no bot account's")  # replaced meanwhile by another request
        after = None
        while True:
            page = self.store.games_in_play(name, after, 200)
            for game_id in page:
                self.games.tokens.replace_hash(game_id, old, new)
            if len(page) < 200:
                return
            after = page[-1]

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
                ratings[variant] = rating_wire(r)
        return {"name": bot["name"], "description": bot["description"], "owner": bot["owner"],
                "accepts_matches": bool(bot.get("accepts_matches", False)),
                "accepts_tournaments": bool(bot.get("accepts_tournaments", False)), "created": bot["created"], "ratings": ratings, "games": games, "recent_games": recent_games,
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
        self.games.tokens.save_hashes(game_id, hashes)
        for seat, name in seats.items():
            self.store.seat_bot(name, "games", game_id, self.clock_ms())
            self.store.notify(name, "game_started", {"game_id": game_id, "seat": seat})

    def leaderboard(self, variant: str) -> dict:
        rows = [{"name": name, **rating_wire(r),
                 "kind": "policy" if name in BOT_POLICY_NAMES else "bot"}
                for name, r in self.store.ratings(variant).items()]
        rows.sort(key=lambda r: (-r["rating"], r["name"]))
        return {"variant": variant, "ratings": rows}
