"""The bot scheduler: what the games call after every append, and the one owner of the queues."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rq import Queue

from service.bots.queues import (
    board_job_id,
    bot_job_id,
    default_board_queue_name,
    enqueue_board_game,
    enqueue_bot_turn,
    enqueue_turn_clock,
    turn_queue_for,
)
from service.bots.chains import CURRENT, BoardChain
from service.bots.recovery import (
    forget_lost_chains,
    forget_lost_runs,
    forget_taken,
    is_board_run,
    job_will_run,
    jobs_in_play,
    promote_scheduled,
    workers_jobs,
)
from service.bots.waiting import WaitingSet
from service.rules.actors import bot_to_act, human_clock, is_bot, plays_whole

#: how often (ms) a job playing a board game whole marks the game's wait as fresh: the sweeper then
#: never takes a job still playing for a lost one, however long the game
WHOLE_GAME_MARK_EVERY_MS = 1_000

log = logging.getLogger(__name__)


def schedule_bots(queue: Queue, game_id: str, state, *, key_prefix: str = "ginbox",
                  board_queue: Queue | None = None) -> bool:
    """After an append: enqueue the bot's turn (and a human's turn clock) for ``state``.

    The turn job goes to ``queue``, or to ``board_queue`` when every seat is a built-in bot
    (``turn_queue_for``). Returns True when a bot has to act. Never enqueues a job twice for one
    version.
    """
    waiting = WaitingSet(queue.connection, key_prefix)
    version = state.version
    timeout = human_clock(state)
    if timeout is not None:
        enqueue_turn_clock(queue, game_id, version, timeout)
    if not bot_to_act(state):
        # only a game with a bot seat is ever added to the waiting set: a game of humans alone
        # (most moves the API records) costs no round trip here
        if any(is_bot(p) for p in state.players):
            waiting.stop(game_id)
        return False
    # the wait starts now: the sweeper measures stalls from this moment
    waiting.start(game_id, int(time.time() * 1000))
    enqueue_bot_turn(turn_queue_for(state, queue, board_queue), game_id, version)
    return True


class BotScheduler:
    """The one owner of the bot queues, the turn clocks and the waiting set, called after every append.

    The games call it as ``scheduler(game_id, state, whole=False)``.
    ``queue`` takes the turn jobs and clocks.
    ``board_queue`` (by default ``<queue>-boards`` on the same connection) takes the whole board
    games of matches, and the turn jobs of the games of built-in bots alone.
    """

    def __init__(self, queue: Queue, key_prefix: str, board_queue: Queue | None = None):
        self.queue = queue
        self.key_prefix = key_prefix
        self.board_queue = board_queue if board_queue is not None else Queue(
            default_board_queue_name(queue.name), connection=queue.connection, serializer=queue.serializer)
        self.waiting = WaitingSet(queue.connection, key_prefix)
        self._marked: dict[str, int] = {}

    def __call__(self, game_id: str, state, *, whole: bool = False) -> None:
        # A board game of built-in policies alone is played whole by one job (plays_whole), not a job per turn.
        # The appends of that job (whole) schedule nothing.
        # They mark the game's wait as fresh instead, at most once a second.
        # So the sweeper, which measures a stall from the wait's start, leaves a long game in play to its job.
        if not plays_whole(state):
            schedule_bots(self.queue, game_id, state, key_prefix=self.key_prefix, board_queue=self.board_queue)
        elif not whole:
            chain = CURRENT.get()
            if chain is not None and chain.keep(game_id, state.version):
                self._marked[game_id] = int(time.time() * 1000)  # its wait has just started
            else:
                enqueue_board_game(self.board_queue, self.key_prefix, game_id, state.version)
        else:
            now = int(time.time() * 1000)
            if now - self._marked.get(game_id, 0) >= WHOLE_GAME_MARK_EVERY_MS:
                if len(self._marked) > 1000:
                    self._marked.clear()
                self._marked[game_id] = now
                self.waiting.refresh(game_id, now)

    @contextmanager
    def keeping(self, worker: str | None, job_id: str | None) -> Iterator[BoardChain]:
        """While the block runs, the first board game that would be enqueued is kept in the chain instead.

        ``worker`` and ``job_id``: the RQ worker and job that will play it.
        A game still kept when the block ends is enqueued.
        """
        chain = BoardChain(self.queue.connection, self.key_prefix, worker, job_id)
        token = CURRENT.set(chain)
        try:
            yield chain
        finally:
            CURRENT.reset(token)
            left = chain.take()
            if left is not None:
                enqueue_board_game(self.board_queue, self.key_prefix, *left)
            chain.release()

    def turns_waiting(self) -> int:
        """The bot turns waiting in the turn queue (a chain of board games gives way to them)."""
        return self.queue.count

    def clock_again(self, game_id: str, version: int, timeout_s: float, due_ms: int, attempt: int) -> bool:
        """Schedule a turn clock that ran before its deadline once more, for the deadline."""
        return enqueue_turn_clock(self.queue, game_id, version, timeout_s, due_ms=due_ms, attempt=attempt)

    def promote_due(self) -> int:
        """Release the due scheduled jobs of both queues (retries, turn clocks); how many."""
        return promote_scheduled(self.queue) + promote_scheduled(self.board_queue)

    def requeue_if_lost(self, game_id: str, state, now_ms: int) -> bool:
        """Enqueue again the job of a game that waited on a bot too long, if it was lost; True if it did.

        A job waiting in its queue (or for a retry's back-off), or that a live worker runs, will play.
        The wait is then measured again from ``now_ms``.
        Any other job was lost, and is enqueued again.
        """
        # A lost job's worker was killed, or its queue went with a Redis restart.
        # Enqueuing it again is safe: a job is safe to run twice.
        in_play = None

        def live_jobs() -> set[str]:
            nonlocal in_play
            if in_play is None:  # read once, after the job's status (a job started since is in it)
                in_play = jobs_in_play(self.queue.connection, self.key_prefix, now_ms)
            return in_play

        if plays_whole(state):
            # a board game's job waits on the board queue, behind the match's other games: waiting
            # there long is no stall, nor is being played by a live worker, whatever version the job
            # began at (it plays the game on from there); a job that is nowhere (its worker died) is
            # enqueued there again
            job_id = board_job_id(game_id, state.version)
            runs = job_id[:job_id.rindex("-") + 1]  # board-<game>-: the game's board jobs, any version
            self.waiting.start(game_id, now_ms)  # the next stall is measured from now
            if job_will_run(self.board_queue, job_id, live_jobs):
                return False
            if any(is_board_run(j, runs) for j in live_jobs()):
                return False
            log.warning("board game %s waited on its job at version %s: enqueuing it again", game_id, state.version)
            # the lost job was enqueued at an earlier version (it played some turns before its worker
            # died), so the forced enqueue below, of this version's id, does not delete it
            forget_lost_runs(self.board_queue, runs)
            # a worker killed in a chain leaves the RQ job of the chain's first game started
            forget_lost_chains(self.board_queue, self.key_prefix, runs, now_ms)
            forget_taken(self.board_queue, job_id)
            enqueue_board_game(self.board_queue, self.key_prefix, game_id, state.version, force=True)
            return True
        # a game of built-in bots alone has its turn jobs on the board queue (turn_queue_for)
        queue = turn_queue_for(state, self.queue, self.board_queue)
        job_id = bot_job_id(game_id, state.version)
        self.waiting.start(game_id, now_ms)  # the next stall is measured from now
        if job_will_run(queue, job_id, live_jobs):
            return False
        log.warning("game %s waited on a bot at version %s: enqueuing its turn again", game_id, state.version)
        forget_taken(queue, job_id)
        enqueue_bot_turn(queue, game_id, state.version, force=True)
        return True

    def board_game_run_elsewhere(self, game_id: str, worker: str | None, now_ms: int) -> bool:
        """Whether a live worker other than ``worker`` runs a board job of the game, at any version."""
        runs = board_job_id(game_id, 0)[:-1]
        running = workers_jobs(self.queue.connection, self.key_prefix, now_ms)
        return any(name != worker and is_board_run(job_id, runs) for name, job_id in running.items())
