"""A board job plays on into the games its games' ends start (a chain, service/bots/chains.py).

A match of ten boards has twenty games, and sixteen are in play at once: the end of a game starts
the next one. The job whose game ended keeps that game and plays it, instead of enqueuing it. The
jobs here run in the test process as RQ runs them (``Job.perform``), under a worker's name. The
kept game is given back to the board queue when a bot turn waits in the turn queue, or when the
chain's time is up. A worker in a chain says which game it plays, so the sweeper never takes that
game for lost while the worker lives, and enqueues it again once the worker is dead.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from rq.job import Job

from service import bots
from service.bot_metrics import WORKER_ALIVE_S, live_workers_key
from service.bots.chains import BoardChain, board_runs_key
from service.rules import duplicate as D
from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)

WORKER = "chain-test-worker"
keep = BoardChain.keep


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix)


def text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def start_match(client, boards: int = 10) -> tuple[str, list[str]]:
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                         "boards": boards, "rated": False})
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    return match_id, [D.game_id_for(match_id, b, t) for b in range(boards) for t in range(2)]


def perform_board_job(ctx, game_id: str) -> str:
    """Run the game's queued board job here, as a worker named WORKER runs it; its result."""
    board_queue = ctx.scheduler.board_queue
    job_id = board_job_id_queued(board_queue, game_id)
    board_queue.remove(job_id)
    job = Job.fetch(job_id, connection=board_queue.connection, serializer=board_queue.serializer)
    job.worker_name = WORKER
    return job.perform()


def board_job_id_queued(board_queue, game_id: str) -> str:
    runs = bots.board_job_id(game_id, 0)[:-1]
    found = [text(j) for j in board_queue.get_job_ids() if bots.is_board_run(text(j), runs)]
    assert len(found) == 1, (game_id, board_queue.get_job_ids())
    return found[0]


def queued_games(board_queue, games: list[str]) -> set[str]:
    ids = [text(j) for j in board_queue.get_job_ids()]
    return {g for g in games if any(bots.is_board_run(j, bots.board_job_id(g, 0)[:-1]) for j in ids)}


def test_a_board_job_plays_on_into_the_games_its_games_ends_start(client, ctx, redis_conn, settings):
    _, games = start_match(client)
    board_queue = ctx.scheduler.board_queue
    # sixteen games in play, each with its job; the last four are not made yet
    assert queued_games(board_queue, games) == set(games[:16])
    result = perform_board_job(ctx, games[0])
    # game 0's end started game 16, which the job played; its end started 17, and so on
    assert result.endswith("; then 4 more game(s) of the chain"), result
    for game_id in [games[0], *games[16:]]:
        assert ctx.games.state(game_id).status == "over", game_id
    for game_id in games[1:16]:
        assert ctx.games.state(game_id).status == "playing", game_id
    # the games it played were never enqueued; the others' jobs still wait
    assert queued_games(board_queue, games) == set(games[1:16])
    # nothing is left of the chain: no game said to be played by the worker, none waiting on a bot
    assert redis_conn.hlen(board_runs_key(settings.key_prefix)) == 0
    assert redis_conn.zmscore(bots.awaiting_key(settings.key_prefix), games[16:]) == [None] * 4


def test_a_chain_gives_its_game_back_to_the_queue_when_a_bot_turn_waits(client, ctx, redis_conn, settings):
    _, games = start_match(client)
    board_queue = ctx.scheduler.board_queue
    # a bot's turn in a person's game waits in the turn queue (no worker takes it here)
    ctx.scheduler.queue.enqueue("workers.jobs.play_bot_turn", "some-game", 3, job_id=f"{settings.key_prefix}-t")
    result = perform_board_job(ctx, games[0])
    assert "more game" not in result, result
    assert ctx.games.state(games[16]).status == "playing"
    # game 16 waits for a worker on the board queue, and on a bot in the waiting set
    assert queued_games(board_queue, games) == set(games[1:17])
    assert redis_conn.zscore(bots.awaiting_key(settings.key_prefix), games[16]) is not None
    assert redis_conn.hlen(board_runs_key(settings.key_prefix)) == 0


