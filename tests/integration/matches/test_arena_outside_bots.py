"""Two outside bots, each a process that speaks only HTTP (workers/arena_bot.py), against a real server
with real ``ginbox worker`` processes: they register, follow their streams, one accepts the other's
challenge, and they play 20-board duplicate matches to the end against each other and against
``basic``, all at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from service.rules import duplicate as D
from support.apiclient import ValidatingClient
from support.arena_fixtures import app, arena_settings, base, workers  # noqa: F401 (fixtures)
from test_matches import REPO, check_recorded_from_the_games, wait_over

pytestmark = pytest.mark.slow
BOARDS = 20


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix, extra={"stream_keepalive_s": 1.0, "stream_max_s": 20.0})





def bot_process(base: str, token: str, tmp_path, name: str, *args: str) -> subprocess.Popen:
    # the token in the environment, as the bot guide shows: out of the process list, and safe whatever it begins with
    return subprocess.Popen([sys.executable, "-m", "workers.arena_bot", base, "--threads", "16",
                             "--deadline", "600", *args],
                            cwd=REPO, env={**os.environ, "GINBOX_BOT_TOKEN": token}, stdout=subprocess.PIPE,
                            stderr=open(tmp_path / f"{name}.log", "wb"), text=True)


@pytest.mark.timeout(900)
def test_two_outside_bots_play_duplicate_matches_against_each_other_and_basic(app, base, workers, tmp_path):
    client = ValidatingClient(app)
    # registration is plain HTTP too: the bots get their tokens once
    tokens = {}
    for name in ("alpha", "beta"):
        resp = client.post("/bots", json={"name": name, "description": "an outside bot", "owner": "tests"})
        assert resp.status_code == 201
        tokens[name] = resp.get_json()["token"]
    workers.start()
    workers.start()
    bots = {
        "alpha": bot_process(base, tokens["alpha"], tmp_path, "alpha", "--exit-after-matches", "2"),
        "beta": bot_process(base, tokens["beta"], tmp_path, "beta", "--exit-after-matches", "2",
                            "--accept-challenges"),
    }
    try:
        # alpha challenges beta; beta's process sees it on its stream and accepts it
        challenge = client.post("/challenges", json={"to": "beta", "variant": "gin-rami", "boards": BOARDS},
                                token=tokens["alpha"]).get_json()
        end = time.monotonic() + 60
        while (c := client.get(f"/challenges/{challenge['challenge_id']}").get_json())["status"] == "pending":
            assert time.monotonic() < end, "beta never accepted the challenge"
            time.sleep(0.2)
        assert c["status"] == "accepted"
        matches = {"alpha-beta": c["match_id"]}
        for name in ("alpha", "beta"):
            resp = client.post("/matches", json={"variant": "gin-rami", "participants": [name, "basic"],
                                                 "boards": BOARDS}, token=tokens[name])  # the bot's consent
            assert resp.status_code == 201
            matches[f"{name}-basic"] = resp.get_json()["match_id"]
        finals = {key: wait_over(client, match_id, deadline_s=700) for key, match_id in matches.items()}
        outputs = {}
        for name, proc in bots.items():
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0, (tmp_path / f"{name}.log").read_text()
            outputs[name] = json.loads(out.strip().splitlines()[-1])
    finally:
        for proc in bots.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    for key, final in finals.items():
        assert final["boards_done"] == BOARDS and final["games_done"] == 2 * BOARDS, key
        totals = [s["total"] for s in final["standings"]]
        assert sum(totals) == pytest.approx(0)
        check_recorded_from_the_games(app, client, matches[key])
        assert client.get(f"/matches/{matches[key]}/audit").get_json()["ok"], key
    assert [p["name"] for p in finals["alpha-beta"]["participants"]] == ["alpha", "beta"]
    for name in ("alpha", "beta"):
        # each bot played its own seats: 2 matches of 2 x 20 games, every turn it had over HTTP
        assert outputs[name]["errors"] == []
        assert sorted(outputs[name]["matches"]) == sorted(m for k, m in matches.items() if name in k)
        assert outputs[name]["turns"] > 0
        profile = client.get(f"/bots/{name}").get_json()
        assert profile["matches"] == 2 and profile["games"] == 4 * BOARDS
        assert profile["ratings"]["gin-rami"]["games"] == 2 * BOARDS
    ratings = {r["name"]: r for r in client.get("/ratings").get_json()["ratings"]}
    assert set(ratings) == {"alpha", "beta", "basic"} and ratings["basic"]["games"] == 2 * BOARDS
    # every game of the matches was played by the bots' own tokens: none by a turn clock (there is none)
    for key, match_id in matches.items():
        for board in finals[key]["board_results"]:
            assert board["tables"][0]["game_id"] == D.game_id_for(match_id, board["board"], 0)
