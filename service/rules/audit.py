"""The audit of a game's log against its revealed seed.

Implements the check RULES.md §1 (The deal) and §2 (Roles) promise: the seed matches the
commitment published at creation, every deal and cut the log says came from the seed did
(fairness module), and the whole log is what the rules produce, command by command, to the
recorded final scores (of a game won, resigned or abandoned: Extensions).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from . import commands, events, game
from .errors import RulesError
from .fairness import commitment, cut_cards, deck_for_hand


def _check(checks: list, name: str, ok: bool, detail: str) -> bool:
    checks.append({"name": name, "ok": bool(ok), "detail": detail})
    return bool(ok)


def _command_for(event: Any):
    """The command that produced a log group starting with ``event``: (actor, command) or None."""
    t = type(event)
    if t is events.SeatClaimed:
        return None, commands.ClaimSeat(event.seat, dict(event.player))
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
        return None, commands.AbandonGame(event.idle_s)
    return None


def _as_recorded(logged: Any, produced: Any) -> Any:
    """``produced`` as the log could hold it: an event upcast from an older version is compared
    on the fields that version recorded (the others are unknown in the log, not wrong)."""
    if type(logged) is events.HandScored and type(produced) is events.HandScored and logged.upcast:
        return dataclasses.replace(produced, **{name: None for name in events.HandScored.ADDED_IN_V2})
    return produced


def verify(log_events: Iterable[Any], seed: bytes | str) -> dict:
    """Audit a game's log against its revealed seed: {"ok": bool, "checks": [{name, ok, detail}]}."""
    checks: list[dict] = []
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
        f"randomly_dealt={created.randomly_dealt}; explicit decks/roles/dealer given: {explicit}",
    )

    decks = created.decks or ()
    for e in log:
        if type(e) is events.HandDealt:
            if e.hand_no <= len(decks):
                ok = e.source == "explicit" and tuple(e.deck) == tuple(decks[e.hand_no - 1])
                _check(checks, f"deal_{e.hand_no}", ok, "the explicit deck given at creation")
            else:
                ok = e.source == "seed" and list(e.deck) == deck_for_hand(seed, e.hand_no)
                _check(checks, f"deal_{e.hand_no}", ok, "deck_for_hand(seed, hand_no)")
        elif type(e) is events.CardsCut:
            ok = list(e.cards) == cut_cards(seed, e.round, len(e.seats))
            _check(checks, f"cut_{e.round}", ok, "cut_cards(seed, round, players cutting)")

    # Re-decide the log: the start events from the creation spec, then each group of events
    # from the command that must have produced it.
    try:
        spec = game.GameSpec(
            variant=created.variant,
            players=list(created.players),
            options=dict(created.options),
            seed=seed,
            decks=[list(d) for d in created.decks] if created.decks else None,
            roles=dict(created.roles) if created.roles is not None else None,
            first_dealer=created.first_dealer,
            invites=dict(created.invites) if created.invites else None,
        )
        expected = game.start(spec)
        i = len(expected)
        if list(log[:i]) != expected:
            raise ValueError("the start events differ from those of the creation spec")
        state = game.replay(expected)
        while i < len(log):
            found = _command_for(log[i])
            if found is None:
                raise ValueError(f"event {i} ({type(log[i]).TYPE}) follows no command")
            actor, command = found
            produced = game.decide(state, actor, command)
            recorded = list(log[i : i + len(produced)])
            if recorded != [_as_recorded(r, p) for r, p in zip(recorded, produced)] or len(recorded) != len(produced):
                raise ValueError(f"events from {i} differ from what {command!r} produces")
            for e in produced:
                state = game.evolve(state, e)
            i += len(produced)
        detail = f"{len(log)} events replayed; scores {state.scores}"
        ok = True
        ended = [e for e in log if type(e) in (events.GameEnded, events.GameResigned, events.GameAbandoned)]
        if ended:
            # an abandoned game has no winner
            ok = list(ended[-1].scores) == state.scores and getattr(ended[-1], "winner", None) == state.winner
            detail += f"; recorded final scores {list(ended[-1].scores)}"
        _check(checks, "replay", ok, detail)
    except (RulesError, ValueError) as err:
        _check(checks, "replay", False, str(getattr(err, "message", err)))
    return {"ok": all(c["ok"] for c in checks), "checks": checks}
