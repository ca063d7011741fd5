"""Quick bots' turns appended together (workers/batches.py) are the turns the turn job would play.

After a board game played by the job that batches its turns, the log is walked move by move: at
each version, the seat's policy given the view and events the turn job would read there (through
jobs.load_at, from the log) chooses a move, and the rules' events for it are exactly the log's next
events. A batch that another writer overtook appends nothing.
"""

from __future__ import annotations

import pytest

from service.rules import duplicate as D
from service.rules import game
from service.rules.actors import next_bot_action
from service.store.errors import ConcurrencyError
from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)
from workers import arena_jobs, batches, jobs


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix)


def _board_game(client, policies: list[str]) -> str:
    made = client.post("/matches", json={"variant": "gin-rami", "participants": policies, "boards": 1, "rated": False})
    assert made.status_code == 201, made.get_data(as_text=True)
    return D.game_id_for(made.get_json()["match_id"], 0, 0)


def _loaded_at(ctx, game_id: str, version: int) -> jobs.Loaded:
    """What jobs.load_at reads of the game when it stands at ``version``: its state, the hand in
    play's records and the state before them, read from the log up to that version."""
    records = ctx.store.load(game_id, upto=version)
    deal = max(i for i, r in enumerate(records) if r.event.TYPE == "hand_dealt")
    hand = records[deal:]
    base = ctx.repository.load_state(game_id, upto=hand[0].version - 1)
    state = base
    for r in hand:
        state = game.evolve(state, r.event)
    assert state.version == version
    return jobs.Loaded(state=state, records=hand, base=base)


@pytest.mark.parametrize("policies", [["basic", "basic"], ["simple", "basic"]])
def test_every_move_of_a_batched_board_game_is_the_one_the_turn_job_plays(client, ctx, policies):
    game_id = _board_game(client, policies)
    start = ctx.store.version(game_id)
    arena_jobs.play_board_game(game_id, start)
    records = ctx.store.load(game_id)
    assert ctx.repository.load_state(game_id).status == "over"

    version, moves = start, 0
    while True:
        held = _loaded_at(ctx, game_id, version)
        state = held.state
        action = next_bot_action(state, False)
        if state.status != "playing" or action is None:
            break
        seat = action[1]
        command = jobs.choose(held, game_id, seat, jobs.policy_for(state.players[seat], ctx.settings))
        decided = game.decide(state, seat, command)
        logged = [r.event for r in records if version < r.version <= version + len(decided)]
        assert logged == decided, (version, command)
        version += len(decided)
        moves += 1
    assert version == ctx.store.version(game_id) and moves >= 4  # a hand may end after a few turns


def test_a_batch_overtaken_by_another_writer_appends_nothing(client, ctx):
    game_id = _board_game(client, ["basic", "basic"])
    start = ctx.store.version(game_id)
    held = jobs.load_at(ctx, game_id, start)
    moves = batches.decide_turns(ctx, game_id, held)
    assert len(moves) > 1
    # another writer plays the first turn meanwhile
    seat, command, _ = moves[0]
    ctx.games.play_for_seat(game_id, seat, command, expected_versions={start})
    after_other = ctx.store.version(game_id)
    assert batches.append_turns(ctx, game_id, held, moves) == "moved_on"
    assert ctx.store.version(game_id) == after_other
    with pytest.raises(ConcurrencyError):
        ctx.games.play_several_for_seats(game_id, held.state, [(s, c) for s, c, _ in moves])
    assert ctx.store.version(game_id) == after_other
