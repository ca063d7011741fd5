"""The audit of a finished duplicate match from what anyone can download, with no server.

It reads the match (GET /matches/{id}, once it is over) and every table's game export
(GET /games/{id}/export).
It makes the checks FAIRNESS.md (A duplicate match's boards, Checking a match) promises.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable

from . import duplicate as D
from . import events, game
from .audit import _MALFORMED, verify_export
from .fairness import commitment, cut_cards, deck_for_hand

#: what the match's audit cannot check, beyond what a game's cannot (audit.NOT_CHECKED)
NOT_CHECKED = ("the players' names beyond the seating they place a game at, and the timestamps, which no "
               "commitment covers; the games' ids (an export holds none: each game is placed at its board by "
               "its seed and at its table by its seating); the match's version (the count of its own log's events, which no export holds); the "
               "ratings the match changed")

#: how far a number of the match may be from the one the games give (they are written to
#: duplicate.STANDING_DECIMALS decimals, or are sums of halves and thirds of whole points)
_TOLERANCE = 1e-6

_ENDS = (events.GameEnded, events.GameResigned, events.GameAbandoned, events.GameExpired)


def _malformed(err: BaseException) -> str:
    return f"the match or a game holds a value of a kind none of its kind has ({type(err).__name__}: {err})"


def _check(checks: list, name: str, ok: bool, detail: str) -> bool:
    checks.append({"name": name, "ok": bool(ok), "detail": detail})
    return bool(ok)


def _same(a: Any, b: Any) -> bool:
    """Numbers (or None, or lists of them) equal to within _TOLERANCE."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= _TOLERANCE
    return a is None and b is None


def _num(x: Any) -> str:
    """A number as people write it (12, not 12.0)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, list):
        return "[" + ", ".join(_num(v) for v in x) + "]"
    return "null" if x is None else str(x)


# -- reading the inputs --------------------------------------------------------------------------


def _read_match(text: str) -> tuple[dict | None, str]:
    """The match document and, if it cannot be audited, why not."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:
        return None, f"the match is not JSON: {err}"
    if not isinstance(doc, dict):
        return None, "the match is not a JSON object (GET /matches/{id} gives one)"
    problems = []
    need = {"match_id": str, "variant": str, "status": str, "commitment": str, "boards": int,
            "participants": list, "board_results": list, "standings": list, "options": dict}
    words = {str: "a text", int: "a whole number", list: "a list", dict: "an object"}
    for key, kind in need.items():
        if not isinstance(doc.get(key), kind) or isinstance(doc.get(key), bool):
            problems.append(f"{key} is missing or not {words[kind]}")
    if problems:
        return None, "the match lacks what GET /matches/{id} gives: " + "; ".join(problems)
    if doc["variant"] not in D.TABLES:
        return None, f"the match's variant {doc['variant']!r} is none of {', '.join(D.TABLES)}"
    if doc["status"] != "over" or not isinstance(doc.get("seed"), str):
        return None, (f"the match is {doc['status']!r}, not over: its seed is not revealed yet "
                      "(read GET /matches/{id} again once its status is over)")
    try:
        bytes.fromhex(doc["seed"])
    except ValueError:
        return None, "the match's seed is not hex"
    n = D.PARTICIPANTS[doc["variant"]]
    people = doc["participants"]
    if len(people) != n or not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in people):
        return None, f"a {doc['variant']} match has {n} participants, each with a name"
    if len({p["name"] for p in people}) != n:
        return None, "two participants have the same name"
    if not 1 <= doc["boards"] <= D.MAX_BOARDS or len(doc["board_results"]) != doc["boards"]:
        return None, f"the match has {doc['boards']} boards but {len(doc['board_results'])} board results"
    tables = D.TABLES[doc["variant"]]
    for b, board in enumerate(doc["board_results"]):
        if not (isinstance(board, dict) and isinstance(board.get("commitment"), str)
                and isinstance(board.get("tables"), list) and len(board["tables"]) == tables
                and all(isinstance(t, dict) for t in board["tables"])):
            return None, f"board {b}'s result lacks its commitment or its {tables} tables"
    return doc, ""


