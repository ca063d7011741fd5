"""A bot worker asked to stop (SIGTERM, as ``ginbox serve`` stops it) while it plays a match's board
game whole: the job stops between two turns instead of playing the game to its end, and the game's
board job is enqueued again at the version it reached, for the next worker."""

from __future__ import annotations

import signal
import subprocess

import pytest

from service import bots
from service.bots import board_job_id
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support import waiting

DEADLINE_S = 120


def wait_for(pred, what: str):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.05)


@pytest.mark.slow
def test_a_stopping_worker_leaves_its_board_game_between_two_turns_and_enqueues_it_again(
        app, client, settings, workers, redis_conn):
    # several boards: the worker is inside one board game or another when it is asked to stop
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 4})
    assert match.status_code == 201, match.get_data(as_text=True)
    games = [t["game_id"] for b in match.get_json()["board_results"] for t in b["tables"]]
    store = app.extensions["ginbox"].store  # a match's games in play are sealed to the API
    repository = app.extensions["ginbox"].repository
    start = {g: store.version(g) for g in games}
    worker = workers.start()
    # the worker is in the middle of a board game: it moved one of them on, and has not ended it
    wait_for(lambda: any(store.version(g) > start[g] and repository.load_state(g).status == "playing"
                         for g in games), "a board game moving on")
    worker.proc.send_signal(signal.SIGTERM)
    try:
        code = worker.proc.wait(60)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the worker did not stop:\n{worker.log_text()[-3000:]}") from None
    assert code == 0, worker.log_text()[-3000:]

    # the game it was playing was left between two turns, and its job is queued at the version reached
    left = {g: s for g in games if store.version(g) > start[g] and (s := repository.load_state(g)).status == "playing"}
    assert left, "the worker played its whole game before it stopped"
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    queued = {j.decode() if isinstance(j, bytes) else j for j in board_queue.get_job_ids()}
    for game_id, state in left.items():
        assert board_job_id(game_id, state.version) in queued

    # the next worker plays it on from there to its end
    workers.start()
    wait_for(lambda: all(repository.load_state(g).status == "over" for g in left),
             "the board game to end under the next worker")
