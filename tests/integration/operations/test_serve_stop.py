"""How ``ginbox serve`` stops on SIGTERM: gunicorn's graceful stop ends by itself even while a live
stream is open (the stream is cut, not waited for until ``ginbox serve`` kills gunicorn), it exits 0,
and what was acknowledged just before the stop is there after a restart."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import threading
import urllib.request

import pytest

from support.randomplay import choose_move
from support.serve_process import log_text, start
from support.servers import HttpClient, kill9

from service.redis_process import free_port


def _post(url: str, body: dict, headers: dict | None = None):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _get(url: str):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _hold_stream(url: str, opened: threading.Event) -> None:
    """Read a live stream until the server ends it (or the test process ends)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:
            resp.readline()
            opened.set()
            while resp.readline():
                pass
    except OSError:
        pass


@pytest.mark.slow
def test_sigterm_stops_gunicorn_gracefully_with_a_stream_open_and_keeps_the_last_move(tmp_path):
    data, logs = tmp_path / "data", tmp_path / "serve"
    port = free_port()
    proc = start(data, port, logs)
    base = f"http://127.0.0.1:{port}"
    try:
        status, created = _post(f"{base}/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert status == 201
        game_id = created["game_id"]
        opened = threading.Event()
        threading.Thread(target=_hold_stream, args=(f"{base}/games/{game_id}/stream", opened), daemon=True).start()
        assert opened.wait(30), "the stream did not open"
        # a move acknowledged just before the stop
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        client = HttpClient("127.0.0.1", port)
        seat = client.call("GET", f"/games/{game_id}").body["to_act"][0]
        view = client.call("GET", f"/games/{game_id}", token=tokens[seat])
        reply = client.call("POST", f"/games/{game_id}/moves", choose_move(view.body, random.Random(1)),
                            token=tokens[seat], headers={"If-Match": f'"{view.body["version"]}"'})
        assert reply.status == 200, reply.body
        acknowledged = reply.version
        client.close()

        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ginbox serve did not stop:\n{log_text(logs, 'err')}") from None
        err = log_text(logs, "err")
        assert code == 0, err
        # gunicorn ended its own graceful stop (its last line), rather than being killed by ginbox serve
        assert "did not stop within" not in err, err
        assert "Shutting down: Master" in err, err
    finally:
        kill9(proc)

    port = free_port()
    proc = start(data, port, logs)
    try:
        status, after = _get(f"http://127.0.0.1:{port}/games/{game_id}")
        assert status == 200
        assert after["version"] == acknowledged
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        finally:
            kill9(proc)
