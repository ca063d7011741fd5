"""The job that plays a board game whole keeps the game's state between turns: Redis's MONITOR
shows, between two of its appends, one read of the game's log (the records after the state it
holds) and nothing else of the game's or the arena's keys. The state it keeps, extended by the
log's new records, is the state read afresh from the log at every version."""

from __future__ import annotations

import pytest

from service.rules import duplicate as D
from service.rules.state import state_to_dict
from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)
from support.redis_monitor import CommandLog, with_key_prefix
from workers import arena_jobs, jobs


@pytest.fixture
def settings(redis_url, key_prefix):
    # no snapshot written while the game is played, so that every gap between two appends is a turn's
    return arena_settings(redis_url, key_prefix, snapshot_every=100_000)


def _board_game(client) -> str:
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                         "boards": 1, "rated": False})
    assert made.status_code == 201, made.get_data(as_text=True)
    return D.game_id_for(made.get_json()["match_id"], 0, 0)


def test_a_turn_of_a_board_game_reads_the_log_once_beside_its_append(client, ctx, redis_url, key_prefix):
    game_id = _board_game(client)
    start = ctx.store.version(game_id)
    stream = f"{key_prefix}:{{{game_id}}}:stream"
    with CommandLog(redis_url) as log:
        log.read()  # the match's creation
        outcome = arena_jobs.play_board_game(game_id, start)
        sent = with_key_prefix(log.read(), key_prefix)
    assert ctx.repository.load_state(game_id).status == "over", outcome
    turns = int(outcome.split(" after ")[1].split()[0])
    end = ctx.store.version(game_id)
    assert turns >= 10 and end > start, outcome

    # the appends: the script that names the game's stream (the one that keeps the final snapshot
    # names its meta and snapshots only)
    appends = [i for i, c in enumerate(sent) if c.upper().startswith("EVALSHA") and f" {stream} " in f"{c} "]
    assert len(appends) == turns, sent
    for before, after in zip(appends, appends[1:]):
        gap = sent[before + 1:after]
        marks = [c for c in gap if c.upper().startswith("ZADD")]  # the wait marked fresh, at most once a second
        between = [c for c in gap if c not in marks]
        assert len(between) == 1 and between[0].upper().startswith(f"XRANGE {stream} ".upper()), gap
        assert all(" XX " in f" {c.upper()} " for c in marks), gap  # a mark never starts a wait


def test_the_state_kept_and_extended_is_the_state_read_from_the_log(client, ctx):
    game_id = _board_game(client)
    start = ctx.store.version(game_id)
    held = jobs.load_at(ctx, game_id, start)
    arena_jobs.play_board_game(game_id, start)
    end = ctx.store.version(game_id)
    records = ctx.store.load(game_id)
    assert end > start + 10
    for version in range(start + 1, end + 1):
        held = held.extend([r for r in records if r.version == version])
        # read afresh: the state at this version, the hand in play from its deal, the state before it
        deal = max(r.version for r in records if r.version <= version and r.event.TYPE == "hand_dealt")
        assert state_to_dict(held.state) == state_to_dict(ctx.repository.load_state(game_id, upto=version)), version
        assert [r.version for r in held.records] == list(range(deal, version + 1)), version
        assert state_to_dict(held.base) == state_to_dict(ctx.repository.load_state(game_id, upto=deal - 1)), version
