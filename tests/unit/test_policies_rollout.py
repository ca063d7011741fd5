"""The expert's fast hand simulator agrees with the engine.

Given the true hidden cards, ``rollout.finish_hand`` must give exactly the points that the
engine gives when two basic policies play the hand out (RULES.md §1 turns, knocking, lay-offs,
drawn hand; §3 scoring): the simulator is the engine's rules and the basic habits on card masks.
"""

from __future__ import annotations

import random

import pytest

from service.rules import cards
from service.rules import game as G
from service.rules import layoffs, melds
from service.rules import views
from workers.arena import Table
from workers.policies import BasicPolicy
from workers.policies.rollout import finish_hand, finish_hand_in_python

def hand_points_for(result: dict, seat: int) -> int:
    if result["outcome"] == "drawn":
        return 0
    return result["points"] if result["winner"] == seat else -result["points"]


@pytest.mark.parametrize("finish", [finish_hand, finish_hand_in_python], ids=["as-installed", "pure-python"])
@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_the_simulator_plays_a_hand_out_exactly_as_the_engine_does_with_basic_players(variant, finish):
    basic = BasicPolicy()
    compared = 0
    for i in range(40):
        rng = random.Random(i)
        deck = list(cards.DECK)
        rng.shuffle(deck)
        if variant == "gin-rami":
            spec = G.GameSpec(variant, [{"name": "a"}, {"name": "b"}], options={"target_score": 1},
                              seed=b"sim", decks=[deck], first_dealer=i % 2)
        else:
            spec = G.GameSpec(variant, [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                              options={"target_score": 1}, seed=b"sim", decks=[deck],
                              roles={"box": 0, "captain": 1, "advisor": 2})
        table = Table.start(spec)
        # play the upcard offer and a few turns with the basic policy, then branch off
        stop_after = rng.randrange(0, 12)
        moves = 0
        while table.state.status == "playing" and table.state.hand_no == 1:
            state = table.state
            seat = state.to_act[0]
            if state.phase == "draw" and moves >= stop_after:
                break
            table.play(seat, basic.choose(views.view_state(state, seat), rng))
            moves += 1
        state = table.state
        if state.status != "playing" or state.hand_no != 1:
            continue
        me = state.to_act[0]
        other = state.non_dealer if me == state.dealer else state.dealer
        # the true hidden cards, in the simulator's terms (stock and pile: top last)
        hands = [state.hands[me], state.hands[other]]
        pile = list(state.pile)
        stock = list(reversed(state.stock))
        simulated = finish(hands, pile, stock, 0, state.options)
        # the engine, with two basic players, from the same position
        while table.state.status == "playing" and table.state.hand_no == 1:
            seat = table.state.to_act[0]
            table.play(seat, basic.choose(views.view_state(table.state, seat), rng))
        assert simulated == hand_points_for(table.state.results[0], me), f"deal {i}"
        compared += 1
    assert compared >= 30


def test_the_experts_knock_maths_is_the_engines_scoring_maths():
    """§1 Knocking, Laying off: every least-deadwood arrangement the expert weighs leaves the least
    deadwood, and its quick defender deadwood is what the engine's lay-off resolution leaves."""
    rng = random.Random(7)
    for _ in range(300):
        dealt = rng.sample(range(52), 20)
        knocker, defender = cards.mask(dealt[:10]), cards.mask(dealt[10:])
        arrangements = melds.arrangements_mask(knocker)
        assert min(a.deadwood for a in arrangements) == melds.deadwood_mask(knocker)
        best = melds.best_arrangement_mask(knocker)
        assert best.melds in {tuple(sorted(a.melds)) for a in arrangements}
        for arrangement in arrangements:
            assert layoffs.defender_deadwood_mask(defender, arrangement.melds) == (
                layoffs.resolve_layoffs(defender, arrangement.melds).deadwood
            )
