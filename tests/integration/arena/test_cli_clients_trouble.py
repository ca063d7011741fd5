"""The command-line clients on ordinary trouble: ``ginbox match`` (bad arguments, a server that
refuses the match, asks for time, goes away, or a Ctrl-C while the match goes on), and the bot
programs (a server URL that is not one, a URL with a path the server does not have, the line
that says the stream is connected)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from werkzeug.serving import make_server

from service.config import Settings
from service.redis_process import RedisServerProcess, free_port
from support.apiclient import ValidatingClient
from support.arena_fixtures import app, settings, worker_pool  # noqa: F401 (fixtures)
from support.cli_clients import STARTED, Served, ginbox_match, spawn_match, wait_for
from support.servers import REPO, ApiServer, HttpClient, WorkerPool, service_env
from workers import arena_match, outside_bot

def one_line_without_traceback(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    return lines[0]


# -- ginbox match: bad arguments -------------------------------------------------------------------


@pytest.mark.parametrize("args, says", [
    (["--boards", "0"], "1 to 1000 boards"),
    (["--boards", "5000"], "1 to 1000 boards"),
    (["--boards", "-3"], "1 to 1000 boards"),
    (["--participants", "basic"], "gin-rami needs 2 participants"),
    (["--variant", "three-hand"], "three-hand needs 3 participants"),
])
def test_a_local_match_with_bad_arguments_exits_2_with_one_line(args, says):
    argv = ["--local", "--participants", "basic,random", *args]
    done = ginbox_match(*argv)
    assert done.returncode == arena_match.EXIT_USAGE == 2
    line = one_line_without_traceback(done.stderr)
    assert line.startswith("ginbox match: ") and says in line
    assert done.stdout == ""


@pytest.mark.parametrize("server", ["notaurl", "127.0.0.1:8000", "ftp://127.0.0.1:8000", "http://"])
def test_a_server_that_is_not_a_url_exits_2_with_one_line(server):
    done = ginbox_match("--participants", "basic,random", "--boards", "1", "--server", server)
    assert done.returncode == 2
    line = one_line_without_traceback(done.stderr)
    assert "the server URL" in line and "http://" in line


@pytest.mark.parametrize("participants, boards, said", [
    ("basic," + "x" * 41, "1", ("400 invalid_body", "participants:")),  # with the field that was wrong
    ("basic,nobody-at-all", "1", ("422 unknown_participant",)),
])
def test_the_servers_refusal_is_printed_in_one_line_and_exits_2(app, participants, boards, said):  # noqa: F811
    served = Served(app)
    try:
        done = ginbox_match("--participants", participants, "--boards", boards, "--server", served.base)
    finally:
        served.stop()
    assert done.returncode == 2
    line = one_line_without_traceback(done.stderr)
    assert all(part in line for part in said), line


# -- ginbox match: the match goes on at the server ---------------------------------------------------


def follow_line(stderr: str, base: str, match_id: str) -> str:
    assert "Traceback" not in stderr, stderr
    last = [ln for ln in stderr.splitlines() if ln.strip()][-1]
    assert "the match goes on at the server" in last, stderr
    assert f"{base}/match/{match_id}" in last and f"GET {base}/matches/{match_id}" in last
    return last


def test_ctrl_c_leaves_the_match_running_and_says_how_to_follow_it(app, tmp_path):  # noqa: F811
    # no worker: the match stays in play
    served = Served(app)
    err = tmp_path / "match.err"
    proc = spawn_match(err, "--participants", "basic,random", "--boards", "3", "--server", served.base)
    try:
        found = wait_for(err, STARTED, proc)
        match_id, url = found.groups()
        assert url == f"{served.base}/match/{match_id}"
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        assert proc.returncode == arena_match.EXIT_INTERRUPTED == 130
        line = follow_line(err.read_text(), served.base, match_id)
        assert line.startswith("ginbox match: interrupted")
        match = ValidatingClient(app).get(f"/matches/{match_id}").get_json()
        assert match["status"] != "over" and match["boards"] == 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        served.stop()


@pytest.mark.slow
def test_a_server_that_goes_away_ends_the_follow_with_one_line_not_a_traceback(app, tmp_path):  # noqa: F811
    served = Served(app)
    err = tmp_path / "match.err"
    proc = spawn_match(err, "--participants", "basic,random", "--boards", "3", "--server", served.base)
    try:
        match_id = wait_for(err, STARTED, proc).group(1)
        served.stop()
        proc.communicate(timeout=arena_match.GIVE_UP_S + 60)
        assert proc.returncode == arena_match.EXIT_FAILED == 1
        stderr = err.read_text()
        assert "no answer" in stderr  # it waited before giving up
        line = follow_line(stderr, served.base, match_id)
        assert f"no answer from {served.base}" in line
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        served.stop()


@pytest.mark.slow
def test_a_429_at_post_matches_is_waited_out_and_the_match_followed_to_its_end(redis_url, key_prefix, tmp_path):
    limit = 4
    limited = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                       rate_limit_per_minute=limit, bot_stall_s=2.0)
    from service.app import create_app
    from service.composition import make_bot_scheduler

    served = Served(create_app(limited, bot_scheduler=make_bot_scheduler(limited)))
    workers = worker_pool(limited, tmp_path)
    workers.start()
    port = served.server.server_port
    try:
        # use up this address's requests of the minute
        statuses = [HttpClient("127.0.0.1", port).call("GET", "/matches/AAAAAAAAAAAAAAAA").status
                    for _ in range(limit + 1)]
        assert statuses[-1] == 429, statuses
        done = ginbox_match("--participants", "basic,random", "--boards", "1", "--server", served.base,
                            timeout=300)
    finally:
        workers.stop_all()
        served.stop()
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(r"POST /matches: 429 rate_limited: .*\(Retry-After: \d+\); waiting [\d.]+ s", done.stderr)
    match_id = STARTED.search(done.stderr).group(1)
    assert f"match {match_id} on {served.base}" in done.stdout


@pytest.mark.slow
def test_a_503_while_redis_is_down_is_waited_out_and_the_match_finished(tmp_path, key_prefix):
    redis = RedisServerProcess(tmp_path / "redis").start()
    api = None
    proc = None
    workers = WorkerPool(redis.url, key_prefix, tmp_path)
    try:
        api = ApiServer(service_env(redis.url, key_prefix), tmp_path / "gunicorn.log", workers=1).start()
        base = f"http://127.0.0.1:{api.port}"
        redis.stop()
        err = tmp_path / "match.err"
        proc = spawn_match(err, "--participants", "basic,random", "--boards", "2", "--server", base)
        deadline = time.monotonic() + 30
        while err.read_text().count("503 redis_unavailable") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert err.read_text().count("503 redis_unavailable") >= 2, err.read_text()
        assert proc.poll() is None, "ginbox match stopped during the outage"
        redis = RedisServerProcess(redis.data_dir, port=redis.port).start()
        workers.start()
        out, _ = proc.communicate(timeout=180)
        stderr = err.read_text()
        assert proc.returncode == 0, stderr
        assert "(Retry-After: 1)" in stderr and "Traceback" not in stderr
        match_id = STARTED.search(stderr).group(1)
        assert f"match {match_id} on {base}" in out
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        workers.stop_all()
        if api is not None:
            api.stop()
        redis.stop()


# -- the bot programs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["not-a-url", "127.0.0.1:18431", "ftp://127.0.0.1", "http://"])
@pytest.mark.parametrize("program, rest", [("workers.outside_bot", ["GAME", "TOKEN"]),
                                           ("workers.arena_bot", ["TOKEN"])])
def test_a_bot_given_a_server_url_that_is_not_one_exits_2_at_once(program, rest, url):
    done = subprocess.run([sys.executable, "-m", program, url, *rest, "--deadline", "20"], cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == outside_bot.EXIT_USAGE == 2
    line = one_line_without_traceback(done.stderr)
    assert "the server URL" in line and "http://" in line
    assert "waiting" not in done.stderr and "connecting again" not in done.stderr


def test_the_outside_bot_calls_a_404_of_no_game_a_wrong_server_url(app):  # noqa: F811
    served = Served(app)
    try:
        done = subprocess.run([sys.executable, "-m", "workers.outside_bot", served.base + "/api", "AAAAAAAAAAAAAAAA",
                               "TOKEN", "--deadline", "20"], cwd=REPO, capture_output=True, text=True, timeout=30)
    finally:
        served.stop()
    assert done.returncode == outside_bot.EXIT_USAGE == 2
    line = one_line_without_traceback(done.stderr)
    assert "404 not_found" in line and "server URL" in line and "no such game" not in line


def test_the_arena_bot_calls_a_404_on_its_stream_a_wrong_server_url(app):  # noqa: F811
    served = Served(app)
    try:
        done = subprocess.run([sys.executable, "-m", "workers.arena_bot", served.base + "/api", "TOKEN",
                               "--deadline", "20"], cwd=REPO, capture_output=True, text=True, timeout=30)
    finally:
        served.stop()
    assert done.returncode == 2
    line = one_line_without_traceback(done.stderr)
    assert "404 not_found" in line and "server URL" in line


def test_the_arena_bot_says_when_its_stream_is_connected(app, tmp_path):  # noqa: F811
    token = ValidatingClient(app).post("/bots", json={"name": "hello", "description": "says hello",
                                                      "owner": "tests"}).get_json()["token"]
    port = free_port()  # nothing listens there yet
    err = tmp_path / "bot.err"
    with open(err, "w") as out:
        bot = subprocess.Popen([sys.executable, "-m", "workers.arena_bot", f"http://127.0.0.1:{port}", token,
                                "--max-wait", "0.5", "--deadline", "120"], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=out, text=True)
    server = None
    try:
        wait_for(err, "connection failed", bot)
        assert "connected" not in err.read_text().replace("connection failed", "")
        server = make_server("127.0.0.1", port, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        line = wait_for(err, re.compile(r"arena_bot: stream: connected.*"), bot).group(0)
        assert line == f"arena_bot: stream: connected to http://127.0.0.1:{port}/bots/me/stream"
        assert "Traceback" not in err.read_text()
    finally:
        bot.kill()
        bot.wait()
        if server is not None:
            server.shutdown()
            server.server_close()


@pytest.mark.slow
def test_the_arena_bot_says_when_its_stream_is_connected_again_after_a_redis_outage(tmp_path, key_prefix):
    redis = RedisServerProcess(tmp_path / "redis").start()
    api = None
    bot = None
    try:
        api = ApiServer(service_env(redis.url, key_prefix), tmp_path / "gunicorn.log", workers=1).start()
        reply = HttpClient("127.0.0.1", api.port).call("POST", "/bots", {"name": "steady", "description": "waits",
                                                                        "owner": "tests"})
        assert reply.status == 201, reply.body
        err = tmp_path / "bot.err"
        with open(err, "w") as out:
            bot = subprocess.Popen([sys.executable, "-m", "workers.arena_bot", f"http://127.0.0.1:{api.port}",
                                    reply.body["token"], "--max-wait", "1", "--deadline", "120"], cwd=REPO,
                                   stdout=subprocess.PIPE, stderr=out, text=True)
        wait_for(err, "arena_bot: stream: connected to ", bot)
        redis.stop()
        wait_for(err, "503 redis_unavailable", bot)
        redis = RedisServerProcess(redis.data_dir, port=redis.port).start()
        line = wait_for(err, re.compile(r"arena_bot: stream: connected again after (\d+) failed attempts?"), bot)
        assert int(line.group(1)) >= 1
        text = err.read_text()
        assert text.count("stream: connected to ") == 1 and "Traceback" not in text, text
    finally:
        if bot is not None:
            bot.kill()
            bot.wait()
        if api is not None:
            api.stop()
        redis.stop()


def test_ctrl_c_stops_the_outside_bot_with_one_line_and_exit_130(app, tmp_path):  # noqa: F811
    client = ValidatingClient(app)
    # seat 0 (seat 1 deals) decides on the upcard first; after its move the turn is seat 1's, which
    # nobody plays: the bot is left waiting
    created = client.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                          "seats": [{"name": "bot"}, {"name": "idle"}]}).get_json()
    game_id, token = created["game_id"], created["seats"][0]["token"]
    before = client.get(f"/games/{game_id}").get_json()["version"]
    served = Served(app)
    err = tmp_path / "bot.err"
    with open(err, "w") as out:
        bot = subprocess.Popen([sys.executable, "-m", "workers.outside_bot", served.base, game_id, token,
                                "--poll", "0.05", "--deadline", "120"], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=out, text=True)
    try:
        deadline = time.monotonic() + 60
        while client.get(f"/games/{game_id}").get_json()["version"] == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert client.get(f"/games/{game_id}").get_json()["version"] > before, err.read_text()
        time.sleep(0.3)  # waiting for seat 1 now
        bot.send_signal(signal.SIGINT)
        out, _ = bot.communicate(timeout=30)
        assert bot.returncode == outside_bot.EXIT_INTERRUPTED == 130
        assert out == ""  # no final scores: the game is not over
        line = one_line_without_traceback(err.read_text())
        assert line.startswith("outside_bot: interrupted; the game goes on at the server")
        assert f"GET {served.base}/games/{game_id}" in line
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        served.stop()


def test_ctrl_c_stops_the_arena_bot_with_one_line_and_exit_130(app, tmp_path):  # noqa: F811
    token = ValidatingClient(app).post("/bots", json={"name": "stoppable", "description": "waits",
                                                      "owner": "tests"}).get_json()["token"]
    served = Served(app)
    err = tmp_path / "bot.err"
    with open(err, "w") as out:
        bot = subprocess.Popen([sys.executable, "-m", "workers.arena_bot", served.base, token, "--deadline", "120"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=out, text=True)
    try:
        wait_for(err, "arena_bot: stream: connected to ", bot)
        bot.send_signal(signal.SIGINT)
        out, _ = bot.communicate(timeout=30)
        assert bot.returncode == outside_bot.EXIT_INTERRUPTED == 130
        assert out == ""
        text = err.read_text()
        assert "Traceback" not in text, text
        last = [ln for ln in text.splitlines() if ln.strip()][-1]
        assert last.startswith("arena_bot: interrupted; the bot's games go on at the server"), text
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        served.stop()
