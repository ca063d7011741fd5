"""How long ``ginbox serve`` takes to stop on SIGTERM, and which of its children ends when.

Each case starts a fresh ``ginbox serve`` (embedded Redis, a data directory of its own, a free
port), waits until it is ready, sets up the case, sends SIGTERM and times the exit; the children
(read from /proc, Linux) are timed as they end. Cases: the default server (a turn worker and a bot
worker), no bot workers, a live stream open (as a browser's page holds one), and a match of experts
in play (a bot worker in the middle of a board game).

    python tests/bench/bench_serve_stop.py
    python tests/bench/bench_serve_stop.py --case stream --runs 3

The script prints figures and never fails on them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def post(port: int, path: str, body: dict) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid``, with the start of its command line."""
    parents, names = {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                names[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:70]
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return {p: names.get(p, "?") for p in found}


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def hold_stream(port: int, game_id: str) -> None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/games/{game_id}/stream", timeout=120) as resp:
            while resp.readline():
                pass
    except OSError:
        pass


def run(case: str) -> tuple[float, int, list[tuple[float, str]]]:
    """(seconds from SIGTERM to exit, exit status, [(seconds, child) as each child ended])."""
    with tempfile.TemporaryDirectory(prefix="ginbox-stop-") as data:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PROMETHEUS_MULTIPROC_DIR")}
        env["GINBOX_DATA_DIR"] = data
        if case == "no-workers":
            env.update(GINBOX_BOT_WORKERS="0", GINBOX_TURN_WORKERS="0")
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], cwd=REPO,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 90
            while not ready(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("ginbox serve did not become ready")
                time.sleep(0.1)
            time.sleep(1.5)  # the workers' start-up
            if case == "stream":
                game = post(port, "/games", {"variant": "gin-rami", "seats": [{"name": "a"}, None]})
                threading.Thread(target=hold_stream, args=(port, game["game_id"]), daemon=True).start()
                time.sleep(1)
            elif case == "match":
                post(port, "/matches", {"variant": "gin-rami", "participants": ["expert", "expert"], "boards": 20})
                time.sleep(4)
            children = descendants(proc.pid)
            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            ended: dict[int, float] = {}
            while proc.poll() is None:
                for pid in children:
                    if pid not in ended and not alive(pid):
                        ended[pid] = time.monotonic() - t0
                time.sleep(0.02)
            took = time.monotonic() - t0
            return took, proc.returncode, sorted((s, children[p]) for p, s in ended.items())
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def main() -> None:
    cases = ("default", "no-workers", "stream", "match")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=cases, action="append", help="the cases to run (default: all)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--children", action="store_true", help="also print when each child ended")
    args = parser.parse_args()
    for case in args.case or cases:
        for _ in range(args.runs):
            took, code, ended = run(case)
            print(f"{case:<11} stopped in {took:5.2f} s, exit status {code}", flush=True)
            if args.children:
                for seconds, name in ended:
                    print(f"    {seconds:5.2f} s  {name}")


if __name__ == "__main__":
    main()
