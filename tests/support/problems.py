"""The check every error test makes of an answer: the status, problem+json, and the stable code."""

from __future__ import annotations


def problem(resp, status: int, code: str) -> dict:
    """The problem body of a Flask test response that must be ``status`` with ``code``; its detail
    is set and carries no traceback."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == code and body["status"] == status, body
    assert body["detail"] and "Traceback" not in body["detail"]
    return body
