"""Games scripted move by move from explicit decks, for the decision analysis tests."""

from __future__ import annotations

from service.analysis.engine import analyse_position
from service.analysis.positions import positions
from service.rules import game as G
from service.rules.commands import DRAW_STOCK, PASS_UPCARD, Discard

from support.decks import ALL_CODES, build_deck

#: seat 0 is the non-dealer (the three-hand captain), seat 1 the dealer (the box)
N, D = 0, 1


def start(deck: list[str], variant: str = "gin-rami", options: dict | None = None):
    """(state, log) of a game dealt from ``deck``, seat 0 the non-dealer."""
    if variant == "gin-rami":
        spec = G.GameSpec(variant=variant, players=[{"name": "ann"}, {"name": "bob"}], options=options or {},
                          seed=bytes(32), decks=[deck], first_dealer=D)
    else:
        spec = G.GameSpec(variant=variant, players=[{"name": "ann"}, {"name": "bob"}, {"name": "cid"}],
                          options=options or {}, seed=bytes(32), decks=[deck],
                          roles={"captain": N, "box": D, "advisor": 2})
    state, log = None, []
    for e in G.start(spec):
        state = G.evolve(state, e)
        log.append(e)
    return state, log


def play(state, log: list, moves: list) -> tuple:
    """(state, log) after ``moves`` [(seat, command)], each checked by the engine."""
    for seat, command in moves:
        state, events = G.apply(state, seat, command)
        log = log + list(events)
    return state, log


def last_decision(log: list, samples: int = 16, seed: int = 1) -> list[dict]:
    """The analysis entries of the log's last decision (a knock also has its arrangement's)."""
    p = positions(log)[-1]
    return analyse_position(p, samples, seed)


def wall_deal(n_hand: list[str], n_last_draw: str, pool: list[str]) -> list[str]:
    """A deck after which both seats pass the upcard and swap stock cards until the non-dealer's draw
    leaves two cards in the stock (``wall_moves``): the dealer holds ten cards of the twelve of
    ``pool`` and the stock ends with the other two, so these twelve are all the non-dealer never sees."""
    assert len(pool) == 12 and len(n_hand) == 10
    seen = [c for c in ALL_CODES if c not in set(pool) | set(n_hand) | {n_last_draw}]
    # the upcard, then the 28 cards both seats draw and throw back, then the non-dealer's last draw
    upcard, thrown = seen[0], seen[1:]
    assert len(thrown) == 28
    return build_deck(n_hand, pool[:10], upcard, thrown + [n_last_draw] + pool[10:])


def wall_moves(deck: list[str]) -> list:
    """Both pass the upcard; then each draws from the stock and throws back the card it drew, until
    the non-dealer has drawn the 29th card (two left in the stock)."""
    moves = [(N, PASS_UPCARD), (D, PASS_UPCARD)]
    stock = deck[21:]
    for i in range(28):
        seat = N if i % 2 == 0 else D
        moves += [(seat, DRAW_STOCK), (seat, Discard(stock[i]))]
    return moves + [(N, DRAW_STOCK)]
