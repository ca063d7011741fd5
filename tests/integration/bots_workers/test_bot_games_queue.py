"""Games only built-in bots play never starve people's games nor a match's board games.

Nobody waits on a game whose every seat is a built-in bot, and each of its turns enqueues the
next: on the turn queue, a few such games kept it busy for good, so that a person's game against a
bot waited behind them and a worker serving both queues (turns first) never got to a match's board
game. Their turn jobs go to the board queue instead (service.bots.turn_queue_for), in line with
the board games, first in, first out, and a worker of the turn queue alone never takes them.

Checked on a real Redis: the queues the scheduler and the sweeper use (no worker), then with the
workers ``ginbox serve`` starts by default (one ``ginbox worker --queues turns``, one ``ginbox
worker`` taking both) as real processes, by order and queue facts, not time.
"""

from __future__ import annotations

import threading
import time

import pytest
from rq.job import Job

from service import bots
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.job_context import ctx  # noqa: F401 (fixture)
from support.servers import WorkerProcess, service_env
from workers import jobs
from workers.sweeper import stalled_games

#: a game to 500 points, the most a game of bots alone may have: the bots alone play on for the whole test
ENDLESS = {"target_score": 500}
BOTS_ALONE = [{"bot": "basic"}, {"bot": "basic"}]
#: a failure guard only (something never happened), not a bound any assertion measures
NEVER_S = 180


def _ids(conn, queue_name: str) -> list[str]:
    return [j.decode() if isinstance(j, bytes) else j for j in conn.lrange(f"rq:queue:{queue_name}", 0, -1)]


def _create(client, seats: list, **extra) -> dict:
    reply = client.post("/games", json={"variant": "gin-rami", "seats": seats, **extra})
    assert reply.status_code == 201, reply.get_data(as_text=True)
    return reply.get_json()


def _of_games(job_ids, game_ids) -> set[str]:
    """The turn jobs (``bot-<game>-<version>``) among ``job_ids`` of the games ``game_ids``."""
    runs = tuple(bots.bot_job_id(g, 0)[:-1] for g in game_ids)  # "bot-<game>-": its jobs at any version
    return {j for j in job_ids if j.startswith(runs)}


# -- the scheduler and the sweeper (no worker: the test looks at the queues) ------------------------


def test_the_turns_of_a_game_of_bots_alone_go_to_the_board_queue_and_a_person_s_to_the_turn_queue(
        settings, client, ctx, redis_conn):
    turns, boards = settings.queue_name, settings.board_queue
    alone = _create(client, BOTS_ALONE, options=ENDLESS)["game_id"]
    version = ctx.repository.load_state(alone).version
    assert _ids(redis_conn, boards) == [bots.bot_job_id(alone, version)]
    assert _ids(redis_conn, turns) == []
    # a person's game against a bot: its bot's turn goes to the turn queue
    person = _create(client, [{"bot": "basic"}, {"name": "me"}], first_dealer=1)["game_id"]
    person_version = ctx.repository.load_state(person).version
    assert _ids(redis_conn, turns) == [bots.bot_job_id(person, person_version)]
    # each move of the bots alone enqueues the next turn on the board queue again
    assert jobs.play_bot_turn(alone, version) == "moved"
    after = ctx.repository.load_state(alone).version
    assert _ids(redis_conn, boards) == [bots.bot_job_id(alone, version), bots.bot_job_id(alone, after)]
    assert _ids(redis_conn, turns) == [bots.bot_job_id(person, person_version)]
    # three-hand: bots in every role, the advisor's advice included
    three = _create(client, [{"bot": "basic"}, {"bot": "random"}, {"bot": "basic"}], variant="three-hand",
                    options=ENDLESS)["game_id"]
    assert _of_games(_ids(redis_conn, boards), [three]) and not _of_games(_ids(redis_conn, turns), [three])


def test_the_sweeper_puts_a_lost_turn_of_bots_alone_back_on_the_board_queue(settings, client, ctx, redis_conn):
    alone = _create(client, BOTS_ALONE, options=ENDLESS)["game_id"]
    version = ctx.repository.load_state(alone).version
    job_id = bots.bot_job_id(alone, version)
    later = int(time.time() * 1000) + 60_000  # longer than bot_stall_s after the enqueue
    # waiting on the board queue is no stall
    assert stalled_games(ctx, now_ms=later) == []
    assert _ids(redis_conn, settings.board_queue) == [job_id]
    # lost (a worker killed with it, a queue lost): enqueued again on the board queue
    Job.fetch(job_id, connection=ctx.queue.connection, serializer=ctx.queue.serializer).delete(
        remove_from_queue=True)
    assert stalled_games(ctx, now_ms=later + 60_000) == [alone]
    assert _ids(redis_conn, settings.board_queue) == [job_id]
    assert _ids(redis_conn, settings.queue_name) == []
    # a game of bots alone that no wait lists (never scheduled, as the start-up walk of the index
    # finds it): its turn goes to the board queue as well
    redis_conn.zrem(bots.awaiting_key(settings.key_prefix), alone)
    Job.fetch(job_id, connection=ctx.queue.connection, serializer=ctx.queue.serializer).delete(
        remove_from_queue=True)
    assert stalled_games(ctx, now_ms=later + 120_000, scan_index=True) == [alone]
    assert _ids(redis_conn, settings.board_queue) == [job_id] and _ids(redis_conn, settings.queue_name) == []


