"""The audit of a game's log against its revealed seed.

It is the check RULES.md §1 (The deal) and §2 (Roles) promise.
The seed matches the commitment published at creation.
Every deal and cut the log says came from the seed did (fairness module).
The whole log is what the rules produce, command by command, to the recorded final scores,
each hand from its deck as the log writes it (audit_replay module).
The checks both audits make read as the browser's audit (audit.js) words them.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable

from . import commands, events, game
from .audit_replay import Replay, first_card_difference
from .errors import RulesError
from .variants import LATER_OPTIONS
from .fairness import (
    DERIVATION_SERVER_SEED,
    DERIVATIONS,
    check_client_seed,
    commitment,
    cut_cards,
    deal_key,
    deck_for_hand,
)


def _check(checks: list, name: str, ok: bool, detail: str) -> bool:
    checks.append({"name": name, "ok": bool(ok), "detail": detail})
    return bool(ok)


def _command_for(event: Any, following: Any = None):
    """The command that produced a log group starting with ``event`` (``following`` is the event
    after it, if any): (actor, command) or None."""
    t = type(event)
    if t is events.SeatClaimed:
        # a client seed sent with the claim is its next event (one sent just after by the same
        # seat would make the very same events)
        seed = None
        if type(following) is events.ClientSeedSent and following.seat == event.seat:
            seed = following.client_seed
        return None, commands.ClaimSeat(event.seat, dict(event.player), seed)
    if t is events.ClientSeedSent:
        return event.seat, commands.SendClientSeed(event.client_seed)
    if t is events.ClientSeedsClosed:
        # the sweeper's command: the wait it measured is data the log records
        return None, commands.CloseClientSeeds(event.waited_s)
    if t is events.UpcardTaken:
        return event.seat, commands.TAKE_UPCARD
    if t is events.UpcardPassed:
        return event.seat, commands.PASS_UPCARD
    if t is events.CardDrawn:
        return event.seat, (commands.DRAW_STOCK if event.source == "stock" else commands.DRAW_DISCARD)
    if t is events.CardDiscarded:
        return event.seat, commands.Discard(event.card)
    if t is events.Knocked:
        return event.seat, commands.Knock(event.discard, [list(m) for m in event.melds])
    if t is events.AdviceGiven:
        return event.seat, commands.Advise(event.text)
    if t is events.GameResigned:
        return event.seat, commands.RESIGN
    if t is events.GameAbandoned:
        # the sweeper's command: the idle time it measured is data the log records
        return None, commands.AbandonGame(event.idle_s, event.drawn_hands)
    if t is events.GameExpired:
        return None, commands.ExpireGame(event.waited_s)
    if t is events.TurnTimedOut:
        # the turn clock's command: the move it played for the seat is the group's next event
        played = _command_for(following) if following is not None else None
        if played is None or played[0] != event.seat:
            return None
        return event.seat, commands.PlayTimedOutTurn(played[1])
    return None


def _deal_key(checks: list, log: list, created: Any, seed: bytes) -> bytes:
    """The key of the game's decks and cuts; with derivation 2, checks that every client seed
    came before the first cut or deal, once a seat."""
    if created.derivation == DERIVATION_SERVER_SEED:
        return seed
    # With derivation 2 the decks and cuts come from the seed and every seat's client seed.
    # Each client seed must be sent before the first cut or deal.
    nseats = len(created.players)
    client_seeds: list = [None] * nseats
    problems = []
    started = False
    for e in log:
        if type(e) in (events.CardsCut, events.HandDealt, events.RolesAssigned, events.DealerChosen):
            started = True
        if type(e) is not events.ClientSeedSent:
            continue
        if started:
            problems.append(f"seat {e.seat}'s client seed came after the first cut or deal")
        if type(e.seat) is not int or not 0 <= e.seat < nseats:
            problems.append(f"a client seed names seat {_js(e.seat)}")
        elif client_seeds[e.seat] is not None:
            problems.append(f"seat {e.seat} sent two client seeds")
        elif not _valid_client_seed(e.client_seed):
            problems.append(f"seat {e.seat}'s client seed is not 1 to 64 characters of text")
        else:
            client_seeds[e.seat] = e.client_seed
    shown = ", ".join(f"{s}: {'(default)' if c is None else _js(c)}" for s, c in enumerate(client_seeds))
    _check(checks, "client_seeds", not problems, "; ".join(problems) if problems else f"client seeds {shown}")
    try:
        key = deal_key(created.derivation, seed, client_seeds)
    except UnicodeEncodeError:
        key = b""
    return key


def _deals_and_cuts(checks: list, log: list, created: Any, key: bytes) -> None:
    """The ``cut_<r>`` and ``deal_<n>`` checks, worded as the browser's audit words them."""
    for e in log:
        if type(e) is events.CardsCut:
            want = cut_cards(key, e.round, len(e.seats))
            ok = list(e.cards) == want
            _check(checks, f"cut_{e.round}", ok, f"seats {', '.join(map(str, e.seats))} cut {', '.join(want)}" if ok
                   else first_card_difference(e.cards, want, "from the seed"))
    decks = created.decks or ()
    for i, e in enumerate(e for e in log if type(e) is events.HandDealt):
        name = f"deal_{e.hand_no}"
        if e.hand_no != i + 1:
            _check(checks, name, False, f"hand {i + 1} of the log is numbered {_js(e.hand_no)}")
        elif e.hand_no <= len(decks):
            want = list(decks[e.hand_no - 1])
            ok = e.source == "explicit" and list(e.deck) == want
            _check(checks, name, ok, "the explicit deck given at creation" if ok
                   else f"source {e.source}, but a deck was given at creation" if e.source != "explicit"
                   else first_card_difference(e.deck, want, "from the seed"))
        else:
            want = deck_for_hand(key, e.hand_no)
            ok = e.source == "seed" and list(e.deck) == want
            _check(checks, name, ok, f"the seed's deck of hand {e.hand_no}" if ok
                   else f"source {e.source}, but no deck was given for this hand" if e.source != "seed"
                   else first_card_difference(e.deck, want, "from the seed"))


