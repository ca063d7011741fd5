"""Duplicate matches: boards, tables, scores and a match's own event log (pure: the standard library only).

A **board** is one deal fixed in advance (RULES.md §1 The deal), played at several **tables**.
A participant's **board score** sums its **table scores**; a seat that gives up **forfeits**.
The match's log is folded by :func:`evolve` and decided by the ``decide_*`` functions.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import statistics
from dataclasses import dataclass, field, replace

from . import fairness, melds
from .errors import RulesError

GIN_RAMI = "gin-rami"
THREE_HAND = "three-hand"
#: the most boards one match may have
MAX_BOARDS = 1000
#: tables of a board per variant
TABLES = {GIN_RAMI: 2, THREE_HAND: 3}
PARTICIPANTS = {GIN_RAMI: 2, THREE_HAND: 3}
# A drawn hand is dealt again from the board's seed, the same way at every table.
#: a board's game ends with the first hand that scores
BOARD_OPTIONS = {"target_score": 1}
#: the seat that deals first at every gin-rami table
FIRST_DEALER = 1
#: roles of every three-hand table (the participants move, the seats' roles stay)
ROLES = {"box": 0, "captain": 1, "advisor": 2}

# The match is event-sourced like a game.
# Its events are plain {"type", "v", "data"} dicts; MatchCodec is the codec an EventStore records them with.
MATCH_CREATED = "match_created"
GAMES_STARTED = "games_started"
BOARD_PLAYED = "board_played"
MATCH_FINISHED = "match_finished"
EVENT_TYPES = (MATCH_CREATED, GAMES_STARTED, BOARD_PLAYED, MATCH_FINISHED)

# two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom, in thousandths
_T95_MILLI = (12706, 4303, 3182, 2776, 2571, 2447, 2365, 2306, 2262, 2228, 2201, 2179, 2160, 2145, 2131, 2120,
              2110, 2101, 2093, 2086, 2080, 2074, 2069, 2064, 2060, 2056, 2052, 2048, 2045, 2042)
_Z95 = 1.959964


# -- boards and tables -----------------------------------------------------------------------------


# A board's seed is its own, derived from the match's secret seed.
# Every deck the board's games deal is shuffled from it (RULES.md §1 The deal, as for any game's seed).
def board_seed(match_seed: bytes, board: int) -> bytes:
    """The secret seed of board ``board`` (0-based): HMAC-SHA256 of the match's seed."""
    return hmac.new(bytes(match_seed), b"board:" + board.to_bytes(4, "big"), hashlib.sha256).digest()


# The match publishes the SHA-256 of every board's seed when it is created.
# It reveals its own seed when it ends.
# So anyone can check that each board was fixed before it was played.
def board_commitments(match_seed: bytes, boards: int) -> list[str]:
    """The SHA-256 (hex) of every board's seed: what a match publishes when it is created."""
    return [fairness.commitment(board_seed(match_seed, b)) for b in range(boards)]


# Each board is played at several tables, the participants seated differently at each.
# gin-rami: two tables, the second with the seats swapped.
# Seat 1 deals first at both, so each participant holds each hand of the board once.
# three-hand: three tables, the participants rotated over box (seat 0), captain (seat 1) and advisor (seat 2).
# So each holds each role once.
def seating(variant: str, table: int) -> list[int]:
    """The participant (by index) at each seat of ``table``."""
    n = PARTICIPANTS[variant]
    if variant == GIN_RAMI:
        return [0, 1] if table == 0 else [1, 0]
    return [(seat + table) % n for seat in range(n)]


