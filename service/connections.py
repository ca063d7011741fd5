"""The one place that builds Redis connections (STYLE.md: no connection at import time)."""

from __future__ import annotations

import time

import redis


#: the connections of one client's pool (redis-py's own cap when it is given none)
MAX_CONNECTIONS = 100
#: a pooled connection idle this long is PINGed before its next command (redis-py's health check)
HEALTH_CHECK_S = 30
#: a pooled connection idle this long is polled for stray data or a closed socket as it is taken
POLL_AFTER_IDLE_S = 0.5


class _Pool(redis.BlockingConnectionPool):
    """redis-py's blocking pool, which polls a connection as it hands it out only after it was idle.

    redis-py polls every connection it hands out: unread data or a closed socket make it connect
    again. That poll is a few system calls on every command, some 5% of a move's CPU.
    A connection that answered within the last POLL_AFTER_IDLE_S is handed out as it is:
    redis-py drops a connection whose reply it did not read whole (an error, a timeout), so such a
    connection holds nothing stray; a socket Redis closed in that second fails the command, which
    redis-py's retry sends again on a new connection.
    """

    def ensure_connection(self, connection) -> None:
        # redis-py sets next_health_check to the time of the last reply plus the interval
        answered = getattr(connection, "next_health_check", 0) - HEALTH_CHECK_S
        if getattr(connection, "_sock", None) is not None and time.monotonic() - answered < POLL_AFTER_IDLE_S:
            return
        super().ensure_connection(connection)


def redis_client(url: str, timeout_s: float = 2.0, decode_responses: bool = False) -> redis.Redis:
    """A client for ``url`` whose commands fail fast (socket timeouts) when Redis is down.

    Its pool holds at most MAX_CONNECTIONS connections.
    When all are taken, a command waits up to ``timeout_s`` for one to come free.
    """
    # The pool blocks when all its connections are taken.
    # A command beyond them (a burst of requests, many streams waking at one event) then waits,
    # as it would for Redis, instead of failing at once.
    # redis-py's default pool raises MaxConnectionsError there, a 503.
    return _blocking_client(url, MAX_CONNECTIONS, timeout_s, timeout_s, decode_responses)


def stream_wait_client(url: str, timeout_s: float, max_connections: int, pool_timeout_s: float) -> redis.Redis:
    """A client of its own for the blocking reads of live streams (``XREAD BLOCK``).

    Its pool holds ``max_connections``: the connections one API process serves at once.
    When all are taken, a stream waits up to ``pool_timeout_s`` for one to come free.
    """
    # Each waiting stream holds one connection for as long as it waits.
    # On the client of redis_client, whose pool redis-py caps at 100 connections,
    # a hundred waiting streams left the ordinary requests none (503 redis_unavailable).
    # So the waits have a pool apart, as large as the connections a process serves,
    # so that every stream it holds can wait.
    # That pool blocks when all are taken, so a stream beyond them waits instead of failing at once.
    return _blocking_client(url, max_connections, pool_timeout_s, timeout_s)


def _blocking_client(url: str, max_connections: int, pool_timeout_s: float, timeout_s: float,
                     decode_responses: bool = False) -> redis.Redis:
    """A client whose pool of ``max_connections`` makes a command wait up to ``pool_timeout_s`` for a
    free connection, and whose commands give up on a silent Redis after ``timeout_s``."""
    pool = _Pool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_timeout_s,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        decode_responses=decode_responses,
        health_check_interval=HEALTH_CHECK_S,
    )
    return redis.Redis.from_pool(pool)  # the client owns its pool: closing it closes the connections
