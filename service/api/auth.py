"""Reading the seat token a request presents (``Authorization: Bearer``, or ``?token=`` for streams;
service.api.query refuses ``?token=`` on every other operation)."""

from __future__ import annotations

from flask import request

from service.api.problems import ApiError, bearer_challenge

MAX_TOKEN_LENGTH = 200


#: the token each kind of route wants, as its 401's detail names it (a game's routes want a seat
#: token; the arena's a bot account's token; a person's challenge is withdrawn with the token its
#: answer gave)
_WANTS = {"seat": "seat token", "bot": "bot token", "challenge": "challenge's token"}


def unauthorized(detail: str, wants: str = "seat") -> ApiError:
    """The 401 answer for a token missing or malformed, with the challenge RFC 6750 asks for; its
    code names the token ``wants`` (see _WANTS)."""
    headers = {"WWW-Authenticate": bearer_challenge(False)}
    if wants == "bot":
        return ApiError(401, "bot_token_required", detail, headers=headers)
    if wants == "challenge":
        return ApiError(401, "challenge_token_required", detail, headers=headers)
    return ApiError(401, "unauthorized", detail, headers=headers)


def presented_token(required: bool, strict: bool = True, allow_query: bool = False,
                    wants: str = "seat") -> str | None:
    """The token of the request, or None; a malformed Authorization header is a 401 when ``strict``.

    ``wants`` names the token the route takes (``seat``, ``bot`` or ``challenge``): a 401 carries
    that token's code and names it in its detail.
    """
    name = _WANTS[wants]
    header = request.headers.get("Authorization")
    token = None
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        value = value.strip()
        if scheme.lower() == "bearer" and value and len(value) <= MAX_TOKEN_LENGTH:
            token = value
        elif strict:
            raise unauthorized(f"the Authorization header must be 'Bearer <{name}>'", wants)
    if token is None and (allow_query or not strict):
        value = request.args.get("token")
        if value and len(value) <= MAX_TOKEN_LENGTH:
            token = value
        elif value is not None and strict:
            raise unauthorized(f"the token parameter is not a {name}", wants)
    if token is None and required:
        raise unauthorized(f"this request needs a {name}: 'Authorization: Bearer <{name}>'", wants)
    return token