def game_id_for(match_id: str, board: int, table: int) -> str:
    """The id of the game of (board, table): 16 URL-safe characters fixed by the match, so that
    starting a board's game twice finds the first one instead of making a second."""
    digest = hashlib.sha256(f"{match_id}/{board}/{table}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


def game_index(board: int, table: int, tables: int) -> int:
    return board * tables + table


def seat_points(results, seats: int) -> list[int]:
    """Points each of ``seats`` seats won over a game's hand results (``state.results``)."""
    points = [0] * seats
    for r in results:
        if r.get("winner") is not None:
            points[r["winner"]] += int(r.get("points") or 0)
    return points


def forfeiting_seats(state, awaited=()) -> tuple:
    """The seats that forfeit a finished game: the one that resigned, or for a game abandoned the
    seats whose move was ``awaited`` (the state's ``to_act`` before it was abandoned)."""
    end = state.end or {}
    if state.hand_no == 0:
        return ()  # no hand was dealt: nobody held cards to lose with
    if end.get("reason") == "resigned":
        return (end["resigned"],)
    if end.get("reason") == "abandoned" and end.get("drawn_hands") is None:
        return tuple(awaited)
    return ()  # a game of bots alone ended for its drawn hands: nobody kept the others waiting


def forfeit(state, seat: int) -> int:
    """What ``seat`` forfeits: the largest bonus of the game's options plus its least deadwood."""
    # The bonus is the largest a hand can score under the game's options: gin, big gin, undercut.
    # The deadwood is the seat's least at that moment, of every card it holds.
    options = state.options
    bonus = max(options["gin_bonus"], options.get("big_gin_bonus") or 0, options["undercut_bonus"])
    if state.box is not None and seat == state.advisor:
        # the advisor holds no cards: it forfeits the worse of the two hands it could have seen lost
        deadwood = max(melds.deadwood_mask(state.hands[state.box]), melds.deadwood_mask(state.hands[state.captain]))
    else:
        deadwood = melds.deadwood_mask(state.hands[seat])
    return bonus + deadwood


def board_points(state, awaited=()) -> list[int]:
    """Points each seat of a finished board game scores: its hands' (:func:`seat_points`) and, where
    a seat forfeited (:func:`forfeiting_seats`), its forfeit to every other seat."""
    # A table whose game ends by a resignation, or is abandoned while a seat's move was awaited,
    # is scored as a forfeit by that seat.
    # A resignation is thus never better than playing on and losing the hand to a gin.
    # It counts in board scores, standings and ratings as a hand lost.
    # A game's own scores are not changed: the forfeit is the board's.
    points = seat_points(state.results, state.nseats)
    for seat in forfeiting_seats(state, awaited):
        lost = forfeit(state, seat)
        for other in range(state.nseats):
            if other != seat:
                points[other] += lost
    return points


def table_scores(points: list[int], seats: int) -> list[float]:
    """Each seat's points minus the mean of the other seats' points."""
    pts = (list(points) + [0] * seats)[:seats]
    total = sum(pts)
    return [p - (total - p) / (seats - 1) for p in pts]


def t95(dof: int) -> float:
    """The two-sided 95% quantile of Student's t with ``dof`` degrees of freedom."""
    if dof <= len(_T95_MILLI):
        return _T95_MILLI[dof - 1] / 1000
    z = _Z95  # Cornish-Fisher expansion beyond the table
    return z + (z**3 + z) / (4 * dof) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * dof * dof)


def summarize(scores: list[float]) -> tuple[float, float | None, list[float] | None]:
    """(total, mean per board, 95% confidence interval of the mean) of a participant's board scores.

    The interval is Student's t on the board scores; it needs two boards (None before).
    """
    n = len(scores)
    total = float(sum(scores))
    if n == 0:
        return total, None, None
    mean = total / n
    if n < 2:
        return total, mean, None
    half = t95(n - 1) * statistics.stdev(scores) / math.sqrt(n)
    return total, mean, [mean - half, mean + half]


# -- the match's log -----------------------------------------------------------------------------


class MatchCodec:
    """The codec a match's EventStore records its events with: they are their own wire form."""

    @staticmethod
    def encode(event: dict) -> dict:
        if not isinstance(event, dict) or event.get("type") not in EVENT_TYPES:
            raise TypeError(f"not a match event: {event!r}")
        return {"type": event["type"], "v": event.get("v", 1), "data": event["data"]}

    @staticmethod
    def decode(stored: dict) -> dict:
        if stored.get("type") not in EVENT_TYPES:
            raise RulesError("invalid_event", f"unknown match event {stored.get('type')!r}")
        return {"type": stored["type"], "v": stored.get("v", 1), "data": stored.get("data") or {}}


def _event(type_name: str, **data) -> dict:
    return {"type": type_name, "v": 1, "data": data}


