"""Recovery of stalled bot turns, and release of scheduled jobs, in a thread of ``ginbox worker``.

The same thread ends games nobody has moved in for ``abandon_after_s`` (GINBOX_ABANDON_AFTER_S).
It deals the games whose wait for client seeds (``client_seed_wait_s``) ran out.
Beside it, :class:`Heartbeat` says every second that the worker is alive.
"""

from __future__ import annotations

import logging
import threading
import time

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.rules.actors import bot_to_act
from service.bot_metrics import WORKER_ALIVE_S, WORKER_BEAT_S, live_workers_key

log = logging.getLogger(__name__)

#: how often the whole game index is walked for playing games nobody scheduled (seconds)
INDEX_SCAN_EVERY_S = 300.0

#: Redis not answering: no game's fault, so it ends the tick (one warning line while it lasts)
#: instead of failing each game of a sweep with a traceback
REDIS_UNREACHABLE = (RedisConnectionError, RedisTimeoutError)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _lock(conn, key: str, ttl_ms: int) -> bool:
    return bool(conn.set(key, "1", nx=True, px=max(1, int(ttl_ms))))


def promote_due(ctx) -> int:
    """Release the due scheduled jobs of both queues (a retry goes back to the queue it came from); how many."""
    # Due jobs (retries with back-off, turn clocks) move from RQ's scheduled-job registries of both
    # queues (turns, board games) to their queues.
    # So no separate scheduler process is needed,
    # and a worker killed with -9 leaves no scheduler lock behind to block the next one.
    return ctx.scheduler.promote_due()


def recover(ctx, game_id: str, now_ms: int | None = None) -> bool:
    """Enqueue the bot turn (or whole board game) of one waiting game again if it still needs one; True if it did."""
    waiting = ctx.scheduler.waiting
    seen = waiting.since(game_id)
    if not ctx.store.exists(game_id):
        waiting.stop_if(game_id, seen)
        return False
    state = ctx.repository.load_state(game_id)
    if not bot_to_act(state):
        waiting.stop_if(game_id, seen)
        return False
    return ctx.scheduler.requeue_if_lost(game_id, state, now_ms or _now_ms())


def _listed(ctx, status: str):
    """The index's summary of every game of ``status``, page by page."""
    cursor = None
    while True:
        page, cursor = ctx.games.list_games(status, None, cursor, 200)
        yield from page
        if not cursor:
            return


def playing_games(ctx):
    """Ids of every game the index lists as playing."""
    return (summary["game_id"] for summary in _listed(ctx, "playing"))


def _each_game(game_ids, act, what: str, done: str = "", *done_args) -> list[str]:
    """The ids for which ``act(game_id)`` answered true, each logged with ``done`` and its ``done_args``.

    A game that fails is logged as "``what`` of game ... failed" and the others are still swept;
    Redis out of reach ends the sweep.
    """
    out = []
    for game_id in game_ids:
        try:
            if act(game_id):
                if done:
                    log.info(done, game_id, *done_args)
                out.append(game_id)
        except REDIS_UNREACHABLE:
            raise
        except Exception:  # noqa: BLE001 (one broken game must not stop the sweep of the others)
            log.exception("%s of game %s failed", what, game_id)
    return out


def stalled_games(ctx, now_ms: int | None = None, scan_index: bool = False) -> list[str]:
    """Recover every game waiting on a bot longer than ``bot_stall_s``; the ids re-enqueued."""
    # A game waits on a bot from the moment its turn is enqueued:
    # service.bots keeps it in a sorted set with that time.
    # If it still waits bot_stall_s later, the sweep looks at its job.
    # A job still waiting in its queue (or for a retry's back-off), or the current job of a live worker
    # (its heartbeat, Heartbeat below), will play the turn, and the wait is measured again from now.
    # Any other job was lost: the worker that ran it was killed, or the queue went with a Redis restart.
    # The sweep then enqueues the turn again.
    # The job is safe to run twice: it checks and expects the version.
    # A match's board game played whole by one job waits the same way.
    # Its job is enqueued again on the board queue, where it waits behind the other board games only,
    # never in front of a bot's turn.
    # So is the turn job of a game of built-in bots alone, which always goes there
    # (service.bots.turn_queue_for), at start-up too.
    # A wait measured from the enqueue says nothing of a job's start.
    # A board job that waited behind the others longer than bot_stall_s starts with its wait already old,
    # and moves the game only once its first move is decided.
    # The live worker running it tells that it is not lost.
    now = now_ms or _now_ms()
    limit = now - int(ctx.settings.bot_stall_s * 1000)
    ids = ctx.scheduler.waiting.begun_before(limit)
    # at start-up, and every few minutes, the game index is also walked for playing games
    # whose bot never got a job at all
    if scan_index:
        waiting = ctx.scheduler.waiting.games()
        for game_id in playing_games(ctx):
            if game_id not in waiting and game_id not in ids:
                ids.append(game_id)
    return _each_game(ids, lambda game_id: recover(ctx, game_id, now), "sweep")


