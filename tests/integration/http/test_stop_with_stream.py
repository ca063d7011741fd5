"""A live stream ends as soon as its API process is asked to stop: the process does not wait out
gunicorn's graceful timeout for it. Under each worker class, with a real gunicorn."""

from __future__ import annotations

import json
import signal
import socket
import time
import uuid

import pytest
from support.servers import ApiServer, service_env

from service.cli import WORKER_CLASSES

#: far over what a stop takes, so that the test measures the streams and not a noisy machine
GRACEFUL_S = 10


def _post_json(port: int, path: str, body: dict) -> dict:
    data = json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
        raw = b""
        while part := s.recv(65536):
            raw += part
    head, _, payload = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 201 "), raw[:300]
    return json.loads(payload)


@pytest.mark.parametrize("worker_class", WORKER_CLASSES)
def test_sigterm_with_a_live_stream_open_ends_the_stream_and_the_server_well_within_the_graceful_timeout(
        redis_url, tmp_path, worker_class):
    env = service_env(redis_url, f"gbs{uuid.uuid4().hex[:12]}", GINBOX_RATE_LIMIT=10**9)
    server = ApiServer(env, tmp_path / "gunicorn.log", worker_class=worker_class,
                       extra_args=["--graceful-timeout", str(GRACEFUL_S)]).start()
    try:
        game = _post_json(server.port, "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None]})
        stream = socket.create_connection(("127.0.0.1", server.port), timeout=GRACEFUL_S * 3)
        stream.sendall(f"GET /games/{game['game_id']}/stream HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        seen = b""
        while b": connected" not in seen:
            part = stream.recv(65536)
            assert part, seen
            seen += part
        assert seen.startswith(b"HTTP/1.1 200 ")
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        with stream:  # the stream ends, and its connection is closed
            tail = b""
            while part := stream.recv(65536):
                tail += part
        ended = time.monotonic() - started
        server.proc.wait(GRACEFUL_S * 3)
        took = time.monotonic() - started
        print(f"\n{worker_class}: SIGTERM to the stream's end {ended:.2f} s, to exit {took:.2f} s "
              f"(graceful timeout {GRACEFUL_S} s)")
        assert tail.endswith(b"0\r\n\r\n"), repr(tail[-60:])  # the chunked answer ended properly
        assert server.proc.returncode == 0, server.log_text()[-2000:]
        assert "graceful timeout" not in server.log_text().lower()
        assert took < GRACEFUL_S / 2, f"{took:.2f} s"
    finally:
        server.stop()
