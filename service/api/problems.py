"""RFC 9457 problem+json answers: the one error-to-HTTP map of the API."""

from __future__ import annotations

from flask import Response, json

PROBLEM_TYPE_BASE = "https://ginbox.dev/problems/"


class ApiError(Exception):
    """An error the API answers with a problem+json body and a stable ``code``."""

    def __init__(self, status: int, code: str, detail: str, title: str | None = None,
                 headers: dict | None = None, extra: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title or code.replace("_", " ").capitalize()
        self.headers = headers or {}
        self.extra = extra or {}


def problem_response(status: int, code: str, detail: str, title: str | None = None,
                     headers: dict | None = None, extra: dict | None = None) -> Response:
    body = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title or code.replace("_", " ").capitalize(),
        "status": status,
        "code": code,
        "detail": detail,
        **(extra or {}),
    }
    resp = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def from_api_error(err: ApiError) -> Response:
    return problem_response(err.status, err.code, err.detail, err.title, err.headers, err.extra)
