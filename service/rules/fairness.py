"""Randomness as data: the seed's commitment, the deck of every hand, the cuts, and verification.

Implements the shuffle of RULES.md §1 "Deal" and the random cuts of §2 "Roles" / §3 (first
dealer) as pure functions of a secret seed (bytes) that the caller generates. The engine
publishes ``commitment(seed)`` when the game is created and reveals the seed when it ends, so
anyone can check afterwards that every deal and every cut came from the committed seed.

The algorithm, precisely (so that another language can re-implement it):

1. **Byte stream.** For a *label* (``b"ginbox/deck/"`` for the deck of a hand,
   ``b"ginbox/cut/"`` for a round of cutting) and a *number* (the hand number, 1-based, or the
   cut round, 0-based), block ``k`` (k = 0, 1, 2, ...) is
   ``HMAC-SHA256(key=seed, msg=label + number.to_bytes(8, "big") + k.to_bytes(8, "big"))``.
   The stream is block 0, then block 1, ... read one byte at a time, in order.
2. **Uniform integer in [0, n)** for 2 <= n <= 52: read the next byte ``b`` (0..255). If
   ``b >= 256 - (256 % n)`` reject it and read the next byte; otherwise the result is ``b % n``.
3. **Fisher-Yates.** Start from the 52 codes in card-index order, ``AC 2C .. KC AD .. KD AH ..
   KH AS .. KS``. For ``i`` from 51 down to 1: ``j`` = uniform integer in [0, i + 1); swap the
   cards at positions ``i`` and ``j``. The resulting list is the deck, **top card first**.
4. **Deck of hand n** = the shuffle with label ``b"ginbox/deck/"`` and number ``n``. It is
   dealt as §1 says: cards 1-20 alternately to the non-dealer and the dealer (non-dealer
   first), card 21 is the upcard, cards 22-52 are the stock, card 22 on top.
5. **Cuts.** Cut round ``r`` (rounds numbered 0, 1, 2 ... in the order they happen in a game)
   is the shuffle with label ``b"ginbox/cut/"`` and number ``r``; the players cutting in that
   round, in increasing seat order, cut its cards 1, 2, 3 (top first). Cut cards are compared
   by rank only, ace low and king high. Round 0 is cut by every seat. When players tie on
   rank, the tied players cut again in a new round, tied groups resolved from the highest rank
   down (each new round takes the next number). Three-hand: highest = box, middle = captain,
   lowest = advisor. Gin-rami: the lower card deals first.

``verify(events, seed)`` checks the commitment, re-derives every deal and cut that the log
says came from the seed, and re-decides the whole log command by command to the recorded
final scores.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, Iterable, Iterator

from . import cards

DECK_LABEL = b"ginbox/deck/"
CUT_LABEL = b"ginbox/cut/"


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, as lowercase hex."""
    return hashlib.sha256(bytes(seed)).hexdigest()


def _byte_stream(seed: bytes, label: bytes, number: int) -> Iterator[int]:
    prefix = label + number.to_bytes(8, "big")
    k = 0
    while True:
        yield from hmac.new(bytes(seed), prefix + k.to_bytes(8, "big"), hashlib.sha256).digest()
        k += 1


def _shuffle(seed: bytes, label: bytes, number: int) -> list[str]:
    stream = _byte_stream(seed, label, number)
    deck = list(cards.DECK)
    for i in range(51, 0, -1):
        n = i + 1
        limit = 256 - (256 % n)
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_for_hand(seed: bytes, hand_no: int) -> list[str]:
    """The 52 codes of hand ``hand_no`` (1-based), top card first, derived from the seed."""
    return _shuffle(seed, DECK_LABEL, hand_no)


def cut_cards(seed: bytes, round_no: int, count: int) -> list[str]:
    """The cards cut in round ``round_no`` (0-based) by ``count`` players, in seat order."""
    return _shuffle(seed, CUT_LABEL, round_no)[:count]


def _check(checks: list, name: str, ok: bool, detail: str) -> bool:
    checks.append({"name": name, "ok": bool(ok), "detail": detail})
    return bool(ok)


def _command_for(event: Any):
    """The command that produced a log group starting with ``event``: (actor, command) or None."""
    from . import commands as c
    from . import events as e

    t = type(event)
    if t is e.SeatClaimed:
        return None, c.ClaimSeat(event.seat, dict(event.player))
    if t is e.UpcardTaken:
        return event.seat, c.TAKE_UPCARD
    if t is e.UpcardPassed:
        return event.seat, c.PASS_UPCARD
    if t is e.CardDrawn:
        return event.seat, (c.DRAW_STOCK if event.source == "stock" else c.DRAW_DISCARD)
    if t is e.CardDiscarded:
        return event.seat, c.Discard(event.card)
    if t is e.Knocked:
        return event.seat, c.Knock(event.discard, [list(m) for m in event.melds])
    if t is e.AdviceGiven:
        return event.seat, c.Advise(event.text)
    return None


def verify(events: Iterable[Any], seed: bytes | str) -> dict:
    """Audit a game's log against its revealed seed: {"ok": bool, "checks": [{name, ok, detail}]}."""
    from . import events as ev
    from . import game
    from .errors import RulesError

    checks: list[dict] = []
    log = [ev.decode(x) if isinstance(x, dict) else x for x in events]
    try:
        seed = bytes.fromhex(seed) if isinstance(seed, str) else bytes(seed)
    except ValueError:
        _check(checks, "seed", False, "the seed is neither bytes nor hex")
        return {"ok": False, "checks": checks}
    if not log or type(log[0]) is not ev.GameCreated:
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
        if type(e) is ev.HandDealt:
            if e.hand_no <= len(decks):
                ok = e.source == "explicit" and tuple(e.deck) == tuple(decks[e.hand_no - 1])
                _check(checks, f"deal_{e.hand_no}", ok, "the explicit deck given at creation")
            else:
                ok = e.source == "seed" and list(e.deck) == deck_for_hand(seed, e.hand_no)
                _check(checks, f"deal_{e.hand_no}", ok, "deck_for_hand(seed, hand_no)")
        elif type(e) is ev.CardsCut:
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
            if list(log[i : i + len(produced)]) != produced:
                raise ValueError(f"events from {i} differ from what {command!r} produces")
            for e in produced:
                state = game.evolve(state, e)
            i += len(produced)
        detail = f"{len(log)} events replayed; scores {state.scores}"
        ok = True
        ended = [e for e in log if type(e) is ev.GameEnded]
        if ended:
            ok = list(ended[-1].scores) == state.scores and ended[-1].winner == state.winner
            detail += f"; recorded final scores {list(ended[-1].scores)}"
        _check(checks, "replay", ok, detail)
    except (RulesError, ValueError) as err:
        _check(checks, "replay", False, str(getattr(err, "message", err)))
    return {"ok": all(c["ok"] for c in checks), "checks": checks}
