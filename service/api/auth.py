"""Reading the seat token a request presents (``Authorization: Bearer``, or ``?token=`` for streams)."""

from __future__ import annotations

from flask import request

from service.api.problems import ApiError

MAX_TOKEN_LENGTH = 200


def unauthorized(detail: str) -> ApiError:
    """The 401 answer, with the challenge RFC 6750 asks for."""
    return ApiError(401, "unauthorized", detail, headers={"WWW-Authenticate": 'Bearer realm="ginbox"'})


def refuse_query_token(allowed_endpoints: frozenset[str] | set[str] = frozenset()):
    """A before_request hook: 400 invalid_query for ``?token=`` on any endpoint but ``allowed_endpoints``.

    Only the stream takes a token in its URL (browsers' EventSource cannot send headers).
    Elsewhere the parameter would be ignored, and a client that put its token there would be
    answered as a spectator without noticing; refusing it tells the client at once.
    """

    def hook():
        if "token" in request.args and request.endpoint not in allowed_endpoints:
            raise ApiError(400, "invalid_query",
                           "send the seat token as 'Authorization: Bearer <token>'; only the stream takes ?token=",
                           extra={"errors": {"token": ["Only GET /games/{game_id}/stream takes a token here."]}})
        return None

    return hook


def presented_token(required: bool, strict: bool = True, allow_query: bool = False) -> str | None:
    """The token of the request, or None; a malformed Authorization header is a 401 when ``strict``."""
    header = request.headers.get("Authorization")
    token = None
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer" and value and len(value) <= MAX_TOKEN_LENGTH:
            token = value
        elif strict:
            raise unauthorized("the Authorization header must be 'Bearer <seat token>'")
    if token is None and (allow_query or not strict):
        value = request.args.get("token")
        if value and len(value) <= MAX_TOKEN_LENGTH:
            token = value
        elif value is not None and strict:
            raise unauthorized("the token parameter is not a seat token")
    if token is None and required:
        raise unauthorized("this request needs a seat token: 'Authorization: Bearer <token>'")
    return token
