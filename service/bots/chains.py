"""A board job's chain: the next board game it keeps to play itself rather than enqueue.

When a board game of built-in bots ends, its match starts the next one, in the same process.
Enqueuing that game and taking it off the queue again costs RQ's whole bookkeeping of a job.
For a match of quick bots that was most of a board game's cost.
So the job whose game ended keeps the next game and plays it on (workers/arena_jobs.py).
"""

# A kept game is never lost:
# - it joins the waiting set as an enqueued one does, so the sweeper measures its wait;
# - the worker says it plays it, in the board-runs hash (see workers_jobs), so a live worker's
#   chain is never taken for a lost job;
# - a job that does not play its kept game (asked to stop, or its time is up) enqueues it.
# A worker killed in the middle of a chain stops its heartbeat: its kept game is then lost like
# any job of a dead worker, and the sweeper enqueues it again.

from __future__ import annotations

import time
from contextvars import ContextVar

from service.bots.queues import board_job_id
from service.bots.waiting import WaitingSet

#: the chain of the job running in this context, if it keeps a game (set by BotScheduler.keeping)
CURRENT: ContextVar[BoardChain | None] = ContextVar("ginbox_board_chain", default=None)


def board_runs_key(key_prefix: str) -> str:
    """The hash of the board games workers play on in a chain (field: RQ worker name).

    A value is ``<RQ job id> <board job id of the game>``: it counts only while the worker still
    runs that RQ job, so a value left behind by a failed clean-up never hides a lost game.
    """
    return f"{key_prefix}:{{#bots}}:board-runs"


class BoardChain:
    """The one board game a job keeps to play next, and the worker's word that it plays it."""

    def __init__(self, connection, key_prefix: str, worker: str | None, job_id: str | None):
        self.connection = connection
        self.key_prefix = key_prefix
        self.worker = worker
        self.job_id = job_id
        self.waiting = WaitingSet(connection, key_prefix)
        self.kept: tuple[str, int] | None = None
        self._said = False  # whether the worker's word is in board-runs (a job that kept nothing wrote none)

    def keep(self, game_id: str, version: int) -> bool:
        """Keep the game (at ``version``, just created) to play next; False if one is kept already."""
        if self.kept is not None or self.worker is None or self.job_id is None:
            return False
        pipe = self.connection.pipeline(transaction=False)
        pipe.zadd(self.waiting.key, {game_id: int(time.time() * 1000)})  # the wait starts now
        pipe.hset(board_runs_key(self.key_prefix), self.worker, f"{self.job_id} {board_job_id(game_id, version)}")
        pipe.execute()
        self.kept, self._said = (game_id, version), True
        return True

    def take(self) -> tuple[str, int] | None:
        """The kept game, now no longer kept (the worker still says it plays it)."""
        kept, self.kept = self.kept, None
        return kept

    def release(self) -> None:
        """The worker plays no game of the chain any more."""
        if self._said:
            self.connection.hdel(board_runs_key(self.key_prefix), self.worker)
            self._said = False


#: delete a worker's word only if it is still the one read (the worker, if alive, may have written another)
_FORGET_WORD = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


def words_naming(connection, key_prefix: str, names_run) -> dict[str, str]:
    """The workers' words (worker -> ``<RQ job id> <board job id>``) whose board job ``names_run(id)``."""
    out = {}
    for worker, raw in connection.hgetall(board_runs_key(key_prefix)).items():
        word = raw.decode() if isinstance(raw, bytes) else raw
        if names_run(word.partition(" ")[2]):
            out[worker.decode() if isinstance(worker, bytes) else worker] = word
    return out


def forget_chain_word(connection, key_prefix: str, worker: str, word: str) -> bool:
    """Drop the worker's word from board-runs if it still is ``word``; whether it did."""
    return bool(connection.eval(_FORGET_WORD, 1, board_runs_key(key_prefix), worker, word))


def chained_runs(connection, key_prefix: str, workers: list[str], current: dict[str, str]) -> dict[str, str]:
    """The board job id each of ``workers`` plays on in a chain, for those whose RQ job
    (``current``: worker -> RQ job id) is still the one that began it."""
    if not workers:
        return {}
    rows = connection.hmget(board_runs_key(key_prefix), workers)
    out = {}
    for name, raw in zip(workers, rows):
        if raw is None:
            continue
        job_id, _, run = (raw.decode() if isinstance(raw, bytes) else raw).partition(" ")
        if run and current.get(name) == job_id:
            out[name] = run
    return out
