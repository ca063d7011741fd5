"""A gin-rami game as OpenSpiel's ``gin_rummy`` records, and such records as a ginbox game (docs: OPENSPIEL.md).

:func:`to_record` turns a finished game's log into one OpenSpiel game per hand: the deal's cards
as chance outcomes, every draw from the stock as the card it drew, every decision as its action.
:func:`from_record` turns such a record (or a bare OpenSpiel action sequence) back into a ginbox
log, every move decided by ginbox's own rules; its first event says it was not dealt here.
Both refuse with a RulesError whose code says why (``openspiel_*``, ``game_not_over``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from . import cards, commands, events, game
from .errors import RulesError, invalid
from .openspiel_codes import (
    DRAW_STOCK, DRAW_UPCARD, KNOCK, MAX_DISCARD_DRAWS, MAX_KNOCK_CARD, MELD_BASE, MELDS, PARAMETER_DEFAULTS, PASS,
    WALL_STOCK, defender_actions, join_runs, meld_id, returns, split_meld, to_code, to_int, value,
)
from .variants import GIN_RAMI

#: the name and version of a record's layout
FORMAT = "ginbox-openspiel/1"
#: what the first event of an imported game names as its origin
IMPORTED_FROM = "openspiel"
#: a record's bounds: hands, and actions in one hand (OpenSpiel's own bound is 300)
MAX_HANDS = 1000
MAX_ACTIONS = 1000
#: the target of an imported game when the record names none: one hand ends it; several play on
ONE_HAND_TARGET, MANY_HANDS_TARGET = 1, 100_000
ENDINGS = (events.GameEnded, events.GameResigned, events.GameAbandoned, events.GameExpired)


def parameters_of(created: events.GameCreated) -> dict:
    """OpenSpiel's parameters of the game's rules; RulesError when OpenSpiel plays them otherwise."""
    if created.variant != GIN_RAMI:
        raise invalid("openspiel_variant", f"OpenSpiel's gin_rummy is two-player gin rami; this game is {created.variant}")
    o = created.options
    problems = []
    if not o.get("gin_adds_deadwood"):
        problems.append("gin_adds_deadwood is false (OpenSpiel's gin scores its bonus plus the defender's deadwood)")
    if o.get("big_gin_bonus") is not None:
        problems.append(f"big_gin_bonus is {o['big_gin_bonus']} (OpenSpiel has no big gin)")
    if o.get("oklahoma_spades_double"):
        problems.append("oklahoma_spades_double is on (OpenSpiel doubles no hand)")
    if not o.get("oklahoma") and o.get("knock_limit", 0) > MAX_KNOCK_CARD:
        problems.append(f"knock_limit is {o['knock_limit']} (OpenSpiel's knock card is 0 to {MAX_KNOCK_CARD})")
    if problems:
        raise invalid("openspiel_rules_differ", "OpenSpiel cannot play these rules: " + "; ".join(problems)
                      + ". The preset openspiel plays rules it can")
    return {"knock_card": MAX_KNOCK_CARD if o.get("oklahoma") else o["knock_limit"], "gin_bonus": o["gin_bonus"],
            "undercut_bonus": o["undercut_bonus"], "oklahoma": bool(o.get("oklahoma"))}


class _Hand:
    """One hand as OpenSpiel's actions, built event by event."""

    def __init__(self, dealt: events.HandDealt):
        self.no = dealt.hand_no
        self.seats = [dealt.non_dealer, dealt.dealer]  # OpenSpiel's player 0 acts first: the non-dealer
        deck = [to_int(c) for c in dealt.deck]
        self.held = [set(deck[0:20:2]), set(deck[1:20:2])]
        self.actions = deck[0:20:2] + deck[1:20:2] + [deck[20]]
        self.discard_draws = 0
        self.knock: events.Knocked | None = None
        self.result: dict | None = None

    def player(self, seat: int) -> int:
        return self.seats.index(seat)

    def take(self, e: Any) -> None:
        t = type(e)
        if t is events.UpcardPassed:
            self.actions.append(PASS)
        elif t is events.UpcardTaken:
            self.actions.append(DRAW_UPCARD)
            self.held[self.player(e.seat)].add(to_int(e.card))
        elif t is events.CardDrawn:
            if e.source == "stock":
                self.actions += [DRAW_STOCK, to_int(e.card)]
            else:
                self.discard_draws += 1
                if self.discard_draws >= MAX_DISCARD_DRAWS:
                    raise invalid("openspiel_hand_differs", f"hand {self.no}: OpenSpiel ends a hand drawn at its "
                                  f"{MAX_DISCARD_DRAWS}th draw from the discard pile; this one went on")
                self.actions.append(DRAW_UPCARD)
            self.held[self.player(e.seat)].add(to_int(e.card))
        elif t is events.CardDiscarded:
            self.actions.append(to_int(e.card))
            self.held[self.player(e.seat)].discard(to_int(e.card))
        elif t is events.Knocked:
            self.knock = e
            self.actions += [KNOCK, to_int(e.discard)]
            self.held[self.player(e.seat)].discard(to_int(e.discard))
            self.actions += [MELD_BASE + meld_id(m) for meld in e.melds for m in split_meld(meld)] + [PASS]
        elif t is events.HandScored:
            self._scored(e)
        elif t is events.HandDrawn:
            if e.reason != "stock_exhausted":
                raise invalid("openspiel_hand_differs", f"hand {self.no} was drawn at the turn limit "
                              "(max_turns_per_hand), which OpenSpiel does not have")
            self.actions.append(PASS)  # the wall: the next player passes, and the hand is drawn
            self.result = {"returns": [0, 0], "points": [0, 0]}

    def _scored(self, e: events.HandScored) -> None:
        knock = self.knock
        defender = self.player(e.defender)
        knocker_melds = [m for meld in knock.melds for m in split_meld(meld)]
        self.actions += defender_actions(
            knocker_melds, [to_int(c) for c, _ in e.layoffs], [[to_int(c) for c in m] for m in e.defender_melds],
            sorted(self.held[defender]), [to_int(c) for c in e.defender_deadwood_cards], gin=knock.deadwood == 0)
        points = [0, 0]
        points[self.player(e.winner)] = e.points
        self.result = {"returns": None, "points": points, "knocker": 1 - defender,
                       "knocker_deadwood": e.knocker_deadwood, "defender_deadwood": e.defender_deadwood}

    def record(self, params: dict) -> dict:
        out = {"hand_no": self.no, "players": self.seats, "actions": self.actions, "terminal": self.result is not None}
        if self.result is None:
            return {**out, "returns": None, "ginbox_points": None}
        r = self.result
        got = r["returns"] or returns(r["knocker"], r["knocker_deadwood"], r["defender_deadwood"], params)
        return {**out, "returns": got, "ginbox_points": r["points"]}


