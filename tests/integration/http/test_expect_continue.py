"""``Expect: 100-continue``: a body the server will refuse for its size is refused at once (413),
without the ``100 Continue`` that would invite the client to send it; a body within the limit gets
its 100 as before. Spoken byte by byte to the API under gunicorn, as ``ginbox serve`` runs it."""

from __future__ import annotations

import json
import socket

import pytest

LIMIT = 64 * 1024  # GINBOX_MAX_BODY_BYTES' default, which the server under test keeps


def _head(port: int, headers: bytes, body: bytes = b"", wait_s: float = 10.0) -> tuple[bytes, socket.socket]:
    """Send a request's head (and ``body`` right after it); the first bytes the server answers."""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait_s)
    s.sendall(headers + body)
    first = s.recv(65536)
    return first, s


def _rest(s: socket.socket) -> bytes:
    """Everything the server writes until it closes the connection."""
    out = b""
    with s:
        while part := s.recv(65536):
            out += part
    return out


@pytest.mark.parametrize("length", [LIMIT + 1, 10 * LIMIT, 10**12])
def test_a_body_over_the_limit_with_expect_100_continue_is_413_without_the_100(gunicorn_api, length):
    head = (f"POST /games HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nExpect: 100-continue\r\n\r\n").encode()
    first, s = _head(gunicorn_api.port, head)
    assert first.startswith(b"HTTP/1.1 413 "), first[:200]
    assert b"100 Continue" not in first
    answer = first + _rest(s)  # the body never comes: the server closes the connection after its 413
    assert b"100 Continue" not in answer
    _, _, body = answer.partition(b"\r\n\r\n")
    assert b"application/problem+json" in answer.partition(b"\r\n\r\n")[0]
    assert json.loads(body)["code"] == "body_too_large"


def test_a_body_within_the_limit_with_expect_100_continue_gets_its_100_and_is_read(gunicorn_api):
    body = json.dumps({"cards": ["AS", "2S", "3S"]}).encode()
    head = (f"POST /analysis/melds HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n").encode()
    first, s = _head(gunicorn_api.port, head)
    assert first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), first[:200]
    s.sendall(body)
    answer = first[len(b"HTTP/1.1 100 Continue\r\n\r\n"):] + _rest(s)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["deadwood"] == 0