def _read_log(lines: list[str]) -> list | None:
    """The events of an export, decoded (None when they do not decode: its own audit says why)."""
    try:
        records = [json.loads(line) for line in lines if line.strip()]
        log = [events.decode({"type": r.get("type"), "v": r.get("v"), "data": r.get("data")})
               for r in records if isinstance(r, dict) and "version" in r]
    except Exception:  # noqa: BLE001 (anything an export changed by hand may hold; its own audit names it)
        return None
    if not log or type(log[0]) is not events.GameCreated:
        return None
    return log


def _own_audit(name: str, report: dict) -> str:
    failed = [c for c in report["checks"] if not c["ok"]]
    if not failed:
        return f"{name}: its own audit passed ({len(report['checks'])} checks)"
    shown = "; ".join(f"{c['name']}: {c['detail']}" for c in failed[:3])
    more = f"; {len(failed) - 3} more" if len(failed) > 3 else ""
    return f"{name}: its own audit FAILED ({len(failed)} of {len(report['checks'])} checks: {shown}{more})"


# -- the checks ----------------------------------------------------------------------------------


def _place(doc: dict, seed: bytes, logs: list) -> tuple[dict, list[str]]:
    """Each export's (board, table), by its seed and its seating: ({(board, table): export index},
    problems)."""
    variant, names = doc["variant"], [p["name"] for p in doc["participants"]]
    by_commitment = {commitment(D.board_seed(seed, b)): b for b in range(doc["boards"])}
    seatings = {tuple(names[i] for i in D.seating(variant, t)): t for t in range(D.TABLES[variant])}
    placed: dict = {}
    problems = []
    for i, (name, log) in enumerate(logs):
        if log is None:
            problems.append(f"{name} holds no game's log that decodes (see its own audit): it is none of the "
                            "match's games")
            continue
        created = log[0]
        board = by_commitment.get(created.commitment)
        if board is None:
            problems.append(f"{name} is none of the match's games: its commitment {created.commitment[:16]}... is "
                            "no board's seed of this match")
            continue
        seats = tuple(p.get("name") if isinstance(p, dict) else None for p in created.players)
        table = seatings.get(seats)
        if table is None:
            problems.append(f"{name} is dealt from board {board}'s seed but seats {', '.join(map(str, seats))}, "
                            "the seating of none of its tables")
            continue
        other = [p.get("match") for p in created.players if isinstance(p, dict) and p.get("match") is not None]
        if any(m != doc["match_id"] for m in other):
            problems.append(f"{name} is a game of match {other[0]!r}, not {doc['match_id']!r}")
            continue
        if (board, table) in placed:
            problems.append(f"{logs[placed[board, table]][0]} and {name} are both board {board}, table {table}: "
                            "one is extra")
            continue
        placed[board, table] = i
    for b in range(doc["boards"]):
        for t in range(D.TABLES[variant]):
            if (b, t) not in placed:
                problems.append(f"board {b}, table {t} (game {D.game_id_for(doc['match_id'], b, t)}) has no export")
    return placed, problems


