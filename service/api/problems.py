"""RFC 9457 problem+json answers: the one error-to-HTTP map of the API."""

from __future__ import annotations

import logging

from flask import Flask, Response, current_app, has_request_context, json, request
from werkzeug.exceptions import HTTPException

from service import errors
from service.api.problem_types import HTTP_CODES, title_of, type_uri

PROBLEM_MIMETYPE = "application/problem+json"

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A refusal of the HTTP layer itself (a malformed header, body or query): status, code, detail."""

    def __init__(self, status: int, code: str, detail: str, headers: dict | None = None,
                 extra: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra or {}


#: the status of each kind of refusal of the use cases (service.errors): the one place they meet HTTP
DOMAIN_STATUSES: dict[type[errors.DomainError], int] = {
    errors.NotFound: 404,
    errors.Unauthorized: 401,
    errors.Forbidden: 403,
    errors.Conflict: 409,
    errors.VersionMismatch: 412,
    errors.Unprocessable: 422,
    errors.TooMany: 429,
}


def _domain_status(exc: errors.DomainError) -> int:
    for cls in type(exc).__mro__:
        if cls in DOMAIN_STATUSES:
            return DOMAIN_STATUSES[cls]
    return 500


def bearer_challenge(invalid_token: bool) -> str:
    """The WWW-Authenticate value of a 401 (RFC 6750 §3): ``error="invalid_token"`` only when a
    token was presented; a request that sent none (or another scheme) gets the bare challenge."""
    return 'Bearer realm="ginbox", error="invalid_token"' if invalid_token else 'Bearer realm="ginbox"'


def _bearer_token_presented() -> bool:
    """Whether the request being answered presented a bearer token (its header, or ``?token=``)."""
    if not has_request_context():
        return True
    scheme, _, value = request.headers.get("Authorization", "").strip().partition(" ")
    return (scheme.lower() == "bearer" and bool(value.strip())) or bool(request.args.get("token"))


def _domain_headers(exc: errors.DomainError) -> dict:
    """The headers a refusal carries: the challenge of RFC 6750, the ETag of the version the game is
    at, when to retry a request whose Idempotency-Key is in use."""
    if isinstance(exc, errors.Unauthorized):
        return {"WWW-Authenticate": bearer_challenge(_bearer_token_presented())}
    if isinstance(exc, errors.VersionMismatch) and exc.current is not None:
        return {"ETag": f'"{exc.current}"'}
    if isinstance(exc, (errors.IdempotencyKeyInUse, errors.TooMany)):
        return {"Retry-After": str(exc.retry_after)}
    return {}


def problem_response(status: int, code: str, detail: str, headers: dict | None = None,
                     extra: dict | None = None) -> Response:
    """A problem+json response with a stable ``code``; its type and title come from the catalogue."""
    body = {
        "type": type_uri(code),
        "title": title_of(code),
        "status": status,
        "code": code,
        "detail": detail,
        **(extra or {}),
    }
    resp = Response(json.dumps(body), status=status, mimetype=PROBLEM_MIMETYPE)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def from_api_error(err: ApiError) -> Response:
    """The problem+json response of an ApiError."""
    return problem_response(err.status, err.code, err.detail, err.headers, err.extra)


def to_problem(exc: BaseException) -> Response:
    """Map any exception to its problem+json response; unknown ones become a bare 500."""
    # imported here: the map names every layer's errors, and importing them at module level
    # would make this module the one that drags the engine and the store into everything
    import marshmallow
    import redis

    from service.rules.errors import RulesError

    if isinstance(exc, ApiError):
        return from_api_error(exc)
    if isinstance(exc, errors.DomainError):
        return problem_response(_domain_status(exc), exc.code, exc.detail, _domain_headers(exc))
    if isinstance(exc, RulesError):
        return problem_response(403 if exc.forbidden else 409 if exc.conflict else 422, exc.code, exc.message)
    if isinstance(exc, errors.ConcurrencyError):
        return problem_response(409, "conflict", "the game moved on while the command was decided; "
                                "load the game again and retry")
    if isinstance(exc, errors.IdempotencyConflict):
        return problem_response(422, "idempotency_key_reused",
                                "this Idempotency-Key was already used for a different request")
    if isinstance(exc, errors.InvalidCursor):
        return problem_response(400, "invalid_query", "the cursor is not one this server handed out",
                                extra={"errors": {"cursor": ["Invalid cursor."]}})
    if isinstance(exc, marshmallow.ValidationError):
        return problem_response(400, "invalid_body", "the request body does not match its schema",
                                extra={"errors": _messages(exc.messages)})
    if isinstance(exc, HTTPException):
        status = exc.code or 500
        unrouted = status == 404 and has_request_context() and request.method in ("GET", "HEAD") and (
            request.url_rule is None or unrouted_path(request.environ))
        if unrouted:
            # an address no route serves: a browser following a mistyped link gets the site's
            # not-found page (the pages register how it is drawn), any other client the problem below
            not_found_page = current_app.extensions.get(NOT_FOUND_PAGE)
            page = not_found_page and not_found_page("There is no page at this address.",
                                                     "check the link, or start from the lobby")
            if page is not None:
                return page
        code = HTTP_CODES.get(status, "http_error")
        headers = {}
        if unrouted:
            headers["Vary"] = "Accept"  # the other variant of the not-found page above
        if status == 405 and exc.valid_methods:
            headers["Allow"] = ", ".join(sorted(exc.valid_methods))
        detail = exc.description or exc.name
        if status == 413:
            detail = "the request body is larger than this server accepts"
        return problem_response(status, code, detail, headers=headers)
    if isinstance(exc, errors.ArchiveUnreadable):
        # a record from a newer server (after a downgrade) or a damaged one: the operator's to fix
        log.error("%s (%s)", exc, exc.code)
        if exc.code == "archive_format_unsupported":
            return problem_response(500, "archive_format_unsupported",
                                    "the game was archived by a newer server, in a format this one cannot read")
        return problem_response(500, "archive_unreadable", "the game's archived record is damaged and cannot be read")
    if isinstance(exc, (redis.RedisError, OSError)):
        log.warning("redis unavailable: %r", exc)
        return problem_response(503, "redis_unavailable",
                                "the event store is not reachable; retry shortly (a request sent with an "
                                "Idempotency-Key: again with the same key, which finds what it may have made)",
                                headers={"Retry-After": "1"})
    log.exception("unhandled error", exc_info=exc)
    return problem_response(500, "internal_error", "the server failed to answer this request")


def unrouted_path(environ) -> bool:
    """Whether the path as sent begins with '//': no address of the API, though werkzeug's routing,
    which drops the slashes a path begins with, would match it as the address with one."""
    return environ.get("PATH_INFO", "").startswith("//")


def _messages(messages) -> dict:
    """marshmallow's messages as an object (a list at the top level becomes ``_schema``)."""
    if isinstance(messages, dict):
        return messages
    return {"_schema": messages if isinstance(messages, list) else [str(messages)]}