def abandoned_games(ctx, now_ms: int | None = None) -> list[str]:
    """End every game nobody has moved in for ``abandon_after_s`` (waiting or playing); the ids ended.

    The index's ``updated`` time picks the candidates; the service measures each one again from
    its latest event and appends ``game_abandoned`` expecting that version, so a move that lands
    meanwhile keeps the game alive. ``abandon_after_s`` 0 abandons nothing.
    """
    # such a game is over with no winner, a game_abandoned event in the log
    after_s = float(ctx.settings.abandon_after_s)
    if after_s <= 0:
        return []
    now = now_ms or _now_ms()
    oldest = now - int(after_s * 1000)
    candidates = [g["game_id"] for status in ("playing", "waiting") for g in _listed(ctx, status)
                  if g["updated"] <= oldest]
    return _each_game(candidates, lambda game_id: ctx.games.abandon_if_idle(game_id, after_s, now),
                      "abandon check", "game %s abandoned: nobody moved in %.0f s", after_s)


def expired_games(ctx, now_ms: int | None = None) -> list[str]:
    """End every game whose seats were still not all taken ``unstarted_expire_s`` after its
    creation; the ids ended. ``unstarted_expire_s`` 0 expires nothing."""
    # Such a game would otherwise be kept for ever: nothing ends a game that never starts but the
    # abandon time, which an open seat's claims and client seeds keep from running.
    # It ends with a game_expired event: over, no winner, off the open games.
    after_s = float(ctx.settings.unstarted_expire_s)
    if after_s <= 0:
        return []
    now = now_ms or _now_ms()
    oldest = now - int(after_s * 1000)
    candidates = [g["game_id"] for g in _listed(ctx, "waiting")
                  if g["created"] <= oldest and any(p is None for p in g.get("players") or [None])]
    return _each_game(candidates, lambda game_id: ctx.games.expire_if_unstarted(game_id, after_s, now),
                      "expiry check", "game %s expired: a seat was still free after %.0f s", after_s)


#: how often waiting games are looked at for a client-seed wait that ran out (seconds)
CLIENT_SEEDS_EVERY_S = 1.0


def client_seed_deadlines(ctx, now_ms: int | None = None) -> list[str]:
    """Deal every game whose wait for client seeds (option ``client_seed_wait_s``) ran out; the ids.

    They are dealt without the seeds still missing.
    Candidates are the waiting games whose seats are all taken (the index's summary says so).
    """
    # The service measures the wait from the event that took the last seat.
    # It appends client_seeds_closed and the first cut and deal, expecting the version it measured.
    # So a seed that lands meanwhile wins.
    now = now_ms or _now_ms()
    candidates = [g["game_id"] for g in _listed(ctx, "waiting")
                  if all(p is not None for p in g.get("players") or [None])]
    return _each_game(candidates, lambda game_id: ctx.games.close_client_seeds_if_due(game_id, now),
                      "client seed deadline", "game %s dealt without the client seeds still awaited")


def tournaments_in_play(ctx) -> int:
    """Move every tournament in play on: a pairing whose match ended while no process told its
    tournament (its worker was killed in between) is recorded, and the next round paired."""
    try:
        return ctx.arena.advance_tournaments()
    except REDIS_UNREACHABLE:
        raise
    except Exception:  # noqa: BLE001 (a bug: keep its traceback; the games' sweep goes on)
        log.exception("moving the tournaments in play on failed")
        return 0