@dataclass(frozen=True)
class MatchState:
    """A match as its log tells it."""

    variant: str
    options: dict
    participants: tuple
    boards: int
    move_time_s: float | None
    commitment: str
    board_commitments: tuple
    window: int
    rated: bool = True
    #: the preset its games are created with (presets module), None: none
    rules: str | None = None
    version: int = 0
    started: int = 0
    #: game index -> {"board", "table", "game_id", "points"}
    played: dict = field(default_factory=dict)
    status: str = "running"
    seed: str | None = None

    @property
    def tables(self) -> int:
        return TABLES[self.variant]

    @property
    def games(self) -> int:
        return self.boards * self.tables

    def in_flight(self) -> list[int]:
        """Game indexes started and not yet recorded."""
        return [g for g in range(self.started) if g not in self.played]


def create(variant: str, options: dict, participants: list[dict], boards: int, move_time_s: float | None,
           match_seed: bytes, window: int, rated: bool = True, rules: str | None = None) -> dict:
    """The ``match_created`` event of a new match (the caller has checked its participants and
    ``rules``, the preset its games are created with)."""
    if variant not in TABLES:
        raise RulesError("invalid_variant", "the variant is not one of three-hand and gin-rami")
    if len(participants) != PARTICIPANTS[variant]:
        raise RulesError("invalid_players", f"{variant} needs {PARTICIPANTS[variant]} participants")
    if not 1 <= boards <= MAX_BOARDS:
        raise RulesError("invalid_match", f"a match has 1 to {MAX_BOARDS} boards")
    return _event(MATCH_CREATED, variant=variant, options=dict(options), participants=[dict(p) for p in participants],
                  boards=boards, move_time_s=move_time_s, commitment=fairness.commitment(match_seed),
                  board_commitments=board_commitments(match_seed, boards), window=window, rated=rated,
                  **({"rules": rules} if rules is not None else {}))


def evolve(state: MatchState | None, event: dict) -> MatchState:
    """Apply one event of the match's log (no check: a replay cannot fail halfway)."""
    kind, d = event["type"], event["data"]
    if kind == MATCH_CREATED:
        return MatchState(variant=d["variant"], options=dict(d["options"]), participants=tuple(d["participants"]),
                          boards=d["boards"], move_time_s=d.get("move_time_s"), commitment=d["commitment"],
                          board_commitments=tuple(d["board_commitments"]), window=d["window"],
                          rated=d.get("rated", True), rules=d.get("rules"), version=1)
    assert state is not None
    if kind == GAMES_STARTED:
        return replace(state, started=d["upto"], version=state.version + 1)
    if kind == BOARD_PLAYED:
        index = game_index(d["board"], d["table"], state.tables)
        played = {**state.played, index: {k: d[k] for k in ("board", "table", "game_id", "points")}}
        return replace(state, played=played, version=state.version + 1)
    if kind == MATCH_FINISHED:
        return replace(state, status="over", seed=d["seed"], version=state.version + 1)
    raise RulesError("invalid_event", f"unknown match event {kind!r}")


def replay(events) -> MatchState | None:
    state = None
    for e in events:
        state = evolve(state, e)
    return state


def decide_start(state: MatchState) -> dict | None:
    """``games_started`` up to the window's size of games in flight, or None if none may start."""
    upto = min(state.games, state.started + max(0, state.window - len(state.in_flight())))
    return _event(GAMES_STARTED, upto=upto) if upto > state.started else None


def decide_played(state: MatchState, board: int, table: int, game_id: str, points: list[int]) -> dict | None:
    """``board_played`` for a finished game of the match, or None if it is recorded already."""
    index = game_index(board, table, state.tables)
    if index in state.played or index >= state.started:
        return None
    return _event(BOARD_PLAYED, board=board, table=table, game_id=game_id, points=list(points))


def decide_finish(state: MatchState, match_seed: bytes) -> dict | None:
    """``match_finished`` (revealing the seed) once every game is recorded, else None."""
    if state.status == "over" or len(state.played) < state.games:
        return None
    return _event(MATCH_FINISHED, seed=bytes(match_seed).hex())


# -- standings -----------------------------------------------------------------------------------