def _js(value: Any) -> str:
    """``value`` as the browser's audit shows it (JSON, or JavaScript's true and false)."""
    return json.dumps(value, ensure_ascii=False)


def _valid_client_seed(value: Any) -> bool:
    try:
        check_client_seed(value)
    except RulesError:
        return False
    return True


#: what reading a field of the wrong kind raises (a number where a list belongs, a seat that is
#: no seat ...): the engine trusts its own events, an audit of an export may not
_MALFORMED = (TypeError, AttributeError, KeyError, IndexError, OverflowError, ValueError, RecursionError)


def _malformed(err: BaseException) -> str:
    return f"an event holds a value of a kind no event of its type has ({type(err).__name__}: {err})"


def verify(log_events: Iterable[Any], seed: bytes | str) -> dict:
    """Audit a game's log against its revealed seed: {"ok": bool, "checks": [{name, ok, detail}]}.

    A log whose events hold values of the wrong kind (possible in an export changed by hand) fails
    with an ``events`` check; it never raises.
    """
    checks: list[dict] = []
    try:
        return _verify(checks, log_events, seed)
    except _MALFORMED as err:
        _check(checks, "events", False, _malformed(err))
        return {"ok": False, "checks": checks}


def _verify(checks: list, log_events: Iterable[Any], seed: bytes | str) -> dict:
    log = [events.decode(x) if isinstance(x, dict) else x for x in log_events]
    try:
        seed = bytes.fromhex(seed) if isinstance(seed, str) else bytes(seed)
    except ValueError:
        _check(checks, "seed", False, "the seed is neither bytes nor hex")
        return {"ok": False, "checks": checks}
    if not log or type(log[0]) is not events.GameCreated:
        _check(checks, "log", False, "the log does not start with game_created")
        return {"ok": False, "checks": checks}
    created = log[0]
    if created.imported_from is not None:
        # dealt and played elsewhere: no commitment was published before its deals, so there is no
        # seed to check them against; the replay still checks every move and every score
        _check(checks, "origin", True, IMPORTED_DETAIL.format(source=created.imported_from))
        return _replayed(checks, log, created, seed)

    _check(
        checks,
        "commitment",
        commitment(seed) == created.commitment,
        f"sha256(seed) = {commitment(seed)}; committed {created.commitment}",
    )
    _check(checks, "seed_recorded", created.seed == seed.hex(), "the seed recorded at creation")
    explicit = bool(created.decks) or created.roles is not None or created.first_dealer is not None
    _check(
        checks,
        "randomly_dealt_flag",
        created.randomly_dealt == (not explicit),
        f"randomly_dealt is {_js(created.randomly_dealt)}; decks, roles or first dealer given: {_js(explicit)}",
    )

    derivation = created.derivation
    if not _check(
        checks, "derivation", derivation in DERIVATIONS,
        {1: "derivation 1: the server's seed alone", 2: "derivation 2: the server's seed and every seat's client seed"}
        .get(derivation, f"unknown derivation {derivation}"),
    ):
        return {"ok": False, "checks": checks}
    key = _deal_key(checks, log, created, seed)

    _deals_and_cuts(checks, log, created, key)
    return _replayed(checks, log, created, seed)


