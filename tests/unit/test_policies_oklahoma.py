"""The built-in bots play Oklahoma (RULES.md §5): the hand's knock limit comes from the view, not the options."""

from __future__ import annotations

import random

import pytest

from service.rules import game as G
from service.rules import views
from workers.policies import make_policy
from workers.policies.knowledge import read


def test_the_knowledge_takes_the_hands_knock_limit_from_the_view():
    # deck (top first): the upcard, card 21, is 4H: Oklahoma's limit 4
    spec = G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}], seed=b"k",
                      options={"oklahoma": True}, first_dealer=0,
                      decks=[["AC", "AD", "2C", "2D", "3C", "3D", "4C", "4D", "5C", "5D", "6C", "6D", "7C", "7D",
                              "8C", "8D", "9C", "9D", "TC", "TD", "4H"]
                             + [c for c in (r + s for s in "CDHS" for r in "A23456789TJQK")
                                if c not in {"AC", "AD", "2C", "2D", "3C", "3D", "4C", "4D", "5C", "5D", "6C", "6D",
                                             "7C", "7D", "8C", "8D", "9C", "9D", "TC", "TD", "4H"}]])
    state = G.replay(G.start(spec))
    k = read(views.view_state(state, 1))
    assert k.knock_limit == 4 and k.options["knock_limit"] == 4


@pytest.mark.parametrize("name", ["random", "basic", "advanced"])
def test_each_bot_plays_oklahoma_hands_with_legal_moves_only(name):
    policy = make_policy(name)
    played = 0
    for i in range(4):
        state = G.replay(G.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}],
                                            seed=f"oklahoma-{name}-{i}".encode(), options={"oklahoma": True})))
        rng = random.Random(i)
        while state.status == "playing" and state.hand_no == 1:
            seat = state.to_act[0]
            move = policy.choose(views.view_state(state, seat), rng)
            state, _ = G.apply(state, seat, move)  # refused if the bot knocked over the hand's limit
            played += 1
    assert played > 8