def board_scores(state: MatchState) -> dict[int, list[float]]:
    """Each complete board's score per participant (boards with a table still playing are left out)."""
    # A participant's board score is the sum of its table scores over the board's tables.
    # Board scores of one board sum to zero.
    # So a participant who does better than the others with the same cards scores above zero,
    # whatever the luck of the deal.
    out: dict[int, list[float]] = {}
    n = PARTICIPANTS[state.variant]
    for board in range(state.boards):
        entries = [state.played.get(game_index(board, t, state.tables)) for t in range(state.tables)]
        if any(e is None for e in entries):
            continue
        scores = [0.0] * n
        for table, entry in enumerate(entries):
            per_seat = table_scores(entry["points"], n)
            for seat, participant in enumerate(seating(state.variant, table)):
                scores[participant] += per_seat[seat]
        out[board] = scores
    return out


#: decimals of the points standings show: figures for people to read (a mean of board scores is a
#: fraction, which a float would write with 17 digits), fine enough for any point value's sums
STANDING_DECIMALS = 2


def _shown(points: float | None) -> float | None:
    """``points`` to STANDING_DECIMALS decimals (never -0.0)."""
    return None if points is None else round(points, STANDING_DECIMALS) + 0.0


def standings(state: MatchState) -> list[dict]:
    """Per participant: name, total, mean per board and its 95% interval (to STANDING_DECIMALS
    decimals), boards scored."""
    per_board = board_scores(state)
    rows = []
    for i, p in enumerate(state.participants):
        scores = [per_board[b][i] for b in sorted(per_board)]
        total, mean, ci = summarize(scores)
        rows.append({"name": p["name"], "kind": p["kind"], "total": _shown(total), "mean_per_board": _shown(mean),
                     "ci95": None if ci is None else [_shown(x) for x in ci], "boards": len(scores)})
    return rows


def board_details(state: MatchState, match_id: str) -> list[dict]:
    """Each board: its commitment, each table's game (once started), seating, whether it is over and
    its points, and the board's scores.

    A table's points are shown once every table of its board is over: before that they would hint
    at the deal the board's other tables are still playing (a gin on the first turns, say).
    """
    per_board = board_scores(state)
    names = [p["name"] for p in state.participants]
    out = []
    for board in range(state.boards):
        scores = per_board.get(board)
        tables = []
        for table in range(state.tables):
            index = game_index(board, table, state.tables)
            entry = state.played.get(index)
            tables.append({"table": table, "game_id": game_id_for(match_id, board, table) if index < state.started else None,
                           "seats": [names[i] for i in seating(state.variant, table)],
                           "over": entry is not None,
                           "points": list(entry["points"]) if entry and scores is not None else None})
        out.append({"board": board, "commitment": state.board_commitments[board], "tables": tables,
                    "scores": None if scores is None else dict(zip(names, scores))})
    return out


def pairings(state: MatchState) -> list[tuple[str, str, float]]:
    """The match as Glicko-2 results: each complete board is one game between every two participants,
    won by the one with the higher board score."""
    names = [p["name"] for p in state.participants]
    out = []
    for scores in board_scores(state).values():
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                diff = scores[a] - scores[b]
                out.append((names[a], names[b], 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0))
    return out


def verify(state: MatchState, game_commitments: dict[int, str]) -> list[dict]:
    """The match's audit: its seed matches its commitment, each board's seed its commitment, and
    each table's game was dealt from that board's seed (``game_commitments``: game index -> the
    game's own seed commitment). One check per board."""
    checks = []
    seed = bytes.fromhex(state.seed) if state.seed else None
    checks.append({"name": "commitment", "ok": seed is not None and fairness.commitment(seed) == state.commitment,
                   "detail": "the revealed seed hashes to the match's commitment" if seed else "not revealed yet"})
    for board in range(state.boards):
        problems = []
        if seed is None:
            problems.append("the match's seed is not revealed yet")
        else:
            expected = fairness.commitment(board_seed(seed, board))
            if expected != state.board_commitments[board]:
                problems.append("its seed does not hash to its commitment")
            for table in range(state.tables):
                got = game_commitments.get(game_index(board, table, state.tables))
                if got != expected:
                    problems.append(f"table {table}'s game was not dealt from the board's seed")
        checks.append({"name": f"board_{board}", "ok": not problems,
                       "detail": "; ".join(problems) or f"{state.tables} tables dealt from the committed seed"})
    return checks
