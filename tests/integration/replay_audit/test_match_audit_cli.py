"""``ginbox audit --match MATCH.json EXPORT...``: a finished duplicate match checked offline, with no
server, from what anyone can download once it is over: ``GET /matches/{id}`` and each table's
``GET /games/{id}/export`` (service/docs/FAIRNESS.md, "Checking a match").

Two real matches on a real Redis: built-in policies played by real ``ginbox worker`` processes, and
a challenge between two bot accounts whose board the challenger resigns at both tables (a forfeit,
no worker needed). The test first holds the server's match document against the documents'
scoring (a table's points from its game's hand results, or a forfeit of the largest bonus plus
the resigning seat's least deadwood, by the tests' own card maths; a board's scores, each seat's
points minus the other's summed over the tables; the totals), then runs the command, as a
program, on the downloads: they pass, and a game left out, a game of the other match in place
of one, an edited standing and a table dealt other cards each fail, saying what.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from service.app import create_app
from service.composition import make_bot_scheduler
from support.apiclient import ValidatingClient
from support.arena_fixtures import arena_settings, worker_pool
from support.cardmath import min_deadwood
from support.servers import REPO

pytestmark = pytest.mark.slow

BIG_GIN = 30  # gin-rami's largest bonus by default (gin 20, big gin 30, undercut 10)
MATCH_DEADLINE_S = 240


def ginbox_audit(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", "audit", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def lines_of(done: subprocess.CompletedProcess) -> dict:
    """{check name: (PASS or FAIL, detail)} and the last line, of the command's output."""
    out = done.stdout.splitlines()
    checks = {}
    for line in out[:-1]:
        verdict, _, rest = line.partition("  ")
        name, _, detail = rest.partition(": ")
        checks[name] = (verdict, detail)
    return {"checks": checks, "last": out[-1] if out else ""}


def download(client, match_id: str, into: Path) -> tuple[dict, dict]:
    """The match's document and every table's export, written into ``into`` as an auditor would
    (match.json, <game id>.ndjson); (the document, {(board, table): export lines})."""
    into.mkdir()
    resp = client.get(f"/matches/{match_id}")
    assert resp.status_code == 200
    (into / "match.json").write_text(resp.get_data(as_text=True))
    match = resp.get_json()
    exports = {}
    for board in match["board_results"]:
        for table in board["tables"]:
            text = client.get(f"/games/{table['game_id']}/export").get_data(as_text=True)
            (into / f"{table['game_id']}.ndjson").write_text(text)
            exports[board["board"], table["table"]] = [json.loads(line) for line in text.splitlines()]
    return match, exports


def hand_points(lines: list[dict], seats: int) -> list[int]:
    """A game's points seat by seat: each scored hand's points to its winner."""
    points = [0] * seats
    for ln in lines:
        if ln.get("type") == "hand_scored" and ln["data"].get("winner") is not None:
            points[ln["data"]["winner"]] += ln["data"]["points"]
    return points


@pytest.fixture(scope="module")
def matches(redis_url, tmp_path_factory):
    """The two finished matches, downloaded: {"policies": dir, "forfeit": dir, ...documents and exports}."""
    settings = arena_settings(redis_url, f"gbt{uuid.uuid4().hex[:12]}")
    client = ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)))
    workers = worker_pool(settings, tmp_path_factory.mktemp("workers"))
    root = tmp_path_factory.mktemp("downloads")
    try:
        made = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2})
        assert made.status_code == 201, made.get_data(as_text=True)
        policies_id = made.get_json()["match_id"]
        workers.start()

        # beta challenges alpha to one board and resigns it at both tables (no worker moves a bot account)
        tokens = {name: client.post("/bots", json={"name": name}).get_json()["token"] for name in ("alpha", "beta")}
        challenge = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 1},
                                token=tokens["beta"]).get_json()
        forfeit_id = client.post(f"/challenges/{challenge['challenge_id']}/accept",
                                 token=tokens["alpha"]).get_json()["match_id"]
        forfeit_match = client.get(f"/matches/{forfeit_id}").get_json()
        deadwood = []
        for table in forfeit_match["board_results"][0]["tables"]:
            view = client.get(f"/games/{table['game_id']}", token=tokens["beta"]).get_json()
            deadwood.append(min_deadwood(view["hand"]))
            resp = client.post(f"/games/{table['game_id']}/moves", json={"type": "resign"}, token=tokens["beta"])
            assert resp.status_code == 200, resp.get_data(as_text=True)

        end = time.monotonic() + MATCH_DEADLINE_S
        while client.get(f"/matches/{policies_id}").get_json()["status"] != "over":
            assert time.monotonic() < end, "the match of policies did not end"
            time.sleep(0.3)
        policies, policy_exports = download(client, policies_id, root / "policies")
        forfeit, forfeit_exports = download(client, forfeit_id, root / "forfeit")
    finally:
        workers.stop_all()
    return {"policies": root / "policies", "forfeit": root / "forfeit", "deadwood": deadwood,
            "policy_match": policies, "policy_exports": policy_exports,
            "forfeit_match": forfeit, "forfeit_exports": forfeit_exports}