def to_record(log: list) -> dict:
    """A finished gin-rami game's log as OpenSpiel records, one game per hand.

    Raises RulesError: ``game_not_over``, ``openspiel_variant``, ``openspiel_rules_differ``,
    ``openspiel_hand_differs`` (a hand OpenSpiel would end otherwise), ``openspiel_no_hand``.
    """
    created = log[0]
    if type(log[-1]) not in ENDINGS:
        raise RulesError("game_not_over", "the game is not over: only a finished game converts", conflict=True)
    params = parameters_of(created)
    hands: list[_Hand] = []
    for e in log:
        if type(e) is events.HandDealt:
            hands.append(_Hand(e))
        elif hands and type(e) in (events.UpcardPassed, events.UpcardTaken, events.CardDrawn, events.CardDiscarded,
                                   events.Knocked, events.HandScored, events.HandDrawn):
            hands[-1].take(e)
    if hands and hands[-1].result is None and not hands[-1].actions[21:]:
        hands.pop()  # dealt, and the game ended before anyone moved: nothing of it is played
    if not hands:
        raise invalid("openspiel_no_hand", "the game ended before a hand was played: there is nothing to convert")
    final = log[-1]
    end: dict = {"reason": {events.GameEnded: "target_score", events.GameResigned: "resigned",
                            events.GameAbandoned: "abandoned", events.GameExpired: "expired"}[type(final)]}
    if type(final) is events.GameResigned:
        end["seat"] = final.seat
    if type(final) is events.GameAbandoned:
        end["idle_s"] = final.idle_s
        if final.drawn_hands is not None:
            end["drawn_hands"] = final.drawn_hands
    return {
        "format": FORMAT,
        "game": "gin_rummy",
        "parameters": params,
        "ginbox": {"variant": created.variant, "rules": created.rules, "options": dict(created.options),
                   "players": [dict(p) for p in created.players], "end": end, "scores": list(final.scores),
                   "winner": getattr(final, "winner", None)},
        "hands": [h.record(params) for h in hands],
    }


