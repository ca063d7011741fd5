"""Structured logs: one JSON object per line, carrying the game id and version in play.

A line's fields beside its message come from the context bound with :func:`bind`.

    configure_logging()                      # JSON lines on stderr, level from GINBOX_LOG_LEVEL
    init_request_logging(app)                # the per-request context and access line
    with bind(game_id=gid, version=v): ...   # anywhere else
"""

from __future__ import annotations

import contextvars
import datetime as _dt
import json
import logging
import math
import re
import secrets
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

from service.config import env_log_level

#: the logger of the one access line per request
ACCESS_LOGGER = "ginbox.access"
# attributes every LogRecord has: anything else set through ``extra=`` is a field of the line
_RECORD_ATTRS = set(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {"message", "asctime"}

# a contextvars context, so each request thread and each job has its own
_context: contextvars.ContextVar[dict] = contextvars.ContextVar("ginbox_log_context", default={})


#: a converter in a route template (``<game:game_id>``): a route is named by its variables alone
_CONVERTER = re.compile(r"<[^:<>]+:([^<>]+)>")


def route_template(rule) -> str:
    """A Flask rule's template as logs and metrics name it (``/games/<game_id>``, whatever its converters)."""
    return _CONVERTER.sub(r"<\1>", rule.rule)


def current_context() -> dict:
    """The fields bound in this context."""
    return dict(_context.get())


@contextmanager
def bind(**fields: Any) -> Iterator[None]:
    """Add ``fields`` to every log line written inside the block (None values are dropped)."""
    # A worker binds game_id and version around a bot turn.
    # Every line logged inside then carries them.
    token = _context.set({**_context.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _context.reset(token)


def bind_fields(**fields: Any) -> None:
    """Add fields to the current context until it ends (e.g. until the request is over)."""
    _context.set({**_context.get(), **{k: v for k, v in fields.items() if v is not None}})


#: one encoder for every line: json.dumps with options builds a new one on each call
_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":"))


def _timestamp(created: float, _last: list = [-1, ""]) -> str:  # noqa: B006 (the cache of the last second)
    """``created`` (epoch seconds) as ISO 8601 in UTC to the millisecond: 2026-01-02T03:04:05.678+00:00.

    The text of the second is kept from the line before: most lines share it.
    """
    # rounded to the microsecond first, then cut to the millisecond, as datetime.isoformat does
    frac, whole = math.modf(created)
    us = round(frac * 1_000_000)
    second = int(whole) + us // 1_000_000
    ms = us % 1_000_000 // 1000
    if second != _last[0]:
        text = _dt.datetime.fromtimestamp(second, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        _last[:] = [second, text]  # one assignment: a thread reading it sees either pair whole
    else:
        text = _last[1]
    return f"{text}.{ms:03d}+00:00"


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ts, level, logger, message, the bound context and ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": _timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        doc.update(getattr(record, "ginbox_context", None) or _context.get())
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRS and key != "ginbox_context" and not key.startswith("_"):
                doc[key] = value
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            doc["stack"] = self.formatStack(record.stack_info)
        return _ENCODER.encode(doc)


class ContextFilter(logging.Filter):
    """Freezes the bound context onto the record when it is made (a handler may format it later)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "ginbox_context"):
            record.ginbox_context = _context.get()
        return True


def configure_logging(level: str | int | None = None, stream=None) -> logging.Handler:
    """Send every log record to ``stream`` (stderr) as JSON lines; returns the handler installed.

    Replaces the root logger's handlers, so call it once at process start (``ginbox serve``,
    ``ginbox worker``, gunicorn's ``post_worker_init``).
    """
    # a bad GINBOX_LOG_LEVEL is refused where the settings are read (SettingError, one line), as here
    level = level or env_log_level("GINBOX_LOG_LEVEL")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level if isinstance(level, int) else str(level).upper())
    return handler


# -- the API's per-request context -----------------------------------------------------------------

def _etag_version(response) -> int | None:
    tag = response.headers.get("ETag")
    if not tag:
        return None
    # "<version>", or a view's "<version>-<digest>"
    tag = tag.strip().removeprefix("W/").strip('"').partition("-")[0]
    return int(tag) if tag.isdigit() and len(tag) <= 15 else None


#: an X-Request-ID a client may choose: 1 to 64 letters, digits, '.', '_' or '-'
REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def client_request_id(value: str | None) -> str | None:
    """The client's X-Request-ID if it is a safe token (REQUEST_ID), else None (the server makes one)."""
    # The id is written in every log line of the request and sent back.
    # Anything else could forge or garble the lines it is meant to correlate:
    # spaces, quotes, control or non-ASCII characters, more than 64 characters.
    # So such an id is not cut down but replaced.
    if value is not None and REQUEST_ID.fullmatch(value):
        return value
    return None


def init_request_logging(app) -> None:
    """Bind each request's id, method, route and game id; log one ``request`` line per answer."""
    # The request line carries its status, its duration and the game version it answered (from the ETag).
    from flask import g, request

    access = logging.getLogger(ACCESS_LOGGER)

    def start() -> None:
        g._ginbox_log_t0 = time.perf_counter()
        g._ginbox_log_token = _context.set({})
        view_args = request.view_args or {}
        rule = request.url_rule
        bind_fields(
            request_id=client_request_id(request.headers.get("X-Request-ID")) or secrets.token_hex(8),
            method=request.method,
            route=route_template(rule) if rule is not None else None,
            game_id=view_args.get("game_id"),
        )

    def finish(response):
        t0 = g.get("_ginbox_log_t0")
        version = _etag_version(response)
        if version is not None:
            bind_fields(version=version)
        response.headers.setdefault("X-Request-ID", _context.get().get("request_id", ""))
        if access.isEnabledFor(logging.INFO):
            # the record is made and handled as Logger.info would, without its search of the stack
            # for the caller's file and line: no line of ours shows them
            access.handle(access.makeRecord(ACCESS_LOGGER, logging.INFO, "", 0, "request", (), None, extra={
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - t0) * 1000, 3) if t0 is not None else None,
            }))
        return response

    def end(_exc) -> None:
        token = g.pop("_ginbox_log_token", None)
        if token is not None:
            try:
                _context.reset(token)
            except ValueError:
                _context.set({})  # reset from another context (a streamed answer): just clear

    app.before_request_funcs.setdefault(None, []).insert(0, start)
    app.after_request(finish)
    app.teardown_request(end)
