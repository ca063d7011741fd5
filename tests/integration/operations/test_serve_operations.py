"""`ginbox serve` in operation: a bot worker that dies is started again (and given up on when it
keeps dying), a Ctrl-C at the terminal stops everything cleanly, a port already taken is refused
before anything starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from support.serve_process import alive, launch, log_text, ready, start
from support.servers import kill9

from service.redis_process import free_port

BOT_WORKER = ["worker", "--queues", "turns,boards,archive"]


def _children(pid: int) -> dict[int, list[str]]:
    """The live processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and alive(int(entry.name)):
            found[int(entry.name)] = argv
    return found


def _bot_worker(serve_pid: int, other_than: int | None = None, seconds: float = 30) -> int:
    """The pid of the bot worker ``ginbox serve`` runs (a new one, when ``other_than`` is given)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pid, argv in _children(serve_pid).items():
            if argv[-len(BOT_WORKER) - 1:-1] == BOT_WORKER and pid != other_than:
                return pid
        time.sleep(0.1)
    raise AssertionError(f"no bot worker (other than {other_than}) below ginbox serve within {seconds} s")


def _wait_for(logs: Path, text: str, proc: subprocess.Popen, seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        err = log_text(logs, "err")
        if text in err:
            return err
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never came:\n{log_text(logs, 'err')}")


@pytest.mark.slow
def test_a_killed_bot_worker_is_started_again_and_the_api_stays_up(tmp_path):
    port = free_port()
    logs = tmp_path / "serve"
    proc = start(tmp_path / "data", port, logs, GINBOX_BOT_WORKERS="1")
    try:
        first = _bot_worker(proc.pid)
        os.kill(first, signal.SIGKILL)
        second = _bot_worker(proc.pid, other_than=first)
        assert proc.poll() is None, log_text(logs, "err")
        assert ready(port)
        err = _wait_for(logs, f"bot worker (pid {first})", proc)
        said = [line for line in err.splitlines() if f"pid {first}" in line]
        assert said == [f"ginbox: bot worker (pid {first}) killed by signal 9 (SIGKILL); starting it again"], err
        assert "stopping" not in err
        # the new one is a whole worker: it says which jobs it takes
        said = f"ginbox worker: pid {second}, taking turns then boards then archive jobs"
        deadline = time.monotonic() + 30
        while said not in log_text(logs, "out") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert said in log_text(logs, "out"), log_text(logs, "out")
        assert alive(second)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        finally:
            kill9(proc)
    assert proc.returncode == 0


@pytest.mark.slow
def test_a_bot_worker_that_keeps_dying_is_given_up_with_the_reason(tmp_path):
    port = free_port()
    logs = tmp_path / "serve"
    proc = start(tmp_path / "data", port, logs, GINBOX_BOT_WORKERS="1")
    try:
        # five deaths within 60 s: started again after the first four, given up at the fifth
        pid = None
        for _ in range(5):
            pid = _bot_worker(proc.pid, other_than=pid)
            os.kill(pid, signal.SIGKILL)
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ginbox serve did not give up within 60 s:\n{log_text(logs, 'err')}") from None
        err = log_text(logs, "err")
        assert code == 1, err
        assert err.count("; starting it again") == 4, err
        assert (f"ginbox: the bot worker cannot be kept running: 5 ends within 60 s (last: bot worker (pid {pid}) "
                "killed by signal 9 (SIGKILL))\nginbox: stopping") in err, err
        assert "Traceback" not in err
        assert not ready(port)
    finally:
        kill9(proc)


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` in the process tree."""
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for parent in frontier for child in _children(parent)} - found
        found |= frontier
    return found


@pytest.mark.slow
def test_ctrl_c_at_the_terminal_stops_everything_cleanly(tmp_path):
    """A terminal's Ctrl-C is SIGINT to its whole foreground process group: only ginbox serve is to
    take it, and stop its children in order (gunicorn's graceful stop, the workers, Redis last)."""
    port = free_port()
    logs = tmp_path / "serve"
    proc = start(tmp_path / "data", port, logs, GINBOX_BOT_WORKERS="1", GINBOX_TURN_WORKERS="1")
    try:
        _bot_worker(proc.pid)
        deadline = time.monotonic() + 30
        while log_text(logs, "out").count("ginbox worker: pid ") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        children = _descendants(proc.pid)
        assert len(children) >= 5  # redis-server, two workers, gunicorn and its API process
        os.killpg(proc.pid, signal.SIGINT)  # the group serve leads, as the terminal's is
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ginbox serve did not stop within 60 s:\n{log_text(logs, 'err')}") from None
        out, err = log_text(logs, "out"), log_text(logs, "err")
        assert code == 0, err
        assert "Traceback" not in out + err and "SystemExit" not in out + err, err
        assert not [pid for pid in children if alive(pid)], "children of ginbox serve outlived it"
    finally:
        kill9(proc)


def test_a_port_already_in_use_is_refused_before_anything_starts(tmp_path):
    data = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = launch(data, port, tmp_path / "serve", GINBOX_BOT_WORKERS="1")
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ginbox serve did not refuse within 60 s:\n{log_text(tmp_path / 'serve', 'err')}") from None
        finally:
            kill9(proc)
    err, out = log_text(tmp_path / "serve", "err"), log_text(tmp_path / "serve", "out")
    assert code == 1, err
    assert err.splitlines() == [f"ginbox serve: refusing to start: port {port} on 127.0.0.1 is already in use: stop "
                                "what listens there, or give this server another port (--port, GINBOX_PORT)"], err
    assert out == ""  # no Redis, no worker, no API was started
    assert not (data / "redis").exists()


def test_an_address_this_machine_cannot_listen_on_is_refused_with_exit_2(tmp_path):
    proc = launch(tmp_path / "data", free_port(), tmp_path / "serve", GINBOX_HOST="no-such-host.invalid")
    try:
        code = proc.wait(60)
    finally:
        kill9(proc)
    err = log_text(tmp_path / "serve", "err")
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ginbox serve: refusing to start: cannot listen on "
                                                   "no-such-host.invalid:"), err
    assert log_text(tmp_path / "serve", "out") == ""