# -- from OpenSpiel -----------------------------------------------------------------------------------------------


def _bad(message: str) -> RulesError:
    return invalid("openspiel_record_invalid", message)


def _parameters(given: Any) -> dict:
    if given is None:
        return dict(PARAMETER_DEFAULTS)
    if not isinstance(given, dict):
        raise _bad("parameters must be an object of OpenSpiel's gin_rummy parameters")
    fixed = {"num_ranks": 13, "num_suits": 4, "hand_size": 10}
    out = dict(PARAMETER_DEFAULTS)
    for name, v in given.items():
        if name in fixed:
            if v != fixed[name] or type(v) is not int:
                raise invalid("openspiel_rules_differ", f"ginbox plays with 52 cards and hands of 10: {name} must be "
                              f"{fixed[name]}, not {v!r}")
        elif name == "oklahoma":
            if type(v) is not bool:
                raise _bad("parameter oklahoma must be true or false")
            out[name] = v
        elif name in PARAMETER_DEFAULTS:
            hi = MAX_KNOCK_CARD if name == "knock_card" else 10_000
            if type(v) is not int or not 0 <= v <= hi:
                raise _bad(f"parameter {name} must be a whole number from 0 to {hi}")
            out[name] = v
        else:
            raise _bad(f"unknown parameter {name!r}: gin_rummy's are {', '.join([*PARAMETER_DEFAULTS, *fixed])}")
    return out