def _replayed(checks: list, log: list, created: Any, seed: bytes) -> dict:
    """The replay check, then the report."""
    # Re-decide the log: the start events from the creation spec, then each group of events
    # from the command that must have produced it.
    try:
        spec = game.spec_of(created, seed)
        expected = game.start(spec)
        later = {name: value for name, value in LATER_OPTIONS.items() if name not in created.options}
        if later and all(expected[0].options.get(name) == value for name, value in later.items()):
            # recorded before some options existed: its game_created lists the options of its day
            expected[0] = dataclasses.replace(expected[0], options=dict(created.options))
        replay = Replay(log, _command_for)
        replay.take(0, expected, "the creation spec")
        replay.run(len(expected))
        state = replay.state
        detail = f"{len(log)} events replayed; scores {state.scores}"
        ok = True
        ended = [e for e in log if type(e) in (events.GameEnded, events.GameResigned, events.GameAbandoned,
                                               events.GameExpired)]
        if ended:
            # The final scores are those of a game won, resigned or abandoned (RULES.md, Extensions).
            # An abandoned game has no winner.
            ok = list(ended[-1].scores) == state.scores and getattr(ended[-1], "winner", None) == state.winner
            detail += f"; recorded final scores {list(ended[-1].scores)}"
        if replay.own_decks:
            detail += "; " + ", ".join(f"hand {n}" for n in replay.own_decks) + (
                " replayed from the log's deck, not the rules' (see the deal checks)")
        _check(checks, "replay", ok, detail)
    except (RulesError, ValueError) as err:
        _check(checks, "replay", False, str(getattr(err, "message", err)))
    return {"ok": all(c["ok"] for c in checks), "checks": checks}


def check_advice(log: list, entries: Iterable[dict]) -> dict:
    """The advice check of an export: every advice entry ({"at_version", "seq", "data"}) is one
    the engine allowed at the version it names, at most MAX_ADVICE_PER_VERSION there."""
    by_version: dict[int, list] = {}
    entries = list(entries)
    for entry in entries:
        by_version.setdefault(entry.get("at_version"), []).append(entry)
    problems = []
    state = None
    for version, event in enumerate(log, start=1):
        state = game.evolve(state, event)
        for entry in by_version.pop(version, ()):
            data = entry.get("data") or {}
            where = f"{version}-{entry.get('seq')}"
            if not isinstance(entry.get("seq"), int) or not 0 <= entry["seq"] < commands.MAX_ADVICE_PER_VERSION:
                problems.append(f"{where}: not one of the {commands.MAX_ADVICE_PER_VERSION} allowed at a version")
                continue
            try:
                allowed = game.check_advice(state, data.get("seat"), commands.Advise(data.get("text")))
            except RulesError as err:
                problems.append(f"{where}: not allowed at that version ({err.code})")
                continue
            if (allowed["captain"], allowed["hand_no"]) != (data.get("captain"), data.get("hand_no")):
                problems.append(f"{where}: its hand or captain differ from the game's")
    problems += [f"{v}-{e.get('seq')}: names a version the log does not hold" for v, es in by_version.items() for e in es]
    detail = (f"{len(entries)} piece(s) of advice, each allowed at the version it was given at"
              if not problems else "; ".join(problems[:10]))
    return {"name": "advice", "ok": not problems, "detail": detail}


