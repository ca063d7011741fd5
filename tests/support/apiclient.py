"""A Flask test client that checks every request/response against openapi.yaml.

Every response the API tests receive goes through ``ValidatingClient``: the response is
validated with openapi-core against the top-level openapi.yaml (status declared, headers,
content type and body schema), and so is the request whenever the server accepted it
(2xx): an accepted request must be one the spec allows. Error answers must also be
RFC 9457 problem+json with a stable ``code``, and no 500 may ever leave the app.
A violation raises ``ContractViolation`` (an AssertionError), which fails the test.
"""

from __future__ import annotations

import json as jsonlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask.testing import EnvironBuilder
from openapi_core import Config, OpenAPI
from openapi_core.deserializing.media_types.util import json_loads
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound, PathsNotFound
from openapi_core.validation.response.exceptions import DataValidationError
from werkzeug.datastructures import Headers

from service.api.problem_types import PROBLEM_TYPES, type_uri
from support.gameplay import parse_sse

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = REPO_ROOT / "openapi.yaml"

_NOT_SET = object()


class ContractViolation(AssertionError):
    """A request or response that openapi.yaml does not allow."""


@lru_cache(maxsize=1)
def load_openapi() -> OpenAPI:
    """The parsed top-level openapi.yaml (parsed once per process)."""
    # RFC 9457 problem documents are JSON: openapi-core only knows application/json by name
    # an event stream's schema is that of one message's data (checked one by one: _check_messages)
    config = Config(extra_media_type_deserializers={"application/problem+json": json_loads,
                                                    "text/event-stream": json_loads})
    return OpenAPI.from_file_path(str(SPEC_PATH), config=config)


#: the rate limiter's budgets besides GINBOX_RATE_LIMIT, switched off
NO_WINDOW_BUDGETS = {"stream_opens_per_minute": 0, "creations_per_hour": 0, "creations_per_day": 0,
                     "registrations_per_hour": 0, "registrations_per_day": 0}


def make_app(redis_url: str, key_prefix: str, **overrides):
    """The app as every API test builds it: real Redis, own key prefix, no practical rate limit (nor
    budget of stream opens, creations or registrations, unless the test sets one)."""
    from service.app import create_app
    from service.config import Settings

    settings = Settings(**{"redis_url": redis_url, "key_prefix": key_prefix, "rate_limit_per_minute": 100000,
                           **NO_WINDOW_BUDGETS, **overrides})
    return create_app(settings)


class _ResponseForValidation:
    """The openapi-core response protocol over a werkzeug response, without consuming a live stream."""

    def __init__(self, resp, body: bytes):
        self.data = body
        self.status_code = resp.status_code
        self.content_type = str(resp.mimetype or "")
        self.headers = Headers(resp.headers)


