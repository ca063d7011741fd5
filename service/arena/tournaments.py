"""Tournaments: round-robin and Swiss of bot accounts and built-in policies, each pairing a duplicate mini-match.

A tournament is its own log (service.rules.tournament), in an EventStore of its own.
Each pairing's match has an id fixed by (tournament, round, pairing): making it twice finds the first.
``advance_tournament`` is idempotent, and any caller may run it: a pairing's match ending, a reader,
the worker's sweeper.
The log's optimistic append decides which of two racing callers records a pairing or pairs a round.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator

from service.arena.core import ADVANCE_ATTEMPTS, MIN_ACCOUNT_MOVE_TIME_S, ArenaCore
from service.arena.matches import preset_options
from service.errors import (
    IdempotencyKeyReused,
    InvalidTournament,
    TooManyTournaments,
    TournamentNotConsented,
    TournamentNotFound,
    TournamentTooLarge,
    TournamentTooSmall,
    UnknownPairingSystem,
)
from service.rules import duplicate as D
from service.rules import tournament as T
from service.store.creations import Made
from service.store.errors import ConcurrencyError, IdempotencyConflict


TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{16}\Z")


class ArenaTournaments(ArenaCore):
    """The use cases of /tournaments."""

    _advancing = threading.local()

    def _tournament_parts(self):
        return self.tournament_log, self.tournament_keys, self.tournament_limits

    # -- creating ------------------------------------------------------------------------------

    def create_tournament(self, body: dict, token: str | None = None, made: Made | None = None) -> dict:
        """Start a tournament from a validated POST /tournaments body; refuses before writing anything."""
        log, keys, limits = self._tournament_parts()
        system = body["system"]
        if system not in T.SYSTEMS:
            raise UnknownPairingSystem(f"the pairing system is one of {', '.join(T.SYSTEMS)}, not {system!r}")
        variant = body.get("variant", D.GIN_RAMI)
        if variant != D.GIN_RAMI:
            raise InvalidTournament("a tournament's pairings are two-player duplicate matches: gin-rami only")
        names = body["entries"]
        if len(names) < 2:
            raise TournamentTooSmall("a tournament has two entries at least")
        if len(names) > limits.entries:
            raise TournamentTooLarge(f"a tournament has at most {limits.entries} entries on this server")
        caller = self.bot_of(token) if token else None
        entries = self._participants(names)
        for e in entries:
            bot = self.store.bot(e["name"]) or {} if e["kind"] == "bot" else None
            if bot is not None and e["name"] != caller and not bot.get("accepts_tournaments"):
                raise TournamentNotConsented(
                    f"the bot {e['name']!r} does not accept tournaments: a tournament enters a bot account only if "
                    "that bot sends the request (its token) or has set accepts_tournaments (PATCH /bots/me)")
        boards = body["boards"]
        if not 1 <= boards <= limits.boards:
            raise InvalidTournament(f"a pairing has 1 to {limits.boards} boards on this server")
        rounds = body.get("rounds")
        if system == T.SWISS:
            most = min(len(entries) - 1, limits.rounds)
            if rounds is None or not 1 <= rounds <= most:
                raise InvalidTournament(f"a Swiss of {len(entries)} entries has 1 to {most} rounds (`rounds`)")
        elif T.round_robin_rounds(len(entries)) > limits.rounds:
            raise TournamentTooLarge(f"a round-robin of {len(entries)} entries has "
                                     f"{T.round_robin_rounds(len(entries))} rounds, more than {limits.rounds}")
        move_time = body.get("move_time_s")
        if move_time is not None and move_time < MIN_ACCOUNT_MOVE_TIME_S and any(e["kind"] == "bot" for e in entries):
            raise InvalidTournament(f"a tournament entering a bot account gives it at least {MIN_ACCOUNT_MOVE_TIME_S} s "
                                    "a move (`move_time_s`), as a match does")
        options = preset_options(variant, body.get("rules"), body.get("options"), move_time, board=True)
        tournament_id = made.game_id() if made is not None else secrets.token_urlsafe(12)
        if made is not None:
            prior = log.idempotent_result(tournament_id, made.log_key)
            if prior is not None:
                if prior[0] != made.fingerprint:
                    raise IdempotencyKeyReused()
                made.found = True
                return self.tournament_view(tournament_id)
        created = T.create(system, variant, entries, rounds or 0, boards, body.get("options") or {},
                           body.get("rules"), move_time, body.get("rated", True), self.clock_ms())
        del options  # checked above; each pairing's match expands them again
        if not keys.claim(tournament_id, limits.in_play, self.clock_ms()):
            raise TooManyTournaments(f"the server has {limits.in_play} tournaments in play, as many as it takes: "
                                     "one must end before another starts")
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        try:
            log.append(tournament_id, [created], 0, key, fingerprint=fingerprint)
        except ConcurrencyError:
            return self.tournament_view(tournament_id)
        except IdempotencyConflict as err:
            keys.release(tournament_id)
            raise IdempotencyKeyReused() from err
        except BaseException:
            keys.release(tournament_id)
            raise
        return self.tournament_view(tournament_id)

    # -- moving on -----------------------------------------------------------------------------

    def _load_tournament(self, tournament_id: str) -> T.TournamentState:
        if not isinstance(tournament_id, str) or not TOURNAMENT_ID.match(tournament_id):
            raise TournamentNotFound(f"there is no tournament {tournament_id!r}")
        records = self.tournament_log.load(tournament_id)
        if not records:
            raise TournamentNotFound(f"there is no tournament {tournament_id!r}")
        return T.replay(r.event for r in records)

    def _match_ended(self, match_id: str) -> None:
        """A match is over: its tournament, if it is a pairing's, moves on."""
        tournament_id = self.tournament_keys.tournament_of(match_id)
        if tournament_id is not None:
            self.advance_tournament(tournament_id)

    def advance_tournaments(self) -> int:
        """Move every tournament in play on (the worker's sweeper: a pairing whose match ended while no
        process told its tournament is recorded here); how many are in play."""
        in_play = self.tournament_keys.in_play()
        for tournament_id in in_play:
            self.advance_tournament(tournament_id)
        return len(in_play)

    def advance_tournament(self, tournament_id: str) -> T.TournamentState:
        """Record the pairings whose matches are over, pair the next round and make its matches, rate
        each round as it ends, finish the tournament after its last round."""
        busy = getattr(self._advancing, "ids", None)
        if busy is None:
            busy = self._advancing.ids = set()
        if tournament_id in busy:
            return self._load_tournament(tournament_id)  # a pairing's match ended within this very advance
        busy.add(tournament_id)
        try:
            return self._advance(tournament_id)
        finally:
            busy.discard(tournament_id)

    def _advance(self, tournament_id: str) -> T.TournamentState:
        for _ in range(ADVANCE_ATTEMPTS):
            state = self._load_tournament(tournament_id)
            if state.status == "over":
                if self.tournament_keys.playing(tournament_id):
                    self._rate_rounds(tournament_id, state)  # its last process may have stopped before
                    self.tournament_keys.release(tournament_id)
                return state
            s, new = state, []
            current = s.round_no
            for pairing in range(len(s.pairings.get(current, ()))):
                if (current, pairing) not in s.played:
                    event = self._pairing_result(tournament_id, s, current, pairing)
                    if event is not None:
                        s = T.evolve(s, event)
                        new.append(event)
            paired = T.decide_next(s)
            if paired is not None:
                s = T.evolve(s, paired)
                new.append(paired)
            if not new:
                return s
            try:
                self.tournament_log.append(tournament_id, new, state.version)
            except ConcurrencyError:
                continue  # another caller recorded something first: look again
            self._rate_rounds(tournament_id, s)
            if s.status == "over":
                self.tournament_keys.release(tournament_id)
                return s
            if s.round_no != state.round_no:
                self._make_round(tournament_id, s, s.round_no)
        return self._load_tournament(tournament_id)

    def _pairing_result(self, tournament_id: str, s: T.TournamentState, round_no: int, pairing: int) -> dict | None:
        """The pairing's ``pairing_played`` once its match is over; the match made if it never was."""
        match_id = T.pairing_match_id(tournament_id, round_no, pairing)
        if self.matches.version(match_id) <= 0:
            self._make_pairing(tournament_id, s, round_no, pairing)  # paired, lost before it was made
            return None
        match = self.advance(match_id)
        if match.status != "over":
            return None
        rows = D.standings(match)
        names = {p["name"]: p["rating_name"] for p in match.participants}
        games = [(names[a], names[b], score) for a, b, score in D.pairings(match) if names[a] != names[b]]
        return T.decide_played(s, round_no, pairing, [rows[0]["total"], rows[1]["total"]],
                               [rows[0]["ci95"], rows[1]["ci95"]], games)

    def _make_round(self, tournament_id: str, s: T.TournamentState, round_no: int) -> None:
        pairings = s.pairings[round_no]
        self.tournament_keys.mark_matches(tournament_id, [T.pairing_match_id(tournament_id, round_no, p)
                                                          for p in range(len(pairings))])
        for pairing in range(len(pairings)):
            self._make_pairing(tournament_id, s, round_no, pairing)

    def _make_pairing(self, tournament_id: str, s: T.TournamentState, round_no: int, pairing: int) -> None:
        """The pairing's match, made once (its id is fixed); its match ending moves the tournament on."""
        match_id = T.pairing_match_id(tournament_id, round_no, pairing)
        self.tournament_keys.mark_matches(tournament_id, [match_id])
        a, b = s.pairings[round_no][pairing]
        self._make_match(s.variant, [s.entries[a], s.entries[b]], s.boards, s.options, s.move_time_s,
                         rated=False, match_id=match_id, rules=s.rules)

    def _rate_rounds(self, tournament_id: str, s: T.TournamentState) -> None:
        """One Glicko-2 rating period per round over, in round order: every board of its pairings.

        Each period is applied once (its id is the tournament's and the round's), so this may run
        after every append: a round whose rating a stopped process missed is rated before the next."""
        if s.rated:
            for round_no in sorted(s.pairings):
                if s.round_done(round_no):
                    self._apply_ratings(s.variant, f"tournament:{tournament_id}:{round_no}",
                                        T.round_games(s, round_no))

    # -- reading -------------------------------------------------------------------------------

    def tournament_view(self, tournament_id: str, state: T.TournamentState | None = None) -> dict:
        """Standings, rounds and pairings (moved on first, so a stalled tournament catches up)."""
        s = state if state is not None else self.advance_tournament(tournament_id)
        names = [e["name"] for e in s.entries]
        rounds = []
        for round_no in sorted(s.pairings):
            pairings = []
            for p, (a, b) in enumerate(s.pairings[round_no]):
                match_id = T.pairing_match_id(tournament_id, round_no, p)
                result = s.played.get((round_no, p))
                games = [D.game_id_for(match_id, board, table) for board in range(s.boards)
                         for table in range(D.TABLES[s.variant])]
                pairings.append({
                    "pairing": p, "entries": [names[a], names[b]], "match_id": match_id,
                    "match_url": f"/matches/{match_id}", "status": "over" if result else "playing",
                    "totals": result["totals"] if result else None, "ci95": result["ci95"] if result else None,
                    "points": list(T.pairing_points(result["totals"])) if result else None,
                    "games": games if result else []})
            bye = s.byes.get(round_no)
            rounds.append({"round": round_no + 1, "bye": None if bye is None else names[bye], "pairings": pairings,
                           "over": s.round_done(round_no)})
        return {"tournament_id": tournament_id, "system": s.system, "variant": s.variant, "status": s.status,
                "entries": [{"name": e["name"], "kind": e["kind"]} for e in s.entries],
                "rounds": s.rounds, "rounds_done": sum(1 for r in s.pairings if s.round_done(r)),
                "boards": s.boards, "rules": s.rules, "options": s.options, "move_time_s": s.move_time_s,
                "rated": s.rated, "created": s.created, "tie_breaks": list(T.TIE_BREAKS[s.system]),
                "standings": T.standings_of(s), "schedule": rounds, "version": s.version}

    def tournament_list(self, limit: int = 50) -> list[dict]:
        out = []
        for tournament_id in self.tournament_keys.latest(limit):
            try:
                s = self._load_tournament(tournament_id)
            except TournamentNotFound:
                continue  # counted, and its creation failed
            out.append({"tournament_id": tournament_id, "system": s.system, "variant": s.variant, "status": s.status,
                        "entries": [e["name"] for e in s.entries], "rounds": s.rounds, "created": s.created})
        return out

    def tournament_stream(self, tournament_id: str, clock: Callable[[], float] = time.monotonic) -> Iterator[str]:
        """Server-sent ``standings`` events of the tournament until it is over (validated before the first byte)."""
        self._load_tournament(tournament_id)

        def events():
            deadline = clock() + self.stream_max_s
            yield ": connected\n\n"
            last = -1
            while True:
                view = self.tournament_view(tournament_id)
                if view["version"] != last:
                    last = view["version"]
                    summary = {k: view[k] for k in ("tournament_id", "status", "rounds", "rounds_done", "standings")}
                    summary["type"] = "standings"  # as on the event: line
                    yield f"id: {last}\nevent: standings\ndata: {json.dumps(summary, separators=(',', ':'))}\n\n"
                if view["status"] == "over" or clock() >= deadline:
                    return
                self.tournament_log.wait_for_events(tournament_id, last, self.keepalive_s)

        return events()
