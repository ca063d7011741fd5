"""A bot worker asked to stop (SIGTERM, as ``ginbox serve`` stops it) while it plays a match's board
game whole: the job stops between two turns instead of playing the game to its end, and the game's
board job is enqueued again at the version it reached, for the next worker."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from service import bots
from service.arena import board_job_id
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)

DEADLINE_S = 120


def wait_for(pred, what: str):
    end = time.monotonic() + DEADLINE_S
    while True:
        got = pred()
        if got:
            return got
        assert time.monotonic() < end, f"still waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_stopping_worker_leaves_its_board_game_between_two_turns_and_enqueues_it_again(
        app, client, settings, workers, redis_conn):
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 1})
    assert match.status_code == 201, match.get_data(as_text=True)
    games = [t["game_id"] for t in match.get_json()["board_results"][0]["tables"]]
    store = app.extensions["ginbox"].store  # a match's games in play are sealed to the API
    start = {g: store.version(g) for g in games}
    worker = workers.start()
    # the worker is in the middle of a board game: it moved one of them on by a few turns
    playing = wait_for(lambda: next((g for g in games if store.version(g) >= start[g] + 3), None),
                       "a board game moving on")
    worker.proc.send_signal(signal.SIGTERM)
    try:
        code = worker.proc.wait(60)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the worker did not stop:\n{worker.log_text()[-3000:]}") from None
    assert code == 0, worker.log_text()[-3000:]

    state = app.extensions["ginbox"].repository.load_state(playing)
    assert state.status == "playing", "the worker played the whole game before it stopped"
    board_queue = bots.bot_queue(redis_conn, settings.board_queue)
    queued = {j.decode() if isinstance(j, bytes) else j for j in board_queue.get_job_ids()}
    assert board_job_id(playing, state.version) in queued

    # the next worker plays it on from there to its end
    workers.start()
    wait_for(lambda: app.extensions["ginbox"].repository.load_state(playing).status == "over",
             "the board game to end under the next worker")