#: what an audit cannot check: the commitment binds the seed alone, and the log's replay binds
#: every card, move and score, but not who sat where nor when anything happened
NOT_CHECKED = ("the players' names (and a seat's other details, such as its bot) and the timestamps (every "
               "ts, the waits and idle times events record, when a turn clock ran out), which the commitment "
               "does not cover")

#: the origin check of a game imported from another program's record (``{source}``: its name)
IMPORTED_DETAIL = ("imported from {source}: dealt and played there, not by this server, so no commitment "
                   "was published before its deals and they cannot be checked against one (this is no "
                   "fairness failure); the replay checks every move and score by these rules")
#: what an audit of an imported game cannot check, before NOT_CHECKED
IMPORTED_NOT_CHECKED = "the deals (the game was imported: no commitment covers them), "

#: the fields of an export's lines (GET /games/{id}/export): an event of the log, a piece of advice
EVENT_LINE_FIELDS = frozenset({"data", "ts", "type", "v", "version"})
ADVICE_LINE_FIELDS = frozenset({"at_version", "data", "seq", "ts", "type", "v"})
ADVICE_DATA_FIELDS = frozenset({"captain", "hand_no", "seat", "text"})

#: no line of an export nests deeper than a few levels (a knock's melds in its hand_scored data):
#: a deeper line is refused before anything reads it
MAX_LINE_DEPTH = 32


def _too_deep(doc: Any, limit: int = MAX_LINE_DEPTH) -> bool:
    """True when ``doc`` nests lists or objects more than ``limit`` levels deep (no recursion)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def _line_fields(records: list, advice: list) -> dict:
    """The check that every line of an export holds the fields of its kind and no other: the event
    schema is closed, so a field the server never writes is a change made to the export."""
    problems = []
    for n, doc in records:
        extra = sorted(set(doc) - EVENT_LINE_FIELDS)
        missing = sorted(EVENT_LINE_FIELDS - set(doc))
        kind = (doc.get("type"), doc.get("v"))
        cls = events.REGISTRY.get(kind) if all(isinstance(k, (str, int)) for k in kind) else None
        data = doc.get("data")
        if cls is not None and isinstance(data, dict):
            extra += [f"data.{k}" for k in sorted(set(data) - set(events._FIELDS[cls]))]
        if extra or missing:
            problems.append(f"line {n} (event {doc.get('version')!r})"
                            + (f" has fields no event has: {', '.join(extra)}" if extra else "")
                            + (" and" if extra and missing else "")
                            + (f" lacks {', '.join(missing)}" if missing else ""))
        elif type(doc["ts"]) is not int:
            problems.append(f"line {n} (event {doc.get('version')!r}): ts is not a whole number")
    for n, doc in advice:
        data = doc.get("data") if isinstance(doc.get("data"), dict) else {}
        extra = sorted(set(doc) - ADVICE_LINE_FIELDS) + [f"data.{k}" for k in sorted(set(data) - ADVICE_DATA_FIELDS)]
        missing = sorted(ADVICE_LINE_FIELDS - set(doc))
        if extra or missing:
            problems.append(f"line {n} (advice)"
                            + (f" has fields no advice has: {', '.join(extra)}" if extra else "")
                            + (" and" if extra and missing else "")
                            + (f" lacks {', '.join(missing)}" if missing else ""))
    detail = ("every line holds the fields of its kind and no other (an event: data, ts, type, v, version, "
              "its data its type's fields; advice: at_version, data, seq, ts, type, v)"
              if not problems else "; ".join(problems[:5]) + (f"; {len(problems) - 5} more" if len(problems) > 5 else ""))
    return {"name": "fields", "ok": not problems, "detail": detail}


def _numbering(records: list) -> tuple[bool, str]:
    """(ok, detail) of the events' numbering: 1, 2, 3 ... in the order of the lines."""
    for i, (n, doc) in enumerate(records, start=1):
        if doc.get("version") != i or type(doc.get("version")) is not int:
            return False, f"event {i} expected, got version {doc.get('version')!r} at line {n}"
    return True, f"{len(records)} events numbered 1 to {len(records)}, each once and in order"


