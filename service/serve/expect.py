"""gunicorn's ``100 Continue`` withheld from a request whose announced body is over the limit."""

from __future__ import annotations

import functools


@functools.cache
def _body_limit() -> int:
    from service.config import Settings

    return Settings.from_env().max_body_bytes


def _content_length(req) -> int | None:
    values = [value for name, value in req.headers if name == "CONTENT-LENGTH"]
    if len(values) != 1 or not values[0].strip().isdigit():
        return None  # none, or one gunicorn itself refuses
    return int(values[0])


def withhold_continue(req, limit: int | None = None) -> None:
    """Before gunicorn answers ``Expect: 100-continue``: none for a body over the limit, and the
    connection closed after the app's 413, the body never read (see OPERATE.md)."""
    if not getattr(req, "_expected_100_continue", False):
        return
    length = _content_length(req)
    if length is not None and length > (limit if limit is not None else _body_limit()):
        req._expected_100_continue = False
        req.must_close = True
