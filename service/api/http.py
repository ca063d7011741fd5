"""Request parsing shared by the blueprints: JSON bodies, query strings, conditional headers."""

from __future__ import annotations

import json
import re

import orjson

from flask import Response, request
from marshmallow import Schema, ValidationError

from service.api.problems import ApiError

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7E]{1,200}$")
_ETAG = re.compile(r'^"([0-9]{1,15})"$')


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def json_body():
    """The parsed JSON body: 415 unless the body is declared JSON, 400 invalid_json if it is not."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "send the body as application/json")
    raw = request.get_data(cache=True)
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, parse_constant=_reject_constant)
        # a \ud800 escape decodes to a lone surrogate, which no UTF-8 store can keep (valid
        # UTF-8 holds no surrogate, so only a body with a \u escape can carry one)
        if "\\u" in text:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeError, RecursionError):
        raise ApiError(400, "invalid_json", "the body is not valid UTF-8 JSON") from None
    return data


def load_body(schema: Schema) -> tuple[dict, object]:
    """(the body loaded through ``schema``, the raw JSON): 400 invalid_body with per-field errors."""
    raw = json_body()
    return schema.load(raw), raw


def load_query(schema: Schema) -> dict:
    """Query parameters loaded through ``schema``: 400 invalid_query with per-parameter errors."""
    try:
        return schema.load(request.args.to_dict())
    except ValidationError as err:
        raise ApiError(400, "invalid_query", "a query parameter is invalid",
                       extra={"errors": err.messages if isinstance(err.messages, dict) else {"_schema": err.messages}}) from None


def if_match_versions() -> set[int] | None:
    """The versions named by If-Match (None: no precondition). A tag that names no version matches nothing."""
    raw = request.headers.get("If-Match")
    if raw is None or raw.strip() == "*":
        return None
    found = set()
    for tag in raw.split(","):
        m = _ETAG.match(tag.strip())
        if m:
            found.add(int(m.group(1)))
    return found


def idempotency_key() -> str | None:
    """The Idempotency-Key header, if any (400 invalid_header when malformed)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not IDEMPOTENCY_KEY.match(key):
        raise ApiError(400, "invalid_header", "Idempotency-Key is 1 to 200 visible ASCII characters",
                       extra={"errors": {"Idempotency-Key": ["Invalid value."]}})
    return key


def json_response(payload, status: int = 200, headers: dict | None = None) -> Response:
    """A JSON answer with extra headers (compact UTF-8, keys in the payload's order).

    Serialised with orjson rather than by ``jsonify``: a view is 1-2 KB of nested data and its
    serialisation was the largest single step of a move's answer; orjson does it about ten
    times faster (tests/bench/bench_api.py measures the effect). Keys that are not strings
    (none are expected) are written as strings, as the standard library would.
    """
    body = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)
    return Response(body, status, headers, mimetype="application/json")


def etag(version: int) -> str:
    """The strong ETag of a game version."""
    return f'"{version}"'