def _board_deal(doc: dict, seed: bytes, board: int, tables: dict) -> tuple[bool, str]:
    """Board ``board``: its seed derives from the match's and hashes to its published commitment;
    each of its tables' games (``tables``: table -> log) was dealt from it, the same cards at each."""
    problems = []
    variant = doc["variant"]
    bseed = D.board_seed(seed, board)
    published = doc["board_results"][board]["commitment"]
    if commitment(bseed) != published:
        problems.append(f"its seed, HMAC-SHA256(match seed, 'board:' || {board}), hashes to "
                        f"{commitment(bseed)[:16]}..., not to the commitment published for it ({published[:16]}...)")
    options = {**doc["options"], **D.BOARD_OPTIONS}
    decks: dict[int, dict[int, tuple]] = {}
    cuts: dict[int, dict[int, tuple]] = {}
    for t in range(D.TABLES[variant]):
        log = tables.get(t)
        if log is None:
            problems.append(f"table {t} has no export: its deal is not checked")
            continue
        created = log[0]
        if created.seed != bseed.hex():
            problems.append(f"table {t}'s game records a seed other than the board's")
        if created.commitment != published:
            problems.append(f"table {t}'s game commits to {created.commitment[:16]}..., not to the board's commitment")
        if created.derivation != 1 or any(type(e) is events.ClientSeedSent for e in log):
            problems.append(f"table {t}'s game is not dealt from the board's seed alone (derivation 1, no client "
                            "seed)")
        if created.variant != variant or any(created.options.get(k) != v for k, v in options.items()):
            problems.append(f"table {t}'s game has a variant or options other than the match's")
        if created.options.get("turn_timeout_s") != doc.get("move_time_s"):
            problems.append(f"table {t}'s game has a turn clock of {created.options.get('turn_timeout_s')} s, the "
                            f"match's move time is {doc.get('move_time_s')}")
        for seat, participant in enumerate(D.seating(variant, t)):
            player = created.players[seat] if isinstance(created.players[seat], dict) else {}
            kind = "policy" if player.get("bot") else "bot" if player.get("account") else "person"
            if doc["participants"][participant].get("kind") != kind:
                problems.append(f"table {t}'s seat {seat} is a {kind} in its game, a "
                                f"{doc['participants'][participant].get('kind')} in the match")
        wanted = ({"first_dealer": D.FIRST_DEALER, "roles": None} if variant == D.GIN_RAMI
                  else {"first_dealer": None, "roles": dict(D.ROLES)})
        if (created.first_dealer, None if created.roles is None else dict(created.roles)) != tuple(wanted.values()) \
                or created.decks:
            problems.append(f"table {t}'s game has a first dealer, roles or decks other than a board's")
        for e in log:
            if type(e) is events.HandDealt:
                decks.setdefault(e.hand_no, {})[t] = tuple(e.deck)
                if e.source != "seed" or list(e.deck) != deck_for_hand(bseed, e.hand_no):
                    problems.append(f"table {t}'s deck of hand {e.hand_no} is not the one the board's seed deals")
            elif type(e) is events.CardsCut:
                cuts.setdefault(e.round, {})[t] = tuple(e.cards)
                if list(e.cards) != cut_cards(bseed, e.round, len(e.seats)):
                    problems.append(f"table {t}'s cut round {e.round} is not the one the board's seed cuts")
    for what, dealt in (("hand", decks), ("cut round", cuts)):
        for number, at in sorted(dealt.items()):
            first = min(at)
            differ = [t for t in sorted(at) if at[t] != at[first]]
            if differ:
                problems.append(f"{what} {number} was dealt other cards at table{'s' if len(differ) > 1 else ''} "
                                f"{', '.join(map(str, differ))} than at table {first}")
    if problems:
        return False, "; ".join(problems)
    hands = sorted(decks)
    return True, (f"its seed, HMAC-SHA256(match seed, 'board:' || {board}), hashes to its published commitment; "
                  f"its {len(tables)} tables were dealt from it, the same cards at each "
                  f"(hand{'s' if len(hands) != 1 else ''} {', '.join(map(str, hands)) or 'none'})")


def _table_points(log: list) -> tuple[list[int] | None, str]:
    """A finished table's points for its board (duplicate.board_points), and how they came about."""
    try:
        state = game.replay(log)
        if state.status != "over":
            return None, "its game is not over"
        awaited = ()
        if (state.end or {}).get("reason") == "abandoned":
            awaited = game.replay(log[:-1]).to_act
        points = D.board_points(state, awaited)
        forfeits = D.forfeiting_seats(state, awaited)
    except Exception as err:  # noqa: BLE001 (a log changed by hand: its own audit says how)
        return None, f"its game does not replay ({type(err).__name__}), see its own audit"
    how = "its hand points" if not forfeits else "its hand points and " + ", ".join(
        f"seat {s}'s forfeit of {D.forfeit(state, s)} (the largest bonus and its least deadwood) to every "
        "other seat" for s in forfeits)
    return points, how