class _Parsed:
    """One OpenSpiel game's actions read by OpenSpiel's rules: its deck, and each decision as a ginbox command."""

    def __init__(self, no: int, actions: Any):
        if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
            raise _bad(f"hand {no}: actions must be a list of at most {MAX_ACTIONS} whole numbers")
        if not all(type(a) is int and 0 <= a < MELD_BASE + len(MELDS) for a in actions):
            raise _bad(f"hand {no}: every action is a whole number from 0 to {MELD_BASE + len(MELDS) - 1}")
        if len(actions) < 21:
            raise _bad(f"hand {no}: the deal takes 21 chance actions (10 cards each, the upcard), not {len(actions)}")
        deal = actions[:21]
        if len(set(deal)) != 21 or max(deal) > 51:
            raise _bad(f"hand {no}: the deal's 21 chance actions must be 21 different cards (0 to 51)")
        self.no = no
        self.deal = deal
        self.stock: list[int] = []
        self.moves: list[tuple[int, int, Any]] = []  # (action index, OpenSpiel player, command)
        self.ending: str | None = None  # "knock", "wall" or None (the hand is not over)
        self.knocker = self.knocker_deadwood = self.defender_deadwood = None
        self._read(actions)

    def _fail(self, at: int, action: int, why: str) -> RulesError:
        return _bad(f"hand {self.no}, action {at} ({action}): {why}")

    def _read(self, actions: list[int]) -> None:
        held = [set(self.deal[:10]), set(self.deal[10:20])]
        seen = set(self.deal)
        upcard: int | None = self.deal[20]
        phase, cur, passed, draws = "first", 0, [False, False], 0
        melds: list[list[int]] = []
        discard = None
        for at in range(21, len(actions)):
            a = actions[at]
            if phase == "over":
                raise self._fail(at, a, "the hand is already over")
            if phase == "chance":
                if a > 51 or a in seen:
                    raise self._fail(at, a, "a card drawn from the stock must be one not yet seen")
                seen.add(a)
                held[cur].add(a)
                self.stock.append(a)
                phase = "discard"
            elif phase in ("first", "draw"):
                if a == DRAW_UPCARD and upcard is not None and not (phase == "first" and all(passed)):
                    if phase == "draw":
                        draws += 1
                        if draws >= MAX_DISCARD_DRAWS:
                            raise invalid("openspiel_move_not_in_ginbox", f"hand {self.no}, action {at}: OpenSpiel "
                                          f"ends the hand drawn at the {MAX_DISCARD_DRAWS}th draw from the discard "
                                          "pile; ginbox plays on")
                    self.moves.append((at, cur, commands.TAKE_UPCARD if phase == "first" else commands.DRAW_DISCARD))
                    held[cur].add(upcard)
                    upcard, phase = None, "discard"
                elif a == PASS and phase == "first" and not all(passed):
                    self.moves.append((at, cur, commands.PASS_UPCARD))
                    passed[cur] = True
                    cur = 1 - cur
                elif a == DRAW_STOCK and (phase == "draw" or all(passed)):
                    self.moves.append((at, cur, commands.DRAW_STOCK))
                    upcard, phase = None, "chance"
                else:
                    raise self._fail(at, a, "not a legal draw here (52 takes the upcard, 53 draws from the stock, "
                                            "54 passes the first upcard)")
            elif phase == "discard":
                if a == KNOCK:
                    phase = "knock_discard"
                elif a in held[cur]:
                    self.moves.append((at, cur, commands.Discard(to_code(a))))
                    held[cur].discard(a)
                    upcard, cur = a, 1 - cur
                    phase = "wall" if 31 - len(self.stock) == WALL_STOCK else "draw"
                else:
                    raise self._fail(at, a, "not a card of the player's hand, nor a knock (55)")
            elif phase == "knock_discard":
                if a not in held[cur]:
                    raise self._fail(at, a, "the knocker's discard must be a card of their hand")
                held[cur].discard(a)
                discard, phase, knock_at = a, "knock_melds", at
            elif phase == "knock_melds":
                if a == PASS:
                    self.moves.append((knock_at, cur, commands.Knock(
                        to_code(discard), [[to_code(c) for c in m] for m in join_runs(melds)])))
                    self.knocker, self.knocker_deadwood = cur, sum(value(c) for c in held[cur])
                    cur, phase = 1 - cur, ("defender_melds" if self.knocker_deadwood == 0 else "layoffs")
                else:
                    meld = MELDS.get(a - MELD_BASE)
                    if meld is None or not set(meld) <= held[cur]:
                        raise self._fail(at, a, "the knocker lays melds of their own cards (56 to 240), then passes (54)")
                    melds.append(list(meld))
                    held[cur] -= set(meld)
            elif phase == "layoffs":
                if a == PASS:
                    phase = "defender_melds"
                elif a in held[cur]:
                    held[cur].discard(a)
                else:
                    raise self._fail(at, a, "the defender lays off cards of their hand, then passes (54)")
            elif phase == "defender_melds":
                if a == PASS:
                    phase, self.ending = "over", "knock"
                    self.defender_deadwood = sum(value(c) for c in held[cur])
                else:
                    meld = MELDS.get(a - MELD_BASE)
                    if meld is None or not set(meld) <= held[cur]:
                        raise self._fail(at, a, "the defender lays melds of their own cards (56 to 240), then passes (54)")
                    held[cur] -= set(meld)
            elif phase == "wall":
                if a == PASS:
                    phase, self.ending = "over", "wall"
                elif a == KNOCK:
                    raise invalid("openspiel_move_not_in_ginbox", f"hand {self.no}, action {at}: a knock at the wall "
                                  "(with the upcard, once the stock is down to two cards): in ginbox the hand is "
                                  "drawn by the discard before it")
                else:
                    raise self._fail(at, a, "at the wall a player passes (54) or knocks (55)")

    def deck(self) -> list[str]:
        """The 52 cards as ginbox deals them: alternately from the non-dealer, the upcard, the stock
        as it was drawn, then the cards nobody drew in card order."""
        top = [c for pair in zip(self.deal[:10], self.deal[10:20]) for c in pair] + [self.deal[20]] + self.stock
        rest = sorted(set(range(52)) - set(top), key=lambda c: cards.index(to_code(c)))
        return [to_code(c) for c in top + rest]


