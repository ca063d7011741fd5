"""Errors the service layer raises for its callers to answer: no web framework here.

``service.api.problems`` turns a ServiceError into an RFC 9457 problem+json answer; the service
layer (``service.games``) raises it without knowing about Flask or HTTP answers.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal with an HTTP status, a stable ``code`` and a human ``detail``."""

    def __init__(self, status: int, code: str, detail: str, headers: dict | None = None,
                 extra: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra or {}
