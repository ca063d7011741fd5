"""The decisions of a game's log: for each, what its seat knew then, its legal moves and its choice.

A decision is an event a seat's move caused: taking or passing the upcard, a draw, a discard, a
knock. What the seat knew is read from its own view at the version before the event and from the
events it was shown (redacted as the engine redacts them for it), never from the hidden state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from service.rules import cards, events as ev, game, rulesets, views
from service.rules.commands import Discard, DrawDiscard, DrawStock, Knock, PassUpcard, TakeUpcard
from service.rules.melds import deadwood_mask
from service.rules.state import DISCARD
from workers.policies.knowledge import read

from .playouts import Situation, melds_key

#: the decision events and the seat field that names who made them
DECISION_EVENTS = (ev.UpcardTaken, ev.UpcardPassed, ev.CardDrawn, ev.CardDiscarded, ev.Knocked)


@dataclass
class Position:
    """One decision: where it stands in the log, who took it, what they knew, what they chose."""

    version: int           # the version of the event the move caused
    hand_no: int
    seat: int
    role: str | None       # "box" or "captain" in three-hand, else None
    kind: str              # upcard, draw, discard, knock or gin
    situation: Situation
    moves: list            # the legal moves as move tuples, in the engine's order
    chosen: tuple
    # a knock's own arrangement: (melds key, deadwood, kind) as the log holds it
    knock: tuple | None = None
    timed_out: bool = False
    advice: list = field(default_factory=list)


def move_of(command) -> tuple:
    """The move tuple of a legal command: ("take",), ("discard", card index), ("knock", card) ..."""
    if isinstance(command, TakeUpcard):
        return ("take",)
    if isinstance(command, PassUpcard):
        return ("pass",)
    if isinstance(command, DrawStock):
        return ("stock",)
    if isinstance(command, DrawDiscard):
        return ("pile",)
    if isinstance(command, Discard):
        return ("discard", cards.INDEX_OF[command.card])
    if isinstance(command, Knock):
        return ("big_gin",) if command.discard is None else ("knock", cards.INDEX_OF[command.discard])
    raise ValueError(f"not a move of a hand: {command!r}")


def _chosen(e) -> tuple:
    t = type(e)
    if t is ev.UpcardTaken:
        return ("take",)
    if t is ev.UpcardPassed:
        return ("pass",)
    if t is ev.CardDrawn:
        return ("stock",) if e.source == "stock" else ("pile",)
    if t is ev.CardDiscarded:
        return ("discard", cards.INDEX_OF[e.card])
    return ("big_gin",) if e.discard is None else ("knock", cards.INDEX_OF[e.discard])


def _kind(state, moves: list) -> str:
    if state.phase != DISCARD:
        return "upcard" if moves[0] == ("take",) or moves[0] == ("pass",) else "draw"
    if ("big_gin",) in moves:
        return "gin"
    hand = state.hands[state.to_act[0]]
    knocks = [m[1] for m in moves if m[0] == "knock"]
    if not knocks:
        return "discard"
    return "gin" if any(deadwood_mask(hand & ~(1 << c)) == 0 for c in knocks) else "knock"


def _role(state, seat: int) -> str | None:
    if state.box is None:
        return None
    return "box" if seat == state.box else "captain"


def positions(log: list, advice: Iterable[dict] = ()) -> list[Position]:
    """Every decision of ``log`` (decoded events, version 1 first) with more than one legal move.

    ``advice``: the export's advice entries ({"at_version", "data": {"seat", "captain", "text"}}),
    attached to the captain's decision that followed the version they were given at.
    """
    by_version: dict[int, list] = {}
    for entry in advice:
        data = entry.get("data") or {}
        if isinstance(entry.get("at_version"), int) and isinstance(data.get("text"), str):
            by_version.setdefault(entry["at_version"], []).append(data["text"])
    out: list[Position] = []
    state = None
    seen: list[list[dict]] = []
    timed_out = None
    for version, e in enumerate(log, start=1):
        t = type(e)
        if t in DECISION_EVENTS and state is not None and state.status == "playing":
            moves = [move_of(c) for c in game.legal_moves(state, e.seat)]
            if len(moves) > 1:
                out.append(_position(state, e, version, moves, seen[e.seat], timed_out == e.seat,
                                     by_version.get(version - 1, [])))
        if t is ev.AdviceGiven:
            # older logs kept advice as events: it bears on the captain's next decision
            by_version.setdefault(version, []).append(e.text)
        timed_out = e.seat if t is ev.TurnTimedOut else None
        if state is not None:
            if t is ev.HandDealt:
                seen = [[] for _ in range(state.nseats)]
            for seat, shown in enumerate(seen):
                redacted = views.view_event(e, seat, state)
                if redacted is not None:
                    shown.append(redacted)
        state = game.evolve(state, e)
        if t is ev.GameCreated:
            seen = [[] for _ in range(state.nseats)]
    return out


def _position(state, e, version: int, moves: list, seen: list, timed_out: bool, advice: list) -> Position:
    seat = e.seat
    k = read(views.view_state(state, seat), seen)
    situation = Situation(
        k=k,
        passes=state.passes,
        turns_left=state.max_turns - state.turns,
        multiplier=rulesets.hand_multiplier(state.options, state.deck),
    )
    knock = None
    if type(e) is ev.Knocked:
        knock = (melds_key([[cards.INDEX_OF[c] for c in m] for m in e.melds]), e.deadwood, e.kind)
    return Position(version=version, hand_no=state.hand_no, seat=seat, role=_role(state, seat),
                    kind=_kind(state, moves), situation=situation, moves=moves, chosen=_chosen(e),
                    knock=knock, timed_out=timed_out, advice=list(advice) if _role(state, seat) == "captain" else [])
