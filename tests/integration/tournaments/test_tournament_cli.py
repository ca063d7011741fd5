"""``ginbox tournament`` against a server: plain progress lines when stdout is no terminal, then the standings."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from support.arena_fixtures import app, settings, worker_pool  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[3]
ROW = re.compile(r"^\s*(\d+) (\S+)\s+([\d.]+)\s+(\d+)-(\d+)-(\d+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)$")


@pytest.mark.slow
def test_a_round_robin_on_the_server_is_followed_to_its_end(app, settings, tmp_path):  # noqa: F811
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    workers = worker_pool(settings, tmp_path)
    workers.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        proc = subprocess.run([sys.executable, "-m", "service.cli", "tournament", "--entries", "random,simple,basic",
                               "--boards", "1", "--server", base], cwd=REPO, capture_output=True, text=True,
                              timeout=240)
    finally:
        workers.stop_all()
        server.shutdown()
    assert proc.returncode == 0, proc.stderr
    # stdout is a pipe here: one plain line per pairing played, the page's address first
    assert re.search(r"tournament (\S{16}) started: " + re.escape(base) + r"/tournament/\1", proc.stderr)
    progress = re.findall(r"pairings (\d+)/3, round \d of 3", proc.stderr)
    assert progress[-1] == "3" and progress == sorted(progress, key=int)
    tournament_id = re.search(r"tournament (\S{16}) on ", proc.stdout).group(1)
    view = app.extensions["ginbox"].arena.tournament_view(tournament_id)
    rows = [ROW.match(line) for line in proc.stdout.splitlines()[2:]]
    assert all(rows), proc.stdout
    assert [(int(m.group(1)), m.group(2), float(m.group(3))) for m in rows] == [
        (r["rank"], r["name"], r["points"]) for r in view["standings"]]


def test_a_refused_tournament_exits_with_the_usage_code_and_the_problem(app, settings):  # noqa: F811
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        proc = subprocess.run([sys.executable, "-m", "service.cli", "tournament", "--system", "swiss", "--entries",
                               "basic", "--server", f"http://127.0.0.1:{server.server_port}"], cwd=REPO,
                              capture_output=True, text=True, timeout=60)
    finally:
        server.shutdown()
    assert proc.returncode == 2
    assert "tournament_too_small" in proc.stderr