class Sweeper(threading.Thread):
    """The worker's background thread: releases due scheduled jobs and recovers stalled games."""

    def __init__(self, ctx, tick_s: float | None = None):
        super().__init__(name="ginbox-sweeper", daemon=True)
        self.ctx = ctx
        stall = max(0.2, float(ctx.settings.bot_stall_s))
        self.tick_s = tick_s if tick_s is not None else min(1.0, stall / 4)
        self.sweep_every_s = min(stall / 2, 5.0)
        # idle games are looked for a few times per abandon time, at least every few minutes
        abandon = float(ctx.settings.abandon_after_s)
        self.abandon_every_s = min(INDEX_SCAN_EVERY_S, max(1.0, abandon / 4)) if abandon > 0 else None
        # unstarted games likewise, a few times per expiry time
        expire = float(ctx.settings.unstarted_expire_s)
        self.expire_every_s = min(INDEX_SCAN_EVERY_S, max(1.0, expire / 4)) if expire > 0 else None
        self.stopping = threading.Event()

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        prefix = self.ctx.settings.key_prefix
        conn = self.ctx.queue.connection
        last_sweep = 0.0
        last_scan = None
        last_abandon_scan = None
        last_seed_scan = None
        last_expire_scan = None
        unreachable = False  # Redis did not answer the last tick (said once, in one line)
        # each duty takes a short Redis lock, so that several workers do not all sweep at once
        while not self.stopping.is_set():
            try:
                if _lock(conn, f"{prefix}:{{#bots}}:lock:promote", self.tick_s * 1000 * 0.9):
                    promote_due(self.ctx)
                now = time.monotonic()
                if now - last_sweep >= self.sweep_every_s:
                    last_sweep = now
                    scan = last_scan is None or now - last_scan >= INDEX_SCAN_EVERY_S
                    if _lock(conn, f"{prefix}:{{#bots}}:lock:sweep", self.sweep_every_s * 1000 * 0.9):
                        if scan:
                            last_scan = now
                        stalled_games(self.ctx, scan_index=scan)
                        tournaments_in_play(self.ctx)
                if last_seed_scan is None or now - last_seed_scan >= CLIENT_SEEDS_EVERY_S:
                    last_seed_scan = now
                    if _lock(conn, f"{prefix}:{{#bots}}:lock:seeds", CLIENT_SEEDS_EVERY_S * 1000 * 0.9):
                        client_seed_deadlines(self.ctx)
                every = self.abandon_every_s
                if every is not None and (last_abandon_scan is None or now - last_abandon_scan >= every):
                    last_abandon_scan = now
                    if _lock(conn, f"{prefix}:{{#bots}}:lock:abandon", every * 1000 * 0.9):
                        abandoned_games(self.ctx)
                every = self.expire_every_s
                if every is not None and (last_expire_scan is None or now - last_expire_scan >= every):
                    last_expire_scan = now
                    if _lock(conn, f"{prefix}:{{#bots}}:lock:expire", every * 1000 * 0.9):
                        expired_games(self.ctx)
            except REDIS_UNREACHABLE as exc:
                # one short line when Redis goes away, not a traceback a tick while it is away
                if not unreachable:
                    log.warning("redis unreachable: %s; retrying", _one_line(exc))
                    unreachable = True
            except Exception:  # noqa: BLE001 (a bug: keep its traceback, and try again next tick)
                log.exception("bot sweeper tick failed")
            else:
                if unreachable:
                    log.warning("redis reachable again: the sweeper goes on")
                    unreachable = False
            self.stopping.wait(self.tick_s)


class Heartbeat(threading.Thread):
    """The worker's thread that says every ``WORKER_BEAT_S`` that the RQ worker ``name`` is alive.

    ``name`` is set by the worker's loop (each RQ worker it starts has a name of its own).
    ``stop`` takes the name out at once.
    """

    # A thread of its own: a sweep may take longer than a beat (a walk of the game index),
    # and the job runs in the main thread.
    # It keeps the RQ name in a sorted set (service.bot_metrics.live_workers_key).
    # RQ keeps a job whose worker died as started for minutes:
    # a plain worker sends no heartbeat while a job runs.
    # So /metrics counts as running only the current jobs of the workers alive (ginbox_bot_jobs_running).

    def __init__(self, connection, key_prefix: str, every_s: float = WORKER_BEAT_S):
        super().__init__(name="ginbox-heartbeat", daemon=True)
        self.connection = connection
        self.key = live_workers_key(key_prefix)
        self.every_s = every_s
        self.worker_name: str | None = None
        self.stopping = threading.Event()

    def beat(self) -> None:
        """Say the current worker is alive now, and forget the workers silent for an hour."""
        now = _now_ms()
        pipe = self.connection.pipeline(transaction=False)
        if self.worker_name is not None:
            pipe.zadd(self.key, {self.worker_name: now})
        pipe.zremrangebyscore(self.key, "-inf", now - max(3600_000, int(WORKER_ALIVE_S * 1000)))
        pipe.execute()

    def serve(self, name: str | None) -> None:
        """The RQ worker this process runs now (None: none); the one before is no longer alive."""
        previous, self.worker_name = self.worker_name, name
        if previous is not None and previous != name:
            self._forget(previous)
        if name is not None:
            try:
                self.beat()
            except REDIS_UNREACHABLE:
                pass  # the next beat says it

    def _forget(self, name: str) -> None:
        try:
            self.connection.zrem(self.key, name)
        except REDIS_UNREACHABLE:
            pass  # it is taken for dead WORKER_ALIVE_S later all the same

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(2 * self.every_s)  # a beat under way would put the name back after the removal
        if self.worker_name is not None:
            self._forget(self.worker_name)

    def run(self) -> None:
        while not self.stopping.wait(self.every_s):
            try:
                self.beat()
            except REDIS_UNREACHABLE:
                pass  # the sweeper says when Redis is away; the worker reads as dead meanwhile
            except Exception:  # noqa: BLE001 (a bug: keep its traceback, and beat again)
                log.exception("worker heartbeat failed")


def _one_line(exc: BaseException) -> str:
    """The exception's message on one line, at most 200 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
