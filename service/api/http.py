"""Request parsing shared by the blueprints: JSON bodies, query strings, conditional headers."""

from __future__ import annotations

import functools
import hmac
import json
import re
import sys
from urllib.parse import quote

import orjson

from flask import Response, current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import ClientDisconnected, NotFound

from service.api.problems import ApiError

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7E]{1,200}$")
#: what If-Match may hold (openapi.yaml's IfMatch pattern): ``*``, or a comma-separated list of
#: the strong ETags this server gives, ``"<version>"`` (a move's answer) or ``"<version>-<digest>"``
#: (a view read by GET), each naming its version. Anything else (a weak tag, an opaque tag, a
#: version of more than 15 digits, a bare number) is no precondition a client meant: 400.
IF_MATCH_PATTERN = r'^(\*|"[0-9]{1,15}(-[0-9a-f]{16})?"([ \t]*,[ \t]*"[0-9]{1,15}(-[0-9a-f]{16})?")*)$'
_IF_MATCH = re.compile(IF_MATCH_PATTERN)
_TAG_VERSION = re.compile(r'"([0-9]+)(?:-[0-9a-f]{16})?"')
#: the longest request URI (path and query) the app answers; no request of openapi.yaml comes near
MAX_URI_BYTES = 4096


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class _DuplicateKey(ValueError):
    """A JSON object names a key twice (Python's json would keep the last one silently)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _object_without_duplicates(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _body_framing_error_types() -> tuple[type[BaseException], ...]:
    """What reading a body whose framing is broken raises: gunicorn's parse errors (a chunk size
    that is no hex number, a chunk without its CRLF), and the OSError/ValueError other servers and
    a connection cut mid-body raise."""
    try:
        from gunicorn.http.errors import ParseException
    except ImportError:
        return (OSError, ValueError)
    return (ParseException, OSError, ValueError)


_FRAMING_ERRORS = _body_framing_error_types()


def _close_after_answer() -> None:
    """Ask gunicorn to close the connection after this answer; under another server nothing changes."""
    # The rest of a body whose framing is broken cannot be skipped to find the next request.
    # Left open, gunicorn would try, fail the same way and write a second answer nobody asked for.
    # gunicorn drops a Connection header the app sets, so this marks its request object.
    # That is reached through the body reader gunicorn handed over as wsgi.input.
    reader = getattr(request.environ.get("wsgi.input"), "reader", None)
    req = getattr(reader, "req", None)
    if req is not None and hasattr(req, "must_close"):
        req.must_close = True


def _announced() -> tuple[int | None, bool]:
    """(the Content-Length, whether the body is chunked) the request announces."""
    return request.content_length, "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def request_body() -> bytes:
    """The request body as sent, the one place every route reads it (b"" when none is announced).

    413 body_too_large over the limit, also when no Content-Length announced it.
    400 bad_request when a chunked body's framing is broken.
    400 bad_request when the body ends before its Content-Length (the client half-closed or the connection dropped).
    """
    length, chunked = _announced()
    if length is None and not chunked:
        return b""
    # A body with a Content-Length over the limit was refused before the view (service.app).
    # A chunked one is only measured while it is read.
    # werkzeug stops reading such a stream at the limit without saying whether more was coming.
    # So the stream is read to one byte past it.
    limit = request.max_content_length
    if limit is not None and length is None:
        request.max_content_length = limit + 1
    try:
        raw = request.get_data(cache=True)
    except ClientDisconnected:
        raw = None  # werkzeug's own reader (no server that ends the stream) found the body cut
    except _FRAMING_ERRORS:
        _close_after_answer()
        raise ApiError(400, "bad_request", "the request body's chunked framing is malformed") from None
    if limit is not None and raw is not None and len(raw) > limit:
        raise ApiError(413, "body_too_large", f"the request body is larger than {limit} bytes")
    if not chunked and (raw is None or len(raw) < length):
        # the reader saw the connection end (half-closed or dropped) before the body did: what
        # is missing never comes, and the request is answered without being acted on.
        # A cut body is never acted on, even if what came is valid JSON.
        _close_after_answer()
        got = f"before the {length} bytes" if raw is None else f"after {len(raw)} of the {length} bytes"
        raise ApiError(400, "bad_request", f"the request body ended {got} its Content-Length announced: "
                                           "a cut body is not acted on; send it whole")
    return raw


def _refuse_content_encoding() -> None:
    """415 unsupported_encoding for a body sent with a Content-Encoding other than identity."""
    coding = request.headers.get("Content-Encoding")
    if coding is not None and any(c.strip().lower() not in ("", "identity") for c in coding.split(",")):
        raise ApiError(415, "unsupported_encoding",
                       f"request bodies are read as sent: send no Content-Encoding (or identity), not {coding[:40]!r}")


def _body_bytes() -> bytes:
    """The body of a route that takes one: 411 length_required when the request announces none
    (neither Content-Length nor chunked Transfer-Encoding: HTTP/1.1 reads such a request's body
    as empty), 415 unsupported_encoding when it has a Content-Encoding other than identity, else
    request_body()."""
    length, chunked = _announced()
    if length is None and not chunked:
        raise ApiError(411, "length_required",
                       "the request announces no body: send it with a Content-Length (or chunked)")
    _refuse_content_encoding()
    return request_body()


def refuse_body() -> None:
    """For an operation that takes no body (a challenge's answers): 400 invalid_body if one is
    sent anyway, whatever it holds (JSON or not, ``{}`` too), so that nothing is done on a
    request whose body says something the operation would ignore. No body, or an empty one
    (``Content-Length: 0``), is what it takes."""
    if request_body():
        raise ApiError(400, "invalid_body", "this operation takes no body: send none (Content-Length: 0, or no body)",
                       extra={"errors": {"_schema": ["This operation takes no body."]}})


def takes_no_body(view):
    """A view of an operation that takes no body: refuse_body() before anything else it does
    (its Idempotency-Key included: a refused request records nothing)."""
    @functools.wraps(view)
    def checked(*args, **kwargs):
        refuse_body()
        return view(*args, **kwargs)

    return checked


#: what Python's ValueError says of an integer of more digits than sys.get_int_max_str_digits()
_INT_TOO_LONG = "for integer string conversion"
#: the deepest a JSON body may nest arrays and objects (no request of openapi.yaml nests 5 levels)
MAX_JSON_DEPTH = 64


def _nested_too_deeply(data) -> bool:
    """Whether ``data`` nests arrays and objects more than MAX_JSON_DEPTH levels (``[]`` is 1)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _refuse_charset() -> None:
    """415 unsupported_media_type for a body declared in a charset other than UTF-8 (JSON is UTF-8)."""
    charset = request.mimetype_params.get("charset")
    if charset is not None and charset.strip().lower() != "utf-8":
        raise ApiError(415, "unsupported_media_type",
                       f"JSON bodies are UTF-8: send charset=utf-8 or no charset, not {charset[:40]!r}")


def json_body():
    """The parsed JSON body: 415 unless the body is declared JSON (in UTF-8), 411 if no body is
    announced, 400 invalid_json if it is not JSON (duplicate keys and nesting deeper than
    MAX_JSON_DEPTH included), 413 body_too_large if it is too large."""
    if not request.is_json:
        raise ApiError(415, "unsupported_media_type", "send the body as application/json")
    _refuse_charset()
    raw = _body_bytes()
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object_without_duplicates)
        # a \ud800 escape decodes to a lone surrogate, which no UTF-8 store can keep (valid
        # UTF-8 holds no surrogate, so only a body with a \u escape can carry one)
        if "\\u" in text:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
    except _DuplicateKey as dup:
        raise ApiError(400, "invalid_json", f"the key {dup.key!r} appears more than once in one object") from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError as exc:
        if _INT_TOO_LONG in str(exc):
            # JSON itself sets no limit, Python's int() does (sys.get_int_max_str_digits): a number
            # no request of openapi.yaml comes near, refused before any view reads the body
            raise ApiError(400, "invalid_json",
                           f"a number in the body is too long (an integer holds at most "
                           f"{sys.get_int_max_str_digits()} digits)") from None
        # (UnicodeError is a ValueError: a body that is not UTF-8, or a lone surrogate)
        raise ApiError(400, "invalid_json", "the body is not valid UTF-8 JSON") from None
    if raw.count(b"[") + raw.count(b"{") > MAX_JSON_DEPTH and isinstance(data, (dict, list)) \
            and _nested_too_deeply(data):
        raise _too_deep()
    return data


