"""``ginbox match --analyse``: a finished match's games analysed, summed per participant and decision kind."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service.analysis.by_kind import KINDS
from support.arena_fixtures import app, settings, worker_pool  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[3]
#: a row of the by-kind table: name, hands, one column per kind, then all
ROW = re.compile(r"^(\S+)\s+(\d+)" + r"\s+(-?[\d.]+)" * (len(KINDS) + 1) + r"$")


def by_kind_rows(output: str) -> dict[str, list[float]]:
    tail = output.split("points given away per hand, by decision kind", 1)[1]
    return {m.group(1): [float(g) for g in m.groups()[1:]]
            for m in (ROW.match(line.strip()) for line in tail.splitlines()) if m}


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read()


def ginbox(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_a_match_on_the_server_analysed_sums_each_games_analysis_per_participant(app, settings, tmp_path):  # noqa: F811
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    workers = worker_pool(settings, tmp_path)
    workers.start()
    try:
        proc = ginbox("match", "--participants", "basic,random", "--boards", "2", "--server", base,
                      "--analyse", "--samples", "2")
        assert proc.returncode == 0, proc.stderr
        match_id = re.search(r"match (\S+) on ", proc.stdout).group(1)
        match = json.loads(get(f"{base}/matches/{match_id}"))
        # each game analysed on its own with `ginbox analyse`, its per-seat totals summed by name
        given, hands = {"basic": 0.0, "random": 0.0}, {"basic": 0, "random": 0}
        for board in match["board_results"]:
            for table in board["tables"]:
                export = tmp_path / f"{table['game_id']}.ndjson"
                export.write_bytes(get(f"{base}/games/{table['game_id']}/export"))
                assert ginbox("analyse", str(export), "--samples", "2", "--out", str(tmp_path / "a.json")).returncode == 0
                result = json.loads((tmp_path / "a.json").read_text())
                for seat in result["seats"]:
                    given[seat["name"]] += seat["points_given_away"]
                    hands[seat["name"]] += result["game"]["hands"]
    finally:
        workers.stop_all()
        server.shutdown()
    assert "games analysed 4/4" in proc.stderr  # plain progress lines: stdout is no terminal
    rows = by_kind_rows(proc.stdout)
    assert set(rows) == {"basic", "random"}
    for name, row in rows.items():
        # two boards, two tables: a hand each, and one more for each hand drawn (it is dealt again)
        assert row[0] == hands[name] and hands[name] >= 4, (name, row, hands)
        assert row[-1] == pytest.approx(given[name] / hands[name], abs=0.01)
        assert row[-1] == pytest.approx(sum(row[1:-1]), abs=0.02)


def test_samples_without_analyse_is_a_usage_error():
    proc = ginbox("match", "--local", "--participants", "basic,random", "--boards", "1", "--samples", "4", timeout=60)
    assert proc.returncode == 2
    assert "--samples is the analysis's: give it with --analyse" in proc.stderr