def _read_record(doc: Any) -> tuple[dict, list[dict], dict | None]:
    """(parameters, hands [{"actions", "players"?}], the ginbox section or None) of a record."""
    if isinstance(doc, list):
        return _parameters(None), [{"actions": doc}], None
    if not isinstance(doc, dict):
        raise _bad("a record is an object (this converter's, or {\"parameters\", \"actions\"}) or a list of actions")
    if doc.get("game", "gin_rummy") != "gin_rummy":
        raise _bad(f"the record is of OpenSpiel's game {doc.get('game')!r}, not gin_rummy")
    if "hands" in doc:
        hands = doc["hands"]
        if not isinstance(hands, list) or not 1 <= len(hands) <= MAX_HANDS or not all(isinstance(h, dict) for h in hands):
            raise _bad(f"hands must be a list of 1 to {MAX_HANDS} objects, each with its actions")
    elif "actions" in doc:
        hands = [{"actions": doc["actions"]}]
    else:
        raise _bad("the record holds no actions (\"actions\", or \"hands\" each with its \"actions\")")
    section = doc.get("ginbox")
    if section is not None and not isinstance(section, dict):
        raise _bad("ginbox must be an object (the game's options, players and end)")
    return _parameters(doc.get("parameters")), hands, section


def _options(params: dict, section: dict | None, nhands: int) -> tuple[str | None, dict]:
    if section is not None and isinstance(section.get("options"), dict):
        return section.get("rules"), dict(section["options"])
    options = {"gin_bonus": params["gin_bonus"], "undercut_bonus": params["undercut_bonus"],
               "target_score": ONE_HAND_TARGET if nhands == 1 else MANY_HANDS_TARGET}
    options.update({"oklahoma": True} if params["oklahoma"] else {"knock_limit": params["knock_card"]})
    return "openspiel", options