@dataclass
class ValidatingClient:
    """Flask's test client with openapi.yaml validation of every exchange."""

    app: Any
    openapi: OpenAPI = field(default_factory=load_openapi)
    check_problems: bool = True

    def __post_init__(self):
        self._local = threading.local()

    @property
    def _client(self):
        # one werkzeug client per thread: the concurrency tests share a ValidatingClient
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = self.app.test_client()
        return client

    # -- HTTP verbs ---------------------------------------------------------------------
    def get(self, path, **kw):
        return self.open("GET", path, **kw)

    def post(self, path, **kw):
        return self.open("POST", path, **kw)

    def put(self, path, **kw):
        return self.open("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.open("DELETE", path, **kw)

    def patch(self, path, **kw):
        return self.open("PATCH", path, **kw)

    def open(self, method: str, path: str, *, json: Any = _NOT_SET, data: bytes | str | None = None,
             headers: dict | None = None, query_string: dict | str | None = None,
             content_type: str | None = None, buffered: bool = True,
             validate_request: bool | None = None, token: str | None = None):
        """Send one request; validate the answer (and the request when accepted, or when asked)."""
        headers = dict(headers or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        kwargs: dict[str, Any] = {"method": method, "headers": headers}
        if json is not _NOT_SET:
            kwargs["json"] = json
        if data is not None:
            kwargs["data"] = data
        if content_type is not None:
            kwargs["content_type"] = content_type
        if query_string is not None:
            kwargs["query_string"] = query_string
        resp = self._client.open(path, buffered=buffered, **kwargs)
        streaming = resp.mimetype == "text/event-stream" and not resp.is_sequence
        body = b"" if streaming else resp.get_data()
        try:
            self._check(path, kwargs, resp, body, validate_request, streaming)
        except BaseException:
            resp.close()  # a live stream left open would keep its request context pushed
            raise
        return resp

    # -- validation -----------------------------------------------------------------------
    def openapi_request(self, path: str, kwargs: dict) -> WerkzeugOpenAPIRequest:
        """The openapi-core view of the request that was sent (rebuilt: the sent body was consumed)."""
        builder = EnvironBuilder(self.app, path, **kwargs)
        try:
            return WerkzeugOpenAPIRequest(builder.get_request())
        finally:
            builder.close()

    def _check(self, path, kwargs, resp, body: bytes, validate_request: bool | None, streaming: bool = False):
        where = f"{kwargs['method']} {path} -> {resp.status_code}"
        if resp.status_code >= 500 and resp.status_code != 503 and not _stated_server_problem(resp, body):
            raise ContractViolation(f"{where}: server error: {body[:500]!r}")
        if self.check_problems and resp.status_code >= 400:
            _check_problem(where, resp, body)
        request = self.openapi_request(path, kwargs)
        route_errors = (PathNotFound, PathsNotFound, OperationNotFound)
        try:
            errors = list(self.openapi.iter_response_errors(request, _ResponseForValidation(resp, body)))
        except route_errors as exc:
            errors = [exc]
        if any(isinstance(e, route_errors) for e in errors):
            # a route the spec does not describe: only an error answer is acceptable
            if resp.status_code < 400:
                raise ContractViolation(f"{where}: answered {resp.status_code} on a route openapi.yaml lacks")
            return
        sse = resp.mimetype == "text/event-stream"
        if sse:
            # the body of an event stream is a sequence of messages, each checked against the
            # spec's schema below (a live stream's are still to come: the test reading them checks them)
            errors = [e for e in errors if not isinstance(e, DataValidationError)]
        if errors:
            raise ContractViolation(f"{where}: response violates openapi.yaml: {_describe(errors[0])}\n"
                                    f"body: {body[:1000]!r}") from errors[0]
        if sse and not streaming and resp.status_code == 200:
            self._check_messages(where, request, resp, parse_sse(body.decode("utf-8")))
        if validate_request or (validate_request is None and 200 <= resp.status_code < 300):
            try:
                self.openapi.validate_request(request)
            except Exception as exc:
                raise ContractViolation(f"{where}: the server accepted a request openapi.yaml forbids: "
                                        f"{_describe(exc)}") from exc


    def check_stream_messages(self, path: str, messages: list, *, query_string: dict | str | None = None,
                              token: str | None = None, resp=None) -> int:
        """Check messages read from a live stream of GET ``path`` (SseEvent) as a buffered stream's
        are checked; how many were checked."""
        kwargs: dict[str, Any] = {"method": "GET", "headers": {"Authorization": f"Bearer {token}"} if token else {}}
        if query_string is not None:
            kwargs["query_string"] = query_string
        self._check_messages(f"GET {path}", self.openapi_request(path, kwargs), resp, messages)
        return len(messages)

    def _check_messages(self, where: str, request, resp, messages: list) -> None:
        """Each message's data is JSON whose ``type`` is its ``event:`` line, and matches the schema
        the spec gives the stream's messages (the oneOf of its kinds)."""
        headers = Headers(resp.headers) if resp is not None else Headers({"Cache-Control": "no-cache"})
        for message in messages:
            try:
                data = jsonlib.loads(message.data)
            except ValueError:
                raise ContractViolation(f"{where}: a message's data is not JSON: {message.data[:300]!r}") from None
            if not isinstance(data, dict) or data.get("type") != message.event:
                raise ContractViolation(f"{where}: a message's type is not its event line {message.event!r}: "
                                        f"{message.data[:300]!r}")
            event = {"event": message.event, "data": message.data, **({"id": message.id} if message.id else {})}
            errors = list(self.openapi.iter_response_errors(request, _Message(jsonlib.dumps(event).encode(), headers)))
            content = _content_schema(request.path)
            if not errors and content is not None:
                # JSON Schema only notes contentSchema: the data is checked against it here
                errors = list(_spec_validator(content).iter_errors(data))
            if errors:
                raise ContractViolation(f"{where}: a {message.event} message violates openapi.yaml: "
                                        f"{_describe(errors[0])}\ndata: {message.data[:1000]!r}") from errors[0]


@lru_cache(maxsize=1)
def _spec() -> dict:
    import yaml

    return yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def _content_schema(path: str) -> dict | None:
    """The ``contentSchema`` of the data of the events of the stream at ``path`` (a concrete path)."""
    import re

    for template, item in _spec()["paths"].items():
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        content = item.get("get", {}).get("responses", {}).get("200", {}).get("content", {})
        if "text/event-stream" in content and re.fullmatch(pattern, path):
            ref = content["text/event-stream"]["schema"]["$ref"].rsplit("/", 1)[-1]
            return _spec()["components"]["schemas"][ref]["properties"]["data"]["contentSchema"]
    return None


def _spec_validator(schema: dict):
    """A JSON Schema validator of ``schema``, its references resolved in openapi.yaml."""
    from openapi_schema_validator import OAS31Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resource("urn:openapi", Resource.from_contents(_spec(), DRAFT202012))
    return OAS31Validator({"$ref": "urn:openapi" + schema["$ref"]}, registry=registry)


class _Message:
    """One message of an event stream, as openapi-core reads a response: its data is the body."""

    def __init__(self, data: bytes, headers: Headers):
        self.data = data
        self.status_code = 200
        self.content_type = "text/event-stream"
        self.headers = headers


def _stated_server_problem(resp, body: bytes) -> bool:
    """Whether a 5xx answer is one the catalogue states with a code of its own (an archived record
    this server cannot read), not the bare ``internal_error`` of a failure."""
    from service.api.problem_types import PROBLEM_TYPES

    if resp.mimetype != "application/problem+json":
        return False
    try:
        code = jsonlib.loads(body).get("code")
    except ValueError:
        return False
    entry = PROBLEM_TYPES.get(code)
    return code != "internal_error" and entry is not None and resp.status_code in entry.statuses


def _check_problem(where: str, resp, body: bytes) -> None:
    """Every error answer is problem+json with type/title/status/code (RFC 9457 + our code)."""
    if resp.mimetype != "application/problem+json":
        raise ContractViolation(f"{where}: error answered as {resp.mimetype!r}, not application/problem+json: "
                                f"{body[:300]!r}")
    try:
        doc = jsonlib.loads(body)
    except ValueError:
        raise ContractViolation(f"{where}: problem body is not JSON: {body[:300]!r}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("code"), str) or doc.get("status") != resp.status_code:
        raise ContractViolation(f"{where}: problem lacks a code or the right status: {doc!r}")
    entry = PROBLEM_TYPES.get(doc["code"])
    if entry is None:
        raise ContractViolation(f"{where}: problem code {doc['code']!r} is not in the catalogue (GET /problems)")
    if resp.status_code not in entry.statuses:
        raise ContractViolation(f"{where}: {doc['code']!r} answered with {resp.status_code}; the catalogue "
                                f"gives {entry.statuses}")
    if doc.get("type") != type_uri(doc["code"]) or doc.get("title") != entry.title:
        raise ContractViolation(f"{where}: problem type or title is not the catalogue's: {doc!r}")
    text = body.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in text or 'File "/' in text:
        raise ContractViolation(f"{where}: a stack trace left the server: {text[:500]}")


def _describe(exc: Exception) -> str:
    parts = [f"{type(exc).__name__}: {exc}"]
    cause = exc.__cause__ or exc.__context__
    for sub in getattr(exc, "schema_errors", None) or getattr(cause, "schema_errors", None) or []:
        parts.append(f"  - {getattr(sub, 'message', sub)} at {list(getattr(sub, 'absolute_path', []))}")
    if cause is not None and len(parts) == 1:
        parts.append(f"  caused by {type(cause).__name__}: {cause}")
    return "\n".join(parts)
