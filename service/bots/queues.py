"""The bot queues and their jobs: names, job ids, and enqueuing a turn, a turn clock or a whole board game.

Jobs are serialized with RQ's JSONSerializer (never pickle) and take only ids. A job's id names
the state it answers, so that it is never enqueued twice (RQ's unique enqueue).
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from datetime import datetime, timezone

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job
from rq.serializers import JSONSerializer

from service.bots.waiting import WaitingSet
from service.rules.actors import bots_alone

_RQ_ID = re.compile(r"^[A-Za-z0-9_-]+$")

PLAY_BOT_TURN = "workers.jobs.play_bot_turn"
#: the job that plays a whole board game of built-in policies (workers/arena_jobs.py)
PLAY_BOARD_GAME = "workers.arena_jobs.play_board_game"
#: the longest a whole board game may take in its job (an expert thinks for its budget each move)
BOARD_JOB_TIMEOUT_S = 600
PLAY_TIMED_OUT_TURN = "workers.jobs.play_timed_out_turn"
#: a bot move takes well under a second (the expert's budget is a fraction of one)
JOB_TIMEOUT_S = 60
#: a job that raised is retried after 1, 3 then 10 seconds
RETRY_INTERVALS = [1, 3, 10]
#: finished jobs are forgotten soon; their only effect is the event they appended
RESULT_TTL_S = 120
FAILURE_TTL_S = 7 * 24 * 3600


def bot_queue(connection, name: str) -> Queue:
    """The queue ``name`` (turn or board queue) on ``connection``, with RQ's JSON serializer."""
    return Queue(name, connection=connection, serializer=JSONSerializer)


def default_board_queue_name(queue_name: str) -> str:
    """The board queue's name when GINBOX_BOARD_QUEUE does not give one: ``<turn queue>-boards``."""
    return f"{queue_name}-boards"


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


def board_job_id(game_id: str, version: int) -> str:
    """``board-<game_id>-<version>``: one whole-game job per (game, version)."""
    return f"board-{bot_job_id(game_id, version)[4:]}"


def turn_queue_for(state, queue: Queue, board_queue: Queue | None) -> Queue:
    """The queue of the turn jobs of ``state``'s game: ``board_queue`` for a game of built-in bots
    alone (when there is one), else the turn queue ``queue``."""
    return board_queue if board_queue is not None and bots_alone(state) else queue


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


def enqueue_board_game(queue, key_prefix: str, game_id: str, version: int, *, force: bool = False) -> bool:
    """Enqueue ``play_board_game(game_id, version)`` on ``queue`` once per version; True if enqueued.

    ``queue`` is the board queue (GINBOX_BOARD_QUEUE), never the turn queue.
    The game joins the waiting set of the turn jobs.
    ``force`` first deletes a job of that id known to be lost (the sweeper's case).
    """
    # A whole game takes seconds to minutes.
    # A bot's turn in a person's game must not wait behind it: hence the board queue.
    # The waiting set lets the sweeper enqueue the board job again if it is lost with its worker.
    WaitingSet(queue.connection, key_prefix).start(game_id, int(time.time() * 1000))
    job_id = board_job_id(game_id, version)
    if force:
        try:
            Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer).delete(remove_from_queue=True)
        except NoSuchJobError:
            pass
    try:
        queue.enqueue(PLAY_BOARD_GAME, game_id, version, job_id=job_id,
                      unique=True, job_timeout=BOARD_JOB_TIMEOUT_S, result_ttl=RESULT_TTL_S,
                      failure_ttl=FAILURE_TTL_S,
                      retry=Retry(max=len(RETRY_INTERVALS), interval=RETRY_INTERVALS),
                      description=f"board game {game_id} from version {version}")
    except DuplicateJobError:
        return False
    return True


#: how often (ms) a job playing a board game whole marks the game's wait as fresh: the sweeper then