def _board_points(doc: dict, board: int, tables: dict) -> tuple[list[list[int]] | None, bool, str]:
    """Board ``board``'s tables' points from their games; whether they, the board's scores, seats and
    game ids are what the match says; the detail."""
    variant, names = doc["variant"], [p["name"] for p in doc["participants"]]
    published = doc["board_results"][board]
    problems, points, hows = [], [], []
    if published.get("board") != board or type(published.get("board")) is not int:
        problems.append(f"board {board} is numbered {published.get('board')!r}")
    for t in range(D.TABLES[variant]):
        row = published["tables"][t]
        seats = [names[i] for i in D.seating(variant, t)]
        if row.get("table") != t or type(row.get("table")) is not int:
            problems.append(f"table {t} is numbered {row.get('table')!r}")
        if row.get("seats") != seats:
            problems.append(f"table {t}'s seats are {row.get('seats')}, not the seating {seats}")
        if row.get("game_id") != D.game_id_for(doc["match_id"], board, t):
            problems.append(f"table {t}'s game id is {row.get('game_id')!r}, not the match's "
                            f"{D.game_id_for(doc['match_id'], board, t)!r}")
        if row.get("over") is not True:
            problems.append(f"table {t} is not over")
        if t not in tables:
            problems.append(f"table {t} has no export: its points are not derived")
            points.append(None)
            continue
        got, how = _table_points(tables[t])
        points.append(got)
        if got is None:
            problems.append(f"table {t}'s points are not derived: {how}")
            continue
        hows.append(f"table {t} {_num(got)} ({how})")
        if not _same(row.get("points"), got):
            problems.append(f"table {t}'s points are {_num(row.get('points'))}, its game gives {_num(got)}")
    if any(p is None for p in points):
        return None, False, "; ".join(problems)
    scores = [0.0] * len(names)
    for t, per_table in enumerate(points):
        for seat, participant in enumerate(D.seating(variant, t)):
            scores[participant] += D.table_scores(per_table, len(names))[seat]
    shown = published.get("scores") if isinstance(published.get("scores"), dict) else {}
    if set(shown) != set(names) or not all(_same(shown[n], s) for n, s in zip(names, scores)):
        problems.append("its scores are " + ", ".join(f"{n} {_num(shown.get(n))}" for n in names)
                        + "; its tables' points give " + ", ".join(f"{n} {_num(s)}" for n, s in zip(names, scores)))
    detail = "; ".join(problems) if problems else (
        "; ".join(hows) + " give the board's scores " + ", ".join(f"{n} {_num(s)}" for n, s in zip(names, scores)))
    return points, not problems, detail


def _standings(doc: dict, all_points: dict) -> tuple[bool, str]:
    """The standings (and boards_done, games_done) from the board scores the games give."""
    variant = doc["variant"]
    unscored = [b for b in range(doc["boards"]) if all_points.get(b) is None]
    if unscored:
        return False, (f"not derived: board{'s' if len(unscored) > 1 else ''} "
                       f"{', '.join(map(str, unscored[:10]))}{' ...' if len(unscored) > 10 else ''} "
                       "could not be scored from the games")
    tables = D.TABLES[variant]
    played = {}
    for b in range(doc["boards"]):
        for t in range(tables):
            played[D.game_index(b, t, tables)] = {"board": b, "table": t, "game_id": D.game_id_for(doc["match_id"], b, t),
                                                  "points": all_points[b][t]}
    participants = tuple({"name": p["name"], "kind": p.get("kind")} for p in doc["participants"])
    state = D.MatchState(variant=variant, options=dict(doc["options"]), participants=participants,
                         boards=doc["boards"], move_time_s=doc.get("move_time_s"), commitment=doc["commitment"],
                         board_commitments=tuple(b["commitment"] for b in doc["board_results"]), window=0,
                         started=doc["boards"] * tables, played=played, status="over", seed=doc["seed"])
    expected = D.standings(state)
    problems = []
    games = doc["boards"] * tables
    if doc.get("boards_done") != doc["boards"] or doc.get("games_done") != games or doc.get("games") != games:
        problems.append(f"boards_done {doc.get('boards_done')}, games {doc.get('games')} and games_done "
                        f"{doc.get('games_done')} are not the match's {doc['boards']} boards and {games} games, "
                        "all done")
    rows = doc["standings"]
    if [r.get("name") if isinstance(r, dict) else None for r in rows] != [r["name"] for r in expected]:
        problems.append("the standings do not list the participants, in order")
    else:
        for row, want in zip(rows, expected):
            if row.get("kind") != want["kind"]:
                problems.append(f"{want['name']} is a {row.get('kind')} in the standings, a {want['kind']} in the "
                                "match's participants")
            for key, label in (("total", "total"), ("mean_per_board", "mean per board"), ("ci95", "95% interval"),
                               ("boards", "boards")):
                if not _same(row.get(key), want[key]):
                    problems.append(f"{want['name']}'s {label} is {_num(row.get(key))}, the games give "
                                    f"{_num(want[key])}")
    if problems:
        return False, "; ".join(problems)
    return True, ("from the board scores of the games: " + "; ".join(
        f"{r['name']} total {_num(r['total'])}, mean {_num(r['mean_per_board'])} per board, 95% interval "
        f"{_num(r['ci95'])}" for r in expected))


