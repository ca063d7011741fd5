"""XREAD that waits longer than the Redis client's socket timeout.

The wait is split into slices shorter than that timeout, each its own ``XREAD BLOCK``, until an
entry arrives or the whole wait is over.
Every stream that is waited on (a game's, a match's, a bot's) goes through here.
"""

from __future__ import annotations

import time

from redis.cluster import RedisCluster


def socket_timeout(redis) -> float | None:
    """The socket timeout of the client's connections (None: it waits for ever)."""
    if isinstance(redis, RedisCluster):
        kwargs = redis.get_connection_kwargs()
    else:
        kwargs = redis.connection_pool.connection_kwargs
    return kwargs.get("socket_timeout")


def xread_entries(reply) -> list:
    """The (id, fields) entries of an XREAD reply, RESP2 or RESP3, in order."""
    if not reply:
        return []
    if isinstance(reply, dict):  # RESP3: {stream: [[entries]]}
        return [entry for groups in reply.values() for entries in groups for entry in entries]
    return [entry for _, entries in reply for entry in entries]  # RESP2: [[stream, [entries]]]


def xread_waiting(redis, streams: dict, timeout_s: float | None, count: int | None = None) -> list:
    """The entries of ``streams`` ({key: after id}) that XREAD gives, waiting up to ``timeout_s``
    seconds for the first one (None or 0: no wait), in slices shorter than the socket timeout."""
    if not timeout_s or timeout_s <= 0:
        return xread_entries(redis.xread(streams, count=count))
    # A client built to fail fast (a socket timeout of a few seconds) would break one long XREAD BLOCK.
    # The reply is not late: there is none yet.
    timeout = socket_timeout(redis)
    slice_s = 5.0 if timeout is None else max(0.05, timeout * 0.5)
    deadline = time.monotonic() + timeout_s
    while True:
        block_ms = int(min(deadline - time.monotonic(), slice_s) * 1000)
        if block_ms < 1:  # the wait is over: one last look without blocking (BLOCK 0 is for ever)
            return xread_entries(redis.xread(streams, count=count))
        entries = xread_entries(redis.xread(streams, count=count, block=block_ms))
        if entries:
            return entries
