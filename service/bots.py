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
board game whole (service.arena.enqueue_board_game) go to a queue of their own, the board queue
(GINBOX_BOARD_QUEUE, by default ``<GINBOX_QUEUE>-boards``): a worker serving both takes turn jobs
first, and a worker may serve the turn queue alone, so a bot's turn never waits behind a match.

The turn jobs of a game whose every seat is a built-in bot (``bots_alone``) go to the board queue
too (``turn_queue_for``): nobody waits on such a game, and its turns, each enqueuing the next,
would otherwise keep the turn queue busy for good, so that a person's game waited behind them and
a worker serving both queues never got to a board game. On the board queue they take their place
in line with the board games (first in, first out), and a worker of the turn queue alone never
takes them.

Jobs are serialized with RQ's JSONSerializer (never pickle) and take only ids.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import time
from datetime import datetime, timezone
from typing import Any

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job
from rq.serializers import JSONSerializer

log = logging.getLogger(__name__)

_RQ_ID = re.compile(r"^[A-Za-z0-9_-]+$")

PLAY_BOT_TURN = "workers.jobs.play_bot_turn"
PLAY_TIMED_OUT_TURN = "workers.jobs.play_timed_out_turn"
#: a bot move takes well under a second (the expert's budget is a fraction of one)
JOB_TIMEOUT_S = 60
#: a job that raised is retried after 1, 3 then 10 seconds
RETRY_INTERVALS = [1, 3, 10]
#: finished jobs are forgotten soon; their only effect is the event they appended
RESULT_TTL_S = 120
FAILURE_TTL_S = 7 * 24 * 3600

# Remove a game from the waiting set only if its wait is the one the caller saw (same score):
# a newer wait recorded meanwhile by another scheduler must survive.
_ZREM_IF_SCORE = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""


def bot_queue(connection, name: str) -> Queue:
    """The queue ``name`` (turn or board queue) on ``connection``, with RQ's JSON serializer."""
    return Queue(name, connection=connection, serializer=JSONSerializer)


def default_board_queue_name(queue_name: str) -> str:
    """The board queue's name when GINBOX_BOARD_QUEUE does not give one: ``<turn queue>-boards``."""
    return f"{queue_name}-boards"


def awaiting_key(key_prefix: str) -> str:
    """The sorted set of games waiting on a bot (member game id, score ms since the wait began)."""
    return f"{key_prefix}:{{#bots}}:awaiting"


def _id_part(game_id: str) -> str:
    """The game id as RQ allows it in a job id (letters, digits, '_', '-'), else its digest."""
    if _RQ_ID.match(game_id):
        return game_id
    return "h" + hashlib.sha256(game_id.encode("utf-8")).hexdigest()[:32]


def bot_job_id(game_id: str, version: int) -> str:
    """``bot-<game_id>-<version>``: one job per (game, version).

    RQ job ids may not contain ':', hence '-' (the version, last, is all digits, so the id
    still names one game and one version).
    """
    return f"bot-{_id_part(game_id)}-{version}"


def clock_job_id(game_id: str, version: int, attempt: int = 0) -> str:
    """``clock-<game_id>-<version>``: one turn clock per (game, version).

    A clock that ran before its deadline and was scheduled again is ``clock-<game_id>-<version>-r<n>``
    (n = 1, 2, ...): the letter keeps it apart from the first clock of any other game and version,
    whose id ends in digits.
    """
    return f"clock-{_id_part(game_id)}-{version}" + (f"-r{attempt}" if attempt else "")


def is_bot(player: Any) -> bool:
    """A seat played by a policy: its player dict names one under "bot"."""
    return isinstance(player, dict) and bool(player.get("bot"))


def next_bot_action(state, advised: bool = False) -> tuple[str, int] | None:
    """("advise", advisor seat) or ("move", seat) for the bot that acts now in ``state``, or None.

    A bot advisor advises its captain once per decision, before the captain plays: not again
    when advice was already given at this version (``advised``, from the advice log: the state
    does not say which event came last).
    """
    if getattr(state, "status", None) != "playing":
        return None
    players = state.players
    roles = state.roles
    if roles and is_bot(players[roles["advisor"]]) and roles["captain"] in state.to_act:
        if not advised:
            return ("advise", roles["advisor"])
    for seat in state.to_act:
        if is_bot(players[seat]):
            return ("move", seat)
    return None


def bots_alone(state) -> bool:
    """Whether every seat of ``state`` is a built-in bot: a game nobody waits on (no person, no bot account)."""
    players = getattr(state, "players", None) or ()
    return bool(players) and all(is_bot(p) for p in players)


def turn_queue_for(state, queue: Queue, board_queue: Queue | None) -> Queue:
    """The queue of the turn jobs of ``state``'s game: ``board_queue`` for a game of built-in bots
    alone (when there is one), else the turn queue ``queue``."""
    return board_queue if board_queue is not None and bots_alone(state) else queue


def bot_to_act(state) -> bool:
    """True when a bot has something to do in ``state``: a move, or advice for its captain.

    Whether a bot advisor already advised is for the job to read (``next_bot_action``): here a
    bot advisor whose captain is to act always counts.
    """
    return next_bot_action(state) is not None