def verify_match(match_text: str, exports: Iterable[tuple[str, list[str]]]) -> dict:
    """Audit a finished match from its document (GET /matches/{id}, as text) and its games' exports
    (``exports``: (a name for the messages, the export's lines), in any order).

    Needs no server and no store: {"ok": bool, "checks": [{name, ok, detail}], "not_checked": str}.
    """
    checks: list[dict] = []
    doc, why = _read_match(match_text)
    if doc is None:
        _check(checks, "match", False, why)
        return {"ok": False, "checks": checks}
    variant, tables = doc["variant"], D.TABLES[doc["variant"]]
    _check(checks, "match", True, f"match {doc['match_id']}: {variant}, {', '.join(p['name'] for p in doc['participants'])}, "
                                  f"{doc['boards']} board{'s' if doc['boards'] != 1 else ''} of {tables} tables, over")
    seed = bytes.fromhex(doc["seed"])
    # The match's revealed seed hashes to its commitment.
    _check(checks, "commitment", commitment(seed) == doc["commitment"],
           f"sha256(match seed) = {commitment(seed)}; committed {doc['commitment']}")

    # The games are exactly the match's: one a table, none missing, none extra.
    exports = list(exports)
    logs = [(name, _read_log(lines)) for name, lines in exports]
    try:
        placed, problems = _place(doc, seed, logs)
    except _MALFORMED as err:
        placed, problems = {}, [_malformed(err)]
    _check(checks, "games", not problems, "; ".join(problems[:10]) + (f"; {len(problems) - 10} more"
                                                                     if len(problems) > 10 else "")
           if problems else f"{len(exports)} exports, one for each of the match's {doc['boards'] * tables} games "
                            f"({doc['boards']} boards of {tables} tables), none extra")
    # board by board: each table's own audit, then the board's deal and points
    # Each game passes its own audit (audit.verify_export).
    all_points: dict = {}
    for b in range(doc["boards"]):
        for t in range(tables):
            if (b, t) in placed:
                name, lines = exports[placed[b, t]]
                report = verify_export(lines)
                _check(checks, f"game_{b}_{t}", report["ok"], _own_audit(name, report))
        # Each board's seed derives from the match's seed and hashes to the commitment published at the start.
        # Every table of the board was dealt from it, the same cards at each table.
        at = {t: logs[placed[b, t]][1] for t in range(tables) if (b, t) in placed}
        try:
            ok, detail = _board_deal(doc, seed, b, at)
        except _MALFORMED as err:
            ok, detail = False, _malformed(err)
        _check(checks, f"board_{b}", ok, detail)
        # Each table's points follow from its game, forfeits included (duplicate.board_points).
        # Each board's scores follow from its tables' points.
        try:
            points, ok, detail = _board_points(doc, b, at)
        except _MALFORMED as err:
            points, ok, detail = None, False, _malformed(err)
        all_points[b] = points
        _check(checks, f"points_{b}", ok, detail)
    # an export that is none of the match's games is still audited on its own, for what it is
    unplaced = set(range(len(exports))) - set(placed.values())
    for i in sorted(unplaced):
        name, lines = exports[i]
        report = verify_export(lines)
        _check(checks, f"export_{i + 1}", report["ok"], _own_audit(name, report))
    # The standings follow from the board scores.
    try:
        ok, detail = _standings(doc, all_points)
    except _MALFORMED as err:
        ok, detail = False, _malformed(err)
    _check(checks, "standings", ok, detail)
    return {"ok": all(c["ok"] for c in checks), "checks": checks, "not_checked": NOT_CHECKED}
