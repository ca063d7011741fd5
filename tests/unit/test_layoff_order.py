"""Lay-offs are listed in the order laid (openapi ``HandResult.layoffs``; RULES.md §1 "Laying off":
each laid-off card extends the run for the next), and an audit takes a log that lists the same
lay-offs in another order (servers before this one listed them card by card).

The hand-worked scenario comes from an explicit deck; the property check plays seeded games of
``basic`` against itself and lays off every result's cards one at a time with the test suite's own
card maths, not the engine's.
"""

from __future__ import annotations

import dataclasses
import random

from service.rules import events, game as G, views
from service.rules.audit import verify
from support.cardmath import is_meld
from support.rules import deck_of, new_table
from workers.arena import Table
from workers.policies import make_policy


def test_cards_below_a_run_are_laid_nearest_first_rules_1():
    # knocker (seat 1, non-dealer): AC 2C 3C | 7C 7D 7H | 4S 5S 6S, 9H; draws 2D, discards 9H: K = 2.
    # defender: 2S 3S 8H 8D KC QD JH 4H 3D TC -- no meld of its own; 3S extends 4S-6S and then
    # 2S extends 3S-6S (2S alone does not touch 4S-6S): D = 8 + 8 + 10 + 10 + 10 + 4 + 3 + 10 = 63,
    # and the knocker scores 63 - 2 = 61.
    pattern = ("AC 2C 3C 7C 7D 7H 4S 5S 6S 9H", "2S 3S 8H 8D KC QD JH 4H 3D TC", "KS", "2D")
    t = new_table("gin-rami", decks=[deck_of(pattern)], first_dealer=0)
    d = t.state.dealer
    t.pass_(1 - d)
    t.pass_(d)
    t.stock(1 - d)
    scored = t.knock(1 - d, "9H")[1]
    run = next(i for i, meld in enumerate(scored.knocker_melds) if "4S" in meld)
    assert scored.layoffs == (("3S", run), ("2S", run))
    assert (scored.defender_deadwood, scored.points) == (63, 61)


def _seed(n: int) -> bytes:
    return f"layoff-order-{n}".encode().ljust(32, b".")


def _seeded_games(count: int) -> list[list]:
    """Logs of whole seeded gin rami games (decks from the seed, so an audit can check them)."""
    logs = []
    basic = make_policy("basic")
    for n in range(count):
        spec = G.GameSpec(variant="gin-rami", players=[{"name": "a", "bot": "basic"}, {"name": "b", "bot": "basic"}],
                          options={"target_score": 60}, seed=_seed(n))
        table = Table.start(spec)
        rng = random.Random(n)
        while table.state.status == "playing":
            seat = table.state.to_act[0]
            table.play(seat, basic.choose(views.view_state(table.state, seat), rng, table.seen[seat]))
        logs.append(table.log)
    return logs


def _lays_off_in_order(scored) -> bool:
    melds = [set(m) for m in scored.knocker_melds]
    for card, k in scored.layoffs:
        if not is_meld(melds[k] | {card}):
            return False
        melds[k].add(card)
    return True


def test_every_results_layoffs_can_be_laid_one_at_a_time_in_the_order_listed():
    scored = [e for log in _seeded_games(12) for e in log if type(e) is events.HandScored]
    with_layoffs = [s for s in scored if len(s.layoffs) >= 2]
    assert with_layoffs, "the seeded games should have hands with two lay-offs or more"
    assert all(_lays_off_in_order(s) for s in scored)


def test_an_audit_takes_the_same_layoffs_in_another_order_but_not_other_layoffs():
    n, log = next((n, log) for n, log in enumerate(_seeded_games(12))
                  if any(type(e) is events.HandScored and len(e.layoffs) >= 2 for e in log))
    i = next(i for i, e in enumerate(log) if type(e) is events.HandScored and len(e.layoffs) >= 2)
    assert verify(log, _seed(n))["ok"]

    reordered = list(log)
    reordered[i] = dataclasses.replace(log[i], layoffs=tuple(reversed(log[i].layoffs)))
    assert verify(reordered, _seed(n))["ok"]
    # and the state such a log replays to lists them in the order laid, as today's does
    assert G.replay(reordered) == G.replay(log)

    (card, k), *rest = log[i].layoffs
    other = list(log)
    other[i] = dataclasses.replace(log[i], layoffs=tuple(rest))
    assert not verify(other, _seed(n))["ok"]
