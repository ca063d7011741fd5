"""Cross-origin requests (CORS), so that a gin client running in a browser can call the API.

Every origin is allowed by default (``GINBOX_CORS_ORIGINS=*``).
A comma-separated list of origins narrows it, and an empty value turns CORS off.
A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered 204 before
routing, rate limits or authentication.
Any other OPTIONS request is still 405.
"""

# Seat tokens travel in the Authorization header (or ?token= for streams), never in cookies.
# A browser attaches them to no request by itself.
# So letting any origin read answers grants a page nothing its user did not paste into it.
# That is why every origin is allowed by default.
# A preflight is not an operation of the API, so openapi.yaml does not list it.

from __future__ import annotations

from flask import Flask, Response, request

#: what a browser may send and read beyond the CORS-safelisted headers
ALLOW_METHODS = "GET, POST, PATCH, DELETE"
ALLOW_HEADERS = ("Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, "
                 "X-Request-ID")
EXPOSE_HEADERS = ("ETag, Idempotent-Replayed, Link, Location, RateLimit, RateLimit-Policy, Retry-After, WWW-Authenticate, "
                  "X-Request-ID")
#: how long a browser may keep a preflight's answer, in seconds
MAX_AGE_S = 86400


def parse_origins(value: str) -> frozenset[str] | None:
    """The origins a setting allows: None for every origin ('*'), an empty set for none."""
    items = {part.strip().rstrip("/") for part in value.split(",") if part.strip()}
    if "*" in items:
        return None
    return frozenset(items)


def init_cors(app: Flask, origins: str) -> None:
    """Answer preflights and mark answers readable by the allowed origins (``origins``: GINBOX_CORS_ORIGINS)."""
    allowed = parse_origins(origins)
    if allowed is not None and not allowed:
        return

    def allow_origin(origin: str) -> str | None:
        if allowed is None:
            return "*"
        return origin if origin in allowed else None

    def preflight() -> Response | None:
        origin = request.headers.get("Origin")
        if request.method != "OPTIONS" or not origin or "Access-Control-Request-Method" not in request.headers:
            return None
        granted = allow_origin(origin)
        if granted is None:
            return None  # not an allowed origin: the request goes on to be refused (405)
        resp = Response(status=204)
        del resp.headers["Content-Type"]  # no content, no type
        resp.headers["Access-Control-Allow-Methods"] = ALLOW_METHODS
        resp.headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
        resp.headers["Access-Control-Max-Age"] = str(MAX_AGE_S)
        return resp

    def mark(response: Response) -> Response:
        origin = request.headers.get("Origin")
        granted = allow_origin(origin) if origin else None
        if allowed is not None:
            response.vary.add("Origin")  # the answer depends on the Origin sent
        if granted is not None:
            response.headers["Access-Control-Allow-Origin"] = granted
            response.headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        return response

    # before the rate limit and the rest: a preflight carries no token and counts for nothing
    app.before_request_funcs.setdefault(None, []).insert(0, preflight)
    app.after_request(mark)
