"""The end of a server-sent event stream whose store stops answering in the middle of it.

A stream's first byte is sent only once the game, bot or match has been read, so Redis being
down before it is a 503 problem+json like any other answer (service.api.problems). Once the
stream has begun no status can be sent any more: when a read fails then (Redis killed,
restarting, timing out), the stream ends with a last comment saying so, and the chunked answer
ends properly, instead of being cut by the server with a traceback in its log. The client
reconnects with ``Last-Event-ID`` once the service answers again, and misses nothing.
"""

from __future__ import annotations

import logging
from typing import Iterator

import redis
from flask import has_request_context, request

log = logging.getLogger(__name__)

#: the last message of a stream whose store stopped answering: a comment, so that no client has
#: an event to handle, only a stream that ends (as it does after a few minutes)
UNREACHABLE = ": unavailable: the event store is not reachable; reconnect with Last-Event-ID\n\n"


def ending_when_unreachable(events: Iterator[str]) -> Iterator[str]:
    """The stream ``events``, ended by :data:`UNREACHABLE` (and one warning line) if Redis stops answering."""
    try:
        yield from events
    except (redis.RedisError, OSError) as exc:  # what service.api.problems answers with a 503
        path = request.path if has_request_context() else "?"
        log.warning("stream %s ended: redis unavailable: %s", path, " ".join(str(exc).split())[:200] or repr(exc))
        yield UNREACHABLE
