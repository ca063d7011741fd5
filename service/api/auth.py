"""Reading the seat token a request presents (``Authorization: Bearer``, or ``?token=`` for streams;
service.api.query refuses ``?token=`` on every other operation)."""

from __future__ import annotations

from flask import request

from service.api.problems import ApiError

MAX_TOKEN_LENGTH = 200


def unauthorized(detail: str) -> ApiError:
    """The 401 answer, with the challenge RFC 6750 asks for."""
    return ApiError(401, "unauthorized", detail, headers={"WWW-Authenticate": 'Bearer realm="ginbox"'})


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
