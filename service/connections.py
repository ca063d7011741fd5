"""The one place that builds Redis connections (STYLE.md: no connection at import time)."""

from __future__ import annotations

import redis


def redis_client(url: str, timeout_s: float = 2.0, decode_responses: bool = False) -> redis.Redis:
    """A client for ``url`` whose commands fail fast (socket timeouts) when Redis is down."""
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        decode_responses=decode_responses,
        health_check_interval=30,
    )