@pytest.mark.parametrize("chain_s", [1e-9, 0.0], ids=["time-up", "no-chains"])
def test_a_chain_whose_time_is_up_gives_its_game_back(client, ctx, redis_conn, settings, monkeypatch, chain_s):
    """GINBOX_BOARD_CHAIN_S: a chain's time; 0 keeps nothing (nothing written to board-runs either)."""
    _, games = start_match(client)
    monkeypatch.setattr(ctx, "settings", dataclasses.replace(ctx.settings, board_chain_s=chain_s))
    kept = []

    def keeping(chain, *game):
        done = keep(chain, *game)
        kept.extend([game] if done else [])
        return done

    monkeypatch.setattr(BoardChain, "keep", keeping)
    result = perform_board_job(ctx, games[0])
    assert "more game" not in result, result
    assert queued_games(ctx.scheduler.board_queue, games) == set(games[1:17])
    assert len(kept) == (1 if chain_s else 0)  # kept, then given back; or never kept
    assert redis_conn.hlen(board_runs_key(settings.key_prefix)) == 0


def live_worker(redis_conn, settings, name: str, job_id: str, seen_s_ago: float = 0.0) -> None:
    """A worker that said it was alive ``seen_s_ago`` seconds ago and runs RQ job ``job_id``."""
    now_ms = int((time.time() - seen_s_ago) * 1000)
    redis_conn.zadd(live_workers_key(settings.key_prefix), {name: now_ms})
    redis_conn.hset(f"rq:worker:{name}", "current_job", job_id)


def test_the_game_a_live_worker_keeps_is_never_taken_for_lost(client, ctx, redis_conn, settings):
    _, games = start_match(client, boards=1)
    game_id = games[0]
    board_queue = ctx.scheduler.board_queue
    board_queue.remove(board_job_id_queued(board_queue, game_id))  # the job that ends the chain keeps it
    state = ctx.games.state(game_id)
    chain = BoardChain(redis_conn, settings.key_prefix, "w1", "board-some-other-game-5")
    assert chain.keep(game_id, state.version) and not chain.keep(games[1], state.version)  # one at a time
    live_worker(redis_conn, settings, "w1", "board-some-other-game-5")
    assert bots.jobs_in_play(redis_conn, settings.key_prefix, int(time.time() * 1000)) == {
        bots.board_job_id(game_id, state.version)}
    assert ctx.scheduler.requeue_if_lost(game_id, state, int(time.time() * 1000)) is False
    assert queued_games(board_queue, games) == {games[1]}

    # the worker runs another RQ job now: the word it left behind (a failed clean-up) counts no more
    live_worker(redis_conn, settings, "w1", "board-yet-another-game-9")
    assert ctx.scheduler.requeue_if_lost(game_id, state, int(time.time() * 1000)) is True
    assert queued_games(board_queue, games) == {game_id, games[1]}


def test_the_game_a_dead_worker_kept_is_enqueued_again(client, ctx, redis_conn, settings):
    _, games = start_match(client, boards=1)
    game_id = games[0]
    board_queue = ctx.scheduler.board_queue
    board_queue.remove(board_job_id_queued(board_queue, game_id))
    state = ctx.games.state(game_id)
    BoardChain(redis_conn, settings.key_prefix, "w2", "board-x-1").keep(game_id, state.version)
    live_worker(redis_conn, settings, "w2", "board-x-1", seen_s_ago=WORKER_ALIVE_S + 5)
    # RQ still has the worker's own job (its chain's first game, long over) as started, as it keeps
    # any job of a killed worker; and a job of another worker, alive, whose chain is elsewhere
    started = board_queue.started_job_registry.key
    redis_conn.zadd(started, {"board-x-1:e1": time.time() + 600, "board-y-4:e2": time.time() + 600})
    BoardChain(redis_conn, settings.key_prefix, "w3", "board-y-4").keep(games[1], state.version)
    live_worker(redis_conn, settings, "w3", "board-y-4")
    assert ctx.scheduler.requeue_if_lost(game_id, state, int(time.time() * 1000)) is True
    assert game_id in queued_games(board_queue, games)
    # the dead worker's run and its word are gone; the live one's stay
    assert [text(e) for e in redis_conn.zrange(started, 0, -1)] == ["board-y-4:e2"]
    assert {text(k): text(v) for k, v in redis_conn.hgetall(board_runs_key(settings.key_prefix)).items()} == {
        "w3": f"board-y-4 {bots.board_job_id(games[1], state.version)}"}