def _too_deep() -> ApiError:
    return ApiError(400, "invalid_json", f"the body nests arrays or objects more than {MAX_JSON_DEPTH} levels deep")


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
    """The versions named by If-Match (None: no precondition, or ``*``: the game exists, which it must).

    400 invalid_header when the header is not ``*`` nor a list of ``"<version>"`` tags. A tag
    written with leading zeros is well formed but names no ETag this server gave: it matches nothing.
    """
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip(" \t")
    if not _IF_MATCH.fullmatch(value):
        raise ApiError(400, "invalid_header", 'If-Match is * or a list of ETags this server gives, such as "7"',
                       extra={"errors": {"If-Match": ['Not * nor a list of "<version>" tags.']}})
    if value == "*":
        return None
    return {int(v) for v in _TAG_VERSION.findall(value) if v == str(int(v))}


def idempotency_key() -> str | None:
    """The Idempotency-Key header of a move, if any (400 invalid_header when malformed), as the
    client sent it (the use case records it under the caller's seat: service.games.Idempotency)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not IDEMPOTENCY_KEY.fullmatch(key):
        raise ApiError(400, "invalid_header", "Idempotency-Key is 1 to 200 visible ASCII characters",
                       extra={"errors": {"Idempotency-Key": ["Invalid value."]}})
    return key


def refuse_long_uri():
    """before_request: 414 uri_too_long for a URI (path and query) over MAX_URI_BYTES."""
    environ = request.environ
    # the path as sent (servers that keep it say so in RAW_URI or REQUEST_URI; some include the
    # query there, some do not), else as decoded, quoted again; then the query
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    path = raw.partition("?")[0] if raw is not None else quote(environ.get("PATH_INFO", ""), safe="/;:@&=+$,!~*'()")
    query = environ.get("QUERY_STRING", "")
    length = len(path) + (len(query) + 1 if query else 0)
    if length > MAX_URI_BYTES:
        raise ApiError(414, "uri_too_long", f"the request URI is longer than {MAX_URI_BYTES} bytes")


def refuse_unrouted_path():
    """before_request: 404 for a path that begins with '//' (service.api.problems.unrouted_path),
    as for any address no route serves; a '//' further in already matches no route."""
    from service.api.problems import unrouted_path

    if unrouted_path(request.environ):
        raise NotFound()


def json_response(payload, status: int = 200, headers: dict | None = None) -> Response:
    """A JSON answer with extra headers (compact UTF-8, keys in the payload's order).

    Keys that are not strings (none are expected) are written as strings, as the standard library would.
    """
    # Serialised with orjson rather than by jsonify.
    # A view is 1-2 KB of nested data, and its serialisation was the largest single step of a move's answer.
    # orjson does it about ten times faster (tests/bench/bench_api.py measures the effect).
    body = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)
    return Response(body, status, headers, mimetype="application/json")


def etag(version: int) -> str:
    """The strong ETag of a game version."""
    return f'"{version}"'


#: where the app keeps the key of its view tags (view_tag_key), once derived
VIEW_TAG_KEY_EXTENSION = "ginbox.view-tag-key"
_VIEW_TAG_LABEL = b"ginbox view tag v1"


def view_tag_key() -> bytes:
    """The key of this server's view tags: derived from the server's secret (GINBOX_SECRET, else
    the one kept in Redis, as for the creation records: the app's ``pepper``, service.composition), so
    every process of one server gives a view the same tag, and nobody without the secret can."""
    key = current_app.extensions.get(VIEW_TAG_KEY_EXTENSION)
    if key is None:
        # a key of its own (HMAC of a label under the secret), not the secret the records are sealed with
        pepper = current_app.extensions["ginbox"].pepper()
        key = current_app.extensions[VIEW_TAG_KEY_EXTENSION] = hmac.digest(pepper, _VIEW_TAG_LABEL, "sha256")
    return key


def view_etag(version: int, body: bytes, key: bytes) -> str:
    """The strong ETag of one view as sent: ``"<version>-<digest>"``.

    The digest is the first 16 hex digits of the body's HMAC-SHA256 under ``key`` (view_tag_key).
    Two views differ in their tag whenever they differ in a byte.
    The same view gets the same tag whoever asks.
    The version before the dash is what If-Match reads.
    """
    # Views that differ in a byte: a seat's and a spectator's view of one version, the captain's
    # before and after advice.
    # Keyed, because a plain hash of the body would let whoever sees a tag (in a log, a proxy,
    # a shared cache) test guesses of the hidden view it stands for offline.
    return f'"{version}-{hmac.digest(key, body, "sha256").hex()[:16]}"'


def conditional_view(payload: dict, version: int) -> Response:
    """A view read by GET: 200 with its ETag (view_etag), or 304 with no body when If-None-Match
    names that tag (weak comparison, ``*`` included). Either way ``Vary: Authorization``: the answer
    depends on the token sent."""
    resp = json_response(payload)
    tag = view_etag(version, resp.get_data(), view_tag_key())
    resp.headers["ETag"] = tag
    resp.vary.add("Authorization")
    wanted = request.if_none_match
    if wanted and (wanted.star_tag or wanted.contains_weak(tag.strip('"'))):
        not_modified = Response(status=304)
        del not_modified.headers["Content-Type"]  # no body, so no type of one
        not_modified.headers["ETag"] = tag
        not_modified.vary.add("Authorization")
        return not_modified
    return resp
