"""`ginbox serve` with no REDIS_URL: embedded Redis, ready, games survive a restart; one server
per data directory, none of its children outlives a kill -9 of it, and a killed redis-server is
started again on the same data and port."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from support.randomplay import choose_move
from support.serve_process import alive, launch, log_text, ready, start
from support.servers import HttpClient, kill9

from service.redis_process import find_redis_server, free_port

LOCK_FILE = "serve.lock"


def _get(url: str, timeout: float = 2.0):
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read() or b"null")


def _post(url: str, body: dict):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return resp.status, json.loads(resp.read())


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)




def _lock_info(data_dir) -> dict:
    """What the running server wrote into its lock file (retried: it is rewritten in place)."""
    for _ in range(50):
        try:
            return json.loads((Path(data_dir) / LOCK_FILE).read_text())
        except (FileNotFoundError, ValueError):
            time.sleep(0.1)
    raise AssertionError("no readable lock file in the data directory")


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` in the process tree, read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _redis_pid(serve_pid: int) -> int | None:
    """The pid of the redis-server below ``serve_pid``, if one runs."""
    for pid in _descendants(serve_pid):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "redis-server" and alive(pid):
                return pid
        except OSError:
            continue
    return None


def _create_game(port: int) -> tuple[str, dict]:
    status, created = _post(f"http://127.0.0.1:{port}/games",
                            {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def _play(client: HttpClient, game_id: str, tokens: dict, moves: int, rng: random.Random) -> int:
    """Play ``moves`` acknowledged moves; the version the last one's ETag named."""
    version = 0
    for _ in range(moves):
        spectator = client.call("GET", f"/games/{game_id}")
        assert spectator.status == 200, spectator.body
        seat = spectator.body["to_act"][0]
        view = client.call("GET", f"/games/{game_id}", token=tokens[seat])
        reply = client.call("POST", f"/games/{game_id}/moves", choose_move(view.body, rng), token=tokens[seat],
                            headers={"If-Match": f'"{view.body["version"]}"'})
        assert reply.status == 200, reply.body
        version = reply.version
    return version


