"""A match's boards in play: what every append tells the arena, moving a match on, sealing its games, ratings."""

from __future__ import annotations

from collections.abc import Callable

from service.arena.core import ADVANCE_ATTEMPTS, CLOCK_TAIL, LOOK_EVERY_MS, ArenaCore
from service.errors import GameNotFound
from service.rules import duplicate as D
from service.rules import game
from service.rules.challenges import not_played
from service.rules.events import TurnTimedOut, encode
from service.rules.ratings import Rating, rate_period, score_of
from service.store.errors import ConcurrencyError


class ArenaBoards(ArenaCore):
    """Matches moved on by their games' ends; the seal on a match's games; ratings of games and matches."""

    def on_append(self, game_id: str, state) -> None:
        """After an append: tell the bots seated in the game; move its match (or ratings) on at its end."""
        players = state.players or ()
        accounts = [(seat, p["account"]) for seat, p in enumerate(players) if isinstance(p, dict) and p.get("account")]
        if accounts and (state.options or {}).get("turn_timeout_s"):
            self._tell_clock_moves(game_id, state, accounts)
        if state.status == "playing":
            for seat, name in accounts:
                if seat in state.to_act:
                    self.store.notify(name, "your_turn", {"game_id": game_id, "version": state.version, "seat": seat})
        if state.status != "over":
            return
        for seat, name in accounts:
            self.store.notify(name, "game_over", {"game_id": game_id, "version": state.version, "seat": seat,
                                                  "scores": list(state.scores)})
            self.store.game_left_play(name, game_id)
        info = self.store.game_of(game_id)
        if info is None:
            return
        if info.get("match_id"):
            match_id = info["match_id"]
            index = D.game_index(info["board"], info["table"], D.TABLES[state.variant])
            points = self._board_points(game_id, state)
            # The match records the game's end at once, in the common case.
            # The mark is only for the next advance, when this one recorded nothing (another
            # writer kept coming first, or Redis failed it); it costs a write, so it is left out
            # when the match's log already holds the game.
            recorded = False
            try:
                recorded = index in self.advance(match_id, ended={index: points}).played
            finally:
                if not recorded:
                    self.store.mark_finished(match_id, index, points)
        elif info.get("rated"):
            self._rate_game(game_id, state)

    def _tell_clock_moves(self, game_id: str, state, accounts: list[tuple[int, str]]) -> None:
        """Tell a bot account whose turn clock played this append (``clock_moved``): its seat's moves."""
        # The clock's append is a turn_timed_out marker and the move played, under the key clock-<version before>.
        # The marker is looked for among the last events; the key's answer says whether this append was it.
        tail = self.games.store.load(game_id, after=max(0, state.version - CLOCK_TAIL), upto=state.version)
        marker = next((r for r in reversed(tail) if isinstance(r.event, TurnTimedOut)), None)
        if marker is None:
            return
        played = self.games.store.idempotent_result(game_id, f"clock-{marker.version - 1}")
        if played is None or played[1] != state.version:
            return  # a later append than the clock's
        seat = marker.event.seat
        moves = [{"type": e["type"], "data": e["data"]} for e in (encode(r.event) for r in tail
                 if r.version > marker.version and getattr(r.event, "seat", None) == seat)]
        for at, name in accounts:
            if at == seat:
                self.store.notify(name, "clock_moved", {"game_id": game_id, "seat": seat, "version": state.version,
                                                        "moves": moves})

    def advance(self, match_id: str, ended: dict[int, list[int]] | None = None) -> D.MatchState:
        """Record the finished games of the match, start the next ones, finish it when all are in.

        ``ended``: game index -> points of games the caller saw end, besides those marked finished.
        """
        for _ in range(ADVANCE_ATTEMPTS):
            state = self._load(match_id)
            if state.status == "over":
                return state
            seed = self.store.match_seed(match_id)
            s, new = state, []
            finished = self.store.finished(match_id, among=s.in_flight())
            finished.update(ended or {})
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
            variant=s.variant, players=players, options={**s.options, **D.BOARD_OPTIONS}, rules=s.rules,
            seed=D.board_seed(seed, board),
            first_dealer=D.FIRST_DEALER if s.variant == D.GIN_RAMI else None,
            roles=dict(D.ROLES) if s.variant == D.THREE_HAND else None,
        )
        self._create_game(game_id, spec, {"match_id": match_id, "board": board, "table": table})

    def _create_game(self, game_id: str, spec, info: dict, *, retell: bool = False,
                     announce: Callable[[], None] | None = None) -> bool:
        """Create a game whose account seats play with their bots' tokens; False if it exists already.

        ``retell``: tell again of a game found made and not played since (its bots' game_started, the
        scheduler's look, which tells the one to act): the retry of an accept that failed (a 503) after
        its write landed, before it told anyone.
        ``announce``: told first, before the game's bots (an accepted challenge's challenger).
        """
        hashes = {}
        for seat, p in enumerate(spec.players):
            if p and p.get("account"):
                hashes[seat] = self._account(p["account"])["token_hash"]
            elif p and p.get("token_hash"):
                hashes[seat] = p.pop("token_hash")  # a person's seat: the hash never enters the log
        events = game.start(spec)
        self.store.mark_game(game_id, info)
        if hashes:
            self.games.tokens.save_hashes(game_id, hashes)
        try:
            state = self.games.repository.save(game_id, None, events).state
        except ConcurrencyError:
            if retell:
                # "Not played" is read from the game's state, never from the number of events the
                # retry's own start would write.
                # That spec has a seed of its own.
                # Its cut for the deal may tie where the stored one did not (or the other way round).
                # So the two starts differ in length about one time in twenty.
                state = self.games.state(game_id)
                if not_played(state):
                    self._tell_game(game_id, spec, info, state, announce)
            return False
        self._tell_game(game_id, spec, info, state, announce)
        return True

    def _tell_game(self, game_id: str, spec, info: dict, state, announce: Callable[[], None] | None = None) -> None:
        """A new game's bot accounts told (game_started), and the scheduler's look at it."""
        if announce is not None:
            announce()
        for seat, p in enumerate(spec.players):
            if p and p.get("account"):
                self.store.seat_bot(p["account"], "games", game_id, self.clock_ms())
                self.store.notify(p["account"], "game_started", {"game_id": game_id, "seat": seat,
                                                                 "variant": spec.variant, **info})
        self.games.after_append(game_id, state)

    def sealed(self, game_id: str) -> bool:
        """Whether the game reads only for its seats: a game of a match still in play.

        Once the match is over its games read like any finished game.
        GameService asks this of every reader that holds no seat of the game (composition injects it).
        """
        # The match's other tables play the same deal.
        # A reader other than the game's seats would learn it: a spectator, or a bot reading another table's game.
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
        """The games of ``game_ids`` that are sealed (what :meth:`sealed` says of each), in a few reads.

        ``in_play``: match id -> whether its log says it is in play, a memo the caller keeps.
        """
        # The reads: one for the games' marks, one for their matches' ends.
        # Then the last event of each match that is not recorded as over.
        # The listing asks this of each batch of the index it reads.
        # It keeps in_play for one listing, which spares a second read of a match's log.
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
        self._match_ended(match_id)  # a tournament's pairing moves its tournament on
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
