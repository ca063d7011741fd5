"""The job that plays a board game whole keeps the game's state between its appends: Redis's
MONITOR shows, between two of them, one read of the game's log (the records after the state it
holds) and nothing else of the game's or the arena's keys. Quick bots' turns go in one append per
hand (workers/batches.py). The state it keeps, extended by the log's new records, is the state read
afresh from the log at every version."""

from __future__ import annotations

import pytest

from service.rules import duplicate as D
from service.rules.state import state_to_dict
from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)
from support.redis_monitor import CommandLog, with_key_prefix
from workers import arena_jobs, batches, jobs


@pytest.fixture
def settings(redis_url, key_prefix):
    # no snapshot written while the game is played, so that every gap between two appends is a turn's
    return arena_settings(redis_url, key_prefix, snapshot_every=100_000)


def _board_game(client) -> str:
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                         "boards": 1, "rated": False})
    assert made.status_code == 201, made.get_data(as_text=True)
    return D.game_id_for(made.get_json()["match_id"], 0, 0)


def _played(client, ctx, redis_url, key_prefix) -> tuple[str, int, list[str], list[int]]:
    """Play a board game with the job; its id, turns, the commands sent and where its appends are."""
    game_id = _board_game(client)
    start = ctx.store.version(game_id)
    stream = f"{key_prefix}:{{{game_id}}}:stream"
    with CommandLog(redis_url) as log:
        log.read()  # the match's creation
        outcome = arena_jobs.play_board_game(game_id, start)
        sent = with_key_prefix(log.read(), key_prefix)
    assert ctx.repository.load_state(game_id).status == "over", outcome
    turns = int(outcome.split(" after ")[1].split()[0])
    # a hand may end after a few turns (a quick knock): enough for two appends of three turns or less
    assert turns >= 4 and ctx.store.version(game_id) > start, outcome
    # the appends: the script that names the game's stream (the one that keeps the final snapshot
    # names its meta and snapshots only)
    appends = [i for i, c in enumerate(sent) if c.upper().startswith("EVALSHA") and f" {stream} " in f"{c} "]
    return stream, turns, sent, appends


def test_a_board_game_of_quick_bots_is_one_append(client, ctx, redis_url, key_prefix):
    _, _, sent, appends = _played(client, ctx, redis_url, key_prefix)
    # a board is one hand, and basic decides its every turn well within a batch's time
    assert len(appends) == 1, sent


def test_between_two_appends_the_job_reads_the_log_once(client, ctx, redis_url, key_prefix, monkeypatch):
    monkeypatch.setattr(batches, "BATCH_TURNS", 3)  # several appends in one hand
    stream, turns, sent, appends = _played(client, ctx, redis_url, key_prefix)
    assert len(appends) >= max(2, turns // 3), sent
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
    assert end > start + 3  # a hand may end after a few turns
    for version in range(start + 1, end + 1):
        held = held.extend([r for r in records if r.version == version])
        # read afresh: the state at this version, the hand in play from its deal, the state before it
        deal = max(r.version for r in records if r.version <= version and r.event.TYPE == "hand_dealt")
        assert state_to_dict(held.state) == state_to_dict(ctx.repository.load_state(game_id, upto=version)), version
        assert [r.version for r in held.records] == list(range(deal, version + 1)), version
        assert state_to_dict(held.base) == state_to_dict(ctx.repository.load_state(game_id, upto=deal - 1)), version