#: the app's extension under which the web pages leave their not-found page, ``(what, detail) ->
#: Response | None`` (None: the client prefers JSON), for addresses no route serves
NOT_FOUND_PAGE = "ginbox.not_found_page"


def register_error_handlers(app: Flask) -> None:
    """Route every exception raised while answering a request through :func:`to_problem`."""
    app.register_error_handler(Exception, to_problem)
    # werkzeug answers 404/405 from routing as HTTPExceptions, which Exception already covers;
    # registering the base class too makes the intent explicit
    app.register_error_handler(HTTPException, to_problem)


# -- errors gunicorn answers itself ---------------------------------------------------------------

#: gunicorn's own error answers (a request it cannot parse or will not read: request line too
#: long, too many or too large headers, a garbled request line, an unknown transfer coding)
#: never reach the app; this is the code each status gets
_GUNICORN_CODES = {**HTTP_CODES, 500: "internal_error"}
_GUNICORN_DETAILS = {
    400: "the HTTP request itself is malformed",
    414: "the request line is longer than the server reads",
    431: "the request's headers are more or larger than the server reads",
    500: "the server failed to answer this request",
    501: "the server does not implement this transfer coding",
}


def gunicorn_problem(status: int, reason: str) -> bytes:
    """The whole HTTP/1.1 answer gunicorn sends for an error of its own: problem+json, connection closed."""
    code = _GUNICORN_CODES.get(status, "http_error")
    body = json.dumps({
        "type": type_uri(code),
        "title": title_of(code),
        "status": status,
        "code": code,
        "detail": _GUNICORN_DETAILS.get(status, reason.lower() or "the request was refused"),
    }).encode("utf-8")
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM_MIMETYPE}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def _linger(sock, max_bytes: int = 1 << 20, seconds: float = 1.0) -> None:
    """Close the sending side, then read what the client still sends, for a little while.

    It reads on for at most ``seconds`` and ``max_bytes``.
    """
    # gunicorn closes the connection right after its answer.
    # A client still sending (the rest of an over-long request line, say) would then get a reset,
    # often before it reads the answer.
    # Reading on lets it finish and read the problem.
    import socket
    import time

    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        return
    deadline = time.monotonic() + seconds
    received = 0
    try:
        while received < max_bytes:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            sock.settimeout(left)
            data = sock.recv(65536)
            if not data:
                return
            received += len(data)
    except OSError:
        return


def install_gunicorn_problem_errors() -> None:
    """Make gunicorn (in this process) write its own error answers as problem+json.

    gunicorn writes them, after logging them, through ``gunicorn.util.write_error`` (an HTML
    page otherwise); the worker process calls this from the ``post_worker_init`` hook of its
    config module, service.metrics. Without gunicorn, or with one lacking that function, nothing
    changes.
    """
    try:
        from gunicorn import util
    except ImportError:
        return
    if not hasattr(util, "write_error") or getattr(util.write_error, "_ginbox_problem", False):
        return

    def write_error(sock, status_int, reason, mesg):
        util.write_nonblock(sock, gunicorn_problem(int(status_int), str(reason)))
        _linger(sock)

    write_error._ginbox_problem = True
    util.write_error = write_error