def copy_of(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_text(f.read_text())
    return dst


def test_the_server_documents_agree_with_the_documented_scoring(matches):
    # the policies' match: each board's scores from its tables' points, seat 1 and 0 swapped at table 1
    match, exports = matches["policy_match"], matches["policy_exports"]
    totals = {"basic": 0, "random": 0}
    for board in match["board_results"]:
        t0, t1 = (hand_points(exports[board["board"], t], 2) for t in range(2))
        assert [t["points"] for t in board["tables"]] == [t0, t1]
        basic = (t0[0] - t0[1]) + (t1[1] - t1[0])
        assert board["scores"] == {"basic": basic, "random": -basic}
        totals["basic"] += basic
        totals["random"] -= basic
    assert {s["name"]: s["total"] for s in match["standings"]} == totals
    # the forfeit: alpha scores 30 plus beta's least deadwood at each table (beta sits seat 0, then 1)
    d0, d1 = matches["deadwood"]
    board = matches["forfeit_match"]["board_results"][0]
    assert [t["points"] for t in board["tables"]] == [[0, BIG_GIN + d0], [BIG_GIN + d1, 0]]
    assert board["scores"] == {"beta": -(2 * BIG_GIN + d0 + d1), "alpha": 2 * BIG_GIN + d0 + d1}


@pytest.mark.parametrize("which", ["policies", "forfeit"])
def test_a_finished_match_passes_from_its_downloads_alone(matches, which):
    folder = matches[which]
    exports = sorted(folder.glob("*.ndjson"))
    done = ginbox_audit("--match", folder / "match.json", *exports)
    assert done.returncode == 0, done.stdout + done.stderr
    out = lines_of(done)
    assert out["last"].startswith("audit passed: ")
    boards = 2 if which == "policies" else 1
    expected = ["match", "commitment", "games"]
    for b in range(boards):
        expected += [f"game_{b}_0", f"game_{b}_1", f"board_{b}", f"points_{b}"]
    assert list(out["checks"]) == expected + ["standings"]
    assert all(verdict == "PASS" for verdict, _ in out["checks"].values())
    if which == "forfeit":
        assert "forfeit" in out["checks"]["points_0"][1]
    # a directory stands for its exports
    assert ginbox_audit("--match", folder / "match.json", folder).returncode == 0


def test_a_game_left_out_fails_naming_its_board_and_table(matches, tmp_path):
    folder = copy_of(matches["policies"], tmp_path / "m")
    game_id = matches["policy_match"]["board_results"][1]["tables"][0]["game_id"]
    (folder / f"{game_id}.ndjson").unlink()
    done = ginbox_audit("--match", folder / "match.json", folder)
    assert done.returncode == 1
    out = lines_of(done)
    assert out["checks"]["games"][0] == "FAIL"
    assert f"board 1, table 0 (game {game_id}) has no export" in out["checks"]["games"][1]
    assert out["last"].startswith("audit FAILED: ") and "games" in out["last"]


def test_a_game_of_another_match_in_place_of_one_fails(matches, tmp_path):
    folder = copy_of(matches["policies"], tmp_path / "m")
    game_id = matches["policy_match"]["board_results"][0]["tables"][0]["game_id"]
    stranger = matches["forfeit_match"]["board_results"][0]["tables"][0]["game_id"]
    (folder / f"{game_id}.ndjson").write_text((matches["forfeit"] / f"{stranger}.ndjson").read_text())
    done = ginbox_audit("--match", folder / "match.json", folder)
    assert done.returncode == 1
    detail = lines_of(done)["checks"]["games"][1]
    assert f"{game_id}.ndjson is none of the match's games" in detail
    assert f"board 0, table 0 (game {game_id}) has no export" in detail


def test_an_edited_standing_fails_with_the_total_the_games_give(matches, tmp_path):
    folder = copy_of(matches["policies"], tmp_path / "m")
    match = json.loads((folder / "match.json").read_text())
    basic = next(s for s in match["standings"] if s["name"] == "basic")
    true_total = basic["total"]
    basic["total"] = true_total + 5
    (folder / "match.json").write_text(json.dumps(match))
    done = ginbox_audit("--match", folder / "match.json", folder)
    assert done.returncode == 1
    out = lines_of(done)
    assert [n for n, (v, _) in out["checks"].items() if v == "FAIL"] == ["standings"]
    assert f"basic's total is {true_total + 5:g}, the games give {true_total:g}" in out["checks"]["standings"][1]


def test_a_table_dealt_other_cards_than_its_board_fails(matches, tmp_path):
    folder = copy_of(matches["policies"], tmp_path / "m")
    game_id = matches["policy_match"]["board_results"][0]["tables"][1]["game_id"]
    lines = [json.loads(line) for line in (folder / f"{game_id}.ndjson").read_text().splitlines()]
    deck = next(ln for ln in lines if ln.get("type") == "hand_dealt")["data"]["deck"]
    deck[0], deck[-1] = deck[-1], deck[0]
    (folder / f"{game_id}.ndjson").write_text("".join(json.dumps(ln) + "\n" for ln in lines))
    done = ginbox_audit("--match", folder / "match.json", folder)
    assert done.returncode == 1
    board = lines_of(done)["checks"]["board_0"]
    assert board[0] == "FAIL"
    assert "table 1's deck of hand 1 is not the one the board's seed deals" in board[1]
    assert "hand 1 was dealt other cards at table 1 than at table 0" in board[1]


def test_a_file_that_cannot_be_read_exits_2(matches, tmp_path):
    done = ginbox_audit("--match", tmp_path / "absent.json", matches["policies"])
    assert done.returncode == 2 and "cannot read" in done.stderr