def human_clock(state) -> float | None:
    """Seconds a human seat to act has before the basic policy plays for it (None: no clock)."""
    timeout = (state.options or {}).get("turn_timeout_s") if getattr(state, "status", None) == "playing" else None
    if not timeout:
        return None
    players = state.players
    if any(not is_bot(players[s]) for s in state.to_act):
        return float(timeout)
    return None


def _job_options(description: str) -> dict:
    return dict(
        job_timeout=JOB_TIMEOUT_S,
        result_ttl=RESULT_TTL_S,
        failure_ttl=FAILURE_TTL_S,
        retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
        description=description,
    )


def enqueue_bot_turn(queue: Queue, game_id: str, version: int, *, force: bool = False) -> bool:
    """Enqueue ``play_bot_turn(game_id, version)`` unless a job of that id exists; True if enqueued.

    RQ's unique enqueue checks and enqueues in one Lua script, so two schedulers racing on the
    same version cannot both enqueue. ``force`` first deletes a job of that id that is known to
    be lost (the sweeper's case: its worker died, or it failed for good).
    """
    job_id = bot_job_id(game_id, version)
    if force:
        try:
            Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer).delete(
                remove_from_queue=True
            )
        except NoSuchJobError:
            pass
    try:
        queue.enqueue(PLAY_BOT_TURN, game_id, version, job_id=job_id, unique=True,
                      **_job_options(f"bot turn of game {game_id} at version {version}"))
    except DuplicateJobError:
        return False
    return True


def clock_deadline_ms(last_ts: int, timeout_s: float) -> int:
    """When the clock of a turn given by an event at ``last_ts`` (epoch ms) plays: the view's ``turn_deadline_ms``."""
    return last_ts + round(timeout_s * 1000)


def _due_at(due_ms: int) -> datetime:
    """The whole second at or after ``due_ms``: RQ keeps a scheduled job's time in whole seconds and
    releases it once that second has begun, so a time with a fraction would be released early."""
    return datetime.fromtimestamp(math.ceil(due_ms / 1000), tz=timezone.utc)


def enqueue_turn_clock(queue: Queue, game_id: str, version: int, timeout_s: float, *,
                       due_ms: int | None = None, attempt: int = 0) -> bool:
    """Schedule ``play_timed_out_turn(game_id, version)`` once; True if scheduled.

    Due ``timeout_s`` seconds from now (called after the append, so never before the deadline the
    view shows), or at ``due_ms`` (epoch ms) when given; released at the whole second at or after
    that. ``attempt`` > 0 is a clock scheduled again by one that ran early (its own job id).
    """
    if due_ms is None:
        due_ms = int(time.time() * 1000) + math.ceil(timeout_s * 1000)
    args = (game_id, version, attempt) if attempt else (game_id, version)
    job = queue.create_job(PLAY_TIMED_OUT_TURN, args=args, job_id=clock_job_id(game_id, version, attempt),
                           timeout=JOB_TIMEOUT_S, result_ttl=RESULT_TTL_S, failure_ttl=FAILURE_TTL_S,
                           retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
                           description=f"turn clock of game {game_id} at version {version}")
    try:
        queue.schedule_job(job, _due_at(due_ms), unique=True)
    except DuplicateJobError:
        return False
    return True


def schedule_bots(queue: Queue, game_id: str, state, *, key_prefix: str = "ginbox",
                  board_queue: Queue | None = None) -> bool:
    """After an append: enqueue the bot's turn (and a human's turn clock) for ``state``.

    The turn job goes to ``queue``, or to ``board_queue`` when every seat is a built-in bot
    (``turn_queue_for``). Returns True when a bot has to act. Never enqueues a job twice for one
    version.
    """
    conn = queue.connection
    key = awaiting_key(key_prefix)
    version = state.version
    timeout = human_clock(state)
    if timeout is not None:
        enqueue_turn_clock(queue, game_id, version, timeout)
    if not bot_to_act(state):
        # only a game with a bot seat is ever added to the waiting set: a game of humans alone
        # (most moves the API records) costs no round trip here
        if any(is_bot(p) for p in state.players):
            conn.zrem(key, game_id)
        return False
    # the wait starts now: the sweeper measures stalls from this moment
    conn.zadd(key, {game_id: int(time.time() * 1000)})
    enqueue_bot_turn(turn_queue_for(state, queue, board_queue), game_id, version)
    return True


def stop_waiting(connection, key_prefix: str, game_id: str, score: float | None) -> bool:
    """Drop a game from the waiting set if its wait is still the one with ``score``."""
    if score is None:
        return False
    return bool(connection.eval(_ZREM_IF_SCORE, 1, awaiting_key(key_prefix), game_id, score))


class BotScheduler:
    """The ``bot_scheduler(game_id, state)`` hook of the service layer, bound to its queues and prefix.

    ``queue`` takes the turn jobs and clocks; ``board_queue`` (by default ``<queue>-boards`` on the
    same connection) the whole board games that service.composition.with_arena sends there, and
    the turn jobs of the games of built-in bots alone.
    """

    def __init__(self, queue: Queue, key_prefix: str, board_queue: Queue | None = None):
        self.queue = queue
        self.key_prefix = key_prefix
        self.board_queue = board_queue if board_queue is not None else Queue(
            default_board_queue_name(queue.name), connection=queue.connection, serializer=queue.serializer)

    def __call__(self, game_id: str, state) -> None:
        schedule_bots(self.queue, game_id, state, key_prefix=self.key_prefix, board_queue=self.board_queue)
