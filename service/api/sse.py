"""Server-sent event streams: their places among a client's, and their end when the store stops answering.

A read that fails once the stream has begun ends it with a last comment saying so.
The client reconnects with ``Last-Event-ID`` once the service answers again, and misses nothing.
A client has at most ``GINBOX_MAX_STREAMS_PER_CLIENT`` streams open; one more is refused 429.
"""

# A stream's first byte is sent only once the game, bot or match has been read.
# So Redis being down before it is a 503 problem+json like any other answer (service.api.problems).
# Once the stream has begun, no status can be sent any more.
# When a read fails then (Redis killed, restarting, timing out), the stream ends with a last comment,
# and the chunked answer ends properly.
# Otherwise the server would cut it, with a traceback in its log.

from __future__ import annotations

import logging
import socket
from typing import Callable, Iterator

import redis
from flask import Response, current_app, has_request_context, request, stream_with_context

log = logging.getLogger(__name__)

#: the last message of a stream whose store stopped answering: a comment, so that no client has
#: an event to handle, only a stream that ends (as it does after a few minutes)
UNREACHABLE = ": unavailable: the event store is not reachable; reconnect with Last-Event-ID\n\n"


def ending_when_unreachable(events: Iterator[str]) -> Iterator[str]:
    """The stream ``events``, ended by :data:`UNREACHABLE` (and one warning line) if Redis stops
    answering, and ended quietly once the process is asked to stop (service.api.stopping)."""
    from service.api.stopping import stopping

    try:
        for chunk in events:
            yield chunk
            if stopping():
                _ended_by_stop()
                return
    except (redis.RedisError, OSError) as exc:  # what service.api.problems answers with a 503
        if stopping():
            _ended_by_stop()  # its wait was closed by the stop: the client reconnects to another process
            return
        path = request.path if has_request_context() else "?"
        log.warning("stream %s ended: redis unavailable: %s", path, " ".join(str(exc).split())[:200] or repr(exc))
        yield UNREACHABLE


def _ended_by_stop() -> None:
    """A stream ended by the process's stop: its connection is closed after it, not kept alive."""
    # gunicorn would wait its keep-alive seconds for a next request on the connection.
    # Shut for reading, the connection reads as ended: the answer's last chunk is still written.
    sock = request.environ.get("gunicorn.socket") if has_request_context() else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass  # the client is gone already


def _counters(cap: int) -> list[tuple[str, str, int]]:
    """Whom this request's stream counts against, as the rate limit counts requests
    (service.ratelimit.identities): a token the server issued, and with it the address's
    token-bearing streams together (ADDRESS_TOKENS_FACTOR times the cap); else the address (an
    IPv6 one by its network, GINBOX_RATE_LIMIT_IPV6_PREFIX, as the rate limit counts it)."""
    from service.api.auth import presented_token
    from service.ratelimit import ADDRESS_TOKENS_FACTOR, IPV6_PREFIX, address_identity

    ext = current_app.extensions["ginbox"]
    address = address_identity(request.remote_addr or "unknown", getattr(ext.limiter, "ipv6_prefix", IPV6_PREFIX))
    token = presented_token(required=False, strict=False)
    if token and ext.token_check.issued(token, request.view_args):
        return [("token", token, cap), ("addr-tokens", address, cap * ADDRESS_TOKENS_FACTOR)]
    return [("addr", address, cap)]


def _giving_back(events: Iterator[str], give_back: Callable[[], None]) -> Iterator[str]:
    """``events``, giving their place back as soon as they end (before the answer's last chunk)."""
    try:
        yield from events
    finally:
        give_back()


def sse_response(events: Iterator[str]) -> Response:
    """The server-sent events answer of ``events`` (a validated stream: nothing sent yet), in a
    place of its client's: 429 ``rate_limited`` with Retry-After if the client has
    GINBOX_MAX_STREAMS_PER_CLIENT open already. The place is given back when the stream ends,
    runs dry, is cut by the client or the store, or is never read at all."""
    # Each open stream holds a place among its client's: the app's stream_places, built by
    # service.composition (service.store.stream_places.StreamPlaces).
    # At most GINBOX_MAX_STREAMS_PER_CLIENT streams of one token, or of one address without a token
    # the server issued, are open at once, counted in Redis for every API process.
    # One more is refused before its first byte.
    # A place is given back when its stream ends, however it ends.
    # One whose process died lapses within a minute.
    from service.api.problems import ApiError

    ext = current_app.extensions["ginbox"]
    cap = ext.settings.max_streams_per_client
    place = None
    if cap > 0:
        place, retry_after = ext.stream_places.take(_counters(cap))
        if place is None:
            raise ApiError(429, "rate_limited",
                           f"too many live streams open at once from this client (at most {cap}); "
                           "close one, or retry after the time in Retry-After",
                           headers={"Retry-After": str(retry_after)})
        events = _giving_back(events, place.give_back)
    resp = Response(stream_with_context(ending_when_unreachable(events)), mimetype="text/event-stream")
    if place is not None:
        resp.call_on_close(place.give_back)  # also when the body is never read (a failed write, HEAD)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"  # proxies must not hold events back
    return resp
