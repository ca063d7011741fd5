"""A game of built-in bots alone ended for its drawn hands in a row (RULES.md, Extensions: games of
bots alone that keep redealing): what the engine accepts, what it records, and that nobody forfeits."""

from __future__ import annotations

import random

import pytest

from service.rules import codec, commands, duplicate, events, game, views
from service.rules.errors import RulesError
from workers.arena import Table
from workers.policies import make_policy


def redealing(players: list[dict], drawn: int = 2) -> game.GameState:
    """A gin-rami game of hands of one turn, played by random policies until its results end with
    ``drawn`` drawn hands in a row (at a new deal)."""
    spec = game.GameSpec(variant="gin-rami", players=players, options={"max_turns_per_hand": 1}, seed=bytes(32))
    table = Table.start(spec)
    policy = make_policy("random")
    while game.drawn_hands_in_a_row(table.state) < drawn:
        assert table.state.status == "playing"
        seat = table.state.to_act[0]
        view = views.view_state(table.state, seat)
        table.play(seat, policy.choose(view, random.Random(table.state.version), table.seen[seat]))
    return table.state


BOTS = [{"name": "r0", "bot": "random"}, {"name": "r1", "bot": "random"}]


def test_a_game_of_bots_alone_ends_abandoned_with_its_drawn_hands_and_its_scores_standing():
    state = redealing(BOTS, 2)
    [ended] = game.decide(state, None, commands.AbandonGame(0, 2))
    assert isinstance(ended, events.GameAbandoned) and ended.drawn_hands == 2
    after = game.evolve(state, ended)
    assert after.status == "over" and after.winner is None
    assert after.end == {"reason": "abandoned", "resigned": None, "idle_s": 0, "drawn_hands": 2}
    assert tuple(after.scores) == tuple(state.scores)


def test_the_drawn_hands_are_on_the_wire_and_in_the_stored_form_only_when_set():
    state = redealing(BOTS, 2)
    [drawn_out] = game.decide(state, None, commands.AbandonGame(0, 2))
    [idle] = game.decide(state, None, commands.AbandonGame(3600))
    assert events.encode(drawn_out)["data"]["drawn_hands"] == 2
    assert "drawn_hands" not in events.encode(idle)["data"]  # an idle game's event is as it always was
    for e in (drawn_out, idle):
        wire = events.encode(e)
        assert codec.unpack(codec.pack(wire)) == wire
        assert events.decode(wire) == e


@pytest.mark.parametrize("claimed", [1, 3, 0])
def test_the_engine_refuses_a_count_the_results_do_not_end_with(claimed):
    state = redealing(BOTS, 2)
    with pytest.raises(RulesError) as err:
        game.decide(state, None, commands.AbandonGame(0, claimed))
    assert err.value.code == "invalid_command"


def test_a_game_with_a_person_at_the_table_is_never_ended_for_its_drawn_hands():
    state = redealing([{"name": "ann"}, {"name": "r1", "bot": "random"}], 2)
    with pytest.raises(RulesError) as err:
        game.decide(state, None, commands.AbandonGame(0, 2))
    assert err.value.code == "invalid_command"


def test_a_board_game_ended_for_its_drawn_hands_is_nobodys_forfeit_while_an_idle_one_is():
    state = redealing(BOTS, 2)
    awaited = state.to_act
    drawn_out = game.evolve(state, game.decide(state, None, commands.AbandonGame(0, 2))[0])
    idle = game.evolve(state, game.decide(state, None, commands.AbandonGame(3600))[0])
    assert duplicate.forfeiting_seats(drawn_out, awaited) == ()
    assert duplicate.board_points(drawn_out, awaited) == duplicate.seat_points(drawn_out.results, 2)
    assert duplicate.forfeiting_seats(idle, awaited) == tuple(awaited)
