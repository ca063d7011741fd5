"""Tournaments of duplicate mini-matches: pairings, standings with tie-breaks, and a tournament's own log (pure).

A **tournament** seats its **entries** (bot accounts, built-in policies) in **rounds**.
Each **pairing** of a round is a duplicate match of two entries over the same few boards.
An entry wins a pairing with the higher match total (the sum of its board scores); equal totals draw.
A win scores 1 point, a draw 1/2, a loss 0, a bye 1.
The log is folded by :func:`evolve` and decided by the ``decide_*`` functions, as a match's is.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field, replace

from .errors import RulesError

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
SYSTEMS = (ROUND_ROBIN, SWISS)
#: the tie-breaks after points, in order, per system (the entry order decides last)
TIE_BREAKS = {ROUND_ROBIN: ("sonneborn_berger", "head_to_head", "board_difference"),
              SWISS: ("buchholz", "sonneborn_berger", "head_to_head", "board_difference")}

TOURNAMENT_CREATED = "tournament_created"
ROUND_PAIRED = "round_paired"
PAIRING_PLAYED = "pairing_played"
TOURNAMENT_FINISHED = "tournament_finished"
EVENT_TYPES = (TOURNAMENT_CREATED, ROUND_PAIRED, PAIRING_PLAYED, TOURNAMENT_FINISHED)


def pairing_match_id(tournament_id: str, round_no: int, pairing: int) -> str:
    """The id of the match of pairing ``pairing`` of round ``round_no``: 16 URL-safe characters fixed by
    the tournament, so that making a pairing's match twice finds the first one."""
    digest = hashlib.sha256(f"tournament:{tournament_id}/{round_no}/{pairing}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


# -- pairings ----------------------------------------------------------------------------------------


def round_robin_rounds(n: int) -> int:
    """Rounds of a round-robin of ``n`` entries: each meets every other once (one sits out each
    round when ``n`` is odd)."""
    return n - 1 if n % 2 == 0 else n


def round_robin_pairings(n: int, round_no: int) -> tuple[list[tuple[int, int]], int | None]:
    """Round ``round_no`` (0-based) of a round-robin of ``n`` entries by the circle method:
    (pairings, the entry with a bye or None)."""
    # Entry 0 stays in place, the others turn one place a round.
    # With an odd count a gap takes the last place, and whoever meets the gap has the bye.
    places: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    m = len(places)
    rest = places[1:]
    k = round_no % (m - 1)
    turned = [places[0]] + rest[len(rest) - k:] + rest[:len(rest) - k]
    pairs, bye = [], None
    for i in range(m // 2):
        a, b = turned[i], turned[m - 1 - i]
        if a is None or b is None:
            bye = b if a is None else a
        else:
            pairs.append((min(a, b), max(a, b)))
    return pairs, bye


def swiss_pairings(n: int, points: list[float], met: set[frozenset], byes: set[int]) -> tuple[list[tuple[int, int]], int | None]:
    """The next Swiss round (Monrad): (pairings, the entry with a bye or None).

    The entries are ranked by points, then by entry order.
    With an odd count, the lowest-ranked entry without a bye yet has the bye.
    Then the highest-ranked unpaired entry meets the highest-ranked one it has not met, backtracking
    where that leaves others without a new opponent; only if no pairing avoids a rematch, the ranked
    entries are paired in order (first with second, third with fourth, ...).
    """
    order = sorted(range(n), key=lambda i: (-points[i], i))
    bye = None
    if n % 2:
        bye = next((i for i in reversed(order) if i not in byes), order[-1])
        order.remove(bye)

    def pair(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        first = rest[0]
        for j in range(1, len(rest)):
            other = rest[j]
            if frozenset((first, other)) in met:
                continue
            tail = pair(rest[1:j] + rest[j + 1:])
            if tail is not None:
                return [(first, other), *tail]
        return None

    pairs = pair(order)
    if pairs is None:
        pairs = [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return pairs, bye


# -- standings -----------------------------------------------------------------------------------


def pairing_points(totals: list[float]) -> tuple[float, float]:
    """The points of a pairing's two entries from their match totals: 1 a win, 1/2 each a draw."""
    a, b = totals
    return (1.0, 0.0) if a > b else (0.0, 1.0) if a < b else (0.5, 0.5)


def standings(system: str, names: list[str], results: list[dict], byes: list[int] | None = None) -> list[dict]:
    """The standings, first place first, from the pairings played.

    ``results``: one per pairing played, ``{"a": index, "b": index, "totals": [a's total, b's total]}``.
    ``byes``: the entry of each bye given (one point each, no opponent).
    Points first, then TIE_BREAKS[system], then the entry order:

    - ``buchholz``: the sum of the points of every opponent met;
    - ``sonneborn_berger``: the points of every opponent beaten, and half those of every opponent drawn;
    - ``head_to_head``: the points scored in pairings among the entries tied on everything before it;
    - ``board_difference``: the sum of the entry's match totals (its board scores won minus lost).
    """
    if system not in TIE_BREAKS:
        raise RulesError("invalid_tournament", f"the pairing system is one of {', '.join(SYSTEMS)}")
    n = len(names)
    points = [0.0] * n
    diff = [0.0] * n
    wins, draws, losses, bye_count = [0] * n, [0] * n, [0] * n, [0] * n
    games: list[list[tuple[int, float]]] = [[] for _ in range(n)]  # (opponent, points scored)
    for r in results:
        a, b = r["a"], r["b"]
        pa, pb = pairing_points(r["totals"])
        for me, other, mine, total in ((a, b, pa, r["totals"][0]), (b, a, pb, r["totals"][1])):
            points[me] += mine
            diff[me] += total
            games[me].append((other, mine))
            (wins if mine == 1 else draws if mine == 0.5 else losses)[me] += 1
    for i in byes or ():
        points[i] += 1.0
        bye_count[i] += 1
    buchholz = [sum(points[o] for o, _ in games[i]) for i in range(n)]
    sonneborn = [sum(points[o] * mine for o, mine in games[i]) for i in range(n)]
    keys = {"points": points, "buchholz": buchholz, "sonneborn_berger": sonneborn, "board_difference": diff}
    h2h = [0.0] * n

    def ordered(group: list[int], breaks: tuple[str, ...]) -> list[int]:
        if len(group) < 2 or not breaks:
            return sorted(group)
        key, rest = breaks[0], breaks[1:]
        if key == "head_to_head":
            inside = set(group)
            for i in group:
                h2h[i] = sum(mine for o, mine in games[i] if o in inside)
            values = h2h
        else:
            values = keys[key]
        out = []
        for value in sorted({values[i] for i in group}, reverse=True):
            out += ordered([i for i in group if values[i] == value], rest)
        return out

    order = ordered(list(range(n)), ("points", *TIE_BREAKS[system]))
    return [{"rank": place + 1, "name": names[i], "points": points[i], "buchholz": buchholz[i],
             "sonneborn_berger": sonneborn[i], "head_to_head": h2h[i], "board_difference": round(diff[i], 2) + 0.0,
             "played": len(games[i]), "wins": wins[i], "draws": draws[i], "losses": losses[i], "byes": bye_count[i]}
            for place, i in enumerate(order)]


# -- the tournament's log -------------------------------------------------------------------------


class TournamentCodec:
    """The codec a tournament's EventStore records its events with: they are their own wire form."""

    @staticmethod
    def encode(event: dict) -> dict:
        if not isinstance(event, dict) or event.get("type") not in EVENT_TYPES:
            raise TypeError(f"not a tournament event: {event!r}")
        return {"type": event["type"], "v": event.get("v", 1), "data": event["data"]}

    @staticmethod
    def decode(stored: dict) -> dict:
        if stored.get("type") not in EVENT_TYPES:
            raise RulesError("invalid_event", f"unknown tournament event {stored.get('type')!r}")
        return {"type": stored["type"], "v": stored.get("v", 1), "data": stored.get("data") or {}}


def _event(type_name: str, **data) -> dict:
    return {"type": type_name, "v": 1, "data": data}


@dataclass(frozen=True)
class TournamentState:
    """A tournament as its log tells it."""

    system: str
    variant: str
    entries: tuple
    rounds: int
    boards: int
    options: dict
    rules: str | None
    move_time_s: int | None
    rated: bool
    created: int
    version: int = 0
    #: round -> [(a, b), ...] of the rounds paired so far
    pairings: dict = field(default_factory=dict)
    #: round -> the entry with its bye (rounds with none are absent)
    byes: dict = field(default_factory=dict)
    #: (round, pairing) -> {"totals", "ci95", "games"}
    played: dict = field(default_factory=dict)
    status: str = "running"

    @property
    def round_no(self) -> int:
        """The round in play (or the last one): -1 before the first is paired."""
        return max(self.pairings, default=-1)

    def round_done(self, round_no: int) -> bool:
        return round_no in self.pairings and all((round_no, p) in self.played
                                                 for p in range(len(self.pairings[round_no])))

    def results(self) -> list[dict]:
        return [{"a": self.pairings[r][p][0], "b": self.pairings[r][p][1], "totals": list(res["totals"])}
                for (r, p), res in sorted(self.played.items())]


def create(system: str, variant: str, entries: list[dict], rounds: int, boards: int, options: dict,
           rules: str | None, move_time_s: int | None, rated: bool, created: int) -> dict:
    """The ``tournament_created`` event (the caller has checked the entries and their consent)."""
    if system not in SYSTEMS:
        raise RulesError("invalid_tournament", f"the pairing system is one of {', '.join(SYSTEMS)}")
    if len(entries) < 2:
        raise RulesError("invalid_tournament", "a tournament has two entries at least")
    if system == ROUND_ROBIN:
        rounds = round_robin_rounds(len(entries))
    elif not 1 <= rounds <= len(entries) - 1:
        raise RulesError("invalid_tournament", f"a Swiss of {len(entries)} entries has 1 to {len(entries) - 1} rounds")
    return _event(TOURNAMENT_CREATED, system=system, variant=variant, entries=[dict(e) for e in entries], rounds=rounds,
                  boards=boards, options=dict(options), rules=rules, move_time_s=move_time_s, rated=rated,
                  created=created)


def evolve(state: TournamentState | None, event: dict) -> TournamentState:
    """Apply one event of the tournament's log (no check: a replay cannot fail halfway)."""
    kind, d = event["type"], event["data"]
    if kind == TOURNAMENT_CREATED:
        return TournamentState(system=d["system"], variant=d["variant"], entries=tuple(d["entries"]), rounds=d["rounds"],
                               boards=d["boards"], options=dict(d["options"]), rules=d.get("rules"),
                               move_time_s=d.get("move_time_s"), rated=d["rated"], created=d["created"], version=1)
    assert state is not None
    if kind == ROUND_PAIRED:
        byes = {**state.byes, d["round"]: d["bye"]} if d.get("bye") is not None else state.byes
        return replace(state, pairings={**state.pairings, d["round"]: [tuple(p) for p in d["pairings"]]}, byes=byes,
                       version=state.version + 1)
    if kind == PAIRING_PLAYED:
        played = {**state.played, (d["round"], d["pairing"]): {k: d[k] for k in ("totals", "ci95", "games")}}
        return replace(state, played=played, version=state.version + 1)
    if kind == TOURNAMENT_FINISHED:
        return replace(state, status="over", version=state.version + 1)
    raise RulesError("invalid_event", f"unknown tournament event {kind!r}")


def replay(events) -> TournamentState | None:
    state = None
    for e in events:
        state = evolve(state, e)
    return state


def decide_next(state: TournamentState) -> dict | None:
    """The next round's ``round_paired`` once the round in play is complete, ``tournament_finished``
    after the last round, else None."""
    if state.status == "over":
        return None
    current = state.round_no
    if current >= 0 and not state.round_done(current):
        return None
    if current + 1 >= state.rounds:
        return _event(TOURNAMENT_FINISHED)
    n = len(state.entries)
    if state.system == ROUND_ROBIN:
        pairs, bye = round_robin_pairings(n, current + 1)
    else:
        points = [0.0] * n
        for row in standings(state.system, [e["name"] for e in state.entries], state.results(),
                             list(state.byes.values())):
            points[[e["name"] for e in state.entries].index(row["name"])] = row["points"]
        met = {frozenset(p) for r in state.pairings.values() for p in r}
        pairs, bye = swiss_pairings(n, points, met, set(state.byes.values()))
    return _event(ROUND_PAIRED, round=current + 1, pairings=[list(p) for p in pairs], bye=bye)


def decide_played(state: TournamentState, round_no: int, pairing: int, totals: list[float], ci95: list | None,
                  games: list) -> dict | None:
    """``pairing_played`` for a pairing whose match is over, or None if it is recorded already."""
    if (round_no, pairing) in state.played or round_no not in state.pairings:
        return None
    return _event(PAIRING_PLAYED, round=round_no, pairing=pairing, totals=list(totals), ci95=ci95,
                  games=[list(g) for g in games])


def standings_of(state: TournamentState) -> list[dict]:
    """The standings of the pairings recorded so far."""
    return standings(state.system, [e["name"] for e in state.entries], state.results(), list(state.byes.values()))


def round_games(state: TournamentState, round_no: int) -> list[tuple[str, str, float]]:
    """Every board of the round's pairings as a Glicko-2 result between the two entries' rating names."""
    return [tuple(g) for p in range(len(state.pairings.get(round_no, ()))) for g in state.played[(round_no, p)]["games"]]