def verify_export(lines: Iterable[str]) -> dict:
    """Audit a finished game from its export alone, with no server and no store.

    ``lines`` are those of GET /games/{id}/export: one JSON object a line, the log's events
    numbered by ``version``, then the advice log.
    Returns {"ok": bool, "checks": [{name, ok, detail}], "not_checked": str}.
    "not_checked" (NOT_CHECKED: what no check covers) comes once there are events to check.
    """
    # The checks: the numbering, the lines' fields, the seed revealed at the end, everything
    # verify checks, and the advice.
    checks: list[dict] = []
    records, advice = [], []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except RecursionError:
            _check(checks, "export", False, f"line {n} nests more than {MAX_LINE_DEPTH} levels deep: no line of "
                                            "an export does")
            return {"ok": False, "checks": checks}
        except ValueError as err:
            _check(checks, "export", False, f"line {n} is not JSON: {err}")
            return {"ok": False, "checks": checks}
        if not isinstance(doc, dict):
            _check(checks, "export", False, f"line {n} is not an object")
            return {"ok": False, "checks": checks}
        if _too_deep(doc):
            _check(checks, "export", False, f"line {n} nests more than {MAX_LINE_DEPTH} levels deep: no line of "
                                            "an export does")
            return {"ok": False, "checks": checks}
        (records if "version" in doc else advice).append((n, doc))
    if not records:
        # an empty numbering proves nothing: nothing of a game is here to check
        _check(checks, "export", False, "no events: the export holds no event of a game's log "
                                        "(GET /games/{id}/export gives a finished game's)")
        return {"ok": False, "checks": checks}
    ok, detail = _numbering(records)
    _check(checks, "numbering", ok, detail)
    checks.append(_line_fields(records, advice))
    try:
        log = [events.decode({"type": r.get("type"), "v": r.get("v"), "data": r.get("data")}) for _, r in records]
    except RulesError as err:
        _check(checks, "events", False, err.message)
        return {"ok": False, "checks": checks, "not_checked": NOT_CHECKED}
    except _MALFORMED as err:
        _check(checks, "events", False, _malformed(err))
        return {"ok": False, "checks": checks, "not_checked": NOT_CHECKED}
    if not log or type(log[0]) is not events.GameCreated:
        _check(checks, "log", False, "the log does not start with game_created")
        return {"ok": False, "checks": checks, "not_checked": NOT_CHECKED}
    final = log[-1]
    over = type(final) in (events.GameEnded, events.GameResigned, events.GameAbandoned, events.GameExpired)
    seed = log[0].seed
    _check(checks, "seed_revealed", over and final.seed == seed,
           "the game is over and its last event reveals the seed recorded at creation" if over
           else "the log does not end the game: the seed is not revealed")
    report = verify(log, seed)
    checks += report["checks"]
    not_checked = (IMPORTED_NOT_CHECKED if log[0].imported_from is not None else "") + NOT_CHECKED
    if not all(c["ok"] for c in checks if c["name"] == "replay"):
        # the advice is held against the states the log replays to: a log that does not replay
        # (its failure said once, under replay) gives none
        if advice:
            _check(checks, "advice", False, "not checked: the log does not replay (see replay), so there is "
                                            "no state to hold the advice against")
        return {"ok": False, "checks": checks, "not_checked": not_checked}
    try:
        checks.append(check_advice(log, [doc for _, doc in advice]))
    except _MALFORMED as err:
        _check(checks, "advice", False, _malformed(err).replace("an event", "an event or a piece of advice", 1))
    return {"ok": all(c["ok"] for c in checks), "checks": checks, "not_checked": not_checked}