def from_record(doc: Any, notes: list | None = None) -> list:
    """A ginbox log of an OpenSpiel record: the converter's own, ``{"parameters", "actions"}`` or a bare list.

    Every move is decided by ginbox's rules from the record's deal; the log's first event says
    ``imported_from: "openspiel"``. Raises RulesError ``openspiel_record_invalid``,
    ``openspiel_rules_differ`` or ``openspiel_move_not_in_ginbox``.
    ``notes`` gets a line for each hand that ginbox scores otherwise than OpenSpiel did.
    """
    params, hands, section = _read_record(doc)
    parsed = [_Parsed(n, h.get("actions")) for n, h in enumerate(hands, start=1)]
    if any(p.ending is None for p in parsed[:-1]):
        raise _bad(f"hand {next(p.no for p in parsed if p.ending is None)} is not over, and a hand follows it")
    rules, options = _options(params, section, len(parsed))
    players = section.get("players") if section else None
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, dict) for p in players)):
        players = [{"name": "player 0"}, {"name": "player 1"}]
    first = hands[0].get("players", [0, 1])
    if first not in ([0, 1], [1, 0]):
        raise _bad("a hand's players are the seats of OpenSpiel's players 0 and 1: [0, 1] or [1, 0]")
    seed = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).digest()
    spec = game.GameSpec(variant=GIN_RAMI, players=players, options=options, seed=seed, rules=rules,
                         decks=[p.deck() for p in parsed], first_dealer=first[1], imported_from=IMPORTED_FROM)
    try:
        log = game.start(spec)
    except RulesError as err:
        raise invalid("openspiel_rules_differ", f"ginbox cannot create the game: {err.message}") from None
    check = parameters_of(log[0])
    if {k: check[k] for k in ("gin_bonus", "undercut_bonus", "oklahoma")} != \
            {k: params[k] for k in ("gin_bonus", "undercut_bonus", "oklahoma")} or \
            (not params["oklahoma"] and check["knock_card"] != params["knock_card"]):
        raise _bad(f"the record's parameters {params} are not those of its ginbox options ({check})")
    state = game.replay(log)
    for p, h in zip(parsed, hands):
        dealt = state.dealer, state.non_dealer
        if "players" in h and h["players"] != [dealt[1], dealt[0]]:
            raise _bad(f"hand {p.no}: ginbox's rules deal it with seat {dealt[1]} first (OpenSpiel's player 0), "
                       f"not as the record's players {h['players']!r}")
        for at, player, command in p.moves:
            seat = state.non_dealer if player == 0 else state.dealer
            try:
                state, new = game.apply(state, seat, command)
            except RulesError as err:
                raise invalid("openspiel_move_not_in_ginbox",
                              f"hand {p.no}, action {at}: ginbox's rules refuse it: {err.message}") from None
            log += new
            scored = next((e for e in new if type(e) is events.HandScored), None)
            if scored is not None and notes is not None:
                notes += _score_note(p, scored, params, [dealt[1], dealt[0]])
    log += _end(state, section)
    return log


def _score_note(p: _Parsed, scored: events.HandScored, params: dict, seats: list) -> list[str]:
    """A line when ginbox scores a hand otherwise than OpenSpiel did (a tie; a defender who kept more deadwood)."""
    got = returns(p.knocker, p.knocker_deadwood, p.defender_deadwood, params)
    winner = seats.index(scored.winner)
    if got[winner] == scored.points:
        return []
    return [f"hand {p.no}: OpenSpiel returns {got}; ginbox scores {scored.points} to seat {scored.winner} (the "
            f"defender's deadwood {scored.defender_deadwood} once ginbox laid off and melded for the least, "
            f"{p.defender_deadwood} in the record; a tie is an undercut in ginbox)"]


def _end(state, section: dict | None) -> list:
    """The events that end an imported game still in play: its record's resignation or abandonment, else abandoned."""
    if state.status == "over":
        return []
    end = (section or {}).get("end")
    end = end if isinstance(end, dict) else {}
    if end.get("reason") == "resigned" and type(end.get("seat")) is int and end["seat"] in (0, 1):
        command, seat = commands.RESIGN, end["seat"]
    else:
        idle = end.get("idle_s") if type(end.get("idle_s")) is int and end.get("idle_s") >= 0 else 0
        drawn = end.get("drawn_hands") if type(end.get("drawn_hands")) is int else None
        command, seat = commands.AbandonGame(idle, drawn), None
    try:
        return game.decide(state, seat, command)
    except RulesError:
        return game.decide(state, None, commands.AbandonGame(0))


def export_lines(log: list) -> list[str]:
    """The log as GET /games/{id}/export writes it, one JSON line an event (no time: every ts is 0)."""
    return [json.dumps({**events.encode(e), "version": n, "ts": 0}, sort_keys=True, separators=(",", ":"),
                       ensure_ascii=False) + "\n" for n, e in enumerate(log, start=1)]
