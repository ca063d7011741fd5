"""Decision analyses served: asked for a finished game, queued for a worker, read back with their progress."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from service.analysis import ANALYSIS_VERSION, DEFAULT_SAMPLES, analyse_log, read_export
from service.errors import AnalysisNotFound, TooManyAnalyses
from service.store.analyses import DONE, FAILED, RUNNING, AnalysisRecords

log = logging.getLogger(__name__)


@dataclass
class AnalysisLimits:
    """The caps on analyses queued or running (0: no cap), the samples per decision and how often
    a job writes its progress."""

    per_caller: int = 2
    queued: int = 16
    samples: int = DEFAULT_SAMPLES
    #: the processes one analysis runs in, below the bots' priority (ANALYSIS_NICE)
    processes: int = 2
    progress_every: int = 10
    #: a running analysis whose progress has not moved this long is taken for one whose worker died
    stale_s: float = 120.0
    #: how often a progress stream reads the record, how long it stays silent before a keep-alive
    #: comment, and how long it lasts at most (the client then reconnects)
    stream_poll_s: float = 0.5
    keepalive_s: float = 15.0
    stream_max_s: float = 300.0


#: how much lower than its worker's the priority of an analysis's processes is: a bot's turn on the
#: same machine comes first
ANALYSIS_NICE = 10
#: the seconds a refused caller is told to wait (an analysis takes some seconds)
RETRY_AFTER_S = 30


class GameAnalyses:
    """The use cases of a game's decision analysis: ask for one, read it, run it (the worker's job)."""

    def __init__(self, games, records: AnalysisRecords, enqueue: Callable[..., None] | None,
                 limits: AnalysisLimits | None = None, clock_ms: Callable[[], int] | None = None):
        self.games = games
        self.records = records
        self.enqueue = enqueue
        self.limits = limits or AnalysisLimits()
        self.clock_ms = clock_ms or (lambda: int(time.time() * 1000))

    def _finished(self, game_id: str) -> None:
        # the audit's and the export's checks: GameNotFound, MatchGameSealed, GameNotOver
        self.games._finished(game_id)

    def request(self, game_id: str, caller: str) -> tuple[dict, bool]:
        """(the game's analysis, whether it was queued now): the one that exists unless it failed,
        else a new one, queued, within the caps."""
        self._finished(game_id)
        existing = self.records.get(game_id)
        now = self.clock_ms()
        if existing is not None and existing["status"] == RUNNING and self.enqueue is not None \
                and now - existing["updated"] >= self.limits.stale_s * 1000:
            # its worker died mid-way (killed, its machine lost): the job runs again from the start
            log.warning("the analysis of game %s made no progress for %.0f s: queued again", game_id,
                        (now - existing["updated"]) / 1000)
            self.enqueue(game_id, force=True)
            return self.answer(game_id, existing), False
        if existing is not None and existing["status"] != FAILED:
            return self.answer(game_id, existing), False
        refused = self.records.claim(caller, game_id, self.limits.per_caller, self.limits.queued, now)
        if refused is not None:
            whose = ("you have" if refused == "caller" else "the server has")
            cap = self.limits.per_caller if refused == "caller" else self.limits.queued
            raise TooManyAnalyses(f"{whose} {cap} analyses queued or running: ask again once one is done",
                                  RETRY_AFTER_S)
        if not self.records.create(game_id, now):
            # another request created it meanwhile: that one is the answer, and counts once
            self.records.release(caller, game_id)
            return self.answer(game_id, self.records.get(game_id)), False
        try:
            if self.enqueue is not None:
                self.enqueue(game_id)
        except Exception:
            self.records.fail(game_id, "the analysis could not be queued")
            self.records.release(caller, game_id)
            raise
        return self.answer(game_id, self.records.get(game_id)), True

    def read(self, game_id: str) -> dict:
        """The game's analysis: its status and progress, and the result once done."""
        self._finished(game_id)
        record = self.records.get(game_id)
        if record is None:
            raise AnalysisNotFound(f"game {game_id!r} has no analysis: POST /games/{game_id}/analysis asks for one")
        return self.answer(game_id, record)

    def stream(self, game_id: str, clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep, stop: Callable[[], bool] = lambda: False) -> Iterator[str]:
        """Server-sent ``analysis_progress`` messages of the game's analysis, one at each change of its
        status or progress, until it is done or failed (validated before the first byte); ``stop``
        ends it early (the process is stopping)."""
        self._finished(game_id)
        if self.records.progress_of(game_id) is None:
            raise AnalysisNotFound(f"game {game_id!r} has no analysis: POST /games/{game_id}/analysis asks for one")
        limits = self.limits

        def events():
            deadline = clock() + limits.stream_max_s
            yield ": connected\n\n"
            last, last_write = None, clock()
            while True:
                record = self.records.progress_of(game_id)
                if record is None:
                    return  # expired meanwhile: a GET says so
                seen = (record["status"], record["done"], record["total"])
                if seen != last:
                    last, last_write = seen, clock()
                    message = {"type": "analysis_progress", "game_id": game_id, "analysis_version": ANALYSIS_VERSION,
                               "status": record["status"], "progress": {"done": record["done"], "total": record["total"]}}
                    if "error" in record:
                        message["error"] = record["error"]
                    yield f"event: analysis_progress\ndata: {json.dumps(message, separators=(',', ':'))}\n\n"
                if record["status"] in (DONE, FAILED) or clock() >= deadline or stop():
                    return
                if clock() - last_write >= limits.keepalive_s:
                    yield ": keep-alive\n\n"
                    last_write = clock()
                sleep(limits.stream_poll_s)

        return events()

    def answer(self, game_id: str, record: dict) -> dict:
        out = {"game_id": game_id, "analysis_version": ANALYSIS_VERSION, "status": record["status"],
               "progress": {"done": record["done"], "total": record["total"]}}
        if record["status"] == DONE:
            out["result"] = record["result"]
        if "error" in record:
            out["error"] = record["error"]
        return out

    def run(self, game_id: str, seed: int = 0) -> str:
        """Analyse the game from its export and store the result once; what became of it."""
        record = self.records.get(game_id)
        if record is None:
            return "no_record"
        if record["status"] == DONE:
            return "done_already"  # a second run of the job (or a restart after the result) writes nothing
        every = max(1, self.limits.progress_every)

        def progress(done: int, total: int) -> None:
            if done == 1 or done % every == 0 or done == total:
                self.records.progress(game_id, done, total)

        try:
            log_events, advice = read_export(self.games.export(game_id))
            self.records.progress(game_id, 0, 0)
            result = analyse_log(log_events, samples=self.limits.samples, seed=seed, advice=advice, progress=progress,
                                 processes=self.limits.processes, nice=ANALYSIS_NICE)
            return "done" if self.records.finish(game_id, result) else "done_already"
        except Exception as err:
            log.exception("the analysis of game %s failed", game_id)
            self.records.fail(game_id, f"{type(err).__name__}: {err}")
            return "failed"


#: the job that runs an analysis (workers/jobs.py)
ANALYSE_GAME = "workers.jobs.analyse_game"
#: the longest an analysis may take in its job (a long game with many samples takes minutes)
ANALYSIS_JOB_TIMEOUT_S = 1800
#: a job that raised, or was lost with its worker, is run again after these seconds (from scratch)
ANALYSIS_RETRY_INTERVALS = [5, 30]


def analysis_job_id(game_id: str) -> str:
    """``analysis-v<version>-<game_id>``: one job per (game, analysis version)."""
    return f"analysis-v{ANALYSIS_VERSION}-{game_id}"


def queue_analysis(queue, game_id: str, force: bool = False) -> bool:
    """Enqueue ``analyse_game(game_id)`` on ``queue`` unless its job is there; True if enqueued.

    A job of that id that ended (done, failed for good) is deleted first: its record says it is
    over, so one asked for again runs again. ``force`` deletes it whatever its state (a job whose
    worker died stays "started" in RQ until RQ notices).
    """
    from rq import Retry
    from rq.exceptions import DuplicateJobError, NoSuchJobError
    from rq.job import Job, JobStatus

    job_id = analysis_job_id(game_id)
    try:
        old = Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
        if force or old.get_status(refresh=False) in (JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED,
                                                      JobStatus.CANCELED):
            old.delete(remove_from_queue=True)
    except NoSuchJobError:
        pass
    try:
        queue.enqueue(ANALYSE_GAME, game_id, job_id=job_id, unique=True, job_timeout=ANALYSIS_JOB_TIMEOUT_S,
                      result_ttl=120, failure_ttl=7 * 24 * 3600,
                      retry=Retry(max=len(ANALYSIS_RETRY_INTERVALS), interval=ANALYSIS_RETRY_INTERVALS),
                      description=f"decision analysis of game {game_id}")
    except DuplicateJobError:
        return False
    return True
