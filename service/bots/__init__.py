"""Scheduling of bot turns (and turn clocks) on the RQ queue.

The service layer calls a scheduler after every successful append. When a bot must act in the
new state (a bot seat is to move, or a bot advisor has a captain to advise) one job
``workers.jobs.play_bot_turn(game_id, version)`` is enqueued with the id
``bot-<game_id>-<version>``: a job is named by the state it answers, so it is never enqueued
twice, and a job that finds the game at another version does nothing.

Games waiting on a bot are kept in one sorted set on the queue's Redis (score: when the current
wait began, in ms). The sweeper of ``ginbox worker`` re-enqueues the games that stayed there
longer than ``bot_stall_s`` (a worker killed mid-job, a queue lost with a Redis restart). The key
carries its own hash tag (``{#bots}``) so that it stays one slot on a Redis Cluster.

When the rule option ``turn_timeout_s`` is set, a human seat to move gets a clock: a job
``workers.jobs.play_timed_out_turn(game_id, version)`` (id ``clock-<game_id>-<version>``)
scheduled that many seconds later, which plays the basic policy's move if the seat has not moved.
It never plays before the deadline the view publishes (``turn_deadline_ms``: the last event's ts
plus the timeout). RQ keeps a due time in whole seconds, the fraction cut off, so the clock is
scheduled for the whole second at or after its deadline (counted from the scheduling, which comes
after the append); and the job itself compares the deadline with its own clock, and if it runs
early (clocks of two hosts apart) it schedules itself again, as ``clock-<game_id>-<version>-r<n>``.

Turn jobs and turn clocks go to the turn queue (GINBOX_QUEUE). The jobs that play a match's
board game whole (``enqueue_board_game``) go to a queue of their own, the board queue
(GINBOX_BOARD_QUEUE, by default ``<GINBOX_QUEUE>-boards``): a worker serving both takes turn jobs
first, and a worker may serve the turn queue alone, so a bot's turn never waits behind a match.

The turn jobs of a game whose every seat is a built-in bot (``bots_alone``) go to the board queue
too (``turn_queue_for``): nobody waits on such a game, and its turns, each enqueuing the next,
would otherwise keep the turn queue busy for good, so that a person's game waited behind them and
a worker serving both queues never got to a board game. On the board queue they take their place
in line with the board games (first in, first out), and a worker of the turn queue alone never
takes them.

Jobs are serialized with RQ's JSONSerializer (never pickle) and take only ids.

This package is the one owner of the queues and the waiting set: ``queues`` (names, job ids,
enqueuing), ``waiting`` (the waiting set), ``scheduler`` (``BotScheduler``, which the games call
after each append), ``recovery`` (what the sweeper asks to find a lost job). Who acts now is the
engine's (service.rules.actors).
"""

from service.bots.queues import (
    BOARD_JOB_TIMEOUT_S,
    FAILURE_TTL_S,
    JOB_TIMEOUT_S,
    PLAY_BOARD_GAME,
    PLAY_BOT_TURN,
    PLAY_TIMED_OUT_TURN,
    RESULT_TTL_S,
    RETRY_INTERVALS,
    board_job_id,
    bot_job_id,
    bot_queue,
    clock_deadline_ms,
    clock_job_id,
    default_board_queue_name,
    enqueue_board_game,
    enqueue_bot_turn,
    enqueue_turn_clock,
    turn_queue_for,
)
from service.bots.recovery import forget_lost_runs, is_board_run, jobs_in_play, promote_scheduled, workers_jobs
from service.bots.scheduler import WHOLE_GAME_MARK_EVERY_MS, BotScheduler, schedule_bots
from service.bots.waiting import WaitingSet, awaiting_key, stop_waiting

__all__ = [
    "BOARD_JOB_TIMEOUT_S", "FAILURE_TTL_S", "JOB_TIMEOUT_S", "PLAY_BOARD_GAME", "PLAY_BOT_TURN", "PLAY_TIMED_OUT_TURN",
    "RESULT_TTL_S", "RETRY_INTERVALS", "WHOLE_GAME_MARK_EVERY_MS", "BotScheduler", "WaitingSet", "awaiting_key",
    "board_job_id", "bot_job_id", "bot_queue", "clock_deadline_ms", "clock_job_id", "default_board_queue_name",
    "enqueue_board_game", "enqueue_bot_turn", "enqueue_turn_clock", "forget_lost_runs", "is_board_run",
    "jobs_in_play", "promote_scheduled", "schedule_bots", "stop_waiting", "turn_queue_for", "workers_jobs",
]
