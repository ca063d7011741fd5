"""Scheduling of bot turns, turn clocks and whole board games on the RQ queues.

This package is the one owner of the queues and the waiting set:
``queues`` (names, job ids, enqueuing), ``waiting`` (the games waiting on a bot),
``scheduler`` (``BotScheduler``, which the games call after each append),
``recovery`` (what the sweeper asks to find a lost job).
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
