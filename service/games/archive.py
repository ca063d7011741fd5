"""Archiving finished games: the job queued when a game ends, and the upkeep that archives those left.

A finished game's log is rewritten once into its archived record (``EventStore.archive``), which
every read answers from as it did from the log (service/docs/OPERATE.md, "Storage").
It happens off the request path: the append that ends a game queues one job, and a worker of the
archive queue runs it. ``ginbox archive`` archives every finished game not archived yet.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Callable

from service.store.errors import ArchiveUnreadable, GameNotArchivable

log = logging.getLogger(__name__)

#: the job that archives a finished game (workers/jobs.py)
ARCHIVE_GAME = "workers.jobs.archive_game"
#: the longest an archive job may take (it replays the game's rules twice: well under a second)
ARCHIVE_JOB_TIMEOUT_S = 60
#: a job that raised (Redis away) is run again after these seconds
ARCHIVE_RETRY_INTERVALS = [5, 30, 120]
#: the finished games the upkeep reads from the index at a time
UPKEEP_PAGE = 250

#: what archiving one game came to
ARCHIVED, ALREADY, NO_GAME = "archived", "archived_already", "no_game"

_RQ_ID = re.compile(r"^[A-Za-z0-9_-]+$")


def archive_job_id(game_id: str) -> str:
    """``archive-<game_id>``: one job per game (a game id RQ does not take stands as its digest)."""
    part = game_id if _RQ_ID.match(game_id) else "h" + hashlib.sha256(game_id.encode("utf-8")).hexdigest()[:32]
    return f"archive-{part}"


def queue_archive(queue, game_id: str) -> bool:
    """Enqueue ``archive_game(game_id)`` on ``queue`` unless its job is there; True if enqueued."""
    from rq import Retry
    from rq.exceptions import DuplicateJobError

    try:
        queue.enqueue(ARCHIVE_GAME, game_id, job_id=archive_job_id(game_id), unique=True,
                      job_timeout=ARCHIVE_JOB_TIMEOUT_S, result_ttl=60, failure_ttl=7 * 24 * 3600,
                      retry=Retry(max=len(ARCHIVE_RETRY_INTERVALS), interval=ARCHIVE_RETRY_INTERVALS),
                      description=f"archive of game {game_id}")
    except DuplicateJobError:
        return False
    return True


class GameArchives:
    """The use cases of archiving: one game (the job's), and every finished game left (the upkeep's)."""

    def __init__(self, store, index):
        self.store = store
        self.index = index

    def archive(self, game_id: str) -> str:
        """Archive one finished game; what became of it.

        ``archived``, ``archived_already``, ``no_game``, or the code of why it was left as it is
        (``game_not_over``, ``archive_mismatch``, ``archive_format_unsupported``, ``archive_unreadable``).
        """
        try:
            if self.store.archive(game_id):
                return ARCHIVED
        except GameNotArchivable as err:
            if err.code != "game_not_over":
                log.warning("game %s left unarchived: %s", game_id, err)
            return err.code
        except ArchiveUnreadable as err:
            log.warning("game %s: its archived record cannot be read: %s", game_id, err)
            return err.code
        return ALREADY if self.store.is_archived(game_id) else NO_GAME

    def finished_games(self) -> int:
        """How many games the index lists as over (what ``archive_finished`` goes through)."""
        count, cursor = 0, None
        while True:
            page, cursor = self.index.list_games(status="over", cursor=cursor, limit=UPKEEP_PAGE)
            count += len(page)
            if cursor is None:
                return count

    def archive_finished(self, progress: Callable[[str, str], None] | None = None) -> dict[str, int]:
        """Archive every game the index lists as over; how many came to each outcome.

        ``progress(game_id, outcome)`` is told of each game as it is done.
        """
        outcomes: dict[str, int] = {}
        cursor = None
        while True:
            page, cursor = self.index.list_games(status="over", cursor=cursor, limit=UPKEEP_PAGE)
            for entry in page:
                outcome = self.archive(entry["game_id"])
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
                if progress is not None:
                    progress(entry["game_id"], outcome)
            if cursor is None:
                return outcomes
