"""Finding lost bot jobs: what the queues, RQ's registries and the live workers say of a job.

These are the reads behind ``BotScheduler.requeue_if_lost``.
The sweeper of ``ginbox worker`` asks it about each game that waited on a bot too long.
A job counts as running only while a live worker (its heartbeat, service.bot_metrics) holds it.
"""

from __future__ import annotations

import time

from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.worker import Worker

from service.bot_metrics import WORKER_ALIVE_S, live_workers_key
from service.bots.chains import chained_runs, forget_chain_word, words_naming


def promote_scheduled(queue) -> int:
    """Enqueue the jobs of the queue's scheduled-job registry that are due; how many."""
    registry = queue.scheduled_job_registry
    job_ids = registry.get_jobs_to_schedule(time.time())
    moved = 0
    for job_id in job_ids:
        # remove first: whoever removes it enqueues it, so two sweepers never both do
        if not queue.connection.zrem(registry.key, job_id):
            continue
        try:
            job = Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
        except NoSuchJobError:
            continue
        queue.enqueue_job(job, at_front=job.should_enqueue_at_front())
        moved += 1
    return moved


#: a job that a worker has taken off its queue and not yet marked started (a moment): how long the
#: sweep waits before it looks at the job again. A worker short of CPU took more than 0.2 s: the
#: sweep then took its job for lost and enqueued it again (deleting the started job's record), and
#: the turn was decided twice (harmless, but wasted)
TAKE_UP_GRACE_S = 1.0


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def workers_jobs(conn, key_prefix: str, now_ms: int) -> dict[str, str]:
    """The job each worker alive at ``now_ms`` runs now (its RQ current job), by worker name.

    A worker is alive while its heartbeat is younger than ``WORKER_ALIVE_S`` (:class:`Heartbeat`);
    RQ keeps a killed worker's job as started for minutes, so RQ's job status alone does not say.
    A worker whose board job plays on into another game (a chain) runs that game's board job.
    """
    current = rq_current_jobs(conn, key_prefix, now_ms)
    # a worker playing on in a chain (service.bots.chains) runs that game's board job, in effect
    return {**current, **chained_runs(conn, key_prefix, list(current), current)}


def rq_current_jobs(conn, key_prefix: str, now_ms: int) -> dict[str, str]:
    """The RQ job each worker alive at ``now_ms`` runs now, by worker name (chains aside)."""
    live = [_text(name) for name in
            conn.zrangebyscore(live_workers_key(key_prefix), now_ms - int(WORKER_ALIVE_S * 1000), "+inf")]
    if not live:
        return {}
    pipe = conn.pipeline(transaction=False)
    for name in live:
        pipe.hget(f"{Worker.redis_worker_namespace_prefix}{name}", "current_job")
    return {name: _text(job) for name, job in zip(live, pipe.execute()) if job}


def jobs_in_play(conn, key_prefix: str, now_ms: int) -> set[str]:
    """The ids of the jobs that the workers alive at ``now_ms`` run now (:func:`workers_jobs`)."""
    return set(workers_jobs(conn, key_prefix, now_ms).values())


def is_board_run(job_id: str, runs: str) -> bool:
    """Whether ``job_id`` is one of the board jobs ``<runs><version>`` of a game (``runs``: ``board-<game>-``)."""
    return job_id.startswith(runs) and job_id[len(runs):].isdigit()


def _waits_in_queue(queue, job_id: str) -> bool:
    """Whether the job's id is in the queue's list."""
    return any(_text(j) == job_id for j in queue.connection.lrange(queue.key, 0, -1))


def forget_taken(queue, job_id: str) -> None:
    """Drop a lost job's id from the list RQ moves a job to as a worker takes it (a worker killed
    between taking it and starting it left it there): RQ's clean-up would fail the job enqueued
    again under that id."""
    queue.connection.lrem(queue.intermediate_queue_key, 0, job_id)


def job_will_run(queue, job_id: str, in_play) -> bool:
    """True for a job waiting in the queue's list or for a retry, or that a live worker runs
    (``in_play()``: the ids of the jobs the live workers run); anything else is lost or finished."""
    for attempt in (0, 1):
        try:
            job = Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer)
        except NoSuchJobError:
            return False
        status = job.get_status(refresh=False)
        if status == JobStatus.SCHEDULED:
            return True  # a retry waiting for its back-off; promote_scheduled releases it
        if status == JobStatus.STARTED:
            # started by a worker: lost only if that worker is dead (killed with its job).
            # RQ keeps a job whose worker was killed as started for minutes.
            return job_id in in_play()
        if status != JobStatus.QUEUED:
            return False
        if _waits_in_queue(queue, job_id):
            return True
        if attempt == 0:
            # off the queue's list, not yet started: a worker taking it up right now marks it started
            # in a moment; one that died meanwhile (or a queue lost while the job's record stayed)
            # never does
            time.sleep(TAKE_UP_GRACE_S)
    return False


def forget_lost_runs(queue, id_prefix: str) -> int:
    """Delete the jobs ``<id_prefix><version>`` the queue's registry of started jobs still holds; how many.

    Call it only once a game's job is known to be lost: nothing played the game for ``bot_stall_s``,
    and no live worker runs any of its jobs.
    """
    # RQ keeps a job whose worker was killed in that registry until its timeout and a minute more
    # have passed: 11 minutes for a board game.
    # Meanwhile /metrics counted it as running (ginbox_bot_jobs_running).
    # And RQ's clean-up would later fail it or run it again.
    return _forget_started(queue, lambda job_id: is_board_run(job_id, id_prefix))


def forget_lost_chains(queue, key_prefix: str, id_prefix: str, now_ms: int) -> int:
    """Delete the RQ jobs of the dead workers whose chain played a board job ``<id_prefix><version>``; how many.

    Call it, as :func:`forget_lost_runs`, once that game's job is known to be lost.
    """
    # A worker killed in a chain was running the RQ job of the chain's first game.
    # That job stays in the started registry, as any job of a killed worker, while the game
    # found lost is another one: forget_lost_runs, which looks for the lost game's own jobs,
    # does not see it.
    words = words_naming(queue.connection, key_prefix, lambda run: is_board_run(run, id_prefix))
    if not words:
        return 0
    live = rq_current_jobs(queue.connection, key_prefix, now_ms)
    dead = {worker: word for worker, word in words.items() if live.get(worker) != word.partition(" ")[0]}
    jobs = {word.partition(" ")[0] for word in dead.values()}
    forgotten = _forget_started(queue, jobs.__contains__)
    for worker, word in dead.items():
        forget_chain_word(queue.connection, key_prefix, worker, word)
    return forgotten


def _forget_started(queue, lost) -> int:
    """Delete the jobs whose id ``lost(id)`` is true from the started registry, and their records; how many."""
    registry = queue.started_job_registry
    entries = [e.decode() if isinstance(e, bytes) else e for e in queue.connection.zrange(registry.key, 0, -1)]
    found = {}
    for entry in entries:
        job_id = entry.split(":", 1)[0]  # an entry is <job id>:<execution id>; job ids hold no ':'
        if lost(job_id):
            found.setdefault(job_id, []).append(entry)
    for job_id, runs in found.items():
        try:
            Job.fetch(job_id, connection=queue.connection, serializer=queue.serializer).delete(remove_from_queue=True)
        except NoSuchJobError:
            pass
        queue.connection.zrem(registry.key, *runs)  # whatever the job's own record still said
    return len(found)