# -- the workers of ginbox serve -------------------------------------------------------------------


class TurnQueueWatch(threading.Thread):
    """Every job id seen waiting on, or taken from, the turn queue while it runs."""

    def __init__(self, conn, queue_name: str):
        super().__init__(daemon=True)
        self.conn, self.queue_name = conn, queue_name
        self.seen: set[str] = set()
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            pipe = self.conn.pipeline(transaction=False)
            pipe.lrange(f"rq:queue:{self.queue_name}", 0, -1)
            pipe.zrange(f"rq:wip:{self.queue_name}", 0, -1)
            waiting, started = pipe.execute()
            for raw in list(waiting) + list(started):
                text = raw.decode() if isinstance(raw, bytes) else raw
                self.seen.add(text.split(":", 1)[0])  # a started entry is <job id>:<execution id>
            self.stopping.wait(0.005)


def _finished(conn, queue_name: str) -> set[str]:
    """The jobs RQ keeps as finished on the queue (for their result TTL, 120 s)."""
    return {j.decode() if isinstance(j, bytes) else j for j in conn.zrange(f"rq:finished:{queue_name}", 0, -1)}


def _wait(what: str, check):
    end = time.monotonic() + NEVER_S
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < end, f"{what} never happened"
        time.sleep(0.05)


@pytest.mark.slow
def test_games_of_bots_alone_leave_the_turn_worker_to_people_and_the_bot_worker_to_a_match(
        settings, client, redis_conn, tmp_path):
    turns, boards = settings.queue_name, settings.board_queue
    # the workers ginbox serve starts by default: one on the turn queue alone, one on both, turns first
    env = service_env(settings.redis_url, settings.key_prefix, GINBOX_QUEUE=turns,
                      GINBOX_BOT_STALL_S=settings.bot_stall_s)
    started = [WorkerProcess({**env, "GINBOX_WORKER_QUEUES": "turns"}, tmp_path / "turn-worker.log").start(),
               WorkerProcess(env, tmp_path / "bot-worker.log").start()]
    watch = TurnQueueWatch(redis_conn, turns)
    watch.start()
    try:
        alone = [_create(client, BOTS_ALONE, options=ENDLESS)["game_id"] for _ in range(4)]

        def versions():
            return {g: client.get(f"/games/{g}").get_json()["version"] for g in alone}

        # the bots alone are playing: every game has moved past its first version
        first = versions()
        _wait("a move in each game of bots alone", lambda: all(v > first[g] for g, v in versions().items()))

        # a person's game against a bot: the bot (seat 0, not the dealer) speaks first
        person = _create(client, [{"bot": "basic"}, {"name": "me"}], first_dealer=1)
        person_id = person["game_id"]
        answered = _wait("the bot's answer in the person's game",
                         lambda: 0 not in (v := client.get(f"/games/{person_id}").get_json())["to_act"] and v)
        assert answered["status"] == "playing", answered
        # the answer came while the games of bots alone were in play
        assert all(client.get(f"/games/{g}").get_json()["status"] == "playing" for g in alone)
        # its job went through the turn queue
        assert _of_games(watch.seen | _finished(redis_conn, turns), [person_id])

        # a one-board match: the bot worker gets to its board games between the turns of the bots alone
        match = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                              "boards": 1})
        assert match.status_code == 201, match.get_data(as_text=True)
        match_id = match.get_json()["match_id"]
        over = _wait("the end of the one-board match",
                     lambda: (m := client.get(f"/matches/{match_id}").get_json())["status"] == "over" and m)
        assert over["boards_done"] == 1, over
        # ... while the games of bots alone are still in play, and moving
        assert all(client.get(f"/games/{g}").get_json()["status"] == "playing" for g in alone)
        still = versions()
        _wait("a move of the bots alone after the match", lambda: any(v > still[g] for g, v in versions().items()))
    finally:
        watch.stopping.set()
        watch.join(5)
        for worker in started:
            worker.stop()
    # no turn of the bots alone ever waited on, or was taken from, the turn queue; the board queue
    # had them all
    assert not _of_games(watch.seen | _finished(redis_conn, turns), alone), \
        sorted(_of_games(watch.seen | _finished(redis_conn, turns), alone))[:5]
    assert _of_games(_finished(redis_conn, boards), alone)
