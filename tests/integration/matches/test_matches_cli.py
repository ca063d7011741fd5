"""``ginbox match``: in this process (--local) and against a server, the same table of results."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

import pytest
from werkzeug.serving import make_server

from service.rules import duplicate as D
from support.arena_fixtures import app, settings, worker_pool  # noqa: F401 (fixtures)
from test_matches import REPO
from workers.arena_match import run_local

ROW = re.compile(r"^(\S+)\s+(\d+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+\[(-?[\d.]+), (-?[\d.]+)\]$")


def rows(output: str) -> dict[str, tuple]:
    found = {}
    for line in output.splitlines():
        m = ROW.match(line.strip())
        if m:
            found[m.group(1)] = tuple(float(g) for g in m.groups()[1:])
    return found


def test_local_match_prints_each_participants_total_mean_and_interval():
    proc = subprocess.run([sys.executable, "-m", "service.cli", "match", "--local", "--participants", "basic,random",
                           "--boards", "6"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    table = rows(proc.stdout)
    assert set(table) == {"basic", "random"}
    boards, total, mean, low, high = table["basic"]
    assert boards == 6 and mean == pytest.approx(total / 6, abs=0.01) and low <= mean <= high
    assert table["random"][1] == pytest.approx(-total)


def test_local_match_scores_boards_as_the_pure_module_does_and_refuses_bot_accounts():
    state = run_local("gin-rami", ["basic", "basic"], 3, seed=b"k" * 32)
    # a policy against itself: each board's two tables hold the same cards for the same policy
    assert [s["name"] for s in D.standings(state)] == ["basic", "basic-2"]
    assert all(scores == [0.0, 0.0] for scores in D.board_scores(state).values())
    assert D.verify(state, {i: None for i in range(6)})[0]["ok"]  # the seed revealed is the one committed
    with pytest.raises(ValueError):
        run_local("gin-rami", ["basic", "alpha"], 1)


@pytest.mark.slow
def test_a_match_on_the_server_follows_the_match_to_its_end(app, settings, tmp_path):  # noqa: F811
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    workers = worker_pool(settings, tmp_path)
    workers.start()
    try:
        proc = subprocess.run([sys.executable, "-m", "service.cli", "match", "--participants", "basic,random",
                               "--boards", "2", "--server", f"http://127.0.0.1:{server.server_port}"],
                              cwd=REPO, capture_output=True, text=True, timeout=240)
    finally:
        workers.stop_all()
        server.shutdown()
    assert proc.returncode == 0, proc.stderr
    assert "match " in proc.stdout, (proc.stdout, proc.stderr[-2000:])
    table = rows(proc.stdout)
    assert table["basic"][0] == 2 and table["basic"][1] == pytest.approx(-table["random"][1])