@pytest.mark.slow
def test_serve_without_redis_url_is_ready_and_keeps_games_across_a_restart(tmp_path):
    port = free_port()
    proc = start(tmp_path, port)
    try:
        status, created = _post(f"http://127.0.0.1:{port}/games",
                                {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert status == 201
        game_id = created["game_id"]
        _, before = _get(f"http://127.0.0.1:{port}/games/{game_id}")
    finally:
        _stop(proc)
    # the embedded Redis kept its append-only file under the data directory
    assert (tmp_path / "redis").is_dir()

    port = free_port()
    proc = start(tmp_path, port)
    try:
        status, after = _get(f"http://127.0.0.1:{port}/games/{game_id}")
        assert status == 200
        assert after == before
    finally:
        _stop(proc)


@pytest.mark.slow
def test_two_servers_share_no_control_socket_in_the_home_directory(tmp_path):
    """gunicorn 27 opens a control socket at ~/.gunicorn/gunicorn.ctl unless told otherwise: every
    `ginbox serve` of one user would share that path, and stopping one deleted the other's. The
    API's gunicorn runs without one (nothing of ginbox uses it)."""
    home = tmp_path / "home"
    home.mkdir()
    first = start(tmp_path / "a", free_port(), tmp_path / "a-serve", HOME=str(home))
    try:
        second = start(tmp_path / "b", free_port(), tmp_path / "b-serve", HOME=str(home))
        _stop(second)
        assert first.poll() is None
    finally:
        _stop(first)
    assert not (home / ".gunicorn").exists(), sorted(p.name for p in (home / ".gunicorn").iterdir())
    # and it says at start how many requests a minute each caller may send
    assert re.search(r"^ginbox: rate limit \d+ requests a minute per token", log_text(tmp_path / "a-serve", "out"), re.M)


@pytest.mark.slow
def test_one_server_per_data_dir_and_none_of_its_children_outlives_a_kill9(tmp_path):
    data = tmp_path / "data"
    port = free_port()
    first = start(data, port, tmp_path / "first", GINBOX_BOT_WORKERS="1", GINBOX_TURN_WORKERS="1")
    children: set[int] = set()
    try:
        game_id, _ = _create_game(port)
        _, before = _get(f"http://127.0.0.1:{port}/games/{game_id}")
        redis_pid = _redis_pid(first.pid)
        assert redis_pid

        # a second server on the same data directory refuses before it starts anything
        second_port = free_port()
        second = launch(data, second_port, tmp_path / "second")
        deadline = time.monotonic() + 30
        while second.poll() is None and time.monotonic() < deadline:
            if ready(second_port):
                kill9(second)
                raise AssertionError("a second ginbox serve started on the data directory of a running one")
            time.sleep(0.1)
        if second.poll() is None:
            kill9(second)
            raise AssertionError("the second ginbox serve neither refused nor started within 30 s")
        err = log_text(tmp_path / "second", "err")
        assert second.returncode != 0
        assert str(data.resolve()) in err and f"pid {first.pid}" in err and f":{port}" in err, err
        assert not (data / "redis" / "redis.log").read_text().count("Server initialized") > 1  # one Redis ever
        assert _get(f"http://127.0.0.1:{port}/games/{game_id}") == (200, before)
        # the lock file names the server and its Redis
        info = _lock_info(data)
        assert (info["pid"], info["redis_pid"], info["api"]) == (first.pid, redis_pid, f"http://127.0.0.1:{port}")

        # kill -9 of the server alone: every child (the API, the bot worker, redis-server) is orphaned
        # and must die with it
        children = _descendants(first.pid)
        assert redis_pid in children
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in children if alive(pid)], "children of the killed server still run"
    finally:
        kill9(first)
        for pid in children:  # whatever outlived it (if the test failed), so that nothing is left behind
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

    port = free_port()
    third = start(data, port, tmp_path / "third")
    try:
        assert _get(f"http://127.0.0.1:{port}/games/{game_id}") == (200, before)
    finally:
        _stop(third)
    assert third.returncode == 0


@pytest.mark.slow
def test_serve_restarts_a_killed_redis_server_and_keeps_every_acknowledged_move(tmp_path):
    data = tmp_path / "data"
    port = free_port()
    proc = start(data, port, tmp_path / "serve")
    client = HttpClient("127.0.0.1", port, timeout=10)
    rng = random.Random(20261201)
    try:
        game_id, tokens = _create_game(port)
        acked = _play(client, game_id, tokens, 12, rng)
        redis_pid = _redis_pid(proc.pid)
        assert redis_pid

        os.kill(redis_pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        # ready, and the lock file names the new redis-server (written just after it answers)
        while (_redis_pid(proc.pid) in (None, redis_pid) or not ready(port)
               or _lock_info(data)["redis_pid"] != _redis_pid(proc.pid)):
            assert proc.poll() is None, log_text(tmp_path / "serve", "err")
            assert time.monotonic() < deadline, f"Redis did not come back within 30 s:\n{log_text(tmp_path / 'serve', 'err')}"
            time.sleep(0.2)
        # the API's REDIS_URL did not change: Redis is back on the same port and the API reconnected
        assert _lock_info(data)["redis_pid"] == _redis_pid(proc.pid)

        acked = _play(client, game_id, tokens, 4, rng)
        events = client.call("GET", f"/games/{game_id}/events?after=0&limit=500", token=tokens[0]).body["events"]
        assert [e["version"] for e in events] == list(range(1, acked + 1))
        err = log_text(tmp_path / "serve", "err")
        assert f"redis-server (pid {redis_pid}) died" in err and "SIGKILL" in err and "restarted" in err, err
    finally:
        client.close()
        _stop(proc)
    assert proc.returncode == 0


@pytest.mark.slow
def test_serve_stops_with_the_reason_when_redis_server_cannot_come_back(tmp_path):
    data = tmp_path / "data"
    # a redis-server that starts once; every later start fails at once
    wrapper = tmp_path / "redis-server-once"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ -e "{tmp_path}/started" ]; then echo "this redis-server refuses to start again" >&2; exit 1; fi\n'
        f'touch "{tmp_path}/started"\n'
        f'exec "{find_redis_server()}" "$@"\n'
    )
    wrapper.chmod(0o755)
    port = free_port()
    proc = start(data, port, tmp_path / "serve", GINBOX_REDIS_SERVER=str(wrapper))
    try:
        redis_pid = _redis_pid(proc.pid)
        assert redis_pid
        os.kill(redis_pid, signal.SIGKILL)
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ginbox serve did not give up within 60 s:\n{log_text(tmp_path / 'serve', 'err')}")
        err = log_text(tmp_path / "serve", "err")
        assert code != 0
        assert f"redis-server (pid {redis_pid}) died" in err, err
        assert "this redis-server refuses to start again" in err, err  # the tail of redis.log
        assert not [pid for pid in _descendants(proc.pid) if alive(pid)]
        assert not ready(port)  # the API went with it
    finally:
        kill9(proc)
