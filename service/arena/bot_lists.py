"""What a bot account reads of itself and of the others: its games in play, its pending challenges,
the turns that wait on it, and the list of bot accounts."""

from __future__ import annotations

from service.arena.core import ArenaCore, rating_wire
from service.errors import GameNotFound
from service.rules import duplicate as D
from service.rules.challenges import public_view

#: games of a bot read at once while looking for the turns that wait on it
WAITING_BATCH = 200
#: the most games in play a stream's first messages look at (a bot seated in more hears of the
#: rest by their next your_turn, or reads GET /bots/me/games)
WAITING_SCAN_MAX = 2_000


class BotLists(ArenaCore):
    """The use cases of GET /bots, /bots/me/games and /bots/me/challenges, and a stream's waiting turns."""

    def _seen(self, name: str) -> None:
        self.store.saw_bot(name, self.clock_ms())

    def _live_games(self, name: str, after: str | None, count: int) -> tuple[list[tuple[str, int, object]], str | None]:
        """([(game id, the bot's seat, state)] of up to ``count`` of its games in play after ``after``,
        the id to go on after, or None at the end). A game found over, or never made, leaves the index."""
        ids = self.store.games_in_play(name, after, count)
        out = []
        for game_id in ids:
            try:
                state = self.games.state(game_id)
            except GameNotFound:
                state = None
            seat = None if state is None else next(
                (i for i, p in enumerate(state.players or ()) if isinstance(p, dict) and p.get("account") == name),
                None)
            if state is None or state.status == "over" or seat is None:
                # its end was not seen (a process died between the append and the arena's look)
                self.store.game_left_play(name, game_id)
                continue
            out.append((game_id, seat, state))
        return out, (ids[-1] if len(ids) == count else None)

    def bot_games(self, name: str, cursor: str | None, limit: int) -> dict:
        """GET /bots/me/games: a page of the bot's games in play, in game id order."""
        self._seen(name)
        live, next_cursor = self._live_games(name, cursor, limit)
        marks = self.store.games_of([game_id for game_id, _, _ in live])
        games = []
        for game_id, seat, state in live:
            view = self.games.render(game_id, state, seat)
            mark = marks.get(game_id) or {}
            games.append({"game_id": game_id, "seat": seat, "variant": state.variant, "status": state.status,
                          "version": state.version, "phase": view["phase"], "to_act": list(state.to_act),
                          "my_turn": state.status == "playing" and seat in state.to_act,
                          "turn_deadline_ms": view["turn_deadline_ms"], "match_id": mark.get("match_id"),
                          "board": mark.get("board"), "table": mark.get("table")})
        return {"games": games, "next_cursor": next_cursor}

    def waiting_turns(self, name: str) -> list[dict]:
        """The ``your_turn`` data (``pending`` true) of each game in play where the bot is to act,
        the first messages of its stream."""
        out, after, looked = [], None, 0
        while looked < WAITING_SCAN_MAX:
            live, after = self._live_games(name, after, min(WAITING_BATCH, WAITING_SCAN_MAX - looked))
            looked += WAITING_BATCH
            for game_id, seat, state in live:
                if state.status == "playing" and seat in state.to_act:
                    out.append({"game_id": game_id, "pending": True, "seat": seat, "version": state.version})
            if after is None:
                break
        return out

    def bot_challenges(self, name: str) -> dict:
        """GET /bots/me/challenges: the challenges pending to the bot and from it, oldest deadline first."""
        self._seen(name)
        now = self.clock_ms()
        incoming, outgoing = self.store.pending_challenge_ids(name, f"bot:{name}", now)

        def pending(ids: list[str]) -> list[dict]:
            views = []
            for challenge_id in ids:
                c = self.store.challenge(challenge_id)
                shown = None if c is None else public_view(c, now)
                if shown is not None and shown["status"] == "pending":
                    views.append(shown)
            return views

        return {"incoming": pending(incoming), "outgoing": pending(outgoing)}

    def bot_list(self, cursor: str | None, limit: int) -> dict:
        """GET /bots: a page of the bot accounts in name order, with their ratings and when they were last active."""
        names = self.store.bot_names(cursor, limit)
        seen, seated = self.store.last_seen(names), self.store.last_seated(names)
        ratings = {variant: self.store.ratings_of(variant, names) for variant in D.TABLES}
        bots = []
        for name in names:
            bot = self.store.bot(name)
            if bot is None:
                continue
            bots.append({"name": name, "description": bot.get("description", ""),
                         "accepts_matches": bool(bot.get("accepts_matches", False)),
                         "ratings": {v: rating_wire(r[name]) for v, r in ratings.items() if name in r},
                         "last_seen": seen.get(name), "last_seated": seated.get(name)})
        return {"bots": bots, "next_cursor": names[-1] if len(names) == limit else None}
