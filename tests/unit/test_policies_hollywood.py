"""The built-in bots play Hollywood games (RULES.md §5) to their end: the three games change
nothing a bot decides on, and a match lasts until all three are over."""

from __future__ import annotations

import random

import pytest

from service.rules import game as G
from service.rules import views
from workers.policies import make_policy

#: the most moves one game may take here: far more than a Hollywood match to 25 needs
MOVE_CAP = 20_000


@pytest.mark.parametrize("name", ["random", "simple", "basic", "advanced", "expert"])
def test_each_bot_plays_a_hollywood_game_to_its_end_with_legal_moves_only(name):
    # the expert with a small budget per move, so that a whole game stays short
    policies = [make_policy(name, budget_s=0.005) if name == "expert" else make_policy(name), make_policy("basic")]
    state = G.replay(G.start(G.GameSpec(variant="gin-rami", players=[{"name": name}, {"name": "basic"}],
                                        seed=f"hollywood-{name}".encode(), rules="hollywood",
                                        options={"target_score": 25})))
    rng = random.Random(name)
    for _ in range(MOVE_CAP):
        if state.status != "playing":
            break
        seat = state.to_act[0]
        move = policies[seat].choose(views.view_state(state, seat), rng)
        state, _ = G.apply(state, seat, move)  # refused (RulesError) if the bot's move were illegal
    assert state.status == "over" and state.end["reason"] == "target_score"
    sheet = views.view_state(state, None)["hollywood"]
    assert all(g["over"] for g in sheet["games"])
    assert state.scores == [sum(g["scores"][seat] for g in sheet["games"]) for seat in range(2)]
