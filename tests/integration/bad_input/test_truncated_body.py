"""A request body that ends before its Content-Length is never acted on.

A client that announces ``Content-Length: 100``, sends 18 bytes of valid JSON and half-closes the
connection (or loses it) sent a request nobody can read whole: the server answers 400
``bad_request`` (application/problem+json), creates nothing and closes the connection, on every
route that reads a body. Body framing is the server's business, so the cut is sent as raw bytes
to the API under gunicorn, as ``ginbox serve`` runs it; the same request through Flask's test
client (werkzeug's own reader) is refused the same way.
"""

from __future__ import annotations

import io
import json
import socket
import uuid

import pytest

from support.apiclient import make_app

BODY = b'{"name":"trunc77"}'


def _answer(port: int, head: bytes, body: bytes) -> tuple[int, dict, bytes]:
    """The one answer to ``head`` and ``body`` sent on a connection half-closed after them."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head + body)
        s.shutdown(socket.SHUT_WR)  # nothing more is coming
        raw = b""
        while True:
            part = s.recv(65536)
            if not part:
                break
            raw += part
    head, _, rest = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    n = int(headers["content-length"])
    assert len(rest) == n, raw  # one answer, then the connection closes
    return int(lines[0].split()[1]), headers, rest


def _get(port: int, path: str) -> int:
    status, _, _ = _answer(port, f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode(), b"")
    return status




def _post(path: str, length: int, keep_alive: bool = False) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: t", "Content-Type: application/json", f"Content-Length: {length}",
             *([] if keep_alive else ["Connection: close"])]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _refused_as_cut(status: int, headers: dict, body: bytes, length: int, got: int) -> None:
    assert status == 400 and headers["content-type"] == "application/problem+json", body
    problem = json.loads(body)
    assert problem["code"] == "bad_request" and problem["type"] == "/problems/bad_request", problem
    assert f"{got} of the {length} bytes" in problem["detail"], problem


def test_behind_gunicorn_a_bot_registered_with_a_cut_body_is_refused_and_not_made(gunicorn_api):
    port = gunicorn_api.port
    status, headers, body = _answer(port, _post("/bots", 100), BODY)
    _refused_as_cut(status, headers, body, 100, len(BODY))
    assert _get(port, "/bots/trunc77") == 404
    # one answer only, also when the client asked to keep the connection: the missing bytes are
    # not taken for a next request
    status, headers, body = _answer(port, _post("/bots", 100, keep_alive=True), BODY)
    _refused_as_cut(status, headers, body, 100, len(BODY))
    assert _get(port, "/bots/trunc77") == 404
    # the same body whole is read
    status, _, body = _answer(port, _post("/bots", len(BODY)), BODY)
    assert status == 201 and json.loads(body)["name"] == "trunc77", body


@pytest.mark.parametrize("path", ["/games", "/analysis/melds", "/challenges", "/matches"])
def test_behind_gunicorn_every_route_that_reads_a_body_refuses_a_cut_one(gunicorn_api, path):
    body = b'{"cards": ["AS", "2S", "3S"]}' if path == "/analysis/melds" else b"{}"
    status, headers, answer = _answer(gunicorn_api.port, _post(path, len(body) + 40), body)
    _refused_as_cut(status, headers, answer, len(body) + 40, len(body))


def test_behind_gunicorn_a_bodiless_answer_with_a_cut_body_is_refused_as_cut(gunicorn_api):
    # a challenge's accept takes no body: one announced and cut is still a request nobody read whole
    status, headers, body = _answer(gunicorn_api.port, _post("/challenges/nosuchchallenge/accept", 50), b"{")
    _refused_as_cut(status, headers, body, 50, 1)


def test_through_the_test_client_a_cut_body_is_refused_and_nothing_made(redis_url):
    app = make_app(redis_url, f"gbt{uuid.uuid4().hex[:12]}")
    client = app.test_client()
    # (the test client sets the Content-Length of the data it is given: the environ's is overridden)
    resp = client.post("/bots", input_stream=io.BytesIO(BODY), content_type="application/json",
                       environ_overrides={"CONTENT_LENGTH": "100"})
    assert resp.status_code == 400 and resp.mimetype == "application/problem+json", resp.get_data(as_text=True)
    assert resp.get_json()["code"] == "bad_request" and "100 bytes" in resp.get_json()["detail"]
    assert client.get("/bots/trunc77").status_code == 404
